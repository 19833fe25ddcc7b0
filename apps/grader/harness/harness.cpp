// The checks' side of the grader: verdicts, fault reports, seeded inputs,
// trace helpers, the parallel shapes, and the result file (one JSON line per check).
#include "harness/harness.h"

#include <algorithm>
#include <bit>
#include <charconv>
#include <chrono>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <map>
#include <numeric>
#include <nlohmann/json.hpp>
#include <regex>
#include <set>

#include "exercises/exercises.h"
#include "warplab/ptx/cuda_source.h"
#include "warplab/ptx/declared_arrays.h"
#include "warplab/ptx/kernel_file.h"
#include "warplab/ptx/tools.h"
#include "warplab/random.h"

namespace wl::grade {

Verdict pass(std::string measured)
{
    Verdict v;
    v.measured = std::move(measured);
    return v;
}

Verdict fail(std::string measured, std::string expected, std::string where, std::string hint)
{
    Verdict v;
    v.passed = false;
    v.measured = std::move(measured);
    v.expected = std::move(expected);
    v.where = std::move(where);
    v.hint = std::move(hint);
    return v;
}

// ------------------------------------------------------------- harness --

namespace {

std::string base_name(const std::string& path) { return path.substr(path.find_last_of('/') + 1); }

// The student's files by the hash the trace carries (trace::file_hash of the base name).
std::map<std::uint32_t, std::string> student_files(const std::string& kernel_file)
{
    std::map<std::uint32_t, std::string> files;
    files[trace::file_hash(kernel_file.c_str())] = base_name(kernel_file);
    std::error_code ec;
    const auto dir = std::filesystem::path(kernel_file).parent_path();
    for (const auto& entry : std::filesystem::directory_iterator(dir, ec)) {
        const std::string name = entry.path().filename().string();
        files.emplace(trace::file_hash(name.c_str()), name);
    }
    return files;
}

bool in_catalog(const ExerciseSpec& spec, std::string_view id)
{
    return std::any_of(spec.checks.begin(), spec.checks.end(), [&](const CheckSpec& c) { return c.id == id; });
}

}  // namespace

Harness::Harness(const ExerciseSpec& spec, const ptx::Module& module, std::string kernel_file, std::uint64_t seed,
                 std::FILE* out)
    : spec_(spec),
      module_(&module),
      seed_(seed),
      kernel_dir_(std::filesystem::path(kernel_file).parent_path().string()),
      files_(student_files(kernel_file)),
      sources_(ptx::read_cuda_files(kernel_file)),
      out_(out)
{
}

Harness::Harness(const ExerciseSpec& spec, std::string program, std::string program_file, std::uint64_t seed,
                 std::FILE* out)
    : spec_(spec),
      program_(std::move(program)),
      seed_(seed),
      kernel_dir_(std::filesystem::path(program_file).parent_path().string()),
      files_(student_files(program_file)),
      sources_(ptx::read_cuda_files(program_file)),
      out_(out)
{
}

const ptx::Module& Harness::module() const
{
    if (!module_) throw std::logic_error(std::string(spec_.id) + " is a whole program: it has no PTX module of its own");
    return *module_;
}

namespace {

std::string without_spaces(std::string_view s)
{
    std::string out;
    for (char c : s)
        if (c != ' ') out += c;
    return out;
}

}  // namespace

std::string Harness::kernel(std::string_view name) const
{
    if (module().find(name)) return std::string(name);
    const std::string want = without_spaces(name);
    std::string there;
    for (const ptx::KernelInfo& k : module().kernels()) {
        const std::string bare = without_spaces(std::string(wl::ptx::without_parameters(k.demangled)));
        if (bare == want) return k.mangled;
        there += (there.empty() ? "" : ", ") + k.demangled;
    }
    throw emu::LaunchError("the compiled kernel.cuh has no kernel " + std::string(name) + " (it has: " +
                           (there.empty() ? "none" : there) + ")");
}

void Harness::check(std::string_view id, const std::function<Verdict()>& measure)
{
    if (id != kCorrect && !properties_not_graded_.empty()) {
        if (!in_catalog(spec_, id)) throw std::logic_error("grader bug: check '" + std::string(id) + "' is not in the catalog");
        report(id, fail("not graded: " + properties_not_graded_ + ", and a property is credited only on a right result",
                        "the main cases of 'correct' right, then this property"),
               false);
        return;
    }
    run(id, measure, id != kCorrect);
}

namespace {

// Why the properties go ungraded after `correct` gave `v`, or empty: no case
// right, or a main case wrong (a kernel right only on small or odd inputs has
// not done the exercise's work, whatever its trace shows).
std::string why_properties_not_graded(const Verdict& v)
{
    if (v.cases > 0 && v.main_cases == 0) throw std::logic_error("grader bug: the cases of 'correct' have no main case");
    if (v.passed) return {};
    if (v.right_cases() == 0) return "no case of check 'correct' has a right result";
    if (!v.main_case_wrong.empty())
        return "the main case of check 'correct' (" + v.main_case_wrong +
               ": whole blocks, no edge) is wrong, though " + std::to_string(v.right_cases()) + " other case" +
               (v.right_cases() == 1 ? " is" : "s are") + " right";
    return {};
}

}  // namespace

void Harness::check_alone(std::string_view id, const std::function<Verdict()>& measure) { run(id, measure, false); }

std::string_view Harness::catalog_hint() const
{
    for (const CheckSpec& c : spec_.checks)
        if (c.id == running_) return c.hint;
    return {};
}

void Harness::run(std::string_view id, const std::function<Verdict()>& measure, bool on_result)
{
    if (!in_catalog(spec_, id)) throw std::logic_error("grader bug: check '" + std::string(id) + "' is not in the catalog");
    running_ = id;
    Verdict v;
    try {
        v = measure();
    } catch (const WrongTracedResult& e) {
        report(id, fail(std::string("not graded: ") + e.what(), "a right result on the traced run, then this property"),
               false);
        return;
    } catch (const emu::KernelFault& e) {
        if (!on_result) {
            v = fault_verdict(e, "the " + std::string(id) + " run");
        } else {  // a traced run that faults has a wrong result too: 'correct' says why
            report(id,
                   fail("not graded: the traced run faulted, a wrong result (see check 'correct'): " +
                            std::string(e.what()),
                        "a right result on the traced run, then this property"),
                   false);
            return;
        }
    } catch (const std::exception& e) {
        v = fault_verdict(e, "the " + std::string(id) + " run");
    }
    if (id == kCorrect) {
        properties_not_graded_ = why_properties_not_graded(v);
        right_cases_ = v.right_cases();
        wrong_cases_ = static_cast<unsigned>(v.failed_cases.size());
    } else if (on_result && v.passed && wrong_cases_ > 0) {
        v.measured += "; measured on a right result, while " + std::to_string(wrong_cases_) + " of the " +
                      std::to_string(right_cases_ + wrong_cases_) + " cases of 'correct' are wrong";
    }
    report(id, v, true);
}

std::string Harness::site(const trace::Site& s) const
{
    auto it = files_.find(s.file_hash);
    return it != files_.end() ? it->second + ":" + std::to_string(s.line) : "line " + std::to_string(s.line);
}

void Harness::report(std::string_view id, const Verdict& v, bool graded)
{
    nlohmann::json line{{"check", id},       {"passed", v.passed}, {"graded", graded}, {"measured", v.measured},
                        {"expected", v.expected}, {"where", v.where}, {"hint", v.hint}};
    if (v.cases > 0) {
        line["cases"] = v.cases;
        nlohmann::json failed = nlohmann::json::array();
        for (const FailedCase& c : v.failed_cases)
            failed.push_back({{"case", c.name}, {"measured", c.measured}, {"expected", c.expected}});
        line["failed_cases"] = failed;
        line["cases_not_run"] = v.cases_not_run;
    }
    std::fprintf(out_, "%s\n", line.dump().c_str());
    std::fflush(out_);  // a later crash or time-out must not lose the checks already done
}

// ------------------------------------------------------------- faults --

namespace {

struct FaultHint {
    const char* phrase;
    const char* hint;
};
constexpr FaultHint kFaultHints[] = {
    {"out-of-bounds", "check every index against its bound (n, rows, cols) before the access, in every block: the "
                      "last one is usually partial"},
    {"data race", "a __syncthreads() (between warps) or a __syncwarp() (within a warp) must separate a write from "
                  "another thread's access to the same word"},
    {"barrier divergence", "every thread of the block must reach the same __syncthreads(): none inside a branch "
                           "that only some threads take, and no early return before one"},
    {"uninitialised", "every shared element that is read must first be written in this block, and a "
                      "__syncthreads() must come between another thread's write and the read; write the padding of "
                      "a partial block too (with the identity of the operation)"},
    {"warp deadlock", "every lane named in a warp collective's mask must reach that collective"},
    {"mask", "a warp collective's mask must include the calling lane and every lane it reads"},
    {"shared memory exhausted", "the shared arrays of one block must fit in 228 KiB"},
};

// An access at index n of an array of n elements, from an out-of-bounds
// fault ("in[1023] (argument 0) is outside its 1023 elements"): one past the
// end, the mark of an index one too high or of a bound tested with <= where <
// is meant. Empty otherwise (then the phrase's hint).
std::string one_past_the_end(const std::string& what)
{
    static const std::regex access(R"((\S+)\[(\d+)\](?: \([^)]*\))? is outside its (\d+) elements)");
    std::smatch m;
    if (!std::regex_search(what, m, access) || m[2].str() != m[3].str() || m[2].str() == "0") return {};
    const std::string name = m[1].str(), n = m[2].str();
    return name + "[" + n + "] is one past the end of its " + n + " elements (indices 0 to " +
           std::to_string(std::stoull(n) - 1) + "): an index one too high, or a bound tested with <= where < is "
           "meant? Test each index with < against its bound (n, rows, cols) before the access, in every block";
}

std::string fault_hint(const std::string& what)
{
    if (std::string past = one_past_the_end(what); !past.empty()) return past;
    for (const FaultHint& h : kFaultHints)
        if (what.find(h.phrase) != std::string::npos) return h.hint;
    return {};
}

// What a launch that threw did: "the kernel faulted: ..." with its file:line and a hint.
Verdict what_threw(const std::exception& e)
{
    if (const auto* f = dynamic_cast<const emu::KernelFault*>(&e)) {
        const std::string where = f->fault.file.empty()
                                      ? std::string()
                                      : base_name(f->fault.file) + ":" + std::to_string(f->fault.line);
        return fail(std::string("the kernel faulted: ") + f->what(), "no fault", where, fault_hint(f->fault.what));
    }
    if (dynamic_cast<const emu::LaunchError*>(&e))
        return fail(std::string("the launch failed: ") + e.what(), "a valid launch");
    return fail(e.what(), "no error");
}

// A fault in a list of cases, without the kernel's name the verdict already gives:
// "faulted in block (3,0,0), thread (4,0,0): out-of-bounds load: ...". Else what threw.
std::string in_brief(const std::exception& e)
{
    const auto* f = dynamic_cast<const emu::KernelFault*>(&e);
    if (!f) return what_threw(e).measured;
    const auto triple = [](const uint3& v) {
        return "(" + std::to_string(v.x) + "," + std::to_string(v.y) + "," + std::to_string(v.z) + ")";
    };
    return "faulted in block " + triple(f->fault.block) + ", thread " + triple(f->fault.thread) + ": " + f->fault.what;
}

// A fault of the emulator's instruction budget: the kernel loops endlessly on this case.
bool loops_endlessly(const std::exception& e)
{
    const auto* f = dynamic_cast<const emu::KernelFault*>(&e);
    return f && f->fault.what.find("did not finish within") != std::string::npos;
}

// When the checks' child process must stop running more cases after a wrong
// one: half the exercise's time limit after it started (run_checks sets it).
std::chrono::steady_clock::time_point wrong_cases_deadline = std::chrono::steady_clock::time_point::max();

}  // namespace

Verdict fault_verdict(const std::exception& e, const std::string& during)
{
    Verdict v = what_threw(e);
    v.measured = during + ": " + v.measured;
    return v;
}

Verdict run_cases(const std::vector<Case>& cases, const std::string& what_is_right)
{
    std::optional<Verdict> first;
    std::vector<FailedCase> failed;
    std::vector<bool> wrong(cases.size(), false);
    std::string not_run;
    unsigned run = 0;
    for (const Case& c : cases) {
        if (first && std::chrono::steady_clock::now() > wrong_cases_deadline) {
            not_run = std::to_string(cases.size() - run) + " more not run: half the time limit is spent";
            break;
        }
        ++run;
        Finding f;
        std::string brief;  // a fault, for the list
        bool endless = false;
        try {
            f = c.run();
        } catch (const std::exception& e) {
            f = what_threw(e);
            brief = in_brief(e);
            endless = loops_endlessly(e);
        }
        if (!f) continue;
        wrong[run - 1] = true;
        const bool faulted = !brief.empty();
        failed.push_back({c.name, faulted ? brief : f->measured, f->expected});
        if (!first) {
            first = *f;
            first->measured = "case " + c.name + ": " + f->measured;
            if (!faulted && first->hint.empty()) first->hint = c.hint;  // a fault has its own hint
        }
        if (endless) {
            if (run < cases.size()) not_run = std::to_string(cases.size() - run) + " more not run: it loops endlessly";
            break;
        }
    }
    Verdict v = first ? *first : pass(what_is_right + " on all " + std::to_string(cases.size()) + " cases");
    v.cases = run;
    for (std::size_t i = 0; i < cases.size(); ++i) {
        if (!cases[i].main) continue;
        ++v.main_cases;
        if (!v.main_case_wrong.empty()) continue;
        if (i >= run) v.main_case_wrong = cases[i].name + " (not run)";
        else if (wrong[i]) v.main_case_wrong = cases[i].name;
    }
    v.failed_cases = std::move(failed);
    v.cases_not_run = std::move(not_run);
    return v;
}

void require_right(const Finding& wrong, const std::string& traced_case)
{
    if (wrong) throw WrongTracedResult("the traced run (" + traced_case + ") gave a wrong result: " + wrong->measured);
}

Finding compare_floats(const std::vector<float>& got, const std::vector<float>& expected, double rel, double abs,
                       const std::function<std::string(std::size_t)>& name, const std::vector<float>& before)
{
    for (std::size_t i = 0; i < expected.size(); ++i) {
        const double g = got.at(i), e = expected[i];
        if (std::fabs(g - e) <= rel * std::fabs(e) + abs) continue;  // false for NaN
        const bool untouched = i < before.size() && std::memcmp(&got[i], &before[i], sizeof(float)) == 0;
        return fail("your kernel's " + name(i) + " was " + str(g) +
                        (untouched ? ", not written by the kernel" : "") + "; the right " + name(i) + " is " + str(e),
                    name(i) + " = " + str(e));
    }
    return std::nullopt;
}

// ------------------------------------------------------------- inputs --

std::vector<int> random_ints(std::size_t n, std::uint64_t seed, int lo, int hi)
{
    wl::Random rng(seed);
    std::vector<int> v(n);
    for (int& x : v) x = static_cast<int>(rng.uniform_int(lo, hi));
    return v;
}

std::vector<float> random_floats(std::size_t n, std::uint64_t seed, float lo, float hi)
{
    wl::Random rng(seed);
    std::vector<float> v(n);
    for (float& x : v) x = rng.uniform_float(lo, hi);
    return v;
}

std::vector<float> random_whole_floats(std::size_t n, std::uint64_t seed, int lo, int hi)
{
    std::vector<float> v(n);
    const std::vector<int> ints = random_ints(n, seed, lo, hi);
    for (std::size_t i = 0; i < n; ++i) v[i] = static_cast<float>(ints[i]);
    return v;
}

// ----------------------------------------------------- emulator, trace --

namespace {

// The child process grades at one warp width, set once by run_checks before any check runs.
unsigned warp_width_of_checks = trace::kDefaultWarpSize;

}  // namespace

unsigned graded_warp_width() { return warp_width_of_checks; }

void configure(emu::Emulator& emu, emu::Schedule schedule, std::uint64_t lane_seed, bool record)
{
    emu.options = {.schedule = schedule, .watched_blocks = {0}, .record = record, .seed = lane_seed};
    emu.options.warp_width = graded_warp_width();
}

BlockView view_block(const Harness& h, const std::vector<trace::LaneRecord>& records, unsigned threads, std::uint32_t block)
{
    // No kernel named: an exercise's kernels do not share an array's name, so its first declaration is the one.
    return trace::analyze_block(records, block, threads, nullptr, graded_warp_width(), false,
                                [&](trace::BlockTrace& b) { ptx::declare_array_types(b, h.sources(), "", ""); });
}

// ------------------------------------------------------------ findings --

namespace {

using trace::is_memory;
using trace::kind_name;

std::string step_of(const trace::WarpEvent& e) { return "step " + std::to_string(e.step); }

}  // namespace

const trace::WarpEvent* first_conflicted(const BlockView& v)
{
    for (const trace::WarpEvent& e : v.block.events) {
        if (e.space != trace::Space::Shared || !is_memory(e.kind)) continue;
        const trace::BankCost c = trace::shared_bank_cost(e.mask, e.offset, e.size, e.kind);
        if (c.wavefronts > c.ideal) return &e;
    }
    return nullptr;
}

Finding first_bank_conflict(const Harness& h, const BlockView& v, const LaneNames& names)
{
    const trace::WarpEvent* conflicted = first_conflicted(v);
    if (!conflicted) return std::nullopt;
    const trace::WarpEvent& e = *conflicted;
    const trace::BankCost c = trace::shared_bank_cost(e.mask, e.offset, e.size, e.kind);
    const trace::Totals t = trace::totals(v.steps);
    std::string hint = pitch_explanation(e, names);
    if (!hint.empty() && !h.catalog_hint().empty()) hint += "; " + std::string(h.catalog_hint());
    return fail(step_of(e) + ": a shared " + kind_name(e.kind) + " by " + std::to_string(std::popcount(e.mask)) +
                    " lanes of warp " + std::to_string(e.warp) + " is " + str(c.ways()) + "-way bank-conflicted (" +
                    std::to_string(c.wavefronts) + " wavefronts, ideal " + std::to_string(c.ideal) +
                    "); block 0 in all: " + std::to_string(t.shared_load.wavefronts + t.shared_store.wavefronts) +
                    " shared wavefronts for an ideal of " + std::to_string(t.shared_load.ideal + t.shared_store.ideal),
                "every shared access at its ideal wavefronts (1-way)", step_of(e) + ", " + h.site(e.site), hint);
}

std::optional<StridedAccess> strided_access(const trace::WarpEvent& e)
{
    if (e.space != trace::Space::Shared || e.size != 4) return std::nullopt;
    std::optional<std::uint64_t> pitch, last;
    for (unsigned lane = 0; lane < trace::kMaxWarpSize; ++lane) {
        if (!(e.mask >> lane & 1u)) continue;
        const std::uint64_t word = e.offset[lane] / 4;
        if (last && (word <= *last || (pitch && word - *last != *pitch))) return std::nullopt;
        if (last) pitch = word - *last;
        last = word;
    }
    if (!pitch) return std::nullopt;
    return StridedAccess{*pitch, std::gcd(*pitch, std::uint64_t(trace::kBanks))};
}

std::string bank_formula(std::uint64_t pitch, const std::string& i, const std::string& w)
{
    const std::string plain = "(" + i + "*" + std::to_string(pitch) + " + " + w + ") mod 32";
    if (pitch < trace::kBanks) return plain;
    const std::uint64_t m = pitch % trace::kBanks;
    std::string reduced = w + " mod 32";
    if (m > 0) reduced = "(" + (m == 1 ? i : std::to_string(m) + i) + " + " + w + ") mod 32";
    return plain + " = " + reduced;
}

std::string pitch_explanation(const trace::WarpEvent& e, const LaneNames& n)
{
    const std::optional<StridedAccess> a = strided_access(e);
    if (!a || a->ways == 1) return {};
    const std::string ways = std::to_string(a->ways);
    const std::string shared = a->ways == trace::kBanks
                                   ? "all " + ways + " " + n.lane + "s share one bank"
                                   : n.lane + "s " + n.index + " and " + n.index + " + " +
                                         std::to_string(trace::kBanks / a->ways) + " share a bank";
    return "the lanes of this " + std::string(kind_name(e.kind)) + " are " + std::to_string(a->pitch) + " words apart" +
           (n.pitch_is.empty() ? "" : " (" + n.pitch_is + ")") + ": " + n.lane + " " + n.index + "'s word is in bank " +
           bank_formula(a->pitch, n.index, n.word) + ", so " + shared + ": " + ways + " " + n.lane + "s a bank, " +
           ways + "-way";
}

namespace {

// The block's lanes at one access of a step (a line's loads of one array, say): each warp's lanes
// there, added up. An access that fewer threads than a warp make in the whole block cannot fill a
// warp however they are picked (warp 0 reading the 8 warps' partial results): no divergence to avoid.
unsigned lanes_at_access(const BlockView& v, const trace::WarpEvent& at)
{
    std::map<std::uint32_t, trace::LaneMask> by_warp;
    for (const trace::WarpEvent& e : v.block.events)
        if (e.step == at.step && e.site == at.site && e.kind == at.kind && e.space == at.space && e.array == at.array)
            by_warp[e.warp] |= e.mask;
    unsigned lanes = 0;
    for (const auto& [warp, mask] : by_warp) lanes += static_cast<unsigned>(std::popcount(mask));
    return lanes;
}

}  // namespace

Finding first_partial_warp(const Harness& h, const BlockView& v)
{
    for (const trace::StepMetrics& m : v.steps) {
        if (m.active_threads < graded_warp_width() || m.partial_warps == 0) continue;
        const auto partial = std::find_if(v.block.events.begin(), v.block.events.end(), [&](const trace::WarpEvent& e) {
            return e.step == m.step && trace::partially_active(e) && lanes_at_access(v, e) >= graded_warp_width();
        });
        if (partial == v.block.events.end()) continue;
        return fail("step " + std::to_string(m.step) + ": " + std::to_string(m.active_threads) + " threads active in " +
                        std::to_string(m.active_warps) + " warps, " + std::to_string(m.partial_warps) +
                        " of them partially active",
                    "no partially-active warp at an access that " + std::to_string(graded_warp_width()) +
                        " or more threads of the block make",
                    "step " + std::to_string(m.step) + ", " + h.site(partial->site));
    }
    return std::nullopt;
}

Finding first_uncoalesced(const Harness& h, const BlockView& v, trace::Kind kind)
{
    for (const trace::WarpEvent& e : v.block.events) {
        if (e.space != trace::Space::Global || e.kind != kind) continue;
        const trace::SectorCost c = trace::global_sector_cost(e.mask, e.offset, e.size);
        if (c.sectors <= c.ideal) continue;
        return fail(step_of(e) + ": a global " + kind_name(kind) + " by " + std::to_string(std::popcount(e.mask)) +
                        " lanes of warp " + std::to_string(e.warp) + " touches " + std::to_string(c.sectors) +
                        " sectors per request; its bytes fit in " + std::to_string(c.ideal),
                    "every global " + std::string(kind_name(kind)) + " at the ideal sectors per request (" +
                        std::to_string(c.ideal) + " here)",
                    step_of(e) + ", " + h.site(e.site));
    }
    return std::nullopt;
}

// -------------------------------------------------------------- shapes --

bool is_shared_write(const trace::WarpEvent& e)
{
    return e.space == trace::Space::Shared && trace::writes_memory(e.kind);
}

bool is_shared_access(const trace::WarpEvent& e) { return e.space == trace::Space::Shared && is_memory(e.kind); }

bool is_global_load(const trace::WarpEvent& e)
{
    return e.space == trace::Space::Global && e.kind == trace::Kind::Load;
}

namespace {

std::vector<unsigned> per_thread_weighted(const BlockView& v, const std::function<bool(const trace::WarpEvent&)>& which,
                                          bool bytes)
{
    std::vector<unsigned> count(v.block.threads, 0);
    for (const trace::WarpEvent& e : v.block.events) {
        if (!which(e)) continue;
        trace::for_each_lane(e.mask, [&](unsigned lane) {
            const std::size_t t = trace::thread_of(v.block, e, lane);
            if (t < count.size()) count[t] += bytes ? e.size : 1;
        });
    }
    return count;
}

}  // namespace

std::vector<unsigned> per_thread(const BlockView& v, const std::function<bool(const trace::WarpEvent&)>& which)
{
    return per_thread_weighted(v, which, false);
}

std::vector<unsigned> per_thread_bytes(const BlockView& v, const std::function<bool(const trace::WarpEvent&)>& which)
{
    return per_thread_weighted(v, which, true);
}

std::size_t distinct_words(const BlockView& v, const std::function<bool(const trace::WarpEvent&)>& which)
{
    std::set<std::pair<unsigned, std::uint64_t>> words;
    for (const trace::WarpEvent& e : v.block.events) {
        if (!which(e)) continue;
        trace::for_each_lane(e.mask, [&](unsigned lane) { words.insert({e.array, e.offset[lane]}); });
    }
    return words.size();
}

std::size_t distinct_bytes(const BlockView& v, const std::function<bool(const trace::WarpEvent&)>& which)
{
    std::set<std::pair<unsigned, std::uint64_t>> bytes;
    for (const trace::WarpEvent& e : v.block.events) {
        if (!which(e)) continue;
        trace::for_each_lane(e.mask, [&](unsigned lane) {
            for (unsigned k = 0; k < e.size; ++k) bytes.insert({e.array, e.offset[lane] + k});
        });
    }
    return bytes.size();
}

namespace {

std::string join(const std::vector<unsigned>& xs)
{
    std::string s;
    for (unsigned x : xs) s += (s.empty() ? "" : ", ") + std::to_string(x);
    return s.empty() ? "none" : s;
}

unsigned log2_of(unsigned x)
{
    unsigned l = 0;
    while ((1u << (l + 1)) <= x) ++l;
    return l;
}

// The threads that wrote shared memory in one barrier interval that had a
// writer; whether all were in warp 0.
struct WriterLevel {
    unsigned writers = 0;
    bool warp0_only = false;
    std::uint32_t epoch = 0;
};

std::vector<WriterLevel> writer_levels(const BlockView& v)
{
    std::map<std::uint32_t, std::set<unsigned>> by_epoch;
    for (const trace::WarpEvent& e : v.block.events) {
        if (!is_shared_write(e)) continue;
        trace::for_each_lane(e.mask, [&](unsigned lane) { by_epoch[e.key.epoch].insert(trace::thread_of(v.block, e, lane)); });
    }
    std::vector<WriterLevel> levels;
    for (const auto& [epoch, threads] : by_epoch)
        levels.push_back({static_cast<unsigned>(threads.size()), *threads.rbegin() < v.block.warp_size, epoch});
    return levels;
}

// Warp-collective rounds, per barrier interval: the most any one warp made
// there. A shuffle halves a warp's partial values once; a vote or redux over
// k lanes (__reduce_max_sync) folds them all at once, log2(k) rounds.
std::map<std::uint32_t, unsigned> collective_rounds(const BlockView& v, bool warp0_only)
{
    std::map<std::pair<std::uint32_t, unsigned>, unsigned> by_warp;
    for (const trace::WarpEvent& e : v.block.events) {
        if (warp0_only && e.warp != 0) continue;
        if (e.kind == trace::Kind::Shuffle) by_warp[{e.key.epoch, e.warp}] += 1;
        if (e.kind == trace::Kind::Vote) by_warp[{e.key.epoch, e.warp}] += log2_of(unsigned(std::popcount(e.mask)));
    }
    std::map<std::uint32_t, unsigned> rounds;
    for (const auto& [key, n] : by_warp) rounds[key.first] = std::max(rounds[key.first], n);
    return rounds;
}

// The rounds made in the barrier intervals after `after` up to `upto`, inclusive.
unsigned rounds_in(const std::map<std::uint32_t, unsigned>& rounds, std::int64_t after, std::int64_t upto)
{
    unsigned n = 0;
    for (const auto& [epoch, r] : rounds) n += epoch > after && epoch <= upto ? r : 0;
    return n;
}

std::string writers_text(const std::vector<WriterLevel>& levels, bool stops_early)
{
    std::vector<unsigned> writers;
    for (const WriterLevel& l : levels) writers.push_back(l.writers);
    return "threads writing shared memory in each barrier interval of block 0: " + join(writers) +
           (stops_early ? ", then none" : "");
}

constexpr const char* kTreeHint =
    "a tree, not a loop: in each round thread tid < s folds sdata[tid + s] into sdata[tid] and s halves (or a warp "
    "halves its values with one shuffle); one thread looping over the block, or atomics into one word, does the "
    "block's work one element at a time";

}  // namespace

Finding reduction_shape(const BlockView& v, unsigned block)
{
    const std::vector<WriterLevel> levels = writer_levels(v);
    const auto rounds = collective_rounds(v, false);
    const std::string where = "block 0 (n = 4096, block " + std::to_string(block) + ")";
    const std::string rule = "a tree: the block's " + std::to_string(block) +
                             " elements stored in shared memory (or first folded, up to 4 a thread: a vector load, "
                             "or by warp shuffles), then halving every round, in shared memory (a barrier interval a "
                             "round) or in a warp (a shuffle a round), down to 1: " +
                             std::to_string(log2_of(block)) + " rounds in all";
    const bool stops_early = !levels.empty() && levels.back().writers > 1;
    const Verdict not_a_tree = fail(writers_text(levels, stops_early), rule, where, kTreeHint);
    if (levels.empty()) return not_a_tree;
    // The load: each writer folded 1, 2 or 4 elements, or a warp's shuffles folded more.
    const WriterLevel& load = levels.front();
    const unsigned before = rounds_in(rounds, -1, load.epoch);
    const unsigned covered = load.writers << before;
    if (covered != block && covered * 2 != block && covered * 4 != block) return not_a_tree;
    // Each later level halves the one before (a shared round), or shrinks by the warp rounds between them.
    for (std::size_t k = 1; k < levels.size(); ++k) {
        const WriterLevel &prev = levels[k - 1], &next = levels[k];
        const unsigned r = rounds_in(rounds, prev.epoch, next.epoch);
        const bool halves = next.writers * 2 == prev.writers || (r > 0 && (next.writers << r) == prev.writers);
        if (!halves) return not_a_tree;
    }
    // The last level may be a warp stage in shared memory: warp 0 alone, from 64 values (reduction v5),
    // halving on down to 1 in that interval, so that thread 0 writes once a round, log2(writers) times
    // at least (the last fold may stay in a register). A level of warp 0 written once, then read by one
    // thread's loop, is not one.
    const WriterLevel& last = levels.back();
    unsigned thread0_writes = 0;
    for (const trace::WarpEvent& e : v.block.events)
        if (e.key.epoch == last.epoch && is_shared_write(e) && e.warp == 0 && (e.mask & 1)) ++thread0_writes;
    const bool shared_tail = levels.size() > 1 && last.warp0_only && levels[levels.size() - 2].writers <= 64 &&
                             thread0_writes >= log2_of(last.writers);
    if (last.writers > 1 && !shared_tail) {
        // Warp 0 finishes the last `writers` values, in their interval or after: a lane may fold two as it
        // reads them, then a shuffle a round.
        const unsigned tail = rounds_in(collective_rounds(v, true), std::int64_t{last.epoch} - 1, UINT32_MAX);
        if (last.writers > 64 || (2u << tail) < last.writers)
            return fail(writers_text(levels, stops_early) + (tail ? ", and " + std::to_string(tail) + " warp rounds in warp 0"
                                                           : ""),
                        rule, where,
                        "the tree stops at " + std::to_string(last.writers) +
                            " values: finish it in shared memory (s = " + std::to_string(last.writers / 2) +
                            ", ..., 1), or, from 64 or fewer, in warp 0 with a shuffle a round");
    }
    const std::vector<unsigned> touches = per_thread(v, is_shared_access);
    const auto most = std::max_element(touches.begin(), touches.end());
    const unsigned limit = 4 * log2_of(block) + 4;
    if (most != touches.end() && *most > limit) {
        return fail("thread " + std::to_string(most - touches.begin()) + " of block 0 made " + std::to_string(*most) +
                        " shared-memory accesses",
                    "at most 4 a tree level, 4 log2(BLOCK) + 4 = " + std::to_string(limit) + " at BLOCK " +
                        std::to_string(block),
                    where,
                    "each thread folds one pair per step; a thread that reads many elements of the block is doing "
                    "the others' work one by one");
    }
    return std::nullopt;
}

// ---------------------------------------------------------------- text --

std::string str(double v)
{
    char buf[64];
    auto [end, ec] = std::to_chars(buf, buf + sizeof buf, v);
    return ec == std::errc() ? std::string(buf, end) : std::to_string(v);
}

std::string range_text(unsigned lo, unsigned hi)
{
    return lo == hi ? std::to_string(lo) : std::to_string(lo) + " to " + std::to_string(hi);
}

// ---------------------------------------------------------------- main --

namespace {

// Runs `write` on the result file; the child's exit code.
int with_result_file(const std::string& result_path, const std::function<void(std::FILE*)>& write)
{
    std::FILE* out = std::fopen(result_path.c_str(), "w");
    if (!out) {
        std::fprintf(stderr, "cannot write %s\n", result_path.c_str());
        return 2;
    }
    write(out);
    std::fclose(out);
    return 0;
}

}  // namespace

int run_checks(std::string_view exercise_id, const std::string& ptx_file, const std::string& kernel_file,
               std::uint64_t seed, unsigned warp_width, const std::string& result_path)
{
    warp_width_of_checks = warp_width;
    const ExerciseSpec* spec = find_exercise(exercise_id);
    const ExerciseChecks checks = checks_of(exercise_id);
    if (!spec || !checks) {
        std::fprintf(stderr, "no exercise %s\n", std::string(exercise_id).c_str());
        return 2;
    }
    wrong_cases_deadline = std::chrono::steady_clock::now() + std::chrono::seconds(spec->time_limit_s) / 2;
    if (!spec->program.empty()) return with_result_file(result_path, [&](std::FILE* out) {
        Harness h(*spec, ptx_file, kernel_file, seed, out);
        checks(h);
    });
    std::string text;
    if (!ptx::tools::read_file(ptx_file, text)) {
        std::fprintf(stderr, "cannot read the PTX file %s\n", ptx_file.c_str());
        return 2;
    }
    std::optional<ptx::Module> module;
    try {
        module.emplace(ptx::Module::parse(text, kernel_file));
        std::string source;
        ptx::tools::read_file(kernel_file, source);
        ptx::name_parameters(*module, source);  // faults say the student's names
    } catch (const std::exception& e) {
        std::fprintf(stderr, "the PTX of your kernel could not be read: %s\n", e.what());
        return 4;
    }
    return with_result_file(result_path, [&](std::FILE* out) {
        Harness h(*spec, *module, kernel_file, seed, out);
        checks(h);
    });
}

}  // namespace wl::grade
