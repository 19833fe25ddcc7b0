// CUDA arrays and texture objects (texture.h): CUDA's descriptors checked and
// turned into the emulator's texture (warplab/emu/texture.h, which is free of
// any dim3, so it may sit beside CUDA's headers).
#include "texture.h"

#include <mutex>
#include <set>
#include <string>

#include "warplab/emu/texture.h"

// CUDA declares cudaArray_t as a pointer to this struct and leaves it to the runtime.
struct cudaArray {
    unsigned char* texels;
    cudaChannelFormatDesc desc;
    size_t width, height;  // texels; a 1D array has height 1
    size_t row_bytes;      // rows are packed
};

namespace wl::cudart {

namespace {

// An H100's texture limits (cudaDeviceProp's maxTexture1D, maxTexture2D, maxTexture1DLinear,
// maxTexture2DLinear), which also keep the sizes' products far from overflow.
constexpr size_t kMaxArrayWidth = 131072, kMaxArrayHeight = 65536;
constexpr size_t kMaxPitchedWidth = 131072, kMaxPitchedHeight = 65000, kMaxPitchBytes = 2097120;

std::mutex g_arrays_mutex;
std::set<const cudaArray*> g_arrays;  // the live arrays, so that a stale or foreign handle is named, not followed

[[noreturn]] void not_supported(const std::string& what)
{
    throw Failure(Error::NotSupported, what + ": warplab's emulator does not implement it (cudaErrorNotSupported)");
}

// A channel format the emulator reads: 1, 2 or 4 channels of one width (8, 16 or
// 32 bits), signed, unsigned or 32-bit float; `call` names the caller in messages.
emu::Texture channels_of(const cudaChannelFormatDesc& d, const char* call)
{
    const int bits[4] = {d.x, d.y, d.z, d.w};
    unsigned channels = 0;
    for (int b : bits) {
        if (b < 0 || (b && b != d.x)) throw Failure(Error::InvalidValue, std::string(call) + ": channels of different widths");
        channels += b != 0;
    }
    emu::Texture t;
    t.channels = channels;
    t.channel_bits = static_cast<unsigned>(d.x);
    if (channels == 0 || channels == 3 || (d.x != 8 && d.x != 16 && d.x != 32))
        throw Failure(Error::InvalidValue, std::string(call) + ": a channel format of " + std::to_string(channels) +
                                               " channels of " + std::to_string(d.x) + " bits");
    switch (d.f) {
    case cudaChannelFormatKindSigned: t.kind = emu::ChannelKind::Signed; break;
    case cudaChannelFormatKindUnsigned: t.kind = emu::ChannelKind::Unsigned; break;
    case cudaChannelFormatKindFloat:
        if (d.x != 32) not_supported(std::string(call) + " with 16-bit float channels");
        t.kind = emu::ChannelKind::Float;
        break;
    default: not_supported(std::string(call) + " with channel format kind " + std::to_string(int(d.f)));
    }
    return t;
}

const cudaArray& live_array(cudaArray_const_t array, const char* call)
{
    std::lock_guard lock(g_arrays_mutex);
    if (!array || !g_arrays.count(array))
        throw Failure(Error::InvalidValue, std::string(call) + ": the array is no live cudaMallocArray array");
    return *array;
}

// The array's bytes a region covers, checked against its rows.
unsigned char* region_start(const cudaArray& a, const ArrayRegion& r, const char* call)
{
    if (r.x_bytes + r.row_bytes > a.row_bytes || r.y + r.rows > a.height)
        throw Failure(Error::InvalidValue, std::string(call) + ": " + std::to_string(r.rows) + " rows of " +
                                               std::to_string(r.row_bytes) + " bytes at byte " + std::to_string(r.x_bytes) +
                                               " of row " + std::to_string(r.y) + " run past the array's " +
                                               std::to_string(a.height) + " rows of " + std::to_string(a.row_bytes) + " bytes");
    return a.texels + r.y * a.row_bytes + r.x_bytes;
}

emu::TextureAddress address_mode(cudaTextureAddressMode m)
{
    switch (m) {
    case cudaAddressModeWrap: return emu::TextureAddress::Wrap;
    case cudaAddressModeClamp: return emu::TextureAddress::Clamp;
    case cudaAddressModeMirror: return emu::TextureAddress::Mirror;
    case cudaAddressModeBorder: return emu::TextureAddress::Border;
    }
    throw Failure(Error::InvalidValue, "cudaCreateTextureObject: address mode " + std::to_string(int(m)) + " is no cudaTextureAddressMode");
}

// The resource's texels: linear memory, pitched 2D memory or a CUDA array.
emu::Texture resource_texels(const cudaResourceDesc& r)
{
    constexpr const char* call = "cudaCreateTextureObject";
    switch (r.resType) {
    case cudaResourceTypeLinear: {
        emu::Texture t = channels_of(r.res.linear.desc, call);
        if (r.res.linear.sizeInBytes / t.texel_bytes() > emu::kMaxLinearTexels)
            throw Failure(Error::InvalidValue, std::string(call) + ": linear memory of more than 2^28 texels");
        check_device_range(r.res.linear.devPtr, r.res.linear.sizeInBytes, call, "linear resource's memory");
        t.texels = static_cast<const unsigned char*>(r.res.linear.devPtr);
        t.width = r.res.linear.sizeInBytes / t.texel_bytes();
        t.pitch = r.res.linear.sizeInBytes;
        t.linear = true;
        return t;
    }
    case cudaResourceTypePitch2D: {
        emu::Texture t = channels_of(r.res.pitch2D.desc, call);
        const auto& p = r.res.pitch2D;
        if (p.width == 0 || p.height == 0 || p.width > kMaxPitchedWidth || p.height > kMaxPitchedHeight ||
            p.pitchInBytes > kMaxPitchBytes || p.pitchInBytes < p.width * t.texel_bytes())
            throw Failure(Error::InvalidValue, std::string(call) + ": a pitched resource of " + std::to_string(p.width) + "x" +
                                                   std::to_string(p.height) + " texels with rows " + std::to_string(p.pitchInBytes) + " bytes apart");
        check_device_range(p.devPtr, (p.height - 1) * p.pitchInBytes + p.width * t.texel_bytes(), call, "pitched resource's memory");
        t.texels = static_cast<const unsigned char*>(p.devPtr);
        t.width = p.width, t.height = p.height, t.pitch = p.pitchInBytes;
        return t;
    }
    case cudaResourceTypeArray: {
        const cudaArray& a = live_array(r.res.array.array, call);
        emu::Texture t = channels_of(a.desc, call);
        t.texels = a.texels;
        t.width = a.width, t.height = a.height, t.pitch = a.row_bytes;
        return t;
    }
    default: not_supported(std::string(call) + " over a mipmapped array");
    }
}

}  // namespace

cudaArray_t make_array(const cudaChannelFormatDesc& desc, size_t width, size_t height, unsigned flags, const CallSite& site)
{
    constexpr const char* call = "cudaMallocArray";
    const emu::Texture format = channels_of(desc, call);
    if (flags != cudaArrayDefault) not_supported(std::string(call) + " with flags " + std::to_string(flags));
    if (width == 0 || width > kMaxArrayWidth || height > kMaxArrayHeight)
        throw Failure(Error::InvalidValue, std::string(call) + ": an array of " + std::to_string(width) + "x" + std::to_string(height) +
                                               " texels (1 to 131072 wide, 0 to 65536 high)");
    auto* a = new cudaArray{nullptr, desc, width, height ? height : 1, width * format.texel_bytes()};
    try {
        a->texels = static_cast<unsigned char*>(allocate(a->row_bytes * a->height, Memory::Array, site));
    } catch (...) {
        delete a;
        throw;
    }
    std::lock_guard lock(g_arrays_mutex);
    g_arrays.insert(a);
    return a;
}

void free_array(cudaArray_t array, const CallSite& site)
{
    if (!array) return;
    const cudaArray& a = live_array(array, "cudaFreeArray");
    release(a.texels, Memory::Array, site);
    std::lock_guard lock(g_arrays_mutex);
    g_arrays.erase(array);
    delete array;
}

void copy_to_array(cudaArray_t array, ArrayRegion region, const void* src, size_t pitch, Direction direction, const char* call)
{
    unsigned char* to = region_start(live_array(array, call), region, call);
    if (pitch < region.row_bytes) throw Failure(Error::InvalidValue, std::string(call) + ": a source pitch narrower than a row");
    const auto* from = static_cast<const unsigned char*>(src);
    for (size_t row = 0; row < region.rows; ++row) copy(to + row * array->row_bytes, from + row * pitch, region.row_bytes, direction, call);
}

void copy_from_array(void* dst, size_t pitch, cudaArray_const_t array, ArrayRegion region, Direction direction, const char* call)
{
    const unsigned char* from = region_start(live_array(array, call), region, call);
    if (pitch < region.row_bytes) throw Failure(Error::InvalidValue, std::string(call) + ": a destination pitch narrower than a row");
    auto* to = static_cast<unsigned char*>(dst);
    for (size_t row = 0; row < region.rows; ++row) copy(to + row * pitch, from + row * array->row_bytes, region.row_bytes, direction, call);
}

void copy_run_to_array(cudaArray_t array, size_t x_bytes, size_t y, const void* src, size_t bytes, Direction direction)
{
    constexpr const char* call = "cudaMemcpyToArray";
    const cudaArray& a = live_array(array, call);
    const size_t start = y * a.row_bytes + x_bytes, total = a.row_bytes * a.height;
    if (x_bytes >= a.row_bytes || start > total || bytes > total - start)
        throw Failure(Error::InvalidValue, std::string(call) + ": " + std::to_string(bytes) + " bytes at byte " + std::to_string(x_bytes) +
                                               " of row " + std::to_string(y) + " run past the array's " + std::to_string(total) + " bytes");
    copy(a.texels + start, src, bytes, direction, call);
}

cudaTextureObject_t make_texture_object(const cudaResourceDesc& resource, const cudaTextureDesc& texture,
                                        const cudaResourceViewDesc* view)
{
    constexpr const char* call = "cudaCreateTextureObject";
    if (view) not_supported(std::string(call) + " with a resource view");
    emu::Texture t = resource_texels(resource);
    t.address[0] = address_mode(texture.addressMode[0]);
    t.address[1] = address_mode(texture.addressMode[1]);
    // tex1Dfetch never filters (the Programming Guide): linear memory samples points whatever the descriptor says.
    t.filter = texture.filterMode == cudaFilterModeLinear && !t.linear ? emu::TextureFilter::Linear : emu::TextureFilter::Point;
    t.normalized_coords = texture.normalizedCoords != 0;
    t.normalized_read = texture.readMode == cudaReadModeNormalizedFloat;
    if (t.normalized_read && (t.kind == emu::ChannelKind::Float || t.channel_bits == 32))
        throw Failure(Error::InvalidValue, std::string(call) + ": cudaReadModeNormalizedFloat reads 8- and 16-bit integer channels only");
    if (texture.sRGB) not_supported(std::string(call) + " with sRGB conversion");
    const bool border = !t.linear && (t.address[0] == emu::TextureAddress::Border || t.address[1] == emu::TextureAddress::Border);
    for (float c : texture.borderColor)
        if (border && c != 0) not_supported(std::string(call) + " with a border colour other than zero");
    return emu::create_texture(t);
}

void destroy_texture_object(cudaTextureObject_t texture)
{
    if (!emu::destroy_texture(texture))
        throw Failure(Error::InvalidValue, "cudaDestroyTextureObject: " + std::to_string(texture) + " is no live texture object");
}

}  // namespace wl::cudart
