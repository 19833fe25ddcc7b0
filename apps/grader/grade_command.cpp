#include "grade_command.h"

#include <cctype>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <stdexcept>

#include "gpu_timing.h"
#include "labs/common/did_you_mean.h"
#include "grader.h"
#include "harness/harness.h"
#include "report.h"

namespace warplab::cli {
namespace fs = std::filesystem;
namespace grade = wl::grade;

GradeCommand::GradeCommand(CLI::App& app)
{
    sub_ = app.add_subcommand("grade", "grade the exercises: right results, and the property each one teaches");
    sub_->add_option("ids", ids_, "exercises to grade, e.g. E1 E3 (default: all)");
    sub_->add_option("--dir", dir_, "folder holding one folder per exercise: exercises (default), solutions, or a path");
    sub_->add_option("--backend", backend_, "auto (the emulator, and timing where a GPU is), cpu, or gpu")
        ->check(CLI::IsMember({"auto", "cpu", "gpu"}));
    sub_->add_option("--gradescope", gradescope_, "also write Gradescope's results.json to this file");
    sub_->add_option("--junit", junit_, "also write JUnit XML to this file");
    sub_->add_option("--time-limit", time_limit_, "seconds each exercise's run may take (default: 10)")
        ->check(CLI::PositiveNumber);
    sub_->add_option("--seed", seed_, "seed of the random cases, to repeat a run (default: a new one each run)");
    sub_->add_option("--warp-size", warp_size_, "lanes a warp on the emulator: 32, or 64 (AMD's wavefront, emulated; no GPU timing)");
    // The child process that runs one exercise's checks (not for people: no group, so not listed).
    sub_->add_option("--run-checks", run_checks_)->group("");
    sub_->add_option("--kernel-file", kernel_file_)->group("");
    sub_->add_option("--result", result_)->group("");
}

namespace {

std::vector<const grade::ExerciseSpec*> resolve_ids(const std::vector<std::string>& ids)
{
    std::vector<const grade::ExerciseSpec*> specs;
    for (std::string id : ids) {
        for (char& c : id) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
        const grade::ExerciseSpec* spec = grade::find_exercise(id);
        if (!spec) {
            std::vector<std::string> known;
            for (const grade::ExerciseSpec& e : grade::kExercises) known.emplace_back(e.id);
            throw std::invalid_argument("unknown exercise '" + id + "'" + warplab::did_you_mean(id, known) + " (there are " +
                                        std::string(grade::kExercises[0].id) + " to " +
                                        std::string(std::end(grade::kExercises)[-1].id) + ")");
        }
        specs.push_back(spec);
    }
    return specs;
}

// As given, else (for a relative path such as "solutions") in warplab's data
// (the source tree, or share/warplab where installed).
fs::path resolve_dir(const std::string& dir, const grade::Toolchain& tc)
{
    std::error_code ec;
    if (fs::is_directory(dir, ec)) return fs::canonical(dir);
    const fs::path in_data = tc.data_dir / dir;
    if (!tc.data_dir.empty() && fs::path(dir).is_relative() && fs::is_directory(in_data, ec))
        return fs::canonical(in_data);
    throw std::invalid_argument("no folder '" + dir + "'" +
                                (tc.data_dir.empty() ? "" : " (neither here nor in " + tc.data_dir.string() + ")"));
}

void write_text(const std::string& path, const std::string& text)
{
    std::ofstream f(path);
    if (!(f << text)) throw std::invalid_argument("cannot write " + path);
    std::fprintf(stderr, "wrote %s\n", path.c_str());
}

}  // namespace

int GradeCommand::run_child() const
{
    if (ids_.size() != 1 || kernel_file_.empty() || result_.empty() || !seed_)
        throw std::invalid_argument("--run-checks needs one exercise, --kernel-file, --seed and --result");
    return grade::run_checks(resolve_ids(ids_).front()->id, run_checks_, kernel_file_, *seed_, warp_size_, result_);
}

int GradeCommand::run() const
{
    if (const std::string why = wl::trace::warp_size_refusal(warp_size_); !why.empty()) throw std::invalid_argument(why);
    if (!run_checks_.empty()) return run_child();
    const grade::Toolchain tc = grade::default_toolchain();
    grade::GradeOptions opt;
    opt.exercises = resolve_ids(ids_);
    opt.dir = resolve_dir(dir_, tc);
    opt.backend = backend_ == "gpu" ? grade::Backend::Gpu : backend_ == "cpu" ? grade::Backend::Cpu : grade::Backend::Auto;
    opt.time_limit_s = time_limit_;
    opt.seed = seed_.value_or(grade::pick_seed());
    opt.warp_width = warp_size_;
    if (warp_size_ != 32 && opt.backend == grade::Backend::Gpu)
        throw std::invalid_argument("warp size " + std::to_string(warp_size_) +
                                    " runs on the emulator only: a GPU's warps are NVIDIA's 32 lanes (use --backend cpu or auto)");
    if (tc.nvcc.empty()) throw std::runtime_error(grade::kNeedsToolkit);
    if (opt.backend == grade::Backend::Gpu) {
        const std::string why_not = grade::why_no_gpu_timing(tc);
        if (!why_not.empty()) throw std::invalid_argument("no GPU timing: " + why_not);
    }
    std::fputs(grade::text_header(grade::GradeReport{opt.dir, grade::describe_backend(opt, tc), opt.seed, {}}).c_str(),
               stdout);
    std::fflush(stdout);
    const grade::GradeReport report = grade::grade(opt, tc, [](const grade::ExerciseResult& ex) {
        std::fputs(grade::text_exercise(ex).c_str(), stdout);
        std::fflush(stdout);
    });
    std::fputs(grade::text_score(report).c_str(), stdout);
    if (!gradescope_.empty()) write_text(gradescope_, grade::gradescope_results(report).dump(2) + "\n");
    if (!junit_.empty()) write_text(junit_, grade::junit_xml(report));
    return report.points() == report.max_points() ? 0 : 1;
}

}  // namespace warplab::cli
