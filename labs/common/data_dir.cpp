#include "labs/common/data_dir.h"

#include <cstdlib>
#include <system_error>

#ifndef WARPLAB_SOURCE_DIR
#define WARPLAB_SOURCE_DIR "."
#endif
#ifndef WARPLAB_DATA_FROM_BIN  // <datadir>/warplab relative to <bindir> (GNUInstallDirs)
#define WARPLAB_DATA_FROM_BIN "../share/warplab"
#endif

namespace warplab {

namespace fs = std::filesystem;

namespace {

// The installed data beside the running binary, or empty. Its kernels/ folder
// tells it from a share/warplab that holds something else.
fs::path installed_data_dir()
{
    std::error_code ec;
    const fs::path self = fs::read_symlink("/proc/self/exe", ec);
    if (ec || self.empty()) return {};
    const fs::path dir = (self.parent_path() / WARPLAB_DATA_FROM_BIN).lexically_normal();
    return fs::is_directory(dir / "kernels", ec) ? dir : fs::path();
}

}  // namespace

fs::path data_dir()
{
    if (const char* env = std::getenv("WARPLAB_DATA_DIR"); env && *env) return env;
    static const fs::path found = [] {
        const fs::path installed = installed_data_dir();
        return installed.empty() ? fs::path(WARPLAB_SOURCE_DIR) : installed;
    }();
    return found;
}

std::string installed_runtime_link_file(bool gpu)
{
    const fs::path list = data_dir() / "cudart" / (gpu ? "link-gpu.txt" : "link.txt");
    std::error_code ec;
    return fs::exists(list, ec) ? list.string() : std::string();
}

}  // namespace warplab
