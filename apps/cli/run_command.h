// `warplab run prog.cu [more.cu ...] [-I DIR] [-D NAME[=V]] [-std=c++NN]
//               [--watch kernel[:n][@block],...] [--json DIR] [-- ARGS]`
// Builds a whole CUDA program with nvcc against warplab's CUDA runtime
// (core/src/cudart/; cached by content), runs it with its arguments (its
// output and exit code pass through; every launch runs on the emulator), then
// prints the table of its launches and, for each watched launch (default: block
// 0 of each kernel's first launch), the per-step table `warplab trace` prints.
// --json DIR writes each watched launch's trace and a manifest of the launches.
// The program is built and run as warplab/cudart/program_run.h says, which
// the viewer's --run shares; it hands its launches back through files:
// no kernel runs in this process. Registered by the CLI (apps/cli/main.cpp).
#pragma once
#include <CLI/CLI.hpp>

namespace warplab::cli {

class RunCommand {
public:
    explicit RunCommand(CLI::App& app);
    RunCommand(const RunCommand&) = delete;
    RunCommand& operator=(const RunCommand&) = delete;

    bool chosen() const { return sub_->parsed(); }
    // The program's exit code; throws std::invalid_argument on bad input and
    // std::runtime_error when the program does not build.
    int run() const;

private:
    CLI::App* sub_;
};

}  // namespace warplab::cli
