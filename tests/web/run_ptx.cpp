// run_ptx FILE.ptx KERNEL N: launches KERNEL(int* out, int n) from a PTX file on
// the emulator, 32-thread blocks over 64 threads, and prints out[0..63] on one
// line (-1 where the kernel wrote nothing). On failure: one line on stderr and
// exit 1. Built natively (tests/web) and by emscripten (web/, run under node),
// so that the same kernel can be run by both builds.
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <vector>

#include "warplab/ptx/ptx.h"

int main(int argc, char** argv)
{
    if (argc != 4) {
        std::fprintf(stderr, "usage: run_ptx FILE.ptx KERNEL N\n");
        return 2;
    }
    try {
        std::ifstream in(argv[1]);
        if (!in) throw std::runtime_error(std::string("cannot read ") + argv[1]);
        std::stringstream text;
        text << in.rdbuf();
        const wl::ptx::Module module = wl::ptx::Module::parse(text.str(), argv[1]);
        constexpr int kThreads = 64;
        const int n = std::atoi(argv[3]);
        wl::emu::Emulator emu;
        int* out = emu.alloc<int>(kThreads);
        const std::vector<int> unwritten(kThreads, -1);
        emu.copy_to_device(out, unwritten.data(), kThreads);
        wl::ptx::launch(emu, module, argv[2], dim3(kThreads / 32), dim3(32), 0, out, n);
        std::vector<int> host(kThreads);
        emu.copy_to_host(host.data(), out, kThreads);
        for (int v : host) std::printf("%d ", v);
        std::printf("\n");
    } catch (const std::exception& e) {
        std::fprintf(stderr, "run_ptx: error: %s\n", e.what());
        return 1;
    }
    return 0;
}
