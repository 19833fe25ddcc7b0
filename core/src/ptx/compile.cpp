// nvcc -ptx -lineinfo, cached by content.
//
// The cache key is a hash of the source text, the options and nvcc's version.
// Under the key lie the PTX and the list of files the source included (from
// nvcc -MD) with a hash of each: an entry is used only while every one of
// those files still hashes the same, so editing a header recompiles.
#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <mutex>
#include <sstream>

#include "warplab/ptx/ptx.h"
#include "warplab/ptx/tools.h"

namespace wl::ptx {
namespace fs = std::filesystem;

namespace tools {

std::uint64_t fnv1a64(std::string_view s, std::uint64_t h)
{
    for (unsigned char c : s) h = (h ^ c) * 1099511628211ULL;
    return h;
}

std::string hex(std::uint64_t v)
{
    char buf[17];
    std::snprintf(buf, sizeof buf, "%016llx", static_cast<unsigned long long>(v));
    return buf;
}

bool read_file(const fs::path& p, std::string& out)
{
    std::ifstream in(p, std::ios::binary);
    if (!in) return false;
    std::ostringstream s;
    s << in.rdbuf();
    out = s.str();
    return true;
}

void write_file_atomically(const fs::path& p, const std::string& text)
{
    const fs::path tmp = p.string() + ".tmp" + std::to_string(getpid());
    {
        std::ofstream out(tmp, std::ios::binary);
        out << text;
        if (!out) return;  // a cache that cannot be written is only slower
    }
    std::error_code ec;
    fs::rename(tmp, p, ec);
    if (ec) fs::remove(tmp, ec);
}

FileLock::FileLock(const fs::path& p) : fd_(open(p.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644))
{
    if (fd_ >= 0) flock(fd_, LOCK_EX);
}

FileLock::~FileLock()
{
    if (fd_ >= 0) close(fd_);
}

bool executable(const std::string& p) { return !p.empty() && access(p.c_str(), X_OK) == 0; }

// Runs argv, returns the exit status; stdout and stderr go to the given files.
int run(const std::vector<std::string>& argv, const std::string& out_path, const std::string& err_path)
{
    std::ostringstream cmd;
    for (const std::string& a : argv) {
        cmd << '\'';
        for (char c : a) {
            if (c == '\'') cmd << "'\\''";
            else cmd << c;
        }
        cmd << "' ";
    }
    cmd << ">'" << out_path << "' 2>'" << err_path << "'";
    const int status = std::system(cmd.str().c_str());
    return WIFEXITED(status) ? WEXITSTATUS(status) : 128;
}

fs::path cache_dir(const CompileOptions& opt)
{
    if (!opt.cache_dir.empty()) return opt.cache_dir;
    if (const char* e = std::getenv("WARPLAB_PTX_CACHE"); e && *e) return e;
    if (const char* x = std::getenv("XDG_CACHE_HOME"); x && *x) return fs::path(x) / "warplab" / "ptx";
    if (const char* h = std::getenv("HOME"); h && *h) return fs::path(h) / ".cache" / "warplab" / "ptx";
    return fs::temp_directory_path() / "warplab-ptx-cache";
}

const std::string& nvcc_version(const std::string& nvcc)
{
    static std::mutex m;
    static std::string path, version;
    std::lock_guard lock(m);
    if (path != nvcc) {
        const fs::path tmp = fs::temp_directory_path() / ("warplab-nvcc-version-" + std::to_string(getpid()));
        run({nvcc, "--version"}, tmp.string(), "/dev/null");
        version.clear();
        read_file(tmp, version);
        std::error_code ec;
        fs::remove(tmp, ec);
        path = nvcc;
    }
    return version;
}

void replace_all(std::string& s, const std::string& from, const std::string& to)
{
    if (from.empty()) return;
    for (std::size_t p = 0; (p = s.find(from, p)) != std::string::npos; p += to.size()) s.replace(p, from.size(), to);
}

// The files nvcc -MD listed, one a line ("target : a \\\n b \\\n c").
std::vector<std::string> parse_depfile(const std::string& text)
{
    std::vector<std::string> files;
    const std::size_t colon = text.find(" : ");
    std::string word;
    auto flush = [&] {
        if (!word.empty()) files.push_back(word);
        word.clear();
    };
    for (std::size_t i = colon == std::string::npos ? 0 : colon + 3; i < text.size(); ++i) {
        const char c = text[i];
        if (c == '\\' && i + 1 < text.size() && text[i + 1] == ' ') {
            word += ' ';
            ++i;
        } else if (c == '\\' && i + 1 < text.size() && text[i + 1] == '\n') {
            ++i;
        } else if (c == ' ' || c == '\n' || c == '\t') {
            flush();
        } else {
            word += c;
        }
    }
    flush();
    return files;
}

std::string hash_of_file(const std::string& path)
{
    std::string text;
    if (!read_file(path, text)) return "missing";
    return hex(fnv1a64(text));
}

// "path hash" per line; true when every file still hashes the same.
bool dependencies_unchanged(const std::string& listing)
{
    std::istringstream in(listing);
    std::string line;
    while (std::getline(in, line)) {
        const std::size_t sp = line.rfind(' ');
        if (sp == std::string::npos) return false;
        if (hash_of_file(line.substr(0, sp)) != line.substr(sp + 1)) return false;
    }
    return true;
}

}  // namespace tools

namespace {
using namespace tools;

// nvcc's messages as the user sees them: the input file under its shown
// name, the strip prefix gone, no trailing blank lines.
std::string shown_messages(std::string messages, const std::string& input, const std::string& shown_name,
                           const CompileOptions& opt)
{
    replace_all(messages, input, shown_name);
    if (!opt.strip_prefix.empty()) replace_all(messages, opt.strip_prefix + (opt.strip_prefix.back() == '/' ? "" : "/"), "");
    while (!messages.empty() && (messages.back() == '\n' || messages.back() == ' ')) messages.pop_back();
    return messages;
}

// The warnings of a successful compile's messages, without nvcc's remark on
// -diag-suppress (warplab passes no such flag).
std::string warnings_of(const std::string& messages)
{
    std::istringstream in(messages);
    std::string out;
    for (std::string line; std::getline(in, line);) {
        const bool blank_again = line.empty() && (out.empty() || out.ends_with("\n\n"));  // the remark's blank line
        if (!line.starts_with("Remark: The warnings can be suppressed") && !blank_again) out += line + '\n';
    }
    while (!out.empty() && out.back() == '\n') out.pop_back();
    return out.find("warning") == std::string::npos ? "" : out;
}

// Removes the strip prefix from the `.file` lines of the PTX.
std::string strip_file_paths(std::string ptx, const std::string& prefix)
{
    if (prefix.empty()) return ptx;
    std::string p = prefix;
    if (p.back() != '/') p += '/';
    replace_all(ptx, "\"" + p, "\"");
    return ptx;
}

CompiledPtx compile(const std::string& source_path, const std::string& source_text, const std::string& shown_name,
                    const CompileOptions& opt)
{
    const std::string nvcc = find_nvcc();
    if (nvcc.empty())
        throw ToolkitMissing("compiling CUDA needs the CUDA toolkit (nvcc); none found on PATH or in /usr/local/cuda");
    std::vector<std::string> flags{"-ptx", "-lineinfo", "-arch=" + opt.arch, "-std=c++20"};
    for (const std::string& d : opt.include_dirs) flags.push_back("-I" + fs::absolute(d).string());
    for (const std::string& d : opt.defines) flags.push_back("-D" + d);
    for (const std::string& f : opt.extra_flags) flags.push_back(f);

    std::string key_text = source_path + '\0' + source_text + '\0' + nvcc_version(nvcc) + '\0' + opt.strip_prefix;
    for (const std::string& f : flags) key_text += '\0' + f;
    const std::string key = hex(fnv1a64(key_text));
    const fs::path dir = cache_dir(opt);
    const fs::path ptx_path = dir / (key + ".ptx"), deps_path = dir / (key + ".deps");
    const fs::path warnings_path = dir / (key + ".warnings");

    std::string cached, deps, cached_warnings;
    if (read_file(ptx_path, cached) && read_file(deps_path, deps) && read_file(warnings_path, cached_warnings) &&
        dependencies_unchanged(deps))
        return CompiledPtx{std::move(cached), shown_name, std::move(cached_warnings)};

    std::error_code ec;
    fs::create_directories(dir, ec);
    const fs::path work = dir / ("work-" + std::to_string(getpid()) + "-" + key);
    fs::create_directories(work, ec);
    if (ec) throw CompileError("cannot create the PTX cache directory " + dir.string() + ": " + ec.message());
    std::string input = source_path;
    if (input.empty()) {  // source text: nvcc reads it from a file named like the user's
        input = (work / fs::path(shown_name).filename()).string();
        write_file_atomically(input, source_text);
    }
    std::vector<std::string> argv{nvcc};
    argv.insert(argv.end(), flags.begin(), flags.end());
    const std::string out = (work / "out.ptx").string(), dep = (work / "out.d").string();
    argv.insert(argv.end(), {"-MD", "-MF", dep, input, "-o", out});
    const std::string err_path = (work / "stderr").string();
    const int rc = run(argv, (work / "stdout").string(), err_path);
    std::string ptx, err, depfile;
    read_file(err_path, err);
    read_file(dep, depfile);
    const bool ok = rc == 0 && read_file(out, ptx);
    fs::remove_all(work, ec);
    err = shown_messages(std::move(err), input, shown_name, opt);
    if (!ok) throw CompileError(err.empty() ? "nvcc failed on " + shown_name + " (exit status " + std::to_string(rc) + ")" : err);
    replace_all(ptx, input, source_path.empty() ? shown_name : source_path);
    ptx = strip_file_paths(std::move(ptx), opt.strip_prefix);

    std::string listing;
    for (const std::string& f : parse_depfile(depfile)) {
        if (f == input) continue;  // the source itself is in the key
        listing += f + ' ' + hash_of_file(f) + '\n';
    }
    std::string warnings = warnings_of(err);
    write_file_atomically(ptx_path, ptx);
    write_file_atomically(warnings_path, warnings);
    write_file_atomically(deps_path, listing);  // last: an entry counts once its listing is there
    return CompiledPtx{std::move(ptx), shown_name, std::move(warnings)};
}

}  // namespace

std::string first_warnings(const std::string& warnings, unsigned most)
{
    // A warning starts at a line "file(line): warning ..." and runs to the next one.
    std::istringstream in(warnings);
    std::string out;
    unsigned seen = 0;
    for (std::string line; std::getline(in, line);) {
        if (line.find("): warning") != std::string::npos) ++seen;
        if (seen <= most) out += line + '\n';
    }
    while (!out.empty() && out.back() == '\n') out.pop_back();
    if (seen > most) out += "\n(and " + std::to_string(seen - most) + " more " + (seen - most == 1 ? "warning" : "warnings") + ")";
    return out;
}

std::vector<std::string> warning_headlines(const std::string& warnings)
{
    std::istringstream in(warnings);
    std::vector<std::string> lines;
    for (std::string line; std::getline(in, line);)
        if (line.find("): warning") != std::string::npos) lines.push_back(line);
    return lines;
}

std::string find_nvcc()
{
    if (const char* e = std::getenv("WARPLAB_NVCC"); e && *e) return executable(e) ? e : "";
    if (const char* path = std::getenv("PATH")) {
        std::istringstream dirs(path);
        std::string d;
        while (std::getline(dirs, d, ':'))
            if (!d.empty() && executable(d + "/nvcc")) return d + "/nvcc";
    }
    return executable("/usr/local/cuda/bin/nvcc") ? "/usr/local/cuda/bin/nvcc" : "";
}

std::string ptxas_report(const std::string& ptx_text, const std::string& arch)
{
    const std::string nvcc = find_nvcc();
    const std::string ptxas = nvcc.empty() ? "" : (fs::path(nvcc).parent_path() / "ptxas").string();
    if (!executable(ptxas)) throw ToolkitMissing("ptxas (the CUDA toolkit's) not found beside nvcc");
    static std::mutex m;
    static std::map<std::string, std::string> reports;  // by arch and text's hash
    const std::string key = arch + ' ' + hex(fnv1a64(ptx_text));
    std::lock_guard lock(m);
    if (auto it = reports.find(key); it != reports.end()) return it->second;
    std::error_code ec;
    const fs::path work = fs::temp_directory_path() / ("warplab-ptxas-" + std::to_string(getpid()) + "-" + hex(fnv1a64(key)));
    fs::create_directories(work, ec);
    write_file_atomically(work / "kernel.ptx", ptx_text);
    const int rc = run({ptxas, "-arch=" + arch, "-v", (work / "kernel.ptx").string(), "-o", (work / "kernel.cubin").string()},
                       (work / "stdout").string(), (work / "stderr").string());
    std::string out, log;
    read_file(work / "stdout", out);
    read_file(work / "stderr", log);
    fs::remove_all(work, ec);
    if (rc != 0) throw CompileError("ptxas failed (exit status " + std::to_string(rc) + "):\n" + log);
    return reports[key] = out + log;
}

CompiledPtx compile_file(const std::string& cu_path, const CompileOptions& opt)
{
    std::string text;
    if (!read_file(cu_path, text)) throw CompileError("cannot read " + cu_path);
    const std::string abs = fs::absolute(cu_path).lexically_normal().string();
    return compile(abs, text, cu_path, opt);
}

CompiledPtx compile_source(const std::string& source, const std::string& name, const CompileOptions& opt)
{
    return compile("", source, name, opt);
}

}  // namespace wl::ptx
