// The memory-bound labs' yardsticks as runs (labs/common/gpu.cu): the one
// copy kernel and the read-only probe, each on its own buffers, so that a
// bench can time them in turns with its rows (warplab/cuda/timing.h).
#pragma once
#include <cuda_runtime.h>

#include <cstddef>
#include <functional>
#include <vector>

#include "warplab/cuda/timing.h"

namespace warplab {

// A 128-bit grid-stride copy of `bytes` bytes.
class CopyProbe {
public:
    explicit CopyProbe(std::size_t bytes);
    ~CopyProbe();
    CopyProbe(const CopyProbe&) = delete;
    CopyProbe& operator=(const CopyProbe&) = delete;
    std::function<void()> run() const;
    // GB/s from the run's timing, counting bytes read plus written.
    double gbps(const wl::cuda::Timing& t) const;

private:
    int4* in_ = nullptr;
    int4* out_ = nullptr;
    std::size_t count_ = 0;
    unsigned blocks_ = 0;
};

// A read of `bytes` bytes that writes nothing: what the memory system
// delivers to a kernel that only reads (a reduction's ceiling). Two runs:
// 128-bit grid-stride loads and, on sm_90 and later, reduction v10's ring of
// bulk copies without its adds.
class ReadProbe {
public:
    explicit ReadProbe(std::size_t bytes);
    ~ReadProbe();
    ReadProbe(const ReadProbe&) = delete;
    ReadProbe& operator=(const ReadProbe&) = delete;
    std::vector<std::function<void()>> runs() const;
    // GB/s read by the faster run, from the timings of runs() in its order.
    double gbps(const std::vector<wl::cuda::Timing>& t) const;

private:
    int4* in_ = nullptr;
    int* never_written_ = nullptr;
    std::size_t count_ = 0;
    unsigned load_blocks_ = 0;
    unsigned pieces_ = 0, bulk_blocks_ = 0;  // 0: no bulk-copy run
};

}  // namespace warplab
