// Kernel sources as the viewer shows them: the lines of a version's file, which
// of them changed from the previous version's file, the kernel files it
// includes, and the names of the kernel's parameters (for "g_out[0]").
#pragma once
#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace warplab::viewer {

struct SourceFile {
    std::string path;                 // relative to the repository root
    std::vector<std::string> lines;   // without line ends; line k is lines[k - 1]
    bool found = false;
    std::uint32_t hash = 0;           // wl::trace::file_hash of the path, as trace sites carry it
};

// Files read once from warplab's data (data_dir(): the source tree, or share/warplab
// where installed), or, for a user's own kernel file, from the working directory.
class SourceCache {
public:
    explicit SourceCache(std::string root);
    const SourceFile& get(const std::string& path);
    const std::string& root() const { return root_; }

private:
    std::string root_;
    std::map<std::string, SourceFile> files_;
};

enum class LineChange : std::uint8_t { Same, Changed, CommentChanged };

// Per line of `after`: whether it is new or changed against `before` (a line
// diff by longest common subsequence, trailing blanks ignored). Changed lines
// that are only comments are told apart, so the code that changed stands out.
std::vector<LineChange> changed_lines(const std::vector<std::string>& before, const std::vector<std::string>& after);

// `#include "kernels/..."` lines of a file, as repository paths.
std::vector<std::string> included_kernel_files(const SourceFile& file);

// The lines of `path` that nvcc warned about, from its messages
// ("dir/f.cu(12): warning #186-D: pointless comparison ..."): line -> the
// warning's text after "warning ". Files are matched by name, as nvcc may
// name them relative to where it ran.
std::map<std::uint32_t, std::string> warned_lines(const std::string& nvcc_warnings, const std::string& path);
// The source panel's legend of them, naming the lines (which may be scrolled
// out of view): "nvcc warns at line 7 (hover it)", "... at lines 7, 12 (hover them)".
std::string warned_legend(const std::map<std::uint32_t, std::string>& warned);

// Parameter names of `kernel`'s definition in the file, by position ("g_in", "g_out", "n").
std::vector<std::string> kernel_parameter_names(const SourceFile& file, const std::string& kernel);

}  // namespace warplab::viewer
