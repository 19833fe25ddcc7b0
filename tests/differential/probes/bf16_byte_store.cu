// The low byte of a bfloat16's bits stored to memory: kernel 2731 of seed 1, whose
// GPU read back 0 from `sh4[tid] = (unsigned char)__bfloat16_as_ushort(...)` in 191
// of 192 threads (results/differential/README.md).
//
// nvcc makes that `cvt.rp.bf16.f32 %rs, %f` and `st.shared.u8 [addr], %rs`. PTX
// (Operand Size Exceeding Instruction-Type Size) lets st take a register wider
// than its type and stores the register's low bits ("chop"): the byte is the low
// byte of the bfloat16's 16-bit pattern. ptxas of CUDA 13.0 for sm_90 writes
// the conversion (F2F) into a register and then, for the .u8 store only,
// F2I.U8.F16.TRUNC.NTZ of that register before the STS.U8 (cuobjdump's names):
// the 16 bits read as a half and converted to a byte, truncating and
// saturating, not chopped. On an H100 all four cases below differ (pattern
// 0x433d, the half 3.62, stores 3 where PTX stores 0x3d).
//
// Each case stores, per thread, the 16-bit pattern as a 32-bit word and its low
// byte as a byte (to shared memory, read back by another thread after a barrier,
// or to global memory); PTX's byte is the pattern's low byte. The patterns are
// checked too, against bfloat16 rounding done here on the host by hand (round
// up: drop the low 16 bits, and add one to a positive value's pattern if any was
// set). The program prints each case's verdict and exits 1 if any word differs.
//
//     nvcc -arch=sm_90 -o bf16_byte_store bf16_byte_store.cu && ./bf16_byte_store
#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include <cstdio>
#include <cstring>

// Built with -DPROBE_CHECK_FLIP=1u the check expects the first word of each case
// (the ballot; the byte) with its low bit flipped, and every case must then
// differ: a test of the check itself.
#ifndef PROBE_CHECK_FLIP
#define PROBE_CHECK_FLIP 0u
#endif

constexpr unsigned kThreads = 64u;
constexpr unsigned kShift = 47u;  // thread t reads the byte thread (t + 47) % 64 stored

enum class Pattern { bf16_ru, bf16_rn, half_rn };
enum class Place { shared_memory, global_memory };

template <Pattern P>
__device__ unsigned short pattern_of(float x)
{
    if (P == Pattern::bf16_ru)
        return __bfloat16_as_ushort(__float2bfloat16_ru(x));
    if (P == Pattern::bf16_rn)
        return __bfloat16_as_ushort(__float2bfloat16_rn(x));
    return __half_as_ushort(__float2half_rn(x));
}

template <Pattern P, Place Where>
__global__ void byte_of_pattern(const float* in, unsigned* patterns, unsigned char* bytes, unsigned* read_back)
{
    __shared__ unsigned char staged[kThreads];
    const unsigned t = threadIdx.x;
    const unsigned pattern = pattern_of<P>(in[t]);
    patterns[t] = pattern;
    if (Where == Place::shared_memory) {
        staged[t] = (unsigned char)pattern;
        __syncthreads();
        read_back[t] = staged[(t + kShift) % kThreads];
    } else {
        bytes[t] = (unsigned char)pattern;
    }
}

static unsigned bits_of(float x)
{
    unsigned b;
    std::memcpy(&b, &x, sizeof b);
    return b;
}

// bfloat16 rounding of a finite float, by hand: the high 16 bits, rounded up (toward +inf) or to nearest even
static unsigned bf16_by_hand(float x, Pattern p)
{
    const unsigned b = bits_of(x), high = b >> 16, low = b & 0xffffu;
    if (p == Pattern::bf16_ru)
        return high + ((b >> 31) == 0u && low != 0u ? 1u : 0u);
    return high + (low > 0x8000u || (low == 0x8000u && (high & 1u)) ? 1u : 0u);
}

static int differing_cases = 0;

template <Pattern P, Place Where>
void run_case(const float* hin, const float* din, unsigned* dpatterns, unsigned char* dbytes, unsigned* dread)
{
    static const char* patterns[] = {"__float2bfloat16_ru", "__float2bfloat16_rn", "__float2half_rn"};
    char name[128];
    std::snprintf(name, sizeof name, "low byte of %s's bits to %s memory", patterns[int(P)],
                  Where == Place::shared_memory ? "shared" : "global");
    byte_of_pattern<P, Where><<<1, kThreads>>>(din, dpatterns, dbytes, dread);
    unsigned pattern[kThreads], read[kThreads];
    unsigned char bytes[kThreads];
    if (cudaMemcpy(pattern, dpatterns, sizeof pattern, cudaMemcpyDeviceToHost) != cudaSuccess ||
        cudaMemcpy(read, dread, sizeof read, cudaMemcpyDeviceToHost) != cudaSuccess ||
        cudaMemcpy(bytes, dbytes, sizeof bytes, cudaMemcpyDeviceToHost) != cudaSuccess) {
        std::printf("%s: the kernel failed: %s\n", name, cudaGetErrorString(cudaGetLastError()));
        ++differing_cases;
        return;
    }
    int wrong = 0;
    for (unsigned t = 0; t < kThreads; ++t) {
        const unsigned source = Where == Place::shared_memory ? (t + kShift) % kThreads : t;
        const unsigned got = Where == Place::shared_memory ? read[t] : bytes[t], want = (pattern[source] & 0xffu) ^ PROBE_CHECK_FLIP;
        const bool pattern_right = P == Pattern::half_rn || pattern[t] == bf16_by_hand(hin[t], P);
        if (got == want && pattern_right)
            continue;
        if (wrong++ < 3)
            std::printf("  thread %2u: byte %02x of thread %2u's pattern %04x (PTX: %02x)%s\n", t, got, source, pattern[source],
                        want, pattern_right ? "" : ", its own pattern not the rounding by hand");
    }
    std::printf("%s: %s", name, wrong ? "DIFFERS from PTX" : "as PTX says");
    std::printf(wrong ? " in %d threads\n" : "\n", wrong);
    differing_cases += wrong != 0;
}

int main()
{
    float in[kThreads];
    for (unsigned i = 0; i < kThreads; ++i)  // both signs, magnitudes 2^-8 to 2^8, low bits set
        in[i] = (i % 3u == 0u ? -1.0f : 1.0f) * (0.00390625f + float(i) * 4.0134f);
    float* din;
    unsigned *dpatterns, *dread;
    unsigned char* dbytes;
    cudaMalloc(&din, sizeof in);
    cudaMalloc(&dpatterns, kThreads * sizeof(unsigned));
    cudaMalloc(&dread, kThreads * sizeof(unsigned));
    cudaMalloc(&dbytes, kThreads);
    cudaMemcpy(din, in, sizeof in, cudaMemcpyHostToDevice);
    run_case<Pattern::bf16_ru, Place::shared_memory>(in, din, dpatterns, dbytes, dread);  // kernel 2731's shape
    run_case<Pattern::bf16_ru, Place::global_memory>(in, din, dpatterns, dbytes, dread);
    run_case<Pattern::bf16_rn, Place::shared_memory>(in, din, dpatterns, dbytes, dread);
    run_case<Pattern::half_rn, Place::shared_memory>(in, din, dpatterns, dbytes, dread);
    cudaFree(din);
    cudaFree(dpatterns);
    cudaFree(dread);
    cudaFree(dbytes);
    std::printf("bf16_byte_store: %d of 4 cases differ from PTX\n", differing_cases);
    return differing_cases ? 1 : 0;
}
