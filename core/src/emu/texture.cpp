// Texture objects (warplab/emu/texture.h): the table of live textures by
// handle, and a fetch's point sampling, addressing and read conversion, as
// NVIDIA's CUDA C++ Programming Guide defines them in its "Texture Fetching"
// appendix.
#include "warplab/emu/texture.h"

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstring>
#include <map>
#include <mutex>
#include <shared_mutex>

#include "runtime.h"

namespace wl::emu {

namespace {

std::shared_mutex g_textures_mutex;
std::map<std::uint64_t, Texture> g_textures;
std::uint64_t g_next_handle = 1;  // 0 is no texture, as a zero-initialised cudaTextureObject_t

// The texel index along one axis of n texels, or -1 for a texel outside under
// border addressing (the Guide, "Texture Fetching"):
// - nearest-point sampling reads T[i], i = floor(x), where a normalised
//   coordinate is first scaled by n;
// - wrap replaces a normalised x by frac(x) = x - floor(x);
// - mirror replaces it by frac(x) when floor(x) is even, 1 - frac(x) when odd;
// - clamp keeps i in [0, n - 1]; border reads zeros outside [0, n - 1].
// Wrap and mirror are defined for normalised coordinates only; without them
// the only address mode is clamp (the CUDA Driver API reference,
// cuTexRefSetAddressMode), so they clamp there.
std::int64_t texel_index(float x, std::uint64_t n, TextureAddress mode, bool normalized)
{
    if (!normalized && (mode == TextureAddress::Wrap || mode == TextureAddress::Mirror)) mode = TextureAddress::Clamp;
    if (std::isnan(x)) x = 0;
    if (normalized) {
        const float whole = std::floor(x), frac = x - whole;
        if (mode == TextureAddress::Wrap) x = frac;
        else if (mode == TextureAddress::Mirror) x = std::fmod(std::fabs(whole), 2.0f) == 0 ? frac : 1 - frac;
        x *= static_cast<float>(n);
    }
    const float i = std::floor(x);
    const float last = static_cast<float>(n - 1);
    if (mode == TextureAddress::Border && (i < 0 || i > last)) return -1;
    // Wrap and mirror land in [0, n] (frac rounds up to 1 just below an integer): clamped too.
    return static_cast<std::int64_t>(std::clamp(i, 0.0f, last));
}

// An integer coordinate: the texel itself, under clamp or border (linear memory: zeros outside).
std::int64_t texel_index(std::int32_t x, std::uint64_t n, TextureAddress mode, bool linear)
{
    const bool inside = x >= 0 && static_cast<std::uint64_t>(x) < n;
    if (inside) return x;
    if (linear || mode == TextureAddress::Border) return -1;
    return x < 0 ? 0 : static_cast<std::int64_t>(n - 1);
}

// One channel's bits as a fetch returns them: floats as their bits, integers
// extended to 32 bits, or (cudaReadModeNormalizedFloat) the integer mapped to
// [0, 1] (unsigned: v / (2^bits - 1)) or [-1, 1] (signed: v / (2^(bits-1) - 1), at least -1).
std::uint32_t channel_value(const unsigned char* p, const Texture& t)
{
    std::uint32_t raw = 0;
    std::memcpy(&raw, p, t.channel_bits / 8);
    if (t.kind == ChannelKind::Float) return raw;
    const unsigned bits = t.channel_bits;
    if (t.kind == ChannelKind::Unsigned) {
        if (!t.normalized_read) return raw;
        return std::bit_cast<std::uint32_t>(static_cast<float>(raw) / static_cast<float>((1u << bits) - 1));
    }
    const std::int32_t v = bits == 32 ? static_cast<std::int32_t>(raw)
                                      : static_cast<std::int32_t>(raw << (32 - bits)) >> (32 - bits);
    if (!t.normalized_read) return static_cast<std::uint32_t>(v);
    const float f = static_cast<float>(v) / static_cast<float>((1u << (bits - 1)) - 1);
    return std::bit_cast<std::uint32_t>(std::max(f, -1.0f));
}

}  // namespace

std::uint64_t create_texture(const Texture& t)
{
    std::unique_lock lock(g_textures_mutex);
    const std::uint64_t handle = g_next_handle++;
    g_textures.emplace(handle, t);
    return handle;
}

bool destroy_texture(std::uint64_t handle)
{
    std::unique_lock lock(g_textures_mutex);
    return g_textures.erase(handle) == 1;
}

bool fetch_texel(std::uint64_t handle, const TexelCoords& at, std::uint32_t out[4], std::string& why)
{
    Texture t;
    {
        std::shared_lock lock(g_textures_mutex);
        const auto it = g_textures.find(handle);
        if (it == g_textures.end()) {
            why = "texture fetch from " + std::to_string(handle) +
                  ", which is no live texture object (destroyed, or never made by cudaCreateTextureObject)";
            return false;
        }
        t = it->second;
    }
    if (t.filter != TextureFilter::Point) {
        why = "texture fetch with linear filtering (cudaFilterModeLinear), which the emulator does not implement: "
              "it samples points only (cudaFilterModePoint)";
        return false;
    }
    if (t.linear && !at.integer) {
        why = "texture fetch with float coordinates from linear memory: a texture over cudaResourceTypeLinear is read "
              "with tex1Dfetch (integer coordinates)";
        return false;
    }
    std::int64_t index[2] = {0, 0};
    const std::uint64_t extent[2] = {t.width, t.height};
    for (unsigned d = 0; d < at.dims && d < 2; ++d) {
        index[d] = at.integer ? texel_index(at.i[d], extent[d], t.address[d], t.linear)
                              : texel_index(at.f[d], extent[d], t.address[d], t.normalized_coords);
    }
    out[0] = out[1] = out[2] = out[3] = 0;
    if (index[0] < 0 || index[1] < 0) return true;  // outside, under border addressing: zeros
    const unsigned char* texel = t.texels + static_cast<std::uint64_t>(index[1]) * t.pitch +
                                 static_cast<std::uint64_t>(index[0]) * t.texel_bytes();
    std::uintptr_t base = 0;
    std::size_t bytes = 0;
    const auto addr = reinterpret_cast<std::uintptr_t>(texel);
    if (!detail::find_allocation(addr, base, bytes) || addr + t.texel_bytes() > base + bytes) {
        why = "texture fetch from memory that is no longer allocated (freed while the texture object lived)";
        return false;
    }
    for (unsigned c = 0; c < t.channels; ++c) out[c] = channel_value(texel + c * t.channel_bits / 8, t);
    return true;
}

}  // namespace wl::emu
