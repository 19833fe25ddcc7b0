// A run's timeline as the viewer's Gantt chart and the CLI's text draw it:
// one row per engine (copy in, compute, peer, copy out) per GPU, each span a
// bar at its place in the run, labelled with its bytes and GB/s. Pure
// functions of a recorded table (results/*-transfers.json).
#pragma once
#include <string>
#include <vector>

#include "labs/common/bench.h"
#include "labs/transfers/versions.h"

namespace warplab::transfers {

// The engines, in the order their rows are drawn on each GPU.
inline constexpr const char* kEngines[] = {"copy in", "compute", "peer", "copy out"};

// A span as a bar. CUDA events time a copy from when its stream reaches it,
// so copies of one direction issued on several streams overlap in their
// events while the copy engine runs them one at a time (their ends come one
// copy's time apart). In a copy row a bar therefore runs from the later of its
// start and the end of the copy that ended before it: [from, running_from) it
// waited, [running_from, to) it ran. Kernels of several streams may truly run
// at once: theirs run from `from`.
struct Bar {
    double from = 0, running_from = 0, to = 0;  // fractions of the run's wall-clock time, 0..1
    unsigned stream = 0;
    std::string label;  // "64 MiB · 24.1 GB/s" over the running part, or "0.312 ms" for a kernel that moves no link's bytes
};

// Whether an engine's row is a copy engine's (one copy at a time, in order).
bool copy_engine(const std::string& engine);

struct TimelineRow {
    int gpu = 0;
    std::string engine;
    std::vector<Bar> bars;  // in the order the spans were recorded
    std::string name() const { return "GPU " + std::to_string(gpu) + " " + engine; }
};

struct TimelineChart {
    std::string version;
    double wall_ms = 0;
    std::vector<TimelineRow> rows;  // GPU by GPU, engines in kEngines' order; only engines that ran
};

TimelineChart timeline_chart(const RunTimeline& run);

// The recorded timeline of a row ("v3 4 streams"); nullptr when none.
const RunTimeline* find_timeline(const BenchTable& t, const std::string& version);

// "256 MiB", "1.00 GiB", "96 B".
std::string bytes_text(std::size_t bytes);
// A span's bar label: its bytes and rate over `ms`, or `ms` when it moved none.
std::string span_label(const TimelineSpan& s, double ms);

// What is wrong with a timeline, or "" when every span ends after it starts,
// starts at or after its GPU's base event, ends within the run's wall-clock
// time (plus `slack_ms` for the host's and the GPU's clocks), and the spans of
// each stream follow one another without overlap, in the order recorded.
std::string timeline_problem(const RunTimeline& run, double slack_ms);

// A link's rate recorded in the table (LinkRate named link_name(l, gpu)); 0: not measured.
double link_rate(const BenchTable& t, Link l, int gpu);

// The text `warplab bench transfers --timeline` prints: the links' measured
// rates, then for each row its bytes per link and lower bound, and its
// timeline as rows of `width` cells (a cell shows the stream number of a span
// that covers it).
std::string timeline_text(const BenchTable& t, unsigned width = 64);

// Strong scaling from 1 to 2 GPUs: v2's time over v5's (the same program on
// all the data, and on half of it per GPU); 0 when either was not timed.
double strong_scaling(const BenchTable& t);

// The same facts as markdown tables (the walkthrough's form): the links'
// rates, each row's time against its bound and bytes per link, and the
// strong-scaling figure.
std::string timeline_markdown(const BenchTable& t);

}  // namespace warplab::transfers
