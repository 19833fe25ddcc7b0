// A whole program in the viewer (--run prog.cu ...): built and run as
// `warplab run` does it (warplab/cudart/program_run.h), its launches listed
// where a lab lists its versions, and each watched launch shown as one
// version of a lab of its own, stepped through like a lab's trace from the
// trace the program's run recorded. The settings a lab's trace takes (size,
// block, schedule, warp width) are the program's own: a launch is shown as
// the program made it.
#pragma once
#include <deque>
#include <memory>
#include <string>
#include <vector>

#include "labs/common/lab.h"
#include "viewer/app/app.h"
#include "warplab/cudart/program_run.h"

namespace warplab::viewer {

struct ProgramLab {
    std::vector<std::string> sources;  // as given
    // Why there is nothing to show: nvcc's messages when it did not build, or
    // why it could not run; empty when it ran (whatever its exit code).
    std::string failure;
    wl::cudart::ProgramRun run;     // its exit code, output and launches
    std::string warnings;           // nvcc's first warnings about its files, with their lines (first_warnings); empty: none
    std::vector<unsigned> shown;    // the launch (LaunchRecord::index) each version shows, in order
    std::deque<std::string> texts;  // what the versions' text fields point into
    Lab lab;
};

// Builds and runs the program (nvcc's build is cached by content) and makes
// its lab. A program that does not build or cannot run gives a lab whose one
// version carries the message: never a throw.
std::shared_ptr<const ProgramLab> run_program(const wl::cudart::RunArguments& arguments);
// Shows a program's lab in place of the labs, its first watched launch
// selected; the labs' traces are kept (a lesson goes back to them).
void show_program(App& app, std::shared_ptr<const ProgramLab> program);
// The labs again, as they were selected before, the program's traces dropped.
void close_program(App& app);
// Both: what --run does.
void open_program(App& app, const wl::cudart::RunArguments& arguments);

// The version that shows launch `index` of the program, if that launch was watched.
std::optional<std::size_t> version_of_launch(const ProgramLab& program, unsigned index);

// The status line of a program: which launch, its kernel and shape, the
// program's exit code; or, in one line, why it did not build or run, or the
// launch's fault.
std::string program_status(const App& app);
// Why a program did not build or run, in one line (nvcc's first error); empty when it ran.
std::string failure_line(const ProgramLab& program);
// Whether the status line says something went wrong (a failure, a fault, a non-zero exit).
bool program_failed(const App& app);

// "reduce_pass" of "ns::reduce_pass<256u>": the name its definition in the file has.
std::string bare_kernel_name(std::string name);

// "(196,1,1)"
std::string dims_text(const unsigned (&dims)[3]);

// The launches panel that takes the versions panel's place (viewer/panels/panel_launches.cpp).
void launches_panel(App& app);

}  // namespace warplab::viewer
