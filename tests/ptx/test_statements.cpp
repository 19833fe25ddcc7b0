// The statement layer both PTX readers stand on (core/src/ptx/statements.h),
// on hand-written fragments whose reading is derived by hand in each comment.
#include <gtest/gtest.h>

#include "shared_reach_module.h"
#include "statements.h"

namespace {

using namespace wl::ptx::detail;

struct Read {
    std::string text;
    std::vector<Token> tokens;
    std::vector<Statement> statements;
    explicit Read(std::string t) : text(std::move(t)), tokens(tokenize(text)), statements(split_statements(tokens)) {}
    std::string span(Span s) const { return std::string(source_span(tokens, s)); }
    const Statement& first(StatementKind kind) const
    {
        for (const Statement& s : statements)
            if (s.kind == kind) return s;
        throw std::runtime_error("no such statement");
    }
};

// A kernel in nvcc's layout: header with three parameters and .maxntid, the
// body's '{', a register declaration, an extern shared array, a guarded
// branch, a label, a `d|p` shuffle, the '}'.
const char* kKernel = R"(.version 9.0
.target sm_90, debug
.address_size 64
.extern .shared .align 16 .b8 dyn[];
.visible .entry _Z1kPfPKii(
	.param .u64 _Z1kPfPKii_param_0,
	.param .u64 .ptr .global .align 8 _Z1kPfPKii_param_1,
	.param .u32 _Z1kPfPKii_param_2
)
.maxntid 256, 1, 1
{
	.reg .b32 	%r<17>;   // %r0 .. %r16
	@!%p1 bra 	$L__BB0_2;
$L__BB0_2:
	shfl.sync.down.b32 	%r8|%p1, %r7, 16, 31, -1;
}
)";

// Statements, by hand: .version, .target (one, its ", debug" with it),
// .address_size, the .extern .shared, the header (to before '{', .maxntid in
// it), '{', .reg, the bra, the label, the shfl, '}': 11.
TEST(Statements, SplitsAModuleAsNvccLaysItOut)
{
    const Read r(kKernel);
    std::vector<StatementKind> kinds;
    for (const Statement& s : r.statements) kinds.push_back(s.kind);
    using K = StatementKind;
    const std::vector<K> expected{K::Directive, K::Directive, K::Directive, K::Directive, K::Directive, K::Open,
                                  K::Directive, K::Instruction, K::Label, K::Instruction, K::Close};
    EXPECT_EQ(kinds, expected);
    EXPECT_EQ(std::string(source_span(r.tokens, r.statements[1])), ".target sm_90, debug");
    EXPECT_EQ(r.statements[4].line, 5u);  // the header starts on line 5
    EXPECT_EQ(std::string(source_span(r.tokens, r.statements[9])), "shfl.sync.down.b32 \t%r8|%p1, %r7, 16, 31, -1;");
}

// The extern shared array: extern, .shared, align 16, .b8, one unsized name
// "dyn", no bytes of its own (the launch gives them). The register range
// %r<17> names 17 registers.
TEST(Statements, ReadsAnExternSharedArrayAndARegisterRange)
{
    const Read r(kKernel);
    const Statement& ext = r.statements[3];
    ASSERT_TRUE(is_declaration(r.tokens, ext));
    const Declaration d = read_declaration(r.tokens, Span{ext.first, ext.end});
    EXPECT_TRUE(d.is_extern);
    EXPECT_EQ(d.space, ".shared");
    EXPECT_EQ(d.align, 16u);
    EXPECT_EQ(d.ty, Ty::B8);
    ASSERT_EQ(d.names.size(), 1u);
    EXPECT_EQ(d.names[0].name, "dyn");
    EXPECT_TRUE(d.names[0].unsized);
    EXPECT_EQ(declared_bytes(d, d.names[0]), 0u);

    const Statement& regs = r.statements[6];
    const Declaration rd = read_declaration(r.tokens, Span{regs.first, regs.end});
    EXPECT_EQ(rd.space, ".reg");
    EXPECT_EQ(rd.ty, Ty::B32);
    ASSERT_EQ(rd.names.size(), 1u);
    EXPECT_EQ(rd.names[0].name, "%r");
    EXPECT_EQ(rd.names[0].registers, 17u);

    // A sized static array: 1024 one-byte elements, aligned to 4; an
    // initialised global: 3 four-byte elements, its initialiser's tokens kept.
    const Read s(".shared .align 4 .b8 _ZZ1kE5sdata[1024];\n.global .u32 table[3] = {1, 2, 3};\n");
    const Declaration sd = read_declaration(s.tokens, Span{s.statements[0].first, s.statements[0].end});
    EXPECT_FALSE(sd.is_extern);
    EXPECT_EQ(declared_bytes(sd, sd.names[0]), 1024u);
    EXPECT_EQ(declared_align(sd), 4u);
    const Declaration gd = read_declaration(s.tokens, Span{s.statements[1].first, s.statements[1].end});
    EXPECT_EQ(declared_bytes(gd, gd.names[0]), 12u);
    EXPECT_EQ(declared_align(gd), 4u);  // no .align: the element's size
    EXPECT_EQ(s.span(gd.names[0].initialiser), "{1, 2, 3}");
}

// The header: an entry named _Z1kPfPKii with a body; parameter 1 is a
// pointer declared .u64 .ptr .global .align 8 (8 bytes, aligned to 8),
// parameter 2 a 4-byte .u32. A .func declaration: one return, two
// parameters, no body.
TEST(Statements, ReadsFunctionHeadersAndTheirParameters)
{
    const Read r(kKernel);
    ASSERT_TRUE(is_function_header(r.tokens, r.statements[4]));
    const FunctionHeader h = read_function_header(r.tokens, r.statements, 4);
    EXPECT_TRUE(h.entry);
    EXPECT_TRUE(h.body);
    EXPECT_EQ(h.name, "_Z1kPfPKii");
    ASSERT_EQ(h.params.size(), 3u);
    EXPECT_EQ(h.params[1].names[0].name, "_Z1kPfPKii_param_1");
    EXPECT_EQ(h.params[1].ty, Ty::U64);
    EXPECT_EQ(declared_bytes(h.params[1], h.params[1].names[0]), 8u);
    EXPECT_EQ(declared_align(h.params[1]), 8u);
    EXPECT_EQ(declared_bytes(h.params[2], h.params[2].names[0]), 4u);
    EXPECT_TRUE(h.params[1].unknown.empty()) << h.params[1].unknown;

    const Read f(".func  (.param .b32 func_retval0) _Z3addii(.param .b32 a, .param .b32 b);\n");
    ASSERT_EQ(f.statements.size(), 1u);
    const FunctionHeader fh = read_function_header(f.tokens, f.statements, 0);
    EXPECT_FALSE(fh.entry);
    EXPECT_FALSE(fh.body);
    EXPECT_EQ(fh.name, "_Z3addii");
    EXPECT_EQ(fh.returns.size(), 1u);
    EXPECT_EQ(fh.params.size(), 2u);
}

// Instructions: the guard of `@!%p1 bra $L__BB0_2` is %p1, negated, and its one
// operand the label; the shuffle's `%r8|%p1` is a pair of operands: with
// %r7, 16, 31 and -1, six, the first marked paired.
TEST(Statements, ReadsGuardsOperandsAndPairs)
{
    const Read r(kKernel);
    const InstructionStatement bra = read_instruction(r.tokens, r.statements[7]);
    EXPECT_TRUE(bra.guarded);
    EXPECT_TRUE(bra.guard_negated);
    EXPECT_EQ(bra.guard, "%p1");
    EXPECT_EQ(bra.opcode, "bra");
    ASSERT_EQ(bra.operands.size(), 1u);
    EXPECT_EQ(r.span(bra.operands[0]), "$L__BB0_2");

    const InstructionStatement shfl = read_instruction(r.tokens, r.statements[9]);
    EXPECT_FALSE(shfl.guarded);
    const std::vector<std::string_view> parts{"shfl", "sync", "down", "b32"};
    EXPECT_EQ(shfl.parts, parts);
    ASSERT_EQ(shfl.operands.size(), 6u);
    EXPECT_EQ(shfl.paired, (std::vector<bool>{true, false, false, false, false, false}));
    EXPECT_EQ(r.span(shfl.operands[1]), "%p1");
    EXPECT_EQ(r.span(shfl.operands[5]), "-1");
    EXPECT_EQ(shared_access_bytes(shfl), 0u);  // not a memory access
}

// Vector accesses: ld.shared.v4.f32 loads four 4-byte elements (the third
// into the sink), from [%r4+16]; the shared rule counts its element, 4 bytes.
// st.global.v2.u64 stores two at [%rd1+-8]: displacement -8, not shared.
// A bare-number address [-4] has no base.
TEST(Statements, ReadsVectorAccessesAndAddresses)
{
    const Read r("ld.shared.v4.f32 \t{%f1, %f2, _, %f4}, [%r4+16];\nst.global.v2.u64 [%rd1+-8], {%rd2, %rd3};\n"
                 "ld.param.u32 %r1, [-4];\natom.shared::cta.add.u16 %rs1, [%r2], %rs3;\n");
    ASSERT_EQ(r.statements.size(), 4u);
    const InstructionStatement ld = read_instruction(r.tokens, r.statements[0]);
    EXPECT_EQ(vector_width(ld), 4u);
    EXPECT_EQ(shared_access_bytes(ld), 4u);
    const auto elems = vector_elements(r.tokens, ld.operands[0]);
    ASSERT_EQ(elems.size(), 4u);
    EXPECT_EQ(r.span(elems[2]), "_");
    EXPECT_EQ(r.span(elems[3]), "%f4");
    const auto a = read_address(r.tokens, ld.operands[1]);
    ASSERT_TRUE(a);
    EXPECT_EQ(a->base, "%r4");
    EXPECT_EQ(a->offset, 16);

    const InstructionStatement st = read_instruction(r.tokens, r.statements[1]);
    EXPECT_EQ(vector_width(st), 2u);
    EXPECT_EQ(shared_access_bytes(st), 0u);
    const auto b = read_address(r.tokens, st.operands[0]);
    ASSERT_TRUE(b);
    EXPECT_EQ(b->base, "%rd1");
    EXPECT_EQ(b->offset, -8);
    EXPECT_FALSE(read_address(r.tokens, st.operands[1])) << "a vector is not an address";

    const auto c = read_address(r.tokens, read_instruction(r.tokens, r.statements[2]).operands[1]);
    ASSERT_TRUE(c);
    EXPECT_TRUE(c->base.empty());
    EXPECT_EQ(c->offset, -4);
    // .shared::cta is a CTA's own shared memory: a 2-byte element.
    EXPECT_EQ(shared_access_bytes(read_instruction(r.tokens, r.statements[3])), 2u);
}

// An inlined-at chain as nvcc writes it for cooperative groups: file 3 (a
// toolkit intrinsic header) inlined at file 2 line 100 (a toolkit header),
// itself inlined at the user's file 1 line 20. nvcc names only the nearest
// caller; the chain out to the kernel comes from the .loc that last had
// (2, 100) innermost. The user's frame is (1, 20), the outermost.
TEST(Statements, FollowsAnInlinedAtChainOutToTheUsersLine)
{
    const Read r(R"(.file 1 "/home/u/k.cu"
.file 2 "/usr/local/cuda/include/cooperative_groups/details/reduce.h", 1700000000, 1234
.file 3 "/usr/local/cuda-13.0/targets/x86_64-linux/include/sm_30_intrinsics.hpp"
.loc 2 100 5, function_name $L__info_string0, inlined_at 1 20 3
.loc 3 440 9, function_name $L__info_string1, inlined_at 2 100 5
.loc 1 21 1
)");
    ASSERT_EQ(r.statements.size(), 6u);
    std::map<std::uint32_t, std::string> files;
    for (std::size_t k = 0; k < 3; ++k) {
        const auto f = read_file_directive(r.tokens, r.statements[k]);
        ASSERT_TRUE(f);
        files[f->index] = f->path;
    }
    EXPECT_EQ(files[2], "/usr/local/cuda/include/cooperative_groups/details/reduce.h");
    CallerChains callers;
    std::string error;
    std::vector<std::vector<SourceFrame>> chains;
    for (std::size_t k = 3; k < 6; ++k) {
        auto named = read_loc(r.tokens, r.statements[k], error);
        ASSERT_TRUE(named) << error;
        chains.push_back(callers.chain(*named));
    }
    EXPECT_EQ(chains[0], (std::vector<SourceFrame>{{2, 100}, {1, 20}}));
    EXPECT_EQ(chains[1], (std::vector<SourceFrame>{{3, 440}, {2, 100}, {1, 20}}));
    EXPECT_EQ(chains[2], (std::vector<SourceFrame>{{1, 21}}));
    bool found = false;
    EXPECT_EQ(user_frame(chains[1], files, found), (SourceFrame{1, 20}));
    EXPECT_TRUE(found);
    // All frames in toolkit headers: the outermost, and not found.
    EXPECT_EQ(user_frame({{3, 440}, {2, 100}}, files, found), (SourceFrame{2, 100}));
    EXPECT_FALSE(found);
    // A new function forgets the chains: (2, 100) is named as it is.
    callers.start_function();
    EXPECT_EQ(callers.chain({{3, 440}, {2, 100}}), (std::vector<SourceFrame>{{3, 440}, {2, 100}}));

    const Read bad(".loc 1 20 3, discriminator 4\n");
    EXPECT_FALSE(read_loc(bad.tokens, bad.statements[0], error));
    EXPECT_NE(error.find("discriminator"), std::string::npos) << error;
}

TEST(Statements, ToolkitPaths)
{
    EXPECT_TRUE(is_toolkit_path("/usr/local/cuda-13.0/targets/x86_64-linux/include/cuda/std/__atomic/api.h"));
    EXPECT_TRUE(is_toolkit_path("/usr/local/cuda/include/cooperative_groups.h"));
    EXPECT_TRUE(is_toolkit_path("/usr/include/crt/math_functions.hpp"));
    EXPECT_FALSE(is_toolkit_path("/home/u/cuda_kernels/k.cu"));  // "cuda" but no /include/
    EXPECT_FALSE(is_toolkit_path("/home/u/include/k.cuh"));      // /include/ but no "cuda"
    EXPECT_FALSE(is_toolkit_path("k.cu"));
}

// Type sizes: f16x2 packs two halves in 4 bytes; pred takes 1; b128 16.
TEST(Statements, TypeSizes)
{
    EXPECT_EQ(ty_bytes(type_of("f16x2")), 4u);
    EXPECT_EQ(ty_bytes(type_of("pred")), 1u);
    EXPECT_EQ(ty_bytes(type_of("b128")), 16u);
    EXPECT_EQ(ty_bytes(type_of("s64")), 8u);
    EXPECT_EQ(type_of("v4"), Ty::None);
    EXPECT_EQ(parse_integer("0x2A"), 42);
    EXPECT_EQ(parse_integer("052"), 42);
    EXPECT_EQ(parse_integer("-42U"), -42);
    EXPECT_FALSE(parse_integer("4x"));
}

// The element size a shared array is declared with: min(align, narrowest
// access), halved until it divides the bytes.
// align 4, no access narrower than 16, 1024 bytes: 4.
// align 16, a 1-byte access: 1.
// align 8, 8-byte accesses, 12 bytes: 8 does not divide 12, 4 does: 4.
// align 16, 16, 6 bytes: 16, 8, 4 do not divide 6; 2 does: 2.
TEST(Statements, SharedElementSize)
{
    EXPECT_EQ(shared_element_bytes(4, kNoSharedAccess, 1024), 4u);
    EXPECT_EQ(shared_element_bytes(16, 1, 1024), 1u);
    EXPECT_EQ(shared_element_bytes(8, 8, 12), 4u);
    EXPECT_EQ(shared_element_bytes(16, 16, 6), 2u);
    EXPECT_EQ(shared_element_bytes(0, 4, 64), 1u);  // no alignment: bytes
}

}  // namespace

namespace {

struct Var {
    std::uint64_t bytes;
    unsigned align;
    bool dynamic;
};

// Statics first in declaration order, then the first dynamic one alone:
// a (1024 bytes, align 4): element 4; b (6 bytes, align 16): 16, 8, 4 do not
// divide 6, 2 does; the dynamic area takes dyn's alignment, 16, over the
// launch's 100 bytes: 16 and 8 do not divide 100, 4 does. dyn2 aliases it.
// Without dynamic bytes there is no dynamic area.
TEST(Statements, SharedArraysAsTheTraceNumbersThem)
{
    const std::vector<Var> vars{{1024, 4, false}, {0, 16, true}, {6, 16, false}, {0, 4, true}};
    const auto arrays = shared_arrays(vars, kNoSharedAccess, 100);
    ASSERT_EQ(arrays.size(), 3u);
    EXPECT_EQ(arrays[0].var, 0u);
    EXPECT_EQ(arrays[0].elem, 4u);
    EXPECT_EQ(arrays[1].var, 2u);
    EXPECT_EQ(arrays[1].elem, 2u);
    EXPECT_EQ(arrays[2].var, 1u);
    EXPECT_EQ(arrays[2].bytes, 100u);
    EXPECT_EQ(arrays[2].elem, 4u);
    EXPECT_EQ(shared_arrays(vars, kNoSharedAccess, 0).size(), 2u);
    EXPECT_EQ(shared_arrays(vars, 1, 100)[0].elem, 1u);  // a 1-byte access narrows every array
}

// Allocations [1000, 1100) and [2000, 2064): 1050 is inside the first; 1100
// is just past its end (an end pointer); 1500 is in neither; 0 is in none
// (and has no byte before it to look at).
TEST(Statements, PointerArgumentsIntoOrJustPastAnAllocation)
{
    auto find = [](std::uint64_t a, std::uint64_t& base, std::uint64_t& bytes) {
        for (auto [b, n] : {std::pair<std::uint64_t, std::uint64_t>{1000, 100}, {2000, 64}})
            if (a >= b && a < b + n) {
                base = b;
                bytes = n;
                return true;
            }
        return false;
    };
    EXPECT_EQ(pointed_allocation_end(1050, find), 1100u);
    EXPECT_EQ(pointed_allocation_end(1100, find), 1100u);
    EXPECT_EQ(pointed_allocation_end(2064, find), 2064u);
    EXPECT_FALSE(pointed_allocation_end(1500, find));
    EXPECT_FALSE(pointed_allocation_end(0, find));
    EXPECT_TRUE(pointer_parameter(8));
    EXPECT_FALSE(pointer_parameter(4));
}

}  // namespace

namespace {

// The shared arrays a kernel uses (shared_reach_module.h): a, b, d for k1;
// none for k2.
TEST(Statements, SharedArraysAKernelUsesThroughItsCalls)
{
    const Read r(kSharedReachModule);
    const auto bodies = function_bodies(r.tokens, r.statements);
    ASSERT_EQ(bodies.size(), 4u);
    EXPECT_EQ(bodies[2].name, "k1");
    EXPECT_TRUE(bodies[2].entry);
    std::vector<std::string_view> names;
    const SharedUse use(r.tokens, r.statements, bodies);
    for (const SharedDeclaration& d : use.of(2)) names.push_back(d.name);
    EXPECT_EQ(names, (std::vector<std::string_view>{"a", "b", "d"}));
    EXPECT_TRUE(use.of(3).empty());
    // g's own view: c, dynamic (.extern with no size).
    const auto of_g = use.of(1);
    ASSERT_EQ(of_g.size(), 1u);
    EXPECT_EQ(of_g[0].name, "c");
    EXPECT_TRUE(of_g[0].dynamic);
}

}  // namespace
