// Shared by the emulator's and the PTX interpreter's tests: a launch expected to fault.
#pragma once
#include <gtest/gtest.h>

#include <exception>
#include <optional>

#include "warplab/emu/emulator.h"

namespace warplab::test {

// Runs launch() and returns the KernelFault it throws; a launch that does not
// fault, or throws something else, fails the calling test.
template <class F> std::optional<wl::emu::KernelFault> fault_of(F&& launch)
{
    try {
        launch();
    } catch (const wl::emu::KernelFault& f) {
        return f;
    } catch (const std::exception& e) {
        ADD_FAILURE() << "expected a KernelFault, got: " << e.what();
        return std::nullopt;
    }
    ADD_FAILURE() << "expected a KernelFault, but the launch completed";
    return std::nullopt;
}

}  // namespace warplab::test
