// Tables the source decks printed (results/published/<source>.json), each as
// its authors printed it: GPU, what was measured, units, n, type, block size,
// where it is, the citation. Read by `warplab bench --recorded --published`
// and the viewer's "then and now", beside the recorded H100 rows. Each file's
// arithmetic (speed-ups from times, GB/s from bytes and times) is checked by
// tests/docs/test_published.py.
#pragma once
#include <cstddef>
#include <optional>
#include <string>
#include <vector>

namespace warplab {

struct BenchTable;

struct PublishedRow {
    std::string label;    // as printed: "Shader 2: interleaved addressing with bank conflicts"
    std::string version;  // the lab's version it maps to ("" where none does)
    std::string mapping;  // where the mapping is only close, how
    std::optional<double> time, rate, speedup_vs_previous, cumulative, elements_rate;  // absent where not printed
};

struct PublishedTable {
    std::string source, citation, lab;
    std::string gpu;  // "" where the source names none
    std::string gpu_printed, measured, where, n_printed, type, block_printed;
    std::optional<double> n, block, peak_rate;
    unsigned element_bytes = 4;
    std::string time_unit, rate_unit, elements_unit;  // as printed: "ms", "GB/s", "GBps", "MElem/s"
    std::vector<std::string> notes;
    std::vector<PublishedRow> rows;
};

// What a source says in words only (its figures are in charts): kept as said.
struct PublishedStatements {
    std::string source, citation, lab, measured;
    std::vector<std::string> gpus, text;
};

struct Published {
    std::vector<PublishedTable> tables;
    std::vector<PublishedStatements> statements;
};

// Every results/published/*.json (sorted by file name); throws
// std::runtime_error naming the file and field that cannot be read.
Published load_published(const std::string& dir);

// One rung's speed-up in a published ladder (a version over the row before): printed, else from the printed
// times (before / after), else from the printed rates at one n (after / before).
struct PublishedSpeedup {
    double value = 0;  // 0: none (the first row, or nothing to derive it from)
    const char* how = "";  // "printed", "from the times", "from the rates"
};
PublishedSpeedup published_speedup(const PublishedTable& t, std::size_t row);

// The same rung on a recorded table: the median time of the version of row
// - 1 over that of row's (0 where either version has no timed row there).
double recorded_speedup(const PublishedTable& t, std::size_t row, const BenchTable& now);

// The recorded table to set beside a published one: of its type, at its n
// where one was recorded there, else at the largest n (the one furthest from
// fitting in cache); nullptr when none is of its type.
const BenchTable* table_beside(const PublishedTable& t, const std::vector<const BenchTable*>& recorded);


}  // namespace warplab
