"""Itanium demangling of OpenCL C built-in names, as clang mangles them.

`_Z6vload4mPU3AS4Kf` -> ('vload4', [('int', 64, False), ('ptr', 4, ('float', 32))]): the
base name and the parameter types (signedness of integers, pointee types) that the
built-in handlers (ocl_builtins.py, atomics.py) depend on.
"""
import re

from clcoop.ir.loader import Ty
from clcoop.ir.scalars import SCALARS


# One-letter Itanium codes (two-letter ones, Dh and Dv, are read by _Demangler.type).
_BUILTIN_CODES = {code: scalar.as_tuple() for code, scalar in SCALARS.items() if len(code) == 1}


class _Demangler:
    def __init__(self, s):
        self.s, self.i, self.subs = s, 0, []

    def peek(self, n=1):
        return self.s[self.i:self.i + n]

    def number(self):
        m = re.match(r"\d+", self.s[self.i:])
        if not m:
            raise ValueError("number expected")
        self.i += m.end()
        return int(m.group())

    def type(self):
        c = self.peek()
        if c in _BUILTIN_CODES:
            self.i += 1
            return _BUILTIN_CODES[c]
        if self.peek(2) == "Dh":
            self.i += 2
            return ("float", 16)
        if self.peek(2) == "Dv":
            self.i += 2
            n = self.number()
            self.i += 1   # '_'
            t = ("vec", n, self.type())
            self.subs.append(t)
            return t
        if c == "P":
            self.i += 1
            private = self.peek() not in ("K", "V", "r", "U")
            inner = self.type()
            if private:
                # clang's OpenCL pointee is `__private T`, a qualified type whose qualifier
                # mangles to nothing: a candidate of its own (`_Z1fPii12memory_orderS1_`).
                self.subs.append(("qual", 0, inner))
            t = ("ptr", inner[1] if inner[0] == "qual" else 0, _unqual(inner))
            self.subs.append(t)
            return t
        if c == "U" and self.s.startswith("U7_Atomic", self.i):
            # _Atomic(T): a type of its own (clang's mangleType(AtomicType)), one candidate.
            self.i += len("U7_Atomic")
            t = ("qual", 0, _unqual(self.type()))
            self.subs.append(t)
            return t
        if c in "KVrU":
            # <qualifiers> <type> (Itanium ABI 5.1.5.3): the vendor qualifiers (U3AS1) and the
            # CV-qualifiers on one type make one substitution candidate, not one each
            # (`PU3AS1VU7_Atomici...S4_` counts U3AS1V<atomic> once).
            space = 0
            while self.peek() in ("K", "V", "r") or (self.peek() == "U" and not self.s.startswith("U7_Atomic", self.i)):
                if self.peek() == "U":
                    self.i += 1
                    n = self.number()
                    q = self.s[self.i:self.i + n]
                    self.i += n
                    space = int(q[2:]) if q.startswith("AS") else space
                else:
                    self.i += 1
            inner = self.type()
            t = ("qual", space, _unqual(inner))
            self.subs.append(t)
            return t
        if c == "S":
            self.i += 1
            if self.peek() == "_":
                self.i += 1
                return self.subs[0]
            m = re.match(r"[0-9A-Z]+", self.s[self.i:])
            k = int(m.group(), 36) + 1
            self.i += m.end() + 1
            return self.subs[k]
        if c.isdigit():
            n = self.number()
            name = self.s[self.i:self.i + n]
            self.i += n
            t = ("other", name)
            self.subs.append(t)
            return t
        raise ValueError(f"unknown type code {c!r}")


def _unqual(t):
    return t[2] if t[0] == "qual" else t


def demangle(name):
    """'_Z6vload4mPU3AS4Kf' -> ('vload4', [('int', 64, False), ('ptr', 4, ('float', 32))])."""
    m = re.match(r"_Z(\d+)", name)
    if not m:
        return name, None
    n = int(m.group(1))
    base = name[m.end():m.end() + n]
    d = _Demangler(name)
    d.i = m.end() + n
    params = []
    try:
        while d.i < len(name):
            params.append(_unqual(d.type()))
    except (ValueError, IndexError, AttributeError):
        return base, None
    if params == [("void",)]:
        params = []
    return base, params


def signed_param(params, k, default=True):
    if params is None or k >= len(params):
        return default
    p = params[k]
    if p[0] == "vec":
        p = p[2]
    return p[1 + 1] if p[0] == "int" else default


def pointee_type(param, fallback):
    """LLVM-like type (loader.Ty) of a demangled pointer parameter's pointee."""
    if param is None or param[0] != "ptr":
        return fallback
    p = param[2]

    def ty(q):
        if q[0] == "vec":
            return Ty("vec", n=q[1], elem=ty(q[2]))
        return Ty("int", q[1]) if q[0] == "int" else Ty("float", q[1])
    return ty(p)
