// E11 checks: the first pass of a mean luminance, four pixels a thread
// (exercises/E11_luminance_four_fetches). Run by the grader's child process
// on the PTX of the student's kernel.cuh.
#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdio>
#include <limits>
#include <map>
#include <set>
#include <tuple>

#include "harness/harness.h"
#include "warplab/random.h"

namespace wl::grade::e11 {

struct Rgba8 {  // uchar4 as the kernel reads it: x = red, y = green, z = blue, w = alpha
    std::uint8_t r, g, b, a;
};
static_assert(sizeof(Rgba8) == 4);

struct Image {
    std::string name;
    unsigned width, height;
    std::vector<Rgba8> pixels;  // row-major
    bool main = false;  // a main case (harness.h's Case::main)
};

// The launch shape, from the student's constants (kGroupX, kGroupY, kTileX, kTileY).
struct Shape {
    unsigned group_x, group_y, tile_x, tile_y;
    unsigned threads() const { return group_x * group_y; }
    dim3 grid(const Image& im) const
    {
        return dim3((im.width + tile_x - 1) / tile_x, (im.height + tile_y - 1) / tile_y);
    }
};

// A group's tile as it lies in the image: the top-left pixel and the extent
// that the right and bottom edges leave of it.
struct Tile {
    unsigned x0, y0, w, h;
    unsigned pixels() const { return w * h; }
    bool holds(unsigned x, unsigned y) const { return x >= x0 && x < x0 + w && y >= y0 && y < y0 + h; }
};

Tile tile_of(const Shape& s, const Image& im, unsigned gx, unsigned gy)
{
    const unsigned x0 = gx * s.tile_x, y0 = gy * s.tile_y;
    return {x0, y0, std::min(s.tile_x, im.width - x0), std::min(s.tile_y, im.height - y0)};
}

std::string size_text(unsigned w, unsigned h) { return std::to_string(w) + "x" + std::to_string(h); }
std::string group_text(unsigned gx, unsigned gy)
{
    return "group (" + std::to_string(gx) + "," + std::to_string(gy) + ")";
}
// Six significant digits: the tolerance below is 1.6e-5 of a partial, so a
// seventh digit says nothing (a white tile's 256 sums to 255.99998 or 256.00002).
std::string number(double v)
{
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.6g", v);
    return buf;
}

// The student's constants, read on the emulator (catalog.h's grader_luminance_shape).
Shape student_shape(const Harness& h)
{
    emu::Emulator emu;
    configure(emu, emu::Schedule::Independent, 1, false);
    unsigned* d = emu.alloc<unsigned>(4);
    launch(emu, h, "grader_luminance_shape", dim3(1), dim3(1), d);
    const std::vector<unsigned> v = to_host(emu, d, 4);
    return {v[0], v[1], v[2], v[3]};
}

// A shape CUDA can launch (1 to 1024 threads, at most 64 along y) with a tile of at least one pixel.
Finding launchable(const Shape& s)
{
    const bool ok = s.group_x > 0 && s.group_y > 0 && s.threads() <= 1024 && s.group_y <= 64 && s.tile_x > 0 &&
                    s.tile_y > 0;
    if (ok) return std::nullopt;
    return fail("kGroupX = " + std::to_string(s.group_x) + ", kGroupY = " + std::to_string(s.group_y) +
                    ", kTileX = " + std::to_string(s.tile_x) + ", kTileY = " + std::to_string(s.tile_y),
                "a group of 1 to 1024 threads (kGroupY at most 64) and a tile of at least 1x1 pixels",
                "kernel.cuh's constants", "keep the skeleton's 8x8 group and 16x16 tile");
}

// The blog's weights on the colour scaled to [0, 1], in double: the kernel's
// float luminance is within 10 roundings of it (3 divisions, 3 products, 2
// adds, and the weights' own rounding to float: each u = 2^-24 of a term, all
// terms non-negative).
double luminance(Rgba8 p) { return 0.2125 * (p.r / 255.0) + 0.7154 * (p.g / 255.0) + 0.0721 * (p.b / 255.0); }

double tile_sum(const Image& im, const Tile& t)
{
    double sum = 0;
    for (unsigned y = t.y0; y < t.y0 + t.h; ++y)
        for (unsigned x = t.x0; x < t.x0 + t.w; ++x) sum += luminance(im.pixels[std::size_t(y) * im.width + x]);
    return sum;
}

// Where a tile is cut, in words: "cut by the right edge", or nothing.
std::string cut_text(const Shape& s, const Tile& t)
{
    const bool right = t.w < s.tile_x, bottom = t.h < s.tile_y;
    if (!right && !bottom) return "";
    return std::string(" (its ") + size_text(s.tile_x, s.tile_y) + " tile cut by the " +
           (right && bottom ? "right and bottom edges" : right ? "right edge" : "bottom edge") + ")";
}

// Compares each group's partial with the sum of its pixels' luminance.
// Tolerance: the n luminances (each within 10u of the exact value, above)
// added in any order: each add rounds once, and a partial sum of non-negative
// terms never exceeds the whole, so the error is at most (n - 1 + 10) u of the
// partial (first order; n = 256 gives 1.6e-5). A pixel missed or added twice
// moves a white tile's partial by 1 in 256, far outside it.
Finding compare_partials(const Shape& s, const Image& im, const std::vector<float>& got)
{
    const dim3 grid = s.grid(im);
    constexpr double u = 1.0 / (1 << 24);
    for (unsigned gy = 0; gy < grid.y; ++gy)
        for (unsigned gx = 0; gx < grid.x; ++gx) {
            const Tile t = tile_of(s, im, gx, gy);
            const double expected = tile_sum(im, t), value = got[std::size_t(gy) * grid.x + gx];
            if (std::fabs(value - expected) <= (t.pixels() + 9) * u * expected) continue;  // false for NaN
            const std::string group = group_text(gx, gy);
            return fail("your kernel's partial of " + group + " was " + number(value) +
                            (std::isnan(value) ? ", not written by the kernel" : "") + "; the right partial is " +
                            number(expected) + ", the luminance of its " + size_text(t.w, t.h) +
                            " pixels in the image" + cut_text(s, t),
                        "partials[" + std::to_string(std::size_t(gy) * grid.x + gx) + "] = " + number(expected));
        }
    return std::nullopt;
}

// What a traced run keeps: block `watched`'s records and where the image lay.
struct Traced {
    std::vector<trace::LaneRecord> records;
    std::uint64_t image_base = 0;  // the image's address % 256: global offsets in the trace start there
};

Finding run_partials(const Harness& h, const Shape& s, const Image& im, std::uint64_t lane_seed,
                     Traced* traced = nullptr, std::uint32_t watched = 0)
{
    const dim3 grid = s.grid(im);
    emu::Emulator emu;
    configure(emu, emu::Schedule::Independent, lane_seed, traced != nullptr);
    emu.options.watched_blocks = {watched};
    const Rgba8* d_image = to_device(emu, im.pixels);
    const std::vector<float> before(std::size_t(grid.x) * grid.y, std::numeric_limits<float>::quiet_NaN());
    float* d_partials = to_device(emu, before);
    launch(emu, h, "exercise::luminance_partials", grid, dim3(s.group_x, s.group_y), d_image, d_partials, im.width,
           im.height);
    if (traced) {
        traced->records = emu.take_records();
        traced->image_base = reinterpret_cast<std::uintptr_t>(d_image) % 256;
    }
    return compare_partials(s, im, to_host(emu, d_partials, before.size()));
}

Image seeded(unsigned width, unsigned height, std::uint64_t seed, const std::string& label)
{
    Image im{label + ": " + size_text(width, height) + ", seed " + std::to_string(seed), width, height,
             std::vector<Rgba8>(std::size_t(width) * height)};
    Random rng(seed);
    for (Rgba8& p : im.pixels) {
        const auto channel = [&] { return static_cast<std::uint8_t>(rng.uniform_int(0, 255)); };
        p.r = channel();
        p.g = channel();
        p.b = channel();
        p.a = channel();
    }
    return im;
}

// The published pattern, then images from this run's seed.
std::vector<Image> inputs(std::uint64_t seed)
{
    // White: every pixel's luminance is 0.2125 + 0.7154 + 0.0721 = 1, so a
    // partial counts its pixels in the image. At 16x16 tiles the grid is 3x2:
    // 256, 256, 144 (9 columns: 41 = 2 * 16 + 9) on top, 144, 144, 81 (9 rows:
    // 25 = 16 + 9) below; 1025 = 41 * 25 in all.
    Image white{"pattern: 41x25, every pixel white (luminance 1: a partial counts its pixels)", 41, 25,
                std::vector<Rgba8>(41 * 25, Rgba8{255, 255, 255, 255})};
    return {white,
            main_case(seeded(96, 64, seed, "seeded random")),
            seeded(37, 23, seed + 1, "odd size"),
            seeded(1, 1, seed + 2, "odd size"),
            seeded(33, 17, seed + 3, "odd size"),
            seeded(1, 40, seed + 4, "one column"),
            seeded(250, 130, seed + 5, "many groups")};
}

Verdict correct(const Harness& h)
{
    const Shape s = student_shape(h);
    if (Finding f = launchable(s)) return *f;
    const std::vector<Image> all = inputs(h.seed());
    if (std::fabs(tile_sum(all[0], {0, 0, 41, 25}) - 1025) > 1e-9)
        throw std::logic_error("grader bug: the white pattern's sum derived by hand disagrees with the reference");
    const auto run = [&](const Image& im, std::uint64_t lane_seed) { return run_partials(h, s, im, lane_seed); };
    return run_cases(cases_of(all, run), "right partials");
}

// ---- what group (gx, gy) fetched, from its trace ----

// The image the properties trace: 250x130 (odd in both, its last group cut by
// both edges), this run's seed, when the kernel's partials of it are right;
// else 160x96, whole 16x16 tiles, where a kernel wrong only at the edges (a <=
// in a bounds check) may still be right: a property is measured where the
// result is right (fetches_of refuses an image whose partials are wrong).
struct TracedImage {
    Image image;
    std::string edges_wrong;  // why 250x130 is not traced, or empty
};

TracedImage traced_image(const Harness& h, const Shape& s)
{
    Image odd = seeded(250, 130, h.seed() + 100, "traced");
    bool right = false;
    try {
        right = !run_partials(h, s, odd, 1);
    } catch (const emu::KernelFault&) {  // wrong too: 'correct' reports the same fault on its 250x130 case
    }
    if (right) return {std::move(odd), {}};
    return {seeded(160, 96, h.seed() + 101, "traced, whole tiles"),
            "its partials of the 250x130 image are wrong (see check 'correct')"};
}

struct Fetches {
    unsigned threads = 0;
    std::vector<std::set<std::uint64_t>> pixels_of_thread;  // pixel indices each thread loaded bytes of
    std::map<std::uint64_t, std::map<std::size_t, unsigned>> bytes_of_pixel;  // pixel -> thread -> bytes loaded
    BlockView view;
};

Fetches fetches_of(const Harness& h, const Shape& s, const Image& im, unsigned gx, unsigned gy)
{
    Traced t;
    const std::uint32_t block = gy * s.grid(im).x + gx;
    require_right(run_partials(h, s, im, 1, &t, block), size_text(im.width, im.height));
    Fetches out{s.threads(), std::vector<std::set<std::uint64_t>>(s.threads()), {},
                view_block(h, t.records, s.threads(), block)};
    for (const trace::WarpEvent& e : out.view.block.events) {
        if (!is_global_load(e) || e.array != 0) continue;  // argument 0: the image
        trace::for_each_lane(e.mask, [&](unsigned lane) {
            const std::size_t thread = trace::thread_of(out.view.block, e, lane);
            for (std::uint64_t b = e.offset[lane] - t.image_base; b < e.offset[lane] - t.image_base + e.size; ++b) {
                out.bytes_of_pixel[b / 4][thread] += 1;
                if (thread < out.threads) out.pixels_of_thread[thread].insert(b / 4);
            }
        });
    }
    return out;
}

std::string pixel_text(const Image& im, std::uint64_t p)
{
    return "pixel (" + std::to_string(p % im.width) + "," + std::to_string(p / im.width) + ")";
}

// How often a pixel was fetched: by each thread, once per 4 bytes it loaded
// of it (a thread that loads only some channels fetched it once).
unsigned times_fetched(const std::map<std::size_t, unsigned>& bytes_by_thread)
{
    unsigned n = 0;
    for (const auto& [thread, bytes] : bytes_by_thread) n += (bytes + 3) / 4;
    return n;
}

// Every pixel of the tile in the image fetched, once, and none outside it.
Finding each_pixel_once(const Image& im, const Fetches& f, const Tile& t, const std::string& group)
{
    unsigned fetched = 0, twice = 0, outside = 0, most = 0;
    std::uint64_t worst = 0;  // the pixel fetched most often
    for (const auto& [p, by_thread] : f.bytes_of_pixel) {
        const bool in_tile = t.holds(unsigned(p % im.width), unsigned(p / im.width));
        const unsigned times = times_fetched(by_thread);
        fetched += in_tile;
        outside += !in_tile;
        twice += times > 1;
        if (times > most) std::tie(worst, most) = std::pair{p, times};
    }
    if (fetched == t.pixels() && twice == 0 && outside == 0) return std::nullopt;
    const std::string most_text = twice ? " (" + pixel_text(im, worst) + " " + std::to_string(most) + " times)" : "";
    return fail(group + " of a " + size_text(im.width, im.height) + " image (" + size_text(t.w, t.h) +
                    " of its pixels in the image): " + std::to_string(fetched) + " of them fetched, " +
                    std::to_string(twice) + " more than once" + most_text + ", " + std::to_string(outside) +
                    " pixels outside its tile",
                "each of its " + std::to_string(t.pixels()) + " pixels in the image fetched once",
                group, "");
}

// All of a thread's fetches come before the tree: no image load in a barrier
// interval after the first one that writes shared memory.
Finding fetch_before_tree(const Harness& h, const Fetches& f, const std::string& group)
{
    std::uint32_t tree = UINT32_MAX;
    for (const trace::WarpEvent& e : f.view.block.events)
        if (is_shared_write(e)) tree = std::min(tree, e.key.epoch);
    for (const trace::WarpEvent& e : f.view.block.events) {
        if (!is_global_load(e) || e.key.epoch <= tree) continue;
        return fail("step " + std::to_string(e.step) + ": warp " + std::to_string(e.warp) +
                        " fetched pixels in barrier interval " + std::to_string(e.key.epoch) +
                        ", after the group's first shared store (interval " + std::to_string(tree) + ")",
                    "the four fetches first, then one value a thread into the tree", group + ", " + h.site(e.site));
    }
    return std::nullopt;
}

// Group (0,0) of the traced image, a whole tile: 64 threads, each fetching 4
// distinct pixels, the tile 4 x 64 = 256 pixels, each fetched once; one group
// looping over the image, one thread looping over the tile, or one pixel a
// thread in a bigger group has other counts. Then the last group, cut by both
// edges (at 16x16: 10x2 pixels of 250x130): each pixel in the image once,
// none twice (a fetch clamped to the edge fetches an edge pixel again). Where
// the 250x130 partials are wrong, group (0,0) of the 160x96 image alone.
Verdict four_fetches(const Harness& h)
{
    const Shape s = student_shape(h);
    const TracedImage traced = traced_image(h, s);
    const Image& im = traced.image;
    const Fetches first = fetches_of(h, s, im, 0, 0);
    const Tile whole = tile_of(s, im, 0, 0);
    const std::string group = group_text(0, 0);
    unsigned fewest = UINT32_MAX, most = 0;
    for (const auto& pixels : first.pixels_of_thread) {
        fewest = std::min<unsigned>(fewest, unsigned(pixels.size()));
        most = std::max<unsigned>(most, unsigned(pixels.size()));
    }
    if (s.threads() != 64 || s.tile_x * s.tile_y != 256 || fewest != 4 || most != 4)
        return fail(group + " of a " + size_text(im.width, im.height) + " image: " + std::to_string(s.threads()) +
                        " threads (" + size_text(s.group_x, s.group_y) + ") over a " +
                        size_text(s.tile_x, s.tile_y) + " tile, fetching " + range_text(fewest, most) + " pixel" +
                        (most == 1 ? "" : "s") + " each",
                    "64 threads (8x8) over a tile of 256 pixels (16x16), each thread fetching 4",
                    group + " (" + size_text(im.width, im.height) + ")");
    if (Finding f = each_pixel_once(im, first, whole, group)) return *f;
    if (Finding f = fetch_before_tree(h, first, group)) return *f;
    const std::string whole_group = "group (0,0): 64 threads fetched 4 pixels each, its 256 pixels once each, before the tree";
    if (!traced.edges_wrong.empty())
        return pass(whole_group + " (" + size_text(im.width, im.height) + " image); a group cut by the edges not "
                    "measured: " + traced.edges_wrong);
    const dim3 grid = s.grid(im);
    const Fetches last = fetches_of(h, s, im, grid.x - 1, grid.y - 1);
    const Tile cut = tile_of(s, im, grid.x - 1, grid.y - 1);
    const std::string last_group = group_text(grid.x - 1, grid.y - 1);
    if (Finding f = each_pixel_once(im, last, cut, last_group)) return *f;
    for (const auto& pixels : last.pixels_of_thread)
        if (pixels.size() > 4)
            return fail(last_group + ": a thread fetched " + std::to_string(pixels.size()) + " pixels",
                        "at most 4 a thread", last_group);
    return pass(whole_group + "; " + last_group + " (" + size_text(cut.w, cut.h) + " pixels in the " +
                size_text(im.width, im.height) + " image) fetched each once");
}

// The tree of harness.h's reduction_shape over the group's values: as many
// as it has threads (64 here), halving in shared memory or by shuffles.
Verdict group_tree(const Harness& h)
{
    const Shape s = student_shape(h);
    const Image im = traced_image(h, s).image;
    const Fetches f = fetches_of(h, s, im, 0, 0);
    if (Finding shape = reduction_shape(f.view, s.threads())) {
        shape->where = group_text(0, 0) + " of a " + size_text(im.width, im.height) + " image";
        return *shape;
    }
    return pass("group (0,0): its " + std::to_string(s.threads()) + " sums halved to 1 in a tree of " +
                std::to_string(std::bit_width(s.threads()) - 1) + " rounds (" + size_text(im.width, im.height) +
                " image)");
}

void grade(Harness& h)
{
    h.check(kCorrect, [&] { return correct(h); });
    h.check("four_fetches", [&] { return four_fetches(h); });
    h.check("group_tree", [&] { return group_tree(h); });
}

}  // namespace wl::grade::e11
