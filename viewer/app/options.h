// The viewer's command line.
//   warplab-viewer [--lab L] [--version V] [--step S] [--n N] [--shape S|M,N,K] [--block B|WxH] [--type T] [--schedule S] [--backend B]
//                  [--warp-size 32|64] [--compare-widths] [--compare-versions] [--compare V] [--without-barrier LINE]
//                  [--size WxH] [--presenter] [--screenshot FILE [--layout-json FILE]] [--tour DIR]
//                  [--banks [--banks-preset NAME]]
//                  [--file F.cu [--kernel K] [--shared-bytes B]] [--<the lab's input> VALUE]
//                  [--lesson FILE|NAME [--slide N]]
//                  [--launch N] [--lab L --compare V] --run prog.cu [more.cu ...] [-I DIR] [-D NAME[=V]] [-std=c++NN] [--watch SPEC] [-- ARGS]
#pragma once
#include <cstdint>
#include <map>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "warplab/cudart/program_run.h"

namespace warplab::viewer {

struct App;

struct Options {
    std::string lab, version, type;
    std::optional<long> step;
    std::vector<unsigned> block;       // --block B or WxH; empty: the version's
    std::optional<std::size_t> n;      // --n: elements; unset: the version's trace default
    std::vector<std::size_t> shape;    // --shape: the problem's dimensions, as warplab trace's --size
    std::string schedule = "independent", backend = "auto";
    unsigned warp_size = 32;      // lanes a warp: 32, or 64 (an emulated AMD wavefront)
    bool compare_widths = false;  // the threads panel at 32 and 64 side by side
    bool compare_versions = false;  // the step table beside the previous version's (App::compare_versions)
    std::string compare;            // ... beside this version's instead (App::compared_with); with --run, a version of --lab
    std::uint32_t without_barrier = 0;  // a line of the version's file whose barriers are off (Selection::without_barrier)
    int width = 0, height = 0;  // 0: 1600x900 in a window, 1920x1080 headless
    bool presenter = false;
    bool banks = false;        // open on the bank playground
    std::string banks_preset;  // ... with this preset
    std::string screenshot, layout_json, tour;
    std::string file, kernel;  // the user's own kernel, shown as one more version, launched as --version's
    std::optional<std::uint32_t> shared_bytes;  // its dynamic shared memory per block (default: the lab's textbook's)
    std::map<std::string, std::string> inputs;  // --<name> VALUE: the labs' own inputs (Lab::inputs, App::inputs); empty: not given
    std::uint64_t max_instructions = 0;  // emulator: instructions a thread may run; 0: the emulator's default
    std::string lesson;                  // a lesson to play (viewer/model/lesson.h): a file, or a shipped lesson's name
    std::size_t slide = 1;               // ... from this slide, counted from 1
    // --run: a whole program, built and run as `warplab run` runs it (the rest
    // of the command line is its files, compiler options, --watch and -- ARGS).
    std::optional<wl::cudart::RunArguments> run;
    std::optional<unsigned> launch;      // ... the launch to show first (its number in the launch table); unset: the first watched
    bool headless() const { return !screenshot.empty() || !tour.empty(); }
};

// Bad arguments: one line naming the problem.
class UsageError : public std::runtime_error {
    using std::runtime_error::runtime_error;
};

// Returns nullopt after printing --help.
std::optional<Options> parse_options(int argc, char** argv);

// Selects the lab, version, settings and step; runs the first trace. Throws
// UsageError for an unknown lab or version, or a step the trace does not have.
void apply_options(App& app, const Options& options);

}  // namespace warplab::viewer
