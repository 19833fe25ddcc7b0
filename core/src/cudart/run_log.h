// What a program run by `warplab run` writes for the CLI (warplab/cudart/run_record.h),
// shared by the runtime on the emulator (device.cpp) and the one on the GPU
// (gpu_device.cpp): which launch is watched, the launch records, and the
// watched block's trace document, each made one way for both.
#pragma once
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "warplab/cudart/run_record.h"
#include "warplab/ptx/ptx.h"
#include "warplab/trace/record.h"

namespace wl::cudart {

// The kernel's name as the launch table and --watch give it: demangled, without parameters.
std::string kernel_name(const ptx::KernelInfo& info);

// The failure $WARPLAB_RUN_FAIL asks for (warplab run --fail), if any; a value
// that does not read is said on stderr and ignored.
std::optional<InjectedFailure> injected_failure();

// The stderr line and launch error of an injected failure: what failed, and why.
std::string injected_failure_text(const InjectedFailure& f, const std::string& call);

class RunLog {
public:
    RunLog();  // from $WARPLAB_RUN_DIR and $WARPLAB_RUN_WATCH; without the first, nothing is written

    // The block to trace of a kernel's `launch`-th launch (from 1), if that launch is
    // watched: by default block 0 of each kernel's first launch.
    std::optional<std::uint32_t> watched(std::string_view name, std::string_view mangled, unsigned launch) const;
    // What runs the blocks nobody watches (warplab run --engine).
    emu::Engine engine() const { return engine_; }
    void append(const LaunchRecord& r) const;
    void append(const ResultRead& r) const;
    // The trace document of r's watched block (r.trace names its file): the block's
    // steps from its lane records, as `warplab trace` writes a lab's.
    void write_trace(const LaunchRecord& r, const std::string& source, const std::vector<trace::LaneRecord>& records,
                     unsigned warp_width) const;

private:
    std::string dir_;
    std::vector<WatchSpec> watch_;
    emu::Engine engine_ = emu::Engine::Interpret;
};

}  // namespace wl::cudart
