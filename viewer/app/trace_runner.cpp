// Kept apart from the drawing code: the emulator's header brings CUDA's names
// (threadIdx, dim3, ...) that have no business next to SDL and ImGui.
#include "viewer/app/trace_runner.h"

#include <new>
#include <stdexcept>

#include "warplab/cuda/deadline.h"
#include "warplab/emu/emulator.h"
#include "warplab/trace/json.h"

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
    } catch (const wl::cuda::GpuDeadlinePassed& e) {  // this run's kernel, or an earlier one still holding the GPU
        slot.fault = slot.gpu_deadline = true;
        slot.error = std::string(e.what()) +
                     " The GPU still runs it, so the viewer runs nothing more there until it is restarted: the other "
                     "versions trace on the emulator, and this one does too on request.";
    } catch (const std::invalid_argument& e) {
        slot.error = e.what();
    } catch (const std::bad_alloc&) {
        slot.error = "out of memory";
    } catch (const std::exception& e) {
        slot.error = e.what();
    }
    return slot;
}

namespace {

nlohmann::json error_to_json(const TraceSlot& slot)
{
    return {{"error", slot.error}, {"fault", slot.fault}, {"fault_file", slot.fault_file}, {"fault_line", slot.fault_line}};
}

}  // namespace

nlohmann::json request_to_json(const Lab& lab, const RunRequest& req, TraceReply reply)
{
    return {{"lab", lab.id},
            {"reply", reply == TraceReply::Totals ? "totals" : "whole"},
            {"version", req.version},
            {"n", req.n},
            {"shape", req.shape},
            {"block", req.block},
            {"block_dim", req.block_dim},
            {"type", req.type},
            {"backend", int(req.backend)},
            {"schedule", wl::emu::to_string(req.schedule)},
            {"setting", req.setting},
            {"warp_width", req.warp_width},
            {"max_instructions", req.max_instructions},
            {"without_barrier", req.without_barrier},
            {"inputs", req.inputs}};
}

RunRequest request_from_json(const nlohmann::json& j)
{
    RunRequest req;
    req.version = j.at("version").get<std::string>();
    req.n = j.at("n").get<std::size_t>();
    req.shape = j.at("shape").get<std::vector<std::size_t>>();
    req.block = j.at("block").get<unsigned>();
    req.block_dim = j.at("block_dim").get<std::vector<unsigned>>();
    req.type = j.at("type").get<std::string>();
    const int backend = j.at("backend").get<int>();
    if (backend < int(BackendChoice::Auto) || backend > int(BackendChoice::Gpu))
        throw std::invalid_argument("backend " + std::to_string(backend) + ": 0, 1 or 2");
    req.backend = BackendChoice(backend);
    const std::string schedule = j.at("schedule").get<std::string>();
    const auto parsed = wl::emu::parse_schedule(schedule);
    if (!parsed) throw std::invalid_argument("unknown schedule " + schedule);
    req.schedule = *parsed;
    req.setting = j.at("setting").get<int>();
    req.warp_width = j.at("warp_width").get<unsigned>();
    req.max_instructions = j.at("max_instructions").get<std::uint64_t>();
    req.without_barrier = j.value("without_barrier", std::uint32_t(0));  // absent: the kernel as written
    req.inputs = j.value("inputs", std::map<std::string, std::string>());  // absent: none given
    return req;
}

TraceReply reply_from_json(const nlohmann::json& request)
{
    const std::string reply = request.value("reply", "whole");
    if (reply != "whole" && reply != "totals") throw std::invalid_argument("reply \"" + reply + "\": whole or totals");
    return reply == "totals" ? TraceReply::Totals : TraceReply::Whole;
}

nlohmann::json slot_to_json(const Lab& lab, const RunRequest& req, const TraceSlot& slot)
{
    if (slot.run) return {{"document", trace_document(lab, req, *slot.run)}, {"extras", run_extras(*slot.run)}};
    return error_to_json(slot);
}

TraceSlot slot_from_json(const nlohmann::json& j)
{
    TraceSlot slot;
    if (j.contains("document")) {
        slot.run = traced_run_from_json(j.at("document"), j.at("extras"));
        return slot;
    }
    slot.error = j.at("error").get<std::string>();
    slot.fault = j.at("fault").get<bool>();
    slot.fault_file = j.at("fault_file").get<std::string>();
    slot.fault_line = j.at("fault_line").get<std::uint32_t>();
    return slot;
}

nlohmann::json totals_reply_to_json(const TraceSlot& slot)
{
    if (slot.run) return {{"totals", wl::trace::totals_to_json(slot.run->totals)}};
    return error_to_json(slot);
}

TotalsSlot totals_reply_from_json(const nlohmann::json& j)
{
    TotalsSlot t;
    if (j.contains("totals")) {
        t.totals = wl::trace::totals_from_json(j.at("totals"));
        return t;
    }
    t.error = j.at("error").get<std::string>();
    t.fault = j.at("fault").get<bool>();
    return t;
}

}  // namespace warplab::viewer
