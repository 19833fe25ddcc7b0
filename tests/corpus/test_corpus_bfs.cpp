// The textbook BFS's block queue: its overflow path stores the queue's tail
// plainly while other threads atomicAdd it. The run completes with the right
// frontier and one warning that names both lines and why the memory model
// calls it a race; a plain store that resets a counter others add to, which
// loses their additions, still stops the run.
#include <algorithm>

#include "corpus/corpus_test.h"

namespace warplab::test {
namespace {

using BlockQueueBfs = CorpusScheduleTest;
INSTANTIATE_TEST_SUITE_P(BothSchedules, BlockQueueBfs, ::testing::ValuesIn(kSchedules), ScheduleParamName{});

// A frontier of vertices 0 .. 99 (blocks of 64 threads: 64 and 36 of them).
// Vertex v's neighbours: 100 + 3v, 100 + 3v + 1, 100 + 3v + 2 (new), the first
// new neighbour of v + 1 (reached twice: visited[] keeps one) and v + 1 (on the
// frontier already). So the next frontier is 100 .. 399, each once, at level
// 1; block 0 finds 3 * 64 = 192 new vertices and block 1 108, past the
// queue's 64, so both take the overflow path.
struct Graph {
    std::vector<unsigned> edges, dest;
};
constexpr unsigned kFrontier = 100, kVertices = 400, kUnreached = 0xFFFFFFFFu;

Graph frontier_graph()
{
    Graph g;
    for (unsigned v = 0; v < kVertices; ++v) {
        g.edges.push_back(static_cast<unsigned>(g.dest.size()));
        if (v >= kFrontier) continue;
        const unsigned next = (v + 1) % kFrontier;
        for (unsigned n : {kFrontier + 3 * v, kFrontier + 3 * v + 1, kFrontier + 3 * v + 2, kFrontier + 3 * next, next})
            g.dest.push_back(n);
    }
    g.edges.push_back(static_cast<unsigned>(g.dest.size()));
    return g;
}

TEST_P(BlockQueueBfs, TheOverflowStoreBesideAtomicsIsAWarningAndTheLevelIsRight)
{
    const Graph g = frontier_graph();
    std::vector<unsigned> frontier(kFrontier), label(kVertices, kUnreached), visited(kVertices, 0);
    for (unsigned v = 0; v < kFrontier; ++v) frontier[v] = v, label[v] = 0, visited[v] = 1;
    unsigned* d_frontier = to_device(emu, frontier);
    unsigned* d_size = to_device(emu, std::vector<unsigned>{kFrontier});
    unsigned* d_next = zeros<unsigned>(emu, kVertices);
    unsigned* d_next_size = zeros<unsigned>(emu, 1);
    unsigned* d_label = to_device(emu, label);
    ASSERT_NO_THROW(run_corpus(emu, "bfs_block_queue.cu", "bfs_block_queue", dim3(2), dim3(64), 0, d_frontier, d_size,
                               d_next, d_next_size, to_device(emu, g.edges), to_device(emu, g.dest), d_label,
                               to_device(emu, visited)));
    const unsigned next_size = to_host(emu, d_next_size, 1)[0];
    ASSERT_EQ(next_size, kVertices - kFrontier);
    auto next = to_host(emu, d_next, next_size);
    std::sort(next.begin(), next.end());
    for (unsigned k = 0; k < next_size; ++k) ASSERT_EQ(next[k], kFrontier + k);
    const auto levels = to_host(emu, d_label, kVertices);
    for (unsigned v = 0; v < kVertices; ++v) EXPECT_EQ(levels[v], v < kFrontier ? 0u : 1u) << "vertex " << v;

    // One site: the overflow store, whichever of it and an atomicAdd came
    // second; and, where two warps' stores met, the same store line again.
    const std::string file = project_file(corpus_path("bfs_block_queue.cu"));
    const unsigned store = marker_line(file, "marker: overflow store"), atomic = marker_line(file, "marker: queue atomic");
    const auto warnings = emu.take_warnings();
    ASSERT_FALSE(warnings.empty());
    bool against_atomic = false;
    for (const wl::emu::Warning& w : warnings) {
        SCOPED_TRACE(w.at.message());
        EXPECT_EQ(w.at.line, store);
        EXPECT_TRUE(contains(w.at.what, "c_frontier_tail_s[0]"));
        EXPECT_TRUE(contains(w.at.what, "CUDA's memory model"));
        EXPECT_TRUE(contains(w.at.what, "atomicExch"));
        if (contains(w.at.what, "races with another thread's atomic operation on it at ")) {
            against_atomic = true;
            EXPECT_TRUE(contains(w.at.what, "bfs_block_queue.cu:" + std::to_string(atomic)));
            EXPECT_TRUE(contains(w.at.what, "one at a time"));
        } else {
            EXPECT_TRUE(contains(w.at.what, "plain stores of the same value")) << "the only other kind";
        }
    }
    EXPECT_TRUE(against_atomic);
}

TEST_P(BlockQueueBfs, AClearThatLosesOtherThreadsAdditionsIsWarnedOfAtTheClear)
{
    // 64 threads: 63 add 1, thread 40 stores 0 unordered with them. Whatever
    // the order, the count is 63 minus the additions before the clear, and the
    // warning names the clear's line and the atomicAdd's.
    unsigned* out = zeros<unsigned>(emu, 1);
    ASSERT_NO_THROW(run_corpus(emu, "bfs_block_queue.cu", "clear_while_adding", dim3(1), dim3(64), 0, out));
    EXPECT_LE(to_host(emu, out, 1)[0], 63u);
    const std::string file = project_file(corpus_path("bfs_block_queue.cu"));
    const auto warnings = emu.take_warnings();
    ASSERT_EQ(warnings.size(), 1u);
    const wl::emu::Warning& w = warnings[0];
    EXPECT_EQ(w.at.line, marker_line(file, "marker: clear")) << w.at.message();
    EXPECT_EQ(w.at.thread.x, 40u);
    EXPECT_TRUE(contains(w.at.what, "a plain store to count[0] races with another thread's atomic operation on it at "
                                    "tests/corpus/bfs_block_queue.cu:" + std::to_string(marker_line(file, "marker: add"))))
        << w.at.what;
}

}  // namespace
}  // namespace warplab::test
