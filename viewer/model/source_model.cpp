#include "viewer/model/source_model.h"

#include <algorithm>
#include <cctype>
#include <fstream>

#include "warplab/ptx/cuda_source.h"
#include "warplab/ptx/ptx.h"
#include "warplab/trace/record.h"

namespace warplab::viewer {

namespace {

std::string trim_right(const std::string& s)
{
    std::size_t end = s.size();
    while (end > 0 && std::isspace(static_cast<unsigned char>(s[end - 1]))) --end;
    return s.substr(0, end);
}

std::string trim(const std::string& s)
{
    const std::string r = trim_right(s);
    std::size_t begin = 0;
    while (begin < r.size() && std::isspace(static_cast<unsigned char>(r[begin]))) ++begin;
    return r.substr(begin);
}

bool is_comment_or_blank(const std::string& line)
{
    const std::string t = trim(line);
    return t.empty() || t.rfind("//", 0) == 0;
}

}  // namespace

SourceCache::SourceCache(std::string root) : root_(std::move(root)) {}

const SourceFile& SourceCache::get(const std::string& path)
{
    auto it = files_.find(path);
    if (it != files_.end()) return it->second;
    SourceFile f;
    f.path = path;
    f.hash = wl::trace::file_hash(path.c_str());
    std::ifstream in(root_ + "/" + path);
    if (!in) in.open(path);  // a user's own file (--file): as the trace names it, from the working directory
    f.found = bool(in);
    for (std::string line; std::getline(in, line);) f.lines.push_back(trim_right(line));
    return files_.emplace(path, std::move(f)).first->second;
}

std::vector<LineChange> changed_lines(const std::vector<std::string>& before, const std::vector<std::string>& after)
{
    const std::size_t n = before.size(), m = after.size();
    // Each line trimmed once, not once per pair compared (the source panel diffs every frame).
    const auto trimmed = [](const std::vector<std::string>& lines) {
        std::vector<std::string> out;
        out.reserve(lines.size());
        for (const std::string& line : lines) out.push_back(trim_right(line));
        return out;
    };
    const std::vector<std::string> was = trimmed(before), is = trimmed(after);
    // lcs[i][j]: longest common subsequence of before[i..] and after[j..]
    std::vector<std::vector<std::uint32_t>> lcs(n + 1, std::vector<std::uint32_t>(m + 1, 0));
    for (std::size_t i = n; i-- > 0;)
        for (std::size_t j = m; j-- > 0;)
            lcs[i][j] = was[i] == is[j] ? lcs[i + 1][j + 1] + 1 : std::max(lcs[i + 1][j], lcs[i][j + 1]);
    std::vector<LineChange> out(m, LineChange::Changed);
    for (std::size_t i = 0, j = 0; i < n && j < m;) {
        if (was[i] == is[j]) {
            out[j] = LineChange::Same;
            ++i, ++j;
        } else if (lcs[i + 1][j] >= lcs[i][j + 1]) {
            ++i;
        } else {
            ++j;
        }
    }
    for (std::size_t j = 0; j < m; ++j)
        if (out[j] == LineChange::Changed && is_comment_or_blank(after[j])) out[j] = LineChange::CommentChanged;
    return out;
}

namespace {

std::string text_of(const SourceFile& file)
{
    std::string text;
    for (const std::string& line : file.lines) text += line + "\n";
    return text;
}

}  // namespace

std::vector<std::string> included_kernel_files(const SourceFile& file)
{
    std::vector<std::string> out;
    for (const std::string& path : wl::ptx::read_cuda_source(text_of(file)).includes)
        if (path.starts_with("kernels/")) out.push_back(path);
    return out;
}

std::vector<std::string> kernel_parameter_names(const SourceFile& file, const std::string& kernel)
{
    for (const wl::ptx::KernelDecl& k : wl::ptx::read_cuda_source(text_of(file)).kernels)
        if (k.name == kernel || k.name.ends_with("::" + kernel)) return k.parameter_names();
    return {};
}

std::map<std::uint32_t, std::string> warned_lines(const std::string& nvcc_warnings, const std::string& path)
{
    const auto name_of = [](const std::string& p) { return p.substr(p.find_last_of('/') + 1); };
    std::map<std::uint32_t, std::string> lines;
    for (const std::string& line : wl::ptx::warning_headlines(nvcc_warnings)) {
        const std::size_t close = line.find("): warning "), open = line.rfind('(', close);
        if (close == std::string::npos || open == std::string::npos || name_of(line.substr(0, open)) != name_of(path)) continue;
        std::uint32_t n = 0;
        for (std::size_t i = open + 1; i < close; ++i) {
            if (!std::isdigit(static_cast<unsigned char>(line[i]))) { n = 0; break; }
            n = n * 10 + std::uint32_t(line[i] - '0');
        }
        if (n) lines.emplace(n, line.substr(close + std::string("): warning ").size()));
    }
    return lines;
}

std::string warned_legend(const std::map<std::uint32_t, std::string>& warned)
{
    std::string lines;
    for (const auto& [line, warning] : warned) lines += (lines.empty() ? "" : ", ") + std::to_string(line);
    return warned.size() == 1 ? "nvcc warns at line " + lines + " (hover it)" : "nvcc warns at lines " + lines + " (hover them)";
}

}  // namespace warplab::viewer
