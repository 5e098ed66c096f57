"""Cooperative-matrix mul-add as generated LLVM IR on logical (row-major) matrices: the
arithmetic of the native engine's mul-add calls (coop_routines.py; docs/native.md,
"Cooperative matrices"), bit for bit as the interpreter's coopmat.mul_add.

- Floating point (coopmat._float_mul_add): the interpreter's reference order
  (interp/fused_chain.py), which is the same on every host: each element one fused
  multiply-add chain over k from +0 in the work type (float32; float64 when an operand is
  double; half, bf16 and fp8 operands widened exactly), then + C in the work type, rounded
  to the result type. The generated code computes exactly that: acc = +0;
  acc = fma(a[i,k], b[k,j], acc) for k in order; r = round(acc + c).
- Integer (coopmat._integer_mul_add): operands sign- or zero-extended per the operand flags
  (SPV_KHR_cooperative_matrix, Cooperative Matrix Operands: MatrixASignedComponentsKHR 0x1,
  B 0x2, C 0x4, Result 0x8); wrapping arithmetic keeps the low bits of the exact A*B + C;
  with SaturatingAccumulationKHR (0x10) the exact A*B (in i128) plus C saturates to the
  result's range, signed per flag 0x8.
"""
import functools

import llvmlite.ir as ir

from clcoop import float8
from clcoop.coopmat_spec import Operand
from clcoop.native import bfloat_ir, irbuild
from clcoop.native.support import Unsupported

FLOAT_TYPES = {"half": 16, "bfloat": 16, "float": 32, "double": 64}
INT_TYPES = {"i8": 8, "i16": 16, "i32": 32, "i64": 64}
# fp8 components (SPV_EXT_float8): stored as i8, widened to float by decoding (exact).
FLOAT8_TYPES = {f.token.lower(): f for f in float8.FORMATS.values()}


def mul_add_ir(name, m, n, k, types, operands=0, strided=False, columns=(False, False)):
    """IR of `void @name(ptr %a, ptr %b, ptr %c, ptr %r)`: r = a * b + c with a (m x k),
    b (k x n), c and r (m x n) dense and row-major; types = (a, b, c, result) LLVM names.
    strided: `void @name(ptr %a, i64 %sa, ptr %b, i64 %sb, ptr %c, ptr %r)`, the rows of a
    and b %sa and %sb bytes apart (read where a load found them: subgroup.py);
    columns = (a, b): that operand is given by columns instead, %sa / %sb bytes apart (a
    column-major load's tile, read in place: no transposition before the call)."""
    text = _routine_text(m, n, k, tuple(types), operands, strided, tuple(columns))
    return text.replace(f"@{_ROUTINE}(", f"@{name}(", 1)


# The name a routine is built under; mul_add_ir gives each copy the caller's.
_ROUTINE = "__clcoop_mad"


# Bounded: a large tile's routine is hundreds of KiB of text.
@functools.lru_cache(maxsize=256)
def _routine_text(m, n, k, types, operands, strided, columns):
    """mul_add_ir's text under the name _ROUTINE, built once per process for each shape,
    types, operand flags and interface: building it with llvmlite costs 2-15 ms, and every
    module whose kernels multiply these shapes asks for it again."""
    layout = _Layout(strided, *columns)
    if all(t in FLOAT_TYPES for t in types) or \
            (all(t in FLOAT8_TYPES for t in types[:2]) and all(t in ("half", "float") for t in types[2:])):
        return _float_ir(_ROUTINE, m, n, k, types, layout)
    if all(t in INT_TYPES for t in types):
        return _integer_ir(_ROUTINE, m, n, k, types, operands, layout)
    raise Unsupported(f"a cooperative-matrix mul-add of {' x '.join(types[:2])} + {types[2]} "
                      f"-> {types[3]} mixes integer and floating-point matrices")


class _Layout:
    """How the routine reads a and b (mul_add_ir's strided and columns)."""

    def __init__(self, strided, a_columns=False, b_columns=False):
        if (a_columns or b_columns) and not strided:
            raise ValueError("operands by columns need the strided interface")
        self.strided, self.a_columns, self.b_columns = strided, a_columns, b_columns


# k steps per iteration of the routine's loop (when they divide k), in order. Of a
# loop of one step, LLVM unrolls 2 and forms the m rows' addresses anew in every iteration
# (m - 1 LEAs, the counter and branch); 4 steps per iteration halve that (the 8 x 16 x 16 f32
# step of examples/gemm_f32.cl: 318 -> 274 instructions for -mcpu=emeraldrapids;
# docs/performance.md, "The f32 GEMM per thread count"). Not all k steps without a loop:
# LLVM's scheduler then orders the FMAs row by row, one chain after the other, which the
# out-of-order core cannot overlap (the 8 rows' chains must stay interleaved).
STEPS_PER_ITERATION = 4


def _float_ir(name, m, n, k, types, layout):
    """Row i of the accumulator is one <n x work> vector in a register across the k loop:
    acc_i = fma(splat(a[i, kk]), b[kk, :], acc_i), so each element is its own FMA chain
    over k in order, and the m chains of a step are independent (no gathers)."""
    ta, tb, tc, tr = types
    if "bfloat" in (ta, tb) and ta != tb:
        # SPV_KHR_bfloat16: both factors bf16 (coopmat2.bfloat16_mul_add).
        raise Unsupported(f"a cooperative-matrix mul-add of {ta} x {tb}")
    work = "double" if "double" in types else "float"
    if tr == "half" and work == "double":
        # One correct rounding double -> half is a library call in LLVM's lowering
        # (docs/native.md, "No runtime library calls").
        raise Unsupported("a cooperative-matrix mul-add of double operands with a half result")
    wt = irbuild.parse_type(work)
    vec = ir.VectorType(wt, n)
    fn, b, args = _header(name, layout)
    _b_columns_to_rows(b, args, _storage(tb), n, k, layout)
    widened = _widen_a(b, args, ta, work, m, k, layout)
    step = STEPS_PER_ITERATION if k % STEPS_PER_ITERATION == 0 else 1
    kk, acc, kloop = _k_loop_head(b, m, vec)
    operands = (args, layout, (ta, tb, work), (m, n, k), widened)
    sums = acc
    rows = (_a_rows_of_iteration(b, args, _storage(ta), m, kk)
            if step > 1 and layout.strided and not layout.a_columns and ta == work else None)
    for j in range(step):
        sfx = f".{j}" if j else ""
        at = b.add(kk, _i64(j), name=f"kk{sfx}") if j else kk
        bv, splats = _step_operands(b, *operands, at, sfx, None if rows is None else (rows, j))
        sums = [irbuild.intrinsic(b, "fma", [splats[i], bv, sums[i]], f"acc{i}.n{sfx}") for i in range(m)]
    _k_loop_tail(b, kk, acc, sums, kloop, step, k)
    for i in range(m):
        c = _widen_vector(b, tc, work, n, _load_row(b, args["c"], tc, n, i, "c"), f"c{i}")
        total = b.fadd(sums[i], c, name=f"sum{i}")
        _store_row(b, args["r"], tr, n, i, _narrow_vector(b, work, tr, n, total, f"rv{i}"))
    # No declarations in the text: LLVM's parser declares the intrinsics a module calls,
    # and a module with several mul-adds of one shape must not declare one twice.
    b.ret_void()
    return irbuild.plain_text(fn)


def _step_operands(b, args, layout, types, shape, widened, kk, sfx="", rows=None):
    """(row kk of b as <n x work>, the m splats of a[i, kk]) for step kk (sfx: appended to
    the names, one of an iteration's steps; rows: (_a_rows_of_iteration's pointers, the
    step's place j in the iteration): a[i, kk] is then at rows[i] + j elements)."""
    ta, tb, work = types
    m, n, k = shape
    wt = irbuild.parse_type(work)
    vec = ir.VectorType(wt, n)
    bv = _widen_vector(b, tb, work, n, _b_row_vector(b, args, _storage(tb), n, k, layout, kk, sfx), f"bv{sfx}")
    splats = []
    for i in range(m):
        if rows is not None:
            ap = b.gep(rows[0][i], [_i64(rows[1])], source_etype=wt, name=f"ap{i}{sfx}")
        elif ta == work:
            ap = _a_element(b, args, _storage(ta), i, k, layout, kk, sfx)
        else:
            ap = _widened_a_element(b, widened, wt, i, m, k, layout, kk, sfx)
        splats.append(_splat(b, b.load(ap, name=f"a{i}.w{sfx}", typ=wt), vec, f"a{i}{sfx}"))
    return bv, splats


def _a_rows_of_iteration(b, args, ta, m, kk):
    """Pointers to a[i, kk] for each row i (a read in place, rows %sa bytes apart), each
    through an empty inline asm: x86 code generation otherwise addresses the rows as
    base + index (a + i * sa + 4 kk), and an FMA with an indexed memory operand is
    un-laminated into two uops at rename on Intel's cores since Haswell (Intel's
    optimization manual, "Unlamination"): 128 of the 390 uops of a GEMM tile step (8 x 16 x
    16 f32). From a register the FMAs read disp(row), one fused uop each (272 uops per step);
    on the GPU machine's Emerald Rapids Xeon one thread's 1024^3 and 2048^3 GEMMs went from
    ~1.8x to ~1.5x NumPy's time (docs/performance.md, "The f32 GEMM per thread count")."""
    first = b.gep(args["a"], [b.mul(kk, _i64(_BYTES[ta]), name="ar.k")], source_etype=irbuild.I8, name="ar.p")
    rows = []
    for i in range(m):
        # Row i from row i - 1's register: one add each, the asm's input dead after it.
        at = first if i == 0 else b.gep(rows[-1], [args["sa"]], source_etype=irbuild.I8, name=f"ar{i}.p")
        rows.append(b.call(_OPAQUE, [at], name=f"ar{i}"))
    return rows


# `ptr asm "", "=r,0"(ptr p)`: p itself in a register the code generator cannot look into.
_OPAQUE = ir.InlineAsm(ir.FunctionType(irbuild.PTR, [irbuild.PTR]), "", "=r,0")


def _i64(v):
    return ir.Constant(irbuild.I64, v)


def _i32_vector(values):
    """A shufflevector mask: <N x i32> of `values`."""
    return ir.Constant(ir.VectorType(irbuild.I32, len(values)), [ir.Constant(irbuild.I32, v) for v in values])


def _splat(b, value, vec, name):
    """`value` in every lane of `vec`: %name.ins, %name.s (insertelement, shufflevector)."""
    first = b.insert_element(ir.Constant(vec, ir.Undefined), value, _i64(0), name=f"{name}.ins")
    return b.shuffle_vector(first, ir.Constant(vec, ir.Undefined), ir.Constant(ir.VectorType(irbuild.I32, vec.count),
                                                                                None), name=f"{name}.s")


def _header(name, layout):
    """(function, builder at entry, arguments by name) of `void @name(ptr %a[, i64 %sa],
    ptr %b[, i64 %sb], ptr %c, ptr %r)`, the pointers noalias."""
    params = [(irbuild.PTR, "a")] + ([(irbuild.I64, "sa")] if layout.strided else []) + \
        [(irbuild.PTR, "b")] + ([(irbuild.I64, "sb")] if layout.strided else []) + \
        [(irbuild.PTR, "c"), (irbuild.PTR, "r")]
    fn, b = irbuild.define(name, ir.VoidType(), params, inline=False)
    args = {arg.name: arg for arg in fn.args}
    for arg in fn.args:
        if arg.type == irbuild.PTR:
            arg.add_attribute("noalias")
    return fn, b, args


def _k_loop_head(b, m, vec):
    """The k loop's head, shared by the float and the integer routines: (%kk, the m
    accumulator rows as phis of `vec` from zero, the loop's block)."""
    entry = b.block
    kloop = b.append_basic_block("kloop")
    b.branch(kloop)
    b.position_at_end(kloop)
    kk = b.phi(irbuild.I64, name="kk")
    kk.add_incoming(_i64(0), entry)
    acc = []
    for i in range(m):
        acc.append(b.phi(vec, name=f"acc{i}"))
        acc[i].add_incoming(ir.Constant(vec, None), entry)
    return kk, acc, kloop


def _k_loop_tail(b, kk, acc, sums, kloop, step, k):
    """The k loop's back-edge (%kk + step, the phis' new values `sums`), then the block
    after it."""
    nxt = b.add(kk, _i64(step), name="kk.next")
    more = irbuild.icmp(b, "ult", nxt, _i64(k), "kk.more")
    finish = b.append_basic_block("finish")
    b.cbranch(more, kloop, finish)
    kk.add_incoming(nxt, kloop)
    for phi, value in zip(acc, sums):
        phi.add_incoming(value, kloop)
    b.position_at_end(finish)


_BYTES = {t: bits // 8 for t, bits in {**FLOAT_TYPES, **INT_TYPES}.items()}


def _storage(t):
    """The LLVM type a component is stored as (fp8: its i8 bits)."""
    return "i8" if t in FLOAT8_TYPES else t


def _decode_vector(b, fmt, value, out):
    """<n x i8> fp8 patterns -> <n x float> exact values (ir/rounding.py decode): the
    significand with its implicit bit times a power of two, the E5M2 infinities, the NaNs
    (quiet, sign kept), the sign."""
    m, bias, top = fmt.mantissa_bits, fmt.bias, (1 << fmt.exponent_bits) - 1
    n = value.type.count
    vi, vf, vb = (ir.VectorType(t, n) for t in (irbuild.I32, irbuild.FLOAT, irbuild.I1))

    def c(t, v):
        return irbuild.const(t, v)
    p = out + "."
    u = b.zext(value, vi, name=f"{p}u")
    ef = b.and_(b.lshr(u, c(vi, m), name=f"{p}e"), c(vi, top), name=f"{p}ef")
    f = b.and_(u, c(vi, (1 << m) - 1), name=f"{p}f")
    nrm = irbuild.icmp(b, "ne", ef, ir.Constant(vi, None), f"{p}nrm")
    lead = b.select(nrm, c(vi, 1 << m), ir.Constant(vi, None), name=f"{p}lead")
    sig = b.or_(f, lead, name=f"{p}sig")
    ee = b.select(nrm, ef, c(vi, 1), name=f"{p}ee")
    pe = b.add(ee, c(vi, 127 - bias - m), name=f"{p}pe")
    scale = b.bitcast(b.shl(pe, c(vi, 23), name=f"{p}pes"), vf, name=f"{p}scale")
    mag = b.fmul(b.uitofp(sig, vf, name=f"{p}sigf"), scale, name=f"{p}mag")
    is_top = irbuild.icmp(b, "eq", ef, c(vi, top), f"{p}top")
    if fmt.has_infinity:
        fz = irbuild.icmp(b, "eq", f, ir.Constant(vi, None), f"{p}fz")
        inf = b.and_(is_top, fz, name=f"{p}inf")
        nan = b.and_(is_top, b.xor(fz, c(vb, 1), name=f"{p}fnz"), name=f"{p}nan")
        m1 = b.select(inf, c(vf, float("inf")), mag, name=f"{p}m1")
    else:
        nan = b.and_(is_top, irbuild.icmp(b, "eq", f, c(vi, (1 << m) - 1), f"{p}fa"), name=f"{p}nan")
        m1 = b.fadd(mag, ir.Constant(vf, None), name=f"{p}m1")
    m2 = b.select(nan, c(vf, float("nan")), m1, name=f"{p}m2")
    neg = irbuild.icmp(b, "uge", u, c(vi, 128), f"{p}neg")
    return b.select(neg, b.fneg(m2, name=f"{p}negm"), m2, name=out)


def _transposes_whole(n, k):
    """b by columns is transposed once at entry when square with a power-of-two side (a
    perfect-shuffle transposition, log2 n rounds of two-source shuffles, which x86 does in
    one instruction each); other shapes gather each row's elements in the k loop."""
    return n == k and n >= 2 and n & (n - 1) == 0


def _b_columns_to_rows(b, args, tb, n, k, layout):
    """Entry code for b by columns: of a square shape, args["bt"], b's rows, dense (k x n);
    of another, args["bg"], the row that _b_row gathers.
    Round: w[2i] interleaves the low halves of v[i] and v[i + n/2], w[2i+1] the high halves;
    after log2 n rounds w[kk] is row kk (column kk of the columns)."""
    if not layout.b_columns:
        return
    t = irbuild.parse_type(tb)
    if not _transposes_whole(n, k):
        args["bg"] = irbuild.alloca(b, ir.ArrayType(t, n), 64, "bg")
        return
    col = ir.VectorType(t, k)
    args["bt"] = irbuild.alloca(b, ir.ArrayType(t, k * n), 64, "bt")
    level = []
    for j in range(n):
        offset = b.mul(args["sb"], _i64(j), name=f"bc{j}.o")
        level.append(b.load(b.gep(args["b"], [offset], source_etype=irbuild.I8, name=f"bc{j}.p"),
                            name=f"t0.{j}", align=1, typ=col))
    h = n // 2
    low = [x // 2 if x % 2 == 0 else n + x // 2 for x in range(n)]
    high = [h + x for x in low]
    rounds = n.bit_length() - 1
    for s in range(rounds):
        nxt = [None] * n
        for i in range(h):
            for out, mask in ((2 * i, low), (2 * i + 1, high)):
                nxt[out] = b.shuffle_vector(level[i], level[i + h], _i32_vector(mask), name=f"t{s + 1}.{out}")
        level = nxt
    for kk in range(k):
        b.store(level[kk], b.gep(args["bt"], [_i64(kk * n)], source_etype=t, name=f"bt{kk}.p"), align=64)


def _widen_a(b, args, ta, work, m, k, layout):
    """Entry code widening a narrower a (half) once per call into %aw, in its own
    orientation (rows: element (i, kk) at i*k + kk; columns: at kk*m + i), one vector
    conversion per row or column instead of one scalar conversion per element and step."""
    if ta == work:
        return None
    wt = irbuild.parse_type(work)
    aw = irbuild.alloca(b, ir.ArrayType(wt, m * k), 64, "aw")
    count, length = (k, m) if layout.a_columns else (m, k)
    stride = args["sa"] if layout.strided else _i64(k * _BYTES[_storage(ta)])
    raw_type = ir.VectorType(irbuild.parse_type(_storage(ta)), length)
    for v in range(count):
        offset = b.mul(stride, _i64(v), name=f"aw{v}.o")
        raw = b.load(b.gep(args["a"], [offset], source_etype=irbuild.I8, name=f"aw{v}.p"),
                     name=f"aw{v}.raw", align=1, typ=raw_type)
        wide = _widen_vector(b, ta, work, length, raw, f"aw{v}.w")
        b.store(wide, b.gep(aw, [_i64(v * length)], source_etype=wt, name=f"aw{v}.d"), align=4)
    return aw


def _widened_a_element(b, aw, wt, i, m, k, layout, kk, sfx=""):
    """Pointer to element (i, kk) of %aw (_widen_a)."""
    if layout.a_columns:
        index = b.add(b.mul(kk, _i64(m), name=f"ai{i}.m{sfx}"), _i64(i), name=f"ai{i}{sfx}")
    else:
        index = b.add(kk, _i64(i * k), name=f"ai{i}{sfx}")
    return b.gep(aw, [index], source_etype=wt, name=f"ap{i}{sfx}")


def _b_row_vector(b, args, tb, n, k, layout, kk, sfx=""):
    """%bv.raw: row kk of b as <n x tb> (sfx: appended to every name, one of two steps)."""
    t = irbuild.parse_type(tb)
    if layout.b_columns and not _transposes_whole(n, k):
        bk = b.mul(kk, _i64(_BYTES[tb]), name=f"bk{sfx}")
        for j in range(n):
            offset = b.add(b.mul(args["sb"], _i64(j), name=f"bg{j}.o{sfx}"), bk, name=f"bg{j}.a{sfx}")
            value = b.load(b.gep(args["b"], [offset], source_etype=irbuild.I8, name=f"bg{j}.p{sfx}"),
                           name=f"bg{j}{sfx}", align=1, typ=t)
            b.store(value, b.gep(args["bg"], [_i64(j)], source_etype=t, name=f"bg{j}.d{sfx}"))
        row = b.gep(args["bg"], [_i64(0)], source_etype=irbuild.I8, name=f"bp{sfx}")
    elif layout.b_columns:
        row = b.gep(args["bt"], [b.mul(kk, _i64(n), name=f"brow{sfx}")], source_etype=t, name=f"bp{sfx}")
    elif layout.strided:
        row = b.gep(args["b"], [b.mul(kk, args["sb"], name=f"brow{sfx}")], source_etype=irbuild.I8, name=f"bp{sfx}")
    else:
        row = b.gep(args["b"], [b.mul(kk, _i64(n), name=f"brow{sfx}")], source_etype=t, name=f"bp{sfx}")
    return b.load(row, name=f"bv.raw{sfx}", align=1, typ=ir.VectorType(t, n))


def _a_element(b, args, ta, i, k, layout, kk, sfx=""):
    """Pointer to element (i, kk) of a (ta: its storage type)."""
    if layout.a_columns:
        index = b.add(b.mul(kk, args["sa"], name=f"ak{i}{sfx}"), _i64(i * _BYTES[ta]), name=f"ai{i}{sfx}")
        return b.gep(args["a"], [index], source_etype=irbuild.I8, name=f"ap{i}{sfx}")
    if layout.strided:
        index = b.add(b.mul(args["sa"], _i64(i), name=f"ao{i}{sfx}"),
                      b.mul(kk, _i64(_BYTES[ta]), name=f"ak{i}{sfx}"), name=f"ai{i}{sfx}")
        return b.gep(args["a"], [index], source_etype=irbuild.I8, name=f"ap{i}{sfx}")
    index = b.add(kk, _i64(i * k), name=f"ai{i}{sfx}")
    return b.gep(args["a"], [index], source_etype=irbuild.parse_type(ta), name=f"ap{i}{sfx}")


def _load_row(b, base, t, n, i, name):
    """Row i of the dense (m x n) matrix at `base` as <n x t>."""
    et = irbuild.parse_type(t)
    row = b.gep(base, [_i64(i * n)], source_etype=et, name=f"{name}p{i}")
    return b.load(row, name=f"{name}{i}.raw", align=1, typ=ir.VectorType(et, n))


def _store_row(b, base, t, n, i, value):
    """`value` stored as row i of the dense (m x n) result at `base`."""
    b.store(value, b.gep(base, [_i64(i * n)], source_etype=irbuild.parse_type(t), name=f"rp{i}"), align=1)


def _widen_vector(b, src, work, n, value, out):
    if src in FLOAT8_TYPES:
        if work != "float":
            raise Unsupported("an fp8 cooperative-matrix mul-add into a double accumulator")
        return _decode_vector(b, FLOAT8_TYPES[src], value, out)
    if src == work:
        return value
    if src == "bfloat":     # exact: float's upper half (bfloat_ir)
        return bfloat_ir.widen_value(b, value, work)
    return b.fpext(value, ir.VectorType(irbuild.parse_type(work), n), name=out)


def _narrow_vector(b, work, dst, n, value, out):
    if dst == work:
        return value
    if dst == "bfloat":     # one rounding of the sum (coopmat2.bfloat16_mul_add: to_bfloat16)
        return bfloat_ir.round_from_value(b, work, value)
    target = ir.VectorType(irbuild.parse_type(dst), n)
    if FLOAT_TYPES[dst] < FLOAT_TYPES[work]:
        return b.fptrunc(value, target, name=out)
    return b.fpext(value, target, name=out)


def _resize(b, value, signed, wide, out):
    """A value of <n x t> -> <n x wide>: sign- or zero-extended, or truncated (the low bits,
    all that a result computed modulo 2^bits(wide) needs)."""
    target = ir.VectorType(wide, value.type.count)
    tb, wb = value.type.element.width, wide.width
    if tb == wb:
        return value
    if tb > wb:
        return b.trunc(value, target, name=out)
    return (b.sext if signed else b.zext)(value, target, name=out)


def _integer_work_type(types, k, saturating):
    """The integer type the sums are computed in. Wrapping: the result type (the low bits
    of the exact A*B + C are the same computed modulo 2^bits of the result). Saturating:
    one wide enough for the exact sum: i64 when |a|, |b| < 2^16, |c| < 2^32 and k < 2^16,
    else i128."""
    ta, tb, tc, tr = types
    if not saturating:
        return tr
    small = INT_TYPES[ta] <= 16 and INT_TYPES[tb] <= 16 and INT_TYPES[tc] <= 32 and k < (1 << 16)
    return "i64" if small else "i128"


def _integer_ir(name, m, n, k, types, operands, layout):
    """As _float_ir: row i of the accumulator is one <n x work> vector across the k loop,
    acc_i += splat(a[i, kk]) * b[kk, :]; then + c, clamped when saturating."""
    ta, tb, tc, tr = types
    saturating = bool(operands & Operand.SATURATING_ACCUMULATION)
    if saturating and any(INT_TYPES[t] == 64 for t in types):
        # i64 x i64 products summed over k can leave i128: the interpreter computes them
        # with Python integers; not compiled natively.
        raise Unsupported("a saturating cooperative-matrix mul-add of 64-bit integers")
    wide_name = _integer_work_type(types, k, saturating)
    if _pairs_apply(types, wide_name, n, k, layout):
        return _integer_pairs_ir(name, m, n, k, types, operands, layout)
    wide = irbuild.parse_type(wide_name)
    vec = ir.VectorType(wide, n)
    fn, b, args = _header(name, layout)
    _b_columns_to_rows(b, args, tb, n, k, layout)
    kk, acc, kloop = _k_loop_head(b, m, vec)
    bv = _resize(b, _b_row_vector(b, args, tb, n, k, layout, kk), operands & Operand.MATRIX_B_SIGNED, wide, "bv")
    sums = []
    for i in range(m):
        a_one = _a_scalar(b, args, ta, i, k, layout, kk)
        a_wide = _resize(b, a_one, operands & Operand.MATRIX_A_SIGNED, wide, f"a{i}.w")
        a_splat = b.shuffle_vector(a_wide, ir.Constant(a_wide.type, ir.Undefined),
                                   ir.Constant(ir.VectorType(irbuild.I32, n), None), name=f"a{i}.s")
        sums.append(b.add(acc[i], b.mul(a_splat, bv, name=f"p{i}"), name=f"acc{i}.n"))
    _k_loop_tail(b, kk, acc, sums, kloop, 1, k)
    _integer_finish(b, args, sums, n, types, operands, wide, saturating)
    return irbuild.plain_text(fn)


def _a_scalar(b, args, ta, i, k, layout, kk, sfx=""):
    """Element (i, kk) of a as a <1 x ta> vector (%a{i}.ins)."""
    t = irbuild.parse_type(ta)
    raw = b.load(_a_element(b, args, ta, i, k, layout, kk, sfx), name=f"a{i}.raw{sfx}", typ=t)
    return b.insert_element(ir.Constant(ir.VectorType(t, 1), ir.Undefined), raw, _i64(0), name=f"a{i}.ins{sfx}")


def _integer_finish(b, args, sums, n, types, operands, wide, saturating):
    """After the k loop: row i's sum + c, clamped when saturating, stored as r's type."""
    _, _, tc, tr = types
    vec = ir.VectorType(wide, n)
    bits = INT_TYPES[tr]
    if operands & Operand.MATRIX_RESULT_SIGNED:
        lo, hi = -(1 << (bits - 1)), (1 << (bits - 1)) - 1
    else:
        lo, hi = 0, (1 << bits) - 1
    for i, acc in enumerate(sums):
        c = _resize(b, _load_row(b, args["c"], tc, n, i, "c"), operands & Operand.MATRIX_C_SIGNED, wide, f"c{i}")
        result = b.add(acc, c, name=f"sum{i}")
        if saturating:
            below = irbuild.icmp(b, "slt", result, irbuild.const(vec, lo), f"below{i}")
            above = irbuild.icmp(b, "sgt", result, irbuild.const(vec, hi), f"above{i}")
            clamped = b.select(below, irbuild.const(vec, lo), result, name=f"s1.{i}")
            result = b.select(above, irbuild.const(vec, hi), clamped, name=f"s2.{i}")
        _store_row(b, args["r"], tr, n, i, _resize(b, result, False, irbuild.parse_type(tr), f"rv{i}"))
    b.ret_void()


def _pairs_apply(types, wide, n, k, layout):
    """Whether _integer_pairs_ir computes this routine: 8-bit a and b (their products and
    the sum of two fit a signed 32-bit word), sums modulo 2^32, k even, b given by rows."""
    ta, tb, _, _ = types
    return (wide == "i32" and INT_TYPES[ta] == 8 and INT_TYPES[tb] == 8 and k % 2 == 0
            and (not layout.b_columns or _transposes_whole(n, k)))


def _integer_pairs_ir(name, m, n, k, types, operands, layout):
    """_integer_ir two k steps at a time: b rows kk and kk+1 interleaved as 16-bit pairs,
    a[i, kk], a[i, kk+1] as one repeated pair, and acc_i += the sums of adjacent products,
    which x86 does in one instruction (pmaddwd; vpdpwssd with AVX512-VNNI). Sums modulo
    2^32 do not depend on the order of the additions, so the result is the same."""
    ta, tb, _, _ = types
    i16, i32 = irbuild.I16, irbuild.I32
    vec, pairs, pairs32 = ir.VectorType(i32, n), ir.VectorType(i16, 2 * n), ir.VectorType(i32, 2 * n)
    fn, b, args = _header(name, layout)
    _b_columns_to_rows(b, args, tb, n, k, layout)
    kk, acc, kloop = _k_loop_head(b, m, vec)
    steps = ((".s0", kk), (".s1", b.add(kk, _i64(1), name="kk1")))
    rows = [_resize(b, _b_row_vector(b, args, tb, n, k, layout, at, sfx), operands & Operand.MATRIX_B_SIGNED, i16,
                    f"bv{sfx}") for sfx, at in steps]
    bw = b.shuffle_vector(rows[0], rows[1], _i32_vector([x for j in range(n) for x in (j, n + j)]), name="bw")
    bw32 = b.sext(bw, pairs32, name="bw32")
    sums = []
    for i in range(m):
        a_pair = [_resize(b, _a_scalar(b, args, ta, i, k, layout, at, sfx), operands & Operand.MATRIX_A_SIGNED, i16,
                          f"a{i}.w{sfx}") for sfx, at in steps]
        pair = b.shuffle_vector(a_pair[0], a_pair[1], _i32_vector([0, 1]), name=f"a{i}.pair")
        word = b.bitcast(pair, i32, name=f"a{i}.word")
        first = b.insert_element(ir.Constant(vec, ir.Undefined), word, _i64(0), name=f"a{i}.ins32")
        repeated = b.shuffle_vector(first, ir.Constant(vec, ir.Undefined), ir.Constant(ir.VectorType(i32, n), None),
                                    name=f"a{i}.splat")
        a32 = b.sext(b.bitcast(repeated, pairs, name=f"a{i}.s"), pairs32, name=f"a{i}.s32")
        products = b.mul(a32, bw32, name=f"p{i}")
        products.flags.append("nsw")     # the text routine's: |a * b| <= 2^15 * 2^15
        even = b.shuffle_vector(products, ir.Constant(pairs32, ir.Undefined), _i32_vector([2 * j for j in range(n)]),
                                name=f"p{i}.e")
        odd = b.shuffle_vector(products, ir.Constant(pairs32, ir.Undefined),
                               _i32_vector([2 * j + 1 for j in range(n)]), name=f"p{i}.o")
        sums.append(b.add(acc[i], b.add(even, odd, name=f"p{i}.s"), name=f"acc{i}.n"))
    _k_loop_tail(b, kk, acc, sums, kloop, 2, k)
    _integer_finish(b, args, sums, n, types, operands, i32, False)
    return irbuild.plain_text(fn)
