// PTX read as statements: the layer under both readers of nvcc's PTX, the
// parser that lowers it for the interpreter (parse.cpp) and the instrumenter
// that rewrites it for the GPU trace (core/src/cuda). Each rule about what PTX
// text says is written here once: tokens, where a statement ends, an
// instruction's guard, opcode, qualifiers and operands, declarations, `.file`
// and `.loc` with the chain of inlined callers, the toolkit-path rule, type
// sizes, and the element size a shared array is declared with.
//
// Nothing here resolves names or knows an instruction's meaning: that is each
// reader's own business.
#pragma once
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace wl::ptx::detail {

// ---------------------------------------------------------------- types --

enum class Ty : std::uint8_t {
    None, B8, B16, B32, B64, B128, U8, U16, U32, U64, S8, S16, S32, S64, F16, F16x2, BF16, BF16x2, F32, F64, Pred,
    U16x2, S16x2  // two 16-bit integers in 32 bits (add, min, max)
};
// "f32" -> F32 (a qualifier without its dot); None for anything else.
Ty type_of(std::string_view name);
constexpr unsigned ty_bytes(Ty t)
{
    switch (t) {
    case Ty::B8: case Ty::U8: case Ty::S8: case Ty::Pred: return 1;
    case Ty::B16: case Ty::U16: case Ty::S16: case Ty::F16: case Ty::BF16: return 2;
    case Ty::B32: case Ty::U32: case Ty::S32: case Ty::F32: case Ty::F16x2: case Ty::BF16x2: case Ty::U16x2: case Ty::S16x2:
        return 4;
    case Ty::B64: case Ty::U64: case Ty::S64: case Ty::F64: return 8;
    case Ty::B128: return 16;
    case Ty::None: return 0;
    }
    return 0;
}
constexpr bool ty_signed(Ty t) { return t == Ty::S8 || t == Ty::S16 || t == Ty::S32 || t == Ty::S64; }
constexpr bool ty_float(Ty t)
{
    return t == Ty::F16 || t == Ty::F16x2 || t == Ty::BF16 || t == Ty::BF16x2 || t == Ty::F32 || t == Ty::F64;
}

// "42", "-7", "0x2A", "052", "42U": nullopt when it is not an integer.
std::optional<std::int64_t> parse_integer(std::string_view s);

// --------------------------------------------------------------- tokens --

struct Token {
    std::string_view s;  // into the PTX text
    std::uint32_t line;  // 1-based
};
// Comments dropped; a name keeps its dots and "::" (ld.global.L1::no_allocate).
std::vector<Token> tokenize(std::string_view text);

// ----------------------------------------------------------- statements --

enum class StatementKind : std::uint8_t {
    Directive,    // starts with '.' (linkage words included): .reg, .shared, .loc, a function header, ...
    Label,        // name ':'
    Instruction,  // [@guard] opcode operands ;
    Open,         // '{'
    Close,        // '}'
};
// Tokens [first, end) of one statement; a ';' that ends it is included. A
// function header ends before its body's '{' (or with its ';'); the
// directives nvcc ends with the line (.version .target .address_size .file
// .loc) end there; .section takes its braces.
struct Statement {
    StatementKind kind;
    std::size_t first = 0, end = 0;
    std::uint32_t line = 0;
};
std::vector<Statement> split_statements(const std::vector<Token>& tokens);

// The statement's text as written: from its first token to its last.
std::string_view source_span(const std::vector<Token>& tokens, const Statement& s);

// A token range [first, end) within the token vector.
struct Span {
    std::size_t first = 0, end = 0;
    bool empty() const { return first >= end; }
};
std::string_view source_span(const std::vector<Token>& tokens, Span s);

// ------------------------------------------------------- instructions --

struct InstructionStatement {
    bool guarded = false, guard_negated = false;
    std::string_view guard;                 // the predicate register ("%p1")
    std::string_view opcode;                // "ld.global.nc.v4.f32"
    std::vector<std::string_view> parts;    // the opcode split at '.': {"ld", "global", "nc", "v4", "f32"}
    std::vector<Span> operands;             // split at top-level commas; `d|p` is two operands
    std::vector<bool> paired;               // operands[k] is the first of a `d|p` pair
};
InstructionStatement read_instruction(const std::vector<Token>& tokens, const Statement& s);

bool has_part(const InstructionStatement& in, std::string_view part);
// The vector width of .v2/.v4/.v8 (1 without).
unsigned vector_width(const InstructionStatement& in);
// The bytes of the element of an explicitly .shared (or .shared::cta)
// ld/ldu/st/atom/red, by its last type qualifier; 0 for every other statement.
unsigned shared_access_bytes(const InstructionStatement& in);

// "[base]", "[base+8]", "[base+-4]", "[-4]", "[8]": the base token (a name, or
// empty for a bare number) and the displacement; nullopt when not an address.
struct AddressOperand {
    std::string_view base;
    std::int64_t offset = 0;
};
std::optional<AddressOperand> read_address(const std::vector<Token>& tokens, Span operand);
// "{%f1, %f2, _}" -> its element operands; any other operand -> itself.
std::vector<Span> vector_elements(const std::vector<Token>& tokens, Span operand);

// --------------------------------------------------------- declarations --

// .reg/.shared/.local/.global/.const/.param declarations, and each parameter
// of a function header. Element type and alignment hold for every name.
struct DeclaredName {
    std::string_view name;
    std::uint32_t registers = 0;     // %r<16>: 16 (the names %r0 .. %r15); 0 otherwise
    std::uint64_t count = 1;         // elements: the product of the [n] dimensions
    bool unsized = false;            // a [] dimension
    Span initialiser;                // the tokens after '=' (empty: none)
};
struct Declaration {
    bool is_extern = false;           // .extern before the space
    std::string_view space;           // ".shared", ".reg", ...
    unsigned align = 0;               // .align n (0: none)
    Ty ty = Ty::None;
    bool managed = false;             // .attribute(.managed): a __managed__ variable, in memory host and device share
    std::string_view unknown;         // a qualifier that is neither space, type, vector, .align nor .ptr
    std::vector<DeclaredName> names;
};
bool is_declaration(const std::vector<Token>& tokens, const Statement& s);
Declaration read_declaration(const std::vector<Token>& tokens, Span s);
// Bytes a declared name takes (0 when unsized), and the alignment it gets.
std::uint64_t declared_bytes(const Declaration& d, const DeclaredName& n);
unsigned declared_align(const Declaration& d);
// A shared array whose bytes the launch gives: declared with [], or .extern with no size.
bool dynamic_shared(const Declaration& d, const DeclaredName& n);

// ".visible .entry name(.param .u64 a, ...) .maxntid 256, 1, 1" (then '{' or ';').
struct FunctionHeader {
    bool entry = false;
    bool is_extern = false;
    bool body = false;                 // a '{' follows (not a declaration)
    std::string_view name;
    std::vector<Declaration> returns, params;  // one declaration each
};
bool is_function_header(const std::vector<Token>& tokens, const Statement& s);
FunctionHeader read_function_header(const std::vector<Token>& tokens, const std::vector<Statement>& all, std::size_t k);

// A function with a body: the statements of its header, of its body's '{'
// and of the matching '}' (close == statements.size() when it never closes).
struct FunctionBody {
    bool entry = false;
    std::string_view name;
    std::size_t header = 0, open = 0, close = 0;
};
std::vector<FunctionBody> function_bodies(const std::vector<Token>& tokens, const std::vector<Statement>& statements);

// A shared array a kernel uses: the token of its name in its declaration.
struct SharedDeclaration {
    std::string_view name;  // into the PTX text: the declaration's own token
    bool dynamic = false;   // dynamic_shared()
};
// The shared arrays a kernel uses, in declaration order: those declared in
// its body, those declared at module scope that its instructions name, and
// those of the functions it calls, directly or through others. Read once per
// module.
class SharedUse {
public:
    SharedUse(const std::vector<Token>& tokens, const std::vector<Statement>& statements, const std::vector<FunctionBody>& bodies);
    std::vector<SharedDeclaration> of(std::size_t kernel) const;  // kernel: an index into bodies

private:
    struct Declared {
        SharedDeclaration decl;
        std::size_t body;  // npos: module scope
    };
    std::vector<Declared> declared_;                 // in declaration order
    std::vector<std::vector<std::size_t>> calls_;    // per body: the bodies it calls by name
    std::vector<std::vector<std::size_t>> names_;    // per body: the module-scope declarations (index into declared_) it names
};

// ---------------------------------------------------- source locations --

struct FileDirective {
    std::uint32_t index = 0;
    std::string path;
};
// ".file 1 "/path/k.cu"" or ".file 1 "k.cu", 1700000000, 1234"
std::optional<FileDirective> read_file_directive(const std::vector<Token>& tokens, const Statement& s);

using SourceFrame = std::pair<std::uint32_t, std::uint32_t>;  // (file, line)
// ".loc 3 440 9, function_name $L__info_string1, inlined_at 1 24 5": the
// frames it names, innermost first (the instruction's, then its caller's).
std::optional<std::vector<SourceFrame>> read_loc(const std::vector<Token>& tokens, const Statement& s, std::string& error);

// A `.loc`'s whole chain of inlined callers, out to the function. nvcc names
// one caller a `.loc`; that caller's own callers are those of the `.loc`
// before that had it innermost (cooperative groups inline header into header).
class CallerChains {
public:
    void start_function() { chains_.clear(); }
    std::vector<SourceFrame> chain(std::vector<SourceFrame> named);

private:
    std::map<SourceFrame, std::vector<SourceFrame>> chains_;
};

// A path of the CUDA toolkit's own headers.
bool is_toolkit_path(std::string_view path);
// The frame an instruction's source line is: the innermost whose file is not a
// toolkit header; the outermost when all are (`found` says which).
SourceFrame user_frame(const std::vector<SourceFrame>& chain, const std::map<std::uint32_t, std::string>& files, bool& found);

// ---------------------------------------------------------- shared arrays --

// The element size the emulator declares a shared array with (and the GPU
// trace names it with): its alignment, at most the narrowest explicitly
// shared access of the kernel, halved until it divides the array's bytes.
unsigned shared_element_bytes(unsigned align, unsigned narrowest_access, std::uint64_t bytes);
inline constexpr unsigned kNoSharedAccess = 16;  // narrowest_access of a kernel without one

// The shared arrays a launch declares, numbered as the trace numbers them:
// the static ones in declaration order, then the dynamic area (one, whatever
// `extern` names alias it) when the launch gives it bytes. `vars`: the
// kernel's shared variables in declaration order (anything with bytes,
// align and dynamic: KernelInfo::shared, the parser's SharedVar).
struct SharedArray {
    std::size_t var = 0;  // index into vars
    std::uint64_t bytes = 0;
    unsigned elem = 1;
};
template <class Vars>
std::vector<SharedArray> shared_arrays(const Vars& vars, unsigned narrowest_access, std::uint64_t dynamic_bytes)
{
    std::vector<SharedArray> out;
    for (std::size_t i = 0; i < vars.size(); ++i)
        if (!vars[i].dynamic) out.push_back({i, vars[i].bytes, shared_element_bytes(vars[i].align, narrowest_access, vars[i].bytes)});
    for (std::size_t i = 0; i < vars.size() && dynamic_bytes; ++i)
        if (vars[i].dynamic) {
            out.push_back({i, dynamic_bytes, shared_element_bytes(vars[i].align, narrowest_access, dynamic_bytes)});
            break;
        }
    return out;
}

// ------------------------------------------------------------ pointers --

// A parameter that may hold a pointer: 8 bytes (KernelInfo::is_pointer).
constexpr bool pointer_parameter(std::uint64_t bytes) { return bytes == 8; }

// The end of the allocation a pointer argument points into, or just past
// (a loop's end pointer); nullopt when none. find(address, base, bytes):
// whether an allocation holds the address, and which.
template <class Find>
std::optional<std::uint64_t> pointed_allocation_end(std::uint64_t value, Find&& find)
{
    std::uint64_t base = 0, bytes = 0;
    if (find(value, base, bytes) || (value && find(value - 1, base, bytes) && value == base + bytes)) return base + bytes;
    return std::nullopt;
}

}  // namespace wl::ptx::detail
