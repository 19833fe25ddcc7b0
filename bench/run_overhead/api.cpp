// The C++ API half of the runtime's overhead bench (run_overhead.sh): the same
// launches of scale.cu's kernel, from the PTX nvcc makes of it, made through
// wl::ptx::launch on an emulator with nothing recorded, as the runtime makes
// an unwatched launch.
//   warplab_run_overhead_api scale.ptx N LAUNCHES
#include <sys/resource.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <sstream>

#include "warplab/emu/emulator.h"
#include "warplab/ptx/ptx.h"

// The process's processor time (every thread's, user and system) in ms: on a
// loaded machine it varies less than the wall clock.
double cpu_ms()
{
    rusage u{};
    getrusage(RUSAGE_SELF, &u);
    return (u.ru_utime.tv_sec + u.ru_stime.tv_sec) * 1e3 + (u.ru_utime.tv_usec + u.ru_stime.tv_usec) / 1e3;
}

int main(int argc, char** argv)
{
    if (argc != 4) {
        std::fprintf(stderr, "usage: %s scale.ptx N LAUNCHES\n", argv[0]);
        return 2;
    }
    std::ifstream in(argv[1]);
    std::stringstream text;
    text << in.rdbuf();
    const int n = std::atoi(argv[2]), launches = std::atoi(argv[3]);
    const wl::ptx::Module module = wl::ptx::Module::parse(text.str(), "scale.cu");
    wl::emu::Emulator emu;
    emu.options.record = false;
    float* x = emu.alloc<float>(n);
    for (int i = 0; i < n; ++i) x[i] = 1.0f;
    const double cpu_start = cpu_ms();
    const auto start = std::chrono::steady_clock::now();
    for (int k = 0; k < launches; ++k)
        wl::ptx::launch(emu, module, "scale", dim3((n + 255) / 256), dim3(256), 0, x, 0.5f, n);
    const double ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
    const double cpu = cpu_ms() - cpu_start;
    std::printf("C++ API: %d launches over %d floats in %.1f ms, %.1f ms of processor time (x[0] = %.6f)\n", launches, n, ms, cpu, x[0]);
    return 0;
}
