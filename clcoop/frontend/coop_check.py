"""The cooperative-matrix checks (RFC 4.4-4.6, clang pull request llvm/llvm-project #221328):
the coop_mat type attribute, the matrix built-ins (driven by COOP_BUILTINS, one table) and
the element-wise operators.

Cooperative-matrix decisions (where the RFC and the pull request are silent)
- Element types: char..ulong, half, float, double (not bool, vectors, pointers).
  rows/cols: integer constant expressions in 1..coopmat_spec.MAX_DIMENSION.
- scope: 3 (CLK_COOPERATIVE_MATRIX_SCOPE_SUBGROUP) or 4 (memory_scope_sub_group), both
  SPIR-V Subgroup (3) in the type; 2 (CLK_COOPERATIVE_MATRIX_SCOPE_WORKGROUP) or 1
  (memory_scope_work_group), SPIR-V Workgroup (2). Quoted enumerator names (RFC 4.6 form)
  are accepted; other memory_scope enumerators are not. A kernel that uses a
  workgroup-scope matrix (itself or through the functions it calls) must have
  reqd_work_group_size: the layout depends on the work-group size, and SPIR-V requires
  OpExecutionMode LocalSize for it (docs/layout.md "Workgroup scope").
- Mul-add: A and B have one component type, or integer types of one width that differ in
  signedness (uchar x char: SPV_KHR lets the component types differ); C (= the result) may
  differ but must be of the same kind (integer or floating point): half x half + float and
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

from pycparser import c_ast

from clcoop.coopmat_spec import (MAX_DIMENSION, OPENCL_MEMORY_SCOPES, OPERAND_ALL, Layout, Operand,
                                  Scope, Use, mul_add_problem, scope_of_value)
from clcoop.coopmat_spec import default_operands as spec_default_operands
from clcoop.frontend import coop_function_ops, fp8, tast
from clcoop.frontend import types as T
from clcoop.frontend.check_support import location
from clcoop.frontend.constfold import fold, fold_cast
from clcoop.frontend.coop_tensor_check import TENSOR_BUILTINS, coop_what
from clcoop.frontend.coop_conversions import check_transpose
from clcoop.frontend.conversions import is_arith_like, spell
from clcoop.frontend.types import as_arith, is_integer_like, unqualified_elem
from clcoop.records import record


# ------------------------------------------------------------------ constants of the extension
@record(frozen=True)
class CoopBuiltin:
    """A cooperative-matrix built-in (RFC 4.4; the pull request's coop_matmul_add):
    arguments it takes, whether its result type comes from the context (the variable it
    initializes, the lvalue it is assigned to, ...: check.py, check_expr.py), and the
    function that checks a call, as check(coop, name, args_nodes, node, expected) with
    `coop` the CoopChecks part (a CoopChecks method, a function of coop_function_ops.py or
    coop_conversions.py, or a CoopTensorChecks method through _on_tensors)."""
    min_args: int
    max_args: int
    context_typed: bool
    check: object


# The one table of matrix built-ins: name -> CoopBuiltin (filled in below the class).
COOP_BUILTINS = {}
# The signedness bits and the matrix each is about (RFC 4.5; SPV_KHR_cooperative_matrix
# Cooperative Matrix Operands: MatrixASignedComponents ... MatrixResultSignedComponents).
SIGNED_OPERAND_MATRICES = ((Operand.MATRIX_A_SIGNED, "A"), (Operand.MATRIX_B_SIGNED, "B"),
                           (Operand.MATRIX_C_SIGNED, "C"), (Operand.MATRIX_RESULT_SIGNED, "Result"))
COOP_EXTENSION = "cl_khr_cooperative_matrix"
# -Wcoop-portability: where clang's cooperative-matrix pull request (llvm/llvm-project #221328)
# rejects or differs from what clcoop accepts; its Sema tests' wording where it has one.
PORTABILITY = "coop-portability"
LAYOUT_ENUM = T.EnumType("coop_matrix_layout_t")      # include/clcoop/opencl-c-coop.h
PR_NAME = "clang's cooperative-matrix pull request (llvm/llvm-project #221328)"
# Enumerators a quoted-string coop_mat argument may name (RFC 4.6 spelling), by argument.
ATTRIBUTE_ENUM_NAMES = {
    "scope": {**{s.opencl: s.value for s in Scope},
              **{name: value for name, (value, _) in OPENCL_MEMORY_SCOPES.items()}},
    "use": {u.opencl: u.value for u in Use},
}


def _other_memory_scope(node):
    """memory_scope_device (2) and memory_scope_all_svm_devices (3) have the values of
    SPIR-V's Workgroup and Subgroup scopes, but name no matrix scope."""
    return isinstance(node, c_ast.ID) and node.name.startswith("memory_scope_") \
        and node.name not in OPENCL_MEMORY_SCOPES


class CoopChecks:
    """The checker's cooperative-matrix types, built-ins and operators. ctx: the checker's
    CheckContext; expressions: what types the operands (.expr(node, expected=None),
    .rvalue(e): check_expr.ExpressionChecks); folding, conversions: the ConstantFolding and Conversions
    parts; tensors: the CoopTensorChecks part (tensor layouts and views,
    coop_tensor_check.py), which runs the tensor built-ins."""

    def __init__(self, ctx, expressions, folding, conversions, tensors):
        self.ctx = ctx
        self.expressions = expressions
        self.folding = folding
        self.conversions = conversions
        self.tensors = tensors
        self.workgroup_scope_declared = False    # a workgroup-scope matrix type was declared
        self.extension_reported = False          # the missing-#pragma diagnostic was given

    def coop_mat_type(self, base, args, attr_node, base_node, typedef_name):
        """Build a CoopMatType from `coop_mat(scope, rows, cols, use)` (RFC 4.1)."""
        if len(args) != 4:
            self.ctx.fail("'coop_mat' attribute requires exactly 4 arguments", attr_node)
        base = as_arith(base) if isinstance(base, T.EnumType) else base
        if not (isinstance(base, T.ScalarType) and base.name in T.COOP_ELEMENT_NAMES):
            self.ctx.fail(f"'{spell(base)}' is invalid cooperative matrix element type", base_node or attr_node)
        scope = scope_of_value(self.coop_attr_value(args[0], "scope"))
        if scope is None or _other_memory_scope(args[0]):
            self.ctx.fail("invalid 'scope' argument of cooperative matrix attribute", args[0])
        rows = self.coop_attr_size(args[1], "row")
        cols = self.coop_attr_size(args[2], "column")
        use = self.coop_attr_value(args[3], "use")
        if use not in tuple(Use):
            self.ctx.fail("invalid 'use' argument of cooperative matrix attribute", args[3])
        self.require_coop_extension(attr_node, typedef_name)
        if scope == Scope.WORKGROUP:
            self.workgroup_scope_declared = True
        return T.CoopMatType(base, int(scope), rows, cols, use, typedef_name=typedef_name)

    def check_workgroup_scope_kernels(self):
        """A kernel that uses a workgroup-scope matrix, in its body or in a function it calls,
        needs reqd_work_group_size: the matrix's layout depends on the work-group size, and
        SPIR-V requires OpExecutionMode LocalSize for it (SPV_KHR_cooperative_matrix
        validation rules)."""
        if not self.workgroup_scope_declared:
            return
        callees = {}
        for caller, callee, _ in self.ctx.call_edges:
            callees.setdefault(id(caller), []).append(callee)
        uses = {id(fn): _first_workgroup_matrix(fn) for fn in self.ctx.functions}
        for kernel in self.ctx.functions:
            if not kernel.is_kernel or kernel.reqd_work_group_size:
                continue
            use = _reached_workgroup_matrix(kernel, callees, uses)
            if use is not None:
                self.ctx.error(f"kernel '{kernel.name}' uses a workgroup-scope cooperative matrix and "
                               f"must have the 'reqd_work_group_size' attribute", kernel.loc,
                               [self.ctx.note(f"workgroup-scope matrix type '{spell(use.type)}' used here",
                                              use.loc)])

    def require_coop_extension(self, where, typedef_name):
        """clcoop always knows cooperative matrices; clang's pull request requires the pragma.
        Said once, at the first matrix type declared without it."""
        if COOP_EXTENSION in self.ctx.enabled_extensions or self.extension_reported:
            return
        self.extension_reported = True
        what = f"type '{typedef_name}'" if typedef_name else "the 'coop_mat' attribute"
        self.ctx.warn(f"use of {what} requires {COOP_EXTENSION} support", where,
                      [self.ctx.note(f"add '#pragma OPENCL EXTENSION {COOP_EXTENSION} : enable' before it; "
                                     f"{PR_NAME} rejects the type without it", self.ctx.node_location(where))],
                      flag=PORTABILITY)

    def coop_attr_value(self, node, what):
        if isinstance(node, c_ast.Constant) and node.type == "string":
            name = node.value.strip('"')
            if name in ATTRIBUTE_ENUM_NAMES[what]:
                return ATTRIBUTE_ENUM_NAMES[what][name]
            self.ctx.fail(f"invalid '{what}' argument of cooperative matrix attribute", node)
        value = self.folding.integer_constant(node, f"'{what}' argument of cooperative matrix attribute")
        return value

    def coop_attr_size(self, node, which):
        value = self.folding.integer_constant(node, "'coop_mat' attribute")
        if value == 0:
            self.ctx.fail("zero matrix size", node)
        if value < 0:
            self.ctx.fail(f"matrix {which} size must be positive", node)
        if value > MAX_DIMENSION:
            self.ctx.fail(f"matrix {which} size too large", node)
        return value

    def coop_storage_error(self, t, aspace, node, where):
        if t.is_coop_opaque:
            if where == "program":
                self.ctx.fail(f"{coop_what(t)} type cannot be declared at program scope", node)
            self.ctx.fail(f"{coop_what(t)} type cannot be declared in the "
                          f"'{T.ADDRSPACE_NAMES[aspace]}' address space", node)

    # ---- cooperative-matrix operators (RFC 4.6)
    def coop_binary(self, op, left, right, node):
        lt, rt = left.type, right.type
        loc = left.loc or location(node)
        if op not in ("+", "-", "*", "/"):
            self.ctx.fail("unsupported cooperative matrix binary operator", node)
        for t in (lt, rt):
            if t.is_coop_matrix and fp8.is_fp8(t.elem):
                self.ctx.fail(f"invalid operands to binary expression ('{spell(lt)}' and '{spell(rt)}'): "
                              f"SPV_EXT_float8 has no arithmetic on fp8 matrices; convert to a half or "
                              f"float matrix first", node)
        if lt.is_coop_matrix and rt.is_coop_matrix:
            if lt != rt:
                scopes = f" (of {_scope_word(lt)} and {_scope_word(rt)} scope)" if lt.scope != rt.scope else ""
                self.ctx.fail("incompatible cooperative matrix types", node,
                              [self.ctx.note(f"operand types are '{spell(lt)}' and '{spell(rt)}'{scopes}", loc)])
            return tast.CoopBinary(lt, loc, op, left, right)
        matrix, scalar = (left, right) if lt.is_coop_matrix else (right, left)
        if op != "*":
            self.ctx.fail("unsupported cooperative matrix scalar operator", node)
        if not is_arith_like(scalar.type):
            self.ctx.fail(f"invalid operands to binary expression ('{spell(lt)}' and '{spell(rt)}')", node)
        # RFC 4.6 / issue 2 item 10: the scalar becomes the component type (e.g. a*4 on floats is 4.0f).
        self.warn_literal_change(scalar, matrix.type.elem)
        scalar = self.conversions.arith_convert(scalar, matrix.type.elem)
        return tast.CoopScalarMul(matrix.type, loc, matrix, scalar)

    def coop_element(self, base, index, node):
        if not is_integer_like(index.type):
            self.ctx.fail("array subscript is not an integer", node.subscript)
        constant = fold(index)
        if isinstance(constant, int) and constant < 0:
            self.ctx.fail(f"cooperative matrix element index {constant} is negative", node.subscript)
        if not base.is_lvalue:
            self.ctx.fail("cooperative matrix element access requires a matrix variable", node)
        index = self.conversions.arith_convert(index, self.ctx.target.size_t)
        return tast.CoopElement(base.type.elem, location(node), base, index)

    # ---- cooperative-matrix built-ins (RFC 4.4, pull request #221328)
    def coop_call(self, name, args_nodes, node, expected):
        builtin = COOP_BUILTINS[name]
        if builtin.context_typed:
            if expected is None or not expected.is_coop_matrix:
                self.ctx.fail("builtin return value should be assigned to cooperative matrix type variable", node)
        lo, hi = builtin.min_args, builtin.max_args
        if not lo <= len(args_nodes) <= hi:
            few = len(args_nodes) < lo
            self.ctx.fail(f"too {'few' if few else 'many'} arguments to function call, expected "
                          f"{lo if few else hi}, have {len(args_nodes)}", node if few else args_nodes[hi])
        return builtin.check(self, name, args_nodes, node, expected)

    def coop_init(self, name, args_nodes, node, expected):
        scalar = self.expressions.rvalue(self.expressions.expr(args_nodes[0]))
        if fp8.involves_fp8(scalar.type, expected.elem):
            value = scalar if scalar.type == expected.elem \
                else fp8.cast(self.conversions, scalar, expected.elem, args_nodes[0])
            return tast.CoopInit(expected, location(node), value)
        if not is_arith_like(scalar.type):
            self.ctx.fail(f"argument of '{name}' must be a scalar of arithmetic type "
                          f"('{spell(scalar.type)}' invalid)", args_nodes[0])
        self.warn_literal_change(scalar, expected.elem)
        return tast.CoopInit(expected, location(node), self.conversions.arith_convert(scalar, expected.elem))

    def coop_length(self, name, args_nodes, node, expected):
        m = self.coop_matrix_arg(args_nodes[0])
        return tast.CoopLength(T.UINT, location(node), m)

    def warn_literal_change(self, scalar, elem):
        """clang's -Wliteral-conversion for a constant that the component type cannot hold."""
        value = fold(scalar)
        if not isinstance(value, (int, float)) or isinstance(value, bool):
            return
        converted = fold_cast(value, self.conversions.scalar_cast_kind(scalar.type, elem), scalar.type, elem)
        if converted is not None and converted != value:
            def show(v):
                return f"{v:g}" if isinstance(v, float) else str(v)
            self.ctx.warn(f"implicit conversion from '{spell(scalar.type)}' to '{spell(elem)}' changes value "
                          f"from {show(value)} to {show(converted)}", scalar.loc)

    def takes_context_type(self, node):
        """A call of a matrix built-in whose result type only its context gives."""
        return isinstance(node, c_ast.FuncCall) and isinstance(node.name, c_ast.ID) \
            and node.name.name in CONTEXT_TYPED and self.ctx.scope.lookup(node.name.name) is None

    def coop_matrix_arg(self, node, expected=None):
        v = self.expressions.rvalue(self.expressions.expr(node, expected))
        if not v.type.is_coop_matrix:
            self.ctx.fail("argument must be a valid cooperative matrix type", node)
        return v

    def coop_pointer_arg(self, node, name, mtype):
        p = self.expressions.rvalue(self.expressions.expr(node))
        if not p.type.is_pointer:
            self.ctx.fail(f"first argument of '{name}' must be a pointer ('{spell(p.type)}' invalid)", node)
        pointee = p.type.pointee
        elem = unqualified_elem(pointee)
        if not (isinstance(elem, T.ScalarType) and elem.name in T.COOP_ELEMENT_NAMES):
            self.ctx.fail(f"pointer argument of '{name}' must point to a scalar or vector numeric type "
                          f"('{spell(p.type)}' invalid)", node)
        if mtype is not None and pointee != mtype.elem:
            # A warning, not an error: SPV_KHR_cooperative_matrix issue 8 lets the pointee differ from
            # the component type (e.g. loading half components from a uint4 buffer); stride and
            # pointer arithmetic then count pointee elements.
            self.ctx.warn("inconsistent between cooperative matrix element type and buffer pointer type",
                          node, [self.ctx.note(f"matrix element type is '{spell(mtype.elem)}', buffer pointer type is "
                                               f"'{spell(p.type)}'; {PR_NAME} makes this an error",
                                               location(node))], flag=PORTABILITY)
        return p

    def coop_layout_arg(self, node):
        v = self.expressions.rvalue(self.expressions.expr(node))
        # The RFC declares the parameter `const coop_matrix_layout_t layout`: a use or scope
        # enumerator there is an enum mix-up (a use B stores column-major), as clang says.
        self.conversions.warn_enum_conversion(v, LAYOUT_ENUM, node,
                                              "'coop_matrix_layout_t' (aka 'enum coop_matrix_layout_t')")
        value = fold(v) if is_integer_like(v.type) else None
        if value not in tuple(Layout):
            self.ctx.fail("memory layout should be ROW_MAJOR or COLUMN_MAJOR", node)
        return value

    def coop_stride_arg(self, node, store_name):
        """The stride of a load, or of a store named `store_name`."""
        v = self.expressions.rvalue(self.expressions.expr(node))
        if not is_integer_like(v.type):
            self.ctx.fail(f"stride argument must have type 'size_t' ('{spell(v.type)}' invalid)", node)
        if unqualified_elem(as_arith(v.type)) != self.ctx.target.size_t:
            self.ctx.warn("stride argument must have type 'size_t'", node,
                          [self.ctx.note(f"'{spell(v.type)}' is converted to 'size_t' here; {PR_NAME} rejects it "
                                         "(cast it: '(size_t)')", self.ctx.node_location(node))], flag=PORTABILITY)
        value = fold(v)
        if isinstance(value, int):
            if value < 0:
                self.ctx.fail("stride argument must not be negative", node)
            if value == 0 and store_name:
                self.ctx.fail(f"stride of '{store_name}' must be greater than zero", node)
        return self.conversions.arith_convert(v, self.ctx.target.size_t)

    def coop_load(self, name, args_nodes, node, mtype):
        p = self.coop_pointer_arg(args_nodes[0], name, mtype)
        layout = self.coop_layout_arg(args_nodes[1])
        stride = self.coop_stride_arg(args_nodes[2], None)
        return tast.CoopLoad(mtype, location(node), p, layout, stride)

    def coop_store(self, name, args_nodes, node, expected):
        m = self.coop_matrix_arg(args_nodes[1])
        p = self.coop_pointer_arg(args_nodes[0], name, m.type)
        if p.type.addrspace == T.CONSTANT:
            self.ctx.fail("cannot store a cooperative matrix to '__constant' memory", args_nodes[0])
        if p.type.const:
            self.ctx.fail(f"cannot store a cooperative matrix through a pointer to const ('{spell(p.type)}')",
                          args_nodes[0])
        layout = self.coop_layout_arg(args_nodes[2])
        stride = self.coop_stride_arg(args_nodes[3], name)
        return tast.CoopStore(T.VOID, location(node), p, m, layout, stride)

    def coop_muladd(self, name, args_nodes, node, expected):
        a = self.coop_matrix_arg(args_nodes[0])
        b = self.coop_matrix_arg(args_nodes[1])
        # The result has C's type (RFC 4.4): where the context gives it, so has C
        # (`acc = coop_mat_mulAdd(a, b, coop_mat_init(0.0f))`).
        c = self.coop_matrix_arg(args_nodes[2], expected if expected is not None and expected.is_coop_matrix else None)
        at, bt, ct = a.type, b.type, c.type
        problem = mul_add_problem(at.spec, bt.spec, ct.spec)
        if problem is not None:
            where = args_nodes[problem.operand] if problem.operand >= 0 else node
            if problem.note:
                note_at = args_nodes[problem.note_operand] if problem.note_operand >= 0 else node
                notes = [self.ctx.note(problem.note, location(note_at))]
            else:       # a wrong use: where the matrix type was declared
                notes = self.declared_here((at, bt, ct)[problem.operand])
            self.ctx.fail(problem.message, where, notes)
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
        operands = spec_default_operands(at.spec, bt.spec, ct.spec)
        if operands:
            spelled = " | ".join(bit.opencl for bit, _ in SIGNED_OPERAND_MATRICES if operands & bit)
            self.ctx.warn(f"'{name}' without operands multiplies these signed components as signed; "
                          f"{PR_NAME} passes 0 here (every component unsigned)", node,
                          [self.ctx.note(f"pass the operands to get the same result with both compilers: {spelled}",
                                         self.ctx.node_location(node))], flag=PORTABILITY)
        return int(operands)

    def coop_operands_arg(self, name, node, at, bt, ct):
        v = self.expressions.rvalue(self.expressions.expr(node))
        if not is_integer_like(v.type):
            self.ctx.fail(f"fourth argument of '{name}' must have enum type", node)
        value = fold(v)
        if not isinstance(value, int):
            self.ctx.fail(f"fourth argument of '{name}' must be an integer constant expression", node)
        if value < 0 or value & ~OPERAND_ALL:
            self.ctx.fail(f"invalid cooperative matrix operands value {value}", node)
        if at.elem.is_float and value & (Operand.MATRIX_A_SIGNED | Operand.MATRIX_B_SIGNED):
            self.ctx.warn("signed-component operands of a floating-point cooperative matrix are ignored", node)
        elif ct.elem.is_float and value & (Operand.MATRIX_C_SIGNED | Operand.MATRIX_RESULT_SIGNED):
            self.ctx.warn("signed-component operands of a floating-point cooperative matrix are ignored", node)
        if ct.elem.is_float and value & Operand.SATURATING_ACCUMULATION:
            self.ctx.warn("saturating accumulation has no effect on a floating-point cooperative matrix", node)
        types = self.operand_types(at, bt, ct)
        for bit, matrix in SIGNED_OPERAND_MATRICES:
            t, flag = types[matrix], bit.opencl
            if value & bit and t.is_integer and not t.signed:
                # Used as given (SPV_KHR: the bit decides), but the source type says otherwise.
                self.ctx.warn(f"'{flag}' contradicts the unsigned component type '{spell(t)}' of matrix "
                              f"{matrix}: its components are read as signed", node)
        return value

    def declared_here(self, t):
        if t.typedef_name and t.typedef_name in self.ctx.coop_decl_locs:
            return [self.ctx.note(f"'{t.typedef_name}' declared here", self.ctx.coop_decl_locs[t.typedef_name])]
        return []


def _scope_word(t):
    return "workgroup" if t.scope == Scope.WORKGROUP else "subgroup"


def _is_workgroup_matrix(t):
    return getattr(t, "is_coop_matrix", False) and t.scope == Scope.WORKGROUP


def _first_workgroup_matrix(fn):
    """The first node (an expression or variable with a `loc`) of fn whose type is a
    workgroup-scope matrix, or None. Other functions are not entered (calls are edges)."""
    stack, seen = [fn.params, fn.body], set()
    while stack:
        node = stack.pop()
        if isinstance(node, (list, tuple)):
            stack.extend(reversed(node))
            continue
        if not hasattr(node, "__dataclass_fields__") or isinstance(node, tast.Function) \
                or id(node) in seen:
            continue
        seen.add(id(node))
        if _is_workgroup_matrix(getattr(node, "type", None)) and getattr(node, "loc", None):
            return node
        stack.extend(getattr(node, name) for name in reversed(node.__dataclass_fields__))
    return None


def _on_tensors(method):
    """A CoopTensorChecks method as a CoopBuiltin check: run by the tensor part."""
    def check(coop, name, args_nodes, node, expected):
        return method(coop.tensors, name, args_nodes, node, expected)
    return check


def _reached_workgroup_matrix(kernel, callees, uses):
    """The first workgroup-scope matrix use in kernel or a function it calls (transitively)."""
    stack, seen = [kernel], set()
    while stack:
        fn = stack.pop()
        if id(fn) in seen:
            continue
        seen.add(id(fn))
        if uses.get(id(fn)) is not None:
            return uses[id(fn)]
        stack.extend(callees.get(id(fn), []))
    return None


COOP_BUILTINS.update({
    "coop_mat_load": CoopBuiltin(3, 3, True, CoopChecks.coop_load),
    "coop_mat_store": CoopBuiltin(4, 4, False, CoopChecks.coop_store),
    "coop_matmul_add": CoopBuiltin(4, 4, False, CoopChecks.coop_muladd),     # the pull request's
    "coop_mat_mulAdd": CoopBuiltin(3, 4, False, CoopChecks.coop_muladd),     # the RFC's
    "coop_mat_init": CoopBuiltin(1, 1, True, CoopChecks.coop_init),
    "coop_mat_length": CoopBuiltin(1, 1, False, CoopChecks.coop_length),
    "coop_mat_transpose": CoopBuiltin(1, 1, True, check_transpose),         # NV2 / EXT
    # With a function operand (coop_function_ops.py; NV2 / EXT maintenance1).
    "coop_mat_reduce": CoopBuiltin(3, 3, True, coop_function_ops.coop_reduce),
    "coop_mat_per_element": CoopBuiltin(2, 2 + coop_function_ops.MAX_PER_ELEMENT_EXTRAS, False,
                                        coop_function_ops.coop_per_element),
    "coop_mat_get_coord": CoopBuiltin(2, 2, False, coop_function_ops.coop_get_coord),
})
COOP_BUILTINS.update({name: CoopBuiltin(lo, hi, False, _on_tensors(method))     # coop_tensor_check.py
                      for name, (lo, hi, method) in TENSOR_BUILTINS.items()})
# Matrix built-ins whose result type comes from the context (coop_mat_load_tensor checks
# that itself: a keep matrix may give it instead).
CONTEXT_TYPED = frozenset([name for name, b in COOP_BUILTINS.items() if b.context_typed]
                          + ["coop_mat_load_tensor"])
