// The image lab as the run skeleton sees it (labs/common/run_skeleton.h): the
// picture and group a request asks for, bad input refused, and one run of a
// version on any backend: every pass, the first pass's partials checked tile
// by tile and the mean luminance against the CPU's. Its registry line is in
// labs/common/registry.cpp.
#pragma once
#include <stdexcept>
#include <string>
#include <vector>

#include "labs/common/bench.h"
#include "labs/common/run_skeleton.h"
#include "labs/image/passes.h"
#include "labs/image/picture.h"
#include "labs/image/problem.h"
#include "labs/image/versions.h"

namespace warplab::image {

// The lab's kernels as PTX (labs/image/kernels.cu, or kernels/ptx/image.ptx
// where the build had no nvcc), embedded in the library.
extern const char kPtx[];

// nvcc only (gpu_bench.cu): the GPU trace and check of the run skeleton, and
// the benchmark, which times every version beside a copy and CUB.
GpuBackends gpu_backends();
BenchTable bench_on_gpu(const BenchOptions& options);

// The squares a row of the picture a run keeps (RunResult::picture): the viewer's panel draws them.
inline constexpr std::size_t kPictureCellsAcross = 96;

// The lab's input (Lab::Input): --image PICTURE.png, reduced in place of the
// seeded picture; its PNG header checked, and its size against --size's.
inline constexpr const char* kPictureInput = "image";
inline Lab::Input picture_input()
{
    return {kPictureInput, "PICTURE.png", "reduce this PNG file instead of the seeded picture",
            "time on this PNG file instead of the seeded 1080p picture",
            [](const std::string& file, const std::vector<std::size_t>& shape) { picture_size(file, shape, 0, 0); }};
}

inline Picture picture_of(const RunRequest& req)
{
    return picture_for(input_value(req.inputs, kPictureInput), req.shape, kTraceWidth, kTraceHeight, req.seed);
}
// Its size alone (a PNG's header, or the size asked for): validation and device bytes build no picture.
inline PictureSize picture_size_of(const RunRequest& req)
{
    return picture_size(input_value(req.inputs, kPictureInput), req.shape, kTraceWidth, kTraceHeight);
}

inline std::string text(Group g) { return std::to_string(g.x) + "×" + std::to_string(g.y); }

// "4×4, 8×4, ...": the groups version V takes.
template <class V> std::string groups_taken()
{
    std::string out;
    for (Group g : kGroups)
        if (takes<V>(g)) out += (out.empty() ? "" : ", ") + text(g);
    return out;
}

// The group a request asks for: {x, y} from `block` ({B} is B×1), else the
// version's; refused where V's kernel is not built for it.
template <class V> Group group_of(const std::vector<unsigned>& block)
{
    if (block.empty()) return V::group;
    if (block.size() > 2) throw std::invalid_argument("a group is WxH (e.g. 16x16)");
    const Group g{block[0], block.size() == 2 ? block[1] : 1u};
    bool built = false;
    for (Group k : kGroups) built |= k == g && takes<V>(g);
    if (!built) throw std::invalid_argument(std::string(V::meta.id) + " is built for the groups " + groups_taken<V>() + ", not " + text(g));
    return g;
}

// A request's group: --block WxH (block_dim); a plain --block B only as the version's own thread count.
template <class V> Group group_of(const RunRequest& req)
{
    if (req.block_dim.empty() && req.block != 0 && req.block != V::group.threads())
        throw std::invalid_argument("the image lab's groups are 2D: give --block WxH (" + std::string(V::meta.id) + " takes " +
                                    groups_taken<V>() + ")");
    return group_of<V>(req.block_dim);
}

// The CPU's sum of each group's tile: the first pass's partials, row-major.
inline std::vector<double> tile_sums(const Picture& p, unsigned tile_w, unsigned tile_h, dim3 grid)
{
    std::vector<double> sums(std::size_t(grid.x) * grid.y, 0.0);
    for (std::size_t y = 0; y < p.height; ++y)
        for (std::size_t x = 0; x < p.width; ++x) {
            const Rgba8& px = p.pixels[y * p.width + x];
            sums[(y / tile_h) * grid.x + x / tile_w] += (kWeights[0] * px.x + kWeights[1] * px.y + kWeights[2] * px.z) / 255.0;
        }
    return sums;
}

// The first pass's partials against the CPU's tiles: "all 240 partials
// within tolerance", or the first that is not.
inline bool check_partials(const std::vector<double>& expected, const PassGrid& got, std::string& why)
{
    for (std::size_t i = 0; i < expected.size(); ++i)
        if (!sum_matches(got.values[i], expected[i])) {
            why = "partial (" + std::to_string(i % got.width) + ", " + std::to_string(i / got.width) + ") of the first pass is " +
                  std::to_string(got.values[i]) + ", expected " + std::to_string(expected[i]);
            return false;
        }
    why = "all " + std::to_string(expected.size()) + " partials of the first pass within tolerance";
    return true;
}

// "mean luminance of 320×180 pixels: 20×12 groups of 16×16 threads, each a
// 16×16 tile; partials 20×12 → 2×1 → 1×1".
inline std::string describe(const Picture& p, Group g, unsigned tile_w, unsigned tile_h, const std::vector<PassGrid>& grids)
{
    std::string out = "mean luminance of " + p.text() + " RGBA8 pixels: " + std::to_string(grids.front().width) + "×" +
                      std::to_string(grids.front().height) + " groups of " + text(g) + " threads, each a " + std::to_string(tile_w) +
                      "×" + std::to_string(tile_h) + " tile; partials ";
    for (const PassGrid& grid : grids)
        out += std::to_string(grid.width) + "×" + std::to_string(grid.height) + (&grid == &grids.back() ? "" : " → ");
    return out;
}

struct Description {
    using Versions = image::Versions;
    static constexpr const KernelFiles& kernels = kKernels;
    static constexpr const char* ptx = kPtx;

    template <class V> static void validate(const RunRequest& req)
    {
        const Group g = group_of<V>(req);
        const PictureSize p = picture_size_of(req);
        const dim3 grid = V::grid(p.width, p.height, g);
        validate_launch(req, grid, "a " + p.text() + " picture", "groups");
        if (req.type != "float") throw std::invalid_argument("the image lab sums floats: --type " + req.type + " is not offered");
        require_host_memory(req, p.count() * 4 * 3, "a " + p.text() + " picture");  // the pixels, their device copy, the partials
    }

    template <class V, class Backend> static void run(Backend& be, const RunRequest& req, RunResult& out)
    {
        const Picture p = picture_of(req);
        const Group g = group_of<V>(req);
        with_group(g, [&]<unsigned BX, unsigned BY>() {
            if constexpr (takes<V>(Group{BX, BY})) run_with<V, BX, BY>(be, p, out);
        });
    }

    template <class V, unsigned BX, unsigned BY, class Backend> static void run_with(Backend& be, const Picture& p, RunResult& out)
    {
        Rgba8* d_in = be.template alloc<Rgba8>(p.count());
        be.copy_to_device(d_in, p.pixels.data(), p.count());
        const double expected = reference_sum(p);
        {
            Passes<V, BX, BY, Backend> passes(be, p.width, p.height);
            out.value = double(passes.sum(d_in, &out.pass_grids)) / double(p.count());
            const dim3 grid = passes.first_grid();
            out.block_dim = {BX, BY, 1};
            out.grid_dim = {grid.x, grid.y, 1};
        }
        be.free(d_in);
        constexpr unsigned tile_w = V::fetch_x * BX, tile_h = V::fetch_y * BY;
        const dim3 grid(out.grid_dim[0], out.grid_dim[1]);
        const bool partials_ok = check_partials(tile_sums(p, tile_w, tile_h, grid), out.pass_grids.front(), out.check);
        out.expected = expected / double(p.count());
        out.ok = partials_ok && sum_matches(out.value * double(p.count()), expected);
        if (partials_ok && !out.ok) out.check = "the partials are right but the later passes' sum is not";
        out.threads_per_block = BX * BY;
        out.shape = {p.width, p.height};
        out.problem = describe(p, Group{BX, BY}, tile_w, tile_h, out.pass_grids);
        out.picture = picture_cells(p, kPictureCellsAcross);
    }

    static DeviceBytes device_bytes(const RunRequest& req)
    {
        const PictureSize p = picture_size_of(req);
        return {p.count() * 4 * 2, "a " + p.text() + " picture"};
    }
};

}  // namespace warplab::image
