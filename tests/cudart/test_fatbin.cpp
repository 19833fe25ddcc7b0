// The fat-binary reader (warplab/cudart/fatbin.h) on fat binaries nvcc 13.0
// wrote from fatbins/saxpy.cu, checked in so that the test needs no toolkit:
//   nvcc -fatbin -lineinfo -gencode arch=compute_90,code=compute_90 saxpy.cu -o saxpy.zstd.fatbin
//   (the same with -compress-mode=speed: saxpy.lz4.fatbin; -compress-mode=none: saxpy.plain.fatbin)
//   nvcc -fatbin -gencode arch=compute_90,code=[sm_90,compute_90] saxpy.cu -o saxpy.elf_and_ptx.fatbin
// and on malformed copies of them, which must give one line and never a crash.
#include <gtest/gtest.h>

#include <cstring>
#include <fstream>
#include <iterator>
#include <vector>

#include "warplab/cudart/fatbin.h"
#include "warplab/emu/emulator.h"
#include "warplab/ptx/ptx.h"

namespace {

using Bytes = std::vector<unsigned char>;

Bytes read_bytes(const std::string& name)
{
    std::ifstream f(std::string(WARPLAB_SOURCE_DIR) + "/tests/cudart/fatbins/" + name, std::ios::binary);
    EXPECT_TRUE(f) << name;
    return Bytes(std::istreambuf_iterator<char>(f), {});
}

std::string only_ptx(const std::string& file)
{
    const auto entries = wl::cudart::read_fatbin(read_bytes(file));
    EXPECT_EQ(entries.size(), 1u) << file;
    return entries.empty() ? "" : entries[0].text;
}

TEST(Fatbin, EachCompressionGivesTheSamePtx)
{
    const auto zstd = wl::cudart::read_fatbin(read_bytes("saxpy.zstd.fatbin"));
    ASSERT_EQ(zstd.size(), 1u);
    EXPECT_EQ(zstd[0].arch, 90u);  // compute_90
    EXPECT_EQ(zstd[0].name, "saxpy.cu");
    const std::string& text = zstd[0].text;
    EXPECT_NE(text.find(".visible .entry _Z5saxpyfPKfPfi("), std::string::npos) << text;
    EXPECT_NE(text.find(".loc"), std::string::npos) << "-lineinfo's line records";
    EXPECT_EQ(text.find('\0'), std::string::npos) << "the padding is not part of the text";
    EXPECT_EQ(only_ptx("saxpy.lz4.fatbin"), text);
    EXPECT_EQ(only_ptx("saxpy.plain.fatbin"), text);
}

// A PTX entry after a machine-code entry (whose header is 64 bytes, the PTX
// entry's 112): the ELF is skipped, the PTX runs. y = 2 x + y over 5 elements,
// x = 1..5, y = 10..50: 12, 24, 36, 48, 60.
TEST(Fatbin, SkipsMachineCodeAndItsPtxRuns)
{
    const auto entries = wl::cudart::read_fatbin(read_bytes("saxpy.elf_and_ptx.fatbin"));
    ASSERT_EQ(entries.size(), 1u);
    const wl::ptx::Module m = wl::ptx::Module::parse(entries[0].text, "saxpy.cu");
    wl::emu::Emulator emu;
    float* x = emu.alloc<float>(5);
    float* y = emu.alloc<float>(5);
    for (int i = 0; i < 5; ++i) x[i] = float(i + 1), y[i] = float(10 * (i + 1));
    wl::ptx::launch(emu, m, "saxpy", dim3(1), dim3(32), 0, 2.0f, static_cast<const float*>(x), y, 5);
    EXPECT_EQ(std::vector<float>(y, y + 5), (std::vector<float>{12, 24, 36, 48, 60}));
}

TEST(Fatbin, ReadsTheRegisteredWrapper)
{
    const Bytes bytes = read_bytes("saxpy.lz4.fatbin");
    struct {
        std::uint32_t magic, version;
        const unsigned char* data;
        const void* unused;
    } wrapper{wl::cudart::kFatbinWrapperMagic, 1, bytes.data(), nullptr};
    const auto entries = wl::cudart::read_registered_fatbin(&wrapper);
    ASSERT_EQ(entries.size(), 1u);
    EXPECT_EQ(entries[0].text, only_ptx("saxpy.zstd.fatbin"));
    wrapper.magic = 0x12345678;
    EXPECT_THROW(wl::cudart::read_registered_fatbin(&wrapper), wl::cudart::FatbinError);
}

// Malformed input: a FatbinError of one line naming the problem.
void expect_error(const Bytes& bytes, const std::string& words)
{
    try {
        wl::cudart::read_fatbin(bytes);
        ADD_FAILURE() << "no error; expected '" << words << "'";
    } catch (const wl::cudart::FatbinError& e) {
        const std::string what = e.what();
        EXPECT_NE(what.find(words), std::string::npos) << what;
        EXPECT_EQ(what.find('\n'), std::string::npos) << what;
    }
}

template <class T> void put(Bytes& b, std::size_t at, T v) { std::memcpy(b.data() + at, &v, sizeof v); }

TEST(Fatbin, MalformedInputIsOneLine)
{
    const Bytes zstd = read_bytes("saxpy.zstd.fatbin"), lz4 = read_bytes("saxpy.lz4.fatbin");
    expect_error({}, "shorter than its header");
    Bytes b = zstd;
    put<std::uint32_t>(b, 0, 0xDEADBEEF);
    expect_error(b, "magic 0xDEADBEEF, not 0xBA55ED50");
    expect_error(Bytes(zstd.begin(), zstd.begin() + zstd.size() / 2), "but there are");  // cut short
    b = zstd;
    put<std::uint32_t>(b, 16 + 4, 8);  // an entry header smaller than its fields
    expect_error(b, "gives a header of 8 bytes");
    b = zstd;
    put<std::uint64_t>(b, 16 + 8, 1ull << 40);  // a payload past the end
    expect_error(b, "past the fat binary's end");
    b = zstd;
    for (std::size_t i = 16 + 112; i < 16 + 112 + 8; ++i) b[i] ^= 0xFF;  // the zstd frame's start broken
    expect_error(b, "is not valid zstd data");
    b = zstd;
    put<std::uint64_t>(b, 16 + 56, 100);  // a decompressed size that is not the data's
    expect_error(b, "bytes, not the 100 it gives");
    b = zstd;
    put<std::uint64_t>(b, 16 + 56, 1ull << 50);  // an absurd one: refused, not allocated
    expect_error(b, "decompressed size of");
    b = lz4;
    for (std::size_t i = 16 + 112; i < b.size(); ++i) b[i] = 0xFF;  // every match offset out of range
    expect_error(b, "is not a valid LZ4 block");
}

}  // namespace
