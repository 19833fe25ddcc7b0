#include "process.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstring>

namespace wl::grade {
namespace {

using Clock = std::chrono::steady_clock;

void append_tail(std::string& s, const char* data, std::size_t n, std::size_t keep)
{
    s.append(data, n);
    if (s.size() > 2 * keep) s.erase(0, s.size() - keep);
}

// In the child, after fork: own process group, no core files, pipes as stdout/stderr.
[[noreturn]] void exec_child(const std::vector<std::string>& argv, const std::string& cwd, int out_fd, int err_fd)
{
    setpgid(0, 0);
    const rlimit no_core{0, 0};
    setrlimit(RLIMIT_CORE, &no_core);
    dup2(out_fd, STDOUT_FILENO);
    dup2(err_fd, STDERR_FILENO);
    const int devnull = open("/dev/null", O_RDONLY);
    if (devnull >= 0) dup2(devnull, STDIN_FILENO);
    if (!cwd.empty() && chdir(cwd.c_str()) != 0) _exit(126);
    std::vector<char*> args;
    for (const std::string& a : argv) args.push_back(const_cast<char*>(a.c_str()));
    args.push_back(nullptr);
    execvp(args[0], args.data());
    const std::string msg = "cannot run " + argv[0] + ": " + std::strerror(errno) + "\n";
    (void)!write(STDERR_FILENO, msg.data(), msg.size());
    _exit(127);
}

}  // namespace

ProcessResult run_process(const std::vector<std::string>& argv, double limit_s, const std::string& cwd,
                          std::size_t keep)
{
    ProcessResult r;
    int out_pipe[2], err_pipe[2];
    if (argv.empty() || pipe2(out_pipe, O_CLOEXEC) != 0) return r;
    if (pipe2(err_pipe, O_CLOEXEC) != 0) {
        close(out_pipe[0]);
        close(out_pipe[1]);
        return r;
    }
    const auto start = Clock::now();
    const pid_t pid = fork();
    if (pid == 0) exec_child(argv, cwd, out_pipe[1], err_pipe[1]);
    close(out_pipe[1]);
    close(err_pipe[1]);
    if (pid < 0) {
        close(out_pipe[0]);
        close(err_pipe[0]);
        r.err = std::string("fork failed: ") + std::strerror(errno);
        return r;
    }
    setpgid(pid, pid);  // also here: no race with the child's own call
    r.started = true;
    const auto deadline = start + std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(limit_s));
    pollfd fds[2] = {{out_pipe[0], POLLIN, 0}, {err_pipe[0], POLLIN, 0}};
    std::string* sinks[2] = {&r.out, &r.err};
    int open_fds = 2, status = 0;
    bool reaped = false;
    char buf[8192];
    // Until the child is reaped and both pipes are closed (a child that closed
    // its pipes and runs on is still stopped at the limit).
    while (!reaped || open_fds > 0) {
        if (!reaped && waitpid(pid, &status, WNOHANG) == pid) {
            reaped = true;
            kill(-pid, SIGKILL);  // whatever it left behind in its group, holding the pipes
        }
        const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - Clock::now()).count();
        if (left <= 0 && !r.timed_out && !reaped) {
            kill(-pid, SIGKILL);
            r.timed_out = true;
        }
        const int wait_ms = static_cast<int>(std::clamp<long long>(left, 1, 50));
        if (open_fds == 0) {
            poll(nullptr, 0, wait_ms);
            continue;
        }
        if (poll(fds, 2, wait_ms) < 0 && errno != EINTR) break;
        for (int i = 0; i < 2; ++i) {
            if (fds[i].fd < 0 || !(fds[i].revents & (POLLIN | POLLHUP | POLLERR))) continue;
            const ssize_t got = read(fds[i].fd, buf, sizeof buf);
            if (got > 0) {
                append_tail(*sinks[i], buf, static_cast<std::size_t>(got), keep);
            } else if (got == 0 || errno != EINTR) {
                close(fds[i].fd);
                fds[i].fd = -1;
                --open_fds;
            }
        }
    }
    for (pollfd& f : fds)
        if (f.fd >= 0) close(f.fd);
    if (!reaped) {
        kill(-pid, SIGKILL);
        waitpid(pid, &status, 0);
    }
    r.seconds = std::chrono::duration<double>(Clock::now() - start).count();
    for (std::string* s : sinks)
        if (s->size() > keep) s->erase(0, s->size() - keep);
    if (WIFEXITED(status)) r.exit_code = WEXITSTATUS(status);
    if (WIFSIGNALED(status) && !r.timed_out) r.signal = WTERMSIG(status);
    return r;
}

std::string describe_end(const ProcessResult& r, double limit_s)
{
    if (!r.started) return "could not start: " + r.err;
    if (r.timed_out) {
        char s[32];
        std::snprintf(s, sizeof s, "%g", limit_s);
        return std::string("time limit exceeded: stopped after ") + s + " s";
    }
    if (r.signal) return "killed by signal " + std::to_string(r.signal) + " (" + strsignal(r.signal) + ")";
    return "exit code " + std::to_string(r.exit_code);
}

}  // namespace wl::grade
