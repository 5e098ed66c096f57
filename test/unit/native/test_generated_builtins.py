"""The native engine's generated built-in definitions (built with native/irbuild.py), each
verified by LLVM and run on edge values against NumPy (generated_functions.py runs one
definition alone, without a kernel around it)."""
import numpy as np
import pytest

import clcoop
from clcoop.native import builtin_ir, integer_dot_ir
from clcoop.native.context import CTX, CTX_SLOTS
from generated_functions import compile_definition
from interp_helpers import clang_ir_text

_CHAR = [-128, -127, -1, 0, 1, 2, 126, 127]
_UCHAR = [0, 1, 2, 127, 128, 254, 255]


def _dot(a, b):
    return (a.astype(np.int64) * b.astype(np.int64)).sum(axis=1)


@pytest.mark.parametrize("signs", ["ss", "su", "us", "uu"])
def test_packed_dot_and_saturating_accumulate(signs):
    """dot_4x8packed_xy and dot_acc_sat_4x8packed_xy on every edge byte, against the
    products summed in int64 and clamped (cl_khr_integer_dot_product)."""
    rng = np.random.default_rng(5)
    dtypes = [np.int8 if s == "s" else np.uint8 for s in signs]
    values = [np.array(_CHAR if s == "s" else _UCHAR, dt) for s, dt in zip(signs, dtypes)]
    a = np.stack([rng.choice(values[0], 4) for _ in range(40)] + [np.full(4, values[0][0])])
    b = np.stack([rng.choice(values[1], 4) for _ in range(40)] + [np.full(4, values[1][0])])
    result = "int" if "s" in signs else "uint"
    name = f"dot_4x8packed_{signs}_{result}"
    plain = compile_definition(integer_dot_ir.integer_dot_definition("f", name, [], "i32", ["i32", "i32"]),
                               "f", "i32", ["i32", "i32"])
    want = _dot(a, b)
    got = plain(a.view(np.uint32), b.view(np.uint32), out_dtype=np.int32 if result == "int" else np.uint32)
    assert np.array_equal(got.astype(np.int64), want)
    sat = compile_definition(integer_dot_ir.integer_dot_definition("g", "dot_acc_sat" + name[3:], [], "i32",
                                                                   ["i32", "i32", "i32"]),
                             "g", "i32", ["i32", "i32", "i32"])
    lo, hi = (-(1 << 31), (1 << 31) - 1) if result == "int" else (0, (1 << 32) - 1)
    acc_dtype = np.int32 if result == "int" else np.uint32
    for acc in (lo, hi, 0, lo + 5, hi - 5):
        accs = np.full(len(a), acc, np.int64).astype(acc_dtype)
        got = sat(a.view(np.uint32), b.view(np.uint32), accs, out_dtype=acc_dtype)
        assert np.array_equal(got.astype(np.int64), np.clip(want + acc, lo, hi)), acc


def test_vector_dot_of_char4():
    """dot(char4, uchar4): the <4 x i8> form, each operand widened by its own signedness."""
    mparams = [("vec", 4, ("int", 8, True)), ("vec", 4, ("int", 8, False))]
    f = compile_definition(integer_dot_ir.integer_dot_definition("h", "dot", mparams, "i32", ["<4 x i8>"] * 2),
                           "h", "i32", ["<4 x i8>"] * 2)
    a = np.array([[-128, -128, -128, -128], [127, -1, 0, 5]], np.int8)
    b = np.array([[255, 255, 255, 255], [255, 0, 7, 200]], np.uint8)
    assert np.array_equal(f(a, b, out_dtype=np.int32), _dot(a, b))


def _edge_floats(dtype):
    info = np.finfo(dtype)
    values = [0.0, -0.0, np.inf, -np.inf, np.nan, 1.0, -1.0, 0.5, 2.0, 10.0, -10.0, 88.0, -88.0, 100.0,
              float(info.tiny), float(info.smallest_subnormal), float(info.max), -float(info.max), 1e-3, 0.999]
    rng = np.random.default_rng(11)
    bits = rng.integers(0, 1 << (8 * np.dtype(dtype).itemsize), 60, dtype=np.uint64)
    random = bits.astype(np.uint16 if dtype == np.float16 else np.uint32).view(dtype)
    return np.concatenate([np.array(values, dtype), random])


@pytest.mark.parametrize("dtype, ret", [(np.float16, "half"), (np.float32, "<2 x float>")])
@pytest.mark.parametrize("function", ["exp", "log", "tanh", "sin", "acosh", "expm1"])
def test_transcendental_math(function, dtype, ret):
    """math_ir's definitions (scalar half, float2 lane by lane) bit for bit as the
    interpreter's NumPy in double rounded once, NaNs with NumPy's payload, on edge values
    and random bit patterns (the hard cases go through math_ir.hard_case)."""
    from clcoop.native import math_ir
    numpy_function = math_ir.UNARY[function][1]
    f = compile_definition(math_ir.definition("m", function, ret, [ret]), "m", ret, [ret])
    x = _edge_floats(dtype)
    lanes = 2 if ret.startswith("<") else 1
    args = x.reshape(-1, lanes) if lanes > 1 else x
    got = f(args, out_dtype=dtype, out_count=lanes).reshape(-1)
    with np.errstate(all="ignore"):
        want = np.asarray(numpy_function(x.astype(np.float64))).astype(dtype)
    uint = np.uint16 if dtype == np.float16 else np.uint32
    assert np.array_equal(got.view(uint), want.view(uint)), (x[got.view(uint) != want.view(uint)])


def _ints(dtype):
    info = np.iinfo(dtype)
    return np.array(sorted({int(info.min), int(info.min) + 1, -1 if info.min else 0, 0, 1, 2, int(info.max) - 1,
                            int(info.max)}), dtype)


@pytest.mark.parametrize("src, dst", [(np.int32, np.uint8), (np.uint64, np.int16), (np.int64, np.uint32),
                                      (np.int8, np.uint64), (np.uint32, np.int32)])
def test_saturating_integer_conversion(src, dst):
    """convert_<dst>_sat of an integer: clamped to the destination's range. (Its text form
    named a value %c, the context parameter's name: LLVM refused every module calling one.)"""
    names = {np.int8: "char", np.uint8: "uchar", np.int16: "short", np.uint32: "uint", np.int32: "int",
             np.uint64: "ulong", np.int64: "long"}
    s, d = np.dtype(src), np.dtype(dst)
    definition = builtin_ir.exact_builtin("f", f"convert_{names[dst]}_sat", [("int", 8 * s.itemsize, s.kind == "i")],
                                          f"i{8 * d.itemsize}", [f"i{8 * s.itemsize}"])
    f = compile_definition(definition, "f", f"i{8 * d.itemsize}", [f"i{8 * s.itemsize}"])
    x = _ints(src)
    info = np.iinfo(dst)
    want = [min(max(int(v), int(info.min)), int(info.max)) for v in x]
    assert f(x, out_dtype=dst).tolist() == want


def test_saturating_conversion_of_clang_ir_runs_natively():
    """clang-22's calls of convert_uchar_sat(int) and convert_short2_sat(long2): compiled by
    the native engine (LLVM refused the module before), results clamped as NumPy."""
    source = ("kernel void k(global int *a, global uchar *o, global long2 *l, global short2 *s) {"
              " size_t i = get_global_id(0); o[i] = convert_uchar_sat(a[i]); s[i] = convert_short2_sat(l[i]); }")
    program = clcoop.Program.from_ir(clang_ir_text(source, 2), engine="native")
    a = np.array([-5, 300, 7, 255], np.int32)
    wide = np.array([[1 << 40, -(1 << 40)], [5, -5], [32767, -32769], [0, 1]], np.int64)
    o, s = np.zeros(4, np.uint8), np.zeros((4, 2), np.int16)
    program.k((4,), (1,), a, o, wide, s)
    assert program.k.engine == "native"
    assert o.tolist() == np.clip(a, 0, 255).tolist()
    assert s.tolist() == np.clip(wide, -32768, 32767).tolist()


def _floats(dtype):
    info = np.finfo(dtype)
    return np.array([0.0, -0.0, np.inf, -np.inf, np.nan, 1.0, -1.0, 2.5, -3.5, float(info.tiny),
                     -float(info.tiny), float(info.smallest_subnormal), float(info.max), -float(info.max)], dtype)


@pytest.mark.parametrize("base", ["fmax", "fmin", "clamp"])
def test_float_order_signed_zeros_and_nans(base):
    """fmax/fmin/clamp of float4 with a scalar operand splat: interp/float_order.py's rule
    (+0.0 above -0.0, a NaN operand loses), against NumPy's fmax/fmin and that rule."""
    vec, s = ("vec", 4, ("float", 32)), ("float", 32)
    arity = 3 if base == "clamp" else 2
    params = ["<4 x float>"] + ["float"] * (arity - 1)
    f = compile_definition(builtin_ir.exact_builtin("f", base, [vec] + [s] * (arity - 1), "<4 x float>", params),
                           "f", "<4 x float>", params)
    values = _floats(np.float32)
    pairs = [(x, y) for x in values for y in values]
    x = np.array([[p[0]] * 4 for p in pairs], np.float32)
    y = np.array([p[1] for p in pairs], np.float32)

    def order(kind, a, b):        # interp/float_order.py, elementwise
        if np.isnan(b):
            return a
        if np.isnan(a):
            return b
        if a == b:
            return a if (np.signbit(a) == (kind == "min")) else b
        return max(a, b) if kind == "max" else min(a, b)
    if base == "clamp":
        got = f(x, y, y, out_dtype=np.float32, out_count=4)
        want = [order("min", order("max", a, b), b) for a, b in pairs]
    else:
        got = f(x, y, out_dtype=np.float32, out_count=4)
        want = [order(base[1:], a, b) for a, b in pairs]
    want = np.array(want, np.float32)
    assert np.array_equal(got[:, 3].view(np.uint32), want.view(np.uint32))


@pytest.mark.parametrize("base, ret", [("isnormal", "i32"), ("isinf", "<2 x i64>"), ("signbit", "i32"),
                                       ("isnotequal", "<2 x i64>")])
def test_relational_results(base, ret):
    """Relational built-ins of double: 1 for true (scalar), -1 in each true element (vector)."""
    vector = ret.startswith("<")
    m = ("vec", 2, ("float", 64)) if vector else ("float", 64)
    t = "<2 x double>" if vector else "double"
    arity = 2 if base == "isnotequal" else 1
    f = compile_definition(builtin_ir.exact_builtin("f", base, [m] * arity, ret, [t] * arity), "f", ret, [t] * arity)
    x = _floats(np.float64)
    tests = {"isnormal": lambda v: np.isfinite(v) and abs(v) >= np.finfo(np.float64).tiny,
             "isinf": np.isinf, "signbit": np.signbit, "isnotequal": lambda v: v != 1.0}
    truth = [bool(tests[base](v)) for v in x]
    args = [np.stack([x, x], 1) if vector else x] + ([np.ones((len(x), 2) if vector else len(x))] if arity == 2 else [])
    got = f(*args, out_dtype=np.int64 if vector else np.int32, out_count=2 if vector else 1)
    want = [(-1 if vector else 1) if t else 0 for t in truth]
    assert (got[:, 1] if vector else got).tolist() == want


@pytest.mark.parametrize("base, dtype", [("mul_hi", np.int32), ("mad_sat", np.uint16), ("rhadd", np.int8),
                                         ("abs_diff", np.int64), ("mad_hi", np.uint64)])
def test_integer_builtins_in_twice_the_bits(base, dtype):
    """The integer built-ins computed in a type twice as wide, against Python's integers."""
    bits = 8 * np.dtype(dtype).itemsize
    signed = np.dtype(dtype).kind == "i"
    arity = builtin_ir._INTEGER_BUILTINS[base]
    t = f"i{bits}"
    f = compile_definition(builtin_ir.exact_builtin("f", base, [("int", bits, signed)] * arity, t, [t] * arity),
                           "f", t, [t] * arity)
    values = _ints(dtype)
    rows = [(a, b, c) for a in values for b in values for c in values[:3]]
    info = np.iinfo(dtype)
    ops = {"mul_hi": lambda a, b, c: (a * b) >> bits, "mad_hi": lambda a, b, c: ((a * b) >> bits) + c,
           "mad_sat": lambda a, b, c: min(max(a * b + c, int(info.min)), int(info.max)),
           "rhadd": lambda a, b, c: (a + b + 1) >> 1, "abs_diff": lambda a, b, c: abs(a - b)}
    want = [ops[base](int(a), int(b), int(c)) % (1 << bits) for a, b, c in rows]
    columns = [np.array([r[k] for r in rows], dtype) for k in range(arity)]
    got = f(*columns, out_dtype=dtype)
    assert [int(v) % (1 << bits) for v in got] == want


def _context(**slots):
    ctx = np.zeros(CTX_SLOTS, np.int64)
    for name, value in slots.items():
        ctx[CTX[name]] = value
    return ctx


@pytest.mark.parametrize("kind, ret, want", [
    ("global_id", "i64", [3 * 8 + 5 + 100, 1 * 4 + 2 + 0, 0 + 0 + 0, 0, 0]),
    ("local_size", "i32", [8, 4, 1, 1, 1]),
    ("global_linear_id", "i64", [(3 * 8 + 5) + (1 * 4 + 2) * 64] * 5),
    ("sub_group_size", "i32", [3] * 5),          # the last sub-group of 19 work-items: 19 - 16
    ("num_sub_groups", "i32", [2] * 5),
    ("sub_group_local_id", "i32", [1] * 5),
])
def test_workitem_functions_read_the_context(kind, ret, want):
    """Work-item functions read context.CTX's slots; dimensions 0, 1, 2, then 3 and a large
    one (the defaults outside 0..2)."""
    ctx = _context(grp0=3, grp1=1, lsize0=8, lsize1=4, lsize2=1, lid0=5, lid1=2, off0=100, gsize0=64, gsize1=8,
                   sg_size=16, wg_size=19, llid=17)
    definition = builtin_ir.workitem_definition("f", f"get_{kind}", ret, ["i32"])
    f = compile_definition(definition, "f", ret, ["i32"], context=ctx)
    got = f(np.array([0, 1, 2, 3, 1 << 20], np.uint32), out_dtype=np.int64 if ret == "i64" else np.int32)
    assert got.tolist() == want


def test_local_address_reads_the_threads_region_row():
    """local_memory.address_definition: the lower bound of its row of the thread's region
    table (context slot `table`; context.REGION_* words a row)."""
    from clcoop.native import local_memory
    from clcoop.native.context import REGION_HI, REGION_LO, REGION_ROW_WORDS
    table = np.zeros((5, REGION_ROW_WORDS), np.int64)
    table[:, REGION_LO] = [1000, 2000, 3000, 4000, 5000]
    table[:, REGION_HI] = table[:, REGION_LO] + 64
    ctx = _context(table=table.ctypes.data)
    for row in (0, 3, 4):
        f = compile_definition(local_memory.address_definition("__clcoop_local.t", row), "__clcoop_local.t",
                               "ptr addrspace(3)", [], context=ctx)
        assert f(out_dtype=np.uint64, rows=1).tolist() == [1000 * (row + 1)]


def _lines_definition(lines, ret, param, result):
    """A definition around spliced lines (bfloat_ir's, float8_ir's): argument %a0, result
    `result`; bf16 values as their i16 bits, as codegen.finish leaves them."""
    from clcoop.native.bfloat_ir import as_bits
    return as_bits("\n".join([f"define internal {ret} @f(ptr %c, {param} %a0) {{", *lines, f"  ret {ret} {result}",
                              "}"]))


def test_bf16_roundings_match_ml_dtypes():
    """bfloat_ir's float -> bf16 against ml_dtypes and double -> bf16 (one rounding, through
    round-to-odd) against the interpreter's ir/rounding.to_bfloat16, on edge values (ties,
    subnormals, overflow, NaNs) and random bits; bf16 -> float exact on all 65,536 patterns."""
    import ml_dtypes
    from clcoop.ir.rounding import to_bfloat16
    from clcoop.native import bfloat_ir
    rng = np.random.default_rng(7)
    floats = np.concatenate([np.array([0x3F808000, 0x3F818000, 0x7F7FFFFF, 0x7F7F8000, 0x00008000, 0x80018000,
                                       0x7F800001, 0xFFC00001, 0x7F800000, 0x80000000], np.uint32),
                             rng.integers(0, 1 << 32, 3000, dtype=np.uint64).astype(np.uint32)]).view(np.float32)
    f = compile_definition(_lines_definition(bfloat_ir.round_float("%a0", None, "%r", "%p"), "bfloat", "float", "%r"),
                           "f", "i16", ["float"])
    with np.errstate(invalid="ignore"):
        got, want = f(floats, out_dtype=np.uint16), floats.astype(ml_dtypes.bfloat16).view(np.uint16)
    finite = ~np.isnan(floats)
    assert np.array_equal(got[finite], want[finite])
    assert np.all((got[~finite] & 0x7FFF) == 0x7FC0)           # quiet NaN, sign kept
    doubles = np.concatenate([np.array([1.0 + 2.0 ** -8 + 2.0 ** -40, 1.0 + 2.0 ** -8, -(1.0 + 2.0 ** -8 + 2.0 ** -60),
                                        3.0e38, 3.4e38, 1e-40, -1e-45], np.float64), rng.normal(0, 1e3, 2000)])
    g = compile_definition(_lines_definition(bfloat_ir.round_double("%a0", None, "%r", "%p"), "bfloat", "double", "%r"),
                           "f", "i16", ["double"])
    assert np.array_equal(g(doubles, out_dtype=np.uint16), np.asarray(to_bfloat16(doubles)).view(np.uint16))
    patterns = np.arange(1 << 16, dtype=np.uint16)
    h = compile_definition(_lines_definition(bfloat_ir.widen("%a0", None, "%r", "float", "%p"), "float", "bfloat", "%r"),
                           "f", "float", ["i16"])
    assert np.array_equal(h(patterns, out_dtype=np.float32).view(np.uint32), patterns.astype(np.uint32) << 16)


@pytest.mark.parametrize("fmt", ["E4M3", "E5M2"])
def test_fp8_conversion_definitions(fmt):
    """float8_ir's definitions: every fp8 pattern decoded to float exactly (ml_dtypes), and
    floats encoded with and without saturation (clcoop.float8.encode_value, checked against
    ml_dtypes in test_fp8), two lanes at a time."""
    import ml_dtypes
    from clcoop import float8
    from clcoop.native import float8_ir
    dtype = ml_dtypes.float8_e4m3fn if fmt == "E4M3" else ml_dtypes.float8_e5m2
    decode = compile_definition(float8_ir.definition("f", float8.Conversion(fmt, "FP32", False), "float", ["i8"]),
                                "f", "float", ["i8"])
    patterns = np.arange(256, dtype=np.uint8)
    got = decode(patterns, out_dtype=np.float32)
    want = patterns.view(dtype).astype(np.float32)
    assert np.array_equal(got, want, equal_nan=True) and np.array_equal(np.signbit(got), np.signbit(want))
    rng = np.random.default_rng(9)
    values = np.concatenate([np.array([0.0, -0.0, np.inf, -np.inf, np.nan, 448.0, 464.0, 480.0, 57344.0, 61440.0,
                                       2.0 ** -10, 2.0 ** -17, -2.0 ** -9 * 1.5], np.float32),
                             rng.normal(0, 200, 400).astype(np.float32)])
    pairs = np.stack([values, values[::-1]], 1)
    for saturate in (False, True):
        encode = compile_definition(float8_ir.definition("f", float8.Conversion("FP32", fmt, saturate), "<2 x i8>",
                                                         ["<2 x float>"]), "f", "<2 x i8>", ["<2 x float>"])
        got = encode(pairs, out_dtype=np.uint8, out_count=2)
        want = [[float8.encode_value(float(v), float8.BY_TOKEN[fmt], saturate) for v in row] for row in pairs]
        assert got.tolist() == want, saturate
