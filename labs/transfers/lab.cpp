#include "labs/transfers/lab.h"

#include <stdexcept>

#include "labs/transfers/timeline.h"
#include "labs/transfers/versions.h"

namespace warplab::transfers {

namespace {

RunResult run(const RunRequest& req)
{
    const VersionMeta* meta = nullptr;
    if (!with_version<Versions>(req.version, [&](auto v) { meta = &decltype(v)::meta; }))
        throw std::invalid_argument("unknown transfers version '" + req.version + "'");
    refuse_emulating_gpu_only(*meta, req);
    if (req.type != "float") throw std::invalid_argument("the transfers lab moves floats: --type " + req.type + " is not offered");
    if (req.n == 0) throw std::invalid_argument("n must be at least 1");
    return run_on_gpu(req);
}

}  // namespace

Lab make_lab()
{
    Lab lab{"transfers", "Host transfers and two GPUs", version_list<Versions>(kKernels), 1u << 20,
            256, {"float"}, run, {kBenchElements}, bench_on_gpu};
    lab.host_programs = true;
    lab.panel = "timeline";
    lab.bench_detail = {"timeline", "also print each row's bytes per link, lower bound and timeline",
                        [](const BenchTable& t, bool markdown) { return markdown ? timeline_markdown(t) : timeline_text(t); }};
    return lab;
}

}  // namespace warplab::transfers
