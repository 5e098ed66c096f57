"""Native transcendental built-ins (exp, log, tanh, ...) for half and float, bit for bit the
interpreter's (docs/native.md, "Floating point").

The interpreter computes them in double with NumPy and rounds once to the result type
(interp/math_edges.in_double). The native code calls the C library's double function instead:
both are within a few ulp of the exact value in double (glibc: under 1 ulp; NumPy's SIMD and
SVML loops: under 4 ulp), so the two double results round to the same half or float unless
they lie within a few double ulp of a rounding boundary. Every result is checked: when
rounding the double result moved by HARD_ULPS ulp either way can give two values (about
2^-22 of floats, 2^-35 of halves), or the result is a NaN (its payload is NumPy's), the
element is computed by NumPy exactly as the interpreter computes it, from the argument's
bits, through a host callback (`__clcoop_math_hard`, about 10 us a call). double arguments are left to the interpreter: there the last bit is
NumPy's own.
"""
import ctypes
import ctypes.util

import llvmlite.ir as ir
import numpy as np

from clcoop.native import irbuild

# OpenCL C name -> (C library function, NumPy function in double), as interp/ocl_builtins.py's
# _FLOAT_MATH computes each in double (its _ROUNDED_IN_DOUBLE).
UNARY = {
    "exp": ("exp", np.exp), "exp2": ("exp2", np.exp2),
    "exp10": ("exp10", lambda x: np.power(10.0, x)),
    "log": ("log", np.log), "log2": ("log2", np.log2), "log10": ("log10", np.log10),
    "log1p": ("log1p", np.log1p), "expm1": ("expm1", np.expm1),
    "sin": ("sin", np.sin), "cos": ("cos", np.cos), "tan": ("tan", np.tan),
    "asin": ("asin", np.arcsin), "acos": ("acos", np.arccos), "atan": ("atan", np.arctan),
    "sinh": ("sinh", np.sinh), "cosh": ("cosh", np.cosh), "tanh": ("tanh", np.tanh),
    "asinh": ("asinh", np.arcsinh), "acosh": ("acosh", np.arccosh), "atanh": ("atanh", np.arctanh),
}
FUNCTION_CODES = {name: code for code, name in enumerate(UNARY)}
# OpenCL C 3.0 6.15.2: native_ and half_ variants; the interpreter computes them as the full ones.
PREFIXES = ("", "native_", "half_")
ELEMENT_BITS = {"half": 16, "float": 32}
HARD_ULPS = 64
HARD_CASE = "__clcoop_math_hard"


def host_name(function):
    """The symbol compiled code calls for the C library's `function` (registered by
    register_host_functions; a private name, so that LLVM does not treat it as the library
    call and fold or narrow it)."""
    return f"__clcoop_libm.{function}"


def definition(name, base, ret, params):
    """The native definition (ptr %c, x) of the OpenCL built-in `name` (one of UNARY, half or
    float, scalar or vector); None for anything else."""
    function = next((base[len(p):] for p in PREFIXES if p and base.startswith(p)), base)
    if function not in UNARY or len(params) != 1 or params[0] != ret:
        return None
    t = irbuild.parse_type(ret)
    if str(irbuild.element(t)) not in ELEMENT_BITS:
        return None
    fn, b = irbuild.define(name, t, [(irbuild.PTR, "c"), (t, "a0")], inline=False)
    x = fn.args[1]
    if irbuild.lanes(t) is None:
        b.ret(_element(b, function, x, "e0"))
        return irbuild.function_text(fn)
    value = ir.Constant(t, ir.Undefined)
    for k in range(t.count):
        lane = b.extract_element(x, irbuild.const(irbuild.I64, k), name=f"x{k}")
        value = b.insert_element(value, _element(b, function, lane, f"e{k}"), irbuild.const(irbuild.I64, k),
                                 name=f"v{k}")
    b.ret(value)
    return irbuild.function_text(fn)


_MAGNITUDE, _SIGN, _INFINITY = (1 << 63) - 1, -(1 << 63), 0x7FF0000000000000


def _element(b, function, x, p):
    """The interpreter's function(x) of one half or float element x, names prefixed `p`;
    the builder continues in the block after it."""
    element = x.type
    bits = ELEMENT_BITS[str(element)]
    itype = ir.IntType(bits)
    i64 = irbuild.I64
    y = irbuild.call(b, host_name(UNARY[function][0]), irbuild.DOUBLE,
                     [b.fpext(x, irbuild.DOUBLE, name=f"{p}.x")], f"{p}.y")
    ybits = b.bitcast(y, i64, name=f"{p}.bits")
    mag = b.and_(ybits, ir.Constant(i64, _MAGNITUDE), name=f"{p}.mag")
    sign = b.and_(ybits, ir.Constant(i64, _SIGN), name=f"{p}.sign")
    inf = irbuild.icmp(b, "eq", mag, ir.Constant(i64, _INFINITY), f"{p}.inf")
    nan = irbuild.icmp(b, "ugt", mag, ir.Constant(i64, _INFINITY), f"{p}.nan")
    # The narrow values of y moved by HARD_ULPS double ulp toward zero and away from it.
    small = irbuild.icmp(b, "ult", mag, ir.Constant(i64, HARD_ULPS), f"{p}.small")
    low = b.select(small, ir.Constant(i64, 0), b.sub(mag, ir.Constant(i64, HARD_ULPS), name=f"{p}.lom"),
                   name=f"{p}.lom2")
    high = b.add(mag, ir.Constant(i64, HARD_ULPS), name=f"{p}.him")
    narrow = []
    for end, moved in (("lo", low), ("hi", high)):
        d = b.bitcast(b.or_(moved, sign, name=f"{p}.{end}b"), irbuild.DOUBLE, name=f"{p}.{end}d")
        narrow.append(b.bitcast(b.fptrunc(d, element, name=f"{p}.{end}"), itype, name=f"{p}.{end}n"))
    same = irbuild.icmp(b, "eq", narrow[0], narrow[1], f"{p}.same")
    easy = b.and_(b.or_(same, inf, name=f"{p}.easy0"), b.xor(nan, ir.Constant(irbuild.I1, 1), name=f"{p}.notnan"),
                  name=f"{p}.easy")
    near = b.fptrunc(y, element, name=f"{p}.near")
    start = b.block
    hard_block = b.append_basic_block(f"{p}.hard")
    done = b.append_basic_block(f"{p}.round")
    b.cbranch(easy, done, hard_block)
    b.position_at_end(hard_block)
    # The argument's own bits: widening a half signalling NaN in hardware would quiet it.
    wide = b.zext(b.bitcast(x, itype, name=f"{p}.xn"), i64, name=f"{p}.xw")
    hard_bits = irbuild.call(b, HARD_CASE, i64, [ir.Constant(irbuild.I32, FUNCTION_CODES[function]),
                                                 ir.Constant(irbuild.I32, bits), wide], f"{p}.hw")
    hard = b.bitcast(b.trunc(hard_bits, itype, name=f"{p}.hn"), element, name=f"{p}.h")
    b.branch(done)
    b.position_at_end(done)
    result = b.phi(element, name=f"{p}.r")
    result.add_incoming(near, start)
    result.add_incoming(hard, hard_block)
    return result


# ---------------------------------------------------------------- the host functions

def hard_case(code, bits, argument):
    """The bits of NumPy's value of function `code` at the half (bits 16) or float (32) whose
    bits are `argument`, computed in double and rounded once, as the interpreter computes
    one element."""
    narrow = np.float16 if bits == 16 else np.float32
    x = np.array([argument], np.uint16 if bits == 16 else np.uint32).view(narrow)
    with np.errstate(all="ignore"):
        value = np.asarray(UNARY[list(UNARY)[code]][1](x.astype(np.float64))).astype(narrow)
    return int(value.view(np.uint16 if bits == 16 else np.uint32)[0])


_HARD_CASE_TYPE = ctypes.CFUNCTYPE(ctypes.c_int64, ctypes.c_int32, ctypes.c_int32, ctypes.c_int64)
_hard_case_callback = _HARD_CASE_TYPE(hard_case)      # kept alive: compiled code calls it


def register_host_functions():
    """Makes host_name(f) for every C library function of UNARY, and the hard-case callback,
    callable from compiled code (MCJIT resolves calls from registered symbols only)."""
    import llvmlite.binding as llvm
    libm = ctypes.CDLL(ctypes.util.find_library("m") or "libm.so.6")
    for function, _ in UNARY.values():
        address = ctypes.cast(getattr(libm, function), ctypes.c_void_p).value
        llvm.add_symbol(host_name(function), address)
    llvm.add_symbol(HARD_CASE, ctypes.cast(_hard_case_callback, ctypes.c_void_p).value)
