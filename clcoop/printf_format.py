"""The OpenCL C printf format grammar (OpenCL C 3.0 6.15.14.2), one for the compiler and the
interpreter: the checker warns about a conversion the interpreter would refuse, with the
interpreter's words (frontend/builtin_calls.py), and the interpreter parses the format it
prints with (interp/printf.py).

    %[flags][width][.precision][vector][length]conversion

Length modifiers are OpenCL's only: hh, h, l, and hl (with a vector specifier). C's ll, L,
j, z, t (and q) are not in OpenCL C's grammar: clang-22 accepts them in OpenCL (its C
grammar; -Wformat then only compares types), but a conversion with them has no defined
meaning in OpenCL C, so clcoop warns when compiling and faults when running it.
"""
from functools import lru_cache

from clcoop.records import record

FLAGS = "-+ #0"
INT_CONVERSIONS = "diouxXc"
FLOAT_CONVERSIONS = "fFeEgGaA"
CONVERSIONS = INT_CONVERSIONS + FLOAT_CONVERSIONS + "sp"
LENGTH_BITS = {"hh": 8, "h": 16, "hl": 32, "l": 64}
VECTOR_SIZES = (2, 3, 4, 8, 16)
# C99 7.19.6.1 length modifiers (and BSD's q) that OpenCL C's grammar does not have; they are
# recognized so that the message names them.
NOT_OPENCL_LENGTHS = ("ll", "L", "j", "z", "t", "q")
_LENGTHS = ("hh", "hl", "h", "ll", "l", "L", "j", "z", "t", "q")     # longest match first


class PrintfError(Exception):
    """A format the OpenCL C printf grammar rejects (the message names the problem)."""


@record(frozen=True)
class Spec:
    """One conversion specification. width/precision: None, an int, or '*'."""
    text: str
    flags: str
    width: object
    precision: object
    vector: int         # 0: a scalar conversion
    length: str         # '', 'hh', 'h', 'hl', 'l'
    conv: str


@record(frozen=True)
class Conversion:
    """A '%' of a format, as scan() finds it: characters [start, end) of the format; `spec` is
    None for '%%' and for a rejected conversion (then `error` says why, and `arguments` is
    how many data arguments it would take)."""
    start: int
    end: int
    spec: Spec | None
    error: str | None = None
    arguments: int = 0


def scan(fmt):
    """Every '%' conversion of the format string `fmt` (str), in order; never raises."""
    found = []
    i = fmt.find("%")
    while i >= 0:
        conversion = _parse_spec(fmt, i)
        found.append(conversion)
        i = fmt.find("%", conversion.end)
    return found


@lru_cache(maxsize=256)
def parse_format(fmt):
    """bytes -> tuple of literal bytes and Spec (a '%%' is the literal b'%'); PrintfError at
    the first conversion the grammar rejects."""
    text = fmt.decode("latin-1")        # one character per byte: offsets are byte offsets
    items = []
    literal = ""
    position = 0
    for conversion in scan(text):
        if conversion.error is not None:
            raise PrintfError(conversion.error)
        literal += text[position:conversion.start]
        position = conversion.end
        if conversion.spec is None:
            literal += "%"
            continue
        if literal:
            items.append(literal.encode("latin-1"))
            literal = ""
        items.append(conversion.spec)
    literal += text[position:]
    if literal:
        items.append(literal.encode("latin-1"))
    return tuple(items)


def _parse_spec(fmt, start):
    """The Conversion of the '%' at fmt[start]."""
    i, n = start + 1, len(fmt)
    flags = ""
    while i < n and fmt[i] in FLAGS:
        flags += fmt[i]
        i += 1
    width, i = _parse_amount(fmt, i)
    precision = None
    if i < n and fmt[i] == ".":
        precision, i = _parse_amount(fmt, i + 1)
        precision = 0 if precision is None else precision
    arguments = 1 + (width == "*") + (precision == "*")
    vector = 0
    if i < n and fmt[i] == "v":
        j = i + 1
        while j < n and fmt[j].isdigit() and fmt[j].isascii():
            j += 1
        vector = int(fmt[i + 1:j]) if j > i + 1 else 0
        if vector not in VECTOR_SIZES:
            return Conversion(start, min(j + 1, n), None,
                              f"invalid vector specifier in '{fmt[start:j + 1]}': it must be v2, v3, v4, "
                              f"v8 or v16", arguments)
        i = j
    length = next((cand for cand in _LENGTHS if fmt.startswith(cand, i)), "")
    i += len(length)
    if i >= n:
        return Conversion(start, n, None, f"incomplete conversion specification '{fmt[start:]}' at the end "
                                          f"of the format string")
    conv = fmt[i]
    text = fmt[start:i + 1]

    def rejected(message):
        return Conversion(start, i + 1, None, message, arguments)

    if conv == "%" and not vector and not length:
        return Conversion(start, i + 1, None)
    if conv not in CONVERSIONS:
        return rejected(f"unknown conversion specifier '{conv}' in '{text}'")
    if length in NOT_OPENCL_LENGTHS:
        return rejected(f"length modifier '{length}' in '{text}' is not supported by OpenCL C printf"
                        + (" (use 'l' for long)" if length == "ll" else ""))
    if vector and conv in "csp":
        return rejected(f"a vector specifier cannot be used with %{conv} ('{text}')")
    if length == "hl" and not vector:
        return rejected(f"length modifier 'hl' in '{text}' is only valid with a vector specifier "
                        f"(e.g. %v4hlf)")
    if length and conv in "sp":
        return rejected(f"length modifier '{length}' cannot be used with %{conv} ('{text}')")
    return Conversion(start, i + 1, Spec(text, flags, width, precision, vector, length, conv),
                      arguments=arguments)


def _parse_amount(fmt, i):
    if i < len(fmt) and fmt[i] == "*":
        return "*", i + 1
    j = i
    while j < len(fmt) and fmt[j].isdigit() and fmt[j].isascii():
        j += 1
    return (int(fmt[i:j]) if j > i else None), j
