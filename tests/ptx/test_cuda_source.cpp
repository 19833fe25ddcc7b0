// wl::ptx::read_cuda_source, the one reading of a .cu file's declarations:
// kernels with their template and function parameters, and the __shared__ and
// __constant__ variables with their element types, bounds and lines, from
// files written the way public CUDA code is (templates, extern __shared__,
// padded tiles, several arrays on one line, sizes from macros), with the
// comments and strings that mention __shared__ declaring nothing.
#include <gtest/gtest.h>

#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <optional>
#include <string>
#include <vector>

#include "warplab/ptx/cuda_source.h"
#include "warplab/ptx/declared_arrays.h"
#include "warplab/trace/block_analysis.h"

namespace {

using wl::ptx::KernelDecl;
using wl::ptx::Parameter;
using wl::ptx::TemplateParam;
using wl::ptx::VariableDecl;

TEST(CudaSource, KernelsAsWritten)
{
    const std::string source = R"src(// __global__ void in_a_comment(int*) {}
#define LAUNCHABLE __global__
template <class T> struct Helper { T x; };
namespace ns {
const char* text = "__global__ void in_a_string()";
template <typename T, unsigned BLOCK = 128>
__global__ void __launch_bounds__(256) tiled(const T* in, T* out) {}
template <> __global__ void tiled<float, 64>(const float*, float*) {}
}
template __global__ void ns::tiled<int>(const int*, int*);
__global__ void plain(int* p) { p[0] = 1; }
template <bool kFlag, template <class> class Op, class... Rest> __global__ void odd(int*) {}
)src";
    const std::vector<KernelDecl> k = wl::ptx::read_cuda_source(source).kernels;
    // The comment, the string, the macro, the specialisation and the explicit
    // instantiation declare no kernel; the struct's template is not plain's.
    ASSERT_EQ(k.size(), 3u);
    EXPECT_EQ(k[0].name, "ns::tiled");
    EXPECT_EQ(k[0].line, 7u);
    EXPECT_EQ(k[0].signature(), "ns::tiled<typename T, unsigned BLOCK = 128>");
    ASSERT_EQ(k[0].params.size(), 2u);
    EXPECT_EQ(k[0].params[0].kind, TemplateParam::Kind::Type);
    EXPECT_EQ(k[0].params[1].kind, TemplateParam::Kind::Integral);
    EXPECT_EQ(k[0].params[1].name, "BLOCK");
    EXPECT_EQ(k[0].params[1].default_value, "128");
    EXPECT_EQ(k[1].name, "plain");
    EXPECT_FALSE(k[1].is_template);
    ASSERT_EQ(k[2].params.size(), 3u);
    for (const TemplateParam& p : k[2].params) EXPECT_EQ(p.kind, TemplateParam::Kind::Other) << p.text;
}

// A parameter's name is the last identifier before a default and array
// bounds, "" where it has none; its type is the rest as written.
TEST(CudaSource, ParametersWithTheirTypes)
{
    const std::string source = R"src(
template <int TILE>
__global__ void transpose(float* __restrict__ odata, const float* __restrict__ idata, int width,
                          const std::pair<int, int> shape, float halo[4][2])
{}
__global__ void unnamed(float*, const int* __restrict__, unsigned int) {}
__global__ void nothing(void) {}
__global__ void none() {}
__global__ void defaulted(int* out, int n = 4) {}
)src";
    const std::vector<KernelDecl> k = wl::ptx::read_cuda_source(source).kernels;
    ASSERT_EQ(k.size(), 5u);
    EXPECT_EQ(k[0].parameter_names(), (std::vector<std::string>{"odata", "idata", "width", "shape", "halo"}));
    EXPECT_EQ(k[0].parameters[0].type, "float* __restrict__");
    EXPECT_EQ(k[0].parameters[1].type, "const float* __restrict__");
    EXPECT_EQ(k[0].parameters[2].type, "int");
    EXPECT_EQ(k[0].parameters[3].type, "const std::pair<int, int>");
    EXPECT_EQ(k[0].parameters[4].type, "float[4][2]");
    EXPECT_EQ(k[0].parameters[1].pointee(), "float");  // const and __restrict__ left out
    EXPECT_EQ(k[0].parameters[2].pointee(), "");       // no pointer
    EXPECT_EQ(k[1].parameters[1].pointee(), "int");
    EXPECT_EQ(k[1].parameter_names(), (std::vector<std::string>{"", "", ""}));
    EXPECT_EQ(k[1].parameters[2].type, "unsigned int");
    EXPECT_TRUE(k[2].parameters.empty());
    EXPECT_TRUE(k[3].parameters.empty());
    EXPECT_EQ(k[4].parameter_names(), (std::vector<std::string>{"out", "n"}));
}

// A whole file as a textbook writes one: a padded transpose tile with its
// size from a macro, a templated reduction with a block-sized array of T and a
// dynamic one, coefficients in constant memory, two arrays on one line, a
// pointer beside an array, and a host main() that mentions __shared__ in a
// string and in comments.
const char* const kTextbookFile = R"src(#include <cstdio>
#define TILE_DIM 32
#define BLOCK_ROWS 8

__constant__ float coeffs[16];          // line 5
__constant__ int taps = 4;

/* __shared__ float not_declared[4]; */
__global__ void transposeNoBankConflicts(float* odata, const float* idata)
{
    __shared__ float tile[TILE_DIM][TILE_DIM + 1];  // line 11: padded, a column is conflict-free
    int x = blockIdx.x * TILE_DIM + threadIdx.x;
    for (int j = 0; j < TILE_DIM; j += BLOCK_ROWS) tile[threadIdx.y + j][threadIdx.x] = idata[x];
    __syncthreads();
    odata[x] = tile[threadIdx.x][threadIdx.y];
}

template <class T, unsigned int blockSize>
__global__ void reduce(const T* g_idata, T* g_odata, unsigned int n)
{
    extern __shared__ __align__(sizeof(T)) unsigned char smem_bytes[];
    static __shared__ volatile T partial[blockSize], carry[2];
    __shared__ __align__(8) unsigned long long full[4], *next;
    T* sdata = reinterpret_cast<T*>(smem_bytes);
    sdata[threadIdx.x] = g_idata[threadIdx.x];
}

__global__ void scale(float* out)
{
    extern __shared__ float s[];
    __shared__ float tile[64];  // the same name as the transpose's, another kernel
    s[threadIdx.x] = out[threadIdx.x] * coeffs[threadIdx.x % 16];
}

int main()
{
    printf("uses __shared__ float fake[8]; on the GPU\n");  // __shared__ int also_fake[2];
    return 0;
}
)src";

TEST(CudaSource, SharedAndConstantDeclarations)
{
    const wl::ptx::CudaSource s = wl::ptx::read_cuda_source(kTextbookFile);
    ASSERT_EQ(s.kernels.size(), 3u);
    EXPECT_EQ(s.kernels[1].name, "reduce");
    std::vector<std::string> names;
    for (const VariableDecl& v : s.variables) names.push_back(v.name);
    // Nothing from the comments, the block comment or the string.
    ASSERT_EQ(names, (std::vector<std::string>{"coeffs", "taps", "tile", "smem_bytes", "partial", "carry", "full", "next", "s", "tile"}));
    const auto& v = s.variables;

    EXPECT_EQ(v[0].space, VariableDecl::Space::Constant);
    EXPECT_EQ(v[0].type, "float");
    EXPECT_EQ(v[0].dims, (std::vector<std::string>{"16"}));
    EXPECT_EQ(v[0].line, 5u);
    EXPECT_EQ(v[0].kernel, "");
    EXPECT_EQ(v[1].type, "int");
    EXPECT_TRUE(v[1].dims.empty());  // a scalar

    EXPECT_EQ(v[2].space, VariableDecl::Space::Shared);
    EXPECT_EQ(v[2].type, "float");
    EXPECT_EQ(v[2].dims, (std::vector<std::string>{"TILE_DIM", "TILE_DIM+1"}));  // the macro as written
    EXPECT_EQ(v[2].line, 11u);
    EXPECT_EQ(v[2].kernel, "transposeNoBankConflicts");
    EXPECT_FALSE(v[2].is_extern);

    EXPECT_TRUE(v[3].is_extern);
    EXPECT_EQ(v[3].type, "unsigned char");  // __align__(sizeof(T)) left out
    EXPECT_EQ(v[3].dims, (std::vector<std::string>{""}));
    EXPECT_FALSE(v[3].type_is_parameter);
    EXPECT_EQ(v[3].kernel, "reduce");

    EXPECT_EQ(v[4].type, "T");  // static and volatile left out
    EXPECT_TRUE(v[4].type_is_parameter);
    EXPECT_EQ(v[4].dims, (std::vector<std::string>{"blockSize"}));
    EXPECT_EQ(v[5].type, "T");  // the second array of the line takes the first one's type
    EXPECT_EQ(v[5].dims, (std::vector<std::string>{"2"}));
    EXPECT_EQ(v[5].line, v[4].line);

    EXPECT_EQ(v[6].type, "unsigned long long");
    EXPECT_EQ(v[7].type, "unsigned long long");  // `*next`: a pointer to that type
    EXPECT_TRUE(v[7].dims.empty());

    EXPECT_TRUE(v[8].is_extern);
    EXPECT_EQ(v[8].type, "float");
    EXPECT_EQ(v[8].kernel, "scale");
    EXPECT_EQ(v[9].dims, (std::vector<std::string>{"64"}));
    EXPECT_EQ(v[9].kernel, "scale");
}

// A kernel's own declaration of a name first (a bare name matches its
// qualified kernel, not the other way round); else the first of that name.
TEST(CudaSource, WhichDeclarationATraceMeans)
{
    const std::vector<wl::ptx::CudaSource> s{wl::ptx::read_cuda_source("__shared__ int fake;"), wl::ptx::read_cuda_source(kTextbookFile)};
    ASSERT_NE(wl::ptx::find_shared(s, "tile", "scale"), nullptr);
    EXPECT_EQ(wl::ptx::find_shared(s, "tile", "ns::scale")->kernel, "transposeNoBankConflicts");
    EXPECT_EQ(wl::ptx::find_shared(s, "tile", "scale")->dims, (std::vector<std::string>{"64"}));
    EXPECT_EQ(wl::ptx::find_shared(s, "tile", "transposeNoBankConflicts")->dims.size(), 2u);
    EXPECT_EQ(wl::ptx::find_shared(s, "tile")->kernel, "transposeNoBankConflicts");
    EXPECT_EQ(wl::ptx::find_shared(s, "coeffs"), nullptr);  // constant, not shared
    EXPECT_EQ(wl::ptx::find_shared(s, "fake"), &s[0].variables[0]);  // the first file's, a scalar
    EXPECT_EQ(wl::ptx::find_shared(s, "not_declared"), nullptr);  // in a comment only
}

// A type parameter is the template's own: `T` of a kernel template is one,
// the same letter in a plain kernel after it is a type the file defines. The
// file's own headers are the quoted includes.
TEST(CudaSource, TypeParametersBelongToTheirTemplate)
{
    const std::string source = R"src(#include <cuda_runtime.h>
  #  include "kernels/common.cuh"
template <typename T> __device__ T warp_sum(T v) { __shared__ T lanes[32]; return v; }
struct T { int a, b, c; };
__global__ void plain() { __shared__ T records[8]; }
)src";
    const wl::ptx::CudaSource s = wl::ptx::read_cuda_source(source);
    ASSERT_EQ(s.variables.size(), 2u);
    EXPECT_TRUE(s.variables[0].type_is_parameter);
    EXPECT_EQ(s.variables[0].kernel, "");  // a device function's
    EXPECT_FALSE(s.variables[1].type_is_parameter);
    EXPECT_EQ(s.variables[1].kernel, "plain");
    EXPECT_EQ(s.variables[1].line, 5u);
    EXPECT_EQ(s.includes, (std::vector<std::string>{"kernels/common.cuh"}));  // a <...> header is the toolkit's
}

// The arguments of an instance as ptxas and the demangler print it, split at
// the commas outside nested brackets: Pair<int, float> is one argument, not
// "Pair<int" and "float>"; the parameter list after them is no argument.
TEST(CudaSource, TemplateArgumentsOfAPrintedInstance)
{
    using Args = std::vector<std::string>;
    EXPECT_EQ(wl::ptx::template_arguments("ns::pair_sums<Pair<int, float>, 64u>(Pair<int, float> const*, float*)"),
              (Args{"Pair<int, float>", "64u"}));
    EXPECT_EQ(wl::ptx::template_arguments("reduce<Pair<Pair<int, int>, float>, (unsigned short)256, true>"),
              (Args{"Pair<Pair<int, int>, float>", "(unsigned short)256", "true"}));
    EXPECT_EQ(wl::ptx::template_arguments("reduce0(int*, int*, unsigned int)"), Args{});  // a plain kernel
    EXPECT_EQ(wl::ptx::template_arguments("reduce0"), Args{});
}

// The instance without its parameter list; an enum's value, printed as a cast
// inside the template's brackets, is not the list's parenthesis.
TEST(CudaSource, InstancesWithoutTheirParameters)
{
    EXPECT_EQ(wl::ptx::without_parameters("sort_tile<(Order)0, int>(int*, int)"), "sort_tile<(Order)0, int>");
    EXPECT_EQ(wl::ptx::without_parameters("ns::k<(unsigned short)256, true>(float const*)"), "ns::k<(unsigned short)256, true>");
    EXPECT_EQ(wl::ptx::without_parameters("reduce0(int*, int*, unsigned int)"), "reduce0");
    EXPECT_EQ(wl::ptx::without_parameters("reduce0"), "reduce0");
}

// The name before the arguments and parameters; a kernel named bare or
// qualified, never by a part of its name or an empty one.
TEST(CudaSource, InstanceNamesAndTheKernelsTheyName)
{
    EXPECT_EQ(wl::ptx::instance_name("ns::pair_sums<Pair<int, float>, 64u>(Pair<int, float> const*, float*)"), "ns::pair_sums");
    EXPECT_EQ(wl::ptx::instance_name("vector_add(float const*, float*, int)"), "vector_add");
    EXPECT_EQ(wl::ptx::instance_name("reduce0"), "reduce0");
    EXPECT_TRUE(wl::ptx::kernel_named("ns::reduce2", "reduce2"));
    EXPECT_TRUE(wl::ptx::kernel_named("ns::reduce2", "ns::reduce2"));
    EXPECT_TRUE(wl::ptx::kernel_named("reduce2", "reduce2"));
    EXPECT_FALSE(wl::ptx::kernel_named("ns::reduce2", "duce2"));  // a tail of the name is not a name
    EXPECT_FALSE(wl::ptx::kernel_named("ns::reduce2", "reduce"));
    EXPECT_FALSE(wl::ptx::kernel_named("other::ns::reduce2x", "ns::reduce2"));
    EXPECT_FALSE(wl::ptx::kernel_named("reduce2", ""));
}

// 256 however the printer writes it; a type, a bool or a half-number is no value.
TEST(CudaSource, IntegralArgumentsAsPrinted)
{
    for (const char* printed : {"256", "256u", "256ul", "256ULL", " (unsigned short)256 "})
        EXPECT_EQ(wl::ptx::integral_argument(printed), 256) << printed;
    EXPECT_EQ(wl::ptx::integral_argument("-3l"), -3);
    for (const char* other : {"int", "Pair<int, float>", "true", "256x", "", "(int)"})
        EXPECT_EQ(wl::ptx::integral_argument(other), std::nullopt) << other;
}

// Sizes by hand: 1 for the byte types, 2 for half and bfloat16, 4 for float
// and int, 8 for unsigned long long and double, 16 for float4; 0 for what the
// text cannot size (a struct, T).
TEST(CudaSource, TypeBytes)
{
    EXPECT_EQ(wl::ptx::type_bytes("unsigned char"), 1u);
    EXPECT_EQ(wl::ptx::type_bytes("std::uint8_t"), 1u);
    EXPECT_EQ(wl::ptx::type_bytes("__nv_bfloat16"), 2u);
    EXPECT_EQ(wl::ptx::type_bytes("__half"), 2u);
    EXPECT_EQ(wl::ptx::type_bytes("float"), 4u);
    EXPECT_EQ(wl::ptx::type_bytes("unsigned int"), 4u);
    EXPECT_EQ(wl::ptx::type_bytes("unsigned long long"), 8u);
    EXPECT_EQ(wl::ptx::type_bytes("double"), 8u);
    EXPECT_EQ(wl::ptx::type_bytes("float4"), 16u);
    EXPECT_EQ(wl::ptx::type_bytes("Fancy"), 0u);
    EXPECT_EQ(wl::ptx::type_bytes("T"), 0u);
}

// Declarations as the labs' kernels write them, resolved for a run: T is the
// run's element type (8 bytes for double); a struct has no size the text gives.
TEST(CudaSource, DeclaredElementTypesForARun)
{
    const wl::ptx::CudaSource s = wl::ptx::read_cuda_source(R"src(
template <typename T, unsigned BLOCK>
__global__ void k(const T* in) {
    extern __shared__ __align__(128) unsigned char ring[];
    __shared__ __align__(8) unsigned long long full[4], empty[4];
    __shared__ T sdata[BLOCK];  // one per thread
    __shared__ float4 ring4[8];
    // __shared__ double not_a_declaration[2];
    __shared__ Fancy odd[3];
}
)src");
    std::vector<std::string> types;
    for (const VariableDecl& v : s.variables) types.push_back(wl::ptx::declared_element_type(v, "double"));
    EXPECT_EQ(types, (std::vector<std::string>{"unsigned char", "unsigned long long", "unsigned long long", "double", "float4", ""}));
    EXPECT_EQ(wl::ptx::type_bytes(types[3]), 8u);
    EXPECT_EQ(wl::ptx::declared_element_type(s.variables[3], "float"), "float");
}

// A tile declared in a header the kernel's file includes, as samples keep a
// block's shared tile with the device function that fills it: the trace gives
// it the header's name and line (5), not the kernel's line that PTX gives
// every array (3); the kernel file's own array keeps its line (4) alone.
TEST(CudaSource, AnArrayDeclaredInAnIncludedFileHasThatFilesLine)
{
    namespace fs = std::filesystem;
    const fs::path dir = fs::temp_directory_path() / ("warplab_included_" + std::to_string(::getpid()));
    fs::create_directories(dir);
    std::ofstream(dir / "tile_load.cuh") << "// One 16x16 tile of floats per block.\n"
                                            "#define TILE 16\n"
                                            "__device__ float load_tile(const float* in)\n"
                                            "{\n"
                                            "    __shared__ float tile[TILE * TILE];\n"
                                            "    tile[threadIdx.x] = in[threadIdx.x];\n"
                                            "    __syncthreads();\n"
                                            "    return tile[TILE * TILE - 1 - threadIdx.x];\n"
                                            "}\n";
    std::ofstream(dir / "reverse.cu") << "#include \"tile_load.cuh\"\n"
                                         "\n"
                                         "__global__ void reverse(const float* in, float* out) {\n"
                                         "    __shared__ int flags[4];\n"
                                         "    out[threadIdx.x] = load_tile(in);\n"
                                         "}\n";
    wl::trace::BlockTrace block;
    block.shared_arrays = {{.id = 0, .name = "tile", .elem_size = 4, .count = 256, .line = 3},
                           {.id = 1, .name = "flags", .elem_size = 4, .count = 4, .line = 3}};
    // Both already 4 bytes an element: the types and lines change, no element size or count.
    wl::ptx::declare_array_types(block, wl::ptx::read_cuda_files((dir / "reverse.cu").string()), "reverse", "float");
    EXPECT_EQ(block.shared_arrays[0].elem_size, 4u);
    EXPECT_EQ(block.shared_arrays[0].count, 256u);
    EXPECT_EQ(block.shared_arrays[1].elem_size, 4u);
    EXPECT_EQ(block.shared_arrays[1].count, 4u);
    fs::remove_all(dir);
    const auto& tile = block.shared_arrays[0];
    EXPECT_EQ(tile.type, "float");
    EXPECT_EQ(tile.file, "tile_load.cuh");
    EXPECT_EQ(tile.line, 5u);
    const auto& flags = block.shared_arrays[1];
    EXPECT_EQ(flags.type, "int");
    EXPECT_EQ(flags.file, "");
    EXPECT_EQ(flags.line, 4u);
}

}  // namespace
