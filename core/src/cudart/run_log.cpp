// The launch records and trace documents of `warplab run` (run_log.h).
#include "run_log.h"

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <stdexcept>

#include "warplab/ptx/declared_arrays.h"
#include "warplab/ptx/cuda_source.h"
#include "warplab/trace/block_analysis.h"
#include "warplab/trace/json.h"

namespace wl::cudart {

std::string kernel_name(const ptx::KernelInfo& info) { return std::string(ptx::without_parameters(info.demangled)); }

std::optional<InjectedFailure> injected_failure()
{
    const char* text = std::getenv(kFailVariable);
    if (!text) return std::nullopt;
    try {
        return parse_injected_failure(text);
    } catch (const std::invalid_argument& e) {
        std::fprintf(stderr, "warplab: %s=%s: %s; no call fails\n", kFailVariable, text, e.what());
        return std::nullopt;
    }
}

std::string injected_failure_text(const InjectedFailure& f, const std::string& call)
{
    const bool launch = f.call == InjectedFailure::Call::Launch;
    return call + " fails on purpose (--fail " + (launch ? "launch:" : "alloc:") + std::to_string(f.nth) + "), as " +
           (launch ? "a faulting kernel's launch does: it and every later CUDA call return cudaErrorLaunchFailure"
                   : "an allocation past the GPU's memory does: it returns cudaErrorMemoryAllocation");
}

RunLog::RunLog()
{
    if (const char* d = std::getenv(kRunDirVariable)) dir_ = d;
    if (const char* e = std::getenv(kEngineVariable)) engine_ = emu::parse_engine(e).value_or(emu::Engine::Interpret);
    if (const char* w = std::getenv(kWatchVariable)) {
        try {
            watch_ = parse_watch(w);
        } catch (const std::invalid_argument& e) {
            std::fprintf(stderr, "warplab: %s=%s: %s; watching the first launch of each kernel\n", kWatchVariable, w, e.what());
        }
    }
}

std::optional<std::uint32_t> RunLog::watched(std::string_view name, std::string_view mangled, unsigned launch) const
{
    if (dir_.empty()) return std::nullopt;
    if (watch_.empty()) return launch == 1 ? std::optional<std::uint32_t>(0) : std::nullopt;
    for (const WatchSpec& s : watch_)
        if (s.launch == launch && names_kernel(s.kernel, name, mangled)) return s.block;
    return std::nullopt;
}

void RunLog::append(const LaunchRecord& r) const
{
    if (dir_.empty()) return;
    std::ofstream out(dir_ + "/" + kLaunchesFile, std::ios::app);
    out << to_json(r).dump() << "\n";
}

void RunLog::append(const ResultRead& r) const
{
    if (dir_.empty()) return;
    std::ofstream out(dir_ + "/" + kResultsReadFile, std::ios::app);
    out << to_json(r).dump() << "\n";
}

void RunLog::write_trace(const LaunchRecord& r, const std::string& source, const std::vector<trace::LaneRecord>& records,
                         unsigned warp_width) const
{
    // Shared arrays in the types the source declares, given before their values are replayed (a
    // template's T stays as traced: which type a program's instance took is the demangled name's business).
    const trace::BlockAnalysis a = trace::analyze_block(
        records, r.watched_block, r.block[0] * r.block[1] * r.block[2], nullptr, warp_width, false, [&](trace::BlockTrace& block) {
            ptx::declare_array_types(block, ptx::read_cuda_files(source), ptx::instance_name(r.kernel), "");
        });
    nlohmann::json doc = trace::trace_document_header();
    doc.update({{"kernel", r.kernel},
                {"launch", r.index},
                {"source", source},
                {"grid", {r.grid[0], r.grid[1], r.grid[2]}},
                {"block", {r.block[0], r.block[1], r.block[2]}},
                {"watched_block", r.watched_block},
                {"blocks", nlohmann::json::array({trace::block_to_json(a.block, a.steps, a.shared_after)})},
                {"totals", trace::totals_to_json(a.totals)}});
    if (r.on_gpu) doc["backend"] = "gpu";
    std::ofstream(dir_ + "/" + r.trace) << doc.dump() << "\n";
}

}  // namespace wl::cudart
