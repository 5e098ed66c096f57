"""Integers of non-standard width (i3, i5, i12, i33: LLVM's -O2 narrows values to them) in
the interpreter, against a Python model of LangRef's iN: arithmetic modulo 2**N, signed and
unsigned operations reading the same N bits, casts to and from standard widths."""
import re

import numpy as np
import pytest

import clcoop
from clcoop.errors import IRError
from interp_helpers import program

HEADER = """target datalayout = "e-i64:64-v16:16-v24:32-v32:32-v48:64-v96:128-v192:256-v256:256-v512:512-v1024:1024-G1"
target triple = "spir64-unknown-unknown"
declare spir_func i64 @_Z13get_global_idj(i32)
"""

WIDTHS = (3, 5, 12, 33)


def signed(v, n):
    v &= (1 << n) - 1
    return v - (1 << n) if v >> (n - 1) else v


def unsigned(v, n):
    return v & ((1 << n) - 1)


def operands(n):
    """Pairs of i64 values whose low n bits cover 0, 1, -1, the signed extremes and others."""
    special = [0, 1, -1, 2, (1 << (n - 1)) - 1, -(1 << (n - 1)), 3, -3, (1 << n) + 2, 7 << n | 5]
    xs = [a for a in special for _ in special]
    ys = [b for _ in special for b in special]
    return np.array(xs, np.int64), np.array(ys, np.int64)


def run_binary(body, x, y, decls=""):
    """Run `body` (computes %r : i64 from %x, %y : i64) for each pair; returns the i64s."""
    ir = HEADER + decls + f"""
define spir_kernel void @k(ptr addrspace(1) %out, ptr addrspace(1) %in, ptr addrspace(1) %in2) {{
entry:
  %gid = call spir_func i64 @_Z13get_global_idj(i32 0)
  %px = getelementptr i64, ptr addrspace(1) %in, i64 %gid
  %x = load i64, ptr addrspace(1) %px
  %py = getelementptr i64, ptr addrspace(1) %in2, i64 %gid
  %y = load i64, ptr addrspace(1) %py
{body}
  %po = getelementptr i64, ptr addrspace(1) %out, i64 %gid
  store i64 %r, ptr addrspace(1) %po
  ret void
}}
"""
    out = np.zeros(len(x), np.int64)
    clcoop.Program.from_ir(ir).k(len(x), 1, out, x, y)
    return out


def check(body, n, ref, keep=lambda a, b: True, decls=""):
    x, y = operands(n)
    pairs = [(int(a), int(b)) for a, b in zip(x, y) if keep(signed(int(a), n), signed(int(b), n))]
    x, y = np.array([p[0] for p in pairs], np.int64), np.array([p[1] for p in pairs], np.int64)
    out = run_binary(body, x, y, decls)
    expected = [ref(a, b) for a, b in pairs]
    assert out.tolist() == expected


def _trunc_xy(n):
    return f"  %a = trunc i64 %x to i{n}\n  %b = trunc i64 %y to i{n}\n"


def _sdiv(a, b):
    q = abs(a) // abs(b)
    return q if (a < 0) == (b < 0) else -q


BINARY = {
    "add": (lambda a, b, n: a + b, None),
    "sub": (lambda a, b, n: a - b, None),
    "mul": (lambda a, b, n: a * b, None),
    "and": (lambda a, b, n: a & b, None),
    "or": (lambda a, b, n: a | b, None),
    "xor": (lambda a, b, n: a ^ b, None),
    "udiv": (lambda a, b, n: unsigned(a, n) // unsigned(b, n), lambda a, b, n: b != 0),
    "urem": (lambda a, b, n: unsigned(a, n) % unsigned(b, n), lambda a, b, n: b != 0),
    "sdiv": (lambda a, b, n: _sdiv(a, b),
             lambda a, b, n: b != 0 and not (b == -1 and a == -(1 << (n - 1)))),
    "srem": (lambda a, b, n: a - b * _sdiv(a, b),
             lambda a, b, n: b != 0 and not (b == -1 and a == -(1 << (n - 1)))),
    "shl": (lambda a, b, n: a << b, lambda a, b, n: 0 <= b < n),
    "lshr": (lambda a, b, n: unsigned(a, n) >> b, lambda a, b, n: 0 <= b < n),
    "ashr": (lambda a, b, n: a >> b, lambda a, b, n: 0 <= b < n),
}


@pytest.mark.parametrize("n", WIDTHS)
@pytest.mark.parametrize("op", sorted(BINARY))
def test_binary_ops_wrap_modulo_two_to_the_n(op, n):
    ref, valid = BINARY[op]
    body = _trunc_xy(n) + f"  %c = {op} i{n} %a, %b\n  %r = sext i{n} %c to i64"
    check(body, n, lambda a, b: signed(ref(signed(a, n), signed(b, n), n), n),
          keep=(lambda a, b: valid(a, b, n)) if valid else (lambda a, b: True))


@pytest.mark.parametrize("n", WIDTHS)
def test_zext_reads_the_low_n_bits_of_a_wrapped_sum(n):
    body = _trunc_xy(n) + f"  %c = add i{n} %a, %b\n  %r = zext i{n} %c to i64"
    check(body, n, lambda a, b: unsigned(a + b, n))


@pytest.mark.parametrize("n", WIDTHS)
@pytest.mark.parametrize("pred, ref", [
    ("ult", lambda a, b, n: unsigned(a, n) < unsigned(b, n)),
    ("uge", lambda a, b, n: unsigned(a, n) >= unsigned(b, n)),
    ("slt", lambda a, b, n: signed(a, n) < signed(b, n)),
    ("sgt", lambda a, b, n: signed(a, n) > signed(b, n)),
    ("eq", lambda a, b, n: unsigned(a, n) == unsigned(b, n)),
])
def test_icmp_signed_and_unsigned(pred, ref, n):
    body = _trunc_xy(n) + f"  %c = icmp {pred} i{n} %a, %b\n  %r = zext i1 %c to i64"
    check(body, n, lambda a, b: int(ref(a, b, n)))


@pytest.mark.parametrize("src, dst", [(12, 5), (33, 3), (33, 12), (64, 33), (32, 5), (12, 8)])
def test_trunc_between_widths(src, dst):
    body = (f"  %a = trunc i64 %x to i{src}\n" if src < 64 else "  %a = add i64 %x, 0\n") + \
        f"  %c = trunc i{src} %a to i{dst}\n  %r = sext i{dst} %c to i64"
    check(body, dst, lambda a, b: signed(a, dst))


@pytest.mark.parametrize("src, dst", [(3, 5), (5, 12), (12, 33), (3, 33), (5, 8), (33, 64), (12, 16)])
@pytest.mark.parametrize("ext", ["zext", "sext"])
def test_extension_between_widths(src, dst, ext):
    body = f"  %a = trunc i64 %x to i{src}\n  %c = {ext} i{src} %a to i{dst}\n"
    body += f"  %r = zext i{dst} %c to i64" if dst < 64 else "  %r = add i64 %c, 0"
    extend = unsigned if ext == "zext" else signed
    result = signed if dst == 64 else unsigned      # %r is an i64 read back signed
    check(body, src, lambda a, b: result(extend(a, src), dst))


@pytest.mark.parametrize("n", WIDTHS)
def test_uitofp_and_sitofp_of_odd_width(n):
    body = _trunc_xy(n) + f"  %f = uitofp i{n} %a to double\n  %g = sitofp i{n} %b to double\n" \
        "  %s = fadd double %f, %g\n  %r = fptosi double %s to i64"
    check(body, n, lambda a, b: unsigned(a, n) + signed(b, n))


@pytest.mark.parametrize("n", WIDTHS)
def test_constants_select_phi_and_switch(n):
    # i{n} -1 written as all-ones and as the unsigned maximum are the same constant.
    top = (1 << n) - 1
    body = _trunc_xy(n) + f"""  %s = select i1 true, i{n} %a, i{n} {top}
  %m1 = add i{n} %s, -1
  switch i{n} %m1, label %other [
    i{n} {top}, label %minus_one
    i{n} 2, label %two
  ]
minus_one:
  br label %join
two:
  %t = udiv i{n} %b, 3
  br label %join
other:
  %o = mul i{n} %m1, {top}
  br label %join
join:
  %p = phi i{n} [ 5, %minus_one ], [ %t, %two ], [ %o, %other ]
  %r = zext i{n} %p to i64"""

    def ref(a, b):
        m1 = signed(a - 1, n)
        if m1 == -1:
            return unsigned(5, n)
        if m1 == 2:
            return unsigned(b, n) // 3
        return unsigned(-m1, n)
    check(body, n, ref)


@pytest.mark.parametrize("n", WIDTHS)
def test_memory_round_trip_of_odd_width(n):
    # Store then load an i{n} through private memory (alloca), as -O0 code does.
    body = _trunc_xy(n) + f"""  %slot = alloca i{n}
  %c = add i{n} %a, %b
  store i{n} %c, ptr %slot
  %l = load i{n}, ptr %slot
  %r = sext i{n} %l to i64"""
    check(body, n, lambda a, b: signed(a + b, n))


@pytest.mark.parametrize("n", WIDTHS)
@pytest.mark.parametrize("name, ref", [
    ("umin", lambda a, b, n: min(unsigned(a, n), unsigned(b, n))),
    ("smax", lambda a, b, n: max(signed(a, n), signed(b, n))),
])
def test_min_max_intrinsics_of_odd_width(name, ref, n):
    decl = f"declare i{n} @llvm.{name}.i{n}(i{n}, i{n})\n"
    body = _trunc_xy(n) + f"  %c = call i{n} @llvm.{name}.i{n}(i{n} %a, i{n} %b)\n" \
        f"  %r = sext i{n} %c to i64"
    check(body, n, lambda a, b: signed(ref(a, b, n), n), decls=decl)


def test_bit_counting_intrinsic_of_odd_width_is_a_clear_error():
    decl = "declare i5 @llvm.ctpop.i5(i5)\n"
    body = "  %a = trunc i64 %x to i5\n  %c = call i5 @llvm.ctpop.i5(i5 %a)\n  %r = sext i5 %c to i64"
    with pytest.raises(IRError, match="llvm.ctpop.i5' on i5"):
        run_binary(body, np.zeros(1, np.int64), np.zeros(1, np.int64), decl)


def test_integer_wider_than_64_bits_is_a_clear_error():
    body = "  %a = sext i64 %x to i65\n  %c = trunc i65 %a to i64\n  %r = add i64 %c, %y"
    with pytest.raises(IRError, match="i65 is not supported"):
        run_binary(body, np.zeros(1, np.int64), np.zeros(1, np.int64))


def test_clcoop_O2_switch_over_i3_runs_like_the_table(capfd):
    # pocl's test_convert_type pattern: LLVM -O2 tests `table[i] < 0` over a 6-entry
    # table with `switch i3 (trunc i)`; the kernel checks convert_uchar(_sat) itself.
    prog = program("odd_width_switch", "clcoop-O2")
    assert re.search(r"switch i3 ", prog.ir), "the -O2 IR no longer has the odd-width switch"
    out = np.full(6, 99, np.uint8)
    fails = np.zeros(6, np.uint32)
    prog.saturate_table(1, 1, out, fails)
    table = np.array([0, 1, -128, 127, -64, 63], np.int8)
    np.testing.assert_array_equal(out, np.clip(table, 0, 255).astype(np.uint8))
    np.testing.assert_array_equal(fails, 0)
    assert "FAIL" not in capfd.readouterr().out


# A bitcast keeps the bits (LangRef "bitcast": a store then a load, element 0 in the low
# bits). Where a side holds integers narrower than their storage (i1, i24, <3 x i8> as
# i24) NumPy's view of whole storage words had given the wrong bits silently (<8 x i1> to
# i8: the first element only) or a ValueError (found by hand, hostile IR).
BITCASTS = {
    "<8 x i1> to i8": ("""
  %v = load <8 x i32>, ptr addrspace(1) %g, align 4
  %c = icmp sgt <8 x i32> %v, <i32 5, i32 5, i32 5, i32 5, i32 5, i32 5, i32 5, i32 5>
  %b = bitcast <8 x i1> %c to i8
  %r = zext i8 %b to i32""", lambda w: sum(int(w[j] > 5) << j for j in range(8))),
    "<3 x i8> to i24": ("""
  %v = load <3 x i8>, ptr addrspace(1) %g, align 1
  %b = bitcast <3 x i8> %v to i24
  %r = sext i24 %b to i32""", lambda w: signed(int(w[0]) & 0xFFFFFF, 24)),
    "i16 to <16 x i1> to <2 x i8>": ("""
  %v = load i16, ptr addrspace(1) %g, align 2
  %b = bitcast i16 %v to <16 x i1>
  %w = bitcast <16 x i1> %b to <2 x i8>
  %e = extractelement <2 x i8> %w, i32 1
  %r = sext i8 %e to i32""", lambda w: signed(int(w[0]) >> 8, 8)),
    "i30 to <5 x i6>": ("""
  %v = load i32, ptr addrspace(1) %g, align 4
  %t = trunc i32 %v to i30
  %b = bitcast i30 %t to <5 x i6>
  %e = extractelement <5 x i6> %b, i32 4
  %r = sext i6 %e to i32""", lambda w: signed(int(w[0]) >> 24, 6)),
}


@pytest.mark.parametrize("name", sorted(BITCASTS))
def test_bitcast_of_narrow_integers_keeps_the_bits(name):
    body, expected = BITCASTS[name]
    ir = HEADER + f"""define spir_kernel void @k(ptr addrspace(1) %a, ptr addrspace(1) %out) {{
  %i = call spir_func i64 @_Z13get_global_idj(i32 0)
  %off = mul i64 %i, 32
  %g = getelementptr i8, ptr addrspace(1) %a, i64 %off
  {body}
  %o = getelementptr i32, ptr addrspace(1) %out, i64 %i
  store i32 %r, ptr addrspace(1) %o
  ret void
}}
"""
    rng = np.random.default_rng(7)
    words = rng.integers(-2**31, 2**31, (16, 8), dtype=np.int64).astype(np.int32)
    words[::2] = rng.integers(0, 10, words[::2].shape)
    out = np.zeros(16, np.int32)
    clcoop.Program.from_ir(ir).k(16, 16, words.reshape(-1), out)
    assert out.tolist() == [signed(expected(w), 32) for w in words]
