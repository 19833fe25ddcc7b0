// What an exercise's checks (apps/grader/exercises/En.cpp) are written
// against. The grader compiles the student's kernel.cuh to PTX, then runs the
// checks in a child process with a time limit (run_checks): they launch the
// PTX on the emulator and write one JSON line per check to a result file.
#pragma once
#include <cstdint>
#include <cstdio>
#include <functional>
#include <map>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "catalog.h"
#include "warplab/emu/emulator.h"
#include "warplab/ptx/cuda_source.h"
#include "warplab/ptx/ptx.h"
#include "warplab/trace/analysis.h"
#include "warplab/trace/block_analysis.h"
#include "warplab/trace/events.h"

namespace wl::grade {

// The outcome of one check, as the student will read it.
struct Verdict {
    bool passed = true;
    std::string measured, expected, where, hint;  // hint empty: the catalog's
    // A correctness check's cases (run_cases): how many ran, those that were
    // wrong, and why the rest did not run ("2 more not run: ...", or empty).
    unsigned cases = 0;
    std::vector<FailedCase> failed_cases;
    std::string cases_not_run;
    // Its main cases (Case::main): how many the list has, and the first whose
    // result is wrong or that did not run (empty when all are right).
    unsigned main_cases = 0;
    std::string main_case_wrong;
    unsigned right_cases() const { return cases - static_cast<unsigned>(failed_cases.size()); }
};
Verdict pass(std::string measured);
Verdict fail(std::string measured, std::string expected, std::string where = {}, std::string hint = {});

// A failure found by one part of a check, or nothing.
using Finding = std::optional<Verdict>;

// Thrown by a property whose traced run gave a wrong result: the property is
// then not graded, as a property of a wrong result proves nothing.
class WrongTracedResult : public std::runtime_error {
    using std::runtime_error::runtime_error;
};
// Throws WrongTracedResult when `wrong` holds a failure of the traced run of `traced_case` ("64x64").
void require_right(const Finding& wrong, const std::string& traced_case);

class Harness {
public:
    // `seed`: this run's seed for the random cases (printed, so that --seed reproduces them).
    Harness(const ExerciseSpec& spec, const ptx::Module& module, std::string kernel_file, std::uint64_t seed,
            std::FILE* out);
    // A whole-program exercise: `program` is the executable build_program made of `program_file`.
    Harness(const ExerciseSpec& spec, std::string program, std::string program_file, std::uint64_t seed,
            std::FILE* out);

    // A kernel exercise's PTX (throws std::logic_error for a whole-program exercise).
    const ptx::Module& module() const;
    // A whole-program exercise's executable (empty for a kernel exercise).
    const std::string& program() const { return program_; }
    std::uint64_t seed() const { return seed_; }
    // The module's name for a kernel: "exercise::block_max<256u>" as written, or
    // found among the demangled names; throws emu::LaunchError naming the kernels there are.
    std::string kernel(std::string_view name) const;

    // Runs `measure` for check `id` and reports its verdict; a fault or an
    // exception becomes a failure. A property is graded once the main cases of
    // `correct` are right (whole blocks or tiles, no edge), even if an edge case
    // failed; it is measured on a traced run whose result is right (else
    // WrongTracedResult: not graded). docs/grading.md states the rule.
    void check(std::string_view id, const std::function<Verdict()>& measure);
    // The same for a check that does not rest on the kernel's result (E10's
    // predictions, read from a file): graded whatever `correct` said.
    void check_alone(std::string_view id, const std::function<Verdict()>& measure);
    // The folder of the student's kernel.cuh, where an exercise's other files are.
    const std::string& kernel_dir() const { return kernel_dir_; }
    // The catalog's hint of the check now running (its remedy), or empty.
    std::string_view catalog_hint() const;

    // "kernel.cuh:34" when the site is in a file of the student's folder, else "line 34".
    std::string site(const trace::Site& s) const;
    // The student's file read as declarations, with the files it includes:
    // what types the shared arrays of its traces (view_block).
    const std::vector<ptx::CudaSource>& sources() const { return sources_; }

private:
    // Runs a check; `on_result`: a property measured on the kernel's result (a fault in its run: not graded).
    void run(std::string_view id, const std::function<Verdict()>& measure, bool on_result);
    void report(std::string_view id, const Verdict& v, bool graded);
    const ExerciseSpec& spec_;
    const ptx::Module* module_ = nullptr;
    std::string program_;
    std::uint64_t seed_;
    std::string kernel_dir_;
    std::map<std::uint32_t, std::string> files_;  // the student's files by trace::file_hash of their name
    std::vector<ptx::CudaSource> sources_;
    std::FILE* out_;
    std::string_view running_;  // the check being measured
    // Why the properties are not graded ("no case of check 'correct' has a right
    // result", ...), or empty; and how many of the cases of `correct` were right and wrong.
    std::string properties_not_graded_ = "check 'correct' has not run";
    unsigned right_cases_ = 0, wrong_cases_ = 0;
};

// The verdict for a launch that threw: a KernelFault quotes its paragraph.
Verdict fault_verdict(const std::exception& e, const std::string& during);

// ---- cases: every correctness check runs a list of named inputs ----

struct Case {
    std::string name;                 // "n = 257 (seed 4)"
    std::function<Finding()> run;     // a failure, or nothing when right
    std::string hint = {};            // for a wrong result on this case (else the check's)
    // A main case: the exercise's work at whole blocks (or tiles), no edge. The
    // properties are graded only when every main case is right, so that a kernel
    // right only on small or odd inputs earns nothing for them.
    bool main = false;
};
// Runs every case in order, even after a wrong one (so that the properties can
// be measured on what is right), and fails with the first wrong case, listing
// all of them. After a case that loops endlessly (the emulator's instruction budget)
// the rest are not run, as they would loop too; nor, after a wrong case, once
// half the exercise's time limit is spent: the verdict must be written in time.
Verdict run_cases(const std::vector<Case>& cases, const std::string& what_is_right);

// One case per input (named by its `name`, with its `hint` and `main` if it has
// them), each run as run(input, lane_seed) under its own lane order: 1, 2, 3, ...
template <class Input, class Run> std::vector<Case> cases_of(const std::vector<Input>& inputs, Run run)
{
    std::vector<Case> cases;
    std::uint64_t lane_seed = 1;
    for (const Input& in : inputs) {
        std::string hint;
        if constexpr (requires { in.hint; }) hint = in.hint;
        bool main = false;
        if constexpr (requires { in.main; }) main = in.main;
        cases.push_back({in.name, [&in, run, s = lane_seed++] { return run(in, s); }, hint, main});
    }
    return cases;
}

// `input` marked as a main case of its list (an input type with a `bool main` member).
template <class Input> Input main_case(Input input)
{
    input.main = true;
    return input;
}

// The first element of `got` farther from `expected` than rel * |expected| + abs
// (NaN is never right), named by name(i), e.g. "C[3][4]". An element whose bits
// equal `before` (the buffer before the launch) is reported as not written.
Finding compare_floats(const std::vector<float>& got, const std::vector<float>& expected, double rel, double abs,
                       const std::function<std::string(std::size_t)>& name, const std::vector<float>& before);

// ---- inputs: seeded, so a failure can be reproduced ----

std::vector<int> random_ints(std::size_t n, std::uint64_t seed, int lo, int hi);
std::vector<float> random_floats(std::size_t n, std::uint64_t seed, float lo, float hi);
// Small whole numbers as floats: every sum of their products is exact in float.
std::vector<float> random_whole_floats(std::size_t n, std::uint64_t seed, int lo, int hi);

// ---- the emulator and its trace ----

// Launches kernel `name` of the student's module (no dynamic shared memory).
template <class... A>
void launch(emu::Emulator& emu, const Harness& h, std::string_view name, dim3 grid, dim3 block, const A&... args)
{
    ptx::launch(emu, h.module(), h.kernel(name), grid, block, 0, args...);
}

// An emulator for a check: its schedule, lane order and recording, at the
// warp width this process grades at (run_checks' --warp-size).
void configure(emu::Emulator& emu, emu::Schedule schedule, std::uint64_t lane_seed, bool record);

template <class T> T* to_device(emu::Emulator& emu, const std::vector<T>& host)
{
    T* d = emu.alloc<T>(host.size());
    emu.copy_to_device(d, host.data(), host.size());
    return d;
}
template <class T> std::vector<T> to_host(emu::Emulator& emu, const T* device, std::size_t count)
{
    std::vector<T> host(count);
    emu.copy_to_host(host.data(), device, count);
    return host;
}

// One block's trace, grouped into warp events, with its per-step metrics
// (trace::analyze_block makes it, as for the CLI and the viewer).
using BlockView = trace::BlockAnalysis;
// Lanes a warp in this process's checks: 32, or 64 with --warp-size 64.
unsigned graded_warp_width();
// One block (block 0 unless named) of a launch with `threads` a block, in
// warps of the width this process grades at, its shared arrays in the types
// the student's file declares (wl::ptx::declare_array_types, as every front end's trace).
BlockView view_block(const Harness& h, const std::vector<trace::LaneRecord>& records, unsigned threads, std::uint32_t block = 0);

// ---- structural findings shared by several exercises ----

// Per thread of the block, how many lanes' worth of the matching events it made.
std::vector<unsigned> per_thread(const BlockView& v, const std::function<bool(const trace::WarpEvent&)>& which);
// The same in bytes (a .v4 load of floats counts 16): what a thread moved, however vectorised.
std::vector<unsigned> per_thread_bytes(const BlockView& v, const std::function<bool(const trace::WarpEvent&)>& which);
// Distinct (array, byte offset) pairs the matching events touched.
std::size_t distinct_words(const BlockView& v, const std::function<bool(const trace::WarpEvent&)>& which);
// Distinct (array, byte) pairs the matching events touched: what was covered, however vectorised.
std::size_t distinct_bytes(const BlockView& v, const std::function<bool(const trace::WarpEvent&)>& which);
bool is_shared_write(const trace::WarpEvent& e);  // store or atomic
bool is_shared_access(const trace::WarpEvent& e);
bool is_global_load(const trace::WarpEvent& e);

// The parallel shape of a block reduction, whatever its style: the block's
// elements stored in shared memory (or first folded, up to 4 a thread, or by
// warp shuffles), then the partial values halve every round, in shared memory
// (a barrier interval a round: its writers halve) or in a warp (a shuffle a
// round), down to 1; a last warp stage in shared memory by warp 0 alone (as
// reduction v5) counts too. And no thread touches more than 4 shared words a
// level (a thread that loops over the block does). Serial loops and atomics
// into one word have no such rounds.
Finding reduction_shape(const BlockView& v, unsigned block);

// How a strided access's explanation names its lanes: each lane reads one
// `lane` (a chunk, a row) called `index`, at word `word` within it; and what
// the pitch is, when the exercise knows ("the tile's row length, TILE + 2").
struct LaneNames {
    std::string lane = "lane", index = "l", word = "c", pitch_is = {};
};
// Why a conflicted access whose lanes' words lie evenly apart conflicts, from
// the trace: "the lanes of this load are 8 words apart: lane l's word is in
// bank (l*8 + k) mod 32, so lanes l and l + 4 share a bank: 8 lanes a bank,
// 8-way". Empty when they are not evenly apart (a swizzle, a pad every 32
// words) or not conflicted.
std::string pitch_explanation(const trace::WarpEvent& e, const LaneNames& names = {});

// The first shared-memory access with more wavefronts than its ideal: the event
// (null when none), and the failure that reports it, its hint derived from the
// trace where it can be (pitch_explanation, then the check's catalog hint).
const trace::WarpEvent* first_conflicted(const BlockView& v);
Finding first_bank_conflict(const Harness& h, const BlockView& v, const LaneNames& names = {});
// The first step with a partially-active warp at an access that a warp's worth (32, or 64) or more
// of the block's threads make: fewer cannot fill a warp, however they are picked.
Finding first_partial_warp(const Harness& h, const BlockView& v);
// A shared access of 4-byte elements whose lanes' words lie evenly apart, in
// lane order: lane l's word w0 + pitch * l is in bank (pitch * l + w0) mod 32,
// so its banks repeat every 32 / g lanes and g lanes share each, g =
// gcd(pitch, 32): a g-way conflict (1: none).
struct StridedAccess {
    std::uint64_t pitch = 0, ways = 1;
};
std::optional<StridedAccess> strided_access(const trace::WarpEvent& e);
// The bank of item `i` at `pitch` words an item, word `w` within it:
// "(r*34 + c) mod 32 = (2r + c) mod 32" (reduced when pitch is 32 or more).
std::string bank_formula(std::uint64_t pitch, const std::string& i, const std::string& w);

// The first global load (or store) that touches more 32-byte sectors than its bytes need.
Finding first_uncoalesced(const Harness& h, const BlockView& v, trace::Kind kind);

// ---- text ----

std::string str(double v);  // shortest form that reads back the same: 3, -2.5, 1e+30, nan
std::string range_text(unsigned lo, unsigned hi);       // "8", or "0 to 2048"

// The child process: parses the PTX (or, for a whole-program exercise, takes
// the built program), runs the exercise's checks, writes their JSON lines to
// `result_path`. Returns the exit code.
int run_checks(std::string_view exercise_id, const std::string& ptx_file, const std::string& kernel_file,
               std::uint64_t seed, unsigned warp_width, const std::string& result_path);

}  // namespace wl::grade
