// `warplab banks [--preset NAME] [--size BYTES] [--stride S] [--offset O] [--lanes N | --mask HEX]`
// The bank-conflict playground: one warp's load T x = shared[offset + stride * lane],
// as a lane -> bank table, a picture of the 32 banks, and its wavefronts, ideal and n-way.
// Options given beside a preset change that field of the preset.
// Registered by the CLI (apps/cli/main.cpp).
#pragma once
#include <CLI/CLI.hpp>
#include <cstdint>
#include <optional>
#include <string>

namespace warplab::cli {

class BanksCommand {
public:
    explicit BanksCommand(CLI::App& app);
    BanksCommand(const BanksCommand&) = delete;
    BanksCommand& operator=(const BanksCommand&) = delete;

    bool chosen() const { return sub_->parsed(); }
    // Exit code 0; throws std::invalid_argument naming the problem on bad input.
    int run() const;

private:
    CLI::App* sub_;
    std::string preset_, mask_;
    std::optional<long long> size_, stride_, offset_, lanes_;  // signed, so that -1 is named as given
    bool list_ = false;
};

}  // namespace warplab::cli
