"""Atomic built-ins on the native engine (OpenCL C 3.0 6.15.12): the OpenCL 1.x atomic_<op> /
atom_<op> functions and the OpenCL C 2.0 atomics, each one sequentially consistent LLVM
atomic instruction on the checked pointer (docs/native.md, "What falls back, and why").
Emitted into a kernel function by codegen's generator `gen` (its lines, checks and sites).
"""
import re

import llvmlite.ir as ir

from clcoop.ir.atomic_enums import enum_checks
from clcoop.ir.scalars import scalar_dtype
from clcoop.native import irbuild
from clcoop.native.builtin_ir import float_order, store_size
from clcoop.native.context import C11_ATOMIC_FUNCTIONS, FAULT_WRITE
from clcoop.native.text_rewrite import quote, ref, typed
from clcoop.native.support import Unsupported


def emit(gen, ins, ops, base, params):
    """The call of atomic built-in `base` (demangled, with its parameters); OpenCL 1.x
    atomic_<op> / atom_<op> (OpenCL C 3.0 6.15.12.x legacy) here."""
    if base in C11_ATOMIC_FUNCTIONS:
        return _c11(gen, ins, ops, base, params)
    op = base.split("_", 1)[1]
    t = gen.ty(str(ins.type))
    size = store_size(t, gen.layout)
    if t.kind != "int" and op != "xchg":
        raise Unsupported(f"the built-in '{base}' on {t}")
    ptr = gen.check(ins, ops[0], size, size, "atomic", True, dtype=scalar_dtype(t))
    out = quote(ins.name)
    if op == "cmpxchg":
        pair = gen.fresh("cx")
        gen.lines.append(f"  {pair} = cmpxchg {ptr}, {typed(ops[1])}, {typed(ops[2])} seq_cst seq_cst")
        gen.lines.append(f"  {out} = extractvalue {{ {t}, i1 }} {pair}, 0")
        return None
    rmw = {"inc": "add", "dec": "sub"}.get(op, op)
    if rmw in ("min", "max") and _unsigned_pointee(params):
        rmw = "u" + rmw
    value = f"{t} 1" if op in ("inc", "dec") else typed(ops[1])
    gen.lines.append(f"  {out} = atomicrmw {rmw} {ptr}, {value} seq_cst")
    return None


def _c11(gen, ins, ops, base, params):
    """OpenCL C 2.0 atomics (OpenCL C 3.0 6.15.12.7): one sequentially consistent LLVM
    atomic on the checked pointer, whatever order and scope are asked (the strongest;
    the interpreter ignores them too, clcoop/interp/atomics.py). Loads and stores are
    checked as the interpreter's reads and writes, the rest as atomics."""
    op = base.removeprefix("atomic_").removesuffix("_explicit")
    out = quote(ins.name)
    _constant_orders(ops, base, params)
    if op == "flag_test_and_set":
        ptr = gen.check(ins, ops[0], 4, 4, "atomic", True)
        old = gen.fresh("fl")
        gen.lines.append(f"  {old} = atomicrmw xchg {ptr}, i32 1 seq_cst")
        _bool_result(gen, out, str(ins.type), f"icmp ne i32 {old}, 0")
        return None
    if op == "flag_clear":
        ptr = gen.check(ins, ops[0], 4, 4, "write", True)
        gen.lines.append(f"  store atomic i32 0, {ptr} seq_cst, align 4")
        return None
    if op == "load":
        t = gen.ty(str(ins.type))
        size = _atomic_size(gen, t, base)
        ptr = gen.check(ins, ops[0], size, size, "read", False, dtype=scalar_dtype(t))
        gen.lines.append(f"  {out} = load atomic {t}, {ptr} seq_cst, align {size}")
        return None
    if op in ("store", "init"):
        t = gen.ty(str(ops[1].type))
        size = _atomic_size(gen, t, base)
        ptr = gen.check(ins, ops[0], size, size, "write", True, dtype=scalar_dtype(t))
        gen.lines.append(f"  store atomic {typed(ops[1])}, {ptr} seq_cst, align {size}")
        return None
    if op.startswith("compare_exchange"):
        return _compare_exchange(gen, ins, ops, base)
    t = gen.ty(str(ins.type))
    size = _atomic_size(gen, t, base)
    rmw = "xchg" if op == "exchange" else op.removeprefix("fetch_")
    if t.kind == "float":
        # cl_ext_float_atomics: add and sub round as the interpreter's; min and max are
        # interp/float_order.py's (LLVM's atomicrmw fmax is maxnum, which may return
        # either zero of (+0, -0)): a compare-exchange loop.
        if rmw in ("min", "max"):
            ptr = gen.check(ins, ops[0], size, size, "atomic", True, dtype=scalar_dtype(t))
            name = f"__clcoop_atomic_f{rmw}.{t}"
            gen.mg.builtin_defs.setdefault(name, _float_min_max_definition(name, rmw, str(t), size))
            gen.lines.append(f"  {out} = call {t} @{name}({ptr}, {typed(ops[1])})")
            return None
        if rmw not in ("add", "sub", "xchg"):
            raise Unsupported(f"the built-in '{base}' on {t}")
        rmw = {"add": "fadd", "sub": "fsub"}.get(rmw, rmw)
    elif rmw in ("min", "max") and _unsigned_pointee(params):
        rmw = "u" + rmw
    ptr = gen.check(ins, ops[0], size, size, "atomic", True, dtype=scalar_dtype(t))
    gen.lines.append(f"  {out} = atomicrmw {rmw} {ptr}, {typed(ops[1])} seq_cst")
    return None


def _unsigned_pointee(params):
    """Whether the demangled first parameter points to an unsigned integer: min and max
    compare unsigned then (the interpreter's atomics.py: umin/umax)."""
    if not (params and params[0][0] == "ptr" and isinstance(params[0][2], tuple)):
        return False
    pointee = params[0][2]
    return pointee[0] == "int" and not pointee[2]


def _constant_orders(ops, base, params):
    """The memory_order / memory_scope arguments must be constants the interpreter
    accepts (ir/atomic_enums.py, enum_checks): it faults on the others, with its words;
    such a kernel runs there."""
    for k, kind, allowed, _ in enum_checks(base, params):
        value = ref(ops[k])
        if not (ops[k].is_constant and re.fullmatch(r"-?\d+", value)):
            raise Unsupported(f"the built-in '{base}' with a {kind} that is not a constant "
                              f"(the interpreter checks its value at run time)")
        if int(value) not in allowed:
            raise Unsupported(f"the built-in '{base}' with the invalid {kind} {value} (the "
                              f"interpreter reports it as a fault)")


def _atomic_size(gen, t, base):
    if t.kind not in ("int", "float"):
        raise Unsupported(f"the built-in '{base}' on {t}")
    return store_size(t, gen.layout)


def _bool_result(gen, out, ret, condition):
    """out = condition (the text of an i1 instruction) as the call's boolean return type
    (i1 from clcoop and clang; anything wider is zero-extended)."""
    if ret == "i1":
        gen.lines.append(f"  {out} = {condition}")
        return
    bit = gen.fresh("b")
    gen.lines += [f"  {bit} = {condition}", f"  {out} = zext i1 {bit} to {ret}"]


def _compare_exchange(gen, ins, ops, base):
    """atomic_compare_exchange_{strong,weak}(object, expected, desired, ...): compares
    the object's bits with *expected's (floats too: -0.0 differs from 0.0, a NaN matches
    itself, as the interpreter's same_bits); equal: stores desired and returns true;
    else writes the value seen to *expected (checked only then) and returns false. Weak
    never fails spuriously, as in the interpreter."""
    t = gen.ty(str(ops[2].type))
    size = _atomic_size(gen, t, base)
    it = f"i{size * 8}"
    expected = gen.check(ins, ops[1], size, size, "read", False, dtype=scalar_dtype(t))
    seen = gen.fresh("ce")
    gen.lines.append(f"  {seen} = load {it}, {expected}, align {size}")
    desired = ref(ops[2])
    if t.kind == "float":
        desired = gen.fresh("cd")
        gen.lines.append(f"  {desired} = bitcast {typed(ops[2])} to {it}")
    obj = gen.check(ins, ops[0], size, size, "atomic", True, dtype=scalar_dtype(t))
    pair = gen.fresh("cx")
    gen.lines += [f"  {pair} = cmpxchg {obj}, {it} {seen}, {it} {desired} seq_cst seq_cst",
                   f"  {pair}.old = extractvalue {{ {it}, i1 }} {pair}, 0",
                   f"  {pair}.ok = extractvalue {{ {it}, i1 }} {pair}, 1"]
    raw = gen.fresh("cp")
    pty = str(ops[1].type)
    gen.lines.append(f"  {raw} = getelementptr i8, {typed(ops[1])}, i64 0" if pty == "ptr"
                      else f"  {raw} = addrspacecast {typed(ops[1])} to ptr")
    site = gen.site(ins, "write", size, scalar_dtype(t))
    gen.mg.builtin_defs.setdefault(f"__clcoop_cx_back.{it}", _cx_back_definition(it, size))
    gen.lines.append(f"  call void @__clcoop_cx_back.{it}(ptr %__ctx, i1 {pair}.ok, ptr {raw}, "
                      f"{it} {pair}.old, i32 {site})")
    _bool_result(gen, quote(ins.name), str(ins.type), f"icmp ne i1 {pair}.ok, false")
    return None


def _cx_back_definition(it, size):
    """A failed compare-exchange writes the value seen back to *expected: checked, and done,
    only then (the pointer's region found by __clcoop_chk_any, as for a pointer of unknown
    origin)."""
    I32, I64 = irbuild.I32, irbuild.I64
    value_type = irbuild.parse_type(it)
    fn, b = irbuild.define(f"__clcoop_cx_back.{it}", ir.VoidType(),
                           [(irbuild.PTR, "c"), (irbuild.I1, "ok"), (irbuild.PTR, "p"), (value_type, "v"),
                            (I32, "site")])
    c, ok, p, v, site = fn.args
    with b.if_then(b.not_(ok, name="failed")):
        checked = irbuild.call(b, "__clcoop_chk_any", irbuild.PTR,
                               [c, p, p, ir.Constant(I64, size), ir.Constant(I64, size), site,
                                ir.Constant(I32, FAULT_WRITE), ir.Constant(irbuild.I1, 1)], "q")
        b.store(v, checked, align=size)
    b.ret_void()
    return irbuild.function_text(fn)


def _float_min_max_definition(name, kind, t, size):
    """An atomic fmax/fmin of type t on a checked pointer: the value seen replaced by
    float_order's max/min of it and v, retried until no other work-item came between."""
    value_type = irbuild.parse_type(t)
    bits_type = ir.IntType(size * 8)
    fn, b = irbuild.define(name, value_type, [(irbuild.PTR, "p"), (value_type, "v")])
    p, v = fn.args
    first = b.load_atomic(p, "seq_cst", size, name="first", typ=bits_type)
    entry = b.block
    retry = b.append_basic_block("retry")
    b.branch(retry)
    b.position_at_end(retry)
    seen = b.phi(bits_type, name="seen")
    old = b.bitcast(seen, value_type, name="old")
    new = b.bitcast(float_order(b, kind, old, v, "new"), bits_type, name="newbits")
    pair = b.cmpxchg(p, seen, new, "seq_cst", "seq_cst", name="pair")
    now = b.extract_value(pair, 0, name="now")
    seen.add_incoming(first, entry)
    seen.add_incoming(now, retry)
    done = b.append_basic_block("done")
    b.cbranch(b.extract_value(pair, 1, name="ok"), done, retry)
    b.position_at_end(done)
    b.ret(old)
    return irbuild.function_text(fn)
