// Which NaN a double operation passes on where two or three operands are NaN:
// PTX says double instructions carry NaN payloads but not which operand's, so
// the emulator follows what the GPU does (values.h, f64_nan_kept). Each PTX
// instruction below runs on every pair (and triple) of four NaNs, positive and
// negative, quiet and signalling, small and large payloads, and 2.0; the
// program prints one line a case: the instruction, its operands' names and
// which operand's NaN came out ("a", "b", "c", made quiet; "other" if none).
//
//     nvcc -arch=sm_90 -o nan_choice nan_choice.cu && ./nan_choice > gpu.txt
//     warplab run nan_choice.cu > emulator.txt; diff gpu.txt emulator.txt
#include <cstdio>
#include <cstring>

#define OP2(name, text)                                                                                  \
    __device__ double name(double a, double b)                                                          \
    {                                                                                                   \
        double d;                                                                                       \
        asm volatile(text " %0, %1, %2;" : "=d"(d) : "d"(a), "d"(b));                                   \
        return d;                                                                                       \
    }
#define OP3(name, text)                                                                                  \
    __device__ double name(double a, double b, double c)                                                \
    {                                                                                                   \
        double d;                                                                                       \
        asm volatile(text " %0, %1, %2, %3;" : "=d"(d) : "d"(a), "d"(b), "d"(c));                       \
        return d;                                                                                       \
    }
OP2(add_rn, "add.rn.f64")
OP2(add_rz, "add.rz.f64")
OP2(sub_rn, "sub.rn.f64")
OP2(sub_rp, "sub.rp.f64")
OP2(mul_rn, "mul.rn.f64")
OP2(mul_rz, "mul.rz.f64")
OP2(mul_rm, "mul.rm.f64")
OP2(mul_rp, "mul.rp.f64")
OP2(div_rn, "div.rn.f64")
OP2(div_rz, "div.rz.f64")
OP2(min_, "min.f64")
OP2(max_, "max.f64")
OP3(fma_rn, "fma.rn.f64")
OP3(fma_rz, "fma.rz.f64")
OP3(fma_rm, "fma.rm.f64")
OP3(fma_rp, "fma.rp.f64")

constexpr int kValues = 5;
constexpr int kOps2 = 12, kOps3 = 4;

__global__ void probe(const double* v, double* out2, double* out3, double* same)
{
    const int i = threadIdx.x / kValues, j = threadIdx.x % kValues;  // 25 threads: every pair
    const double a = v[i], b = v[j];
    double* o = out2 + threadIdx.x * kOps2;
    o[0] = add_rn(a, b); o[1] = add_rz(a, b); o[2] = sub_rn(a, b); o[3] = sub_rp(a, b);
    o[4] = mul_rn(a, b); o[5] = mul_rz(a, b); o[6] = mul_rm(a, b); o[7] = mul_rp(a, b);
    o[8] = div_rn(a, b); o[9] = div_rz(a, b); o[10] = min_(a, b); o[11] = max_(a, b);
    for (int k = 0; k < kValues; ++k) {  // every c: 125 triples a thread's 5
        const double c = v[k];
        double* t = out3 + (threadIdx.x * kValues + k) * kOps3;
        t[0] = fma_rn(a, b, c); t[1] = fma_rz(a, b, c); t[2] = fma_rm(a, b, c); t[3] = fma_rp(a, b, c);
    }
    // the generator's shape: __fma_rX(d0, x, d0), one register as a and c
    double* s = same + threadIdx.x * kOps3;
    s[0] = fma_rn(a, b, a); s[1] = fma_rz(a, b, a); s[2] = fma_rm(a, b, a); s[3] = fma_rp(a, b, a);
}

static unsigned long long bits(double d)
{
    unsigned long long u;
    std::memcpy(&u, &d, 8);
    return u;
}

static const char* which(unsigned long long r, const unsigned long long* in, int n)
{
    static const char* names[] = {"a", "b", "c"};
    const unsigned long long quiet = 1ull << 51;
    for (int k = 0; k < n; ++k)
        if (r == (in[k] | quiet) && (in[k] & 0x7FF0000000000000ull) == 0x7FF0000000000000ull && (in[k] << 12))
            return names[k];  // equal operands: the first
    return "other";
}

int main()
{
    // P: +quiet, large payload; Q: +signalling, payload 1; N: -quiet, small payload; M: -quiet, large payload; two
    const unsigned long long v[kValues] = {0x7FFFFFFFE0000000ull, 0x7FF0000000000001ull, 0xFFF8000000000123ull,
                                           0xFFFFFFF300000000ull, 0x4000000000000000ull};
    const char* name[kValues] = {"P", "Q", "N", "M", "2"};
    const char* op2[kOps2] = {"add.rn", "add.rz", "sub.rn", "sub.rp", "mul.rn", "mul.rz", "mul.rm", "mul.rp",
                              "div.rn", "div.rz", "min", "max"};
    const char* op3[kOps3] = {"fma.rn", "fma.rz", "fma.rm", "fma.rp"};
    double *dv, *d2, *d3, *ds;
    cudaMalloc(&dv, sizeof v);
    cudaMalloc(&d2, 25 * kOps2 * 8);
    cudaMalloc(&d3, 125 * kOps3 * 8);
    cudaMalloc(&ds, 25 * kOps3 * 8);
    cudaMemcpy(dv, v, sizeof v, cudaMemcpyHostToDevice);
    probe<<<1, 25>>>(dv, d2, d3, ds);
    if (cudaDeviceSynchronize() != cudaSuccess) {
        std::printf("nan_choice: the kernel failed: %s\n", cudaGetErrorString(cudaGetLastError()));
        return 1;
    }
    double h2[25 * kOps2], h3[125 * kOps3], hs[25 * kOps3];
    cudaMemcpy(h2, d2, sizeof h2, cudaMemcpyDeviceToHost);
    cudaMemcpy(h3, d3, sizeof h3, cudaMemcpyDeviceToHost);
    cudaMemcpy(hs, ds, sizeof hs, cudaMemcpyDeviceToHost);
    cudaFree(dv);
    cudaFree(d2);
    cudaFree(d3);
    cudaFree(ds);
    for (int t = 0; t < 25; ++t) {
        const int i = t / kValues, j = t % kValues;
        const unsigned long long in[2] = {v[i], v[j]};
        for (int o = 0; o < kOps2; ++o) {
            const unsigned long long r = bits(h2[t * kOps2 + o]);
            std::printf("%s %s %s -> %016llx %s\n", op2[o], name[i], name[j], r, which(r, in, 2));
        }
        for (int k = 0; k < kValues; ++k) {
            const unsigned long long in3[3] = {v[i], v[j], v[k]};
            for (int o = 0; o < kOps3; ++o) {
                const unsigned long long r = bits(h3[(t * kValues + k) * kOps3 + o]);
                std::printf("%s %s %s %s -> %016llx %s\n", op3[o], name[i], name[j], name[k], r, which(r, in3, 3));
            }
        }
        const unsigned long long ins[3] = {v[i], v[j], v[i]};
        for (int o = 0; o < kOps3; ++o) {
            const unsigned long long r = bits(hs[t * kOps3 + o]);
            std::printf("%s(a,b,a) %s %s -> %016llx %s\n", op3[o], name[i], name[j], r, which(r, ins, 3));
        }
    }
    return 0;
}
