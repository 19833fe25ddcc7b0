// Boost.Context's entry points for the browser build's link only (the root
// CMakeLists.txt compiles this file under emscripten alone): WebAssembly cannot
// switch stacks this way, and the emulator refuses a kernel that needs fibers
// (fibers.cpp) before either is reached.
#include <boost/context/detail/fcontext.hpp>

#include <cstdlib>

namespace boost::context::detail {

extern "C" transfer_t jump_fcontext(fcontext_t const, void*) { std::abort(); }
extern "C" fcontext_t make_fcontext(void*, std::size_t, void (*)(transfer_t)) { std::abort(); }

}  // namespace boost::context::detail
