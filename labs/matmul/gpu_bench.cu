// Times every matmul version on the GPU (the plain build: no tracing), beside
// cuBLAS SGEMM in pedantic FP32, cuBLAS in TF32 and cuBLAS's BF16 GEMM (tensor
// cores) measured in the same run, and checks every version's C against
// cuBLAS's pedantic FP32 one (check_on_gpu, for the gpu tests). Each row is
// compared with the cuBLAS of its own arithmetic: FP32 versions with pedantic
// SGEMM, TF32 ones with cuBLAS TF32, BF16 ones with cuBLAS BF16. With them,
// the lab's GPU entry points: the trace is the run skeleton's.
#include <cublas_v2.h>

#include <algorithm>
#include <cmath>
#include <functional>
#include <map>
#include <memory>
#include <random>

#include "labs/common/gpu_backends.cuh"
#include "labs/common/gpu_bench.h"
#include "labs/matmul/bf16_inputs.cuh"
#include "labs/matmul/kernels.cuh"
#include "labs/matmul/run.h"

namespace warplab::matmul {

namespace {

void check_cublas(cublasStatus_t s, const char* what)
{
    if (s != CUBLAS_STATUS_SUCCESS) throw std::runtime_error(std::string("cuBLAS error in ") + what + ": " + cublasGetStatusString(s));
}

// cuBLAS in one arithmetic: SGEMM in pedantic FP32 (no TF32, no
// reduced-precision shortcuts) or in TF32 on the tensor cores (inputs read
// with 10 mantissa bits, FP32 sums), or GemmEx on the bf16 inputs the BF16
// versions read (FP32 sums, FP32 C: the same C, bytes and all, as v14
// writes). cuBLAS is column-major; a row-major M×N matrix is its N×M
// transpose, so row-major C = A·B is column-major C^T = B^T·A^T: call it
// with B first, m = N, n = M.
class Cublas {
public:
    explicit Cublas(Arithmetic arithmetic) : arithmetic_(arithmetic)
    {
        check_cublas(cublasCreate(&handle_), "cublasCreate");
        const cublasMath_t mode = arithmetic == Arithmetic::Tf32   ? CUBLAS_TF32_TENSOR_OP_MATH
                                  : arithmetic == Arithmetic::Bf16 ? CUBLAS_DEFAULT_MATH
                                                                   : CUBLAS_PEDANTIC_MATH;
        check_cublas(cublasSetMathMode(handle_, mode), "cublasSetMathMode");
    }
    ~Cublas() { cublasDestroy(handle_); }
    Cublas(const Cublas&) = delete;
    Cublas& operator=(const Cublas&) = delete;
    void sgemm(const float* a, const float* b, float* c, const Shape& s)
    {
        const float one = 1.0f, zero = 0.0f;
        const int m = static_cast<int>(s.m), n = static_cast<int>(s.n), k = static_cast<int>(s.k);
        check_cublas(cublasSgemm(handle_, CUBLAS_OP_N, CUBLAS_OP_N, n, m, k, &one, b, n, a, k, &zero, c, n), "cublasSgemm");
    }
    // C = A·B in this handle's arithmetic: from the bf16 inputs for BF16.
    void multiply(const float* a, const float* b, const Bf16Operands& h, float* c, const Shape& s)
    {
        if (arithmetic_ != Arithmetic::Bf16) return sgemm(a, b, c, s);
        const float one = 1.0f, zero = 0.0f;
        const int m = static_cast<int>(s.m), n = static_cast<int>(s.n), k = static_cast<int>(s.k);
        const int ldb = static_cast<int>(bf16_row(s.n)), lda = static_cast<int>(bf16_row(s.k));
        check_cublas(cublasGemmEx(handle_, CUBLAS_OP_N, CUBLAS_OP_N, n, m, k, &one, h.b, CUDA_R_16BF, ldb, h.a, CUDA_R_16BF, lda,
                                  &zero, c, CUDA_R_32F, n, CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT),
                     "cublasGemmEx (BF16)");
    }

    Arithmetic arithmetic() const { return arithmetic_; }
    // The row's name in the bench table.
    const char* name() const
    {
        return arithmetic_ == Arithmetic::Tf32   ? "cuBLAS SGEMM (TF32 tensor cores)"
               : arithmetic_ == Arithmetic::Bf16 ? "cuBLAS GEMM (BF16 tensor cores, FP32 C)"
                                                 : "cuBLAS SGEMM (pedantic FP32)";
    }

private:
    Arithmetic arithmetic_;
    cublasHandle_t handle_ = nullptr;
};

// The device side of one problem: A, B, and C (poisoned to NaN before each
// checked run, so an element nobody writes fails), plus the references.
struct Problem {
    Shape s;
    Inputs in;
    TimingDevice gpu;
    float *a = nullptr, *b = nullptr, *c = nullptr;
    std::unique_ptr<Bf16Inputs> bf16;  // A and B rounded to bf16, for the BF16 rows
    std::vector<float> ref, abs;  // cuBLAS's C and cuBLAS's |A|·|B| (the tolerance's S)
    Reference exact;              // the FP64 product on the first rows the CPU can afford
    Comparison cublas_check;      // cuBLAS's C against it

    Problem(const Shape& shape, std::uint64_t seed, Cublas& blas) : s(shape), in(make_inputs(shape, seed))
    {
        a = gpu.alloc<float>(in.a.size());
        b = gpu.alloc<float>(in.b.size());
        c = gpu.alloc<float>(s.m * s.n);
        // |A| and |B| through cuBLAS give S = sum_k |a_ik||b_kj| for every element.
        std::vector<float> abs_a(in.a.size()), abs_b(in.b.size());
        std::transform(in.a.begin(), in.a.end(), abs_a.begin(), [](float x) { return std::fabs(x); });
        std::transform(in.b.begin(), in.b.end(), abs_b.begin(), [](float x) { return std::fabs(x); });
        gpu.copy_to_device(a, abs_a.data(), abs_a.size());
        gpu.copy_to_device(b, abs_b.data(), abs_b.size());
        blas.sgemm(a, b, c, s);
        abs = download();
        gpu.copy_to_device(a, in.a.data(), in.a.size());
        gpu.copy_to_device(b, in.b.data(), in.b.size());
        bf16 = std::make_unique<Bf16Inputs>(a, b, s);
        poison();
        blas.sgemm(a, b, c, s);
        ref = download();
        // cuBLAS itself against the exact product on the rows the CPU can afford.
        exact = reference(s, in.a, in.b, reference_rows(s));
        cublas_check = compare(ref, exact.c, exact.abs, tolerance(s.k, false));
    }
    ~Problem()
    {
        gpu.free(a);
        gpu.free(b);
        gpu.free(c);
    }
    Problem(const Problem&) = delete;
    Problem& operator=(const Problem&) = delete;

    void poison() { wl::cuda::check(cudaMemset(c, 0xFF, s.m * s.n * sizeof(float)), "cudaMemset(C to NaN)"); }
    std::vector<float> download()
    {
        std::vector<float> out(s.m * s.n);
        wl::cuda::check(cudaDeviceSynchronize(), "kernel");
        gpu.copy_to_host(out.data(), c, out.size());
        return out;
    }
    // Every element of C against cuBLAS's pedantic FP32 one, which also errs.
    Comparison check_c(Arithmetic arithmetic) { return compare(download(), ref, abs, tolerance(s.k, true, arithmetic)); }
    // ||C - exact|| / ||exact|| over the rows of `exact`.
    double fp64_error() { return relative_error(download(), exact.c); }
};

template <class V> Comparison run_checked(Problem& p)
{
    p.poison();
    multiply_on<V>(p.gpu, p.a, p.b, p.c, p.s, p.bf16->operands());
    wl::cuda::check(cudaGetLastError(), V::meta.name);
    return p.check_c(arithmetic_of<V>());
}

// A row's error against the FP64 product, for the table's note.
struct RowError {
    std::string row;
    double error = 0;
};

template <class V> Contender version_contender(Problem& p)
{
    return {V::meta.id, [&p] { multiply_on<V>(p.gpu, p.a, p.b, p.c, p.s, p.bf16->operands()); },
            [&p] { return run_checked<V>(p).ok; },
            [&p](const wl::cuda::Timing& t, bool ok) {
                BenchRow row = timed_row(V::meta, t, double(p.s.flops()) / 1e9, ok);
                row.block = V::threads;
                return row;
            }};
}

Contender cublas_contender(Problem& p, Cublas& blas)
{
    return {blas.name(), [&p, &blas] { blas.multiply(p.a, p.b, p.bf16->operands(), p.c, p.s); },
            [&p, &blas] {
                p.poison();
                blas.multiply(p.a, p.b, p.bf16->operands(), p.c, p.s);
                return p.check_c(blas.arithmetic()).ok && p.cublas_check.ok;
            },
            [&p, &blas](const wl::cuda::Timing& t, bool ok) {
                BenchRow row = timed_row(blas.name(), t, double(p.s.flops()) / 1e9, ok);
                row.reference = true;
                return row;
            }};
}

// Each contender checked (and its error against FP64 noted), all of them
// timed in turns, then each checked again: their rows, in order.
std::vector<BenchRow> bench_in_turns(Problem& p, const std::vector<Contender>& contenders, const BenchOptions& o,
                                     std::vector<RowError>& errors)
{
    std::vector<wl::cuda::Timing> no_yardsticks;
    return rows_in_turns(contenders, {}, o, no_yardsticks, [&](std::size_t i) { errors.push_back({contenders[i].name, p.fp64_error()}); });
}

// The arithmetic of each row of the table, by its name (FP32 if not listed).
using RowArithmetic = std::map<std::string, Arithmetic>;
Arithmetic arithmetic_of_row(const RowArithmetic& rows, const std::string& name)
{
    const auto it = rows.find(name);
    return it == rows.end() ? Arithmetic::Fp32 : it->second;
}

// Dense multiply-adds per SM per clock on the tensor cores, per NVIDIA's A100
// and H100 architecture whitepapers: TF32 512 on an A100 SM (compute
// capability 8.0), twice that on a Hopper SM (9.0); BF16 twice TF32's. 0 for
// a GPU not listed here.
unsigned tensor_fma_per_sm_clock(Arithmetic arithmetic)
{
    int device = 0, major = 0, minor = 0;
    cudaGetDevice(&device);
    cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, device);
    cudaDeviceGetAttribute(&minor, cudaDevAttrComputeCapabilityMinor, device);
    const unsigned tf32 = major == 9 && minor == 0 ? 1024 : major == 8 && minor == 0 ? 512 : 0;
    return arithmetic == Arithmetic::Bf16 ? 2 * tf32 : tf32;
}

// The TF32 (BF16) rows' % of peak is of the tensor cores' TF32 (BF16) rate,
// not of the FP32 lanes' (a TF32 row at "600 % of peak" says nothing); the
// note says which.
void tensor_peak(BenchTable& table, const RowArithmetic& rows, Arithmetic arithmetic, const char* name)
{
    const Provenance& p = table.provenance;
    const unsigned fma = tensor_fma_per_sm_clock(arithmetic);
    const double peak = double(p.sms) * fma * 2 * p.sm_clock_mhz / 1e3;
    for (BenchRow& r : table.rows)
        if (arithmetic_of_row(rows, r.version) == arithmetic) r.pct_peak = peak > 0 ? 100.0 * r.rate / peak : 0;
    table.note += std::string("; % peak of the ") + name + " rows: " +
                  (peak > 0 ? "of " + std::to_string(p.sms) + " SMs × " + std::to_string(fma) + " " + name +
                                  " multiply-adds (tensor cores, dense) × 2 × " + std::to_string(p.sm_clock_mhz) + " MHz"
                            : "not known for this GPU");
}

// Every row against the cuBLAS of its arithmetic: the TF32 rows (v10, cuBLAS
// TF32) against cuBLAS TF32, the BF16 rows against cuBLAS BF16, the others
// against pedantic FP32 SGEMM.
void compare_by_arithmetic(BenchTable& table, const RowArithmetic& rows, const std::vector<const Cublas*>& blas)
{
    const auto named = [&](const std::string& name) {
        return std::find_if(table.rows.begin(), table.rows.end(), [&](const BenchRow& r) { return r.version == name; });
    };
    for (BenchRow& r : table.rows) {
        const Arithmetic arithmetic = arithmetic_of_row(rows, r.version);
        const auto of = std::find_if(blas.begin(), blas.end(), [&](const Cublas* b) { return b->arithmetic() == arithmetic; });
        const auto ref = named((*of)->name());
        r.compared_with = ref->version;
        r.vs_reference = r.median_ms > 0 ? ref->median_ms / r.median_ms : 0;
    }
}

// "; error against the FP64 product (first 16 rows), ||C - exact|| / ||exact||: v1 1.2e-07, ..."
std::string error_note(const std::vector<RowError>& errors, std::size_t rows)
{
    std::string text = "; error against the FP64 product (first " + std::to_string(rows) + (rows == 1 ? " row" : " rows") +
                       "), ||C - exact|| / ||exact||:";
    char buf[32];
    for (const RowError& e : errors) {
        std::snprintf(buf, sizeof buf, " %.1e", e.error);
        text += " " + e.row + buf + (&e == &errors.back() ? "" : ",");
    }
    return text;
}

// The largest problem every version is timed at (the lab's sizes to 4096).
constexpr Shape kLargestFullTable{4096, 4096, 4096};

Shape bench_shape(const BenchOptions& o)
{
    if (o.shape.size() == 3) return {o.shape[0], o.shape[1], o.shape[2]};
    if (o.shape.size() == 1) return {o.shape[0], o.shape[0], o.shape[0]};
    return {o.n, o.n, o.n};
}

void require_fit(const Shape& s)
{
    const std::size_t bf16_bytes = (s.m * bf16_row(s.k) + s.k * bf16_row(s.n)) * 2;  // the bf16 inputs
    wl::cuda::require_free_memory((s.m * s.k + s.k * s.n + s.m * s.n) * sizeof(float) + bf16_bytes + (std::size_t(256) << 20),
                                  "shape " + s.text());
}

}  // namespace

BenchTable bench_on_gpu(const BenchOptions& o)
{
    const GpuStatus status = gpu_status();
    if (!status.available) throw std::invalid_argument("no GPU to time on: " + status.reason);
    if (o.type != "float") throw std::invalid_argument("matmul multiplies floats: --type " + o.type + " is not offered");
    RunRequest shape_request;
    shape_request.shape = {bench_shape(o).m, bench_shape(o).n, bench_shape(o).k};
    const Shape s = shape_of(shape_request);  // refuses shapes the kernels cannot index
    require_fit(s);

    BenchTable table;
    table.lab = "matmul";
    table.type = "float";
    table.rate_unit = "GFLOP/s";
    table.n = (s.m == s.n && s.n == s.k) ? s.m : 0;
    if (table.n == 0) table.shape = {s.m, s.n, s.k};
    table.warm = o.warm;
    table.provenance = gpu_provenance(o.command);
    const Provenance& p = table.provenance;
    // FP32 peak: every SM issues 128 FP32 lanes of FMA (2 FLOP) per clock at the boost clock.
    table.peak = double(p.sms) * 128 * 2 * p.sm_clock_mhz / 1e3;
    table.note = "C = A·B, M×N×K = " + s.text() + " (" + std::to_string(s.flops()) +
                 " FLOP); % peak: of " + std::to_string(p.sms) + " SMs × 128 FP32 lanes × 2 × " +
                 std::to_string(p.sm_clock_mhz) + " MHz; " + (o.warm ? "warm L2" : "L2 flushed before each run");

    Cublas fp32(Arithmetic::Fp32), tf32(Arithmetic::Tf32), bf16(Arithmetic::Bf16);
    Problem problem(s, 1, fp32);
    std::vector<RowError> errors;
    RowArithmetic arithmetic{{tf32.name(), Arithmetic::Tf32}, {bf16.name(), Arithmetic::Bf16}};
    // Above 4096^3 only the BF16 versions are timed: the FP32 ladder's first
    // steps would take seconds a run there, and the BF16 comparison is what
    // the larger size is recorded for.
    const bool bf16_only = s.flops() > kLargestFullTable.flops();
    std::vector<Contender> contenders;
    for_each_version<Versions>([&](auto v) {
        using V = decltype(v);
        if (bf16_only && arithmetic_of<V>() != Arithmetic::Bf16) return false;
        contenders.push_back(version_contender<V>(problem));
        if (const std::string tiles = tiles_note<V>(s, problem.gpu.multiprocessors()); !tiles.empty()) table.note += "; " + tiles;
        arithmetic[V::meta.id] = arithmetic_of<V>();
        return false;
    });
    if (bf16_only) table.note += "; above " + kLargestFullTable.text() + " only the BF16 versions are timed, beside the three cuBLAS rows";
    const std::size_t versions = contenders.size();
    for (Cublas* blas : {&fp32, &tf32, &bf16}) contenders.push_back(cublas_contender(problem, *blas));  // fp32 first: the table's reference
    std::vector<RowError> in_turns;
    const std::vector<BenchRow> rows = bench_in_turns(problem, contenders, o, in_turns);
    table.rows.assign(rows.begin(), rows.begin() + versions);
    errors.assign(in_turns.begin(), in_turns.begin() + versions);
    // A user's --file kernel is timed by itself, in place of its version's.
    add_user_kernel_row<Versions>(table, problem.gpu, kKernels, o, [&](auto v) {
        return bench_in_turns(problem, {version_contender<decltype(v)>(problem)}, o, errors).front();
    });
    table.rows.insert(table.rows.end(), rows.begin() + versions, rows.end());
    errors.insert(errors.end(), in_turns.begin() + versions, in_turns.end());
    table.note += "; the rows timed in turns, one run of each per round";
    derive_ratios(table);
    compare_by_arithmetic(table, arithmetic, {&fp32, &tf32, &bf16});
    tensor_peak(table, arithmetic, Arithmetic::Tf32, "TF32");
    tensor_peak(table, arithmetic, Arithmetic::Bf16, "BF16");
    table.note += error_note(errors, problem.exact.c.size() / s.n) +
                  "; \"vs cuBLAS\" is against the cuBLAS of the row's arithmetic (TF32 rows: cuBLAS TF32; BF16 rows: "
                  "cuBLAS BF16 from the same bf16 inputs, rounded before the timing, with FP32 sums and C)";
    return table;
}

namespace {

// The plain (timing) build of the version, every element of C checked against
// cuBLAS SGEMM in pedantic FP32 (and cuBLAS against the CPU). No trace.
RunResult check_on_gpu(const RunRequest& req)
{
    const GpuStatus status = gpu_status();
    if (!status.available) throw std::invalid_argument("no GPU: " + status.reason);
    const Shape s = shape_of(req);
    require_fit(s);
    Cublas blas(Arithmetic::Fp32);
    Problem problem(s, req.seed, blas);
    RunResult out;
    out.backend = "gpu " + status.name + " (timing build)";
    out.problem = describe(req.version, s, problem.gpu.multiprocessors());
    out.shape = {s.m, s.n, s.k};
    Comparison cmp;
    const bool found = with_version<Versions>(req.version, [&](auto v) {
        using V = decltype(v);
        out.threads_per_block = V::threads;
        cmp = run_checked<V>(problem);
    });
    if (!found) throw unknown_version(kKernels.lab, req.version);
    out.ok = cmp.ok && problem.cublas_check.ok;
    char error[64];
    std::snprintf(error, sizeof error, "%.1e", problem.fp64_error());
    out.check = "against cuBLAS: " + cmp.text() + "; cuBLAS against the CPU: " + problem.cublas_check.text() +
                "; ||C - exact|| / ||exact|| = " + error + " on the CPU's rows";
    return out;
}

}  // namespace

GpuBackends gpu_backends() { return GpuBackends{trace_on_gpu<Description>, check_on_gpu, bench_on_gpu}; }

}  // namespace warplab::matmul
