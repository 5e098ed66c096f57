"""Semantic analysis: pycparser AST -> typed AST (clcoop.frontend.tast), with every diagnostic.

`check(ast, diag, target) -> tast.TranslationUnit`

The checker applies the C99 rules (usual arithmetic conversions, integer promotions,
pointer arithmetic, lvalues), the OpenCL C 3.0 rules (address spaces, vectors, swizzles,
kernels) and the cooperative-matrix rules of the RFC and of the clang pull request
llvm/llvm-project #221328 (diagnostic wording follows its tests). Every implicit
conversion becomes an explicit tast.ImplicitCast, so lower never re-derives a C rule.

Error recovery: an error inside a statement or a declaration abandons that statement or
declaration only (a _Abandon exception caught at statement level), so one run reports
several errors; after DiagnosticEngine.max_errors errors checking stops.

Location convention (clang's): a diagnostic about an operator points at the operator token
(found in the source line just before the right operand); a conversion diagnostic at the
start of the converted expression; a declaration diagnostic at the declared name; a
built-in argument diagnostic at that argument.

Cooperative-matrix decisions (where the RFC and the pull request are silent)
- Element types: char..ulong, half, float, double (not bool, vectors, pointers).
  rows/cols: integer constant expressions in 1..COOP_MAX_DIMENSION.
- scope: 3 (CLK_COOPERATIVE_MATRIX_SCOPE_SUBGROUP) or 4 (memory_scope_sub_group), both
  SPIR-V Subgroup (3) in the type. Quoted enumerator names (RFC 4.6 form) are accepted.
- Mul-add: A and B must have the same component type; C (= the result) may differ but must
  be of the same kind (integer or floating point): half x half + float and
  char x char + int are accepted, float x float + int is "inconsistent ...".
  The 3-argument coop_mat_mulAdd sets the signed bit of each signed integer component type
  (the pull request passes 0: a -Wcoop-portability warning); given operands are used as given.
- A load/store pointer whose pointee is not the component type is a WARNING: SPV_KHR
  issue 8 allows it (e.g. half components from a uint4 buffer; stride counts pointees).
- Signed-component / saturating bits on floating-point matrices: a warning (the RFC's own
  4.5 example passes MATRIX_RESULT_SIGNED for float matrices).
- Stride: any integer, converted to size_t (not a size_t: -Wcoop-portability, the pull request
  rejects it); a negative constant is an error, and so is a
  constant 0 for coop_mat_store (every row would land on the same address).
- coop_mat_load / coop_mat_init take the matrix type of: the variable they initialize,
  the lvalue they are assigned to, the function's return type (return), the parameter
  (argument of a user function), the cast type ((matC)coop_mat_init(1)), and flow through
  ?: and the comma operator.
- Unary ~ ! ++ -- on a matrix: "unsupported cooperative matrix unary operator".
- Matrices may not be struct members, array elements, pointees or static/program-scope.
"""
import contextlib
import math
import re
import struct

from pycparser import c_ast

from clcoop.diagnostics import SourceLocation
from clcoop.frontend import tast
from clcoop.frontend import types as T
from clcoop.frontend.parse import LOOP_UNROLL_HINTS

try:  # builtins.py is written in parallel; calls to OpenCL built-ins need it.
    from clcoop.frontend import builtins as _builtins
except ImportError:  # pragma: no cover - only while the module does not exist yet
    _builtins = None


class _Abandon(Exception):
    """An error was reported: give up the current statement/declaration."""


class _TooManyErrors(Exception):
    """diag.max_errors reached: stop checking."""


# ------------------------------------------------------------------ constants of the extension
COOP_BUILTINS = ("coop_mat_load", "coop_mat_store", "coop_matmul_add", "coop_mat_mulAdd",
                 "coop_mat_init", "coop_mat_length")
# Builtins whose result type comes from the variable they initialize or are assigned to.
COOP_CONTEXT_TYPED = ("coop_mat_load", "coop_mat_init")
LAYOUT_ROW_MAJOR, LAYOUT_COLUMN_MAJOR = 0, 1
OPERAND_A_SIGNED, OPERAND_B_SIGNED, OPERAND_C_SIGNED, OPERAND_RESULT_SIGNED = 1, 2, 4, 8
OPERAND_SATURATING = 16
# Names of the signedness bits and the matrix each belongs to (RFC 4.5; SPV_KHR_cooperative_matrix
# Cooperative Matrix Operands: MatrixASignedComponents ... MatrixResultSignedComponents).
OPERAND_SIGNED_BITS = ((OPERAND_A_SIGNED, "A", "CLK_COOPERATIVE_MATRIX_OPERAND_MATRIX_A_SIGNED"),
                       (OPERAND_B_SIGNED, "B", "CLK_COOPERATIVE_MATRIX_OPERAND_MATRIX_B_SIGNED"),
                       (OPERAND_C_SIGNED, "C", "CLK_COOPERATIVE_MATRIX_OPERAND_MATRIX_C_SIGNED"),
                       (OPERAND_RESULT_SIGNED, "Result",
                        "CLK_COOPERATIVE_MATRIX_OPERAND_MATRIX_RESULT_SIGNED"))
COOP_EXTENSION = "cl_khr_cooperative_matrix"
# -Wcoop-portability: where clang's cooperative-matrix pull request (llvm/llvm-project #221328)
# rejects or differs from what clcoop accepts; its Sema tests' wording where it has one.
PORTABILITY = "coop-portability"
PR_NAME = "clang's cooperative-matrix pull request (llvm/llvm-project #221328)"
OPERAND_ALL = 31
# Accepted scope values: the RFC's CLK_COOPERATIVE_MATRIX_SCOPE_SUBGROUP (3, SPIR-V's
# Subgroup) and the pull request's memory_scope_sub_group (4 in OpenCL C).
SCOPE_VALUES = {3: T.SPIRV_SCOPE_SUBGROUP, 4: T.SPIRV_SCOPE_SUBGROUP}
# Largest rows/cols accepted: real devices use 8..64; larger values only exhaust memory.
COOP_MAX_DIMENSION = 1 << 12
# Enumerators a quoted-string coop_mat argument may name (RFC 4.6 spelling).
COOP_ENUM_NAMES = {
    "CLK_COOPERATIVE_MATRIX_SCOPE_SUBGROUP": 3, "memory_scope_sub_group": 4,
    "CLK_COOPERATIVE_MATRIX_A": 0, "CLK_COOPERATIVE_MATRIX_B": 1,
    "CLK_COOPERATIVE_MATRIX_ACCUMULATOR": 2,
}
KERNEL_ATTRS = ("reqd_work_group_size", "work_group_size_hint", "intel_reqd_sub_group_size",
                "vec_type_hint")
IGNORED_ATTRS = ("always_inline", "noinline", "inline", "unused", "used", "const", "pure",
                 "overloadable", "aligned", "packed", "nosvm", "opencl_unroll_hint")
ADDRSPACE_QUALS = T.ADDRSPACE_BY_KEYWORD
ACCESS_QUALS = ("read_only", "__read_only", "write_only", "__write_only", "read_write",
                "__read_write")


def check(ast, diag, target, fp_contract="on", cl_std="CL3.0"):
    """Check a pycparser FileAST; report to diag; return the typed AST.
    fp_contract: -ffp-contract's on|off|fast, the state before any FP_CONTRACT pragma;
    cl_std: -cl-std (built-ins clang's opencl-c.h does not declare for it are hidden)."""
    checker = Checker(diag, target)
    checker.fp_contract_default = checker.fp_contract = fp_contract
    checker.hidden_builtins = _builtins.hidden_at(cl_std) if _builtins is not None else frozenset()
    checker.pre_cl20 = cl_std.upper() in ("CL1.0", "CL1.1", "CL1.2")    # no to_global & co.
    try:
        checker.translation_unit(ast)
    except _TooManyErrors:
        pass
    except RecursionError:
        # The parser bounds nesting too; this keeps a pathological input a diagnostic.
        diag.error("expression or statement nested too deeply", checker.last_loc)
    return tast.TranslationUnit(functions=checker.functions, globals=checker.globals)


def member_path(t, name):
    """[(index, field), ...] from struct/union t down to member `name`, through anonymous
    struct/union members; None when there is no such member."""
    for i, f in enumerate(t.fields):
        if f.name == name:
            return [(i, f)]
        if f.name is None and isinstance(f.type, T.StructType):
            inner = member_path(f.type, name)
            if inner is not None:
                return [(i, f)] + inner
    return None


def _is_fp_contract_pragma(node):
    return (node.string or "").split()[1:2] == ["FP_CONTRACT"]


def _struct_code(t):
    t = as_arith(t)
    if t.is_float:
        return {16: "e", 32: "f", 64: "d"}[t.bits]
    code = {8: "b", 16: "h", 32: "i", 64: "q"}[t.bits]
    return code if t.signed else code.upper()


def fold_as_type(value, source_type, target_type):
    """A folded as_<type> (OpenCL C 3.0 6.4.4.2): the same bytes read as the target type.
    Lets `constant float x = INFINITY;` (as_float(0x7f800000) in the default header) fold."""
    if value is None:
        return None
    src_elem, dst_elem = unqualified_elem(source_type), unqualified_elem(target_type)
    values = value if isinstance(value, tuple) else (value,)
    src_count = source_type.count if isinstance(source_type, T.VectorType) else 1
    dst_count = target_type.count if isinstance(target_type, T.VectorType) else 1
    if len(values) != src_count or 3 in (src_count, dst_count):
        return None          # 3-component vectors have a padding element: not folded
    try:
        data = struct.pack("<" + _struct_code(src_elem) * src_count,
                           *(wrap_int(int(v), as_arith(src_elem)) if as_arith(src_elem).is_integer else v
                             for v in values))
        out = struct.unpack("<" + _struct_code(dst_elem) * dst_count, data)
    except (struct.error, OverflowError, KeyError):
        return None
    return out if isinstance(target_type, T.VectorType) else out[0]


def location(node):
    coord = getattr(node, "coord", None)
    if coord is None or coord.line is None:
        return None
    return SourceLocation(coord.file or "<source>", coord.line, coord.column or 1)


class InitCursor:
    """Position in a braced initializer list, shared by the sub-aggregates that brace elision fills."""

    def __init__(self, exprs):
        self.exprs = list(exprs)
        self.index = 0

    def done(self):
        return self.index >= len(self.exprs)

    def peek(self):
        return self.exprs[self.index]

    def take(self):
        self.index += 1
        return self.exprs[self.index - 1]


def declared_parameter_names(decl):
    """Names in a function declarator's parameter list (None where unnamed)."""
    args = getattr(getattr(decl, "type", None), "args", None)
    return [getattr(p, "name", None) for p in (args.params if args is not None else [])]


def merge_initializers(old, new):
    """`new` over `old`, element by element: later designated initializers override earlier ones
    only where they say something (C99 6.7.8p19)."""
    if isinstance(old, tast.InitList) and isinstance(new, tast.InitList):
        elements = [o if n is None else merge_initializers(o, n) for o, n in zip(old.elements, new.elements)]
        return tast.InitList(new.type, elements, new.loc)
    return new


def _kernel_pointer_spaces_ok(t):
    while t.is_pointer:
        if t.addrspace not in (T.GLOBAL, T.CONSTANT, T.LOCAL):
            return False
        t = t.pointee
    return True


def _written_typedef_name(decl):
    """The typedef name a declaration is written with (`H x;` -> 'H'), else None."""
    node = getattr(decl, "type", None)
    if isinstance(node, c_ast.TypeDecl) and isinstance(node.type, c_ast.IdentifierType) \
            and len(node.type.names) == 1 and node.type.names[0] != "half":
        return node.type.names[0]
    return None


def name_location(decl):
    """Location of the declared name (clang points declaration errors at it), else of decl."""
    node = decl
    while node is not None and not isinstance(node, c_ast.TypeDecl):
        node = getattr(node, "type", None)
        if not isinstance(node, c_ast.Node):
            node = None
    return location(node) if node is not None and node.coord is not None else location(decl)


def operator_location(sources, op, operand, fallback):
    """Location of an operator token written just before `operand` (clang points at operators).

    pycparser records an operator expression at its first operand; the operator itself is
    found in the source line, right before the operand that follows it (skipping blanks and
    opening parentheses). Falls back to `fallback` when the text does not match. `operand`
    is a c_ast node or the SourceLocation of one."""
    loc = operand if isinstance(operand, SourceLocation) else location(operand)
    if loc is None or sources is None:
        return fallback
    text = sources.line(loc.file, loc.line)
    if text is None:
        return fallback
    text = text.expandtabs(1)
    # 0-based index of the character before the operand; after a macro expansion the
    # column may lie past the end of the written line.
    i = min(loc.column - 2, len(text) - 1)
    while i >= 0 and text[i] in " (":
        i -= 1
    start = i - len(op) + 1
    if start >= 0 and text[start:i + 1] == op:
        return SourceLocation(loc.file, loc.line, start + 1)
    return fallback


# ------------------------------------------------------------------ small type helpers
# clang built-ins OpenCL code uses (clang's Builtins.td), name -> (kind, argument/result info, arity).
# __builtin_astype(x, T) is as_T(x), a macro of the default header (its second argument is a type).
CLANG_BUILTINS = {
    "__builtin_expect": ("expect", "long", 2),
    "__builtin_assume": ("assume", None, 1),
    "__builtin_unreachable": ("unreachable", None, 0),
    "__builtin_memcpy": ("memcpy", None, 3),
    "__builtin_memset": ("memset", None, 3),
    "__builtin_clz": ("ctlz", "uint", 1), "__builtin_clzl": ("ctlz", "ulong", 1),
    "__builtin_clzll": ("ctlz", "ulong", 1),
    "__builtin_ctz": ("cttz", "uint", 1), "__builtin_ctzl": ("cttz", "ulong", 1),
    "__builtin_ctzll": ("cttz", "ulong", 1),
    "__builtin_popcount": ("ctpop", "uint", 1), "__builtin_popcountl": ("ctpop", "ulong", 1),
    "__builtin_popcountll": ("ctpop", "ulong", 1),
    "__builtin_isnan": ("is.fpclass", "nan", 1), "__builtin_isinf": ("is.fpclass", "inf", 1),
    "__builtin_isfinite": ("is.fpclass", "finite", 1),
    "__builtin_inff": ("float-const", ("float", "inf"), 0), "__builtin_inf": ("float-const", ("double", "inf"), 0),
    "__builtin_huge_valf": ("float-const", ("float", "inf"), 0),
    "__builtin_huge_val": ("float-const", ("double", "inf"), 0),
    "__builtin_fabsf": ("fabs", "float", 1), "__builtin_fabs": ("fabs", "double", 1),
    "__builtin_nanf": ("float-const", ("float", "nan"), 1), "__builtin_nan": ("float-const", ("double", "nan"), 1),
}
# OpenCL C 2.0 address-space queries (6.15.10): name -> the space of the result.
ADDRESS_SPACE_QUERIES = {"to_global": T.GLOBAL, "to_local": T.LOCAL, "to_private": T.PRIVATE}
# llvm.is.fpclass test masks clang uses (LangRef: bit 0 sNaN, 1 qNaN, 2-4 negative inf/normal/
# subnormal, 5-6 -0/+0, 7-9 positive subnormal/normal/inf).
FPCLASS_MASKS = {"nan": 3, "inf": 516, "finite": 504}
# A printf conversion (OpenCL C 3.0 6.15.14.2), in the literal's spelling.
_PRINTF_CONVERSION = re.compile(r"%%|%[-+ #0]*(?P<width>\*|\d+)?(?:\.(?P<precision>\*|\d*))?"
                                r"(?:v\d+)?(?:hh|hl|h|ll|l)?[diouxXcsfFeEgGaAp]")

# Elements an initialized array may have (its initializer is a list of all of them).
MAX_INITIALIZED_ELEMENTS = 1 << 20

# C99 6.4.4.2 floating constants; the suffix is whatever identifier characters follow.
_FLOAT_LITERAL = re.compile(r"(?P<number>0[xX](?:[0-9a-fA-F]*\.?[0-9a-fA-F]*)[pP][-+]?[0-9]+"
                            r"|(?:[0-9]*\.[0-9]+|[0-9]+\.?)(?:[eE][-+]?[0-9]+)?)(?P<suffix>[A-Za-z0-9_]*)")


def described(t):
    """A type quoted as clang's diagnostics do, vectors with their shape spelled out."""
    if isinstance(t, T.VectorType):
        return f"'{spell(t)}' (vector of {t.count} '{spell(t.elem)}' values)"
    return f"'{spell(t)}'"


def unqualified_elem(t):
    return t.elem if isinstance(t, T.VectorType) else t


def as_arith(t):
    """Enums behave as int in arithmetic."""
    return T.INT if isinstance(t, T.EnumType) else t


def is_integer_like(t):
    return t.is_integer or isinstance(t, T.EnumType)


def is_arith_like(t):
    return t.is_arithmetic or isinstance(t, T.EnumType)


def is_scalar_like(t):
    return is_arith_like(t) or t.is_pointer


def signed_int_of_bits(bits):
    return {8: T.CHAR, 16: T.SHORT, 32: T.INT, 64: T.LONG}[bits]


def unsigned_of(t):
    return {"char": T.UCHAR, "short": T.USHORT, "int": T.UINT, "long": T.ULONG}.get(t.name, t)


def wrap_int(value, t):
    """Two's complement wrap of a Python int to the integer type t."""
    if t == T.BOOL:
        return 1 if value else 0
    bits = t.bits
    value &= (1 << bits) - 1
    if t.signed and value >= 1 << (bits - 1):
        value -= 1 << bits
    return value


def promote(t):
    """C99 6.3.1.1 integer promotions (OpenCL: same rule)."""
    t = as_arith(t)
    if t.is_integer and T.INTEGER_RANK[t.name] < T.INTEGER_RANK["int"]:
        return T.INT
    return t


def usual_arithmetic(a, b):
    """C99 6.3.1.8 on scalar types (half ranks below float: OpenCL cl_khr_fp16)."""
    a, b = as_arith(a), as_arith(b)
    if a.is_float or b.is_float:
        floats = [t for t in (a, b) if t.is_float]
        return max(floats, key=lambda t: t.bits)
    a, b = promote(a), promote(b)
    if a == b:
        return a
    if a.signed == b.signed:
        return a if T.INTEGER_RANK[a.name] >= T.INTEGER_RANK[b.name] else b
    u, s = (a, b) if not a.signed else (b, a)
    if T.INTEGER_RANK[u.name] >= T.INTEGER_RANK[s.name]:
        return u
    if s.bits > u.bits:
        return s
    return unsigned_of(s)


def comparison_result(t):
    """OpenCL 6.3.d: vector comparisons give signed integer vectors of the operand element width."""
    if isinstance(t, T.VectorType):
        return T.VectorType(signed_int_of_bits(t.elem.bits), t.count)
    return T.INT


def strip_pointer_quals(p):
    return T.PointerType(p.pointee, p.addrspace)


def spell(t):
    """Type spelling in diagnostics, like clang's type printer for pointers: the pointee's
    qualifiers come first (`const __global int *`) and a pointer pointee carries its own
    qualifiers after its star (`__global int *const __generic *`)."""
    if isinstance(t, T.PointerType) and not isinstance(t.pointee, T.ArrayType):
        return spell_qualified(t, [])
    return t.spelling()


def pointee_qualifiers(p):
    # clang prints cv-qualifiers, then the address space; __private stays implicit here.
    quals = [q for q, on in (("const", p.const), ("volatile", p.volatile)) if on]
    if p.addrspace != T.PRIVATE:
        quals.append(T.ADDRSPACE_NAMES[p.addrspace])
    return quals


def spell_qualified(t, quals):
    if isinstance(t, T.PointerType) and not isinstance(t.pointee, T.ArrayType):
        inner = spell_qualified(t.pointee, pointee_qualifiers(t))
        # `int **` as clang prints it: no space between the stars of unqualified levels.
        return inner + ("*" if inner.endswith("*") else " *") + " ".join(quals)
    return " ".join(quals + [t.spelling()])


class Scope:
    def __init__(self, parent=None):
        self.parent = parent
        self.names = {}      # name -> Var | Function | ("enum", int, EnumType, loc) | ("typedef", CType, aspace, loc)
        self.tags = {}       # struct/union/enum tag -> type

    def lookup(self, name):
        s = self
        while s is not None:
            if name in s.names:
                return s.names[name]
            s = s.parent
        return None

    def lookup_tag(self, name):
        s = self
        while s is not None:
            if name in s.tags:
                return s.tags[name]
            s = s.parent
        return None


class UninitializedUses:
    """Reads of local variables declared without an initializer, for -Wuninitialized.

    Every reference to such a variable is recorded in source order with the loops around
    it; a reference that rvalue() reads is a read, any other (assignment target, &v, v.x = ,
    v++) counts as an assignment. A read warns when no assignment comes before it and no
    assignment inside a loop that encloses the read (but not the declaration) could reach
    it through the loop's back edge. This is clang's "is uninitialized when used here"
    (every path), not its "sometimes uninitialized" analysis."""

    def __init__(self):
        self.variables = {}        # id(var) -> (var, loops open at the declaration)
        self.events = []           # [kind, ref, loops] in source order; kind 'write' or 'read'
        self.by_ref = {}           # id(ref) -> its event
        self.open_loops = []
        self.loop_count = 0

    def declared(self, var):
        self.variables[id(var)] = (var, tuple(self.open_loops))

    def referenced(self, ref):
        if id(ref.var) in self.variables:
            event = ["write", ref, tuple(self.open_loops)]
            self.events.append(event)
            self.by_ref[id(ref)] = event

    def read(self, ref):
        event = self.by_ref.get(id(ref))
        if event is not None:
            event[0] = "read"

    @contextlib.contextmanager
    def loop(self):
        self.loop_count += 1
        self.open_loops.append(self.loop_count)
        try:
            yield
        finally:
            self.open_loops.pop()

    def uses(self):
        """[(var, first uninitialized read)] in declaration order."""
        found = []
        for var, decl_loops in self.variables.values():
            events = [e for e in self.events if e[1].var is var]
            writes = [loops for kind, _, loops in events if kind == "write"]
            for kind, ref, loops in events:
                if kind == "write":
                    break
                inner = [loop for loop in loops if loop not in decl_loops]
                if not any(loop in w for loop in inner for w in writes):
                    found.append((var, ref))
                break
        return found


class FunctionContext:
    def __init__(self, function):
        self.function = function
        self.labels = {}
        self.gotos = []
        self.loop_depth = 0
        self.switch_stack = []
        self.depth = 0       # compound nesting (0 = outermost body)
        self.uninitialized = UninitializedUses()


class Checker:
    def __init__(self, diag, target):
        self.diag = diag
        self.target = target
        self.scope = Scope()
        self.functions = []
        self.function_by_name = {}
        self.globals = []
        # ids of __constant Vars declared without `const`: read-only, but clang gives pointers to
        # them no const qualifier (so no "discards qualifiers" warning on `constant T *p = arr;`).
        self.implicitly_const = set()
        self.enabled_extensions = set()    # by #pragma OPENCL EXTENSION, in source order
        self.coop_extension_reported = False
        self.hidden_builtins = frozenset()  # not declared at the -cl-std compiled for (check())
        self.pre_cl20 = False
        self.extern_vars = {}      # id -> Var declared `extern` and not (yet) defined
        self.overloads = {}        # name -> the user's __attribute__((overloadable)) Functions
        self.extern_uses = {}      # name -> first use of such a variable
        # Floating-point contraction of `a * b + c` (OpenCL C 3.0 6.11.1: FP_CONTRACT is ON by
        # default): "on" (llvm.fmuladd, as clang), "off", or "fast" (contract flags); the
        # FP_CONTRACT pragmas change it to the end of their compound statement.
        self.fp_contract_default = self.fp_contract = "on"
        self.declared_param_names = {}   # id(Function) -> parameter names of its first declaration
        self.fn = None
        self.coop_decl_locs = {}    # typedef name -> location of its declaration (for notes)
        self.call_edges = []        # (caller Function, callee Function, call location)
        self.last_loc = None        # location of the statement/declaration being checked
        self.poisoned = set()       # names whose declaration failed (their uses stay silent)
        for name, t in T.builtin_typedefs(target).items():
            self.scope.names[name] = ("typedef", t, None, None)

    # ------------------------------------------------------------------ diagnostics
    # ------------------------------------------------------------------ extensions
    def pragma(self, node):
        """`#pragma OPENCL EXTENSION name|all : enable|disable` (OpenCL C 3.0 6.2.1),
        in effect from there on. Of the extensions clcoop knows only cl_khr_fp16 changes
        what is accepted: without it, half values are errors as in clang-22; every other
        extension (fp64, subgroups, cooperative matrices) is always on."""
        words = (node.string or "").replace(":", " : ").split()
        if words[:2] in (["OPENCL", "FP_CONTRACT"], ["STDC", "FP_CONTRACT"]):
            self.fp_contract_pragma(words, node)
            return
        if len(words) != 5 or words[:2] != ["OPENCL", "EXTENSION"] or words[3] != ":":
            return
        name, behavior = words[2], words[4]
        names = {"cl_khr_fp16", COOP_EXTENSION} if name == "all" else {name}
        if behavior == "enable":
            self.enabled_extensions |= names
        elif behavior == "disable":
            self.enabled_extensions -= names

    def fp_contract_pragma(self, words, node, in_block_after_statements=False):
        """`#pragma OPENCL FP_CONTRACT ON|OFF|DEFAULT` (OpenCL C 3.0 6.11.1) and C99's
        `#pragma STDC FP_CONTRACT` (7.12.2): at file scope, or first in a compound statement
        until its end; DEFAULT is -ffp-contract's state. clang-22's wording."""
        states = {"ON": "on", "OFF": "off", "DEFAULT": self.fp_contract_default}
        if len(words) != 3 or words[2] not in states:
            self.warn("expected 'ON' or 'OFF' or 'DEFAULT' in pragma [-Wunknown-pragmas]",
                      self.pragma_word_location(node, 2))
            return
        if in_block_after_statements:
            self.fail("'#pragma fp_contract' can only appear at file scope or at the start of a "
                      "compound statement", self.pragma_word_location(node, 1))
        self.fp_contract = states[words[2]]

    def pragma_word_location(self, node, index):
        """Location of the index-th word after `#pragma` (clang points at it)."""
        loc = location(node)
        line = self.diag.sources.line(loc.file, loc.line) if loc else None
        if not line:
            return loc
        found = list(re.finditer(r"[A-Za-z_]\w*", line))
        words = [m for m in found if m.group() != "pragma"][index:]
        column = words[0].start() + 1 if words else loc.column
        return SourceLocation(loc.file, loc.line, column)

    def require_fp16(self, message, where):
        """A half value (not a pointer to half, a half vector or a half matrix) needs
        cl_khr_fp16 enabled (OpenCL C 3.0 6.3.1.1 / cl_khr_fp16); clang-22's wording."""
        if "cl_khr_fp16" not in self.enabled_extensions:
            self.error(message, where)

    def require_fp16_object(self, t, aspace, decl, what):
        """Declarations of half objects (arrays of half too)."""
        elem = t
        while isinstance(elem, T.ArrayType):
            elem = elem.elem
        if elem != T.HALF:
            return
        space = T.ADDRSPACE_NAMES[aspace if aspace is not None else T.PRIVATE]
        spelled = f"'{space} {spell(t)}'"
        written = _written_typedef_name(decl)
        if written is not None and t == T.HALF:
            spelled = f"'{space} {written}' (aka {spelled})"
        if what == "parameter":
            self.require_fp16(f"declaring function parameter of type {spelled} is not allowed; "
                              f"did you forget * ?", name_location(decl))
        elif "cl_khr_fp16" not in self.enabled_extensions:
            # The declaration is abandoned (its initializer unchecked) and its name stays
            # silent, as clang marks it invalid.
            self.poisoned.add(decl.name)
            self.fail(f"declaring variable of type {spelled} is not allowed", name_location(decl))

    def node_location(self, node):
        """Where a diagnostic about `node` points: operators at the operator token."""
        if isinstance(node, SourceLocation) or node is None:
            return node
        loc = location(node)
        if isinstance(node, c_ast.BinaryOp):
            return operator_location(self.diag.sources, node.op, node.right, loc)
        if isinstance(node, c_ast.Assignment):
            return operator_location(self.diag.sources, node.op, node.rvalue, loc)
        if isinstance(node, c_ast.UnaryOp) and node.op in ("-", "+", "!", "~", "*", "&", "++", "--"):
            return operator_location(self.diag.sources, node.op, node.expr, loc)
        return loc

    def error(self, message, node_or_loc, notes=()):
        loc = self.node_location(node_or_loc) or self.last_loc   # never an unlocated error
        self.diag.error(message, loc, notes)
        if self.diag.error_count >= self.diag.max_errors:
            # clang's "fatal error: too many errors emitted" carries no location either.
            self.diag.error("too many errors emitted, stopping now", None)
            raise _TooManyErrors()

    def fail(self, message, node_or_loc, notes=()):
        self.error(message, node_or_loc, notes)
        raise _Abandon()

    def warn(self, message, node_or_loc, notes=(), flag=None):
        loc = self.node_location(node_or_loc)
        self.diag.warning(message, loc, notes, flag)

    def note(self, message, loc):
        return self.diag.note(message, loc)

    def warn_uninitialized_uses(self):
        """clang's -Wuninitialized: a local variable read where no path has assigned it."""
        if self.fn.gotos or self.fn.labels:
            return          # a backward goto could assign it first: stay silent, as for switch
        if self.diag.error_count:
            return          # as clang: no flow analysis once the source has errors
        for var, ref in self.fn.uninitialized.uses():
            name_end = SourceLocation(var.loc.file, var.loc.line, var.loc.column + len(var.name)) \
                if var.loc is not None else None
            self.warn(f"variable '{var.name}' is uninitialized when used here", ref.loc,
                      [self.note(f"initialize the variable '{var.name}' to silence this warning", name_end)],
                      flag="uninitialized")

    # ------------------------------------------------------------------ translation unit
    def translation_unit(self, ast):
        for ext in ast.ext:
            try:
                self.external(ext)
            except _Abandon:
                pass
        self.check_recursion()
        for name, loc in self.extern_uses.items():
            var = self.scope.names.get(name)
            if isinstance(var, tast.Var) and id(var) in self.extern_vars:
                self.error(f"'{name}' is declared extern but not defined in this translation unit "
                           "(clcoop compiles and runs one translation unit)", loc,
                           [self.note("declared here", var.loc)])
        self.functions = [f for f in self.functions if f.body is not None or getattr(f, "_used", False)]

    @contextlib.contextmanager
    def poison_on_error(self, name):
        """A declaration whose type is in error still declares its name, silently: later uses
        of the name are abandoned without a second, cascading error (clang marks such a
        declaration invalid and does the same)."""
        try:
            yield
        except _Abandon:
            if name:
                self.poisoned.add(name)
            raise

    def check_recursion(self):
        """OpenCL C 3.0 6.11 (restrictions): recursion is not supported. Report each call that
        closes a cycle of the call graph, at the call."""
        callees = {}
        for caller, callee, loc in self.call_edges:
            callees.setdefault(caller, []).append((callee, loc))
        reported = set()

        def reaches(start, goal):
            seen, stack = set(), [start]
            while stack:
                f = stack.pop()
                if f is goal:
                    return True
                if f in seen:
                    continue
                seen.add(f)
                stack.extend(c for c, _ in callees.get(f, []))
            return False

        for caller, callee, loc in self.call_edges:
            if (caller in reported and callee in reported) or not reaches(callee, caller):
                continue
            reported.update((caller, callee))      # one error per cycle
            if callee is caller:
                self.error(f"recursion is not supported in OpenCL C ('{caller.name}' calls itself)", loc)
            else:
                self.error(f"recursion is not supported in OpenCL C ('{caller.name}' calls '{callee.name}', "
                           f"which calls '{caller.name}' again)", loc)

    def external(self, node):
        self.last_loc = location(node) or self.last_loc
        if isinstance(node, c_ast.FuncDef):
            self.function_definition(node)
        elif isinstance(node, c_ast.Decl):
            self.declaration(node, program_scope=True)
        elif isinstance(node, c_ast.Typedef):
            self.typedef(node)
        elif isinstance(node, c_ast.Pragma):
            self.pragma(node)
        elif isinstance(node, c_ast.StaticAssert):
            self.static_assert(node)
        elif type(node).__name__ in ("PreprocessorLine", "Asm"):
            pass
        else:
            self.fail(f"unsupported declaration '{type(node).__name__}'", node)

    # ------------------------------------------------------------------ attributes
    def attributes_of(self, decl):
        """All __attribute__ entries of a declaration: (name, args list, node)."""
        found = []

        def add_list(exprlist):
            if exprlist is None:
                return
            exprs = getattr(exprlist, "exprs", None)
            if exprs is None:
                exprs = [exprlist]
            for e in exprs:
                if isinstance(e, c_ast.FuncCall) and isinstance(e.name, c_ast.ID):
                    args = e.args.exprs if e.args is not None else []
                    found.append((e.name.name, list(args), e))
                elif isinstance(e, c_ast.ID):
                    found.append((e.name, [], e))
                elif isinstance(e, c_ast.ExprList):
                    add_list(e)

        for spec in list(getattr(decl, "funcspec", None) or []) + list(getattr(decl, "quals", None) or []):
            if type(spec).__name__ == "AttributeSpecifier":
                add_list(spec.exprlist)
        node = getattr(decl, "type", None)
        while node is not None:
            attrs = getattr(node, "attributes", None)
            if attrs is not None:
                add_list(attrs)
            for q in getattr(node, "quals", None) or []:
                if type(q).__name__ == "AttributeSpecifier":
                    add_list(q.exprlist)
            node = getattr(node, "type", None)
            if not isinstance(node, c_ast.Node):
                break
        return found

    def coop_mat_type(self, base, args, attr_node, base_node, typedef_name):
        """Build a CoopMatType from `coop_mat(scope, rows, cols, use)` (RFC 4.1)."""
        if len(args) != 4:
            self.fail("'coop_mat' attribute requires exactly 4 arguments", attr_node)
        base = as_arith(base) if isinstance(base, T.EnumType) else base
        if not (isinstance(base, T.ScalarType) and base.name in T.COOP_ELEMENT_NAMES):
            self.fail(f"'{spell(base)}' is invalid cooperative matrix element type", base_node or attr_node)
        scope = self.coop_attr_value(args[0], "scope")
        if scope not in SCOPE_VALUES:
            self.fail("invalid 'scope' argument of cooperative matrix attribute", args[0])
        rows = self.coop_attr_size(args[1], "row")
        cols = self.coop_attr_size(args[2], "column")
        use = self.coop_attr_value(args[3], "use")
        if use not in T.USE_NAMES:
            self.fail("invalid 'use' argument of cooperative matrix attribute", args[3])
        self.require_coop_extension(attr_node, typedef_name)
        return T.CoopMatType(base, SCOPE_VALUES[scope], rows, cols, use, typedef_name=typedef_name)

    def require_coop_extension(self, where, typedef_name):
        """clcoop always knows cooperative matrices; clang's pull request requires the pragma.
        Said once, at the first matrix type declared without it."""
        if COOP_EXTENSION in self.enabled_extensions or self.coop_extension_reported:
            return
        self.coop_extension_reported = True
        what = f"type '{typedef_name}'" if typedef_name else "the 'coop_mat' attribute"
        self.warn(f"use of {what} requires {COOP_EXTENSION} support", where,
                  [self.note(f"add '#pragma OPENCL EXTENSION {COOP_EXTENSION} : enable' before it; "
                             f"{PR_NAME} rejects the type without it", self.node_location(where))],
                  flag=PORTABILITY)

    def coop_attr_value(self, node, what):
        if isinstance(node, c_ast.Constant) and node.type == "string":
            name = node.value.strip('"')
            if name in COOP_ENUM_NAMES:
                return COOP_ENUM_NAMES[name]
            self.fail(f"invalid '{what}' argument of cooperative matrix attribute", node)
        value = self.integer_constant(node, f"'{what}' argument of cooperative matrix attribute")
        return value

    def coop_attr_size(self, node, which):
        value = self.integer_constant(node, "'coop_mat' attribute")
        if value == 0:
            self.fail("zero matrix size", node)
        if value < 0:
            self.fail(f"matrix {which} size must be positive", node)
        if value > COOP_MAX_DIMENSION:
            self.fail(f"matrix {which} size too large", node)
        return value

    def integer_constant(self, node, what):
        """Evaluate an integer constant expression (C99 6.6) or report `<what> requires an integer constant`."""
        try:
            e = self.rvalue(self.expr(node))
        except _Abandon:
            raise
        value = self.fold(e)
        if not is_integer_like(e.type) or not isinstance(value, int):
            self.fail(f"{what} requires an integer constant", node)
        return value

    # ------------------------------------------------------------------ type resolution
    def base_type(self, node):
        """Type of a type-specifier node (IdentifierType, Struct, Union, Enum)."""
        if isinstance(node, c_ast.IdentifierType):
            names = tuple(n for n in node.names)
            key = tuple(sorted(names, key=lambda n: ("signed", "unsigned", "short", "long", "char", "int").index(n)
                               if n in ("signed", "unsigned", "short", "long", "char", "int") else 9))
            if names in T.C_SPELLINGS:
                return T.C_SPELLINGS[names]
            if key in T.C_SPELLINGS:
                return T.C_SPELLINGS[key]
            if "long" in names and names.count("long") == 2:
                rest = tuple(n for n in names if n != "long") + ("long",)
                return T.ULONG if "unsigned" in rest else T.LONG
            if len(names) == 1:
                if names[0] in self.poisoned and self.scope.lookup(names[0]) is None:
                    raise _Abandon()
                entry = self.scope.lookup(names[0])
                if isinstance(entry, tuple) and entry[0] == "typedef":
                    return entry[1]
                if names[0] in ("image1d_t", "image2d_t", "image3d_t", "sampler_t", "event_t",
                                "image1d_array_t", "image2d_array_t", "image1d_buffer_t"):
                    self.fail(f"type '{names[0]}' is not supported by clcoop", node)
            self.fail(f"unknown type name '{' '.join(names)}'", node)
        if isinstance(node, (c_ast.Struct, c_ast.Union)):
            return self.struct_type(node)
        if isinstance(node, c_ast.Enum):
            return self.enum_type(node)
        self.fail(f"unsupported type specifier '{type(node).__name__}'", node)

    def struct_type(self, node):
        is_union = isinstance(node, c_ast.Union)
        tag = node.name
        existing = self.scope.lookup_tag(tag) if tag else None
        if node.decls is None:
            if isinstance(existing, T.StructType):
                return existing
            st = T.StructType(tag, is_union)
            self.scope.tags[tag] = st
            return st
        if isinstance(existing, T.StructType) and tag in self.scope.tags and not existing.complete:
            st = existing
        else:
            st = T.StructType(tag, is_union)
            if tag:
                self.scope.tags[tag] = st
        fields = []
        for d in node.decls:
            if d.name is None and isinstance(d.type, (c_ast.Struct, c_ast.Union)):
                # An anonymous struct/union member (C11 6.7.2.1p13): its members are found
                # as members of the enclosing struct (member_path).
                fields.append(T.StructField(None, self.struct_type(d.type)))
                continue
            ftype, _, _ = self.full_decl_type(d)
            if ftype.is_coop_matrix:
                self.fail("cooperative matrix type cannot be a struct or union member", d)
            fields.append(T.StructField(d.name, ftype))
        st.fields.clear()
        st.fields.extend(fields)
        object.__setattr__(st, "complete", True)
        return st

    def enum_type(self, node):
        tag = node.name
        if node.values is None:
            existing = self.scope.lookup_tag(tag)
            if isinstance(existing, T.EnumType):
                return existing
            return T.EnumType(tag)
        et = T.EnumType(tag)
        if tag:
            self.scope.tags[tag] = et
        value = 0
        for enumerator in node.values.enumerators:
            if enumerator.value is not None:
                value = self.integer_constant(enumerator.value, "enumerator value")
            self.scope.names[enumerator.name] = ("enum", value, et, location(enumerator))
            value += 1
        return et

    def quals_info(self, quals, node):
        """(addrspace or None, const, volatile, restrict) from a qualifier list."""
        aspace, const, volatile, restrict = None, False, False, False
        for q in quals or []:
            if not isinstance(q, str):
                continue
            if q in ADDRSPACE_QUALS:
                if aspace is not None and aspace != ADDRSPACE_QUALS[q]:
                    self.fail("multiple address spaces specified for type", node)
                aspace = ADDRSPACE_QUALS[q]
            elif q == "const":
                const = True
            elif q == "volatile":
                volatile = True
            elif q in ("restrict", "__restrict", "__restrict__"):
                restrict = True
        return aspace, const, volatile, restrict

    def declarator_type(self, node, decl=None, typedef_name=None):
        """Type of a declarator: returns (type, object addrspace or None, object const)."""
        if isinstance(node, c_ast.TypeDecl):
            base = self.base_type(node.type)
            aspace, const, _, _ = self.quals_info(node.quals, node)
            if isinstance(node.type, c_ast.IdentifierType) and len(node.type.names) == 1:
                entry = self.scope.lookup(node.type.names[0])
                if isinstance(entry, tuple) and entry[0] == "typedef":
                    if aspace is None:
                        aspace = entry[2]
            return base, aspace, const
        if isinstance(node, c_ast.PtrDecl):
            pointee, p_as, p_const = self.declarator_type(node.type, decl)
            if pointee.is_coop_matrix:
                self.fail("pointer to cooperative matrix type is not allowed", name_location(node))
            _, _, p_vol, _ = self.quals_info(getattr(node.type, "quals", None), node)
            own_as, own_const, vol, restrict = self.quals_info(node.quals, node)
            if p_as is None:
                p_as = self.default_pointee_space()
            return T.PointerType(pointee, p_as, p_const, p_vol, restrict), own_as, own_const
        if isinstance(node, c_ast.ArrayDecl):
            elem, aspace, const = self.declarator_type(node.type, decl)
            if elem.is_coop_matrix:
                self.fail("array of cooperative matrix type is not supported", name_location(node))
            length = None
            if node.dim is not None:
                length = self.integer_constant(node.dim, "array size")
                if length <= 0:
                    self.fail("array size must be greater than zero" if length == 0
                              else "array size is negative", node.dim)
            return T.ArrayType(elem, length), aspace, const
        if isinstance(node, c_ast.FuncDecl) or type(node).__name__ == "FuncDeclExt":
            ret, ret_space, _ = self.declarator_type(node.type, decl)
            if ret_space is not None:
                # OpenCL C 3.0 6.7: a function's return value is in no address space.
                self.fail("return type cannot be qualified with address space", decl)
            params = []
            variadic = False
            if node.args is not None:
                for p in node.args.params:
                    if isinstance(p, c_ast.EllipsisParam):
                        variadic = True
                        continue
                    pt, _, _ = self.full_decl_type(p)
                    if pt.is_void and getattr(p, "name", None) is None and len(node.args.params) == 1:
                        continue
                    params.append(self.adjust_param_type(pt))
            return T.FunctionType(ret, tuple(params), variadic), None, False
        if isinstance(node, c_ast.Typename):
            return self.declarator_type(node.type, node)
        self.fail(f"unsupported declarator '{type(node).__name__}'", node)

    def default_pointee_space(self):
        # OpenCL C 3.0 with __opencl_c_generic_address_space: an unqualified pointee is generic (6.7.1).
        return T.GENERIC

    def adjust_param_type(self, t):
        """C99 6.7.5.3: array parameters are pointers."""
        if isinstance(t, T.ArrayType):
            return T.PointerType(t.elem, self.default_pointee_space())
        return t

    def full_decl_type(self, decl, typedef_name=None):
        """(type, addrspace, const) of a Decl/Typedef/Typename including a coop_mat attribute."""
        t, aspace, const = self.declarator_type(decl.type, decl, typedef_name)
        for name, args, node in self.attributes_of(decl):
            if name in ("coop_mat", "__coop_mat__"):
                inner = decl.type
                while inner is not None and not isinstance(inner, c_ast.TypeDecl):
                    inner = getattr(inner, "type", None)
                base_node = inner.type if inner is not None else node
                if not isinstance(decl.type, c_ast.TypeDecl):     # a pointer, array or function
                    self.fail(f"'{spell(t)}' is invalid cooperative matrix element type", base_node)
                t = self.coop_mat_type(t, args, node, base_node, typedef_name)
            elif name in ("ext_vector_type", "__ext_vector_type__"):
                t = self.ext_vector_type(t, args, node, decl, typedef_name)
        return t, aspace, const

    def ext_vector_type(self, elem, args, attr_node, decl, typedef_name):
        """`typedef T name __attribute__((ext_vector_type(N)))`: clang's OpenCL vector type
        (clang's AttrDocs: ext_vector_type applies to typedefs of scalar types)."""
        if typedef_name is None:
            self.fail("'ext_vector_type' attribute only applies to typedefs", attr_node)
        if len(args) != 1:
            self.fail(f"'ext_vector_type' attribute takes one argument", attr_node)
        elem = as_arith(elem) if isinstance(elem, T.EnumType) else elem
        if not isinstance(decl.type, c_ast.TypeDecl) or not isinstance(elem, T.ScalarType) \
                or elem.is_void or elem.name == "bool":
            self.fail(f"invalid vector element type '{spell(elem)}'", attr_node)
        count = self.integer_constant(args[0], "'ext_vector_type' attribute")
        if count <= 0:
            self.fail("zero vector size" if count == 0 else "vector size too large", args[0])
        if count not in (1,) + T.VECTOR_SIZES:
            # clang accepts any width; OpenCL C (6.3.1) defines 2, 3, 4, 8 and 16 only.
            self.fail(f"vector of {count} elements is not supported by clcoop "
                      f"(OpenCL C vectors have 2, 3, 4, 8 or 16)", args[0])
        return T.vector_of(elem, count)

    # ------------------------------------------------------------------ declarations
    def typedef(self, node):
        with self.poison_on_error(node.name):
            t, aspace, _ = self.full_decl_type(node, typedef_name=node.name)
        self.declare_typedef(node, t, aspace)

    def declare_typedef(self, node, t, aspace):
        previous = self.scope.names.get(node.name)
        if isinstance(previous, tuple) and previous[0] == "typedef" and previous[3] is not None:
            # C11 6.7p3 allows the same type again (clang warns under C99); another type is an error.
            note = [self.note("previous definition is here", previous[3])]
            if previous[1] != t:
                self.fail(f"typedef redefinition with different types ('{spell(t)}' vs '{spell(previous[1])}')",
                          name_location(node), note)
            if not previous[3].file.endswith("opencl-c-coop.h"):   # clang: not for system headers
                self.warn(f"redefinition of typedef '{node.name}' is a C11 feature [-Wtypedef-redefinition]",
                          name_location(node), note)
            return
        if isinstance(t, T.StructType) and t.tag is None and t.typedef_name is None:
            object.__setattr__(t, "typedef_name", node.name)
        self.scope.names[node.name] = ("typedef", t, aspace, location(node))
        if t.is_coop_matrix:
            self.coop_decl_locs[node.name] = location(node)

    def declaration(self, node, program_scope=False):
        if isinstance(node.type, (c_ast.Struct, c_ast.Union, c_ast.Enum)) and node.name is None:
            self.base_type(node.type)        # a tag declaration only
            return []
        if node.type is not None and (isinstance(node.type, c_ast.FuncDecl)
                                      or type(node.type).__name__ == "FuncDeclExt"):
            self.function_declaration(node)
            return []
        with self.poison_on_error(node.name):
            t, aspace, const = self.full_decl_type(node)
        storage = list(node.storage or [])
        if "typedef" in storage:
            self.declare_typedef(node, t, aspace)
            return []
        previous = self.scope.names.get(node.name)
        if "extern" in storage and program_scope:
            return self.extern_declaration(node, t, aspace, const, previous)
        if program_scope and isinstance(previous, tast.Var) and id(previous) in self.extern_vars:
            return [self.define_extern(node, previous, t, aspace, const)]
        if isinstance(previous, (tast.Var, tast.Function)) or (isinstance(previous, tuple) and previous[0] == "enum"):
            prev_loc = previous.loc if not isinstance(previous, tuple) else previous[3]
            self.poisoned.discard(node.name)
            kind = " as different kind of symbol" if isinstance(previous, tast.Function) else ""
            self.fail(f"redefinition of '{node.name}'{kind}", name_location(node),
                      [self.note("previous definition is here", prev_loc)] if prev_loc else [])
        if program_scope:
            var = self.global_variable(node, t, aspace, const)
            return [var]
        return [self.local_variable(node, t, aspace, const, "static" in storage)]

    def extern_declaration(self, node, t, aspace, const, previous):
        """`extern T x;` at program scope (C99 6.9.2): declares x; a definition must follow in
        this translation unit if x is used (clcoop links nothing; clang leaves an external global)."""
        space = T.GLOBAL if aspace in (None, T.GENERIC) else aspace
        if self.pre_cl20 and aspace != T.CONSTANT:
            self.fail("extern variable must reside in constant address space", node)
        if aspace in (T.LOCAL, T.PRIVATE, T.GENERIC):
            self.fail("extern variable must reside in global or constant address space", node)
        if isinstance(previous, tast.Var):
            if previous.type != t and not (isinstance(previous.type, T.ArrayType) and isinstance(t, T.ArrayType)
                                           and previous.type.elem == t.elem and t.length is None):
                self.fail(f"redeclaration of '{node.name}' with a different type: '{spell(t)}' vs "
                          f"'{spell(previous.type)}'", name_location(node),
                          [self.note("previous declaration is here", previous.loc)])
            return []
        if node.init is not None:
            self.warn("'extern' variable has an initializer", name_location(node))
            return [self.global_variable(node, t, aspace, const)]
        var = tast.Var(node.name, t, "global", space, None, location(node), const or space == T.CONSTANT,
                       global_name=node.name)
        self.scope.names[node.name] = var
        self.extern_vars[id(var)] = var
        return []

    def define_extern(self, node, var, t, aspace, const):
        """The definition of a variable declared `extern` before: the same Var, now defined."""
        del self.extern_vars[id(var)]
        del self.scope.names[node.name]
        defined = self.global_variable(node, t, aspace, const)
        self.globals.remove(defined)
        if defined.type != var.type and not (isinstance(var.type, T.ArrayType) and var.type.length is None):
            self.fail(f"redefinition of '{node.name}' with a different type: '{spell(defined.type)}' vs "
                      f"'{spell(var.type)}'", name_location(node),
                      [self.note("previous declaration is here", var.loc)])
        for field_name in ("type", "addrspace", "initializer", "loc", "is_const"):
            setattr(var, field_name, getattr(defined, field_name))
        if id(defined) in self.implicitly_const:
            self.implicitly_const.add(id(var))
        self.scope.names[node.name] = var
        self.globals.append(var)
        return var

    def overloadable_declaration(self, node, name, ftype, is_kernel, defining):
        """`__attribute__((overloadable))` (clang's C extension): one function per parameter
        list, named as clang mangles it (Itanium, like the OpenCL built-ins)."""
        try:
            mangled = _builtins.mangle(name, ftype.params)
        except ValueError:
            self.fail(f"clcoop cannot mangle the parameter types of overloadable function '{name}'",
                      name_location(node))
        family = self.overloads.setdefault(name, [])
        for existing in family:
            if existing.mangled == mangled:
                if existing.type != ftype:
                    self.fail(f"conflicting types for '{name}'", name_location(node),
                              [self.note("previous declaration is here", existing.loc)])
                if defining and existing.body is not None:
                    self.fail(f"redefinition of '{name}'", name_location(node),
                              [self.note("previous definition is here", existing.loc)])
                if defining:
                    existing.loc = location(node)
                return existing
        fn = tast.Function(name, ftype, [], None, is_kernel, "static" in (node.storage or []), location(node),
                           mangled=mangled)
        self.declared_param_names[id(fn)] = declared_parameter_names(node)
        family.append(fn)
        self.functions.append(fn)
        self.scope.names.setdefault(name, fn)
        return fn

    def overloaded_call(self, name, args_nodes, node):
        """A call to a user's overloadable function: clang's overload resolution picks one."""
        family = self.overloads[name]
        arg_types = [self.rvalue(self.expr(a)).type for a in args_nodes]
        candidates = {_builtins.BuiltinOverload(name, f.type.ret, f.type.params, f.mangled): f for f in family}
        try:
            chosen = _builtins.select_overload(name, list(candidates), arg_types)
        except _builtins.BuiltinMismatch as exc:
            by_signature = {o.signature(): f for o, f in candidates.items()}
            notes = []
            for text in exc.notes:        # "candidate function: <signature>": at its declaration, as clang
                head, _, signature = text.partition(": ")
                fn = by_signature.get(signature)
                notes.append(self.note(head, fn.loc) if fn is not None else self.note(text, location(node)))
            self.fail(exc.message, node, notes)
        return self.user_call(candidates[chosen], args_nodes, node)

    def check_object_type(self, t, node, where):
        if t.is_void:
            self.fail(f"variable has incomplete type 'void'", node)
        if isinstance(t, T.StructType) and not t.complete:
            self.fail(f"variable has incomplete type '{spell(t)}'", node)

    def coop_storage_error(self, t, aspace, node, where):
        if t.is_coop_matrix:
            if where == "program":
                self.fail("cooperative matrix type cannot be declared at program scope", node)
            self.fail(f"cooperative matrix type cannot be declared in the "
                      f"'{T.ADDRSPACE_NAMES[aspace]}' address space", node)

    def global_variable(self, node, t, aspace, const):
        self.coop_storage_error(t, aspace, node, "program")
        if self.pre_cl20 and aspace != T.CONSTANT:
            # OpenCL C 1.2 6.5: program-scope variables are __constant (globals came in 2.0).
            self.fail("program scope variable must reside in constant address space", node)
        if aspace == T.GENERIC:
            self.fail("program scope variable must reside in global or constant address space", node)
        if aspace is None:
            aspace = T.GLOBAL      # OpenCL C 2.0+: program-scope variables default to __global
        self.require_fp16_object(t, aspace, node, "variable")
        if aspace in (T.PRIVATE, T.LOCAL):
            self.fail(f"program scope variable must reside in global or constant address space", node)
        self.check_object_type(t, node, "global")
        var = self.static_storage_variable(node, t, "global", aspace, const, node.name)
        self.globals.append(var)
        return var

    def static_storage_variable(self, node, t, storage, space, const, global_name):
        """A program-scope or static variable: __constant ones are const and must be
        initialized, initializers are constant expressions (OpenCL C 3.0 6.7.1)."""
        var = tast.Var(node.name, t, storage, space, None, location(node), const or space == T.CONSTANT,
                       global_name=global_name)
        if space == T.CONSTANT and not const:
            self.implicitly_const.add(id(var))
        self.scope.names[node.name] = var
        if node.init is not None:
            var.initializer = self.initializer(node.init, var, constant=True, decl=node)
            var.type = self.complete_array_type(var.type, var.initializer)
        elif space == T.CONSTANT:
            self.fail("variable in constant address space must be initialized", node)
        return var

    def local_variable(self, node, t, aspace, const, is_static):
        fn = self.fn.function
        loc = location(node)
        if aspace in (T.GLOBAL, T.LOCAL, T.CONSTANT) and t.is_coop_matrix:
            self.coop_storage_error(t, aspace, node, "local")
        if aspace == T.GLOBAL and not is_static:
            self.fail("function scope variable cannot be declared in global address space", node)
        if is_static and not self.pre_cl20 and aspace in (T.LOCAL, T.PRIVATE, T.GENERIC):
            # OpenCL C 3.0 6.7.1: static variables of functions are __global or __constant.
            self.fail("static local variable must reside in global or constant address space", node)
        if aspace == T.GENERIC and not is_static:
            self.fail("automatic variable qualified with an invalid address space", node)
        self.check_object_type(t, node, "local")
        self.require_fp16_object(t, aspace if aspace != T.GENERIC else T.PRIVATE, node, "variable")
        if aspace in (T.LOCAL, T.CONSTANT) and not is_static:
            # OpenCL C 3.0 6.7.1/6.7.3: only in the outermost scope of a kernel (clang's words).
            space = "local" if aspace == T.LOCAL else "constant"
            if not fn.is_kernel and aspace == T.LOCAL:
                self.fail(f"non-kernel function variable cannot be declared in {space} address space", node)
            if not fn.is_kernel:      # reported; the variable is still declared, as clang does
                self.error(f"non-kernel function variable cannot be declared in {space} address space", node)
            elif self.fn.depth > 1:
                self.error(f"variables in the {space} address space can only be declared in the "
                          f"outermost scope of a kernel function", node)
        if aspace == T.LOCAL:
            if node.init is not None:
                self.fail("'__local' variable cannot have an initializer", node.init)
            var = tast.Var(node.name, t, "kernel-local", T.LOCAL, None, loc, const,
                           global_name=f"{fn.name}.{node.name}")
            fn.local_vars.append(var)
            self.scope.names[node.name] = var
            return var
        if is_static or aspace in (T.CONSTANT, T.GLOBAL):
            if is_static and self.pre_cl20:
                # OpenCL C 1.2 6.8: no static storage class in functions (2.0 added it).
                self.fail("variables in function scope cannot be declared static", node)
            if t.is_coop_matrix:
                self.fail("cooperative matrix type cannot be declared 'static'", node)
            # OpenCL C 2.0+: static function-scope variables live in the global address space.
            space = aspace if aspace in (T.CONSTANT, T.GLOBAL) else T.GLOBAL
            # Same-named statics of inner scopes get clang's suffixes: f.x, f.x.1, f.x.2 ...
            name = f"{fn.name}.{node.name}"
            taken = sum(1 for v in fn.static_vars if v.name == node.name)
            var = self.static_storage_variable(node, t, "static", space, const,
                                               f"{name}.{taken}" if taken else name)
            fn.static_vars.append(var)
            return var
        var = tast.Var(node.name, t, "local-var", T.PRIVATE, None, loc, const)
        # The name is visible in its own initializer (C99 6.2.1p7), but a matrix load needs the type.
        self.scope.names[node.name] = var
        if node.init is None and (t.is_coop_matrix or t.is_pointer or isinstance(t, (T.ScalarType, T.VectorType))):
            self.fn.uninitialized.declared(var)
        if node.init is not None:
            var.initializer = self.initializer(node.init, var, constant=False, decl=node)
            var.type = self.complete_array_type(var.type, var.initializer)
        elif isinstance(t, T.ArrayType) and t.length is None:
            self.fail(f"definition of variable with array type needs an explicit size or an initializer", node)
        return var

    def complete_array_type(self, t, init):
        """`T a[] = {...}`: the initializer gives the length (C99 6.7.8p22)."""
        if isinstance(t, T.ArrayType) and t.length is None and isinstance(init, tast.InitList):
            return T.ArrayType(t.elem, len(init.elements))
        return t

    # ------------------------------------------------------------------ initializers
    def initializer(self, node, var, constant, decl=None):
        # clang points a conversion error in `T x = e;` at the name x (in a list, at the element).
        at = name_location(decl) if decl is not None and not isinstance(node, c_ast.InitList) else None
        init = self.init_for_type(node, var.type, "initializing", at)
        if constant:
            init = self.constant_initializer(init, node)
        return init

    def init_for_type(self, node, t, context, at=None):
        if isinstance(node, c_ast.InitList):
            if isinstance(t, T.ArrayType):
                return self.array_init_list(node, t)
            if isinstance(t, T.StructType):
                return self.struct_init_list(node, t)
            if isinstance(t, T.VectorType):
                elements = [self.convert(self.rvalue(self.expr(e)), t.elem, e, context)
                            for e in node.exprs]
                if len(elements) > t.count:
                    self.fail("excess elements in vector initializer", node.exprs[t.count])
                return tast.InitList(t, elements + [None] * (t.count - len(elements)), location(node))
            if not node.exprs:
                self.fail("scalar initializer cannot be empty", node)
            if len(node.exprs) > 1:
                self.warn("excess elements in scalar initializer", node.exprs[1])
            return self.init_for_type(node.exprs[0], t, context)
        if isinstance(t, T.ArrayType):
            if isinstance(node, c_ast.Constant) and node.type == "string" and t.elem.is_integer:
                self.limit_initialized_array(t, node)
                data = self.string_bytes(node) + b"\0"
                n = t.length if t.length is not None else len(data)
                elements = [tast.IntConst(t.elem, location(node), wrap_int(b, t.elem)) for b in data[:n]]
                return tast.InitList(T.ArrayType(t.elem, n), elements + [None] * (n - len(elements)),
                                     location(node))
            self.fail(f"array initializer must be an initializer list", node)
        value = self.expr(node, expected=t)
        return self.convert(self.rvalue(value), t, at or node, context)

    def array_init_list(self, node, t):
        return self.fill_array(InitCursor(node.exprs), t, location(node), braced=True)

    def struct_init_list(self, node, t):
        return self.fill_struct(InitCursor(node.exprs), t, location(node), braced=True)

    # C99 6.7.8p20 (brace elision): an aggregate element initialized without its own braces takes
    # as many initializers from the enclosing list as it has members; a designator ends it.
    def limit_initialized_array(self, t, loc):
        """Initializers are lists of every element (lower emits them whole), so a huge array
        with an initializer would exhaust memory; clang emits a zero tail instead."""
        if t.length is not None and t.length > MAX_INITIALIZED_ELEMENTS:
            self.fail(f"an initializer for an array of {t.length} elements is not supported by "
                      f"clcoop (at most {MAX_INITIALIZED_ELEMENTS})", loc)

    def fill_array(self, cursor, t, loc, braced):
        self.limit_initialized_array(t, loc)
        elements = []
        pos = 0
        while not cursor.done():
            e = cursor.peek()
            if isinstance(e, c_ast.NamedInitializer):
                if not braced:
                    break
                cursor.take()
                if isinstance(e.name[0], c_ast.ID):
                    self.fail(f"field designator '{e.name[0].name}' used in an array initializer", e)
                pos = self.integer_constant(e.name[0], "array designator")
                if pos < 0:
                    self.fail(f"array designator value '{pos}' is negative", e.name[0])
                if t.length is not None and pos >= t.length:
                    self.fail(f"array designator index ({pos}) exceeds array bounds ({t.length})", e.name[0])
                if pos >= MAX_INITIALIZED_ELEMENTS:
                    self.fail(f"an initializer for an array of more than {MAX_INITIALIZED_ELEMENTS} "
                              f"elements is not supported by clcoop", e.name[0])
                while len(elements) <= pos:
                    elements.append(None)
                elements[pos] = self.designated_element(e.expr, e.name[1:], t.elem, elements[pos])
                pos += 1
                continue
            if t.length is not None and pos >= t.length:
                if braced:
                    self.warn("excess elements in array initializer", e)
                break
            while len(elements) <= pos:
                elements.append(None)
            elements[pos] = self.element_initializer(cursor, t.elem)
            pos += 1
        n = t.length if t.length is not None else len(elements)
        elements += [None] * (n - len(elements))
        return tast.InitList(T.ArrayType(t.elem, n), elements, loc)

    def fill_struct(self, cursor, t, loc, braced):
        if not t.complete:
            self.fail(f"variable has incomplete type '{spell(t)}'", loc)
        elements = [None] * len(t.fields)
        pos = 0
        while not cursor.done():
            e = cursor.peek()
            if isinstance(e, c_ast.NamedInitializer):
                if not braced:
                    break
                cursor.take()
                if not isinstance(e.name[0], c_ast.ID):
                    self.fail(f"array designator cannot initialize non-array type '{spell(t)}'", e)
                name = e.name[0].name
                names = [f.name for f in t.fields]
                if name not in names:
                    # clang points at the designator's '.'
                    where = self.designator_location(e.name[0], name)
                    self.fail(f"field designator '{name}' does not refer to any field in type '{spell(t)}'", where)
                pos = names.index(name)
                elements[pos] = self.designated_element(e.expr, e.name[1:], t.fields[pos].type, elements[pos])
            else:
                if pos >= len(t.fields) or (t.is_union and pos > 0):
                    if braced:
                        self.warn(f"excess elements in {'union' if t.is_union else 'struct'} initializer", e)
                    break
                elements[pos] = self.element_initializer(cursor, t.fields[pos].type)
            pos += 1
            if t.is_union and not braced:
                break
        return tast.InitList(t, elements, loc)

    def designator_location(self, node, name):
        """The '.' of a field designator `.name`: pycparser places the node at the list's brace."""
        loc = location(node)
        text = self.diag.sources.line(loc.file, loc.line) if self.diag.sources is not None and loc else None
        if text is not None:
            found = re.compile(r"\.\s*" + re.escape(name) + r"\b").search(text.expandtabs(1), loc.column - 1)
            if found:
                return SourceLocation(loc.file, loc.line, found.start() + 1)
        return loc

    def element_initializer(self, cursor, t):
        """Initializer of one element of type t, from its own braces or by brace elision."""
        e = cursor.peek()
        if isinstance(e, c_ast.InitList) or not self.elides_braces(e, t):
            cursor.take()
            return self.init_for_type(e, t, "initializing")
        if isinstance(t, T.ArrayType):
            return self.fill_array(cursor, t, location(e), braced=False)
        return self.fill_struct(cursor, t, location(e), braced=False)

    def elides_braces(self, e, t):
        if isinstance(t, T.ArrayType):
            return not (isinstance(e, c_ast.Constant) and e.type == "string" and t.elem.is_integer)
        if isinstance(t, T.StructType):
            # a struct-typed expression initializes the whole element (C99 6.7.8p13)
            return self.rvalue(self.expr(e)).type != t
        return False

    def designated_element(self, expr, rest, t, existing):
        """Initializer of one element; `rest` are the designators after the first (C99 6.7.8p17:
        `[1].a = 3` initializes member a of element 1, keeping what earlier initializers set)."""
        if not rest:
            return self.init_for_type(expr, t, "initializing")
        if not isinstance(t, (T.ArrayType, T.StructType)):
            self.fail(f"designator into non-aggregate type '{spell(t)}'", rest[0])
        nested = c_ast.InitList([c_ast.NamedInitializer(list(rest), expr, coord=expr.coord)], coord=expr.coord)
        return merge_initializers(existing, self.init_for_type(nested, t, "initializing"))

    def constant_initializer(self, init, node):
        """Fold a program-scope/static initializer to constants (tast docstring)."""
        if init is None:
            return None
        if isinstance(init, tast.InitList):
            return tast.InitList(init.type, [self.constant_initializer(e, node) for e in init.elements], init.loc)
        if isinstance(init, tast.VectorLiteral) or (isinstance(init, tast.ImplicitCast) and init.kind == "splat"):
            value = self.fold(init)
            if value is None:
                self.fail("initializer element is not a compile-time constant", init.loc)
            return self.const_node(init.type, value, init.loc)
        value = self.fold(init)
        if value is None:
            if init.type.is_pointer and isinstance(init, tast.ImplicitCast) and init.kind == "null-to-pointer":
                return None
            if init.type.is_pointer:
                address = self.address_constant(init)
                if address is not None:
                    return address
            if isinstance(init, (tast.ImplicitCast, tast.Cast)) and init.kind == "pointer-to-int" \
                    and init.type.size == self.target.pointer_bits // 8:
                # An address constant cast to a pointer-sized integer (clang: a ptrtoint constant).
                address = self.address_constant(init.operand)
                if address is not None:
                    return tast.Cast(init.type, init.loc, "pointer-to-int", address)
            # clang points at the expression's operator (`&g[i]`, `g + i`), in a list at the element.
            where = init.loc if isinstance(node, c_ast.InitList) else self.node_location(node)
            self.fail("initializer element is not a compile-time constant", where)
        return self.const_node(init.type, value, init.loc)

    # C99 6.6p9: an address constant is a null pointer, a pointer to an object of static storage
    # duration, or a decayed array of static storage duration, made with & [] . -> * and casts,
    # plus or minus an integer constant. The node returned has every index folded to an IntConst,
    # the form lower's const_address_value accepts.
    ADDRESS_CASTS = ("noop", "pointer-bitcast", "addrspace-to-generic", "addrspace-cast")

    def address_constant(self, e):
        """Normalised address-constant expression of pointer type, or None."""
        if isinstance(e, (tast.ImplicitCast, tast.Cast)):
            if e.kind in self.ADDRESS_CASTS:
                inner = self.address_constant(e.operand)
                return None if inner is None else tast.ImplicitCast(e.type, e.loc, e.kind, inner)
            if e.kind == "array-to-pointer":
                inner = self.static_lvalue(e.operand)
                return None if inner is None else tast.ImplicitCast(e.type, e.loc, e.kind, inner)
            if e.kind == "null-to-pointer":
                return e
            return None
        if isinstance(e, tast.AddrOf):
            inner = self.static_lvalue(e.operand)
            return None if inner is None else tast.AddrOf(e.type, e.loc, inner)
        if isinstance(e, tast.PointerArith):
            pointer = self.address_constant(e.pointer)
            offset = self.fold(e.offset)
            if pointer is None or not isinstance(offset, int):
                return None
            return tast.PointerArith(e.type, e.loc, e.op, pointer, tast.IntConst(e.offset.type, e.offset.loc, offset))
        return None

    def static_lvalue(self, e):
        """An lvalue designating (part of) an object of static storage duration, with constant
        indices folded; None otherwise."""
        if isinstance(e, tast.VarRef):
            return e if e.var.storage in ("global", "static") else None
        if isinstance(e, tast.Index):
            base = self.address_constant(e.base)
            index = self.fold(e.index)
            if base is None or not isinstance(index, int):
                return None
            return tast.Index(e.type, e.loc, base, tast.IntConst(e.index.type, e.index.loc, index))
        if isinstance(e, tast.Member) and e.base.is_lvalue:
            base = self.static_lvalue(e.base)
            return None if base is None else tast.Member(e.type, e.loc, base, e.field_index, e.name)
        if isinstance(e, tast.Deref):
            pointer = self.address_constant(e.operand)
            return None if pointer is None else tast.Deref(e.type, e.loc, pointer)
        return None

    def const_node(self, t, value, loc):
        if isinstance(t, T.VectorType):
            return tast.VectorLiteral(t, loc, [self.const_node(t.elem, v, loc) for v in value])
        t2 = as_arith(t)
        if t2.is_float:
            return tast.FloatConst(t, loc, float(value))
        if t.is_pointer:
            return None
        return tast.IntConst(t, loc, wrap_int(int(value), t2))

    # ------------------------------------------------------------------ functions
    def function_declaration(self, node, defining=False):
        ftype, _, _ = self.declarator_type(node.type, node)
        name = node.name
        if ftype.ret == T.HALF:
            self.require_fp16("declaring function return value of type 'half' is not allowed ; "
                              "did you forget * ?", name_location(node))
        args = getattr(node.type, "args", None)
        for p in (args.params if args is not None else []):
            if isinstance(p, c_ast.Decl) and getattr(p, "type", None) is not None:
                pt, paspace, _ = self.full_decl_type(p)
                if pt == T.HALF:
                    self.require_fp16_object(pt, paspace, p, "parameter")
        funcspec = [s for s in (node.funcspec or []) if isinstance(s, str)]
        is_kernel = "__kernel" in funcspec or "kernel" in funcspec
        if name in COOP_BUILTINS or name == "printf" or (_builtins is not None and _builtins.is_builtin(name)):
            if not defining:
                return None    # a re-declaration of a built-in (e.g. from a header): keep the built-in
        if ftype.variadic:
            # OpenCL C 3.0 6.11 (restrictions): only printf is variadic; clang-22's wording.
            self.fail("invalid prototype, variadic arguments are not allowed in OpenCL", name_location(node))
        overloadable = any(n.strip("_") == "overloadable" for n, _, _ in self.attributes_of(node))
        if overloadable:
            return self.overloadable_declaration(node, name, ftype, is_kernel, defining)
        other = self.scope.names.get(name)
        if other is not None and not isinstance(other, tast.Function):
            other_loc = other[3] if isinstance(other, tuple) else other.loc
            self.fail(f"redefinition of '{name}' as different kind of symbol", name_location(node),
                      [self.note("previous definition is here", other_loc)] if other_loc else [])
        existing = self.function_by_name.get(name)
        if existing is not None:
            if existing.type != ftype:
                self.fail(f"conflicting types for '{name}'", node,
                          [self.note("previous declaration is here", existing.loc)])
            if defining and existing.body is not None:
                self.fail(f"redefinition of '{name}'", node,
                          [self.note("previous definition is here", existing.loc)])
            if defining:
                existing.loc = location(node)
            return existing
        fn = tast.Function(name, ftype, [], None, is_kernel, "static" in (node.storage or []), location(node))
        self.declared_param_names[id(fn)] = declared_parameter_names(node)
        self.function_by_name[name] = fn
        self.functions.append(fn)
        self.scope.names[name] = fn
        return fn

    def function_definition(self, node):
        decl = node.decl
        fn = self.function_declaration(decl, defining=True)
        if fn is None:
            self.fail(f"redefinition of built-in function '{decl.name}'", decl)
        fn.is_kernel = fn.is_kernel or any(s in ("__kernel", "kernel") for s in decl.funcspec or []
                                           if isinstance(s, str))
        fn.body = tast.Compound(location(node.body), [])   # marks it defined even if the body fails
        self.kernel_attributes(fn, decl)
        if fn.is_kernel and fn.is_static:
            self.error("kernel functions cannot be declared static", name_location(decl))
        if fn.name == "main":
            # OpenCL C 3.0 6.11.e: no `main` (the host starts kernels); clang-22's wording.
            self.error(f"{'kernel' if fn.is_kernel else 'function'} cannot be called 'main'",
                       name_location(decl))
        if fn.is_kernel and not fn.type.ret.is_void:
            self.error("kernel must have void return type", decl)
        if isinstance(fn.type.ret, T.ArrayType):
            self.error("function cannot return array type", decl)
        outer = self.scope
        self.scope = Scope(outer)
        self.fn = FunctionContext(fn)
        try:
            fn.params = self.parameters(fn, decl)
            fn.body = self.compound(node.body, new_scope=False)
            self.resolve_gotos()
            self.warn_uninitialized_uses()
        finally:
            self.scope = outer
            self.fn = None

    def parameters(self, fn, decl):
        func_decl = decl.type
        params = []
        if func_decl.args is None:
            return params
        index = 0
        for p in func_decl.args.params:
            if isinstance(p, c_ast.EllipsisParam):
                continue
            t, aspace, const = self.full_decl_type(p)
            if t.is_void and getattr(p, "name", None) is None:
                continue
            t = self.adjust_param_type(t)
            if p.name is None:
                self.error("parameter name omitted", p)
            var = tast.Var(p.name or f"arg{index}", t, "param", T.PRIVATE, None, location(p), const)
            if fn.is_kernel:
                self.kernel_parameter_checks(var, p)
                fn.param_type_names.append(self.written_type_name(p))
                fn.param_access_quals.append("none")
            params.append(var)
            if p.name:
                if p.name in self.scope.names:
                    self.error(f"redefinition of parameter '{p.name}'", p)
                self.scope.names[p.name] = var
            index += 1
        return params

    def written_type_name(self, p):
        """Parameter type as written (typedef names kept) for kernel_arg_type metadata."""
        node = p.type
        stars = 0
        while isinstance(node, c_ast.PtrDecl):
            stars += 1
            node = node.type
        if isinstance(node, c_ast.TypeDecl) and isinstance(node.type, c_ast.IdentifierType):
            base = " ".join(node.type.names)
            base = {"unsigned int": "uint", "unsigned char": "uchar", "unsigned short": "ushort",
                    "unsigned long": "ulong", "unsigned": "uint", "signed char": "char",
                    "_Bool": "bool"}.get(base, base)
            return base + "*" * stars
        if isinstance(node, c_ast.TypeDecl) and isinstance(node.type, (c_ast.Struct, c_ast.Union)):
            kw = "union" if isinstance(node.type, c_ast.Union) else "struct"
            return f"{kw} {node.type.name}" + "*" * stars
        t, _, _ = self.declarator_type(p.type, p)
        return t.spelling()

    def kernel_parameter_checks(self, var, p):
        t = var.type
        p = name_location(p)
        if t.is_coop_matrix:
            notes = []
            if t.typedef_name and t.typedef_name in self.coop_decl_locs:
                notes.append(self.note(f"'{t.typedef_name}' declared here", self.coop_decl_locs[t.typedef_name]))
            self.error(f"'{spell(t)}' cannot be used as the type of a kernel parameter", p, notes)
        elif t == T.BOOL:
            self.error("'bool' cannot be used as the type of a kernel parameter", p)
        elif t.is_pointer and t.pointee.is_pointer and self.pre_cl20:
            # OpenCL C 1.2 6.9.a: no pointer-to-pointer kernel arguments (2.0 lifted it).
            self.error("kernel parameter cannot be declared as a pointer to a pointer", p)
        elif t.is_pointer and not _kernel_pointer_spaces_ok(t):
            # OpenCL C 3.0 6.11.a: every level of a pointer (to pointer) kernel argument
            # points into __global, __constant or __local memory (clang-22's rule and wording).
            self.error("pointer arguments to kernel functions must reside in '__global', "
                       "'__constant' or '__local' address space", p)

    def kernel_attributes(self, fn, decl):
        for name, args, node in self.attributes_of(decl):
            bare = name.strip("_")
            if bare in ("reqd_work_group_size", "work_group_size_hint"):
                if not fn.is_kernel:
                    self.error(f"'{bare}' attribute only applies to kernel functions", node)
                    continue
                if len(args) != 3:
                    self.error(f"'{bare}' attribute requires exactly 3 arguments", node)
                    continue
                values = tuple(self.integer_constant(a, f"'{bare}' attribute") for a in args)
                for a, v in zip(args, values):
                    if v <= 0:
                        self.error(f"'{bare}' attribute must be greater than 0", a)
                setattr(fn, bare, values)
            elif bare == "intel_reqd_sub_group_size":
                if len(args) != 1:
                    self.error("'intel_reqd_sub_group_size' attribute requires exactly 1 argument", node)
                    continue
                value = self.integer_constant(args[0], "'intel_reqd_sub_group_size' attribute")
                if value <= 0:
                    self.error("'intel_reqd_sub_group_size' attribute requires a positive integral "
                               "compile time constant expression", args[0])
                fn.intel_reqd_sub_group_size = value
            elif bare == "vec_type_hint":
                self.vec_type_hint(fn, args, node)
            elif bare in IGNORED_ATTRS:
                pass
            elif bare == "coop_mat":
                self.error("'coop_mat' attribute only applies to variables and typedefs", node)
            else:
                self.warn(f"unknown attribute '{name}' ignored", node)

    def vec_type_hint(self, fn, args, node):
        """`vec_type_hint(<type>)` (OpenCL C 3.0 6.11.2): a scalar or vector of char..double;
        kept for the kernel's !vec_type_hint metadata as clang writes it."""
        if len(args) != 1 or not isinstance(args[0], c_ast.Typename):
            self.error("'vec_type_hint' attribute takes one argument", node)
            return
        t, _, _ = self.full_decl_type(args[0])
        elem = unqualified_elem(t)
        if not isinstance(t, (T.ScalarType, T.VectorType)) or elem.is_void or elem == T.BOOL:
            self.error(f"invalid attribute argument '{spell(t)}' - expecting a vector or vectorizable "
                       "scalar type", args[0])
            return
        if fn.is_kernel:
            fn.vec_type_hint = t

    def resolve_gotos(self):
        for name, node in self.fn.gotos:
            if name not in self.fn.labels:
                self.error(f"use of undeclared label '{name}'", node)

    # ------------------------------------------------------------------ statements
    def compound(self, node, new_scope=True):
        outer = self.scope
        outer_fp_contract = self.fp_contract
        if new_scope:
            self.scope = Scope(outer)
        self.fn.depth += 1
        items = []
        try:
            for index, item in enumerate(node.block_items or []):
                try:
                    if isinstance(item, c_ast.Pragma) and _is_fp_contract_pragma(item) \
                            and not all(isinstance(i, c_ast.Pragma) for i in node.block_items[:index]):
                        self.fp_contract_pragma((item.string or "").split(), item, True)
                        continue
                    items.extend(self.block_item(item))
                except _Abandon:
                    pass
        finally:
            self.fn.depth -= 1
            self.scope = outer
            self.fp_contract = outer_fp_contract
        return tast.Compound(location(node), items)

    def block_item(self, node):
        self.last_loc = location(node) or self.last_loc
        if isinstance(node, c_ast.Decl):
            vars_ = self.declaration(node)
            return [tast.DeclStmt(location(node), vars_)] if vars_ else []
        if isinstance(node, c_ast.Typedef):
            self.typedef(node)
            return []
        if isinstance(node, c_ast.DeclList):
            out = []
            for d in node.decls:
                out.extend(self.declaration(d))
            return [tast.DeclStmt(location(node), out)]
        return [self.statement(node)]

    def statement(self, node):
        loc = location(node)
        if isinstance(node, c_ast.Compound):
            return self.compound(node)
        if isinstance(node, c_ast.If):
            cond = self.condition(node.cond)
            then = self.sub_statement(node.iftrue)
            other = self.sub_statement(node.iffalse) if node.iffalse is not None else None
            return tast.If(loc, cond, then, other)
        if isinstance(node, c_ast.While):
            with self.fn.uninitialized.loop():
                cond = self.condition(node.cond)
                return tast.While(loc, cond, self.loop_body(node.stmt), LOOP_UNROLL_HINTS.get(node))
        if isinstance(node, c_ast.DoWhile):
            with self.fn.uninitialized.loop():
                body = self.loop_body(node.stmt)
                return tast.DoWhile(loc, body, self.condition(node.cond), LOOP_UNROLL_HINTS.get(node))
        if isinstance(node, c_ast.For):
            return self.for_statement(node)
        if isinstance(node, c_ast.Switch):
            return self.switch_statement(node)
        if isinstance(node, c_ast.Case):
            return self.case_statement(node)
        if isinstance(node, c_ast.Default):
            return self.default_statement(node)
        if isinstance(node, c_ast.Break):
            if self.fn.loop_depth == 0 and not self.fn.switch_stack:
                self.fail("'break' statement not in loop or switch statement", node)
            return tast.Break(loc)
        if isinstance(node, c_ast.Continue):
            if self.fn.loop_depth == 0:
                self.fail("'continue' statement not in loop statement", node)
            return tast.Continue(loc)
        if isinstance(node, c_ast.Return):
            return self.return_statement(node)
        if isinstance(node, c_ast.Goto):
            self.fn.gotos.append((node.name, node))
            return tast.Goto(loc, node.name)
        if isinstance(node, c_ast.Label):
            if node.name in self.fn.labels:
                self.fail(f"redefinition of label '{node.name}'", node)
            self.fn.labels[node.name] = node
            return tast.Label(loc, node.name, self.sub_statement(node.stmt))
        if isinstance(node, c_ast.EmptyStatement):
            return tast.Null(loc)
        if isinstance(node, c_ast.Pragma):
            self.pragma(node)
            return tast.Null(loc)
        if isinstance(node, (c_ast.Decl, c_ast.Typedef, c_ast.DeclList)):
            items = self.block_item(node)
            return items[0] if items else tast.Null(loc)
        if isinstance(node, c_ast.StaticAssert):
            self.static_assert(node)
            return tast.Null(loc)
        expr = self.expr(node)
        return tast.ExprStmt(loc, self.rvalue(expr))

    def sub_statement(self, node):
        """A statement in its own scope (C99 6.8.4p3); errors stay inside it."""
        outer = self.scope
        self.scope = Scope(outer)
        try:
            return self.statement(node)
        except _Abandon:
            return tast.Null(location(node))
        finally:
            self.scope = outer

    def loop_body(self, node):
        self.fn.loop_depth += 1
        try:
            return self.sub_statement(node)
        finally:
            self.fn.loop_depth -= 1

    def for_statement(self, node):
        outer = self.scope
        self.scope = Scope(outer)
        try:
            init = None
            if node.init is not None:
                if isinstance(node.init, c_ast.DeclList):
                    vars_ = []
                    for d in node.init.decls:
                        vars_.extend(self.declaration(d))
                    init = tast.DeclStmt(location(node.init), vars_)
                else:
                    init = tast.ExprStmt(location(node.init), self.expr(node.init))
            with self.fn.uninitialized.loop():
                cond = self.condition(node.cond) if node.cond is not None else None
                step = self.expr(node.next) if node.next is not None else None
                body = self.loop_body(node.stmt)
            return tast.For(location(node), init, cond, step, body, LOOP_UNROLL_HINTS.get(node))
        finally:
            self.scope = outer

    def switch_statement(self, node):
        cond = self.rvalue(self.expr(node.cond))
        if not is_integer_like(cond.type):
            self.fail(f"statement requires expression of integer type ('{spell(cond.type)}' invalid)", node.cond)
        ctype = promote(cond.type)
        cond = self.convert(cond, ctype, node.cond, "converting")
        sw = tast.Switch(location(node), cond, None)
        self.fn.switch_stack.append(sw)
        try:
            sw.body = self.sub_statement(node.stmt)
        finally:
            self.fn.switch_stack.pop()
        return sw

    def case_statement(self, node):
        if not self.fn.switch_stack:
            self.fail("'case' statement not in switch statement", node)
        sw = self.fn.switch_stack[-1]
        value = wrap_int(self.integer_constant(node.expr, "case value"), sw.cond.type)
        for c in sw.cases:
            if c.value == value:
                self.fail(f"duplicate case value '{value}'", node.expr,
                          [self.note("previous case defined here", c.loc)])
        body = self.case_body(node.stmts, node)
        case = tast.Case(location(node), value, body)
        sw.cases.append(case)
        return case

    def default_statement(self, node):
        if not self.fn.switch_stack:
            self.fail("'default' statement not in switch statement", node)
        sw = self.fn.switch_stack[-1]
        if sw.default is not None:
            self.fail("multiple default labels in one switch", node,
                      [self.note("previous case defined here", sw.default.loc)])
        default = tast.Default(location(node), None)
        sw.default = default
        default.body = self.case_body(node.stmts, node)
        return default

    def case_body(self, stmts, node):
        items = []
        for s in stmts or []:
            try:
                items.extend(self.block_item(s))
            except _Abandon:
                pass
        return tast.Compound(location(node), items)

    def return_statement(self, node):
        ret = self.fn.function.type.ret
        loc = location(node)
        if node.expr is None:
            if not ret.is_void:
                self.fail(f"non-void function '{self.fn.function.name}' should return a value", node)
            return tast.Return(loc, None)
        value = self.expr(node.expr, expected=ret)
        if ret.is_void:
            if value.type.is_void:
                # `return f();` with void f (C permits it in practice): evaluate, then return.
                return tast.Compound(loc, [tast.ExprStmt(loc, value), tast.Return(loc, None)])
            self.fail(f"void function '{self.fn.function.name}' should not return a value", node)
        return tast.Return(loc, self.convert(self.rvalue(value), ret, node.expr, "returning"))

    def static_assert(self, node):
        value = self.integer_constant(node.cond, "static assertion expression")
        if not value:
            msg = self.string_bytes(node.message).decode() if node.message is not None else ""
            self.error(f"static assertion failed{': ' + msg if msg else ''}", node)

    def condition(self, node):
        e = self.rvalue(self.expr(node))
        return self.to_bool(e, node)

    def to_bool(self, e, node):
        t = e.type
        if t == T.BOOL:
            return e
        if is_integer_like(t):
            return tast.ImplicitCast(T.BOOL, e.loc, "int-to-bool", e)
        if t.is_float:
            return tast.ImplicitCast(T.BOOL, e.loc, "float-to-bool", e)
        if t.is_pointer:
            return tast.ImplicitCast(T.BOOL, e.loc, "pointer-to-bool", e)
        self.fail(f"statement requires expression of scalar type ('{spell(t)}' invalid)", node)

    # ------------------------------------------------------------------ expressions
    def rvalue(self, e):
        """Value of e: arrays decay to pointers (C99 6.3.2.1p3)."""
        if isinstance(e, tast.VarRef) and self.fn is not None:
            self.fn.uninitialized.read(e)
        if isinstance(e.type, T.AtomicType):
            self.fail(f"an object of type '{spell(e.type)}' is read only through the atomic "
                      f"functions (e.g. atomic_load; OpenCL C 3.0 6.15.12.6)", e.loc)
        if e.type == T.HALF and isinstance(e, (tast.Deref, tast.Index)):
            space = T.ADDRSPACE_NAMES[self.object_space(e)]
            where = e.loc
            if isinstance(e, tast.Deref) and e.operand.loc is not None:
                where = operator_location(self.diag.sources, "*", e.operand.loc, e.loc)
            self.require_fp16(f"loading directly from pointer to type '{space} half' requires "
                              f"cl_khr_fp16. Use vector data load builtin functions instead", where)
        if isinstance(e.type, T.ArrayType):
            aspace = self.object_space(e)
            return tast.ImplicitCast(T.PointerType(e.type.elem, aspace, self.object_const(e)),
                                     e.loc, "array-to-pointer", e)
        return e

    def object_space(self, e):
        """Address space of the object an lvalue designates."""
        if isinstance(e, tast.VarRef):
            return e.var.addrspace
        if isinstance(e, tast.Deref):
            return e.operand.type.addrspace
        if isinstance(e, tast.Index):
            return e.base.type.addrspace
        if isinstance(e, tast.Member):
            return self.object_space(e.base) if e.base.is_lvalue else T.PRIVATE
        if isinstance(e, (tast.Swizzle, tast.VectorElement)):
            return self.object_space(e.base)
        return T.PRIVATE

    def object_const(self, e):
        """Whether an lvalue's type is const-qualified (assignments also check Var.is_const)."""
        if isinstance(e, tast.VarRef):
            return e.var.is_const and id(e.var) not in self.implicitly_const
        if isinstance(e, tast.Deref):
            return e.operand.type.const
        if isinstance(e, tast.Index):
            return e.base.type.const
        if isinstance(e, (tast.Member, tast.Swizzle, tast.VectorElement)):
            return self.object_const(e.base)
        return False

    def expr(self, node, expected=None):
        """Type an expression. `expected` is the destination type where C gives one
        (initializer, assignment, return, argument): coop_mat_load/init take it."""
        method = getattr(self, "expr_" + type(node).__name__, None)
        if method is None:
            self.fail(f"unsupported expression '{type(node).__name__}'", node)
        if method.__code__.co_argcount > 2:
            return method(node, expected)
        return method(node)

    def expr_Constant(self, node):
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
            self.fail(f"invalid floating constant '{text}'", node)
        number, suffix = m.group("number"), m.group("suffix")
        ftype = {"f": T.FLOAT, "h": T.HALF, "": T.DOUBLE, "l": T.DOUBLE}.get(suffix.lower())
        if ftype is None:
            self.fail(f"invalid suffix '{suffix}' on floating constant", node)
        if ftype == T.HALF:
            self.require_fp16("half precision constant requires cl_khr_fp16", node)
        value = float.fromhex(number) if number[:2].lower() == "0x" else float(number)
        return tast.FloatConst(ftype, loc, value)

    def int_literal(self, text, node):
        m = re.fullmatch(r"(0[xX][0-9a-fA-F]+|0[bB][01]+|0[0-7]*|[1-9][0-9]*)([uUlL]*)", text)
        if m is None:
            self.fail(f"invalid integer constant '{text}'", node)
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
                return tast.IntConst(t, location(node), value)
        if value <= (1 << 64) - 1:
            self.warn("integer literal is too large to be represented in a signed integer type, "
                      "interpreting as unsigned", node)
            return tast.IntConst(T.ULONG, location(node), value)
        self.fail("integer literal is too large to be represented in any integer type", node)

    def string_bytes(self, node):
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
            self.fail("multi-character character constants are not supported", node)
        return ord(chars)

    def expr_ID(self, node):
        entry = self.scope.lookup(node.name)
        loc = location(node)
        if node.name == "__func__" and entry is None and self.fn is not None:
            # C99 6.4.2.2: `static const char __func__[] = "name";`, in __constant memory as clang.
            return tast.StringLiteral(T.PointerType(T.CHAR, T.CONSTANT, True), loc,
                                      self.fn.function.name.encode() + b"\0")
        if isinstance(entry, tast.Var):
            if id(entry) in self.extern_vars:
                self.extern_uses.setdefault(node.name, loc)
            ref = tast.VarRef(entry.type, loc, entry)
            if self.fn is not None:
                self.fn.uninitialized.referenced(ref)
            return ref
        if isinstance(entry, tuple) and entry[0] == "enum":
            return tast.IntConst(T.INT, loc, entry[1])
        if isinstance(entry, tast.Function):
            # Calls name their callee directly (expr_FuncCall); anything else would be a function pointer.
            self.fail(f"function '{node.name}' must be called: OpenCL C has no function pointers", node)
        if isinstance(entry, tuple) and entry[0] == "typedef":
            self.fail(f"unexpected type name '{node.name}': expected expression", node)
        if node.name in COOP_BUILTINS or (_builtins is not None and _builtins.is_builtin(node.name)):
            self.fail(f"built-in function '{node.name}' must be called", node)
        if node.name in self.poisoned:
            raise _Abandon()       # its declaration already had an error
        self.fail(f"use of undeclared identifier '{node.name}'", node)

    # ---- unary
    def expr_UnaryOp(self, node):
        op = node.op
        if op == "sizeof":
            return self.sizeof_expr(node)
        if op in ("_Alignof", "__alignof__", "alignof"):
            t = self.type_of_operand(node.expr)
            return tast.IntConst(self.target.size_t, location(node), self.alignof(t, node))
        if op in ("p++", "p--", "++", "--"):
            return self.incdec(node)
        if op == "&":
            return self.address_of(node)
        if op == "*":
            operand = self.rvalue(self.expr(node.expr))
            if not operand.type.is_pointer:
                self.fail(f"indirection requires pointer operand ('{spell(operand.type)}' invalid)", node)
            if operand.type.pointee.is_void:
                self.fail("indirection of a 'void *' pointer is not allowed here", node)
            return tast.Deref(operand.type.pointee, location(node), operand)
        operand = self.rvalue(self.expr(node.expr))
        t = operand.type
        loc = location(node)
        if t.is_coop_matrix:
            if op == "-":
                return tast.CoopNeg(t, loc, operand)
            if op == "+":
                return operand
            self.fail("unsupported cooperative matrix unary operator", node)
        if op == "!":
            if isinstance(t, T.VectorType):
                if t.elem.is_float:
                    self.fail(f"invalid argument type '{spell(t)}' to unary expression", node)
                return tast.Unary(comparison_result(t), loc, "!", operand)
            return tast.Unary(T.INT, loc, "!", self.to_bool(operand, node.expr))
        if op in ("-", "+"):
            if not (is_arith_like(t) or isinstance(t, T.VectorType)):
                self.fail(f"invalid argument type '{spell(t)}' to unary expression", node)
            operand = self.promote_expr(operand)
            if op == "+":
                return operand
            return tast.Unary(operand.type, loc, "-", operand)
        if op == "~":
            if not (is_integer_like(t) or (isinstance(t, T.VectorType) and t.elem.is_integer)):
                self.fail(f"invalid argument type '{spell(t)}' to unary expression", node)
            operand = self.promote_expr(operand)
            return tast.Unary(operand.type, loc, "~", operand)
        self.fail(f"unsupported unary operator '{op}'", node)

    def promote_expr(self, e):
        if isinstance(e.type, T.VectorType):
            return e
        target = promote(e.type)
        return self.arith_convert(e, target)

    def address_of(self, node):
        operand = self.expr(node.expr)
        loc = location(node)
        if operand.type.is_coop_matrix:
            self.fail("cannot take the address of a cooperative matrix", node)
        if isinstance(operand, tast.CoopElement):
            self.fail("cannot take the address of a cooperative matrix element", node)
        if isinstance(operand, tast.FunctionRef):
            self.fail("taking the address of a function is not allowed in OpenCL", node)
        if isinstance(operand, tast.VectorElement):
            self.fail("address of vector element requested", node)     # clang-22's wording
        if not operand.is_lvalue or isinstance(operand, tast.Swizzle):
            self.fail(f"cannot take the address of an rvalue of type '{spell(operand.type)}'", node)
        space = self.object_space(operand)
        return tast.AddrOf(T.PointerType(operand.type, space, self.object_const(operand)), loc, operand)

    def type_of_operand(self, node):
        if isinstance(node, c_ast.Typename):
            t, _, _ = self.full_decl_type(node)
            return t
        if isinstance(node, c_ast.Constant) and node.type == "string":
            # C99 6.4.5p5: a string literal is an array of char, NUL included (it decays elsewhere).
            return T.ArrayType(T.CHAR, len(self.string_bytes(node)) + 1)
        return self.expr(node).type

    def sizeof_expr(self, node):
        t = self.type_of_operand(node.expr)
        if t.is_void:
            # C99 6.5.3.4p1 (GNU C's sizeof(void) == 1 is not OpenCL C); clang-22's wording.
            self.fail("invalid application of 'sizeof' to a void type", node)
        return tast.IntConst(self.target.size_t, location(node), self.sizeof(t, node))

    def sizeof(self, t, node):
        if isinstance(t, T.EnumType):
            return 4
        if isinstance(t, T.ScalarType):
            if t.is_void:
                return 1
            return t.size
        if isinstance(t, T.VectorType):
            return t.size
        if isinstance(t, T.PointerType):
            return self.target.pointer_bits // 8
        if isinstance(t, T.ArrayType):
            if t.length is None:
                self.fail(f"invalid application of 'sizeof' to an incomplete type '{spell(t)}'", node)
            return t.length * self.sizeof(t.elem, node)
        if isinstance(t, T.StructType):
            if not t.complete:
                self.fail(f"invalid application of 'sizeof' to an incomplete type '{spell(t)}'", node)
            size, align = 0, 1
            for f in t.fields:
                fs, fa = self.sizeof(f.type, node), self.alignof(f.type, node)
                align = max(align, fa)
                if t.is_union:
                    size = max(size, fs)
                else:
                    size = (size + fa - 1) // fa * fa + fs
            return (size + align - 1) // align * align
        if isinstance(t, T.CoopMatType):
            self.fail("invalid application of 'sizeof' to a cooperative matrix type", node)
        self.fail(f"invalid application of 'sizeof' to type '{spell(t)}'", node)

    def alignof(self, t, node):
        if isinstance(t, T.ArrayType):
            return self.alignof(t.elem, node)
        if isinstance(t, T.StructType):
            return max([self.alignof(f.type, node) for f in t.fields] or [1])
        return self.sizeof(t, node)

    def incdec(self, node):
        op = "++" if "++" in node.op else "--"
        prefix = not node.op.startswith("p")
        target = self.expr(node.expr)
        loc = location(node)
        self.check_assignable(target, node.expr)
        t = target.type
        if t.is_coop_matrix:
            self.fail("unsupported cooperative matrix unary operator", node)
        old = tast.OldValue(t, loc)
        if t.is_pointer:
            one = tast.IntConst(self.target.ptrdiff_t, loc, 1)
            compute = tast.PointerArith(t, loc, "+" if op == "++" else "-", old, one)
        elif is_arith_like(t) or isinstance(t, T.VectorType):
            one = tast.IntConst(T.INT, loc, 1)
            compute = self.arith_binary("+" if op == "++" else "-", old, one, node)
            compute = self.convert(compute, t, node, "assigning")
        else:
            self.fail(f"cannot increment value of type '{spell(t)}'", node)
        return tast.IncDec(t, loc, op, prefix, target, compute)

    # ---- binary
    def expr_BinaryOp(self, node):
        op = node.op
        if op in ("&&", "||"):
            return self.logical(node)
        left = self.rvalue(self.expr(node.left))
        right = self.rvalue(self.expr(node.right))
        return self.binary(op, left, right, node)

    def binary(self, op, left, right, node):
        lt, rt = left.type, right.type
        if lt.is_coop_matrix or rt.is_coop_matrix:
            return self.coop_binary(op, left, right, node)
        if op in ("+", "-") and (lt.is_pointer or rt.is_pointer):
            return self.pointer_arith(op, left, right, node)
        if op in ("<", ">", "<=", ">=", "==", "!=") and (lt.is_pointer or rt.is_pointer):
            return self.pointer_compare(op, left, right, node)
        if lt.is_void or rt.is_void or not (self.arith_or_vector(lt) and self.arith_or_vector(rt)):
            self.fail(f"invalid operands to binary expression ('{spell(lt)}' and '{spell(rt)}')", node)
        return self.arith_binary(op, left, right, node)

    @staticmethod
    def arith_or_vector(t):
        return is_arith_like(t) or isinstance(t, T.VectorType)

    def arith_binary(self, op, left, right, node):
        lt, rt = left.type, right.type
        loc = left.loc or location(node)
        integer_only = op in ("%", "&", "|", "^", "<<", ">>")
        if op in ("<<", ">>"):
            # C99 6.5.7: each operand promoted separately; result has the left's type.
            if isinstance(lt, T.VectorType):
                result_t = lt
            elif isinstance(rt, T.VectorType):
                # OpenCL: a scalar shifted by a vector is not allowed.
                self.fail(f"invalid operands to binary expression ('{spell(lt)}' and '{spell(rt)}')", node)
            else:
                result_t = promote(lt)
        else:
            result_t = self.common_type(lt, rt, node)
        elem = unqualified_elem(result_t)
        if integer_only and not as_arith(elem).is_integer:
            self.fail(f"invalid operands to binary expression ('{spell(lt)}' and '{spell(rt)}')", node)
        left = self.arith_convert(left, result_t)
        right = self.arith_convert(right, result_t)
        if op in ("/", "%") and as_arith(elem).is_integer and self.fold(right) == 0:
            # clang -Wdivision-by-zero (C99 6.5.5p5: the behaviour is undefined)
            self.warn(f"{'division' if op == '/' else 'remainder'} by zero is undefined", node)
        contract = self.fp_contract if as_arith(elem).is_float else "off"
        if op in ("<", ">", "<=", ">=", "==", "!="):
            return tast.Binary(comparison_result(result_t), loc, op, left, right, contract)
        return tast.Binary(result_t, loc, op, left, right, contract)

    def common_type(self, lt, rt, node):
        """The operation type of a binary arithmetic operator (C99 6.3.1.8, OpenCL 6.3)."""
        if isinstance(lt, T.VectorType) and isinstance(rt, T.VectorType):
            if lt != rt:
                self.fail(f"cannot convert between vector values of different size or type "
                          f"('{spell(lt)}' and '{spell(rt)}')", node)
            return lt
        if isinstance(lt, T.VectorType):
            return lt
        if isinstance(rt, T.VectorType):
            return rt
        return usual_arithmetic(lt, rt)

    def arith_convert(self, e, t):
        """Implicit conversion between arithmetic/vector types (operands of an operator)."""
        if e.type == t:
            return e
        if not self.arith_or_vector(e.type):
            # Callers check operand kinds; this keeps a missed case a diagnostic, not a crash.
            self.fail(f"invalid operand of type '{spell(e.type)}' where an arithmetic value of type "
                      f"'{spell(t)}' is required", e.loc)
        if isinstance(t, T.VectorType):
            if isinstance(e.type, T.VectorType):
                return e     # equal vector types already checked
            scalar = self.arith_convert(e, t.elem)
            return tast.ImplicitCast(t, e.loc, "splat", scalar)
        kind = self.scalar_cast_kind(e.type, t)
        if kind == "noop" and e.type == t:
            return e
        return tast.ImplicitCast(t, e.loc, kind, e)

    @staticmethod
    def scalar_cast_kind(src, dst):
        src, dst = as_arith(src) if not isinstance(src, T.EnumType) else T.INT, dst
        d = as_arith(dst)
        if d == T.BOOL:
            if src.is_float:
                return "float-to-bool"
            if src.is_pointer:
                return "pointer-to-bool"
            return "int-to-bool" if src != T.BOOL else "noop"
        if src == T.BOOL:
            return "bool-to-float" if d.is_float else "bool-to-int"
        if src.is_float and d.is_float:
            return "float-to-float" if src.bits != d.bits else "noop"
        if src.is_float:
            return "float-to-int"
        if d.is_float:
            return "int-to-float"
        if src.bits == d.bits:
            return "noop"       # same width: only the signedness changes (tast: 'noop')
        return "int-to-int"

    def logical(self, node):
        left = self.rvalue(self.expr(node.left))
        right = self.rvalue(self.expr(node.right))
        loc = left.loc or location(node)
        if left.type.is_coop_matrix or right.type.is_coop_matrix:
            self.fail("unsupported cooperative matrix binary operator", node)
        if isinstance(left.type, T.VectorType) or isinstance(right.type, T.VectorType):
            if not (self.arith_or_vector(left.type) and self.arith_or_vector(right.type)):
                self.fail(f"invalid operands to binary expression ('{spell(left.type)}' and "
                          f"'{spell(right.type)}')", node)
            t = self.common_type(left.type, right.type, node)
            if t.elem.is_float:
                self.fail(f"invalid operands to binary expression ('{spell(left.type)}' and "
                          f"'{spell(right.type)}')", node)
            return tast.Logical(comparison_result(t), loc, node.op,
                                self.arith_convert(left, t), self.arith_convert(right, t))
        return tast.Logical(T.INT, loc, node.op, self.to_bool(left, node.left), self.to_bool(right, node.right))

    def pointer_arith(self, op, left, right, node):
        lt, rt = left.type, right.type
        loc = left.loc or location(node)
        if lt.is_pointer and rt.is_pointer:
            if op != "-":
                self.fail(f"invalid operands to binary expression ('{spell(lt)}' and '{spell(rt)}')", node)
            if strip_pointer_quals(lt) != strip_pointer_quals(rt) and lt.pointee != rt.pointee:
                self.fail(f"'{spell(lt)}' and '{spell(rt)}' are not pointers to compatible types", node)
            return tast.PointerDiff(self.target.ptrdiff_t, loc, left, right)
        if rt.is_pointer:
            if op == "-":
                self.fail(f"invalid operands to binary expression ('{spell(lt)}' and '{spell(rt)}')", node)
            left, right = right, left
            lt, rt = rt, lt
        if not is_integer_like(rt):
            self.fail(f"invalid operands to binary expression ('{spell(lt)}' and '{spell(rt)}')", node)
        if isinstance(lt.pointee, T.StructType) and not lt.pointee.complete:
            self.fail(f"arithmetic on a pointer to an incomplete type '{spell(lt.pointee)}'", node)
        offset = self.arith_convert(right, self.target.ptrdiff_t)
        return tast.PointerArith(lt, loc, op, left, offset)

    def pointer_compare(self, op, left, right, node):
        lt, rt = left.type, right.type
        loc = left.loc or location(node)
        if lt.is_pointer and rt.is_pointer and self.is_null_constant(right):     # p == NULL
            return tast.Binary(T.INT, loc, op, left, tast.ImplicitCast(lt, right.loc, "null-to-pointer", right))
        if lt.is_pointer and rt.is_pointer and self.is_null_constant(left):
            return tast.Binary(T.INT, loc, op, tast.ImplicitCast(rt, left.loc, "null-to-pointer", left), right)
        if lt.is_pointer and rt.is_pointer:
            if lt.addrspace != rt.addrspace:
                if lt.addrspace == T.GENERIC and rt.addrspace != T.CONSTANT:
                    right = self.pointer_space_cast(right, lt)
                elif rt.addrspace == T.GENERIC and lt.addrspace != T.CONSTANT:
                    left = self.pointer_space_cast(left, rt)
                else:
                    self.fail(f"comparison between ('{spell(lt)}' and '{spell(rt)}') which are pointers "
                              f"to non-overlapping address spaces", node)
            elif lt.pointee != rt.pointee and not (lt.pointee.is_void or rt.pointee.is_void):
                self.warn(f"comparison of distinct pointer types ('{spell(lt)}' and '{spell(rt)}')", node)
            if left.type != right.type:
                right = tast.ImplicitCast(left.type, right.loc, "pointer-bitcast", right)
            return tast.Binary(T.INT, loc, op, left, right)
        ptr, other = (left, right) if lt.is_pointer else (right, left)
        if self.is_null_constant(other):
            null = tast.ImplicitCast(ptr.type, other.loc, "null-to-pointer", other)
            pair = (ptr, null) if lt.is_pointer else (null, ptr)
            return tast.Binary(T.INT, loc, op, *pair)
        self.fail(f"comparison between pointer and integer ('{spell(lt)}' and '{spell(rt)}')", node)

    def is_null_constant(self, e):
        if is_integer_like(e.type) and self.fold(e) == 0:
            return True
        # C99 6.3.2.3p3: 0 cast to `void *`; a named address space other than generic makes it
        # an ordinary pointer (clang-22: `(global void*)0` does not convert to `constant int *`).
        if isinstance(e, (tast.Cast, tast.ImplicitCast)) and e.type.is_pointer and e.type.pointee.is_void \
                and e.type.addrspace in (T.PRIVATE, T.GENERIC):
            return self.is_null_constant(e.operand) if is_integer_like(e.operand.type) else False
        return False

    def pointer_space_cast(self, e, to):
        return tast.ImplicitCast(T.PointerType(e.type.pointee, to.addrspace, e.type.const, e.type.volatile),
                                 e.loc, "addrspace-to-generic", e)

    # ---- cooperative-matrix operators (RFC 4.6)
    def coop_binary(self, op, left, right, node):
        lt, rt = left.type, right.type
        loc = left.loc or location(node)
        if op not in ("+", "-", "*", "/"):
            self.fail("unsupported cooperative matrix binary operator", node)
        if lt.is_coop_matrix and rt.is_coop_matrix:
            if lt != rt:
                self.fail("incompatible cooperative matrix types", node,
                          [self.note(f"operand types are '{spell(lt)}' and '{spell(rt)}'", loc)])
            return tast.CoopBinary(lt, loc, op, left, right)
        matrix, scalar = (left, right) if lt.is_coop_matrix else (right, left)
        if op != "*":
            self.fail("unsupported cooperative matrix scalar operator", node)
        if not is_arith_like(scalar.type):
            self.fail(f"invalid operands to binary expression ('{spell(lt)}' and '{spell(rt)}')", node)
        # RFC 4.6 / issue 2 item 10: the scalar becomes the component type (e.g. a*4 on floats is 4.0f).
        self.warn_literal_change(scalar, matrix.type.elem)
        scalar = self.arith_convert(scalar, matrix.type.elem)
        return tast.CoopScalarMul(matrix.type, loc, matrix, scalar)

    # ---- assignment
    def expr_Assignment(self, node):
        target = self.expr(node.lvalue)
        self.check_assignable(target, node)       # clang points at the assignment operator
        loc = location(node)
        t = target.type
        if isinstance(t, T.AtomicType):
            self.fail("atomic variable can be assigned to a variable only in global address space",
                      self.node_location(node))
        if t == T.HALF and isinstance(target, (tast.Deref, tast.Index)):
            self.require_fp16("assigning directly to pointer to type 'half' requires cl_khr_fp16. "
                              "Use vector data store builtin functions instead", self.node_location(node))
        if node.op == "=":
            value = self.expr(node.rvalue, expected=t)
            if isinstance(value.type, T.AtomicType):
                # clang-22's wording (and place) for an atomic object read by an assignment
                self.fail("atomic variable can be assigned to a variable only in global address space",
                          operator_location(self.diag.sources, "=", self.node_location(node.rvalue),
                                            self.node_location(node)))
            value = self.rvalue(value)
            # clang points a conversion error in an assignment at the '=' token
            # (matrix mismatches stay at the right-hand side, as this checker always reported them).
            at = node.rvalue if t.is_coop_matrix or value.type.is_coop_matrix else self.node_location(node)
            value = self.convert(value, t, at, "assigning")
            return tast.Assign(t, loc, target, value)
        op = node.op[:-1]
        value = self.rvalue(self.expr(node.rvalue))
        old = tast.OldValue(t, target.loc)
        compute = self.binary(op, old, value, node)
        if t.is_pointer:
            if not compute.type.is_pointer:
                self.fail(f"invalid operands to binary expression", node)
        compute = self.convert(compute, t, node, "assigning")
        return tast.CompoundAssign(t, loc, node.op, target, compute)

    def check_assignable(self, target, node):
        if isinstance(target, tast.Swizzle) and not target.lvalue:
            self.fail("expression is not assignable", node)
        if not target.is_lvalue:
            self.fail("expression is not assignable", node)
        if isinstance(target.type, T.ArrayType):
            self.fail(f"array type '{spell(target.type)}' is not assignable", node)
        if self.object_const(target) or (isinstance(target, tast.VarRef) and target.var.is_const):
            if isinstance(target, tast.VarRef) and id(target.var) not in self.implicitly_const:
                self.fail(f"cannot assign to variable '{target.var.name}' with const-qualified type "
                          f"'const {spell(target.type)}'", node)
            self.fail("read-only variable is not assignable", node)
        if self.object_space(target) == T.CONSTANT:
            # OpenCL C 3.0 6.7.3: __constant objects are read-only.
            self.fail("read-only variable is not assignable", node)

    # ---- implicit conversion by assignment (C99 6.5.16.1)
    def convert(self, e, t, node, context, pointer_warnings=True):
        """Convert value e to type t as assignment does; context names the diagnostic."""
        if isinstance(node, c_ast.Node):
            node = location(node)     # clang points conversion errors at the expression's start
        st = e.type
        if st == t:
            return e
        if t.is_coop_matrix or st.is_coop_matrix:
            if t.is_coop_matrix and st.is_coop_matrix:
                self.fail("incompatible cooperative matrix types", node,
                          [self.note(f"'{spell(st)}' converted to '{spell(t)}'", node)])
            self.fail(self.incompatible_message(st, t, context), node)
        if is_arith_like(t) and is_arith_like(st):
            return self.arith_convert(e, t)
        if t == T.BOOL and st.is_pointer:
            return tast.ImplicitCast(T.BOOL, e.loc, "pointer-to-bool", e)
        if isinstance(t, T.VectorType):
            if isinstance(st, T.VectorType):
                self.fail(self.incompatible_message(st, t, context), node)
            if is_arith_like(st):
                return self.arith_convert(e, t)
        if t.is_pointer:
            if self.is_null_constant(e):
                return tast.ImplicitCast(t, e.loc, "null-to-pointer", e)
            if st.is_pointer:
                return self.pointer_convert(e, t, node, context, pointer_warnings)
            if is_integer_like(st):
                self.fail(f"incompatible integer to pointer conversion {self.context_phrase(st, t, context)}", node)
        if isinstance(t, T.EventType) and is_integer_like(st) and self.fold(e) == 0:
            # clang's CK_ZeroToOCLOpaqueType: `event_t e = 0;`, an event argument 0.
            return tast.ImplicitCast(t, e.loc, "zero-to-event", e)
        if isinstance(t, T.StructType) and st is t:
            return e
        if is_integer_like(t) and st.is_pointer:
            self.fail(f"incompatible pointer to integer conversion {self.context_phrase(st, t, context)}", node)
        self.fail(self.incompatible_message(st, t, context), node)

    @staticmethod
    def context_phrase(st, t, context):
        return {"initializing": f"initializing '{spell(t)}' with an expression of type '{spell(st)}'",
                "assigning": f"assigning to '{spell(t)}' from '{spell(st)}'",
                "passing": f"passing '{spell(st)}' to parameter of type '{spell(t)}'",
                "returning": f"returning '{spell(st)}' from a function with result type '{spell(t)}'",
                }.get(context, f"converting '{spell(st)}' to '{spell(t)}'")

    @classmethod
    def space_phrase(cls, st, t, context):
        """clang's err_typecheck_incompatible_address_space order: "assigning 'S' to 'T'"."""
        if context == "assigning":
            return f"assigning '{spell(st)}' to '{spell(t)}'"
        return cls.context_phrase(st, t, context)

    @staticmethod
    def incompatible_message(st, t, context):
        return {"initializing": f"initializing '{spell(t)}' with an expression of incompatible type '{spell(st)}'",
                "assigning": f"assigning to '{spell(t)}' from incompatible type '{spell(st)}'",
                "passing": f"passing '{spell(st)}' to parameter of incompatible type '{spell(t)}'",
                "returning": f"returning '{spell(st)}' from a function with incompatible result type '{spell(t)}'",
                }.get(context, f"cannot convert '{spell(st)}' to '{spell(t)}'")

    def pointer_convert(self, e, t, node, context, warnings=True):
        st = e.type
        if st.addrspace != t.addrspace:
            if t.addrspace == T.GENERIC and st.addrspace != T.CONSTANT:
                e = self.pointer_space_cast(e, t)
                st = e.type
            else:
                self.fail(f"{self.space_phrase(st, t, context)} changes address space of pointer", node)
        inner_from, inner_to = st.pointee, t.pointee
        while isinstance(inner_from, T.PointerType) and isinstance(inner_to, T.PointerType):
            if inner_from.addrspace != inner_to.addrspace:
                # OpenCL C 3.0 6.7.9: no implicit address-space change below the first level.
                self.fail(f"{self.space_phrase(st, t, context)} changes address space of nested "
                          f"pointer", node)
            inner_from, inner_to = inner_from.pointee, inner_to.pointee
        if warnings and st.pointee != t.pointee and not (st.pointee.is_void or t.pointee.is_void):
            self.warn(f"incompatible pointer types {self.context_phrase(e.type, t, context)}", node)
        elif warnings and st.const and not t.const:
            self.warn(f"{self.context_phrase(st, t, context)} discards qualifiers", node)
        if e.type != t:
            return tast.ImplicitCast(t, e.loc, "pointer-bitcast", e)
        return e

    # ---- other expressions
    def expr_TernaryOp(self, node, expected=None):
        cond = self.rvalue(self.expr(node.cond))
        if unqualified_elem(cond.type).is_float:
            # OpenCL C 3.0 6.5.7: the selection operand may be a scalar or vector "except float".
            self.fail(f"used type {described(cond.type)} where floating point type is not allowed",
                      operator_location(self.diag.sources, "?", node.iftrue, location(node)))
        then = self.rvalue(self.expr(node.iftrue, expected))
        other = self.rvalue(self.expr(node.iffalse, expected))
        loc = location(node)
        if isinstance(cond.type, T.VectorType):
            # OpenCL 6.3.i: component-wise select.
            if not (self.arith_or_vector(then.type) and self.arith_or_vector(other.type)):
                self.fail(f"incompatible operand types ('{spell(then.type)}' and '{spell(other.type)}')", node)
            t = self.common_type(then.type, other.type, node)
            if not isinstance(t, T.VectorType) or t.count != cond.type.count:
                self.fail("vector condition type and result type do not match", node)
            return tast.Conditional(t, loc, cond, self.arith_convert(then, t), self.arith_convert(other, t))
        cond = self.to_bool(cond, node.cond)
        tt, ot = then.type, other.type
        if tt == ot:
            return tast.Conditional(tt, loc, cond, then, other)
        if self.arith_or_vector(tt) and self.arith_or_vector(ot):
            t = self.common_type(tt, ot, node)
            return tast.Conditional(t, loc, cond, self.arith_convert(then, t), self.arith_convert(other, t))
        if tt.is_pointer or ot.is_pointer:
            if tt.is_pointer and self.is_null_constant(other):
                return tast.Conditional(tt, loc, cond, then, tast.ImplicitCast(tt, other.loc, "null-to-pointer", other))
            if ot.is_pointer and self.is_null_constant(then):
                return tast.Conditional(ot, loc, cond, tast.ImplicitCast(ot, then.loc, "null-to-pointer", then), other)
            if tt.is_pointer and ot.is_pointer:
                t = tt
                if tt.addrspace != ot.addrspace:
                    t = T.PointerType(tt.pointee, T.GENERIC, tt.const or ot.const)
                    if T.CONSTANT in (tt.addrspace, ot.addrspace):
                        self.fail("conditional operator with the second and third operands of type "
                                  f"('{spell(tt)}' and '{spell(ot)}') which are pointers to "
                                  "non-overlapping address spaces", node)
                return tast.Conditional(t, loc, cond, self.convert(then, t, node, "converting"),
                                        self.convert(other, t, node, "converting"))
        if tt.is_void and ot.is_void:
            return tast.Conditional(T.VOID, loc, cond, then, other)
        if tt.is_coop_matrix or ot.is_coop_matrix:
            self.fail("incompatible cooperative matrix types", node)
        self.fail(f"incompatible operand types ('{spell(tt)}' and '{spell(ot)}')", node)

    def expr_ExprList(self, node, expected=None):
        """The comma operator (pycparser gives an ExprList for `a, b`)."""
        items = [self.expr(e) for e in node.exprs[:-1]]
        last = self.expr(node.exprs[-1], expected)
        result = last
        for item in reversed(items):
            result = tast.Comma(self.rvalue(last).type, item.loc, item, self.rvalue(result))
        return result

    def expr_ArrayRef(self, node):
        base = self.expr(node.name)
        index = self.rvalue(self.expr(node.subscript))
        loc = location(node)
        if base.type.is_coop_matrix:
            return self.coop_element(base, index, node)
        if isinstance(base.type, T.VectorType):
            return self.vector_subscript(base, index, node)
        base = self.rvalue(base)
        if is_integer_like(base.type) and index.type.is_pointer:
            base, index = index, base
        if not base.type.is_pointer:
            self.fail("subscripted value is not an array, pointer, or vector", node)
        if not is_integer_like(index.type):
            self.fail("array subscript is not an integer", node.subscript)
        if base.type.pointee.is_void:
            self.fail("subscript of pointer to incomplete type 'void'", node)
        index = self.arith_convert(index, self.target.ptrdiff_t)
        return tast.Index(base.type.pointee, loc, base, index)

    def vector_subscript(self, base, index, node):
        """`v[i]` (a clang extension OpenCL code uses) with a constant i is the swizzle `.s<i>`;
        with a variable index a VectorElement (extractelement/insertelement, as clang)."""
        if not is_integer_like(index.type):
            self.fail("array subscript is not an integer", node.subscript)
        value = self.fold(index)
        if not isinstance(value, int):
            index = self.arith_convert(index, promote(as_arith(index.type)))
            return tast.VectorElement(base.type.elem, location(node), base, index, base.is_lvalue)
        if not 0 <= value < base.type.count:
            self.fail(f"vector subscript {value} is out of range for '{spell(base.type)}'", node.subscript)
        return tast.Swizzle(base.type.elem, location(node), base, (value,), base.is_lvalue)

    def coop_element(self, base, index, node):
        if not is_integer_like(index.type):
            self.fail("array subscript is not an integer", node.subscript)
        constant = self.fold(index)
        if isinstance(constant, int) and constant < 0:
            self.fail(f"cooperative matrix element index {constant} is negative", node.subscript)
        if not base.is_lvalue:
            self.fail("cooperative matrix element access requires a matrix variable", node)
        index = self.arith_convert(index, self.target.size_t)
        return tast.CoopElement(base.type.elem, location(node), base, index)

    def expr_StructRef(self, node):
        base = self.expr(node.name)
        loc = location(node)
        name = node.field.name
        if node.type == "->":
            base = self.rvalue(base)
            if not base.type.is_pointer:
                self.fail(f"member reference type '{spell(base.type)}' is not a pointer", node)
            base = tast.Deref(base.type.pointee, base.loc, base)
        t = base.type
        if isinstance(t, T.VectorType) and node.type == ".":
            return self.swizzle(base, name, node)
        if not isinstance(t, T.StructType):
            self.fail(f"member reference base type '{spell(t)}' is not a structure or union", node)
        if not t.complete:
            self.fail(f"incomplete definition of type '{spell(t)}'", node)
        path = member_path(t, name)
        if path is None:
            self.fail(f"no member named '{name}' in '{spell(t)}'", node.field)
        for i, f in path:          # through anonymous struct/union members (C11 6.7.2.1p13)
            base = tast.Member(f.type, loc, base, i, f.name or "")
        return base

    SWIZZLE_XYZW = "xyzw"
    SWIZZLE_RGBA = "rgba"

    def swizzle(self, base, name, node):
        t = base.type
        n = t.count
        loc = location(node)
        indices = self.swizzle_indices(name, t, node)
        if isinstance(base, tast.Swizzle):      # fold v.xy.x into one swizzle of v
            indices = tuple(base.indices[i] for i in indices)
            base = base.base
        count = len(indices)
        if count not in (1, 2, 3, 4, 8, 16):
            self.fail(f"vector component access has invalid length {count}", node.field)
        rt = t.elem if count == 1 else T.VectorType(t.elem, count)
        lvalue = base.is_lvalue and len(set(indices)) == count
        return tast.Swizzle(rt, loc, base, tuple(indices), lvalue)

    def swizzle_indices(self, name, vtype, node):
        """Component indexes of an OpenCL C 3.0 6.3.7 vector component name."""
        n = vtype.count

        dot = operator_location(self.diag.sources, ".", node.field, None) if isinstance(node, c_ast.StructRef) \
            else None

        def bad(offset):
            # clang (CheckExtVectorComponent): names the first illegal character, at '.' + 1 + offset
            where = SourceLocation(dot.file, dot.line, dot.column + 1 + offset) if dot else node.field
            self.fail(f"illegal vector component name '{name[offset]}'", where)

        def exceeds():
            self.fail(f"vector component access exceeds type '{spell(vtype)}'", dot or node.field)
        if name in ("lo", "hi", "even", "odd"):
            size = 4 if n == 3 else n
            if name == "lo":
                return tuple(range(size // 2))
            if name == "hi":
                return tuple(range(size // 2, size))
            if name == "even":
                return tuple(range(0, size, 2))
            return tuple(range(1, size, 2))
        if name[0] in "sS" and len(name) > 1:
            idx = []
            for offset, c in enumerate(name[1:], 1):
                if c not in "0123456789abcdefABCDEF":
                    bad(offset)
            idx = [int(c, 16) for c in name[1:]]
            if any(v >= n for v in idx):
                exceeds()
            return tuple(idx)
        alphabet = next((a for a in (self.SWIZZLE_XYZW, self.SWIZZLE_RGBA) if name[0] in a), None)
        if alphabet is None:
            bad(0)
        for offset, c in enumerate(name):
            if c not in alphabet:
                bad(offset)
        idx = tuple(alphabet.index(c) for c in name)
        if any(i >= n for i in idx):
            exceeds()
        return idx

    def expr_Cast(self, node, expected=None):
        t, _, _ = self.full_decl_type(node.to_type)
        loc = location(node)
        if isinstance(node.expr, c_ast.ExprList) or isinstance(t, T.VectorType) and \
                isinstance(node.expr, c_ast.ExprList):
            return self.vector_literal(t, node.expr, node)
        operand = self.rvalue(self.expr(node.expr, expected=t if t.is_coop_matrix else None))
        return self.explicit_cast(operand, t, node)

    def explicit_cast(self, operand, t, node):
        if t == T.HALF:
            self.require_fp16("casting to type 'half' is not allowed",
                              location(getattr(node, "expr", None)) or location(node))
        st = operand.type
        loc = location(node)
        if st == t:
            return operand if not t.is_coop_matrix else operand
        if t.is_void:
            return tast.Cast(T.VOID, loc, "to-void", operand)
        if t.is_coop_matrix or st.is_coop_matrix:
            if t.is_coop_matrix and st.is_coop_matrix:
                if t.same_shape(st) and t.elem != st.elem:
                    return tast.CoopConvert(t, loc, operand)
                if t == st:
                    return operand
                self.fail(f"invalid conversion between cooperative matrix types '{spell(st)}' and "
                          f"'{spell(t)}': scope, rows, columns and use must match", node)
            self.fail(f"invalid cast from '{spell(st)}' to '{spell(t)}'", node)
        if isinstance(t, T.VectorType):
            if isinstance(st, T.VectorType):
                self.fail(f"invalid conversion between vector type '{spell(st)}' and '{spell(t)}'; "
                          f"use convert_{spell(t)}() or as_{spell(t)}()", node)
            if is_arith_like(st):
                scalar = self.arith_convert(operand, t.elem)
                return tast.Cast(t, loc, "splat", scalar)
            self.fail(f"invalid conversion between vector type '{spell(t)}' and scalar type '{spell(st)}'", node)
        if isinstance(st, T.VectorType):
            self.fail(f"invalid conversion between vector type '{spell(st)}' and scalar type '{spell(t)}'", node)
        if is_arith_like(t) and is_arith_like(st):
            return tast.Cast(t, loc, self.scalar_cast_kind(st, t), operand)
        if t.is_pointer and st.is_pointer:
            if st.addrspace == t.addrspace:
                return tast.Cast(t, loc, "pointer-bitcast", operand)
            if t.addrspace == T.GENERIC and st.addrspace != T.CONSTANT:
                return tast.Cast(t, loc, "addrspace-to-generic", operand)
            if st.addrspace == T.GENERIC and t.addrspace != T.CONSTANT:
                return tast.Cast(t, loc, "addrspace-cast", operand)
            self.fail(f"casting '{spell(st)}' to type '{spell(t)}' changes address space of pointer", node)
        if t.is_pointer and is_integer_like(st):
            if self.is_null_constant(operand):
                return tast.Cast(t, loc, "null-to-pointer", operand)
            return tast.Cast(t, loc, "int-to-pointer", operand)
        if is_integer_like(t) and st.is_pointer:
            if t == T.BOOL:
                return tast.Cast(t, loc, "pointer-to-bool", operand)
            if as_arith(t).size < self.target.pointer_bits // 8:
                self.warn(f"cast to smaller integer type '{spell(t)}' from '{spell(st)}'", node)
            return tast.Cast(t, loc, "pointer-to-int", operand)
        if isinstance(t, T.StructType) and st is t:
            return operand
        self.fail(f"invalid cast from '{spell(st)}' to '{spell(t)}'", node)

    def open_paren_before(self, node, fallback):
        """The '(' written just before `node` (a vector literal's list), else fallback."""
        loc = location(node)
        text = self.diag.sources.line(loc.file, loc.line) if self.diag.sources is not None and loc else None
        if text is None:
            return fallback
        text = text.expandtabs(1)
        i = min(loc.column - 2, len(text) - 1)
        while i >= 0 and text[i] == " ":
            i -= 1
        return SourceLocation(loc.file, loc.line, i + 1) if i >= 0 and text[i] == "(" else fallback

    def vector_literal(self, t, exprlist, node):
        loc = location(node)
        if not isinstance(t, T.VectorType):
            # `(int)(a, b)`: a parenthesized comma expression cast to a scalar.
            operand = self.rvalue(self.expr(exprlist))
            return self.explicit_cast(operand, t, node)
        elements = []
        total = 0
        for e in exprlist.exprs:
            v = self.rvalue(self.expr(e))
            if isinstance(v.type, T.VectorType):
                if v.type.elem != t.elem:
                    self.fail(f"cannot convert '{spell(v.type)}' to '{spell(t.elem)}' in vector literal; "
                              f"use convert_{spell(T.VectorType(t.elem, v.type.count))}()", e)
                total += v.type.count
                elements.append(v)
            elif is_arith_like(v.type):
                elements.append(self.arith_convert(v, t.elem))
                total += 1
            else:
                self.fail(f"invalid vector literal element of type '{spell(v.type)}'", e)
        if len(elements) == 1 and total == 1:
            return tast.VectorLiteral(t, loc, elements)     # splat (OpenCL 6.1.6)
        if total > t.count:
            # clang: at the element that goes past the last component
            running = 0
            for e, v in zip(exprlist.exprs, elements):
                running += v.type.count if isinstance(v.type, T.VectorType) else 1
                if running > t.count:
                    self.fail("excess elements in vector initializer", e)
        if total < t.count:
            self.fail(f"too few elements in vector initialization (expected {t.count} elements, have {total})",
                      self.open_paren_before(exprlist.exprs[0], loc))
        return tast.VectorLiteral(t, loc, elements)

    def expr_CompoundLiteral(self, node):
        """C99 6.5.2.5: an unnamed automatic object, initialized each time it is evaluated. It
        becomes a Var with storage 'compound-literal' referenced once; lower allocates it and
        runs the initializer where the reference is evaluated."""
        t, _, const = self.full_decl_type(node.type)
        if self.fn is None:
            self.fail("compound literals at program scope are not supported by clcoop", node)
        if t.is_coop_matrix:
            self.fail("cooperative matrix type cannot be used in a compound literal", node)
        if t.is_void or isinstance(t, T.FunctionType):
            self.fail(f"compound literal has invalid type '{spell(t)}'", node)
        var = tast.Var("", t, "compound-literal", T.PRIVATE, None, location(node), bool(const))
        var.initializer = self.init_for_type(node.init, t, "initializing")
        var.type = self.complete_array_type(var.type, var.initializer)
        return tast.VarRef(var.type, location(node), var)

    def expr_InitList(self, node):
        self.fail("initializer list is only allowed in a declaration", node)

    # ------------------------------------------------------------------ calls
    def expr_FuncCall(self, node, expected=None):
        if not isinstance(node.name, c_ast.ID):
            self.fail("called object is not a function (OpenCL has no function pointers)", node)
        name = node.name.name
        args_nodes = node.args.exprs if node.args is not None else []
        entry = self.scope.lookup(name)
        if isinstance(entry, tast.Function) and entry.mangled is not None and name in self.overloads:
            return self.overloaded_call(name, args_nodes, node)
        if isinstance(entry, tast.Function):
            return self.user_call(entry, args_nodes, node)
        if isinstance(entry, tast.Var):
            self.fail(f"called object type '{spell(entry.type)}' is not a function or function pointer", node)
        if name in COOP_BUILTINS:
            return self.coop_call(name, args_nodes, node, expected)
        if name == "printf":
            return self.printf_call(args_nodes, node)
        if name in CLANG_BUILTINS:
            return self.clang_builtin_call(name, args_nodes, node)
        if name in ADDRESS_SPACE_QUERIES and not self.pre_cl20:
            return self.address_space_query(name, args_nodes, node)
        if name.startswith("convert_") and self.convert_target(name) is not None:
            return self.convert_call(name, args_nodes, node)
        if name.startswith("as_") and name[3:] in T.builtin_typedefs(self.target):
            return self.as_type_call(name, args_nodes, node)
        if _builtins is not None and _builtins.is_builtin(name) and name not in self.hidden_builtins:
            return self.builtin_call(name, args_nodes, node)
        # OpenCL C has no implicit function declarations; clang-22 reports the name as undeclared.
        self.fail(f"use of undeclared identifier '{name}'", node)

    def address_space_query(self, name, args_nodes, node):
        """to_global/to_local/to_private (OpenCL C 3.0 6.15.10): the generic pointer argument
        as a pointer into that address space, or null; clang calls `__to_global(ptr)`."""
        if len(args_nodes) != 1:
            self.fail(f"invalid number of arguments to function: '{name}'", node)
        arg = self.rvalue(self.expr(args_nodes[0]))
        t = arg.type
        if not t.is_pointer or t.addrspace == T.CONSTANT:
            self.fail(f"invalid argument {spell(t)} to function: '{name}', expecting a generic pointer "
                      "argument", args_nodes[0])
        generic = T.PointerType(t.pointee, T.GENERIC, t.const, t.volatile)
        if t.addrspace != T.GENERIC:
            arg = self.pointer_space_cast(arg, generic)
        result = T.PointerType(t.pointee, ADDRESS_SPACE_QUERIES[name], t.const, t.volatile)
        return tast.Intrinsic(result, location(node), name, [arg])

    def clang_builtin_call(self, name, args_nodes, node):
        """The clang built-ins OpenCL code uses (CLANG_BUILTINS), with clang-22's IR at -O0."""
        kind, ret_name, arity = CLANG_BUILTINS[name]
        loc = location(node)
        if len(args_nodes) != arity:
            self.fail(f"too {'few' if len(args_nodes) < arity else 'many'} arguments to function call, "
                      f"expected {arity}, have {len(args_nodes)}",
                      self.call_rparen_location(node) if len(args_nodes) < arity else args_nodes[arity])
        if kind == "float-const":
            value = {"inf": math.inf, "nan": math.nan}[ret_name[1]]
            return tast.FloatConst(T.SCALARS[ret_name[0]], loc, value)
        if kind == "unreachable":
            return tast.Intrinsic(T.VOID, loc, "unreachable", [])
        args = [self.rvalue(self.expr(a)) for a in args_nodes]
        if kind == "expect":          # long __builtin_expect(long, long): the value (no IR at -O0)
            for a, n in zip(args, args_nodes):
                self.convert(a, T.LONG, n, "passing")
            return self.convert(args[0], T.LONG, args_nodes[0], "passing")
        if kind == "assume":
            self.to_bool(args[0], args_nodes[0])       # a scalar condition
            return tast.Intrinsic(T.VOID, loc, "assume", [args[0]])
        if kind in ("memcpy", "memset"):
            for a, n in zip(args[:2] if kind == "memcpy" else args[:1], args_nodes):
                if not a.type.is_pointer:
                    self.fail(f"passing '{spell(a.type)}' to parameter of incompatible type "
                              f"'{'const ' if a is args[1] else ''}void *'", n)
            last = self.convert(args[2], self.target.size_t, args_nodes[2], "passing")
            middle = args[1] if kind == "memcpy" else tast.ImplicitCast(
                T.CHAR, args[1].loc, "int-to-int", self.convert(args[1], T.INT, args_nodes[1], "passing"))
            return tast.Intrinsic(args[0].type, loc, kind, [args[0], middle, last], (False,))
        if kind in ("ctlz", "cttz", "ctpop"):
            value = self.convert(args[0], T.SCALARS[ret_name], args_nodes[0], "passing")
            return tast.Intrinsic(T.INT, loc, kind, [value], () if kind == "ctpop" else (True,))
        if kind == "fabs":
            value = self.convert(args[0], T.SCALARS[ret_name], args_nodes[0], "passing")
            return tast.Intrinsic(value.type, loc, kind, [value])
        if kind == "is.fpclass":      # int __builtin_isnan(x) & co.: llvm.is.fpclass with clang's masks
            value = args[0]
            if not (value.type.is_float or value.type.is_integer):
                self.fail(f"floating point classification requires argument of floating point type "
                          f"(passed in '{spell(value.type)}')", args_nodes[0])
            if not value.type.is_float:
                value = self.arith_convert(value, T.DOUBLE)
            return tast.Intrinsic(T.INT, loc, "is.fpclass", [value], (FPCLASS_MASKS[ret_name],))
        raise AssertionError(kind)

    def printf_call(self, args_nodes, node):
        """OpenCL C 3.0 6.15.14: `int printf(constant char *restrict format, ...)`."""
        if not args_nodes:
            # 'st' is the parameter's name in clang's opencl-c-base.h
            self.fail("too few arguments to function call, at least argument 'st' must be "
                      "specified", self.call_rparen_location(node))
        format_type = T.PointerType(T.CHAR, T.CONSTANT, True)
        first = args_nodes[0]
        is_literal = isinstance(first, c_ast.Constant) and first.type == "string"
        fmt = self.printf_argument(first) if is_literal else self.rvalue(self.expr(first))
        fmt = self.convert(fmt, format_type, first, "passing")
        args = [self.printf_argument(a) for a in args_nodes[1:]]
        if is_literal:
            self.check_printf_argument_count(first, args_nodes[1:])
        return tast.Printf(T.INT, location(node), fmt, args)

    def check_printf_argument_count(self, literal, data_nodes):
        """clang's -Wformat-insufficient-args / -Wformat-extra-args, at the conversion and at
        the first unused argument. `*` widths and precisions take an argument each."""
        used = 0
        for m in _PRINTF_CONVERSION.finditer(literal.value):
            if m.group(0) == "%%":
                continue
            used += 1 + (m.group("width") == "*") + (m.group("precision") == "*")
            if used > len(data_nodes):
                self.warn("more '%' conversions than data arguments",
                          self.literal_offset_location(literal, m.end() - 1))
                return
        if used < len(data_nodes):
            self.warn("data argument not used by format string", data_nodes[used])

    def literal_offset_location(self, literal, offset):
        """The source location of character `offset` of a string literal's spelling (quote
        included), when the literal is written on one line as spelled; else the literal's."""
        loc = location(literal)
        text = self.diag.sources.line(loc.file, loc.line) if self.diag.sources is not None and loc else None
        if text is None or text.expandtabs(1)[loc.column - 1:loc.column - 1 + len(literal.value)] != literal.value:
            return loc
        return SourceLocation(loc.file, loc.line, loc.column + offset)

    def printf_argument(self, node):
        """A string literal is a `constant char *`; everything else gets the default argument
        promotions of a variadic call (C99 6.5.2.2p7)."""
        if isinstance(node, c_ast.Constant) and node.type == "string":
            data = self.string_bytes(node) + b"\0"
            return tast.StringLiteral(T.PointerType(T.CHAR, T.CONSTANT, True), location(node), data)
        value = self.rvalue(self.expr(node))
        t = value.type
        if t.is_coop_matrix:
            self.fail(f"cannot pass a cooperative matrix of type '{spell(t)}' to printf; pass its "
                      f"elements", node)
        if isinstance(t, T.StructType):
            self.fail(f"cannot pass a struct of type '{spell(t)}' to printf", node)
        if t.is_float and t != T.DOUBLE:
            return self.arith_convert(value, T.DOUBLE)
        if is_integer_like(t) and (isinstance(t, T.EnumType) or t.bits < 32):
            return self.arith_convert(value, T.INT)
        return value

    def arity_message(self, fn, have):
        """clang's wording; a named single parameter is named (Sema::ConvertArgumentsForCall)."""
        want = len(fn.type.params)
        names = [p.name for p in fn.params] if fn.params else self.declared_param_names.get(id(fn), [])
        single = names[0] if want == 1 and len(names) == 1 and names[0] else None
        if have < want:
            if single:
                return f"too few arguments to function call, single argument '{single}' was not specified"
            return f"too few arguments to function call, expected {want}, have {have}"
        if single:
            return (f"too many arguments to function call, expected single argument '{single}', "
                    f"have {have} arguments")
        return f"too many arguments to function call, expected {want}, have {have}"

    def call_rparen_location(self, node):
        """The ')' closing a call (clang points "too few arguments" there); found by matching
        parentheses on the callee's line, else the call's location."""
        loc = location(node)
        text = self.diag.sources.line(loc.file, loc.line) if self.diag.sources is not None and loc else None
        if text is None:
            return loc
        text = text.expandtabs(1)
        depth = 0
        for i in range(loc.column - 1, len(text)):
            if text[i] == "(":
                depth += 1
            elif text[i] == ")":
                depth -= 1
                if depth == 0:
                    return SourceLocation(loc.file, loc.line, i + 1)
        return loc

    def user_call(self, fn, args_nodes, node):
        params = fn.type.params
        loc = location(node)
        if len(args_nodes) != len(params):
            self.fail(self.arity_message(fn, len(args_nodes)),
                      self.call_rparen_location(node) if len(args_nodes) < len(params) else args_nodes[len(params)],
                      [self.note(f"'{fn.name}' declared here", fn.loc)])
        args = []
        for a, pt in zip(args_nodes, params):
            v = self.rvalue(self.expr(a, expected=pt))
            args.append(self.convert(v, pt, a, "passing"))
        if self.fn is not None:
            self.call_edges.append((self.fn.function, fn, location(node)))
        fn._used = True
        return tast.Call(fn.type.ret, loc, fn, args)

    def builtin_call(self, name, args_nodes, node):
        args = [self.rvalue(self.expr(a)) for a in args_nodes]
        for a, n in zip(args, args_nodes):
            if a.type.is_coop_matrix:
                self.fail(f"cooperative matrix argument is not allowed in a call to '{name}'", n)
        arg_types = [a.type for a in args]
        try:
            overload = _builtins.resolve(name, arg_types, self.target)
        except _builtins.BuiltinMismatch as exc:
            # The candidates are declared nowhere in the user's files: notes without a location.
            where = self.call_rparen_location(node) if exc.message.startswith("too few arguments") else node
            self.fail(exc.message, where, [self.note(text, None) for text in getattr(exc, "notes", [])])
        converted = []
        for a, pt, n in zip(args, overload.params, args_nodes):
            # builtins.conversion_warnings words the pointer warnings for built-ins (clang's).
            converted.append(self.convert(a, pt, n, "passing", pointer_warnings=False))
        for text in _builtins.conversion_warnings(overload, arg_types):
            self.warn(text, node)
        return tast.BuiltinCall(overload.ret, location(node), overload, converted)

    CONVERT_RE = re.compile(r"convert_([a-z]+?)(\d*)(_sat)?(_rte|_rtz|_rtp|_rtn)?$")

    def convert_target(self, name):
        m = self.CONVERT_RE.match(name)
        if m is None:
            return None
        elem = T.SCALARS.get(m.group(1))
        if elem is None or elem.name not in T.VECTOR_ELEMENT_NAMES:
            return None
        n = int(m.group(2)) if m.group(2) else 1
        if n != 1 and n not in T.VECTOR_SIZES:
            return None
        return T.vector_of(elem, n), bool(m.group(3)), (m.group(4) or "")[1:] or None

    def convert_call(self, name, args_nodes, node):
        """convert_<type>[_sat][_<rounding>] (OpenCL C 3.0 6.4.3)."""
        t, sat, rounding = self.convert_target(name)
        if len(args_nodes) != 1:
            self.fail(f"too {'few' if not args_nodes else 'many'} arguments to function call, expected 1, "
                      f"have {len(args_nodes)}", node)
        v = self.rvalue(self.expr(args_nodes[0]))
        st = v.type
        count = st.count if isinstance(st, T.VectorType) else 1
        tcount = t.count if isinstance(t, T.VectorType) else 1
        if not (is_arith_like(st) or isinstance(st, T.VectorType)) or count != tcount or st == T.BOOL:
            self.fail(f"no matching function for call to '{name}' with argument of type '{spell(st)}'", node)
        if isinstance(st, T.EnumType):
            v = self.arith_convert(v, T.INT)
        if sat and unqualified_elem(t).is_float:
            self.fail(f"'_sat' is not allowed in a conversion to a floating-point type ('{name}')", node)
        return tast.ConvertCall(t, location(node), v, sat, rounding)

    def as_type_call(self, name, args_nodes, node):
        """as_<type> (OpenCL C 3.0 6.4.4.2): a bitcast between types of the same size."""
        t = T.builtin_typedefs(self.target)[name[3:]]
        if len(args_nodes) != 1:
            self.fail(f"too {'few' if not args_nodes else 'many'} arguments to function call, expected 1, "
                      f"have {len(args_nodes)}", node)
        v = self.rvalue(self.expr(args_nodes[0]))
        if isinstance(v.type, T.EnumType):
            v = self.arith_convert(v, T.INT)
        if not (v.type.is_arithmetic or isinstance(v.type, T.VectorType)) or v.type == T.BOOL:
            self.fail(f"invalid operand of type '{spell(v.type)}' to '{name}'", node)
        if self.sizeof(v.type, node) != self.sizeof(t, node) or t == T.BOOL or t.is_void:
            self.fail(f"invalid reinterpretation: sizes of '{spell(t)}' and '{spell(v.type)}' must match", node)
        return tast.AsType(t, location(node), v)

    # ---- cooperative-matrix built-ins (RFC 4.4, pull request #221328)
    def coop_call(self, name, args_nodes, node, expected):
        loc = location(node)
        if name in COOP_CONTEXT_TYPED:
            if expected is None or not expected.is_coop_matrix:
                self.fail("builtin return value should be assigned to cooperative matrix type variable", node)
        counts = {"coop_mat_load": (3, 3), "coop_mat_store": (4, 4), "coop_matmul_add": (4, 4),
                  "coop_mat_mulAdd": (3, 4), "coop_mat_init": (1, 1), "coop_mat_length": (1, 1)}
        lo, hi = counts[name]
        if not lo <= len(args_nodes) <= hi:
            few = len(args_nodes) < lo
            self.fail(f"too {'few' if few else 'many'} arguments to function call, expected "
                      f"{lo if few else hi}, have {len(args_nodes)}", node if few else args_nodes[hi])
        if name == "coop_mat_load":
            return self.coop_load(args_nodes, node, expected)
        if name == "coop_mat_store":
            return self.coop_store(args_nodes, node)
        if name in ("coop_matmul_add", "coop_mat_mulAdd"):
            return self.coop_muladd(name, args_nodes, node)
        if name == "coop_mat_init":
            scalar = self.rvalue(self.expr(args_nodes[0]))
            if not is_arith_like(scalar.type):
                self.fail(f"argument of 'coop_mat_init' must be a scalar of arithmetic type "
                          f"('{spell(scalar.type)}' invalid)", args_nodes[0])
            self.warn_literal_change(scalar, expected.elem)
            return tast.CoopInit(expected, loc, self.arith_convert(scalar, expected.elem))
        m = self.coop_matrix_arg(args_nodes[0])
        return tast.CoopLength(T.UINT, loc, m)

    def warn_literal_change(self, scalar, elem):
        """clang's -Wliteral-conversion for a constant that the component type cannot hold."""
        value = self.fold(scalar)
        if not isinstance(value, (int, float)) or isinstance(value, bool):
            return
        converted = self.fold_cast(value, self.scalar_cast_kind(scalar.type, elem), scalar.type, elem)
        if converted is not None and converted != value:
            def show(v):
                return f"{v:g}" if isinstance(v, float) else str(v)
            self.warn(f"implicit conversion from '{spell(scalar.type)}' to '{spell(elem)}' changes value "
                      f"from {show(value)} to {show(converted)}", scalar.loc)

    def coop_matrix_arg(self, node):
        v = self.rvalue(self.expr(node))
        if not v.type.is_coop_matrix:
            self.fail("argument must be a valid cooperative matrix type", node)
        return v

    def coop_pointer_arg(self, node, name, mtype):
        p = self.rvalue(self.expr(node))
        if not p.type.is_pointer:
            self.fail(f"first argument of '{name}' must be a pointer ('{spell(p.type)}' invalid)", node)
        pointee = p.type.pointee
        elem = unqualified_elem(pointee)
        if not (isinstance(elem, T.ScalarType) and elem.name in T.VECTOR_ELEMENT_NAMES):
            self.fail(f"pointer argument of '{name}' must point to a scalar or vector numeric type "
                      f"('{spell(p.type)}' invalid)", node)
        if mtype is not None and pointee != mtype.elem:
            # A warning, not an error: SPV_KHR_cooperative_matrix issue 8 lets the pointee differ from
            # the component type (e.g. loading half components from a uint4 buffer); stride and
            # pointer arithmetic then count pointee elements.
            self.warn("inconsistent between cooperative matrix element type and buffer pointer type",
                      node, [self.note(f"matrix element type is '{spell(mtype.elem)}', buffer pointer type is "
                                       f"'{spell(p.type)}'; {PR_NAME} makes this an error",
                                       location(node))], flag=PORTABILITY)
        return p

    def coop_layout_arg(self, node):
        v = self.rvalue(self.expr(node))
        value = self.fold(v) if is_integer_like(v.type) else None
        if value not in (LAYOUT_ROW_MAJOR, LAYOUT_COLUMN_MAJOR):
            self.fail("memory layout should be ROW_MAJOR or COLUMN_MAJOR", node)
        return value

    def coop_stride_arg(self, node, is_store):
        v = self.rvalue(self.expr(node))
        if not is_integer_like(v.type):
            self.fail(f"stride argument must have type 'size_t' ('{spell(v.type)}' invalid)", node)
        if unqualified_elem(as_arith(v.type)) != self.target.size_t:
            self.warn("stride argument must have type 'size_t'", node,
                      [self.note(f"'{spell(v.type)}' is converted to 'size_t' here; {PR_NAME} rejects it "
                                 "(cast it: '(size_t)')", self.node_location(node))], flag=PORTABILITY)
        value = self.fold(v)
        if isinstance(value, int):
            if value < 0:
                self.fail("stride argument must not be negative", node)
            if value == 0 and is_store:
                self.fail("stride of 'coop_mat_store' must be greater than zero", node)
        return self.arith_convert(v, self.target.size_t)

    def coop_load(self, args_nodes, node, mtype):
        p = self.coop_pointer_arg(args_nodes[0], "coop_mat_load", mtype)
        layout = self.coop_layout_arg(args_nodes[1])
        stride = self.coop_stride_arg(args_nodes[2], is_store=False)
        return tast.CoopLoad(mtype, location(node), p, layout, stride)

    def coop_store(self, args_nodes, node):
        m = self.coop_matrix_arg(args_nodes[1])
        p = self.coop_pointer_arg(args_nodes[0], "coop_mat_store", m.type)
        if p.type.addrspace == T.CONSTANT:
            self.fail("cannot store a cooperative matrix to '__constant' memory", args_nodes[0])
        if p.type.const:
            self.fail(f"cannot store a cooperative matrix through a pointer to const ('{spell(p.type)}')",
                      args_nodes[0])
        layout = self.coop_layout_arg(args_nodes[2])
        stride = self.coop_stride_arg(args_nodes[3], is_store=True)
        return tast.CoopStore(T.VOID, location(node), p, m, layout, stride)

    def coop_muladd(self, name, args_nodes, node):
        a = self.coop_matrix_arg(args_nodes[0])
        b = self.coop_matrix_arg(args_nodes[1])
        c = self.coop_matrix_arg(args_nodes[2])
        for m, n, use in ((a, args_nodes[0], T.USE_A), (b, args_nodes[1], T.USE_B),
                          (c, args_nodes[2], T.USE_ACCUMULATOR)):
            if m.type.use != use:
                self.fail(f"argument of cooperative matrix must have '{T.USE_NAMES[use]}' use", n,
                          self.declared_here(m.type))
        at, bt, ct = a.type, b.type, c.type
        # SPV_KHR_cooperative_matrix OpCooperativeMatrixMulAddKHR: A and B must agree; C/result may be
        # wider (half x half -> float, char x char -> int) but of the same kind (integer or floating).
        if at.elem != bt.elem or at.elem.is_float != ct.elem.is_float:
            self.fail("inconsistent cooperative matrix element types", args_nodes[1] if at.elem != bt.elem
                      else args_nodes[2],
                      [self.note(f"element types are '{spell(at.elem)}', '{spell(bt.elem)}' and "
                                 f"'{spell(ct.elem)}'", location(node))])
        if at.cols != bt.rows:
            self.fail("two cooperative matrices with incompatible shapes", args_nodes[1],
                      [self.note(f"A is {at.rows}x{at.cols}, B is {bt.rows}x{bt.cols}: "
                                 f"B must have {at.cols} rows", location(args_nodes[0]))])
        if at.rows != ct.rows or bt.cols != ct.cols:
            self.fail("two cooperative matrices with incompatible shapes", args_nodes[2],
                      [self.note(f"A x B is {at.rows}x{bt.cols}, C is {ct.rows}x{ct.cols}",
                                 location(args_nodes[0]))])
        if not (at.scope == bt.scope == ct.scope):
            self.fail("cooperative matrices of a multiply-add must have the same scope", node)
        if len(args_nodes) == 4:
            operands = self.coop_operands_arg(name, args_nodes[3], at, bt, ct)
        else:
            operands = self.default_operands(name, node, at, bt, ct)
        return tast.CoopMulAdd(ct, location(node), a, b, c, operands)

    @staticmethod
    def operand_types(at, bt, ct):
        """The component type each signedness bit is about (Result has C's type)."""
        return {"A": at.elem, "B": bt.elem, "C": ct.elem, "Result": ct.elem}

    def default_operands(self, name, node, at, bt, ct):
        """Without operands, a signed integer component type sets its signed bit (as
        clspv's tests expect), so that `char` data multiplies as signed."""
        types = self.operand_types(at, bt, ct)
        operands = 0
        for bit, matrix, _ in OPERAND_SIGNED_BITS:
            if types[matrix].is_integer and types[matrix].signed:
                operands |= bit
        if operands:
            spelled = " | ".join(flag for bit, _, flag in OPERAND_SIGNED_BITS if operands & bit)
            self.warn(f"'{name}' without operands multiplies these signed components as signed; "
                      f"{PR_NAME} passes 0 here (every component unsigned)", node,
                      [self.note(f"pass the operands to get the same result with both compilers: {spelled}",
                                 self.node_location(node))], flag=PORTABILITY)
        return operands

    def coop_operands_arg(self, name, node, at, bt, ct):
        v = self.rvalue(self.expr(node))
        if not is_integer_like(v.type):
            self.fail(f"fourth argument of '{name}' must have enum type", node)
        value = self.fold(v)
        if not isinstance(value, int):
            self.fail(f"fourth argument of '{name}' must be an integer constant expression", node)
        if value < 0 or value & ~OPERAND_ALL:
            self.fail(f"invalid cooperative matrix operands value {value}", node)
        if at.elem.is_float and value & (OPERAND_A_SIGNED | OPERAND_B_SIGNED):
            self.warn("signed-component operands of a floating-point cooperative matrix are ignored", node)
        elif ct.elem.is_float and value & (OPERAND_C_SIGNED | OPERAND_RESULT_SIGNED):
            self.warn("signed-component operands of a floating-point cooperative matrix are ignored", node)
        if ct.elem.is_float and value & OPERAND_SATURATING:
            self.warn("saturating accumulation has no effect on a floating-point cooperative matrix", node)
        types = self.operand_types(at, bt, ct)
        for bit, matrix, flag in OPERAND_SIGNED_BITS:
            t = types[matrix]
            if value & bit and t.is_integer and not t.signed:
                # Used as given (SPV_KHR: the bit decides), but the source type says otherwise.
                self.warn(f"'{flag}' contradicts the unsigned component type '{spell(t)}' of matrix "
                          f"{matrix}: its components are read as signed", node)
        return value

    def declared_here(self, t):
        if t.typedef_name and t.typedef_name in self.coop_decl_locs:
            return [self.note(f"'{t.typedef_name}' declared here", self.coop_decl_locs[t.typedef_name])]
        return []

    # ------------------------------------------------------------------ constant folding
    def fold(self, e):
        """Value of a constant expression (int, float, or tuple for vectors), else None."""
        if isinstance(e, tast.IntConst):
            return e.value
        if isinstance(e, tast.FloatConst):
            return e.value
        if isinstance(e, (tast.ImplicitCast, tast.Cast)):
            v = self.fold(e.operand)
            if v is None:
                return None
            return self.fold_cast(v, e.kind, e.operand.type, e.type)
        if isinstance(e, tast.Unary):
            v = self.fold(e.operand)
            if v is None or isinstance(v, tuple):
                return None
            if e.op == "-":
                return self.fold_wrap(-v, e.type)
            if e.op == "~":
                return self.fold_wrap(~v, e.type)
            if e.op == "!":
                return int(not v)
            return None
        if isinstance(e, tast.Binary):
            lv, rv = self.fold(e.left), self.fold(e.right)
            if lv is None or rv is None or isinstance(lv, tuple) or isinstance(rv, tuple):
                return None
            return self.fold_binary(e.op, lv, rv, e.left.type, e.type)
        if isinstance(e, tast.Logical):
            lv = self.fold(e.left)
            if lv is None or isinstance(lv, tuple):
                return None
            if e.op == "&&" and not lv:
                return 0
            if e.op == "||" and lv:
                return 1
            rv = self.fold(e.right)
            return None if rv is None or isinstance(rv, tuple) else int(bool(rv))
        if isinstance(e, tast.Conditional):
            c = self.fold(e.cond)
            if c is None or isinstance(c, tuple):
                return None
            return self.fold(e.then if c else e.otherwise)
        if isinstance(e, tast.AsType):
            return fold_as_type(self.fold(e.operand), e.operand.type, e.type)
        if isinstance(e, tast.VectorLiteral):
            parts = []
            for el in e.elements:
                v = self.fold(el)
                if v is None:
                    return None
                parts.extend(v if isinstance(v, tuple) else [v])
            if len(parts) == 1:
                parts = parts * e.type.count
            return tuple(parts)
        return None

    def fold_wrap(self, v, t):
        t = as_arith(t)
        if isinstance(t, T.ScalarType) and t.is_integer:
            return wrap_int(int(v), t)
        if isinstance(t, T.ScalarType) and t.is_float:
            return float(v)
        return None

    def fold_cast(self, v, kind, src, dst):
        if kind == "splat":
            return (v,) * dst.count if not isinstance(v, tuple) else v
        if isinstance(v, tuple):
            return None
        if kind in ("int-to-bool", "float-to-bool"):
            return int(bool(v))
        if kind == "null-to-pointer":
            return 0
        if kind in ("pointer-bitcast", "addrspace-to-generic", "pointer-to-int", "int-to-pointer", "to-void"):
            return None
        d = as_arith(dst)
        if not isinstance(d, T.ScalarType):
            return None
        if d.is_float:
            return float(v)
        try:
            return wrap_int(int(v), d)
        except (OverflowError, ValueError):
            return None

    def fold_binary(self, op, a, b, operand_type, result_type):
        t = as_arith(operand_type)
        is_float = isinstance(t, T.ScalarType) and t.is_float
        try:
            if op == "+":
                r = a + b
            elif op == "-":
                r = a - b
            elif op == "*":
                r = a * b
            elif op == "/":
                if b == 0 and is_float:
                    # IEEE 754 division by zero: +-inf, or NaN for 0/0 (clang folds it too).
                    r = math.nan if a == 0 or math.isnan(a) else math.copysign(math.inf, a) * math.copysign(1.0, b)
                    return self.fold_wrap(r, result_type)
                if b == 0:
                    return None
                r = a / b if is_float else int(a / b) if (a < 0) != (b < 0) else a // b
                if not is_float and (a < 0) != (b < 0):
                    r = -(abs(a) // abs(b))
            elif op == "%":
                if b == 0:
                    return None
                r = abs(a) % abs(b) * (1 if a >= 0 else -1)
            elif op == "<<":
                r = a << (b & (t.bits - 1))
            elif op == ">>":
                r = a >> (b & (t.bits - 1))
            elif op == "&":
                r = a & b
            elif op == "|":
                r = a | b
            elif op == "^":
                r = a ^ b
            elif op in ("<", ">", "<=", ">=", "==", "!="):
                return int({"<": a < b, ">": a > b, "<=": a <= b, ">=": a >= b, "==": a == b,
                            "!=": a != b}[op])
            else:
                return None
        except (TypeError, ValueError, OverflowError):
            return None
        return self.fold_wrap(r, result_type)
