// Device memory closed to host code (host_access.h): the mappings, their
// opening around the runtime's work, and the SIGSEGV handler that names a
// host access of them.
#include "host_access.h"

#include <dlfcn.h>
#include <execinfo.h>
#include <elf.h>
#include <signal.h>
#include <sys/mman.h>
#include <unistd.h>
#include <ucontext.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <deque>
#include <map>
#include <mutex>
#include <span>
#include <utility>

namespace wl::cudart {

namespace {

struct Mapping {
    std::size_t bytes, mapped;
    bool managed;
    CallSite site;  // where it was allocated
    bool freed = false;
    CallSite freed_site;
};

// Freed mappings stay closed until this many bytes have been freed after them.
constexpr std::size_t kFreedKept = std::size_t(256) << 20;

std::map<std::uintptr_t, Mapping> mappings;  // by base; guarded by the runtime's device lock
std::deque<std::uintptr_t> freed;            // oldest first
std::size_t freed_bytes = 0;
unsigned open_depth = 0;
bool managed_pending = false;  // a launch since the last synchronisation
bool told_managed = false;

std::size_t page() { return std::size_t(sysconf(_SC_PAGESIZE)); }

void protect(std::uintptr_t base, const Mapping& m, bool open)
{
    mprotect(reinterpret_cast<void*>(base), m.mapped, open ? PROT_READ | PROT_WRITE : PROT_NONE);
}

// Host code may touch a live managed mapping unless a launch has not been synchronised.
bool host_may_touch(const Mapping& m) { return m.managed && !m.freed && !managed_pending; }

void close_all()
{
    for (const auto& [base, m] : mappings) protect(base, m, host_may_touch(m));
}

const std::pair<const std::uintptr_t, Mapping>* mapping_at(const void* addr)
{
    const auto a = reinterpret_cast<std::uintptr_t>(addr);
    auto it = mappings.upper_bound(a);
    if (it == mappings.begin()) return nullptr;
    --it;
    return a < it->first + it->second.mapped ? &*it : nullptr;
}

// " at prog.cu:40", or "" where the program has no line table for the address.
std::string at_line(const std::string& line) { return line.empty() ? "" : " at " + line; }

void say(const std::string& text) { (void)!write(STDERR_FILENO, text.data(), text.size()); }

void on_segv(int, siginfo_t* info, void* context)
{
    const auto* hit = mapping_at(info->si_addr);
    const void* pc = nullptr;
    bool writes = false;
    bool known_direction = false;
#if defined(__x86_64__)
    const auto* uc = static_cast<const ucontext_t*>(context);
    pc = reinterpret_cast<const void*>(uc->uc_mcontext.gregs[REG_RIP]);
    writes = (uc->uc_mcontext.gregs[REG_ERR] & 2) != 0;
    known_direction = true;
#else
    (void)context;
#endif
    if (!hit) {  // not ours: the default action, on the same access again
        signal(SIGSEGV, SIG_DFL);
        return;
    }
    const Mapping& m = hit->second;
    const std::size_t at = reinterpret_cast<std::uintptr_t>(info->si_addr) - hit->first;
    const char* verb = !known_direction ? "touched" : writes ? "written" : "read";
    if (m.managed && !m.freed) {  // the kernel has finished here; on a GPU it may not have
        if (!told_managed)
            say("warplab: warning: managed memory " + std::string(verb) + " by host code" + at_line(host_line(pc, false)) +
                " after a kernel launch with no cudaDeviceSynchronize() between them: on a GPU the kernel may still be running\n");
        told_managed = true;
        managed_pending = false;
        close_all();
        return;
    }
    std::string what = m.freed ? "device memory " + std::string(verb) + " after cudaFree" : "device memory " + std::string(verb) + " from host code";
    const std::string here = at_line(host_line(pc, false));
    std::string text = "warplab: " + what + here + ": byte " + std::to_string(at) + " of a " + std::to_string(m.bytes) + "-byte " +
                       (m.managed ? "cudaMallocManaged" : "cudaMalloc") + " allocation" +
                       (here.empty() ? " (no host lines: the program was built without -g)" : " made" + at_line(host_line(m.site)));
    if (m.freed && !here.empty()) text += ", freed" + at_line(host_line(m.freed_site));
    text += m.freed ? ". Freed memory belongs to no one: allocate again, or free it later.\n"
                         : ". Host code cannot dereference a device pointer: copy the data with cudaMemcpy first.\n";
    say(text);
    signal(SIGSEGV, SIG_DFL);  // the access again: the crash a GPU machine gives
}

void install_handler()
{
    static bool installed = false;
    if (installed) return;
    installed = true;
    struct sigaction sa {};
    sa.sa_sigaction = on_segv;
    sa.sa_flags = SA_SIGINFO | SA_NODEFER;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGSEGV, &sa, nullptr);
}

}  // namespace

void* map_memory(std::size_t bytes, bool managed, const CallSite& site)
{
    install_handler();
    const std::size_t mapped = (std::max<std::size_t>(bytes, 1) + page() - 1) / page() * page();
    // One page more, kept inaccessible and in no allocation: mappings are placed back to back, and a
    // kernel's index one past the end (or before the start of the one above) faults as out of bounds
    // there instead of reading the neighbour.
    void* p = mmap(nullptr, mapped + page(), PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    if (p == MAP_FAILED) return nullptr;
    mprotect(static_cast<char*>(p) + mapped, page(), PROT_NONE);
    Mapping m{bytes, mapped, managed, site, false, {}};
    mappings[reinterpret_cast<std::uintptr_t>(p)] = m;
    if (!open_depth) protect(reinterpret_cast<std::uintptr_t>(p), m, host_may_touch(m));
    return p;
}

void unmap_memory(void* p, const CallSite& site)
{
    const auto it = mappings.find(reinterpret_cast<std::uintptr_t>(p));
    if (it == mappings.end()) return;
    it->second.freed = true;
    it->second.freed_site = site;
    protect(it->first, it->second, open_depth > 0);
    freed.push_back(it->first);
    freed_bytes += it->second.mapped;
    while (freed_bytes > kFreedKept && freed.size() > 1) {
        const auto old = mappings.find(freed.front());
        freed.pop_front();
        freed_bytes -= old->second.mapped;
        munmap(reinterpret_cast<void*>(old->first), old->second.mapped + page());  // with its guard page
        mappings.erase(old);
    }
}

OpenMemory::OpenMemory()
{
    if (open_depth++ == 0)
        for (const auto& [base, m] : mappings)
            if (!m.freed) protect(base, m, true);
}

OpenMemory::~OpenMemory()
{
    if (--open_depth == 0) close_all();
}

std::string freed_note(const void* p)
{
    const auto* hit = mapping_at(p);
    if (!hit || !hit->second.freed) return "";
    const std::string line = host_line(hit->second.freed_site);
    return " by cudaFree" + (line.empty() ? std::string() : " at " + line);
}

void launched() { managed_pending = true; }
void synchronised() { managed_pending = false; }

[[gnu::noinline]] CallSite call_site()
{
    void* frames[9] = {};
    const int n = backtrace(frames, 9);  // this function first
    CallSite site;
    for (int i = 1; i < n; ++i) site.frames[static_cast<std::size_t>(i - 1)] = frames[i];
    return site;
}

namespace {

// Frames that are not the program's own code: the toolkit's headers, nvcc's
// generated launch stubs (prog.cudafe1.stub.c), and this runtime, linked into
// the program (its lines resolve where warplab was built with -g).
bool not_the_programs(const std::string& line)
{
    return line.find("/include/cuda_runtime") != std::string::npos || line.find("/include/crt/") != std::string::npos ||
           line.find(".stub.c:") != std::string::npos || line.find("/core/src/cudart/") != std::string::npos;
}

// The first of the frames in the program's own code, skipping the function named `skipped` (mangled).
std::string program_line(std::span<const void* const> frames, const std::string& skipped)
{
    for (const void* f : frames) {
        std::string function;
        const std::string line = host_line(f, true, skipped.empty() ? nullptr : &function);
        if (!skipped.empty() && function == skipped) continue;
        if (!line.empty() && !not_the_programs(line)) return line;
    }
    return "";
}

}  // namespace

std::string host_line(const CallSite& site) { return program_line(site.frames, ""); }

std::string launch_line(const CallSite& site, const std::string& kernel_symbol)
{
    static std::mutex mutex;
    static std::map<std::pair<std::array<const void*, 8>, std::string>, std::string> known;
    std::lock_guard lock(mutex);
    auto [it, added] = known.try_emplace({site.frames, kernel_symbol});
    // nvcc's host wrapper of a kernel bears the kernel's symbol and the line
    // of its definition: the launch is in the wrapper's caller.
    if (added) it->second = program_line(site.frames, kernel_symbol);
    return it->second;
}

std::string host_line(const void* code, bool return_address, std::string* function)
{
    if (!code) return "";
    Dl_info info{};
    if (!dladdr(code, &info) || !info.dli_fname || !info.dli_fbase) return "";
    // A position-independent program's addresses are offsets from where it was loaded.
    auto at = reinterpret_cast<std::uintptr_t>(code) - (return_address ? 1 : 0);  // inside the call
    if (static_cast<const Elf64_Ehdr*>(info.dli_fbase)->e_type == ET_DYN) at -= reinterpret_cast<std::uintptr_t>(info.dli_fbase);
    Dl_info self_info{};  // this runtime is linked into the program: its base is the program's
    std::string exe = info.dli_fname;
    if (dladdr(reinterpret_cast<const void*>(&call_site), &self_info) && self_info.dli_fbase == info.dli_fbase) {
        // The program itself, whose argv[0] may be any name: the file this process runs, even where another
        // build of the same source has since been moved over its name (a cache entry rebuilt by a second run).
        exe = "/proc/" + std::to_string(getpid()) + "/exe";
    }
    char command[4200];
    std::snprintf(command, sizeof command, "addr2line %s-e '%s' 0x%llx 2>/dev/null", function ? "-f " : "", exe.c_str(),
                  static_cast<unsigned long long>(at));
    FILE* pipe = popen(command, "r");
    if (!pipe) return "";
    char line[1024] = {};
    if (function && std::fgets(line, sizeof line, pipe)) {  // -f: the function's line comes first
        *function = line;
        while (!function->empty() && function->back() == '\n') function->pop_back();
    }
    const bool read = std::fgets(line, sizeof line, pipe) != nullptr;
    pclose(pipe);
    std::string s = read ? line : "";
    while (!s.empty() && (s.back() == '\n' || s.back() == ' ')) s.pop_back();
    if (const auto paren = s.find(" (discriminator"); paren != std::string::npos) s.erase(paren);
    if (s.empty() || s[0] == '?' || s.ends_with(":?") || s.ends_with(":0")) return "";
    return s;
}

}  // namespace wl::cudart
