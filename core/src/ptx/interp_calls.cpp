// Calls: device functions on the calling lane's fiber stack (a frame's
// registers and local depot), indirect calls through function addresses, and
// the toolkit's functions a module declares (printf through vprintf, assert).
#include <alloca.h>

#include <cstdio>
#include <mutex>

#include "interp.h"
#include "lower.h"

namespace wl::ptx::detail {

const char* Interpreter::host_string(std::uint64_t generic, const Instr& in)
{
    if (generic >= kLocalWindow && generic < kLocalWindow + kWindowSize) return reinterpret_cast<const char*>(t_->local + (generic - kLocalWindow));
    if (generic >= kSharedWindow) return reinterpret_cast<const char*>(t_->arena + (generic - kSharedWindow));
    if (generic == 0) fail(in, "a null string pointer");
    return reinterpret_cast<const char*>(generic);
}

// printf's format with the argument buffer vprintf gets (each argument aligned to its size).
std::string Interpreter::format(std::uint64_t fmt_addr, std::uint64_t args_addr, const Instr& in)
{
    const char* fmt = host_string(fmt_addr, in);
    const unsigned char* args = args_addr ? reinterpret_cast<const unsigned char*>(host_string(args_addr, in)) : nullptr;
    std::size_t at = 0;
    auto take = [&](unsigned size) {
        std::uint64_t v = 0;
        at = (at + size - 1) / size * size;
        if (args) std::memcpy(&v, args + at, size);
        at += size;
        return v;
    };
    std::string out;
    for (const char* p = fmt; *p; ++p) {
        if (*p != '%') { out += *p; continue; }
        if (p[1] == '%') { out += '%'; ++p; continue; }
        std::string spec = "%";
        ++p;
        while (*p && std::strchr("-+ #0123456789.*", *p)) spec += *p++;
        int longs = 0;
        while (*p == 'l' || *p == 'h' || *p == 'z' || *p == 'j' || *p == 't') { if (*p == 'l' || *p == 'z' || *p == 'j' || *p == 't') ++longs; ++p; }
        if (!*p) break;
        const char conv = *p;
        char buf[512];
        switch (conv) {
        case 'd': case 'i':
            if (longs) std::snprintf(buf, sizeof buf, (spec + "lld").c_str(), static_cast<long long>(take(8)));
            else std::snprintf(buf, sizeof buf, (spec + "d").c_str(), static_cast<int>(take(4)));
            break;
        case 'u': case 'x': case 'X': case 'o': case 'c':
            if (longs && conv != 'c') std::snprintf(buf, sizeof buf, (spec + "ll" + conv).c_str(), static_cast<unsigned long long>(take(8)));
            else std::snprintf(buf, sizeof buf, (spec + conv).c_str(), static_cast<unsigned>(take(4)));
            break;
        case 'f': case 'F': case 'e': case 'E': case 'g': case 'G': case 'a': case 'A':
            std::snprintf(buf, sizeof buf, (spec + conv).c_str(), f64(take(8)));
            break;
        case 'p': std::snprintf(buf, sizeof buf, "%p", reinterpret_cast<void*>(take(8))); break;
        case 's': std::snprintf(buf, sizeof buf, (spec + "s").c_str(), host_string(take(8), in)); break;
        default: std::snprintf(buf, sizeof buf, "%%%c", conv);
        }
        out += buf;
    }
    return out;
}

// A call of a function the module only declares. nvcc leaves a __device__ function of another
// file so only where that file is compiled apart (-rdc=true), which warplab does not link; the
// toolkit's own functions, which start with "__", are those the emulator lacks.
static std::string undefined_call(const std::string& mangled)
{
    const std::string name = without_return_type(demangle(mangled));
    if (name == mangled || mangled.starts_with("__"))
        return "call of '" + mangled + "', which this PTX declares but does not define (a toolkit function the emulator lacks)";
    return "call of " + name + ", which this file declares but does not define: a __device__ function of another file "
           "needs separate compilation (nvcc -rdc=true), which warplab does not link; define it in this file, or in a "
           "header that both files include";
}

void Interpreter::builtin(const Frame& fr, const Instr& in, const Function& callee)
{
    const Operand& args = in.o[2];
    auto arg = [&](unsigned k, unsigned bytes) {
        std::uint64_t v = 0;
        if (k < args.n) std::memcpy(&v, fr.param + fr.f->lists[args.reg + 2 * k], bytes);
        return v;
    };
    if (callee.builtin == Builtin::Vprintf) {
        const std::string text = format(arg(0, 8), arg(1, 8), in);
        static std::mutex out_mutex;
        {
            std::lock_guard lock(out_mutex);
            std::fwrite(text.data(), 1, text.size(), stdout);
            std::fflush(stdout);
        }
        if (in.o[0].kind == OpKind::List && in.o[0].n) {
            const auto n = static_cast<std::int32_t>(text.size());
            std::memcpy(fr.param + fr.f->lists[in.o[0].reg], &n, 4);
        }
        return;
    }
    if (callee.builtin == Builtin::Malloc) {
        void* const block = emu::detail::heap_malloc(arg(0, 8));
        if (in.o[0].kind == OpKind::List && in.o[0].n) std::memcpy(fr.param + fr.f->lists[in.o[0].reg], &block, 8);
        return;
    }
    if (callee.builtin == Builtin::Free) {
        const std::uint64_t block = arg(0, 8);
        if (block && !emu::detail::heap_free(reinterpret_cast<void*>(block))) {  // free(nullptr) does nothing, as in C
            char address[24];
            std::snprintf(address, sizeof address, "0x%llx", static_cast<unsigned long long>(block));
            fail(in, std::string("free of address ") + address + ", which is no block that malloc (or new) returned, or one freed already");
        }
        return;
    }
    if (callee.builtin == Builtin::Assertfail) {
        std::string what = std::string("assertion failed: ") + host_string(arg(0, 8), in);
        fail(in, what);
    }
    fail(in, undefined_call(callee.name));
}
Flow Interpreter::call(const Frame& fr, const Instr& in)
{
    const Operand& target = in.o[1];
    std::uint64_t id = target.kind == OpKind::Func ? target.reg : get(fr, target);
    if (target.kind != OpKind::Func) {
        if ((id & kFunctionTag) != kFunctionTag) fail(in, "indirect call through something that is not a function address");
        id &= 0xFFFF'FFFF;
    }
    if (id >= m_.functions.size()) fail(in, "call of an unknown function");
    const Function& callee = m_.functions[static_cast<std::size_t>(id)];  // below the count, checked above
    if (callee.declared_only) {
        builtin(fr, in, callee);
        return Flow::Returned;
    }
    const Operand& args = in.o[2];
    if (args.n > callee.params.size()) fail(in, "call of " + callee.name + " with too many arguments");
    // the callee's param buffer: arguments copied in at its parameters' offsets
    auto* buf = static_cast<unsigned char*>(alloca(callee.param_bytes + 16));
    std::memset(buf, 0, callee.param_bytes);
    for (unsigned k = 0; k < args.n; ++k) {
        const std::uint32_t src = fr.f->lists[args.reg + 2 * k];
        const auto kind = static_cast<OpKind>(fr.f->lists[args.reg + 2 * k + 1]);
        const ParamSlot& p = callee.params[k];
        if (kind == OpKind::ParamSym) std::memcpy(buf + p.offset, fr.param + src, p.bytes);
        else if (kind == OpKind::Reg) std::memcpy(buf + p.offset, &fr.r[src], std::min(8u, p.bytes));
        else fail(in, "a call argument that is neither a parameter nor a register");
    }
    const CallSite here{&in, t_->caller};
    t_->caller = &here;
    const Flow flow = run_function(*t_, callee, buf, nullptr);
    t_->caller = here.outer;
    const Operand& rets = in.o[0];
    for (unsigned k = 0; k < rets.n && k < callee.rets.size(); ++k) {
        const std::uint32_t dst = fr.f->lists[rets.reg + 2 * k];
        const auto kind = static_cast<OpKind>(fr.f->lists[rets.reg + 2 * k + 1]);
        const ParamSlot& p = callee.rets[k];
        if (kind == OpKind::ParamSym) std::memcpy(fr.param + dst, buf + p.offset, p.bytes);
        else if (kind == OpKind::Reg) { fr.r[dst] = 0; std::memcpy(&fr.r[dst], buf + p.offset, std::min(8u, p.bytes)); }
    }
    return flow;
}

Flow run_function(Thread& t, const Function& f, unsigned char* param, const std::uint64_t* image)
{
    const std::uint32_t saved_sp = t.sp;
    const std::uint32_t base = (t.sp + 15) / 16 * 16;
    if (base + f.local_bytes > t.local_capacity) {
        emu::detail::kernel_fault(nullptr, 0, "local memory of " + f.name + " does not fit the emulator's " +
                                                  std::to_string(t.local_capacity) + " bytes per thread (deep recursion?)");
    }
    if ((f.registers + f.consts.size()) * 8ULL > kRegisterCapacity)
        emu::detail::kernel_fault(nullptr, 0, f.name + " has more virtual registers than the emulator holds per frame");
    t.sp = base + f.local_bytes;
    const std::size_t slots = f.registers + f.consts.size();
    auto* regs = static_cast<std::uint64_t*>(alloca(slots * 8 + 8));
    Interpreter interp(t);
    const Frame frame{&f, regs, param, base};
    if (image) {
        std::memcpy(regs, image, slots * 8);
        interp.fill_thread_constants(frame);
    } else {
        std::memset(regs, 0, f.registers * 8);
        interp.fill_constants(frame);
    }
    std::size_t pc = 0;
    const Flow flow = interp.run(frame, pc);
    t.sp = saved_sp;
    return flow;
}

Outcome exec_call(Interpreter& it, const Frame& fr, const Instr& in, std::size_t&)
{
    return it.call(fr, in) == Flow::Exited ? Outcome::Exit : Outcome::Next;
}

}  // namespace wl::ptx::detail
