"""IR rewrites before llc-22, for constructs it lowers to SPIR-V that spirv-val rejects.

Each is an LLVM bug that clang-22's IR hits as well (the lit test of each says how); the IR is
changed to an equal computation llc lowers correctly, so the Kernel module is valid:
- any/all (`_Z3anyi`, `_Z3allDv4_i`, ...): llc emits OpAny/OpAll of the integer argument
  (a scalar, or an integer vector), where they take a bool vector ("Expected operand to be
  vector bool"); they become definitions (OpenCL C 3.0 6.15.9: 1 when the sign bit of x, of
  any/all components of x, is set).
- ldexp(gentype x, int k) with a vector x: llc passes the scalar k to OpenCL.std ldexp, which
  needs as many components as x; a definition splats k and calls the vector-exponent overload.
- `zext (trunc X to iM) to iN` with X wider than iN: llc folds the pair into an OpBitwiseAnd
  of X itself with iN's type ("Expected operands to have the same bit width as Result
  Type"); the zext becomes `and (trunc X to iN), 2^M-1`.

Interface: `work_around_llc(ir_text) -> ir_text`.
"""
import re

from clcoop.coop_names import SPIRV_PREFIX

_INT_TYPE = r"(?:i\d+|<\d+ x i\d+>)"


def work_around_llc(ir_text):
    """All the rewrites of this module, in turn."""
    return narrow_zext_of_trunc(split_vector_ldexp(define_any_all(ir_text)))


def _declaration(mangled_pattern):
    """A `declare` line of a function whose mangled name matches; group 'name' is that name."""
    return re.compile(rf"^declare [^\n@]*@(?P<name>{mangled_pattern})\([^\n]*$", re.M)


def _replace_declaration(ir_text, match, definition):
    """The declaration at `match` replaced by `definition` (a new name), every call renamed."""
    old, new = match.group("name"), _defined_name(definition)
    text = ir_text[:match.start()] + definition + ir_text[match.end():]
    return text.replace(f"@{old}(", f"@{new}(")


def _defined_name(definition):
    return re.search(r"@([\w.]+)\(", definition).group(1)


# any/all of OpenCL C 6.15.9 (the signed integer types char, short, int, long, and their vectors).
_ANY_ALL = _declaration(r"_Z3(?P<op>any|all)(?:Dv(?P<n>\d+)_)?(?P<code>[csil])")
_INT_IR_TYPE = {"c": "i8", "s": "i16", "i": "i32", "l": "i64"}


def define_any_all(ir_text):
    """Each declared any/all becomes `@__clcoop.<op>.<type>`: the sign bit of x, as int; of a
    vector, the sign bits through `__spirv_Any`/`__spirv_All` of a bool vector (what OpAny and
    OpAll take, and what llc-22 lowers them from correctly)."""
    while (m := _ANY_ALL.search(ir_text)) is not None:
        op, n, element = m.group("op"), m.group("n"), _INT_IR_TYPE[m.group("code")]
        ty = element if n is None else f"<{n} x {element}>"
        name = f"{op}.{element}" if n is None else f"{op}.v{n}{element}"
        lines = [f"define internal spir_func i32 @__clcoop.{name}({ty} %x) {{"]
        if n is None:
            lines.append(f"  %sign.set = icmp slt {ty} %x, 0")
        else:
            spirv = f"_Z11{SPIRV_PREFIX}{op.capitalize()}Dv{n}_b"
            lines += [f"  %signs = icmp slt {ty} %x, zeroinitializer",
                      f"  %sign.set = call spir_func i1 @{spirv}(<{n} x i1> %signs)"]
        lines += ["  %result = zext i1 %sign.set to i32", "  ret i32 %result", "}"]
        if n is not None and f"@{spirv}(" not in ir_text:
            lines += ["", f"declare spir_func i1 @{spirv}(<{n} x i1>)"]
        ir_text = _replace_declaration(ir_text, m, "\n".join(lines))
    return ir_text


# ldexp(floatn/doublen/halfn, int): `_Z5ldexpDv2_fi`; the vector-exponent overload is
# `_Z5ldexpDv2_fDv2_i` (the second vector type is spelled out: it is not the first one).
_VECTOR_LDEXP = _declaration(r"_Z5ldexpDv(?P<n>\d+)_(?P<code>f|d|Dh)i")
_FLOAT_IR_TYPE = {"f": "float", "d": "double", "Dh": "half"}


def split_vector_ldexp(ir_text):
    """Each declared ldexp(vector, int) becomes `@__clcoop.ldexp.v<n><type>`: the exponent
    splatted, then the vector-exponent ldexp (declared once)."""
    while (m := _VECTOR_LDEXP.search(ir_text)) is not None:
        n, code = m.group("n"), m.group("code")
        vec, ivec = f"<{n} x {_FLOAT_IR_TYPE[code]}>", f"<{n} x i32>"
        callee = f"_Z5ldexpDv{n}_{code}Dv{n}_i"
        definition = (f"define internal spir_func {vec} @__clcoop.ldexp.v{n}{_FLOAT_IR_TYPE[code]}"
                      f"({vec} %x, i32 %k) {{\n"
                      f"  %k.first = insertelement {ivec} poison, i32 %k, i64 0\n"
                      f"  %k.all = shufflevector {ivec} %k.first, {ivec} poison, {ivec} zeroinitializer\n"
                      f"  %result = call spir_func {vec} @{callee}({vec} %x, {ivec} %k.all)\n"
                      f"  ret {vec} %result\n}}")
        if not re.search(rf"^declare [^\n@]*@{callee}\(", ir_text, re.M):
            definition += f"\n\ndeclare spir_func {vec} @{callee}({vec}, {ivec})"
        ir_text = _replace_declaration(ir_text, m, definition)
    return ir_text


# `%t = trunc [nuw] [nsw] <src> X to <mid>` and `%z = zext [nneg] <mid> %t to <dst>`; X is a
# value or an integer literal (a constant expression is left alone: its own "to" would confuse
# the pattern, and neither clcoop nor clang writes one here).
_VALUE = r'%[-\w.$]+|%"[^"]+"'
_TRUNC = re.compile(rf"^\s*(?P<name>{_VALUE}) = trunc (?:nuw |nsw )*(?P<src>{_INT_TYPE}) "
                    rf"(?P<operand>{_VALUE}|-?\d+) to (?P<mid>{_INT_TYPE})(?:,|$)")
_ZEXT = re.compile(rf"^(?P<indent>\s*)(?P<name>{_VALUE}) = zext (?:nneg )?(?P<mid>{_INT_TYPE}) "
                   rf"(?P<operand>{_VALUE}) to (?P<dst>{_INT_TYPE})(?P<rest>(?:,.*)?)$")


def _element_bits(int_type):
    return int(re.search(r"i(\d+)>?$", int_type).group(1))


def _lanes(int_type):
    m = re.match(r"<(\d+) x ", int_type)
    return int(m.group(1)) if m else None


def _mask_constant(dst, mid_bits):
    """The constant 2^mid_bits - 1 of type `dst` (a splat for a vector)."""
    element = f"i{_element_bits(dst)}"
    mask = (1 << mid_bits) - 1
    lanes = _lanes(dst)
    return str(mask) if lanes is None else "<" + ", ".join([f"{element} {mask}"] * lanes) + ">"


def narrow_zext_of_trunc(ir_text):
    """`%z = zext <mid> %t to <dst>` of `%t = trunc <src> X to <mid>` where src is wider than
    dst -> `%__clcoop.narrow.N = trunc <src> X to <dst>` and `%z = and <dst> ..., 2^mid - 1`.
    Names are local to a function: the truncations are collected function by function (all of
    a function's first, as a block may come after the blocks it dominates)."""
    lines = ir_text.split("\n")
    starts = [i for i, line in enumerate(lines) if line.startswith("define ")] + [len(lines)]
    counter = 0
    for start, end in zip(starts, starts[1:]):
        truncs = {t.group("name"): t for t in map(_TRUNC.match, lines[start:end]) if t is not None}
        for index in range(start, end) if truncs else ():
            z = _ZEXT.match(lines[index])
            t = truncs.get(z.group("operand")) if z is not None else None
            if t is None or _element_bits(t.group("src")) <= _element_bits(z.group("dst")):
                continue
            counter += 1
            lines[index] = _and_of_narrower_trunc(z, t, f"%__clcoop.narrow.{counter}")
    return "\n".join(lines)


def _and_of_narrower_trunc(z, t, narrow):
    indent, dst, rest = z.group("indent"), z.group("dst"), z.group("rest")
    mask = _mask_constant(dst, _element_bits(z.group("mid")))
    return (f"{indent}{narrow} = trunc {t.group('src')} {t.group('operand')} to {dst}{rest}\n"
            f"{indent}{z.group('name')} = and {dst} {narrow}, {mask}{rest}")
