#include "labs/common/lab.h"

#include <unistd.h>

#include <stdexcept>

#include "labs/coalescing/lab.h"
#include "labs/matmul/lab.h"
#include "labs/reduction/lab.h"
#include "labs/transfers/lab.h"
#include "labs/transpose/lab.h"

namespace warplab {

const std::vector<Lab>& all_labs()
{
    static const std::vector<Lab> labs = {reduction::make_lab(), matmul::make_lab(), coalescing::make_lab(), transpose::make_lab(),
                                          transfers::make_lab()};
    return labs;
}

std::size_t available_host_bytes()
{
    return static_cast<std::size_t>(sysconf(_SC_AVPHYS_PAGES)) * static_cast<std::size_t>(sysconf(_SC_PAGESIZE));
}

const Lab* find_lab(std::string_view id)
{
    for (const Lab& lab : all_labs())
        if (lab.id == id) return &lab;
    return nullptr;
}

const Version* find_version(const Lab& lab, std::string_view id)
{
    for (const Version& v : lab.versions)
        if (id == v.id || id == v.name) return &v;
    return nullptr;
}

bool runs_on_gpu(const RunRequest& req)
{
    return req.backend == BackendChoice::Gpu || (req.backend == BackendChoice::Auto && gpu_status().available);
}

void refuse_emulating_gpu_only(const VersionMeta& meta, const RunRequest& req)
{
    if (!meta.gpu_only || runs_on_gpu(req)) return;
    const GpuStatus gpu = gpu_status();
    throw std::invalid_argument(std::string(meta.id) + " runs only on a GPU: " + meta.gpu_only +
                                (gpu.available ? "; leave out --backend cpu" : "; this machine has none (" + gpu.reason + ")"));
}

}  // namespace warplab
