// mbarrier phases on the interpreter, one thread stepping through them with
// the non-blocking test_wait, so that every answer is determined: arrival
// counts, state tokens and parities, expected transaction bytes, and a bulk
// copy's bytes counted off when they land. (test_bulk_copy.cpp has the
// blocking try_wait, many threads, and the faults.)
#include <vector>

#include "ptx_test_util.h"

namespace {

using wl::ptx::testing::compile_module;

const char* kPhases = R"(
__device__ unsigned at(const void* p) { return static_cast<unsigned>(__cvta_generic_to_shared(p)); }

__device__ int done_state(unsigned bar, unsigned long long state)
{
    unsigned done;
    asm volatile("{ .reg .pred p; mbarrier.test_wait.shared::cta.b64 p, [%1], %2; selp.u32 %0, 1, 0, p; }"
                 : "=r"(done) : "r"(bar), "l"(state) : "memory");
    return done;
}

__device__ int done_parity(unsigned bar, unsigned parity)
{
    unsigned done;
    asm volatile("{ .reg .pred p; mbarrier.test_wait.parity.shared::cta.b64 p, [%1], %2; selp.u32 %0, 1, 0, p; }"
                 : "=r"(done) : "r"(bar), "r"(parity) : "memory");
    return done;
}

__device__ unsigned long long arrive(unsigned bar, unsigned count)
{
    unsigned long long state;
    asm volatile("mbarrier.arrive.shared::cta.b64 %0, [%1], %2;" : "=l"(state) : "r"(bar), "r"(count) : "memory");
    return state;
}

__global__ void phases(const int* in, int* out)
{
    __shared__ __align__(8) unsigned long long bar;
    __shared__ __align__(16) int buffer[4];
    const unsigned b = at(&bar);
    asm volatile("mbarrier.init.shared::cta.b64 [%0], 2;" :: "r"(b) : "memory");
    // Phase 0 expects two arrivals.
    const unsigned long long first = arrive(b, 1);
    out[0] = done_state(b, first);   // one arrival still expected
    arrive(b, 1);
    out[1] = done_state(b, first);   // both arrived: phase 0 complete
    // Phase 1 expects two arrivals and, from expect_tx, 16 bytes.
    asm volatile("mbarrier.expect_tx.shared::cta.b64 [%0], 16;" :: "r"(b) : "memory");
    arrive(b, 2);
    out[2] = done_parity(b, 1);      // the 16 bytes have not landed
    out[3] = done_parity(b, 0);      // the phase before, 0, has completed
    asm volatile("cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes [%0], [%1], 16, [%2];"
                 :: "r"(at(buffer)), "l"(in), "r"(b) : "memory");
    out[4] = done_parity(b, 1);      // the copy lands when tested: phase 1 complete
    out[5] = buffer[0] + buffer[1] + buffer[2] + buffer[3];
}
)";

TEST(PtxMbarrier, PhasesCompleteOnArrivalsAndLandedBytes)
{
    WL_SKIP_WITHOUT_NVCC();
    const auto m = compile_module(kPhases);
    wl::emu::Emulator emu;
    const std::vector<int> values{1, 20, 300, 4000};
    int* in = emu.alloc<int>(values.size());
    emu.copy_to_device(in, values.data(), values.size());
    int* out = emu.alloc<int>(6);
    wl::ptx::launch(emu, m, "phases", dim3(1), dim3(1), 0, in, out);
    // By hand, in the kernel's order: phase 0 needs 2 arrivals (0 after one,
    // 1 after both); phase 1 has both arrivals but 16 bytes outstanding (0),
    // while parity 0 names the completed phase 0 (1); the copy's 16 bytes
    // complete phase 1 (1); and the bytes are in's: 1 + 20 + 300 + 4000 = 4321.
    const int expected[6] = {0, 1, 0, 1, 1, 4321};
    for (int k = 0; k < 6; ++k) EXPECT_EQ(out[k], expected[k]) << "out[" << k << "]";
}

}  // namespace
