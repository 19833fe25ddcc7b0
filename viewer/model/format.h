// Numbers and values as the panels print them.
#pragma once
#include <array>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

namespace wl::trace {
struct SharedStats;
struct GlobalStats;
}  // namespace wl::trace

namespace warplab::viewer {

// At most five characters: 7, 1234, 12.3k, 4.5M; fractions with `digits`
// significant digits (0.123; 0.12 with 2, where a cell has room for four characters).
std::string compact_number(double v, int digits = 3);

// A cell's number with the most digits that `fits`: compact_number's three
// significant digits, then fewer, then a fraction without its leading zero
// (.05), then one decimal place (.0 for 0.04, as its neighbours' .1 and .2
// are rounded); empty where not even that fits.
std::string fitting_number(double v, const std::function<bool(const std::string&)>& fits);

// One access's value bytes as the lab's element type; a vector access
// (16 bytes of int) prints its elements: (1, 2, 3, 4).
std::string access_value_text(const std::array<std::uint64_t, 2>& value, unsigned size, const std::string& type);

unsigned type_size(const std::string& type);  // int, float: 4; double: 8; half: 2

std::string ways_text(double ways);     // "2-way", "-" for none
std::string a_ways_text(double ways);   // "a 2-way", "an 8-way", "an 11-way"
// Lanes as runs and strides: "0-31", "0, 2, ..., 30", "3", "0-3, 8-11".
std::string lanes_text(const std::vector<unsigned>& lanes);
std::string ms_text(double ms);         // "0.0513 ms", "2.598 ms"
std::string lines_text(const std::vector<std::uint32_t>& lines, std::size_t at_most = 4);  // "33", "42, 43, 44", "41, 57, 72, 73, ...", "-"
// A step's (or a block's) cells as the tables print them, loads and stores
// together; "-" where there was no such access.
std::string shared_cell(const wl::trace::SharedStats& load, const wl::trace::SharedStats& store);  // wavefronts/ideal: "24/12"
std::string sectors_cell(const wl::trace::GlobalStats& load, const wl::trace::GlobalStats& store);  // per request: "4.0 (4.0)"
std::string requests_cell(const wl::trace::GlobalStats& load, const wl::trace::GlobalStats& store);  // loads/stores: "8/0"
std::string printf_string(const char* fmt, ...) __attribute__((format(printf, 1, 2)));

}  // namespace warplab::viewer
