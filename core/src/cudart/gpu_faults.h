// Which launch a GPU error follows from, for `warplab run --backend gpu`. A
// kernel that faults on the GPU (an illegal address, a trap) is reported by
// NVIDIA's runtime at a later call, as a sticky error of the context, with no
// word of the launch; the runtime here waits for each launch the program
// makes and, when the GPU reports an error, names the launches it ran since
// it last finished without one. No CUDA here (gpu_device.h says why).
#pragma once
#include <array>
#include <functional>
#include <string>
#include <vector>

#include "host_access.h"  // CallSite, launch_line
#include "warplab/cudart/run_record.h"

namespace wl::cudart::gpu {

// A launch, and where the program made it: the return addresses of the
// calls that led to it, resolved to a host line only when it is named.
struct LaunchSite {
    LaunchRecord record;  // index, kernel, grid, block
    CallSite site;
    std::string kernel_symbol;  // mangled, as the program's host wrapper of the kernel is named
};

class LaunchFaults {
public:
    using LineOf = std::function<std::string(const LaunchSite&)>;
    explicit LaunchFaults(LineOf line_of) : line_of_(std::move(line_of)) {}
    // A launch the GPU was given: pending until it says it finished.
    void launched(LaunchSite site) { pending_.push_back(std::move(site)); }
    // The GPU finished every launch so far without an error.
    void finished() { pending_.clear(); }
    // The GPU reported `error` (its name and text): the paragraph naming the
    // pending launches it follows from (one, when the runtime waited for each),
    // said once; "" when it was said already or nothing is pending.
    std::string blame(const std::string& error);
    // The pending launches' indices, oldest first.
    std::vector<unsigned> pending() const;

private:
    LineOf line_of_;
    std::vector<LaunchSite> pending_;
    bool said_ = false;
};

}  // namespace wl::cudart::gpu
