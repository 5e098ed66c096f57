"""LLVM IR text -> a loaded module the interpreter can run.

The IR is parsed and verified by LLVM itself (llvmlite.binding). llvmlite does not
expose everything the interpreter needs (GEP source types, predicates, shuffle masks,
switch case values, global initializers, constant expressions, metadata, and its
TypeKind enum does not know target-extension types), so those details are read from
the textual form of each instruction/type with the small parsers below.
"""
import ctypes
import re
import struct
import subprocess
import sys
from dataclasses import dataclass, field
from functools import cached_property

from clcoop import coop_names, float8
from clcoop.coopmat_spec import MATRIX_TARGET_TYPE, MatrixType, component_of_llvm
from clcoop.errors import IRError
from clcoop.ir import inline_asm
from clcoop.ir import coop_spellings
from clcoop.ir.text import DEFINE_RE, bracketed, llvm_unquote, split_top_level
from clcoop.ir.source_map import read_debug_info
from clcoop.tensor_spec import INLINE_TYPE, INTEGRAL_CONSTANT, TensorType


# ----------------------------------------------------------------------------- types

@dataclass(frozen=True)
class Ty:
    """An LLVM type. kind: void int float ptr vec array struct matrix label metadata token."""
    kind: str
    bits: int = 0              # int/float width
    n: int = 0                 # vector/array length
    elem: "Ty" = None          # vector/array element, matrix component
    fields: tuple = ()         # struct fields
    addrspace: int = 0         # pointers
    packed: bool = False
    text: str = ""             # matrix: the whole target(...) text
    matrix: object = None     # matrix: its coopmat_spec.MatrixType
    bfloat: bool = False       # float 16: LLVM bfloat (SPV_KHR_bfloat16), not half

    def __str__(self):
        return self.text or _type_text(self)


def _type_text(t):
    if t.kind == "int":
        return f"i{t.bits}"
    if t.kind == "float":
        return "bfloat" if t.bfloat else {16: "half", 32: "float", 64: "double"}[t.bits]
    if t.kind == "ptr":
        return "ptr" if t.addrspace == 0 else f"ptr addrspace({t.addrspace})"
    if t.kind == "vec":
        return f"<{t.n} x {t.elem}>"
    if t.kind == "array":
        return f"[{t.n} x {t.elem}]"
    if t.kind == "struct":
        return "{ " + ", ".join(str(f) for f in t.fields) + " }"
    return t.kind


VOID = Ty("void")
I1, I8, I16, I32, I64 = (Ty("int", b) for b in (1, 8, 16, 32, 64))

_TOKEN_RE = re.compile(r"""
    (?P<cstr>c"[^"]*")
  | (?P<name>[%@](?:"[^"]*"|[-\w.$]+))
  | (?P<num>-?0x[KLMHR]?[0-9A-Fa-f]+|-?\d+(?:\.\d+)?(?:[eE][-+]?\d+)?)
  | (?P<word>[A-Za-z_][\w.]*)
  | (?P<str>"[^"]*")
  | (?P<meta>!\w+|![0-9]+)
  | (?P<punct>[()\[\]{}<>,=*:])
  | (?P<ws>\s+)
""", re.VERBOSE)


def tokenize(text):
    tokens = []
    pos = 0
    while pos < len(text):
        m = _TOKEN_RE.match(text, pos)
        if not m:
            raise IRError(f"cannot read IR text near {text[pos:pos + 40]!r}")
        pos = m.end()
        if m.lastgroup != "ws":
            tokens.append(m.group())
    return tokens


class TokenStream:
    def __init__(self, text, structs):
        self.toks = tokenize(text)
        self.i = 0
        self.structs = structs
        self.text = text

    def peek(self, k=0):
        j = self.i + k
        return self.toks[j] if j < len(self.toks) else None

    def next(self):
        tok = self.peek()
        if tok is None:
            raise IRError(f"unexpected end of IR text in {self.text!r}")
        self.i += 1
        return tok

    def expect(self, tok):
        got = self.next()
        if got != tok:
            raise IRError(f"expected {tok!r} but found {got!r} in {self.text!r}")

    def accept(self, tok):
        if self.peek() == tok:
            self.i += 1
            return True
        return False


_FLOAT_BITS = {"half": 16, "float": 32, "double": 64, "bfloat": 16}


def parse_type(ts):
    """Read one type from a TokenStream."""
    tok = ts.next()
    if tok == "void":
        return VOID
    if re.fullmatch(r"i\d+", tok):
        return Ty("int", int(tok[1:]))
    if tok in _FLOAT_BITS:
        return Ty("float", _FLOAT_BITS[tok], bfloat=tok == "bfloat")
    if tok == "ptr":
        space = 0
        if ts.accept("addrspace"):
            ts.expect("(")
            space = int(ts.next())
            ts.expect(")")
        return Ty("ptr", addrspace=space)
    if tok == "<" and ts.accept("{"):
        # A packed structure `<{ ... }>` (LangRef "Structure Type"): no padding between fields.
        struct = _parse_struct_body(ts, packed=True)
        ts.expect(">")
        return struct
    if tok == "<":
        n = _element_count(ts)
        ts.expect("x")
        elem = parse_type(ts)
        ts.expect(">")
        return Ty("vec", n=n, elem=elem)
    if tok == "[":
        n = _element_count(ts)
        ts.expect("x")
        elem = parse_type(ts)
        ts.expect("]")
        return Ty("array", n=n, elem=elem)
    if tok == "{":
        return _parse_struct_body(ts, packed=False)
    if tok in ("label", "metadata", "token"):
        return Ty(tok)
    if tok == "target":
        return _parse_target_type(ts)
    if tok.startswith("%"):
        name = tok[1:].strip('"')
        if name not in ts.structs:
            raise IRError(f"unknown named type %{name}")
        return ts.structs[name]
    raise IRError(f"unsupported type {tok!r} in {ts.text!r}")


def _element_count(ts):
    """The N of `<N x T>` or `[N x T]`: a count, not `vscale x` (a scalable vector, which
    OpenCL has no type for)."""
    tok = ts.next()
    if not tok.isdigit():
        raise IRError(f"unsupported element count {tok!r} in {ts.text!r}")
    return int(tok)


def _parse_struct_body(ts, packed):
    fields = []
    if not ts.accept("}"):
        while True:
            fields.append(parse_type(ts))
            if ts.accept("}"):
                break
            ts.expect(",")
    return Ty("struct", fields=tuple(fields), packed=packed)


def _parse_target_type(ts):
    start = ts.i - 1
    ts.expect("(")
    name = ts.next().strip('"')
    elem, params, types = None, [], []
    while ts.accept(","):
        if ts.peek().lstrip("-").isdigit():
            params.append(int(ts.next()))
        else:
            elem = parse_type(ts)
            types.append(elem)
    ts.expect(")")
    text = _join_tokens(ts.toks[start:ts.i])
    if name == "spirv.Event":
        return Ty("event", text=text)      # event_t: an opaque handle, kept as an int64
    if name == "spirv.Literal":
        return Ty("integral_constant", n=params[0] if params else 0, text=text)
    if name == INLINE_TYPE and float8.format_of_ir_type(text) is not None:
        return Ty("float", 8, text=text)       # OpTypeFloat 8 <FP8 encoding>: a matrix component
    if name in (INLINE_TYPE, INTEGRAL_CONSTANT):
        return _tensor_type(name, types, params, text)
    if name != MATRIX_TARGET_TYPE:
        raise IRError(f"unsupported target extension type {name!r}")
    component = component_of_llvm(str(elem)) if elem is not None else None
    if component is None or len(params) != 4:
        raise IRError(f"unsupported cooperative matrix type {text}")
    return Ty("matrix", elem=elem, text=text, matrix=MatrixType(component, *params))


def _tensor_type(name, types, params, text):
    """A tensor layout or view (clcoop.tensor_spec) is kept as a vector of int64 fields
    (clcoop.interp.tensor_calls), so that allocas, phis and selects need nothing new;
    `text` keeps the type. An integral constant is a parameter of such a type."""
    if name == INTEGRAL_CONSTANT:
        return Ty("integral_constant", n=params[0] if params else 0, text=text)
    tensor = None
    if params and all(t.kind == "integral_constant" for t in types):
        tensor = TensorType.from_constants(params[0], [t.n for t in types])
    if tensor is None:
        raise IRError(f"unsupported inline SPIR-V type {text} (clcoop runs tensor layouts "
                      f"and views only)")
    return Ty("vec", n=tensor.field_count, elem=I64, text=text)


def _join_tokens(toks):
    out = ""
    for tok in toks:
        if out and tok not in (",", ")") and not out.endswith("("):
            out += " "
        out += tok
    return out.replace(" ,", ",")


# --------------------------------------------------------------------- sizes / layout

class DataLayout:
    def __init__(self, pointer_bytes=8):
        self.pointer_bytes = pointer_bytes

    def size(self, t):
        """Allocation size in bytes (LLVM's getTypeAllocSize)."""
        if t.kind == "int":
            return _pow2_bytes(t.bits)
        if t.kind == "float":
            return t.bits // 8
        if t.kind == "ptr":
            return self.pointer_bytes
        if t.kind == "event":
            return 8
        if t.kind == "vec":
            return _round_pow2(t.n * self.size(t.elem))
        if t.kind == "array":
            return t.n * self.size(t.elem)
        if t.kind == "struct":
            offsets, total = self.struct_layout(t)
            return total
        raise IRError(f"type {t} has no size in memory")

    def align(self, t):
        if t.kind == "vec":
            return self.size(t)
        if t.kind == "array":
            return self.align(t.elem)
        if t.kind == "struct":
            return 1 if t.packed else max([self.align(f) for f in t.fields] or [1])
        return self.size(t)

    def struct_layout(self, t):
        offsets, off, align_max = [], 0, 1
        for f in t.fields:
            a = 1 if t.packed else self.align(f)
            off = (off + a - 1) // a * a
            offsets.append(off)
            off += self.size(f)
            align_max = max(align_max, a)
        total = (off + align_max - 1) // align_max * align_max
        return offsets, total


def _pow2_bytes(bits):
    return _round_pow2(max(1, (bits + 7) // 8))


def _round_pow2(n):
    p = 1
    while p < n:
        p *= 2
    return p


# -------------------------------------------------------------------- constants (text)

@dataclass
class Const:
    """A constant read from IR text. kind: int float null zero undef global vec array
    struct bytes gep cast."""
    kind: str
    ty: Ty
    value: object = None      # int/float value, global name, list of Const, bytes
    extra: object = None      # gep: (source type, base Const, [index Const]); cast: opcode


_CAST_OPS = {"addrspacecast", "bitcast", "ptrtoint", "inttoptr", "trunc", "zext", "sext"}


def parse_typed_constant(ts):
    ty = parse_type(ts)
    return parse_constant(ts, ty)


def parse_constant(ts, ty):
    tok = ts.next()
    if tok in ("undef", "poison"):
        return Const("undef", ty)
    if tok == "zeroinitializer":
        return Const("zero", ty)
    if tok == "null":
        return Const("null", ty)
    if tok in ("true", "false"):
        return Const("int", ty, 1 if tok == "true" else 0)
    if tok.startswith("@"):
        return Const("global", ty, tok[1:].strip('"'))
    if tok.startswith('c"'):
        return Const("bytes", ty, _unescape(tok[2:-1]))
    if tok == "<" and ty.kind == "vec":
        return Const("vec", ty, _parse_elements(ts, ">"))
    if tok == "[":
        return Const("array", ty, _parse_elements(ts, "]"))
    if tok == "{":
        return Const("struct", ty, _parse_elements(ts, "}"))
    if tok == "<" and ts.peek() == "{":
        ts.next()
        elems = _parse_elements(ts, "}")
        ts.expect(">")
        return Const("struct", ty, elems)
    if tok == "getelementptr":
        return _parse_gep_expr(ts, ty)
    if tok in _CAST_OPS:
        ts.expect("(")
        inner = parse_typed_constant(ts)
        ts.expect("to")
        parse_type(ts)
        ts.expect(")")
        return Const("cast", ty, inner, tok)
    if tok == "splat":
        ts.expect("(")
        inner = parse_typed_constant(ts)
        ts.expect(")")
        return Const("vec", ty, [inner] * ty.n)
    if ty.kind == "float":
        return Const("float", ty, parse_float_literal(tok, ty.bits))
    if ty.kind == "int":
        return Const("int", ty, int(tok, 0))
    raise IRError(f"unsupported constant {tok!r} of type {ty} in {ts.text!r}")


def _parse_elements(ts, closer):
    elems = []
    if ts.accept(closer):
        return elems
    while True:
        elems.append(parse_typed_constant(ts))
        if ts.accept(closer):
            return elems
        ts.expect(",")


def _parse_gep_expr(ts, ty):
    while ts.peek() in ("inbounds", "nuw", "nusw"):
        ts.next()
    if ts.peek() == "inrange":
        raise IRError("inrange GEP constant expressions are not supported")
    ts.expect("(")
    src = parse_type(ts)
    ts.expect(",")
    base = parse_typed_constant(ts)
    indices = []
    while ts.accept(","):
        ts.accept("inrange")
        indices.append(parse_typed_constant(ts))
    ts.expect(")")
    return Const("gep", ty, None, (src, base, indices))


def parse_float_literal(tok, bits):
    if tok.startswith("0xH"):
        return struct.unpack("<e", struct.pack("<H", int(tok[3:], 16)))[0]
    if tok.startswith("0xR"):      # bfloat: the high half of a float's bits
        return struct.unpack("<f", struct.pack("<I", int(tok[3:], 16) << 16))[0]
    if tok.startswith("0x"):
        # LLVM writes float and double constants as the hex of the double value.
        return struct.unpack("<d", struct.pack("<Q", int(tok[2:], 16)))[0]
    if tok.startswith("-0x"):
        return -parse_float_literal(tok[1:], bits)
    return float(tok)


def _unescape(body):
    out = bytearray()
    i = 0
    while i < len(body):
        if body.startswith("\\\\", i):
            out.append(0x5C)              # LLVM prints a backslash as \\ (printEscapedString)
            i += 2
        elif body[i] == "\\" and i + 2 < len(body) + 1:
            out.append(int(body[i + 1:i + 3], 16))
            i += 3
        else:
            out.append(ord(body[i]))
            i += 1
    return bytes(out)


# ------------------------------------------------------------------------- the module

@dataclass
class GlobalVar:
    name: str
    ty: Ty                   # the value type
    addrspace: int
    init: Const              # None for external declarations
    constant: bool
    align: int


@dataclass
class KernelInfo:
    name: str
    function: object                       # llvmlite ValueRef of the spir_kernel
    params: list                           # [(name, Ty)]
    arg_types: list = field(default_factory=list)       # kernel_arg_type strings
    arg_qualifiers: list = field(default_factory=list)  # kernel_arg_type_qual
    arg_addr_spaces: list = field(default_factory=list)
    reqd_work_group_size: tuple = None
    reqd_sub_group_size: int = None
    byval: dict = field(default_factory=dict)   # param index -> Ty of a struct passed by value


@dataclass
class Module:
    ir: str
    llvm_module: object
    structs: dict
    layout: DataLayout
    globals: dict
    kernels: dict
    functions: dict          # name -> llvmlite function ValueRef (definitions and declarations)
    # Declarations of cooperative-matrix operations as other producers name them -> the
    # callee name of docs/ir-conventions.md (clcoop.ir.coop_spellings).
    coop_aliases: dict = field(default_factory=dict)
    debug_info: object = None    # -g: clcoop.ir.source_map.DebugInfo (instruction lines)
    sources: dict = field(default_factory=dict)   # file name -> source text, for fault reports

    def type_of(self, text):
        return parse_type_text(text, self.structs)

    # The globals are fixed once loaded: their sizes are worked out once per module, not at
    # every launch preparation (prepare._check_local_total, _check_program_variables).
    @cached_property
    def local_variable_bytes(self):
        """Bytes of the module's __local variables (address space 3), per work-group."""
        return sum(self.layout.size(gv.ty) for gv in self.globals.values() if gv.addrspace == 3)

    @cached_property
    def program_variable_sizes(self):
        """((name, bytes), ...) of the program-scope variables outside __local, in order."""
        return tuple((name, self.layout.size(gv.ty)) for name, gv in self.globals.items() if gv.addrspace != 3)


_TYPE_CACHE = {}


def parse_type_text(text, structs):
    key = (text, id(structs))
    t = _TYPE_CACHE.get(key)
    if t is None:
        ts = TokenStream(text, structs)
        t = parse_type(ts)
        _TYPE_CACHE[key] = t
    return t


def value_id(v):
    """A stable identity for an llvmlite ValueRef (unnamed values have no name)."""
    return ctypes.cast(v._ptr, ctypes.c_void_p).value


_INTRINSIC_DECL_RE = re.compile(r'(?m)^declare\b[^\n@]*?(\S+)\s+@("?llvm\.[^\s("]+"?)\([^\n]*$')
_INTRINSIC_USE_RE = re.compile(r'@("?llvm\.[^\s("]+"?)\(')
_SUPPORT_LINE_RE = re.compile(r"(?m)^(?:%[-\w.$\"]+ = type .*|attributes #\d+ = .*|target .*)$")


def refuse_rewritten_intrinsics(ir_text):
    """IRError for a declaration of an `llvm.*` intrinsic that LLVM's parser would rewrite
    to another signature (its auto-upgrade) and abort on: LLVM destroys a call whose result
    is still used ("Uses remain when a value is destroyed"), or rewrites a call whose
    operands the new signature does not take ("Calling a function with a bad signature!"),
    both found by scripts/fuzz_ir.py. Each declaration is parsed alone first (no calls,
    nothing to abort): one with a result that LLVM renamed is refused. A void one that LLVM
    renamed is often an older form LLVM upgrades with its calls (`llvm.lifetime.start` with
    a size): the whole module is then parsed in a child process first, and refused if that
    aborts."""
    import llvmlite.binding as llvm
    all_decls = list(_INTRINSIC_DECL_RE.finditer(ir_text))
    declared = {llvm_unquote(m.group(2)) for m in all_decls}
    for m in _INTRINSIC_USE_RE.finditer(ir_text):
        # (LLVM declares an intrinsic called without a declaration from the call, and
        # rewrites it the same way)
        if llvm_unquote(m.group(1)) not in declared:
            line = ir_text[ir_text.rfind("\n", 0, m.start()) + 1:ir_text.find("\n", m.end()) % (len(ir_text) + 1)]
            raise IRError(f"@{llvm_unquote(m.group(1))} is called but not declared: {line.strip()}")
    if not all_decls:
        return
    support = "\n".join(_SUPPORT_LINE_RE.findall(ir_text))
    try:
        alone = llvm.parse_assembly(support + "\n" + "\n".join(m.group(0) for m in all_decls))
    except RuntimeError:
        return          # the full parse reports it
    names = {f.name for f in alone.functions}
    renamed = [m for m in all_decls if llvm_unquote(m.group(2).lstrip("@")) not in names]
    for m in renamed:
        if m.group(1) != "void" or _parse_aborts(ir_text):
            raise IRError(f"the declaration of @{llvm_unquote(m.group(2))} does not match LLVM's "
                          f"intrinsic of that name (LLVM would rewrite its calls): {m.group(0).strip()}")


def _parse_aborts(ir_text):
    """Whether LLVM's parser aborts the process on ir_text (tried in a child process)."""
    probe = "import sys, llvmlite.binding as llvm\ntry:\n    llvm.parse_assembly(sys.stdin.read())\nexcept RuntimeError:\n    pass"
    done = subprocess.run([sys.executable, "-c", probe], input=ir_text, capture_output=True, text=True)
    return done.returncode != 0


def name_values(mod, target_machine, inline=False):
    """Give every unnamed value and block of the llvmlite module `mod` a name, in place
    (LLVM's instruction namer: %tmp, %bb, ...), after LLVM's always-inliner when `inline`.
    The one way the native engine names a module's values (native/named_ir.py: its code
    generator and its range proof read that one named parse).
    `target_machine`: the host's (the pass builder needs one; nothing is compiled)."""
    import llvmlite.binding as llvm
    pm = llvm.create_new_module_pass_manager()
    if inline:
        pm.add_always_inliner_pass()
    pm.add_instruction_namer_pass()
    pm.run(mod, llvm.create_pass_builder(target_machine, llvm.create_pipeline_tuning_options()))
    return mod


def load_module(ir_text):
    """Parse and verify `ir_text` with LLVM; raise IRError with LLVM's message if invalid."""
    import llvmlite.binding as llvm
    refuse_rewritten_intrinsics(ir_text)
    try:
        mod = llvm.parse_assembly(ir_text)
        mod.verify()
    except RuntimeError as exc:
        raise IRError(f"invalid LLVM IR: {str(exc).strip()}") from None
    structs = read_structs(mod)
    pointer_bytes = 4 if re.search(r"^target datalayout = \"[^\"]*p:32", ir_text, re.M) else 8
    layout = DataLayout(pointer_bytes)
    # One printing of the whole module for the function headers and metadata: metadata
    # numbers are only consistent within one printing, and printing functions one by one
    # numbers all module metadata again each time (quadratic with -g).
    module_text = str(mod)
    metadata = _read_metadata(module_text)
    globals_ = {}
    for gv in mod.global_variables:
        globals_[gv.name] = _read_global(gv, structs)
    functions = {f.name: f for f in mod.functions}
    _refuse_function_addresses(globals_, functions)
    inline_asm.check_module(module_text)
    headers = {llvm_unquote(m.group(1)): m.group(0) for m in DEFINE_RE.finditer(module_text)}
    kernels = {}
    for f in mod.functions:
        header = headers.get(f.name)
        if not f.is_declaration and header and " spir_kernel " in header:
            kernels[f.name] = _read_kernel(f, header, metadata, structs)
    module = Module(ir_text, mod, structs, layout, globals_, kernels, functions,
                    _coop_aliases(mod.functions, structs))
    if "!dbg" in module_text:
        _read_debug_info(module, module_text)
    return module


# Constructor and destructor tables (LangRef "The llvm.global_ctors Global Variable"):
# OpenCL runs no code outside a kernel launch, and neither engine runs them.
_CONSTRUCTOR_TABLES = ("llvm.global_ctors", "llvm.global_dtors")
# Lists of values the optimizer must keep, and annotations (LangRef "Intrinsic Global
# Variables", section "llvm.metadata"): no code runs or is called through them, and nothing
# of them exists at run time (the interpreter maps none, interp/engine.py).
METADATA_TABLES = ("llvm.used", "llvm.compiler.used", "llvm.global.annotations")


def _refuse_function_addresses(globals_, functions):
    """IRError for a global whose initializer holds a function's address: a constructor
    table naming a function (the native engine would run it outside any launch, with no
    context), or a function pointer (neither engine calls through one)."""
    for g in globals_.values():
        named = sorted(n for n in _names_in(g.init) if n in functions)
        if not named or g.name in METADATA_TABLES:
            continue
        if g.name in _CONSTRUCTOR_TABLES:
            kind = "constructors" if g.name.endswith("ctors") else "destructors"
            raise IRError(f"@{g.name} names {', '.join('@' + n for n in named)}: module {kind} "
                          f"are not supported (OpenCL C runs no code outside a kernel)")
        raise IRError(f"the program-scope variable @{g.name} holds the address of the function "
                      f"@{named[0]}: function pointers are not supported")


def _names_in(const):
    """Names of the globals and functions a constant refers to."""
    if const is None:
        return
    if const.kind == "global":
        yield const.value
    if isinstance(const.value, (list, tuple)):
        for c in const.value:
            if isinstance(c, Const):
                yield from _names_in(c)
    if const.kind == "gep":
        yield from _names_in(const.extra[1])
        for c in const.extra[2]:
            yield from _names_in(c)
    elif isinstance(const.value, Const):
        yield from _names_in(const.value)


def _read_debug_info(module, module_text):
    """Source lines of the instructions (faults name them) and, for IR without value
    names (clang -g drops them), the kernel parameters' source names."""
    debug = read_debug_info(module_text)
    if debug is None:
        return
    module.debug_info = debug
    for name, info in module.kernels.items():
        names = debug.param_names.get(name, {})
        info.params = [(pname or names.get(i, ""), ty) for i, (pname, ty) in enumerate(info.params)]


def _coop_aliases(functions, structs):
    aliases = {}
    for f in functions:
        if not f.is_declaration or not coop_names.names_spirv_operation(f.name):
            continue
        try:
            ret, *params = (parse_type_text(str(t), structs) for t in f.global_value_type.elements)
        except IRError:
            continue        # not a matrix operation the interpreter could run anyway
        canonical = coop_spellings.canonical_name(f.name, ret, params)
        if canonical:
            aliases[f.name] = canonical
    return aliases


def read_structs(mod):
    """{name: Ty} of the named struct types of an llvmlite module. Per parse: LLVM renames
    a struct type in its global context when the same IR is parsed twice (%struct.S becomes
    %struct.S.0 in the second module), so each parse reads its own."""
    structs = {}
    # Only named structs ("%name = type {...}"); literal structs appear inline in types.
    pending = [(s.name, str(s)) for s in mod.struct_types if s.name and "=" in str(s)]
    # Named structs may refer to each other; resolve until stable.
    for _ in range(len(pending) + 1):
        left = []
        for name, text in pending:
            body = text.split("=", 1)[1].strip()
            if not body.startswith("type"):
                continue
            body = body[4:].strip()
            if body == "opaque":
                structs[name] = Ty("struct", fields=())
                continue
            try:
                ts = TokenStream(body, structs)
                packed = body.startswith("<")
                if packed:
                    ts.next()
                ts.expect("{")
                structs[name] = Ty("struct", fields=_parse_struct_body(ts, packed).fields, packed=packed)
            except IRError:
                left.append((name, text))
        pending = left
        if not pending:
            break
    return structs


def _read_global(gv, structs):
    text = str(gv).strip()
    ty = parse_type_text(str(gv.global_value_type), structs)
    space = int(m.group(1)) if (m := re.search(r"\baddrspace\((\d+)\)", text.split("=", 1)[1])) else 0
    align_m = re.search(r", align (\d+)", text)
    is_const = re.search(r"\bconstant\b", text.split("=", 1)[1]) is not None
    init = None
    if not gv.is_declaration:
        # "@name = <linkage/attrs> global|constant <type> <init>[, align N]..."
        after = re.split(r"\b(?:global|constant)\b", text.split("=", 1)[1], maxsplit=1)[1]
        ts = TokenStream(after, structs)
        init = parse_typed_constant(ts)
    return GlobalVar(gv.name, ty, space, init, is_const, int(align_m.group(1)) if align_m else 1)


_MD_REF_RE = re.compile(r"!(kernel_arg_type|kernel_arg_type_qual|kernel_arg_addr_space|"
                        r"reqd_work_group_size|intel_reqd_sub_group_size) !(\d+)")


def _read_metadata(ir_text):
    nodes = {}
    for m in re.finditer(r"^!(\d+) = (?:distinct )?!\{(.*)\}\s*$", ir_text, re.M):
        nodes[m.group(1)] = m.group(2)
    return nodes


def _md_strings(body):
    return re.findall(r'!"([^"]*)"', body)


def _required_work_group_size(kernel, sizes):
    """reqd_work_group_size's sizes: positive (OpenCL C 3.0 6.11.2), as the launch's local
    size they become; 0 had divided by zero and -1 made a launch without end."""
    if any(s <= 0 for s in sizes):
        raise IRError(f"kernel '{kernel}': !reqd_work_group_size {tuple(sizes)} is not a work-group "
                      f"size: each must be positive (OpenCL C 3.0 6.11.2)")
    return tuple(sizes)


def _md_ints(body):
    return [int(x) for x in re.findall(r"i\d+ (-?\d+)", body)]


def _param_texts(header, name):
    """The text of each parameter in a 'define ... @name(...)' line (attributes included)."""
    start = header.find("(", header.find("@" + name) + len(name) + 1)
    return split_top_level(bracketed(header, start))


def _read_kernel(f, header, metadata, structs):
    params = [(a.name, parse_type_text(str(a.type), structs)) for a in f.arguments]
    info = KernelInfo(f.name, f, params)
    for i, text in enumerate(_param_texts(header, f.name)):
        m = re.search(r"\bbyval\((.*?)\)(?:\s|$)", text)
        if m:
            info.byval[i] = parse_type_text(m.group(1), structs)
    _refuse_private_pointer_params(info)
    for kind, node in _MD_REF_RE.findall(header):
        body = metadata.get(node, "")
        if kind == "kernel_arg_type":
            info.arg_types = _md_strings(body)
        elif kind == "kernel_arg_type_qual":
            info.arg_qualifiers = _md_strings(body)
        elif kind == "kernel_arg_addr_space":
            info.arg_addr_spaces = _md_ints(body)
        elif kind == "reqd_work_group_size":
            info.reqd_work_group_size = _required_work_group_size(info.name, _md_ints(body))
        elif kind == "intel_reqd_sub_group_size":
            ints = _md_ints(body)
            info.reqd_sub_group_size = ints[0] if ints else None
    return info


# OpenCL C 3.0 6.11 (kernel functions; clang's Sema: "pointer arguments to kernel functions
# must reside in 'global', 'constant' or 'local' address space"). A private or generic one
# would make every work-group share one buffer, and the engines would disagree on it.
_KERNEL_POINTER_SPACES = {1: "__global", 2: "__constant", 3: "__local"}


def _refuse_private_pointer_params(info):
    for i, (name, ty) in enumerate(info.params):
        if ty.kind == "ptr" and i not in info.byval and ty.addrspace not in _KERNEL_POINTER_SPACES:
            space = "generic" if ty.addrspace == 4 else f"addrspace({ty.addrspace})" if ty.addrspace else "private"
            raise IRError(f"kernel '{info.name}': parameter {i} '{name or f'arg{i}'}' is a pointer to the "
                          f"{space} address space; a kernel's pointer parameters must be __global, "
                          f"__constant or __local (OpenCL C 3.0 6.11)")


def value_kind(v):
    """llvmlite's value kind name; kinds its enum does not know (e.g. 26, a target-type
    'none' constant) are constants."""
    try:
        kind = v.value_kind
    except ValueError:
        return "constant"
    return kind.name if hasattr(kind, "name") else str(kind)
