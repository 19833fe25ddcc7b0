// Needleman–Wunsch scores of 16 x 16 tiles, in the shape of the
// sequence-alignment kernel of Che et al.'s Rodinia benchmark suite: a padded
// 17 x 17 score tile beside a 16 x 16 reference tile, both static 2D shared
// arrays, filled along anti-diagonals.
//
// Idea: block b scores its own tile. score holds, per block, a 17 x 17
//   matrix whose row 0 and column 0 are given; reference holds, per block,
//   16 x 16 match scores. Cell (y, x), 1 <= y, x <= 16, becomes
//   max(nw + ref[y-1][x-1], w - penalty, n - penalty) of its north-west,
//   west and north neighbours, one anti-diagonal at a time.
// Expected effect: the score matrix filled in; no fault (every access is
//   inside its array, every anti-diagonal is separated by __syncthreads()).
// Preconditions: blockDim.x == 16.
//
// nw_tile_overrun is wrong: it takes the match score of the cell itself,
// ref[y][x-1], instead of its north-west neighbour's; on the last
// anti-diagonal thread 0 reads ref[16][0], past the end of ref.
#include <cstdio>
#include <vector>

constexpr int kTile = 16;
constexpr int kSide = kTile + 1;  // the score tile's padded side

__device__ int max3(int a, int b, int c) { return max(a, max(b, c)); }

template <bool kOverrun>
__device__ void score_tile(int* score, const int* reference, int penalty)
{
    __shared__ int temp[kSide][kSide];
    __shared__ int ref[kTile][kTile];
    const int tx = threadIdx.x;
    int* s = score + blockIdx.x * kSide * kSide;
    const int* r = reference + blockIdx.x * kTile * kTile;

    if (tx == 0) temp[0][0] = s[0];
    for (int ty = 0; ty < kTile; ++ty) ref[ty][tx] = r[ty * kTile + tx];
    temp[tx + 1][0] = s[(tx + 1) * kSide];
    temp[0][tx + 1] = s[tx + 1];
    __syncthreads();

    // The upper-left triangle: anti-diagonal m holds m + 1 cells.
    for (int m = 0; m < kTile; ++m) {
        if (tx <= m) {
            const int x = tx + 1, y = m - tx + 1;
            const int match = kOverrun ? ref[y][x - 1] : ref[y - 1][x - 1];  // marker: overrun
            temp[y][x] = max3(temp[y - 1][x - 1] + match, temp[y][x - 1] - penalty, temp[y - 1][x] - penalty);  // marker: upper
        }
        __syncthreads();
    }
    // The lower-right triangle: anti-diagonal m holds m + 1 cells, m = 14 .. 0.
    for (int m = kTile - 2; m >= 0; --m) {
        if (tx <= m) {
            const int x = tx + kTile - m, y = kTile - tx;
            temp[y][x] = max3(temp[y - 1][x - 1] + ref[y - 1][x - 1], temp[y][x - 1] - penalty, temp[y - 1][x] - penalty);
        }
        __syncthreads();
    }
    for (int ty = 0; ty < kTile; ++ty) s[(ty + 1) * kSide + tx + 1] = temp[ty + 1][tx + 1];
}

__global__ void nw_tile(int* score, const int* reference, int penalty) { score_tile<false>(score, reference, penalty); }

__global__ void nw_tile_overrun(int* score, const int* reference, int penalty)
{
    score_tile<true>(score, reference, penalty);
}

// Three static 2D arrays of different element types and alignments, read at
// every edge: the first and last element of each, the last element of a row
// (the one before a padded row's unused column), and through a pointer
// computed from one array. Each thread t < 9 writes out[12 t .. 12 t + 11].
//
// Expected effect (thread t, all from in[]):
//   flags[r][c] = in[r * 5 + c] & 0x7f     (char, 3 x 5: 15 bytes, align 1)
//   halves[r][c] = in[r * 9 + c] - 100     (short, 5 x 9 padded to 5 x 10, align 2)
//   sums[r][c] = in[r * 3 + c] * 0.5       (double, 3 x 3, align 8)
// and out[12 t + k] holds, for k = 0..11: flags[0][0], flags[2][4],
// flags[1][4], halves[0][0], halves[4][8], halves[t % 5][8], sums[0][0],
// sums[2][2], sums[t % 3][2] (as ints, times 2), then through row pointers:
// (&halves[t % 5][0])[8], (&sums[0][0])[8] * 2, (&flags[0][0])[14].
__global__ void array_edges(const int* in, int* out)
{
    __shared__ char flags[3][5];
    __shared__ short halves[5][10];  // 9 used columns and one of padding
    __shared__ double sums[3][3];
    const int t = threadIdx.x;
    if (t < 15) flags[t / 5][t % 5] = static_cast<char>(in[t] & 0x7f);
    for (int k = t; k < 45; k += blockDim.x) halves[k / 9][k % 9] = static_cast<short>(in[k] - 100);
    if (t < 9) sums[t / 3][t % 3] = in[t] * 0.5;
    __syncthreads();
    if (t >= 9) return;
    int* o = out + 12 * t;
    o[0] = flags[0][0];
    o[1] = flags[2][4];
    o[2] = flags[1][4];
    o[3] = halves[0][0];
    o[4] = halves[4][8];
    o[5] = halves[t % 5][8];
    o[6] = static_cast<int>(sums[0][0] * 2);
    o[7] = static_cast<int>(sums[2][2] * 2);
    o[8] = static_cast<int>(sums[t % 3][2] * 2);
    const short* row = &halves[t % 5][0];
    const double* all = &sums[0][0];
    const char* bytes = &flags[0][0];
    o[9] = row[8];
    o[10] = static_cast<int>(all[8] * 2);
    o[11] = bytes[14];
}

// A host program that runs nw_tile on a GPU, as the suite's programs do.
int main()
{
    const int blocks = 2, penalty = 10;
    std::vector<int> score(blocks * kSide * kSide, 0), reference(blocks * kTile * kTile);
    for (int b = 0; b < blocks; ++b)
        for (int i = 1; i < kSide; ++i) {
            score[b * kSide * kSide + i] = -penalty * i;
            score[b * kSide * kSide + i * kSide] = -penalty * i;
        }
    for (std::size_t i = 0; i < reference.size(); ++i) reference[i] = static_cast<int>(i * 7 % 11) - 5;
    int *d_score, *d_reference;
    cudaMalloc(&d_score, score.size() * sizeof(int));
    cudaMalloc(&d_reference, reference.size() * sizeof(int));
    cudaMemcpy(d_score, score.data(), score.size() * sizeof(int), cudaMemcpyHostToDevice);
    cudaMemcpy(d_reference, reference.data(), reference.size() * sizeof(int), cudaMemcpyHostToDevice);
    nw_tile<<<blocks, kTile>>>(d_score, d_reference, penalty);
    cudaMemcpy(score.data(), d_score, score.size() * sizeof(int), cudaMemcpyDeviceToHost);
    std::printf("score of tile 0: %d\n", score[kSide * kSide - 1]);
    cudaFree(d_score);
    cudaFree(d_reference);
    return 0;
}
