// What the corpus kernels and their tests agree on: block and tile sizes,
// and the rows of outputs that hold one quantity per row. Included by the
// kernels (nvcc) and by the tests (the host compiler).
#pragma once

namespace corpus {

constexpr unsigned kWarp = 32;

// histogram.cu, histogram_racy.cu
constexpr unsigned kBins = 256;

// scan_double_buffered.cu, scan_in_place.cu: one segment per block
constexpr unsigned kScanBlock = 128;

// stencil_5pt.cu: blocks of kStencilTile x kStencilTile threads
constexpr int kStencilTile = 16;

// transpose_*.cu: a kTransposeTile square tile per block of kTransposeTile x kTransposeRows threads
constexpr unsigned kTransposeTile = 32;
constexpr unsigned kTransposeRows = 8;

// block_sum_atomic.cu: the block size
constexpr unsigned kSumBlock = 256;

// local_sort.cu: values each thread sorts
constexpr unsigned kSortWidth = 9;

// wide_shared.cu: the largest block
constexpr unsigned kWideMaxBlock = 128;

// int_atomics.cu: one cell per operation
enum AtomicCell : unsigned { kAdd, kSub, kOr, kAnd, kXor, kMin, kMax, kExch, kInc, kDec, kCells };
constexpr unsigned kIncLimit = 40;
constexpr unsigned kDecLimit = 25;

// warp_intrinsics.cu: rows of kWarp lanes
enum MaskRow : unsigned { kConverged, kDivergent, kMaskRows };
enum MatchRow : unsigned { kAny32, kAny64, kAllMask, kAllPred, kAllOfSame, kMatchRows };
enum ReduceRow : unsigned { kMaxSigned, kMinSigned, kMaxUnsigned, kMinUnsigned, kAndBits, kOrBits, kXorBits, kReduceRows };

// fast_math.cu: rows of n elements
enum FastRow : unsigned { kExp, kRsqrt, kDivide, kSignFlip, kFastRows };

}  // namespace corpus
