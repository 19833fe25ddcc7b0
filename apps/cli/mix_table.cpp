// `warplab trace --mix`: the block's warp instructions by class, per step.
#include "mix_table.h"

#include <algorithm>
#include <cstdio>
#include <sstream>
#include <vector>

namespace warplab::cli {

namespace {

using wl::trace::ClassCounts;

// A column as wide as its heading or its widest number, whichever is wider.
std::size_t column_width(const char* heading, std::uint64_t widest)
{
    return std::max(std::string(heading).size(), std::to_string(widest).size());
}

void cell(std::ostringstream& out, const std::string& text, std::size_t width)
{
    out << "  " << std::string(width - std::min(width, text.size()), ' ') << text;
}

}  // namespace

std::string mix_table(const wl::trace::BlockTrace& block)
{
    if (!wl::trace::has_mix(block.mix))
        return "instruction mix: not counted in this trace (only the emulator counts instructions: --backend cpu)\n";
    const std::vector<ClassCounts> by_step = wl::trace::mix_by_step(block);
    const ClassCounts total = wl::trace::mix_total(block);
    const std::uint64_t all = wl::trace::instructions(total);
    std::vector<std::size_t> shown;  // the classes with any instruction, in the list's order
    for (std::size_t c = 0; c < wl::trace::kInstructionClasses; ++c)
        if (total[c]) shown.push_back(c);
    std::vector<std::size_t> width;
    for (std::size_t c : shown) width.push_back(column_width(wl::trace::kInstructionClassWords[c], total[c]));
    const std::size_t all_width = column_width("all", all);

    std::ostringstream out;
    out << "instruction mix of block " << block.block << ": warp instructions by class, all warps (as the GPU issues them where ptxas's code is fixed)\n";
    out << "step ";
    for (std::size_t k = 0; k < shown.size(); ++k) cell(out, wl::trace::kInstructionClassWords[shown[k]], width[k]);
    cell(out, "all", all_width);
    out << "\n";
    auto row = [&](const std::string& label, const ClassCounts& counts) {
        char head[8];
        std::snprintf(head, sizeof head, "%-5s", label.c_str());
        out << head;
        for (std::size_t k = 0; k < shown.size(); ++k) cell(out, std::to_string(counts[shown[k]]), width[k]);
        cell(out, std::to_string(wl::trace::instructions(counts)), all_width);
        out << "\n";
    };
    for (std::size_t s = 0; s < by_step.size(); ++s) row(std::to_string(s), by_step[s]);
    row("total", total);
    out << "share";
    for (std::size_t k = 0; k < shown.size(); ++k) {
        char pct[16];
        std::snprintf(pct, sizeof pct, "%.1f%%", 100.0 * double(total[shown[k]]) / double(all));
        cell(out, pct, width[k]);
    }
    cell(out, "100%", all_width);
    out << "\n";
    out << "A warp instruction counts once however many of its lanes take part (its guard false or not). Counted as "
           "ptxas compiles them: sinf's and exp2f's FMULs, one MUFU.RCP a divisor, -x and |x| inside their readers, "
           "short branches predicated; integer, move and branch counts are PTX's.\n";
    return out.str();
}

}  // namespace warplab::cli
