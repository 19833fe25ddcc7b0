// The registry every front end reads: labs, their versions, and one way to run
// a version on a backend and get its result and trace.
#pragma once
#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "labs/common/bench.h"
#include "labs/common/version.h"
#include "warplab/emu/engine.h"
#include "warplab/emu/schedule.h"
#include "warplab/trace/record.h"

namespace wl::ptx {
class Module;
}

namespace warplab {

enum class BackendChoice { Auto, Cpu, Gpu };

struct RunRequest {
    std::string version;
    std::size_t n = 0;
    unsigned block = 0;
    std::string type = "int";
    BackendChoice backend = BackendChoice::Auto;
    wl::emu::Schedule schedule = wl::emu::Schedule::Independent;
    wl::emu::Engine engine = wl::emu::Engine::Interpret;  // what runs the blocks nobody watches (engine.h)
    // Lanes a warp: 32, or 64 (AMD's wavefront, on the emulator only: a GPU's
    // warps are NVIDIA's 32; `auto` then picks the emulator). check_warp_width.
    unsigned warp_width = 32;
    std::uint32_t watched_block = 0;
    std::uint64_t seed = 1;
    bool record = true;  // record the watched block of the first launch
    // The problem's dimensions where it has several (matmul: {M, N, K}, or {S}
    // for S×S×S); empty: n, or the lab's default.
    std::vector<std::size_t> shape;
    // The user's own kernel, run in place of `version`'s (same parameters, same
    // launch shape): a .cu file, and the kernel's name (empty: the file's only one).
    std::string file, kernel;
    // --shared-bytes: the dynamic shared memory the user's kernel gets per
    // block; unset: what the lab's textbook host code gives (KernelFiles::user_shared).
    std::optional<std::uint32_t> shared_bytes;
    // The version's setting, for labs whose kernels take one (coalescing: the
    // offset or the stride); -1: the version's default.
    int setting = -1;
    // Emulator: instructions a thread may run before the launch stops as an endless loop (0: the emulator's default),
    // and what to call as blocks finish (blocks done, blocks in the grid).
    std::uint64_t max_instructions = 0;
    std::function<void(std::uint64_t, std::uint64_t)> progress;
    // What if this barrier were gone: the __syncthreads() and __syncwarp() at
    // this line of the version's file (or of the --file kernel's) removed from
    // the PTX before the run, the rest unchanged (labs/common/without_barrier.h);
    // 0: none. The emulator runs it.
    std::uint32_t without_barrier = 0;
    // Labs with 2D thread groups (Lab::block_form): the group as {x, y} (--block WxH); empty: `block`, or the version's.
    std::vector<unsigned> block_dim;
    // The values of the lab's own inputs (Lab::Input), by name; an input not given is absent.
    std::map<std::string, std::string> inputs;
};

// The value a request gives the input `name`; empty: not given.
inline std::string input_value(const std::map<std::string, std::string>& inputs, const std::string& name)
{
    const auto given = inputs.find(name);
    return given == inputs.end() ? std::string() : given->second;
}

// The output of one pass of a lab whose passes leave a grid of values (a
// 2D reduction's partial sums): width × height values, row-major.
struct PassGrid {
    unsigned width = 0, height = 0;
    std::vector<float> values;
};

// A picture as a run reduced it, small enough to keep with the run: the mean
// colour of each square of cell × cell pixels (those at the right and bottom
// edges cut by the picture's), width × height squares, row-major.
struct PictureCells {
    unsigned width = 0, height = 0, cell = 1;
    std::vector<std::uint8_t> rgb;  // 3 bytes a square
};

struct RunResult {
    std::string backend;  // what ran it, for the status line: "cpu emulator (independent)", "gpu NVIDIA H100 ..."
    std::string engine;   // emulator: what ran the unwatched blocks (wl::emu::engines_that_ran), not what was asked for
    double value = 0, expected = 0;
    bool ok = false;
    unsigned threads_per_block = 0;
    unsigned warp_width = 32;  // lanes a warp of the run had (the emulator's LaunchOptions::warp_width; a GPU's 32)
    std::vector<wl::trace::LaneRecord> records;
    // Labs whose problem is more than n elements in a 1D block (matmul) say
    // what ran and how it compared; empty for the others.
    std::string problem;                   // "C = A·B, 64×64×64 floats, 4 blocks of 32×32 threads"
    std::string check;                     // "all 4096 elements within tolerance (worst 0.02 of it)"
    std::vector<std::size_t> shape;        // the dimensions that ran ({M, N, K})
    std::vector<unsigned> block_dim, grid_dim;  // {x, y, z} of the launch that was traced
    // Where a version's launch differs by size (reduction v10: its ring of bulk
    // copies, or v9's loads without one), the one this run took, in words; empty otherwise.
    std::string path;
    // A user's kernel: which instance of it ran and the dynamic shared memory
    // its first launch gave, one line each (UserKernel::note); empty: none.
    std::string user_kernel;
    // What nvcc warned about a user's file: the first few warnings with their
    // source lines (UserKernel::warnings); empty: none, or not a user's file.
    std::string compile_warnings;
    // Emulator: what CUDA defines but a kernel should not count on (one line
    // each, with its file:line), and whether the watched block's records were
    // cut at the emulator's cap (the trace then ends early).
    std::vector<std::string> warnings;
    bool records_cut = false;
    // Labs whose passes leave grids: each pass's grid of partial sums, the first pass's first (the viewer draws them).
    std::vector<PassGrid> pass_grids;
    PictureCells picture;  // ... and the picture it reduced (a file the user gave, or the seeded one)
};

// A lab's GPU entry points (its .cu sources; labs/common/gpu_backends.cuh).
// Empty where the build has no CUDA: the lab then says why not.
struct GpuBackends {
    // The version's PTX instrumented, the watched block recorded (the lab's module, parsed).
    std::function<RunResult(const RunRequest&, const wl::ptx::Module&)> trace;
    // The version as nvcc built it for timing, every output checked; no trace.
    std::function<RunResult(const RunRequest&)> check;
    std::function<BenchTable(const BenchOptions&)> bench;  // times every version
};

struct Lab {
    std::string id, title;
    std::vector<Version> versions{};
    std::size_t default_n = 0;
    unsigned default_block = 0;
    std::vector<std::string> types{};
    // How a command line writes its problem's shape (--size; the viewer's --shape), for a lab whose problem has
    // dimensions ("S for S×S×S, or M,N,K"), and its block where that is more than B threads ("WxH, a 2D group");
    // empty: n elements, B threads. The front ends' help reads them.
    std::string shape_form{}, block_form{};
    std::function<RunResult(const RunRequest&)> run{};  // throws std::invalid_argument on bad input
    std::vector<std::size_t> bench_sizes{};             // what `warplab bench <lab>` times by default
    std::function<BenchTable(const BenchOptions&)> bench{};  // on the GPU; throws std::invalid_argument without one
    // Its versions are host programs around one kernel (copies, streams, GPUs:
    // transfers), not kernels: nothing to trace, no PTX, no occupancy; its
    // bench tables carry a timeline of each run.
    bool host_programs = false;

    // Hooks, for a lab that needs more than a trace of each version; empty: it needs none.
    // The GPU timing build of a version, every output checked (the gpu tests; labs/common/gpu_backends.cuh).
    std::function<RunResult(const RunRequest&)> check_on_gpu{};
    // The setting a version's kernel takes (RunRequest::setting), which is also
    // its CLI option (--offset); nullptr for a version without one.
    std::function<const Setting*(std::string_view version)> setting_of{};
    // `warplab sweep <lab>`: one version traced at every setting, as the CLI prints it (markdown: the walkthrough's form).
    std::function<std::string(const Lab& lab, const RunRequest& base, bool markdown)> sweep{};
    // A flag of `warplab bench <lab>` (its name, without "--"; its help) that
    // prints more of each bench table (transfers' --timeline); empty name: none.
    struct BenchDetail {
        std::string name, help;
        std::function<std::string(const BenchTable& table, bool markdown)> print{};
    } bench_detail{};
    // Inputs of its own, each a front end's option (the CLI's trace and bench, the viewer) whose value
    // its requests carry by name (RunRequest::inputs, BenchOptions::inputs): a file to read in place of
    // the seeded data. `check` refuses a value in one sentence (std::invalid_argument), given the
    // problem's shape asked for (empty: none), before anything runs.
    struct Input {
        std::string name, value_name;  // --<name> <value_name> ("FILE.png"): the option and its value in the help
        std::string trace_help, bench_help;
        std::function<void(const std::string& value, const std::vector<std::size_t>& shape)> check{};
    };
    std::vector<Input> inputs{};
    // The viewer's panel of the lab's own, by its name in the panel table
    // (viewer/model/layout.h: "coalescing", a sweep of setting_of's setting),
    // shown in the room of those the lab has no use for; empty: none.
    std::string panel{};
    // The source deck its versions follow, as results/published/ names it ("harris-g80"): the
    // viewer's then-and-now chart opens on its table; empty: on the first that names its GPU.
    std::string published_source{};
};

const std::vector<Lab>& all_labs();

// The n a version's trace defaults to: its own (VersionMeta::trace_n) or the lab's.
inline std::size_t default_n(const Lab& lab, const VersionMeta& v) { return v.trace_n ? v.trace_n : lab.default_n; }

// Host memory free now, in bytes: the emulator refuses inputs larger than this.
std::size_t available_host_bytes();
const Lab* find_lab(std::string_view id);
const Version* find_version(const Lab& lab, std::string_view id);

// GPU availability, as the CUDA runtime reports it (or why there is none).
struct GpuStatus {
    bool available = false;
    std::string name;    // "NVIDIA H100 80GB HBM3"
    std::string reason;  // why not, when not available
    unsigned multiprocessors = 0;  // its SM count, when available
};
GpuStatus gpu_status();

// The H100 the recorded results come from has 132 SMs; where a launch depends
// on the SM count (reduction's grids, matmul's tiles), the emulator sizes it
// as if it were one, so that its traces match the GPU's.
constexpr unsigned kEmulatedMultiprocessors = 132;

// Whether a request runs on the GPU: asked for, or `auto` with a GPU present
// (a user's --file kernel as well: its PTX is traced there as the lab's is).
bool runs_on_gpu(const RunRequest& req);

// Refuses, in one sentence, a warp width other than 32 or 64, and 64 on the
// GPU. Every lab's run calls it first (all_labs); front ends may call it early.
void check_warp_width(const RunRequest& req);

// Refuses, in one sentence, a version that runs only on a GPU (meta.gpu_only)
// when the request would run it on the emulator.
void refuse_emulating_gpu_only(const VersionMeta& meta, const RunRequest& req);

}  // namespace warplab
