// `warplab grade [ID...] [--dir exercises|solutions|PATH] [--backend auto|cpu|gpu]
//                [--gradescope results.json] [--junit FILE] [--time-limit S]`
// Registered by main.cpp where the grader is built (WARPLAB_HAVE_GRADER).
#pragma once
#include <CLI/CLI.hpp>
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
};

}  // namespace warplab::cli
