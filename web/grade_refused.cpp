// `warplab grade` in the browser build: grading compiles each exercise with
// nvcc, which a browser does not have, so the command says so in one line.
#include <stdexcept>

#include "apps/grader/grade_command.h"

namespace warplab::cli {

GradeCommand::GradeCommand(CLI::App& app)
    : sub_(app.add_subcommand("grade", "grade the exercises (not in the browser build: it compiles them with nvcc)"))
{
    sub_->allow_extras();
}

int GradeCommand::run() const
{
    throw std::invalid_argument("grade compiles each exercise with nvcc, which the browser build does not have: use the desktop build");
}

}  // namespace warplab::cli
