// E12 checks: a whole program's two-pass sum (exercises/E12_two_pass_sum).
// Run by the grader's child process on the student's program, built for
// warplab's CUDA runtime: each case runs it as `program N SEED` and reads what
// it printed, its exit code and its launch table; the properties read the
// launch table and the runtime's warnings of one more run, and two runs with a
// CUDA call failed on purpose show whether the host code checks its calls.
#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <optional>
#include <sstream>
#include <string_view>

#include "harness/harness.h"
#if WARPLAB_HAVE_RUN
#include "warplab/cudart/program_run.h"
#endif

namespace wl::grade::e12 {

#if WARPLAB_HAVE_RUN

constexpr unsigned kBlock = 256;  // the skeleton's BLOCK

// The skeleton's input_value, mirrored: the program makes its input from n and
// the seed, and the grader sums the same values.
int input_value(unsigned i, unsigned seed)
{
    unsigned x = (i + 1u) * 2654435761u ^ seed;  // Knuth's multiplicative hash, then a shift to mix the high bits down
    x ^= x >> 13;
    return int(x % 201u) - 100;  // -100 .. 100
}

long long right_sum(unsigned n, unsigned seed)
{
    long long sum = 0;
    for (unsigned i = 0; i < n; ++i) sum += input_value(i, seed);
    return sum;
}

struct SumInput {
    std::string name;
    unsigned n, seed;
    std::string hint = {};
    bool main = false;  // a main case (harness.h's Case::main)
};

// `fail`: a call warplab's runtime fails on purpose (warplab run --fail), or none.
cudart::ProgramRun run_program(const Harness& h, const SumInput& in, const std::string& fail = {})
{
    cudart::RunArguments a;
    a.fail = fail;
    a.program.sources = {(std::filesystem::path(h.kernel_dir()) / std::string(student_file(*find_exercise("E12")))).string()};
    a.program_args = {std::to_string(in.n), std::to_string(in.seed)};
    return cudart::run_built_program(h.program(), a, cudart::ProgramOutput::Captured);
}

// The value of the last line "sum S" the program printed, if any.
std::optional<long long> printed_sum(const std::string& output)
{
    std::optional<long long> sum;
    std::istringstream lines(output);
    for (std::string line; std::getline(lines, line);) {
        if (line.rfind("sum ", 0) != 0) continue;
        char* end = nullptr;
        const long long v = std::strtoll(line.c_str() + 4, &end, 10);
        if (end != line.c_str() + 4) sum = v;
    }
    return sum;
}

std::string first_line(const std::string& text) { return text.substr(0, text.find('\n')); }

// What went wrong in a run of the program, or nothing when it printed the right sum from its launches.
Finding judge(const SumInput& in, const cudart::ProgramRun& run)
{
    const std::string due = "sum " + std::to_string(right_sum(in.n, in.seed));
    for (const cudart::LaunchRecord& r : run.launches)
        if (!r.error.empty())
            return fail("launch " + std::to_string(r.index) + " (" + r.kernel + ") failed: " + first_line(r.error),
                        "every launch runs to its end");
    if (!run.stopped_by.empty()) return fail("the program was stopped by " + run.stopped_by, "exit code 0, then " + due);
    if (run.exit_code != 0)
        return fail("exit code " + std::to_string(run.exit_code) +
                        (run.errors.empty() ? std::string() : "; it said: " + first_line(run.errors)),
                    "exit code 0 and " + due);
    const std::optional<long long> sum = printed_sum(run.output);
    if (!sum)
        return fail("no line \"sum S\" in its output" +
                        (run.output.empty() ? std::string(" (it printed nothing)") : ": " + first_line(run.output)),
                    due);
    if ("sum " + std::to_string(*sum) != due) return fail("it printed sum " + std::to_string(*sum), due);
    if (run.launches.empty())
        return fail("it printed the right sum but launched no kernel: the host computed it",
                    due + ", computed by kernel launches", {},
                    "the sum must come from the GPU: launch block_sums over the input, then the second pass over its "
                    "partial sums");
    // Launches for show: the sum printed must be one the host read from the
    // device after the last launch (warplab's runtime logs each copy from
    // device memory into the host's; managed memory is taken at its word).
    const cudart::LaunchRecord& last = run.launches.back();
    const bool read_back = std::any_of(run.results_read.begin(), run.results_read.end(),
                                       [&](const cudart::ResultRead& r) { return r.after_launch >= last.index; });
    if (!read_back)
        return fail("it printed the right sum, but copied nothing from the device after its last launch (launch " +
                        std::to_string(last.index) + ", " + last.kernel + "): the host computed the sum it printed",
                    due + ", copied back from the device after the last launch",
                    "launch " + std::to_string(last.index) + " (" + last.kernel + ") at " + cudart::short_host_line(last),
                    "after the second launch, copy its one int back, cudaMemcpy(&result, sum, sizeof(int), "
                    "cudaMemcpyDeviceToHost), and print that: a sum the host adds up itself proves nothing about the "
                    "launches");
    return std::nullopt;
}

// The seeded cases: one element, one whole block (the main case), odd sizes, and more partial
// sums than a block (ceil(70001 / 256) = 274), so the second pass must loop.
std::vector<SumInput> inputs(std::uint64_t seed0)
{
    std::vector<SumInput> v;
    auto seed = static_cast<unsigned>(seed0 % 1'000'000'007u);
    const auto add = [&](const char* label, unsigned n, std::string hint = {}) {
        v.push_back({std::string(label) + ": n = " + std::to_string(n) + ", seed " + std::to_string(seed), n, seed,
                     std::move(hint)});
        ++seed;
    };
    add("one element", 1, "with n = 1 the first pass has one block whose threads 1 .. 255 lie past the end: they add 0");
    add("one block", kBlock);
    v.back().main = true;  // the main case: one whole block, no edge
    add("odd size", 1000);
    add("odd size", 4097, "the last block is cut by n: a thread past the end adds 0");
    add("more partial sums than a block", 70001,
        "274 partial sums for one block of 256 threads: each thread first adds partial[tid], partial[tid + 256], ...");
    return v;
}

Verdict correct(const Harness& h)
{
    const auto run = [&](const SumInput& in, std::uint64_t) { return judge(in, run_program(h, in)); };
    return run_cases(cases_of(inputs(h.seed()), run), "the right sum");
}

// The run the properties are measured on (n = 70001: 274 blocks in the first pass), right or not graded.
cudart::ProgramRun traced_run(const Harness& h)
{
    const SumInput in{"traced", 70001, static_cast<unsigned>(h.seed() % 1000u) + 7u};
    cudart::ProgramRun run = run_program(h, in);
    require_right(judge(in, run), "n = 70001");
    return run;
}

std::uint64_t blocks_of(const cudart::LaunchRecord& r) { return std::uint64_t(r.grid[0]) * r.grid[1] * r.grid[2]; }

// Two passes: the first launch covers the input; each later one has a
// smaller grid (it reads partial sums), and the last is one block (one value).
Verdict second_pass(const cudart::ProgramRun& run)
{
    const auto& l = run.launches;
    std::string table;
    for (const cudart::LaunchRecord& r : l)
        table += (table.empty() ? "" : ", ") + r.kernel + " on " + std::to_string(blocks_of(r)) +
                 (blocks_of(r) == 1 ? " block" : " blocks");
    const std::string where = "n = 70001: launches " + table;
    if (l.size() < 2)
        return fail("one launch: the partial sums were not reduced on the GPU", "a second launch over the partial sums",
                    where);
    for (std::size_t i = 1; i < l.size(); ++i)
        if (blocks_of(l[i]) >= blocks_of(l[0]))
            return fail("launch " + std::to_string(l[i].index) + " has " + std::to_string(blocks_of(l[i])) +
                            " blocks, as many as the first pass's " + std::to_string(blocks_of(l[0])),
                        "later passes over the partial sums, on fewer blocks", where);
    if (blocks_of(l.back()) != 1)
        return fail("the last launch has " + std::to_string(blocks_of(l.back())) + " blocks: the host adds their sums",
                    "a last launch of one block, which leaves the one sum", where);
    return pass(std::to_string(l.size()) + " launches: " + table);
}

// The program run twice more at n = 4097 with a call failed on purpose: its
// second launch (as a faulting kernel's: cudaErrorLaunchFailure, then every
// later call) and its first device allocation (cudaErrorMemoryAllocation).
// Where the failure happened, the program must notice: exit non-zero and
// print no sum. A run where no such call came (one launch) is not judged.
Verdict checks_errors(const Harness& h)
{
    struct Injection {
        std::string spec, what;
    };
    const Injection injections[] = {{"launch:2", "its second launch failed"},
                                    {"alloc:1", "its first device allocation returned cudaErrorMemoryAllocation"}};
    const SumInput in{"failed call", 4097, static_cast<unsigned>(h.seed() % 1000u) + 11u};
    std::string checked;
    for (const Injection& f : injections) {
        const cudart::ProgramRun run = run_program(h, in, f.spec);
        if (run.errors.find("fails on purpose (--fail " + f.spec + ")") == std::string::npos) continue;
        const std::optional<long long> sum = printed_sum(run.output);
        if (sum || run.exit_code == 0)
            return fail((sum ? "it printed sum " + std::to_string(*sum) : std::string("it printed no sum")) + " and exited with " +
                            std::to_string(run.exit_code) + ", although " + f.what,
                        "an error message and a non-zero exit code, no sum", "n = 4097, warplab run --fail " + f.spec);
        checked += (checked.empty() ? "" : "; ") + f.what;
    }
    if (checked.empty()) return fail("no launch or allocation to fail", "a second launch and a cudaMalloc", "n = 4097");
    return pass("it stopped with an error and no sum where " + checked + " (n = 4097, warplab run --fail)");
}

// The runtime's warnings about the host code ("warplab: warning: 1 allocation
// never freed: 16 bytes from cudaMalloc at program.cu:82") on the traced run.
Verdict clean_host(const cudart::ProgramRun& run)
{
    constexpr std::string_view kWarning = "warplab: warning: ";
    std::istringstream lines(run.errors);
    for (std::string line; std::getline(lines, line);)
        if (line.rfind(kWarning, 0) == 0)
            return fail("warplab's runtime warned: " + line.substr(kWarning.size()), "no warning about the host code",
                        "n = 70001");
    return pass("no warning from warplab's runtime about the host code (n = 70001)");
}

void grade(Harness& h)
{
    h.check(kCorrect, [&] { return correct(h); });
    std::optional<cudart::ProgramRun> traced;  // one run for every property (again only after a wrong one)
    const auto measure = [&](Verdict (*property)(const cudart::ProgramRun&)) {
        return [&, property] {
            if (!traced) traced = traced_run(h);
            return property(*traced);
        };
    };
    h.check("second_pass", measure(second_pass));
    h.check("checks_errors", [&] {
        if (!traced) traced = traced_run(h);  // judged only for a program that is right where nothing fails
        return checks_errors(h);
    });
    h.check("clean_host", measure(clean_host));
}

#else

void grade(Harness& h)
{
    for (const CheckSpec& c : find_exercise("E12")->checks)
        h.check(c.id, [] { return fail("not run: this warplab was built without `warplab run`",
                                       "a warplab built with its CUDA runtime"); });
}

#endif

}  // namespace wl::grade::e12
