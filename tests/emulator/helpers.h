// Helpers shared by the emulator tests: the reduction lab, device buffers,
// fault expectations and the source lines of marked faulty accesses.
#pragma once
#include <gtest/gtest.h>

#include <fstream>
#include <ostream>
#include <optional>
#include <string>
#include <vector>

#include "labs/common/lab.h"
#include "labs/common/traced_run.h"
#include "labs/reduction/lab.h"
#include "tests/fault_of.h"
#include "warplab/emu/emulator.h"

namespace warplab::test {

using wl::emu::Emulator;
using wl::emu::KernelFault;
using wl::emu::Schedule;

// ---- the reduction lab, as every front end finds it ----

inline const Lab& reduction_lab()
{
    const Lab* lab = find_lab("reduction");
    if (!lab) throw std::logic_error("the registry has no reduction lab");
    return *lab;
}

inline const char* schedule_name(Schedule s) { return wl::emu::to_string(s); }

constexpr Schedule kSchedules[] = {Schedule::Independent, Schedule::Lockstep};

// Names parameterised tests after their schedule: ".../independent", ".../lockstep".
struct ScheduleParamName {
    template <class P> std::string operator()(const ::testing::TestParamInfo<P>& info) const
    {
        return schedule_name(info.param);
    }
};

// A request that runs on the emulator whatever the machine has (Auto would pick a GPU).
inline RunRequest emulator_request(const std::string& version, std::size_t n, unsigned block, const std::string& type,
                                   Schedule schedule, std::uint64_t seed = 1)
{
    RunRequest req;
    req.version = version;
    req.n = n;
    req.block = block;
    req.type = type;
    req.backend = BackendChoice::Cpu;
    req.schedule = schedule;
    req.seed = seed;
    return req;
}

// ---- device buffers ----

template <class T> T* to_device(Emulator& emu, const std::vector<T>& host)
{
    T* d = emu.alloc<T>(host.size());
    emu.copy_to_device(d, host.data(), host.size());
    return d;
}

template <class T> std::vector<T> to_host(Emulator& emu, const T* device, std::size_t count)
{
    std::vector<T> host(count);
    emu.copy_to_host(host.data(), device, count);
    return host;
}

// Emulator memory starts poisoned (0xCD bytes): counters must start at zero.
template <class T> T* zeros(Emulator& emu, std::size_t count) { return to_device(emu, std::vector<T>(count, T{})); }

// ---- faults ----

inline std::string base_name(const std::string& path) { return path.substr(path.find_last_of('/') + 1); }

inline bool contains(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

// The 1-based line of the only line of `path` that contains `marker`; 0 (and a
// test failure) if there is none or more than one.
inline unsigned marker_line(const std::string& path, const std::string& marker)
{
    std::ifstream in(path);
    if (!in) {
        ADD_FAILURE() << "cannot read " << path;
        return 0;
    }
    unsigned found = 0, count = 0, number = 0;
    for (std::string line; std::getline(in, line);) {
        ++number;
        if (contains(line, marker)) {
            found = number;
            ++count;
        }
    }
    if (count != 1) ADD_FAILURE() << "marker '" << marker << "' appears " << count << " times in " << path;
    return count == 1 ? found : 0;
}

// What a fault report must say. `thread` empty: any thread (the schedule picks it).
struct ExpectedFault {
    std::string kernel;
    uint3 block;
    std::optional<uint3> thread;
    std::string file;  // the source holding the marker
    std::string marker;
    std::vector<std::string> phrases;  // parts of "what happened"
};

inline std::string triple(const char* what, const uint3& v)
{
    return std::string(what) + " (" + std::to_string(v.x) + "," + std::to_string(v.y) + "," + std::to_string(v.z) + ")";
}

inline void expect_report(const KernelFault& f, const ExpectedFault& e)
{
    const std::string message = f.what();
    const unsigned line = marker_line(e.file, e.marker);
    SCOPED_TRACE("fault message: " + message);
    EXPECT_EQ(f.fault.kernel, e.kernel);
    EXPECT_TRUE(contains(message, "kernel " + e.kernel + ","));
    EXPECT_TRUE(contains(message, triple("block", e.block)));
    if (e.thread) {
        EXPECT_TRUE(contains(message, triple("thread", *e.thread)));
    }
    EXPECT_EQ(base_name(f.fault.file), base_name(e.file));
    EXPECT_EQ(f.fault.line, line) << "the faulty line carries the marker " << e.marker;
    EXPECT_TRUE(contains(message, base_name(e.file) + ":" + std::to_string(line)));
    for (const std::string& phrase : e.phrases) EXPECT_TRUE(contains(message, phrase)) << "missing: " << phrase;
}

}  // namespace warplab::test

// Readable parameters in test listings ("# GetParam() = lockstep"); found by ADL.
namespace wl::emu {
inline void PrintTo(Schedule s, std::ostream* os) { *os << to_string(s); }
}  // namespace wl::emu
