// CUDA as students write it, run from the PTX that nvcc makes.
//
//   auto ptx  = wl::ptx::compile_file("my.cu");              // nvcc -ptx -lineinfo, cached by content hash
//   auto mod  = wl::ptx::Module::parse(ptx.text, ptx.origin); // parsed and pre-decoded once
//   wl::emu::Emulator emu;
//   float* d = emu.alloc<float>(n);
//   wl::ptx::launch(emu, mod, "my_kernel", dim3(blocks), dim3(256), /*dynamic shared bytes*/ 0, d, n);
//   auto records = emu.take_records();                        // the same LaneRecords as always
//
// A kernel is found by its mangled name, by its demangled name without the
// parameter list ("warplab::reduction::reduce_v1<256u, float>"), or, when it
// is the only one of that name, by its bare name ("reduce_v1").
//
// Errors: CompileError (nvcc's own messages, the user's paths), ToolkitMissing
// (no nvcc on this machine), ParseError (PTX that the parser does not read,
// with the PTX line), LaunchError (wrong arguments, unknown kernel), and
// wl::emu::KernelFault for everything that goes wrong inside the kernel,
// an instruction the interpreter does not implement included (it names the
// PTX instruction and the source file:line).
#pragma once
#include <cstdint>
#include <cstring>
#include <memory>
#include <span>
#include <stdexcept>
#include <string>
#include <string_view>
#include <type_traits>
#include <vector>

#include "warplab/emu/emulator.h"
#include "warplab/ptx/arg.h"

namespace wl::ptx {

// ------------------------------------------------------------ compiling --

class ToolkitMissing : public std::runtime_error {
    using std::runtime_error::runtime_error;
};
class CompileError : public std::runtime_error {
    using std::runtime_error::runtime_error;
};
class ParseError : public std::runtime_error {
    using std::runtime_error::runtime_error;
};

struct CompileOptions {
    std::string arch = "compute_90";             // one virtual architecture
    std::vector<std::string> include_dirs;       // -I
    std::vector<std::string> defines;            // -D (NAME or NAME=VALUE)
    std::vector<std::string> extra_flags;        // passed to nvcc as they are
    std::string cache_dir;                       // empty: $WARPLAB_PTX_CACHE, else $XDG_CACHE_HOME/warplab/ptx, else ~/.cache/warplab/ptx
    // Removed from the front of every `.file` path in the PTX (and from nvcc's
    // messages), so that paths read relative to the project; empty: none.
    std::string strip_prefix;
};

struct CompiledPtx {
    std::string text;    // the PTX
    std::string origin;  // what it was made from (the .cu path), for messages
    // nvcc's warnings, each with the source line it quotes, paths as the
    // messages show them; empty: none. A cached compile keeps them.
    std::string warnings;
};

// The first `most` of nvcc's warnings, whole, and a line saying how many
// more there are: what a front end shows. Empty for none.
std::string first_warnings(const std::string& warnings, unsigned most = 3);

// Each of nvcc's warnings by its first line, "f.cu(12): warning #177-D: ...",
// without the source line and caret under it: what a JSON document lists.
std::vector<std::string> warning_headlines(const std::string& warnings);

// The nvcc that compile_file uses: $WARPLAB_NVCC, else `nvcc` on PATH, else
// /usr/local/cuda/bin/nvcc; empty when there is none.
std::string find_nvcc();

// nvcc -ptx -lineinfo -arch=<arch> <file>. Cached by a hash of the source, every
// file it includes, the options and nvcc's version. Throws ToolkitMissing or CompileError.
CompiledPtx compile_file(const std::string& cu_path, const CompileOptions& opt = {});

// The same for source text that is not in a file (tests, the grader's wrappers);
// `name` is the file name nvcc and the messages see.
CompiledPtx compile_source(const std::string& source, const std::string& name, const CompileOptions& opt = {});

// `ptxas -arch=<arch> -v` of PTX text: its report (registers, shared memory,
// stack and spills per entry; wl::occupancy::parse_ptxas_report reads it).
// Remembered per text for the process. Throws ToolkitMissing (no ptxas beside
// nvcc) or CompileError (ptxas's messages).
std::string ptxas_report(const std::string& ptx_text, const std::string& arch = "sm_90");

// ---------------------------------------------------------------- module --

struct ParamInfo {
    std::string name;     // PTX name (_Z..._param_0)
    unsigned bytes = 0;   // size in the parameter space
    unsigned align = 0;
    bool is_pointer = false;  // a .u64/.b64 parameter that the kernel uses as an address
    std::string source_name;  // as the source declares it ("image"); empty: unknown (Module::name_parameters)
};

struct SharedInfo {
    std::string name;          // the source name where the PTX shows it ("sdata" from _ZZ...E5sdata)
    std::uint64_t bytes = 0;   // 0 for `extern __shared__` (sized by the launch)
    unsigned align = 0;
    bool dynamic = false;
};

struct KernelInfo {
    std::string mangled;       // the PTX entry name
    std::string demangled;     // "warplab::reduction::reduce_v1<256u, float>(float const*, float*, unsigned int)"
    std::vector<ParamInfo> params;
    std::vector<SharedInfo> shared;  // in declaration order: the trace's shared array ids
    std::uint64_t static_shared_bytes = 0;
    std::uint64_t local_bytes = 0;   // .local per thread
    unsigned registers = 0;          // virtual registers declared (not ptxas's count)
};

class Module {
public:
    // Parses and pre-decodes. Throws ParseError naming `origin` and the PTX line.
    static Module parse(std::string ptx_text, std::string origin = "<ptx>");
    Module(Module&&) noexcept;
    Module& operator=(Module&&) noexcept;
    ~Module();

    std::vector<KernelInfo> kernels() const;
    // nullptr when no kernel matches (see the top of this file for what matches).
    const KernelInfo* find(std::string_view name) const;
    const std::string& origin() const;
    const std::string& text() const;
    // The source files the PTX's line table names (.file, with -lineinfo), as
    // nvcc wrote them: the program's own and the headers it included.
    std::vector<std::string> source_files() const;
    // The host memory of a __device__ or __constant__ variable (what
    // cudaMemcpyToSymbol writes), by PTX or demangled name; empty when none.
    std::span<unsigned char> symbol(std::string_view name) const;
    // Gives the parameters of every kernel whose qualified name (without
    // template arguments, "ns::reduce2") is `kernel` the names the source
    // declares, so that faults say `image[1025]`; a kernel whose parameter
    // count differs keeps none. (wl::ptx::name_parameters reads them from a .cu.)
    void name_parameters(std::string_view kernel, const std::vector<std::string>& names);
    // Gives the static shared array `name` of the kernel whose PTX entry is
    // `mangled` the dimensions its source declares ({8, 8} of `float Mds[8][8]`,
    // elements of `elem_bytes`), so that faults say `Mds[1][0]` where PTX alone
    // gives `Mds[8]`; kept only where they fill exactly the bytes PTX declares,
    // and for two to four dimensions. (wl::ptx::name_parameters reads them from a .cu.)
    void shape_shared(std::string_view mangled, std::string_view name, const std::vector<std::uint64_t>& extents,
                      unsigned elem_bytes);

    struct Impl;
    const Impl& impl() const { return *impl_; }

private:
    explicit Module(std::unique_ptr<Impl>);
    std::unique_ptr<Impl> impl_;
};

// -------------------------------------------------------------- launching --

// wl::ptx::Arg: one kernel argument as raw bytes (arg.h).

// Runs the kernel on the emulator with emu.options (schedule, watched blocks,
// seed); the watched blocks' records are appended to the emulator's records.
// Throws wl::emu::LaunchError for an unknown kernel or arguments that do not
// fit its parameters, wl::emu::KernelFault when the kernel faults.
void launch_args(emu::Emulator& emu, const Module& m, std::string_view kernel, dim3 grid, dim3 block,
                 std::uint32_t dynamic_shared_bytes, std::span<const Arg> args);

// The engine that runs unwatched blocks when emu.options.engine asks for the
// fast one: Fast where this build and host can compile kernels, else Interpret.
emu::Engine engine_for(emu::Engine requested);
// Launches of this process whose unwatched blocks the fast engine ran.
std::uint64_t compiled_launches();
// Launches of this process that asked for the fast engine and whose kernel it
// leaves to the interpreter by its rule (a kernel past the length it compiles);
// a kernel it failed to compile counts in neither.
std::uint64_t declined_launches();

template <class... A>
void launch(emu::Emulator& emu, const Module& m, std::string_view kernel, dim3 grid, dim3 block,
            std::uint32_t dynamic_shared_bytes, const A&... args)
{
    const Arg list[] = {Arg(args)..., Arg(0)};  // the extra element keeps the array non-empty
    launch_args(emu, m, kernel, grid, block, dynamic_shared_bytes, std::span<const Arg>(list, sizeof...(A)));
}

}  // namespace wl::ptx
