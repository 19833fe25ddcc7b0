// Transfers v4: zero-copy: the kernel reads and writes mapped pinned host
// memory directly (NVIDIA, "Optimizing CUDA": zero copy).
//
// Idea: with cudaHostAlloc(..., cudaHostAllocMapped) host memory has a device
//   address (cudaHostGetDevicePointer); a kernel's loads and stores to it go
//   over PCIe themselves. No copy engine, no device buffers: each element
//   crosses the link once each way, while the kernel runs.
// Changed from v3: no copies and no streams: one launch over the mapped
//   r.x_host_on_gpu and r.y_host_on_gpu.
// Expected effect: about v3's time when the data is read once (the slides:
//   "a win when data is read/written once"); far worse for a kernel that read
//   it twice, since each read crosses PCIe again.
// Preconditions: r.x_host_on_gpu and r.y_host_on_gpu are the device addresses
//   of mapped pinned buffers of n floats.
#pragma once
#include "kernels/transfers/scale_add.cuh"

namespace warplab::transfers {

template <class Run> void transfers_zero_copy(Run& r)
{
    const cudaStream_t s = r.gpu(0).stream[0];
    r.mark(0, s, "compute", 2 * r.n * sizeof(float), [&] { return launch_scale_add(r.x_host_on_gpu, r.y_host_on_gpu, r.n, s); });
}

}  // namespace warplab::transfers
