// A kernel's malloc and free (and new and delete, which call them): the
// device heap's blocks are device memory until freed, a bad free is a fault
// naming it, and a request past the heap's 8 MB gives a null pointer, as on a
// GPU. The module is hand-written PTX in nvcc's shape, so no nvcc is needed.
#include <gtest/gtest.h>

#include <cstdint>
#include <string>

#include "ptx_test_util.h"
#include "tests/fault_of.h"
#include "warplab/emu/emulator.h"
#include "warplab/ptx/ptx.h"

namespace {

using warplab::test::fault_of;
using wl::ptx::testing::ptx_module;

// heap(out, bytes, mode): each thread mallocs `bytes`, writes its index
// there, reads it back into out[tid]; out[32 + tid] = whether malloc gave
// null. mode 0 frees the block, 1 frees it twice, 2 reads it after the free.
const std::string kHeap = ptx_module(R"(
.file 1 "/home/student/heap.cu"

.extern .func  (.param .b64 func_retval0) malloc
(
	.param .b64 malloc_param_0
)
;
.extern .func free
(
	.param .b64 free_param_0
)
;

.visible .entry heap(
	.param .u64 heap_param_0,
	.param .u64 heap_param_1,
	.param .u32 heap_param_2
)
{
	.reg .pred 	%p<4>;
	.reg .b32 	%r<6>;
	.reg .b64 	%rd<10>;

	ld.param.u64 	%rd1, [heap_param_0];
	ld.param.u64 	%rd2, [heap_param_1];
	ld.param.u32 	%r1, [heap_param_2];
	cvta.to.global.u64 	%rd3, %rd1;
	mov.u32 	%r2, %tid.x;
	mul.wide.u32 	%rd4, %r2, 4;
	add.s64 	%rd5, %rd3, %rd4;
	.loc 1 10 5
	{
	.param .b64 param0;
	st.param.b64 	[param0+0], %rd2;
	.param .b64 retval0;
	call.uni (retval0), malloc, (param0);
	ld.param.b64 	%rd6, [retval0+0];
	}
	setp.eq.s64 	%p1, %rd6, 0;
	selp.u32 	%r3, 1, 0, %p1;
	st.global.u32 	[%rd5+128], %r3;
	@%p1 bra 	$L__done;
	.loc 1 11 5
	st.u32 	[%rd6], %r2;
	ld.u32 	%r4, [%rd6];
	st.global.u32 	[%rd5], %r4;
	.loc 1 12 5
	{
	.param .b64 param0;
	st.param.b64 	[param0+0], %rd6;
	call.uni free, (param0);
	}
	setp.eq.s32 	%p2, %r1, 1;
	@!%p2 bra 	$L__after_second;
	.loc 1 13 5
	{
	.param .b64 param0;
	st.param.b64 	[param0+0], %rd6;
	call.uni free, (param0);
	}
$L__after_second:
	setp.eq.s32 	%p3, %r1, 2;
	@!%p3 bra 	$L__done;
	.loc 1 14 5
	ld.u32 	%r5, [%rd6];
	st.global.u32 	[%rd5], %r5;
$L__done:
	ret;
}
)");

struct Heap : testing::Test {
    wl::emu::Emulator emu;
    wl::ptx::Module m = wl::ptx::Module::parse(kHeap, "heap.ptx");
    int* out = emu.alloc<int>(64);
    void run(std::uint64_t bytes, unsigned mode) { wl::ptx::launch(emu, m, "heap", dim3(1), dim3(32), 0, out, bytes, mode); }
};

// 32 threads, 16 bytes each: every thread reads back its own index, none gets null.
// Twice more (blocks freed in a launch are given back at the next): the same.
TEST_F(Heap, EachThreadsBlockHoldsWhatItWrote)
{
    for (int launch = 0; launch < 3; ++launch) {
        run(16, 0);
        for (int t = 0; t < 32; ++t) {
            EXPECT_EQ(out[t], t) << "thread " << t;
            EXPECT_EQ(out[32 + t], 0) << "thread " << t;
        }
    }
}

// 9 MB is past the 8 MB heap: malloc gives null to every thread, as on a GPU.
TEST_F(Heap, ARequestPastTheHeapGivesNull)
{
    run(std::uint64_t{9} << 20, 0);
    for (int t = 0; t < 32; ++t) EXPECT_EQ(out[32 + t], 1) << "thread " << t;
}

// The heap's size is set (cudaLimitMallocHeapSize): one thread's 9 MB block is
// past the 8 MB heap (null) and fits a 16 MB one (its index, 0, read back).
TEST_F(Heap, ALargerHeapHoldsALargerBlock)
{
    const std::uint64_t nine_mb = std::uint64_t{9} << 20;
    wl::ptx::launch(emu, m, "heap", dim3(1), dim3(1), 0, out, nine_mb, 0u);
    EXPECT_EQ(out[32], 1);
    wl::emu::set_device_heap_bytes(std::size_t{16} << 20);
    EXPECT_EQ(wl::emu::device_heap_bytes(), std::size_t{16} << 20);
    out[0] = -1;
    wl::ptx::launch(emu, m, "heap", dim3(1), dim3(1), 0, out, nine_mb, 0u);
    wl::emu::set_device_heap_bytes(std::size_t{8} << 20);
    EXPECT_EQ(out[32], 0);
    EXPECT_EQ(out[0], 0);
}

// A second free of one block is a fault at its line (13), naming the address.
TEST_F(Heap, ASecondFreeIsAFaultAtItsLine)
{
    const auto f = fault_of([&] { run(16, 1); });
    ASSERT_TRUE(f) << "the second free was not reported";
    EXPECT_EQ(f->fault.line, 13u) << f->what();
    EXPECT_NE(std::string(f->what()).find("free of address 0x"), std::string::npos) << f->what();
    EXPECT_NE(std::string(f->what()).find("or one freed already"), std::string::npos) << f->what();
}

// A read of a freed block is a fault at its line (14): the block is no device memory any more.
TEST_F(Heap, AReadAfterFreeIsAFaultAtItsLine)
{
    const auto f = fault_of([&] { run(16, 2); });
    ASSERT_TRUE(f) << "the read after free was not reported";
    EXPECT_EQ(f->fault.line, 14u) << f->what();
}

}  // namespace
