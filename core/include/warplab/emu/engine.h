// What runs the blocks nobody watches: the PTX interpreter, or the fast
// engine (each kernel compiled to host code with the C++ compiler the build
// used, cached by content; the interpreter where there is none, as in the
// browser). Watched blocks always run on the interpreter: their trace is the
// same on both, and so are results and faults. A header of its own, as
// schedule.h is, so that code beside CUDA's runtime (which has its own dim3)
// can name it.
#pragma once
#include <optional>
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

}  // namespace wl::emu
