// What runs the blocks nobody watches: the PTX interpreter, or the fast
// engine (each kernel compiled to host code with the C++ compiler the build
// used, cached by content; the interpreter where there is none, as in the
// browser). Watched blocks always run on the interpreter: their trace is the
// same on both, and so are results and faults. A header of its own, as
// schedule.h is, so that code beside CUDA's runtime (which has its own dim3)
// can name it.
#pragma once
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace wl::emu {

enum class Engine { Interpret, Fast };
inline const char* to_string(Engine e) { return e == Engine::Fast ? "fast" : "interpret"; }
// The engine to_string names; nullopt for any other text.
inline std::optional<Engine> parse_engine(std::string_view name)
{
    if (name == "interpret") return Engine::Interpret;
    if (name == "fast") return Engine::Fast;
    return std::nullopt;
}

// What ran the unwatched blocks of some launches, `fast` of them on the fast
// engine and `interpreted` on the interpreter: "fast", "interpret", "fast and
// interpret", or "" for no launch. The fast engine leaves some kernels to the
// interpreter (too long to compile, calling functions, the lockstep schedule),
// so what ran can differ from what was asked for.
inline std::string engines_that_ran(std::uint64_t fast, std::uint64_t interpreted)
{
    if (fast && interpreted) return "fast and interpret";
    return fast ? "fast" : interpreted ? "interpret" : "";
}

}  // namespace wl::emu
