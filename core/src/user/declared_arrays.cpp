#include "warplab/ptx/declared_arrays.h"

#include <filesystem>
#include <fstream>
#include <iterator>
#include <set>

#include "warplab/trace/analysis.h"

namespace wl::ptx {
namespace fs = std::filesystem;

namespace {

// `first` where it exists, else `rest` under `root`.
fs::path found(const fs::path& first, const std::string& root, const std::string& rest)
{
    std::error_code ec;
    return root.empty() || fs::exists(first, ec) ? first : fs::path(root) / rest;
}

void read_into(const fs::path& path, const std::string& root, std::set<fs::path>& seen, std::vector<CudaSource>& out)
{
    std::ifstream in(path, std::ios::binary);
    if (!in || !seen.insert(fs::weakly_canonical(path)).second) return;
    const std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    out.push_back(read_cuda_source(text));
    out.back().file = path.filename().string();
    const std::vector<std::string> includes = out.back().includes;  // out grows below
    for (const std::string& inc : includes) read_into(found(path.parent_path() / inc, root, inc), root, seen, out);
}

bool declared_in(const CudaSource& source, const VariableDecl* d)
{
    return !source.variables.empty() && d >= &source.variables.front() && d <= &source.variables.back();
}

// The file of `sources` that declares `d`, where not the first (the kernel's own file): "" there.
std::string declaring_file(const std::vector<CudaSource>& sources, const VariableDecl* d)
{
    for (std::size_t i = 1; i < sources.size(); ++i)
        if (declared_in(sources[i], d)) return sources[i].file;
    return "";
}

}  // namespace

std::vector<CudaSource> read_cuda_files(const std::string& path, const std::string& root)
{
    std::vector<CudaSource> out;
    std::set<fs::path> seen;
    read_into(found(path, root, path), root, seen, out);
    return out;
}

std::string declared_element_type(const VariableDecl& v, std::string_view element_type)
{
    const std::string type = v.type_is_parameter ? std::string(element_type) : v.type;
    return type_bytes(type) ? type : "";
}

void declare_array_types(wl::trace::BlockTrace& block, const std::vector<CudaSource>& sources, std::string_view kernel,
                         std::string_view element_type)
{
    for (wl::trace::SharedArrayInfo& a : block.shared_arrays) {
        const VariableDecl* d = find_shared(sources, a.name, kernel);
        const std::string type = d ? declared_element_type(*d, element_type) : "";
        const unsigned size = type_bytes(type);
        const std::uint64_t bytes = a.count * a.elem_size;
        if (size == 0 || bytes % size) continue;
        a.type = type;
        a.line = d->line;  // PTX gave the kernel's line
        a.file = declaring_file(sources, d);
        a.elem_size = size;
        a.count = bytes / size;
        if (d->dims.size() >= 2 && !d->is_extern) a.dims = declared_extents(d->dims, a.count).value_or(std::vector<std::uint64_t>{});
    }
}

}  // namespace wl::ptx
