#include "labs/transpose/lab.h"

#include <stdexcept>

#include "labs/transpose/driver.h"

namespace warplab::transpose {

namespace {

std::string dims(const dim3& d) { return std::to_string(d.x) + "×" + std::to_string(d.y); }

// {rows, cols} from a size given as {S} or {rows, cols}; n (n×n) when there is none.
Shape shape_from(const std::vector<std::size_t>& size, std::size_t n)
{
    Shape s;
    if (size.size() == 2)
        s = {size[0], size[1]};
    else if (size.size() == 1)
        s = {size[0], size[0]};
    else if (!size.empty())
        throw std::invalid_argument("a transpose size is S (S×S) or ROWS,COLS");
    else
        s = {n, n};
    if (s.rows == 0 || s.cols == 0) throw std::invalid_argument("the matrix needs at least one row and one column (got " + s.text() + ")");
    if (s.rows > kMaxElements || s.cols > kMaxElements || s.elements() > kMaxElements)
        throw std::invalid_argument("shape " + s.text() + " has 2^32 elements or more (the kernels index with 32 bits)");
    return s;
}

// Bad input is refused before anything runs, with one sentence that names it.
void validate(const RunRequest& req, const Shape& s)
{
    bool found = false;
    with_version(req.version, [&](auto v) {
        using V = decltype(v);
        found = true;
        if (req.block != 0 && req.block != V::threads)
            throw std::invalid_argument(std::string(V::meta.id) + "'s block is fixed by its tile: " + dims(V::block()) + " = " +
                                        std::to_string(V::threads) + " threads");
        const dim3 grid = V::grid(s.rows, s.cols);
        if (grid.y > 65535)
            throw std::invalid_argument("shape " + s.text() + " needs " + std::to_string(grid.y) + " blocks along y, above CUDA's 65535");
        if (req.watched_block >= std::size_t(grid.x) * grid.y)
            throw std::invalid_argument("watched block " + std::to_string(req.watched_block) + " does not exist: " +
                                        std::string(V::meta.id) + " runs " + dims(grid) + " blocks for " + s.text());
    });
    if (!found) throw std::invalid_argument("unknown transpose version '" + req.version + "'");
    if (req.type != "float") throw std::invalid_argument("transpose moves floats: --type " + req.type + " is not offered");
    const std::size_t bytes = 3 * s.elements() * sizeof(float) * 2;  // in, out and the reference; host and device copies
    if (req.backend != BackendChoice::Gpu && bytes > available_host_bytes())
        throw std::invalid_argument("shape " + s.text() + " needs " + std::to_string(bytes >> 20) + " MiB, more than the " +
                                    std::to_string(available_host_bytes() >> 20) + " MiB of free memory");
}

RunResult run(const RunRequest& req)
{
    validate(req, shape_of(req));
    return runs_on_gpu(req) ? run_on_gpu(req) : run_on_emulator(req);
}

}  // namespace

Shape shape_of(const RunRequest& req)
{
    if (req.shape.empty() && req.n == 0) return shape_from({kTraceRows, kTraceCols}, 0);
    return shape_from(req.shape, req.n);
}

Shape shape_of(const BenchOptions& o) { return shape_from(o.shape, o.n); }

std::string describe(const std::string& version, const Shape& s)
{
    std::string out;
    with_version(version, [&](auto v) {
        using V = decltype(v);
        const dim3 g = V::grid(s.rows, s.cols);
        const std::size_t blocks = std::size_t(g.x) * g.y;
        out = "out = in transposed, in " + s.text() + " floats, row-major; " + std::to_string(blocks) + (blocks == 1 ? " block (" : " blocks (") +
              dims(g) + ") of " + dims(V::block()) + " threads, each a " + std::to_string(V::tile) + "×" + std::to_string(V::tile) +
              " tile";
    });
    return out;
}

Lab make_lab()
{
    // n = 0: the trace default (64×64). 8192×8192 floats (256 MiB each way) is
    // the size the last version's ratio to the copy is judged at; 2048×2048 (16 MiB) shows
    // the ladder where the data nearly fits in L2 (flushed before each run).
    return Lab{"transpose", "Matrix transpose (Harris)", version_list<Versions>(kKernels), 0, 0, {"float"}, run, {2048, 8192}, bench_on_gpu};
}

}  // namespace warplab::transpose
