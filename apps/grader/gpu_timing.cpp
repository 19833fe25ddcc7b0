#include "gpu_timing.h"

#include <unistd.h>

#include <cstdlib>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "labs/common/data_dir.h"
#include "process.h"

namespace wl::grade {
namespace fs = std::filesystem;

namespace {

bool executable(const fs::path& p) { return !p.empty() && access(p.c_str(), X_OK) == 0; }

// This build's nvcc, else $CUDACXX, else nvcc on PATH, else /usr/local/cuda's.
std::string find_nvcc(const Toolchain& tc)
{
    if (executable(tc.nvcc)) return tc.nvcc;
    if (const char* env = std::getenv("CUDACXX"); env && executable(env)) return env;
    if (const char* path = std::getenv("PATH")) {
        std::istringstream dirs(path);
        for (std::string dir; std::getline(dirs, dir, ':');)
            if (executable(fs::path(dir) / "nvcc")) return (fs::path(dir) / "nvcc").string();
    }
    return executable("/usr/local/cuda/bin/nvcc") ? "/usr/local/cuda/bin/nvcc" : "";
}

// "NVIDIA H100 80GB HBM3" from `nvidia-smi -L`'s first line, or empty.
std::string gpu_name()
{
    static const std::string name = [] {
        const ProcessResult r = run_process({"nvidia-smi", "-L"}, 20, "");
        const std::string line = r.out.substr(0, r.out.find('\n'));
        const std::size_t colon = line.find(": "), uuid = line.find(" (UUID");
        if (r.exit_code != 0 || line.rfind("GPU ", 0) != 0 || colon == std::string::npos) return std::string();
        return line.substr(colon + 2, uuid == std::string::npos ? std::string::npos : uuid - colon - 2);
    }();
    return name;
}

struct GpuRun {
    bool ok = false;
    double ms = 0;
    std::string gpu, error;
};

GpuRun run_on_gpu(const Toolchain& tc, const ExerciseSpec& spec, const fs::path& kernel_file)
{
    GpuRun run;
    const BuildResult b = build_gpu_timing(tc, spec, kernel_file);
    if (!b.ok) {
        run.error = "the nvcc build failed: " + b.errors.substr(0, b.errors.find('\n'));
        return run;
    }
    const fs::path result = b.binary.parent_path() / ("timing-" + std::to_string(getpid()) + ".json");
    const ProcessResult p = run_process({b.binary.string(), "--result", result.string()}, 120,
                                        b.binary.parent_path().string());
    std::ifstream f(result);
    const nlohmann::json j = nlohmann::json::parse(f, nullptr, false);
    f.close();
    fs::remove(result);
    if (j.is_object() && j.contains("median_ms")) {
        run.ok = true;
        run.ms = j["median_ms"].get<double>();
        run.gpu = j.value("gpu", "");
    } else if (j.is_object() && j.contains("error")) {
        run.error = "on the GPU: " + j["error"].get<std::string>();
    } else {
        run.error = "the timing run ended without a result: " + describe_end(p, 120);
    }
    return run;
}

}  // namespace

std::string why_no_gpu_timing(const Toolchain& tc)
{
    if (find_nvcc(tc).empty()) return "no nvcc (CUDA Toolkit) found: set CUDACXX or put nvcc on PATH";
    if (tc.data_dir.empty()) return "the grader's GPU timing sources are not in warplab's data (" + warplab::data_dir().string() + ")";
    if (gpu_name().empty()) return "no NVIDIA GPU here (`nvidia-smi -L` lists none)";
    return {};
}

GpuTiming time_on_gpu(const Toolchain& tc, const ExerciseSpec& spec, const fs::path& kernel_file)
{
    GpuTiming t;
    t.note = why_no_gpu_timing(tc);
    if (!t.note.empty()) return t;
    Toolchain gpu_tc = tc;
    gpu_tc.nvcc = find_nvcc(tc);
    const fs::path reference = tc.data_dir / "solutions" / spec.folder / "kernel.cuh";
    const GpuRun student = run_on_gpu(gpu_tc, spec, kernel_file);
    if (!student.ok) {
        t.note = student.error;
        return t;
    }
    const GpuRun ref = run_on_gpu(gpu_tc, spec, reference);
    if (!ref.ok) {
        t.note = "the reference solution could not be timed: " + ref.error;
        return t;
    }
    t.done = true;
    t.gpu = student.gpu;
    t.student_ms = student.ms;
    t.reference_ms = ref.ms;
    return t;
}

}  // namespace wl::grade
