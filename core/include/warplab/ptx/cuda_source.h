// CUDA source read as declarations: the one reading of a .cu file's text, as
// core/src/ptx/statements.* is for PTX. It gives the kernels (names,
// parameters with their types, template parameters), the `__shared__` and
// `__constant__` variables (element types, dimensions, `extern`), and the
// lines they are on. Comments, string literals and preprocessor lines are
// skipped; macros are not expanded (a kernel a macro declares is not seen,
// and a size written with a macro stays its name: "TILE + 1").
//
//   const wl::ptx::CudaSource s = wl::ptx::read_cuda_source(text);
//   for (const wl::ptx::VariableDecl& v : s.variables) ...  // "float tile[32][33]" at line 7
//
// It is a scan of the text, not a compiler: where PTX is at hand, what PTX
// says (sizes in bytes, which arrays a kernel uses) is the truth, and this
// only names what PTX keeps no name for (types as written, parameter names).
#pragma once
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace wl::ptx {

struct TemplateParam {
    enum class Kind { Type, Integral, Other };  // Other: bool, enum, template template, pack
    Kind kind = Kind::Other;
    std::string text;           // as written: "unsigned int blockSize"
    std::string name;           // "blockSize"
    std::string default_value;  // after '=', empty: none
};

// One function parameter of a kernel.
struct Parameter {
    std::string type;  // as written, its name left out: "const float* __restrict__", "float[4][2]"
    std::string name;  // "" where it has none
    // What a pointer parameter points to, qualifiers left out: "float" of
    // "const float* __restrict__"; empty where it is no pointer.
    std::string pointee() const;
};

struct KernelDecl {
    std::string name;                   // qualified by its namespaces: "ns::reduce2"
    std::vector<TemplateParam> params;  // a template's parameters
    bool is_template = false;
    unsigned line = 0;                  // the line of its `__global__`
    std::vector<Parameter> parameters;  // the function parameters as declared
    // "reduce2<class T>", "reduce0": how messages list it.
    std::string signature() const;
    std::vector<std::string> parameter_names() const;
};

// A `__shared__` or `__constant__` variable, one per name of a declaration
// (`__shared__ float a[8], b[8];` gives two).
struct VariableDecl {
    enum class Space { Shared, Constant };
    Space space = Space::Shared;
    bool is_extern = false;           // `extern __shared__ T s[]`: its size is the launch's
    std::string type;                 // the element type, qualifiers and alignment left out: "unsigned long long", "T"
    bool type_is_parameter = false;   // the type is a type parameter of the template around it (T)
    std::string name;
    std::vector<std::string> dims;    // each bound as written: {"32", "33"}, {"TILE + 1"}; {""} for `[]`; {} for a scalar
    unsigned line = 0;                // the line of its name
    std::string kernel;               // the kernel whose body declares it ("" at file scope or in another function)
};

struct CudaSource {
    std::vector<KernelDecl> kernels;      // in order, each name once (a specialisation or instantiation is not a kernel)
    std::vector<VariableDecl> variables;  // in order
    bool mentions_global = false;         // `__global__` occurs anywhere outside comments and strings, a macro included
    std::vector<std::string> includes;    // the paths of its `#include "..."` lines, as written
    std::string file;                     // its file's base name, where read_cuda_files read it
};

CudaSource read_cuda_source(std::string_view text);

// The template arguments of an instance's name as a compiler prints it
// (ptxas, the demangler, a lab's entry), each trimmed, split at the commas
// outside nested brackets: {"Pair<int, float>", "256u"} of
// "ns::k<Pair<int, float>, 256u>(int*)"; {} for a name without them.
std::vector<std::string> template_arguments(std::string_view instance);

// The name of a printed instance without its template arguments and
// parameters: "ns::k" of "ns::k<int, 256u>(int const*, int*)".
std::string_view instance_name(std::string_view instance);

// A printed instance without its parameters, its template arguments kept: "sort<(Order)0, int>" of
// "sort<(Order)0, int>(int*, int)" (an enum's value is printed as a cast, whose '(' is not the list's).
std::string_view without_parameters(std::string_view instance);

// Whether the kernel `qualified` ("ns::reduce2") is the one a user names as
// `name`, bare ("reduce2") or qualified ("ns::reduce2").
bool kernel_named(std::string_view qualified, std::string_view name);

// The value of a printed template argument that is an integer: 256 of "256",
// "256u", "256ul" or "(unsigned short)256", -3 of "-3l"; nothing for a type
// ("int", "Pair<int, float>") or a bool ("true").
std::optional<long long> integral_argument(std::string_view argument);

// Bytes of one element of a CUDA type as written ("unsigned long long" 8,
// "float4" 16, "__nv_bfloat16" 2, "std::uint8_t" 1); 0 where it is not a
// type whose size the text alone gives (a struct, a template parameter).
unsigned type_bytes(std::string_view type);

// The extents of an array of `count` elements declared with bounds `dims`, where each bound is
// a number or a sum of products of numbers and at most one name, the same in every bound (a
// macro or a template parameter): the name takes the whole value that makes the product the
// count. {8, 8} of `float Mds[TILE_WIDTH][TILE_WIDTH]` holding 64, {32, 33} of
// `float tile[TILE][TILE + 1]` holding 1056. Nothing where no value does, or where two names
// appear (`float As[BM][BK]`), or a bound has another form.
std::optional<std::vector<std::uint64_t>> declared_extents(const std::vector<std::string>& dims, std::uint64_t count);

// The declaration of shared array `name` that a trace of `kernel` (bare or
// qualified) means, in a file and the files it includes: the kernel's own,
// else the first of that name; nullptr where none declares a shared array of that name.
const VariableDecl* find_shared(const std::vector<CudaSource>& sources, std::string_view name, std::string_view kernel = {});

}  // namespace wl::ptx
