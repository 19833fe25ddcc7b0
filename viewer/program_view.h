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
#include "viewer/app.h"
#include "warplab/cudart/program_run.h"

namespace warplab::viewer {

struct ProgramLab {
    std::vector<std::string> sources;  // as given
    // Why there is nothing to show: nvcc's messages when it did not build, or
    // why it could not run; empty when it ran (whatever its exit code).
    std::string failure;
    wl::cudart::ProgramRun run;     // its exit code, output and launches
    std::vector<unsigned> shown;    // the launch (LaunchRecord::index) each version shows, in order
    std::deque<std::string> texts;  // what the versions' text fields point into
    Lab lab;
};

// Builds and runs the program (nvcc's build is cached by content), makes its
// lab and selects its first watched launch. A program that does not build or
// cannot run gives a lab whose one version carries the message: never a throw.
void open_program(App& app, const wl::cudart::RunArguments& arguments);

// The version that shows launch `index` of the program, if that launch was watched.
std::optional<std::size_t> version_of_launch(const ProgramLab& program, unsigned index);

// The status line of a program: which launch, its kernel and shape, the
// program's exit code; or, in one line, why it did not build or run, or the
// launch's fault.
std::string program_status(const App& app);
// Whether the status line says something went wrong (a failure, a fault, a non-zero exit).
bool program_failed(const App& app);

// "(196,1,1)"
std::string dims_text(const unsigned (&dims)[3]);

// The launches panel that takes the versions panel's place (viewer/panel_launches.cpp).
void launches_panel(App& app);

}  // namespace warplab::viewer
