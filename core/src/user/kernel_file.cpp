#include "warplab/ptx/kernel_file.h"

#include "cuda_text.h"

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <optional>
#include <set>
#include <sstream>

namespace wl::ptx {
namespace fs = std::filesystem;

using detail::trim;

namespace {

// ---------------------------------------------------------- instantiating --

std::string read_text(const std::string& path, bool& ok)
{
    std::ifstream f(path, std::ios::binary);
    ok = static_cast<bool>(f);
    std::ostringstream s;
    s << f.rdbuf();
    return s.str();
}

// One argument as a comparable text: "(unsigned short)256", "256u", "256ul" -> "256";
// a type without its spaces.
std::string normalised(const std::string& a)
{
    if (const std::optional<long long> value = integral_argument(a)) return std::to_string(*value);
    std::string out = a;
    out.erase(std::remove(out.begin(), out.end(), ' '), out.end());
    return out;
}

// What the fill gives each parameter: its argument text, or nothing.
std::vector<std::optional<std::string>> fill_params(const KernelDecl& k, const TemplateFill& fill)
{
    std::vector<std::optional<std::string>> out;
    std::size_t type = 0, value = 0;
    for (const TemplateParam& p : k.params) {
        if (p.kind == TemplateParam::Kind::Type && type < fill.types.size())
            out.emplace_back(fill.types[type++]);
        else if (p.kind == TemplateParam::Kind::Integral && value < fill.values.size())
            out.emplace_back(std::to_string(fill.values[value++]));
        else
            out.emplace_back();
    }
    return out;
}

// The explicit argument list for the fill ("int, 256"), a parameter it cannot
// fill taking its default; nothing with the first parameter left open.
std::optional<std::string> argument_list(const KernelDecl& k, const std::vector<std::optional<std::string>>& filled,
                                         const TemplateParam** open)
{
    std::size_t last = filled.size();  // trailing defaults stay implicit
    while (last > 0 && !filled[last - 1] && !k.params[last - 1].default_value.empty()) --last;
    std::string out;
    for (std::size_t i = 0; i < last; ++i) {
        const std::string arg = filled[i] ? *filled[i] : k.params[i].default_value;
        if (arg.empty()) {
            *open = &k.params[i];
            return std::nullopt;
        }
        out += (i ? ", " : "") + arg;
    }
    return out;
}

// Whether an instance's printed arguments agree with every filled parameter.
bool fits(const std::vector<std::string>& args, const std::vector<std::optional<std::string>>& filled)
{
    if (args.size() != filled.size()) return false;
    for (std::size_t i = 0; i < args.size(); ++i)
        if (filled[i] && normalised(args[i]) != normalised(*filled[i])) return false;
    return true;
}

// "reduce2<int>" of "reduce2<int>(int*, int*, unsigned int)".
std::string written_instance(const std::string& demangled)
{
    std::string out;
    for (const std::string& a : template_arguments(demangled)) out += (out.empty() ? "" : ", ") + a;
    return std::string(instance_name(demangled)) + "<" + out + ">";
}

}  // namespace

TemplateFill fill_of(std::string_view instance, std::string launch)
{
    TemplateFill fill;
    fill.launch = std::move(launch);
    for (const std::string& a : template_arguments(instance)) {
        if (a == "true" || a == "false") continue;  // a bool parameter is not filled: it takes its default
        if (const std::optional<long long> value = integral_argument(a)) fill.values.push_back(*value);
        else fill.types.push_back(a);
    }
    return fill;
}

namespace {

// Gives m's static shared arrays that `source` declares with two or more
// dimensions and an element type of known size their extents (Module::shape_shared).
void shape_shared_arrays(Module& m, const CudaSource& source)
{
    const std::vector<CudaSource> sources{source};
    for (const KernelInfo& k : m.kernels())
        for (const SharedInfo& s : k.shared) {
            const VariableDecl* d = s.dynamic ? nullptr : find_shared(sources, s.name, instance_name(k.demangled));
            const unsigned elem = d ? type_bytes(d->type) : 0;
            if (elem == 0 || d->is_extern || d->dims.size() < 2 || s.bytes % elem) continue;
            if (const auto extents = declared_extents(d->dims, s.bytes / elem)) m.shape_shared(k.mangled, s.name, *extents, elem);
        }
}

}  // namespace

void name_parameters(Module& m, std::string_view source)
{
    const CudaSource read = read_cuda_source(source);
    for (const KernelDecl& k : read.kernels) m.name_parameters(k.name, k.parameter_names());
    shape_shared_arrays(m, read);
}

void name_parameters_from_sources(Module& m)
{
    for (const std::string& path : m.source_files()) {
        std::ifstream in(path, std::ios::binary);
        if (!in) continue;  // moved or removed since the build: its kernels keep "argument N"
        const std::string source((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
        name_parameters(m, source);
    }
}

namespace {

std::string kernel_list(const std::vector<KernelDecl>& kernels)
{
    std::string out;
    for (const KernelDecl& k : kernels) out += (out.empty() ? "" : ", ") + k.signature();
    return out;
}

std::string describe_fill(const TemplateFill& fill)
{
    std::string out;
    for (const std::string& t : fill.types) out += (out.empty() ? "" : ", ") + std::string("type ") + t;
    for (long long v : fill.values) out += (out.empty() ? "" : ", ") + std::string("value ") + std::to_string(v);
    return out.empty() ? "no template arguments" : out;
}

}  // namespace

KernelFile::KernelFile(std::string path, CompileOptions options, std::string shown)
    : path_(std::move(path)), shown_(shown.empty() ? path_ : std::move(shown)), options_(std::move(options))
{
    bool ok = false;
    source_ = read_text(path_, ok);
    if (!ok || fs::is_directory(path_)) throw KernelFileError("cannot read kernel file '" + shown_ + "'");
    if (trim(source_).empty()) throw KernelFileError(shown_ + " is empty: write a __global__ kernel in it");
    const CudaSource read = read_cuda_source(source_);
    kernels_ = read.kernels;
    if (!read.mentions_global)
        throw KernelFileError(shown_ + " declares no __global__ function: only a kernel (a __global__ function) can be launched");
}

KernelFile::~KernelFile() = default;

const Module& KernelFile::as_written()
{
    if (!plain_) {
        const CompiledPtx ptx = compile_file(path_, options_);
        plain_ = std::make_unique<Module>(Module::parse(ptx.text, shown_));
        name_parameters(*plain_, source_);
        warnings_[plain_.get()] = ptx.warnings;
    }
    return *plain_;
}

const KernelDecl& KernelFile::pick(std::string_view name) const
{
    if (kernels_.empty())
        throw KernelFileError(shown_ + " declares its kernels through macros, which warplab does not read: declare them with __global__");
    if (name.empty()) {
        if (kernels_.size() == 1) return kernels_.front();
        throw KernelFileError(shown_ + " has " + std::to_string(kernels_.size()) + " kernels: name one with --kernel (" +
                              kernel_list(kernels_) + ")");
    }
    for (const KernelDecl& k : kernels_)
        if (kernel_named(k.name, name)) return k;
    throw KernelFileError("no kernel '" + std::string(name) + "' in " + shown_ + "; its kernels: " + kernel_list(kernels_));
}

const KernelFile::Instance& KernelFile::instance(std::string_view name, const TemplateFill& fill)
{
    const KernelDecl& k = pick(name);
    const std::string key = k.name + '\0' + describe_fill(fill);
    if (auto it = instances_.find(key); it != instances_.end()) return it->second;
    const Module& plain = as_written();
    const std::vector<KernelInfo> compiled = plain.kernels();
    const auto found = [&](const Module& m, const KernelInfo& info, std::string how) -> const Instance& {
        return instances_[key] = Instance{&m, info.mangled, m.find(info.mangled), std::move(how), warnings_[&m]};
    };
    if (!k.is_template) {
        for (const KernelInfo& info : compiled)
            if (kernel_named(instance_name(info.demangled), k.name) && template_arguments(info.demangled).empty())
                return found(plain, info, "");
        throw KernelFileError("nvcc made no kernel " + k.name + " of " + shown_ + " (is it defined, not only declared?)");
    }
    // The file's own explicit instantiation, where one agrees with the fill.
    const std::vector<std::optional<std::string>> filled = fill_params(k, fill);
    for (const KernelInfo& info : compiled)
        if (kernel_named(instance_name(info.demangled), k.name) && fits(template_arguments(info.demangled), filled))
            return found(plain, info, written_instance(info.demangled) + ", the file's explicit instantiation");
    const TemplateParam* open = nullptr;
    const std::optional<std::string> args = argument_list(k, filled, &open);
    if (!args) {
        const bool none_instantiated = compiled.empty() &&
                                       std::all_of(kernels_.begin(), kernels_.end(), [](const KernelDecl& d) { return d.is_template; });
        const std::string what = "warplab cannot fill template parameter '" + open->text + "' of " + k.name + " from " +
                                 (fill.launch.empty() ? describe_fill(fill) : fill.launch);
        throw KernelFileError(none_instantiated ? shown_ + " has only uninstantiated kernel templates (" + kernel_list(kernels_) +
                                                      "), and " + what + ": give it a default or instantiate it in the file"
                                                : what + ", and no explicit instantiation in " + shown_ +
                                                      " fits: give it a default or instantiate it in the file");
    }
    const std::string expression = "&::" + k.name + "<" + *args + ">";
    auto& module = compiled_[expression];
    if (!module) {
        // The file's text with one line after it that takes the instance's
        // address; #line gives that line no file, so that nvcc's messages
        // name only the user's lines.
        const std::string text = source_ + "\n#line 1 \"(warplab instantiates " + k.name + "<" + *args +
                                 ">)\"\n[[maybe_unused]] static const void* const warplab_instance = "
                                 "reinterpret_cast<const void*>(" + expression + ");\n";
        CompileOptions opt = options_;
        opt.include_dirs.push_back(fs::absolute(path_).parent_path().string());  // its own #include "..." still resolve
        const CompiledPtx ptx = compile_source(text, shown_, opt);
        module = std::make_unique<Module>(Module::parse(ptx.text, shown_));
        name_parameters(*module, source_);
        warnings_[module.get()] = ptx.warnings;
    }
    for (const KernelInfo& info : module->kernels())
        if (kernel_named(instance_name(info.demangled), k.name) && fits(template_arguments(info.demangled), filled))
            return found(*module, info, written_instance(info.demangled) + ", instantiated for " + fill.launch);
    throw KernelFileError("nvcc made no kernel " + k.name + "<" + *args + "> of " + shown_);
}

}  // namespace wl::ptx
