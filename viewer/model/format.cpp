#include "viewer/model/format.h"

#include <cmath>
#include <cstdarg>
#include <cstdio>

#include "viewer/model/step_model.h"
#include "warplab/trace/analysis.h"

namespace warplab::viewer {

std::string printf_string(const char* fmt, ...)
{
    char buf[512];
    va_list args;
    va_start(args, fmt);
    std::vsnprintf(buf, sizeof buf, fmt, args);
    va_end(args);
    return buf;
}

std::string compact_number(double v, int digits)
{
    const double a = std::fabs(v);
    if (v == std::floor(v) && a < 10000) return printf_string("%.0f", v);
    if (v != std::floor(v) && a < 1000) return printf_string("%.*g", digits, v);
    if (a < 1e6) return printf_string("%.*fk", a < 1e5 ? 1 : 0, v / 1e3);
    if (a < 1e9) return printf_string("%.*fM", a < 1e8 ? 1 : 0, v / 1e6);
    return printf_string("%.2g", v);
}

std::string fitting_number(double v, const std::function<bool(const std::string&)>& fits)
{
    for (int digits = 3; digits >= 1; --digits)
        if (std::string text = compact_number(v, digits); fits(text)) return text;
    if (std::fabs(v) >= 1) return {};  // not a fraction: no leading zero to drop
    const auto without_zero = [](std::string text) {
        const std::size_t sign = text[0] == '-' ? 1 : 0;
        if (text.compare(sign, 2, "0.") == 0) text.erase(sign, 1);
        return text;
    };
    for (int digits = 2; digits >= 1; --digits)
        if (std::string text = without_zero(compact_number(v, digits)); fits(text)) return text;
    if (std::string text = without_zero(printf_string("%.1f", v)); fits(text)) return text;
    return {};
}

unsigned type_size(const std::string& type)
{
    if (type == "double" || type == "long") return 8;
    if (type == "half" || type == "short") return 2;
    return 4;
}

std::string access_value_text(const std::array<std::uint64_t, 2>& value, unsigned size, const std::string& type)
{
    const unsigned elem = type_size(type);
    if (size <= elem || size > 16) return compact_number(value_as(value, size, type));
    std::string out = "(";
    for (unsigned i = 0; i < size / elem; ++i) {
        const unsigned byte = i * elem;
        const std::uint64_t word = value[byte / 8] >> (8 * (byte % 8));
        out += (i ? ", " : "") + compact_number(value_as(word, elem, type));
    }
    return out + ")";
}

std::string ways_text(double ways)
{
    if (ways <= 0) return "-";
    return ways == std::floor(ways) ? printf_string("%.0f-way", ways) : printf_string("%.1f-way", ways);
}

std::string shared_cell(const wl::trace::SharedStats& a, const wl::trace::SharedStats& b)
{
    if (!a.requests && !b.requests) return "-";
    return printf_string("%u/%u", a.wavefronts + b.wavefronts, a.ideal + b.ideal);
}

std::string sectors_cell(const wl::trace::GlobalStats& a, const wl::trace::GlobalStats& b)
{
    const unsigned requests = a.requests + b.requests;
    if (!requests) return "-";
    return printf_string("%.1f (%.1f)", double(a.sectors + b.sectors) / requests, double(a.ideal + b.ideal) / requests);
}

std::string requests_cell(const wl::trace::GlobalStats& load, const wl::trace::GlobalStats& store)
{
    if (!load.requests && !store.requests) return "-";
    return printf_string("%u/%u", load.requests, store.requests);
}

std::string a_ways_text(double ways)
{
    const std::string w = ways_text(ways);
    const bool vowel = w[0] == '8' || w.rfind("11-", 0) == 0 || w.rfind("18-", 0) == 0 || w.rfind("11.", 0) == 0 || w.rfind("18.", 0) == 0;
    return (vowel ? "an " : "a ") + w;
}

std::string lanes_text(const std::vector<unsigned>& lanes)
{
    if (lanes.empty()) return "-";
    const unsigned stride = lanes.size() > 1 ? lanes[1] - lanes[0] : 1;
    bool even = stride > 1 && lanes.size() > 3;
    for (std::size_t i = 1; i < lanes.size() && even; ++i) even = lanes[i] - lanes[i - 1] == stride;
    if (even) return printf_string("%u, %u, ..., %u", lanes[0], lanes[1], lanes.back());
    std::string out;
    for (std::size_t i = 0; i < lanes.size();) {
        std::size_t j = i;
        while (j + 1 < lanes.size() && lanes[j + 1] == lanes[j] + 1) ++j;
        out += (out.empty() ? "" : ", ") + (j == i ? std::to_string(lanes[i]) : printf_string("%u-%u", lanes[i], lanes[j]));
        i = j + 1;
    }
    return out;
}

std::string ms_text(double ms)
{
    return printf_string(ms >= 1 ? "%.3f ms" : "%.4f ms", ms);
}

std::string lines_text(const std::vector<std::uint32_t>& lines, std::size_t at_most)
{
    if (lines.empty()) return "-";
    std::string s;
    for (std::size_t i = 0; i < lines.size() && i < at_most; ++i) s += (i ? ", " : "") + std::to_string(lines[i]);
    return lines.size() > at_most ? s + ", ..." : s;
}

}  // namespace warplab::viewer
