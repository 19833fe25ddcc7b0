// Times every matmul version on the GPU (the plain build: no tracing), beside
// cuBLAS SGEMM in pedantic FP32 and cuBLAS in TF32 (tensor cores) measured in
// the same run, and checks every version's C against cuBLAS's pedantic FP32
// one (check_on_gpu, for the gpu tests). Each row is compared with the cuBLAS
// of its own arithmetic: FP32 versions with pedantic SGEMM, TF32 ones with
// cuBLAS TF32.
#include <cublas_v2.h>

#include <algorithm>
#include <cmath>
#include <random>

#include "labs/common/gpu_bench.h"
#include "labs/matmul/driver.h"
#include "labs/matmul/kernels.cuh"
#include "labs/matmul/lab.h"

namespace warplab::matmul {

namespace {

void check_cublas(cublasStatus_t s, const char* what)
{
    if (s != CUBLAS_STATUS_SUCCESS) throw std::runtime_error(std::string("cuBLAS error in ") + what + ": " + cublasGetStatusString(s));
}

// cuBLAS SGEMM in one arithmetic: pedantic FP32 (no TF32, no reduced-precision
// shortcuts), or TF32 on the tensor cores (inputs read with 10 mantissa bits,
// FP32 sums). cuBLAS is column-major; a row-major M×N matrix is its N×M
// transpose, so row-major C = A·B is column-major C^T = B^T·A^T: call Sgemm
// with B first, m = N, n = M.
class Cublas {
public:
    explicit Cublas(Arithmetic arithmetic) : arithmetic_(arithmetic)
    {
        check_cublas(cublasCreate(&handle_), "cublasCreate");
        const bool tf32 = arithmetic == Arithmetic::Tf32;
        check_cublas(cublasSetMathMode(handle_, tf32 ? CUBLAS_TF32_TENSOR_OP_MATH : CUBLAS_PEDANTIC_MATH), "cublasSetMathMode");
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

    Arithmetic arithmetic() const { return arithmetic_; }
    // The row's name in the bench table.
    const char* name() const
    {
        return arithmetic_ == Arithmetic::Tf32 ? "cuBLAS SGEMM (TF32 tensor cores)" : "cuBLAS SGEMM (pedantic FP32)";
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
    multiply_on<V>(p.gpu, p.a, p.b, p.c, p.s);
    wl::cuda::check(cudaGetLastError(), V::meta.name);
    return p.check_c(arithmetic_of<V>());
}

// A row's error against the FP64 product, for the table's note.
struct RowError {
    std::string row;
    double error = 0;
};


template <class V> BenchRow bench_version(Problem& p, const BenchOptions& o, std::vector<RowError>& errors)
{
    const bool ok_before = run_checked<V>(p).ok;
    const wl::cuda::Timing t = wl::cuda::time_runs([&] { multiply_on<V>(p.gpu, p.a, p.b, p.c, p.s); }, o.warm, o.seconds_per_version);
    wl::cuda::check(cudaGetLastError(), V::meta.name);
    const bool ok_after = run_checked<V>(p).ok;
    errors.push_back({V::meta.id, p.fp64_error()});
    BenchRow row = timed_row(V::meta, t, double(p.s.flops()) / 1e9, ok_before && ok_after);
    row.block = V::threads;
    return row;
}

BenchRow bench_cublas(Problem& p, Cublas& blas, const BenchOptions& o, std::vector<RowError>& errors)
{
    auto checked = [&] {
        p.poison();
        blas.sgemm(p.a, p.b, p.c, p.s);
        return p.check_c(blas.arithmetic()).ok;
    };
    const bool ok_before = checked() && p.cublas_check.ok;
    const wl::cuda::Timing t = wl::cuda::time_runs([&] { blas.sgemm(p.a, p.b, p.c, p.s); }, o.warm, o.seconds_per_version);
    const bool ok_after = checked();
    errors.push_back({blas.name(), p.fp64_error()});
    BenchRow row = timed_row(blas.name(), t, double(p.s.flops()) / 1e9, ok_before && ok_after);
    row.reference = true;
    return row;
}

// Dense TF32 multiply-adds per SM per clock on the tensor cores: 512 on an
// A100 SM (compute capability 8.0), twice that on a Hopper SM (9.0), per
// NVIDIA's A100 and H100 architecture whitepapers; 0 for a GPU not listed here.
unsigned tf32_fma_per_sm_clock()
{
    int device = 0, major = 0, minor = 0;
    cudaGetDevice(&device);
    cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, device);
    cudaDeviceGetAttribute(&minor, cudaDevAttrComputeCapabilityMinor, device);
    if (major == 9 && minor == 0) return 1024;
    if (major == 8 && minor == 0) return 512;
    return 0;
}

// The TF32 rows' % of peak is of the tensor cores' TF32 rate, not of the
// FP32 lanes' (a TF32 row at "600 % of peak" says nothing); the note says which.
void tf32_peak(BenchTable& table, const std::vector<std::string>& tf32_rows)
{
    const Provenance& p = table.provenance;
    const unsigned fma = tf32_fma_per_sm_clock();
    const double peak = double(p.sms) * fma * 2 * p.sm_clock_mhz / 1e3;
    for (BenchRow& r : table.rows)
        if (std::find(tf32_rows.begin(), tf32_rows.end(), r.version) != tf32_rows.end())
            r.pct_peak = peak > 0 ? 100.0 * r.rate / peak : 0;
    table.note += peak > 0 ? "; % peak of the TF32 rows: of " + std::to_string(p.sms) + " SMs × " + std::to_string(fma) +
                                 " TF32 multiply-adds (tensor cores, dense) × 2 × " + std::to_string(p.sm_clock_mhz) + " MHz"
                           : "; % peak of the TF32 rows: not known for this GPU";
}

// Every row against the cuBLAS of its arithmetic: the TF32 rows (v10, cuBLAS
// TF32) against cuBLAS TF32, the others against pedantic FP32 SGEMM.
void compare_by_arithmetic(BenchTable& table, const std::vector<std::string>& tf32_rows, const Cublas& fp32, const Cublas& tf32)
{
    const auto named = [&](const std::string& name) {
        return std::find_if(table.rows.begin(), table.rows.end(), [&](const BenchRow& r) { return r.version == name; });
    };
    for (BenchRow& r : table.rows) {
        const bool is_tf32 = std::find(tf32_rows.begin(), tf32_rows.end(), r.version) != tf32_rows.end();
        const auto ref = named(is_tf32 ? tf32.name() : fp32.name());
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

Shape bench_shape(const BenchOptions& o)
{
    if (o.shape.size() == 3) return {o.shape[0], o.shape[1], o.shape[2]};
    if (o.shape.size() == 1) return {o.shape[0], o.shape[0], o.shape[0]};
    return {o.n, o.n, o.n};
}

void require_fit(const Shape& s)
{
    wl::cuda::require_free_memory((s.m * s.k + s.k * s.n + s.m * s.n) * sizeof(float) + (std::size_t(256) << 20),
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

    Cublas fp32(Arithmetic::Fp32), tf32(Arithmetic::Tf32);
    Problem problem(s, 1, fp32);
    std::vector<RowError> errors;
    std::vector<std::string> tf32_rows{tf32.name()};
    for_each_version<Versions>([&](auto v) {
        using V = decltype(v);
        table.rows.push_back(bench_version<V>(problem, o, errors));
        if (const std::string tiles = tiles_note<V>(s, problem.gpu.multiprocessors()); !tiles.empty()) table.note += "; " + tiles;
        if (arithmetic_of<V>() == Arithmetic::Tf32) tf32_rows.push_back(V::meta.id);
        return false;
    });
    add_user_kernel_row<Versions>(table, problem.gpu, kKernels, o, [&](auto v) { return bench_version<decltype(v)>(problem, o, errors); });
    table.rows.push_back(bench_cublas(problem, fp32, o, errors));  // first: the table's reference
    table.rows.push_back(bench_cublas(problem, tf32, o, errors));
    derive_ratios(table);
    compare_by_arithmetic(table, tf32_rows, fp32, tf32);
    tf32_peak(table, tf32_rows);
    table.note += error_note(errors, problem.exact.c.size() / s.n) +
                  "; \"vs cuBLAS\" is against the cuBLAS of the row's arithmetic (TF32 rows: cuBLAS TF32)";
    return table;
}

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
    if (!found) throw std::invalid_argument("unknown matmul version '" + req.version + "'");
    out.ok = cmp.ok && problem.cublas_check.ok;
    char error[64];
    std::snprintf(error, sizeof error, "%.1e", problem.fp64_error());
    out.check = "against cuBLAS: " + cmp.text() + "; cuBLAS against the CPU: " + problem.cublas_check.text() +
                "; ||C - exact|| / ||exact|| = " + error + " on the CPU's rows";
    return out;
}

}  // namespace warplab::matmul
