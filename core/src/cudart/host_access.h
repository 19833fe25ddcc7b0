// Device memory closed to host code: warplab's CUDA runtime maps cudaMalloc
// and cudaMallocManaged memory itself and keeps it inaccessible (PROT_NONE)
// except while the runtime copies or a kernel runs, so that a host read or
// write of it stops the program with a paragraph saying what happened and on
// which host line, where a GPU machine would crash without one or, for
// managed memory, race with the kernel. Freed memory stays closed, so that a
// use after cudaFree is caught the same way. Managed memory is closed from a
// launch to the next synchronisation; a host access in between is a warning.
#pragma once
#include <array>
#include <cstddef>
#include <string>

namespace wl::cudart {

// Where the program called the runtime: the return addresses of the calls
// that lead there, innermost first (the runtime's own among them: a line is
// the first frame in the program's own code). Eight reach past nvcc's launch
// stub and the kernel's host wrapper.
struct CallSite {
    std::array<const void*, 8> frames{};
};
// The calls that lead to the caller.
CallSite call_site();

// Maps `bytes` (at least one page), closed to host code; `site`: the call that asked.
void* map_memory(std::size_t bytes, bool managed, const CallSite& site);
// The mapping stays closed, remembered as freed at `site`, until many more bytes have been freed after it.
void unmap_memory(void* p, const CallSite& site);

// " by cudaFree at prog.cu:40" when p lies in memory freed already, else "".
std::string freed_note(const void* p);

// While one lives, device and managed memory are open (the runtime's own copies and launches).
class OpenMemory {
public:
    OpenMemory();
    ~OpenMemory();
    OpenMemory(const OpenMemory&) = delete;
    OpenMemory& operator=(const OpenMemory&) = delete;
};

// A kernel was launched: managed memory is the kernel's until synchronised().
void launched();
void synchronised();

// "prog.cu:31" for a host code address (addr2line on the program, built with -g), or "" when unknown.
// A return address points past its call; a faulting instruction's address at it.
// `function`, where given, receives the enclosing function's symbol ("_Z5scalePfi").
std::string host_line(const void* code, bool return_address, std::string* function = nullptr);
// The program's own line of a call: the first frame outside the toolkit's headers (cudaMalloc<T> is one).
std::string host_line(const CallSite& site);

// "prog.cu:42": the program's line of a kernel launch among the frames, past
// the toolkit's headers, nvcc's stubs, this runtime, and nvcc's host wrapper
// of the kernel, which bears the kernel's symbol (`kernel_symbol`, mangled)
// and the line of its definition, not the launch's; "" when unknown.
// Remembered per frames: a host loop's launches ask addr2line once.
std::string launch_line(const CallSite& site, const std::string& kernel_symbol);

}  // namespace wl::cudart
