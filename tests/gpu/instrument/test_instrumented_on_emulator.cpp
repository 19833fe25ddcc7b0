// The instrumented PTX, run by the PTX interpreter instead of a GPU: the
// records it appends, finished by the same host code as on the GPU, must give
// the same warp events as the interpreter's own trace of the original PTX.
// This checks the device half of the GPU trace (claiming slots, seq, epoch,
// sub, raw addresses, values, generic spaces, guards) on any machine.
//
// The control block is the module's .global variable; a one-line helper
// kernel appended to the text tells the host its address (the emulator's
// global memory is host memory).
#include <gtest/gtest.h>

#include <cstring>
#include <filesystem>
#include <map>

#include "instrumented_sites.h"
#include "ptx_instrument.h"
#include "core/src/emu/runtime.h"  // find_allocation
#include "warplab/ptx/ptx.h"
#include "warplab/random.h"
#include "warplab/trace/analysis.h"
#include "warplab/trace/events.h"

namespace {

using namespace wl::cuda::detail;
using wl::trace::LaneRecord;

const char* kAddressHelper = R"(
.visible .entry __wl_control_address(.param .u64 out)
{
	.reg .b64 	%a<3>;
	mov.u64 	%a1, __wl_trace_ctl;
	ld.param.u64 	%a2, [out];
	st.global.u64 	[%a2], %a1;
	ret;
}
)";

struct Launch {
    std::string kernel;
    dim3 grid, block;
    std::uint32_t dynamic_shared = 0;
    std::vector<wl::ptx::Arg> args;
    std::vector<std::uint32_t> watched;
};

// The records the instrumented kernel appends when the interpreter runs it.
std::vector<LaneRecord> instrumented_records(wl::emu::Emulator& emu, const std::string& ptx, const Launch& l)
{
    const wl::ptx::Module original = wl::ptx::Module::parse(ptx, "original");
    const wl::ptx::KernelInfo& k = *original.find(l.kernel);
    const InstrumentedPtx inst = instrument_ptx(ptx, k.mangled);
    const wl::ptx::Module m = wl::ptx::Module::parse(inst.text + kAddressHelper, "instrumented");

    // Neither the helper nor the instrumented kernel is recorded by the emulator: the instrumentation records.
    emu.options.record = false;
    auto* where = emu.alloc<std::uint64_t>(1);
    wl::ptx::launch(emu, m, "__wl_control_address", dim3(1), dim3(1), 0, where);
    auto* control = reinterpret_cast<unsigned char*>(static_cast<std::uintptr_t>(*where));

    const std::uint64_t blocks = std::uint64_t(l.grid.x) * l.grid.y * l.grid.z;
    const std::uint32_t threads = l.block.x * l.block.y * l.block.z;
    auto* slots = emu.alloc<std::uint32_t>(blocks);
    for (std::uint64_t b = 0; b < blocks; ++b) slots[b] = kNotWatched;
    for (std::size_t i = 0; i < l.watched.size(); ++i) slots[l.watched[i]] = static_cast<std::uint32_t>(i);
    auto* state = static_cast<unsigned char*>(emu.alloc_bytes(l.watched.size() * threads * kLaneStateBytes + 16));
    std::memset(state, 0, l.watched.size() * threads * kLaneStateBytes + 16);
    const std::uint32_t capacity = 1u << 20;
    auto* records = static_cast<LaneRecord*>(emu.alloc_bytes(std::size_t(capacity) * sizeof(LaneRecord)));
    const Control head{reinterpret_cast<std::uintptr_t>(records), capacity, 0, reinterpret_cast<std::uintptr_t>(slots),
                       reinterpret_cast<std::uintptr_t>(state)};
    std::memcpy(control, &head, sizeof head);

    wl::ptx::launch_args(emu, m, k.mangled, l.grid, l.block, l.dynamic_shared, l.args);
    emu.options.record = true;

    Control after;
    std::memcpy(&after, control, sizeof after);
    EXPECT_LE(after.count, capacity);
    std::vector<LaneRecord> raw(records, records + std::min(after.count, capacity));
    std::vector<std::uint32_t> bases(inst.shared.size());
    std::memcpy(bases.data(), control + sizeof(Control), bases.size() * sizeof(std::uint32_t));

    LaunchFacts facts;
    facts.shared = shared_slots(k, inst, bases, l.dynamic_shared);
    facts.constants = constant_slots(inst, control);
    for (std::size_t i = 0; i < l.args.size(); ++i) {
        if (l.args[i].bytes.size() != 8) continue;
        std::uint64_t v;
        std::memcpy(&v, l.args[i].bytes.data(), 8);
        std::uintptr_t base = 0;
        std::size_t bytes = 0;
        if (wl::emu::detail::find_allocation(v, base, bytes))
            facts.pointers.push_back(PointerArg{static_cast<std::uint8_t>(i), v, base + bytes});
    }
    facts.allocation_of = [](std::uint64_t a, std::uint64_t& base) {
        std::uintptr_t b = 0;
        std::size_t bytes = 0;
        if (!wl::emu::detail::find_allocation(a, b, bytes)) return false;
        base = b;
        return true;
    };
    facts.watched_blocks = l.watched;
    return finish_records(std::move(raw), facts);
}

std::vector<LaneRecord> reference_records(wl::emu::Emulator& emu, const std::string& ptx, const Launch& l)
{
    const wl::ptx::Module m = wl::ptx::Module::parse(ptx, "original");
    emu.options.watched_blocks = l.watched;
    // The instrumented PTX records accesses only: the emulator's instruction
    // mix (Kind::Mix records) has nothing to be compared with.
    emu.options.count_instructions = false;
    wl::ptx::launch_args(emu, m, l.kernel, l.grid, l.block, l.dynamic_shared, l.args);
    return emu.take_records();
}

void expect_same_events(const std::vector<LaneRecord>& instrumented, const std::vector<LaneRecord>& reference,
                        std::uint32_t threads, std::size_t watched)
{
    const auto a = wl::trace::group_records(instrumented, threads);
    const auto b = wl::trace::group_records(reference, threads);
    ASSERT_EQ(b.size(), watched);
    ASSERT_EQ(a.size(), b.size());
    EXPECT_EQ(instrumented.size(), reference.size());
    for (std::size_t i = 0; i < b.size(); ++i) {
        ASSERT_FALSE(b[i].events.empty());
        EXPECT_EQ(a[i].steps, b[i].steps) << "block " << b[i].block;
        ASSERT_EQ(a[i].events.size(), b[i].events.size()) << "block " << b[i].block;
        for (std::size_t e = 0; e < b[i].events.size(); ++e) {
            const auto& x = a[i].events[e];
            const auto& y = b[i].events[e];
            EXPECT_TRUE(x == y) << "block " << b[i].block << " event " << e << ": instrumented (step " << x.step
                                << ", warp " << x.warp << ", line " << x.site.line << ", kind " << int(x.kind)
                                << ", space " << int(x.space) << ", size " << int(x.size) << ", array "
                                << int(x.array) << ", mask " << std::hex << x.mask << std::dec << ", lane-0 offset "
                                << x.offset[0] << ") vs interpreter (step " << y.step << ", warp " << y.warp
                                << ", line " << y.site.line << ", kind " << int(y.kind) << ", space " << int(y.space)
                                << ", size " << int(y.size) << ", array " << int(y.array) << ", mask " << std::hex
                                << y.mask << std::dec << ", lane-0 offset " << y.offset[0] << ")";
            if (!(x == y)) return;
        }
        ASSERT_EQ(a[i].shared_arrays.size(), b[i].shared_arrays.size());
        for (std::size_t k = 0; k < b[i].shared_arrays.size(); ++k) {
            EXPECT_EQ(a[i].shared_arrays[k].name, b[i].shared_arrays[k].name);
            EXPECT_EQ(a[i].shared_arrays[k].count, b[i].shared_arrays[k].count);
            EXPECT_EQ(a[i].shared_arrays[k].elem_size, b[i].shared_arrays[k].elem_size);
        }
    }
}

template <class T> T* copy_in(wl::emu::Emulator& emu, const std::vector<T>& v)
{
    T* p = emu.alloc<T>(v.size());
    std::memcpy(p, v.data(), v.size() * sizeof(T));
    return p;
}

std::vector<float> seeded_floats(std::size_t n, unsigned seed)
{
    wl::Random rng(seed);
    std::vector<float> v(n);
    for (float& x : v) x = static_cast<float>(rng.uniform_int(-50, 50));
    return v;
}

const std::string& test_ptx()
{
    static const std::string text = warplab::test::read_file(warplab::test::test_ptx_path());
    return text;
}

// Each run gets fresh buffers with the same contents, so that both runs
// start from the same memory.
TEST(InstrumentedOnEmulator, TreeSum)
{
    for (auto [kernel, block, n] : {std::tuple{"_Z8tree_sumILj256EEvPKfPfj", 256u, 1000u},
                                    std::tuple{"_Z8tree_sumILj64EEvPKfPfj", 64u, 257u}}) {
        SCOPED_TRACE(kernel);
        wl::emu::Emulator emu;
        const unsigned blocks = (n + block - 1) / block;
        const auto input = seeded_floats(n, 11);
        auto launch = [&] {
            return Launch{kernel, dim3(blocks), dim3(block), 0,
                          {copy_in(emu, input), emu.alloc<float>(blocks), n}, {0, blocks - 1}};
        };
        expect_same_events(instrumented_records(emu, test_ptx(), launch()), reference_records(emu, test_ptx(), launch()),
                           block, 2);
    }
}

TEST(InstrumentedOnEmulator, WarpSums)
{
    wl::emu::Emulator emu;
    const unsigned n4 = 200;
    const auto input = seeded_floats(4 * n4, 12);
    auto launch = [&] {
        return Launch{"_Z9warp_sumsPKfPfPjj", dim3(1), dim3(256), 0,
                      {copy_in(emu, input), copy_in(emu, std::vector<float>(2, 0.0f)),
                       copy_in(emu, std::vector<unsigned>(65, 0u)), n4},
                      {0}};
    };
    expect_same_events(instrumented_records(emu, test_ptx(), launch()), reference_records(emu, test_ptx(), launch()), 256,
                       1);
}

TEST(InstrumentedOnEmulator, NarrowWideGenericAndDynamic)
{
    wl::emu::Emulator emu;
    const unsigned threads = 64;
    std::vector<unsigned char> bytes(threads);
    std::vector<short> shorts(threads);
    std::vector<double> doubles(threads);
    for (unsigned i = 0; i < threads; ++i) {
        bytes[i] = static_cast<unsigned char>(i * 7 + 3);
        shorts[i] = static_cast<short>(1000 - 37 * static_cast<int>(i));
        doubles[i] = 0.5 * i - 3.25;
    }
    auto launch = [&] {
        return Launch{"_Z15narrow_and_widePhPsPd", dim3(1), dim3(threads), threads * 8u,
                      {copy_in(emu, bytes), copy_in(emu, shorts), copy_in(emu, doubles)}, {0}};
    };
    expect_same_events(instrumented_records(emu, test_ptx(), launch()), reference_records(emu, test_ptx(), launch()),
                       threads, 1);
}

// Every reduction kernel of the lab that takes (in, out, n), at block sizes 64
// and 256, both element types: n leaves the second block partly filled.
TEST(InstrumentedOnEmulator, ReductionLabKernels)
{
    const std::filesystem::path path = warplab::test::lab_ptx_path("reduction");
    if (path.empty()) GTEST_SKIP() << "the reduction lab's PTX is not built";
    const std::string ptx = warplab::test::read_file(path.string());
    const wl::ptx::Module m = wl::ptx::Module::parse(ptx, "reduction.ptx");
    int checked = 0;
    for (const wl::ptx::KernelInfo& k : m.kernels()) {
        const bool three = k.params.size() == 3 && k.params[0].bytes == 8 && k.params[1].bytes == 8 && k.params[2].bytes == 4;
        const auto lt = k.demangled.find('<');
        // v5-racy races by design: the emulator stops it, instrumented or not.
        if (!three || lt == std::string::npos || k.demangled.find("racy") != std::string::npos) continue;
        const unsigned block = static_cast<unsigned>(std::stoul(k.demangled.substr(lt + 1)));
        if (block != 64 && block != 256) continue;
        SCOPED_TRACE(k.demangled);
        wl::emu::Emulator emu;
        const unsigned n = 4 * block + 37, blocks = 2;
        std::vector<int> ints(n);
        for (unsigned i = 0; i < n; ++i) ints[i] = static_cast<int>((i * 2654435761u) % 101) - 50;
        const bool is_float = k.demangled.find("float") != std::string::npos;
        std::vector<float> floats(ints.begin(), ints.end());
        auto launch = [&] {
            void* in = is_float ? static_cast<void*>(copy_in(emu, floats)) : static_cast<void*>(copy_in(emu, ints));
            return Launch{k.mangled, dim3(blocks), dim3(block), 0, {in, emu.alloc_bytes(4 * blocks), n}, {0, 1}};
        };
        expect_same_events(instrumented_records(emu, ptx, launch()), reference_records(emu, ptx, launch()), block, 2);
        ++checked;
    }
    EXPECT_GE(checked, 16);  // eight versions or more, two types, two block sizes... at least
}

// The distinct constant addresses (n-way) of each warp's load at a site, by
// (block, warp), in a trace's constant events.
std::map<std::pair<std::uint32_t, std::uint32_t>, std::uint32_t> constant_ways(const std::vector<LaneRecord>& records,
                                                                              std::uint32_t threads, std::uint32_t line)
{
    std::map<std::pair<std::uint32_t, std::uint32_t>, std::uint32_t> ways;
    for (const wl::trace::BlockTrace& b : wl::trace::group_records(records, threads))
        for (const wl::trace::WarpEvent& e : b.events)
            if (e.space == wl::trace::Space::Constant && e.site.line == line)
                ways[{e.block, e.warp}] = wl::trace::constant_addresses(e.mask, e.offset);
    return ways;
}

// __constant__ lookups: ld.const with a symbol and an offset and through a
// register, from two variables (weights is the module's variable 0, biases
// 1), in a full warp and two partial ones. Blocks of 48 threads, n = 90:
// block 0 runs warps of 32 and 16 lanes, block 1 a warp of 32 and one of 10
// (threads 48 + 32..41 < 90). The n-way of each warp's load, by hand:
// weights[blockIdx.x % 16] and weights[15] read one address; lane % 4 reads
// 4 in every warp (each has lanes 0..3 or more); keys[i] = 7i + 3 gives
// (7i + 3) % 16, which 7 (odd) makes one to one on 16 consecutive i: 16
// addresses for 32 or 16 lanes, 10 for 10 lanes; biases[lane / 8] reads 4
// with 32 lanes, 2 with 16 or 10 (lane / 8 = 0, 1).
TEST(InstrumentedOnEmulator, ConstantLookupsCountTheirAddresses)
{
    wl::emu::Emulator emu;
    const unsigned n = 90, block = 48;
    std::vector<unsigned> keys(n);
    for (unsigned i = 0; i < n; ++i) keys[i] = 7 * i + 3;
    auto launch = [&] {
        return Launch{"_Z16constant_lookupsPKjPfj", dim3(2), dim3(block), 0, {copy_in(emu, keys), emu.alloc<float>(n), n},
                      {0, 1}};
    };
    const auto instrumented = instrumented_records(emu, test_ptx(), launch());
    const auto reference = reference_records(emu, test_ptx(), launch());
    expect_same_events(instrumented, reference, block, 2);

    using Ways = std::map<std::pair<std::uint32_t, std::uint32_t>, std::uint32_t>;
    auto all = [](std::uint32_t w) { return Ways{{{0, 0}, w}, {{0, 1}, w}, {{1, 0}, w}, {{1, 1}, w}}; };
    const std::vector<std::pair<const char*, Ways>> expected{
        {"site: uniform lookup", all(1)},
        {"site: fixed lookup", all(1)},
        {"site: lane % 4 lookup", all(4)},
        {"site: keyed lookup", Ways{{{0, 0}, 16}, {{0, 1}, 16}, {{1, 0}, 16}, {{1, 1}, 10}}},
        {"site: lane / 8 lookup", Ways{{{0, 0}, 4}, {{0, 1}, 2}, {{1, 0}, 4}, {{1, 1}, 2}}},
    };
    for (const auto& [marker, ways] : expected) {
        SCOPED_TRACE(marker);
        const std::uint32_t line = warplab::test::line_of(WARPLAB_TEST_SOURCE, marker);
        ASSERT_NE(line, 0u);
        EXPECT_EQ(constant_ways(reference, block, line), ways);
        EXPECT_EQ(constant_ways(instrumented, block, line), ways);
    }
}

// Matmul v9's cp.async copies: each becomes a global load of its source bytes
// (none where src-size is 0) and a shared store, as the interpreter records a
// copy. Two shapes: 128×256×32 runs the block whose tiles lie inside A and B
// (16-byte copies of B, src-size always the full size); 130×20×37 gives two
// blocks whose copies past M, N and K copy zeros, N = 20 keeps 16-byte copies
// and K = 37 ends in a partial tile, and 130×21×37 (N not a multiple of 4)
// copies B by single floats.
TEST(InstrumentedOnEmulator, MatmulPipelinedCopies)
{
    const std::filesystem::path path = warplab::test::lab_ptx_path("matmul");
    if (path.empty()) GTEST_SKIP() << "the matmul lab's PTX is not built";
    const std::string ptx = warplab::test::read_file(path.string());
    const wl::ptx::Module m = wl::ptx::Module::parse(ptx, "matmul.ptx");
    std::string kernel;
    for (const wl::ptx::KernelInfo& k : m.kernels())
        if (k.demangled.find("matmul_pipelined") != std::string::npos) kernel = k.mangled;
    ASSERT_FALSE(kernel.empty()) << "matmul.ptx has no matmul_pipelined";
    ASSERT_NE(ptx.find("cp.async.ca.shared.global"), std::string::npos);
    const unsigned shared = 3 * 16 * (128 + 4 + 256) * 4;  // v9's 3 stages of As and Bs
    for (auto [rows, cols, depth] : {std::tuple{128u, 256u, 32u}, std::tuple{130u, 20u, 37u}, std::tuple{130u, 21u, 37u}}) {
        SCOPED_TRACE(std::to_string(rows) + "x" + std::to_string(cols) + "x" + std::to_string(depth));
        wl::emu::Emulator emu;
        const auto a = seeded_floats(std::size_t(rows) * depth, 21), b = seeded_floats(std::size_t(depth) * cols, 22);
        const unsigned blocks_y = (rows + 127) / 128;
        std::vector<std::uint32_t> watched;
        for (unsigned y = 0; y < blocks_y; ++y) watched.push_back(y);
        auto launch = [&] {
            return Launch{kernel, dim3((cols + 255) / 256, blocks_y), dim3(32, 8), shared,
                          {copy_in(emu, a), copy_in(emu, b), emu.alloc<float>(std::size_t(rows) * cols), rows, cols, depth},
                          watched};
        };
        expect_same_events(instrumented_records(emu, ptx, launch()), reference_records(emu, ptx, launch()), 256,
                           watched.size());
    }
}

}  // namespace
