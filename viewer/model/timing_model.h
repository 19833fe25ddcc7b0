// The time panel's numbers: recorded tables from results/*.json, or a table
// measured now on this machine's GPU (in the background, so the window stays live).
#pragma once
#include <future>
#include <optional>
#include <string>
#include <vector>

#include "labs/common/bench.h"
#include "labs/common/lab.h"
#include "labs/common/published.h"

namespace warplab::viewer {

struct TimingTable {
    BenchTable table;
    bool measured_now = false;  // false: recorded (results/), true: "Measure now" on this machine
    std::string file;           // where a recorded table came from
};

struct Timing {
    std::vector<TimingTable> tables;  // every lab's; recorded first, then measured
    std::string load_error;           // a results file that could not be read
    int selected = -1;                // index into tables; -1: pick the default for the lab
    std::future<BenchTable> measuring;
    std::string measure_error;
    Published published;        // results/published/: the source decks' tables
    bool then_and_now = false;  // the time panel shows their step speed-ups beside the recording's
    int published_shown = -1;   // which of the lab's published tables; -1: the one its versions follow (Lab::published_source)
};

// Reads every results/*.json and results/published/; a file that fails leaves its message in load_error.
Timing load_recorded_timing(const std::string& results_dir);

// Indices of the tables of one lab, in order.
std::vector<int> tables_of_lab(const Timing& timing, const std::string& lab);

// The table shown for the lab: the selected one if it is the lab's, else the
// newest measurement, else the recording of the given type at the largest n.
int default_table(const Timing& timing, const std::string& lab, const std::string& type);

// "measured now on NVIDIA H100 80GB HBM3" or "recorded on NVIDIA H100 80GB HBM3, 2026-11-21".
std::string source_label(const TimingTable& t);

// "int, n = 2^28" or "float, 4096×4096×4096" (labs/common's size_label), and ", L2 warm" where it was.
std::string size_label_of(const BenchTable& t);

// The row of a version: its own, or the fastest of its settings' rows ("v3 4 streams").
const BenchRow* find_row(const BenchTable& t, const std::string& version);
// What a settings row adds to the version's id ("4 streams"); empty for the version's own row.
std::string row_setting(const BenchRow& r, const std::string& version);
const BenchRow* reference_row(const BenchTable& t);
// The step speed-up of version id's row r over prev_id: the table's, or, where
// either version was measured in several settings (its row is the fastest of
// them), the ratio of those rows.
double speedup_vs_previous(const BenchTable& t, const BenchRow& r, const std::string& id, const std::string& prev_id);

// The version this one is compared with: the one its entry builds on, else the
// nearest earlier one that is not a variant.
std::optional<std::size_t> previous_version(const Lab& lab, std::size_t version);

// A host program's row against its links (the transfers lab): "lower bound 19.5 ms: this run is at 85 % of the links' speed".
std::string bound_sentence(const BenchRow& r);

}  // namespace warplab::viewer
