"""Cooperative-matrix mul-add as generated LLVM IR on logical (row-major) matrices: the
arithmetic of the native engine's mul-add calls (coop_routines.py; docs/native.md,
"Cooperative matrices"), bit for bit as the interpreter's coopmat.mul_add.

- Floating point (coopmat._float_mul_add): the interpreter multiplies with NumPy's matmul in
  float32 (float64 when an operand is double; half operands are widened) and then adds C in
  that type and rounds to the result type. On x86-64 NumPy's OpenBLAS sgemm/dgemm sums each
  element as one fused multiply-add chain over k starting from +0 (measured for the tile
  shapes the examples use; test_native_coop_ir.py checks it against coopmat.mul_add), so
  the generated code does exactly that: acc = +0; acc = fma(a[i,k], b[k,j], acc) for k in
  order; r = round(acc + c). Not every shape: OpenBLAS's AVX-512 sgemm sums a tile of at most
  8 columns with K >= 32 in 16 chains (step k on chain k mod 16) added in adjacent pairs, and
  some shapes (one row or column, 24 columns) otherwise. So the order is measured once per
  shape and work type in the process (matmul_chains: NumPy's matmul on data whose every
  fused step rounds once, against each candidate order); the routine computes the order
  found, and a shape whose order is none of them is refused (the kernel runs in the
  interpreter) rather than computed differently.
- Integer (coopmat._integer_mul_add): operands sign- or zero-extended per the operand flags
  (SPV_KHR_cooperative_matrix, Cooperative Matrix Operands: MatrixASignedComponentsKHR 0x1,
  B 0x2, C 0x4, Result 0x8); wrapping arithmetic keeps the low bits of the exact A*B + C;
  with SaturatingAccumulationKHR (0x10) the exact A*B (in i128) plus C saturates to the
  result's range, signed per flag 0x8.
"""
import functools
import re

import numpy as np

from clcoop import float8
from clcoop.coopmat_spec import Operand
from clcoop.native import bfloat_ir
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
    layout = _Layout(strided, *columns)
    if all(t in FLOAT_TYPES for t in types) or \
            (all(t in FLOAT8_TYPES for t in types[:2]) and all(t in ("half", "float") for t in types[2:])):
        return _float_ir(name, m, n, k, types, layout)
    if all(t in INT_TYPES for t in types):
        return _integer_ir(name, m, n, k, types, operands, layout)
    raise Unsupported(f"a cooperative-matrix mul-add of {' x '.join(types[:2])} + {types[2]} "
                      f"-> {types[3]} mixes integer and floating-point matrices")


class _Layout:
    """How the routine reads a and b (mul_add_ir's strided and columns)."""

    def __init__(self, strided, a_columns=False, b_columns=False):
        if (a_columns or b_columns) and not strided:
            raise ValueError("operands by columns need the strided interface")
        self.strided, self.a_columns, self.b_columns = strided, a_columns, b_columns


def _float_ir(name, m, n, k, types, layout):
    """Row i of the accumulator is one <n x work> vector in a register across the k loop:
    acc_i = fma(splat(a[i, kk]), b[kk, :], acc_i), so each element is its own FMA chain
    over k in order, and the m chains of a step are independent (no gathers)."""
    ta, tb, tc, tr = types
    if "bfloat" in (ta, tb) and ta != tb:
        # SPV_KHR_bfloat16: both factors bf16 (coopmat2.bfloat16_mul_add).
        raise Unsupported(f"a cooperative-matrix mul-add of {ta} x {tb}")
    sa, sb = _storage(ta), _storage(tb)
    work = "double" if "double" in types else "float"
    if tr == "half" and work == "double":
        # One correct rounding double -> half is a library call in LLVM's lowering
        # (docs/native.md, "No runtime library calls").
        raise Unsupported("a cooperative-matrix mul-add of double operands with a half result")
    vec = f"<{n} x {work}>"
    fma = f"llvm.fma.v{n}{_suffix(work)}"
    chains = matmul_chains(m, n, k, work)
    if chains is None:
        raise Unsupported(f"a {m} x {n} x {k} cooperative-matrix mul-add in {work}: NumPy's matmul (the "
                          f"interpreter's) sums this shape in an order the native routine does not reproduce")
    # One chain: the row accumulators are phis; several: each row's chains live in an
    # array on the stack, chain kk mod `chains` taking step kk.
    entry = _widen_a(ta, work, m, k, layout)
    if chains > 1:
        entry += [line for i in range(m) for line in (f"  %accs{i} = alloca [{chains} x {vec}], align 64",
                                                      f"  store [{chains} x {vec}] zeroinitializer, ptr %accs{i}")]
    lines = [*_k_loop_head(name, m if chains == 1 else 0, vec, entry, sb, n, k, layout),
             *_widen_vector(tb, work, n, "%bv.raw", "%bv")]
    if chains > 1:
        lines.append(f"  %chain = urem i64 %kk, {chains}")
    for i in range(m):
        lines += [*(_a_element(sa, i, k, layout) if ta == work else _widened_a_element(work, i, m, k, layout)),
                  f"  %a{i}.w = load {work}, ptr %ap{i}",
                  f"  %a{i}.ins = insertelement <{n} x {work}> poison, {work} %a{i}.w, i64 0",
                  f"  %a{i}.s = shufflevector {vec} %a{i}.ins, {vec} poison, <{n} x i32> zeroinitializer"]
        if chains == 1:
            lines.append(f"  %acc{i}.n = call {vec} @{fma}({vec} %a{i}.s, {vec} %bv, {vec} %acc{i})")
        else:
            lines += [f"  %ch{i}.p = getelementptr [{chains} x {vec}], ptr %accs{i}, i64 0, i64 %chain",
                      f"  %ch{i} = load {vec}, ptr %ch{i}.p",
                      f"  %ch{i}.n = call {vec} @{fma}({vec} %a{i}.s, {vec} %bv, {vec} %ch{i})",
                      f"  store {vec} %ch{i}.n, ptr %ch{i}.p"]
    lines += _k_loop_tail(k)
    if chains > 1:
        lines += _chains_added_pairwise(m, vec, chains)
    for i in range(m):
        lines += [f"  %cp{i} = getelementptr {tc}, ptr %c, i64 {i * n}",
                  f"  %c{i}.raw = load <{n} x {tc}>, ptr %cp{i}, align 1",
                  *_widen_vector(tc, work, n, f"%c{i}.raw", f"%c{i}"),
                  f"  %sum{i} = fadd {vec} %acc{i}.n, %c{i}",
                  *_narrow_vector(work, tr, n, f"%sum{i}", f"%rv{i}"),
                  f"  %rp{i} = getelementptr {tr}, ptr %r, i64 {i * n}",
                  f"  store <{n} x {tr}> %rv{i}, ptr %rp{i}, align 1"]
    # No declarations: LLVM's parser declares the intrinsics a module calls, and a module
    # with several mul-adds of one shape must not declare one twice.
    lines += ["  ret void", "}"]
    return "\n".join(lines) + "\n"


def _chains_added_pairwise(m, vec, chains):
    """%acc{i}.n: row i's chains added in adjacent pairs, level by level
    (((c0 + c1) + (c2 + c3)) + ...), OpenBLAS's order (matmul_chains)."""
    lines = []
    for i in range(m):
        level = []
        for c in range(chains):
            lines += [f"  %cs{i}.{c}.p = getelementptr [{chains} x {vec}], ptr %accs{i}, i64 0, i64 {c}",
                      f"  %cs{i}.{c} = load {vec}, ptr %cs{i}.{c}.p"]
            level.append(f"%cs{i}.{c}")
        depth = 0
        while len(level) > 1:
            depth += 1
            nxt = []
            for j in range(0, len(level), 2):
                out = f"%acc{i}.n" if len(level) == 2 else f"%cs{i}.d{depth}.{j // 2}"
                lines.append(f"  {out} = fadd {vec} {level[j]}, {level[j + 1]}")
                nxt.append(out)
            level = nxt
    return lines


# Orders NumPy's matmul (the interpreter's float mul-add, interp/coopmat._float_mul_add)
# was found to use, tried in turn: one FMA chain over k from +0 per element, or 16 chains
# (step kk on chain kk mod 16, each from +0) added in adjacent pairs, which OpenBLAS's
# AVX-512 sgemm kernels use for tiles of at most 8 columns and K >= 32.
_CANDIDATE_CHAINS = (1, 16)


@functools.lru_cache(maxsize=None)
def matmul_chains(m, n, k, work):
    """How many interleaved FMA chains NumPy's matmul of (2, m, k) x (2, k, n) in `work`
    ("float": sgemm, "double": dgemm) sums each element in, among _CANDIDATE_CHAINS; None
    when none reproduces it. Measured once per shape in this process, as the interpreter
    will compute it, on products that are exact in `work`, so that each fused step of the
    emulation is one rounded add (test_native_coop_ir.py)."""
    dtype = np.float32 if work == "float" else np.float64
    rng = np.random.default_rng(m * 7919 + n * 104729 + k)
    # 11-bit significands: a product has at most 22, exact in float and double; scales
    # spread wider than the type's significand (2^-16..2^-5 for float, 2^-60..2^-1 for
    # double) so that the sums round, differently in each order.
    low = -16 if work == "float" else -60
    high = -4 if work == "float" else 0

    def draw(shape):
        return (rng.integers(-1024, 1025, shape) * np.exp2(rng.integers(low, high, shape))).astype(dtype)
    a, b = draw((2, m, k)), draw((2, k, n))
    with np.errstate(all="ignore"):
        got = np.matmul(a, b)
    for chains in _CANDIDATE_CHAINS:
        if chains <= max(k, 1) and np.array_equal(_emulated(a, b, chains, dtype), got):
            return chains
    return None


def _emulated(a, b, chains, dtype):
    """The sum of `chains` interleaved FMA chains added in adjacent pairs. Each product is
    exact in dtype (a, b with 11-bit significands), so a fused step is one rounded add."""
    k = a.shape[-1]
    acc = [np.zeros(a.shape[:-1] + (b.shape[-1],), dtype) for _ in range(min(chains, k))]
    for kk in range(k):
        acc[kk % chains] = acc[kk % chains] + a[..., :, kk:kk + 1] * b[..., kk:kk + 1, :]
    while len(acc) > 1:
        acc = [acc[j] + acc[j + 1] for j in range(0, len(acc) - 1, 2)] + ([acc[-1]] if len(acc) % 2 else [])
    return acc[0]


def _k_loop_head(name, m, vec, entry_extra, tb, n, k, layout):
    """The routine's header, entry block and the k loop's head, shared by the float and the
    integer routine: m accumulator rows as phis of `vec` from zero, and %bv.raw, row kk
    of b as <n x tb>."""
    lines = [_header(name, layout.strided),
             "entry:",
             *_b_columns_to_rows(tb, n, k, layout),
             *entry_extra,
             "  br label %kloop",
             "kloop:",
             "  %kk = phi i64 [ 0, %entry ], [ %kk.next, %kloop ]"]
    lines += [f"  %acc{i} = phi {vec} [ zeroinitializer, %entry ], [ %acc{i}.n, %kloop ]" for i in range(m)]
    return lines + [*_b_row(tb, n, k, layout), f"  %bv.raw = load <{n} x {tb}>, ptr %bp, align 1"]


def _k_loop_tail(k):
    """The k loop's back-edge, then the block after it."""
    return ["  %kk.next = add i64 %kk, 1",
            f"  %kk.more = icmp ult i64 %kk.next, {k}",
            "  br i1 %kk.more, label %kloop, label %finish",
            "finish:"]


_BYTES = {t: bits // 8 for t, bits in {**FLOAT_TYPES, **INT_TYPES}.items()}


def _storage(t):
    """The LLVM type a component is stored as (fp8: its i8 bits)."""
    return "i8" if t in FLOAT8_TYPES else t


def _decode_vector(fmt, n, value, out):
    """<n x i8> fp8 patterns -> <n x float> exact values (ir/rounding.py decode): the
    significand with its implicit bit times a power of two, the E5M2 infinities, the NaNs
    (quiet, sign kept), the sign."""
    m, bias, top = fmt.mantissa_bits, fmt.bias, (1 << fmt.exponent_bits) - 1
    vi, vf = f"<{n} x i32>", f"<{n} x float>"

    def splat(v, t="i32"):
        return f"<{', '.join([f'{t} {v}'] * n)}>"
    p = out + "."
    lines = [f"  {p}u = zext <{n} x i8> {value} to {vi}",
             f"  {p}e = lshr {vi} {p}u, {splat(m)}", f"  {p}ef = and {vi} {p}e, {splat(top)}",
             f"  {p}f = and {vi} {p}u, {splat((1 << m) - 1)}",
             f"  {p}nrm = icmp ne {vi} {p}ef, zeroinitializer",
             f"  {p}lead = select <{n} x i1> {p}nrm, {vi} {splat(1 << m)}, {vi} zeroinitializer",
             f"  {p}sig = or {vi} {p}f, {p}lead",
             f"  {p}ee = select <{n} x i1> {p}nrm, {vi} {p}ef, {vi} {splat(1)}",
             f"  {p}pe = add {vi} {p}ee, {splat(127 - bias - m)}",
             f"  {p}pes = shl {vi} {p}pe, {splat(23)}",
             f"  {p}scale = bitcast {vi} {p}pes to {vf}",
             f"  {p}sigf = uitofp {vi} {p}sig to {vf}",
             f"  {p}mag = fmul {vf} {p}sigf, {p}scale",
             f"  {p}top = icmp eq {vi} {p}ef, {splat(top)}"]
    if fmt.has_infinity:
        lines += [f"  {p}fz = icmp eq {vi} {p}f, zeroinitializer",
                  f"  {p}inf = and <{n} x i1> {p}top, {p}fz",
                  f"  {p}fnz = xor <{n} x i1> {p}fz, {splat('true', 'i1')}",
                  f"  {p}nan = and <{n} x i1> {p}top, {p}fnz",
                  f"  {p}m1 = select <{n} x i1> {p}inf, {vf} {splat('0x7FF0000000000000', 'float')}, {vf} {p}mag"]
    else:
        lines += [f"  {p}fa = icmp eq {vi} {p}f, {splat((1 << m) - 1)}",
                  f"  {p}nan = and <{n} x i1> {p}top, {p}fa",
                  f"  {p}m1 = fadd {vf} {p}mag, zeroinitializer"]
    lines += [f"  {p}m2 = select <{n} x i1> {p}nan, {vf} {splat('0x7FF8000000000000', 'float')}, {vf} {p}m1",
              f"  {p}neg = icmp uge {vi} {p}u, {splat(128)}",
              f"  {p}negm = fneg {vf} {p}m2",
              f"  {out} = select <{n} x i1> {p}neg, {vf} {p}negm, {vf} {p}m2"]
    return lines


def _header(name, strided):
    a = "ptr noalias %a, i64 %sa" if strided else "ptr noalias %a"
    b = "ptr noalias %b, i64 %sb" if strided else "ptr noalias %b"
    return f"define internal void @{name}({a}, {b}, ptr noalias %c, ptr noalias %r) {{"


def _transposes_whole(n, k):
    """b by columns is transposed once at entry when square with a power-of-two side (a
    perfect-shuffle transposition, log2 n rounds of two-source shuffles, which x86 does in
    one instruction each); other shapes gather each row's elements in the k loop."""
    return n == k and n >= 2 and n & (n - 1) == 0


def _b_columns_to_rows(tb, n, k, layout):
    """Entry code for b by columns of a square shape: %bt, b's rows, dense (k x n).
    Round: w[2i] interleaves the low halves of v[i] and v[i + n/2], w[2i+1] the high halves;
    after log2 n rounds w[kk] is row kk (column kk of the columns)."""
    if not layout.b_columns:
        return []
    if not _transposes_whole(n, k):
        return [f"  %bg = alloca [{n} x {tb}], align 64"]      # _b_row gathers a row here
    col = f"<{k} x {tb}>"
    lines = [f"  %bt = alloca [{k * n} x {tb}], align 64"]
    for j in range(n):
        lines += [f"  %bc{j}.o = mul i64 %sb, {j}",
                  f"  %bc{j}.p = getelementptr i8, ptr %b, i64 %bc{j}.o",
                  f"  %t0.{j} = load {col}, ptr %bc{j}.p, align 1"]
    h = n // 2
    low = [t // 2 if t % 2 == 0 else n + t // 2 for t in range(n)]
    high = [h + t for t in low]
    rounds = n.bit_length() - 1
    for s in range(rounds):
        for i in range(h):
            for out, mask in ((2 * i, low), (2 * i + 1, high)):
                lines.append(f"  %t{s + 1}.{out} = shufflevector {col} %t{s}.{i}, {col} %t{s}.{i + h}, "
                             f"<{n} x i32> <{', '.join(f'i32 {x}' for x in mask)}>")
    for kk in range(k):
        lines += [f"  %bt{kk}.p = getelementptr {tb}, ptr %bt, i64 {kk * n}",
                  f"  store {col} %t{rounds}.{kk}, ptr %bt{kk}.p, align 64"]
    return lines


def _widen_a(ta, work, m, k, layout):
    """Entry code widening a narrower a (half) once per call into %aw, in its own
    orientation (rows: element (i, kk) at i*k + kk; columns: at kk*m + i), one vector
    conversion per row or column instead of one scalar conversion per element and step."""
    if ta == work:
        return []
    lines = [f"  %aw = alloca [{m * k} x {work}], align 64"]
    count, length = (k, m) if layout.a_columns else (m, k)
    stride = "%sa" if layout.strided else str(k * _BYTES[_storage(ta)])
    for v in range(count):
        lines += [f"  %aw{v}.o = mul i64 {stride}, {v}",
                  f"  %aw{v}.p = getelementptr i8, ptr %a, i64 %aw{v}.o",
                  f"  %aw{v}.raw = load <{length} x {_storage(ta)}>, ptr %aw{v}.p, align 1",
                  *_widen_vector(ta, work, length, f"%aw{v}.raw", f"%aw{v}.w"),
                  f"  %aw{v}.d = getelementptr {work}, ptr %aw, i64 {v * length}",
                  f"  store <{length} x {work}> %aw{v}.w, ptr %aw{v}.d, align 4"]
    return lines


def _widened_a_element(work, i, m, k, layout):
    """%ap{i}: element (i, %kk) of %aw (_widen_a)."""
    if layout.a_columns:
        return [f"  %ai{i}.m = mul i64 %kk, {m}", f"  %ai{i} = add i64 %ai{i}.m, {i}",
                f"  %ap{i} = getelementptr {work}, ptr %aw, i64 %ai{i}"]
    return [f"  %ai{i} = add i64 %kk, {i * k}", f"  %ap{i} = getelementptr {work}, ptr %aw, i64 %ai{i}"]


def _b_row(tb, n, k, layout):
    """%bp: row %kk of b."""
    if layout.b_columns and not _transposes_whole(n, k):
        lines = [f"  %bk = mul i64 %kk, {_BYTES[tb]}"]
        for j in range(n):
            lines += [f"  %bg{j}.o = mul i64 %sb, {j}",
                      f"  %bg{j}.a = add i64 %bg{j}.o, %bk",
                      f"  %bg{j}.p = getelementptr i8, ptr %b, i64 %bg{j}.a",
                      f"  %bg{j} = load {tb}, ptr %bg{j}.p, align 1",
                      f"  %bg{j}.d = getelementptr {tb}, ptr %bg, i64 {j}",
                      f"  store {tb} %bg{j}, ptr %bg{j}.d"]
        return lines + ["  %bp = getelementptr i8, ptr %bg, i64 0"]
    if layout.b_columns:
        return [f"  %brow = mul i64 %kk, {n}", f"  %bp = getelementptr {tb}, ptr %bt, i64 %brow"]
    if layout.strided:
        return ["  %brow = mul i64 %kk, %sb", "  %bp = getelementptr i8, ptr %b, i64 %brow"]
    return [f"  %brow = mul i64 %kk, {n}", f"  %bp = getelementptr {tb}, ptr %b, i64 %brow"]


def _a_element(ta, i, k, layout):
    """%ap{i}: element (i, %kk) of a."""
    if layout.a_columns:
        return [f"  %ak{i} = mul i64 %kk, %sa",
                f"  %ai{i} = add i64 %ak{i}, {i * _BYTES[ta]}",
                f"  %ap{i} = getelementptr i8, ptr %a, i64 %ai{i}"]
    if layout.strided:
        return [f"  %ao{i} = mul i64 %sa, {i}",
                f"  %ak{i} = mul i64 %kk, {_BYTES[ta]}",
                f"  %ai{i} = add i64 %ao{i}, %ak{i}",
                f"  %ap{i} = getelementptr i8, ptr %a, i64 %ai{i}"]
    return [f"  %ai{i} = add i64 %kk, {i * k}", f"  %ap{i} = getelementptr {ta}, ptr %a, i64 %ai{i}"]


def _widen_vector(src, work, n, value, out):
    if src in FLOAT8_TYPES:
        if work != "float":
            raise Unsupported("an fp8 cooperative-matrix mul-add into a double accumulator")
        return _decode_vector(FLOAT8_TYPES[src], n, value, out)
    if src == work:
        return [f"  {out} = bitcast <{n} x {work}> {value} to <{n} x {work}>"]
    if src == "bfloat":     # exact: float's upper half (bfloat_ir)
        return bfloat_ir.widen(value, n, out, work)
    return [f"  {out} = fpext <{n} x {src}> {value} to <{n} x {work}>"]


def _narrow_vector(work, dst, n, value, out):
    if dst == work:
        return [f"  {out} = bitcast <{n} x {work}> {value} to <{n} x {work}>"]
    if dst == "bfloat":     # one rounding of the sum (coopmat2.bfloat16_mul_add: to_bfloat16)
        return bfloat_ir.round_from(work, value, n, out)
    op = "fptrunc" if FLOAT_TYPES[dst] < FLOAT_TYPES[work] else "fpext"
    return [f"  {out} = {op} <{n} x {work}> {value} to <{n} x {dst}>"]


def _suffix(work):
    return {"float": "f32", "double": "f64"}[work]


def _resize(t, signed, wide, n, value, out):
    """<n x t> value -> <n x wide>: sign- or zero-extended, or truncated (the low bits, all
    that a result computed modulo 2^bits(wide) needs)."""
    vt, vw = f"<{n} x {t}>", f"<{n} x {wide}>"
    tb, wb = INT_TYPES.get(t, 128), INT_TYPES.get(wide, 128)
    if tb == wb:
        return [f"  {out} = add {vt} {value}, zeroinitializer"]
    if tb > wb:
        return [f"  {out} = trunc {vt} {value} to {vw}"]
    return [f"  {out} = {'sext' if signed else 'zext'} {vt} {value} to {vw}"]


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
    wide = _integer_work_type(types, k, saturating)
    if _pairs_apply(types, wide, n, k, layout):
        return _integer_pairs_ir(name, m, n, k, types, operands, layout)
    vec = f"<{n} x {wide}>"
    lines = [*_k_loop_head(name, m, vec, [], tb, n, k, layout),
             *_resize(tb, operands & Operand.MATRIX_B_SIGNED, wide, n, "%bv.raw", "%bv")]
    for i in range(m):
        lines += [*_a_element(ta, i, k, layout),
                  f"  %a{i}.raw = load {ta}, ptr %ap{i}",
                  f"  %a{i}.ins = insertelement <1 x {ta}> poison, {ta} %a{i}.raw, i64 0",
                  *_resize(ta, operands & Operand.MATRIX_A_SIGNED, wide, 1, f"%a{i}.ins", f"%a{i}.w"),
                  f"  %a{i}.s = shufflevector <1 x {wide}> %a{i}.w, <1 x {wide}> poison, <{n} x i32> zeroinitializer",
                  f"  %p{i} = mul {vec} %a{i}.s, %bv",
                  f"  %acc{i}.n = add {vec} %acc{i}, %p{i}"]
    lines += _k_loop_tail(k)
    return "\n".join(lines + _integer_finish(m, n, types, operands, wide, saturating)) + "\n"


def _integer_finish(m, n, types, operands, wide, saturating):
    """After the k loop: row i's sum %acc{i}.n + c, clamped when saturating, stored as r's
    type."""
    _, _, tc, tr = types
    vec = f"<{n} x {wide}>"
    lines = []
    bits = INT_TYPES[tr]
    if operands & Operand.MATRIX_RESULT_SIGNED:
        lo, hi = -(1 << (bits - 1)), (1 << (bits - 1)) - 1
    else:
        lo, hi = 0, (1 << bits) - 1
    splat = lambda v: f"<{', '.join(f'{wide} {v}' for _ in range(n))}>"  # noqa: E731
    for i in range(m):
        lines += [f"  %cp{i} = getelementptr {tc}, ptr %c, i64 {i * n}",
                  f"  %c{i}.raw = load <{n} x {tc}>, ptr %cp{i}, align 1",
                  *_resize(tc, operands & Operand.MATRIX_C_SIGNED, wide, n, f"%c{i}.raw", f"%c{i}"),
                  f"  %sum{i} = add {vec} %acc{i}.n, %c{i}"]
        result = f"%sum{i}"
        if saturating:
            lines += [f"  %below{i} = icmp slt {vec} %sum{i}, {splat(lo)}",
                      f"  %above{i} = icmp sgt {vec} %sum{i}, {splat(hi)}",
                      f"  %s1.{i} = select <{n} x i1> %below{i}, {vec} {splat(lo)}, {vec} %sum{i}",
                      f"  %s2.{i} = select <{n} x i1> %above{i}, {vec} {splat(hi)}, {vec} %s1.{i}"]
            result = f"%s2.{i}"
        lines += [*_resize(wide, False, tr, n, result, f"%rv{i}"),
                  f"  %rp{i} = getelementptr {tr}, ptr %r, i64 {i * n}",
                  f"  store <{n} x {tr}> %rv{i}, ptr %rp{i}, align 1"]
    return lines + ["  ret void", "}"]


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
    vec, pairs = f"<{n} x i32>", f"<{2 * n} x i16>"
    lines = [_header(name, layout.strided), "entry:", *_b_columns_to_rows(tb, n, k, layout),
             "  br label %kloop", "kloop:", "  %kk = phi i64 [ 0, %entry ], [ %kk.next, %kloop ]"]
    lines += [f"  %acc{i} = phi {vec} [ zeroinitializer, %entry ], [ %acc{i}.n, %kloop ]" for i in range(m)]
    lines.append("  %kk1 = add i64 %kk, 1")
    for step, kk in ((0, "%kk"), (1, "%kk1")):
        lines += _renamed([*_b_row(tb, n, k, layout), f"  %bv.raw = load <{n} x {tb}>, ptr %bp, align 1",
                           *_resize(tb, operands & Operand.MATRIX_B_SIGNED, "i16", n, "%bv.raw", "%bv")],
                          f"s{step}", kk)
    interleave = ", ".join(f"i32 {x}" for j in range(n) for x in (j, n + j))
    lines += [f"  %bw = shufflevector <{n} x i16> %bv.s0, <{n} x i16> %bv.s1, <{2 * n} x i32> <{interleave}>",
              f"  %bw32 = sext {pairs} %bw to <{2 * n} x i32>"]
    even = ", ".join(f"i32 {2 * j}" for j in range(n))
    odd = ", ".join(f"i32 {2 * j + 1}" for j in range(n))
    for i in range(m):
        for step, kk in ((0, "%kk"), (1, "%kk1")):
            lines += _renamed([*_a_element(ta, i, k, layout), f"  %a{i}.raw = load {ta}, ptr %ap{i}",
                               f"  %a{i}.ins = insertelement <1 x {ta}> poison, {ta} %a{i}.raw, i64 0",
                               *_resize(ta, operands & Operand.MATRIX_A_SIGNED, "i16", 1, f"%a{i}.ins",
                                        f"%a{i}.w")], f"s{step}", kk)
        lines += [f"  %a{i}.pair = shufflevector <1 x i16> %a{i}.w.s0, <1 x i16> %a{i}.w.s1, <2 x i32> <i32 0, i32 1>",
                  f"  %a{i}.word = bitcast <2 x i16> %a{i}.pair to i32",
                  f"  %a{i}.ins32 = insertelement {vec} poison, i32 %a{i}.word, i64 0",
                  f"  %a{i}.splat = shufflevector {vec} %a{i}.ins32, {vec} poison, <{n} x i32> zeroinitializer",
                  f"  %a{i}.s = bitcast {vec} %a{i}.splat to {pairs}",
                  f"  %a{i}.s32 = sext {pairs} %a{i}.s to <{2 * n} x i32>",
                  f"  %p{i} = mul nsw <{2 * n} x i32> %a{i}.s32, %bw32",
                  f"  %p{i}.e = shufflevector <{2 * n} x i32> %p{i}, <{2 * n} x i32> poison, <{n} x i32> <{even}>",
                  f"  %p{i}.o = shufflevector <{2 * n} x i32> %p{i}, <{2 * n} x i32> poison, <{n} x i32> <{odd}>",
                  f"  %p{i}.s = add {vec} %p{i}.e, %p{i}.o",
                  f"  %acc{i}.n = add {vec} %acc{i}, %p{i}.s"]
    lines += ["  %kk.next = add i64 %kk, 2",
              f"  %kk.more = icmp ult i64 %kk.next, {k}",
              "  br i1 %kk.more, label %kloop, label %finish",
              "finish:"]
    return "\n".join(lines + _integer_finish(m, n, types, operands, "i32", False)) + "\n"


def _renamed(lines, suffix, kk):
    """lines with every value they define renamed %v -> %v.<suffix>, and %kk -> kk (one
    step of a loop body emitted twice)."""
    defined = {m.group(1) for line in lines for m in [re.match(r"\s*(%[\w.]+) = ", line)] if m}
    def rename(m):
        name = m.group(0)
        if name == "%kk":
            return kk
        return f"{name}.{suffix}" if name in defined else name
    return [re.sub(r"%[\w.]+", rename, line) for line in lines]
