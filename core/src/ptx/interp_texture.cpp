// Texture fetches: `tex.1d.v4.dtype.ctype d, [texture, {x}]` and
// `tex.2d.v4.dtype.ctype d, [texture, {x, y}]` (the PTX ISA's texture
// instruction, unified mode: the texture is a texture object's handle in a
// register), which nvcc emits for tex1Dfetch, tex1D and tex2D. The texel is
// warplab/emu/texture.h's; what the emulator cannot sample faults at the line.
// The fetch reads through the texture path, not as a load: the trace records
// no access for it (nor does the GPU trace) and the race check does not see it.
#include <bit>

#include "interp.h"
#include "warplab/emu/texture.h"

namespace wl::ptx::detail {

Outcome exec_texture(Interpreter& it, const Frame& fr, const Instr& in, std::size_t&)
{
    const std::uint64_t texture = it.get(fr, in.o[1]);
    const Operand& coordinates = in.o[2];
    emu::TexelCoords at;
    at.dims = coordinates.n;
    at.integer = in.ty2 == Ty::S32;
    for (unsigned k = 0; k < coordinates.n && k < 2; ++k) {
        const std::uint32_t reg = fr.f->lists[coordinates.reg + k];
        const auto bits = reg == kNoReg ? 0u : static_cast<std::uint32_t>(fr.r[reg]);
        if (at.integer) at.i[k] = static_cast<std::int32_t>(bits);
        else at.f[k] = std::bit_cast<float>(bits);
    }
    std::uint32_t texel[4];
    std::string why;
    if (!emu::fetch_texel(texture, at, texel, why)) it.fail(in, why);
    const Operand& d = in.o[0];
    if (d.kind == OpKind::Vec) {
        for (unsigned k = 0; k < d.n && k < 4; ++k)
            if (const std::uint32_t reg = fr.f->lists[d.reg + k]; reg != kNoReg) fr.r[reg] = texel[k];
    } else {
        Interpreter::put(fr, d, in.ty, texel[0]);
    }
    return Outcome::Next;
}

}  // namespace wl::ptx::detail
