// What a program run by `warplab run` hands back to the CLI: warplab's CUDA
// runtime (core/src/cudart/) appends one record per kernel launch to
// launches.jsonl in the directory $WARPLAB_RUN_DIR names, and writes the
// watched launches' traces beside it (one JSON document each: the trace
// format's block and totals, docs/trace-format.md). The CLI reads them after
// the program exits, so that its own process runs no kernel.
#pragma once
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

namespace wl::cudart {

inline constexpr const char* kRunDirVariable = "WARPLAB_RUN_DIR";      // where the records go; unset: none
inline constexpr const char* kWatchVariable = "WARPLAB_RUN_WATCH";     // which launches to trace (parse_watch)
inline constexpr const char* kFailVariable = "WARPLAB_RUN_FAIL";     // a call to fail on purpose (parse_injected_failure)
inline constexpr const char* kEngineVariable = "WARPLAB_RUN_ENGINE"; // what runs unwatched blocks: interpret (unset) or fast
inline constexpr const char* kLaunchesFile = "launches.jsonl";
inline constexpr const char* kResultsReadFile = "results_read.jsonl";  // ResultRead, one a line

// A failure `warplab run --fail` injects, to show whether a program checks its
// CUDA calls: the program's `nth` kernel launch fails as a faulting kernel's
// does (cudaErrorLaunchFailure, and every later call with it), or its `nth`
// device allocation (cudaMalloc, cudaMallocManaged, cudaMallocPitch, ...)
// returns cudaErrorMemoryAllocation.
struct InjectedFailure {
    enum class Call { Launch, Allocation } call = Call::Launch;
    unsigned nth = 1;
};

// "launch:N" or "alloc:N", N from 1. Throws std::invalid_argument with one line
// naming what does not read.
InjectedFailure parse_injected_failure(std::string_view text);

// A watched launch: the `launch`-th launch (from 1) of the kernel named
// `kernel` (its bare name, its name with namespaces and template arguments,
// or its mangled name), block `block` (flat: x fastest).
struct WatchSpec {
    std::string kernel;
    unsigned launch = 1;
    std::uint32_t block = 0;
};

// "kernel[:n][@block]", several comma-separated. Throws std::invalid_argument
// with one line naming the part that does not read.
std::vector<WatchSpec> parse_watch(std::string_view text);

// Whether `name` (as a WatchSpec gives it) names this kernel: `demangled` is
// its name without the parameter list ("ns::scale<3>"), `mangled` the PTX's.
bool names_kernel(std::string_view name, std::string_view demangled, std::string_view mangled);

struct LaunchRecord {
    unsigned index = 0;             // from 1, in the program's order
    std::string kernel;             // demangled, without parameters
    unsigned grid[3] = {1, 1, 1}, block[3] = {1, 1, 1};
    std::uint64_t shared_bytes = 0;  // dynamic shared memory the launch gave
    double emulated_ms = 0;          // the emulator's time for the launch (host time, not GPU time)
    std::uint64_t lane_instructions = 0;  // what the emulator ran: one per lane an instruction executed for
    std::string error;               // why it failed (a kernel fault, a bad configuration), empty when it ran
    std::string trace;               // its trace's file in the run directory, empty when not watched
    std::uint32_t watched_block = 0;
    std::string host_line;           // where the program launched it ("prog.cu:44"), empty when unknown (no -g)
    bool on_gpu = false;             // run on the GPU (`--backend gpu`): no emulated time
    std::string engine;              // emulator: what ran its unwatched blocks ("fast" or "interpret"; wl::emu::Engine)
};

// The device's results reaching the host after a launch: a copy from device
// (or managed, or __device__ variable) memory into host memory (cudaMemcpy and
// its kin, cudaMemcpyFromSymbol); or, for a program that holds managed,
// __managed__ or cudaMallocHost memory, which kernels write and the host reads
// in place with no copy to see, every launch (such a program is taken at its
// word). The emulator's runtime appends one to results_read.jsonl the first
// time this happens after each launch, so that a grader can tell a result the
// host read from the device from one it made itself.
struct ResultRead {
    unsigned after_launch = 0;  // the launches before it (LaunchRecord::index of the last)
    std::string call;           // "cudaMemcpy", "cudaMemcpyFromSymbol", or the memory read in place
};
nlohmann::json to_json(const ResultRead& r);
// The records in dir/results_read.jsonl; none when there is no such file. Throws
// std::invalid_argument naming the line that does not read.
std::vector<ResultRead> read_results_read(const std::string& dir);

// Its host line without the file's directory ("prog.cu:44"), as the launch
// table and the viewer's launch list show it; "-" when unknown.
std::string short_host_line(const LaunchRecord& r);

nlohmann::json to_json(const LaunchRecord& r);
LaunchRecord launch_from_json(const nlohmann::json& j);  // throws nlohmann::json::exception on a malformed record

// The records in dir/launches.jsonl; none when there is no such file.
// Throws std::invalid_argument naming the line that does not read.
std::vector<LaunchRecord> read_launches(const std::string& dir);

}  // namespace wl::cudart
