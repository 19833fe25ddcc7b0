// Decoding an opcode once, when the module is loaded: its operation (from the
// names in ops.def), types, state space, comparison, rounding, sub-operation
// and qualifier bits, so that the interpreter reads no text while it runs.
#include <algorithm>
#include <unordered_map>

#include "lower.h"

namespace wl::ptx::detail {

namespace {

// testp's class: .finite .infinite .number .notanumber .normal .subnormal.
bool testp_class(std::string_view s, Sub& sub)
{
    static const std::pair<std::string_view, Sub> classes[] = {
        {"finite", Sub::Finite}, {"infinite", Sub::Infinite}, {"number", Sub::Number},
        {"notanumber", Sub::NotANumber}, {"normal", Sub::Normal}, {"subnormal", Sub::Subnormal}};
    for (auto& [n, c] : classes)
        if (s == n) { sub = c; return true; }
    return false;
}

void decode_mbarrier(const std::vector<std::string_view>& q, Instr& in);
void decode_texture(const std::vector<std::string_view>& q, Instr& in);
void decode_bulk_copy(std::string_view opcode, Instr& in);

}  // namespace

void decode_wmma(const std::vector<std::string_view>& q, Instr& in);  // interp_wmma.cpp

void decode_opcode(std::string_view opcode, Instr& in)
{
    std::vector<std::string_view> q;
    for (std::size_t b = 0; b <= opcode.size();) {
        std::size_t e = opcode.find('.', b);
        if (e == std::string_view::npos) e = opcode.size();
        q.push_back(opcode.substr(b, e - b));
        b = e + 1;
    }
    // The operation of each name in ops.def (a name listed twice: its last line), looked up once an instruction.
    static const std::unordered_map<std::string_view, Op> op_of_name = [] {
        static const std::pair<std::string_view, Op> ops[] = {
#define PTX_OP(Enum, name, exec, mix, traced) {name, Op::Enum},
#define PTX_NAME(name, Enum) {name, Op::Enum},
#include "ops.def"
        };
        std::unordered_map<std::string_view, Op> names;
        for (const auto& [n, o] : ops)
            if (!n.empty()) names.insert_or_assign(n, o);
        return names;
    }();
    const auto named = op_of_name.find(q[0]);
    in.op = named == op_of_name.end() ? Op::Unsupported : named->second;
    if (in.op == Op::Unsupported) return;
    if (in.op == Op::WmmaLoad) {  // any wmma form
        decode_wmma(q, in);
        return;
    }
    if (in.op == Op::Mma) {  // the one shape and type the lab's v9 uses
        if (opcode != "mma.sync.aligned.m16n8k8.row.col.f32.tf32.tf32.f32") in.op = Op::Unsupported;
        return;
    }
    if (in.op == Op::Nop) return;  // hints
    if (in.op == Op::Fence) {  // fence.proxy.* orders the async proxy against the generic one: no thread against another
        if (opcode.find(".proxy") != std::string_view::npos) in.op = Op::Nop;
        return;
    }
    if (in.op == Op::Mbarrier) {
        decode_mbarrier(q, in);
        return;
    }
    if (in.op == Op::Tex) {
        decode_texture(q, in);
        return;
    }
    if (in.op == Op::CpAsync && q.size() >= 3 && q[1] == "async" && q[2] == "bulk") {
        decode_bulk_copy(opcode, in);
        return;
    }
    if (in.op == Op::CpAsync && q.size() >= 4 && q[2] == "mbarrier" && q[3] == "arrive") {
        // cp.async.mbarrier.arrive[.noinc].shared{::cta}.b64 [bar]: an arrival once this thread's copies land
        in.op = Op::Mbarrier;
        in.sub = opcode.find(".noinc") != std::string_view::npos ? Sub::MbCpAsyncArriveNoinc : Sub::MbCpAsyncArrive;
        if (opcode.find(".shared") != std::string_view::npos) in.space = Space::Shared;
        if (!opcode.ends_with(".b64")) in.op = Op::Unsupported;
        return;
    }
    if (in.op == Op::CpAsync) {  // a copy lands when its thread waits for its group (or arrives on an mbarrier)
        if (q.size() < 2 || q[1] != "async") in.op = Op::Unsupported;
        else if (q.size() >= 3 && q[2] == "commit_group") in.sub = Sub::AsyncCommit;
        else if (q.size() >= 3 && q[2] == "wait_group") in.sub = Sub::AsyncWait;
        else if (q.size() >= 3 && q[2] == "wait_all") in.sub = Sub::AsyncWaitAll;
        else if (q.size() >= 3 && (q[2] == "ca" || q[2] == "cg") && opcode.find(".shared") != std::string_view::npos &&
                 opcode.find(".global") != std::string_view::npos && opcode.find("bulk") == std::string_view::npos &&
                 opcode.find("mbarrier") == std::string_view::npos) in.space = Space::Shared;
        else in.op = Op::Unsupported;
        return;
    }
    std::vector<Ty> types;
    for (std::size_t k = 1; k < q.size(); ++k) {
        const std::string_view s = q[k];
        if (Ty t = type_of(s); t != Ty::None) { types.push_back(t); continue; }
        static const std::pair<std::string_view, Space> spaces[] = {
            {"global", Space::Global}, {"shared", Space::Shared}, {"local", Space::Local},
            {"param", Space::Param}, {"const", Space::Const}};
        bool matched = false;
        for (auto& [n, sp] : spaces)
            if (s == n) { in.space = sp; matched = true; }
        if (matched) continue;
        static const std::pair<std::string_view, Cmp> cmps[] = {
            {"eq", Cmp::Eq}, {"ne", Cmp::Ne}, {"lt", Cmp::Lt}, {"le", Cmp::Le}, {"gt", Cmp::Gt}, {"ge", Cmp::Ge},
            {"lo", Cmp::Lo}, {"ls", Cmp::Ls}, {"hi", Cmp::Hi}, {"hs", Cmp::Hs}, {"equ", Cmp::Equ},
            {"neu", Cmp::Neu}, {"ltu", Cmp::Ltu}, {"leu", Cmp::Leu}, {"gtu", Cmp::Gtu}, {"geu", Cmp::Geu},
            {"num", Cmp::Num}, {"nan", Cmp::Nan}};
        if (in.op == Op::Setp || in.op == Op::Set || in.op == Op::Slct) {
            for (auto& [n, c] : cmps)
                if (s == n) { in.cmp = c; matched = true; }
            if (matched) continue;
        }
        static const std::pair<std::string_view, Round> rounds[] = {
            {"rn", Round::Rn}, {"rz", Round::Rz}, {"rm", Round::Rm}, {"rp", Round::Rp}, {"rni", Round::Rni},
            {"rzi", Round::Rzi}, {"rmi", Round::Rmi}, {"rpi", Round::Rpi}};
        for (auto& [n, r] : rounds)
            if (s == n) { in.round = r; matched = true; }
        if (matched) continue;
        static const std::pair<std::string_view, Sub> subs[] = {
            {"add", Sub::Add}, {"min", Sub::Min}, {"max", Sub::Max}, {"exch", Sub::Exch}, {"cas", Sub::Cas},
            {"and", Sub::And}, {"or", Sub::Or}, {"xor", Sub::Xor}, {"inc", Sub::Inc}, {"dec", Sub::Dec},
            {"popc", Sub::Popc}, {"all", Sub::All}, {"any", Sub::Any}, {"uni", Sub::Uni},
            {"ballot", Sub::Ballot}, {"up", Sub::Up}, {"down", Sub::Down}, {"bfly", Sub::Bfly}, {"idx", Sub::Idx}};
        if (in.op == Op::Atom || in.op == Op::Red || in.op == Op::Vote || in.op == Op::Shfl ||
            in.op == Op::Redux || in.op == Op::Bar) {
            for (auto& [n, sb] : subs)
                if (s == n) { in.sub = sb; matched = true; }
            if (matched) continue;
        }
        if (in.op == Op::Match && (s == "any" || s == "all")) { in.sub = s == "any" ? Sub::MatchAny : Sub::MatchAll; continue; }
        if (in.op == Op::Testp && testp_class(s, in.sub)) continue;
        if ((in.op == Op::Min || in.op == Op::Max) && (s == "NaN" || s == "relu")) { in.sub = s == "NaN" ? Sub::Nan : Sub::Relu; continue; }
        if (in.op == Op::Vabsdiff4 && s == "add") { in.sub = Sub::Add; continue; }  // the bytes' differences summed into c
        if (s == "lo") continue;
        if (s == "cc" && (in.op == Op::Add || in.op == Op::Sub || in.op == Op::AddC || in.op == Op::SubC ||
                          in.op == Op::Mad || in.op == Op::MadHi || in.op == Op::MadC || in.op == Op::MadCHi)) {
            in.flags |= kCarryOut;
            continue;
        }
        if (s == "hi") {
            if (in.op == Op::Mul) in.op = Op::MulHi;
            else if (in.op == Op::Mad) in.op = Op::MadHi;
            else if (in.op == Op::MadC) in.op = Op::MadCHi;
            else in.flags |= kHi;  // mul24.hi / mad24.hi
            continue;
        }
        if (s == "wide") { in.op = in.op == Op::Mul ? Op::MulWide : Op::MadWide; continue; }
        if (s == "v2") { in.vec = 2; continue; }
        if (s == "v4") { in.vec = 4; continue; }
        if (s == "v8") { in.vec = 8; continue; }
        if (s == "ftz") { in.flags |= kFtz; continue; }
        if (s == "sat") { in.flags |= kSat; continue; }
        if (s == "approx") { in.flags |= kApprox; continue; }
        if (s == "full") { in.flags |= kFull; continue; }
        if (s == "uni") { in.flags |= kUni; continue; }
        if (s == "to") { if (in.op == Op::Cvta) in.op = Op::CvtaTo; continue; }
        if (s == "red") { in.op = Op::BarRed; continue; }
        if (s == "warp") { if (in.op == Op::Bar) in.op = Op::BarWarp; continue; }
        if (in.op == Op::Setp || in.op == Op::Set) {
            if (s == "and") { in.flags |= kBoolAnd; continue; }
            if (s == "or") { in.flags |= kBoolOr; continue; }
            if (s == "xor") { in.flags |= kBoolXor; continue; }
        }
        if (in.op == Op::Shf && (s == "l" || s == "r")) { if (s == "l") in.flags |= kShfLeft; continue; }
        if ((in.op == Op::Shf || in.op == Op::Bmsk) && (s == "wrap" || s == "clamp")) { if (s == "wrap") in.flags |= kShfWrap; continue; }
        if (in.op == Op::BarRed && (s == "and" || s == "or" || s == "popc")) { in.sub = s == "and" ? Sub::And : s == "or" ? Sub::Or : Sub::Popc; continue; }
        // cache, scope, ordering and other hints that change nothing here
        static const std::string_view ignored[] = {
            "nc", "ca", "cg", "cs", "lu", "cv", "wb", "wt", "volatile", "relaxed", "acquire", "release",
            "acq_rel", "sc", "cta", "gpu", "gl", "sys", "cluster", "sync", "aligned", "L1::no_allocate",
            "L1::evict_last", "L1::evict_first", "L1::evict_normal", "L1::evict_unchanged", "L2::64B",
            "L2::128B", "L2::256B", "L2::cache_hint", "mmio", "weak", "noftz", "L1", "L2", "proxy",
            "async", "clamp", "mode", "f4e"};
        if ((in.op == Op::Ld || in.op == Op::St) && (s == "relaxed" || s == "acquire" || s == "release")) in.order = kStrong;
        if ((in.op == Op::Ld || in.op == Op::St) && s == "volatile" && in.order == kPlain) in.order = kVolatile;
        if ((in.op == Op::St || in.op == Op::Atom || in.op == Op::Red) && (s == "release" || s == "acq_rel")) in.releases = true;
        bool ignore = std::find(std::begin(ignored), std::end(ignored), s) != std::end(ignored) ||
                      s.starts_with("L1::") || s.starts_with("L2::") || s == "collector" || s.starts_with("level::") ||
                      s == "noinc" || s == "shiftamt";
        if (s == "shiftamt") in.flags |= kShiftAmt;
        if (ignore) continue;
        in.op = Op::Unsupported;  // a qualifier that changes the meaning and that we do not implement
        return;
    }
    if (!types.empty()) in.ty = types.back();
    if (types.size() >= 2) {
        if (in.op == Op::Cvt || in.op == Op::Set || in.op == Op::Slct) { in.ty = types[0]; in.ty2 = types[1]; }
        if (in.op == Op::Dp4a || in.op == Op::Dp2a) { in.ty = types[0]; in.ty2 = types[1]; }  // .atype.btype
        if (in.op == Op::Vabsdiff4) {  // .dtype.atype.btype: ty a's and b's type (one), ty2 d's
            if (types.size() != 3 || types[1] != types[2]) in.op = Op::Unsupported;
            in.ty = types[1];
            in.ty2 = types[0];
        }
    }
    if (in.op == Op::MulWide || in.op == Op::MadWide) in.ty2 = in.ty;
}

namespace {

// mbarrier.init / arrive[.expect_tx] / expect_tx / test_wait[.parity] /
// try_wait[.parity] / inval / arrive_drop, on a CTA's own shared memory (.shared, .shared::cta)
// or a generic address; the .b64 form.
void decode_mbarrier(const std::vector<std::string_view>& q, Instr& in)
{
    static const std::pair<std::string_view, Sub> ops[] = {{"init", Sub::MbInit}, {"arrive", Sub::MbArrive},
                                                           {"expect_tx", Sub::MbExpectTx}, {"test_wait", Sub::MbTestWait},
                                                           {"try_wait", Sub::MbTryWait}, {"inval", Sub::MbInval},
                                                           {"arrive_drop", Sub::MbArriveDrop}};
    in.op = Op::Unsupported;
    if (q.size() < 2) return;
    for (auto& [n, sub] : ops)
        if (q[1] == n) in.sub = sub;
    if (in.sub == Sub::None) return;
    bool b64 = false;
    for (std::size_t k = 2; k < q.size(); ++k) {
        const std::string_view s = q[k];
        if (s == "shared" || s == "shared::cta") in.space = Space::Shared;
        else if (s == "b64") b64 = true;
        else if (s == "parity" && (in.sub == Sub::MbTestWait || in.sub == Sub::MbTryWait)) continue;  // a state is a parity here
        else if (s == "expect_tx" && in.sub == Sub::MbArrive) in.sub = Sub::MbArriveExpectTx;
        else if (s != "release" && s != "acquire" && s != "relaxed" && s != "cta") return;  // e.g. .cluster scope, noComplete
    }
    if (b64) in.op = Op::Mbarrier;
}

// tex.1d.v4.dtype.ctype and tex.2d.v4.dtype.ctype, what nvcc emits for
// tex1Dfetch, tex1D and tex2D through a texture object: dtype f32, s32 or u32
// (ty), coordinates s32 or f32 (ty2). Other geometries (3d, arrays, cube),
// tld4, levels of detail and explicit samplers are not implemented.
void decode_texture(const std::vector<std::string_view>& q, Instr& in)
{
    in.op = Op::Unsupported;
    if (q.size() != 5 || (q[1] != "1d" && q[1] != "2d") || q[2] != "v4") return;
    const Ty result = type_of(q[3]), coordinate = type_of(q[4]);
    if (result != Ty::F32 && result != Ty::S32 && result != Ty::U32) return;
    if (coordinate != Ty::F32 && coordinate != Ty::S32) return;
    in.op = Op::Tex;
    in.ty = result;
    in.ty2 = coordinate;
    in.vec = 4;
}

// cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes [dst], [src], size, [mbar]
// (also .shared::cta, and .L2::cache_hint with its policy operand): a
// global-to-shared copy by the copy engine. Other directions, multicast
// and the tensor forms are not implemented.
void decode_bulk_copy(std::string_view opcode, Instr& in)
{
    const bool to_shared = opcode.starts_with("cp.async.bulk.shared::cluster.global.") ||
                           opcode.starts_with("cp.async.bulk.shared::cta.global.");
    const bool plain = opcode.ends_with(".mbarrier::complete_tx::bytes") ||
                       opcode.ends_with(".mbarrier::complete_tx::bytes.L2::cache_hint");
    in.op = to_shared && plain ? Op::CpAsyncBulk : Op::Unsupported;
    in.space = Space::Shared;
}

}  // namespace

}  // namespace wl::ptx::detail
