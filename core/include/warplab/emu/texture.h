// Texture objects on the emulator: what cudaCreateTextureObject describes
// (a region of device memory read as texels, with its sampling) kept under a
// handle that a kernel passes to `tex` (the PTX ISA's texture instruction),
// and the texel a fetch returns. Point sampling only: a texture made with
// linear filtering exists, but a fetch from it is refused (the kernel faults
// with its line) rather than answered differently from a GPU.
//
// CUDA-free and dim3-free, so that warplab's CUDA runtime (core/src/cudart/,
// which sees CUDA's own dim3) can include it beside cuda_runtime_api.h.
#pragma once
#include <cstdint>
#include <string>

namespace wl::emu {

// The values of CUDA's cudaTextureAddressMode, in its order.
enum class TextureAddress : std::uint8_t { Wrap = 0, Clamp = 1, Mirror = 2, Border = 3 };
enum class TextureFilter : std::uint8_t { Point = 0, Linear = 1 };
// How a channel's bits read: cudaChannelFormatKindSigned, Unsigned, Float.
enum class ChannelKind : std::uint8_t { Signed = 0, Unsigned = 1, Float = 2 };

struct Texture {
    const unsigned char* texels = nullptr;  // the first texel, in device memory
    std::uint64_t width = 0, height = 1;     // in texels; a 1D texture has height 1
    std::uint64_t pitch = 0;                 // bytes from one row to the next
    // Linear memory read by tex1Dfetch (cudaResourceTypeLinear): integer
    // coordinates only, and a texel outside it reads as zeros.
    bool linear = false;
    unsigned channels = 1;      // 1, 2 or 4, each of channel_bits
    unsigned channel_bits = 32;  // 8, 16 or 32
    ChannelKind kind = ChannelKind::Float;
    TextureAddress address[2] = {TextureAddress::Clamp, TextureAddress::Clamp};  // x, y
    TextureFilter filter = TextureFilter::Point;
    bool normalized_coords = false;  // coordinates in [0, 1) across the texture
    bool normalized_read = false;    // cudaReadModeNormalizedFloat: 8- and 16-bit integers read as floats in [-1, 1]
    unsigned texel_bytes() const { return channels * channel_bits / 8; }
};

// The most texels a 1D texture over linear memory may hold (NVIDIA, "CUDA C++
// Programming Guide", technical specifications: 2^28 from compute capability 5.0).
inline constexpr std::uint64_t kMaxLinearTexels = std::uint64_t(1) << 28;

// A texture object: a nonzero handle, as cudaTextureObject_t carries it.
std::uint64_t create_texture(const Texture& t);
// False when the handle names no live texture.
bool destroy_texture(std::uint64_t handle);

// Where a `tex` instruction samples: `dims` coordinates (1 or 2), integers
// (tex.1d.*.s32, tex1Dfetch) or floats.
struct TexelCoords {
    unsigned dims = 1;
    bool integer = false;
    std::int32_t i[2] = {0, 0};
    float f[2] = {0, 0};
};
// The four 32-bit results of a fetch (floats as their bits, integers extended
// to 32 bits; channels the texture lacks read 0 here: nvcc's code for a fetch
// of T reads only T's channels). False, with `why` (one sentence), when the handle names no texture,
// the texture's memory is gone, or the fetch asks for what is not emulated.
bool fetch_texel(std::uint64_t handle, const TexelCoords& at, std::uint32_t out[4], std::string& why);

}  // namespace wl::emu
