// The warp matrix functions of CUDA's <mma.h> (nvcuda::wmma), as nvcc emits
// them: wmma.load.{a,b,c}, wmma.mma and wmma.store.d on 16×16×16 tiles of
// f16 or bf16 inputs with an f16 or f32 accumulator.
//
// PTX leaves the distribution of a fragment's elements over the lanes open
// (only element-wise code on frag.x[i], which CUDA allows, is portable); this
// file picks one and keeps it between load, product and store. A fragment of
// 8 elements a lane (bf16 a and b, every accumulator) gives lane l line l / 2,
// positions 8·(l % 2) .. 8·(l % 2) + 7; one of 16 (f16 a and b, each element
// held by two lanes as on the GPU) gives lane l line l % 16, all 16
// positions. A line is a row of A and of C, a column of B (the k a product
// runs along), so lane l's positions are k for A and B, n for C.
//
// Loads and stores are each lane's own checked accesses of its elements (bounds,
// uninitialised shared memory, races), at the instruction's line; the product
// is a warp collective of all 32 lanes.
#include <algorithm>
#include <array>
#include <bit>
#include <cstring>
#include <string>

#include "interp.h"
#include "values.h"

namespace wl::ptx::detail {

namespace {

constexpr unsigned kTile = 16;  // m = n = k = 16, the one shape implemented

enum class Matrix { A, B, C };

Matrix matrix_of(Sub s)
{
    return s == Sub::WmmaRowA || s == Sub::WmmaColA ? Matrix::A : s == Sub::WmmaRowB || s == Sub::WmmaColB ? Matrix::B : Matrix::C;
}
bool column_major(Sub s) { return s == Sub::WmmaColA || s == Sub::WmmaColB || s == Sub::WmmaColC; }

// Elements a lane holds of a fragment of `matrix` in `ty`: f16 a and b hold each element twice over the warp.
unsigned elements_of(Matrix matrix, Ty ty) { return matrix != Matrix::C && ty == Ty::F16 ? 16 : 8; }

// 32-bit registers of such a fragment: two 16-bit elements a register, low half first.
unsigned registers_of(Matrix matrix, Ty ty) { return elements_of(matrix, ty) * ty_bytes(ty) / 4; }

// The (row, column) of the tile that element e of lane l's fragment holds.
std::pair<unsigned, unsigned> place(Matrix matrix, unsigned elements, unsigned l, unsigned e)
{
    const unsigned line = elements == 16 ? l % kTile : l / 2;
    const unsigned position = elements == 16 ? e : 8 * (l % 2) + e;
    return matrix == Matrix::B ? std::pair{position, line} : std::pair{line, position};
}

// Element e of a fragment in registers `words` (of 32 bits each), widened to float.
float element(const std::uint32_t* words, Ty ty, unsigned e)
{
    if (ty == Ty::F32) return std::bit_cast<float>(words[e]);
    const auto half = static_cast<std::uint16_t>(words[e / 2] >> (16 * (e % 2)));
    return ty == Ty::BF16 ? bf16_to_float(half) : half_to_float(half);
}

void set_element(std::uint32_t* words, Ty ty, unsigned e, float v)
{
    if (ty == Ty::F32) {
        words[e] = std::bit_cast<std::uint32_t>(v);
        return;
    }
    const std::uint32_t half = float_to_half(v), shift = 16 * (e % 2);
    words[e / 2] = (words[e / 2] & ~(0xFFFFu << shift)) | half << shift;
}

// The lane's registers of a fragment operand, as 32-bit words (a sink reads 0).
void read_fragment(const std::uint64_t* r, const std::uint32_t* lists, const Operand& o, std::uint32_t* words)
{
    for (unsigned k = 0; k < o.n; ++k) {
        const std::uint32_t reg = lists[o.reg + k];
        words[k] = reg == kNoReg ? 0u : static_cast<std::uint32_t>(r[reg]);
    }
}

void write_fragment(std::uint64_t* r, const std::uint32_t* lists, const Operand& o, const std::uint32_t* words)
{
    for (unsigned k = 0; k < o.n; ++k) {
        const std::uint32_t reg = lists[o.reg + k];
        if (reg != kNoReg) r[reg] = words[k];
    }
}

// A fragment operand's check, in the lane that runs it: a vector of the form's register count.
void check_fragment(const Interpreter& it, const Instr& in, const Operand& o, unsigned registers)
{
    if (o.kind != OpKind::Vec || o.n != registers) it.unsupported(in, "a fragment of another register count than m16n16k16's");
}

// A lane's input to the warp's product (runtime.h, WarpMatrix): the product, then the lane's registers, its
// function's register lists and the instruction, which stay in place while the lane waits.
struct Arrival {
    const Instr* in;
    std::uint64_t* r;
    const std::uint32_t* lists;
};

Arrival arrival(const std::uint64_t (&input)[5])
{
    return {reinterpret_cast<const Instr*>(input[1]), reinterpret_cast<std::uint64_t*>(input[2]),
            reinterpret_cast<const std::uint32_t*>(input[3])};
}

using Tile = std::array<std::array<float, kTile>, kTile>;

// The tile a fragment operand of every lane spreads over the warp; an element two lanes hold is the lower lane's.
Tile gather(const std::uint64_t (*inputs)[5], unsigned operand, Matrix matrix, Ty ty)
{
    Tile t{};
    const unsigned elements = elements_of(matrix, ty);
    for (unsigned l = 32; l-- > 0;) {
        const Arrival a = arrival(inputs[l]);
        std::uint32_t words[8];
        read_fragment(a.r, a.lists, a.in->o[operand], words);
        for (unsigned e = 0; e < elements; ++e) {
            const auto [row, column] = place(matrix, elements, l, e);
            t[row][column] = element(words, ty, e);
        }
    }
    return t;
}

// wmma.mma.sync.aligned.{row,col}.{row,col}.m16n16k16.dtype.ctype d, a, b, c: D = A·B + C. The layouts
// qualify the loads' memory, not the registers (the same here for both). A product of f16 or bf16 inputs
// is exact in float (11 or 8 significant bits each; bf16's exponent range is float's, so an overflow is the
// GPU's too); each element of D starts from C's and adds the 16 products in order of k, each sum rounded
// to float, and an f16 D is rounded once at the end. PTX does not fix the tensor cores' order or rounding
// of the sums, so a GPU may differ in the last bits of a sum whose terms do not all fit 24 bits.
std::string multiply_warp_matrices(const std::uint64_t (*inputs)[5])
{
    const Instr& in = *arrival(inputs[0]).in;
    for (unsigned l = 1; l < 32; ++l)
        if (arrival(inputs[l]).in != &in)
            return "wmma.mma.sync.aligned: lane 0 and lane " + std::to_string(l) + " of the warp reached different wmma.mma instructions";
    const Ty input = in.sub == Sub::WmmaBf16 ? Ty::BF16 : Ty::F16;
    const Tile a = gather(inputs, 1, Matrix::A, input), b = gather(inputs, 2, Matrix::B, input),
               c = gather(inputs, 3, Matrix::C, in.ty2);
    Tile d = c;
    for (unsigned m = 0; m < kTile; ++m)
        for (unsigned n = 0; n < kTile; ++n)
            for (unsigned k = 0; k < kTile; ++k) {
                const float product = a[m][k] * b[k][n];  // exact, so contraction into an fma changes nothing
                d[m][n] += product;
            }
    for (unsigned l = 0; l < 32; ++l) {
        const Arrival lane = arrival(inputs[l]);
        std::uint32_t words[8] = {};
        for (unsigned e = 0; e < 8; ++e) {
            const auto [row, column] = place(Matrix::C, 8, l, e);
            set_element(words, in.ty, e, d[row][column]);
        }
        write_fragment(lane.r, lane.lists, in.o[0], words);
    }
    return {};
}

// The byte offset of element (row, column) in memory of `stride` elements a line, in the instruction's layout.
std::uint64_t offset_of(const Instr& in, unsigned row, unsigned column, std::uint64_t stride)
{
    const bool by_column = column_major(in.sub);
    return ((by_column ? column : row) * stride + (by_column ? row : column)) * ty_bytes(in.ty);
}

// The stride operand in elements, 16 (the tile's) when the form has none.
std::uint64_t stride_of(const Interpreter& it, const Frame& fr, const Instr& in)
{
    return in.nops > 2 ? static_cast<std::uint32_t>(it.get(fr, in.o[2])) : kTile;
}

// CUDA's rule for load_matrix_sync and store_matrix_sync (NVIDIA, CUDA C++ Programming Guide, "Warp Matrix
// Functions"): the pointer 256-bit aligned, the stride a multiple of 16 bytes. The pointer is checked in global
// memory only, where the program places its data (a shared variable's placement is the compiler's).
void check_placement(const Interpreter& it, const Instr& in, std::uint64_t base, std::uint64_t stride)
{
    const char* call = in.op == Op::WmmaStore ? "store_matrix_sync" : "load_matrix_sync";
    if (stride * ty_bytes(in.ty) % 16 != 0)
        it.fail(in, std::string(call) + " with a stride of " + std::to_string(stride) + " elements of " +
                        std::to_string(ty_bytes(in.ty)) + " bytes: it must be a multiple of 16 bytes");
    const bool global = in.space == Space::Global ||
                        (in.space == Space::Generic && !(base >= kSharedWindow && base < kSharedWindow + kWindowSize) &&
                         !(base >= kLocalWindow && base < kLocalWindow + kWindowSize));
    if (global && base % 32 != 0)
        it.fail(in, std::string(call) + " at an address " + std::to_string(base % 32) +
                        " bytes past a 32-byte boundary: the matrix must start 256-bit aligned");
}

}  // namespace

// Reads wmma.load.{a,b,c}, wmma.store.d and wmma.mma of the m16n16k16 shape (f16 or bf16 inputs, an f16
// or f32 accumulator; no .satfinite); any other form stays Unsupported, so that running it says so.
void decode_wmma(const std::vector<std::string_view>& q, Instr& in)
{
    in.op = Op::Unsupported;
    std::size_t k = 2;
    Op op = Op::WmmaMma;
    std::string_view matrix = "d";
    if (q.size() > 2 && q[1] == "load" && (q[2] == "a" || q[2] == "b" || q[2] == "c")) op = Op::WmmaLoad, matrix = q[2], k = 3;
    else if (q.size() > 2 && q[1] == "store" && q[2] == "d") op = Op::WmmaStore, k = 3;
    else if (q.size() < 2 || q[1] != "mma") return;
    auto next = [&](std::string_view word) { return k < q.size() && q[k] == word ? (++k, true) : false; };
    if (!next("sync") || !next("aligned")) return;
    bool columns[2] = {false, false};
    for (unsigned n = 0; n < (op == Op::WmmaMma ? 2u : 1u); ++n) {
        if (next("col")) columns[n] = true;
        else if (!next("row")) return;
    }
    if (!next("m16n16k16")) return;
    if (op == Op::WmmaMma) {
        // .dtype.ctype for f16 inputs; .f32.bf16.bf16.f32 for bf16 ones
        if (q.size() == k + 4 && q[k] == "f32" && q[k + 1] == "bf16" && q[k + 2] == "bf16" && q[k + 3] == "f32")
            in.sub = Sub::WmmaBf16, in.ty = in.ty2 = Ty::F32;
        else if (q.size() == k + 2 && (q[k] == "f16" || q[k] == "f32") && (q[k + 1] == "f16" || q[k + 1] == "f32"))
            in.sub = Sub::WmmaF16, in.ty = type_of(q[k]), in.ty2 = type_of(q[k + 1]);
        else return;
        in.op = op;
        return;
    }
    if (next("global")) in.space = Space::Global;
    else if (next("shared") || next("shared::cta")) in.space = Space::Shared;
    if (q.size() != k + 1) return;
    in.ty = type_of(q[k]);
    const bool accumulator = matrix == "c" || matrix == "d";
    if (accumulator ? in.ty != Ty::F16 && in.ty != Ty::F32 : in.ty != Ty::F16 && in.ty != Ty::BF16) return;
    const bool col = columns[0];
    in.sub = matrix == "a" ? (col ? Sub::WmmaColA : Sub::WmmaRowA)
           : matrix == "b" ? (col ? Sub::WmmaColB : Sub::WmmaRowB) : (col ? Sub::WmmaColC : Sub::WmmaRowC);
    in.op = op;
}

// The lane's elements of a fragment in runs that lie contiguous in memory, of up to 16 bytes: one vector
// access each, as the GPU's loads and stores are (the coalescing report then sees a row's run as one
// request, not one a half). access(first element, elements, byte offset from the matrix's start).
template <class Access>
void for_each_run(const Instr& in, Matrix matrix, unsigned elements, unsigned lane, std::uint64_t stride, Access access)
{
    const unsigned size = ty_bytes(in.ty);
    auto offset = [&](unsigned e) {
        const auto [row, column] = place(matrix, elements, lane, e);
        return offset_of(in, row, column, stride);
    };
    for (unsigned first = 0; first < elements;) {
        const std::uint64_t at = offset(first);
        unsigned count = 1;
        while (first + count < elements && (count + 1) * size <= 16 && offset(first + count) == at + count * size) ++count;
        access(first, count, at);
        first += count;
    }
}

// wmma.load.{a,b,c}.sync.aligned.layout.m16n16k16{.space}.type d, [p]{, stride}
Outcome exec_wmma_load(Interpreter& it, const Frame& fr, const Instr& in, std::size_t& pc)
{
    if (it.round_pending(pc)) return Outcome::Wait;
    const Matrix matrix = matrix_of(in.sub);
    check_fragment(it, in, in.o[0], registers_of(matrix, in.ty));
    const unsigned elements = elements_of(matrix, in.ty), size = ty_bytes(in.ty);
    const std::uint64_t base = it.address(fr, in.o[1]), stride = stride_of(it, fr, in);
    check_placement(it, in, base, stride);
    std::uint32_t words[8] = {};  // the elements in order, two 16-bit ones a word low half first
    auto* bytes = reinterpret_cast<unsigned char*>(words);
    for_each_run(in, matrix, elements, it.t_->lane.lane % 32, stride, [&](unsigned first, unsigned count, std::uint64_t at) {
        const Interpreter::Target tg = it.resolve(fr, in, in.space, base + at, count * size, Kind::Load);
        std::memcpy(bytes + first * size, tg.p, count * size);
        it.record(in, Kind::Load, tg, count * size, bytes + first * size);
    });
    write_fragment(fr.r, fr.f->lists.data(), in.o[0], words);
    return Outcome::Next;
}

// wmma.store.d.sync.aligned.layout.m16n16k16{.space}.type [p], d{, stride}
Outcome exec_wmma_store(Interpreter& it, const Frame& fr, const Instr& in, std::size_t& pc)
{
    if (it.round_pending(pc)) return Outcome::Wait;
    check_fragment(it, in, in.o[1], registers_of(Matrix::C, in.ty));
    const unsigned size = ty_bytes(in.ty);
    const std::uint64_t base = it.address(fr, in.o[0]), stride = stride_of(it, fr, in);
    check_placement(it, in, base, stride);
    std::uint32_t words[8] = {};
    read_fragment(fr.r, fr.f->lists.data(), in.o[1], words);
    const auto* bytes = reinterpret_cast<const unsigned char*>(words);
    for_each_run(in, Matrix::C, 8, it.t_->lane.lane % 32, stride, [&](unsigned first, unsigned count, std::uint64_t at) {
        const Interpreter::Target tg = it.resolve(fr, in, in.space, base + at, count * size, Kind::Store, bytes + first * size);
        std::memcpy(tg.p, bytes + first * size, count * size);
        it.record(in, Kind::Store, tg, count * size, bytes + first * size);
    });
    return Outcome::Next;
}

// wmma.mma's arrival at the warp's product (interp_collectives.cpp): checked here, computed once all 32 lanes have arrived.
void arrive_at_warp_product(const Interpreter& it, const Frame& fr, const Instr& in)
{
    const Ty input = in.sub == Sub::WmmaBf16 ? Ty::BF16 : Ty::F16;
    check_fragment(it, in, in.o[0], registers_of(Matrix::C, in.ty));
    check_fragment(it, in, in.o[1], registers_of(Matrix::A, input));
    check_fragment(it, in, in.o[2], registers_of(Matrix::B, input));
    check_fragment(it, in, in.o[3], registers_of(Matrix::C, in.ty2));
    const emu::detail::WarpProduct product = multiply_warp_matrices;
    const std::uint64_t words[4] = {reinterpret_cast<std::uint64_t>(product), reinterpret_cast<std::uint64_t>(&in),
                                    reinterpret_cast<std::uint64_t>(fr.r), reinterpret_cast<std::uint64_t>(fr.f->lists.data())};
    emu::detail::collective_arrive(emu::detail::CollectiveOp::WarpMatrix, 0xFFFFFFFFu, words, sizeof words, 0,
                                   static_cast<int>(it.t_->L->warp_size), it.file(in), it.line(in));
}

}  // namespace wl::ptx::detail
