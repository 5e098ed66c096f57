"""OpenCL C printf (OpenCL C 3.0, 6.15.14) for the interpreter.

clang passes `call i32 (ptr addrspace(2), ...) @printf(fmt, args...)`: float arguments
promoted to double, char/short to int, vectors (for %vN conversions) as vector values,
strings as pointers to NUL-terminated constant arrays. `make_handler` is the built-in
handler (see ocl_builtins.resolve): every active lane, in lane order (= work-item order
within the batch), formats its own arguments as C99 printf does and the text goes to
sys.stdout, flushed after each call; each lane's result is 0.

The rest are plain functions: `parse_format(bytes)` -> literal bytes and `Spec`s (the grammar
the checker uses too: clcoop/printf_format.py), and
`format_values(items, values, types, read_string)` -> bytes for one work-item. Errors
(an unknown conversion, `ll`, too few arguments, an argument of the wrong kind) are
`PrintfError`s, which the handler reports as a RuntimeFault naming the work-item.

Output follows glibc where C leaves a choice: %p prints 0x<hex> ("(nil)" for null; the
value is the interpreter's flat address), %s of a null pointer prints "(null)", NaN with
the sign bit prints "-nan", %a prints normalized 0x1.<hex>p<exp> (subnormals 0x0.<hex>p-1022)
rounded half to even.
"""
import math
import struct
import sys

import numpy as np

from clcoop.interp.lanes import bcast
from clcoop.printf_format import FLOAT_CONVERSIONS as _FLOAT_CONVERSIONS
from clcoop.printf_format import LENGTH_BITS as _LENGTH_BITS
from clcoop.printf_format import PrintfError, parse_format


# ----------------------------------------------------------------------------- formatting

def type_kind(t):
    """('int', bits) | ('float', bits) | ('ptr', 64) | ('vec', n, elem kind) of a loader.Ty."""
    if t.kind == "vec":
        return ("vec", t.n, type_kind(t.elem))
    if t.kind in ("int", "float"):
        return (t.kind, t.bits)
    if t.kind == "ptr":
        return ("ptr", 64)
    return (str(t), 0)


def _type_name(kind):
    if kind[0] == "vec":
        return f"<{kind[1]} x {_type_name(kind[2])}>"
    if kind[0] == "int":
        return f"i{kind[1]}"
    if kind[0] == "float":
        return {16: "half", 32: "float", 64: "double"}.get(kind[1], f"f{kind[1]}")
    return kind[0]


def format_values(items, values, kinds, read_string):
    """One work-item's output (bytes). values[k]: its k-th variadic argument (a NumPy
    scalar, or a 1-D array for a vector), kinds[k] its type_kind; read_string(addr)
    -> bytes for %s."""
    out = bytearray()
    next_arg = 0

    def take(spec, what):
        nonlocal next_arg
        if next_arg >= len(values):
            raise PrintfError(f"too few arguments: no {what} for '{spec.text}' (the call passes "
                              f"{len(values)} after the format)")
        k = next_arg
        next_arg += 1
        return values[k], kinds[k], k + 1

    for item in items:
        if isinstance(item, bytes):
            out += item
            continue
        spec = item
        flags, width, precision = spec.flags, spec.width, spec.precision
        if width == "*":
            width = _star(spec, take(spec, "int argument for the '*' width"))
            if width < 0:
                flags, width = flags + "-", -width
        if precision == "*":
            precision = _star(spec, take(spec, "int argument for the '*' precision"))
            if precision < 0:
                precision = None
        value, kind, position = take(spec, "argument")
        _check_kind(spec, kind, position)
        if spec.vector:
            elem = kind[2]
            parts = [_format_one(spec, flags, width, precision, v, elem, read_string)
                     for v in np.asarray(value).reshape(-1)]
            out += b",".join(parts)
        else:
            out += _format_one(spec, flags, width, precision, value, kind, read_string)
    return bytes(out)


def _star(spec, taken):
    value, kind, position = taken
    if kind[0] != "int":
        raise PrintfError(f"'*' in '{spec.text}' expects an int argument, but argument {position} "
                          f"is {_type_name(kind)}")
    return _wrap(int(value), 32, signed=True)


def _check_kind(spec, kind, position):
    want_vec = spec.vector
    if want_vec:
        if kind[0] != "vec" or kind[1] != want_vec:
            raise PrintfError(f"'{spec.text}' expects a vector of {want_vec} components, but argument "
                              f"{position} is {_type_name(kind)}")
        kind = kind[2]
    elif kind[0] == "vec":
        raise PrintfError(f"argument {position} is a vector ({_type_name(kind)}) but '{spec.text}' "
                          f"has no vector specifier (use %v{kind[1]}...)")
    conv = spec.conv
    ok = (kind[0] == "float" if conv in _FLOAT_CONVERSIONS else
          kind[0] == "ptr" if conv in "sp" else kind[0] in ("int", "ptr"))
    if not ok:
        want = ("a floating-point" if conv in _FLOAT_CONVERSIONS else "a pointer" if conv in "sp"
                else "an integer")
        raise PrintfError(f"'{spec.text}' expects {want} argument, but argument {position} is "
                          f"{_type_name(kind)}")


def _format_one(spec, flags, width, precision, value, kind, read_string):
    conv = spec.conv
    if conv in _FLOAT_CONVERSIONS:
        return format_float(float(value), conv, flags, width, precision)
    if conv == "s":
        addr = int(value)
        text = b"(null)" if addr == 0 else read_string(addr)
        if precision is not None:
            text = text[:precision]
        return _pad(b"", text, width, flags, zero=False)
    if conv == "c":
        return _pad(b"", bytes([int(value) & 0xFF]), width, flags, zero=False)
    if conv == "p":
        addr = int(value) & ((1 << 64) - 1)
        if addr == 0:
            return _pad(b"", b"(nil)", width, flags, zero=False)
        sign = "+" if "+" in flags else " " if " " in flags else ""
        return _pad(f"{sign}0x".encode(), f"{addr:x}".encode(), width, flags, zero=True)
    bits = _LENGTH_BITS.get(spec.length) or (kind[1] if spec.vector else 32)
    return format_int(int(value), bits, conv, flags, width, precision)


def _wrap(v, bits, signed):
    v &= (1 << bits) - 1
    if signed and v >> (bits - 1):
        v -= 1 << bits
    return v


def format_int(value, bits, conv, flags, width, precision):
    """C's %d %i %o %u %x %X of `value` converted to a `bits`-wide integer."""
    signed = conv in "di"
    v = _wrap(value, bits, signed)
    mag = abs(v)
    digits = (f"{mag:o}" if conv == "o" else f"{mag:x}" if conv == "x" else
              f"{mag:X}" if conv == "X" else str(mag))
    if precision is not None:
        digits = "" if precision == 0 and mag == 0 else digits.zfill(precision)
    prefix = ""
    if "#" in flags:
        if conv == "o" and not digits.startswith("0"):
            digits = "0" + digits
        elif conv in "xX" and mag != 0:
            prefix = "0" + conv
    if v < 0:
        prefix = "-" + prefix
    elif signed and "+" in flags:
        prefix = "+" + prefix
    elif signed and " " in flags:
        prefix = " " + prefix
    return _pad(prefix.encode(), digits.encode(), width, flags, zero=precision is None)


def format_float(x, conv, flags, width, precision):
    """C's %f %F %e %E %g %G %a %A of the double x."""
    upper = conv.isupper()
    negative = math.copysign(1.0, x) < 0
    sign = "-" if negative else "+" if "+" in flags else " " if " " in flags else ""
    x = abs(x)
    prefix = sign
    if not math.isfinite(x):
        body = "nan" if math.isnan(x) else "inf"
        return _pad(b"", (sign + (body.upper() if upper else body)).encode(), width, flags, zero=False)
    if conv in "aA":
        body = _hex_float(x, precision, "#" in flags)
        prefix += "0X" if upper else "0x"
        body = body.upper() if upper else body
    else:
        p = 6 if precision is None else precision
        body = (("%#." if "#" in flags else "%.") + str(p) + conv) % x
    return _pad(prefix.encode(), body.encode(), width, flags, zero=True)


def _hex_float(x, precision, alt):
    """The part of C's %a after '0x' for a finite x >= 0, as glibc prints it."""
    bits = struct.unpack("<Q", struct.pack("<d", x))[0]
    field, mant = (bits >> 52) & 0x7FF, bits & ((1 << 52) - 1)
    if x == 0:
        lead, exp = 0, 0
    elif field == 0:
        lead, exp = 0, -1022          # subnormal: 0x0.<hex>p-1022
    else:
        lead, exp = 1, field - 1023
    if precision is None:
        digits = f"{mant:013x}".rstrip("0")
    elif precision >= 13:
        digits = f"{mant:013x}" + "0" * (precision - 13)
    else:
        full = lead << 52 | mant
        shift = 4 * (13 - precision)
        q, r = divmod(full, 1 << shift)
        half = 1 << (shift - 1)
        if r > half or (r == half and q & 1):
            q += 1                        # round half to even, as glibc
        lead, frac = q >> (4 * precision), q & ((1 << (4 * precision)) - 1)
        digits = f"{frac:0{precision}x}" if precision else ""
    point = "." if digits or alt else ""
    return f"{lead:x}{point}{digits}p{'+' if exp >= 0 else '-'}{abs(exp)}"


def _pad(prefix, body, width, flags, zero):
    """prefix (sign, 0x) + body padded to width: left-justified with '-', zeros between
    prefix and body with '0' (when the conversion allows it), else spaces in front."""
    fill = (width or 0) - len(prefix) - len(body)
    if fill <= 0:
        return prefix + body
    if "-" in flags:
        return prefix + body + b" " * fill
    if zero and "0" in flags:
        return prefix + b"0" * fill + body
    return b" " * fill + prefix + body


# ----------------------------------------------------------------------------- the built-in

def read_c_string(memory, addr, what):
    """NUL-terminated bytes at addr in the interpreter's memory; PrintfError if addr is not
    in a buffer or the string runs past the end of its buffer."""
    region = memory.region_at(addr)
    if region is None:
        raise PrintfError(f"{what} is not a valid pointer ({addr:#x}: no buffer there)")
    data = region.data
    start = addr - region.base
    pos = start
    while pos < region.size:
        chunk = data[pos:pos + 256]
        nul = np.flatnonzero(chunk == 0)
        if nul.size:
            return data[start:pos + int(nul[0])].tobytes()
        pos += chunk.size
    raise PrintfError(f"{what} has no terminating NUL before the end of buffer '{region.name}'")


def _quote(fmt):
    text = fmt.decode("utf-8", "replace")
    text = text if len(text) <= 60 else text[:57] + "..."
    return '"' + text.encode("unicode_escape").decode("ascii").replace('"', '\\"') + '"'


def make_handler(base, params, arg_types, ret_ty):
    """Built-in handler for printf (the maker signature of ocl_builtins' table)."""
    kinds = [type_kind(t) for t in arg_types[1:]]

    def h(ex, args, bmask, full, ins):
        L = ex.lane_count
        lanes = np.arange(L) if full else np.flatnonzero(bmask)
        if lanes.size:
            _print_lanes(ex, args, kinds, lanes.tolist())
        return np.zeros(L, np.int32)
    return h


def _print_lanes(ex, args, kinds, lanes):
    L = ex.lane_count
    fmt_ptr = bcast(args[0], L)
    values = [bcast(a, L) for a in args[1:]]
    formats, strings = {}, {}          # each distinct pointer is read once per call

    def read_string(a):
        if a not in strings:
            strings[a] = read_c_string(ex.memory, a, "the %s argument")
        return strings[a]

    out = bytearray()
    for lane in lanes:
        addr = int(fmt_ptr[lane])
        try:
            if addr not in formats:
                if addr == 0:
                    raise PrintfError("the format string is a null pointer")
                formats[addr] = read_c_string(ex.memory, addr, "the format string")
            items = parse_format(formats[addr])
            out += format_values(items, [v[lane] for v in values], kinds, read_string)
        except PrintfError as exc:
            where = f" format {_quote(formats[addr])}" if addr in formats else ""
            ex.fault(f"printf{where}: {exc}", lane=lane)
    if out:
        sys.stdout.write(out.decode("utf-8", "replace"))
        sys.stdout.flush()
