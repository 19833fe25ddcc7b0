// `warplab occupancy <lab> [version] [--gpu h100|a100|rtx4090|g80|all] [--block N] [--registers R] [--smem BYTES] [--type T]`
// Each version's registers and shared memory (ptxas's report of the lab's
// PTX) at the block size `warplab bench` times it at, and what that leaves
// resident on one SM: blocks, warps, occupancy and the resource that bounds
// it. --block, --registers and --smem ask "what if"; --file adds the user's
// kernel's row, from its own ptxas report, in the version's launch. Registered by the CLI
// (apps/cli/main.cpp).
#pragma once
#include <CLI/CLI.hpp>
#include <optional>
#include <string>

namespace warplab::cli {

class OccupancyCommand {
public:
    explicit OccupancyCommand(CLI::App& app);
    OccupancyCommand(const OccupancyCommand&) = delete;
    OccupancyCommand& operator=(const OccupancyCommand&) = delete;

    bool chosen() const { return sub_->parsed(); }
    // Exit code 0; throws std::invalid_argument on bad input.
    int run() const;

private:
    CLI::App* sub_;
    std::string lab_, version_, gpu_ = "h100", type_, file_, kernel_;
    std::optional<unsigned> block_, registers_, smem_;
};

}  // namespace warplab::cli
