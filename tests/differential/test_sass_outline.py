#!/usr/bin/env python3
"""sass_outline.py reads the ptxas shapes behind the H100 mismatches that PTX does
not explain, in SASS that nvcc builds here (results/differential/README.md):

- an unused tile collective leaves an orphaned WARPSYNC, followed by full-warp
  collectives or a block barrier with none of their own, in each unused case of
  probes/dead_tile_collective.cu and in generated kernel 9903, and in none of
  the probe's used cases nor in 9903 with narrow.py's step stores (which read
  the tile's result);
- the low byte of a 16-bit float's bits goes to memory through an F2I of the
  register (probes/bf16_byte_store.cu), in every case;
- ptxas folds a mul and an add into an fma only where the product has no
  other reader and the two share a block or the mul has an immediate operand
  (kernel 7591's pair, apart across a call and a branch, it left apart), and
  more shapes of it (every reader an add, which instructions end a block);
- a file that is no cubin is a one-line error, exit 2.

It pins what ptxas of CUDA 13.0 writes for sm_90: a ptxas that no longer makes
these shapes fails it, and then the probes should run on a GPU again
(probes/run_probes.sh) and the record be read anew.

    test_sass_outline.py --work DIR

Prints "needs nvcc" and succeeds (CTest: skipped) without the CUDA toolkit.
"""
import argparse
import os
import shutil
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import generate  # noqa: E402
import narrow  # noqa: E402
import sass_outline  # noqa: E402

failures = []


def check(ok, what):
    print(("ok: " if ok else "FAILED: ") + what)
    if not ok:
        failures.append(what)


def cubin(nvcc, source, work, name):
    out = os.path.join(work, name + ".cubin")
    subprocess.run([nvcc, "-arch=sm_90", "-cubin", "-lineinfo", "-o", out, source], check=True, capture_output=True)
    return sass_outline.outline(out)


def unused_tile_collectives(nvcc, work):
    kernels = cubin(nvcc, os.path.join(HERE, "probes", "dead_tile_collective.cu"), work, "dead_tile_collective")
    for name, rows in sorted(kernels.items()):
        unused = "Lb0E" in name  # the template's Used argument, false
        found = sass_outline.orphans(rows)
        after = [r.name for _, rest in found for r in rest]
        if not unused:
            check(not found, f"{name}: the tile's result used, no orphaned WARPSYNC ({len(found)})")
        elif "tile_then_exchange" in name:
            check(len(found) == 1 and "BAR" in after, f"{name}: one orphaned WARPSYNC, then the block barrier without one")
        else:
            collectives = [a for a in after if sass_outline.COLLECTIVE.match(a)]
            check(len(found) == 1 and len(collectives) >= 4,
                  f"{name}: one orphaned WARPSYNC, then the four warp collectives without one ({len(found)}, {len(collectives)})")
    check(sum("Lb0E" in n for n in kernels) == 4 and sum("Lb1E" in n for n in kernels) == 3,
          "the probe's seven cases: four with the tile's result unused, three used")


def generated_kernel_9903(nvcc, work):
    plain = os.path.join(work, "k9903.cu")
    with open(plain, "w") as f:
        f.write(generate.batch(1, 9903, 1)[0])
    stepped = os.path.join(work, "s9903.cu")
    with open(stepped, "w") as f:
        f.write(narrow.stepped_program(1, [9903])[0])
    (rows,) = cubin(nvcc, plain, work, "k9903").values()
    found = sass_outline.orphans(rows)
    check(len(found) == 1 and "redux.sync" in found[0][0].ptx and [r.name for r in found[0][1]] == ["VOTE", "SHFL"],
          "kernel 9903: the tile reduction's WARPSYNC orphaned, then the 32-lane ballot and shuffle without one")
    (rows,) = cubin(nvcc, stepped, work, "s9903").values()
    check(not sass_outline.orphans(rows), "kernel 9903 with its step stores: no orphaned WARPSYNC")


def notes_for_a_run(nvcc, work):
    """gpu_record.py's ptxas lines: kernel 9903 has one, kernel 52 (NaN operands, no tile) none."""
    notes = sass_outline.ptxas_notes(nvcc, 1, [52, 9903], os.path.join(work, "notes"))
    check(len(notes) == 1 and notes[0].startswith("ptxas: kernel 9903: 1 orphaned WARPSYNC") and "redux.sync" in notes[0],
          f"a run's ptxas lines: kernel 9903's orphaned WARPSYNC, nothing for kernel 52 ({notes})")


def byte_of_pattern(nvcc, work):
    kernels = cubin(nvcc, os.path.join(HERE, "probes", "bf16_byte_store.cu"), work, "bf16_byte_store")
    for name, rows in sorted(kernels.items()):
        converted = {(r.low >> 16) & 0xff for r in rows if r.name == "F2I"}
        stored = [r for r in rows if r.name in ("STS", "STG") and (r.low >> 32) & 0xff in converted]
        check(len(stored) == 1, f"{name}: the byte stored is an F2I's result ({len(stored)} such stores)")
    check(len(kernels) == 4, f"bf16_byte_store's four cases ({len(kernels)})")


# ptxas's contraction of a mul and an add or sub without a rounding modifier (PTX lets it
# fold them into one fma): kernel 7591 of seed 1 has such a pair apart (the mul before a call,
# the add in a branch), which ptxas left as FMUL and FADD. Each case below is PTX written
# here: the mul's product read by the add alone or also stored, the two in one block or with
# a branch or a call between, the mul's second operand a register or an immediate. ptxas
# folds exactly where the product has no other reader and the two share a block or the mul
# has an immediate operand.
CONTRACTION_PTX = """.version 9.0
.target sm_90
.address_size 64
.func (.param .b32 out) kept(.param .b32 x)
{
	.reg .b32 %r<3>;
	ld.param.b32 %r1, [x];
	mul.lo.s32 %r2, %r1, 3;
	st.param.b32 [out], %r2;
	ret;
}
"""


def contraction_case(name, ty, op, between, immediate, stored):
    f, size = ("%fd", 8) if ty == "f64" else ("%f", 4)
    half, hundred = ("0d3FE0000000000000", "0d4059000000000000") if ty == "f64" else ("0f3F000000", "0f42C80000")
    lines = [f".reg .{ty} {f}<5>;", ".reg .b32 %r<3>;", ".reg .b64 %rd<4>;", ".reg .pred %p<2>;",
             "ld.param.u64 %rd1, [p];", "cvta.to.global.u64 %rd2, %rd1;", "mov.u32 %r1, %tid.x;",
             f"mul.wide.u32 %rd3, %r1, {size};", "add.s64 %rd2, %rd2, %rd3;",
             f"ld.global.{ty} {f}1, [%rd2];", f"ld.global.{ty} {f}2, [%rd2+512];", f"mov.{ty} {f}4, {f}1;",
             f"mul.{ty} {f}3, {f}1, {half if immediate else f + '2'};"]
    if stored:
        lines.append(f"st.global.{ty} [%rd2+2048], {f}3;")
    if between == "branch":
        lines += ["setp.lt.u32 %p1, %r1, 9;", "@%p1 bra SKIP;"]
    if between == "call":
        lines += ["{", ".param .b32 a0;", ".param .b32 r0;", "st.param.b32 [a0], %r1;", "call.uni (r0), kept, (a0);",
                  "ld.param.b32 %r2, [r0];", "}", "st.global.u32 [%rd2+3072], %r2;"]
    lines.append(f"{op}.{ty} {f}4, {f}3, {hundred};")
    if between == "branch":
        lines.append("SKIP:")
    lines += [f"st.global.{ty} [%rd2+1024], {f}4;", "ret;"]
    return f".visible .entry {name}(.param .u64 p)\n{{\n" + "\n".join("\t" + l for l in lines) + "\n}\n"


def contraction(nvcc, work):
    cases = {}
    for ty in ("f32", "f64"):
        for op in ("add", "sub"):
            for between in ("nothing", "branch", "call"):
                for immediate in (False, True):
                    for stored in (False, True):
                        name = f"{ty}_{op}_{between}_{'immediate' if immediate else 'register'}_{'stored' if stored else 'alone'}"
                        cases[name] = (contraction_case(name, ty, op, between, immediate, stored),
                                       not stored and (between == "nothing" or immediate))
    source = os.path.join(work, "contraction.ptx")
    with open(source, "w") as f:
        f.write(CONTRACTION_PTX + "\n".join(text for text, _ in cases.values()))
    out = os.path.join(work, "contraction.cubin")
    ptxas = os.path.join(os.path.dirname(nvcc), "ptxas")
    subprocess.run([ptxas, "-arch=sm_90", "-o", out, source], check=True, capture_output=True)
    kernels = sass_outline.outline(out)
    wrong = []
    for name, (_, folds) in cases.items():
        names = [r.name for r in kernels[name]]
        folded = ("FFMA" in names or "DFMA" in names) and "FMUL" not in names and "DMUL" not in names
        if folded != folds:
            wrong.append(f"{name}: {'folded' if folded else 'apart'}")
    check(not wrong and len(cases) == 48,
          f"ptxas folds a mul into an add or sub exactly where the product has no other reader and the two "
          f"share a block or the mul has an immediate operand, in 48 cases ({', '.join(wrong) or 'none otherwise'})")


# More shapes of the same contraction, which the emulator's test of it (tests/ptx/
# test_contraction.cpp, EveryReaderAndEveryBlockAsPtxasSawThem) follows: what decides is
# that every reader of the product is an add or sub (two adds fold both, a compare beside
# one keeps it apart); a guarded return ends a block, a bar.sync or a branch to the next
# instruction does not, a join does; add.sat folds; a product of registers hoisted out of
# a loop stays apart, of a register and an immediate folds. Each: its PTX lines after the
# loads (%f1, %f2, %f5 from memory, %f4 = %f1, %p1 false for thread 0) and whether it folds.
CONTRACTION_SHAPES = {
    "two_adds": (["mul.f32 %f3, %f1, %f2;", "add.f32 %f4, %f3, %f5;", "add.f32 %f6, %f3, %f1;", "add.f32 %f4, %f4, %f6;"], True),
    "add_and_compare": (["mul.f32 %f3, %f1, %f2;", "add.f32 %f4, %f3, %f5;", "setp.lt.f32 %p2, %f3, %f5;",
                         "@%p2 mov.f32 %f4, %f1;"], False),
    "sat": (["mul.f32 %f3, %f1, %f2;", "add.sat.f32 %f4, %f3, %f5;"], True),
    "barrier": (["mul.f32 %f3, %f1, %f2;", "bar.sync 0;", "add.f32 %f4, %f3, %f5;"], True),
    "guarded_return_register": (["mul.f32 %f3, %f1, %f2;", "@%p1 ret;", "add.f32 %f4, %f3, %f5;"], False),
    "guarded_return_immediate": (["mul.f32 %f3, %f1, 0f3F800800;", "@%p1 ret;", "add.f32 %f4, %f3, %f5;"], True),
    "branch_to_next": (["mul.f32 %f3, %f1, %f2;", "@%p1 bra NEXT;", "NEXT:", "add.f32 %f4, %f3, %f5;"], True),
    "join": (["mul.f32 %f3, %f1, %f2;", "@%p1 bra JOIN;", "add.f32 %f5, %f5, %f5;", "JOIN:", "add.f32 %f4, %f3, %f5;"], False),
    "loop_register": (["mul.f32 %f3, %f1, %f2;", "mov.u32 %r3, 0;", "LOOP:", "add.f32 %f4, %f3, %f4;", "add.s32 %r3, %r3, 1;",
                       "setp.lt.u32 %p2, %r3, %r2;", "@%p2 bra LOOP;"], False),
    "loop_immediate": (["mul.f32 %f3, %f1, 0f3F000000;", "mov.u32 %r3, 0;", "LOOP:", "add.f32 %f4, %f3, %f4;",
                        "add.s32 %r3, %r3, 1;", "setp.lt.u32 %p2, %r3, %r2;", "@%p2 bra LOOP;"], True),
}


def contraction_shapes(nvcc, work):
    head = [".reg .f32 %f<9>;", ".reg .b32 %r<5>;", ".reg .b64 %rd<4>;", ".reg .pred %p<3>;",
            "ld.param.u64 %rd1, [p];", "cvta.to.global.u64 %rd2, %rd1;", "mov.u32 %r1, %tid.x;",
            "mul.wide.u32 %rd3, %r1, 4;", "add.s64 %rd2, %rd2, %rd3;", "ld.global.f32 %f1, [%rd2];",
            "ld.global.f32 %f2, [%rd2+512];", "ld.global.f32 %f5, [%rd2+768];", "ld.global.u32 %r2, [%rd2+1536];",
            "mov.f32 %f4, %f1;", "setp.gt.u32 %p1, %r1, 9;"]
    text = CONTRACTION_PTX
    for name, (body, _) in CONTRACTION_SHAPES.items():
        lines = head + body + ["st.global.f32 [%rd2+1024], %f4;", "ret;"]
        text += f".visible .entry {name}(.param .u64 p)\n{{\n" + "\n".join("\t" + l for l in lines) + "\n}\n"
    source = os.path.join(work, "contraction_shapes.ptx")
    with open(source, "w") as f:
        f.write(text)
    out = os.path.join(work, "contraction_shapes.cubin")
    subprocess.run([os.path.join(os.path.dirname(nvcc), "ptxas"), "-arch=sm_90", "-o", out, source], check=True, capture_output=True)
    kernels = sass_outline.outline(out)
    wrong = []
    for name, (_, folds) in CONTRACTION_SHAPES.items():
        names = [r.name for r in kernels[name]]
        if ("FFMA" in names and "FMUL" not in names) != folds:
            wrong.append(f"{name}: {'folded' if folds else 'apart'} expected")
    check(not wrong, f"ptxas's contraction in {len(CONTRACTION_SHAPES)} more shapes as the emulator's test has them "
          f"({', '.join(wrong) or 'all'})")


def not_a_cubin(work):
    path = os.path.join(work, "not_a_cubin")
    with open(path, "w") as f:
        f.write("not an ELF file\n")
    proc = subprocess.run([sys.executable, os.path.join(HERE, "sass_outline.py"), path], capture_output=True, text=True)
    check(proc.returncode == 2 and proc.stderr.count("\n") == 1 and "not a readable cubin" in proc.stderr and not proc.stdout,
          f"a file that is no cubin: one line, exit 2 (exit {proc.returncode}: {proc.stderr.strip()!r})")


def main(argv):
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--work", required=True)
    a = p.parse_args(argv)
    nvcc = shutil.which("nvcc") or ("/usr/local/cuda/bin/nvcc" if os.path.exists("/usr/local/cuda/bin/nvcc") else None)
    if not nvcc:
        print("test_sass_outline: needs nvcc to build the kernels")
        return 0
    os.makedirs(a.work, exist_ok=True)
    unused_tile_collectives(nvcc, a.work)
    generated_kernel_9903(nvcc, a.work)
    notes_for_a_run(nvcc, a.work)
    byte_of_pattern(nvcc, a.work)
    contraction(nvcc, a.work)
    contraction_shapes(nvcc, a.work)
    not_a_cubin(a.work)
    print(f"{len(failures)} failed" if failures else "all passed")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
