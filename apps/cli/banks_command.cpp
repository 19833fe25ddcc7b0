// `warplab banks`: the bank-conflict playground on the command line. The
// numbers come from wl::trace::bank_playground, the labs' own analysis of one
// synthesized load; this file only reads the options and prints.
#include "banks_command.h"

#include <bit>
#include <cstdio>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "warplab/trace/bank_playground.h"

namespace warplab::cli {
namespace {

using wl::trace::BankPattern;
using wl::trace::BankPlayground;
using wl::trace::kBanks;
using wl::trace::kPlaygroundLanes;

constexpr unsigned kCellWidth = 4;      // " 31+" : a lane number and a mark for a shared word
constexpr unsigned kTableColumns = 4;   // the lane table: 4 columns of 8 lanes

std::string preset_names()
{
    std::string names;
    for (const auto& p : wl::trace::bank_presets()) names += (names.empty() ? "" : ", ") + std::string(p.name);
    return names;
}

std::uint32_t parse_mask(const std::string& text)
{
    std::size_t used = 0;
    unsigned long long value = 0;
    try {
        value = std::stoull(text, &used, 16);
    } catch (const std::logic_error&) {
        used = 0;
    }
    if (used != text.size() || text.empty() || text[0] == '-' || value > 0xFFFFFFFFull)
        throw std::invalid_argument("--mask " + text + ": expected a 32-bit hexadecimal lane mask, e.g. 0xFFFF");
    return std::uint32_t(value);
}

std::string ways_text(double ways)
{
    char text[32];
    std::snprintf(text, sizeof text, "%.3g-way", ways);
    return text;
}

std::string lanes_range(unsigned first, unsigned count) { return std::to_string(first) + "-" + std::to_string(first + count - 1); }

void print_pattern(const BankPattern& p, const std::string& preset)
{
    if (!preset.empty()) std::printf("preset %s: %s\n", preset.c_str(), wl::trace::find_bank_preset(preset)->description);
    const auto active = unsigned(std::popcount(p.mask));
    std::printf("%u lane%s read %u-byte elements: x = shared[%llu + %llu * lane] (lane mask 0x%08X)\n\n", active,
                active == 1 ? "" : "s", p.size, static_cast<unsigned long long>(p.offset),
                static_cast<unsigned long long>(p.stride), p.mask);
}

// lane  byte  word  bank, four columns of eight lanes.
void print_lane_table(const BankPlayground& g)
{
    const unsigned rows = kPlaygroundLanes / kTableColumns;
    for (unsigned c = 0; c < kTableColumns; ++c) std::printf("%s lane   byte  word  bank ", c ? "|" : "");
    std::printf("\n");
    for (unsigned r = 0; r < rows; ++r) {
        for (unsigned c = 0; c < kTableColumns; ++c) {
            const unsigned lane = c * rows + r;
            const auto& l = g.lanes[lane];
            std::printf("%s %4u ", c ? "|" : "", lane);
            if (!l.active) {
                std::printf("%18s ", "(idle)");
                continue;
            }
            const std::string banks = l.last_word == l.first_word ? std::to_string(l.bank())
                                                                  : std::to_string(l.bank()) + "-" + std::to_string(l.last_bank());
            std::printf("%6llu %5llu %5s ", static_cast<unsigned long long>(l.address),
                        static_cast<unsigned long long>(l.first_word), banks.c_str());
        }
        std::printf("\n");
    }
    std::printf("\n");
}

std::string cell_text(const std::vector<unsigned>& lanes)
{
    if (lanes.empty()) return ".";
    return std::to_string(lanes.front()) + (lanes.size() > 1 ? "+" : "");
}

// Rows of 32 words, one column per bank; a cell names the lowest lane reading the word.
void print_bank_grid(const BankPlayground& g)
{
    std::printf("the 32 banks: one row per 32 words (the row's first word on the left); a cell is the lane\n"
                "reading that word, + when more lanes share it; ways: distinct words the bank delivers to one phase\n");
    std::printf("%6s |", "bank");
    for (unsigned b = 0; b < kBanks; ++b) std::printf("%*u", kCellWidth, b);
    std::printf("\n");
    std::optional<std::uint64_t> previous_row;
    for (const auto& [word, lanes] : g.detail.lanes_by_word) {
        const std::uint64_t row = word / kBanks;
        if (previous_row == row) continue;
        if (previous_row && row != *previous_row + 1) std::printf("%6s |\n", "...");
        previous_row = row;
        std::printf("%6llu |", static_cast<unsigned long long>(row * kBanks));
        for (unsigned b = 0; b < kBanks; ++b) {
            const auto it = g.detail.lanes_by_word.find(row * kBanks + b);
            std::printf("%*s", kCellWidth, it == g.detail.lanes_by_word.end() ? "." : cell_text(it->second).c_str());
        }
        std::printf("\n");
    }
    std::printf("%6s |", "ways");
    for (unsigned b = 0; b < kBanks; ++b)
        std::printf("%*s", kCellWidth, g.detail.ways[b] ? std::to_string(g.detail.ways[b]).c_str() : ".");
    std::printf("\n\n");
}

// For 8- and 16-byte elements: what each phase costs, from the same model over its lanes.
void print_phases(const BankPlayground& g)
{
    if (g.phase_lanes == kPlaygroundLanes) return;
    const bool packed = g.phase_lanes * g.pattern.size > 128;  // more than a wavefront's 128 bytes of registers
    std::printf("%u-byte elements are served a %s (%u lanes) at a time%s; wavefronts per phase:", g.pattern.size,
                g.phase_lanes == kPlaygroundLanes / 2 ? "half-warp" : "quarter-warp", g.phase_lanes,
                packed ? " (lanes agree in pairs: two share a register slot)" : "");
    for (unsigned first = 0; first < kPlaygroundLanes; first += g.phase_lanes) {
        const wl::trace::LaneMask lanes = g.event.mask & (wl::trace::first_lanes_mask(g.phase_lanes) << first);
        const auto cost = wl::trace::shared_bank_cost(lanes, g.event.offset, g.event.size);
        std::printf("%s lanes %s: %u", first ? "," : "", lanes_range(first, g.phase_lanes).c_str(), cost.wavefronts);
    }
    std::printf("\n");
}

void print_summary(const BankPlayground& g)
{
    const auto& load = g.load;
    std::printf("wavefronts %u, ideal %u: %s, ", load.wavefronts, load.ideal, ways_text(load.worst_ways).c_str());
    if (load.wavefronts > load.ideal)
        std::printf("a bank conflict (%u wavefront%s more than ideal)\n", load.wavefronts - load.ideal,
                    load.wavefronts - load.ideal == 1 ? "" : "s");
    else
        std::printf("no bank conflict\n");
}

// A count option as given; negative values are named as typed, not wrapped around.
std::uint64_t not_negative(const char* option, long long value)
{
    if (value < 0) throw std::invalid_argument(std::string(option) + " " + std::to_string(value) + " is negative");
    return std::uint64_t(value);
}

int list_presets()
{
    for (const auto& p : wl::trace::bank_presets()) std::printf("%-14s %s\n", p.name, p.description);
    return 0;
}

}  // namespace

BanksCommand::BanksCommand(CLI::App& app)
{
    sub_ = app.add_subcommand("banks", "the bank-conflict playground: one warp's shared load x = shared[offset + stride * lane]");
    sub_->add_option("--preset", preset_, "start from a named pattern (--list-presets shows them)");
    sub_->add_option("--size", size_, "bytes per element: 1, 2, 4, 8 or 16 (default 4)");
    sub_->add_option("--stride", stride_, "elements from one lane to the next (default 1; 0: all lanes read one element)");
    sub_->add_option("--offset", offset_, "elements before lane 0's (default 0)");
    sub_->add_option("--lanes", lanes_, "active lanes: the first N of the warp, 1 to 32 (default 32)");
    sub_->add_option("--mask", mask_, "active lanes as a 32-bit hexadecimal mask, e.g. 0x55555555");
    sub_->add_flag("--list-presets", list_, "list the presets and their answers");
}

int BanksCommand::run() const
{
    if (list_) return list_presets();
    BankPattern p;
    if (!preset_.empty()) {
        const wl::trace::BankPreset* preset = wl::trace::find_bank_preset(preset_);
        if (!preset) throw std::invalid_argument("unknown preset '" + preset_ + "' (presets: " + preset_names() + ")");
        p = preset->pattern;
    }
    if (lanes_ && !mask_.empty()) throw std::invalid_argument("use --lanes or --mask, not both");
    if (lanes_ && (*lanes_ < 1 || *lanes_ > kPlaygroundLanes))
        throw std::invalid_argument("--lanes " + std::to_string(*lanes_) + " is out of range: from 1 to 32");
    if (size_) {
        if (const auto problem = wl::trace::element_size_problem(not_negative("--size", *size_)))
            throw std::invalid_argument(*problem);
        p.size = unsigned(*size_);
    }
    if (stride_) p.stride = not_negative("--stride", *stride_);
    if (offset_) p.offset = not_negative("--offset", *offset_);
    if (lanes_) p.mask = wl::trace::first_lanes(unsigned(*lanes_));
    if (!mask_.empty()) p.mask = parse_mask(mask_);
    const BankPlayground g = wl::trace::bank_playground(p);  // throws invalid_argument naming a bad pattern
    print_pattern(p, preset_);
    print_lane_table(g);
    print_bank_grid(g);
    print_phases(g);
    print_summary(g);
    return 0;
}

}  // namespace warplab::cli
