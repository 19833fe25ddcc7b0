// WRONG on purpose: llm_block_reduce.cu with the first block reduction's
// final barrier left out (final_sync false): lane 0 of a warp may write the
// variance's warp sum into shared_val while a thread of another warp still
// reads the mean's from it, with no barrier between: a data race.
// expect exit: 1
// expect stdout: \[CUDA ERROR\] at file [^ ]*llm_block_reduce.cu:75:
// expect fault: kernel fault: kernel normalize_rows_kernel, block \([0-4],0,0\), thread \([0-9]+,0,0\) [^:]*: data race on shared memory: shared_val\[[0-3]\] .*llm_block_reduce.cu:4[02]\)$
#define NO_FINAL_SYNC
#include "llm_block_reduce.cu"
