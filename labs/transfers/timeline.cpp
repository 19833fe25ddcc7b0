#include "labs/transfers/timeline.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>

namespace warplab::transfers {

namespace {

std::string printf_text(const char* format, double a)
{
    char buf[64];
    std::snprintf(buf, sizeof buf, format, a);
    return buf;
}

// The row a span belongs to, in draw order: GPU first, then the engine's place.
std::pair<int, int> row_key(const TimelineSpan& s)
{
    int engine = 0;
    while (engine < int(std::size(kEngines)) && s.engine != kEngines[engine]) ++engine;
    return {s.gpu, engine};
}

// Cells [first, last] of a `width`-cell row that a bar ran in (at least one).
std::pair<unsigned, unsigned> cells_of(const Bar& b, unsigned width)
{
    const unsigned first = std::min(width - 1, unsigned(std::floor(b.running_from * width)));
    const unsigned last = std::max(first, std::min(width - 1, unsigned(std::ceil(b.to * width)) - (b.to * width > 0 ? 1 : 0)));
    return {first, last};
}

std::string chart_text(const TimelineChart& chart, unsigned width)
{
    std::string out;
    for (const TimelineRow& row : chart.rows) {
        std::string cells(width, '.');
        double busy_ms = 0;
        for (const Bar& b : row.bars) {
            const auto [first, last] = cells_of(b, width);
            for (unsigned c = first; c <= last; ++c) cells[c] = char('0' + b.stream % 10);
            busy_ms += (b.to - b.running_from) * chart.wall_ms;
        }
        char line[256];
        std::snprintf(line, sizeof line, "  %-16s |%s| %zu span%s, busy %.3f ms", row.name().c_str(), cells.c_str(), row.bars.size(),
                      row.bars.size() == 1 ? "" : "s", busy_ms);
        out += line;
        out += "\n";
    }
    return out;
}

// The bytes row `row` moves over each link, and its bound at the table's rates.
template <class F> void with_row_bytes(const BenchTable& t, const BenchRow& row, F&& f)
{
    with_version<Versions>(row_version(row.version), [&](auto v) {
        const LinkBytes b = decltype(v)::moves(t.n);
        f(b, lower_bound(b, [&](Link l, int g) { return link_rate(t, l, g); }));
    });
}

const BenchRow* row_named(const BenchTable& t, const std::string& version)
{
    for (const BenchRow& r : t.rows)
        if (r.version == version) return &r;
    return nullptr;
}

std::string scaling_text(const BenchTable& t)
{
    const double s = strong_scaling(t);
    if (s <= 0) return "strong scaling 1 → 2 GPUs: not measured (v5 needs 2 GPUs)";
    return "strong scaling 1 → 2 GPUs (v2 → v5): " + printf_text("%.2f×", s) + ", " + printf_text("%.0f %%", 50 * s) + " of 2×";
}

std::string bytes_per_link(const LinkBytes& b)
{
    std::string out;
    for (int l = 0; l < kLinkKinds; ++l)
        for (int g = 0; g < kMaxGpus; ++g)
            if (b.bytes[l][g]) out += (out.empty() ? "" : ", ") + link_name(Link(l), g) + " " + bytes_text(b.bytes[l][g]);
    return out;
}

}  // namespace

std::string link_name(Link l, int gpu)
{
    const std::string name = "GPU " + std::to_string(gpu);
    switch (l) {
    case Link::HostToGpu: return "host→" + name;
    case Link::GpuToHost: return name + "→host";
    case Link::Peer: return name + "→GPU " + std::to_string(1 - gpu);
    case Link::Memory: return name + " memory";
    }
    return name;
}

TimelineChart timeline_chart(const RunTimeline& run)
{
    TimelineChart chart{run.version, run.wall_ms, {}};
    std::map<std::pair<int, int>, std::vector<const TimelineSpan*>> rows;
    for (const TimelineSpan& s : run.spans) rows[row_key(s)].push_back(&s);
    const double scale = run.wall_ms > 0 ? run.wall_ms : 1;
    for (const auto& [key, spans] : rows) {
        TimelineRow row{key.first, spans.front()->engine, {}};
        const bool serial = copy_engine(row.engine);
        for (const TimelineSpan* s : spans) {
            // The copy that ended last before this one ended (the engine ran it just before).
            double before = s->start_ms;
            if (serial)
                for (const TimelineSpan* o : spans)
                    if (o != s && o->end_ms <= s->end_ms && o->end_ms > before && (o->end_ms < s->end_ms || o < s)) before = o->end_ms;
            const double running = std::min(before, s->end_ms);
            row.bars.push_back({s->start_ms / scale, running / scale, s->end_ms / scale, s->stream, span_label(*s, s->end_ms - running)});
        }
        chart.rows.push_back(std::move(row));
    }
    return chart;
}

const RunTimeline* find_timeline(const BenchTable& t, const std::string& version)
{
    for (const RunTimeline& r : t.timelines)
        if (r.version == version) return &r;
    return nullptr;
}

std::string bytes_text(std::size_t bytes)
{
    if (bytes >= (std::size_t(1) << 30)) return printf_text("%.2f GiB", double(bytes) / double(1u << 30));
    if (bytes >= (std::size_t(1) << 20)) return printf_text("%.0f MiB", double(bytes) / double(1u << 20));
    if (bytes >= (std::size_t(1) << 10)) return printf_text("%.0f KiB", double(bytes) / double(1u << 10));
    return std::to_string(bytes) + " B";
}

bool copy_engine(const std::string& engine) { return engine == "copy in" || engine == "copy out"; }

std::string span_label(const TimelineSpan& s, double ms)
{
    if (s.bytes == 0 || ms <= 0) return printf_text("%.3f ms", ms);
    return bytes_text(s.bytes) + " · " + printf_text("%.1f GB/s", double(s.bytes) / 1e9 / (ms / 1e3));
}

std::string timeline_problem(const RunTimeline& run, double slack_ms)
{
    std::map<std::pair<int, unsigned>, const TimelineSpan*> last_on_stream;
    for (const TimelineSpan& s : run.spans) {
        const std::string where = "GPU " + std::to_string(s.gpu) + " stream " + std::to_string(s.stream) + " " + s.engine + " [" +
                                  printf_text("%.4f", s.start_ms) + ", " + printf_text("%.4f", s.end_ms) + "] ms";
        if (s.start_ms < 0) return where + " starts before its GPU's base event";
        if (s.end_ms < s.start_ms) return where + " ends before it starts";
        if (s.end_ms > run.wall_ms + slack_ms) return where + " ends after the run (" + printf_text("%.4f ms", run.wall_ms) + ")";
        const TimelineSpan*& previous = last_on_stream[{s.gpu, s.stream}];
        if (previous && s.start_ms < previous->end_ms)
            return where + " starts before the span issued before it on its stream ends (" + printf_text("%.4f ms", previous->end_ms) + ")";
        previous = &s;
    }
    return "";
}

double link_rate(const BenchTable& t, Link l, int gpu)
{
    const std::string name = link_name(l, gpu);
    for (const LinkRate& r : t.links)
        if (r.link == name) return r.gbps;
    return 0;
}

std::string timeline_text(const BenchTable& t, unsigned width)
{
    std::string out = "links measured in this run:";
    for (const LinkRate& l : t.links) out += "  " + l.link + " " + printf_text("%.1f GB/s", l.gbps);
    out += "\n\n";
    for (const BenchRow& row : t.rows) {
        with_row_bytes(t, row, [&](const LinkBytes& b, const Bound& bound) {
            out += row.version + ": " + printf_text("%.3f ms", row.median_ms) + " (median); bound " + printf_text("%.3f ms", bound.ms) +
                   " on " + bound.link + "\n  moves " + bytes_per_link(b) + "\n";
        });
        if (const RunTimeline* run = find_timeline(t, row.version)) {
            const TimelineChart chart = timeline_chart(*run);
            out += "  one run, " + printf_text("%.3f ms", run->wall_ms) + " wall clock (each cell " +
                   printf_text("%.3f ms", run->wall_ms / width) + "; digits: stream numbers):\n" + chart_text(chart, width);
        }
        out += "\n";
    }
    return out + scaling_text(t) + "\n";
}

double strong_scaling(const BenchTable& t)
{
    const BenchRow* one = row_named(t, "v2");
    const BenchRow* two = row_named(t, "v5");
    return one && two && two->median_ms > 0 ? one->median_ms / two->median_ms : 0;
}

std::string timeline_markdown(const BenchTable& t)
{
    std::string out = "| link | GB/s |\n|---|--:|\n";
    for (const LinkRate& l : t.links) out += "| " + l.link + " | " + printf_text("%.1f", l.gbps) + " |\n";
    out += "\n| version | median ms | bound ms | busiest link | bound / time | bytes per link |\n|---|--:|--:|---|--:|---|\n";
    for (const BenchRow& row : t.rows)
        with_row_bytes(t, row, [&](const LinkBytes& b, const Bound& bound) {
            out += "| " + row.version + " | " + printf_text("%.2f", row.median_ms) + " | " + printf_text("%.2f", bound.ms) + " | " +
                   bound.link + " | " + printf_text("%.0f %%", row.median_ms > 0 ? 100 * bound.ms / row.median_ms : 0.0) + " | " +
                   bytes_per_link(b) + " |\n";
        });
    return out + "\n" + scaling_text(t) + "\n";
}

}  // namespace warplab::transfers
