// What compiling with nvcc and caching the result by content takes, shared by
// compile_file (ptx.h) and the whole-program build of `warplab run`
// (warplab/cudart/program.h): running a tool, nvcc's version, and the list of
// files a compilation read (from nvcc -MD) with a hash of each.
#pragma once
#include <cstdint>
#include <filesystem>
#include <string>
#include <string_view>
#include <vector>

#include "warplab/ptx/ptx.h"

namespace wl::ptx::tools {

std::uint64_t fnv1a64(std::string_view s, std::uint64_t h = 14695981039346656037ULL);
std::string hex(std::uint64_t v);  // 16 hex digits
bool read_file(const std::filesystem::path& p, std::string& out);
void write_file_atomically(const std::filesystem::path& p, const std::string& text);  // a cache that cannot be written is only slower
// Runs argv, returns its exit status; stdout and stderr go to the given files.
int run(const std::vector<std::string>& argv, const std::string& out_path, const std::string& err_path);
// compile_file's cache directory for these options.
std::filesystem::path cache_dir(const CompileOptions& opt);
const std::string& nvcc_version(const std::string& nvcc);  // `nvcc --version`'s text
// The files a depfile (nvcc -MD) lists.
std::vector<std::string> parse_depfile(const std::string& text);
std::string hash_of_file(const std::string& path);  // "missing" for a file that cannot be read
// "path hash" per line; true when every file still hashes the same.
bool dependencies_unchanged(const std::string& listing);

// An exclusive lock on a file (created if missing), released when this object
// goes or the process ends: two processes building one cache entry at once
// build it once, the second waiting for the first. A file that cannot be opened
// (a read-only cache) leaves the build unguarded, as before.
class FileLock {
public:
    explicit FileLock(const std::filesystem::path& p);
    ~FileLock();
    FileLock(const FileLock&) = delete;
    FileLock& operator=(const FileLock&) = delete;

private:
    int fd_;
};

}  // namespace wl::ptx::tools
