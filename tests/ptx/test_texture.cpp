// Texture fetches: the emulator's texels (warplab/emu/texture.h) at hand-picked
// coordinates under each addressing mode, and the `tex` instructions nvcc
// emits for tex1Dfetch and tex2D run from PTX written as nvcc 13 writes it
// (no nvcc needed). Whole programs through cudaCreateTextureObject are in
// tests/run/programs/texture_*.cu.
#include <gtest/gtest.h>

#include <bit>
#include <cstring>
#include <map>
#include <string>
#include <tuple>
#include <utility>

#include "ptx_test_util.h"
#include "tests/fault_of.h"
#include "warplab/emu/emulator.h"
#include "warplab/emu/texture.h"
#include "warplab/ptx/ptx.h"
#include "warplab/trace/mix.h"

namespace {

using warplab::test::fault_of;
using wl::ptx::testing::ptx_module;
using wl::emu::TextureAddress;

constexpr unsigned kW = 5, kH = 3;  // odd sizes

// A 5x3 float texture over emulator memory, T[y][x] = 100 + 10 y + x.
struct Grid {
    wl::emu::Emulator emu;
    float* texels = emu.alloc<float>(kW * kH);
    Grid()
    {
        for (unsigned y = 0; y < kH; ++y)
            for (unsigned x = 0; x < kW; ++x) texels[y * kW + x] = float(100 + 10 * y + x);
    }
    std::uint64_t texture(TextureAddress mode, bool normalized) const
    {
        wl::emu::Texture t;
        t.texels = reinterpret_cast<const unsigned char*>(texels);
        t.width = kW, t.height = kH, t.pitch = kW * sizeof(float);
        t.address[0] = t.address[1] = mode;
        t.normalized_coords = normalized;
        return wl::emu::create_texture(t);
    }
};

// The texel at the centre of texel (x, y), normalised by the size when asked; the first channel as a float.
float sample(std::uint64_t texture, int x, int y, bool normalized)
{
    wl::emu::TexelCoords at;
    at.dims = 2;
    at.f[0] = (float(x) + 0.5f) / (normalized ? float(kW) : 1.0f);
    at.f[1] = (float(y) + 0.5f) / (normalized ? float(kH) : 1.0f);
    std::uint32_t out[4];
    std::string why;
    EXPECT_TRUE(wl::emu::fetch_texel(texture, at, out, why)) << why;
    return std::bit_cast<float>(out[0]);
}

// Width 5: x = -1 wraps to 4, mirrors to 0 ((-0.5) / 5 = -0.1: floor -1 is odd,
// 1 - 0.9 = 0.1, texel 0), clamps to 0, and is outside under border (0).
// x = 5 wraps to 0, mirrors to 4, clamps to 4. x = -6 (-1.1: floor -2, even)
// wraps and mirrors to 4. Height 3: y = 4 (1.5: floor 1, odd) wraps to 1 and
// mirrors to 1 (1 - 0.5 = 0.5 of 3), clamps to 2. y = 1 is inside.
TEST(Texture, EachAddressingModeMapsCoordinatesOutsideAsTheProgrammingGuideSays)
{
    Grid g;
    const std::uint64_t wrap = g.texture(TextureAddress::Wrap, true), mirror = g.texture(TextureAddress::Mirror, true),
                        clamp = g.texture(TextureAddress::Clamp, true), border = g.texture(TextureAddress::Border, true);
    EXPECT_EQ(sample(wrap, -1, 1, true), 114);
    EXPECT_EQ(sample(mirror, -1, 1, true), 110);
    EXPECT_EQ(sample(clamp, -1, 1, true), 110);
    EXPECT_EQ(sample(border, -1, 1, true), 0);
    EXPECT_EQ(sample(wrap, 5, 1, true), 110);
    EXPECT_EQ(sample(mirror, 5, 1, true), 114);
    EXPECT_EQ(sample(clamp, 5, 1, true), 114);
    EXPECT_EQ(sample(wrap, -6, 1, true), 114);
    EXPECT_EQ(sample(mirror, -6, 1, true), 114);
    EXPECT_EQ(sample(wrap, 2, 4, true), 112);
    EXPECT_EQ(sample(mirror, 2, 4, true), 112);
    EXPECT_EQ(sample(clamp, 2, 4, true), 122);
    EXPECT_EQ(sample(border, 2, 4, true), 0);
    for (std::uint64_t t : {wrap, mirror, clamp, border}) EXPECT_EQ(sample(t, 3, 2, true), 123);  // inside: the texel itself
    // Texel units: clamp and border as above; wrap and mirror are for normalised coordinates, and clamp without them.
    EXPECT_EQ(sample(g.texture(TextureAddress::Clamp, false), 7, -1, false), 104);
    EXPECT_EQ(sample(g.texture(TextureAddress::Border, false), 7, 1, false), 0);
    EXPECT_EQ(sample(g.texture(TextureAddress::Wrap, false), -1, 1, false), 110);
    EXPECT_EQ(sample(g.texture(TextureAddress::Mirror, false), 5, 1, false), 114);
}

// Point sampling reads T[floor(x)]: anywhere within a texel reads that texel, not only its centre.
TEST(Texture, PointSamplingTakesTheTexelACoordinateFallsIn)
{
    Grid g;
    const std::uint64_t t = g.texture(TextureAddress::Clamp, false);
    wl::emu::TexelCoords at;
    at.dims = 2;
    std::uint32_t out[4];
    std::string why;
    for (const auto& [x, y, expected] : {std::tuple{2.0f, 1.0f, 112.0f}, {2.99f, 1.01f, 112.0f}, {3.0f, 0.999f, 103.0f}}) {
        at.f[0] = x, at.f[1] = y;
        ASSERT_TRUE(wl::emu::fetch_texel(t, at, out, why));
        EXPECT_EQ(std::bit_cast<float>(out[0]), expected) << x << ", " << y;
    }
}

// tex1Dfetch over linear memory: integer coordinates, 0 past either end.
TEST(Texture, LinearMemoryReadsZerosOutside)
{
    wl::emu::Emulator emu;
    int* data = emu.alloc<int>(7);
    for (int i = 0; i < 7; ++i) data[i] = -3 * i;
    wl::emu::Texture t;
    t.texels = reinterpret_cast<const unsigned char*>(data);
    t.width = 7, t.pitch = 28, t.linear = true, t.kind = wl::emu::ChannelKind::Signed;
    const std::uint64_t texture = wl::emu::create_texture(t);
    wl::emu::TexelCoords at;
    at.integer = true;
    std::uint32_t out[4];
    std::string why;
    for (const auto& [i, expected] : {std::pair{0, 0}, {6, -18}, {7, 0}, {-1, 0}}) {
        at.i[0] = i;
        ASSERT_TRUE(wl::emu::fetch_texel(texture, at, out, why));
        EXPECT_EQ(static_cast<std::int32_t>(out[0]), expected) << "x = " << i;
    }
    at.integer = false;  // tex1D with float coordinates is for arrays
    EXPECT_FALSE(wl::emu::fetch_texel(texture, at, out, why));
    EXPECT_NE(why.find("tex1Dfetch"), std::string::npos) << why;
}

// cudaReadModeNormalizedFloat: unsigned v / 255, signed v / 127 (-128 reads -1 too);
// as elements, signed bytes are sign-extended and unsigned ones zero-extended.
TEST(Texture, EightBitChannelsReadAsElementsOrNormalisedFloats)
{
    wl::emu::Emulator emu;
    auto* bytes = emu.alloc<unsigned char>(4);
    const unsigned char raw[4] = {0x80, 0x81, 0x7F, 0x33};  // -128, -127, 127, 51 as signed
    std::memcpy(bytes, raw, 4);
    wl::emu::Texture t;
    t.texels = bytes;
    t.width = 1, t.pitch = 4, t.channels = 4, t.channel_bits = 8, t.kind = wl::emu::ChannelKind::Signed;
    std::uint32_t out[4];
    std::string why;
    wl::emu::TexelCoords at;
    at.dims = 1;
    ASSERT_TRUE(wl::emu::fetch_texel(wl::emu::create_texture(t), at, out, why));
    EXPECT_EQ(static_cast<std::int32_t>(out[0]), -128);
    EXPECT_EQ(static_cast<std::int32_t>(out[3]), 51);
    t.normalized_read = true;
    ASSERT_TRUE(wl::emu::fetch_texel(wl::emu::create_texture(t), at, out, why));
    EXPECT_EQ(std::bit_cast<float>(out[0]), -1.0f);
    EXPECT_EQ(std::bit_cast<float>(out[1]), -1.0f);
    EXPECT_EQ(std::bit_cast<float>(out[2]), 1.0f);
    t.kind = wl::emu::ChannelKind::Unsigned;
    ASSERT_TRUE(wl::emu::fetch_texel(wl::emu::create_texture(t), at, out, why));
    EXPECT_EQ(std::bit_cast<float>(out[0]), 128.0f / 255.0f);
    EXPECT_EQ(std::bit_cast<float>(out[3]), 51.0f / 255.0f);
    t.normalized_read = false;
    ASSERT_TRUE(wl::emu::fetch_texel(wl::emu::create_texture(t), at, out, why));
    EXPECT_EQ(out[0], 128u);
}

TEST(Texture, WhatIsNotEmulatedOrNotThereIsRefusedWithAReason)
{
    Grid g;
    wl::emu::Texture t;
    t.texels = reinterpret_cast<const unsigned char*>(g.texels);
    t.width = kW, t.height = kH, t.pitch = kW * 4;
    t.filter = wl::emu::TextureFilter::Linear;
    const std::uint64_t linear = wl::emu::create_texture(t);
    wl::emu::TexelCoords at;
    at.dims = 2;
    std::uint32_t out[4];
    std::string why;
    EXPECT_FALSE(wl::emu::fetch_texel(linear, at, out, why));
    EXPECT_NE(why.find("linear filtering"), std::string::npos) << why;
    ASSERT_TRUE(wl::emu::destroy_texture(linear));
    EXPECT_FALSE(wl::emu::destroy_texture(linear));
    EXPECT_FALSE(wl::emu::fetch_texel(linear, at, out, why));
    EXPECT_NE(why.find("no live texture object"), std::string::npos) << why;
}

// What nvcc 13 emits for `out[i] = tex1Dfetch<float>(t, i + shift)` and for
// `out[0] = tex2D<int>(t, x, y)` (sm_90): the handle is a u64 parameter.
const std::string kFetches = ptx_module(R"(
.visible .entry shift_fetch(.param .u64 out_param, .param .u64 tex_param, .param .u32 shift_param)
{
	.reg .f32 	%f<5>;
	.reg .b32 	%r<4>;
	.reg .b64 	%rd<6>;

	ld.param.u64 	%rd1, [out_param];
	ld.param.u64 	%rd2, [tex_param];
	ld.param.u32 	%r2, [shift_param];
	mov.u32 	%r1, %tid.x;
	cvta.to.global.u64 	%rd3, %rd1;
	add.s32 	%r3, %r1, %r2;
	tex.1d.v4.f32.s32 	{%f1, %f2, %f3, %f4}, [%rd2, {%r3}];
	mul.wide.s32 	%rd4, %r1, 4;
	add.s64 	%rd5, %rd3, %rd4;
	st.global.f32 	[%rd5], %f1;
	ret;
}

.visible .entry fetch_2d(.param .u64 out_param, .param .u64 tex_param, .param .f32 x_param, .param .f32 y_param)
{
	.reg .f32 	%f<3>;
	.reg .b32 	%r<6>;
	.reg .b64 	%rd<4>;

	ld.param.u64 	%rd1, [out_param];
	ld.param.u64 	%rd2, [tex_param];
	ld.param.f32 	%f1, [x_param];
	ld.param.f32 	%f2, [y_param];
	cvta.to.global.u64 	%rd3, %rd1;
	tex.2d.v4.s32.f32 	{%r2, %r3, %r4, %r5}, [%rd2, {%f1, %f2}];
	st.global.u32 	[%rd3], %r2;
	ret;
}

.visible .entry fetch_3d(.param .u64 tex_param)
{
	.reg .f32 	%f<9>;
	.reg .b64 	%rd<2>;

	ld.param.u64 	%rd1, [tex_param];
	mov.f32 	%f1, 0f00000000;
	tex.3d.v4.f32.f32 	{%f5, %f6, %f7, %f8}, [%rd1, {%f1, %f1, %f1, %f1}];
	ret;
}
)", "9.0");

// 40 floats, shifted by 3 in one block of 40 threads: out[i] = in[i + 3], and 0 for i >= 37; under either schedule.
class TextureSchedules : public ::testing::TestWithParam<wl::emu::Schedule> {};

TEST_P(TextureSchedules, Tex1DfetchAsNvccEmitsItRunsTheShiftCopy)
{
    const auto m = wl::ptx::Module::parse(kFetches, "fetches.ptx");
    wl::emu::Emulator emu;
    emu.options.schedule = GetParam();
    float* in = emu.alloc<float>(40);
    float* out = emu.alloc<float>(40);
    for (int i = 0; i < 40; ++i) in[i] = 0.5f * float(i);
    wl::emu::Texture t;
    t.texels = reinterpret_cast<const unsigned char*>(in);
    t.width = 40, t.pitch = 160, t.linear = true;
    const std::uint64_t texture = wl::emu::create_texture(t);
    wl::ptx::launch(emu, m, "shift_fetch", dim3(1), dim3(40), 0, out, texture, 3u);
    for (int i = 0; i < 40; ++i) EXPECT_EQ(out[i], i + 3 < 40 ? 0.5f * float(i + 3) : 0.0f) << "i = " << i;
    // The instruction mix: one tex a warp (40 threads: warps 0 and 1), and no access recorded for it.
    std::map<unsigned, std::uint64_t> fetches_by_warp;
    for (const auto& r : emu.take_records()) {
        if (r.kind == wl::trace::Kind::Mix && r.array == static_cast<std::uint8_t>(wl::trace::InstructionClass::LoadTexture))
            fetches_by_warp[r.thread / 32] += r.offset;
        if (r.kind == wl::trace::Kind::Load) ADD_FAILURE() << "a load recorded for thread " << r.thread;
    }
    EXPECT_EQ(fetches_by_warp, (std::map<unsigned, std::uint64_t>{{0, 1}, {1, 1}}));
}

INSTANTIATE_TEST_SUITE_P(Schedules, TextureSchedules,
                         ::testing::Values(wl::emu::Schedule::Lockstep, wl::emu::Schedule::Independent));

// An int array of 5x3, -7 (10 y + x) - 1, unnormalised and clamped: (6.2, -3) reads texel (4, 0), -29.
TEST(Texture, Tex2DOfIntsAsNvccEmitsItReadsTheClampedTexel)
{
    const auto m = wl::ptx::Module::parse(kFetches, "fetches.ptx");
    wl::emu::Emulator emu;
    int* texels = emu.alloc<int>(kW * kH);
    for (unsigned y = 0; y < kH; ++y)
        for (unsigned x = 0; x < kW; ++x) texels[y * kW + x] = -7 * int(10 * y + x) - 1;
    int* out = emu.alloc<int>(1);
    wl::emu::Texture t;
    t.texels = reinterpret_cast<const unsigned char*>(texels);
    t.width = kW, t.height = kH, t.pitch = kW * 4, t.kind = wl::emu::ChannelKind::Signed;
    wl::ptx::launch(emu, m, "fetch_2d", dim3(1), dim3(1), 0, out, wl::emu::create_texture(t), 6.2f, -3.0f);
    EXPECT_EQ(out[0], -29);
}

// A handle that is no texture, and a geometry the interpreter does not run: faults naming them.
TEST(Texture, AFetchItCannotAnswerStopsTheLaunch)
{
    const auto m = wl::ptx::Module::parse(kFetches, "fetches.ptx");
    wl::emu::Emulator emu;
    int* out = emu.alloc<int>(1);
    const auto unbound = fault_of([&] { wl::ptx::launch(emu, m, "fetch_2d", dim3(1), dim3(1), 0, out, std::uint64_t(0), 0.0f, 0.0f); });
    ASSERT_TRUE(unbound) << "a fetch from texture 0 ran";
    EXPECT_NE(unbound->fault.what.find("no live texture object"), std::string::npos) << unbound->what();
    EXPECT_EQ(unbound->fault.kernel, "fetch_2d");
    const auto three_d = fault_of([&] { wl::ptx::launch(emu, m, "fetch_3d", dim3(1), dim3(1), 0, std::uint64_t(1)); });
    ASSERT_TRUE(three_d) << "tex.3d ran";
    EXPECT_NE(three_d->fault.what.find("tex.3d.v4.f32.f32"), std::string::npos) << three_d->what();
}

}  // namespace
