// The transfers lab described to the registry as host programs
// (labs/common/make_lab.h's make_host_program_lab): its versions, what a
// request must be, and its GPU entry points; nothing to trace.
#pragma once
#include <stdexcept>
#include <string>

#include "labs/transfers/lab.h"
#include "labs/transfers/timeline.h"
#include "labs/transfers/versions.h"

namespace warplab::transfers {

struct Description {
    using Versions = transfers::Versions;
    static constexpr const KernelFiles& kernels = kKernels;

    template <class V> static void validate(const RunRequest& req)
    {
        if (req.type != "float") throw std::invalid_argument("the transfers lab moves floats: --type " + req.type + " is not offered");
        if (req.n == 0) throw std::invalid_argument("n must be at least 1");
    }
    static RunResult run_on_gpu(const RunRequest& req) { return transfers::run_on_gpu(req); }
    static BenchTable bench_on_gpu(const BenchOptions& options) { return transfers::bench_on_gpu(options); }
};

// `warplab bench transfers --timeline`: each row's bytes per link, lower bound and one run's timeline.
inline Lab::BenchDetail timeline_detail()
{
    return {"timeline", "also print each row's bytes per link, lower bound and timeline",
            [](const BenchTable& t, bool markdown) { return markdown ? timeline_markdown(t) : timeline_text(t); }};
}

}  // namespace warplab::transfers
