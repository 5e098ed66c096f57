"""cl_khr_extended_bit_ops in the interpreter, for every integer type and a vector, against
a Python-integer oracle, and clang-22's IR against clcoop's; an offset + count past the
type's width faults (undefined in the extension)."""
import numpy as np
import pytest

import clcoop
from interp_helpers import clang_ir_text

RNG = np.random.default_rng(17)
TYPES = {"char": np.int8, "uchar": np.uint8, "short": np.int16, "ushort": np.uint16,
         "int": np.int32, "uint": np.uint32, "long": np.int64, "ulong": np.uint64}
N = 64


def source(t):
    return f"""
kernel void k(global {t} *a, global {t} *b, global uint *off, global uint *cnt,
              global {t} *ins, global {t} *rev, global {t} *ext_s_as_t, global {t} *ext_u_as_t,
              global {t}4 *v, global {t}4 *vrev) {{
  size_t i = get_global_id(0);
  ins[i] = bitfield_insert(a[i], b[i], off[i], cnt[i]);
  rev[i] = bit_reverse(a[i]);
  ext_s_as_t[i] = ({t})bitfield_extract_signed(a[i], off[i], cnt[i]);
  ext_u_as_t[i] = ({t})bitfield_extract_unsigned(a[i], off[i], cnt[i]);
  vrev[i] = bit_reverse(v[i]);
}}"""


def oracle(a, b, off, cnt, width):
    mask = lambda c: (1 << c) - 1                                   # noqa: E731
    u = lambda x: int(x) & ((1 << width) - 1)                       # noqa: E731
    ins, rev, ext_s, ext_u = [], [], [], []
    for x, y, o, c in zip(a, b, off, cnt):
        x, y, o, c = u(x), u(y), int(o), int(c)
        ins.append((x & ~(mask(c) << o)) | ((y & mask(c)) << o))
        rev.append(int(format(x, f"0{width}b")[::-1], 2))
        field = (x >> o) & mask(c)
        ext_u.append(field)
        ext_s.append(field - (1 << c) if c and field >> (c - 1) else field)
    return ins, rev, ext_s, ext_u


def run(program, dtype):
    width = np.dtype(dtype).itemsize * 8
    info = np.iinfo(dtype)
    a = RNG.integers(info.min, info.max, N, dtype=dtype, endpoint=True)
    b = RNG.integers(info.min, info.max, N, dtype=dtype, endpoint=True)
    cnt = RNG.integers(0, width + 1, N).astype(np.uint32)
    off = (RNG.integers(0, 1 << 16, N) % (width - cnt + 1)).astype(np.uint32)
    cnt[:2], off[:2] = [0, width], [width, 0]                        # the edges
    v = RNG.integers(info.min, info.max, (N, 4), dtype=dtype, endpoint=True)
    outs = [np.zeros(N, dtype) for _ in range(4)] + [np.zeros((N, 4), dtype)]
    program.k((N,), (16,), a, b, off, cnt, *outs[:4], v, outs[4])
    return (a, b, off, cnt, v), outs


@pytest.mark.parametrize("t", TYPES)
def test_every_integer_type_matches_the_oracle(t):
    dtype = TYPES[t]
    width = np.dtype(dtype).itemsize * 8
    (a, b, off, cnt, v), (ins, rev, ext_s, ext_u, vrev) = run(clcoop.Program(source(t)).build(), dtype)
    e_ins, e_rev, e_s, e_u = oracle(a, b, off, cnt, width)
    wrap = lambda xs: np.array([x & ((1 << width) - 1) for x in xs], np.uint64).astype(dtype)   # noqa: E731
    np.testing.assert_array_equal(ins, wrap(e_ins))
    np.testing.assert_array_equal(rev, wrap(e_rev))
    np.testing.assert_array_equal(ext_s, wrap(e_s))
    np.testing.assert_array_equal(ext_u, wrap(e_u))
    np.testing.assert_array_equal(vrev.reshape(-1), wrap(oracle(v.reshape(-1), v.reshape(-1), [0] * 4 * N,
                                                                [0] * 4 * N, width)[1]))


@pytest.mark.parametrize("t", ["char", "int", "ulong"])
def test_clang_ir_gives_the_same_results(t):
    global RNG
    RNG = np.random.default_rng(3)
    _, ours = run(clcoop.Program(source(t)).build(), TYPES[t])
    RNG = np.random.default_rng(3)
    _, theirs = run(clcoop.Program.from_ir(clang_ir_text(source(t))), TYPES[t])
    for x, y in zip(ours, theirs):
        np.testing.assert_array_equal(x, y)


def test_a_field_past_the_width_faults():
    program = clcoop.Program("kernel void k(global int *o) { o[0] = bitfield_extract_signed(o[1], 30u, 3u); }").build()
    with pytest.raises(clcoop.RuntimeFault, match="offset 30 \\+ count 3 exceeds the 32 bits"):
        program.k((1,), (1,), np.zeros(2, np.int32))
