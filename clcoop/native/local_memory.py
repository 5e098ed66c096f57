"""__local memory of one work-group per thread (docs/native.md, "Threads").

A kernel-scope `__local` variable is a global of the module (addrspace 3), one instance
in the engine: two threads running two work-groups at once would share it. Before code
generation, every function's references to such a global become the value of a call
`@__clcoop_local.<name>()` made at its entry, which reads the address of the calling
thread's copy from the region table (each thread has its own table, runtime.py). Constant
expressions built on the global (clang -O2 folds `tmp[128]` into `getelementptr (i8, ptr
addrspace(3) @tmp, i64 512)`) are hoisted into instructions just before their use.
A shape the rewrite does not know (a constant expression in a phi, an arithmetic constant
expression) keeps the module as it was: its __local kernels then run their work-groups one
after the other on one thread, as before.
"""
import re

import llvmlite.ir as ir

from clcoop.native import irbuild
from clcoop.native.context import REGION_LO

PREFIX = "__clcoop_local."
# Constant expressions whose instruction form is `<op> <flags> <contents>`.
_EXPR = re.compile(r"\b(getelementptr|addrspacecast|bitcast|ptrtoint)((?: (?:inbounds|nuw|nusw|"
                   r"inrange\([^)]*\)))*) \(")
_DEFINE = re.compile(r"(?m)^define [^\n]*\{$")
_LABEL = re.compile(r"^(?:[-\w.$]+|\"[^\"]*\"):")
# A thread's __local address (%__lg.K) or an instruction hoisted from a constant
# expression on one (%__lce.K): a constant expression on either becomes an instruction
# too (clang -O0's t[1][1] of a 2-D array nests one GEP constant in another).
_LOCAL_VALUE = re.compile(r"%__l(?:g|ce)\.")


def local_globals(ir):
    """Names of the module's addrspace(3) globals, in the order of the text."""
    names = []
    for m in re.finditer(r"(?m)^@(\"[^\"]*\"|[-\w.$]+) = [^\n]*?addrspace\(3\) (?:global|constant)\b", ir):
        names.append(m.group(1).strip('"'))
    return names


def function_name(gname):
    """The declared function whose call gives the thread's address of __local gname."""
    return PREFIX + gname


def global_of(function):
    """The __local global a call of `function` stands for, or None."""
    return function[len(PREFIX):] if function.startswith(PREFIX) else None


def address_definition(name, slot):
    """The native definition of @name (a function_name): the lower bound of row `slot`
    of the calling thread's region table."""
    local = ir.PointerType(addrspace=3)
    fn, b = irbuild.define(name, local, [(irbuild.PTR, "c")])
    table = b.inttoptr(irbuild.load_slot(b, fn.args[0], "table", "t"), irbuild.PTR, name="tab")
    low = b.load(irbuild.region_word(b, table, slot, REGION_LO, "row"), name="lo", typ=irbuild.I64)
    b.ret(b.inttoptr(low, local, name="p"))
    return irbuild.function_text(fn)


def per_thread(ir):
    """The module text with __local globals reached through the region table, or None
    when the module uses a shape the rewrite does not take (see the module docstring)."""
    names = local_globals(ir)
    if not names:
        return ir
    refs = {n: re.compile(r"@" + (re.escape(n) if re.fullmatch(r"[-\w.$]+", n) else
                                 re.escape('"' + n + '"')) + r"(?![-\w.$])") for n in names}
    out, pos = [], 0
    for m in _DEFINE.finditer(ir):
        end = ir.index("\n}", m.end())
        body = _function_body(ir[m.end():end], refs)
        if body is None:
            return None
        out.append(ir[pos:m.end()])
        out.append(body)
        pos = end
    out.append(ir[pos:])
    decls = "".join(f'\ndeclare ptr addrspace(3) @"{function_name(n)}"()' for n in names)
    return "".join(out) + decls + "\n"


def _function_body(body, refs):
    used = [n for n, pat in refs.items() if pat.search(body)]
    if not used:
        return body
    lines = body.split("\n")
    for i, line in enumerate(lines):
        for k, n in enumerate(used):
            line = refs[n].sub(f"%__lg.{k}", line)
        lines[i] = line
    counter = [0]
    new = []
    for line in lines:
        hoisted = _hoist(line, counter)
        if hoisted is None:
            return None
        new.extend(hoisted)
    # The entry block: after its label when it has one (lines[0] is the rest of the
    # `define` line, empty).
    at = 1
    while at < len(new) and not new[at].strip():
        at += 1
    if at < len(new) and _LABEL.match(new[at].strip()):
        at += 1
    calls = [f'  %__lg.{k} = call ptr addrspace(3) @"{function_name(n)}"()' for k, n in enumerate(used)]
    return "\n".join(new[:at] + calls + new[at:])


def _hoist(line, counter):
    """[hoisted instructions..., the line] with every constant expression on a thread's
    __local address turned into an instruction before it; None when not possible."""
    before = []
    while True:
        expr = _innermost(line)
        if expr is None:
            break
        if re.match(r"\s*%[-\w.$\"]+ = phi ", line):
            return None
        start, end, op, flags, contents = expr
        counter[0] += 1
        name = f"%__lce.{counter[0]}"
        before.append(f"  {name} = {op}{flags} {contents}")
        line = line[:start] + name + line[end:]
    if re.search(r"\((?:[^()]|\([^()]*\))*%__l(?:g|ce)\.", line) and not re.match(r"\s*(?:%[-\w.$\"]+ = )?"
                                                                   r"(?:tail |notail )?call ", line):
        # Still inside parentheses outside a call's argument list: an expression the
        # rewrite does not know.
        return None
    return before + [line]


def _innermost(line):
    """(start, end, op, flags, contents) of the smallest constant expression of `line`
    that mentions a thread's __local address or a value hoisted from one (it holds no
    other such), or None."""
    best = None
    for m in _EXPR.finditer(line):
        depth, i = 1, m.end()
        while i < len(line) and depth:
            depth += {"(": 1, ")": -1}.get(line[i], 0)
            i += 1
        contents = line[m.end():i - 1]
        if _LOCAL_VALUE.search(contents) and (best is None or i - m.start() < best[1] - best[0]):
            best = (m.start(), i, m.group(1), m.group(2), contents)
    return best
