// The fast engine: a kernel compiled to host code for the blocks nobody
// watches (LaunchOptions::engine). The kernel's decoded instructions become
// C++ that runs a group of a warp pass as run_group does (interp_warp_pass.cpp):
// the register forms of ops.def as loops over the group's lanes, a run of them
// with no guard and no way in from elsewhere as one loop (a lane's registers
// stay in the host's registers between them), the branches with their budget,
// bar.sync; every other instruction goes back to the interpreter through
// CompiledGroup::step, which runs it for the executing lanes as run_group would
// (accesses with all their checks, collectives, the general path), so the
// rules and the faults are the interpreter's own. The host C++ compiler the
// build used compiles it (none in the browser: the interpreter runs), with the
// interpreter's headers, so that ops.def's statements and values.h's helpers
// are the same code; the shared object is cached by a hash of the source and
// the compiler's command, and kept while the headers it read hash the same.
#include <dlfcn.h>
#include <unistd.h>

#include <atomic>
#include <cstdio>
#include <filesystem>
#include <map>
#include <mutex>
#include <optional>
#include <sstream>

#include "../emu/bit_count.h"
#include "interp.h"
#include "warplab/ptx/tools.h"

namespace wl::ptx::detail {

namespace {

namespace fs = std::filesystem;

// What the compiled code does with each hot form (Fast's values index it).
enum class FormKind : std::uint8_t { None, Register, Param, Access, Control };
struct Form {
    const char* label;
    FormKind kind;
};
constexpr Form kForms[] = {
    {"", FormKind::None},
#define PTX_FAST_REGISTER(label, Enum, Op, types, statement) {#label, FormKind::Register},
#define PTX_FAST_PARAM(label, Enum, bytes, statement) {#label, FormKind::Param},
#define PTX_FAST_ACCESS(label, Enum, Op, Space, lanes, statement) {#label, FormKind::Access},
#define PTX_FAST_CONTROL(label, Enum, Op) {#label, FormKind::Control},
#include "ops.def"
};
const Form& form(const Instr& in) { return kForms[static_cast<unsigned>(in.fast)]; }

// A register or parameter form with no guard: it may share a loop over the lanes with its neighbours.
bool fusable(const Instr& in)
{
    const FormKind k = form(in).kind;
    return (k == FormKind::Register || k == FormKind::Param) && in.pred == kNoReg;
}

// What every compiled kernel starts with: each register and parameter form of
// ops.def as a function of its operand slots (template arguments, so that the
// host compiler sees constants), over one lane's slots `r` and parameters.
constexpr const char* kPrelude = R"(#include <algorithm>
#include <bit>
#include <cstring>
#include "../emu/bit_count.h"
#include "compiled_group.h"
#include "values.h"
using namespace wl::ptx::detail;
using wl::emu::detail::bit_count;
namespace form {
struct In { Cmp cmp; struct { std::int64_t imm; } o[4]; };
#define WL_D (r[D])
#define WL_A (r[A])
#define WL_B (r[B])
#define WL_C (r[C])
#define WL_FORM(label, statement)                                                                          \
    template <std::uint32_t D, std::uint32_t A, std::uint32_t B, std::uint32_t C, Cmp K, std::int64_t I>  \
    [[gnu::always_inline]] inline void label(std::uint64_t* r, unsigned char* param)                       \
    {                                                                                                      \
        const In instr{K, {{0}, {I}, {0}, {0}}};                                                           \
        const In* in = &instr;                                                                             \
        const struct { unsigned char* param; } fr{param};                                                  \
        statement;                                                                                         \
    }
#define PTX_FAST_REGISTER(label, Enum, Op, types, statement) WL_FORM(label, statement)
#define PTX_FAST_PARAM(label, Enum, bytes, statement) WL_FORM(label, statement)
#include "ops.def"
}  // namespace form
// The lanes of `mask`, each with its slots `r` and parameters `p`.
#define WL_LANES(mask, ...)                                \
    for (std::uint64_t m = (mask); m; m &= m - 1) {        \
        std::uint64_t* r = L[std::countr_zero(m)].r;       \
        unsigned char* p = L[std::countr_zero(m)].param;   \
        __VA_ARGS__                                        \
    }
// A run of `count` unguarded forms for every live lane. A group whose lanes
// are the pass's first ones (a converged warp's) walks them in order,
// without finding each lane in the mask.
#define WL_LIVE(count, ...)                                                        \
    *g.lane_instructions += (count) * bit_count(live);                             \
    if ((live & (live + 1)) == 0) {                                                \
        for (const PassLane *l = L, *e = L + std::bit_width(live); l != e; ++l) {  \
            std::uint64_t* r = l->r;                                               \
            unsigned char* p = l->param;                                           \
            __VA_ARGS__                                                            \
        }                                                                          \
    } else                                                                         \
        WL_LANES(live, __VA_ARGS__)
// The lanes of `live` whose predicate slot `Pred` is set (clear where `Negated`).
template <std::uint32_t Pred, bool Negated>
[[gnu::always_inline]] inline std::uint64_t guarded(const PassLane* L, std::uint64_t live)
{
    std::uint64_t exec = 0;
    if ((live & (live + 1)) == 0) {  // the pass's first lanes: each one's bit shifted in, the last lane's first
        for (const PassLane* l = L + std::bit_width(live); l != L;) {
            --l;
            exec = exec << 1 | ((l->r[Pred] & 1) ^ Negated);
        }
        return exec;
    }
    for (std::uint64_t m = live; m; m &= m - 1)
        if ((L[std::countr_zero(m)].r[Pred] & 1) != Negated) exec |= std::uint64_t{1} << std::countr_zero(m);
    return exec;
}
)";

// One instruction of a register or parameter form, as a call of its prelude function for the lane at `r`.
std::string form_call(const Instr& in)
{
    // Only the parameter forms read an immediate (their offset). A register form's may be
    // an address lowering left there (a __device__ variable's, another in each process),
    // which in the source would change the cache's key at every run.
    const std::int64_t imm = form(in).kind == FormKind::Param ? in.o[1].imm : 0;
    std::ostringstream s;
    s << "form::" << form(in).label << '<' << in.o[0].reg << "u, " << in.o[1].reg << "u, " << in.o[2].reg << "u, "
      << in.o[3].reg << "u, Cmp(" << static_cast<unsigned>(in.cmp) << "), std::int64_t("
      << static_cast<std::uint64_t>(imm) << "ULL)>(r, p);";
    return s.str();
}

// Kernels longer than this (matmul's pipelined and stream-K tiles, 8,000 to 17,000
// instructions) are left to the interpreter: the host compiler takes longer over
// them than the interpreter over a 1024^3 product (matmul v9: 15 s at -O1, 7 s
// at -O0, whose calls of values.h's helpers then made each launch 5 times the
// interpreter's), and their time goes to accesses the compiled code hands back anyway.
constexpr std::size_t kCompiledInstructions = 5000;

// Can the fast engine run this kernel? Kernels that call device functions run on fibers, lane by lane.
[[maybe_unused]] bool compilable(const Module::Impl& m, const Function& k)
{
    if (!k.entry || k.declared_only || k.code.size() > kCompiledInstructions) return false;
    for (const Instr& in : k.code)
        if (in.op == Op::Call && (in.o[1].kind != OpKind::Func || !m.functions[in.o[1].reg].declared_only)) return false;
    return true;
}

// The C++ of a kernel: one function, wl_group_<id>, that runs a group from its pc (see compiled_group.h).
std::string kernel_source(const Function& k, std::size_t id)
{
    const std::vector<Instr>& code = k.code;
    const std::size_t n = code.size();
    // Where control may come in from elsewhere: the start, branch targets, and
    // after every instruction that is not fusable (a wait, a step, a guard).
    std::vector<bool> entry(n + 1, false);
    entry[0] = true;
    for (std::size_t i = 0; i < n; ++i) {
        if (!fusable(code[i])) entry[i + 1] = true;
        for (const Operand& o : code[i].o)
            if (o.kind == OpKind::Label && o.reg <= n) entry[o.reg] = true;
    }
    std::ostringstream s;
    s << "extern \"C\" bool wl_group_" << id << "(CompiledGroup& g)\n{\n"
      << "    const PassLane* const L = g.pass;\n"
      << "    std::uint64_t live = g.lanes, exec = 0;\n    std::size_t pc = g.pc;\n"
      << "dispatch:\n    switch (pc) {\n";
    for (std::size_t i = 0; i < n; ++i)
        if (entry[i]) s << "    case " << i << ": goto i" << i << ";\n";
    s << "    default: g.pc = pc; g.lanes = live; return true;\n    }\n";
    for (std::size_t i = 0; i < n;) {
        const Instr& in = code[i];
        s << "i" << i << ":  // PTX line " << in.ptx_line << "\n";
        if (fusable(in)) {  // a run of them, one loop over the lanes
            std::size_t end = i + 1;
            while (end < n && fusable(code[end]) && !entry[end]) ++end;
            s << "    WL_LIVE(" << (end - i) << "u,\n";
            for (std::size_t j = i; j < end; ++j) s << "        " << form_call(code[j]) << "\n";
            s << "    )\n";
            i = end;
            continue;
        }
        std::string next = "i";  // the label after it
        next += std::to_string(i + 1);
        if (in.pred == kNoReg) {
            s << "    exec = live;\n";
        } else {
            s << "    exec = guarded<" << in.pred << "u, " << ((in.flags & kNegPred) != 0 ? "true" : "false") << ">(L, live);\n"
              << "    if (!exec) goto " << next << ";\n";
        }
        const std::string count = "    *g.lane_instructions += bit_count(exec);\n";
        switch (form(in).kind) {
        case FormKind::Register:
        case FormKind::Param:  // guarded
            s << count << "    WL_LANES(exec, " << form_call(in) << ")\n    goto " << next << ";\n";
            break;
        case FormKind::Control:
            if (in.fast == Fast::Bra) {
                const std::size_t to = in.o[0].reg;
                s << count;
                if (to < i + 1)  // a loop: the group's budget, once for all its lanes
                    s << "    *g.budget_used += " << (i + 1 - to) << "u;\n"
                      << "    if (*g.budget_used > g.max_instructions) g.budget_spent(g.host, " << i << "u, exec);\n";
                s << "    if (exec == live) goto i" << to << ";\n"
                  << "    g.diverge(g.host, " << to << "u, exec);\n    live &= ~exec;\n    goto " << next << ";\n";
                break;
            }
            if (in.fast == Fast::BarSync) {
                s << count << "    g.arrive(g.host, " << i << "u, exec);\n    live &= ~exec;\n"
                  << "    if (!live) return false;\n    goto " << next << ";\n";
                break;
            }
            if (in.fast == Fast::Nop) {
                s << count << "    goto " << next << ";\n";
                break;
            }
            [[fallthrough]];
        default:  // the interpreter's
            s << "    pc = g.step(g.host, " << i << "u, exec, &live);\n    if (!live) return false;\n"
              << "    if (pc == " << i + 1 << "u) goto " << next << ";\n    goto dispatch;\n";
            break;
        }
        ++i;
    }
    s << "i" << n << ":\n    pc = " << n << ";\n    goto dispatch;\n}\n";
    return s.str();
}

#if defined(WARPLAB_HOST_CXX) && defined(WARPLAB_SOURCE_DIR)

// The host compiler's command for a kernel, less its input and output.
std::vector<std::string> compile_flags()
{
    const std::string src = WARPLAB_SOURCE_DIR;
    // -ffp-contract=off: no product and sum fused that the interpreter rounds apart. -O1: a
    // kernel of thousands of instructions compiles in seconds; with values.h's small helpers
    // (fused, f32_result, compare_floats) inlined, which -O1 alone leaves as calls.
    return {WARPLAB_HOST_CXX, "-std=c++20", "-O1", "-finline-small-functions", "-fPIC", "-shared", "-ffp-contract=off", "-w",
            "-I" + src + "/core/src/ptx", "-I" + src + "/core/include"};
}

// The compiler run with `argv` on `source`, written as `name` in a work folder,
// its output renamed to `out` once made. Returns the files it read besides its
// input and the depfile's target, "path hash" a line (precompiled headers left
// out: their own listing stands for them); nullopt where it failed.
std::optional<std::string> run_compiler(std::vector<std::string> argv, const std::string& name, const std::string& source,
                                        const fs::path& out)
{
    std::error_code ec;
    const fs::path work = out.parent_path() / ("work-" + std::to_string(getpid()) + "-" + out.filename().string());
    fs::create_directories(work, ec);
    if (ec) return std::nullopt;
    const std::string input = (work / name).string(), made = (work / "out").string(), dep = (work / "out.d").string();
    tools::write_file_atomically(input, source);
    argv.insert(argv.end(), {"-MD", "-MF", dep, input, "-o", made});
    const int rc = tools::run(argv, (work / "stdout").string(), (work / "stderr").string());
    std::string depfile, listing;
    tools::read_file(dep, depfile);
    for (const std::string& f : tools::parse_depfile(depfile))
        if (f != input && !f.ends_with(".gch") && !f.ends_with(":")) listing += f + ' ' + tools::hash_of_file(f) + '\n';
    if (rc == 0) fs::rename(made, out, ec);
    fs::remove_all(work, ec);
    if (rc != 0 || ec) return std::nullopt;
    return listing;
}

// The prelude as GCC's precompiled header for `flags`, in `dir` beside its
// text: a kernel then compiles without reading the interpreter's headers
// again (0.6 s of each compile). Made once, kept while the headers it read
// hash the same (`listing`: them). Returns its name; empty where there is none
// (another compiler, or it failed), and the kernel carries the prelude itself.
std::string precompiled_prelude(const std::vector<std::string>& flags, const fs::path& dir, std::string& listing)
{
#if defined(__GNUC__) && !defined(__clang__)
    // By flags and folder (the cache's may change within a process): name, listing.
    static std::map<std::pair<std::vector<std::string>, fs::path>, std::pair<std::string, std::string>> made;
    if (const auto at = made.find({flags, dir}); at != made.end()) {
        listing = at->second.second;
        return at->second.first;
    }
    std::string key_text = kPrelude;
    for (const std::string& f : flags) key_text += '\0' + f;
    const std::string name = "prelude-" + tools::hex(tools::fnv1a64(key_text)) + ".h";
    const fs::path gch = dir / (name + ".gch"), deps = dir / (name + ".deps");
    if (!(fs::exists(gch) && tools::read_file(deps, listing) && tools::dependencies_unchanged(listing))) {
        std::vector<std::string> argv;
        for (const std::string& f : flags)
            if (f != "-shared") argv.push_back(f);
        argv.insert(argv.end(), {"-x", "c++-header"});
        tools::write_file_atomically(dir / name, kPrelude);
        const std::optional<std::string> read = run_compiler(argv, name, kPrelude, gch);
        listing = read.value_or("");
        if (read) tools::write_file_atomically(deps, listing);
    }
    const std::string got = listing.empty() ? "" : name;
    made.emplace(std::pair{flags, dir}, std::pair{got, listing});
    return got;
#else
    (void)flags, (void)dir, (void)listing;
    return "";
#endif
}

// The shared object of a kernel's `code` (its function, kernel_source), from
// the cache or compiled; empty when it cannot be made.
std::string shared_object(const std::string& code)
{
    std::vector<std::string> flags = compile_flags();
    const fs::path dir = tools::cache_dir(CompileOptions{}) / "fast";
    std::error_code ec;
    fs::create_directories(dir, ec);
    std::string prelude_listing;
    const std::string prelude = precompiled_prelude(flags, dir, prelude_listing);
    const std::string source = prelude.empty() ? kPrelude + code : "#include \"" + prelude + "\"\n" + code;
    std::string key_text = source + '\0' + prelude_listing;
    for (const std::string& f : flags) key_text += '\0' + f;
    const std::string key = tools::hex(tools::fnv1a64(key_text));
    const fs::path so = dir / (key + ".so"), deps_path = dir / (key + ".deps");
    std::string deps;
    if (fs::exists(so) && tools::read_file(deps_path, deps) && tools::dependencies_unchanged(deps)) return so.string();
    if (!prelude.empty()) flags.push_back("-I" + dir.string());
    const std::optional<std::string> listing = run_compiler(flags, "kernel.cpp", source, so);
    if (!listing) return "";
    tools::write_file_atomically(deps_path, *listing);  // last: an entry counts once its listing is there
    return so.string();
}

// The kernel (function `id` of m) from its shared object; null where it cannot be made or loaded.
CompiledKernel load(const Module::Impl& m, std::size_t id)
{
    const std::string so = shared_object(kernel_source(m.functions[id], id));
    void* handle = so.empty() ? nullptr : dlopen(so.c_str(), RTLD_NOW | RTLD_LOCAL);  // kept until the process ends
    void* symbol = handle ? dlsym(handle, ("wl_group_" + std::to_string(id)).c_str()) : nullptr;
    if (!symbol)
        std::fprintf(stderr, "warplab: the fast engine could not compile kernel %s; the interpreter runs it\n",
                     m.functions[id].name.c_str());
    return reinterpret_cast<CompiledKernel>(symbol);
}

#endif

// The fast engine's calls back into the interpreter, for one group.
struct GroupHost {
    Interpreter* it;
    const Launch* L;
    PassLane* lanes;
    LaneGroup* work;
    unsigned* groups;
    Frame fr;
};

std::size_t host_step(void* h, std::size_t at, std::uint64_t exec, std::uint64_t* live)
{
    auto& c = *static_cast<GroupHost*>(h);
    return c.it->step_lanes(c.lanes, c.L->kernel->code[at], at + 1, exec, *live, c.fr, c.work, *c.groups);
}

void host_diverge(void* h, std::size_t target, std::uint64_t lanes)
{
    auto& c = *static_cast<GroupHost*>(h);
    c.work[(*c.groups)++] = LaneGroup{target, lanes};
}

void host_arrive(void* h, std::size_t at, std::uint64_t exec)
{
    auto& c = *static_cast<GroupHost*>(h);
    c.it->arrive_lanes(c.lanes, exec, c.L->kernel->code[at], at + 1);
}

void host_budget_spent(void* h, std::size_t at, std::uint64_t exec)
{
    auto& c = *static_cast<GroupHost*>(h);
    c.it->enter(c.lanes[std::countr_zero(exec)], c.fr);
    c.it->budget_spent(c.L->kernel->code[at]);
}

}  // namespace

std::atomic<std::uint64_t> compiled_launch_count{0};
std::atomic<std::uint64_t> declined_launch_count{0};

CompiledKernel compiled_kernel(const Module::Impl& m, const Function& k)
{
#if defined(WARPLAB_HOST_CXX) && defined(WARPLAB_SOURCE_DIR)
    static std::mutex mutex;
    struct Loaded {
        CompiledKernel kernel;
        bool declined;  // left to the interpreter by compilable's rule
    };
    static std::map<std::pair<std::uint64_t, std::size_t>, Loaded> loaded;  // by module text's hash and kernel
    const auto id = static_cast<std::size_t>(&k - m.functions.data());
    const std::pair key{tools::fnv1a64(m.text), id};
    std::lock_guard lock(mutex);
    auto at = loaded.find(key);
    if (at == loaded.end()) {
        const bool declined = !compilable(m, k);
        at = loaded.emplace(key, Loaded{declined ? nullptr : load(m, id), declined}).first;
    }
    if (at->second.kernel) compiled_launch_count.fetch_add(1, std::memory_order_relaxed);
    if (at->second.declined) declined_launch_count.fetch_add(1, std::memory_order_relaxed);
    return at->second.kernel;
#else
    (void)m, (void)k;
    return nullptr;
#endif
}

bool compiled_engine_available()
{
#if defined(WARPLAB_HOST_CXX) && defined(WARPLAB_SOURCE_DIR)
    return access(WARPLAB_HOST_CXX, X_OK) == 0 && fs::exists(fs::path(WARPLAB_SOURCE_DIR) / "core/src/ptx/values.h");
#else
    return false;
#endif
}

// An instruction the compiled code hands back, for the group's lanes `exec`,
// as run_group runs it (pc: the instruction after it). Returns where the group goes on.
std::size_t Interpreter::step_lanes(PassLane* lanes, const Instr& instr, std::size_t pc, LaneMask exec, LaneMask& live,
                                    Frame& fr, LaneGroup* work, unsigned& groups)
{
    const Instr* in = &instr;
    std::uint64_t* r = nullptr;
    switch (in->fast) {
#define PTX_FAST_ACCESS(label, Enum, Op, Space, lanes_, statement) \
    case Fast::Enum:                                               \
        emu::detail::tls_lane_instructions += emu::detail::bit_count(exec); \
        if (access_lanes(lanes, exec, *in, fr)) return pc;         \
        for (LaneMask m = exec; m; m &= m - 1) {                   \
            enter(lanes[std::countr_zero(m)], fr);                 \
            r = lanes[std::countr_zero(m)].r;                      \
            statement;                                             \
        }                                                          \
        return pc;
#include "ops.def"
    default: break;
    }
    if (in->op == Op::Atom || in->op == Op::Red || in->op == Op::Call) {  // orders_lanes: lane by lane from here
        run_lanes_apart(lanes, live, pc - 1);
        live = 0;
        return pc;
    }
    emu::detail::tls_lane_instructions += emu::detail::bit_count(exec);
    if (in->op == Op::BarWarp && syncwarp_together(lanes, exec, *in, pc, fr)) {
        live &= ~exec;
        return pc;
    }
    return general_lanes(lanes, *in, pc, exec, live, fr, work, groups);
}

void Interpreter::run_compiled(const Launch& L, PassLane* lanes, LaneGroup g, LaneGroup* work, unsigned& groups)
{
    GroupHost host{this, &L, lanes, work, &groups, Frame{L.kernel, nullptr, nullptr, 0}};
    CompiledGroup c{lanes,
                    g.lanes,
                    g.pc,
                    &emu::detail::tls_lane_instructions,
                    &warp_budget(L, lanes[0].flat),
                    L.max_instructions,
                    &host,
                    host_step,
                    host_diverge,
                    host_arrive,
                    host_budget_spent};
    if (L.compiled(c)) run_group(L, lanes, LaneGroup{c.pc, c.lanes}, work, groups);
}

}  // namespace wl::ptx::detail

namespace wl::ptx {
std::uint64_t compiled_launches() { return detail::compiled_launch_count.load(std::memory_order_relaxed); }
std::uint64_t declined_launches() { return detail::declined_launch_count.load(std::memory_order_relaxed); }

emu::Engine engine_for(emu::Engine requested)
{
    return requested == emu::Engine::Fast && detail::compiled_engine_available() ? emu::Engine::Fast : emu::Engine::Interpret;
}
}  // namespace wl::ptx
