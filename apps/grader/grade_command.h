// `warplab grade [ID...] [--dir exercises|solutions|PATH] [--backend auto|cpu|gpu]
//                [--gradescope results.json] [--junit FILE] [--time-limit S] [--seed S] [--warp-size 32|64]`
// The grader runs each exercise's checks as `warplab grade ID --run-checks PTX ...`
// (hidden options), a child process with a time limit.
// Registered by the CLI (apps/cli/main.cpp).
#pragma once
#include <CLI/CLI.hpp>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace warplab::cli {

class GradeCommand {
public:
    explicit GradeCommand(CLI::App& app);
    GradeCommand(const GradeCommand&) = delete;
    GradeCommand& operator=(const GradeCommand&) = delete;

    bool chosen() const { return sub_->parsed(); }
    // Exit code: 0 every check passed, 1 some failed; throws std::invalid_argument on bad input.
    int run() const;

private:
    CLI::App* sub_;
    std::vector<std::string> ids_;
    std::string dir_ = "exercises", backend_ = "auto", gradescope_, junit_;
    std::optional<double> time_limit_;
    std::optional<std::uint64_t> seed_;
    unsigned warp_size_ = 32;  // --warp-size: the emulator's lanes a warp (64: AMD's wavefront)
    std::string run_checks_, kernel_file_, result_;  // the child process's side
    int run_child() const;
};

}  // namespace warplab::cli
