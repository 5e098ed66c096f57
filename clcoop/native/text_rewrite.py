"""Reading and rewriting LLVM IR text: operand references, names, function types."""
import re

from clcoop.ir.text import split_top_level
from clcoop.native.support import Unsupported
from clcoop.ir.loader import value_kind

_META_RE = re.compile(r",\s*!(?!\{)[\w.]+\s+!\d+")
_ATTR_GROUP_RE = re.compile(r"\s#\d+")


def quote(name):
    return "%" + name if re.fullmatch(r"[-\w.$]+", name) else '%"' + name + '"'


def gquote(name):
    return "@" + name if re.fullmatch(r"[-\w.$]+", name) else '@"' + name + '"'


def typed(v):
    """'<type> <ref>' of an operand."""
    kind = value_kind(v)
    if kind in ("global_variable", "function", "global_alias"):
        return f"{v.type} {gquote(v.name)}"
    if v.is_constant:
        return str(v).strip()
    return f"{v.type} {quote(v.name)}"


def ref(v):
    text = typed(v)
    return text[len(str(v.type)) + 1:]


def clean_ir(text):
    text = _META_RE.sub("", text.strip())
    text = _ATTR_GROUP_RE.sub("", text)
    text = re.sub(r"\b(?:tail|musttail|notail) call\b", "call", text)
    return text.replace(" spir_func ", " ").replace(" spir_kernel ", " ")


def split_function_type(fty):
    """'i32 (i32, ptr)' -> ('i32', ['i32', 'ptr'])."""
    depth = 0
    for i in range(len(fty) - 1, -1, -1):
        c = fty[i]
        if c in ")]}>":
            depth += 1
        elif c in "([{<":
            depth -= 1
            if depth == 0:
                return fty[:i].strip(), split_top_level(fty[i + 1:-1])
    raise Unsupported(f"cannot read the function type {fty}")


def value_id(v):
    import ctypes
    return ctypes.cast(v._ptr, ctypes.c_void_p).value


def find_operand(text, needle, start=0):
    """Index of `needle` in text as a whole operand (followed by ',', ')', ' ' or end)."""
    i = text.find(needle, start)
    while i >= 0:
        end = i + len(needle)
        if end == len(text) or text[end] in ",) ":
            return i
        i = text.find(needle, i + 1)
    return -1


def replace_first(text, needle, new):
    i = find_operand(text, needle)
    if i < 0:
        raise Unsupported(f"cannot rewrite the operand {needle} of: {text}")
    return text[:i] + new + text[i + len(needle):]


def replace_nth(text, needle, new, nth):
    i = find_operand(text, needle)
    for _ in range(nth):
        i = find_operand(text, needle, i + 1)
    if i < 0:
        raise Unsupported(f"cannot rewrite the operand {needle} of: {text}")
    return text[:i] + new + text[i + len(needle):]


def replace_last(text, needle, new, sep_only=False):
    idx, i = -1, find_operand(text, needle)
    while i >= 0:
        idx = i
        i = find_operand(text, needle, i + 1)
    if idx < 0:
        if sep_only:
            # "sdiv i32 %a, %b": the divisor appears untyped after the comma.
            untyped = needle.split(" ", 1)[1] if " " in needle else needle
            new_untyped = new.split(" ", 1)[1]
            j = text.rfind(", " + untyped)
            if j >= 0:
                return text[:j + 2] + new_untyped + text[j + 2 + len(untyped):]
        raise Unsupported(f"cannot rewrite the operand {needle} of: {text}")
    return text[:idx] + new + text[idx + len(needle):]


def declared_name(out, fname, name):
    """'%name in function' of a private variable as the source module declares it: one the
    inliner copied into `fname` (`%t.i`, not there before) is the inlined function's `%t`,
    clang's kernel stub's first (`__clang_ocl_kern_imp_<kernel>`)."""
    m = re.fullmatch(r"(.+)\.i\d*", name)
    if m and name not in out.allocas.get(fname, ()):
        owners = [g for g in out.inlined if m.group(1) in out.allocas.get(g, ())]
        owners.sort(key=lambda g: g != f"__clang_ocl_kern_imp_{fname}")
        if owners:
            return f"{quote(m.group(1))} in {owners[0]}"
    return f"{quote(name)} in {fname}"
