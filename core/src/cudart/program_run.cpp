// A whole program's run for the front ends (warplab/cudart/program_run.h).
#include "warplab/cudart/program_run.h"

#include <fcntl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <stdexcept>

#include "warplab/emu/emulator.h"

extern char** environ;

namespace wl::cudart {

namespace fs = std::filesystem;

namespace {

std::string usage_note() { return std::string(" (") + kRunArgumentsUsage + ")"; }

// "-I DIR" or "-IDIR" (and "--watch X" or "--watch=X"): the option's value, taken from args.
bool value_of(const std::vector<std::string>& args, std::size_t& i, const std::string& option, bool joined, std::string& value)
{
    const std::string& a = args[i];
    if (a == option) {
        if (i + 1 == args.size()) throw std::invalid_argument(option + " needs a value" + usage_note());
        value = args[++i];
        return true;
    }
    const std::string prefix = joined ? option : option + "=";
    if (a.size() > prefix.size() && a.compare(0, prefix.size(), prefix) == 0) {
        value = a.substr(prefix.size());
        return true;
    }
    return false;
}

// A directory of its own for the program's records, removed when done.
struct RunDir {
    fs::path path;
    RunDir()
    {
        std::string name = (fs::temp_directory_path() / "warplab-run-XXXXXX").string();
        if (!mkdtemp(name.data())) throw std::runtime_error("cannot create a directory in " + fs::temp_directory_path().string());
        path = name;
    }
    ~RunDir()
    {
        std::error_code ec;
        fs::remove_all(path, ec);
    }
    RunDir(const RunDir&) = delete;
    RunDir& operator=(const RunDir&) = delete;
};

// This process' environment with the records' directory and the watch set:
// made before fork, so that the child only calls async-signal-safe functions.
std::vector<std::string> program_environment(const RunArguments& a, const fs::path& dir)
{
    std::vector<std::string> env;
    const std::string run_dir = std::string(kRunDirVariable) + "=", watch = std::string(kWatchVariable) + "=",
                      fail = std::string(kFailVariable) + "=", engine = std::string(kEngineVariable) + "=";
    const auto ours = [&](const char* e) {
        for (const std::string* v : {&run_dir, &watch, &fail, &engine})
            if (std::strncmp(e, v->c_str(), v->size()) == 0) return true;
        return false;
    };
    for (char** e = environ; *e; ++e)
        if (!ours(*e)) env.emplace_back(*e);
    env.push_back(run_dir + dir.string());
    if (!a.watch.empty()) env.push_back(watch + a.watch);
    if (!a.fail.empty()) env.push_back(fail + a.fail);
    env.push_back(engine + a.engine);
    return env;
}

std::vector<char*> pointers(std::vector<std::string>& strings)
{
    std::vector<char*> out;
    for (std::string& s : strings) out.push_back(s.data());
    out.push_back(nullptr);
    return out;
}

std::string file_text(const fs::path& p)
{
    std::ifstream in(p, std::ios::binary);
    std::ostringstream text;
    text << in.rdbuf();
    return text.str();
}

}  // namespace

RunArguments parse_run_arguments(const std::vector<std::string>& args)
{
    RunArguments r;
    ProgramOptions& p = r.program;
    for (std::size_t i = 0; i < args.size(); ++i) {
        const std::string& a = args[i];
        std::string v;
        if (a == "--") {
            r.program_args.assign(args.begin() + std::ptrdiff_t(i) + 1, args.end());
            break;
        }
        if (value_of(args, i, "-I", true, v)) p.include_dirs.push_back(v);
        else if (value_of(args, i, "-D", true, v)) p.defines.push_back(v);
        else if (value_of(args, i, "--watch", false, v)) r.watch += (r.watch.empty() ? "" : ",") + v;
        else if (value_of(args, i, "--json", false, v)) r.json_dir = v;
        else if (value_of(args, i, "--backend", false, v)) r.backend = v;
        else if (value_of(args, i, "--engine", false, v)) r.engine = v;
        else if (value_of(args, i, "--fail", false, v)) {
            parse_injected_failure(v);  // refused here, before nvcc runs
            r.fail = v;
        }
        else if (a.rfind("-std=", 0) == 0 || a.rfind("--std=", 0) == 0) p.standard = a.substr(a.find('=') + 1);
        else if (!a.empty() && a[0] == '-') throw std::invalid_argument("unknown option '" + a + "'" + usage_note());
        else p.sources.push_back(a);
    }
    if (r.backend != "cpu" && r.backend != "gpu" && r.backend != "auto")
        throw std::invalid_argument("--backend " + r.backend + ": not cpu (the emulator), gpu or auto");
    if (!emu::parse_engine(r.engine)) throw std::invalid_argument("--engine " + r.engine + ": not interpret or fast");
    if (!r.fail.empty() && r.backend != "cpu")
        throw std::invalid_argument("--fail " + r.fail + ": only the emulator's runtime fails a call on purpose, not --backend " + r.backend);
    if (p.sources.empty()) throw std::invalid_argument("name the program's .cu file" + usage_note());
    for (const std::string& s : p.sources)
        if (!fs::is_regular_file(s)) throw std::invalid_argument("cannot read source file '" + s + "'");
    if (!p.standard.empty() && (p.standard.rfind("c++", 0) != 0 || p.standard.size() != 5 ||
                                p.standard.find_first_not_of("0123456789", 3) != std::string::npos))
        throw std::invalid_argument("-std=" + p.standard + " is not c++NN (c++17, c++20)");
    if (!r.watch.empty()) parse_watch(r.watch);  // a bad --watch is refused before nvcc runs
    return r;
}

ProgramRun run_built_program(const std::string& executable, const RunArguments& a, ProgramOutput output)
{
    const RunDir dir;
    const bool captured = output == ProgramOutput::Captured;
    const fs::path out_path = dir.path / "stdout", err_path = dir.path / "stderr";
    std::vector<std::string> env = program_environment(a, dir.path), argv{a.program.sources.front()};  // argv[0]: the program's name, as its file
    argv.insert(argv.end(), a.program_args.begin(), a.program_args.end());
    const std::vector<char*> env_pointers = pointers(env), argv_pointers = pointers(argv);
    std::fflush(stdout);
    std::fflush(stderr);
    const pid_t pid = fork();
    if (pid < 0) throw std::runtime_error(std::string("cannot start the program: ") + std::strerror(errno));
    if (pid == 0) {
        if (captured) {
            const int out = open(out_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0600), err = open(err_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0600);
            if (out < 0 || err < 0 || dup2(out, STDOUT_FILENO) < 0 || dup2(err, STDERR_FILENO) < 0) _exit(127);
        }
        execve(executable.c_str(), argv_pointers.data(), env_pointers.data());
        const char* why = std::strerror(errno);
        (void)!write(STDERR_FILENO, "warplab: error: cannot run the program: ", 40);
        (void)!write(STDERR_FILENO, why, std::strlen(why));
        (void)!write(STDERR_FILENO, "\n", 1);
        _exit(127);
    }
    int status = 0;
    while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
    }
    ProgramRun run;
    if (WIFSIGNALED(status)) {
        run.exit_code = 128 + WTERMSIG(status);
        run.stopped_by = "signal " + std::to_string(WTERMSIG(status)) + " (" + strsignal(WTERMSIG(status)) + ")";
    } else {
        run.exit_code = WEXITSTATUS(status);
    }
    if (captured) run.output = file_text(out_path), run.errors = file_text(err_path);
    run.launches = read_launches(dir.path.string());
    run.results_read = read_results_read(dir.path.string());
    for (const LaunchRecord& r : run.launches) {
        if (r.trace.empty()) continue;
        std::ifstream in(dir.path / r.trace);
        if (!in) throw std::runtime_error("the program's trace " + r.trace + " is missing");
        try {
            run.traces[r.index] = nlohmann::json::parse(in);
        } catch (const nlohmann::json::exception& e) {
            throw std::runtime_error("the program's trace " + r.trace + " does not read: " + e.what());
        }
    }
    return run;
}

}  // namespace wl::cudart
