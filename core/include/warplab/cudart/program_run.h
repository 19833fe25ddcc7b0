// A whole program's run, as every front end makes it: `warplab run` prints it
// (apps/cli/run_command.cpp), `warplab-viewer --run` shows it. The arguments
// read one way for both; the program, built by build_program, runs in a
// process of its own with a directory for its records (run_record.h), and
// what it handed back is read into memory before the directory goes.
#pragma once
#include <map>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "warplab/cudart/program.h"
#include "warplab/cudart/run_record.h"

namespace wl::cudart {

// What a front end's run of a program takes after its own name ("run", "--run").
inline constexpr const char* kRunArgumentsUsage =
    "prog.cu [more.cu ...] [-I DIR] [-D NAME[=V]] [-std=c++NN] [--watch kernel[:n][@block]] [--json DIR] [--backend cpu|gpu|auto] [--fail launch:N|alloc:N] [--engine interpret|fast] [-- ARGS]";

struct RunArguments {
    ProgramOptions program;                 // the files, -I, -D, -std (gpu: the front end decides, from backend)
    std::string watch;                      // --watch, comma-separated (parse_watch); empty: the runtime's default
    std::string json_dir;                   // --json DIR
    std::string backend = "cpu";            // cpu (the emulator, where the host-side checks are), gpu or auto
    std::string fail;                       // --fail (parse_injected_failure): a call that fails on purpose; the emulator only
    std::string engine = "interpret";       // --engine: what runs the blocks nobody watches (wl::emu::Engine)
    std::vector<std::string> program_args;  // after "--"
};

// Reads kRunArgumentsUsage's form ("-I DIR" or "-IDIR", "--watch X" or
// "--watch=X"). Throws std::invalid_argument with one line naming the problem
// (an unknown option, no source file, one that cannot be read, a bad -std or
// --watch or backend), before nvcc runs.
RunArguments parse_run_arguments(const std::vector<std::string>& args);

// Where the program's stdout and stderr go: this process's (the CLI), or
// files read back into ProgramRun (a window has no terminal to show them on).
enum class ProgramOutput { PassThrough, Captured };

struct ProgramRun {
    int exit_code = 0;                          // 128 + the signal where one stopped it
    std::string stopped_by;                     // "signal 11 (Segmentation fault)"; empty when it exited
    std::string output, errors;                 // its stdout and stderr, when Captured
    std::vector<LaunchRecord> launches;         // in the program's order
    std::vector<ResultRead> results_read;       // the device's results read by the host (the emulator's runtime)
    std::map<unsigned, nlohmann::json> traces;  // each watched launch's trace document, by LaunchRecord::index
};

// Runs a program that build_program made with the arguments' watch and
// program arguments (argv[0] is its first source's name). Throws
// std::runtime_error when it cannot start or a trace is missing or does not
// read, std::invalid_argument when a launch record does not (read_launches).
ProgramRun run_built_program(const std::string& executable, const RunArguments& arguments, ProgramOutput output);

}  // namespace wl::cudart
