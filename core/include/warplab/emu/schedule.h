// How the emulator interleaves the lanes of a warp: the one schedule type of
// every front end, with its one spelling ("independent", "lockstep").
#pragma once
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace wl::emu {

enum class Schedule {
    Independent,  // each lane runs to its next synchronisation, lanes in a shuffled order (Volta and later)
    Lockstep,     // the lanes of a warp interleave at every traced access (pre-Volta)
};

const char* to_string(Schedule s);
// The schedule to_string names; nullopt for any other text.
std::optional<Schedule> parse_schedule(std::string_view name);
// Every schedule's name, for a command line's list of choices.
std::vector<std::string> schedule_names();

}  // namespace wl::emu
