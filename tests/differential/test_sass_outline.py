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


def byte_of_pattern(nvcc, work):
    kernels = cubin(nvcc, os.path.join(HERE, "probes", "bf16_byte_store.cu"), work, "bf16_byte_store")
    for name, rows in sorted(kernels.items()):
        converted = {(r.low >> 16) & 0xff for r in rows if r.name == "F2I"}
        stored = [r for r in rows if r.name in ("STS", "STG") and (r.low >> 32) & 0xff in converted]
        check(len(stored) == 1, f"{name}: the byte stored is an F2I's result ({len(stored)} such stores)")
    check(len(kernels) == 4, f"bf16_byte_store's four cases ({len(kernels)})")


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
    byte_of_pattern(nvcc, a.work)
    not_a_cubin(a.work)
    print(f"{len(failures)} failed" if failures else "all passed")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
