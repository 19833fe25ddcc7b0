// Kept apart from the drawing code: the emulator's header brings CUDA's names
// (threadIdx, dim3, ...) that have no business next to SDL and ImGui.
#include "viewer/trace_runner.h"

#include <new>
#include <stdexcept>

#include "warplab/emu/emulator.h"

namespace warplab::viewer {

TraceSlot run_trace(const Lab& lab, const RunRequest& req)
{
    TraceSlot slot;
    try {
        slot.run = trace_version(lab, req);
    } catch (const wl::emu::KernelFault& e) {
        slot.fault = true;
        slot.error = std::string("kernel fault: ") + e.what();
        slot.fault_file = e.fault.file;
        slot.fault_line = e.fault.line;
    } catch (const std::invalid_argument& e) {
        slot.error = e.what();
    } catch (const std::bad_alloc&) {
        slot.error = "out of memory";
    } catch (const std::exception& e) {
        slot.error = e.what();
    }
    return slot;
}

}  // namespace warplab::viewer
