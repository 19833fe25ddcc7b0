// Building a whole program for warplab's CUDA runtime (warplab/cudart/program.h).
#include "warplab/cudart/program.h"

#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <sstream>

#include "warplab/ptx/ptx.h"
#include "warplab/ptx/tools.h"

namespace wl::cudart {
namespace fs = std::filesystem;
using namespace wl::ptx::tools;

namespace {

// The runtime's archives and libraries, one a line (written by the build:
// core/src/cudart/CMakeLists.txt; installed: cmake/install.cmake).
std::vector<std::string> runtime_link_items(const ProgramOptions& o)
{
    const std::string link_file = !o.link_file.empty() ? o.link_file : o.gpu ? WARPLAB_CUDART_GPU_LINK_FILE : WARPLAB_CUDART_LINK_FILE;
    std::string text;
    if (!read_file(link_file, text))
        throw ptx::CompileError(std::string(o.gpu ? "warplab's GPU runtime" : "warplab's CUDA runtime") + " is not built (" + link_file +
                                " is missing)");
    std::vector<std::string> items;
    std::istringstream lines(text);
    for (std::string line; std::getline(lines, line);)
        if (!line.empty()) items.push_back((fs::path(link_file).parent_path() / line).lexically_normal().string());
    return items;
}

// Removes a build's work folder however the build ends.
struct WorkFolder {
    fs::path path;
    ~WorkFolder()
    {
        std::error_code ec;
        fs::remove_all(path, ec);
    }
};

// nvcc's -cudart: none (warplab's runtime is linked in its place), or NVIDIA's shared one.
const char* runtime_choice(const ProgramOptions& o) { return o.gpu ? "shared" : "none"; }

std::vector<std::string> compile_flags(const ProgramOptions& o)
{
    // -g: the host code's line table, so that the runtime names the host line of a mistake or a launch (host_access.h);
    // DWARF 4: binutils 2.40's addr2line names a template instance's lines in DWARF 5 by nvcc's intermediate file
    // (tmpxft_..._prog.cudafe1.cpp), not by the program's
    std::vector<std::string> flags{"-cudart", runtime_choice(o), "-lineinfo", "-g", "-Xcompiler", "-gdwarf-4",
                                   "-gencode", "arch=compute_90,code=compute_90"};
    for (const std::string& d : o.include_dirs) flags.push_back("-I" + fs::absolute(d).string());
    for (const std::string& d : o.defines) flags.push_back("-D" + d);
    if (!o.standard.empty()) flags.push_back("-std=" + o.standard);
    return flags;
}

// Where nvcc links NVIDIA's shared runtime from, for the program's run path:
// a toolkit in /usr/local/cuda is not on the loader's path, and the program
// must start without LD_LIBRARY_PATH. nvcc itself says which folders it links
// from (its dry run's LIBRARIES line), so an nvcc reached through a wrapper or
// a link elsewhere on PATH still names its own toolkit. Empty where none is found.
std::string toolkit_library_dir(const std::string& nvcc, const fs::path& work)
{
    const std::string out = (work / "dryrun").string();
    run({nvcc, "--dryrun", "-cudart", "shared", "warplab-none.o", "-o", "warplab-none"}, out, out);
    std::string text;
    read_file(out, text);
    std::istringstream lines(text);
    for (std::string line; std::getline(lines, line);) {
        if (line.rfind("#$ LIBRARIES=", 0) != 0) continue;
        for (std::size_t at = line.find("\"-L"); at != std::string::npos; at = line.find("\"-L", at + 1)) {
            const std::size_t end = line.find('"', at + 3);
            if (end == std::string::npos) break;
            const fs::path dir = fs::path(line.substr(at + 3, end - at - 3)).lexically_normal();
            std::error_code ec;
            if (fs::exists(dir / "libcudart.so", ec)) return fs::canonical(dir, ec).string();
        }
    }
    return "";
}

// Runs nvcc; its messages become the CompileError, or are returned (its warnings) when it succeeds.
std::string nvcc_or_throw(std::vector<std::string> argv, const fs::path& work, const std::string& what)
{
    const std::string err_path = (work / "stderr").string();
    const int rc = run(argv, (work / "stdout").string(), err_path);
    std::string err;
    read_file(err_path, err);
    if (rc == 0) return err;
    while (!err.empty() && (err.back() == '\n' || err.back() == ' ')) err.pop_back();
    throw ptx::CompileError(err.empty() ? "nvcc failed on " + what + " (exit status " + std::to_string(rc) + ")" : err);
}

// nvcc's warnings about one file, each once: it compiles a kernel for the
// device and for the host and warns in both passes; its remark on how to
// suppress them is left out.
std::string distinct_warnings(const std::string& messages)
{
    std::vector<std::string> warnings;
    std::istringstream lines(messages);
    for (std::string line; std::getline(lines, line);) {
        if (line.empty() || line.rfind("Remark: ", 0) == 0) continue;
        if (line.find("): warning") != std::string::npos || warnings.empty())
            warnings.push_back(line + '\n');
        else
            warnings.back() += line + '\n';
    }
    std::string out;
    for (std::size_t i = 0; i < warnings.size(); ++i)
        if (std::find(warnings.begin(), warnings.begin() + std::ptrdiff_t(i), warnings[i]) == warnings.begin() + std::ptrdiff_t(i)) out += warnings[i];
    return out;
}

}  // namespace

Program build_program(const ProgramOptions& o)
{
    const std::string nvcc = ptx::find_nvcc();
    if (nvcc.empty()) throw ptx::ToolkitMissing("warplab run needs the CUDA toolkit (nvcc); none found on PATH or in /usr/local/cuda");
    if (o.sources.empty()) throw ptx::CompileError("no source file to build");
    const std::vector<std::string> flags = compile_flags(o), link = runtime_link_items(o);
    std::string key_text = nvcc_version(nvcc) + '\0' + nvcc;
    for (const std::string& f : flags) key_text += '\0' + f;
    for (const std::string& item : link) key_text += '\0' + item + ' ' + hash_of_file(item);
    for (const std::string& s : o.sources) {
        std::string text;
        if (!read_file(s, text)) throw ptx::CompileError("cannot read " + s);
        // the name as given too: nvcc writes it into the PTX and the line tables (the viewer's source, __FILE__)
        key_text += '\0' + fs::absolute(s).lexically_normal().string() + '\0' + s + '\0' + text;
    }
    const fs::path root = o.cache_dir.empty() ? cache_dir(ptx::CompileOptions{}).parent_path() / "programs" : fs::path(o.cache_dir);
    const fs::path dir = root / hex(fnv1a64(key_text)), executable = dir / "program", deps_path = dir / "deps";
    const fs::path warnings_path = dir / "warnings";
    std::string deps, warnings;
    std::error_code ec;
    fs::create_directories(dir, ec);
    if (ec) throw ptx::CompileError("cannot create the program cache directory " + dir.string() + ": " + ec.message());
    const FileLock lock(dir / "lock");  // a second run of the same program at once waits and reuses this build
    if (fs::exists(executable) && read_file(deps_path, deps) && dependencies_unchanged(deps) && read_file(warnings_path, warnings))
        return Program{executable.string(), true, warnings};

    const WorkFolder folder{dir / ("work-" + std::to_string(getpid()))};
    const fs::path& work = folder.path;
    fs::create_directories(work, ec);
    if (ec) throw ptx::CompileError("cannot create the program cache directory " + work.string() + ": " + ec.message());
    const std::string run_path = o.gpu ? toolkit_library_dir(nvcc, work) : "";
    std::vector<std::string> objects;
    std::string listing;
    for (std::size_t i = 0; i < o.sources.size(); ++i) {
        const std::string object = (work / (std::to_string(i) + ".o")).string(), depfile = (work / (std::to_string(i) + ".d")).string();
        std::vector<std::string> argv{nvcc};
        argv.insert(argv.end(), flags.begin(), flags.end());
        argv.insert(argv.end(), {"-MD", "-MF", depfile, "-c", o.sources[i], "-o", object});
        warnings += distinct_warnings(nvcc_or_throw(argv, work, o.sources[i]));
        objects.push_back(object);
        std::string text;
        read_file(depfile, text);
        for (const std::string& f : parse_depfile(text))
            if (fs::absolute(f) != fs::absolute(o.sources[i])) listing += f + ' ' + hash_of_file(f) + '\n';
    }
    std::vector<std::string> argv{nvcc, "-cudart", runtime_choice(o)};
    argv.insert(argv.end(), objects.begin(), objects.end());
    argv.insert(argv.end(), {"-o", (work / "program").string(), "-Xlinker", "--start-group"});
    argv.insert(argv.end(), link.begin(), link.end());
    argv.insert(argv.end(), {"-Xlinker", "--end-group", "-lpthread"});
    if (o.gpu) argv.push_back("-ldl");  // the GPU runtime finds NVIDIA's entry points (dlsym) and driver (dlopen)
    if (!run_path.empty()) argv.insert(argv.end(), {"-Xlinker", "-rpath", "-Xlinker", run_path});
    nvcc_or_throw(argv, work, "the link");
    fs::rename(work / "program", executable, ec);
    if (ec) throw ptx::CompileError("cannot move the program into " + dir.string() + ": " + ec.message());
    write_file_atomically(warnings_path, warnings);
    write_file_atomically(deps_path, listing);  // last: an entry counts once its listing is there
    return Program{executable.string(), false, warnings};
}

}  // namespace wl::cudart
