// A child process with a wall-clock limit: the grader runs the checks (and
// GPU timing builds) this way, so that no student program can hang or crash it.
#pragma once
#include <string>
#include <vector>

namespace wl::grade {

struct ProcessResult {
    bool started = false;      // false: the program could not be run (see err)
    bool timed_out = false;    // killed by us at the limit
    int exit_code = -1;        // when it exited by itself
    int signal = 0;            // when a signal ended it (other than our kill)
    std::string out, err;      // the last bytes of stdout and stderr
    double seconds = 0;
};

// Runs argv[0] (looked up in PATH) in its own process group, in `cwd`, and
// kills the group after `limit_s` seconds. Keeps the last `keep` bytes of each stream.
ProcessResult run_process(const std::vector<std::string>& argv, double limit_s, const std::string& cwd,
                          std::size_t keep = 64 * 1024);

// "exit code 3", "signal 11 (Segmentation fault)", "time limit (10 s) exceeded"
std::string describe_end(const ProcessResult& r, double limit_s);

}  // namespace wl::grade
