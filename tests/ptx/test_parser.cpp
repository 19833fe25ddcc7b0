// The parser on hand-written PTX (no nvcc needed): declarations, operands,
// source attribution through inlined_at, and its errors.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstring>
#include <string>

#include "ptx_test_util.h"
#include "tests/fault_of.h"
#include "warplab/ptx/ptx.h"

namespace {

using warplab::test::fault_of;
using wl::ptx::testing::ptx_module;
using wl::ptx::Module;

// A kernel in the shape nvcc gives: out[tid] = in[tid] * 2 + 1, with the store
// attributed to a toolkit header inlined at line 7 of the user's file.
const std::string kScale = ptx_module(R"(
.visible .entry _Z5scalePKiPi(
	.param .u64 _Z5scalePKiPi_param_0,
	.param .u64 _Z5scalePKiPi_param_1
)
{
	.reg .pred 	%p<2>;
	.reg .b32 	%r<4>;
	.reg .b64 	%rd<7>;

	.loc	1 5 0
	ld.param.u64 	%rd1, [_Z5scalePKiPi_param_0];
	ld.param.u64 	%rd2, [_Z5scalePKiPi_param_1];
	cvta.to.global.u64 	%rd3, %rd1;
	cvta.to.global.u64 	%rd4, %rd2;
	mov.u32 	%r1, %tid.x;
	setp.gt.u32 	%p1, %r1, 63;
	@%p1 bra 	$L__BB0_2;
	mul.wide.u32 	%rd5, %r1, 4;
	add.s64 	%rd6, %rd3, %rd5;
	.loc	1 6 5
	ld.global.nc.u32 	%r2, [%rd6];
	shl.b32 	%r3, %r2, 1;
	add.s32 	%r3, %r3, 1;
	add.s64 	%rd6, %rd4, %rd5;
	.loc	2 100 3, function_name $L__info_string0, inlined_at 1 7 9
	st.global.u32 	[%rd6+0], %r3;
$L__BB0_2:
	.loc	1 8 1
	ret;

}
	.file	1 "labs/demo/scale.cu"
	.file	2 "/usr/local/cuda/bin/../targets/x86_64-linux/include/sm_30_intrinsics.hpp"
	.section	.debug_str
	{
$L__info_string0:
.b8 95,90,0
	}
)", "9.0");

TEST(PtxParser, ReadsAKernelAndItsParameters)
{
    const Module m = Module::parse(kScale, "scale.ptx");
    const auto kernels = m.kernels();
    ASSERT_EQ(kernels.size(), 1u);
    EXPECT_EQ(kernels[0].mangled, "_Z5scalePKiPi");
    EXPECT_EQ(kernels[0].demangled, "scale(int const*, int*)");
    ASSERT_EQ(kernels[0].params.size(), 2u);
    EXPECT_EQ(kernels[0].params[1].bytes, 8u);
    EXPECT_EQ(kernels[0].registers, 2u + 4u + 7u);  // %p<2>, %r<4>, %rd<7>
    EXPECT_NE(m.find("scale"), nullptr);
    EXPECT_NE(m.find("_Z5scalePKiPi"), nullptr);
    EXPECT_EQ(m.find("scal"), nullptr);
}

TEST(PtxParser, RunsAndAttributesInlinedCodeToTheUsersLine)
{
    const Module m = Module::parse(kScale, "scale.ptx");
    wl::emu::Emulator emu;
    const unsigned n = 64;
    int* in = emu.alloc<int>(n);
    int* out = emu.alloc<int>(n);
    for (unsigned i = 0; i < n; ++i) in[i] = static_cast<int>(i) - 20;
    wl::ptx::launch(emu, m, "scale", dim3(1), dim3(96), 0, in, out);  // 32 threads beyond n do nothing
    for (unsigned i = 0; i < n; ++i) EXPECT_EQ(out[i], (static_cast<int>(i) - 20) * 2 + 1);
    unsigned stores = 0;
    for (const auto& r : emu.take_records()) {
        if (r.kind != wl::trace::Kind::Store) continue;
        ++stores;
        // the st.global sits in sm_30_intrinsics.hpp, inlined at scale.cu:7
        EXPECT_EQ(r.line, 7u);
        EXPECT_EQ(r.file_hash, wl::trace::file_hash("scale.cu"));
        EXPECT_EQ(r.array, 1u);  // argument 1
        EXPECT_EQ(r.offset, r.thread * 4u);
    }
    EXPECT_EQ(stores, n);
}

// A module is read whole: a statement the parser cannot read (here an
// undeclared register) fails the kernel that holds it when it runs, naming
// the statement, its PTX line and the user's file:line; the module's other
// kernels run.
TEST(PtxParser, AnUnreadableStatementFailsOnlyItsKernelWhenItRuns)
{
    std::string broken = kScale;
    broken.replace(broken.find("%r3, %r3, 1;"), std::string("%r3, %r3, 1;").size(), "%r4, %r3, 1;");
    // the same module with a second kernel, a good copy of scale named scale_ok
    std::string good = kScale;
    good = good.substr(good.find(".visible .entry"), good.find(".file") - good.find(".visible .entry"));
    for (std::size_t at; (at = good.find("_Z5scalePKiPi")) != std::string::npos;) good.replace(at, 13, "_Z8scale_okPKiPi");
    const std::string text = broken.substr(0, broken.find(".file")) + good + broken.substr(broken.find(".file"));
    const Module m = Module::parse(text, "bad.ptx");  // parses: only the broken kernel fails, when launched
    wl::emu::Emulator emu;
    int* in = emu.alloc<int>(64);
    int* out = emu.alloc<int>(64);
    for (int i = 0; i < 64; ++i) in[i] = i;
    ASSERT_NO_THROW(wl::ptx::launch(emu, m, "scale_ok", dim3(1), dim3(64), 0, in, out));
    for (int i = 0; i < 64; ++i) EXPECT_EQ(out[i], 2 * i + 1);  // scale: 2x + 1
    const auto f = fault_of([&] { wl::ptx::launch(emu, m, "scale", dim3(1), dim3(64), 0, in, out); });
    ASSERT_TRUE(f) << "ran a kernel with a register outside %r<4>";
    const std::string what = f->what();
    const auto line = 1 + std::count(text.begin(), text.begin() + static_cast<long>(text.find("%r4, %r3")), '\n');
    EXPECT_NE(what.find("PTX that warplab cannot read"), std::string::npos) << what;
    EXPECT_NE(what.find("unknown name '%r4'"), std::string::npos) << what;
    EXPECT_NE(what.find("(PTX line " + std::to_string(line) + ")"), std::string::npos) << what;
    EXPECT_EQ(f->fault.file, "labs/demo/scale.cu");  // the .loc before it: 1 6 5
    EXPECT_EQ(f->fault.line, 6u);
}

TEST(PtxParser, GarbageIsAParseErrorNotACrash)
{
    // A module whose structure breaks (braces, a module-level token) is not a module.
    EXPECT_THROW(Module::parse("}}}", "x.ptx"), wl::ptx::ParseError);
    EXPECT_THROW(Module::parse(".version 9.0\n.target sm_90\nfrobnicate;", "x.ptx"), wl::ptx::ParseError);
    EXPECT_THROW(Module::parse(".visible .entry k() { ret;", "x.ptx"), wl::ptx::ParseError);
    // A statement inside a kernel that cannot be read is the kernel's fault, at run time.
    for (const char* body : {"mov.u32 %r1 }", "bra $L_nowhere; }"}) {
        const Module m = Module::parse(std::string(".version 9.0\n.target sm_90\n.visible .entry k() { ") + body, "x.ptx");
        wl::emu::Emulator emu;
        EXPECT_THROW(wl::ptx::launch(emu, m, "k", dim3(1), dim3(1), 0), wl::emu::KernelFault) << body;
    }
}

// Vectors, negated guards, sinks and an instruction the interpreter lacks.
const std::string kVectors = ptx_module(R"(
.visible .entry vec(.param .u64 p, .param .u32 which)
{
	.reg .pred %p<3>;
	.reg .b32 %r<9>;
	.reg .f32 %f<5>;
	.reg .b64 %rd<3>;
	ld.param.u64 %rd1, [p];
	ld.param.u32 %r8, [which];
	ld.global.v4.f32 {%f1, %f2, _, %f4}, [%rd1];
	add.f32 %f3, %f1, %f4;
	st.global.v2.f32 [%rd1+16], {%f3, %f2};
	mov.b64 %rd2, {%r1, %r2};
	mov.u32 %r3, 7;
	mov.b64 {%r4, %r5}, 0x0000000500000003;
	add.s32 %r6, %r4, %r5;
	setp.eq.s32 %p1, %r8, 0;
	@!%p1 bra $L_odd;
	st.global.u32 [%rd1+24], %r6;
	ret;
$L_odd:
	mma.sync.aligned.m8n8k4.row.col.f32.f16.f16.f32 {%f1, %f2}, {%r1}, {%r2}, {%f3, %f4};
	ret;
}
)", "9.0");

TEST(PtxParser, VectorOperandsPackingAndGuards)
{
    const Module m = Module::parse(kVectors, "vec.ptx");
    wl::emu::Emulator emu;
    float* p = emu.alloc<float>(8);
    const float init[8] = {1.5f, 2.0f, 3.0f, 4.25f, 0, 0, 0, 0};
    std::memcpy(p, init, sizeof init);
    wl::ptx::launch(emu, m, "vec", dim3(1), dim3(1), 0, p, 0u);
    EXPECT_EQ(p[4], 1.5f + 4.25f);  // {%f1, .., %f4} from the v4 load, stored as v2
    EXPECT_EQ(p[5], 2.0f);
    int sum;
    std::memcpy(&sum, &p[6], 4);
    EXPECT_EQ(sum, 3 + 5);  // the two halves of 0x0000000500000003
}

TEST(PtxParser, AnInstructionTheInterpreterLacksIsAKernelFaultNamingIt)
{
    const Module m = Module::parse(kVectors, "vec.ptx");  // parses: only running it fails
    wl::emu::Emulator emu;
    float* p = emu.alloc<float>(8);
    for (int i = 0; i < 8; ++i) p[i] = 0;
    const auto f = fault_of([&] { wl::ptx::launch(emu, m, "vec", dim3(1), dim3(1), 0, p, 1u); });
    ASSERT_TRUE(f) << "ran an instruction it does not implement";
    const std::string what = f->what();
    EXPECT_NE(what.find("unsupported PTX instruction 'mma.sync.aligned.m8n8k4.row.col.f32.f16.f16.f32'"), std::string::npos) << what;
    const std::string text = kVectors;
    const auto line = 1 + std::count(text.begin(), text.begin() + static_cast<long>(text.find("mma.sync")), '\n');
    EXPECT_NE(what.find("(PTX line " + std::to_string(line) + ")"), std::string::npos) << what;
}

TEST(PtxParser, LaunchErrorsSayWhatIsWrong)
{
    const Module m = Module::parse(kScale, "scale.ptx");
    wl::emu::Emulator emu;
    int* a = emu.alloc<int>(4);
    try {
        wl::ptx::launch(emu, m, "scale", dim3(1), dim3(32), 0, a);
        FAIL();
    } catch (const wl::emu::LaunchError& e) {
        EXPECT_STREQ(e.what(), "kernel scale takes 2 parameters (8, 8 bytes); 1 given");
    }
    try {
        wl::ptx::launch(emu, m, "scale", dim3(1), dim3(32), 0, a, 3);
        FAIL();
    } catch (const wl::emu::LaunchError& e) {
        EXPECT_NE(std::string(e.what()).find("argument 1 has 4 bytes"), std::string::npos) << e.what();
    }
    try {
        wl::ptx::launch(emu, m, "nope", dim3(1), dim3(32), 0, a, a);
        FAIL();
    } catch (const wl::emu::LaunchError& e) {
        EXPECT_NE(std::string(e.what()).find("(it has: scale)"), std::string::npos) << e.what();
    }
    EXPECT_THROW(wl::ptx::launch(emu, m, "scale", dim3(1), dim3(2048), 0, a, a), wl::emu::LaunchError);
    EXPECT_THROW(wl::ptx::launch(emu, m, "scale", dim3(1), dim3(32), 300 * 1024, a, a), wl::emu::LaunchError);
}

TEST(PtxParser, OutOfBoundsGlobalLoadNamesTheArgument)
{
    const Module m = Module::parse(kScale, "scale.ptx");
    wl::emu::Emulator emu;
    int* in = emu.alloc<int>(40);  // the kernel reads 64
    int* out = emu.alloc<int>(64);
    for (int i = 0; i < 40; ++i) in[i] = i;
    const auto f = fault_of([&] { wl::ptx::launch(emu, m, "scale", dim3(1), dim3(64), 0, in, out); });
    ASSERT_TRUE(f);
    const std::string what = f->what();
    EXPECT_NE(what.find("out-of-bounds load: argument 0["), std::string::npos) << what;
    EXPECT_NE(what.find("is outside its 40 elements"), std::string::npos) << what;
    EXPECT_NE(what.find("(at labs/demo/scale.cu:6)"), std::string::npos) << what;
}

}  // namespace

namespace {

// nvcc appends _$_N to a shared variable whose name it has used before; the source name stays "word".
TEST(PtxParser, SharedVariableNamesAreTheSourceNames)
{
    const std::string text = ptx_module(R"(
.visible .entry _Z1kPi(.param .u64 _Z1kPi_param_0)
{
	.reg .b32 %r<2>;
	.shared .align 4 .b8 _ZZ1kPiE4word_$_0[8];
	.shared .align 8 .b8 _ZZ1kPiE5pairs[64];
	mov.u32 %r1, 1;
	st.shared.u32 [_ZZ1kPiE4word_$_0], %r1;
	ret;
}
)", "9.0");
    const wl::ptx::Module m = wl::ptx::Module::parse(text, "names.ptx");
    const auto* k = m.find("k");
    ASSERT_NE(k, nullptr);
    ASSERT_EQ(k->shared.size(), 2u);
    EXPECT_EQ(k->shared[0].name, "word");
    EXPECT_EQ(k->shared[0].bytes, 8u);
    EXPECT_EQ(k->shared[1].name, "pairs");
    EXPECT_EQ(k->static_shared_bytes, 16u + 64u);  // each variable starts 16-byte aligned
}

}  // namespace

// PTX writes some modifiers with "::" (cache hints, state spaces of Hopper's
// instructions). They belong to the instruction's name: a hinted load runs as
// a load, and an instruction the interpreter lacks still parses and faults only
// when it runs, naming itself whole.
const std::string kScopedModifiers = ptx_module(R"(
.visible .entry hinted(.param .u64 p, .param .u32 which)
{
	.reg .pred %p<2>;
	.reg .b32 %r<8>;
	.reg .b64 %rd<2>;
	ld.param.u64 %rd1, [p];
	ld.param.u32 %r7, [which];
	ld.global.nc.L1::no_allocate.v4.s32 {%r1, %r2, %r3, %r4}, [%rd1];
	add.s32 %r5, %r1, %r4;
	st.global.u32 [%rd1+16], %r5;
	setp.eq.s32 %p1, %r7, 0;
	@%p1 bra $L_done;
	mbarrier.arrive.release.cluster.shared::cluster.b64 _, [%r6];
$L_done:
	ret;
}
)");

TEST(PtxParser, DoubleColonModifiersAreOneName)
{
    const Module m = Module::parse(kScopedModifiers, "hinted.ptx");
    wl::emu::Emulator emu;
    int* p = emu.alloc<int>(8);
    const int init[8] = {3, 100, 200, 4, 0, 0, 0, 0};
    std::memcpy(p, init, sizeof init);
    wl::ptx::launch(emu, m, "hinted", dim3(1), dim3(1), 0, p, 0u);
    EXPECT_EQ(p[4], 3 + 4);  // p[0] + p[3], read by the hinted v4 load
    const auto f = fault_of([&] { wl::ptx::launch(emu, m, "hinted", dim3(1), dim3(1), 0, p, 1u); });
    ASSERT_TRUE(f) << "ran an arrival on a cluster's mbarrier, which the interpreter does not implement";
    const std::string what = f->what();
    EXPECT_NE(what.find("unsupported PTX instruction 'mbarrier.arrive.release.cluster.shared::cluster.b64'"), std::string::npos) << what;
}
