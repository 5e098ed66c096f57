"""fp8 (SPV_EXT_float8): the two formats, their OpenCL C and IR spellings, and the names of
the scalar conversions. Pure data and functions, imported by the frontend, the interpreter,
the native engine and the SPIR-V rewrite (docs/coopmat2-semantics.md "fp8").

- OpenCL C: `__fp8_e4m3` and `__fp8_e5m2` (clang's style for extended types, `__bf16`,
  `__mfp8`: reserved identifiers, so no user typedef can clash; GLSL's floate4m3_t would be an
  ordinary identifier in C). Itanium: vendor extended types, `u10__fp8_e4m3`.
- IR: a scalar is an `i8` holding the bits (LLVM has no 8-bit float type); a matrix component
  is the inline SPIR-V type `target("spirv.Type", target("spirv.Literal", 8),
  target("spirv.Literal", <FPEncoding>), 22, 1, 1)` (OpTypeFloat 8 <encoding>), which llc-22
  writes as OpTypeFloat 8 Float8E4M3EXT / Float8E5M2EXT, so an fp8 matrix type differs from
  a char matrix type in the IR itself.
- Conversions are calls: `__builtin_spirv_Convert<S>To<D>EXT` and, saturating,
  `__builtin_spirv_ClampConvert<S>To<D>INTEL`: the SPIRV-LLVM-Translator's names for the
  half and bf16 conversions, the same pattern for the other types (FP32, FP64, I8..I64,
  U8..U64). An fp8 parameter is mangled `c` (an i8), as the translator does.
"""
import math
import re

from clcoop.records import record

EXTENSION = "SPV_EXT_float8"
CAPABILITY_FLOAT8 = 4212                  # Float8EXT
CAPABILITY_FLOAT8_MATRIX = 4213           # Float8CooperativeMatrixEXT
DECORATION_SATURATED = 4216               # SaturatedToLargestFloat8NormalConversionEXT
OP_TYPE_FLOAT = 22


@record(frozen=True)
class Format:
    name: str           # OpenCL C spelling
    token: str          # in conversion callee names: "E4M3"
    encoding: int       # SPIR-V FP Encoding (SPV_EXT_float8 3.51)
    exponent_bits: int
    mantissa_bits: int
    bias: int
    max_finite: float
    has_infinity: bool
    numpy_name: str     # the ml_dtypes dtype of host arrays

    @property
    def itanium(self):
        return f"u{len(self.name)}{self.name}"

    @property
    def ir_type(self):
        """The IR text of this format as a matrix component (OpTypeFloat 8 <encoding>)."""
        return (f'target("spirv.Type", target("spirv.Literal", 8), target("spirv.Literal", '
                f'{self.encoding}), {OP_TYPE_FLOAT}, 1, 1)')

    @property
    def min_exponent(self):
        return 1 - self.bias

    @property
    def nan_bits(self):
        """The canonical positive NaN: S.1111.111 for E4M3 (its only NaN), the quiet
        S.11111.10 for E5M2 (as ml_dtypes and IEEE narrowing produce)."""
        return 0x7F if not self.has_infinity else 0x7E

    @property
    def max_bits(self):
        return 0x7E if not self.has_infinity else 0x7B


# "FP8 Formats for Deep Learning" (arXiv 2209.05433): E4M3 has no infinity and one NaN per
# sign; E5M2 follows IEEE 754 (infinities, NaNs).
E4M3 = Format("__fp8_e4m3", "E4M3", 4214, 4, 3, 7, 448.0, False, "float8_e4m3fn")
E5M2 = Format("__fp8_e5m2", "E5M2", 4215, 5, 2, 15, 57344.0, True, "float8_e5m2")
FORMATS = {f.name: f for f in (E4M3, E5M2)}
BY_TOKEN = {f.token: f for f in FORMATS.values()}
BY_ENCODING = {f.encoding: f for f in FORMATS.values()}
BY_ITANIUM = {f.itanium: f for f in FORMATS.values()}
BY_IR_TYPE = {f.ir_type: f for f in FORMATS.values()}

# An fp8 component type anywhere in IR text (group: the encoding).
IR_TYPE_PATTERN = (r'target\s*\(\s*"spirv\.Type"\s*,\s*target\s*\(\s*"spirv\.Literal"\s*,\s*8\s*\)'
                   r'\s*,\s*target\s*\(\s*"spirv\.Literal"\s*,\s*(?:4214|4215)\s*\)\s*,\s*22\s*,'
                   r'\s*1\s*,\s*1\s*\)')
_IR_TYPE_RE = re.compile(r'^\s*target\s*\(\s*"spirv\.Type"\s*,\s*target\s*\(\s*"spirv\.Literal"\s*,'
                         r'\s*8\s*\)\s*,\s*target\s*\(\s*"spirv\.Literal"\s*,\s*(\d+)\s*\)\s*,\s*22'
                         r'\s*,\s*1\s*,\s*1\s*\)\s*$')


def format_of_ir_type(text):
    """The Format an IR component type text names, or None."""
    m = _IR_TYPE_RE.match(text)
    return BY_ENCODING.get(int(m.group(1))) if m else None


# ---------------------------------------------------------------- conversion callees

# Tokens of the other types in conversion names, by (kind, bits, signed).
OTHER_TOKENS = {("float", 16, "half"): "FP16", ("float", 16, "bfloat"): "BF16",
                ("float", 32, None): "FP32", ("float", 64, None): "FP64"}
INTEGER_TOKENS = {(bits, signed): ("I" if signed else "U") + str(bits)
                  for bits in (8, 16, 32, 64) for signed in (True, False)}
_TOKEN = r"E4M3|E5M2|FP16|BF16|FP32|FP64|[IU](?:8|16|32|64)"
_CALLEE_RE = re.compile(rf"^__builtin_spirv_(Clamp)?Convert({_TOKEN})To({_TOKEN})(EXT|INTEL)$")


@record(frozen=True)
class Conversion:
    source: str          # token
    target: str          # token
    saturate: bool

    @property
    def base(self):
        if self.saturate:
            return f"__builtin_spirv_ClampConvert{self.source}To{self.target}INTEL"
        return f"__builtin_spirv_Convert{self.source}To{self.target}EXT"

    def mangled(self, param_code):
        """The callee: `_Z<len><base><param code>` (fp8 parameters: `c`)."""
        return f"_Z{len(self.base)}{self.base}{param_code}"


def parse_conversion(base):
    """The Conversion a demangled callee base names, or None. Exactly one side is fp8, or
    both (E4M3 <-> E5M2); saturation only into fp8 (SPV_EXT_float8 3.20)."""
    m = _CALLEE_RE.match(base)
    if not m:
        return None
    clamp, source, target, suffix = m.groups()
    if (suffix == "INTEL") != bool(clamp) or target not in BY_TOKEN and source not in BY_TOKEN:
        return None
    if clamp and target not in BY_TOKEN:
        return None
    return Conversion(source, target, bool(clamp))


# ---------------------------------------------------------------- constants (pure Python)
# The frontend folds conversions of constants with these (clcoop/interp/float8.py is the
# NumPy form; test_fp8 checks both against ml_dtypes).

def encode_value(value, fmt, saturate=False):
    """The fp8 pattern (0..255) of a Python number: one nearest-even rounding, NaN or
    infinity (or the largest finite value with `saturate`) past the range."""
    try:
        x = float(value)
    except OverflowError:                 # an integer beyond a double: out of every range
        x = math.copysign(math.inf, value)
    sign = 0x80 if math.copysign(1.0, x) < 0 else 0
    if math.isnan(x):
        return fmt.nan_bits | sign
    overflow = (fmt.max_bits if saturate else fmt.nan_bits if not fmt.has_infinity else 0x7C) | sign
    if math.isinf(x):
        return overflow
    if x == 0:
        return sign
    exponent = max(math.frexp(abs(x))[1] - 1, fmt.min_exponent)
    quantum = math.ldexp(1.0, exponent - fmt.mantissa_bits)
    steps = round(abs(x) / quantum)       # exact division; round(): ties to even
    if steps * quantum > fmt.max_finite:
        return overflow
    return ((exponent - fmt.min_exponent) << fmt.mantissa_bits) + steps | sign


def decode_bits(bits, fmt):
    """The exact value of an fp8 pattern, as a Python float."""
    bits &= 0xFF
    sign = -1.0 if bits & 0x80 else 1.0
    exponent = (bits >> fmt.mantissa_bits) & ((1 << fmt.exponent_bits) - 1)
    mantissa = bits & ((1 << fmt.mantissa_bits) - 1)
    top = exponent == (1 << fmt.exponent_bits) - 1
    if top and (fmt.has_infinity or mantissa == (1 << fmt.mantissa_bits) - 1):
        return math.copysign(math.nan, sign) if mantissa else sign * math.inf
    if exponent == 0:
        return sign * math.ldexp(mantissa, fmt.min_exponent - fmt.mantissa_bits)
    return sign * math.ldexp(mantissa + (1 << fmt.mantissa_bits), exponent - fmt.bias - fmt.mantissa_bits)

