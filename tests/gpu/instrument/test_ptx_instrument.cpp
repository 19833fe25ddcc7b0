// The PTX instrumenter, without a GPU: what it adds after which instruction,
// with which immediates, and that ptxas accepts the result for sm_90 (the
// check that must pass before an instrumented kernel is ever sent to a GPU).
//
// The kernels are tests/gpu/instrument/trace_kernels.cu, compiled by the build
// with nvcc -ptx -lineinfo -arch=compute_90 (WARPLAB_TEST_PTX).
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <map>
#include <regex>

#include "../../ptx/shared_reach_module.h"
#include "instrumented_sites.h"
#include "ptx_instrument.h"

namespace {

using namespace warplab::test;
using wl::cuda::detail::instrument_ptx;
using wl::trace::Kind;
using wl::trace::Space;

const std::string kSource = WARPLAB_TEST_SOURCE;  // trace_kernels.cu
const std::string kPtxas = WARPLAB_PTXAS;

const std::string& test_ptx()
{
    static const std::string text = read_file(test_ptx_path());
    return text;
}

const char* kTree256 = "_Z8tree_sumILj256EEvPKfPfj";
const char* kTree64 = "_Z8tree_sumILj64EEvPKfPfj";
const char* kWarpSums = "_Z9warp_sumsPKfPfPjj";
const char* kNarrow = "_Z15narrow_and_widePhPsPd";
const char* kConstantLookups = "_Z16constant_lookupsPKjPfj";

// The text of one function of the instrumented PTX, from its header to its closing brace.
std::string function_text(const std::string& ptx, const std::string& header)
{
    const auto begin = ptx.find(header);
    if (begin == std::string::npos) return "";
    return ptx.substr(begin, ptx.find("\n}\n", begin) + 3 - begin);
}

std::map<std::string, int> count_words(const std::vector<RecordSite>& sites)
{
    std::map<std::string, int> n;
    for (const RecordSite& s : sites) ++n[s.word];
    return n;
}

// tree_sum<BLOCK>: in[i] (global load), sdata[tid] = (shared store), the
// first barrier; then log2(BLOCK) rounds, which nvcc unrolls, each two shared
// loads, a shared store and a barrier; then sdata[0] (shared load) and
// out[blockIdx.x] = (global store). BLOCK 256: 3 + 8 * 4 + 2 = 37 sites;
// BLOCK 64: 3 + 6 * 4 + 2 = 29.
TEST(Instrument, TreeSumSitesCountedByHand)
{
    for (auto [entry, rounds] : {std::pair{kTree256, 8}, std::pair{kTree64, 6}}) {
        const auto sites = record_sites(function_text(instrument_ptx(test_ptx(), entry).text, std::string(".entry ") + entry));
        ASSERT_EQ(sites.size(), std::size_t(3 + 4 * rounds + 2)) << entry;
        auto n = count_words(sites);
        EXPECT_EQ(n[word(Kind::Load, Space::Global, 4)], 1);
        EXPECT_EQ(n[word(Kind::Store, Space::Shared, 4)], 1 + rounds);
        EXPECT_EQ(n[word(Kind::SyncThreads, Space::None, 0)], 1 + rounds);
        EXPECT_EQ(n[word(Kind::Load, Space::Shared, 4)], 2 * rounds + 1);
        EXPECT_EQ(n[word(Kind::Store, Space::Global, 4)], 1);
        const std::uint32_t hash = wl::trace::file_hash("trace_kernels.cu");
        for (const RecordSite& s : sites) EXPECT_EQ(s.file_hash, hash) << s.instruction;
        // The rounds' accesses are the line with `sdata[tid] += sdata[tid + s]`.
        const std::uint32_t body = line_of(kSource, "sdata[tid] += sdata[tid + s]");
        EXPECT_EQ(std::count_if(sites.begin(), sites.end(), [&](const RecordSite& s) { return s.line == body; }),
                  3 * rounds);
    }
}

// warp_sums: each site's kind, space, size and source line, looked up by the
// "site:" markers of the source. The shuffle loop unrolls into five
// shfl.sync.down.b32 whose PTX location is the toolkit header they are
// inlined from: the record must carry the user's line instead.
TEST(Instrument, WarpSumsSitesCarryKindSizeAndTheUsersLine)
{
    const auto sites = record_sites(function_text(instrument_ptx(test_ptx(), kWarpSums).text, ".entry _Z9warp_sums"));
    auto at = [&](const std::string& marker) {
        const std::uint32_t line = line_of(kSource, marker);
        std::vector<RecordSite> out;
        for (const RecordSite& s : sites)
            if (s.line == line) out.push_back(s);
        return out;
    };
    const auto float4_load = at("site: float4 load");
    ASSERT_EQ(float4_load.size(), 1u);
    EXPECT_EQ(float4_load[0].word, word(Kind::Load, Space::Global, 16)) << float4_load[0].instruction;

    const auto shuffles = at("site: shuffle");
    ASSERT_EQ(shuffles.size(), 5u);  // offsets 16, 8, 4, 2, 1
    for (const RecordSite& s : shuffles) EXPECT_EQ(s.word, word(Kind::Shuffle, Space::None, 4)) << s.instruction;

    const auto ballot = at("site: ballot");
    ASSERT_EQ(ballot.size(), 1u);
    EXPECT_EQ(ballot[0].word, word(Kind::Vote, Space::None, 4));

    const auto syncwarp = at("__syncwarp();");
    ASSERT_EQ(syncwarp.size(), 1u);
    EXPECT_EQ(syncwarp[0].word, word(Kind::SyncWarp, Space::None, 0));

    for (const char* marker : {"site: atomic used", "site: atomic max", "site: atomic unused"}) {
        const auto atomics = at(marker);
        std::vector<RecordSite> rmw;
        std::copy_if(atomics.begin(), atomics.end(), std::back_inserter(rmw),
                     [](const RecordSite& s) { return s.instruction.rfind("atom", 0) == 0; });
        ASSERT_EQ(rmw.size(), 1u) << marker;
        EXPECT_EQ(rmw[0].word, word(Kind::Atomic, Space::Global, 4)) << marker;
    }
}

// The used atomic's record holds the value it stored, old + 1, computed after it.
TEST(Instrument, AtomicRecordsTheValueItStored)
{
    const std::string text = instrument_ptx(test_ptx(), kWarpSums).text;
    EXPECT_NE(text.find("add.u32 \t%wl_n32, %wl_o32, %wl_x32"), std::string::npos);
    EXPECT_NE(text.find("max.u32 \t%wl_n32, %wl_o32, %wl_x32"), std::string::npos);
    EXPECT_NE(text.find("add.f32 \t%wl_n32, %wl_o32, %wl_x32"), std::string::npos);
    EXPECT_NE(text.find("st.global.b32 \t[%wl_rec+40], %wl_n32"), std::string::npos);
}

// narrow_and_wide: 1-, 2- and 8-byte shared accesses, and the .func's generic
// accesses, whose space is decided per lane at run time (isspacep).
TEST(Instrument, NarrowWideAndGenericAccesses)
{
    const auto inst = instrument_ptx(test_ptx(), kNarrow);
    auto n = count_words(record_sites(inst.text));
    // swap_bytes, the one .func, is instrumented too: its four sites are generic.
    EXPECT_EQ(count_words(record_sites(function_text(inst.text, ".func _Z10swap_bytesPhS_")))["%wl_word"], 4);
    EXPECT_GE(n[word(Kind::Store, Space::Shared, 1)], 1);
    EXPECT_GE(n[word(Kind::Store, Space::Shared, 2)], 1);
    EXPECT_GE(n[word(Kind::Store, Space::Shared, 8)], 1);
    EXPECT_GE(n[word(Kind::Load, Space::Shared, 8)], 1);
    // swap_bytes: *a, *b loaded and stored through generic pointers.
    EXPECT_EQ(n["%wl_word"], 4);
    std::size_t isspacep = 0;
    for (std::size_t at = inst.text.find("isspacep.shared"); at != std::string::npos;
         at = inst.text.find("isspacep.shared", at + 1))
        ++isspacep;
    EXPECT_EQ(isspacep, 4u);
    // Shared variables in declaration order (the trace numbers the statics
    // first, see SharedSlots): the module-scope `extern __shared__ dyn[]` is
    // declared first in the PTX, then the kernel's own. The narrowest
    // explicit shared access of the kernel is the 1-byte sbytes[t] store.
    EXPECT_EQ(inst.narrowest_shared_access, 1u);
    ASSERT_EQ(inst.shared.size(), 3u);
    EXPECT_EQ(inst.shared[0].ptx_name, "dyn");
    EXPECT_TRUE(inst.shared[0].dynamic);
    EXPECT_NE(inst.shared[1].ptx_name.find("sbytes"), std::string::npos);
    EXPECT_NE(inst.shared[2].ptx_name.find("sshorts"), std::string::npos);
    EXPECT_FALSE(inst.shared[1].dynamic);
}

// constant_lookups: its five __constant__ loads (trace_kernels.cu's "site:"
// lines) are recorded as 4-byte constant loads, the global key load and the
// global store as before, the .param loads not at all; the module's two
// .const variables are listed in declaration order, and thread 0 writes both
// their addresses into the control block (PtxasAcceptsEveryTestKernel
// assembles it).
TEST(Instrument, ConstantLoadsAndTheirVariables)
{
    const auto inst = instrument_ptx(test_ptx(), kConstantLookups);
    auto n = count_words(record_sites(inst.text));
    EXPECT_EQ(n[word(Kind::Load, Space::Constant, 4)], 5);
    EXPECT_EQ(n[word(Kind::Load, Space::Global, 4)], 1);
    EXPECT_EQ(n[word(Kind::Store, Space::Global, 4)], 1);
    EXPECT_EQ(inst.sites, 7u + 4u);  // and swap_bytes' four: every .func is instrumented
    ASSERT_EQ(inst.variables.size(), 2u);
    EXPECT_EQ(inst.variables[0].ptx_name, "weights");
    EXPECT_EQ(inst.variables[1].ptx_name, "biases");
    EXPECT_TRUE(inst.variables[0].constant && inst.variables[1].constant);
    // No shared variables: one 4-byte slot all the same, then 8-aligned: 32 + 4 -> 40.
    EXPECT_EQ(wl::cuda::detail::variables_offset(0), 40u);
    EXPECT_NE(inst.text.find("@%wl_q mov.u64 \t%wl_d0, biases;\n\t@%wl_q st.global.u64 \t[%wl_ctl+48], %wl_d0"),
              std::string::npos);
    EXPECT_NE(inst.text.find("__wl_trace_ctl[56]"), std::string::npos);
}

TEST(Instrument, OtherKernelsAreLeftOutAndFunctionsKept)
{
    const std::string text = instrument_ptx(test_ptx(), kTree256).text;
    EXPECT_NE(text.find(std::string(".entry ") + kTree256), std::string::npos);
    for (const char* other : {kTree64, kWarpSums, kNarrow})
        EXPECT_EQ(text.find(std::string(".entry ") + other), std::string::npos) << other;
    EXPECT_NE(text.find(".func _Z10swap_bytesPhS_"), std::string::npos);
}

TEST(Instrument, UnknownKernelNamesTheKernelsThereAre)
{
    try {
        instrument_ptx(test_ptx(), "no_such_kernel");
        FAIL() << "no error";
    } catch (const std::invalid_argument& e) {
        EXPECT_NE(std::string(e.what()).find("no_such_kernel"), std::string::npos) << e.what();
        EXPECT_NE(std::string(e.what()).find(kWarpSums), std::string::npos) << e.what();
    }
}

// Hand-written PTX for what nvcc 13 did not emit above: red (run as atom, so
// that the stored value is known), guarded accesses (the record is skipped
// when the guard is false), and a 64-bit shared address.
// What every hand-written module below starts with.
const std::string kModuleHead = ".version 9.0\n.target sm_90\n.address_size 64\n";

const std::string kHandWritten = kModuleHead + R"(.visible .entry hand(.param .u64 p)
{
	.reg .pred 	%p<3>;
	.reg .b32 	%r<8>;
	.reg .b64 	%rd<4>;
	.shared .align 4 .b8 counts[128];
	mov.u32 	%r1, %tid.x;
	shl.b32 	%r2, %r1, 2;
	mov.u32 	%r3, counts;
	add.s32 	%r4, %r3, %r2;
	setp.lt.u32 	%p1, %r1, 32;
	@%p1 st.shared.u32 	[%r4], 0;
	bar.sync 	0;
	red.shared.add.u32 	[%r4], 1;
	@!%p1 ld.shared.u32 	%r5, [%r4+-4];
	cvt.u64.u32 	%rd1, %r4;
	ld.shared.u32 	%r6, [%rd1];
	ret;
}
)";

TEST(Instrument, HandWrittenRedGuardsAndWideSharedAddresses)
{
    const auto inst = instrument_ptx(kHandWritten, "hand");
    const auto sites = record_sites(inst.text);
    ASSERT_EQ(sites.size(), 5u);  // store, barrier, red, guarded load, load
    EXPECT_EQ(inst.text.find("\tred."), std::string::npos) << "red runs as atom";
    EXPECT_NE(inst.text.find("atom.shared.add.u32 \t%wl_o32, [%r4], 1;"), std::string::npos) << inst.text;
    EXPECT_EQ(sites[2].word, word(Kind::Atomic, Space::Shared, 4));
    EXPECT_NE(inst.text.find("@!%p1 bra \t$WL_skip_0"), std::string::npos);  // @%p1 st: skip when !%p1
    EXPECT_NE(inst.text.find("@%p1 bra \t$WL_skip_3"), std::string::npos);   // @!%p1 ld: skip when %p1
    EXPECT_NE(inst.text.find("add.s32 \t%wl_t0, %r4, -4;\n\tcvt.u64.u32 \t%wl_a, %wl_t0"), std::string::npos)
        << "[%r4+-4]: a 32-bit base and its offset are summed in 32 bits";
    EXPECT_NE(inst.text.find("mov.b64 \t%wl_a, %rd1"), std::string::npos);
    const PtxasVerdict v = assemble(kPtxas, inst.text, "hand");
    EXPECT_TRUE(v.ok) << v.messages;
}

// Hand-written PTX for what the statement layer must read the way the
// interpreter's parser does: a pointer parameter (loaded from .param space:
// not traced), an `extern .shared` array, vector accesses, and an inlined-at
// chain that nvcc spells over two `.loc`s (file 3, a toolkit intrinsic header,
// inlined at file 2 line 100, a toolkit header, itself inlined at the user's
// k.cu line 20; ptxas wants each caller named by a `.loc` before).
const std::string kChained = kModuleHead + R"(.file 1 "/home/u/k.cu"
.file 2 "/usr/local/cuda/include/cooperative_groups/details/reduce.h"
.file 3 "/usr/local/cuda/targets/x86_64-linux/include/sm_30_intrinsics.hpp"
.extern .shared .align 16 .b8 dyn[];
.visible .entry chained(.param .u64 .ptr .global .align 8 chained_param_0)
{
	.reg .pred 	%p<2>;
	.reg .b32 	%r<8>;
	.reg .f32 	%f<5>;
	.reg .b64 	%rd<4>;
	.loc 1 10 3
	ld.param.u64 	%rd1, [chained_param_0];
	cvta.to.global.u64 	%rd2, %rd1;
	mov.u32 	%r1, %tid.x;
	shl.b32 	%r2, %r1, 4;
	mov.u32 	%r3, dyn;
	add.s32 	%r4, %r3, %r2;
	.loc 1 11 5
	ld.global.v4.f32 	{%f1, %f2, %f3, %f4}, [%rd2];
	st.shared.v4.f32 	[%r4], {%f1, %f2, %f3, %f4};
	.loc 1 20 3
	.loc 2 100 5, function_name $L__info_string0, inlined_at 1 20 3
	.loc 3 440 9, function_name $L__info_string1, inlined_at 2 100 5
	shfl.sync.down.b32 	%r5|%p1, %r1, 16, 31, -1;
	ld.shared.v2.f32 	{%f1, _}, [%r4+8];
	ret;
}
	.section	.debug_str
	{
$L__info_string0:
.b8 114,101,100,117,99,101,0
$L__info_string1:
.b8 115,104,102,108,0
	}
)";

// Sites, by hand: the .param load is not traced; the float4 global load (16
// bytes) and the shared store (16) at k.cu:11; the shuffle (4 bytes, its
// input %r1, not the %p1 of its destination pair) and the shared v2 load (8
// bytes, one value: the second element goes to the sink) at k.cu:20, the
// chain's innermost frame outside the toolkit (a reader that took the .loc's
// own line would say 440, one that stopped at its named caller 100).
// Shared arrays: dyn, dynamic. Narrowest explicit shared access: 4 (f32).
TEST(Instrument, HandWrittenChainVectorsExternSharedAndPointerParameter)
{
    const auto inst = instrument_ptx(kChained, "chained");
    const auto sites = record_sites(inst.text);
    ASSERT_EQ(sites.size(), 4u) << inst.text;
    const std::uint32_t user = wl::trace::file_hash("/home/u/k.cu");
    const std::vector<std::string> words{word(Kind::Load, Space::Global, 16), word(Kind::Store, Space::Shared, 16),
                                         word(Kind::Shuffle, Space::None, 4), word(Kind::Load, Space::Shared, 8)};
    const std::vector<std::uint32_t> lines{11, 11, 20, 20};
    for (std::size_t k = 0; k < sites.size(); ++k) {
        EXPECT_EQ(sites[k].word, words[k]) << sites[k].instruction;
        EXPECT_EQ(sites[k].line, lines[k]) << sites[k].instruction;
        EXPECT_EQ(sites[k].file_hash, user) << sites[k].instruction;
    }
    EXPECT_NE(inst.text.find("mov.b32 \t%wl_x32, %r1;"), std::string::npos) << "the shuffle's input";
    EXPECT_NE(inst.text.find("st.global.f32 \t[%wl_rec+40], %f1;"), std::string::npos);
    EXPECT_EQ(inst.text.find("[%wl_rec+44], _"), std::string::npos) << "the sink is no value";
    EXPECT_NE(inst.text.find("add.s32 \t%wl_t0, %r4, 8;"), std::string::npos) << "[%r4+8]";
    ASSERT_EQ(inst.shared.size(), 1u);
    EXPECT_EQ(inst.shared[0].ptx_name, "dyn");
    EXPECT_TRUE(inst.shared[0].dynamic);
    EXPECT_EQ(inst.narrowest_shared_access, 4u);
    const PtxasVerdict v = assemble(kPtxas, inst.text, "chained");
    EXPECT_TRUE(v.ok) << v.messages;
}

// The narrowest shared access is the emulator's rule (statements.h): explicit
// .shared ld/st/atom/red only. A 4-byte cp.async into shared memory beside
// 8-byte shared loads leaves it at 8, as the interpreter declares the array.
TEST(Instrument, NarrowestSharedAccessIsTheEmulatorsRule)
{
    const std::string ptx = kModuleHead + R"(.visible .entry copies(.param .u64 src)
{
	.reg .b32 	%r<4>;
	.reg .b64 	%rd<4>;
	.shared .align 8 .b8 tile[256];
	ld.param.u64 	%rd1, [src];
	mov.u32 	%r1, tile;
	cp.async.ca.shared.global 	[%r1], [%rd1], 4;
	cp.async.wait_all;
	ld.shared.u64 	%rd2, [%r1];
	ret;
}
)";
    const auto inst = instrument_ptx(ptx, "copies");
    EXPECT_EQ(inst.narrowest_shared_access, 8u);
    EXPECT_EQ(inst.sites, 3u);  // the copy's global load and shared store, the shared load
}

// The kernel's shared arrays are the ones the interpreter's parser lists
// (SharedUse), so that the trace's array ids are the emulator's: for k1 of
// shared_reach_module.h, a, b (through its call of f) and d, not c, which
// only the uncalled g names.
TEST(Instrument, SharedArraysAreTheOnesTheKernelReaches)
{
    const auto inst = instrument_ptx(kSharedReachModule, "k1");
    std::vector<std::string> names;
    for (const auto& s : inst.shared) names.push_back(s.ptx_name);
    EXPECT_EQ(names, (std::vector<std::string>{"a", "b", "d"}));
}

// ptxas accepts every instrumented test kernel, and rejects instrumented PTX
// that lost a declaration: the check can fail.
TEST(Instrument, PtxasAcceptsEveryTestKernel)
{
    for (const char* entry : {kTree256, kTree64, kWarpSums, kNarrow, kConstantLookups}) {
        const PtxasVerdict v = assemble(kPtxas, instrument_ptx(test_ptx(), entry).text, entry);
        EXPECT_TRUE(v.ok) << entry << ":\n" << v.messages;
    }
    std::string broken = instrument_ptx(test_ptx(), kTree256).text;
    const auto decl = broken.find("\t.reg .b64 \t%wl_ctl");
    ASSERT_NE(decl, std::string::npos);
    broken.erase(decl, broken.find('\n', decl) - decl);
    const PtxasVerdict v = assemble(kPtxas, broken, "broken");
    EXPECT_FALSE(v.ok);
    EXPECT_NE(v.messages.find("wl_"), std::string::npos) << v.messages;
}

// Every kernel of both labs, instrumented, assembles for sm_90.
TEST(Instrument, PtxasAcceptsEveryLabKernel)
{
    namespace fs = std::filesystem;
    int labs = 0;
    for (const char* lab : {"reduction", "matmul"}) {
        const fs::path ptx = lab_ptx_path(lab);
        if (ptx.empty()) continue;
        ++labs;
        const std::string text = read_file(ptx.string());
        const std::regex entry_re(R"(\.entry\s+([A-Za-z0-9_$]+))");
        std::vector<std::pair<std::string, std::string>> modules;
        // A kernel with global or shared accesses gets sites; one with none (matmul
        // v11's compute_90 body, empty: its wgmma exists only in sm_90a code) gets none.
        const std::regex memory_re(R"(\b(ld|st|atom|red)\.(global|shared)\b)");
        for (auto it = std::sregex_iterator(text.begin(), text.end(), entry_re); it != std::sregex_iterator(); ++it) {
            const std::string name = (*it)[1];
            const std::size_t begin = std::size_t(it->position()), next = text.find(".entry", begin + 1);
            const std::string body = text.substr(begin, next == std::string::npos ? std::string::npos : next - begin);
            auto inst = instrument_ptx(text, name);
            if (std::regex_search(body, memory_re)) EXPECT_GT(inst.sites, 0u) << name;
            else EXPECT_EQ(inst.sites, 0u) << name << " has no memory access to record";
            modules.emplace_back(name, std::move(inst.text));
        }
        const std::size_t entries = modules.size();
        for (const auto& [name, messages] : assemble_all(kPtxas, modules))
            ADD_FAILURE() << lab << " " << name << ":\n" << messages.substr(0, 2000);
        EXPECT_GT(entries, 0u) << ptx;
    }
    if (labs == 0) GTEST_SKIP() << "the labs' PTX is not built (no ptx/<lab>.ptx in the build, no kernels/ptx/)";
}

}  // namespace
