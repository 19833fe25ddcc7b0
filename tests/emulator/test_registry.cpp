// The registry's derived names: each version's source file and kernel follow
// from its entry's id and name (labs/common/version.h), for every lab.
#include <gtest/gtest.h>

#include <fstream>
#include <sstream>
#include <string>

#include "labs/common/lab.h"

namespace warplab {
namespace {

std::string read_source(const std::string& relative)
{
    std::ifstream in(std::string(WARPLAB_SOURCE_DIR) + "/" + relative);
    if (!in) return {};
    std::stringstream s;
    s << in.rdbuf();
    return s.str();
}

// By hand from the rule kernels/<lab>/NN_<name>.cuh, NN the id's number in
// two digits, and <prefix>_<name> in namespace warplab::<lab>.
TEST(Registry, DerivesFileAndKernelFromIdAndName)
{
    const KernelFiles reduction{.lab = "reduction", .prefix = "reduce"};
    const VersionMeta racy{.id = "v5-racy", .name = "unroll_last_warp_racy", .idea = "", .changed = "", .expected = ""};
    EXPECT_EQ(kernel_file(reduction, racy), "kernels/reduction/05_unroll_last_warp_racy.cuh");
    EXPECT_EQ(kernel_symbol(reduction, racy), "warplab::reduction::reduce_unroll_last_warp_racy");
    const VersionMeta twelfth{.id = "v12", .name = "x", .idea = "", .changed = "", .expected = ""};
    EXPECT_EQ(kernel_file(reduction, twelfth), "kernels/reduction/12_x.cuh");
    EXPECT_TRUE(names_kernel("reduce_x", reduction, twelfth));
    EXPECT_FALSE(names_kernel("reduce_xy", reduction, twelfth));
    EXPECT_FALSE(names_kernel("matmul_x", reduction, twelfth));
    EXPECT_FALSE(names_kernel("reducex", reduction, twelfth));
}

// Every registered version's file exists and defines its kernel: a renamed
// file or function, or an entry whose name says another, fails here.
TEST(Registry, EveryVersionsFileDefinesItsKernel)
{
    unsigned checked = 0;
    for (const Lab& lab : all_labs())
        for (const Version& v : lab.versions) {
            const std::string text = read_source(v.file);
            ASSERT_FALSE(text.empty()) << lab.id << " " << v.id << ": " << v.file << " is missing";
            EXPECT_NE(text.find(v.kernel + "("), std::string::npos) << v.file << " does not define " << v.kernel;
            ++checked;
        }
    EXPECT_GE(checked, 18u);  // reduction's 10 and matmul's 8 at least
    // The check can fail: a name that no file carries is not found.
    EXPECT_TRUE(read_source("kernels/reduction/03_no_such_kernel.cuh").empty());
}

}  // namespace
}  // namespace warplab
