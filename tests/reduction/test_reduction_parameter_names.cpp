// A lab version's fault names its parameters as kernels/reduction/*.cuh
// declares them (parse_lab_ptx reads the names from the data folder's
// sources; the PTX has only _param_0, _param_1, ...).
//
// v1 (reduce_interleaved_divergent<256, int>(g_in, g_out, n)) reads g_in[i]
// for i < n. Launched with n = 512 over an input of 300 ints, 2 blocks of
// 256: block 1's threads 44..255 read g_in[300..511], past its 300 elements,
// so the fault is "out-of-bounds load: g_in[3xx..5xx] (argument 0) is outside
// its 300 elements". With n = 300 the same launch finishes: no fault.
#include <gtest/gtest.h>

#include <regex>
#include <string>
#include <vector>

#include "labs/common/emulator_backend.h"
#include "labs/reduction/lab.h"

namespace warplab::test {
namespace {

constexpr const char* kV1 = "warplab::reduction::reduce_interleaved_divergent<256u, int>";

// The fault of launching v1 over 300 ones with this n; "" when it finishes.
std::string fault_of_v1(unsigned n)
{
    const wl::ptx::Module m = parse_lab_ptx(warplab::reduction::kPtx, "reduction");
    wl::emu::Emulator emu;
    int* in = emu.alloc<int>(300);
    int* out = emu.alloc<int>(2);
    const std::vector<int> ones(300, 1);
    emu.copy_to_device(in, ones.data(), ones.size());
    try {
        wl::ptx::launch(emu, m, kV1, dim3(2), dim3(256), 0, in, out, n);
    } catch (const wl::emu::KernelFault& f) {
        return f.what();
    }
    return "";
}

TEST(LabParameterNames, TheLabsKernelsTakeTheNamesTheirSourcesDeclare)
{
    const wl::ptx::Module m = parse_lab_ptx(warplab::reduction::kPtx, "reduction");
    const wl::ptx::KernelInfo* k = m.find(kV1);
    ASSERT_NE(k, nullptr);
    ASSERT_EQ(k->params.size(), 3u);
    EXPECT_EQ(k->params[0].source_name, "g_in");
    EXPECT_EQ(k->params[1].source_name, "g_out");
    EXPECT_EQ(k->params[2].source_name, "n");
}

TEST(LabParameterNames, AFaultSaysTheParametersName)
{
    const std::string what = fault_of_v1(512);
    EXPECT_TRUE(std::regex_search(what, std::regex(R"(out-of-bounds load: g_in\[[345][0-9][0-9]\] \(argument 0\) is outside its 300 elements)")))
        << what;
    EXPECT_EQ(what.find("argument 0["), std::string::npos) << what;
    EXPECT_EQ(fault_of_v1(300), "");
}

}  // namespace
}  // namespace warplab::test
