// The emulator's speed on workloads at the sizes real programs use (lab
// versions through `warplab trace`'s run, whole programs through `warplab run`):
// lane-instructions per second of user CPU time, beside the figures recorded
// before the emulator's speed work began.
#pragma once

namespace warplab::bench {

// One Google Benchmark case a workload ("BM_Workload/matmul v9 1024^3" and the like).
void register_workloads();
// The table of what they measured, each beside its recorded figure (nothing when none ran).
void print_workload_summary();

}  // namespace warplab::bench
