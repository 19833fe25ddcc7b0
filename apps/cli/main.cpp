// warplab: the command-line front end.
//   warplab list
//   warplab occupancy <lab> [version] [--gpu h100|a100|rtx4090|g80|all] [--block N] [--registers R] [--smem B] [--type T]
//   warplab trace <lab> <version> [--file F.cu [--kernel K] [--shared-bytes B]] [--n N] [--size SHAPE] [--block B] [--type T] [--backend B] [--schedule S] [--warp-size 32|64] [--max-instructions N] [--requests] [--mix] [--json]
//                 [--compare [A] B] [--without-barrier LINE] [--<a setting> N] [--<a lab's input> VALUE]
//   warplab sweep <lab> [version] [--n N] [--block B] [--backend B] [--markdown]
//   warplab bench <lab> [--n N] [--size SHAPE ...] [--type T] [--warm] [--json] [--csv] [--record FILE] [--recorded]
//                        [--markdown [--versions v1,v2,ref]] [--<a lab's detail>] [--recorded --published] [--<a lab's input> VALUE]
// Exit codes: 0 ok, 1 a result was wrong, 2 bad input (or no GPU to time on), 3 the kernel faulted.
#include <CLI/CLI.hpp>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <functional>
#include <map>
#include <optional>
#include <filesystem>
#include <fstream>
#include <iomanip>
#include <iostream>

#include "labs/common/did_you_mean.h"
#include "labs/common/lab.h"
#include "labs/common/lab_options.h"
#include "labs/common/problem_args.h"
#include "labs/common/traced_run.h"
#include "labs/common/user_kernel.h"
#include "labs/common/without_barrier.h"
#include "bench_table.h"
#include "labs/common/bench_json.h"
#include "trace_table.h"
#include "warplab/emu/emulator.h"
#include "warplab/trace/compare.h"
#include "warplab/version.h"
#include "occupancy_command.h"
#include "apps/grader/grade_command.h"  // warplab grade [ID...] [--dir D] [--backend B] [--gradescope F] [--junit F]
#include "mix_table.h"
#include "run_command.h"    // warplab run prog.cu [...] [-- ARGS]
#include "banks_command.h"  // warplab banks [--preset P] [--size B] [--stride S] [--offset O] [--lanes N | --mask M]

namespace warplab::cli {
namespace {

constexpr int kWrongResult = 1, kBadInput = 2, kKernelFault = 3;

struct TraceArgs {
    std::string lab, version, backend = "auto", schedule = "independent", type, out;  // type "": the lab's first
    std::string engine = "interpret";  // --engine: what runs the unwatched blocks
    std::string file, kernel;  // the user's own kernel, run in place of `version`'s
    std::optional<std::uint32_t> shared_bytes;  // its dynamic shared memory per block (default: the lab's textbook's)
    std::optional<std::size_t> n;
    std::string size;   // the problem's shape, where the lab's has dimensions (Lab::shape_form)
    std::string block;  // B threads, or the lab's own form (Lab::block_form: WxH)
    std::map<std::string, std::string> inputs;  // --<name> VALUE: the labs' own inputs (Lab::inputs), by name; empty: not given
    std::uint32_t watch = 0;
    unsigned warp_size = 32;  // --warp-size: 64 emulates AMD's wavefront
    std::uint64_t seed = 1;
    std::uint64_t max_instructions = 0;  // --max-instructions (instructions a thread may run); 0: the emulator's default
    bool json = false;
    bool requests = false;  // --requests: the table's column of global load and store requests
    bool mix = false;       // --mix: the instruction mix, per step (mix_table.h)
    std::vector<std::string> compare;  // --compare [A] B: version B traced beside the first (or A and B both)
    std::uint32_t without_barrier = 0;  // --without-barrier LINE: rerun without that line's barriers
    std::map<std::string, std::optional<unsigned>> settings;  // --<setting> N, by name (the labs' Lab::setting_of)
    bool markdown = false;                   // sweep: the table as markdown
};

int list_labs()
{
    for (const Lab& lab : all_labs()) {
        std::printf("%s: %s\n", lab.id.c_str(), lab.title.c_str());
        for (const VersionMeta& v : lab.versions)
            std::printf("  %-8s %-24s %s%s%s\n", v.id, v.name, v.variant ? "[variant] " : "", v.gpu_only ? "[GPU only] " : "", v.idea);
    }
    const GpuStatus gpu = gpu_status();
    std::printf("\nGPU: %s\n", gpu.available ? gpu.name.c_str() : ("none (" + gpu.reason + ")").c_str());
    return 0;
}

// An emulator run longer than about 2 s says on stderr how far it is: blocks
// done of all, the time so far and the time left at this pace.
std::function<void(std::uint64_t, std::uint64_t)> emulator_progress()
{
    const auto start = std::chrono::steady_clock::now();
    return [start](std::uint64_t done, std::uint64_t total) {
        const double elapsed = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
        if (elapsed < 2 || done == 0) return;
        const double left = elapsed * static_cast<double>(total - done) / static_cast<double>(done);
        std::fprintf(stderr, "\remulator: %llu of %llu blocks, %.0f s so far, about %.0f s left   ",
                     static_cast<unsigned long long>(done), static_cast<unsigned long long>(total), elapsed, left);
    };
}

RunRequest make_request(const Lab& lab, const Version& v, const TraceArgs& a)
{
    RunRequest req;
    req.version = v.id;
    req.n = a.n.value_or(default_n(lab, v));
    const std::vector<unsigned> block = parse_block(a.block);
    req.block = block.empty() ? v.bench_block : block.size() == 1 ? block[0] : block[0] * block[1];
    if (block.size() == 2) req.block_dim = block;
    req.inputs = given_inputs(a.inputs);
    req.type = a.type.empty() ? lab.types.front() : a.type;
    if (!a.size.empty()) req.shape = parse_problem_size(a.size);
    req.backend = a.backend == "gpu" ? BackendChoice::Gpu : a.backend == "cpu" ? BackendChoice::Cpu : BackendChoice::Auto;
    req.schedule = *wl::emu::parse_schedule(a.schedule);  // checked by the option's IsMember
    req.engine = *wl::emu::parse_engine(a.engine);        // likewise
    req.warp_width = a.warp_size;
    check_warp_width(req);
    req.watched_block = a.watch;
    req.seed = a.seed;
    req.file = a.file;
    req.kernel = a.kernel;
    req.shared_bytes = a.shared_bytes;
    req.max_instructions = a.max_instructions;
    req.without_barrier = a.without_barrier;
    if (isatty(STDERR_FILENO)) req.progress = emulator_progress();
    return req;
}

// Every element type a lab offers, in the registry's order: --type's choices.
std::vector<std::string> types_offered()
{
    std::vector<std::string> out;
    for (const Lab& lab : all_labs())
        for (const std::string& t : lab.types)
            if (std::find(out.begin(), out.end(), t) == out.end()) out.push_back(t);
    return out;
}

// --type, its choices the labs' (Lab::types): "element type: int or float".
void add_type_option(CLI::App* command, std::string& type)
{
    const std::vector<std::string> types = types_offered();
    std::string help = "element type: ";
    for (std::size_t i = 0; i < types.size(); ++i) help += (i == 0 ? "" : i + 1 == types.size() ? " or " : ", ") + types[i];
    command->add_option("--type", type, help)->check(CLI::IsMember(types));
}

// Each setting any lab's version takes, by name in the registry's order, with
// the versions that take it: the CLI's --offset, --stride.
std::vector<std::pair<std::string, std::vector<std::pair<const Lab*, const Version*>>>> settings_taken()
{
    std::vector<std::pair<std::string, std::vector<std::pair<const Lab*, const Version*>>>> out;
    for (const Lab& lab : all_labs())
        for (const Version& v : lab.versions) {
            const Setting* s = lab.setting_of ? lab.setting_of(v.id) : nullptr;
            if (!s) continue;
            auto it = std::find_if(out.begin(), out.end(), [&](const auto& e) { return e.first == s->name; });
            if (it == out.end()) it = out.insert(out.end(), {s->name, {}});
            it->second.push_back({&lab, &v});
        }
    return out;
}

// "coalescing v1 takes --offset, v2 --stride": who takes a setting, for a refusal.
std::string settings_text()
{
    std::string out;
    const Lab* last = nullptr;
    for (const Lab& lab : all_labs())
        for (const Version& v : lab.versions) {
            const Setting* s = lab.setting_of ? lab.setting_of(v.id) : nullptr;
            if (!s) continue;
            out += last == &lab ? std::string(", ") + v.id + " --" + s->name
                                : (out.empty() ? "" : "; ") + lab.id + " " + v.id + " takes --" + s->name;
            last = &lab;
        }
    return out;
}

// --offset N, --stride N, ...: the setting of a version whose kernel takes one
// (Lab::setting_of); -1 when none is given.
int setting_option(const Lab& lab, const std::string& version, const TraceArgs& a)
{
    std::vector<std::string> given;
    for (const auto& [name, value] : settings_taken())
        if (a.settings.count(name) && a.settings.at(name)) given.push_back(name);
    if (given.empty()) return -1;
    if (given.size() > 1) {
        std::string names;
        for (const std::string& g : given) names += (names.empty() ? "--" : " or --") + g;
        throw std::invalid_argument("give " + names + ", not both");
    }
    const Setting* s = lab.setting_of ? lab.setting_of(version) : nullptr;
    if (!s) throw std::invalid_argument(lab.id + " " + version + " takes no --" + given[0] + " (" + settings_text() + ")");
    if (given[0] != s->name) throw std::invalid_argument(version + " takes --" + std::string(s->name) + ", not --" + given[0]);
    return static_cast<int>(*a.settings.at(given[0]));
}

void print_header(const Lab& lab, const VersionMeta& v, const RunRequest& req, const TracedRun& run)
{
    if (req.file.empty())
        std::printf("%s %s (%s): %s\n", lab.id.c_str(), v.id, v.name, v.idea);
    else
        std::printf("%s: your kernel %s (%s), launched as %s (%s)\n", lab.id.c_str(), req.kernel.c_str(), req.file.c_str(), v.id,
                    v.name);
    if (!run.result.user_kernel.empty()) std::printf("%s\n", run.result.user_kernel.c_str());
    if (!run.result.compile_warnings.empty()) std::printf("%s\n", run.result.compile_warnings.c_str());
    if (!run.result.problem.empty()) {  // labs that describe their own problem (matmul)
        std::printf("%s; block %u traced on the %s\n", run.result.problem.c_str(), req.watched_block, run.result.backend.c_str());
        std::printf("result: %s: %s\n\n", run.result.check.c_str(), run.result.ok ? "correct" : "WRONG");
        return;
    }
    // The first pass's grid, where the lab says it (a block count that depends on n and the SMs, as reduction v7 to v10's).
    const std::string grid = run.result.grid_dim.empty() ? "" : ", " + std::to_string(run.result.grid_dim[0]) + " blocks";
    std::printf("n = %zu %s, block %u%s%s; block %u of the first pass traced on the %s\n", req.n, req.type.c_str(), req.block,
                req.block == v.bench_block ? " (as warplab bench times it)" : "", grid.c_str(), req.watched_block,
                run.result.backend.c_str());
    if (!run.result.path.empty()) std::printf("%s %s\n", v.id, run.result.path.c_str());  // which of its launches ran
    std::printf("result %.9g, expected %.9g: %s\n\n", run.result.value, run.result.expected, run.result.ok ? "correct" : "WRONG");
}

// The request for a lab's version, or for the user's --file kernel launched as it.
RunRequest checked_request(const Lab& lab, const Version& v, const TraceArgs& a)
{
    RunRequest req = make_request(lab, v, a);
    if (!req.file.empty()) req.kernel = check_user_file(req.file, req.kernel);  // named in the header when not given
    req.setting = setting_option(lab, req.version, a);
    return req;
}

TracedRun traced(const Lab& lab, const RunRequest& req)
{
    struct ClearProgress {  // the progress line goes before anything else is printed, a fault's message too
        ~ClearProgress()
        {
            if (isatty(STDERR_FILENO)) std::fputs("\r\033[K", stderr);
        }
    };
    const ClearProgress clear;
    return trace_version(lab, req);
}

void print_trace_table(const Lab& lab, const Version& v, const RunRequest& req, const TracedRun& run, const TraceArgs& a)
{
    print_header(lab, v, req, run);
    const SourceNames names = source_names(lab, req.file.empty() ? std::string(v.file) : req.file);
    std::fputs(trace_table(run.steps, run.totals, run.block, names, a.requests).c_str(), stdout);
    if (!run.per_machine_instruction) std::printf("%s\n", wl::trace::kPerPtxInstructionNote);
}

// --compare: two runs of one problem, the first version (or the user's kernel) and `b`, aligned by step.
int trace_compare(const Lab& lab, const Version& v, const TraceArgs& a, const std::string& b_id)
{
    if (a.json || !a.out.empty()) throw std::invalid_argument("--compare prints a table of two runs; --json and --out write one run's trace");
    if (a.without_barrier) throw std::invalid_argument("--compare and --without-barrier: give one of them");
    const Version* b = find_version(lab, b_id);
    if (!b) throw std::invalid_argument(unknown_version(lab, b_id, " to compare with"));
    if (b == &v && a.file.empty()) throw std::invalid_argument("--compare " + b_id + ": that is the version traced; name another");
    const RunRequest req_a = checked_request(lab, v, a);
    TraceArgs args_b = a;
    args_b.file.clear(), args_b.kernel.clear(), args_b.shared_bytes.reset();
    RunRequest req_b = checked_request(lab, *b, args_b);
    req_b.n = req_a.n;  // one problem, whatever size each version traces by default
    const TracedRun run_a = traced(lab, req_a), run_b = traced(lab, req_b);
    print_header(lab, v, req_a, run_a);
    print_header(lab, *b, req_b, run_b);
    const std::string label_a = a.file.empty() ? v.id : kUserVersionId;
    std::fputs(compare_table({label_a, run_a, source_names(lab, a.file.empty() ? std::string(v.file) : a.file)},
                             {b->id, run_b, source_names(lab, b->file)})
                   .c_str(),
               stdout);
    return run_a.result.ok && run_b.result.ok ? 0 : kWrongResult;
}

// --without-barrier: the run of a module without the barriers of one line, and
// what follows from their absence: a race, a wrong result, or nothing.
int trace_without_barrier(const Lab& lab, const Version& v, const TraceArgs& a)
{
    if (a.json || !a.out.empty()) throw std::invalid_argument("--without-barrier prints a modified run; --json and --out write the kernel's own");
    if (lab.host_programs) throw std::invalid_argument("--without-barrier: the " + lab.id + " lab's versions are host programs, not one kernel");
    const RunRequest req = checked_request(lab, v, a);
    const std::string file = req.file.empty() ? std::string(v.file) : req.file;
    std::optional<TracedRun> run;
    try {
        run = traced(lab, req);
    } catch (const wl::emu::KernelFault&) {  // the answer: said here, the fault itself as any fault's (exit 3)
        std::printf("%s\nwithout it the kernel faults: the barrier prevented what the fault below names\n",
                    without_barrier_title(file, req.without_barrier).c_str());
        std::fflush(stdout);
        throw;
    }
    RunRequest original = req;
    original.without_barrier = 0;
    const TracedRun kept = traced(lab, original);
    std::printf("%s\n", without_barrier_title(file, req.without_barrier).c_str());
    std::printf("without it on the %s: no race is seen, and the result is %s", run->result.backend.c_str(),
                run->result.ok ? "correct" : "WRONG");
    if (req.schedule == wl::emu::Schedule::Lockstep)
        std::printf(" (a warp's lanes run together here; --schedule independent lets them run apart, as since Volta they may)");
    const bool same = !wl::trace::first_differing_step(wl::trace::differing_steps(kept.block, run->block));
    if (same)
        std::printf(";\nthe same accesses, step for step, as with it: here the barrier changes nothing\n\n");
    else
        std::printf(";\nthe trace has %zu steps where the kernel with it has %zu\n\n", run->steps.size(), kept.steps.size());
    print_trace_table(lab, v, req, *run, a);
    return run->result.ok ? 0 : kWrongResult;
}

int trace(const TraceArgs& a)
{
    const Lab* lab = find_lab(a.lab);
    if (!lab) throw std::invalid_argument(unknown_lab(a.lab));
    if (a.compare.size() == 2 && !a.version.empty())
        throw std::invalid_argument("--compare " + a.compare[0] + " " + a.compare[1] + " names both versions; leave out " + a.version);
    const std::string version = a.compare.size() == 2 ? a.compare[0] : a.version;
    if (version.empty() && a.file.empty()) throw std::invalid_argument("name a version of lab " + lab->id + ", or --file");
    if (a.shared_bytes && a.file.empty()) throw std::invalid_argument("--shared-bytes sizes your kernel's extern __shared__ array; give --file too");
    const Version* v = version.empty() ? &lab->versions.front() : find_version(*lab, version);
    if (!v) throw std::invalid_argument(unknown_version(*lab, version));
    if (!a.compare.empty()) return trace_compare(*lab, *v, a, a.compare.back());
    if (a.without_barrier) return trace_without_barrier(*lab, *v, a);
    const RunRequest req = checked_request(*lab, *v, a);
    const TracedRun run = traced(*lab, req);
    if (a.json || !a.out.empty()) {
        // Streamed, not dumped to a string first: at the record cap the text is
        // hundreds of megabytes beside the document (docs/emulator.md's bound).
        if (a.out.empty()) {
            write_trace_document(std::cout, *lab, req, run);
            std::cout << "\n" << std::flush;
        } else {
            std::ofstream f(a.out);
            write_trace_document(f, *lab, req, run);
            if (!(f << "\n")) throw std::invalid_argument("cannot write " + a.out);
            std::fprintf(stderr, "wrote %s\n", a.out.c_str());
        }
    }
    if (!a.json) {
        print_trace_table(*lab, *v, req, run, a);
        std::fputs(measured_note(*lab, req, run.result, run.totals).c_str(), stdout);
        for (const std::string& w : run.result.warnings) std::printf("warning: %s\n", w.c_str());
        if (run.result.records_cut) std::printf("note: %s\n", records_cut_note(run).c_str());
        if (a.mix) std::printf("\n%s", mix_table(run.block).c_str());
    }
    return run.result.ok ? 0 : kWrongResult;
}

// Every setting of a version traced (the lab's sweep hook): for the coalescing
// lab, sectors per read request, actual and ideal, and the GB/s recorded in results/.
int sweep(const TraceArgs& a)
{
    const Lab* lab = find_lab(a.lab);
    if (!lab) throw std::invalid_argument(unknown_lab(a.lab));
    if (!lab->sweep)
        throw std::invalid_argument("lab " + lab->id + " has no setting to sweep (the " + labs_where([](const Lab& l) { return bool(l.sweep); }) +
                                    " lab has)");
    if (!a.version.empty() && !find_version(*lab, a.version))
        throw std::invalid_argument(unknown_version(*lab, a.version));
    for (const Version& v : lab->versions) {
        if (!a.version.empty() && a.version != v.id && a.version != v.name) continue;
        std::fputs(lab->sweep(*lab, make_request(*lab, v, a), a.markdown).c_str(), stdout);
    }
    return 0;
}

struct BenchArgs {
    std::string lab, type, record;
    std::vector<std::size_t> n;
    std::vector<std::string> sizes;  // the problem's shapes (Lab::shape_form), one per table
    std::vector<std::string> versions;  // --markdown: only these rows ("ref": the vendor library's)
    std::string file, kernel, as;       // the user's own kernel, timed as one more row, launched as version `as`
    std::optional<std::uint32_t> shared_bytes;  // its dynamic shared memory per block
    std::vector<std::string> blocks;  // --block: one table per block (B) or group (WxH); empty: each version's own
    std::map<std::string, std::string> inputs;  // --<name> VALUE: the labs' own inputs (Lab::inputs); empty: not given
    bool warm = false, json = false, csv = false, markdown = false, recorded = false;
    std::map<std::string, bool> details;  // --<name>: a lab's own flag printing more of each table (Lab::bench_detail)
    bool published = false;  // with --recorded: the source decks' tables beside the recorded rows
    double seconds = 1.0;
};

// The lab's bench detail where its flag was given (transfers' --timeline), else none.
const Lab::BenchDetail* detail_asked(const Lab& lab, const BenchArgs& a)
{
    const auto given = a.details.find(lab.bench_detail.name);
    return given != a.details.end() && given->second ? &lab.bench_detail : nullptr;
}

void print_tables(const Lab& lab, const std::vector<BenchTable>& tables, const BenchArgs& a, const std::string& source)
{
    const Lab::BenchDetail* detail = detail_asked(lab, a);
    if (a.json) {
        std::printf("%s\n", results_document(tables).dump(1).c_str());
        return;
    }
    if (a.markdown) {
        std::fputs(bench_markdown(tables, a.versions).c_str(), stdout);
        if (detail)
            for (const BenchTable& t : tables) std::fputs(("\n" + detail->print(t, true)).c_str(), stdout);
        return;
    }
    for (const BenchTable& t : tables) {
        std::fputs((a.csv ? bench_csv(t) : bench_text(t, source)).c_str(), stdout);
        std::fputs("\n", stdout);
        if (detail) std::fputs(detail->print(t, false).c_str(), stdout);
    }
}

// Does a recorded table match --size S or M,N,K? (S matches S×S×S.)
bool has_size(const BenchTable& t, const std::vector<std::size_t>& size)
{
    if (size.size() == 1) return t.n == size[0] || t.shape == std::vector<std::size_t>{size[0], size[0], size[0]};
    return t.shape == size;
}

bool wanted(const BenchTable& t, const BenchArgs& a)
{
    const bool n_ok = a.n.empty() || std::find(a.n.begin(), a.n.end(), t.n) != a.n.end();
    const bool size_ok = a.sizes.empty() || std::any_of(a.sizes.begin(), a.sizes.end(), [&](const std::string& text) {
                             return has_size(t, parse_problem_size(text));
                         });
    // Without --block, the tables of each version's own block; with it, those timed at one of the blocks asked for.
    const bool block_ok = a.blocks.empty() ? t.block.empty()
                                           : std::any_of(a.blocks.begin(), a.blocks.end(), [&](const std::string& text) {
                                                 return parse_block(text) == t.block;
                                             });
    return t.lab == a.lab && (a.type.empty() || t.type == a.type) && n_ok && size_ok && block_ok;
}

// Each published table of the lab beside the recorded table of its type and n.
int print_published(const BenchArgs& a, const std::vector<BenchTable>& recorded)
{
    const std::filesystem::path dir = std::filesystem::path(results_dir()) / "published";
    const Published published = load_published(dir.string());
    std::vector<std::string> versions;
    for (const VersionMeta& v : find_lab(a.lab)->versions) versions.push_back(v.id);
    std::vector<const BenchTable*> tables;
    for (const BenchTable& t : recorded) tables.push_back(&t);
    bool any = false;
    for (const PublishedTable& t : published.tables)
        if (t.lab == a.lab) {
            std::fputs(published_beside(t, table_beside(t, tables), versions, a.markdown).c_str(), stdout);
            any = true;
        }
    for (const PublishedStatements& s : published.statements)
        if (s.lab == a.lab) {
            std::fputs(published_statements(s, a.markdown).c_str(), stdout);
            any = true;
        }
    if (!any) throw std::invalid_argument("no published tables for " + a.lab + " in " + dir.string());
    return 0;
}

int print_recorded(const Lab& lab, const BenchArgs& a)
{
    std::vector<BenchTable> tables;
    const std::filesystem::path dir = results_dir();
    if (std::filesystem::is_directory(dir))
        for (const auto& entry : std::filesystem::directory_iterator(dir)) {
            if (entry.path().extension() != ".json") continue;
            std::ifstream f(entry.path());
            for (BenchTable& t : tables_from_document(nlohmann::json::parse(f)))
                if (wanted(t, a)) tables.push_back(std::move(t));
        }
    if (tables.empty()) throw std::invalid_argument("no recorded results for " + a.lab + " in " + dir.string());
    if (a.published) return print_published(a, tables);
    print_tables(lab, tables, a, "recorded on");
    return 0;
}

int bench(const BenchArgs& a, const std::string& command)
{
    const Lab* lab = find_lab(a.lab);
    if (!lab) throw std::invalid_argument(unknown_lab(a.lab));
    if (!a.versions.empty() && !a.markdown) throw std::invalid_argument("--versions needs --markdown");
    if (a.published && !a.recorded) throw std::invalid_argument("--published needs --recorded (the tables set beside it)");
    if (a.published && (a.json || a.csv || !a.versions.empty()))
        throw std::invalid_argument("--published prints text or --markdown, of every version");
    for (const auto& [name, given] : a.details)
        if (given && name != lab->bench_detail.name) {
            const std::string labs = labs_where([&](const Lab& l) { return l.bench_detail.name == name; });  // those whose flag it is
            throw std::invalid_argument("--" + name + ": lab " + lab->id + " prints no " + name + " (the " + labs + " lab does)");
        }
    const std::map<std::string, std::string> inputs = given_inputs(a.inputs);
    if (a.sizes.empty()) check_inputs(*lab, inputs, {});  // another lab's input, or one of its own the lab refuses
    for (const std::string& text : a.sizes) check_inputs(*lab, inputs, parse_problem_size(text));
    for (const std::string& v : a.versions)  // a version, or a row of one ("v3 4 streams")
        if (v != "ref" && !find_version(*lab, row_version(v)))
            throw std::invalid_argument(unknown_version(*lab, v));
    if (!a.file.empty() && (a.recorded || !a.record.empty()))
        throw std::invalid_argument("--file times your kernel now; it is not recorded, so it takes neither --record nor --recorded");
    if (!a.file.empty() && lab->host_programs)
        throw std::invalid_argument("--file: the " + lab->id +
                                    " lab's versions are host programs (copies, streams, kernels), not one kernel your file can stand in for");
    const auto* as = a.as.empty() ? &lab->versions.front() : find_version(*lab, a.as);
    if (!as) throw std::invalid_argument(unknown_version(*lab, a.as, " to launch your kernel as"));
    if (a.shared_bytes && a.file.empty()) throw std::invalid_argument("--shared-bytes sizes your kernel's extern __shared__ array; give --file too");
    if (!a.file.empty()) check_user_file(a.file, a.kernel);  // its kernels are known before a GPU is looked for
    if (a.recorded) return print_recorded(*lab, a);
    std::vector<std::vector<std::size_t>> sizes;  // {n}, or a shape from --size
    for (std::size_t n : a.n.empty() && a.sizes.empty() ? lab->bench_sizes : a.n) sizes.push_back({n});
    for (const std::string& text : a.sizes) sizes.push_back(parse_problem_size(text));
    for (const auto& size : sizes)
        for (std::size_t d : size)
            if (d == 0) throw std::invalid_argument("n must be at least 1");
    std::vector<std::vector<unsigned>> blocks;  // --block's, read before a GPU is looked for
    for (const std::string& text : a.blocks) blocks.push_back(parse_block(text));
    if (blocks.empty()) blocks.push_back({});
    const GpuStatus gpu = gpu_status();
    if (!gpu.available)
        throw std::invalid_argument("no GPU to time on (" + gpu.reason + "); recorded results: warplab bench " + a.lab +
                                    " --recorded");
    std::vector<std::string> types = a.type.empty() ? std::vector<std::string>{lab->types.front()} : std::vector<std::string>{a.type};
    if (!a.record.empty() && a.type.empty()) types = lab->types;
    std::vector<BenchTable> tables;
    bool all_ok = true;
    for (const std::string& type : types)
        for (const auto& size : sizes)
            for (const auto& block : blocks) {
                BenchOptions o;
                o.block = block, o.inputs = inputs;
                o.n = size.size() == 1 ? size[0] : 0;
                o.type = type, o.warm = a.warm, o.seconds_per_version = a.seconds, o.command = command, o.shape = size;
                if (!a.file.empty()) o.file = a.file, o.kernel = a.kernel, o.as_version = as->id, o.shared_bytes = a.shared_bytes;
                tables.push_back(lab->bench(o));
                tables.back().block = block;
                // A lab's variant may be wrong by design (a racy tail); the user's kernel may not.
                for (const BenchRow& r : tables.back().rows) all_ok &= r.ok || (r.variant && !r.version.starts_with(kUserVersionId));
            }
    if (!a.record.empty()) {
        std::ofstream f(a.record);
        if (!(f << results_document(tables).dump(1) << "\n")) throw std::invalid_argument("cannot write " + a.record);
        std::fprintf(stderr, "wrote %s\n", a.record.c_str());
    }
    print_tables(*lab, tables, a, "measured now on");
    return all_ok ? 0 : kWrongResult;
}

}  // namespace
}  // namespace warplab::cli

int main(int argc, char** argv)
{
    using namespace warplab::cli;
    CLI::App app{"warplab: step through GPU kernels, see what the hardware sees"};
    app.set_version_flag("--version", "warplab " + wl::version_text(), "print warplab's version and exit");
    app.require_subcommand(1);
    app.add_subcommand("list", "list the labs and their versions");
    TraceArgs ta;
    CLI::App* tr = app.add_subcommand("trace", "run one version and print its per-step table");
    tr->add_option("lab", ta.lab, "lab, e.g. reduction")->required();
    tr->add_option("version", ta.version, "version, e.g. v2 (with --file: the version whose launch your kernel takes; default the first)");
    tr->add_option("--file", ta.file, "run your own kernel from this .cu file, with the version's parameters and launch");
    tr->add_option("--kernel", ta.kernel, "with --file: the kernel's name (default: the file's only kernel)");
    tr->add_option("--shared-bytes", ta.shared_bytes,
                   "with --file: dynamic shared memory per block for its extern __shared__ array (default: what the lab's textbook host code gives)");
    tr->add_option("--n", ta.n, "number of elements (default: the lab's)")
        ->check(warplab::count_of<CLI::Validator>("number of elements"));
    tr->add_option("--size", ta.size, "the problem's shape (" + warplab::shape_forms() + "; default: the version's)")->type_name("SHAPE");
    tr->add_option("--block", ta.block, "threads per block (" + warplab::block_forms() + "; default: the version's, as warplab bench times it)");
    warplab::add_input_options(*tr, ta.inputs, false);
    add_type_option(tr, ta.type);
    tr->add_option("--backend", ta.backend, "auto, cpu (emulator) or gpu")->check(CLI::IsMember({"auto", "cpu", "gpu"}));
    tr->add_option("--schedule", ta.schedule, "emulator lane schedule: independent or lockstep")
        ->check(CLI::IsMember(wl::emu::schedule_names()));
    tr->add_option("--engine", ta.engine,
                   "emulator: what runs the blocks not traced: interpret, or fast (each kernel compiled to host code, cached)")
        ->check(CLI::IsMember({"interpret", "fast"}));
    tr->add_option("--warp-size", ta.warp_size, "lanes a warp: 32, or 64 (AMD's wavefront, emulated; the emulator only)");
    tr->add_option("--watch-block", ta.watch, "which block of the first pass to trace (default 0)");
    tr->add_option("--seed", ta.seed, "input seed (default 1)");
    tr->add_option("--max-instructions,--max-steps", ta.max_instructions,  // --max-steps: its former name, kept for scripts
                   wl::emu::max_instructions_help())
        ->check(warplab::count_of<CLI::Validator>("number of instructions"));
    tr->add_flag("--json", ta.json, "print the trace as JSON (docs/trace-format.md) instead of the table");
    tr->add_flag("--requests", ta.requests, "add a column of each step's global load and store requests (warp instructions)");
    tr->add_flag("--mix", ta.mix, "print the instruction mix: each step's warp instructions by class (FP32, integer, loads by space, ...)");
    tr->add_option("-o,--out", ta.out, "also write the JSON trace to this file");
    tr->add_option("--compare", ta.compare,
                   "trace version B beside the version (or --file kernel) traced, or A beside B: aligned by step, the first "
                   "step whose accesses differ marked (trace reduction v2 --compare v3)")
        ->expected(1, 2)
        ->type_name("[A] B");
    tr->add_option("--without-barrier", ta.without_barrier,
                   "rerun on the emulator with the __syncthreads() / __syncwarp() of this line of the version's file (or "
                   "--file) removed from the PTX, and say what follows: a race, a wrong result, or nothing")
        ->check(warplab::count_of<CLI::Validator>("source line"))
        ->type_name("LINE");
    for (const auto& [name, takers] : settings_taken()) {  // --offset, --stride: what the labs' versions take
        std::string help;
        for (const auto& [lab, v] : takers) {
            const warplab::Setting* s = lab->setting_of(v->id);
            help += (help.empty() ? "" : "; ") + lab->id + " " + v->id + ": read in[i " + s->op + " " + name + "], " +
                    std::to_string(s->first) + " to " + std::to_string(s->last) + " (default " + std::to_string(s->standard) + ")";
        }
        tr->add_option("--" + name, ta.settings[name], help);
    }

    TraceArgs sa;
    CLI::App* sw = app.add_subcommand("sweep", "trace a version at every setting it takes (" + settings_text() + ")");
    sw->add_option("lab", sa.lab, "lab: " + warplab::labs_where([](const warplab::Lab& l) { return bool(l.sweep); }))->required();
    sw->add_option("version", sa.version, "version (default: each)");
    sw->add_option("--n", sa.n, "number of elements (default: the lab's)")
        ->check(warplab::count_of<CLI::Validator>("number of elements"));
    sw->add_option("--block", sa.block, "threads per block (default: the version's, as warplab bench times it)");
    sw->add_option("--backend", sa.backend, "auto, cpu (emulator) or gpu")->check(CLI::IsMember({"auto", "cpu", "gpu"}));
    sw->add_flag("--markdown", sa.markdown, "print the tables as markdown (the walkthrough's form)");

    BenchArgs ba;
    CLI::App* be = app.add_subcommand("bench", "time every version on the GPU against the vendor library");
    be->add_option("lab", ba.lab, "lab, e.g. reduction")->required();
    be->add_option("--n", ba.n, "sizes in elements, comma-separated (default: the lab's)")
        ->delimiter(',')
        ->check(warplab::count_of<CLI::Validator>("number of elements"));
    be->add_option("--size", ba.sizes, "the problem's shapes (" + warplab::shape_forms() + "); several allowed (default: the lab's)")
        ->type_name("SHAPE");
    add_type_option(be, ba.type);
    be->add_flag("--warm", ba.warm, "keep L2 warm between runs (default: flush it before each run)");
    be->add_option("--seconds", ba.seconds, "time budget per version (default 1)");
    be->add_flag("--json", ba.json, "print the results as JSON");
    be->add_flag("--csv", ba.csv, "print the results as CSV");
    be->add_flag("--markdown", ba.markdown, "print the results as markdown tables (the walkthroughs' form)");
    be->add_option("--versions", ba.versions, "with --markdown: only these rows, comma-separated (ref: CUB or cuBLAS)")
        ->delimiter(',');
    be->add_option("--record", ba.record, "write the results (every size and type) to this JSON file, e.g. results/<gpu>.json");
    be->add_flag("--recorded", ba.recorded, "print the results recorded in results/ instead of measuring");
    for (const warplab::Lab& lab : warplab::all_labs())  // a lab's own flags: transfers' --timeline
        if (const auto& d = lab.bench_detail; !d.name.empty() && !ba.details.count(d.name))
            be->add_flag("--" + d.name, ba.details[d.name], lab.id + ": " + d.help);
    be->add_flag("--published", ba.published,
                 "with --recorded: the tables the source decks printed (results/published/) beside the recorded ones, "
                 "aligned by version");
    be->add_option("--file", ba.file, "also time your own kernel from this .cu file, launched as --as's version");
    be->add_option("--kernel", ba.kernel, "with --file: the kernel's name (default: the file's only kernel)");
    be->add_option("--as", ba.as, "with --file: the version whose launch your kernel takes (default: the first)");
    be->add_option("--shared-bytes", ba.shared_bytes, "with --file: dynamic shared memory per block for its extern __shared__ array");
    be->add_option("--block", ba.blocks, "time every version at this block, B threads (" + warplab::block_forms() +
                                         "); several allowed, one table each (default: each version's own)");
    warplab::add_input_options(*be, ba.inputs, true);

    GradeCommand grade(app);
    OccupancyCommand occupancy(app);
    BanksCommand banks(app);
    RunCommand run(app);

    const std::string command = warplab::provenance_command(argc, argv, std::filesystem::current_path().string());

    try {
        app.parse(argc, argv);
    } catch (const CLI::CallForHelp& e) {
        return app.exit(e);
    } catch (const CLI::CallForVersion& e) {
        return app.exit(e);
    } catch (const CLI::ParseError& e) {
        std::fprintf(stderr, "warplab: error: %s%s\n", e.what(), warplab::unknown_option_hint(app, argc, argv).c_str());
        return kBadInput;
    }
    try {
        if (app.got_subcommand("list")) return list_labs();
        if (app.got_subcommand("bench")) return bench(ba, command);
        if (app.got_subcommand("sweep")) return sweep(sa);
        if (grade.chosen()) return grade.run();
        if (occupancy.chosen()) return occupancy.run();
        if (banks.chosen()) return banks.run();
        if (run.chosen()) return run.run();
        return trace(ta);
    } catch (const wl::emu::KernelFault& e) {
        std::fprintf(stderr, "warplab: kernel fault: %s\n", e.what());
        return kKernelFault;
    } catch (const std::invalid_argument& e) {
        std::fprintf(stderr, "warplab: error: %s\n", e.what());
        return kBadInput;
    } catch (const std::bad_alloc&) {
        std::fprintf(stderr, "warplab: error: out of memory\n");
        return kBadInput;
    } catch (const std::exception& e) {
        std::fprintf(stderr, "warplab: error: %s\n", e.what());
        return kBadInput;
    }
}
