"""The typed AST: what check produces and lower consumes (chibicc style, plain dataclasses built by
types.record, which creates them faster than @dataclass).

Every expression node has `.type` (a clcoop.frontend.types CType) and `.loc`
(clcoop.diagnostics.SourceLocation). The checker has already applied every C/OpenCL rule,
so lower never re-derives one. What lower may assume:

Values and lvalues
- `expr.is_lvalue` is True for VarRef, Deref, Index, Member of an lvalue base, lvalue
  Swizzle and CoopElement: the node denotes a storage location of type `expr.type`.
  lower computes an ADDRESS for an lvalue in these positions only:
  Assign.target, CompoundAssign.target, IncDec.target, AddrOf.operand, the base of
  Member/Swizzle when that base is an lvalue, the operand of ImplicitCast('array-to-pointer'),
  CoopElement.matrix. Everywhere else an lvalue is used for its value: lower loads it.
- Array-typed expressions never appear as values: they are wrapped in
  ImplicitCast('array-to-pointer') (or folded by sizeof).

Conversions
- All implicit conversions are explicit ImplicitCast nodes; explicit C casts are Cast
  nodes. Both carry a `kind` from CAST_KINDS; the kind alone tells lower which instruction
  to emit, using the operand's and the node's types (e.g. 'int-to-int' truncates, or
  extends by the SOURCE's signedness; 'float-to-int' uses the DESTINATION's signedness).
- Binary arithmetic/bitwise ops ('+','-','*','/','%','&','|','^','<<','>>'): both operands
  already have the node's type (scalars promoted, vector/scalar mixes splatted).
  Shifts: OpenCL C 3.0 6.15.3 says the count is taken modulo the bit width of the left
  operand, so lower masks the right operand with (bits - 1).
  Division/remainder/comparisons/shift right are signed or unsigned per the operand type.
- Comparisons ('<','>','<=','>=','==','!='): both operands have the same type
  (`Binary.operand_type`, arithmetic, vector or pointer); the node's type is INT for scalars
  (C: 0/1) and, for vectors, the signed integer vector with the element width of the
  operands (OpenCL 6.3.d: -1 true / 0 false).
- Logical ('&&','||', class Logical): scalar operands are BOOL (i1) already; short-circuit;
  node type INT. For vector operands (no short circuit, OpenCL 6.3.g) both operands have
  the same integer vector type and the result is the signed integer vector (-1/0).
- Conditions (If/While/DoWhile/For.cond, Conditional.cond for scalars, Not.operand for
  scalars) have type BOOL, i.e. an i1 value.
- BOOL as a value is i1; in memory it is i8 (lower converts on load/store of BOOL lvalues).
- EnumType values are i32 (signed int).
- Pointer arithmetic is its own node (PointerArith, PointerDiff); the integer offset is
  already converted to ptrdiff_t of the target (sign/zero extension by the original type).
- Index.base is a pointer value (arrays decayed); Index.index is ptrdiff_t or size_t-typed.

Initializers
- Var.initializer is None, an Expr already converted to the variable's type, or an
  InitList whose `elements` follow the aggregate exactly (one per array element/struct
  field, None meaning zero-fill; nested InitList for sub-aggregates).
- Initializers of 'global', 'static' and 'kernel-local'(never initialized) variables are
  constants: IntConst, FloatConst, VectorLiteral of constants, InitList of those, None.

Cooperative matrices (CoopMatType, SPIR-V values for scope/use)
- layout and operands are Python ints (0/1 and the SPIR-V operand mask); stride and
  element indexes are Exprs of type target.size_t; a CoopInit/CoopScalarMul scalar is
  already converted to the component type. CoopElement.matrix is always an lvalue.
"""
from dataclasses import field

from clcoop.diagnostics import SourceLocation
from clcoop.frontend import types as T
from clcoop.frontend.types import record

# Cast kinds used by ImplicitCast and Cast.
CAST_KINDS = frozenset({
    "noop",                  # same representation (enum <-> int, int <-> uint of same width, T -> const T)
    "int-to-int",            # trunc / sext / zext by the source's signedness (same width: no-op)
    "int-to-float",          # sitofp / uitofp by the source's signedness
    "float-to-int",          # fptosi / fptoui by the destination's signedness
    "float-to-float",        # fpext / fptrunc
    "int-to-bool",           # icmp ne 0 (vectors never; OpenCL has no bool vectors)
    "float-to-bool",         # fcmp une 0.0
    "pointer-to-bool",       # icmp ne null
    "bool-to-int",           # zext i1
    "bool-to-float",         # uitofp i1
    "array-to-pointer",      # address of element 0 (operand is an array lvalue)
    "addrspace-to-generic",  # addrspacecast to addrspace(4)
    "addrspace-cast",        # explicit cast between named address spaces (generic -> named)
    "null-to-pointer",       # a null pointer constant (integer 0, or (void*)0 of any address space) -> the
                             # null pointer of the node's type; the operand has no side effects
    "pointer-bitcast",       # pointer -> pointer, same address space (no-op with opaque ptrs)
    "zero-to-event",         # integer constant 0 -> event_t: the zero event (zeroinitializer)
    "pointer-to-int",        # ptrtoint (explicit casts only)
    "int-to-pointer",        # inttoptr (explicit casts only)
    "splat",                 # scalar (already of the element type) -> vector of node's type
    "to-void",               # (void)expr: evaluate, discard
})


# ---------------------------------------------------------------- declarations
@record(eq=False)
class Var:
    """A declared object. Compared by identity (VarRef points at the one Var)."""
    name: str
    type: T.CType
    storage: str                 # 'local-var' | 'param' | 'global' | 'kernel-local' | 'static'
    addrspace: int = T.PRIVATE   # where the object lives
    initializer: object = None   # None | Expr | InitList
    loc: SourceLocation | None = None
    is_const: bool = False
    # 'static' locals and 'kernel-local' vars are lowered as module globals named
    # `<function>.<name>` (clang's convention); set by check for those storages.
    global_name: str | None = None


@record(eq=False)
class Function:
    """A function: defined (body is a Compound) or only declared (body None)."""
    name: str
    type: T.FunctionType
    params: list                 # Var objects (storage 'param'), in order
    body: object = None          # Compound or None
    is_kernel: bool = False
    is_static: bool = False
    loc: SourceLocation | None = None
    # The IR symbol of an __attribute__((overloadable)) function: Itanium-mangled as clang
    # does (`_Z2sqf`); None means the C name.
    mangled: str | None = None
    # Kernel attributes (OpenCL C 3.0 6.11.2): tuples of ints or None.
    reqd_work_group_size: tuple | None = None
    work_group_size_hint: tuple | None = None
    intel_reqd_sub_group_size: int | None = None
    vec_type_hint: object = None           # a ScalarType or VectorType (kernel metadata only)
    # Per kernel parameter: access qualifier for metadata ('none' unless an image).
    param_access_quals: list = field(default_factory=list)
    # Spelling of parameter types as written (for kernel_arg_type: typedef names kept).
    param_type_names: list = field(default_factory=list)
    # 'kernel-local' Vars declared in this kernel's body (lowered as addrspace(3) globals).
    local_vars: list = field(default_factory=list)
    # 'static' local Vars declared in the body (lowered as internal globals).
    static_vars: list = field(default_factory=list)


# Alias: the brief names definitions FunctionDef; one class serves both.
FunctionDef = Function


@record
class TranslationUnit:
    functions: list              # Function objects, in source order (declarations that are used, and definitions)
    globals: list                # Var objects with storage 'global', in source order


@record
class InitList:
    type: T.CType                # array or struct (or vector) type being initialized
    elements: list               # one per element/field: Expr | InitList | None (zero)
    loc: SourceLocation | None = None


# ---------------------------------------------------------------- statements
@record
class Stmt:
    loc: SourceLocation | None


@record
class Compound(Stmt):
    items: list                  # statements


@record
class DeclStmt(Stmt):
    vars: list                   # Var objects (local-var: initialize here; static/kernel-local: nothing to do at run time)


@record
class ExprStmt(Stmt):
    expr: object


@record
class If(Stmt):
    cond: object                 # BOOL
    then: Stmt
    otherwise: Stmt | None


@record
class While(Stmt):
    cond: object                 # BOOL
    body: Stmt
    unroll: int | None = None    # opencl_unroll_hint: None none, 0 enable, 1 disable, n count


@record
class DoWhile(Stmt):
    body: Stmt
    cond: object                 # BOOL
    unroll: int | None = None    # as While.unroll


@record
class For(Stmt):
    init: Stmt | None            # DeclStmt or ExprStmt or None
    cond: object | None          # BOOL or None (infinite loop)
    step: object | None          # Expr or None
    body: Stmt
    unroll: int | None = None    # as While.unroll


@record
class Switch(Stmt):
    cond: object                 # promoted integer expression
    body: Stmt
    cases: list = field(default_factory=list)    # Case nodes inside body, in order
    default: object = None                        # the Default node or None


@record
class Case(Stmt):
    value: int                   # already converted to the switch condition's type
    body: Stmt


@record
class Default(Stmt):
    body: Stmt


@record
class Break(Stmt):
    pass


@record
class Continue(Stmt):
    pass


@record
class Return(Stmt):
    value: object | None         # converted to the function's return type


@record
class Goto(Stmt):
    label: str


@record
class Label(Stmt):
    name: str
    body: Stmt


@record
class Null(Stmt):
    pass


@record
class Asm(Stmt):
    """GNU inline assembly in LLVM's terms (check: asm_check.py): the template and the
    constraint string; the output lvalues, stored from the call's results in order; the
    input values; the outputs whose value before the statement is also an input (a "+"
    operand: its tied input follows the others)."""
    template: str
    constraints: str
    outputs: list
    inputs: list
    tied: list
    side_effect: bool


# ---------------------------------------------------------------- expressions
@record
class Expr:
    type: T.CType
    loc: SourceLocation | None

    @property
    def is_lvalue(self):
        return False


@record
class IntConst(Expr):
    value: int                   # already wrapped to the type's width (two's complement)
    # An enumerator's enum type: the constant is an int (C99 6.4.4.3), but clang's
    # -Wimplicit-enum-enum-cast names the enum it came from.
    enum: T.CType | None = field(default=None, compare=False)


@record
class FloatConst(Expr):
    value: float


@record
class VarRef(Expr):
    var: Var

    @property
    def is_lvalue(self):
        return True


@record
class FunctionRef(Expr):
    """Names a function. OpenCL has no function pointers: a function name used as a value is an
    error, except as the function operand of a cooperative-matrix built-in (coop_function_ops.py),
    the only place check puts one."""
    function: Function


@record
class Unary(Expr):
    op: str                      # '-', '+', '~' (operand has the node's type), '!' (operand BOOL for scalars, node INT;
                                 # for vectors operand is the integer vector, node the signed integer vector -1/0)
    operand: Expr


@record
class Binary(Expr):
    op: str                      # arithmetic/bitwise/shift/comparison, see module docstring
    left: Expr
    right: Expr
    # Floating-point contraction where this operator was written (FP_CONTRACT pragmas,
    # -ffp-contract): "on" fuses `a * b + c` into llvm.fmuladd, "fast" adds contract flags.
    fp_contract: str = "off"

    @property
    def operand_type(self):
        return self.left.type

    @property
    def is_comparison(self):
        return self.op in ("<", ">", "<=", ">=", "==", "!=")


@record
class Logical(Expr):
    op: str                      # '&&' or '||'
    left: Expr
    right: Expr


@record
class PointerArith(Expr):
    op: str                      # '+' or '-'
    pointer: Expr                # node type == pointer.type
    offset: Expr                 # ptrdiff_t, in elements of the pointee


@record
class PointerDiff(Expr):
    left: Expr                   # same pointer type as right; node type ptrdiff_t; result in elements
    right: Expr


@record
class Assign(Expr):
    target: Expr                 # lvalue; node type == target.type
    value: Expr                  # already converted to target.type; result of the node is the stored value


@record
class OldValue(Expr):
    """Inside CompoundAssign.compute / IncDec.compute: the value loaded from the target (type target.type)."""


@record
class CompoundAssign(Expr):
    op: str                      # '+=', '-=', ... (for information; compute has the semantics)
    target: Expr                 # lvalue, evaluated ONCE
    compute: Expr                # new value in target.type, in terms of OldValue; result = stored value


@record
class IncDec(Expr):
    op: str                      # '++' or '--'
    prefix: bool                 # prefix: result is the new value; postfix: the old value
    target: Expr                 # lvalue, evaluated once
    compute: Expr                # new value in target.type, in terms of OldValue


@record
class Conditional(Expr):
    cond: Expr                   # BOOL (scalar), or an integer vector for OpenCL select semantics (6.3.i)
    then: Expr                   # converted to the node's type
    otherwise: Expr              # converted to the node's type


@record
class Comma(Expr):
    left: Expr                   # evaluated for side effects
    right: Expr                  # node type == right.type


@record
class Call(Expr):
    callee: Function
    args: list                   # converted to the parameter types


@record
class BuiltinCall(Expr):
    overload: object             # clcoop.frontend.builtins.BuiltinOverload (name, ret, params, mangled, convergent)
    args: list                   # converted to overload.params


@record
class Cast(Expr):
    kind: str                    # see CAST_KINDS
    operand: Expr


@record
class ImplicitCast(Expr):
    kind: str                    # see CAST_KINDS
    operand: Expr


@record
class Index(Expr):
    base: Expr                   # pointer value
    index: Expr                  # ptrdiff_t / size_t typed integer

    @property
    def is_lvalue(self):
        return True


@record
class Member(Expr):
    base: Expr                   # struct/union lvalue or value (for `p->f`, base is Deref(p))
    field_index: int
    name: str

    @property
    def is_lvalue(self):
        return self.base.is_lvalue


@record
class AddrOf(Expr):
    operand: Expr                # lvalue; node type is a pointer in the operand's address space


@record
class Deref(Expr):
    operand: Expr                # pointer value; node type == pointee

    @property
    def is_lvalue(self):
        return True


@record
class VectorLiteral(Expr):
    elements: list               # each a scalar of the element type or a vector of it; counts sum to the
                                 # vector size, or a single scalar which is splatted (OpenCL 6.1.6)


@record
class Swizzle(Expr):
    base: Expr                   # vector (lvalue or value); never itself a Swizzle (the checker folds)
    indices: tuple               # component indexes into base; len 1 gives a scalar node type
    lvalue: bool = False         # assignable (base is an lvalue and no index repeats)

    @property
    def is_lvalue(self):
        return self.lvalue


@record
class VectorElement(Expr):
    """`v[i]` with a non-constant i (a clang extension): extractelement, and for a store the
    whole vector is loaded, insertelement'ed and stored back, as clang-22 does at -O0."""
    base: Expr                   # vector (lvalue or value)
    index: Expr                  # integer (promoted; used as is, like clang)
    lvalue: bool = False

    @property
    def is_lvalue(self):
        return self.lvalue


@record
class AsType(Expr):
    operand: Expr                # as_<type>: bitcast to the node's type (same size; OpenCL 6.4.4.2)


@record
class Intrinsic(Expr):
    """A clang built-in lowered to an LLVM intrinsic as clang-22 lowers it (check.CLANG_BUILTINS):
    `llvm.<name>.<overload suffix>(args..., extra)`; `extra` are the constant trailing operands
    (i1 for ctlz/cttz, i32 class mask for is.fpclass). ctpop/ctlz/cttz results are truncated
    (or kept) to the node's type; is.fpclass's i1 is zero-extended; memcpy/memset return their
    destination; unreachable is the terminator."""
    name: str
    args: list
    extra: tuple = ()


@record
class ConvertCall(Expr):
    operand: Expr                # convert_<type>[_sat][_<rounding>] (OpenCL 6.4.3); same component count
    saturate: bool = False
    rounding: str | None = None  # 'rte', 'rtz', 'rtp', 'rtn' or None (default rounding)


@record
class StringLiteral(Expr):
    """A string literal as a value: a printf argument or __func__ (type `const __constant char *`;
    lower emits a private constant global). A string that initializes a char array is an
    InitList of IntConst instead."""
    value: bytes                 # the bytes, NUL included


@record
class Printf(Expr):
    """printf(format, args...) (OpenCL C 3.0 6.15.14): a variadic call of `int printf(const
    __constant char *, ...)`; args after the format have had the default argument
    promotions (C99 6.5.2.2p7: float and half to double, small integers to int)."""
    format: Expr
    args: list


# ---------------------------------------------------------------- cooperative matrices
@record
class CoopLoad(Expr):
    pointer: Expr                # any pointer (pointee may differ from the component type: SPV_KHR issue 8)
    layout: int                  # 0 row-major, 1 column-major
    stride: Expr                 # size_t, elements of the pointee type


@record
class CoopStore(Expr):
    pointer: Expr
    matrix: Expr
    layout: int
    stride: Expr                 # size_t; node type VOID


@record
class TensorOp(Expr):
    """A tensor layout or view operation (coop_tensor_check.py): node type = the tensor
    type; `op` its OpenCL C name; `operand` the layout or view updated (None for create);
    `values` uint Exprs (slice offsets int), as many as coopmat_spec.tensor_operand_count."""
    op: str
    operand: object
    values: list


@record
class CoopLoadTensor(Expr):
    pointer: Expr                # addressing in units of the node's component type
    keep: object                 # Expr of the node's matrix type (values of clipped elements) or None
    layout: Expr                 # tensor layout
    view: object                 # tensor view Expr or None
    decode: object               # the decode function (tast.FunctionRef) or None


@record
class CoopStoreTensor(Expr):
    pointer: Expr
    matrix: Expr
    layout: Expr
    view: object                 # node type VOID


@record
class CoopMulAdd(Expr):
    a: Expr
    b: Expr
    c: Expr                      # node type == c.type
    operands: int                # SPIR-V Cooperative Matrix Operands mask (0 = none)


@record
class CoopInit(Expr):
    scalar: Expr                 # already of the component type


@record
class CoopLength(Expr):
    matrix: Expr                 # node type UINT


@record
class CoopBinary(Expr):
    op: str                      # '+', '-', '*', '/'; a, b and node share one matrix type
    a: Expr
    b: Expr


@record
class CoopNeg(Expr):
    a: Expr


@record
class CoopScalarMul(Expr):
    matrix: Expr
    scalar: Expr                 # already of the component type


@record
class CoopConvert(Expr):
    matrix: Expr                 # same scope/rows/cols as the node's type; other component type, use or both


@record
class CoopTranspose(Expr):
    matrix: Expr                 # an accumulator; the node's type is A or B with rows and columns swapped


@record
class CoopElement(Expr):
    matrix: Expr                 # lvalue of matrix type
    index: Expr                  # size_t

    @property
    def is_lvalue(self):
        return True


# ---- cooperative-matrix operations with a function operand (coop_function_ops.py)
@record
class CoopReduce(Expr):
    matrix: Expr                 # accumulator; node type: the result accumulator (from context)
    mode: int                    # NV2 Cooperative Matrix Reduce mask: 1 Row, 2 Column, 3, 4 2x2
    combine: FunctionRef         # T combine(T, T), T the component type


@record
class CoopPerElement(Expr):
    matrix: Expr                 # node type == matrix.type
    function: FunctionRef        # T fn(uint row, uint col, T x, extra...)
    extras: list                 # matrices of matrix.type, or scalars converted to fn's parameter types


@record
class CoopGetCoord(Expr):
    matrix: Expr
    index: Expr                  # uint; node type uint2 (row, col)
