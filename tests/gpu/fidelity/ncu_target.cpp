// The launches Nsight Compute measures for the fidelity check
// (scripts/ncu_fidelity.py): every version of a lab, once, on the GPU, as
// nvcc compiled it (no instrumentation), at the block size `warplab bench`
// uses. Prints one line per version, "version kernel block", in launch order.
// With --version, that version only; with --file, the user's kernel launched
// as that version (its name from --kernel).
//
//   warplab_ncu_target reduction --n 4194304 --type int
//   warplab_ncu_target matmul --size 256
//   warplab_ncu_target image --size 1024,512 --block 16x16
//   warplab_ncu_target coalescing --n 4325376 --setting 1
//   warplab_ncu_target reduction --n 4325376 --version v3 --file tree_sum.cu --kernel tree_sum
#include <cstdlib>
#include <exception>
#include <iostream>
#include <stdexcept>
#include <string>
#include <vector>

#include "labs/common/lab.h"
#include "labs/common/problem_args.h"

int main(int argc, char** argv)
{
    if (argc < 2) {
        std::cerr << "usage: warplab_ncu_target <lab> [--n N] [--size S|A,B[,C]] [--type int|float] [--block B|WxH] "
                     "[--setting N] [--version V] [--file F.cu --kernel NAME]\n";
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
    std::vector<unsigned> block;  // --block, for every version; empty: each version's bench block
    std::string only;             // --version
    try {
        for (int i = 2; i < argc; i += 2) {
            const std::string opt = argv[i];
            if (i + 1 >= argc) throw std::invalid_argument(opt + " needs a value");
            const std::string value = argv[i + 1];
            if (opt == "--n") base.n = std::stoull(value);
            else if (opt == "--size") base.shape = warplab::parse_problem_size(value);
            else if (opt == "--type") base.type = value;
            else if (opt == "--block") block = warplab::parse_block(value);
            else if (opt == "--setting") base.setting = std::stoi(value);
            else if (opt == "--version") only = value;
            else if (opt == "--file") base.file = value;
            else if (opt == "--kernel") base.kernel = value;
            else throw std::invalid_argument("unknown option " + opt);
        }
        if (!base.file.empty() && (only.empty() || base.kernel.empty()))
            throw std::invalid_argument("--file needs --version (the launch it takes) and --kernel (its name)");
    } catch (const std::exception& e) {
        std::cerr << e.what() << "\n";
        return 2;
    }
    const warplab::GpuStatus gpu = warplab::gpu_status();
    if (!gpu.available) {
        std::cerr << "no GPU: " << gpu.reason << "\n";
        return 77;
    }
    if (!only.empty() && !warplab::find_version(*lab, only)) {
        std::cerr << lab->id << " has no version " << only << "\n";
        return 2;
    }
    try {
        for (const warplab::Version& v : lab->versions) {
            if (v.variant || (!only.empty() && v.id != only)) continue;
            warplab::RunRequest req = base;
            req.version = v.id;
            req.block = block.empty() ? v.bench_block : block.size() == 1 ? block[0] : block[0] * block[1];
            if (block.size() == 2) req.block_dim = block;
            req.backend = warplab::BackendChoice::Gpu;
            req.record = false;
            const warplab::RunResult r = lab->run(req);
            std::cout << v.id << " " << (req.file.empty() ? v.kernel : req.kernel) << " " << req.block
                      << (r.ok ? "" : " WRONG") << "\n";
        }
    } catch (const std::exception& e) {
        std::cerr << "error: " << e.what() << "\n";
        return 1;
    }
    return 0;
}
