// Reading instrumented PTX back in the tests: each record site with the
// instruction it follows and the immediates it writes, and ptxas's verdict.
#pragma once
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include <unistd.h>

#include "warplab/trace/record.h"

namespace warplab::test {

struct RecordSite {
    std::string instruction;  // the traced instruction, as written
    std::uint32_t line = 0, file_hash = 0;
    std::string word;         // kind | space << 8 | size << 16, or a register when decided at run time
};

inline std::string trimmed(const std::string& s)
{
    const auto b = s.find_first_not_of(" \t"), e = s.find_last_not_of(" \t");
    return b == std::string::npos ? "" : s.substr(b, e - b + 1);
}

// The number (or register) a record store writes at `field` ("[%wl_rec+20], ").
inline std::string stored(const std::string& line, const std::string& field)
{
    const auto at = line.find(field);
    if (at == std::string::npos) return "";
    std::string v = trimmed(line.substr(at + field.size()));
    if (!v.empty() && v.back() == ';') v.pop_back();
    return v;
}

inline std::vector<RecordSite> record_sites(const std::string& ptx)
{
    std::vector<RecordSite> sites;
    std::istringstream in(ptx);
    std::string line, last_original;
    while (std::getline(in, line)) {
        const std::string t = trimmed(line);
        if (t.find("@!%wl_on bra.uni") == 0) {
            sites.push_back(RecordSite{last_original});
        } else if (!sites.empty() && t.find("[%wl_rec+20], ") != std::string::npos) {
            sites.back().line = static_cast<std::uint32_t>(std::stoul(stored(t, "[%wl_rec+20], ")));
        } else if (!sites.empty() && t.find("[%wl_rec+24], ") != std::string::npos) {
            sites.back().file_hash = static_cast<std::uint32_t>(std::stoul(stored(t, "[%wl_rec+24], ")));
        } else if (!sites.empty() && t.find("[%wl_rec+28], ") != std::string::npos) {
            sites.back().word = stored(t, "[%wl_rec+28], ");
        } else if (!t.empty() && t.find("%wl_") == std::string::npos && t[0] != '.' && t[0] != '$' && t[0] != '/') {
            last_original = t;
        }
    }
    return sites;
}

inline std::string word(wl::trace::Kind k, wl::trace::Space s, unsigned size)
{
    return std::to_string(unsigned(k) | unsigned(s) << 8 | size << 16);
}

// 1-based line of the first line of `file` containing `marker`; 0 when none.
inline std::uint32_t line_of(const std::string& file, const std::string& marker)
{
    std::ifstream in(file);
    std::string line;
    for (std::uint32_t n = 1; std::getline(in, line); ++n)
        if (line.find(marker) != std::string::npos) return n;
    return 0;
}

// The test kernels' PTX: the build's, unless $WARPLAB_TEST_PTX names a copy
// (binaries carried to a GPU machine, where the build folder is not).
inline std::string test_ptx_path()
{
    const char* env = std::getenv("WARPLAB_TEST_PTX");
    return env && *env ? env : WARPLAB_TEST_PTX;
}

inline std::string read_file(const std::string& path)
{
    std::ifstream in(path);
    std::stringstream s;
    s << in.rdbuf();
    return s.str();
}

#if defined(WARPLAB_BINARY_DIR) && defined(WARPLAB_SOURCE_DIR)
// A lab's PTX ("reduction", "matmul"): the build's, else the copy shipped in
// kernels/ptx/; an empty path where neither exists.
inline std::filesystem::path lab_ptx_path(const std::string& lab)
{
    namespace fs = std::filesystem;
    const fs::path built = fs::path(WARPLAB_BINARY_DIR) / "ptx" / (lab + ".ptx");
    if (fs::exists(built)) return built;
    const fs::path shipped = fs::path(WARPLAB_SOURCE_DIR) / "kernels" / "ptx" / (lab + ".ptx");
    return fs::exists(shipped) ? shipped : fs::path();
}
#endif

struct PtxasVerdict {
    bool ok = false;
    std::string messages;
};

// ptxas -arch=sm_90 on the text: whether it assembles, and what ptxas said.
inline PtxasVerdict assemble(const std::string& ptxas, const std::string& ptx, const std::string& name)
{
    namespace fs = std::filesystem;
    const fs::path dir = fs::temp_directory_path() / ("warplab-ptxas-" + std::to_string(::getpid()));
    fs::create_directories(dir);
    const fs::path src = dir / (name + ".ptx"), log = dir / (name + ".log");
    std::ofstream(src) << ptx;
    const std::string cmd = "'" + ptxas + "' -arch=sm_90 '" + src.string() + "' -o /dev/null > '" + log.string() + "' 2>&1";
    PtxasVerdict v;
    v.ok = std::system(cmd.c_str()) == 0;
    v.messages = read_file(log.string());
    fs::remove(src);
    fs::remove(log);
    return v;
}

// Many modules at once, ptxas running in parallel, the largest first (matmul
// v13's instrumented module alone takes ptxas about 19 s of a core, most of the
// labs' 43 s; started last, it would run alone at the end): name -> messages of
// each module ptxas rejected (empty when all assemble).
inline std::map<std::string, std::string> assemble_all(const std::string& ptxas,
                                                       const std::vector<std::pair<std::string, std::string>>& modules)
{
    namespace fs = std::filesystem;
    const fs::path dir = fs::temp_directory_path() / ("warplab-ptxas-all-" + std::to_string(::getpid()));
    fs::remove_all(dir);
    fs::create_directories(dir);
    for (std::size_t i = 0; i < modules.size(); ++i) std::ofstream(dir / (std::to_string(i) + ".ptx")) << modules[i].second;
    const std::string cmd = "cd '" + dir.string() + "' && ls -S *.ptx | xargs -P 4 -I{} sh -c \"'" + ptxas +
                            "' -arch=sm_90 {} -o /dev/null > {}.log 2>&1 || echo {} >> failed\"";
    std::map<std::string, std::string> failed;
    if (std::system(cmd.c_str()) != 0) failed["(ptxas could not be run)"] = cmd;
    std::ifstream list(dir / "failed");
    for (std::string f; std::getline(list, f);) {
        const std::size_t i = std::stoul(f.substr(0, f.find('.')));
        failed[modules[i].first] = read_file((dir / (f + ".log")).string());
    }
    fs::remove_all(dir);
    return failed;
}

}  // namespace warplab::test
