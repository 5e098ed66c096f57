"""IR rewrites before llc-22, for constructs it lowers to SPIR-V that spirv-val rejects.

Each is an LLVM bug that clang-22's IR hits as well (the lit test of each says how); the IR is
changed to an equal computation llc lowers correctly, so the Kernel module is valid:
- any/all (`_Z3anyi`, `_Z3allDv4_i`, ...): llc emits OpAny/OpAll of the integer argument
  (a scalar, or an integer vector), where they take a bool vector ("Expected operand to be
  vector bool"); they become definitions (OpenCL C 3.0 6.15.9: 1 when the sign bit of x, of
  any/all components of x, is set).
- ldexp(gentype x, int k) with a vector x: llc passes the scalar k to OpenCL.std ldexp, which
  needs as many components as x; a definition splats k and calls the vector-exponent overload.

Interface: `work_around_llc(ir_text) -> ir_text`.
"""
import re


def work_around_llc(ir_text):
    """All the rewrites of this module, in turn."""
    return split_vector_ldexp(define_any_all(ir_text))


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
            spirv = f"_Z11__spirv_{op.capitalize()}Dv{n}_b"
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
