#include "grader.h"

#include <unistd.h>

#include <algorithm>
#include <map>
#include <nlohmann/json.hpp>
#include <random>
#include <sstream>
#include <tuple>

#include "gpu_timing.h"
#include "process.h"
#include "warplab/ptx/tools.h"
#include "warplab/trace/events.h"

namespace wl::grade {
namespace fs = std::filesystem;

unsigned ExerciseResult::points() const
{
    unsigned p = 0;
    for (const CheckResult& c : checks) p += c.points;
    return p;
}

unsigned ExerciseResult::max_points() const { return spec ? wl::grade::max_points(*spec) : 0; }

unsigned GradeReport::points() const
{
    unsigned p = 0;
    for (const ExerciseResult& e : exercises) p += e.points();
    return p;
}

unsigned GradeReport::max_points() const
{
    unsigned p = 0;
    for (const ExerciseResult& e : exercises) p += e.max_points();
    return p;
}

namespace {

constexpr int kSearchDepth = 4;  // upload/warplab-main/exercises/E1_.../kernel.cuh

// Folders a student did not make: version control, macOS's zip metadata, builds.
bool skipped(const fs::path& p)
{
    const std::string name = p.filename().string();
    return name.empty() || name[0] == '.' || name == "__MACOSX" || name == "build" || name == "node_modules";
}

// Every folder under `dir`, `depth` levels down at most, shallowest first.
std::vector<std::pair<int, fs::path>> folders_under(const fs::path& dir)
{
    std::vector<std::pair<int, fs::path>> found{{0, dir}};
    for (std::size_t i = 0; i < found.size(); ++i) {
        if (found[i].first == kSearchDepth) continue;
        std::error_code ec;
        std::vector<fs::path> children;
        for (const auto& entry : fs::directory_iterator(found[i].second, ec))
            if (entry.is_directory(ec) && !entry.is_symlink(ec) && !skipped(entry.path()))
                children.push_back(entry.path());
        std::sort(children.begin(), children.end());
        for (const fs::path& c : children) found.push_back({found[i].first + 1, c});
    }
    return found;
}

bool names_exercise(const fs::path& folder, const ExerciseSpec& spec)
{
    const std::string name = folder.filename().string(), id(spec.id);
    return name == id || name.rfind(id + "_", 0) == 0;
}

}  // namespace

fs::path find_exercise_folder(const fs::path& dir, const ExerciseSpec& spec, bool lone_kernel)
{
    std::error_code ec;
    if (fs::is_directory(dir / spec.folder, ec)) return dir / spec.folder;
    const auto folders = folders_under(dir);
    // The shallowest folder named for the exercise; among equals, one inside exercises/
    // (a zipped repository also holds solutions/), then the first by name.
    const std::pair<int, fs::path>* best = nullptr;
    const auto rank = [](const std::pair<int, fs::path>& f) {
        return std::make_tuple(f.first, f.second.parent_path().filename() != "exercises", f.second);
    };
    for (const auto& f : folders)
        if (f.first > 0 && names_exercise(f.second, spec) && (!best || rank(f) < rank(*best))) best = &f;
    if (best) return best->second;
    if (!lone_kernel) return {};
    // One exercise graded and no folder for it: a lone kernel.cuh anywhere in the upload is its kernel.
    std::vector<fs::path> kernels;
    for (const auto& f : folders)
        if (fs::is_regular_file(f.second / "kernel.cuh", ec)) kernels.push_back(f.second);
    return kernels.size() == 1 ? kernels.front() : fs::path();
}

std::string uploaded_files(const fs::path& dir, std::size_t most)
{
    std::vector<std::string> files;
    std::size_t total = 0;
    for (const auto& [depth, folder] : folders_under(dir)) {
        std::error_code ec;
        for (const auto& entry : fs::directory_iterator(folder, ec))
            if (entry.is_regular_file(ec) && !skipped(entry.path()) && ++total <= most)
                files.push_back(fs::relative(entry.path(), dir, ec).string());
    }
    std::sort(files.begin(), files.end());
    std::string s;
    for (const std::string& f : files) s += (s.empty() ? "" : ", ") + f;
    if (total > files.size()) s += ", and " + std::to_string(total - files.size()) + " more";
    return s.empty() ? "no files" : s;
}

namespace {

// A check's result before anything is known of it: no points yet.
CheckResult unrun_check(const CheckSpec& c)
{
    CheckResult r;
    r.id = c.id;
    r.title = c.title;
    r.max_points = c.points;
    return r;
}

// Every check of the exercise fails for one reason (nothing could run).
void fail_all(ExerciseResult& ex, const std::string& reason, const std::string& problem, const std::string& hint)
{
    ex.problem = problem;
    ex.checks.clear();
    for (const CheckSpec& c : ex.spec->checks) {
        CheckResult r = unrun_check(c);
        r.measured = reason;
        r.expected = "a kernel that builds and runs";
        r.hint = hint.empty() ? std::string(c.hint) : hint;
        ex.checks.push_back(r);
    }
}

std::string read_and_remove(const fs::path& p)
{
    std::string text;
    ptx::tools::read_file(p, text);
    std::error_code ec;
    fs::remove(p, ec);
    return text;
}

std::string last_lines(const std::string& text, std::size_t count)
{
    std::size_t at = text.size();
    while (at > 0 && text[at - 1] == '\n') --at;
    for (std::size_t seen = 0; at > 0; --at)
        if (text[at - 1] == '\n' && ++seen == count) break;
    return text.substr(at);
}

// What a run of the checks that did not end normally left unreported, and a hint for it.
std::string end_problem(const ProcessResult& p, double limit_s, std::string& hint)
{
    if (p.started && !p.timed_out && p.signal == 0 && p.exit_code == 0) return {};
    std::string what = describe_end(p, limit_s);
    if (p.timed_out) {
        hint = "an infinite loop? Check that every loop's index moves towards its bound (i += stride), and that "
               "every thread reaches each __syncthreads()";
    } else if (p.signal) {
        hint = "a crash while the checks ran your kernel: often a very large local array (each emulated thread has "
               "a small stack)";
    } else {
        hint = "the checks ended before they reported: see the message above";
    }
    const std::string err = last_lines(p.err, 8);
    return err.empty() ? what : what + "\nits last words:\n" + err;
}

// GPU timing (not graded) for a kernel whose result is right.
void time_if_right(ExerciseResult& ex, const Toolchain& tc)
{
    const bool right = !ex.checks.empty() && ex.checks.front().passed;
    if (!right) {
        ex.timing.note = "the result is not right yet";
        return;
    }
    ex.timing = time_on_gpu(tc, *ex.spec, ex.kernel_file);
}

// Sets ex.kernel_file (the exercise's student_file), or fails every check saying what is missing.
bool locate_kernel(ExerciseResult& ex, const fs::path& dir, bool lone_kernel)
{
    const ExerciseSpec& spec = *ex.spec;
    const std::string file(student_file(spec));
    const fs::path folder = find_exercise_folder(dir, spec, lone_kernel && spec.program.empty());
    if (folder.empty()) {
        const std::string expected = std::string(spec.folder) + "/" + file;
        const std::string why = "no " + expected + " in " + dir.string() + " (looked " +
                                std::to_string(kSearchDepth) + " folders deep" +
                                (lone_kernel && spec.program.empty() ? ", and for a lone kernel.cuh" : "") +
                                "); it holds " + uploaded_files(dir, 20);
        fail_all(ex, "not run: " + why, why,
                 "submit the exercise's folder as it is in the course repository, " + expected +
                     " (at the top of the upload or in any folder of it), or the repository zipped; on the command "
                     "line, --dir names the folder that holds it");
        return false;
    }
    if (!fs::is_regular_file(folder / file)) {
        fail_all(ex, "not run: no " + file + " in " + folder.string(), "no " + file + " in " + folder.string(), {});
        return false;
    }
    ex.kernel_file = folder / file;
    return true;
}

// Runs the checks on the PTX in a child process (this binary again) with a
// time limit and collects them; those it did not report fail with how it
// ended (time limit, signal, exit code).
void run_checks_child(ExerciseResult& ex, const Toolchain& tc, const fs::path& ptx, const GradeOptions& opt, double limit_s)
{
    const fs::path result =
        tc.cache_dir / ("result-" + std::to_string(getpid()) + "-" + std::string(ex.spec->id) + ".jsonl");
    const ProcessResult p = run_process({tc.self.string(), "grade", std::string(ex.spec->id), "--run-checks", ptx.string(),
                                         "--kernel-file", ex.kernel_file.string(), "--seed", std::to_string(opt.seed),
                                         "--warp-size", std::to_string(opt.warp_width), "--result", result.string()},
                                        limit_s, tc.cache_dir.string());
    ex.run_seconds = p.seconds;
    std::string hint;
    const std::string problem = end_problem(p, limit_s, hint);
    collect_checks(ex, read_and_remove(result), problem);
    if (problem.empty()) return;
    ex.problem = problem;
    for (CheckResult& c : ex.checks)
        if (!c.passed && c.measured.rfind("not run", 0) == 0) c.hint = hint;
}

// A whole-program exercise: the student's program built for warplab's CUDA
// runtime; its checks run it on their inputs from the child process.
ExerciseResult grade_program(ExerciseResult ex, const GradeOptions& opt, const Toolchain& tc)
{
    const BuildResult b = build_student_program(tc, ex.kernel_file);
    ex.build_seconds = b.seconds;
    ex.build_cached = b.cached;
    if (!b.ok) {
        fail_all(ex, "not run: the program does not build", "the program does not build\n" + b.errors,
                 "fix the first error first; the program must keep its main(), which reads n and the seed");
        return ex;
    }
    run_checks_child(ex, tc, b.binary, opt, opt.time_limit_s.value_or(ex.spec->time_limit_s));
    ex.timing.note = "a whole program is not timed on a GPU";
    return ex;
}

ExerciseResult grade_one(const ExerciseSpec& spec, const GradeOptions& opt, const Toolchain& tc)
{
    ExerciseResult ex;
    ex.spec = &spec;
    if (!locate_kernel(ex, opt.dir, opt.exercises.size() == 1)) return ex;
    if (!spec.program.empty()) return grade_program(std::move(ex), opt, tc);
    const BuildResult b = compile_to_ptx(tc, spec, ex.kernel_file);
    ex.build_seconds = b.seconds;
    ex.build_cached = b.cached;
    ex.warnings = b.warnings;
    if (!b.ok) {
        fail_all(ex, "not run: the kernel does not compile", "the kernel does not compile\n" + b.errors,
                 "fix the first error first. The grader calls " + std::string(spec.signature) +
                     ": keep the skeleton's names and parameters");
        return ex;
    }
    run_checks_child(ex, tc, b.binary, opt, opt.time_limit_s.value_or(spec.time_limit_s));
    if (opt.backend != Backend::Cpu && opt.warp_width == 32 && why_no_gpu_timing(tc).empty()) time_if_right(ex, tc);
    return ex;
}

}  // namespace

void collect_checks(ExerciseResult& ex, const std::string& result_lines, const std::string& end_problem)
{
    std::map<std::string, nlohmann::json> reported;
    std::istringstream in(result_lines);
    for (std::string line; std::getline(in, line);) {
        const nlohmann::json j = nlohmann::json::parse(line, nullptr, false);
        if (j.is_object() && j.contains("check")) reported[j.value("check", "")] = j;
    }
    ex.checks.clear();
    for (const CheckSpec& c : ex.spec->checks) {
        CheckResult r = unrun_check(c);
        auto it = reported.find(std::string(c.id));
        if (it == reported.end()) {
            const std::string first_line = end_problem.substr(0, end_problem.find('\n'));
            r.measured = "not run: " + (end_problem.empty() ? std::string("the checks did not report it") : first_line);
            r.expected = "the check to run to its end";
            r.hint = std::string(c.hint);
        } else {
            const nlohmann::json& j = it->second;
            r.passed = j.value("passed", false);
            r.graded = j.value("graded", true);
            r.measured = j.value("measured", "");
            r.expected = j.value("expected", "");
            r.where = j.value("where", "");
            r.hint = j.value("hint", "");
            r.cases = j.value("cases", 0u);
            r.cases_not_run = j.value("cases_not_run", "");
            if (const auto f = j.find("failed_cases"); f != j.end() && f->is_array())
                for (const nlohmann::json& c : *f)
                    if (c.is_object())
                        r.failed_cases.push_back(
                            {c.value("case", ""), c.value("measured", ""), c.value("expected", "")});
            if (!r.passed && r.hint.empty()) r.hint = std::string(c.hint);
            if (r.passed) r.hint.clear();
        }
        r.points = r.passed ? c.points : 0;
        ex.checks.push_back(r);
    }
}

std::string describe_backend(const GradeOptions& opt, const Toolchain& tc)
{
    const std::string width = trace::warp_width_label(opt.warp_width);
    const std::string checks = "checks on the cpu emulator, independent schedule" + (width.empty() ? "" : ", " + width);
    if (opt.backend == Backend::Cpu) return checks;
    if (opt.warp_width != 32) return checks + "; no GPU timing: a GPU's warps are NVIDIA's 32 lanes";
    const std::string why_not = why_no_gpu_timing(tc);
    return checks + (why_not.empty() ? "; kernels also timed on the GPU" : "; no GPU timing: " + why_not);
}

std::uint64_t pick_seed()
{
    std::random_device device;
    const std::uint64_t bits = (std::uint64_t(device()) << 32) | device();
    return 1 + bits % 999'999'999;  // short enough to type
}

GradeReport grade(const GradeOptions& opt, const Toolchain& tc, const std::function<void(const ExerciseResult&)>& on_done)
{
    GradeReport rep;
    rep.dir = opt.dir;
    rep.seed = opt.seed;
    rep.backend = describe_backend(opt, tc);
    std::vector<const ExerciseSpec*> specs = opt.exercises;
    if (specs.empty())
        for (const ExerciseSpec& e : kExercises) specs.push_back(&e);
    for (const ExerciseSpec* spec : specs) {
        rep.exercises.push_back(grade_one(*spec, opt, tc));
        if (on_done) on_done(rep.exercises.back());
    }
    return rep;
}

}  // namespace wl::grade
