// Measured times of a lab's versions, with where and how they were measured.
// Filled by the GPU benchmark (nvcc), printed and stored by the CLI (results/).
#pragma once
#include <cstddef>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace warplab {

struct BenchOptions {
    std::size_t n = 0;          // elements (reduction) or M=N=K (matmul)
    std::string type = "int";
    bool warm = false;          // keep L2 warm between runs (default: flush it)
    double seconds_per_version = 1.0;
    std::string command;        // the command line, for the provenance
    std::vector<std::size_t> shape;  // matmul: {M, N, K} when not square (empty: M = N = K = n)
    std::string file, kernel, as_version;  // the user's --file kernel, timed as one more row, launched as as_version
    std::optional<std::uint32_t> shared_bytes;  // --shared-bytes: its dynamic shared memory (default: the lab's textbook's)
    // --block: every version timed with this block ({threads}) or 2D group ({x, y}); empty: each version's own.
    std::vector<unsigned> block;
    std::map<std::string, std::string> inputs;  // the values of the lab's own inputs (Lab::Input), by name
};

// The version a row belongs to: its name up to the first space. A version
// measured in several settings has a row for each ("v3 4 streams", "v1 offset 5").
inline std::string row_version(const std::string& row) { return row.substr(0, row.find(' ')); }

struct BenchRow {
    std::string version;   // "v3", or the reference's name ("CUB DeviceReduce::Sum")
    bool reference = false;
    bool variant = false;
    bool ok = false;       // validated before and after timing
    unsigned block = 0;    // threads per block it was timed at (0: chosen by the library)
    double median_ms = 0, min_ms = 0, rse = 0;
    int samples = 0;
    double rate = 0;          // GB/s (reduction) or GFLOP/s (matmul)
    double speedup_vs_previous = 0;  // time of the previous version (or of previous_version) / this time (0: none)
    std::string previous_version;    // the version whose time speedup_vs_previous is against, when not the row before
    double cumulative = 0;    // time of v1 / this time
    double pct_peak = 0;      // % of the device's theoretical DRAM bandwidth or FP32 rate
    double pct_copy = 0;      // % of the copy kernel's bandwidth, same run (reduction)
    double vs_reference = 0;  // reference time / this time (1.0 = as fast as CUB or cuBLAS)
    std::string compared_with;  // the reference row of vs_reference (empty: the table's first reference row)
    double bound_ms = 0;      // a lower bound on the time from the links' measured bandwidths (transfers); 0: none
};

// Labs whose versions are schedules of copies and kernels (transfers): one
// copy's or kernel's span on a GPU's stream, from CUDA events, in ms after
// that GPU's base event of the run.
struct TimelineSpan {
    int gpu = 0;
    unsigned stream = 0;
    std::string engine;     // "copy in", "compute", "peer", "copy out"
    std::size_t bytes = 0;  // what it moved over a link (0: a kernel that only touches the GPU's memory)
    double start_ms = 0, end_ms = 0;
};

// One timed run of a row, as its events saw it: the host's wall-clock time of
// the whole run, and every span within it.
struct RunTimeline {
    std::string version;  // the row's name
    double wall_ms = 0;
    std::vector<TimelineSpan> spans;
};

// A link's bandwidth measured in the same run ("host→GPU 0", pinned copies).
struct LinkRate {
    std::string link;
    double gbps = 0;
};

struct Provenance {
    std::string gpu, driver, cuda_runtime, date, command, commit;
    std::string warplab;  // the version that recorded it (warplab/version.h); empty in older recordings
    int sm_clock_mhz = 0, mem_clock_mhz = 0, bus_width_bits = 0, sms = 0;
    std::size_t l2_bytes = 0;
};

struct BenchTable {
    std::string lab, type, rate_unit;  // rate_unit: "GB/s" or "GFLOP/s"
    std::size_t n = 0;
    bool warm = false;
    double peak = 0;        // theoretical DRAM GB/s or FP32 GFLOP/s
    double copy_rate = 0;   // copy kernel, GB/s (read + write)
    std::string note;       // e.g. "fits in L2"
    std::vector<std::size_t> shape;  // the problem's dimensions where it has several (matmul: {M, N, K})
    std::vector<unsigned> block;     // --block every version was timed at ({threads} or {x, y}); empty: each version's own
    Provenance provenance;
    std::vector<BenchRow> rows;
    std::vector<LinkRate> links;          // transfers: the links' bandwidths of this run
    std::vector<RunTimeline> timelines;   // transfers: one timed run of each row
};

}  // namespace warplab

namespace warplab {
// The DRAM's theoretical GB/s: two transfers a memory clock (DDR) over the bus width.
double dram_peak_gbps(const Provenance& p);

// GPU-side helpers shared by the labs' benchmarks (labs/common/gpu.cu).
Provenance gpu_provenance(const std::string& command);
// A memory-bound lab's table as its benchmark opens it: lab, type, GB/s,
// n, warm, this GPU's provenance and its DRAM peak.
BenchTable memory_bound_table(const std::string& lab, const std::string& type, const BenchOptions& o);
// A 128-bit grid-stride copy of `bytes` bytes; GB/s counting bytes read plus written.
double measure_copy_gbps(std::size_t bytes, bool warm, double seconds);
// Fills speedup_vs_previous, cumulative, pct_peak, pct_copy and vs_reference from the
// times: the ladder's rows in order, variants compared with the row before them.
void derive_ratios(BenchTable& table);

// labs/common/bench_labels.cpp: "2^22", or the number when n is no power of two from 2^10 up.
std::string size_text(std::size_t n);
// The problem's dimensions: the recorded shape, or n×n×n for a compute-bound
// (GFLOP/s) table recorded without one; empty for one-dimensional problems.
std::vector<std::size_t> dims_of(const BenchTable& t);
// "64×64×64": the dimensions with `sign` between them.
std::string joined(const std::vector<std::size_t>& dims, const char* sign);
// "int, n = 2^28" or "float, 4096×4096×4096".
std::string size_label(const BenchTable& t);
}  // namespace warplab
