#!/usr/bin/env python3
"""An outline of an sm_90 cubin's SASS where no nvdisasm is at hand, and the
ptxas shape behind the H100's unexplained mismatches.

Each 128-bit instruction is named by its operation (the low 9 bits of its first
64-bit word; the next 3 bits choose the operand form) from the few families the
differential reading needs, with its guard predicate, its register fields and,
for a cubin built with -lineinfo, the PTX line it came from (the cubin's
.nv_debug_line_sass maps SASS offsets to lines of its .nv_debug_ptx_txt). The
operation numbers are Ampere's, as CuAssembler's instruction repositories (by
cloudcores) list them; Hopper keeps them for these families. An operation not
in the table prints as op_XXX.

    sass_outline.py KERNEL.cubin             every instruction
    sass_outline.py --orphans KERNEL.cubin   each WARPSYNC whose collective ptxas dropped, and the
                                             collectives and barriers after it that have no WARPSYNC

An orphaned WARPSYNC: a WARPSYNC with a register mask (a cooperative groups
tile's lanes; cuobjdump calls the form ptxas puts before a tile's vote or
reduction WARPSYNC.EXCLUSIVE) made for a PTX collective whose instruction
ptxas dropped (no collective instruction comes from its PTX line). After it the warp runs as
separate groups, which the collectives and block barriers that follow,
compiled with no WARPSYNC of their own, do not wait for
(results/differential/README.md).
"""
import argparse
import os
import re
import struct
import subprocess
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "cmake"))
import sass_map  # noqa: E402  (the cubin's ELF sections and DWARF line tables)

OPERATIONS = {
    0x148: "WARPSYNC", 0x145: "BSSY", 0x141: "BSYNC", 0x11d: "BAR", 0x006: "VOTE", 0x086: "VOTEU",
    0x1c4: "REDUX", 0x1a1: "MATCH", 0x189: "SHFL", 0x147: "BRA", 0x14d: "EXIT", 0x144: "CALL", 0x143: "CALL",
    0x150: "RET", 0x188: "STS", 0x184: "LDS", 0x186: "STG", 0x181: "LDG", 0x18c: "ATOMS", 0x105: "F2I",
    0x104: "F2F", 0x106: "I2F", 0x02b: "DFMA", 0x029: "DADD", 0x028: "DMUL", 0x023: "FFMA", 0x020: "FMUL",
    0x021: "FADD", 0x090: "UIADD3", 0x091: "ULEA", 0x082: "UMOV",
    0x1c3: "S2UR", 0x119: "S2R", 0x024: "IMAD", 0x025: "IMAD.WIDE", 0x010: "IADD3", 0x011: "LEA", 0x012: "LOP3",
    0x00c: "ISETP", 0x007: "SEL", 0x002: "MOV", 0x182: "LDC",
}
COLLECTIVE = re.compile(r"^(VOTE|REDUX|MATCH|SHFL)$")
WARPSYNC_REGISTER, WARPSYNC_IMMEDIATE = 0x348, 0x948  # a mask in a register, or in the instruction
EXCLUSIVE = 1 << 21  # in the high word: WARPSYNC.EXCLUSIVE, as cuobjdump names it
PTX_LINE_TABLE = ".nv_debug_line_sass"  # nvcc's table of SASS offsets to lines of .nv_debug_ptx_txt


class Instruction:
    def __init__(self, offset, low, high):
        self.offset, self.low, self.high = offset, low, high
        self.name = OPERATIONS.get(low & 0x1ff, f"op_{low & 0xfff:03x}")
        if (low & 0xfff) == WARPSYNC_REGISTER and high & EXCLUSIVE:
            self.name = "WARPSYNC.EXCLUSIVE"  # nvdisasm's name: the mask's threads go on as a group of their own
        elif (low & 0xfff) == WARPSYNC_IMMEDIATE and low >> 32 == 0:
            self.name = "WARPSYNC.ALL"
        self.ptx = ""  # the PTX line it came from, with its number
        self.line = None

    def guard(self):
        p = (self.low >> 12) & 0xf
        return "" if p == 7 else ("@!" if p & 8 else "@") + ("PT" if p & 7 == 7 else f"P{p & 7}")

    def fields(self):
        """The register fields as Ampere lays them out (d, a, b in the low word; c in the high)."""
        return f"d=R{(self.low >> 16) & 0xff} a=R{(self.low >> 24) & 0xff} b=R{(self.low >> 32) & 0xff} c=R{self.high & 0xff}"

    def __str__(self):
        return f"{self.offset:05x} {self.guard():5s} {self.name:18s} {self.fields():30s} {self.low:016x} {self.high:016x}  {self.ptx}"


def outline(path):
    """{kernel's text section name: [Instruction]} of a cubin, each with its PTX line where known."""
    with open(path, "rb") as f:
        elf = sass_map.Elf(f.read())
    ptx_index = elf.find(".nv_debug_ptx_txt")
    ptx = elf.content(ptx_index).decode(errors="replace").split("\0") if ptx_index is not None else []
    rows = sass_map.line_rows(elf, PTX_LINE_TABLE) if elf.find(PTX_LINE_TABLE) is not None else {}
    kernels = {}
    for index, section in enumerate(elf.sections):
        if not section["name"].startswith(".text."):
            continue
        code, known = elf.content(index), {address: line for address, _, line in rows.get(index, [])}
        instructions, line = [], None
        for offset in range(0, len(code) - sass_map.INSTRUCTION_BYTES + 1, sass_map.INSTRUCTION_BYTES):
            instruction = Instruction(offset, *struct.unpack_from("<QQ", code, offset))
            line = known.get(offset, line)
            if line and line <= len(ptx):
                instruction.line, instruction.ptx = line, f"{line}: {ptx[line - 1].strip()}"
            instructions.append(instruction)
        kernels[section["name"][len(".text."):]] = instructions
    return kernels


def orphans(rows):
    """[(the orphaned WARPSYNC, [the collectives and barriers after it with no WARPSYNC between])].
    With line information (-lineinfo), a WARPSYNC with a register mask is orphaned when no
    collective comes from its PTX line; without, when none of the next two instructions is one."""
    lines_with_collective = {r.line for r in rows if COLLECTIVE.match(r.name) and r.line}
    found = []
    for i, ins in enumerate(rows):
        if (ins.low & 0xfff) != WARPSYNC_REGISTER:
            continue
        if ins.line and ins.line in lines_with_collective:
            continue
        if not ins.line and any(COLLECTIVE.match(r.name) for r in rows[i + 1: i + 3]):
            continue
        after = []
        for r in rows[i + 1:]:
            if r.name.startswith("WARPSYNC") or r.name in ("EXIT", "RET"):
                break
            if COLLECTIVE.match(r.name) or r.name == "BAR":
                after.append(r)
        found.append((ins, after))
    return found


def orphaned_in_program(nvcc, source, cubin):
    """{kernel: its orphaned WARPSYNCs (orphans())} of a CUDA program, built for sm_90 with -lineinfo."""
    subprocess.run([nvcc, "-arch=sm_90", "-cubin", "-lineinfo", "-o", cubin, source], check=True, capture_output=True)
    return {name: found for name, rows in outline(cubin).items() if (found := orphans(rows))}


def ptxas_notes(nvcc, seed, indices, work, simd=False):
    """A line for each generated kernel among `indices` whose SASS has an orphaned WARPSYNC: where
    such a kernel's words part from the emulator's, ptxas's code is the likelier cause."""
    import generate  # beside this file
    notes = []
    os.makedirs(work, exist_ok=True)
    for index in indices:
        source = os.path.join(work, f"ptxas-{index}.cu")
        with open(source, "w") as f:
            f.write(generate.batch(seed, index, 1, simd)[0])
        try:
            found = orphaned_in_program(nvcc, source, source[:-3] + ".cubin")
        except (subprocess.CalledProcessError, OSError, ValueError, struct.error) as e:
            notes.append(f"ptxas: kernel {index}: not read ({e})")
            continue
        for kernel, orphaned in found.items():
            first = orphaned[0][0]
            notes.append(f"ptxas: kernel {index}: {len(orphaned)} orphaned WARPSYNC in its SASS (the first at {first.offset:#x}, "
                         f"for PTX line {first.ptx or '?'}): ptxas dropped a tile collective and kept its warp split, "
                         f"so later full-warp collectives and barriers may run on part of the warp "
                         f"(results/differential/README.md)")
    return notes


def main(argv):
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("cubin")
    p.add_argument("--orphans", action="store_true", help="only the orphaned WARPSYNCs and what follows them")
    a = p.parse_args(argv)
    try:
        kernels = outline(a.cubin)
    except (OSError, struct.error, ValueError, IndexError) as e:
        print(f"sass_outline: {a.cubin} is not a readable cubin: {e}", file=sys.stderr)
        return 2
    for name, rows in kernels.items():
        print(f"== {name}")
        if not a.orphans:
            print("\n".join(str(r) for r in rows))
            continue
        for warpsync, after in orphans(rows):
            print(f"orphaned {warpsync}")
            print("\n".join(f"    then {r}" for r in after) or "    then no collective or barrier before the next WARPSYNC")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
