// What every lab's GPU benchmark shares (nvcc only): a backend that does not
// synchronise after each launch, a table row made from a timing, and the row
// of a user's own --file kernel.
#pragma once
#include <algorithm>
#include <functional>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "labs/common/bench.h"
#include "labs/common/gpu_trace_backend.h"
#include "labs/common/kernel_instance.h"
#include "warplab/cuda/device.h"
#include "warplab/cuda/timing.h"

namespace warplab {

// Launches a version's kernel as nvcc compiled it: the lab's kernels.cuh
// gives kernel_pointer() for each instance.
struct TimingDevice : wl::cuda::Device, LaunchWithoutShared<TimingDevice> {
    TimingDevice() { synchronize_each_launch = false; }

#if defined(WARPLAB_HAVE_PTX_TRACE)
    UserKernelOnGpu* user = nullptr;  // set: the user's --file kernel runs in place of every version's
    unsigned user_launches = 0;       // how many launches it took over
#endif

    using wl::cuda::Device::launch;
    using LaunchWithoutShared<TimingDevice>::launch;
    template <class V, class Args, class... A>
    void launch_with_shared(KernelInstance<V, Args> kernel, dim3 grid, dim3 block, unsigned shared_bytes, A&&... args)
    {
#if defined(WARPLAB_HAVE_PTX_TRACE)
        if (user && user_stands_in<V>) {
            const std::vector<wl::ptx::Arg> list{wl::ptx::Arg(args)...};
            last_kernel = user->user().kernel();
            user->launch(kernel, grid, block, shared_bytes, list);
            ++user_launches;
            return;
        }
#endif
        wl::cuda::Device::launch_with_shared(V::meta.name, kernel_pointer(kernel), grid, block, shared_bytes,
                                             std::forward<A>(args)...);
    }
};

// giga_work: what one run does, in billions of the rate's unit (GB moved, or GFLOP).
inline BenchRow timed_row(std::string version, const wl::cuda::Timing& t, double giga_work, bool ok)
{
    BenchRow r;
    r.version = std::move(version);
    r.ok = ok;
    r.median_ms = t.median_ms;
    r.min_ms = t.min_ms;
    r.rse = t.rse;
    r.samples = t.samples;
    r.rate = giga_work / (t.median_ms / 1e3);
    return r;
}

// A version's row: as above, marked as its entry says (a variant; the version
// its step is against).
inline BenchRow timed_row(const VersionMeta& v, const wl::cuda::Timing& t, double giga_work, bool ok)
{
    BenchRow r = timed_row(v.id, t, giga_work, ok);
    r.variant = v.variant;
    if (v.builds_on) r.previous_version = v.builds_on;
    return r;
}

// A row of a table before it is timed: one run of it, a checked run (true
// where its result is right), and its row from its timing.
struct Contender {
    std::string name;
    std::function<void()> run;
    std::function<bool()> checked;
    std::function<BenchRow(const wl::cuda::Timing&, bool ok)> row;
};

// Each contender checked (then after_check(i), for what the check leaves to
// read), all of them and the `yardsticks` (runs that are no row: a copy, a
// probe) timed in turns, then each contender checked again. The rows, in
// order; the yardsticks' timings in `yardstick_times`.
inline std::vector<BenchRow> rows_in_turns(const std::vector<Contender>& contenders, const std::vector<std::function<void()>>& yardsticks,
                                           const BenchOptions& o, std::vector<wl::cuda::Timing>& yardstick_times,
                                           const std::function<void(std::size_t)>& after_check = {})
{
    std::vector<bool> ok;
    std::vector<std::function<void()>> runs;
    for (std::size_t i = 0; i < contenders.size(); ++i) {
        ok.push_back(contenders[i].checked());
        if (after_check) after_check(i);
        runs.push_back(contenders[i].run);
    }
    runs.insert(runs.end(), yardsticks.begin(), yardsticks.end());
    const std::vector<wl::cuda::Timing> timings = wl::cuda::time_in_turns(runs, o.warm, o.seconds_per_version);
    wl::cuda::check(cudaGetLastError(), "the timed runs");
    std::vector<BenchRow> rows;
    for (std::size_t i = 0; i < contenders.size(); ++i) rows.push_back(contenders[i].row(timings[i], ok[i] && contenders[i].checked()));
    yardstick_times.assign(timings.begin() + contenders.size(), timings.end());
    return rows;
}

// One contender timed alone: its row.
inline BenchRow time_alone(const Contender& c, const BenchOptions& o)
{
    std::vector<wl::cuda::Timing> none;
    return rows_in_turns({c}, {}, o, none).front();
}

// With --file (o.file): the user's kernel timed as the lab times the version
// it is launched as (o.as_version), on `gpu`, which runs it in place of the
// version's meanwhile; each of its rows goes right after the version's row of
// the same name, as a variant, so that its step speed-up is against that row.
// `time_as(V{})` is the lab's timing of version V: its row, or its rows where
// a version has one per setting ("v1 offset 5" gives "yours offset 5").
template <class Versions, class TimeAs>
void add_user_kernel_row(BenchTable& table, TimingDevice& gpu, const KernelFiles& lab, const BenchOptions& o, TimeAs&& time_as)
{
    if (o.file.empty()) return;
#if defined(WARPLAB_HAVE_PTX_TRACE)
    UserKernelOnGpu user(o.file, o.kernel, lab, o.shared_bytes);
    struct Swap {  // the lab's kernels again when done, whatever happens
        TimingDevice& gpu;
        ~Swap() { gpu.user = nullptr; }
    } swap{gpu};
    gpu.user = &user;
    gpu.user_launches = 0;
    std::vector<BenchRow> rows;
    const bool found = for_each_version<Versions>([&](auto v) {
        if (o.as_version != decltype(v)::meta.id) return false;
        if constexpr (std::is_same_v<decltype(time_as(v)), BenchRow>)
            rows.push_back(time_as(v));
        else
            rows = time_as(v);
        return true;
    });
    if (!found) throw std::invalid_argument("unknown version '" + o.as_version + "' to launch your kernel as");
    // A version whose launch is more than one kernel of the lab's signature
    // (matmul v12 prepares tensor maps on the host) never hands it over.
    if (gpu.user_launches == 0)
        throw std::invalid_argument(o.as_version + "'s launch is not one kernel your file can stand in for; launch your kernel as "
                                                   "another version");
    for (BenchRow& row : rows) {
        const std::string as_row = row.version;  // "v3", or "v1 offset 5"
        const bool of_as = as_row.starts_with(o.as_version);  // else an empty row (a 2D group the version is not built for)
        row.version = kUserVersionId + (of_as ? as_row.substr(o.as_version.size()) : std::string());
        row.variant = true;
        row.previous_version = as_row;
        const auto at = std::find_if(table.rows.begin(), table.rows.end(), [&](const BenchRow& r) { return r.version == as_row; });
        table.rows.insert(at == table.rows.end() ? at : at + 1, row);
    }
#else
    (void)table, (void)gpu, (void)lab, (void)time_as;
    throw std::invalid_argument(gpu_trace_unavailable());
#endif
}

}  // namespace warplab
