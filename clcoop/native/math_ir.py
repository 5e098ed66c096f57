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

import numpy as np

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
    element, lanes = _element_and_lanes(ret)
    if element not in ELEMENT_BITS:
        return None
    lines = [f'define internal {ret} @"{name}"(ptr %c, {ret} %a0) {{', "entry:"]
    if lanes is None:
        lines += _element_ir(function, element, "%a0", "e0", "done")
        lines += ["done:", f"  ret {ret} %e0.r", "}"]
        return "\n".join(lines)
    previous = "poison"
    for k in range(lanes):
        lines.append(f"  %x{k} = extractelement {ret} %a0, i64 {k}")
        lines += _element_ir(function, element, f"%x{k}", f"e{k}", f"lane{k}")
        lines += [f"lane{k}:", f"  %v{k} = insertelement {ret} {previous}, {element} %e{k}.r, i64 {k}"]
        previous = f"%v{k}"
    lines += [f"  ret {ret} {previous}", "}"]
    return "\n".join(lines)


def _element_and_lanes(t):
    if t.startswith("<"):
        count, element = t[1:-1].split(" x ")
        return element.strip(), int(count)
    return t, None


def _element_ir(function, element, x, p, after):
    """IR of one element: %{p}.r = the interpreter's function(x) in `element`; ends with a
    branch to label `after`."""
    bits = ELEMENT_BITS[element]
    itype = f"i{bits}"
    return [
        f"  %{p}.x = fpext {element} {x} to double",
        f"  %{p}.y = call double @{host_name(UNARY[function][0])}(double %{p}.x)",
        f"  %{p}.bits = bitcast double %{p}.y to i64",
        f"  %{p}.mag = and i64 %{p}.bits, 9223372036854775807",
        f"  %{p}.sign = and i64 %{p}.bits, -9223372036854775808",
        f"  %{p}.inf = icmp eq i64 %{p}.mag, 9218868437227405312",
        f"  %{p}.nan = icmp ugt i64 %{p}.mag, 9218868437227405312",
        # The narrow values of y moved by HARD_ULPS double ulp toward zero and away from it.
        f"  %{p}.small = icmp ult i64 %{p}.mag, {HARD_ULPS}",
        f"  %{p}.lom = sub i64 %{p}.mag, {HARD_ULPS}",
        f"  %{p}.lom2 = select i1 %{p}.small, i64 0, i64 %{p}.lom",
        f"  %{p}.him = add i64 %{p}.mag, {HARD_ULPS}",
        f"  %{p}.lob = or i64 %{p}.lom2, %{p}.sign",
        f"  %{p}.hib = or i64 %{p}.him, %{p}.sign",
        f"  %{p}.lod = bitcast i64 %{p}.lob to double",
        f"  %{p}.hid = bitcast i64 %{p}.hib to double",
        f"  %{p}.lo = fptrunc double %{p}.lod to {element}",
        f"  %{p}.hi = fptrunc double %{p}.hid to {element}",
        f"  %{p}.lon = bitcast {element} %{p}.lo to {itype}",
        f"  %{p}.hin = bitcast {element} %{p}.hi to {itype}",
        f"  %{p}.same = icmp eq {itype} %{p}.lon, %{p}.hin",
        f"  %{p}.easy0 = or i1 %{p}.same, %{p}.inf",
        f"  %{p}.notnan = xor i1 %{p}.nan, true",
        f"  %{p}.easy = and i1 %{p}.easy0, %{p}.notnan",
        f"  %{p}.near = fptrunc double %{p}.y to {element}",
        f"  br i1 %{p}.easy, label %{p}.round, label %{p}.hard",
        f"{p}.hard:",
        # The argument's own bits: widening a half signalling NaN in hardware would quiet it.
        f"  %{p}.xn = bitcast {element} {x} to {itype}",
        f"  %{p}.xw = zext {itype} %{p}.xn to i64",
        f"  %{p}.hw = call i64 @{HARD_CASE}(i32 {FUNCTION_CODES[function]}, i32 {bits}, i64 %{p}.xw)",
        f"  %{p}.hn = trunc i64 %{p}.hw to {itype}",
        f"  %{p}.h = bitcast {itype} %{p}.hn to {element}",
        f"  br label %{p}.round",
        f"{p}.round:",
        f"  %{p}.r = phi {element} [%{p}.near, %{_block_of(p, x)}], [%{p}.h, %{p}.hard]",
        f"  br label %{after}",
    ]


def _block_of(p, x):
    """The label of the block where element p's code starts: `entry` for the first element,
    else the previous element's last block."""
    k = int(p[1:])
    return "entry" if k == 0 else f"lane{k - 1}"


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
