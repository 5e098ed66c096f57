#!/usr/bin/env python3
"""IR fuzzer of both engines under a memory guard (issue 25, "Memory safety of the native
engine": untrusted IR through Program.from_ir).

Seeds are valid LLVM IR: clcoop's own output (-O0, -O2) and clang-22's (-O0, -O2) for the
test kernels (test/unit/kernels/*.cl) and examples/*.cl. Each case mutates one seed
(1-3 stacked mutations): types (vector widths, element types, pointer address spaces),
names (a callee swapped for another built-in), attributes (parameter and function
attributes) and metadata (kernel_arg_* strings and numbers, reqd_work_group_size), an
`@llvm.global_ctors` table, integer constants, the operands of calls to declared functions
(built-ins and matrix operations: one dropped, repeated, added or of another type, or a
result given to a void call, in the declaration and every call) and LLVM's intrinsic
tables (llvm.used, llvm.compiler.used, llvm.global.annotations, constructors, destructors). The mutant runs in a child process
(`--worker`), on the interpreter and, where the native engine takes the kernel, natively,
each on its own copies of the arguments. Every buffer sits between sentinel bytes (the
array is a view inside a larger one) and sentinel arrays are allocated between the
buffers; all are checked after every launch.

Findings:
  crash      the child died (a signal, or exited without an answer): memory corruption
  hang       no answer within --time-limit seconds
  sentinel   a launch changed a sentinel byte (a write outside the buffers)
  exception  a Python exception other than clcoop's errors reached the caller
  disagree   the engines disagree: one faults and the other does not, different
             results, or a build the interpreter takes and the native engine refuses
             with an error (instead of a fallback)
  fault-text both fault, with different messages (docs/native.md: "word for word")
Not findings: mutants the engines refuse with a ClcoopError (IRError, ArgumentError ...);
the documented differences between the engines (DOCUMENTED, docs/testing.md "IR fuzzer").

    python3 scripts/fuzz_ir.py --seconds 1800 --seed 1 --save-dir /tmp/fuzz-ir
    python3 scripts/fuzz_ir.py --count 200 --seed 3 --producers clcoop --kernels vector_add,faults

Ctrl-C stops the run cleanly (the child is killed, the summary printed, exit 130).
Exit status 0 when nothing was found, 1 otherwise. Case i uses seed (seed * 1000003 + i),
so a finding is reproduced with --seed S --first i --count 1.
"""
import argparse
import hashlib
import json
import os
import random
import re
import select
import shutil
import signal
import subprocess
import sys
import time
import traceback
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PRODUCERS = ("clcoop-O0", "clcoop-O2", "clang-O0", "clang-O2")
DEFAULT_TIME_LIMIT = 60.0        # seconds per case (a native build can take ~10 s)
INSTRUCTION_LIMIT = 200_000
GUARD_BYTES = 4096               # sentinel bytes on each side of a buffer
DECOYS_PER_BUFFER = 4            # sentinel arrays allocated after each buffer
SENTINEL = 0xA5
FINDING_KINDS = ("crash", "hang", "sentinel", "exception", "disagree", "fault-text")

# ============================================================================ seeds


def seed_sources(root=ROOT, kernels=None):
    """(name, path) of the OpenCL C files whose IR seeds the fuzzer."""
    files = sorted((root / "test/unit/kernels").glob("*.cl")) + sorted((root / "examples").glob("*.cl"))
    if kernels:
        wanted = set(kernels)
        files = [f for f in files if f.stem in wanted]
    return [(f.stem, f) for f in files]


def _compile(path, producer, clang):
    """IR text of `path` by `producer`, or None when the producer rejects it."""
    source = path.read_text()
    if producer.startswith("clcoop"):
        from clcoop.errors import ClcoopError
        from clcoop.frontend.driver import CompileOptions, compile_source
        opt = int(producer[-1])
        try:
            return compile_source(source, CompileOptions(filename=path.name, opt_level=opt,
                                                         include_dirs=[str(path.parent)])).ir
        except ClcoopError:
            return None
    if clang is None:
        return None
    cmd = [clang, "-cc1", "-triple", "spir64-unknown-unknown", "-cl-std=CL3.0",
           "-finclude-default-header", "-emit-llvm", f"-O{producer[-1]}", "-I", str(path.parent)]
    if producer.endswith("0"):
        cmd.append("-disable-llvm-passes")
    done = subprocess.run(cmd + [str(path), "-o", "-"], capture_output=True, text=True)
    return done.stdout if done.returncode == 0 else None


def load_seeds(producers, kernels, clang, cache_dir):
    """[(seed name, IR text)], compiled once and kept in cache_dir (keyed by the source)."""
    cache = Path(cache_dir)
    cache.mkdir(parents=True, exist_ok=True)
    seeds = []
    for stem, path in seed_sources(kernels=kernels):
        digest = hashlib.sha256(path.read_bytes()).hexdigest()[:16]
        for producer in producers:
            entry = cache / f"{stem}.{producer}.{digest}.ll"
            if entry.exists():
                ir = entry.read_text()
            else:
                ir = _compile(path, producer, clang) or ""
                entry.write_text(ir)
            if ir.strip():
                seeds.append((f"{stem}:{producer}", ir))
    return seeds

# ============================================================================ mutations


VECTOR_RE = re.compile(r"<(\d+) x (i1|i8|i16|i32|i64|half|bfloat|float|double|ptr(?: addrspace\(\d\))?)>")
SCALAR_RE = re.compile(r"(?<![\w.%@\"])(i8|i16|i32|i64|half|float|double)(?![\w.\"])")
ADDRSPACE_RE = re.compile(r"addrspace\((\d+)\)")
CALLEE_RE = re.compile(r"@(_Z\w+|llvm\.[\w.]+|__spirv_\w+|__clcoop\w*)\(")
INT_CONST_RE = re.compile(r"\b(i32|i64) (-?\d+)\b")
# Built-ins worth swapping in: a different width, signature or address space than the
# original (vloadN/vstoreN, work-item queries, barriers, atomics, math, memory intrinsics).
BUILTIN_NAMES = [
    "_Z6vload4mPU3AS1Kf", "_Z6vload8mPU3AS1Kf", "_Z7vload16mPU3AS1Kf", "_Z6vload2mPU3AS1Ki",
    "_Z7vstore4Dv4_fmPU3AS1f", "_Z7vstore8Dv8_fmPU3AS1f", "_Z8vstore16Dv16_fmPU3AS1f",
    "_Z13get_global_idj", "_Z12get_local_idj", "_Z14get_local_sizej", "_Z12get_group_idj",
    "_Z15get_global_sizej", "_Z7barrierj", "_Z18work_group_barrierj", "_Z8atom_addPU3AS1ii",
    "_Z10atomic_addPU3AS1Vii", "_Z10atomic_incPU3AS1Vi", "_Z4sqrtf", "_Z3minii", "_Z3maxff",
    "_Z3madfff", "_Z20sub_group_reduce_addi", "_Z22sub_group_broadcast_ij", "_Z5printfPU3AS2Kcz",
    "llvm.memcpy.p0.p0.i64", "llvm.memset.p0.i64", "llvm.fma.f32", "llvm.smax.i32",
    "llvm.umin.i64", "llvm.lifetime.start.p0", "llvm.ctpop.i32", "llvm.fabs.v4f32"]
PARAM_ATTRS = ["noalias", "nocapture", "readonly", "writeonly", "nonnull", "noundef",
               "align 1", "align 64", "dereferenceable(4096)", "byval(i32)", "sret(i32)", "inreg"]
FUNCTION_ATTRS = ["convergent", "nounwind", "alwaysinline", "noinline optnone", "readnone",
                  "willreturn", "noreturn", "cold"]
ARG_TYPES = ["float*", "int*", "char*", "float4*", "double*", "uint*", "long*", "half*",
             "struct blk*", "float", "int", "image2d_t", "ulong", ""]


def _replace_span(text, match, new):
    return text[:match.start()] + new + text[match.end():]


def _pick(rng, matches):
    return matches[rng.randrange(len(matches))] if matches else None


def mut_vector_width(rng, ir):
    matches = list(VECTOR_RE.finditer(ir))
    m = _pick(rng, matches)
    if m is None:
        return None
    width = rng.choice([w for w in (1, 2, 3, 4, 8, 16, 32, 1024) if w != int(m.group(1))])
    old, new = m.group(0), f"<{width} x {m.group(2)}>"
    if rng.random() < 0.6:      # every occurrence: declarations and calls stay consistent
        return ir.replace(old, new), f"vector {old} -> {new} everywhere"
    return _replace_span(ir, m, new), f"vector {old} -> {new} once"


def mut_element_type(rng, ir):
    lines = ir.split("\n")
    candidates = [i for i, line in enumerate(lines)
                  if SCALAR_RE.search(line) and not line.startswith(("target", "!", "attributes"))]
    if not candidates:
        return None
    i = rng.choice(candidates)
    matches = list(SCALAR_RE.finditer(lines[i]))
    m = _pick(rng, matches)
    new = rng.choice([t for t in ("i8", "i16", "i32", "i64", "half", "float", "double") if t != m.group(1)])
    if rng.random() < 0.5:
        lines[i] = _replace_span(lines[i], m, new)
        return "\n".join(lines), f"type {m.group(1)} -> {new} in line {i + 1}"
    old = m.group(1)
    lines[i] = SCALAR_RE.sub(lambda x: new if x.group(1) == old else x.group(0), lines[i])
    return "\n".join(lines), f"type {old} -> {new} in all of line {i + 1}"


def mut_address_space(rng, ir):
    matches = list(ADDRSPACE_RE.finditer(ir))
    new_space = rng.choice([0, 1, 2, 3, 4, 5])
    if not matches or rng.random() < 0.2:
        # Give a plain `ptr` parameter an address space.
        plain = list(re.finditer(r"\bptr(?= (?:noundef |nocapture |readonly |align \d+ )*%)", ir))
        m = _pick(rng, plain)
        if m is None:
            return None
        return _replace_span(ir, m, f"ptr addrspace({new_space})"), f"ptr -> addrspace({new_space}) once"
    m = _pick(rng, matches)
    new = f"addrspace({new_space})" if new_space else ""
    if rng.random() < 0.5:
        return ir.replace(m.group(0), new), f"{m.group(0)} -> {new or 'no addrspace'} everywhere"
    return _replace_span(ir, m, new), f"{m.group(0)} -> {new or 'no addrspace'} once"


def mut_callee(rng, ir, pool):
    callees = sorted(set(CALLEE_RE.findall(ir)))
    if not callees:
        return None
    old = rng.choice(callees)
    choices = [n for n in pool + BUILTIN_NAMES if n != old]
    new = rng.choice(choices)
    # Everywhere (declaration and calls), so only the name and the signature disagree.
    out = re.sub(r"@" + re.escape(old) + r"\b", "@" + new, ir)
    if f"declare" in ir and rng.random() < 0.3:
        out = re.sub(r"(?m)^declare .*@" + re.escape(new) + r"\(.*\n", "", out, count=1)
    return out, f"callee @{old} -> @{new}"


def mut_attribute(rng, ir):
    lines = ir.split("\n")
    heads = [i for i, line in enumerate(lines) if line.startswith(("define", "declare")) or " call " in line]
    if not heads:
        return None
    i = rng.choice(heads)
    line = lines[i]
    if rng.random() < 0.5:
        params = list(re.finditer(r"(ptr(?: addrspace\(\d+\))?|i32|i64|float) (?=%|[,)])", line))
        m = _pick(rng, params)
        if m is None:
            return None
        attr = rng.choice(PARAM_ATTRS)
        lines[i] = _replace_span(line, m, f"{m.group(1)} {attr} ")
        return "\n".join(lines), f"parameter attribute {attr} in line {i + 1}"
    present = re.findall(r"\b(noalias|nocapture|readonly|writeonly|nonnull|noundef|align \d+)\b", line)
    if present and rng.random() < 0.5:
        attr = rng.choice(present)
        lines[i] = line.replace(attr + " ", "", 1)
        return "\n".join(lines), f"removed attribute {attr} in line {i + 1}"
    attr = rng.choice(FUNCTION_ATTRS)
    if line.startswith("define") and line.rstrip().endswith("{"):
        lines[i] = line.rstrip()[:-1] + f" {attr} {{"
    else:
        lines[i] = line + f" {attr}" if not line.startswith("define") else line
    return "\n".join(lines), f"function attribute {attr} in line {i + 1}"


def mut_metadata(rng, ir):
    lines = ir.split("\n")
    md = [i for i, line in enumerate(lines) if re.match(r"!\d+ = (?:distinct )?!\{", line)]
    choice = rng.random()
    kernels = [i for i, line in enumerate(lines) if line.startswith("define") and "spir_kernel" in line]
    if choice < 0.3 and kernels:
        i = rng.choice(kernels)
        sizes = [rng.choice([1, 2, 4, 7, 16, 32, 64, 1 << 20, 0]) for _ in range(3)]
        ident = max([int(x) for x in re.findall(r"^!(\d+) =", ir, re.M)] + [0]) + 1
        which = rng.choice(["reqd_work_group_size", "intel_reqd_sub_group_size", "work_group_size_hint"])
        values = sizes if which != "intel_reqd_sub_group_size" else sizes[:1]
        lines[i] = re.sub(r"\{\s*$", f"!{which} !{ident} {{", lines[i])
        lines.append(f"!{ident} = !{{{', '.join(f'i32 {v}' for v in values)}}}")
        return "\n".join(lines), f"!{which} {values}"
    if not md:
        return None
    i = rng.choice(md)
    line = lines[i]
    strings = list(re.finditer(r'!"([^"]*)"', line))
    numbers = list(re.finditer(r"\bi32 (-?\d+)", line))
    if strings and (not numbers or rng.random() < 0.5):
        m = _pick(rng, strings)
        new = rng.choice(ARG_TYPES + ["read_only", "write_only", "none", "const", "volatile"])
        lines[i] = _replace_span(line, m, f'!"{new}"')
        return "\n".join(lines), f'metadata !"{m.group(1)}" -> !"{new}" in line {i + 1}'
    m = _pick(rng, numbers)
    if m is None:
        return None
    new = rng.choice([0, 1, 2, 3, 4, 5, -1, 1 << 20])
    lines[i] = _replace_span(line, m, f"i32 {new}")
    return "\n".join(lines), f"metadata i32 {m.group(1)} -> {new} in line {i + 1}"


def mut_global_ctors(rng, ir):
    names = re.findall(r"(?m)^define [^@]*@([\w.$]+)\(", ir)
    if not names or "llvm.global_ctors" in ir:
        return None
    fn = rng.choice(names)
    table = (f"@llvm.global_ctors = appending global [1 x {{ i32, ptr, ptr }}] "
             f"[{{ i32, ptr, ptr }} {{ i32 65535, ptr @{fn}, ptr null }}]\n")
    at = ir.find("\ndefine")
    at = at + 1 if at >= 0 else len(ir)
    return ir[:at] + table + ir[at:], f"@llvm.global_ctors calling @{fn}"


def mut_integer(rng, ir):
    lines = ir.split("\n")
    cands = [i for i, line in enumerate(lines) if line.startswith("  ") and INT_CONST_RE.search(line)]
    if not cands:
        return None
    i = rng.choice(cands)
    m = _pick(rng, list(INT_CONST_RE.finditer(lines[i])))
    new = rng.choice([0, 1, -1, 3, 17, 4096, 65537, 2147483647, -2147483648]
                     + ([1 << 40, -(1 << 62)] if m.group(1) == "i64" else []))
    lines[i] = _replace_span(lines[i], m, f"{m.group(1)} {new}")
    return "\n".join(lines), f"constant {m.group(0)} -> {m.group(1)} {new} in line {i + 1}"


def _closing(text, start):
    """Index of the bracket closing the one at text[start]."""
    depth = 0
    for j in range(start, len(text)):
        if text[j] in "([{<":
            depth += 1
        elif text[j] in ")]}>":
            depth -= 1
            if depth == 0:
                return j
    raise ValueError(f"no closing bracket in {text[start:]!r}")


def split_operands(text):
    """'i32 0, <2 x i32> <i32 1, i32 2>' -> ['i32 0', '<2 x i32> <i32 1, i32 2>']."""
    out, depth, current = [], 0, ""
    for ch in text:
        depth += ch in "([{<"
        depth -= ch in ")]}>"
        if ch == "," and depth == 0:
            out.append(current.strip())
            current = ""
        else:
            current += ch
    return out + ([current.strip()] if current.strip() else [])


def call_operands(ir, callee):
    """[(type, value)] of the first call of @callee in ir."""
    call = next(line for line in ir.split("\n") if f"@{callee}(" in line and "call " in line)
    opening = call.index(f"@{callee}(") + len(callee) + 1
    return [tuple(a.rsplit(" ", 1)) for a in split_operands(call[opening + 1:_closing(call, opening)])]


def rewrite_call_operands(ir, callee, operands, result=None):
    """ir with the declaration and every call of @callee given other operands, so that
    they stay consistent (valid IR whose calls disagree with what the callee is):
    operands, [(type, value)] (values for the calls); result, a new result type (a call's
    value name is dropped for void; the caller keeps its uses valid)."""
    lines = ir.split("\n")
    for k, line in enumerate(lines):
        at = line.find(f"@{callee}(")
        if at < 0 or not (line.startswith("declare") or "call " in line):
            continue
        opening = at + len(callee) + 1
        declaration = line.startswith("declare")
        text = ", ".join(t if declaration else f"{t} {v}" for t, v in operands)
        line = line[:opening + 1] + text + line[_closing(line, opening):]
        if result is not None:
            head = line[:at].rstrip()
            old = _last_type(head)
            head = head[:len(head) - len(old)] + result
            if result == "void":
                head = re.sub(r"%[-\w.]+ = ", "", head)
            line = head + " " + line[at:]
        lines[k] = line
    return "\n".join(lines)


def _last_type(head):
    """The result type ending `head` (the text before a callee's name)."""
    if head.endswith(")"):      # target("...", ...) or a function type
        depth = 0
        for j in range(len(head) - 1, -1, -1):
            depth += head[j] == ")"
            depth -= head[j] == "("
            if depth == 0:
                return head[head.rfind(" ", 0, j) + 1:]
    if head.endswith(">"):
        return head[head.rfind("<"):]
    return head.rsplit(" ", 1)[1]


# Operands put in place of a call's or added to it: (type, value).
OPERAND_CHOICES = [("i32", "0"), ("i32", "7"), ("i64", "-1"), ("i8", "1"), ("i1", "true"),
                   ("float", "1.0"), ("double", "2.0"), ("half", "1.0"), ("<2 x i32>", "zeroinitializer"),
                   ("<4 x float>", "zeroinitializer"), ("ptr", "null"), ("ptr addrspace(1)", "null"),
                   ("ptr addrspace(3)", "null")]


def mut_call_operands(rng, ir):
    """A call to a declared function (a built-in, a matrix operation) with an operand dropped,
    duplicated, added or of another type, or a void call given a result, in its declaration
    and every call (argument counts and types of calls to built-ins and matrix ops)."""
    declared = re.findall(r"(?m)^declare [^@]*@([\w.$]+)\(", ir)
    callees = [n for n in declared if not n.startswith("llvm.") and f"@{n}(" in ir.split("\ndeclare", 1)[0]]
    if not callees:
        return None
    callee = rng.choice(callees)
    try:
        operands = call_operands(ir, callee)
    except (StopIteration, ValueError):
        return None
    choice = rng.random()
    if choice < 0.15:
        call = next(line for line in ir.split("\n") if f"@{callee}(" in line and "call " in line)
        if f" void @{callee}(" not in call:
            return None
        new = rng.choice(["i32", "float", "<4 x float>", "ptr"])
        return rewrite_call_operands(ir, callee, operands, new), f"@{callee} returns {new}"
    if choice < 0.4 and operands:
        k = rng.randrange(len(operands))
        what = f"@{callee} without operand {k + 1}"
        operands = operands[:k] + operands[k + 1:]
    elif choice < 0.6 and operands:
        k = rng.randrange(len(operands))
        what = f"@{callee} with operand {k + 1} twice"
        operands = operands[:k + 1] + operands[k:]
    elif choice < 0.75:
        extra = rng.choice(OPERAND_CHOICES)
        what = f"@{callee} with an extra operand {' '.join(extra)}"
        operands = operands + [extra]
    elif operands:
        k = rng.randrange(len(operands))
        new = rng.choice([c for c in OPERAND_CHOICES if c[0] != operands[k][0]])
        what = f"@{callee} operand {k + 1} {operands[k][0]} -> {new[0]}"
        operands = operands[:k] + [new] + operands[k + 1:]
    else:
        return None
    return rewrite_call_operands(ir, callee, operands), what


# LLVM's intrinsic global tables (LangRef "Intrinsic Global Variables").
SPECIAL_TABLES = ("llvm.used", "llvm.compiler.used", "llvm.global.annotations", "llvm.global_ctors",
                  "llvm.global_dtors")


def mut_special_global(rng, ir):
    """One of LLVM's intrinsic tables, naming a function or a global of the module, or empty."""
    functions = re.findall(r"(?m)^define [^@]*@([\w.$]+)\(", ir)
    variables = re.findall(r"(?m)^@([\w.$]+) = ", ir)
    table = rng.choice(SPECIAL_TABLES)
    if table in ir or not functions:
        return None
    used = table in ("llvm.used", "llvm.compiler.used")    # (LLVM refuses a null in these)
    named = rng.choice(functions + variables + ([] if used else [None]))
    pointer = f"ptr @{named}" if named in functions else \
        (f"ptr addrspacecast (ptr addrspace(1) @{named} to ptr)" if named else "ptr null")
    if named in variables:
        space = re.search(rf"(?m)^@{re.escape(named)} = [^\n]*?addrspace\((\d+)\)", ir)
        pointer = (f"ptr addrspacecast (ptr addrspace({space.group(1)}) @{named} to ptr)" if space
                   else f"ptr @{named}")
    if used:
        text = f'@{table} = appending global [1 x ptr] [{pointer}], section "llvm.metadata"'
    elif table == "llvm.global.annotations":
        text = (f"@{table} = appending global [1 x {{ ptr, i32 }}] [{{ ptr, i32 }} {{ {pointer}, i32 1 }}], "
                f'section "llvm.metadata"')
    else:
        text = (f"@{table} = appending global [1 x {{ i32, ptr, ptr }}] "
                f"[{{ i32, ptr, ptr }} {{ i32 65535, {pointer}, ptr null }}]")
    at = ir.find("\ndefine")
    at = at + 1 if at >= 0 else len(ir)
    return ir[:at] + text + "\n" + ir[at:], f"@{table} naming {named or 'nothing'}"


MUTATIONS = {"vector-width": mut_vector_width, "element-type": mut_element_type,
             "address-space": mut_address_space, "callee": mut_callee, "attribute": mut_attribute,
             "metadata": mut_metadata, "global-ctors": mut_global_ctors, "integer": mut_integer,
             "call-operands": mut_call_operands, "special-global": mut_special_global}


def mutate(rng, seeds, pool):
    """(seed name, [mutation descriptions], IR text): 1-3 stacked mutations of one seed."""
    name, ir = seeds[rng.randrange(len(seeds))]
    applied = []
    for _ in range(rng.choice((1, 1, 1, 2, 3))):
        for _attempt in range(6):
            kind = rng.choice(sorted(MUTATIONS))
            fn = MUTATIONS[kind]
            result = fn(rng, ir, pool) if kind == "callee" else fn(rng, ir)
            if result is not None and result[0] != ir:
                ir = result[0]
                applied.append(f"{kind}: {result[1]}")
                break
    return name, applied, ir

# ============================================================================ the child


def _guarded(nbytes, dtype, keep):
    """An array of nbytes (as dtype) inside sentinel bytes, and sentinel arrays after it
    (appended to keep: [(big array, slices that must stay SENTINEL)])."""
    import numpy as np
    big = np.empty(GUARD_BYTES + nbytes + GUARD_BYTES, np.uint8)
    big[:GUARD_BYTES] = SENTINEL
    big[GUARD_BYTES + nbytes:] = SENTINEL
    keep.append((big, [slice(0, GUARD_BYTES), slice(GUARD_BYTES + nbytes, None)]))
    for _ in range(DECOYS_PER_BUFFER):
        decoy = np.full(GUARD_BYTES, SENTINEL, np.uint8)
        keep.append((decoy, [slice(None)]))
    return big[GUARD_BYTES:GUARD_BYTES + nbytes].view(dtype)


def damaged(keep):
    """Descriptions of the sentinel ranges that changed."""
    out = []
    for k, (arr, slices) in enumerate(keep):
        for s in slices:
            part = arr[s]
            bad = part != SENTINEL
            if bad.any():
                out.append(f"sentinel array {k}: {int(bad.sum())} byte(s) changed")
    return out


def _arguments(info, case_seed, matrices=False):
    """Deterministic arguments for a kernel: a specification the child turns into fresh
    guarded arrays for each engine. With matrices, integers are 16, 32 or 64 (sizes and
    strides: a smaller stride makes matrix stores overlap, where the engines may leave
    different values, docs/native.md)."""
    import numpy as np
    from clcoop import prepare
    rng = np.random.default_rng(case_seed)
    ints = [16, 32, 64] if matrices else [0, 1, 2, 3, 4, 8, 16, 64]
    spec = []
    for i, (pname, ptype) in enumerate(info.params):
        type_name = info.arg_types[i] if i < len(info.arg_types) else str(ptype)
        if ptype.kind == "ptr" and ptype.addrspace == 3:
            spec.append(("local", 1024))
        elif ptype.kind == "ptr":
            want = prepare._pointee_dtype(type_name)
            dtype = np.dtype(want) if want is not None else np.dtype(np.float32)
            count = int(rng.choice([64, 256, 1024]))
            raw = rng.integers(0, 16, count) if dtype.kind in "iu" else rng.standard_normal(count)
            spec.append(("buffer", np.asarray(raw).astype(dtype)))
        elif ptype.kind == "vec":
            spec.append(("value", np.ones(ptype.n)))
        elif ptype.kind == "float":
            spec.append(("value", float(rng.choice([0.5, 1.5, -2.0]))))
        else:
            spec.append(("value", int(rng.choice(ints))))
    return spec


def _materialize(spec, keep):
    import clcoop
    args = []
    for kind, value in spec:
        if kind == "local":
            args.append(clcoop.LocalMemory(value))
        elif kind == "buffer":
            arr = _guarded(value.nbytes, value.dtype, keep)
            arr[...] = value
            args.append(arr)
        else:
            args.append(value)
    return args


def _launch(kernel, spec, nd, **options):
    """(outcome, detail, buffers, damage): outcome 'ok', 'fault', 'rejected' or 'exception'."""
    import clcoop
    from clcoop.errors import ClcoopError
    keep = []
    args = _materialize(spec, keep)
    try:
        kernel(nd[0], nd[1], *args, subgroup_size=nd[2], instruction_limit=INSTRUCTION_LIMIT, **options)
        outcome, detail = "ok", ""
    except clcoop.RuntimeFault as e:
        outcome, detail = "fault", str(e)
    except ClcoopError as e:
        outcome, detail = "rejected", f"{type(e).__name__}: {e}"
    except Exception:   # a finding
        outcome, detail = "exception", traceback.format_exc(limit=8)
    buffers = [a.tobytes() for a in args if hasattr(a, "tobytes") and getattr(a, "ndim", 0)]
    return outcome, detail, buffers, damaged(keep)


ND_RANGES = [((32,), (16,), 16), ((64,), (32,), 16), ((16,), (16,), 8), ((32, 2), (16, 1), 16)]


def _normalized(message):
    """A fault message without what differs by construction (docs/native.md, "Which buffer
    a fault names"): host and interpreter addresses, and, for IR without debug
    information, the instruction line (the native engine shows the instruction as it
    compiled it: calling conventions and attributes dropped, values renamed, helpers
    inlined)."""
    message = re.sub(r"-?0x[0-9a-f]+", "0x?", message)
    # A matrix pointer that is not uniform: the two addresses, in decimal.
    message = re.sub(r"(operand 'pointer' must be uniform .*?\(e\.g\. )-?\d+ and -?\d+\)", r"\1? and ?)", message)
    return re.sub(r"(?m)^  instruction: .*$", "  instruction: ?", message)


def documented(ir, interp, native):
    """The reason a disagreement is a documented difference between the engines, or None
    (docs/testing.md "IR fuzzer", docs/native.md)."""
    texts = interp[1] + native[1]
    if "instruction limit" in texts:
        return "instruction limits count per work-item natively, per batch in the interpreter"
    if interp[0] == native[0] == "ok" and re.search(r"atomicrmw|cmpxchg|atomic|atom_", ir):
        return "atomic operations of different work-groups run in another order on several threads"
    if interp[0] == native[0] == "ok" and re.search(r"fpto[su]i|convert_(?:u?int|u?long|u?short|u?char)", ir):
        return "float to integer conversions out of range are undefined (issue 25)"
    if re.search(r"through a null pointer", interp[1]) and re.search(r"through an invalid pointer", native[1]):
        return ("a buffer's address minus exactly its base in the interpreter's layout (the first at 4 GiB) "
                "is null there and a host address natively: both fault, worded after each layout")
    return None


def run_case(ir, case_seed):
    """What a case found in this process: [(kind, detail)], and a one-word outcome."""
    import warnings
    import clcoop
    from clcoop.errors import ClcoopError
    findings = []
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            interp = clcoop.Program.from_ir(ir)
            kernels = sorted(interp._module.kernels)
        except ClcoopError:
            return [], "rejected"
        except Exception:
            return [("exception", "Program.from_ir(engine='interp'):\n" + traceback.format_exc(limit=8))], "exception"
        try:
            native = clcoop.Program.from_ir(ir, engine="auto")
        except ClcoopError as e:
            return [("disagree", f"the interpreter builds it, engine='auto' raises {type(e).__name__}: {e}")], "build"
        except Exception:
            return [("exception", "Program.from_ir(engine='auto'):\n" + traceback.format_exc(limit=8))], "exception"
        rng = random.Random(case_seed)
        outcome = "ran"
        for name in kernels[:2]:
            info = interp._module.kernels[name]
            try:
                spec = _arguments(info, case_seed, "CooperativeMatrix" in ir)
            except ClcoopError:
                continue
            nd = ND_RANGES[rng.randrange(len(ND_RANGES))]
            i_result = _launch(getattr(interp, name), spec, nd)
            n_kernel = getattr(native, name)
            if i_result[3]:
                findings.append(("sentinel", f"interpreter, kernel {name}: " + "; ".join(i_result[3])))
            if i_result[0] == "exception":
                findings.append(("exception", f"interpreter, kernel {name}:\n{i_result[1]}"))
            if n_kernel.engine != "native":
                continue
            outcome = "native"
            n_result = _launch(n_kernel, spec, nd)
            if n_result[3]:
                findings.append(("sentinel", f"native, kernel {name}: " + "; ".join(n_result[3])))
            if n_result[0] == "exception":
                findings.append(("exception", f"native, kernel {name}:\n{n_result[1]}"))
            found = _compare(ir, name, nd, i_result, n_result)
            if found and "results differ" in found[0][1]:
                # Order-dependent (a race between work-items, undefined in OpenCL C 6.15.8):
                # the interpreter's own results change when sub-groups run one at a time.
                serial = _launch(getattr(interp, name), spec, nd, serial_subgroups=True)
                if serial[0] == "ok" and serial[2] != i_result[2]:
                    found = []
            findings += found
    return findings, outcome


def _compare(ir, name, nd, interp, native):
    where = f"kernel {name}, global {nd[0]} local {nd[1]} sub-group {nd[2]}"
    if "exception" in (interp[0], native[0]):
        return []
    if interp[0] != native[0]:
        if documented(ir, interp, native):
            return []
        return [("disagree", f"{where}: interpreter {interp[0]}, native {native[0]}\n"
                             f"interpreter: {interp[1]}\nnative: {native[1]}")]
    if interp[0] == "fault" and _normalized(interp[1]) != _normalized(native[1]):
        if documented(ir, interp, native):
            return []
        return [("fault-text", f"{where}\ninterpreter: {interp[1]}\nnative: {native[1]}")]
    if interp[0] == "ok" and interp[2] != native[2] and not documented(ir, interp, native):
        differ = [i for i, (a, b) in enumerate(zip(interp[2], native[2])) if a != b]
        return [("disagree", f"{where}: results differ in buffer(s) {differ}")]
    return []


def worker():
    """The child: one JSON case a line on stdin, one JSON answer a line on stdout."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)     # the parent stops it
    out = os.fdopen(os.dup(1), "w")
    os.dup2(2, 1)        # anything the engines print goes to stderr, not the answers
    for line in sys.stdin:
        case = json.loads(line)
        findings, outcome = run_case(case["ir"], case["seed"])
        out.write(json.dumps({"findings": findings, "outcome": outcome}) + "\n")
        out.flush()

# ============================================================================ the parent


class Child:
    """The worker process, restarted after a crash or a hang."""

    def __init__(self):
        self.proc = None

    def start(self):
        env = dict(os.environ, PYTHONPATH=str(ROOT) + os.pathsep + os.environ.get("PYTHONPATH", ""))
        # Its own session: a Ctrl-C at the terminal reaches the parent only, which stops it.
        self.proc = subprocess.Popen([sys.executable, str(Path(__file__).resolve()), "--worker",
                                      "--parent", str(os.getpid())],
                                     stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                     stderr=subprocess.DEVNULL, text=True, start_new_session=True,
                                     env=env)

    def ask(self, ir, seed, time_limit):
        """(findings, outcome) of one case; a crash or a hang is a finding."""
        if self.proc is None or self.proc.poll() is not None:
            self.start()
        try:
            self.proc.stdin.write(json.dumps({"ir": ir, "seed": seed}) + "\n")
            self.proc.stdin.flush()
        except BrokenPipeError:
            return self._died()
        ready, _, _ = select.select([self.proc.stdout], [], [], time_limit)
        if not ready:
            self.stop()
            return [("hang", f"no answer within {time_limit:.0f} s")], "hang"
        line = self.proc.stdout.readline()
        if not line:
            return self._died()
        answer = json.loads(line)
        return [tuple(f) for f in answer["findings"]], answer["outcome"]

    def _died(self):
        code = self.proc.wait()
        self.proc = None
        what = f"signal {signal.Signals(-code).name}" if code < 0 else f"exit status {code}"
        return [("crash", f"the child died ({what})")], "crash"

    def stop(self):
        if self.proc is not None and self.proc.poll() is None:
            os.killpg(self.proc.pid, signal.SIGKILL)
            self.proc.wait()
        self.proc = None


def save(save_dir, index, seed_name, applied, ir, findings):
    directory = Path(save_dir)
    directory.mkdir(parents=True, exist_ok=True)
    stem = directory / f"case{index}"
    stem.with_suffix(".ll").write_text(ir)
    report = [f"seed IR: {seed_name}", *[f"mutation: {a}" for a in applied]]
    report += [f"{kind}: {detail}" for kind, detail in findings]
    stem.with_suffix(".txt").write_text("\n".join(report) + "\n")


def fuzz(args, seeds, out=sys.stdout):
    """Runs cases until --count or --seconds; returns {finding kind: count}, cases run,
    whether it was interrupted."""
    pool = sorted({n for _, ir in seeds for n in CALLEE_RE.findall(ir)})
    counts = {k: 0 for k in FINDING_KINDS}
    outcomes = {}
    child = Child()
    start = time.time()
    done = 0
    interrupted = False
    try:
        index = args.first
        while (args.count is None or done < args.count) and \
                (args.seconds is None or time.time() - start < args.seconds):
            case_seed = args.seed * 1000003 + index
            seed_name, applied, ir = mutate(random.Random(case_seed), seeds, pool)
            findings, outcome = child.ask(ir, case_seed, args.time_limit)
            outcomes[outcome] = outcomes.get(outcome, 0) + 1
            for kind, detail in findings:
                counts[kind] += 1
                print(f"FINDING {kind} --seed {args.seed} --first {index} ({seed_name}; "
                      f"{'; '.join(applied)}):\n{detail}\n", file=out, flush=True)
            if findings and args.save_dir:
                save(args.save_dir, index, seed_name, applied, ir, findings)
            done += 1
            index += 1
    except KeyboardInterrupt:
        interrupted = True
    finally:
        child.stop()
    print(f"{done} case(s) in {time.time() - start:.0f} s; outcomes {outcomes}; findings "
          + ", ".join(f"{k} {v}" for k, v in counts.items()) + (" (interrupted)" if interrupted else ""),
          file=out, flush=True)
    return counts, done, interrupted


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--worker", action="store_true", help=argparse.SUPPRESS)
    parser.add_argument("--parent", help=argparse.SUPPRESS)   # names the worker's parent (ps)
    parser.add_argument("--count", type=int, help="cases to run (default: until --seconds)")
    parser.add_argument("--seconds", type=float, help="stop after this many seconds")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--first", type=int, default=0, help="index of the first case")
    parser.add_argument("--producers", default=",".join(PRODUCERS),
                        help=f"comma-separated subset of {', '.join(PRODUCERS)}")
    parser.add_argument("--kernels", help="comma-separated file stems of the seed kernels")
    parser.add_argument("--time-limit", type=float, default=DEFAULT_TIME_LIMIT)
    parser.add_argument("--save-dir", help="write each finding's IR and report here")
    parser.add_argument("--cache-dir", default=os.path.join(os.environ.get("TMPDIR", "/tmp"),
                                                            "clcoop-fuzz-ir-seeds"))
    parser.add_argument("--clang", default=shutil.which("clang-22"))
    args = parser.parse_args(argv)
    if args.worker:
        worker()
        return 0
    if args.count is None and args.seconds is None:
        args.count = 200
    producers = [p for p in args.producers.split(",") if p]
    unknown = [p for p in producers if p not in PRODUCERS]
    if unknown:
        parser.error(f"unknown producer(s) {', '.join(unknown)}; choose from {', '.join(PRODUCERS)}")
    try:
        seeds = load_seeds(producers, args.kernels.split(",") if args.kernels else None, args.clang,
                           args.cache_dir)
    except KeyboardInterrupt:
        print("interrupted while compiling the seeds", flush=True)
        return 130
    if not seeds:
        parser.error("no seed IR: no kernel matched --kernels, or no producer compiled one")
    counts, _, interrupted = fuzz(args, seeds)
    if interrupted:
        return 130
    return 1 if any(counts.values()) else 0


if __name__ == "__main__":
    sys.path.insert(0, str(ROOT))
    sys.exit(main())
