"""Lexing constants (C99 6.4.4, OpenCL C 3.0 6.1.1): integer, floating, character and string
literals and their escapes."""
import math
import re

from clcoop.frontend import tast
from clcoop.frontend import types as T
from clcoop.frontend.check_support import location
from clcoop.frontend.types import wrap_int


# C99 6.4.4.2 floating constants; the suffix is whatever identifier characters follow.
_INT_LITERAL = re.compile(r"(0[xX][0-9a-fA-F]+|0[bB][01]+|0[0-7]*|[1-9][0-9]*)([uUlL]*)")
_FLOAT_LITERAL = re.compile(r"(?P<number>0[xX](?:[0-9a-fA-F]*\.?[0-9a-fA-F]*)[pP][-+]?[0-9]+"
                            r"|(?:[0-9]*\.[0-9]+|[0-9]+\.?)(?:[eE][-+]?[0-9]+)?)(?P<suffix>[A-Za-z0-9_]*)")


# (pycparser's constant kind, spelling) -> (tast class, type, value) of a number whose
# spelling alone gives its type and value without a diagnostic; emptied when large. pocl's
# test_convert_type_16.cl checks ~2,800 integer constants of a few hundred spellings, and
# each took a regular expression, the base's tests and int() (test_check_fast_paths).
_NUMBERS = {}
_NUMBERS_KEPT = 1 << 16
_STRINGS = {}           # a string literal's spelling -> its bytes (string_bytes); emptied when large


def _keep_number(node, made):
    if len(_NUMBERS) >= _NUMBERS_KEPT:
        _NUMBERS.clear()
    _NUMBERS[(node.type, node.value)] = (made.__class__, made.type, made.value)
    return made


class Literals:
    """Turns constant tokens into typed constants (tast.IntConst, FloatConst, StringLiteral).
    ctx: the checker's CheckContext (diagnostics, enabled extensions)."""

    def __init__(self, ctx):
        self.ctx = ctx

    def expr_Constant(self, node):
        kept = _NUMBERS.get((node.type, node.value))
        if kept is not None:
            made, ctype, value = kept
            return made(ctype, location(node), value)
        return self.constant_made(node)

    def constant_made(self, node):
        """expr_Constant without the kept numbers."""
        loc = location(node)
        if node.type == "string":
            # OpenCL C 3.0 6.10: a string literal is in the constant address space; as a value it
            # decays to `constant char *` (char array initializers take init_for_type's path).
            data = self.string_bytes(node) + b"\0"
            return tast.StringLiteral(T.PointerType(T.CHAR, T.CONSTANT), loc, data)
        if node.type == "char":
            return tast.IntConst(T.INT, loc, wrap_int(self.char_value(node), T.CHAR))
        text = node.value
        if node.type in ("float", "double") or self.is_float_literal(text):
            return self.float_literal(text, node)
        return self.int_literal(text, node)

    @staticmethod
    def is_float_literal(text):
        t = text.lower()
        if t.startswith("0x"):
            return "p" in t
        return "." in t or "e" in t or t.endswith("f") and not t.startswith("0x")

    def float_literal(self, text, node):
        loc = location(node)
        m = _FLOAT_LITERAL.fullmatch(text)
        if m is None:
            self.ctx.fail(f"invalid floating constant '{text}'", node)
        number, suffix = m.group("number"), m.group("suffix")
        ftype = {"f": T.FLOAT, "h": T.HALF, "": T.DOUBLE, "l": T.DOUBLE}.get(suffix.lower())
        if ftype is None:
            self.ctx.fail(f"invalid suffix '{suffix}' on floating constant", node)
        if ftype == T.HALF:
            self.ctx.require_fp16("half precision constant requires cl_khr_fp16", node)
        value = _hex_float(number) if number[:2].lower() == "0x" else float(number)
        made = tast.FloatConst(ftype, loc, value)
        # A half constant is checked against the enabled extensions at each use.
        return made if ftype == T.HALF else _keep_number(node, made)

    def int_literal(self, text, node):
        m = _INT_LITERAL.fullmatch(text)
        if m is None:
            self.ctx.fail(f"invalid integer constant '{text}'", node)
        digits, suffix = m.group(1), m.group(2).lower()
        if digits.lower().startswith("0x"):
            value, decimal = int(digits, 16), False
        elif digits.lower().startswith("0b"):
            value, decimal = int(digits[2:], 2), False
        elif len(digits) > 1 and digits.startswith("0"):
            value, decimal = int(digits, 8), False
        else:
            value, decimal = int(digits), True
        unsigned = "u" in suffix
        is_long = "l" in suffix
        # C99 6.4.4.1: the first type of the list that can represent the value.
        if decimal and not unsigned:
            candidates = [T.LONG] if is_long else [T.INT, T.LONG]
        elif unsigned:
            candidates = [T.ULONG] if is_long else [T.UINT, T.ULONG]
        else:
            candidates = [T.LONG, T.ULONG] if is_long else [T.INT, T.UINT, T.LONG, T.ULONG]
        for t in candidates:
            lo = -(1 << (t.bits - 1)) if t.signed else 0
            hi = (1 << (t.bits - 1)) - 1 if t.signed else (1 << t.bits) - 1
            if lo <= value <= hi:
                return _keep_number(node, tast.IntConst(t, location(node), value))
        if value <= (1 << 64) - 1:
            self.ctx.warn("integer literal is too large to be represented in a signed integer type, "
                          "interpreting as unsigned", node)
            return tast.IntConst(T.ULONG, location(node), value)
        self.ctx.fail("integer literal is too large to be represented in any integer type", node)

    def string_bytes(self, node):
        """A string literal's bytes (no NUL), kept per spelling: they depend on it alone, and
        macro-made printf formats repeat (336 string literals of a few dozen spellings in
        pocl's test_bitselect.cl, each unescaped a character at a time)."""
        kept = _STRINGS.get(node.value)
        if kept is None:
            if len(_STRINGS) >= _NUMBERS_KEPT:
                _STRINGS.clear()
            kept = _STRINGS[node.value] = self.string_bytes_made(node)
        return kept

    def string_bytes_made(self, node):
        """string_bytes without the kept spellings."""
        text = node.value
        if text.startswith('"'):
            text = text[1:-1]
        return self.unescape(text, node).encode("latin-1", errors="replace")

    def unescape(self, text, node):
        out = []
        i = 0
        simple = {"n": "\n", "t": "\t", "r": "\r", "0": "\0", "\\": "\\", "'": "'", '"': '"',
                  "a": "\a", "b": "\b", "f": "\f", "v": "\v", "?": "?"}
        while i < len(text):
            c = text[i]
            if c == "\\" and i + 1 < len(text):
                n = text[i + 1]
                if n == "x":
                    m = re.match(r"[0-9a-fA-F]+", text[i + 2:])
                    out.append(chr(int(m.group(0), 16) & 0xFF) if m else "x")
                    i += 2 + (len(m.group(0)) if m else 0)
                    continue
                if n in "01234567":
                    m = re.match(r"[0-7]{1,3}", text[i + 1:])
                    out.append(chr(int(m.group(0), 8) & 0xFF))
                    i += 1 + len(m.group(0))
                    continue
                out.append(simple.get(n, n))
                i += 2
                continue
            out.append(c)
            i += 1
        return "".join(out)

    def char_value(self, node):
        text = node.value
        body = text[text.index("'") + 1:-1]
        chars = self.unescape(body, node)
        if len(chars) != 1:
            self.ctx.fail("multi-character character constants are not supported", node)
        return ord(chars)


def _hex_float(number):
    """A hexadecimal floating constant's value: beyond double's range it is infinite, as
    float() gives a decimal one (clang-22 folds both so; float.fromhex raises instead)."""
    try:
        return float.fromhex(number)
    except OverflowError:
        return math.inf
