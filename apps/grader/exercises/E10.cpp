// E10 checks: a strided shared-memory read without bank conflicts
// (exercises/E10_bank_stride), after CS-206's "degree of bank conflict for
// stride s" exercise. Run by the grader's child process on the PTX of the
// student's kernel.cuh; the predictions come from answers.txt beside it.
#include <algorithm>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <map>
#include <numeric>
#include <regex>
#include <sstream>

#include "harness/harness.h"

namespace wl::grade::e10 {

constexpr unsigned kBlock = 128;

// ---- part 1: the predictions ----

// The n-way of one full warp reading T x = shared[s * lane], from the hardware
// model the trace analysis uses (DESIGN's 32 banks of 4 bytes).
unsigned model_ways(unsigned stride, unsigned size)
{
    std::array<std::uint64_t, trace::kDefaultWarpSize> offset{};
    for (unsigned lane = 0; lane < trace::kDefaultWarpSize; ++lane) offset[lane] = std::uint64_t(stride) * lane * size;
    const trace::BankCost c = trace::shared_bank_cost(0xffffffffu, offset, size, trace::Kind::Load);
    return c.wavefronts / c.ideal;
}

struct Prediction {
    unsigned stride = 0, size = 0, answer = 0;
};

// answers.txt: "# ..." comments, then one line a stride: `s  n4  n8`.
// Throws std::runtime_error naming the line that cannot be read.
std::vector<Prediction> read_answers(const std::string& path)
{
    std::ifstream in(path);
    if (!in)
        throw std::runtime_error("no answers.txt beside kernel.cuh: the predictions go in " +
                                 (std::filesystem::path(path).parent_path().filename() / "answers.txt").string());
    std::vector<Prediction> got;
    std::string line;
    for (unsigned number = 1; std::getline(in, line); ++number) {
        const std::string text = line.substr(0, line.find('#'));
        if (text.find_first_not_of(" \t\r") == std::string::npos) continue;
        std::istringstream fields(text);
        unsigned stride = 0, four = 0, eight = 0;
        std::string rest;
        if (!(fields >> stride >> four >> eight) || (fields >> rest))
            throw std::runtime_error("answers.txt line " + std::to_string(number) + " reads '" + text +
                                     "': write the stride, then the 4-byte and the 8-byte n-way, as whole numbers (no ? left)");
        got.push_back({stride, 4, four});
        got.push_back({stride, 8, eight});
    }
    return got;
}

std::string prediction_name(const Prediction& p)
{
    return "stride " + std::to_string(p.stride) + " at " + std::to_string(p.size) + " bytes";
}

// All 16 (strides 1..8, 4 and 8 bytes), each right. Which are off is said;
// the right values are not (`warplab banks` shows them, once predicted).
Verdict predictions(const Harness& h)
{
    std::vector<Prediction> got;
    try {
        got = read_answers(h.kernel_dir() + "/answers.txt");
    } catch (const std::runtime_error& e) {
        return fail(e.what(), "16 predictions: strides 1 to 8, at 4 and at 8 bytes");
    }
    std::vector<std::string> missing, off;
    for (unsigned stride = 1; stride <= 8; ++stride)
        for (unsigned size : {4u, 8u}) {
            const auto it = std::find_if(got.begin(), got.end(), [&](const Prediction& p) {
                return p.stride == stride && p.size == size;
            });
            if (it == got.end()) missing.push_back(prediction_name({stride, size, 0}));
            else if (it->answer != model_ways(stride, size))
                off.push_back(prediction_name(*it) + " (you wrote " + std::to_string(it->answer) + "-way)");
        }
    const auto list = [](const std::vector<std::string>& xs) {
        return std::accumulate(xs.begin(), xs.end(), std::string(),
                               [](std::string a, const std::string& b) { return a.empty() ? b : a + "; " + b; });
    };
    if (!missing.empty())
        return fail("answers.txt has no prediction for " + list(missing),
                    "16 predictions: strides 1 to 8, at 4 and at 8 bytes");
    if (!off.empty())
        return fail(std::to_string(off.size()) + " of your 16 predictions are off: " + list(off),
                    "the n-way the hardware model gives for each", "answers.txt",
                    "4-byte elements: lane l reads word s*l, in bank s*l mod 32; count the words one bank must "
                    "deliver. 8-byte elements are served a half-warp (16 lanes) at a time, 2 wavefronts at best. "
                    "Then check one: build/warplab banks --size 8 --stride 2");
    return pass("all 16 predictions right (strides 1 to 8, at 4 and 8 bytes)");
}

// ---- part 2: the kernel ----

struct ChunkInput {
    std::string name;
    unsigned stride;
    std::vector<float> in;  // chunks * stride floats
    bool main = false;  // a main case (harness.h's Case::main)
    unsigned chunks() const { return static_cast<unsigned>(in.size() / stride); }
};

std::string kernel_at(unsigned stride) { return "exercise::chunk_sums<128u, " + std::to_string(stride) + "u>"; }

Finding run_chunks(const Harness& h, const ChunkInput& t, std::uint64_t lane_seed,
                   std::vector<trace::LaneRecord>* records)
{
    emu::Emulator emu;
    configure(emu, emu::Schedule::Independent, lane_seed, records != nullptr);
    const unsigned chunks = t.chunks();
    const std::vector<float> before(chunks, std::numeric_limits<float>::quiet_NaN());
    const float* d_in = to_device(emu, t.in);
    float* d_out = to_device(emu, before);
    try {
        launch(emu, h, kernel_at(t.stride), dim3((chunks + kBlock - 1) / kBlock), dim3(kBlock), d_in, d_out, chunks);
    } catch (const emu::KernelFault&) {
        if (records) *records = emu.take_records();  // up to the fault: landing_hint reads them
        throw;
    }
    if (records) *records = emu.take_records();
    std::vector<float> expected(chunks, 0.0f);
    for (unsigned c = 0; c < chunks; ++c)
        for (unsigned k = 0; k < t.stride; ++k) expected[c] += t.in[std::size_t(c) * t.stride + k];
    // Whole numbers: every sum is exact in any order.
    return compare_floats(to_host(emu, d_out, chunks), expected, 0, 0,
                          [](std::size_t c) { return "out[" + std::to_string(c) + "]"; }, before);
}

ChunkInput seeded(const std::string& label, unsigned chunks, unsigned stride, std::uint64_t seed)
{
    return {label + ": " + std::to_string(chunks) + " chunks of " + std::to_string(stride) + ", seed " +
                std::to_string(seed),
            stride, random_whole_floats(std::size_t(chunks) * stride, seed, -1000, 1000)};
}

// The published pattern, then inputs from this run's seed.
std::vector<ChunkInput> inputs(std::uint64_t seed0)
{
    // in[i] = i % 10, chunks of 8: chunk 0 adds 0..7 = 28, chunk 1 adds 8, 9, 0, ..., 5 = 32;
    // 300 chunks: 3 blocks of 128, the last with 44.
    ChunkInput pattern{"pattern: 300 chunks of 8, in[i] = i % 10 (out[0] = 28, out[1] = 32)", 8,
                       std::vector<float>(300 * 8)};
    for (std::size_t i = 0; i < pattern.in.size(); ++i) pattern.in[i] = float(i % 10);
    std::vector<ChunkInput> v{pattern, main_case(seeded("seeded random", 512, 8, seed0)),
                              main_case(seeded("seeded random", 512, 4, seed0 + 1))};
    std::uint64_t seed = seed0 + 2;
    for (unsigned chunks : {1u, 31u, 33u, 257u}) v.push_back(seeded("odd size", chunks, 8, seed++));
    v.push_back(seeded("odd size", 127, 4, seed++));
    v.push_back(seeded("many blocks (33)", 4099, 4, seed++));
    return v;
}

// ---- why a chunk read is wrong: where the elements landed and where it read ----

// A word of staged[] that thread `thread` of block 0 read (traced, or the read that faulted).
struct ChunkRead {
    unsigned thread;
    std::uint64_t word;
};

// The word named by an uninitialised-read fault of block 0 ("staged[32] has
// not been written"), as a read by the faulting thread; nothing for another fault.
std::optional<ChunkRead> faulted_read(const emu::KernelFault& f)
{
    static const std::regex named(R"(uninitialised shared memory: \w+\[(\d+)\])");
    std::smatch m;
    if (f.fault.block.x != 0 || !std::regex_search(f.fault.what, m, named)) return std::nullopt;
    return ChunkRead{f.fault.thread.x, std::stoull(m[1].str())};
}

// Where the student's slot<STRIDE>() puts elements 0 .. count - 1 (the
// generated grader_slots_<STRIDE> kernel calls it); empty when it cannot run.
std::vector<unsigned> student_slots(const Harness& h, unsigned stride, unsigned count)
{
    try {
        emu::Emulator emu;
        configure(emu, emu::Schedule::Independent, 1, false);
        unsigned* d = emu.alloc<unsigned>(count);
        launch(emu, h, "grader_slots_" + std::to_string(stride), dim3(1), dim3(kBlock), count, d);
        return to_host(emu, d, count);
    } catch (const std::exception&) {
        return {};
    }
}

// A hint when one side of the staging misses the landing call, found on block
// 0 of 512 chunks of `stride` with in[i] = i (exact floats, so a stored value
// names its element), from the staging stores and chunk reads of the trace,
// and from the read that faulted, if one did. Thread tid must read the words
// where the staging put its elements tid*STRIDE + k: a read of word
// tid*STRIDE + k that is not among them reads the element's index, not its
// slot (a pad word: slot() puts no element there, so nothing wrote it).
// Conversely, an element stored at its index where the student's slot() puts
// it elsewhere, and read there by its thread, is a staging that misses it.
std::string landing_hint_at(const Harness& h, unsigned stride)
{
    ChunkInput t{"landing", stride, std::vector<float>(4 * kBlock * stride)};
    std::iota(t.in.begin(), t.in.end(), 0.0f);
    std::vector<trace::LaneRecord> records;
    std::vector<ChunkRead> reads;
    try {
        run_chunks(h, t, 1, &records);
    } catch (const emu::KernelFault& f) {
        if (const auto read = faulted_read(f)) reads.push_back(*read);
    }
    const BlockView v = view_block(h, records, kBlock);
    std::map<std::uint64_t, std::uint64_t> landed;  // element -> word
    for (const trace::WarpEvent& e : v.block.events) {
        if (e.space != trace::Space::Shared || e.size != 4) continue;
        trace::for_each_lane(e.mask, [&](unsigned lane) {
            const std::uint64_t word = e.offset[lane] / 4;
            if (e.kind == trace::Kind::Store) {
                float value;
                const auto bits = static_cast<std::uint32_t>(e.value[lane][0]);
                std::memcpy(&value, &bits, 4);
                landed[static_cast<std::uint64_t>(value)] = word;
            } else if (e.kind == trace::Kind::Load) {
                reads.push_back({trace::thread_of(v.block, e, lane), word});
            }
        });
    }
    const std::string at_stride = " (STRIDE " + std::to_string(stride) + ")";
    for (const ChunkRead& r : reads) {
        const std::uint64_t first = std::uint64_t(r.thread) * stride;
        if (r.word < first || r.word >= first + stride) continue;  // not an index of its own chunk
        const auto it = landed.find(r.word);
        bool slotted = false;
        for (std::uint64_t k = 0; k < stride; ++k) slotted |= landed.count(first + k) && landed[first + k] == r.word;
        if (slotted || it == landed.end() || it->second == r.word) continue;
        const std::string e = std::to_string(r.word);
        return "the chunk read misses the landing call: thread " + std::to_string(r.thread) + at_stride +
               " reads staged[" + e + "], the index of element " + e + " of its chunk, but the staging put element " +
               e + " at staged[" + std::to_string(it->second) + "] (slot(" + e + ") = " + std::to_string(it->second) +
               "). Read each element where it landed: staged[slot<STRIDE>(tid*STRIDE + k)]; a word slot() leaves free "
               "is padding that nothing writes";
    }
    const std::vector<unsigned> slots = student_slots(h, stride, kBlock * stride);
    const auto read_by = [&](std::uint64_t thread, std::uint64_t word) {
        return std::any_of(reads.begin(), reads.end(), [&](const ChunkRead& r) { return r.thread == thread && r.word == word; });
    };
    for (const auto& [element, word] : landed) {
        if (element >= slots.size() || word != element || slots[element] == element) continue;
        const std::uint64_t thread = element / stride;
        if (!read_by(thread, slots[element])) continue;
        const std::string e = std::to_string(element), w = std::to_string(slots[element]);
        return "the staging misses the landing call: it stored element " + e + " at staged[" + e +
               "], its index, but thread " + std::to_string(thread) + at_stride + " reads it at staged[" + w +
               "], where slot(" + e + ") = " + w + " puts it. Store each element where it lands: staged[slot<STRIDE>(e)]";
    }
    return {};
}

// The landing hint at stride 8, else at 4; empty when neither side of the staging misses slot().
std::string landing_hint(const Harness& h)
{
    for (unsigned stride : {8u, 4u})
        if (std::string hint = landing_hint_at(h, stride); !hint.empty()) return hint;
    return {};
}

Verdict correct(const Harness& h)
{
    const auto run = [&](const ChunkInput& t, std::uint64_t lane_seed) { return run_chunks(h, t, lane_seed, nullptr); };
    Verdict v = run_cases(cases_of(inputs(h.seed()), run), "right chunk sums");
    if (!v.passed)
        if (std::string hint = landing_hint(h); !hint.empty()) v.hint = std::move(hint);
    return v;
}

// The staging the read rests on: every thread loads its STRIDE floats of the
// block from global memory (coalesced), stores them to shared memory once
// (BLOCK * STRIDE distinct words in all), and reads STRIDE floats back. A
// kernel that reads its chunk from global memory directly has no bank to
// conflict in.
Finding staged_once(const Harness& h, const BlockView& v, unsigned stride)
{
    const auto shared_load = [](const trace::WarpEvent& e) {
        return e.space == trace::Space::Shared && e.kind == trace::Kind::Load;
    };
    const unsigned want = 4 * stride;
    const auto all_equal = [&](const std::vector<unsigned>& bytes) {
        return std::all_of(bytes.begin(), bytes.end(), [&](unsigned b) { return b == want; });
    };
    const std::size_t words = distinct_words(v, is_shared_write);
    if (all_equal(per_thread_bytes(v, is_global_load)) && all_equal(per_thread_bytes(v, is_shared_write)) &&
        all_equal(per_thread_bytes(v, shared_load)) && words == kBlock * stride) {
        return first_uncoalesced(h, v, trace::Kind::Load);
    }
    const auto range = [](const std::vector<unsigned>& xs) {
        const auto [lo, hi] = std::minmax_element(xs.begin(), xs.end());
        return xs.empty() ? std::string("none") : range_text(*lo, *hi);
    };
    return fail("block 0 at stride " + std::to_string(stride) + ": its threads loaded " +
                    range(per_thread_bytes(v, is_global_load)) + " bytes of in each, stored " +
                    range(per_thread_bytes(v, is_shared_write)) + " bytes to shared memory (" + std::to_string(words) +
                    " words in all) and read " + range(per_thread_bytes(v, shared_load)) + " back",
                "each thread " + std::to_string(want) + " bytes of each: its share of the coalesced load, staged in " +
                    std::to_string(kBlock * stride) + " shared words, then its chunk read from shared memory",
                "block 0 (" + std::to_string(4 * kBlock) + " chunks)",
                "keep the staging: the block loads its elements coalesced into staged[], and each thread reads its "
                "own chunk from there");
}

Verdict conflict_free(const Harness& h)
{
    unsigned accesses = 0;
    for (unsigned stride : {8u, 4u}) {
        std::vector<trace::LaneRecord> records;
        const ChunkInput t = seeded("traced", 4 * kBlock, stride, h.seed() + 100 + stride);
        require_right(run_chunks(h, t, 1, &records), "stride " + std::to_string(stride));
        const BlockView v = view_block(h, records, kBlock);
        if (Finding f = staged_once(h, v, stride)) return *f;
        // A lane reads its chunk: word k of chunk l. Unpadded, its lanes are STRIDE words apart.
        if (Finding f = first_bank_conflict(h, v, {.lane = "lane", .index = "l", .word = "k"})) {
            f->measured = "at stride " + std::to_string(stride) + ", " + f->measured;
            return *f;
        }
        accesses += static_cast<unsigned>(std::count_if(v.block.events.begin(), v.block.events.end(),
                                                        [](const trace::WarpEvent& e) { return is_shared_access(e); }));
    }
    return pass("all " + std::to_string(accesses) +
                " shared accesses of block 0 conflict-free at strides 8 and 4: the staging stores and the chunk reads");
}

void grade(Harness& h)
{
    h.check(kCorrect, [&] { return correct(h); });
    h.check_alone("predictions", [&] { return predictions(h); });
    h.check("conflict_free", [&] { return conflict_free(h); });
}

}  // namespace wl::grade::e10
