// The front ends' options that the labs declare (Lab::Input, Lab::shape_form,
// Lab::block_form): their help made from the registry and their values checked,
// one way for the CLI and the viewer, so that a new lab changes neither.
#pragma once
#include <functional>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "labs/common/lab.h"

namespace warplab {

// "matmul: S or M,N,K; transpose: S or ROWS,COLS": each lab's id and what `of` says of it,
// for the labs it says something of, in the registry's order.
std::string per_lab(const std::function<std::string(const Lab&)>& of);

// The labs' shapes and blocks as a command line writes them (Lab::shape_form,
// Lab::block_form), for --size's and --block's help: "matmul: S for S×S×S, or M,N,K; ...".
std::string shape_forms();
std::string block_forms();

// "transfers", "a and b": the labs `which` holds for, by id, as a refusal
// names them ("--timeline: ... (the transfers lab does)"); empty: none.
std::string labs_where(const std::function<bool(const Lab&)>& which);

// "" where `text` is a count (a whole number from 1: --n, --max-instructions, a line); else the one
// line that says it is no `what` ("'-5' is no number of elements (1, 2, ...)").
std::string count_problem(const std::string& text, const std::string& what);
// That check as a CLI11 validator (Validator = CLI::Validator, where the front end includes CLI11).
template <class Validator> Validator count_of(const std::string& what)
{
    return Validator([what](std::string& text) { return count_problem(text, what); }, "");
}

// An input by its name, with the labs that declare it (Lab::inputs), in the registry's order.
struct DeclaredInput {
    std::string name, value_name;
    std::vector<std::pair<const Lab*, const Lab::Input*>> declarers;
};
std::vector<DeclaredInput> declared_inputs();

// Its help, each declaring lab's: "<lab> lab: <its trace_help or bench_help>".
std::string input_help(const DeclaredInput& input, bool bench);

// --<name> VALUE on a CLI11 command for each declared input; its value lands
// in values[name] (empty: not given).
template <class Command> void add_input_options(Command& command, std::map<std::string, std::string>& values, bool bench)
{
    for (const DeclaredInput& input : declared_inputs())
        command.add_option("--" + input.name, values[input.name], input_help(input, bench))->type_name(input.value_name);
}

// The values given (not empty), as a request carries them.
std::map<std::string, std::string> given_inputs(const std::map<std::string, std::string>& values);

// Those of `given` that `lab` declares: what a front end that keeps inputs
// across labs (the viewer) gives each of that lab's requests.
std::map<std::string, std::string> own_inputs(const Lab& lab, const std::map<std::string, std::string>& given);

// Refuses, in one sentence (std::invalid_argument), an input `lab` does not
// declare ("--<name> is the <lab> lab's input, not the reduction lab's"), then
// has the lab check each of its own (`shape`: the problem's, asked for; empty: none).
void check_inputs(const Lab& lab, const std::map<std::string, std::string>& given, const std::vector<std::size_t>& shape);

}  // namespace warplab
