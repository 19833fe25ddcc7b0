#!/usr/bin/env python3
"""The shared-memory instructions ptxas makes of a lab's PTX, per source line.

ptxas merges neighbouring scalar `ld.shared` of one thread into LDS.64 or
LDS.128 (and `st.shared` into STS.64/128) where registers and alignment
allow: below the PTX that warplab's emulator runs, and not predictable from
it. This assembles the PTX for the H100 (`ptxas -arch=sm_90 -lineinfo`),
reads the machine code's LDS and STS instructions and, from the line table,
the source line of each, and writes per kernel and line how many of each
width there are:

  kernel <mangled name>
  <file>:<line> load|store <bytes>x<count>

The analysis (core/src/trace/machine_code.cpp) groups a line's PTX accesses
into accesses of that width before counting. kernels/ptx/<lab>.sass ships
the result for builds without the CUDA toolkit.

  python3 cmake/sass_map.py --ptxas <ptxas> --ptx build/ptx/lab.ptx --name kernels/ptx/lab.ptx --out lab.sass

Machine-code facts used (sm_90, 128-bit instructions): the opcode is bits
0-11 (0x984 LDS, 0x388 STS); bits 73-75 are the width (4: 32 bits, 5: 64,
6: 128; below 4: 8 and 16 bits). The line table is DWARF's .debug_line,
one sequence per kernel, its start address relocated to the kernel's
.text section by .rela.debug_line.
"""
import argparse
import bisect
import collections
import os
import struct
import subprocess
import sys
import tempfile

ARCH = "sm_90"
OPCODES = {0x984: "load", 0x388: "store"}       # LDS, STS
WIDTH_BYTES = {0: 1, 1: 1, 2: 2, 3: 2, 4: 4, 5: 8, 6: 16, 7: 16}
INSTRUCTION_BYTES = 16


def leb128(b, i, signed=False):
    """DWARF's variable-length number at b[i]: (value, index after it)."""
    value = shift = 0
    while True:
        byte = b[i]
        i += 1
        value |= (byte & 0x7F) << shift
        shift += 7
        if byte < 0x80:
            return (value - (1 << shift) if signed and byte & 0x40 else value), i


class Elf:
    """The sections and symbols of a 64-bit little-endian ELF file (a cubin)."""

    def __init__(self, data):
        self.data = data
        if data[:4] != b"\x7fELF" or data[4] != 2:
            raise ValueError("not a 64-bit ELF file")
        shoff, = struct.unpack_from("<Q", data, 0x28)
        shentsize, shnum, shstrndx = struct.unpack_from("<HHH", data, 0x3A)
        self.sections = []
        for i in range(shnum):
            name, _type, _flags, _addr, off, size, link, info, _align, _entsize = struct.unpack_from(
                "<IIQQQQIIQQ", data, shoff + i * shentsize)
            self.sections.append({"name": name, "off": off, "size": size, "link": link, "info": info})
        names = self.sections[shstrndx]["off"]
        for s in self.sections:
            s["name"] = self.string(names + s["name"])

    def string(self, off):
        return self.data[off:self.data.index(b"\0", off)].decode()

    def find(self, name):
        return next((i for i, s in enumerate(self.sections) if s["name"] == name), None)

    def content(self, index):
        s = self.sections[index]
        return self.data[s["off"]:s["off"] + s["size"]]

    def symbol_sections(self):
        """Section index of each symbol, by symbol number."""
        table = self.sections[self.find(".symtab")]
        return [struct.unpack_from("<IBBHQQ", self.data, table["off"] + off)[3] for off in range(0, table["size"], 24)]


def relocated_sections(elf, table=".debug_line"):
    """{offset in the line table: the section its address refers to}."""
    rela = elf.find(".rela" + table)
    if rela is None:
        return {}
    symbols = elf.symbol_sections()
    out = {}
    for off, info, _addend in struct.iter_unpack("<QQq", elf.content(rela)):
        out[off] = symbols[info >> 32]
    return out


def line_rows(elf, table=".debug_line"):
    """{text section index: sorted [(address, file base name, line)]} from a line table: .debug_line
    (source lines), or nvcc's .nv_debug_line_sass (lines of the PTX in .nv_debug_ptx_txt, no file names)."""
    index = elf.find(table)
    if index is None:
        raise ValueError("no line table: assemble with -lineinfo")
    b, relocation, rows = elf.content(index), relocated_sections(elf, table), collections.defaultdict(list)
    unit = 0
    while unit < len(b):
        length, version, header_length = struct.unpack_from("<IHI", b, unit)
        end, i = unit + 4 + length, unit + 10
        min_length = b[i]
        i += 2 if version >= 4 else 1
        line_base = struct.unpack_from("<b", b, i + 1)[0]
        line_range, opcode_base = b[i + 2], b[i + 3]
        operand_counts = b[i + 4:i + 3 + opcode_base]
        i += 3 + opcode_base
        while b[i]:  # include directories
            i = b.index(b"\0", i) + 1
        i += 1
        files = [""]
        while b[i]:
            stop = b.index(b"\0", i)
            files.append(os.path.basename(b[i:stop].decode()))
            i = stop + 1
            for _ in range(3):
                _, i = leb128(b, i)
        if len(files) == 1:  # no file table (nvcc's PTX line table): file 1 has no name
            files.append("")
        i = unit + 10 + header_length
        address, file, line, section = 0, 1, 1, None
        while i < end:
            op = b[i]
            i += 1
            if op >= opcode_base:
                step = op - opcode_base
                address += step // line_range * min_length
                line += line_base + step % line_range
                rows[section].append((address, files[file], line))
            elif op == 0:  # extended: end of sequence, set address, or NVIDIA's own (skipped)
                size, i = leb128(b, i)
                if b[i] == 1:
                    address, file, line, section = 0, 1, 1, None
                elif b[i] == 2:
                    address, = struct.unpack_from("<Q", b, i + 1)
                    section = relocation.get(i + 1)
                i += size
            elif op == 1:
                rows[section].append((address, files[file], line))
            elif op == 2:
                advance, i = leb128(b, i)
                address += advance * min_length
            elif op == 3:
                advance, i = leb128(b, i, signed=True)
                line += advance
            elif op == 4:
                file, i = leb128(b, i)
            elif op == 8:
                address += (255 - opcode_base) // line_range * min_length
            elif op == 9:
                address += struct.unpack_from("<H", b, i)[0]
                i += 2
            else:
                for _ in range(operand_counts[op - 1]):
                    _, i = leb128(b, i)
        unit = end
    return {k: sorted(v) for k, v in rows.items()}


def shared_instructions(elf):
    """{kernel: Counter((file, line, load|store, bytes))}."""
    rows = line_rows(elf)
    kernels = {}
    for index, s in enumerate(elf.sections):
        if not s["name"].startswith(".text."):
            continue
        kernel_rows = rows.get(index, [])
        addresses = [r[0] for r in kernel_rows]
        counts = collections.Counter()
        code = elf.content(index)
        for address in range(0, len(code) - INSTRUCTION_BYTES + 1, INSTRUCTION_BYTES):
            low, high = struct.unpack_from("<QQ", code, address)
            kind = OPCODES.get(low & 0xFFF)
            if not kind:
                continue
            at = bisect.bisect_right(addresses, address) - 1
            if at < 0:
                raise ValueError(f"{s['name']}: no source line for the instruction at {address:#x}")
            _, file, line = kernel_rows[at]
            counts[(file, line, kind, WIDTH_BYTES[(high >> 9) & 7])] += 1
        kernels[s["name"][len(".text."):]] = counts
    return kernels


def sass_text(kernels, header):
    lines = [header]
    for kernel in sorted(kernels):
        lines.append(f"kernel {kernel}")
        for (file, line, kind, width), count in sorted(kernels[kernel].items()):
            lines.append(f"{file}:{line} {kind} {width}x{count}")
    return "\n".join(lines) + "\n"


def ptxas_version(ptxas):
    out = subprocess.run([ptxas, "--version"], check=True, capture_output=True, text=True).stdout
    return next((l.strip() for l in out.splitlines() if "release" in l), "unknown ptxas")


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--ptxas", required=True)
    p.add_argument("--ptx", required=True)
    p.add_argument("--name", required=True, help="the PTX's name in the header (kernels/ptx/<lab>.ptx)")
    p.add_argument("--out", required=True)
    args = p.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        cubin = os.path.join(tmp, "lab.cubin")
        done = subprocess.run([args.ptxas, f"-arch={ARCH}", "-lineinfo", args.ptx, "-o", cubin],
                              capture_output=True, text=True)
        if done.returncode:
            print(f"ptxas failed on {args.ptx}:\n{done.stderr}", file=sys.stderr)
            return 1
        with open(cubin, "rb") as f:
            kernels = shared_instructions(Elf(f.read()))
    header = (f"# ptxas -arch={ARCH} -lineinfo {args.name} ({ptxas_version(args.ptxas)}): the LDS and STS "
              f"instructions of each kernel, per source line, as bytes x count (cmake/sass_map.py)")
    with open(args.out + ".tmp", "w") as f:
        f.write(sass_text(kernels, header))
    os.replace(args.out + ".tmp", args.out)
    return 0


if __name__ == "__main__":
    sys.exit(main())
