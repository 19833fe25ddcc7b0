// A user's .cu file as its author wrote it: plain __global__ functions and
// kernel templates, run with the template arguments the caller's launch needs.
//
//   wl::ptx::KernelFile file("reduce.cu");                  // read and scanned, not compiled yet
//   const auto& k = file.instance("reduce2", {.types = {"int"}, .values = {256}, .launch = "my launch"});
//   wl::ptx::launch(emu, *k.module, k.entry, grid, block, k.info->shared.empty() ? 0 : 256 * 4, d_in, d_out, n);
//
// A template is instantiated to fit its own parameters: a type parameter takes
// the fill's types in order, an integral value parameter (int, unsigned,
// size_t, ...) its values in order; a parameter it cannot fill (bool, a
// template template parameter) takes its default. An explicit instantiation
// in the file (`template __global__ void reduce2<int>(int*, int*, unsigned);`)
// is used where its arguments agree with the fill. nvcc's messages about an
// instantiation warplab makes name the user's lines only.
//
// Every error is a KernelFileError of one line (nvcc's messages excepted):
// the file cannot be read, is empty, declares no __global__ function, has
// only kernel templates none of which can be instantiated, names no such
// kernel (the message lists the file's kernels), or a template parameter
// cannot be filled (the message names it).
#pragma once
#include <map>
#include <memory>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "warplab/ptx/cuda_source.h"
#include "warplab/ptx/ptx.h"

namespace wl::ptx {

class KernelFileError : public std::invalid_argument {
    using std::invalid_argument::invalid_argument;
};

// What a launch gives a template's parameters, in order of each kind.
struct TemplateFill {
    std::vector<std::string> types;  // "int", "float"
    std::vector<long long> values;   // the block size, a tile size
    std::string launch;              // names the launch in messages: "reduction v3 (T = int, block 256)"
};

// What an instance printed by a compiler gives a template: its integral
// arguments as values, its bools nothing, the others as types, in order
// (template_arguments, integral_argument):
// "ns::reduce<Pair<int, float>, 256u>" gives types {"Pair<int, float>"} and values {256}.
TemplateFill fill_of(std::string_view instance, std::string launch);

// Names the parameters of m's kernels that the source declares (Module::name_parameters),
// and gives their shared arrays the dimensions it declares (Module::shape_shared).
void name_parameters(Module& m, std::string_view source);
// The same from every source file m's line table names that can still be
// read: a whole program's kernels, whose PTX comes from its fat binary, take
// the names their .cu files declare.
void name_parameters_from_sources(Module& m);

class KernelFile {
public:
    // Reads and scans the file; throws KernelFileError when it cannot be read,
    // is empty, or declares no __global__ function. `shown` is the path the
    // messages and the PTX's source sites use (empty: `path`).
    explicit KernelFile(std::string path, CompileOptions options = {}, std::string shown = "");
    ~KernelFile();
    KernelFile(const KernelFile&) = delete;
    KernelFile& operator=(const KernelFile&) = delete;

    const std::string& shown() const { return shown_; }
    const std::vector<KernelDecl>& kernels() const { return kernels_; }
    // The declaration `name` picks (bare or qualified; empty: the file's only
    // kernel). Throws KernelFileError listing the file's kernels when none or
    // several match.
    const KernelDecl& pick(std::string_view name) const;

    struct Instance {
        const Module* module = nullptr;
        std::string entry;               // as Module::find and launch take it
        const KernelInfo* info = nullptr;
        // How a template's instance came about: "reduce2<int>, the file's explicit
        // instantiation", "reduce2<int>, instantiated for <fill.launch>"; empty: not a template.
        std::string how;
        std::string warnings;  // nvcc's warnings about the compile that made it (CompiledPtx::warnings)
    };
    // The kernel `name` (see pick) as the fill instantiates it, compiled on
    // first use. Throws KernelFileError, or CompileError / ToolkitMissing /
    // ParseError from nvcc and the parser.
    const Instance& instance(std::string_view name, const TemplateFill& fill);

private:
    const Module& as_written();
    std::string path_, shown_, source_;
    CompileOptions options_;
    std::vector<KernelDecl> kernels_;
    std::unique_ptr<Module> plain_;
    std::map<std::string, std::unique_ptr<Module>> compiled_;  // per instantiation expression
    std::map<std::string, Instance> instances_;                // per kernel and fill
    std::map<const Module*, std::string> warnings_;            // nvcc's, per compiled module
};

}  // namespace wl::ptx
