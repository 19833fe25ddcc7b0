// The rows of the one-warp outputs of semantics_kernels.cu: one quantity per
// row of 32 lanes. Included by the kernels (nvcc) and by the test.
#pragma once

namespace semantics {

constexpr unsigned kLanes = 32;

// shuffle_variants: each lane offers 100 + lane.
enum ShuffleRow : unsigned { kUp3, kXor5, kIdx7, kIdx37, kShuffleRows };
// shuffle_in_segments: the same shuffles in segments narrower than the warp.
enum SegmentRow : unsigned { kDown4Width16, kIdx3Width16, kUp2Width8, kSegmentRows };
// votes_in_halves: each half-warp votes among itself only.
enum VoteRow : unsigned { kBallot, kAny, kAll, kReduceAdd, kVoteRows };

}  // namespace semantics
