#!/usr/bin/env python3
"""Run corpus kernels compiled by clcoop and by clang-22 and compare the results bit for bit
(issue 15, "runs to the same results as clang-22's IR where it has a host-independent launch").

    python3 scripts/corpus_run.py PATH... [--kernel-strings] [--json FILE] [--jobs N]
                                  [--elements N] [--size S] [--timeout SECONDS]

PATH is as for scripts/corpus_check.py (kernel files, C/C++ files with kernels in string
literals, directories). Every kernel source is compiled twice, both at -cl-std=CL3.0 with
-ffp-contract=off (so that neither compiler fuses a * b + c) and the file's folder on the
include path:
  clang-22 -cc1 -triple spir64-unknown-unknown -finclude-default-header -emit-llvm -O0
           -disable-llvm-passes, run with clcoop.Program.from_ir;
  clcoop.Program(source).build(...), clcoop's own IR.
Each kernel with a host-independent launch then runs once per IR in the interpreter on the
same inputs, and every buffer and the printf output are compared byte for byte afterwards
(a kernel with neither has no outputs and is skipped).

A launch is host-independent when every parameter is a __global/__constant pointer to a
scalar or vector type, a __local pointer (given a LocalMemory of --elements elements), or a
scalar. Inputs are deterministic (seeded by the kernel's name): buffers of --elements
elements (vectors: --elements vectors); integer data in [0, 8) so that data used as an index
stays in bounds; float data in [0.5, 2) (no zeros, no overflow); integer scalars --size
(index-like sizes: loops to n over n*n or n*n*n elements stay inside the buffers), float
scalars 1.5. The NDRange has --size work-items in each dimension the source names in
get_global_id/get_local_id/get_group_id (at least one), work-groups of 8 (x) by 2 (y), or the
kernel's reqd_work_group_size.

Outcomes per kernel: "agree"; "differ" (the buffers differ, or only one run faults); "both
fault" (the chosen sizes do not suit the kernel: counted as skipped); "skipped" with the
reason: parameters that are images, samplers, structs, pipes, vectors by value...; clang or
clcoop rejects the source; time-out; clang's IR calls a function it does not define (a C99
plain `inline` definition, which clang -O0 does not emit). Each source runs in its own
process (--timeout).
"""
import argparse
import concurrent.futures
import hashlib
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "scripts"))
sys.path.insert(0, str(ROOT))

from corpus_check import units  # noqa: E402  (the same kernel sources as the compile check)

_SCALAR = {
    "char": "int8", "uchar": "uint8", "unsigned char": "uint8", "short": "int16",
    "ushort": "uint16", "unsigned short": "uint16", "int": "int32", "uint": "uint32",
    "unsigned int": "uint32", "long": "int64", "ulong": "uint64", "unsigned long": "uint64",
    "half": "float16", "float": "float32", "double": "float64", "size_t": "uint64",
    "ptrdiff_t": "int64", "intptr_t": "int64", "uintptr_t": "uint64", "bool": "bool",
}
_BASE_TYPE = re.compile(r"(?P<scalar>[a-z ]+?)(?P<width>2|3|4|8|16)?(?P<ptr>\*)?")
_DIMS = re.compile(r"\bget_(?:global|local|group)_id\s*\(\s*([0-2])\s*\)")
WORK_GROUP = (8, 2, 1)


# ------------------------------------------------------------------ kernel parameters

def kernel_params(ir):
    """{kernel: [(base type, address space)]} from clang's !kernel_arg_base_type and
    !kernel_arg_addr_space metadata (typedefs resolved, as the OpenCL runtime sees them)."""
    nodes = dict(re.findall(r"^(![0-9]+) = !\{(.*)\}$", ir, re.M))
    params = {}
    for m in re.finditer(r"^define [^@]*spir_kernel void @([\w.$]+)\(.*$", ir, re.M):
        line = m.group(0)
        base = re.search(r"!kernel_arg_base_type (![0-9]+)", line)
        space = re.search(r"!kernel_arg_addr_space (![0-9]+)", line)
        if base is None or space is None:
            params[m.group(1)] = []
            continue
        types = re.findall(r'!"([^"]*)"', nodes[base.group(1)])
        spaces = [int(s) for s in re.findall(r"i32 (\d+)", nodes[space.group(1)])]
        params[m.group(1)] = list(zip(types, spaces))
    return params


def param_kind(base_type, space):
    """(kind, dtype name, width) or (None, reason): kind is 'buffer', 'local' or 'scalar'."""
    plain = base_type.replace("const ", "").replace("volatile ", "").strip()
    # clang spells a typedef'd ext_vector_type's base type `float __attribute__((ext_vector_type(4)))*`
    plain = re.sub(r"\s*__attribute__\(\(ext_vector_type\((\d+)\)\)\)", r"\1", plain)
    m = _BASE_TYPE.fullmatch(plain)
    dtype = _SCALAR.get(m.group("scalar").strip()) if m else None
    if dtype is None:
        return None, f"parameter type '{base_type}'"
    width = int(m.group("width") or 1)
    if m.group("ptr"):
        if space in (1, 2):
            return "buffer", dtype, width
        if space == 3:
            return "local", dtype, width
        return None, f"pointer parameter in address space {space}"
    if width != 1:
        return None, f"vector parameter '{base_type}' passed by value"
    return "scalar", dtype, width


def make_arguments(name, params, elements, size):
    """Deterministic inputs for one kernel, or raise ValueError(reason)."""
    import numpy as np
    import clcoop.api as api
    rng = np.random.default_rng(int.from_bytes(hashlib.sha256(name.encode()).digest()[:8], "little"))
    args = []
    for base_type, space in params:
        kind = param_kind(base_type, space)
        if kind[0] is None:
            raise ValueError(kind[1])
        kind, dtype, width = kind
        dt = np.dtype(dtype)
        if kind == "local":
            args.append(api.LocalMemory(elements * width * dt.itemsize))
        elif kind == "buffer":
            count = elements * (4 if width == 3 else width)   # a 3-vector is stored as 4
            if dt.kind == "f":
                args.append(rng.uniform(0.5, 2.0, count).astype(dt))
            elif dt.kind == "b":
                args.append(rng.integers(0, 2, count).astype(dt))
            else:
                args.append(rng.integers(0, 8, count).astype(dt))
        else:
            args.append(1.5 if dt.kind == "f" else (True if dt.kind == "b" else size))
    return args


def launch_shape(source, reqd, size):
    dims = max([int(d) for d in _DIMS.findall(source)] + [0]) + 1
    # reqd_work_group_size fixes all three dimensions of the work-group.
    local = tuple(reqd) if reqd else WORK_GROUP[:dims]
    # --size work-items per dimension the source uses; one work-group in the others.
    glob = tuple(max(size, l) // l * l if d < dims else l for d, l in enumerate(local))
    return glob, local


# ------------------------------------------------------------------ one source

def compile_clang(clang, source, include):
    cmd = [clang, "-cc1", "-triple", "spir64-unknown-unknown", "-cl-std=CL3.0",
           "-finclude-default-header", "-ffp-contract=off", "-emit-llvm", "-O0",
           "-disable-llvm-passes", "-I", str(include), "-x", "cl", "-", "-o", "-"]
    done = subprocess.run(cmd, input=source, capture_output=True, text=True, timeout=300)
    return done.stdout if done.returncode == 0 else None


def run_kernel(program, name, args, glob, local):
    """(fault text or None, outputs) of one launch on copies of `args`: the arrays, then
    the printf output as bytes (pocl's tests report through printf)."""
    import contextlib
    import io
    import numpy as np
    import clcoop
    copies = [a.copy() if isinstance(a, np.ndarray) else a for a in args]
    printed = io.StringIO()
    try:
        with contextlib.redirect_stdout(printed):
            program.run(name, glob, local, *copies)
    except clcoop.ClcoopError as exc:
        return f"{type(exc).__name__}: {str(exc).splitlines()[0][:200]}", []
    text = np.frombuffer(printed.getvalue().encode(), np.uint8)
    return None, [a for a in copies if isinstance(a, np.ndarray)] + [text]


def run_source(source, include, clang, elements, size):
    """[{kernel, outcome, reason}] for one kernel source."""
    import warnings
    import numpy as np
    import clcoop.api as api
    from clcoop.errors import ClcoopError
    clang_ir = compile_clang(clang, source, include)
    if clang_ir is None:
        return [{"kernel": None, "outcome": "skipped", "reason": "clang-22 rejects the source"}]
    if re.search(r"\b(?:read|write)_image|\bimage[123]d\w*_t\b|\bsampler_t\b", source):
        return [{"kernel": None, "outcome": "skipped", "reason": "uses images"}]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            mine = api.Program(source).build(["-cl-std=CL3.0", "-ffp-contract=off",
                                              "-I", str(include)])
            theirs = api.Program.from_ir(clang_ir)
        except ClcoopError as exc:
            return [{"kernel": None, "outcome": "skipped",
                     "reason": f"does not build: {str(exc).splitlines()[0][:200]}"}]
    results = []
    for name, params in sorted(kernel_params(clang_ir).items()):
        result = {"kernel": name}
        results.append(result)
        if name not in mine.kernel_names:
            result.update(outcome="differ", reason="clcoop's IR has no such kernel")
            continue
        try:
            args = make_arguments(name, params, elements, size)
        except ValueError as exc:
            result.update(outcome="skipped", reason=str(exc))
            continue
        glob, local = launch_shape(source, theirs.kernel(name).info.reqd_work_group_size, size)
        fault_mine, out_mine = run_kernel(mine, name, args, glob, local)
        fault_theirs, out_theirs = run_kernel(theirs, name, args, glob, local)
        result.update(compare_runs((fault_mine, out_mine), (fault_theirs, out_theirs)))
        if result["outcome"] == "agree" and not any(isinstance(a, np.ndarray) for a in args) \
                and not out_theirs[-1].size:
            result.update(outcome="skipped", reason="no outputs: no buffer parameters and no printf output")
    return results


def compare_runs(mine, theirs):
    """{outcome, reason} of two runs, each (fault text or None, output arrays): byte for
    byte, so -0.0 differs from 0.0 and NaN payloads count."""
    (fault_mine, out_mine), (fault_theirs, out_theirs) = mine, theirs
    if fault_mine and fault_theirs:
        return {"outcome": "both fault", "reason": fault_theirs}
    if fault_theirs and not fault_mine and "call to the undefined function" in fault_theirs:
        # C99 6.7.4p7: a plain `inline` definition is no external definition; clang -O0 calls
        # the external function, which no file defines (a real device's link fails too).
        return {"outcome": "skipped", "reason": f"clang's IR calls a function it does not define "
                                                f"(C99 inline definition): {fault_theirs}"}
    if fault_mine or fault_theirs:
        return {"outcome": "differ", "reason": f"only {'clcoop' if fault_mine else 'clang'}'s "
                                               f"IR faults: {fault_mine or fault_theirs}"}
    bad = [i for i, (a, b) in enumerate(zip(out_mine, out_theirs)) if a.tobytes() != b.tobytes()]
    if bad:
        return {"outcome": "differ", "reason": f"outputs {bad} differ (the last is the printf output)"}
    return {"outcome": "agree"}


# ------------------------------------------------------------------ driver

def run_unit(unit, clang, elements, size, timeout):
    name, source, include, skip = unit
    if skip:
        return name, [{"kernel": None, "outcome": "skipped", "reason": skip}]
    with tempfile.TemporaryDirectory() as tmp:
        src = Path(tmp) / "source.cl"
        src.write_text(source)
        cmd = [sys.executable, __file__, "--one", str(src), "--include", str(include),
               "--clang", clang, "--elements", str(elements), "--size", str(size)]
        env = dict(os.environ, PYTHONPATH=str(ROOT) + os.pathsep + os.environ.get("PYTHONPATH", ""))
        try:
            done = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout, env=env)
        except subprocess.TimeoutExpired:
            return name, [{"kernel": None, "outcome": "skipped", "reason": f"time-out ({timeout} s)"}]
    if done.returncode != 0:
        return name, [{"kernel": None, "outcome": "differ",
                       "reason": "the runner crashed: " + done.stderr.strip()[-400:]}]
    return name, json.loads(done.stdout)


def summarize(results):
    """{outcome: count} over kernels ('both fault' counts as skipped, as documented)."""
    counts = {}
    for _, kernels in results:
        for k in kernels:
            outcome = "skipped" if k["outcome"] == "both fault" else k["outcome"]
            counts[outcome] = counts.get(outcome, 0) + 1
    counts["ran"] = counts.get("agree", 0) + counts.get("differ", 0)
    return counts


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("paths", nargs="*", help="kernel files, C/C++ files or directories")
    parser.add_argument("--kernel-strings", action="store_true")
    parser.add_argument("--clang", default=shutil.which("clang-22"))
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--elements", type=int, default=4096)
    parser.add_argument("--size", type=int, default=16)
    parser.add_argument("--timeout", type=float, default=300)
    parser.add_argument("--json", help="write every result to this file")
    parser.add_argument("--one", help=argparse.SUPPRESS)       # run one source (a child process)
    parser.add_argument("--include", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if not args.clang:
        parser.error("clang-22 was not found (--clang)")
    if args.one:
        results = run_source(Path(args.one).read_text(), args.include, args.clang,
                             args.elements, args.size)
        print(json.dumps(results))
        return 0
    if not args.paths:
        parser.error("give at least one PATH")
    missing = [p for p in args.paths if not Path(p).exists()]
    if missing:
        parser.error(f"no such file or directory: {', '.join(missing)}")
    todo = units(args.paths, args.kernel_strings)
    with concurrent.futures.ThreadPoolExecutor(max_workers=args.jobs) as pool:
        results = list(pool.map(lambda u: run_unit(u, args.clang, args.elements, args.size,
                                                   args.timeout), todo))
    for name, kernels in results:
        for k in kernels:
            if k["outcome"] == "differ":
                print(f"DIFFER {name} {k['kernel']}\n    {k['reason']}")
    counts = summarize(results)
    print(f"{len(results)} kernel sources; kernels: {counts['ran']} ran, {counts.get('agree', 0)} "
          f"agree, {counts.get('differ', 0)} differ, {counts.get('skipped', 0)} skipped")
    if args.json:
        Path(args.json).write_text(json.dumps([{"source": n, "kernels": k} for n, k in results],
                                              indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
