// 2D textures over a CUDA array, as image-processing code samples them: one
// texture object per addressing mode over a 5x3 array (odd sizes), point
// sampling, read at texel centres inside and outside the array. Then int and
// uchar4 arrays read as elements, and an unsigned char array read as
// normalised floats; pitched memory, a 1D array, and the array copies.
// Arguments: none, or `linear` (a linear-filtered texture, which the emulator
// refuses), `half` (16-bit float channels, not emulated) or `huge` (an array wider than a GPU's).
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

#define CUDA_CHECK(call)                                                                        \
    do {                                                                                        \
        cudaError_t err_ = (call);                                                              \
        if (err_ != cudaSuccess) {                                                              \
            std::fprintf(stderr, "%s:%d: %s\n", __FILE__, __LINE__, cudaGetErrorString(err_));  \
            std::exit(1);                                                                       \
        }                                                                                       \
    } while (0)

constexpr int W = 5, H = 3, POINTS = 6;

// Texel centres (x + 0.5, y + 0.5) of these texels, normalised by W and H where the texture is.
__constant__ int point_x[POINTS] = {-1, 5, 7, -6, 2, 2};
__constant__ int point_y[POINTS] = {1, -1, 3, 1, 4, 1};

template <class T>
__global__ void sample(cudaTextureObject_t texture, bool normalized, T* out)
{
    int p = threadIdx.x;
    if (p >= POINTS) return;
    float x = point_x[p] + 0.5f, y = point_y[p] + 0.5f;
    if (normalized) x /= W, y /= H;
    out[p] = tex2D<T>(texture, x, y);
}

// tex1D over a 1D array of L texels, normalised, at the centres of texels -1, 7, 9 and 3.
constexpr int L = 7;
__global__ void sample_1d(cudaTextureObject_t texture, float* out)
{
    const int texel[4] = {-1, 7, 9, 3};
    int p = threadIdx.x;
    if (p < 4) out[p] = tex1D<float>(texture, (texel[p] + 0.5f) / L);
}

cudaTextureObject_t make_texture(const cudaResourceDesc& resource, cudaTextureAddressMode mode, bool normalized,
                                 cudaTextureReadMode read = cudaReadModeElementType,
                                 cudaTextureFilterMode filter = cudaFilterModePoint)
{
    cudaTextureDesc description;
    std::memset(&description, 0, sizeof description);
    description.addressMode[0] = description.addressMode[1] = mode;
    description.filterMode = filter;
    description.readMode = read;
    description.normalizedCoords = normalized;
    cudaTextureObject_t texture = 0;
    CUDA_CHECK(cudaCreateTextureObject(&texture, &resource, &description, nullptr));
    return texture;
}

cudaTextureObject_t make_texture(cudaArray_t array, cudaTextureAddressMode mode, bool normalized,
                                 cudaTextureReadMode read = cudaReadModeElementType,
                                 cudaTextureFilterMode filter = cudaFilterModePoint)
{
    cudaResourceDesc resource;
    std::memset(&resource, 0, sizeof resource);
    resource.resType = cudaResourceTypeArray;
    resource.res.array.array = array;
    return make_texture(resource, mode, normalized, read, filter);
}

// A value as the table prints it, and whether it is the one expected (a
// normalised read's float may differ from v / 255 in its last bit).
void print(float v) { std::printf(" %7.3f", v); }
void print(int v) { std::printf(" %7d", v); }
void print(uchar4 v) { std::printf(" %3d,%3d,%3d,%3d", v.x, v.y, v.z, v.w); }
bool same(float a, float b) { return std::fabs(a - b) <= 1e-6f * std::fabs(b); }
bool same(int a, int b) { return a == b; }
bool same(uchar4 a, uchar4 b) { return a.x == b.x && a.y == b.y && a.z == b.z && a.w == b.w; }

// Samples `texture` at the six points; prints them and whether they are `expected`.
template <class T>
bool check(const char* name, cudaTextureObject_t texture, bool normalized, const T (&expected)[POINTS])
{
    T* d_out;
    CUDA_CHECK(cudaMalloc(&d_out, POINTS * sizeof(T)));
    sample<T><<<1, 32>>>(texture, normalized, d_out);
    CUDA_CHECK(cudaGetLastError());
    T out[POINTS];
    CUDA_CHECK(cudaMemcpy(out, d_out, sizeof out, cudaMemcpyDeviceToHost));
    CUDA_CHECK(cudaFree(d_out));
    CUDA_CHECK(cudaDestroyTextureObject(texture));
    bool right = true;
    std::printf("%-22s", name);
    for (int p = 0; p < POINTS; ++p) {
        print(out[p]);
        right = right && same(out[p], expected[p]);
    }
    std::printf("  %s\n", right ? "correct" : "WRONG");
    return right;
}

int main(int argc, char** argv)
{
    const char* ask = argc > 1 ? argv[1] : "";
    // T[y][x] = 100 + 10 y + x, so that a border's 0 differs from every texel.
    float texels[H][W];
    for (int y = 0; y < H; ++y)
        for (int x = 0; x < W; ++x) texels[y][x] = float(100 + 10 * y + x);
    cudaChannelFormatDesc float_channel = cudaCreateChannelDesc<float>();
    if (std::strcmp(ask, "half") == 0) float_channel = cudaCreateChannelDescHalf();
    cudaArray_t array;
    if (std::strcmp(ask, "huge") == 0) CUDA_CHECK(cudaMallocArray(&array, &float_channel, 200000, 1));  // past 131072
    CUDA_CHECK(cudaMallocArray(&array, &float_channel, W, H));
    CUDA_CHECK(cudaMemcpy2DToArray(array, 0, 0, texels, W * sizeof(float), W * sizeof(float), H, cudaMemcpyHostToDevice));

    if (std::strcmp(ask, "linear") == 0) {
        float wanted[POINTS] = {};
        check("linear filter", make_texture(array, cudaAddressModeClamp, true, cudaReadModeElementType, cudaFilterModeLinear),
              true, wanted);
    }
    // The points (x, y): (-1, 1) (5, -1) (7, 3) (-6, 1) (2, 4) (2, 1). With
    // normalised coordinates, along x (W = 5) and y (H = 3):
    //   wrap keeps frac(x): x -1 -> 4, 5 -> 0, 7 -> 2, -6 -> 4;  y -1 -> 2, 3 -> 0, 4 -> 1.
    //   mirror reflects where floor(x) is odd: (-1 + 0.5) / 5 = -0.1, floor -1, 1 - 0.9 = 0.1 -> texel 0;
    //     5 -> 1.1, 1 - 0.1 = 0.9 -> 4; 7 -> 1.5 -> 0.5 -> 2; -6 -> -1.1, floor -2 even, 0.9 -> 4;
    //     y -1 -> 0, 3 -> 2, 4 -> 4.5 / 3 = 1.5 -> 0.5 -> 1.
    //   clamp: x -1 -> 0, 5 -> 4, 7 -> 4, -6 -> 0; y -1 -> 0, 3 -> 2, 4 -> 2.
    //   border: any coordinate outside reads 0; only (2, 1) is inside both ways.
    const float wrap[POINTS] = {114, 120, 102, 114, 112, 112};
    const float mirror[POINTS] = {110, 104, 122, 114, 112, 112};
    const float clamp[POINTS] = {110, 104, 124, 110, 122, 112};
    const float border[POINTS] = {0, 0, 0, 0, 0, 112};
    bool right = check("wrap", make_texture(array, cudaAddressModeWrap, true), true, wrap);
    right &= check("mirror", make_texture(array, cudaAddressModeMirror, true), true, mirror);
    right &= check("clamp", make_texture(array, cudaAddressModeClamp, true), true, clamp);
    right &= check("border", make_texture(array, cudaAddressModeBorder, true), true, border);
    // Unnormalised coordinates (texel units): clamp and border as above. Wrap and mirror
    // are defined for normalised coordinates only; without them a GPU clamps.
    right &= check("clamp, texels", make_texture(array, cudaAddressModeClamp, false), false, clamp);
    right &= check("border, texels", make_texture(array, cudaAddressModeBorder, false), false, border);
    right &= check("wrap, texels (clamps)", make_texture(array, cudaAddressModeWrap, false), false, clamp);

    // An int array, -7 * (10 y + x) - 1, clamped: the clamp column above less 100, times -7, less 1.
    int ints[H][W];
    for (int y = 0; y < H; ++y)
        for (int x = 0; x < W; ++x) ints[y][x] = -7 * (10 * y + x) - 1;
    cudaChannelFormatDesc int_channel = cudaCreateChannelDesc<int>();
    cudaArray_t int_array;
    CUDA_CHECK(cudaMallocArray(&int_array, &int_channel, W, H));
    CUDA_CHECK(cudaMemcpy2DToArray(int_array, 0, 0, ints, W * sizeof(int), W * sizeof(int), H, cudaMemcpyHostToDevice));
    const int int_clamp[POINTS] = {-71, -29, -169, -71, -155, -85};
    right &= check("int, clamp", make_texture(int_array, cudaAddressModeClamp, false), false, int_clamp);

    // uchar4 texels (x, y, x + y, 255), wrapped: the wrap column's texels (4,1) (0,2) (2,0) (4,1) (2,1) (2,1).
    uchar4 colours[H][W];
    for (int y = 0; y < H; ++y)
        for (int x = 0; x < W; ++x) colours[y][x] = make_uchar4(x, y, x + y, 255);
    cudaChannelFormatDesc colour_channel = cudaCreateChannelDesc<uchar4>();
    cudaArray_t colour_array;
    CUDA_CHECK(cudaMallocArray(&colour_array, &colour_channel, W, H));
    CUDA_CHECK(cudaMemcpy2DToArray(colour_array, 0, 0, colours, W * sizeof(uchar4), W * sizeof(uchar4), H, cudaMemcpyHostToDevice));
    const uchar4 colour_wrap[POINTS] = {{4, 1, 5, 255}, {0, 2, 2, 255}, {2, 0, 2, 255}, {4, 1, 5, 255}, {2, 1, 3, 255}, {2, 1, 3, 255}};
    right &= check("uchar4, wrap", make_texture(colour_array, cudaAddressModeWrap, true), true, colour_wrap);

    // Unsigned bytes 51 (x + y) read as normalised floats, v / 255, clamped: the clamp
    // column's texels (0,1) (4,0) (4,2) (0,1) (2,2) (2,1) give 51, 204, 306 -> 50 (one byte), 51, 204, 153.
    unsigned char bytes[H][W];
    for (int y = 0; y < H; ++y)
        for (int x = 0; x < W; ++x) bytes[y][x] = static_cast<unsigned char>(51 * (x + y));
    cudaChannelFormatDesc byte_channel = cudaCreateChannelDesc<unsigned char>();
    cudaArray_t byte_array;
    CUDA_CHECK(cudaMallocArray(&byte_array, &byte_channel, W, H));
    CUDA_CHECK(cudaMemcpy2DToArray(byte_array, 0, 0, bytes, W, W, H, cudaMemcpyHostToDevice));
    const float byte_clamp[POINTS] = {51 / 255.0f, 204 / 255.0f, 50 / 255.0f, 51 / 255.0f, 204 / 255.0f, 153 / 255.0f};
    right &= check("uchar as float, clamp", make_texture(byte_array, cudaAddressModeClamp, false, cudaReadModeNormalizedFloat), false,
                   byte_clamp);

    // The same texels in pitched memory (cudaMallocPitch rows), clamped: the clamp row again.
    float* pitched;
    size_t pitch;
    CUDA_CHECK(cudaMallocPitch(&pitched, &pitch, W * sizeof(float), H));
    CUDA_CHECK(cudaMemcpy2D(pitched, pitch, texels, W * sizeof(float), W * sizeof(float), H, cudaMemcpyHostToDevice));
    cudaResourceDesc rows;
    std::memset(&rows, 0, sizeof rows);
    rows.resType = cudaResourceTypePitch2D;
    rows.res.pitch2D.devPtr = pitched;
    rows.res.pitch2D.desc = float_channel;
    rows.res.pitch2D.width = W;
    rows.res.pitch2D.height = H;
    rows.res.pitch2D.pitchInBytes = pitch;
    right &= check("pitched, clamp", make_texture(rows, cudaAddressModeClamp, false), false, clamp);

    // Row 1's texels 1..3 (bytes 4..15) read back from the array: 111, 112, 113.
    float row[3];
    CUDA_CHECK(cudaMemcpy2DFromArray(row, sizeof row, array, sizeof(float), 1, sizeof row, 1, cudaMemcpyDeviceToHost));
    const bool read_back = row[0] == 111 && row[1] == 112 && row[2] == 113;
    std::printf("%-22s %7.3f %7.3f %7.3f  %s\n", "array read back", row[0], row[1], row[2], read_back ? "correct" : "WRONG");
    right &= read_back;

    // A 1D array of 7 texels, 0.25 k, written in two runs by cudaMemcpyToArray (texels 0-2, then 3-6),
    // sampled by tex1D and wrapped: texels -1, 7, 9, 3 read texels 6, 0, 2, 3.
    float line[L];
    for (int k = 0; k < L; ++k) line[k] = 0.25f * k;
    cudaArray_t line_array;
    CUDA_CHECK(cudaMallocArray(&line_array, &float_channel, L));
#pragma GCC diagnostic push  // cudaMemcpyToArray is deprecated, and still called by older course code
#pragma GCC diagnostic ignored "-Wdeprecated-declarations"
    CUDA_CHECK(cudaMemcpyToArray(line_array, 0, 0, line, 3 * sizeof(float), cudaMemcpyHostToDevice));
    CUDA_CHECK(cudaMemcpyToArray(line_array, 3 * sizeof(float), 0, line + 3, 4 * sizeof(float), cudaMemcpyHostToDevice));
#pragma GCC diagnostic pop
    cudaTextureObject_t line_texture = make_texture(line_array, cudaAddressModeWrap, true);
    float* d_line;
    CUDA_CHECK(cudaMalloc(&d_line, 4 * sizeof(float)));
    sample_1d<<<1, 32>>>(line_texture, d_line);
    CUDA_CHECK(cudaGetLastError());
    float wrapped[4];
    CUDA_CHECK(cudaMemcpy(wrapped, d_line, sizeof wrapped, cudaMemcpyDeviceToHost));
    const bool line_right = wrapped[0] == 1.5f && wrapped[1] == 0.0f && wrapped[2] == 0.5f && wrapped[3] == 0.75f;
    std::printf("%-22s %7.3f %7.3f %7.3f %7.3f  %s\n", "1D wrap (tex1D)", wrapped[0], wrapped[1], wrapped[2], wrapped[3],
                line_right ? "correct" : "WRONG");
    right &= line_right;
    CUDA_CHECK(cudaDestroyTextureObject(line_texture));
    CUDA_CHECK(cudaFree(d_line));
    CUDA_CHECK(cudaFreeArray(line_array));
    CUDA_CHECK(cudaFree(pitched));

    CUDA_CHECK(cudaFreeArray(array));
    CUDA_CHECK(cudaFreeArray(int_array));
    CUDA_CHECK(cudaFreeArray(colour_array));
    CUDA_CHECK(cudaFreeArray(byte_array));
    std::printf("texture_2d: %s\n", right ? "correct" : "WRONG");
    return right ? 0 : 1;
}
