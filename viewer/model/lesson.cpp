#include "viewer/model/lesson.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdlib>
#include <fstream>
#include <set>

#include "labs/common/data_dir.h"
#include "labs/common/did_you_mean.h"
#include "labs/common/user_kernel.h"
#include "viewer/model/format.h"
#include "viewer/model/layout.h"
#include "viewer/model/source_model.h"
#include "viewer/model/step_model.h"
#include "viewer/model/timing_model.h"
#include "warplab/emu/emulator.h"

namespace warplab::viewer {

namespace {

using nlohmann::json;

// Where a field is: "slide 3, 'answer.line'"; a field of the lesson itself: "'title'".
struct Where {
    std::size_t slide = 0;  // 1-based; 0: the lesson's own fields
    std::string prefix;     // "question." or "answer." inside a slide
    LessonError error(const std::string& field, const std::string& why) const
    {
        const std::string name = "'" + prefix + field + "'";
        return LessonError((slide ? "slide " + std::to_string(slide) + ", " : std::string()) + name + ": " + why);
    }
};

std::string joined(const std::vector<std::string>& names)
{
    std::string all;
    for (const std::string& name : names) all += (all.empty() ? "" : ", ") + name;
    return all;
}

// An object's keys must all be known: a misspelt one would otherwise be ignored.
void only_known(const json& object, const std::vector<std::string>& known, const Where& where)
{
    for (const auto& [key, value] : object.items())
        if (std::find(known.begin(), known.end(), key) == known.end())
            throw where.error(key, "no such field" + did_you_mean(key, known) + "; fields here: " + joined(known));
}

std::string text_field(const json& object, const std::string& key, const Where& where, bool required)
{
    if (!object.contains(key)) {
        if (required) throw where.error(key, "missing");
        return {};
    }
    if (!object[key].is_string()) throw where.error(key, "expected a string, got " + object[key].dump());
    if (required && object[key].get<std::string>().empty()) throw where.error(key, "empty");
    return object[key].get<std::string>();
}

// A whole number from 0 (JSON text reads them unsigned; a document built in C++ may hold them signed).
bool is_count(const json& v) { return v.is_number_integer() && v.get<std::int64_t>() >= 0 && v.get<std::int64_t>() <= 1'000'000; }

std::optional<std::uint32_t> count_field(const json& object, const std::string& key, const Where& where)
{
    if (!object.contains(key)) return std::nullopt;
    const json& v = object[key];
    if (!is_count(v)) throw where.error(key, "expected a whole number from 0, got " + v.dump());
    return v.get<std::uint32_t>();
}

// A source line of the slide's source: within its file or a kernel file it includes.
void check_line(std::uint32_t line, const Slide& slide, const std::string& field, const Where& where)
{
    SourceCache sources(data_dir().string());
    const std::string path = source_lines_file(slide);
    const SourceFile& file = sources.get(path);
    std::size_t lines = file.lines.size();
    for (const std::string& inc : included_kernel_files(file)) lines = std::max(lines, sources.get(inc).lines.size());
    const std::string whose = slide.file.empty() && slide.run.empty() ? slide.version + "'s source " + path : path;
    if (line == 0 || line > lines)
        throw where.error(field, "line " + std::to_string(line) + " is not in " + whose + " (lines 1 to " + std::to_string(lines) + ")");
}

// The metrics' names: all of them, or the recorded ones alone.
std::vector<std::string> metric_names(bool recorded_only)
{
    std::vector<std::string> names;
    for (const LessonMetric& m : lesson_metrics())
        if (m.recorded || !recorded_only) names.push_back(m.name);
    return names;
}
std::vector<std::string> recorded_metric_names() { return metric_names(true); }

LessonAnswer parse_answer(const json& a, const Slide& slide, const Where& where)
{
    if (!a.is_object()) throw where.error("", "expected an object with 'metric', got " + a.dump());
    only_known(a, {"metric", "step", "line", "value"}, where);
    LessonAnswer answer;
    answer.metric = text_field(a, "metric", where, true);
    if (const std::vector<std::string> names = metric_names(false); std::find(names.begin(), names.end(), answer.metric) == names.end()) {
        throw where.error("metric", "unknown metric '" + answer.metric + "'" + did_you_mean(answer.metric, names) + "; metrics: " + joined(names));
    }
    if (!slide.run.empty() && recorded_metric(answer.metric))
        throw where.error("metric", "a program's launch has no recorded times: ask what its trace says");
    if (const Lab* lab = slide.run.empty() ? find_lab(slide.lab) : nullptr; lab && lab->host_programs && !recorded_metric(answer.metric))
        throw where.error("metric", "lab " + lab->id + "'s versions are host programs, with no trace: ask what the recording says (" +
                                        joined(recorded_metric_names()) + ")");
    answer.step = count_field(a, "step", where);
    answer.line = count_field(a, "line", where);
    for (const char* field : {"step", "line"})
        if (recorded_metric(answer.metric) && a.contains(field))
            throw where.error(field, "'" + answer.metric + "' is the recorded version's, not a step's or a line's");
    if (answer.line) check_line(*answer.line, slide, "line", where);
    if (a.contains("value")) {
        if (!a["value"].is_number()) throw where.error("value", "expected a number, got " + a["value"].dump());
        answer.value = a["value"].get<double>();
    }
    return answer;
}

LessonQuestion parse_question(const json& q, const Slide& slide, Where where)
{
    if (!q.is_object()) throw where.error("question", "expected an object with 'text' and 'answer', got " + q.dump());
    where.prefix = "question.";
    only_known(q, {"id", "text", "answer", "explanation"}, where);
    LessonQuestion question;
    question.id = text_field(q, "id", where, false);
    question.text = text_field(q, "text", where, true);
    question.explanation = text_field(q, "explanation", where, false);
    if (!q.contains("answer")) throw where.error("answer", "missing: how the trace answers it, e.g. {\"metric\": \"worst\"}");
    Where inside = where;
    inside.prefix = "question.answer.";
    question.answer = parse_answer(q["answer"], slide, inside);
    return question;
}

const Lab& lab_field(const std::string& id, const Where& where)
{
    const Lab* lab = find_lab(id);
    if (!lab) throw where.error("lab", unknown_lab(id));
    return *lab;
}

void parse_settings(const json& s, const Lab& lab, const Version& version, Slide& slide, const Where& where)
{
    if (s.contains("schedule")) {
        slide.schedule = text_field(s, "schedule", where, true);
        if (!wl::emu::parse_schedule(slide.schedule)) throw where.error("schedule", "expected independent or lockstep, got '" + slide.schedule + "'");
    }
    if (s.contains("warp_size")) {
        slide.warp_size = count_field(s, "warp_size", where).value();
        if (slide.warp_size != 32 && slide.warp_size != 64) throw where.error("warp_size", "expected 32 or 64");
    }
    if (s.contains("setting")) {
        if (!lab.setting_of || !lab.setting_of(version.id)) throw where.error("setting", lab.id + " " + version.id + " takes no setting");
        slide.setting = int(count_field(s, "setting", where).value());
    }
    if (s.contains("compare_widths")) {
        if (!s["compare_widths"].is_boolean()) throw where.error("compare_widths", "expected true or false");
        slide.compare_widths = s["compare_widths"].get<bool>();
    }
}

// The fields that say what a slide shows (its source).
const std::vector<std::string> kSourceFields = {"lab", "version", "file", "kernel", "run", "launch"};

// A file a slide names, relative to the lesson's folder.
std::string resolved(const std::filesystem::path& file, const std::filesystem::path& folder)
{
    return (file.is_relative() && !folder.empty() ? folder / file : file).lexically_normal().string();
}

// "launch": a number from 1, or "kernel[:n]" as warplab run's --watch reads it (n from 1).
void parse_launch(const json& s, const Where& where, Slide& slide)
{
    if (!s.contains("launch")) return;
    const json& l = s["launch"];
    const std::string expected = "expected a launch's number from 1 or \"kernel[:n]\", got " + l.dump();
    if (is_count(l)) {
        if (l.get<unsigned>() == 0) throw where.error("launch", "launches count from 1");
        slide.launch = l.get<unsigned>();
        return;
    }
    if (!l.is_string()) throw where.error("launch", expected);
    const std::string text = l.get<std::string>();
    const auto colon = text.find(':');
    slide.launch_kernel = text.substr(0, colon);
    const bool named = !slide.launch_kernel.empty() && std::all_of(slide.launch_kernel.begin(), slide.launch_kernel.end(), [](char c) {
        return std::isalnum(static_cast<unsigned char>(c)) || c == '_';
    });
    if (!named) throw where.error("launch", expected);
    if (colon == std::string::npos) return;
    const std::string number = text.substr(colon + 1);
    if (number.empty() || number.size() > 6 || !std::all_of(number.begin(), number.end(), [](char c) { return c >= '0' && c <= '9'; }) ||
        std::stoul(number) == 0)
        throw where.error("launch", expected);
    slide.launch = unsigned(std::stoul(number));
}

// A launch of a whole program: the program readable (or the slide before's,
// for "launch" alone), and nothing of a version's.
void parse_run(const json& s, const Slide* before, const std::filesystem::path& folder, const Where& where, Slide& slide)
{
    for (const char* field : {"version", "file", "kernel"})
        if (s.contains(field))
            throw where.error(field, "a slide with 'run' or 'launch' shows a program's launch, not a version or a file's kernel "
                                     "('lab' names the lab of 'compare')");
    if (s.contains("run")) {
        slide.run = resolved(text_field(s, "run", where, true), folder);
        if (!std::ifstream(slide.run)) throw where.error("run", "cannot read " + slide.run);
    } else if (before && !before->run.empty()) {
        slide.run = before->run;
    } else {
        throw where.error("launch", "counts the launches of a program: give 'run' too");
    }
    parse_launch(s, where, slide);
}

// A .cu file's kernel in the version's launch: the file readable, with that
// kernel (or only one); the kernel's name as the file declares it.
void parse_file(const json& s, const Lab& lab, const std::filesystem::path& folder, const Where& where, Slide& slide)
{
    if (!s.contains("file")) {
        if (s.contains("kernel")) throw where.error("kernel", "names a kernel of 'file'; give 'file' too");
        return;
    }
    if (lab.host_programs) throw where.error("file", "lab " + lab.id + "'s versions are host programs: none launches a kernel of a file");
    slide.file = resolved(text_field(s, "file", where, true), folder);
    const std::string kernel = text_field(s, "kernel", where, false);
    if (!std::ifstream(slide.file)) throw where.error("file", "cannot read " + slide.file);
    try {
        slide.kernel = check_user_file(slide.file, kernel);
    } catch (const std::invalid_argument& e) {  // in a lesson's words: the option --kernel is the slide's field
        std::string why = e.what();
        if (const auto at = why.find("with --kernel"); at != std::string::npos) why.replace(at, 13, "with 'kernel'");
        throw where.error(kernel.empty() ? "file" : "kernel", why);
    }
}

// What the slide shows: the source its fields name, the lab and version
// defaulting to the slide before's; none named, the slide before's source.
// The slide's lab: none for a program's launch that names no lab.
const Lab* parse_source(const json& s, const Slide* before, const std::filesystem::path& folder, const Where& where, Slide& slide)
{
    const bool names_one = std::any_of(kSourceFields.begin(), kSourceFields.end(), [&](const std::string& f) { return s.contains(f); });
    if (before && !names_one) {
        slide.lab = before->lab, slide.version = before->version, slide.file = before->file, slide.kernel = before->kernel;
        slide.run = before->run, slide.launch_kernel = before->launch_kernel, slide.launch = before->launch;
        return find_lab(slide.lab);
    }
    slide.lab = s.contains("lab") ? text_field(s, "lab", where, true) : before ? before->lab : "";
    if (s.contains("run") || s.contains("launch")) {
        parse_run(s, before, folder, where, slide);
        return slide.lab.empty() ? nullptr : &lab_field(slide.lab, where);
    }
    if (slide.lab.empty()) throw where.error("lab", "missing (the first slide names its lab)");
    const Lab& lab = lab_field(slide.lab, where);
    const bool same_lab = before && before->lab == slide.lab;
    slide.version = s.contains("version") ? text_field(s, "version", where, true) : same_lab ? before->version : "";
    if (slide.version.empty()) throw where.error("version", "missing (a slide of a new lab names its version)");
    if (!find_version(lab, slide.version)) throw where.error("version", unknown_version(lab, slide.version));
    parse_file(s, lab, folder, where, slide);
    return &lab;
}

// The version whose steps are shown beside the slide's (D): of the slide's lab, which a program's launch names in 'lab'.
void parse_compare(const json& s, const Lab* shown_lab, const Where& where, Slide& slide)
{
    slide.compare = text_field(s, "compare", where, false);
    if (!s.contains("compare")) return;
    if (!shown_lab) throw where.error("compare", "a program's launch is compared with a lab's version: give 'lab' too");
    const Lab& lab = *shown_lab;
    if (lab.host_programs) throw where.error("compare", "lab " + lab.id + "'s versions are host programs: no steps to compare");
    if (!find_version(lab, slide.compare)) throw where.error("compare", unknown_version(lab, slide.compare, " to compare with"));
    if (slide.compare == slide.version && slide.file.empty() && slide.run.empty()) throw where.error("compare", "that is the version shown; name another");
}

// A program's launch is shown as the program made it: no settings of a lab's trace.
void refuse_settings(const json& s, const Where& where)
{
    for (const char* field : {"schedule", "warp_size", "setting", "compare_widths"})
        if (s.contains(field)) throw where.error(field, "a program's launch is shown as the program made it, with its own settings");
}

// A lab of host programs (transfers) has no trace: a slide of it shows the
// recorded runs, and names nothing of a trace's.
void refuse_trace_fields(const json& s, const Lab& lab, const Where& where)
{
    if (!lab.host_programs) return;
    for (const char* field : {"step", "select", "schedule", "warp_size", "compare_widths"})
        if (s.contains(field))
            throw where.error(field, "lab " + lab.id + "'s versions are host programs, with no trace: a slide of them shows their recorded runs");
}

Slide parse_slide(const json& s, const Slide* before, std::size_t number, const std::filesystem::path& folder)
{
    const Where where{number, ""};
    if (!s.is_object()) throw where.error("", "expected an object, got " + s.dump());
    only_known(s, {"lab", "version", "file", "kernel", "run", "launch", "compare", "step", "arrangement", "highlight", "select", "schedule", "warp_size",
                   "setting", "compare_widths", "caption", "question"},
               where);
    Slide slide;
    const Lab* lab = parse_source(s, before, folder, where, slide);
    const bool program = !slide.run.empty();
    if (program)
        refuse_settings(s, where);
    else
        refuse_trace_fields(s, *lab, where);
    parse_compare(s, lab, where, slide);
    slide.step = count_field(s, "step", where).value_or(0);
    slide.arrangement = text_field(s, "arrangement", where, false);
    if (!slide.arrangement.empty()) {
        std::vector<std::string> names;
        for (const char* n : arrangements(program ? std::nullopt : lab_panel(lab->panel))) names.push_back(n);
        if (std::find(names.begin(), names.end(), slide.arrangement) == names.end())
            throw where.error("arrangement", "no arrangement '" + slide.arrangement + "'" + did_you_mean(slide.arrangement, names));
    }
    if (s.contains("highlight")) {
        if (!s["highlight"].is_array()) throw where.error("highlight", "expected a list of line numbers, got " + s["highlight"].dump());
        for (const json& line : s["highlight"]) {
            if (!is_count(line)) throw where.error("highlight", "expected line numbers, got " + line.dump());
            slide.highlight.push_back(line.get<std::uint32_t>());
            check_line(slide.highlight.back(), slide, "highlight", where);
        }
    }
    slide.select = count_field(s, "select", where);
    if (slide.select) check_line(*slide.select, slide, "select", where);
    if (!program) parse_settings(s, *lab, *find_version(*lab, slide.version), slide, where);
    slide.caption = text_field(s, "caption", where, true);
    if (s.contains("question")) slide.question = parse_question(s["question"], slide, where);
    return slide;
}

// The step's events at a line that did work (loads, stores, atomics, collectives).
std::vector<const WarpEvent*> events_at(const BlockTrace& block, std::uint32_t step, std::uint32_t line)
{
    std::vector<const WarpEvent*> out;
    const EventRange r = step_events(block, step);
    for (std::size_t i = r.begin; i < r.end; ++i)
        if (block.events[i].site.line == line && wl::trace::is_work(block.events[i].kind)) out.push_back(&block.events[i]);
    return out;
}

// The global metrics of loads and stores (atomics count as stores).
double global_value(const wl::trace::GlobalStats& load, const wl::trace::GlobalStats& store, const std::string& metric, const std::string& where)
{
    const std::uint32_t requests = load.requests + store.requests;
    if (metric == "global_requests") return requests;
    const auto per_request = [&](std::uint32_t sectors, std::uint32_t of) {
        if (!of) throw LessonError(where + " has no such global access: '" + metric + "' is undefined");
        return double(sectors) / of;
    };
    if (metric == "sectors") return per_request(load.sectors + store.sectors, requests);
    if (metric == "sectors_ideal") return per_request(load.ideal + store.ideal, requests);
    if (metric == "load_sectors") return per_request(load.sectors, load.requests);
    return per_request(store.sectors, store.requests);  // store_sectors
}

double value_at_line(const BlockTrace& block, const std::vector<const WarpEvent*>& events, const std::string& metric)
{
    std::set<std::uint32_t> threads, warps, partial;
    std::uint64_t wavefronts = 0, ideal = 0;
    wl::trace::GlobalStats load, store;  // as the step's metrics count them
    double worst = 0;
    for (const WarpEvent* e : events) {
        warps.insert(e->warp);
        if (wl::trace::partially_active(*e)) partial.insert(e->warp);
        for (unsigned lane = 0; lane < block.warp_size; ++lane)
            if (wl::trace::lane_active(e->mask, lane)) threads.insert(wl::trace::thread_of(block, *e, lane));
        if (!is_memory_access(*e)) continue;
        if (e->space == wl::trace::Space::Shared) {
            const BankView v = bank_view(*e);
            wavefronts += v.cost.wavefronts, ideal += v.cost.ideal, worst = std::max(worst, v.cost.ways());
        } else if (e->space == wl::trace::Space::Global) {
            const SectorView v = sector_view(*e);
            wl::trace::GlobalStats& g = e->kind == wl::trace::Kind::Load ? load : store;
            g.sectors += v.cost.sectors, g.ideal += v.cost.ideal, ++g.requests;
        }
    }
    if (metric == "threads") return double(threads.size());
    if (metric == "warps") return double(warps.size());
    if (metric == "partial") return double(partial.size());
    if (metric == "shared_wf") return double(wavefronts);
    if (metric == "shared_ideal") return double(ideal);
    if (metric == "worst") return worst;
    return global_value(load, store, metric, "the line");
}

// As the CLI's table counts the whole step (and the walkthroughs quote it).
double value_of_step(const wl::trace::StepMetrics& s, const std::string& metric)
{
    if (metric == "threads") return s.active_threads;
    if (metric == "warps") return s.active_warps;
    if (metric == "partial") return s.partial_warps;
    if (metric == "shared_wf") return s.shared_load.wavefronts + s.shared_store.wavefronts;
    if (metric == "shared_ideal") return s.shared_load.ideal + s.shared_store.ideal;
    if (metric == "worst") return std::max(s.shared_load.worst_ways, s.shared_store.worst_ways);
    return global_value(s.global_load, s.global_store, metric, "step " + std::to_string(s.step));
}

}  // namespace

const std::vector<LessonMetric>& lesson_metrics()
{
    static const std::vector<LessonMetric> metrics = {
        {"threads", "threads that did work (with a line: the lanes active there)"},
        {"warps", "warps that did work"},
        {"partial", "warps with only some lanes active"},
        {"shared_wf", "shared-memory wavefronts, loads and stores"},
        {"shared_ideal", "shared-memory wavefronts without bank conflicts"},
        {"worst", "the worst n-way bank conflict of one instruction"},
        {"sectors", "global sectors per request"},
        {"sectors_ideal", "global sectors per request at best"},
        {"load_sectors", "global sectors per load request"},
        {"store_sectors", "global sectors per store request (atomics count as stores)"},
        {"global_requests", "global warp instructions"},
        {"steps", "the trace's steps"},
        {"time_ms", "the version's recorded median time in ms", true},
        {"rate", "the version's recorded rate: GB/s, or GFLOP/s (matmul)", true},
        {"speedup", "the previous version's recorded time over this version's", true},
        {"bound_percent", "the version's links' lower bound over its recorded time, in % (transfers)", true},
        {"copies_in", "copies to the GPU in the version's recorded timeline (transfers)", true},
    };
    return metrics;
}

bool recorded_metric(const std::string& metric)
{
    const auto& metrics = lesson_metrics();
    return std::any_of(metrics.begin(), metrics.end(), [&](const LessonMetric& m) { return m.recorded && metric == m.name; });
}

double recorded_value(const BenchTable& table, const Lab& lab, const std::string& version, const std::string& metric)
{
    const BenchRow* row = find_row(table, version);
    if (!row || row->median_ms <= 0) throw LessonError(lab.id + " " + version + " is not in the recorded times");
    const std::string no_such = lab.id + " " + version + "'s recording has no '" + metric + "'";
    if (metric == "time_ms") return row->median_ms;
    if (metric == "rate") return row->rate;
    if (metric == "speedup") {
        const Version* v = find_version(lab, version);
        const auto before = previous_version(lab, std::size_t(v - lab.versions.data()));
        if (!before) throw LessonError(no_such + ": it is the first version");
        return speedup_vs_previous(table, *row, version, lab.versions[*before].id);
    }
    if (metric == "bound_percent") {
        if (row->bound_ms <= 0) throw LessonError(no_such + ": no bound from links");
        return 100 * row->bound_ms / row->median_ms;
    }
    std::size_t copies = 0;  // copies_in
    for (const RunTimeline& run : table.timelines)
        if (run.version == row->version)
            for (const TimelineSpan& span : run.spans) copies += span.engine == "copy in";
    if (!copies) throw LessonError(no_such + ": no copy to the GPU in its timeline");
    return double(copies);
}

Lesson parse_lesson(const json& document, const std::filesystem::path& folder)
{
    const Where top;
    if (!document.is_object()) throw LessonError("expected an object with 'title' and 'slides'");
    only_known(document, {"title", "source", "slides"}, top);
    Lesson lesson;
    lesson.title = text_field(document, "title", top, true);
    lesson.source = text_field(document, "source", top, false);
    if (!document.contains("slides") || !document["slides"].is_array() || document["slides"].empty())
        throw top.error("slides", "expected a list of at least one slide");
    for (const json& s : document["slides"])
        lesson.slides.push_back(parse_slide(s, lesson.slides.empty() ? nullptr : &lesson.slides.back(), lesson.slides.size() + 1, folder));
    return lesson;
}

std::filesystem::path lesson_path(const std::string& file)
{
    const std::filesystem::path shipped = data_dir() / "lessons" / (file + ".json");
    const bool name_only = file.find('/') == std::string::npos && file.find('.') == std::string::npos;
    return name_only && !std::filesystem::exists(file) && std::filesystem::exists(shipped) ? shipped : std::filesystem::path(file);
}

std::string source_lines_file(const Slide& slide)
{
    if (!slide.run.empty()) return slide.run;
    return slide.file.empty() ? find_version(*find_lab(slide.lab), slide.version)->file : slide.file;
}

std::string launch_text(const Slide& slide)
{
    return slide.launch_kernel.empty() ? "launch " + std::to_string(slide.launch) : slide.launch_kernel + ":" + std::to_string(slide.launch);
}

std::vector<std::string> shipped_lessons()
{
    std::vector<std::string> names;
    std::error_code ec;
    for (const auto& entry : std::filesystem::directory_iterator(data_dir() / "lessons", ec))
        if (entry.path().extension() == ".json") names.push_back(entry.path().stem().string());
    std::sort(names.begin(), names.end());
    return names;
}

Lesson load_lesson(const std::string& file)
{
    const std::filesystem::path path = lesson_path(file);
    std::ifstream in(path);
    if (!in)
        throw LessonError(file + ": cannot read it (a lesson is a JSON file, or a shipped lesson's name: " + joined(shipped_lessons()) + ")" +
                          did_you_mean(file, shipped_lessons()));
    try {
        return parse_lesson(json::parse(in), path.parent_path());
    } catch (const json::parse_error& e) {
        throw LessonError(file + ": not JSON: " + e.what());
    } catch (const LessonError& e) {
        throw LessonError(file + ": " + e.what());
    }
}

double answer_value(const wl::trace::BlockAnalysis& run, const LessonAnswer& answer, std::uint32_t slide_step)
{
    if (answer.metric == "steps") return double(run.steps.size());
    const std::uint32_t step = answer.step.value_or(slide_step);
    if (step >= run.steps.size())
        throw LessonError("step " + std::to_string(step) + " is not among the trace's " + std::to_string(run.steps.size()) + " steps");
    if (!answer.line) return value_of_step(run.steps[step], answer.metric);
    const auto events = events_at(run.block, step, *answer.line);
    if (events.empty()) throw LessonError("step " + std::to_string(step) + " has no access at line " + std::to_string(*answer.line));
    return value_at_line(run.block, events, answer.metric);
}

std::string answer_text(double value)
{
    return std::abs(value - std::round(value)) < 1e-9 ? printf_string("%.0f", value) : printf_string("%.1f", value);
}

bool answer_matches(const std::string& typed, double value)
{
    const char* begin = typed.c_str();
    char* end = nullptr;
    const double number = std::strtod(begin, &end);
    return end != begin && std::isfinite(number) && answer_text(number) == answer_text(value);
}

}  // namespace warplab::viewer
