// Memory: where an address lands (shared, global, local, param, const, and
// the generic windows), its bounds faults, and the general path's loads,
// stores, atomics, asynchronous copies and mbarriers. The hot path's shared and
// global targets are inline in interp.h.
#include <algorithm>
#include <limits>
#include <sstream>
#include <type_traits>

#include "interp.h"
#include "rounding.h"
#include "warplab/trace/kinds.h"

namespace wl::ptx::detail {

namespace {

// Spaces whose accesses the trace records (and Lockstep gives a round).
bool traced_space(Space s) { return s == Space::Shared || s == Space::Global || s == Space::Generic; }

const char* verb(Kind k) { return trace::kind_name(k); }  // "load", "store", "atomic"


}  // namespace

// v: the shared variable at or below the offset, or null.
void Interpreter::shared_bounds_fault(const Instr& in, std::uint64_t off, const SharedSlot* v, Kind kind) const
{
    std::ostringstream what;
    what << "out-of-bounds shared " << verb(kind) << ": ";
    const Launch& L = *t_->L;
    const std::string gave = " (extern __shared__ " + std::string(L.dynamic_name ? L.dynamic_name : "") + "[]: the launch gave " +
                             std::to_string(L.dynamic_bytes) + " bytes of dynamic shared memory)";
    const bool dynamic = L.dynamic_name && off >= L.dynamic_offset && (!v || v->offset <= L.dynamic_offset);
    if (dynamic && L.dynamic_bytes == 0) {  // no slot: the extern array has no elements at all
        what << "byte " << off - L.dynamic_offset << " of extern __shared__ " << L.dynamic_name
             << "[], but the launch gave 0 bytes of dynamic shared memory";
        fail(in, what.str());
    }
    if (v) {
        const emu::detail::DeclaredShape* shape = v->shape_in(v->elem);
        what << emu::detail::element_name(v->name, shape, static_cast<long long>((off - v->offset) / v->elem))
             << " is outside its " << v->bytes / v->elem << " elements";
        for (unsigned d = 0; shape && d < shape->rank; ++d)  // "(8 x 8)": as declared
            what << (d ? " x " : " (") << shape->extents[d] << (d + 1 == shape->rank ? ")" : "");
    } else {
        what << "shared offset " << off << " lies outside every shared variable";
    }
    if (dynamic) what << gave;
    else if (t_->L->slots.empty()) what << " (the kernel declares no shared memory)";
    fail(in, what.str());
}

// The shared variable at or below the offset, or null.

// below: the pointer argument at or below the address, or null.
void Interpreter::global_bounds_fault(const Instr& in, std::uint64_t addr, unsigned size, const PointerArg* below,
                                      Kind kind) const
{
    std::ostringstream what;
    what << "out-of-bounds " << verb(kind) << ": ";
    // An address just before an argument's first element (in[-1], within a page) is named by that
    // argument, not as one far past the end of the argument below it.
    constexpr std::uint64_t kJustBefore = 4096;
    const PointerArg* above = nullptr;
    for (const PointerArg& a : t_->L->pointers)
        if (a.ptr > addr && a.ptr - addr <= kJustBefore && (!above || a.ptr < above->ptr)) above = &a;
    if (above && (!below || (addr >= below->alloc_end && above->ptr - addr < addr - below->alloc_end))) below = above;
    if (below) {
        // The source's name where Module::name_parameters gave one: "image[1025] (argument 0)".
        const std::string& named = t_->L->kernel->info.params[below->position].source_name;
        const std::string argument = emu::detail::argument_name(below->position);
        const auto offset = static_cast<long long>(addr - below->ptr);
        what << (named.empty() ? argument : named) << "[" << offset / static_cast<long long>(size) << "]"
             << (named.empty() ? "" : " (" + argument + ")") << " is outside its " << (below->alloc_end - below->ptr) / size
             << " elements (byte " << offset << " of " << below->alloc_end - below->ptr << ")";
    } else {
        what << "address 0x" << std::hex << addr << " is in no emulator allocation";
    }
    fail(in, what.str());
}

Interpreter::Target Interpreter::resolve(const Frame& fr, const Instr& in, Space sp, std::uint64_t addr,
                                         unsigned size, Kind kind, const void* stored)
{
    if (sp == Space::Shared) addr = shared_address(addr);
    if (sp == Space::Generic) {
        if (addr >= kSharedWindow && addr < kSharedWindow + kWindowSize) { sp = Space::Shared; addr -= kSharedWindow; }
        else if (addr >= kLocalWindow && addr < kLocalWindow + kWindowSize) { sp = Space::Local; addr -= kLocalWindow; }
        else sp = Space::Global;
    }
    switch (sp) {
    case Space::Shared: return shared_target(in, addr, size, kind, 0, stored);
    case Space::Global: return global_target(in, addr, size, kind, stored);
    case Space::Const:  // traced, for the constant cache's serialisation (analysis.h): the variable by its place in the module
        for (std::size_t v = 0; v < m_.var_ranges.size(); ++v) {
            const auto& [base, bytes] = m_.var_ranges[v];
            if (addr >= base && addr + size <= base + bytes)
                return Target{host_bytes(addr), trace::Space::Constant, static_cast<std::uint8_t>(std::min<std::size_t>(v, 0xFE)), addr - base};
        }
        fail(in, "out-of-bounds constant " + std::string(verb(kind)));
    case Space::Local:
        if (addr + size > t_->sp + 0ULL || addr + size < addr) fail(in, "out-of-bounds local " + std::string(verb(kind)) + " at local offset " + std::to_string(addr));
        return Target{t_->local + addr, trace::Space::None, 0, 0};
    case Space::Param:
        if (addr + size > fr.f->param_bytes) fail(in, "out-of-bounds parameter " + std::string(verb(kind)));
        return Target{fr.param + addr, trace::Space::None, 0, 0};
    default: break;
    }
    unsupported(in);
}

bool Interpreter::load(const Frame& fr, const Instr& in)
{
    const unsigned elem = ty_bytes(in.ty), size = elem * in.vec;
    const std::uint64_t addr = address(fr, in.o[1]);
    const Target tg = resolve(fr, in, in.space, addr, size, Kind::Load);
    std::uint64_t value[2] = {0, 0};
    std::memcpy(value, tg.p, size);
    if (in.order != kPlain && tg.space == trace::Space::Global) emu::detail::global_acquire();  // after the value is read
    bool spins = false;
    if (in.order != kPlain) {  // the same load seeing the same value again: a spin loop waits, other threads must run
        spins = t_->spin_at == &in && t_->spin_addr == addr && t_->spin_value == value[0];
        t_->spin_at = &in, t_->spin_addr = addr, t_->spin_value = value[0];
    }
    record(in, Kind::Load, tg, size, value);
    const Operand& d = in.o[0];
    auto element = [&](unsigned k) {
        std::uint64_t v = 0;
        std::memcpy(&v, reinterpret_cast<const unsigned char*>(value) + k * elem, elem);
        if (in.ty2 == Ty::S64) v = static_cast<std::uint64_t>(sext(in.ty, v));  // into a 64-bit register
        else if (ty_signed(in.ty) && elem < 4) v = static_cast<std::uint32_t>(sext(in.ty, v));
        return v;
    };
    if (d.kind == OpKind::Vec) {
        for (unsigned k = 0; k < d.n; ++k) {
            const std::uint32_t reg = fr.f->lists[d.reg + k];
            if (reg != kNoReg) fr.r[reg] = element(k);
        }
    } else if (d.kind == OpKind::Reg) {
        fr.r[d.reg] = elem == 16 ? value[0] : element(0);
    }
    return spins;
}

void Interpreter::store(const Frame& fr, const Instr& in)
{
    const unsigned elem = ty_bytes(in.ty), size = elem * in.vec;
    std::uint64_t value[2] = {0, 0};
    const Operand& s = in.o[1];
    if (s.kind == OpKind::Vec) {
        for (unsigned k = 0; k < s.n; ++k) {
            const std::uint32_t reg = fr.f->lists[s.reg + k];
            const std::uint64_t v = reg == kNoReg ? 0 : fr.r[reg];
            std::memcpy(reinterpret_cast<unsigned char*>(value) + k * elem, &v, elem);
        }
    } else {
        value[0] = get(fr, s);
    }
    const Target tg = resolve(fr, in, in.space, address(fr, in.o[0]), size, Kind::Store, value);
    std::memcpy(tg.p, value, size);
    record(in, Kind::Store, tg, size, value);
}

namespace {

template <unsigned N> constexpr std::integral_constant<unsigned, N> kElems{};

// The shared variable v that each of a batch's lanes finds for its `size` bytes at offsets up to `highest`
// (v: the one at or below the lowest), as shared_target finds it: null where they are not all inside it,
// or it is the reserved memory, which is not checked: then the lanes go one by one.
const SharedSlot* slot_of_lanes(const std::vector<SharedSlot>& slots, const SharedSlot* v, std::uint64_t highest,
                                unsigned size)
{
    if (!v || v->zeroed || highest + size > v->offset + v->bytes || (v + 1 != slots.data() + slots.size() && v[1].offset <= highest))
        return nullptr;
    return v;
}

// The pointer argument whose allocation each of a batch's lanes finds for its `size` bytes at addresses
// lowest .. highest, as global_target finds it: null where they do not all fall inside the same one.
const PointerArg* pointer_of_lanes(const std::vector<PointerArg>& pointers, std::uint64_t lowest, std::uint64_t highest,
                                   unsigned size)
{
    const auto past = std::upper_bound(pointers.begin(), pointers.end(), lowest,
                                       [](std::uint64_t addr, const PointerArg& a) { return addr < a.ptr; });
    if (past == pointers.begin() || (past != pointers.end() && past->ptr <= highest)) return nullptr;
    const PointerArg& below = *(past - 1);
    if (highest > below.alloc_end || below.alloc_end - highest < size) return nullptr;
    return &below;
}

}  // namespace

// The lanes of a warp pass at one plain ld or st of the fast forms: one look-up of the array for all of
// them (a warp's access nearly always falls in one), then the runtime checks and moves each lane's bytes
// in the pass's order, as the lane-by-lane statements would.
bool Interpreter::access_lanes(const PassLane* lanes, LaneMask exec, const Instr& in, const Frame& fr)
{
    // Each form has a loop of its own: whether it stores, its space and its elements are constants there.
    const auto access = [&](auto stores, auto shared, auto elems) {
        constexpr unsigned kCount = decltype(elems)::value, kSize = 4 * kCount;
        Thread& t = lanes[std::bit_width(exec) - 1].run->t;
        if (t.lane.watched || t.lane.lockstep || in.order != kPlain || in.releases || in.cas_seed) return false;
        const Operand& at = stores ? in.o[0] : in.o[1];
        const std::uint32_t* registers = fr.f->lists.data() + (stores ? in.o[1] : in.o[0]).reg;  // a vector's
        const std::uintptr_t base = shared ? reinterpret_cast<std::uintptr_t>(t.arena) : 0;
        unsigned flats[kMaxWarpSize];
        unsigned char* ptrs[kMaxWarpSize];
        std::uint32_t data[kMaxWarpSize][4];
        std::uint64_t lowest = std::numeric_limits<std::uint64_t>::max(), highest = 0;
        unsigned count = 0;
        for (LaneMask m = exec; m; m &= m - 1, ++count) {
            const PassLane& lane = lanes[std::countr_zero(m)];
            std::uint64_t addr = lane.r[at.reg] + static_cast<std::uint64_t>(at.imm);
            if (shared) addr = shared_address(addr);
            lowest = std::min(lowest, addr);
            highest = std::max(highest, addr);
            flats[count] = lane.flat;
            ptrs[count] = reinterpret_cast<unsigned char*>(base + static_cast<std::uintptr_t>(addr));  // used once checked
            if (stores && kCount == 1) data[count][0] = static_cast<std::uint32_t>(lane.r[in.o[1].reg]);
            else if (stores) gather(lane.r, registers, kCount, data[count]);
        }
        t_ = &t;  // the lane the names are read for, as the last lane entered
        const Kind kind = stores ? Kind::Store : Kind::Load;
        if (shared) {
            // The variable each lane's offset falls in, as shared_target finds it: the same for all of them.
            const SharedSlot* v = slot_of_lanes(t.L->slots, shared_slot(lowest), highest, kSize);
            if (!v) return false;  // the lanes one by one
            emu::detail::access_shared_lanes({kind, kSize, v->name, t.arena + v->offset, v->elem, file(in), line(in), v->shape_in(v->elem)},
                                             flats, ptrs, data, count);
        } else {
            // The argument each lane's address falls past, as global_target finds it: the same for all of them.
            const PointerArg* below = pointer_of_lanes(t.L->pointers, lowest, highest, kSize);
            if (!below) return false;
            emu::detail::access_global_lanes({kind, kSize, pointer_name(*below), static_cast<std::uintptr_t>(below->ptr), file(in), line(in)},
                                             flats, ptrs, data, count);
        }
        if (stores) return true;
        count = 0;
        for (LaneMask m = exec; m; m &= m - 1, ++count) {
            std::uint64_t* r = lanes[std::countr_zero(m)].r;
            if (kCount == 1) r[in.o[0].reg] = data[count][0];
            else
                for (unsigned k = 0; k < kCount; ++k)
                    if (registers[k] != kNoReg) r[registers[k]] = data[count][k];
        }
        return true;
    };
    constexpr std::false_type load{}, global{};
    constexpr std::true_type store{}, shared{};
    switch (in.fast) {
    case Fast::LdGlobal32: return access(load, global, kElems<1>);
    case Fast::LdGlobalV2: return access(load, global, kElems<2>);
    case Fast::LdGlobalV4: return access(load, global, kElems<4>);
    case Fast::StGlobal32: return access(store, global, kElems<1>);
    case Fast::StGlobalV2: return access(store, global, kElems<2>);
    case Fast::StGlobalV4: return access(store, global, kElems<4>);
    case Fast::LdShared32: return access(load, shared, kElems<1>);
    case Fast::LdSharedV2: return access(load, shared, kElems<2>);
    case Fast::LdSharedV4: return access(load, shared, kElems<4>);
    case Fast::StShared32: return access(store, shared, kElems<1>);
    case Fast::StSharedV2: return access(store, shared, kElems<2>);
    case Fast::StSharedV4: return access(store, shared, kElems<4>);
    default: return false;
    }
}

// Atomic access to plain memory, as std::atomic_ref gives (which libc++ 14 lacks):
// the GCC and Clang builtins that it is built on.
template <class T> struct AtomicRef {
    T* p;
    T load() const { return __atomic_load_n(p, __ATOMIC_SEQ_CST); }
    bool compare_exchange_weak(T& expected, T desired) const
    {
        return __atomic_compare_exchange_n(p, &expected, desired, true, __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST);
    }
};

template <class T> T atomic_rmw(T* p, Sub sub, T b, T c, bool is_signed)
{
    const AtomicRef<T> ref{p};
    T old = ref.load();
    for (;;) {
        T next = old;
        using S = std::make_signed_t<T>;
        switch (sub) {
        case Sub::Add: next = old + b; break;
        case Sub::Min: next = is_signed ? (static_cast<S>(b) < static_cast<S>(old) ? b : old) : std::min(old, b); break;
        case Sub::Max: next = is_signed ? (static_cast<S>(b) > static_cast<S>(old) ? b : old) : std::max(old, b); break;
        case Sub::Exch: next = b; break;
        case Sub::Cas: next = old == b ? c : old; break;
        case Sub::And: next = old & b; break;
        case Sub::Or: next = old | b; break;
        case Sub::Xor: next = old ^ b; break;
        case Sub::Inc: next = old >= b ? 0 : old + 1; break;
        case Sub::Dec: next = (old == 0 || old > b) ? b : old - 1; break;
        default: break;
        }
        if (ref.compare_exchange_weak(old, next)) return old;
    }
}

template <class F, class U> U atomic_float_add(U* p, F b)
{
    const AtomicRef<U> ref{p};
    U old = ref.load();
    for (;;) {
        const U next = std::bit_cast<U>(static_cast<F>(std::bit_cast<F>(old) + b));
        if (ref.compare_exchange_weak(old, next)) return old;
    }
}

// A 16-bit float sum rounded to nearest even once, subnormals kept (.noftz):
// two halves add exactly in double; two bf16 (float's exponents) may not, so
// the sum's residual goes with it.
static std::uint16_t add16(std::uint16_t a, std::uint16_t b, bool bf)
{
    if (bf) return bf16_nearest(add_nearest(bf16_to_float(a), bf16_to_float(b), Round::Rn));
    return double_to_half(static_cast<double>(half_to_float(a)) + half_to_float(b));
}

// atom.add.noftz.{f16,bf16} on 16 bits, {f16x2,bf16x2} on 32 (each half on its own).
template <class U> U atomic_add16(U* p, U b, bool bf)
{
    const AtomicRef<U> ref{p};
    U old = ref.load();
    for (;;) {
        U next = 0;
        for (unsigned k = 0; k < sizeof(U) / 2; ++k)
            next |= static_cast<U>(static_cast<U>(add16(static_cast<std::uint16_t>(old >> (16 * k)),
                                                         static_cast<std::uint16_t>(b >> (16 * k)), bf))
                                   << (16 * k));
        if (ref.compare_exchange_weak(old, next)) return old;
    }
}

void Interpreter::atomic(const Frame& fr, const Instr& in)
{
    const bool red = in.op == Op::Red;
    const Operand& addr_op = red ? in.o[0] : in.o[1];
    const std::uint64_t b = get(fr, red ? in.o[1] : in.o[2]);
    const std::uint64_t c = red ? 0 : get(fr, in.o[3]);
    const unsigned size = ty_bytes(in.ty);
    const bool add16_type = in.ty == Ty::F16 || in.ty == Ty::BF16 || in.ty == Ty::F16x2 || in.ty == Ty::BF16x2;
    const bool half_add = add16_type && in.sub == Sub::Add;  // atomicAdd of __half, __half2, bf16 and bf162
    if ((size != 4 && size != 8 && !(half_add && size == 2)) || in.vec != 1) unsupported(in);
    const bool float_add = (in.ty == Ty::F32 || in.ty == Ty::F64 || half_add) && in.sub == Sub::Add;
    if (ty_float(in.ty) && !float_add && in.sub != Sub::Exch && in.sub != Sub::Cas) unsupported(in);
    // Faults come before the check, which holds a global word's shadow until the operation ends.
    const std::uint64_t at = address(fr, addr_op);
    if (at % size) fail(in, "misaligned atomic");
    const Target tg = resolve(fr, in, in.space, at, size, Kind::Atomic);
    std::uint64_t old = 0;
    const bool s = ty_signed(in.ty);
    if (half_add) {
        const bool bf = in.ty == Ty::BF16 || in.ty == Ty::BF16x2;
        old = size == 2 ? atomic_add16<std::uint16_t>(reinterpret_cast<std::uint16_t*>(tg.p), static_cast<std::uint16_t>(b), bf)
                        : atomic_add16<std::uint32_t>(reinterpret_cast<std::uint32_t*>(tg.p), static_cast<std::uint32_t>(b), bf);
    } else if (in.ty == Ty::F32 && in.sub == Sub::Add) {
        old = atomic_float_add<float>(reinterpret_cast<std::uint32_t*>(tg.p), f32(b));
    } else if (in.ty == Ty::F64 && in.sub == Sub::Add) {
        old = atomic_float_add<double>(reinterpret_cast<std::uint64_t*>(tg.p), f64(b));
    } else if (size == 4) {
        old = atomic_rmw<std::uint32_t>(reinterpret_cast<std::uint32_t*>(tg.p), in.sub, static_cast<std::uint32_t>(b), static_cast<std::uint32_t>(c), s);
    } else {
        old = atomic_rmw<std::uint64_t>(reinterpret_cast<std::uint64_t*>(tg.p), in.sub, b, c, s);
    }
    if (tg.space == trace::Space::Global) emu::detail::global_atomic_done();
    std::uint64_t stored = 0;
    std::memcpy(&stored, tg.p, size);  // what the operation left (for the record)
    record(in, Kind::Atomic, tg, size, &stored);
    if (!red) put(fr, in.o[0], in.ty, old);
}

// cp.async copies a thread has issued and not yet seen land, oldest first;
// group_end[k] is where its k-th oldest committed group ends. Per host
// thread, by lane of the block (a thread's first cp.async clears its entry).
struct AsyncCopy {
    std::uint64_t off;  // in the block's shared memory
    unsigned size;
    std::uint64_t value[2];
    const Instr* in;
};
struct AsyncCopies {
    std::vector<AsyncCopy> copies;
    std::vector<std::size_t> group_end;
};
static thread_local std::vector<AsyncCopies> tls_async;

static AsyncCopies& async_copies_of(unsigned lane)
{
    if (tls_async.size() <= lane) tls_async.resize(lane + 1);
    return tls_async[lane];
}

// cp.async.{ca,cg}.shared.global [dst], [src], cp-size{, src-size}: the global
// load happens now; the shared bytes land when the thread waits for the
// copy's group (bytes past src-size are zero). Until then the destination
// keeps what it had: a read before the wait sees old bytes, or faults as an
// uninitialised read. The trace shows both halves at the cp.async, as the GPU
// issues them.
void Interpreter::copy_async(const Frame& fr, const Instr& in)
{
    const unsigned size = static_cast<unsigned>(get(fr, in.o[2]));
    const unsigned from_src = in.nops > 3 && in.o[3].kind != OpKind::None ? static_cast<unsigned>(get(fr, in.o[3])) : size;
    if ((size != 4 && size != 8 && size != 16) || from_src > size) unsupported(in, "cp-size must be 4, 8 or 16");
    AsyncCopy c{shared_address(address(fr, in.o[0])), size, {0, 0}, &in};
    if (from_src) {
        const Target src = resolve(fr, in, Space::Global, address(fr, in.o[1]), from_src, Kind::Load);
        std::memcpy(c.value, src.p, from_src);
        record(in, Kind::Load, src, from_src, c.value);
    }
    const SharedSlot* v = shared_slot(c.off);
    if (!v || c.off + size > v->offset + v->bytes) shared_bounds_fault(in, c.off, v, Kind::Store);
    record(in, Kind::Store, Target{t_->arena + c.off, trace::Space::Shared, v->id, c.off - v->offset}, size, c.value);
    AsyncCopies& mine = async_copies_of(t_->lane.flat);
    if (!t_->async_copies) mine = {}, t_->async_copies = true;  // what an earlier block's thread left
    mine.copies.push_back(c);
}

// The lanes of a warp pass at one cp.async, as copy_async runs them one after another: their global reads
// checked and moved as one batch (access_global_lanes, as a plain ld.global's), then each lane's copy kept
// to land at its wait. Nothing is recorded (a watched block goes lane by lane), and nothing can fault here
// but the race check, which finds what it would find lane by lane: every address was found in bounds first.
bool Interpreter::copy_async_lanes(const PassLane* lanes, LaneMask exec, const Instr& in, Frame& fr)
{
    const PassLane& last = lanes[std::bit_width(exec) - 1];
    Thread& t = last.run->t;
    const auto plain_operand = [&](unsigned k) { return in.o[k].kind == OpKind::Reg || in.o[k].kind == OpKind::Imm; };
    const bool src_size = in.nops > 3 && in.o[3].kind != OpKind::None;
    if (in.sub != Sub::None || t.lane.watched || t.lane.lockstep || !plain_operand(2) || (src_size && !plain_operand(3)))
        return false;
    t_ = &t;  // address() reads the launch's shared offsets through it
    unsigned flats[kMaxWarpSize];
    unsigned char* ptrs[kMaxWarpSize];
    std::uint64_t offsets[kMaxWarpSize];
    std::uint64_t src_lowest = std::numeric_limits<std::uint64_t>::max(), src_highest = 0;
    std::uint64_t dst_lowest = std::numeric_limits<std::uint64_t>::max(), dst_highest = 0;
    unsigned size = 0, count = 0;
    for (LaneMask m = exec; m; m &= m - 1, ++count) {
        const PassLane& lane = lanes[std::countr_zero(m)];
        const Frame at{fr.f, lane.r, lane.param, fr.local_base};
        const auto bytes = static_cast<unsigned>(get(at, in.o[2]));
        const unsigned from_src = src_size ? static_cast<unsigned>(get(at, in.o[3])) : bytes;
        if (count == 0) size = bytes;
        if (bytes != size || from_src != size || (size != 4 && size != 8 && size != 16)) return false;
        const std::uint64_t src = address(at, in.o[1]), dst = shared_address(address(at, in.o[0]));
        src_lowest = std::min(src_lowest, src), src_highest = std::max(src_highest, src);
        dst_lowest = std::min(dst_lowest, dst), dst_highest = std::max(dst_highest, dst);
        flats[count] = lane.flat;
        ptrs[count] = host_bytes(src);  // used once checked
        offsets[count] = dst;
    }
    const PointerArg* below = pointer_of_lanes(t.L->pointers, src_lowest, src_highest, size);
    if (!below || !slot_of_lanes(t.L->slots, shared_slot(dst_lowest), dst_highest, size)) return false;
    std::uint32_t data[kMaxWarpSize][4] = {};
    emu::detail::access_global_lanes({Kind::Load, size, pointer_name(*below), static_cast<std::uintptr_t>(below->ptr), file(in), line(in)},
                                     flats, ptrs, data, count);
    count = 0;
    for (LaneMask m = exec; m; m &= m - 1, ++count) {
        Thread& lane = lanes[std::countr_zero(m)].run->t;
        AsyncCopies& mine = async_copies_of(flats[count]);
        if (!lane.async_copies) mine = {}, lane.async_copies = true;  // what an earlier block's thread left
        AsyncCopy& c = mine.copies.emplace_back(AsyncCopy{offsets[count], size, {0, 0}, &in});
        std::memcpy(c.value, data[count], size);
    }
    fr.r = last.r, fr.param = last.param;  // the last lane entered, as lane by lane
    return true;
}

constexpr std::size_t kAllCopies = std::numeric_limits<std::size_t>::max();

// Lands the thread's `count` oldest copies (all of them at most): each is checked and written as a
// store of the cp.async's line, now; the groups they close are done.
void Interpreter::land_async_copies(std::size_t count)
{
    if (!t_->async_copies) return;
    AsyncCopies& mine = async_copies_of(t_->lane.flat);
    count = std::min(count, mine.copies.size());
    for (std::size_t k = 0; k < count; ++k) {
        const AsyncCopy& c = mine.copies[k];
        const SharedSlot* v = shared_slot(c.off);
        if (!v->zeroed)
            emu::detail::check_shared_access(Kind::Store, t_->arena + c.off, c.size, v->name,
                                             static_cast<long long>((c.off - v->offset) / v->elem), v->shape_in(v->elem), file(*c.in),
                                             line(*c.in), c.value, false);
        std::memcpy(t_->arena + c.off, c.value, c.size);
    }
    mine.copies.erase(mine.copies.begin(), mine.copies.begin() + static_cast<std::ptrdiff_t>(count));
    std::erase_if(mine.group_end, [&](std::size_t end) { return end <= count; });
    for (std::size_t& end : mine.group_end) end -= count;
}

// cp.async.commit_group closes the thread's open group; cp.async.wait_group N
// waits until at most its N newest groups are pending; wait_all lands all.
void Interpreter::async_group(const Frame& fr, const Instr& in)
{
    if (!t_->async_copies) return;
    AsyncCopies& mine = async_copies_of(t_->lane.flat);
    switch (in.sub) {
    case Sub::AsyncCommit:
        mine.group_end.push_back(mine.copies.size());  // an empty group counts for wait_group too
        break;
    case Sub::AsyncWait: {  // all groups but the newest N: the copies up to the end of the older ones
        const auto newest = static_cast<std::size_t>(get(fr, in.o[0]));
        const std::size_t groups = mine.group_end.size();
        land_async_copies(groups > newest ? mine.group_end[groups - newest - 1] : 0);
        break;
    }
    default: land_async_copies(kAllCopies); break;  // wait_all: committed or not
    }
}

// cp.async.bulk [dst], [src], size, [mbar]: the copy engine moves size
// bytes from global to shared memory and counts them off the mbarrier when
// they land. The copy engine is not a thread: its bytes are not in the trace.
void Interpreter::bulk_copy(const Frame& fr, const Instr& in)
{
    const auto bytes = static_cast<unsigned>(get(fr, in.o[2]));
    if (bytes == 0 || bytes % 16)
        fail(in, "cp.async.bulk of " + std::to_string(bytes) + " bytes: the size must be a non-zero multiple of 16");
    const std::uint64_t to = shared_address(address(fr, in.o[0])), from = address(fr, in.o[1]);
    if (to % 16 || from % 16) fail(in, "cp.async.bulk needs 16-byte-aligned shared and global addresses");
    const SharedSlot* v = shared_slot(to);
    if (!v || to + bytes > v->offset + v->bytes) shared_bounds_fault(in, to, v, Kind::Store);
    const Target src = global_target(in, from, bytes, Kind::Load);
    const Target bar = mbarrier_target(fr, in, in.o[3], Kind::Atomic);
    const emu::detail::BulkCopyTarget target{v->name, v->elem, static_cast<long long>((to - v->offset) / v->elem)};
    emu::detail::bulk_copy(t_->arena + to, src.p, bytes, bar.p, target, file(in), line(in));
}

// An mbarrier is 8 bytes of shared memory: messages count 8-byte elements
// ("landed[3]"), whatever the variable's element size looks like in the PTX.
Interpreter::Target Interpreter::mbarrier_target(const Frame& fr, const Instr& in, const Operand& o, Kind kind)
{
    std::uint64_t off = address(fr, o);
    if (in.space == Space::Generic) {
        if (off < kSharedWindow || off >= kSharedWindow + kWindowSize) fail(in, "an mbarrier must be in shared memory");
        off -= kSharedWindow;
    } else {
        off = shared_address(off);
    }
    if (off % 8) fail(in, "misaligned mbarrier: it takes 8-byte-aligned shared memory");
    return shared_target(in, off, 8, kind, 8);
}

// mbarrier.init [bar], count / arrive state, [bar]{, count} / arrive.expect_tx
// state, [bar], tx / expect_tx [bar], tx / {test,try}_wait p, [bar], state
// (or .parity p, [bar], parity). A state is the phase's parity here, so the
// two forms of a wait are one. False:
// an explicit-state lane must wait, and runs this try_wait again when resumed.
bool Interpreter::mbarrier(const Frame& fr, const Instr& in)
{
    const char* at_file = file(in);
    const unsigned at_line = line(in);
    switch (in.sub) {
    case Sub::MbInit: {
        const Target bar = mbarrier_target(fr, in, in.o[0], Kind::Store);
        emu::detail::mbarrier_init(bar.p, static_cast<unsigned>(get(fr, in.o[1])), at_file, at_line);
        return true;
    }
    case Sub::MbArrive: case Sub::MbArriveExpectTx: case Sub::MbArriveDrop: {
        const bool expect_tx = in.sub == Sub::MbArriveExpectTx;
        const bool counted = !expect_tx && in.nops > 2 && in.o[2].kind != OpKind::None;
        const Target bar = mbarrier_target(fr, in, in.o[1], Kind::Atomic);
        const auto count = counted ? static_cast<unsigned>(get(fr, in.o[2])) : 1u;
        const auto tx = expect_tx ? static_cast<unsigned>(get(fr, in.o[2])) : 0u;
        put(fr, in.o[0], Ty::B64,
            in.sub == Sub::MbArriveDrop ? emu::detail::mbarrier_arrive_drop(bar.p, count, at_file, at_line)
                                        : emu::detail::mbarrier_arrive(bar.p, count, tx, at_file, at_line));
        return true;
    }
    case Sub::MbCpAsyncArrive: case Sub::MbCpAsyncArriveNoinc: {
        // The arrival comes once the thread's cp.async copies have landed: they land now.
        // Without .noinc the pending count is raised by one before that arrival: the two cancel.
        land_async_copies(kAllCopies);
        const Target bar = mbarrier_target(fr, in, in.o[0], Kind::Atomic);
        if (in.sub == Sub::MbCpAsyncArriveNoinc) emu::detail::mbarrier_arrive(bar.p, 1, 0, at_file, at_line);
        else emu::detail::mbarrier_release(bar.p);
        return true;
    }
    case Sub::MbInval: {  // the object ends (a cuda::barrier's destructor): its phases order nothing more
        const Target bar = mbarrier_target(fr, in, in.o[0], Kind::Atomic);
        emu::detail::mbarrier_inval(bar.p);
        return true;
    }
    case Sub::MbExpectTx: {  // expected bytes with no arrival
        const Target bar = mbarrier_target(fr, in, in.o[0], Kind::Atomic);
        emu::detail::mbarrier_arrive(bar.p, 0, static_cast<unsigned>(get(fr, in.o[1])), at_file, at_line);
        return true;
    }
    case Sub::MbTestWait: case Sub::MbTryWait: {
        const Target bar = mbarrier_target(fr, in, in.o[1], Kind::Atomic);
        const auto parity = static_cast<unsigned>(get(fr, in.o[2]) & 1);
        bool done = emu::detail::mbarrier_phase_done(bar.p, parity, at_file, at_line);
        while (!done && in.sub == Sub::MbTryWait) {  // try_wait suspends the thread until the phase completes
            const char* name = t_->L->slots[bar.array].name;
            emu::detail::mbarrier_block(bar.p, name, static_cast<long long>(bar.offset / 8), at_file, at_line);
            if (t_->explicit_state) return false;
            done = emu::detail::mbarrier_phase_done(bar.p, parity, at_file, at_line);
        }
        put_pred(fr, in.o[0], done);
        return true;
    }
    default: unsupported(in);
    }
}


// ---- the general path's memory operations

Outcome exec_load(Interpreter& it, const Frame& fr, const Instr& in, std::size_t& pc)
{
    if (traced_space(in.space) && it.round_pending(pc)) return Outcome::Wait;
    if (it.load(fr, in)) {
        emu::detail::grid_spin(it.file(in), it.line(in));
        if (emu::detail::spin_yield()) return Outcome::Wait;
    }
    return Outcome::Next;
}

Outcome exec_store(Interpreter& it, const Frame& fr, const Instr& in, std::size_t& pc)
{
    if (traced_space(in.space) && it.round_pending(pc)) return Outcome::Wait;
    it.store(fr, in);
    return Outcome::Next;
}

// An access the Lockstep schedule gives a round first (explicit-state lanes return to the scheduler once).
template <class Access> Outcome after_round(Interpreter& it, std::size_t& pc, Access access)
{
    if (it.round_pending(pc)) return Outcome::Wait;
    access();
    return Outcome::Next;
}

Outcome exec_atomic(Interpreter& it, const Frame& fr, const Instr& in, std::size_t& pc)
{
    return after_round(it, pc, [&] { it.atomic(fr, in); });
}

Outcome exec_copy_async(Interpreter& it, const Frame& fr, const Instr& in, std::size_t& pc)
{
    if (in.sub != Sub::None) {
        it.async_group(fr, in);
        return Outcome::Next;
    }
    return after_round(it, pc, [&] { it.copy_async(fr, in); });
}

Outcome exec_bulk_copy(Interpreter& it, const Frame& fr, const Instr& in, std::size_t& pc)
{
    return after_round(it, pc, [&] { it.bulk_copy(fr, in); });
}

Outcome exec_mbarrier(Interpreter& it, const Frame& fr, const Instr& in, std::size_t& pc)
{
    if (it.round_pending(pc)) return Outcome::Wait;
    if (!it.mbarrier(fr, in)) {
        --pc;  // the try_wait again, once the mbarrier has changed
        return Outcome::Wait;
    }
    return Outcome::Next;
}

}  // namespace wl::ptx::detail
