// What the corpus tests share: the corpus kernels' modules, seeded inputs,
// and a launch that runs on the emulator through the PTX interpreter.
#pragma once
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "corpus/layout.h"
#include "emulator/helpers.h"
#include "emulator/ptx_modules.h"
#include "warplab/random.h"

namespace warplab::test {

// The module of tests/corpus/<file>, compiled and parsed once per test binary.
inline const wl::ptx::Module& corpus_module(const std::string& file) { return module_of("tests/corpus/" + file); }

// The project-relative path of a corpus file, as fault reports name it.
inline std::string corpus_path(const std::string& file) { return "tests/corpus/" + file; }

// Runs `kernel` of tests/corpus/<file> on the emulator.
template <class... A>
void run_corpus(Emulator& emu, const std::string& file, const char* kernel, dim3 grid, dim3 block,
                std::uint32_t dynamic_shared_bytes, const A&... args)
{
    wl::ptx::launch(emu, corpus_module(file), kernel, grid, block, dynamic_shared_bytes, args...);
}

// n values drawn uniformly from [lo, hi] by a generator seeded with `seed`.
template <class T> std::vector<T> seeded_ints(std::size_t n, T lo, T hi, std::uint64_t seed)
{
    wl::Random rng(seed);
    std::vector<T> v(n);
    // an unsigned 64-bit bound keeps its bits: uniform_int's arithmetic is modulo 2^64
    for (T& x : v) x = static_cast<T>(rng.uniform_int(static_cast<std::int64_t>(lo), static_cast<std::int64_t>(hi)));
    return v;
}

inline std::vector<float> seeded_floats(std::size_t n, float lo, float hi, std::uint64_t seed)
{
    wl::Random rng(seed);
    std::vector<float> v(n);
    for (float& x : v) x = rng.uniform_float(lo, hi);
    return v;
}

inline unsigned blocks_for(std::size_t n, unsigned block) { return static_cast<unsigned>((n + block - 1) / block); }

// The odd sizes every size-generic corpus kernel runs at.
inline const std::vector<std::size_t>& odd_sizes()
{
    static const std::vector<std::size_t> sizes{1, 31, 33, 257, (1u << 16) + 3};
    return sizes;
}

// Fixture for tests that need nvcc; each test gets a fresh emulator.
class CorpusTest : public ::testing::Test {
protected:
    void SetUp() override { WL_SKIP_WITHOUT_NVCC(); }
    Emulator emu;
};

// The same under each schedule.
class CorpusScheduleTest : public ::testing::TestWithParam<Schedule> {
protected:
    void SetUp() override
    {
        WL_SKIP_WITHOUT_NVCC();
        emu.options.schedule = GetParam();
    }
    Emulator emu;
};

}  // namespace warplab::test
