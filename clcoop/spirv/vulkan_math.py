"""Exact sequences for OpenCL C math built-ins on the Vulkan target (docs/vulkan.md "Math").

GLSL.std.450's precision (Vulkan spec, "Precision and Operation of SPIR-V Instructions") is
looser than OpenCL C's full profile (OpenCL C 3.0 7.4) for exp, exp2, log, log2, sin, cos, tan,
asin, acos, atan, atan2, pow, sinh, cosh, tanh, asinh, acosh, atanh, and gives no bound for a division by |y| outside [2^-126, 2^126]; fmod
exp10, log1p, expm1, cbrt, hypot, erf, erfc, ldexp, pown and rootn have no GLSL instruction. These sequences use only what Vulkan rounds correctly
(OpFAdd, OpFSub, OpFMul, conversions, integer arithmetic; OpFDiv only inside its bound), so
their error is ours and measured (test_vulkan_math.py):

- exp, exp2, exp10: n = roundeven(x log2 e), a Cody-Waite reduction (ln 2 split so that n * hi
  is exact; exp10 reduces x log2(10) in double), Cephes' expf polynomial on |r| <= ln2/2, 2^n
  applied as two powers of two (one rounding, subnormal results included);
- log, log2, log10: x = m 2^e with m in [sqrt(1/2), sqrt(2)), Cephes' logf polynomial on m - 1
  (exact), e's contribution added last with split constants;
- sin, cos, tan: Payne-Hanek reduction for every |x| >= pi/4 (the 24-bit significand times 192
  bits of 2/pi in 32-bit words, 64-bit integer products), r = the centred fraction times pi/2
  in double (one rounding to float), Cephes' sinf/cosf/tanf polynomials on |r| <= pi/4;
- sinh, cosh, tanh: from e^|x| / 2 (no early overflow) and Cephes' polynomials near 0;
- atan, atan2, asin, acos: Cephes' reductions with the reduced argument and the final sums in
  double (one rounding each), Cephes' atanf/asinf polynomials;
- asinh, acosh, atanh: their logarithm formulas in double (log by the atanh series);
- log1p, expm1, cbrt, hypot: in double (log1p through that log, expm1 by a Taylor series after
  the ln2 reduction, cbrt by Newton's iteration, hypot from exact squares);
- erf, erfc: a positive series times e^(-x^2) in double, and Laplace's continued fraction for
  erfc from 2;
- ldexp, pown, rootn (a float and an int operand): in double, the sign and the NaN cases from
  the integer;
- pow, powr: 2^(y log2|x|) with log2 in double (about 2^-50), C99 F.9.4.4's special values;
- division: x/y with both scaled by a power of two when |y| is outside [2^-126, 2^126] (where
  Vulkan's 2.5 ulp holds; OpenCL C's 2.5 ulp holds for every y);
- fmod: exact (IEEE 754 remainder toward zero): integer significands, the remainder taken 39
  bits at a time with 64-bit urem, the result scaled back exactly;
- scalar fp8 conversions as integer and double code (`float8_conversion`; the encoding rounds
  with integer shifts, not RoundEven, which lavapipe gets wrong for doubles without AVX-512).

Each function is `definition(kind, name, ret) -> (define text, [declarations])` for a scalar
half, float (double for fmod), and vectors component by component; half goes through float
(one rounding of a result far more precise than half's). A driver may fuse a multiply and an
add (Vulkan allows it without NoContraction): every product these sequences add is exact or
only gains from the fusion.
"""
import struct

from clcoop import float8

# OpenCL C built-in name -> sequence kind (docs/vulkan.md lists what stays GLSL.std.450).
EXACT_FUNCTIONS = ("exp", "exp2", "exp10", "log", "log2", "log10", "sin", "cos", "tan", "sinh", "cosh", "tanh",
                   "asin", "acos", "atan", "atan2", "asinh", "acosh", "atanh", "pow", "powr", "fmod",
                   "log1p", "expm1", "cbrt", "hypot", "erf", "erfc", "ldexp", "pown", "rootn")
BINARY = ("fmod", "pow", "powr", "atan2", "hypot", "fdiv")
INT_OPERAND = ("ldexp", "pown", "rootn")          # (float, int)
DIVISION = "fdiv"

def literal(type_text, value):
    """An IR literal of a floating type (LLVM writes half and float constants as the hex
    double of a value the type holds exactly)."""
    if type_text == "half":
        return "0xH" + struct.pack(">e", value).hex().upper()
    if type_text == "float":
        value = struct.unpack(">f", struct.pack(">f", value))[0]
    return "0x" + struct.pack(">d", value).hex().upper()


class Builder:
    """The lines of one function body, with fresh value names."""

    def __init__(self):
        self.lines = []
        self.count = 0
        self.declarations = []

    def __call__(self, text):
        self.count += 1
        name = f"%t{self.count}"
        self.lines.append(f"  {name} = {text}")
        return name

    def label(self, name):
        self.lines.append(f"{name}:")

    def raw(self, text):
        self.lines.append(f"  {text}")

    def intrinsic(self, name, ret, args):
        declaration = f"declare {ret} @{name}({', '.join(a.split(' ')[0] for a in args)})"
        if declaration not in self.declarations:
            self.declarations.append(declaration)
        return self(f"call {ret} @{name}({', '.join(args)})")

    # float helpers
    def f(self, op, a, b, t="float"):
        return self(f"{op} {t} {a}, {b}")

    def fc(self, value, t="float"):
        return literal(t, value)

    def horner(self, x, coefficients, t="float"):
        """c0 * x^n + ... + cn by Horner's rule (coefficients from the highest degree)."""
        acc = self.fc(coefficients[0], t)
        for c in coefficients[1:]:
            acc = self.f("fadd", self.f("fmul", acc, x, t), self.fc(c, t), t)
        return acc

    def select(self, cond, t, a, b):
        return self(f"select i1 {cond}, {t} {a}, {t} {b}")

    def power_of_two(self, exponent_i32):
        """The float 2^e for e in [-126, 127], from its bits."""
        biased = self(f"add i32 {exponent_i32}, 127")
        bits = self(f"shl i32 {biased}, 23")
        return self(f"bitcast i32 {bits} to float")

    def nan_unless(self, ok, value, source):
        """value where `ok`, else NaN, made as source - source from an infinite or NaN
        `source` (the argument itself, or an infinity from its bits): no float constant in a
        select, which crashed llc-22."""
        nan = self.f("fsub", source, source)
        return self.select(ok, "float", value, nan)


# ------------------------------------------------------------------ exp, exp2

# Cephes expf: |r| <= ln2/2, relative error ~1e-7 (S. Moshier, Cephes Math Library 2.2).
_EXP_POLY = (1.9875691500e-4, 1.3981999507e-3, 8.3334519073e-3, 4.1665795894e-2, 1.6666665459e-1,
             5.0000001201e-1)
_LN2_HI, _LN2_LO = 0.693359375, -2.12194440e-4       # hi has 9 bits: n * hi is exact for |n| < 2^15


def _exp_core(b, r, n_i32):
    """e^r * 2^n, with |r| <= ln2/2 and n in [-151, 129]: 2^n as two powers of two, so that the
    only rounding of a subnormal result is the last multiplication."""
    z = b.f("fmul", r, r)
    p = b.f("fmul", b.horner(r, _EXP_POLY), z)
    y = b.f("fadd", b.f("fadd", p, r), b.fc(1.0))
    n1 = b(f"ashr i32 {n_i32}, 1")
    n2 = b(f"sub i32 {n_i32}, {n1}")
    scaled = b.f("fmul", y, b.power_of_two(n1))
    return b.f("fmul", scaled, b.power_of_two(n2))


def _clamp(b, x, low, high):
    """x limited to [low, high] (NaN passes; the caller selects NaN back at the end)."""
    above = b(f"fcmp ogt float {x}, {b.fc(high)}")
    x = b.select(above, "float", b.fc(high), x)
    below = b(f"fcmp olt float {x}, {b.fc(low)}")
    return b.select(below, "float", b.fc(low), x)


def _exp_reduced(b, x):
    """(r, n) with e^x = e^r 2^n, |r| <= ln2/2 (x limited to [-104, 90] first: outside, e^x is
    0 or infinity in float and even e^x / 2 is; the clamp keeps n an i32 in range)."""
    xc = _clamp(b, x, -104.0, 90.0)
    n = b.intrinsic("llvm.roundeven.f32", "float", [f"float {b.f('fmul', xc, b.fc(1.4426950408889634))}"])
    r = b.f("fsub", xc, b.f("fmul", n, b.fc(_LN2_HI)))           # exact (Cody-Waite)
    r = b.f("fsub", r, b.f("fmul", n, b.fc(_LN2_LO)))
    return r, b(f"fptosi float {n} to i32")


def _exp(b, x):
    result = _exp_core(b, *_exp_reduced(b, x))
    return b.select(b(f"fcmp une float {x}, {x}"), "float", x, result)


def _half_exp(b, a):
    """e^a / 2, without the overflow of e^a for a in (88.7, 89.4) (cosh, sinh)."""
    r, n = _exp_reduced(b, a)
    return _exp_core(b, r, b(f"sub i32 {n}, 1"))


def _exp2_of_double(b, t):
    """2^t for a double t (pow, exp10): n = roundeven(t), f = t - n exact in double, e^(f ln2)
    from one rounding of f ln2 to float (error < 2^-25 relative on r, 0.2 ulp on the result)."""
    for op, bound in (("ogt", 129.0), ("olt", -151.0)):
        limit = literal("double", bound)
        t = b(f"select i1 {b(f'fcmp {op} double {t}, {limit}')}, double {limit}, double {t}")
    n = b.intrinsic("llvm.roundeven.f64", "double", [f"double {t}"])
    f = b(f"fsub double {t}, {n}")
    ln2 = literal("double", 0.6931471805599453)
    r = b(f"fptrunc double {b(f'fmul double {f}, {ln2}')} to float")
    return _exp_core(b, r, b(f"fptosi double {n} to i32"))


def _exp10(b, x):
    # x log2(10) in double: x (24 bits) times the 53-bit constant, relative error 2^-53
    log2_10 = literal("double", 3.321928094887362)
    t = b(f"fmul double {b(f'fpext float {x} to double')}, {log2_10}")
    return b.select(b(f"fcmp une float {x}, {x}"), "float", x, _exp2_of_double(b, t))


# Cephes sinhf (|x| <= 1) and tanhf (|x| < 0.625) polynomials.
_SINH_POLY = (2.03721912945e-4, 8.33028376239e-3, 1.66667160211e-1)
_TANH_POLY = (-5.70498872745e-3, 2.06390887954e-2, -5.37397155531e-2, 1.33314422036e-1, -3.33332819422e-1)


def _odd_poly(b, x, coefficients):
    """x + x^3 P(x^2); x itself for +-0 (-0 + +0 would lose the sign)."""
    z = b.f("fmul", x, x)
    value = b.f("fadd", b.f("fmul", b.f("fmul", b.horner(z, coefficients), z), x), x)
    return b.select(b(f"fcmp oeq float {x}, {b.fc(0.0)}"), "float", x, value)


def _with_sign_of(b, value, x):
    """|value| with x's sign bit (value >= 0 here)."""
    sign = b(f"and i32 {b(f'bitcast float {x} to i32')}, -2147483648")
    bits = b(f"or i32 {b(f'bitcast float {value} to i32')}, {sign}")
    return b(f"bitcast i32 {bits} to float")


def _cosh(b, x):
    # e^a/2 + (1/4)/(e^a/2): the quotient is never the larger term, so its 2.5 ulp weigh half
    a = b.intrinsic("llvm.fabs.f32", "float", [f"float {x}"])
    h = _half_exp(b, a)
    value = b.f("fadd", h, b.f("fdiv", b.fc(0.25), h))
    return b.select(b(f"fcmp une float {x}, {x}"), "float", x, value)


def _sinh(b, x):
    a = b.intrinsic("llvm.fabs.f32", "float", [f"float {x}"])
    h = _half_exp(b, a)
    large = _with_sign_of(b, b.f("fsub", h, b.f("fdiv", b.fc(0.25), h)), x)
    small = b(f"fcmp ole float {a}, {b.fc(1.0)}")
    value = b.select(small, "float", _odd_poly(b, x, _SINH_POLY), large)
    return b.select(b(f"fcmp une float {x}, {x}"), "float", x, value)


def _tanh(b, x):
    # |x| >= 0.625: 1 - 2/(e^(2|x|) + 1) (e^(2|x|) infinite past 44: exactly 1); below, the
    # polynomial (the subtraction would cancel)
    a = b.intrinsic("llvm.fabs.f32", "float", [f"float {x}"])
    e = _exp(b, b.f("fadd", a, a))
    large = b.f("fsub", b.fc(1.0), b.f("fdiv", b.fc(2.0), b.f("fadd", e, b.fc(1.0))))
    small = b(f"fcmp olt float {a}, {b.fc(0.625)}")
    value = b.select(small, "float", _odd_poly(b, x, _TANH_POLY), _with_sign_of(b, large, x))
    return b.select(b(f"fcmp une float {x}, {x}"), "float", x, value)


def _exp2(b, x):
    xc = _clamp(b, x, -151.0, 129.0)
    n = b.intrinsic("llvm.roundeven.f32", "float", [f"float {xc}"])
    f = b.f("fsub", xc, n)                                        # exact, |f| <= 1/2
    r = b.f("fmul", f, b.fc(0.6931471805599453))
    result = _exp_core(b, r, b(f"fptosi float {n} to i32"))
    return b.select(b(f"fcmp une float {x}, {x}"), "float", x, result)


# ------------------------------------------------------------------ log, log2, log10

# Cephes logf: f = m - 1 with m in [sqrt(1/2), sqrt(2)); log(1+f) = f - f^2/2 + f^3 P(f).
_LOG_POLY = (7.0376836292e-2, -1.1514610310e-1, 1.1676998740e-1, -1.2420140846e-1, 1.4249322787e-1,
             -1.6668057665e-1, 2.0000714765e-1, -2.4999993993e-1, 3.3333331174e-1)


def _log_parts(b, x):
    """(f, y, e): log(x) = f + y + e ln 2 for a positive finite x (subnormals scaled by 2^23
    first; e an i32 turned float), with f = m - 1 exact and y = -f^2/2 + f^3 P(f)."""
    tiny = b(f"fcmp olt float {x}, {b.fc(2.0 ** -126)}")
    scaled = b.select(tiny, "float", b.f("fmul", x, b.fc(2.0 ** 23)), x)
    shift = b(f"select i1 {tiny}, i32 -23, i32 0")
    bits = b(f"bitcast float {scaled} to i32")
    e = b(f"sub i32 {b(f'lshr i32 {bits}, 23')}, 127")
    e = b(f"add i32 {e}, {shift}")
    mantissa = b(f"and i32 {bits}, 8388607")
    # m in [1, 2); above sqrt(2) (0x3FB504F3) it is halved (exponent 126) and e grows by one
    big = b(f"icmp ugt i32 {mantissa}, {0x3504F3}")
    exponent_bits = b(f"select i1 {big}, i32 {0x3F000000}, i32 {0x3F800000}")
    m = b(f"bitcast i32 {b(f'or i32 {mantissa}, {exponent_bits}')} to float")
    e = b(f"add i32 {e}, {b(f'zext i1 {big} to i32')}")
    f = b.f("fsub", m, b.fc(1.0))                                  # exact (Sterbenz)
    z = b.f("fmul", f, f)
    y = b.f("fmul", b.f("fmul", b.horner(f, _LOG_POLY), f), z)
    y = b.f("fsub", y, b.f("fmul", z, b.fc(0.5)))
    return f, y, b(f"sitofp i32 {e} to float")


def _log_specials(b, x, value):
    """log's special values (OpenCL C 7.5.1 / C99 F.9.3.7): log(+-0) = -inf, log(x < 0) = NaN,
    log(+inf) = +inf, NaN stays NaN."""
    zero = b(f"fcmp oeq float {x}, {b.fc(0.0)}")
    # the infinities from their bits (no float constant in a select: llc-22)
    minus_inf = b("bitcast i32 -8388608 to float")
    plus_inf = b("bitcast i32 2139095040 to float")
    value = b.select(zero, "float", minus_inf, value)
    is_inf = b(f"fcmp oeq float {x}, {plus_inf}")
    value = b.select(is_inf, "float", x, value)
    negative = b(f"fcmp ult float {x}, {b.fc(0.0)}")              # or NaN
    return b.select(negative, "float", b.f("fsub", plus_inf, plus_inf), value)


def _log(b, x):
    f, y, e = _log_parts(b, x)
    value = b.f("fadd", b.f("fadd", b.f("fmul", e, b.fc(_LN2_LO)), y), f)
    value = b.f("fadd", value, b.f("fmul", e, b.fc(_LN2_HI)))
    return _log_specials(b, x, value)


def _log2(b, x):
    # Cephes log2f: log2(1+f) = (f + y) log2 e with log2 e = 1 + 0.4426950408889634, so the
    # large terms f and y enter unscaled; e is an exact integer added last.
    f, y, e = _log_parts(b, x)
    k = b.fc(0.44269504088896340736)
    value = b.f("fadd", b.f("fmul", y, k), b.f("fmul", f, k))
    value = b.f("fadd", b.f("fadd", value, y), f)
    value = b.f("fadd", value, e)
    return _log_specials(b, x, value)


def _log10(b, x):
    # Cephes log10f: log10 e = 4.3359375e-1 + 7.00731903251827651129e-4 and
    # log10 2 = 3.0078125e-1 + 2.48745663981195213739e-4 (each hi with few bits).
    f, y, e = _log_parts(b, x)
    value = b.f("fmul", y, b.fc(7.00731903251827651129e-4))
    value = b.f("fadd", value, b.f("fmul", f, b.fc(7.00731903251827651129e-4)))
    value = b.f("fadd", value, b.f("fmul", e, b.fc(2.48745663981195213739e-4)))
    value = b.f("fadd", value, b.f("fmul", y, b.fc(4.3359375e-1)))
    value = b.f("fadd", value, b.f("fmul", f, b.fc(4.3359375e-1)))
    value = b.f("fadd", value, b.f("fmul", e, b.fc(3.0078125e-1)))
    return _log_specials(b, x, value)


# ------------------------------------------------------------------ sin, cos

def two_over_pi_words(count=6):
    """floor(2/pi * 2^(32 count)) as `count` 32-bit words, least significant first (pi from
    Machin's formula in integers, 64 guard bits)."""
    bits = 32 * count + 64
    scale = 1 << bits

    def arctan_inverse(n):                       # arctan(1/n) * scale
        total, term, k, sign = 0, scale // n, 1, 1
        while term:
            total += sign * (term // k)
            term //= n * n
            k += 2
            sign = -sign
        return total
    pi = 4 * (4 * arctan_inverse(5) - arctan_inverse(239))          # pi * scale
    value = (2 * scale * scale // pi) >> 64                           # 2/pi * 2^(32 count)
    return [(value >> (32 * i)) & 0xFFFFFFFF for i in range(count)]


_TWO_OVER_PI = two_over_pi_words()
_SIN_POLY = (-1.9515295891e-4, 8.3321608736e-3, -1.6666654611e-1)
_COS_POLY = (2.443315711809948e-5, -1.388731625493765e-3, 4.166664568298827e-2)
_PI_OVER_4_BITS = 0x3F490FDA                   # the float just below pi/4


def _reduce(b, bits):
    """(r, q) for |x| (`bits` its i32 pattern without the sign): |x| = q pi/2 + r, |r| <= pi/4.
    |x| = M 2^(E-23) with a 24-bit M; M * floor(2/pi 2^192) = P, and floor(|x| 2/pi 2^62) mod 2^64
    is P >> (153 - E): two bits of quadrant, 62 of fraction (the truncated table costs < 2^-63)."""
    exponent = b(f"sub i32 {b(f'lshr i32 {bits}, 23')}, 127")
    low = b(f"icmp slt i32 {exponent}, -1")
    exponent = b(f"select i1 {low}, i32 -1, i32 {exponent}")       # below pi/4 the result is unused
    significand = b(f"or i32 {b(f'and i32 {bits}, 8388607')}, 8388608")
    m = b(f"zext i32 {significand} to i64")
    words, carry = [], None
    for w in _TWO_OVER_PI:
        product = b(f"mul i64 {m}, {w}")
        if carry is not None:
            product = b(f"add i64 {product}, {carry}")
        words.append(b(f"and i64 {product}, 4294967295"))
        carry = b(f"lshr i64 {product}, 32")
    words.append(carry)                                              # 7 words: P < 2^216
    shift = b(f"sub i32 153, {exponent}")                            # 26..154
    word = b(f"lshr i32 {shift}, 5")                                 # 0..4
    within = b(f"zext i32 {b(f'and i32 {shift}, 31')} to i64")

    def pick(j):
        value = words[j]
        for k in range(1, 5):
            value = b(f"select i1 {b(f'icmp eq i32 {word}, {k}')}, i64 {words[k + j]}, i64 {value}")
        return value
    lo = b(f"or i64 {b(f'shl i64 {pick(1)}, 32')}, {pick(0)}")
    hi = pick(2)
    low_part = b(f"lshr i64 {lo}, {within}")
    back = b(f"sub i64 64, {within}")
    up = b(f"shl i64 {hi}, {b(f'and i64 {back}, 63')}")
    up = b(f"select i1 {b(f'icmp eq i64 {within}, 0')}, i64 0, i64 {up}")
    value = b(f"or i64 {low_part}, {up}")
    quadrant = b(f"trunc i64 {b(f'lshr i64 {value}, 62')} to i32")
    fraction = b(f"and i64 {value}, {(1 << 62) - 1}")
    upper_half = b(f"icmp uge i64 {fraction}, {1 << 61}")
    fraction = b(f"select i1 {upper_half}, i64 {b(f'sub i64 {fraction}, {1 << 62}')}, i64 {fraction}")
    quadrant = b(f"add i32 {quadrant}, {b(f'zext i1 {upper_half} to i32')}")
    r_wide = b(f"fmul double {b(f'sitofp i64 {fraction} to double')}, {literal('double', 1.5707963267948966 * 2.0 ** -62)}")
    r = b(f"fptrunc double {r_wide} to float")
    small = b(f"icmp ule i32 {bits}, {_PI_OVER_4_BITS}")
    magnitude = b(f"bitcast i32 {bits} to float")
    return b.select(small, "float", magnitude, r), b(f"select i1 {small}, i32 0, i32 {quadrant}")


def _sin_cos_polys(b, r):
    z = b.f("fmul", r, r)
    s = b.f("fadd", b.f("fmul", b.f("fmul", b.horner(z, _SIN_POLY), z), r), r)
    c = b.f("fmul", b.f("fmul", b.horner(z, _COS_POLY), z), z)
    c = b.f("fadd", b.f("fsub", c, b.f("fmul", z, b.fc(0.5))), b.fc(1.0))
    return s, c


def _sin_or_cos(b, x, which):
    xbits = b(f"bitcast float {x} to i32")
    bits = b(f"and i32 {xbits}, 2147483647")
    r, q = _reduce(b, bits)
    s, c = _sin_cos_polys(b, r)
    if which == "sin":                       # sin(q pi/2 + r): s, c, -s, -c; odd in x
        odd = b(f"trunc i32 {q} to i1")
        negate = b(f"icmp ne i32 {b(f'and i32 {q}, 2')}, 0")
        negate = b(f"xor i1 {negate}, {b(f'icmp slt i32 {xbits}, 0')}")
        value = b.select(odd, "float", c, s)
    else:                                    # cos: c, -s, -c, s; even in x
        odd = b(f"trunc i32 {q} to i1")
        next_quadrant = b(f"add i32 {q}, 1")
        negate = b(f"icmp ne i32 {b(f'and i32 {next_quadrant}, 2')}, 0")
        value = b.select(odd, "float", s, c)
    value = b.select(negate, "float", b(f"fneg float {value}"), value)
    finite = b(f"icmp ult i32 {bits}, 2139095040")
    return b.nan_unless(finite, value, x)


# Cephes tanf: |r| <= pi/4.
_TAN_POLY = (9.38540185543e-3, 3.11992232697e-3, 2.44301354525e-2, 5.34112807005e-2, 1.33387994085e-1,
             3.33331568548e-1)


def _tan(b, x):
    """tan(q pi/2 + r) = t(r) for even q, -1/t(r) for odd q (the reciprocal in double: one
    rounding instead of OpFDiv's 2.5 ulp); odd in x."""
    xbits = b(f"bitcast float {x} to i32")
    bits = b(f"and i32 {xbits}, 2147483647")
    r, q = _reduce(b, bits)
    t = _odd_poly(b, r, _TAN_POLY)
    wide = b(f"fpext float {t} to double")
    minus_one = literal("double", -1.0)
    inverse = b(f"fptrunc double {b(f'fdiv double {minus_one}, {wide}')} to float")
    value = b.select(b(f"trunc i32 {q} to i1"), "float", inverse, t)
    value = b.select(b(f"icmp slt i32 {xbits}, 0"), "float", b(f"fneg float {value}"), value)
    return b.nan_unless(b(f"icmp ult i32 {bits}, 2139095040"), value, x)


# ------------------------------------------------------------------ atan, atan2, asin, acos

# Cephes atanf (|r| <= tan(pi/8)) and asinf (z <= 1/4) polynomials.
_ATAN_POLY = (8.05374449538e-2, -1.38776856032e-1, 1.99777106478e-1, -3.33329491539e-1)
_ASIN_POLY = (4.2163199048e-2, 2.4181311049e-2, 4.5470025998e-2, 7.4953002686e-2, 1.6666752422e-1)
_PI_OVER_2 = 1.5707963267948966
_PI = 3.141592653589793


def _atan_of_double(b, a):
    """atan(a), as a double, for a double a >= 0 (+inf included): above tan(3pi/8)
    pi/2 + atan(-1/a), above tan(pi/8) pi/4 + atan((a-1)/(a+1)); the reduced argument in double
    (the divisor within OpFDiv's bound), rounded once to float (|r| <= tan(pi/8)), Cephes' atanf
    polynomial, the multiple of pi/4 added in double (the caller rounds once)."""
    big = b(f"fcmp ogt double {a}, {literal('double', 2.414213562373095)}")
    mid = b(f"fcmp ogt double {a}, {literal('double', 0.41421356237309503)}")
    limit, one, minus_one = literal("double", 2.0 ** 1000), literal("double", 1.0), literal("double", -1.0)
    bounded = b(f"select i1 {b(f'fcmp ogt double {a}, {limit}')}, double {limit}, double {a}")
    inverse = b(f"fdiv double {minus_one}, {bounded}")
    above, below = b(f"fsub double {a}, {one}"), b(f"fadd double {a}, {one}")
    shifted = b(f"fdiv double {above}, {below}")
    reduced = b(f"select i1 {mid}, double {shifted}, double {a}")
    reduced = b(f"select i1 {big}, double {inverse}, double {reduced}")
    r = b(f"fptrunc double {reduced} to float")
    z = b.f("fmul", r, r)
    p = b.f("fadd", b.f("fmul", b.f("fmul", b.horner(z, _ATAN_POLY), z), r), r)
    # 0, pi/4 or pi/2: flags times pi/4 (exact products), added in double (one rounding)
    quarter = literal("double", _PI_OVER_2 / 2)
    turns = b(f"fadd double {b(f'uitofp i1 {mid} to double')}, {b(f'uitofp i1 {big} to double')}")
    base = b(f"fmul double {turns}, {quarter}")
    return b(f"fadd double {base}, {b(f'fpext float {p} to double')}")


def _atan(b, x):
    a = b(f"fpext float {b.intrinsic('llvm.fabs.f32', 'float', [f'float {x}'])} to double")
    value = _with_sign_of(b, b(f"fptrunc double {_atan_of_double(b, a)} to float"), x)
    return b.select(b(f"fcmp une float {x}, {x}"), "float", x, value)


def _atan2(b, y, x):
    """atan2 (OpenCL C 7.5.1, C99 F.9.1.4): atan(|y|/|x|) with the ratio in double (0 for y = 0,
    +inf for x = 0 or y = inf, 1 for both infinite: no division outside OpFDiv's bound), pi
    minus it for a negative x (sign bit: -0 too), then y's sign; NaN for a NaN operand."""
    ax = b.intrinsic("llvm.fabs.f32", "float", [f"float {x}"])
    ay = b.intrinsic("llvm.fabs.f32", "float", [f"float {y}"])
    infinity = b("bitcast i32 2139095040 to float")
    zero = b.fc(0.0)
    x_zero, y_zero = b(f"fcmp oeq float {ax}, {zero}"), b(f"fcmp oeq float {ay}, {zero}")
    x_inf, y_inf = b(f"fcmp oeq float {ax}, {infinity}"), b(f"fcmp oeq float {ay}, {infinity}")
    safe_x = b.select(b(f"or i1 {x_zero}, {x_inf}"), "float", b.fc(1.0), ax)
    ratio = b(f"fdiv double {b(f'fpext float {ay} to double')}, {b(f'fpext float {safe_x} to double')}")
    double_inf = b("bitcast i64 9218868437227405312 to double")
    ratio = b(f"select i1 {x_inf}, double {literal('double', 0.0)}, double {ratio}")
    ratio = b(f"select i1 {b(f'or i1 {x_zero}, {y_inf}')}, double {double_inf}, double {ratio}")
    ratio = b(f"select i1 {b(f'and i1 {x_inf}, {y_inf}')}, double {literal('double', 1.0)}, double {ratio}")
    ratio = b(f"select i1 {y_zero}, double {literal('double', 0.0)}, double {ratio}")
    t = _atan_of_double(b, ratio)
    x_negative = b(f"icmp slt i32 {b(f'bitcast float {x} to i32')}, 0")
    pi = literal("double", _PI)
    t = b(f"select i1 {x_negative}, double {b(f'fsub double {pi}, {t}')}, double {t}")
    value = _with_sign_of(b, b(f"fptrunc double {t} to float"), y)
    nan = b(f"or i1 {b(f'fcmp une float {x}, {x}')}, {b(f'fcmp une float {y}, {y}')}")
    return b.select(nan, "float", b.f("fadd", x, y), value)


def _asin_poly(b, s):
    """asin(s) for 0 <= s <= 1/2: s + s^3 P(s^2) (Cephes asinf)."""
    z = b.f("fmul", s, s)
    return b.f("fadd", b.f("fmul", b.f("fmul", b.horner(z, _ASIN_POLY), z), s), s)


def _sqrt_half_of(b, v):
    """sqrt(v / 2) for a float v in [0, 1], through double (one rounding)."""
    wide = b(f"fmul double {b(f'fpext float {v} to double')}, {literal('double', 0.5)}")
    root = b.intrinsic("llvm.sqrt.f64", "double", [f"double {wide}"])
    return b(f"fptrunc double {root} to float")


def _asin(b, x):
    """|x| <= 1/2: the polynomial; above, pi/2 - 2 asin(sqrt((1 - |x|)/2)) (1 - |x| exact), the
    difference in double; x's sign; NaN beyond 1."""
    a = b.intrinsic("llvm.fabs.f32", "float", [f"float {x}"])
    small = b(f"fcmp ole float {a}, {b.fc(0.5)}")
    far = _asin_poly(b, _sqrt_half_of(b, b.f("fsub", b.fc(1.0), a)))
    twice = b(f"fmul double {b(f'fpext float {far} to double')}, {literal('double', 2.0)}")
    half_pi = literal("double", _PI_OVER_2)
    far = b(f"fptrunc double {b(f'fsub double {half_pi}, {twice}')} to float")
    value = _with_sign_of(b, b.select(small, "float", _asin_poly(b, a), far), x)
    return b.nan_unless(b(f"fcmp ole float {a}, {b.fc(1.0)}"), value, b("bitcast i32 2139095040 to float"))


def _acos(b, x):
    """|x| <= 1/2: pi/2 - asin(x); x > 1/2: 2 asin(sqrt((1 - x)/2)); x < -1/2: pi minus that
    (1 - |x| exact; the last sum in double); NaN beyond 1."""
    a = b.intrinsic("llvm.fabs.f32", "float", [f"float {x}"])
    near = _asin_poly(b, x)
    near = b(f"fsub double {literal('double', _PI_OVER_2)}, {b(f'fpext float {near} to double')}")
    far = _asin_poly(b, _sqrt_half_of(b, b.f("fsub", b.fc(1.0), a)))
    twice = b(f"fmul double {b(f'fpext float {far} to double')}, {literal('double', 2.0)}")
    from_pi = b(f"fsub double {literal('double', _PI)}, {twice}")
    far = b(f"select i1 {b(f'fcmp olt float {x}, {b.fc(0.0)}')}, double {from_pi}, double {twice}")
    value = b(f"select i1 {b(f'fcmp ole float {a}, {b.fc(0.5)}')}, double {near}, double {far}")
    value = b(f"fptrunc double {value} to float")
    return b.nan_unless(b(f"fcmp ole float {a}, {b.fc(1.0)}"), value, b("bitcast i32 2139095040 to float"))


# ------------------------------------------------------------------ log1p, expm1, cbrt, hypot (no GLSL instruction)

_INFINITY_BITS = "bitcast i32 2139095040 to float"


def _log1p(b, x):
    """log(1 + x) in double (1 + x is exact there for |x| >= 2^-24, and log's absolute error
    2^-52 is 2^-28 of x); below 2^-24 the result is x (x^2/2 is under half an ulp); -1 gives
    -inf, below it NaN, +inf stays."""
    a = b.intrinsic("llvm.fabs.f32", "float", [f"float {x}"])
    infinity = b(_INFINITY_BITS)
    usable = b(f"and i1 {b(f'fcmp ogt float {x}, {b.fc(-1.0)}')}, {b(f'fcmp olt float {x}, {infinity}')}")
    safe = b.select(usable, "float", x, b.fc(0.0))
    argument = b(f"fadd double {b(f'fpext float {safe} to double')}, {literal('double', 1.0)}")
    value = b(f"fptrunc double {_log_double(b, argument)} to float")
    value = b.select(b(f"fcmp olt float {a}, {b.fc(2.0 ** -24)}"), "float", x, value)
    value = b.select(b(f"fcmp oeq float {x}, {infinity}"), "float", x, value)
    minus_infinity = b(f"fneg float {infinity}")
    value = b.select(b(f"fcmp oeq float {x}, {b.fc(-1.0)}"), "float", minus_infinity, value)
    return b.nan_unless(b(f"fcmp oge float {x}, {b.fc(-1.0)}"), value, infinity)


def _exp_parts_double(b, wide):
    """(2^n, e^r - 1) with e^d = 2^n (1 + (e^r - 1)) for a double d in [-1000, 1000]: d = n ln2 + r,
    |r| <= ln2/2 (fdlibm's ln2 split: n ln2_hi exact, d - n ln2_hi exact where they are close),
    e^r - 1 by its Taylor series to r^14/14! (below 2^-53 of the sum)."""
    log2_e = literal("double", 1.4426950408889634)
    ln2_hi, ln2_lo = literal("double", 6.93147180369123816490e-01), literal("double", 1.90821492927058770002e-10)
    n = b.intrinsic("llvm.roundeven.f64", "double", [f"double {b(f'fmul double {wide}, {log2_e}')}"])
    r = b(f"fsub double {wide}, {b(f'fmul double {n}, {ln2_hi}')}")
    r = b(f"fsub double {r}, {b(f'fmul double {n}, {ln2_lo}')}")
    coefficients = [1.0]
    for k in range(2, 15):
        coefficients.append(coefficients[-1] / k)                       # 1/k!
    series = b.horner(r, list(reversed(coefficients)), "double")        # 1 + r/2! + ... + r^13/14!
    biased = b(f"add i64 {b(f'fptosi double {n} to i64')}, 1023")
    power = b(f"bitcast i64 {b(f'shl i64 {biased}, 52')} to double")
    return power, b(f"fmul double {series}, {r}")


def _exp_double(b, wide):
    """e^d in double (relative error about 2^-52) for a double d in [-1000, 700]."""
    power, small = _exp_parts_double(b, wide)
    return b(f"fadd double {b(f'fmul double {power}, {small}')}, {power}")


def _expm1(b, x):
    """e^x - 1 in double, 2^n (e^r - 1) + (2^n - 1) (x limited to [-104, 90]): no cancellation
    near 0 (n = 0), one rounding to float; +-0 and NaN are x itself."""
    clamped = _clamp(b, x, -104.0, 90.0)
    power, small = _exp_parts_double(b, b(f"fpext float {clamped} to double"))
    scaled_small = b(f"fmul double {power}, {small}")
    power_less_one = b(f"fsub double {power}, {literal('double', 1.0)}")
    value = b(f"fptrunc double {b(f'fadd double {scaled_small}, {power_less_one}')} to float")
    keep = b(f"or i1 {b(f'fcmp oeq float {x}, {b.fc(0.0)}')}, {b(f'fcmp une float {x}, {x}')}")
    return b.select(keep, "float", x, value)


_TWO_OVER_SQRT_PI = 1.1283791670955126
_ONE_OVER_SQRT_PI = 0.5641895835477563


def _erf_double(b, a):
    """erf(a) in double for a double a in [0, 4]: (2/sqrt(pi)) a e^(-a^2) sum (2a^2)^k / (2k+1)!!
    (positive terms, no cancellation; 60 terms: below 2^-49 of the sum up to a = 4)."""
    square = b(f"fmul double {a}, {a}")
    u = b(f"fmul double {square}, {literal('double', 2.0)}")
    coefficients = [1.0]
    for k in range(1, 60):
        coefficients.append(coefficients[-1] / (2 * k + 1))              # 1/(2k+1)!!
    series = b.horner(u, list(reversed(coefficients)), "double")
    decay = _exp_double(b, b(f"fneg double {square}"))
    scaled = b(f"fmul double {b(f'fmul double {a}, {decay}')}, {series}")
    return b(f"fmul double {scaled}, {literal('double', _TWO_OVER_SQRT_PI)}")


def _erf(b, x):
    """erf through _erf_double on |x| limited to 4 (erf(4) rounds to 1 in float), x's sign."""
    a = b.intrinsic("llvm.fabs.f32", "float", [f"float {x}"])
    limited = b.select(b(f"fcmp olt float {a}, {b.fc(4.0)}"), "float", a, b.fc(4.0))
    value = b(f"fptrunc double {_erf_double(b, b(f'fpext float {limited} to double'))} to float")
    value = _with_sign_of(b, value, x)
    return b.select(b(f"fcmp une float {x}, {x}"), "float", x, value)


def _erfc(b, x):
    """erfc: below 2, 1 - erf(x) in double (erfc(2) = 0.0047: the double erf's error is 2^-42
    of it); from 2, Laplace's continued fraction e^(-x^2) / (sqrt(pi) (x + (1/2)/(x + 1/(x + ...))))
    with 30 levels (2^-37 at x = 2, better beyond), x limited to 11 (erfc(11) is 0 in float);
    NaN stays."""
    a = b.intrinsic("llvm.fabs.f32", "float", [f"float {x}"])
    limited = b.select(b(f"fcmp olt float {a}, {b.fc(4.0)}"), "float", a, b.fc(4.0))
    erf = _erf_double(b, b(f"fpext float {limited} to double"))
    negative = b(f"fcmp olt float {x}, {b.fc(0.0)}")
    erf = b(f"select i1 {negative}, double {b(f'fneg double {erf}')}, double {erf}")
    near = b(f"fsub double {literal('double', 1.0)}, {erf}")
    far_x = b.select(b(f"fcmp olt float {x}, {b.fc(11.0)}"), "float", x, b.fc(11.0))
    far_x = b.select(b(f"fcmp ogt float {far_x}, {b.fc(2.0)}"), "float", far_x, b.fc(2.0))
    wide = b(f"fpext float {far_x} to double")
    fraction = wide
    for k in range(30, 0, -1):
        numerator = literal("double", k / 2)
        quotient = b(f"fdiv double {numerator}, {fraction}")
        fraction = b(f"fadd double {wide}, {quotient}")
    decay = _exp_double(b, b(f"fneg double {b(f'fmul double {wide}, {wide}')}"))
    scaled = b(f"fmul double {decay}, {literal('double', _ONE_OVER_SQRT_PI)}")
    far = b(f"fdiv double {scaled}, {fraction}")
    value = b(f"select i1 {b(f'fcmp olt float {x}, {b.fc(2.0)}')}, double {near}, double {far}")
    value = b(f"fptrunc double {value} to float")
    return b.select(b(f"fcmp une float {x}, {x}"), "float", x, value)


def _cbrt(b, x):
    """The cube root in double: a first guess from the exponent (the bits of |x| as a double,
    divided by 3 plus a constant: within 4%), four Newton steps y - (y^3 - a)/(3y^2) (quadratic:
    4% -> 1e-3 -> 1e-6 -> 1e-12 -> 1e-24), one rounding to float; x's sign; +-0, +-inf and NaN
    are x itself."""
    a = b.intrinsic("llvm.fabs.f32", "float", [f"float {x}"])
    infinity = b(_INFINITY_BITS)
    special = b(f"or i1 {b(f'fcmp oeq float {a}, {b.fc(0.0)}')}, {b(f'fcmp ueq float {a}, {infinity}')}")
    safe = b.select(special, "float", b.fc(1.0), a)
    wide = b(f"fpext float {safe} to double")
    bits = b(f"bitcast double {wide} to i64")
    guess_bits = b(f"add i64 {b(f'udiv i64 {bits}, 3')}, {0x2A9F7893782DA1CE}")
    y = b(f"bitcast i64 {guess_bits} to double")
    three = literal("double", 3.0)
    for _ in range(4):
        cube = b(f"fmul double {b(f'fmul double {y}, {y}')}, {y}")
        slope = b(f"fmul double {b(f'fmul double {y}, {y}')}, {three}")
        step = b(f"fdiv double {b(f'fsub double {cube}, {wide}')}, {slope}")
        y = b(f"fsub double {y}, {step}")
    value = _with_sign_of(b, b(f"fptrunc double {y} to float"), x)
    return b.select(special, "float", x, value)


def _hypot(b, x, y):
    """sqrt(x^2 + y^2) in double (both squares exact, one rounding of the sum, the root rounded
    once to float); an infinite operand gives +inf even with a NaN (C99 F.9.4.3)."""
    wx, wy = b(f"fpext float {x} to double"), b(f"fpext float {y} to double")
    total = b(f"fadd double {b(f'fmul double {wx}, {wx}')}, {b(f'fmul double {wy}, {wy}')}")
    value = b(f"fptrunc double {b.intrinsic('llvm.sqrt.f64', 'double', [f'double {total}'])} to float")
    infinity = b(_INFINITY_BITS)
    ax = b.intrinsic("llvm.fabs.f32", "float", [f"float {x}"])
    ay = b.intrinsic("llvm.fabs.f32", "float", [f"float {y}"])
    infinite = b(f"or i1 {b(f'fcmp oeq float {ax}, {infinity}')}, {b(f'fcmp oeq float {ay}, {infinity}')}")
    return b.select(infinite, "float", infinity, value)


# ------------------------------------------------------------------ pow, powr

def _log_parts_double(b, d):
    """(log m, e as a double) with d = m 2^e for a positive finite normal double d, m in
    [sqrt(1/2), sqrt(2)): log(m) = 2 atanh(s), s = (m - 1)/(m + 1), |s| <= 0.1716, the series to
    s^19 (the next term is below 2^-52 of the sum): about 2^-50 relative."""
    bits = b(f"bitcast double {d} to i64")
    e = b(f"sub i64 {b(f'lshr i64 {bits}, 52')}, 1023")
    mantissa = b(f"and i64 {bits}, {(1 << 52) - 1}")
    big = b(f"icmp ugt i64 {mantissa}, {0x6A09E667F3BCD}")                 # m > sqrt(2): halved
    exponent_bits = b(f"select i1 {big}, i64 {0x3FE0000000000000}, i64 {0x3FF0000000000000}")
    m = b(f"bitcast i64 {b(f'or i64 {mantissa}, {exponent_bits}')} to double")
    e = b(f"add i64 {e}, {b(f'zext i1 {big} to i64')}")
    one = literal("double", 1.0)
    s = b(f"fdiv double {b(f'fsub double {m}, {one}')}, {b(f'fadd double {m}, {one}')}")
    z = b(f"fmul double {s}, {s}")
    series = b.horner(z, [1.0 / k for k in range(19, 0, -2)], "double")     # 1 + z/3 + ... + z^9/19
    log_m = b(f"fmul double {b(f'fmul double {series}, {s}')}, {literal('double', 2.0)}")
    return log_m, b(f"sitofp i64 {e} to double")


def _log2_double(b, a):
    """log2 of a positive finite float in double (a subnormal float is a normal double)."""
    log_m, e = _log_parts_double(b, b(f"fpext float {a} to double"))
    log2_m = b(f"fmul double {log_m}, {literal('double', 1.4426950408889634)}")
    return b(f"fadd double {log2_m}, {e}")


def _log_double(b, d):
    """log of a positive finite normal double, in double (fdlibm's ln2 split: e ln2_hi exact)."""
    log_m, e = _log_parts_double(b, d)
    ln2_hi, ln2_lo = literal("double", 6.93147180369123816490e-01), literal("double", 1.90821492927058770002e-10)
    low = b(f"fadd double {b(f'fmul double {e}, {ln2_lo}')}, {log_m}")
    return b(f"fadd double {b(f'fmul double {e}, {ln2_hi}')}, {low}")


# ------------------------------------------------------------------ asinh, acosh, atanh

def _inverse_hyperbolic(b, x, which):
    """asinh = log(a + sqrt(a^2 + 1)), acosh = log(x + sqrt(x^2 - 1)), atanh = log((1 + a)/(1 - a))/2
    with a = |x|, each argument and logarithm in double (a^2 and 1 +- a exact; one rounding to
    float at the end); below 2^-12 asinh and atanh are their argument (the cubic term is under
    half an ulp); infinities, 1 and the domain edges explicitly (no division outside OpFDiv's
    bound, no logarithm of an infinity)."""
    a = b.intrinsic("llvm.fabs.f32", "float", [f"float {x}"])
    infinity = b("bitcast i32 2139095040 to float")
    finite = b(f"fcmp one float {a}, {infinity}")
    bounded = b.select(finite, "float", a, b.fc(1.0))          # keeps the logarithm's argument finite
    wide = b(f"fpext float {bounded} to double")
    one, half = literal("double", 1.0), literal("double", 0.5)
    if which == "atanh":
        below_one = b(f"fcmp olt float {a}, {b.fc(1.0)}")
        denominator = b(f"select i1 {below_one}, double {b(f'fsub double {one}, {wide}')}, double {one}")
        argument = b(f"fdiv double {b(f'fadd double {one}, {wide}')}, {denominator}")
        log = b(f"fmul double {_log_double(b, argument)}, {half}")
    else:
        square = b(f"fmul double {wide}, {wide}")
        inside = b(f"{'fadd' if which == 'asinh' else 'fsub'} double {square}, {one}")
        root = b.intrinsic("llvm.sqrt.f64", "double", [f"double {inside}"])
        log = _log_double(b, b(f"fadd double {wide}, {root}"))
    value = b(f"fptrunc double {log} to float")
    if which != "acosh":
        value = b.select(b(f"fcmp olt float {a}, {b.fc(2.0 ** -12)}"), "float", a, value)
    if which == "atanh":
        value = b.select(b(f"fcmp oeq float {a}, {b.fc(1.0)}"), "float", infinity, value)
        value = b.nan_unless(b(f"fcmp ole float {a}, {b.fc(1.0)}"), value, infinity)
    else:
        value = b.select(finite, "float", value, infinity)
    if which == "acosh":
        return b.nan_unless(b(f"fcmp oge float {x}, {b.fc(1.0)}"), value, infinity)
    value = _with_sign_of(b, value, x)
    return b.select(b(f"fcmp une float {x}, {x}"), "float", x, value)


def _log2_magnitude(b, a):
    """log2 of a = |x| in double, zero and infinity included (as -inf and +inf)."""
    log2_a = _log2_double(b, a)
    zero = b(f"fcmp oeq float {a}, {b.fc(0.0)}")
    infinite = b(f"fcmp oeq float {a}, {b('bitcast i32 2139095040 to float')}")
    log2_a = b(f"select i1 {zero}, double {b('bitcast i64 -4503599627370496 to double')}, double {log2_a}")
    return b(f"select i1 {infinite}, double {b('bitcast i64 9218868437227405312 to double')}, double {log2_a}")


def _pow_magnitude(b, a, y):
    """|x|^y for a = |x| and a double y (zero and infinity included: y log2 a is then +-inf
    and the result 0 or infinity), through 2^(y log2 a) in double."""
    return _exp2_of_double(b, b(f"fmul double {y}, {_log2_magnitude(b, a)}"))


def _pow(b, x, y):
    """pow with C99 F.9.4.4's special values (OpenCL C 7.5.1): pow(x, +-0) = 1 and pow(1, y) = 1
    even for NaN, pow(-1, +-inf) = 1; a negative x takes an integer y (the sign from an odd y)
    and gives NaN for a finite non-integer y; +-0 and +-inf follow from the magnitude and the
    sign rule."""
    a = b.intrinsic("llvm.fabs.f32", "float", [f"float {x}"])
    ay = b.intrinsic("llvm.fabs.f32", "float", [f"float {y}"])
    infinity = b("bitcast i32 2139095040 to float")
    value = _pow_magnitude(b, a, b(f"fpext float {y} to double"))
    truncated = b.intrinsic("llvm.trunc.f32", "float", [f"float {y}"])
    integer = b(f"fcmp oeq float {truncated}, {y}")                  # infinities too
    small = b(f"fcmp olt float {ay}, {b.fc(2.0 ** 24)}")            # floats from 2^24 up are even
    y_small = b.select(small, "float", y, b.fc(0.0))
    odd = b(f"trunc i32 {b(f'fptosi float {y_small} to i32')} to i1")
    odd = b(f"and i1 {odd}, {integer}")
    negative = b(f"icmp slt i32 {b(f'bitcast float {x} to i32')}, 0")
    value = b.select(b(f"and i1 {odd}, {negative}"), "float", b(f"fneg float {value}"), value)
    nonzero = b(f"fcmp one float {a}, {b.fc(0.0)}")
    finite_nonzero = b(f"and i1 {nonzero}, {b(f'fcmp one float {a}, {infinity}')}")
    not_integer = b(f"xor i1 {integer}, true")
    invalid = b(f"and i1 {b(f'and i1 {negative}, {finite_nonzero}')}, {not_integer}")
    invalid = b(f"or i1 {invalid}, {b(f'fcmp une float {x}, {x}')}")
    invalid = b(f"or i1 {invalid}, {b(f'fcmp une float {y}, {y}')}")
    value = b.nan_unless(b(f"xor i1 {invalid}, true"), value, infinity)
    unit = b(f"or i1 {b(f'fcmp oeq float {ay}, {b.fc(0.0)}')}, {b(f'fcmp oeq float {x}, {b.fc(1.0)}')}")
    minus_one = b(f"and i1 {b(f'fcmp oeq float {x}, {b.fc(-1.0)}')}, {b(f'fcmp oeq float {ay}, {infinity}')}")
    return b.select(b(f"or i1 {unit}, {minus_one}"), "float", b.fc(1.0), value)


def _powr(b, x, y):
    """powr (OpenCL C 7.5.1: x >= 0): NaN for x < 0, a NaN operand, powr(+-0, +-0),
    powr(+inf, +-0) and powr(1, +-inf); otherwise 2^(y log2 x), which gives powr(1, y) = 1,
    powr(+-0, y) and powr(+inf, y) by itself."""
    a = b.intrinsic("llvm.fabs.f32", "float", [f"float {x}"])
    ay = b.intrinsic("llvm.fabs.f32", "float", [f"float {y}"])
    infinity = b("bitcast i32 2139095040 to float")
    value = _pow_magnitude(b, a, b(f"fpext float {y} to double"))
    y_zero = b(f"fcmp oeq float {ay}, {b.fc(0.0)}")
    invalid = b(f"fcmp ult float {x}, {b.fc(0.0)}")                   # or NaN
    invalid = b(f"or i1 {invalid}, {b(f'fcmp une float {y}, {y}')}")
    edge = b(f"or i1 {b(f'fcmp oeq float {a}, {b.fc(0.0)}')}, {b(f'fcmp oeq float {a}, {infinity}')}")
    invalid = b(f"or i1 {invalid}, {b(f'and i1 {edge}, {y_zero}')}")
    one_inf = b(f"and i1 {b(f'fcmp oeq float {x}, {b.fc(1.0)}')}, {b(f'fcmp oeq float {ay}, {infinity}')}")
    invalid = b(f"or i1 {invalid}, {one_inf}")
    return b.nan_unless(b(f"xor i1 {invalid}, true"), value, infinity)


# ------------------------------------------------------------------ ldexp, pown, rootn (an int operand)

def _ldexp(b, x, n):
    """x 2^n: in double (n limited to [-400, 400], beyond which the float result is 0 or
    infinity either way; 2^n and the product exact there), one rounding to float (only a
    subnormal or overflowing result rounds)."""
    n = b(f"select i1 {b(f'icmp sgt i32 {n}, 400')}, i32 400, i32 {n}")
    n = b(f"select i1 {b(f'icmp slt i32 {n}, -400')}, i32 -400, i32 {n}")
    biased = b(f"add i64 {b(f'sext i32 {n} to i64')}, 1023")
    power = b(f"bitcast i64 {b(f'shl i64 {biased}, 52')} to double")
    wide = b(f"fpext float {x} to double")
    return b(f"fptrunc double {b(f'fmul double {wide}, {power}')} to float")


def _pown(b, x, n):
    """x^n for an int n (OpenCL C 7.5.1): 2^(n log2|x|) in double (n exact there), the sign of
    x for an odd n (from the integer: a float n from 2^24 up would lose its parity); pown(x, 0)
    = 1 even for NaN; +-0 and +-inf follow from the magnitude."""
    a = b.intrinsic("llvm.fabs.f32", "float", [f"float {x}"])
    value = _pow_magnitude(b, a, b(f"sitofp i32 {n} to double"))
    odd = b(f"trunc i32 {n} to i1")
    negative = b(f"icmp slt i32 {b(f'bitcast float {x} to i32')}, 0")
    value = b.select(b(f"and i1 {odd}, {negative}"), "float", b(f"fneg float {value}"), value)
    value = b.select(b(f"fcmp une float {x}, {x}"), "float", x, value)
    return b.select(b(f"icmp eq i32 {n}, 0"), "float", b.fc(1.0), value)


def _rootn(b, x, n):
    """x^(1/n) (OpenCL C 7.5.1): 2^(log2|x| / n) in double; x's sign for an odd n; NaN for
    n = 0, for x < 0 with an even n, and for a NaN x; +-0 and +-inf follow from the magnitude."""
    a = b.intrinsic("llvm.fabs.f32", "float", [f"float {x}"])
    zero_n = b(f"icmp eq i32 {n}, 0")
    divisor = b(f"sitofp i32 {b(f'select i1 {zero_n}, i32 1, i32 {n}')} to double")
    t = b(f"fdiv double {_log2_magnitude(b, a)}, {divisor}")
    value = _exp2_of_double(b, t)
    odd = b(f"trunc i32 {n} to i1")
    negative = b(f"icmp slt i32 {b(f'bitcast float {x} to i32')}, 0")
    value = b.select(b(f"and i1 {odd}, {negative}"), "float", b(f"fneg float {value}"), value)
    even = b(f"xor i1 {odd}, true")
    below_zero = b(f"fcmp olt float {x}, {b.fc(0.0)}")
    invalid = b(f"or i1 {zero_n}, {b(f'and i1 {even}, {below_zero}')}")
    invalid = b(f"or i1 {invalid}, {b(f'fcmp une float {x}, {x}')}")
    return b.nan_unless(b(f"xor i1 {invalid}, true"), value, b(_INFINITY_BITS))


# ------------------------------------------------------------------ division

def _fdiv(b, x, y):
    """x / y with Vulkan's 2.5 ulp in force: |y| in [2^-126, 2^126] (Vulkan spec, precision of
    OpFDiv). Outside, both are scaled by the same power of two: 1/4 for a large y (x/4 loses
    bits only where the quotient is below 2^-250, i.e. zero), 2^24 for a subnormal y (x 2^24
    overflows only where the quotient does)."""
    a = b.intrinsic("llvm.fabs.f32", "float", [f"float {y}"])
    big = b(f"uitofp i1 {b(f'fcmp ogt float {a}, {b.fc(2.0 ** 126)}')} to float")
    tiny = b(f"uitofp i1 {b(f'fcmp olt float {a}, {b.fc(2.0 ** -126)}')} to float")
    # 1, 1/4 or 2^24 without a select of float constants: 1 - 3/4 big + (2^24 - 1) tiny (exact)
    scale = b.f("fadd", b.f("fadd", b.fc(1.0), b.f("fmul", big, b.fc(-0.75))),
                b.f("fmul", tiny, b.fc(2.0 ** 24 - 1)))
    return b.f("fdiv", b.f("fmul", x, scale), b.f("fmul", y, scale))


# ------------------------------------------------------------------ fmod

_FMOD_FORMATS = {"float": ("i32", 32, 23, 127), "double": ("i64", 64, 52, 1023)}


def _fmod(b, x, y, t):
    """fmod(x, y) exactly (OpenCL C 7.5.1: x - y trunc(x/y), which IEEE 754 represents exactly).
    |x| = mx 2^ex', |y| = my 2^ey' (integer significands, subnormals without the implicit
    bit); the remainder is mx mod my, then (r << k) mod my for the exponent difference, k bits
    at a time so that r << k fits 64 bits; the result r 2^ey' is exact in the type."""
    it, width, mbits, bias = _FMOD_FORMATS[t]
    step = 63 - (mbits + 1)                                  # r < 2^(mbits+1): r << step fits
    sign_mask, inf_bits = 1 << (width - 1), ((1 << (width - mbits - 1)) - 1) << mbits
    ux, uy = b(f"bitcast {t} {x} to {it}"), b(f"bitcast {t} {y} to {it}")
    sign = b(f"and {it} {ux}, {-sign_mask}")
    ax, ay = b(f"and {it} {ux}, {sign_mask - 1}"), b(f"and {it} {uy}, {sign_mask - 1}")

    def parts(a):
        e = b(f"lshr {it} {a}, {mbits}")
        normal = b(f"icmp ne {it} {e}, 0")
        frac = b(f"and {it} {a}, {(1 << mbits) - 1}")
        m = b(f"select i1 {normal}, {it} {b(f'or {it} {frac}, {1 << mbits}')}, {it} {frac}")
        e = b(f"select i1 {normal}, {it} {e}, {it} 1")
        return (m, e) if it == "i64" else (b(f"zext i32 {m} to i64"), b(f"zext i32 {e} to i64"))
    mx, ex = parts(ax)
    my, ey = parts(ay)
    my_safe = b(f"select i1 {b(f'icmp eq i64 {my}, 0')}, i64 1, i64 {my}")   # y = 0 is NaN below
    start = b(f"urem i64 {mx}, {my_safe}")
    distance = b(f"sub i64 {ex}, {ey}")
    b.raw("br label %loop")
    b.label("loop")
    b.raw(f"%d = phi i64 [ {distance}, %entry ], [ %d.next, %step ]")
    b.raw(f"%r = phi i64 [ {start}, %entry ], [ %r.next, %step ]")
    b.raw("%more = icmp sgt i64 %d, 0")
    b.raw("br i1 %more, label %step, label %done")
    b.label("step")
    b.raw(f"%long = icmp sgt i64 %d, {step}")
    b.raw(f"%k = select i1 %long, i64 {step}, i64 %d")
    b.raw("%shifted = shl i64 %r, %k")
    b.raw(f"%r.next = urem i64 %shifted, {my_safe}")
    b.raw("%d.next = sub i64 %d, %k")
    b.raw("br label %loop")
    b.label("done")
    # r 2^(ey - bias - mbits): r 2^-mbits is exact and normal, then 2^(ey - bias) (normal)
    r = b(f"uitofp i64 %r to {t}")
    r = b(f"fmul {t} {r}, {literal(t, 2.0 ** -mbits)}")
    scale_exponent = b(f"shl i64 {ey}, {mbits}")
    scale = b(f"bitcast {it} {scale_exponent if it == 'i64' else b(f'trunc i64 {scale_exponent} to i32')} to {t}")
    magnitude = b(f"fmul {t} {r}, {scale}")
    magnitude_bits = b(f"bitcast {t} {magnitude} to {it}")
    result = b(f"bitcast {it} {b(f'or {it} {magnitude_bits}, {sign}')} to {t}")
    # |x| < |y| (x = +-0 and y = +-inf included): x; |x| = |y|: +-0 with x's sign
    result = b(f"select i1 {b(f'icmp ult {it} {ax}, {ay}')}, {t} {x}, {t} {result}")
    result = b(f"select i1 {b(f'icmp eq {it} {ax}, {ay}')}, {t} {b(f'bitcast {it} {sign} to {t}')}, {t} {result}")
    # y = 0, y NaN, x infinite or NaN: NaN
    invalid = b(f"or i1 {b(f'icmp eq {it} {ay}, 0')}, {b(f'icmp ugt {it} {ay}, {inf_bits}')}")
    invalid = b(f"or i1 {invalid}, {b(f'icmp uge {it} {ax}, {inf_bits}')}")
    nan = b(f"bitcast {it} {inf_bits | (1 << (mbits - 1))} to {t}")
    return b.select(invalid, t, nan, result)


# ------------------------------------------------------------------ definitions

_UNARY = {"exp": _exp, "exp2": _exp2, "exp10": _exp10, "log": _log, "log2": _log2, "log10": _log10,
          "sinh": _sinh, "cosh": _cosh, "tanh": _tanh, "tan": lambda b, x: _tan(b, x), "atan": _atan,
          "asin": _asin, "acos": _acos, "asinh": lambda b, x: _inverse_hyperbolic(b, x, "asinh"),
          "acosh": lambda b, x: _inverse_hyperbolic(b, x, "acosh"),
          "atanh": lambda b, x: _inverse_hyperbolic(b, x, "atanh"),
          "sin": lambda b, x: _sin_or_cos(b, x, "sin"), "cos": lambda b, x: _sin_or_cos(b, x, "cos"),
          "log1p": _log1p, "expm1": _expm1, "cbrt": _cbrt, "erf": _erf, "erfc": _erfc}


def _parameters(kind, t):
    """The (type, name) parameters of `kind` on the scalar type t."""
    if kind in INT_OPERAND:
        return [(t, "%x"), ("i32", "%n")]
    return [(t, "%x"), (t, "%y")][:2 if kind in BINARY else 1]


def _scalar_definition(kind, name, t):
    """(define text, declarations) of the scalar function `name` of type t."""
    b = Builder()
    params = _parameters(kind, t)
    if t == "half":                          # through float: one final rounding
        wide = [(p_type, b(f"fpext half {p} to float") if p_type == "half" else p) for p_type, p in params]
        inner = f"{name}.float"
        arguments = ", ".join(f"{'float' if p_type == 'half' else p_type} {w}" for p_type, w in wide)
        value = b(f"call spir_func float @{inner}({arguments})")
        b.raw(f"%r = fptrunc float {value} to half")
        body, declarations = _scalar_definition(kind, inner, "float")
        return _define(name, t, params, ["entry:"] + b.lines + ["  ret half %r"]) + "\n" + body, declarations
    b.label("entry")
    if kind == "fmod":
        result = _fmod(b, "%x", "%y", t)
    elif kind in ("pow", "powr", "atan2", "hypot"):
        result = {"pow": _pow, "powr": _powr, "atan2": _atan2, "hypot": _hypot}[kind](b, "%x", "%y")
    elif kind in INT_OPERAND:
        result = {"ldexp": _ldexp, "pown": _pown, "rootn": _rootn}[kind](b, "%x", "%n")
    elif kind == DIVISION:
        result = _fdiv(b, "%x", "%y")
    else:
        result = _UNARY[kind](b, "%x")
    b.raw(f"ret {t} {result}")
    return _define(name, t, params, b.lines), b.declarations


def _define(name, t, params, lines):
    """`params`: (type, name) pairs."""
    return (f"define internal spir_func {t} @{name}({', '.join(f'{p_type} {p}' for p_type, p in params)}) alwaysinline {{\n"
            + "\n".join(lines) + "\n}")


def supports(kind, scalar):
    """Whether a sequence exists for `kind` on the scalar type `scalar`."""
    if kind == "fmod":
        return scalar in ("half", "float", "double")
    return scalar in ("half", "float")


def componentwise(scalar, vector, element, params):
    """The body of a vector function that calls `scalar` on each component of its parameters
    (`params`: (type, name) pairs; a scalar parameter is passed to every call as it is) and
    returns the vector of the results (`element` the scalar result type)."""
    count = int(vector[1:].split(" x ")[0])
    lines, value = [], "poison"
    for k in range(count):
        arguments = []
        for p_type, p in params:
            if p_type.startswith("<"):
                lines.append(f"  {p}.{k} = extractelement {p_type} {p}, i32 {k}")
                arguments.append(f"{p_type[1:-1].split(' x ')[1]} {p}.{k}")
            else:
                arguments.append(f"{p_type} {p}")
        lines += [f"  %r.{k} = call spir_func {element} @{scalar}({', '.join(arguments)})",
                  f"  %v.{k} = insertelement {vector} {value}, {element} %r.{k}, i32 {k}"]
        value = f"%v.{k}"
    return lines + [f"  ret {vector} {value}"]


def definition(kind, name, type_text, second=None):
    """(definitions text, declarations) of `name`: the sequence `kind` on `type_text` (a scalar
    or a vector, component by component). `second`: the IR type of an INT_OPERAND kind's int
    operand (i32, or a vector of i32 for a vector type_text)."""
    if not type_text.startswith("<"):
        return _scalar_definition(kind, name, type_text)
    scalar = type_text[1:-1].split(" x ")[1]
    body, declarations = _scalar_definition(kind, f"{name}.scalar", scalar)
    params = [(type_text if p_type == scalar else (second or p_type), p) for p_type, p in _parameters(kind, scalar)]
    lines = componentwise(f"{name}.scalar", type_text, scalar, params)
    return _define(name, type_text, params, lines) + "\n" + body, declarations


# ------------------------------------------------------------------ fp8 conversions (bit code)

_FLOAT_TOKENS = {"FP16": "half", "FP32": "float", "FP64": "double"}


def _power_of_two_double(b, exponent_i64):
    """The double 2^e for a normal e, from its bits."""
    biased = b(f"add i64 {exponent_i64}, 1023")
    return b(f"bitcast i64 {b(f'shl i64 {biased}, 52')} to double")


def _fp8_decode(b, fmt, value):
    """The exact double of fp8 bits (clcoop/float8.py formats): significand times a power of
    two, the specials and the sign put together as bits (no float constant in a select)."""
    m, top = fmt.mantissa_bits, (1 << fmt.exponent_bits) - 1
    u = b(f"zext i8 {value} to i64")
    e = b(f"and i64 {b(f'lshr i64 {u}, {m}')}, {top}")
    f = b(f"and i64 {u}, {(1 << m) - 1}")
    normal = b(f"icmp ne i64 {e}, 0")
    significand = b(f"or i64 {f}, {b(f'select i1 {normal}, i64 {1 << m}, i64 0')}")
    exponent = b(f"select i1 {normal}, i64 {e}, i64 1")
    scale = _power_of_two_double(b, b(f"sub i64 {exponent}, {fmt.bias + m}"))
    magnitude = b(f"fmul double {b(f'uitofp i64 {significand} to double')}, {scale}")
    bits = b(f"bitcast double {magnitude} to i64")
    at_top = b(f"icmp eq i64 {e}, {top}")
    if fmt.has_infinity:                                 # E5M2: IEEE 754 specials
        infinite = b(f"and i1 {at_top}, {b(f'icmp eq i64 {f}, 0')}")
        nan = b(f"and i1 {at_top}, {b(f'icmp ne i64 {f}, 0')}")
        bits = b(f"select i1 {infinite}, i64 {0x7FF0000000000000}, i64 {bits}")
    else:                                                # E4M3: only S.1111.111 is NaN
        nan = b(f"and i1 {at_top}, {b(f'icmp eq i64 {f}, {(1 << m) - 1}')}")
    bits = b(f"select i1 {nan}, i64 {0x7FF8000000000000}, i64 {bits}")
    sign = b(f"shl i64 {b(f'lshr i64 {u}, 7')}, 63")
    return b(f"bitcast i64 {b(f'or i64 {bits}, {sign}')} to double")


def _fp8_encode(b, fmt, saturate, d):
    """fp8 bits of a double: one round-to-nearest-even of |d| at the quantum of its binade
    (2^(max(e, emin) - m)), the pattern (e - emin) 2^m + n (a carry into the next binade gives
    the next pattern by itself); past the largest finite value NaN (E4M3) or infinity (E5M2),
    or the largest finite with saturation.

    Integer code only: the rounding works on the double's significand bits (_round_shifted),
    not on GLSL.std.450 RoundEven, which Vulkan defines exact but lavapipe computes wrong for
    doubles on hosts without AVX-512 (ties toward zero; docs/vulkan.md "fp8")."""
    m, emin = fmt.mantissa_bits, fmt.min_exponent
    overflow = fmt.max_bits if saturate else (fmt.nan_bits if not fmt.has_infinity else 0x7C)
    dbits = b(f"bitcast double {d} to i64")
    sign = b(f"select i1 {b(f'icmp slt i64 {dbits}, 0')}, i8 -128, i8 0")
    abits = b(f"and i64 {dbits}, {(1 << 63) - 1}")
    nan = b(f"icmp ugt i64 {abits}, {0x7FF0000000000000}")
    infinite = b(f"icmp eq i64 {abits}, {0x7FF0000000000000}")
    # |d| = significand 2^(e0 - 52): the hidden bit for a normal double, e0 = 1 - 1023 for a
    # subnormal one (IEEE 754 3.4)
    field = b(f"lshr i64 {abits}, 52")
    normal = b(f"icmp ne i64 {field}, 0")
    hidden = b(f"select i1 {normal}, i64 {1 << 52}, i64 0")
    significand = b(f"or i64 {b(f'and i64 {abits}, {(1 << 52) - 1}')}, {hidden}")
    e0 = b(f"sub i64 {b(f'select i1 {normal}, i64 {field}, i64 1')}, 1023")
    e = b(f"select i1 {b(f'icmp slt i64 {e0}, {emin}')}, i64 {emin}, i64 {e0}")
    # the quantum 2^(e - m) is 2^shift units of the significand, shift >= 52 - m
    shift = b(f"sub i64 {b(f'add i64 {e}, {52 - m}')}, {e0}")
    count = _round_shifted(b, significand, shift)
    binade = b(f"sub i64 {e}, {emin}")
    pattern = b(f"add i64 {b(f'shl i64 {binade}, {m}')}, {count}")
    over = b(f"or i1 {infinite}, {b(f'icmp ugt i64 {pattern}, {fmt.max_bits}')}")
    pattern = b(f"trunc i64 {pattern} to i8")
    pattern = b(f"select i1 {over}, i8 {overflow}, i8 {pattern}")
    pattern = b(f"select i1 {nan}, i8 {fmt.nan_bits}, i8 {pattern}")
    return b(f"or i8 {pattern}, {sign}")


def _round_shifted(b, value, shift):
    """value / 2^shift rounded to nearest, ties to even, for an i64 value < 2^53 and a shift
    >= 1: the quotient plus one when the remainder is above half, or half with an odd
    quotient. A shift of 63 and more is 63 (Vulkan leaves a shift by the width undefined);
    half is then 2^62, above every value, so the result is 0 as it must be."""
    shift = b(f"select i1 {b(f'icmp ugt i64 {shift}, 63')}, i64 63, i64 {shift}")
    quotient = b(f"lshr i64 {value}, {shift}")
    unit = b(f"shl i64 1, {shift}")
    rest = b(f"and i64 {value}, {b(f'sub i64 {unit}, 1')}")
    half = b(f"lshr i64 {unit}, 1")
    odd = b(f"icmp ne i64 {b(f'and i64 {quotient}, 1')}, 0")
    tie_up = b(f"and i1 {b(f'icmp eq i64 {rest}, {half}')}, {odd}")
    up = b(f"or i1 {b(f'icmp ugt i64 {rest}, {half}')}, {tie_up}")
    return b(f"add i64 {quotient}, {b(f'zext i1 {up} to i64')}")


def _to_integer(b, d, ret, signed):
    """The C conversion of an exact double to an integer type, saturating and NaN -> 0 (the
    engines' one float -> int rule, llvm.fpto[su]i.sat)."""
    bits = int(ret[1:])
    low, high = (-(1 << (bits - 1)), (1 << (bits - 1)) - 1) if signed else (0, (1 << bits) - 1)
    for op, bound in (("olt", low), ("ogt", high)):
        limit = literal("double", float(bound))
        d = b(f"select i1 {b(f'fcmp {op} double {d}, {limit}')}, double {limit}, double {d}")
    result = b(f"{'fptosi' if signed else 'fptoui'} double {d} to {ret}")
    nan = b(f"fcmp une double {d}, {d}")
    return b(f"select i1 {nan}, {ret} 0, {ret} {result}")


def float8_conversion(name, conversion, ret, param):
    """(define text, declarations) of one scalar fp8 conversion callee (clcoop/float8.py's
    `__builtin_spirv_[Clamp]Convert<S>To<D>EXT/INTEL`), bit for bit as the interpreter's
    clcoop/interp/float8.py, through a double (which holds every fp8 value and every source
    exactly, but integers beyond 2^53, which are past every fp8 range either way). None for
    what it does not take (bf16, vectors)."""
    if "BF16" in (conversion.source, conversion.target) or ret.startswith("<") or param.startswith("<"):
        return None
    b = Builder()
    b.label("entry")
    source = conversion.source
    if source in float8.BY_TOKEN:
        d = _fp8_decode(b, float8.BY_TOKEN[source], "%x")
    elif source == "FP64":
        d = "%x"
    elif source in _FLOAT_TOKENS:
        d = b(f"fpext {param} %x to double")
    else:
        d = b(f"{'sitofp' if source[0] == 'I' else 'uitofp'} {param} %x to double")
    target = conversion.target
    if target in float8.BY_TOKEN:
        result = _fp8_encode(b, float8.BY_TOKEN[target], conversion.saturate, d)
    elif target == "FP64":
        result = d
    elif target in _FLOAT_TOKENS:
        result = b(f"fptrunc double {d} to {ret}")                  # exact: the type holds it
    else:
        result = _to_integer(b, d, ret, target[0] == "I")
    b.raw(f"ret {ret} {result}")
    text = (f"define internal spir_func {ret} @{name}({param} %x) alwaysinline {{\n" + "\n".join(b.lines) + "\n}")
    return text, b.declarations
