// Launching a kernel: the launch's layout (parameters and pointer arguments,
// the shared arena with the dynamic area and the toolkit's reserved memory,
// local memory, the frame image, the warp width), the special registers a
// lane reads, fiber lanes' entry, and faults given the toolkit header's line.
#include <alloca.h>

#include <algorithm>
#include <chrono>

#include "machine_count.h"
#include "interp.h"
#include "warplab/ptx/cuda_source.h"

namespace wl::ptx {
namespace detail {

std::string header_note(const Module::Impl& m, const SourceLoc& at)
{
    if (!at.header_file) return "";
    std::string path = m.files[at.header_file];
    if (const auto inc = path.rfind("/include/"); inc != std::string::npos) path = path.substr(inc + 9);
    return "; inside the toolkit at " + path + ":" + std::to_string(at.header_line);
}

// %tid.y is the y of the thread's index: s's distance from the .x of its kind picks the component.
template <class V> static std::uint64_t axis(const V& v, Special s, Special x)
{
    const auto k = static_cast<unsigned>(s) - static_cast<unsigned>(x);
    return k == 0 ? v.x : k == 1 ? v.y : v.z;
}

std::uint64_t Interpreter::special(Special s) const
{
    const unsigned lane = t_->lane.lane;
    switch (s) {
    case Special::TidX: case Special::TidY: case Special::TidZ: return axis(t_->tid, s, Special::TidX);
    case Special::NtidX: case Special::NtidY: case Special::NtidZ: return axis(t_->L->block, s, Special::NtidX);
    case Special::CtaidX: case Special::CtaidY: case Special::CtaidZ: return axis(t_->ctaid, s, Special::CtaidX);
    case Special::NctaidX: case Special::NctaidY: case Special::NctaidZ: return axis(t_->L->grid, s, Special::NctaidX);
    case Special::LaneId: return lane;
    case Special::WarpId: return t_->lane.warp;
    case Special::NWarpId: return (t_->L->block.x * t_->L->block.y * t_->L->block.z + t_->L->warp_size - 1) / t_->L->warp_size;
    case Special::WarpSize: return t_->L->warp_size;
    case Special::SmId: case Special::GridId: return 0;
    case Special::NSmId: return 1;
    case Special::Clock: case Special::Clock64: return ++t_->clock;  // monotonic per thread
    case Special::GlobalTimer:
        return static_cast<std::uint64_t>(std::chrono::steady_clock::now().time_since_epoch().count());
    // the lanes below, at or below, at, at or above, above this one, of the warp's width
    case Special::LanemaskLt: return lanes_below(lane);
    case Special::LanemaskLe: return lanes_below(lane + 1);
    case Special::LanemaskEq: return LaneMask{1} << lane;
    case Special::LanemaskGe: return lanes_below(t_->L->warp_size) & ~lanes_below(lane);
    case Special::LanemaskGt: return lanes_below(t_->L->warp_size) & ~lanes_below(lane + 1);
    case Special::DynSmem: return t_->L->dynamic_bytes;
    case Special::TotalSmem: return t_->L->shared_total;
    case Special::ReservedBegin: case Special::Reserved0: return t_->L->reserved_offset;
    case Special::ReservedEnd: return t_->L->reserved_offset + kReservedSharedBytes;
    case Special::ReservedCap: return kReservedSharedBytes;
    case Special::Reserved1: return t_->L->reserved_offset + kReservedSharedBytes / 2;
    case Special::GridWorkspaceHigh: return t_->L->grid_workspace >> 32;
    case Special::GridWorkspaceLow: return t_->L->grid_workspace & 0xFFFFFFFFu;
    }
    return 0;
}

bool Interpreter::same_in_block(Special s)
{
    switch (s) {
    case Special::NtidX: case Special::NtidY: case Special::NtidZ: case Special::CtaidX: case Special::CtaidY:
    case Special::CtaidZ: case Special::NctaidX: case Special::NctaidY: case Special::NctaidZ: case Special::NWarpId:
    case Special::WarpSize: case Special::SmId: case Special::GridId: case Special::NSmId: case Special::DynSmem:
    case Special::TotalSmem: case Special::ReservedBegin: case Special::ReservedEnd: case Special::ReservedCap:
    case Special::Reserved0: case Special::Reserved1: case Special::GridWorkspaceHigh: case Special::GridWorkspaceLow:
        return true;
    default: return false;  // the thread's own (%tid, %laneid, the lane masks, %clock, %globaltimer)
    }
}

void lane_main(void* ctx)
{
    const Launch& L = *static_cast<const Launch*>(ctx);
    const auto& view = emu::detail::thread_view();
    Thread t{&L, emu::detail::current_lane(), view.thread_idx, view.block_idx, nullptr, nullptr};
    // Every lane declares the kernel's shared variables in order; the runtime
    // allocates them once per block (16-byte aligned, as the layout assumes).
    for (const SharedSlot& s : L.slots) {
        void* p = emu::detail::declare_shared(s.elem, s.bytes / s.elem, s.name, L.decl_file, L.decl_line, s.zeroed);
        if (!t.arena) t.arena = static_cast<unsigned char*>(p) - s.offset;
    }
    t.local = L.local_bytes ? static_cast<unsigned char*>(alloca(L.local_bytes)) : nullptr;
    t.local_capacity = L.local_bytes;
    t.tally = emu::detail::instruction_tally();
    // A kernel that calls writes its outgoing arguments into its parameter space: a copy per thread.
    auto* param = const_cast<unsigned char*>(L.params.data());
    if (L.calls) {
        param = static_cast<unsigned char*>(alloca(L.params.size() + 16));
        std::memcpy(param, L.params.data(), L.params.size());
    }
    run_function(t, *L.kernel, param, L.image.data());
}

// Does fn, or a function it calls, read a special register that `wanted` picks?
template <class Wanted> static bool reads_special(const Module::Impl& m, const Function& fn, Wanted wanted, int depth = 0)
{
    for (const ConstSlot& c : fn.consts)
        if (c.kind == OpKind::Special && wanted(static_cast<Special>(c.imm))) return true;
    if (depth > 16) return false;
    for (const Instr& in : fn.code)
        if (in.op == Op::Call && in.o[1].kind == OpKind::Func && &m.functions[in.o[1].reg] != &fn &&
            reads_special(m, m.functions[in.o[1].reg], wanted, depth + 1))
            return true;
    return false;
}

static bool grid_workspace_register(Special s) { return s == Special::GridWorkspaceHigh || s == Special::GridWorkspaceLow; }

// A fault the runtime raised (a race, an uninitialised read) at a user's line
// that calls into a toolkit header: the header's line beside it, when that line is one.
static emu::KernelFault with_header_line(const Module::Impl& m, emu::KernelFault f)
{
    if (f.fault.what.find("; inside the toolkit at ") != std::string::npos) return f;
    std::string note;
    for (const SourceLoc& at : m.locations) {
        if (!at.header_file || at.line != f.fault.line || m.files[at.file] != f.fault.file) continue;
        const std::string here = header_note(m, at);
        if (!note.empty() && note != here) return f;  // several header lines: none is the one
        note = here;
    }
    if (note.empty()) return f;
    f.fault.what += note;
    return emu::KernelFault(f.fault);
}

static std::string describe(const Function& k)
{
    std::string s = "kernel " + std::string(without_parameters(k.info.demangled)) + " takes " +
                    std::to_string(k.params.size()) + " parameter" + (k.params.size() == 1 ? "" : "s") + " (";
    for (std::size_t i = 0; i < k.params.size(); ++i) s += (i ? ", " : "") + std::to_string(k.params[i].bytes);
    return s + " bytes)";
}

// Element size of a shared variable for the trace: the narrowest access the kernel makes to shared memory, capped by its alignment.


}  // namespace detail

using namespace detail;

void launch_args(emu::Emulator& emu, const Module& m, std::string_view kernel, dim3 grid, dim3 block,
                 std::uint32_t dynamic_shared_bytes, std::span<const Arg> args)
{
    const Module::Impl& mi = m.impl();
    const Function* k = mi.kernel(kernel);
    if (!k) {
        std::string names;
        for (const Function& f : mi.functions)
            if (f.entry && !f.declared_only) names += (names.empty() ? "" : ", ") + std::string(without_parameters(f.info.demangled));
        throw emu::LaunchError("no kernel '" + std::string(kernel) + "' in " + mi.origin + " (it has: " + (names.empty() ? "none" : names) + ")");
    }
    if (args.size() != k->params.size())
        throw emu::LaunchError(describe(*k) + "; " + std::to_string(args.size()) + " given");
    Launch L;
    L.mod = &mi;
    L.kernel = k;
    L.kernel_name = without_parameters(k->info.demangled);
    L.grid = grid;
    L.block = block;
    // The warp width: the one place the runtime's choice (LaunchOptions::warp_width) is read.
    L.warp_size = emu.options.warp_width;
    L.max_instructions = emu.options.max_instructions;
    if (emu.options.cooperative) L.grid_workspace = reinterpret_cast<std::uintptr_t>(emu.grid_workspace());
    L.reads_grid_workspace = reads_special(mi, *k, grid_workspace_register);
    L.dynamic_bytes = dynamic_shared_bytes;
    L.params.assign(k->param_bytes, 0);
    for (std::size_t i = 0; i < args.size(); ++i) {
        const ParamSlot& p = k->params[i];
        if (args[i].bytes.size() != p.bytes)
            throw emu::LaunchError(describe(*k) + "; argument " + std::to_string(i) + " has " + std::to_string(args[i].bytes.size()) + " bytes");
        std::memcpy(L.params.data() + p.offset, args[i].bytes.data(), p.bytes);
        if (pointer_parameter(p.bytes) && i < 255) {  // statements.h's rules, as the GPU trace's
            std::uint64_t v;
            std::memcpy(&v, args[i].bytes.data(), 8);
            const auto end = pointed_allocation_end(v, [](std::uint64_t a, std::uint64_t& base, std::uint64_t& bytes) {
                std::uintptr_t b = 0;
                std::size_t n = 0;
                const bool found = find_host_allocation(a, b, n);
                base = b, bytes = n;
                return found;
            });
            if (end) L.pointers.push_back(PointerArg{v, *end, static_cast<std::uint8_t>(i)});
        }
    }
    std::sort(L.pointers.begin(), L.pointers.end(), [](const PointerArg& a, const PointerArg& b) { return a.ptr < b.ptr; });
    // the kernel's shared layout: statics in declaration order, 16-byte aligned,
    // then the dynamic area (the arrays and their element sizes: statements.h's
    // shared_arrays, as the GPU trace numbers them)
    L.shared_offset.assign(mi.shared.size(), 0);
    std::vector<SharedVar> used;
    for (std::uint32_t id : k->shared_used) used.push_back(mi.shared[id]);
    std::uint64_t off = 0;
    for (const SharedArray& a : shared_arrays(used, k->narrowest_shared, dynamic_shared_bytes)) {
        const SharedVar& v = used[a.var];
        if (v.dynamic) {  // after every static: the offset is final
            L.slots.push_back(SharedSlot{static_cast<std::uint32_t>((off + 15) / 16 * 16), static_cast<std::uint32_t>(a.bytes),
                                         a.elem, static_cast<std::uint8_t>(L.slots.size()), v.name.c_str()});
            continue;
        }
        off = (off + 15) / 16 * 16;
        const emu::detail::DeclaredShape& shape = mi.shared[k->shared_used[a.var]].shape;  // the module's: it outlives the launch
        L.slots.push_back(SharedSlot{static_cast<std::uint32_t>(off), v.bytes, a.elem, static_cast<std::uint8_t>(L.slots.size()), v.name.c_str(),
                                     false, shape.rank ? &shape : nullptr});
        L.shared_offset[k->shared_used[a.var]] = static_cast<std::uint32_t>(off);
        off += v.bytes;
    }
    off = (off + 15) / 16 * 16;
    for (std::size_t i = 0; i < used.size(); ++i)
        if (used[i].dynamic) {  // every extern array names the one dynamic area
            L.shared_offset[k->shared_used[i]] = static_cast<std::uint32_t>(off);
            if (!L.dynamic_name) L.dynamic_name = used[i].name.c_str(), L.dynamic_offset = static_cast<std::uint32_t>(off);
        }
    L.shared_total = off + dynamic_shared_bytes;
    if (reads_special(mi, *k, reserved_shared)) {  // after the kernel's own: its offsets stay as they were
        L.reserved_offset = static_cast<std::uint32_t>((L.shared_total + 15) / 16 * 16);
        L.slots.push_back(SharedSlot{L.reserved_offset, kReservedSharedBytes, 4, static_cast<std::uint8_t>(L.slots.size()),
                                     kReservedSharedName, true});
    }
    // local memory: the kernel's depot, and each device function's a few times over (calls nest)
    std::uint64_t local = (k->local_bytes + 15) / 16 * 16;
    for (const Function& f : mi.functions)
        if (!f.entry && !f.declared_only) local += 4 * ((f.local_bytes + 15) / 16 * 16);
    L.local_bytes = static_cast<std::uint32_t>(std::min<std::uint64_t>(local, kLocalCapacity));
    for (const Instr& in : k->code)
        if (in.loc) {
            L.decl_file = mi.files[mi.locations[in.loc].file].c_str();
            L.decl_line = mi.locations[in.loc].line;
            break;
        }
    L.calls = std::any_of(k->code.begin(), k->code.end(), [](const Instr& in) { return in.op == Op::Call; });
    L.calls_functions = std::any_of(k->code.begin(), k->code.end(), [&](const Instr& in) {
        return in.op == Op::Call && (in.o[1].kind != OpKind::Func || !mi.functions[in.o[1].reg].declared_only);
    });
    // the kernel frame's slots: registers zero, constants that do not depend on the thread filled in
    L.image.assign(k->registers + k->consts.size(), 0);
    for (std::size_t i = 0; i < k->consts.size(); ++i) {
        const ConstSlot& c = k->consts[i];
        const auto slot = static_cast<std::uint32_t>(k->registers + i);
        switch (c.kind) {
        case OpKind::SharedSym: L.image[slot] = L.shared_offset[c.id] + static_cast<std::uint64_t>(c.imm); break;
        case OpKind::LocalSym: L.image[slot] = static_cast<std::uint64_t>(c.imm); break;  // the kernel's depot starts at 0
        case OpKind::Func: L.image[slot] = kFunctionTag | c.id; break;
        case OpKind::Special: L.thread_specials.emplace_back(slot, static_cast<Special>(c.imm)); break;
        default: L.image[slot] = static_cast<std::uint64_t>(c.imm); break;
        }
    }
    if (L.shared_total > 228 * 1024)
        throw emu::LaunchError("kernel " + L.kernel_name + " needs " + std::to_string(L.shared_total) +
                               " bytes of shared memory (" + std::to_string(dynamic_shared_bytes) +
                               " dynamic); a block has at most 233472");
    // Kernels that call device functions run on fibers (a wait may come deep in a call);
    // the others as explicit-state lanes, which is faster.
    emu::detail::KernelBody body{&L, lane_main};
    L.classes = machine_counts(*k);
    body.instruction_counts = L.classes.data();
    body.instructions = static_cast<std::uint32_t>(L.classes.size());
    if (!L.calls_functions) {
        L.lane_words = lane_words(L.image.size());
        body.run_lane = resume_lane;
        body.run_pass = run_warp_pass;
        if (emu.options.engine == emu::Engine::Fast && emu.options.schedule == emu::Schedule::Independent)
            L.compiled = compiled_kernel(mi, *k);
        if (L.compiled) body.engine = emu::Engine::Fast;
    }
    try {
        emu.launch_body(L.kernel_name.c_str(), grid, block, body);
    } catch (emu::KernelFault& f) {
        throw with_header_line(mi, std::move(f));
    }
}

}  // namespace wl::ptx
