// The launches Nsight Compute measures for the fidelity check
// (scripts/ncu_fidelity.py): every version of a lab, once, on the GPU, as
// nvcc compiled it (no instrumentation), at the block size `warplab bench`
// uses. Prints one line per version, "version kernel block", in launch order.
//
//   warplab_ncu_target reduction --n 4194304 --type int
//   warplab_ncu_target matmul --size 256
#include <cstdlib>
#include <exception>
#include <iostream>
#include <string>

#include "labs/common/lab.h"

int main(int argc, char** argv)
{
    if (argc < 2) {
        std::cerr << "usage: warplab_ncu_target <lab> [--n N] [--size S] [--type int|float]\n";
        return 2;
    }
    warplab::RunRequest base;
    const warplab::Lab* lab = warplab::find_lab(argv[1]);
    if (!lab) {
        std::cerr << "unknown lab " << argv[1] << "\n";
        return 2;
    }
    base.n = lab->default_n;
    base.type = lab->types.front();  // the lab's first element type unless --type names another
    for (int i = 2; i + 1 < argc; i += 2) {
        const std::string opt = argv[i], value = argv[i + 1];
        if (opt == "--n") base.n = std::stoull(value);
        else if (opt == "--size") base.shape = {std::stoull(value)};
        else if (opt == "--type") base.type = value;
        else {
            std::cerr << "unknown option " << opt << "\n";
            return 2;
        }
    }
    const warplab::GpuStatus gpu = warplab::gpu_status();
    if (!gpu.available) {
        std::cerr << "no GPU: " << gpu.reason << "\n";
        return 77;
    }
    try {
        for (const warplab::Version& v : lab->versions) {
            if (v.variant) continue;
            warplab::RunRequest req = base;
            req.version = v.id;
            req.block = v.bench_block;
            req.backend = warplab::BackendChoice::Gpu;
            req.record = false;
            const warplab::RunResult r = lab->run(req);
            std::cout << v.id << " " << v.kernel << " " << v.bench_block << (r.ok ? "" : " WRONG") << "\n";
        }
    } catch (const std::exception& e) {
        std::cerr << "error: " << e.what() << "\n";
        return 1;
    }
    return 0;
}
