#include "gpu_faults.h"

#include "host_access.h"

namespace wl::cudart::gpu {
namespace {

std::string dims(const unsigned (&d)[3])
{
    std::string out = "(";  // appended, not "(" + ...: GCC 12 warns (-Wrestrict) on that chain
    out += std::to_string(d[0]) + "," + std::to_string(d[1]) + "," + std::to_string(d[2]) + ")";
    return out;
}

// "launch 3: kernel scale, grid (4,1,1), block (256,1,1), launched at prog.cu:42"
std::string describe(const LaunchSite& s, const std::string& line)
{
    const LaunchRecord& r = s.record;
    return "launch " + std::to_string(r.index) + ": kernel " + r.kernel + ", grid " + dims(r.grid) + ", block " + dims(r.block) +
           (line.empty() ? "" : ", launched at " + line);
}

}  // namespace

std::string LaunchFaults::blame(const std::string& error)
{
    if (said_ || pending_.empty()) return "";
    said_ = true;
    std::string out = "warplab: the GPU reported " + error + " after ";
    if (pending_.size() == 1) {
        out += describe(pending_.front(), line_of_(pending_.front()));
    } else {
        out += "one of launches " + std::to_string(pending_.front().record.index) + " to " +
               std::to_string(pending_.back().record.index) + ", which ran without a wait between them:";
        for (const LaunchSite& s : pending_) out += "\n  " + describe(s, line_of_(s));
    }
    return out + "\nwarplab run without --backend gpu runs the same launches on the emulator, which names the block, thread and line";
}

std::vector<unsigned> LaunchFaults::pending() const
{
    std::vector<unsigned> out;
    for (const LaunchSite& s : pending_) out.push_back(s.record.index);
    return out;
}

}  // namespace wl::cudart::gpu
