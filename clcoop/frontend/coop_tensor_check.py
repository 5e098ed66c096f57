"""The tensor layout and view checks (SPV_NV_tensor_addressing, SPV_NV_cooperative_matrix2
"Tensor Layout and View"; OpenCL C names of issue 14): the coop_tensor_layout /
coop_tensor_view attributes, the layout and view operations, coop_mat_load_tensor and
coop_mat_store_tensor. Registered in coop_check.COOP_BUILTINS (TENSOR_BUILTINS: methods
of the CoopTensorChecks part).

Decisions (where the extension and the issue are silent; what a kernel author coming from
GLSL's coopMatLoadTensorNV would expect):
- `coop_tensor_view(D, has_dimensions)` without a permutation is the identity (GLSL's
  tensorViewNV default); with one, exactly D values.
- Every operation but `create` returns its operand's type (SPIR-V: Result Type must be the
  operand's type); `create` and the loads take their type from the context, like
  coop_mat_init / coop_mat_load.
- Dimensions, strides, spans, block sizes and the clip are uint; slice offsets are int
  (signed, as the spec's int32_t offset[]). The clamp value is a uint bit pattern
  (`as_uint(1.0f)`); a floating-point argument is an error (it would convert the value).
- coop_mat_load_tensor([keep,] p, layout [, view] [, decode]): the keep matrix (the
  values clipped elements keep) is optional with or without a view (without a keep,
  clipped elements are 0). Addressing counts matrix components, so the pointee may be any
  numeric type (or, with a decode function, any type: the decode's block).
- A view without dimensions takes the layout's span, so it must have the layout's
  dimension count (an error when both types are known, which is always).
- A block size greater than 1 on a store is an error where the layout expression shows it
  (a chain of layout operations, or a const variable initialized by one); otherwise the
  interpreter faults when the store runs.
"""
from pycparser import c_ast

from clcoop.coopmat_spec import ClampMode, tensor_operand_count_problem
from clcoop.frontend import tast
from clcoop.frontend import types as T
from clcoop.frontend.check_support import location
from clcoop.frontend.constfold import fold
from clcoop.frontend.coop_function_ops import function_operand
from clcoop.frontend.conversions import spell
from clcoop.frontend.types import is_integer_like, unqualified_elem
from clcoop.tensor_spec import LAYOUT, VIEW, TensorType

# A clamp mode given as a quoted enumerator name (like coop_mat's RFC 4.6 spelling).
CLAMP_MODE_NAMES = {m.opencl: int(m) for m in ClampMode}


def coop_what(t):
    """How diagnostics name an opaque cooperative type."""
    if t.is_coop_tensor:
        return f"tensor {t.spec.kind}"
    return "cooperative matrix"


class CoopTensorChecks:
    """The checker's tensor layout and view types and operations. ctx: the checker's
    CheckContext; expressions: what types the operands (.expr(node, expected=None),
    .rvalue(e): check_expr.ExpressionChecks); folding: the ConstantFolding part (attribute values);
    conversions: the Conversions part."""

    def __init__(self, ctx, expressions, folding, conversions):
        self.ctx = ctx
        self.expressions = expressions
        self.folding = folding
        self.conversions = conversions

    # ---- the attributes
    def coop_tensor_type(self, base, attribute, args, attr_node, decl, typedef_name):
        """`typedef coop_tensor_layout_t L __attribute__((coop_tensor_layout(D, clamp)))`,
        `typedef coop_tensor_view_t V __attribute__((coop_tensor_view(D, has_dims, p...)))`."""
        kind = LAYOUT if attribute == "coop_tensor_layout" else VIEW
        if typedef_name is None:
            self.ctx.fail(f"'{attribute}' attribute only applies to typedefs", attr_node)
        if base != T.CoopTensorBaseType(kind) or not isinstance(decl.type, c_ast.TypeDecl):
            self.ctx.fail(f"'{attribute}' attribute applies to a typedef of 'coop_tensor_{kind}_t', "
                          f"not of '{spell(base)}'", attr_node)
        if not args:
            self.ctx.fail(f"'{attribute}' attribute requires the dimension count", attr_node)
        dims = self.folding.integer_constant(args[0], f"'{attribute}' attribute")
        if kind == LAYOUT:
            if len(args) != 2:
                self.ctx.fail(f"'coop_tensor_layout' attribute requires exactly 2 arguments (the "
                              f"dimension count and the clamp mode)", attr_node)
            spec = TensorType.layout(dims, self.tensor_clamp_mode(args[1]))
        else:
            if len(args) < 2:
                self.ctx.fail("'coop_tensor_view' attribute requires the dimension count and "
                              "whether the view has dimensions", attr_node)
            has_dimensions = self.folding.integer_constant(args[1], "'coop_tensor_view' attribute")
            permutation = [self.folding.integer_constant(a, "'coop_tensor_view' permutation") for a in args[2:]]
            if permutation and len(permutation) != dims and 1 <= dims <= 5:
                self.ctx.fail(f"'coop_tensor_view' permutation has {len(permutation)} values for "
                              f"{dims} dimensions", args[2])
            spec = TensorType.view(dims, has_dimensions, permutation or range(max(dims, 0)))
        problem = spec.problem()
        if problem is not None:
            at = args[min(problem.operand, len(args) - 1)] if problem.operand >= 0 else attr_node
            self.ctx.fail(problem.message, at, [self.ctx.note(problem.note, location(at))] if problem.note else [])
        return T.CoopTensorType(spec, typedef_name=typedef_name)

    def tensor_clamp_mode(self, node):
        if isinstance(node, c_ast.Constant) and node.type == "string":
            name = node.value.strip('"')
            if name not in CLAMP_MODE_NAMES:
                self.ctx.fail(f"unknown tensor clamp mode '{name}'", node)
            return CLAMP_MODE_NAMES[name]
        value = self.expressions.rvalue(self.expressions.expr(node))
        folded = fold(value)
        if not is_integer_like(value.type) or not isinstance(folded, int):
            self.ctx.fail("tensor clamp mode must be a constant (CLK_COOPERATIVE_MATRIX_CLAMP_MODE_*)", node)
        return folded

    # ---- layout and view operations
    def tensor_operand(self, node, kind, name, expected=None):
        """The layout or view operand; `expected` (the context's type) reaches a create
        call written in place: coop_tensor_layout_set_dimension(coop_tensor_layout_create(), ...)."""
        context = expected if expected is not None and expected.is_coop_tensor else None
        v = self.expressions.rvalue(self.expressions.expr(node, expected=context))
        if not (v.type.is_coop_tensor and v.type.spec.kind == kind):
            self.ctx.fail(f"first argument of '{name}' must be a tensor {kind} "
                          f"('{spell(v.type)}' invalid)", node)
        return v

    def tensor_create(self, name, args_nodes, node, expected):
        kind = LAYOUT if "_layout_" in name else VIEW
        if expected is None or not (expected.is_coop_tensor and expected.spec.kind == kind):
            self.ctx.fail(f"'{name}' must initialize or be assigned to a tensor {kind} variable "
                          f"(it takes its type from there)", node)
        return tast.TensorOp(expected, location(node), name, None, [])

    def tensor_update(self, name, args_nodes, node, expected):
        kind = LAYOUT if "_layout_" in name else VIEW
        operand = self.tensor_operand(args_nodes[0], kind, name, expected)
        dims = operand.type.spec.dims
        problem = tensor_operand_count_problem(name, dims, len(args_nodes) - 1)
        if problem is not None:
            where = args_nodes[problem.operand] if problem.operand < len(args_nodes) else node
            self.ctx.fail(problem.message, where)
        values = []
        for k, arg in enumerate(args_nodes[1:]):
            signed = name == "coop_tensor_layout_slice" and k % 2 == 0
            values.append(self.tensor_value(arg, T.INT if signed else T.UINT, name))
        return tast.TensorOp(operand.type, location(node), name, operand, values)

    def tensor_value(self, node, t, name):
        v = self.expressions.rvalue(self.expressions.expr(node))
        if not is_integer_like(v.type):
            hint = " (the clamp value is a bit pattern: pass as_uint(x))" \
                if name == "coop_tensor_layout_set_clamp_value" and v.type.is_float else ""
            self.ctx.fail(f"argument of '{name}' must be an integer ('{spell(v.type)}' invalid){hint}", node)
        return self.conversions.arith_convert(v, t)

    # ---- loads and stores
    def tensor_pointer(self, node, name, store, decode, value=None):
        p = value if value is not None else self.expressions.rvalue(self.expressions.expr(node))
        if not p.type.is_pointer:
            self.ctx.fail(f"pointer argument of '{name}' must be a pointer ('{spell(p.type)}' invalid)", node)
        elem = unqualified_elem(p.type.pointee)
        numeric = isinstance(elem, T.ScalarType) and elem.name in T.COOP_ELEMENT_NAMES
        if not numeric and not (decode and not p.type.pointee.is_void):
            self.ctx.fail(f"pointer argument of '{name}' must point to a scalar or vector numeric type "
                          f"('{spell(p.type)}' invalid)", node)
        if store and p.type.addrspace == T.CONSTANT:
            self.ctx.fail("cannot store a cooperative matrix to '__constant' memory", node)
        if store and p.type.const:
            self.ctx.fail(f"cannot store a cooperative matrix through a pointer to const "
                          f"('{spell(p.type)}')", node)
        return p

    def tensor_matrix(self, node, name, what):
        v = self.expressions.rvalue(self.expressions.expr(node))
        if not v.type.is_coop_matrix:
            self.ctx.fail(f"{what} of '{name}' must be a cooperative matrix ('{spell(v.type)}' invalid)", node)
        return v

    def tensor_layout_and_view(self, args_nodes, name):
        """The layout argument and the optional view after it."""
        layout = self.tensor_operand(args_nodes[0], LAYOUT, name)
        view = None
        if len(args_nodes) > 1:
            view = self.expressions.rvalue(self.expressions.expr(args_nodes[1]))
            if not (view.type.is_coop_tensor and view.type.spec.kind == VIEW):
                self.ctx.fail(f"argument after the tensor layout of '{name}' must be a tensor view "
                              f"('{spell(view.type)}' invalid)", args_nodes[1])
            lspec, vspec = layout.type.spec, view.type.spec
            if not vspec.has_dimensions and vspec.dims != lspec.dims:
                self.ctx.fail(f"a tensor view without dimensions uses the layout's span, so it must have "
                              f"the layout's {lspec.dims} dimensions, not {vspec.dims}", args_nodes[1])
        return layout, view

    def split_decode(self, args_nodes):
        """(arguments, decode node or None): a last argument naming a function."""
        last = args_nodes[-1] if args_nodes else None
        if isinstance(last, c_ast.ID) and isinstance(self.ctx.scope.lookup(last.name), tast.Function):
            return args_nodes[:-1], last
        return args_nodes, None

    def coop_load_tensor(self, name, args_nodes, node, expected):
        all_nodes = args_nodes
        args_nodes, decode_node = self.split_decode(args_nodes)
        if len(args_nodes) < 2:
            self.ctx.fail(f"'{name}' takes ([keep,] pointer, layout [, view] [, decode])", node)
        keep = None
        context = expected if expected is not None and expected.is_coop_matrix else None
        # a keep matrix: coop_mat_init(0)
        first = self.expressions.rvalue(self.expressions.expr(args_nodes[0], expected=context))
        if first.type.is_coop_matrix:
            keep, first = first, None
            args_nodes = args_nodes[1:]
        if expected is None or not expected.is_coop_matrix:
            if keep is None:
                self.ctx.fail(f"'{name}' must initialize or be assigned to a cooperative matrix variable "
                              f"(it takes its type from there)", node)
            expected = keep.type
        if keep is not None and keep.type != expected:
            self.ctx.fail("incompatible cooperative matrix types", keep.loc,
                          [self.ctx.note(f"the kept matrix has type '{spell(keep.type)}', the result "
                                         f"'{spell(expected)}'", keep.loc)])
        if not 2 <= len(args_nodes) <= 3:
            self.ctx.fail(f"'{name}' takes ([keep,] pointer, layout [, view] [, decode])", node)
        pointer = self.tensor_pointer(args_nodes[0], name, False, decode_node is not None, first)
        layout, view = self.tensor_layout_and_view(args_nodes[1:], name)
        decode = self.tensor_decode(decode_node, len(all_nodes) - 1, name, pointer, layout, expected) \
            if decode_node else None
        return tast.CoopLoadTensor(expected, location(node), pointer, keep, layout, view, decode)

    def coop_store_tensor(self, name, args_nodes, node, expected):
        args_nodes, decode_node = self.split_decode(args_nodes)
        if decode_node is not None:
            self.ctx.fail(f"'{name}' takes no decode function (SPV_NV_cooperative_matrix2: "
                          f"DecodeFunc is for loads only)", decode_node)
        if not 3 <= len(args_nodes) <= 4:
            self.ctx.fail(f"'{name}' takes (pointer, matrix, layout [, view])", node)
        matrix = self.tensor_matrix(args_nodes[1], name, "second argument")
        pointer = self.tensor_pointer(args_nodes[0], name, True, False)
        layout, view = self.tensor_layout_and_view(args_nodes[2:], name)
        blocks = static_block_size(layout)
        if blocks is not None and any(b != 1 for b in blocks):
            self.ctx.fail(f"tensor store with block size ({', '.join(map(str, blocks))}): a block "
                          f"size greater than 1 must not be used with a store "
                          f"(SPV_NV_cooperative_matrix2)", args_nodes[2])
        return tast.CoopStoreTensor(T.VOID, location(node), pointer, matrix, layout, view)

    def tensor_decode(self, node, index, name, pointer, layout, mtype):
        """`T decode(const __global S *block, const uint block_coord[D], const uint
        coord_in_block[D])` with T the matrix component type and S the pointee: a function
        operand (coop_function_ops.function_operand, the shared machinery)."""
        dims = layout.type.spec.dims
        space = T.ADDRSPACE_NAMES[pointer.type.addrspace] + " " if pointer.type.addrspace else ""
        wanted = (f"'{spell(mtype.elem)} {node.name}(const {space}{spell(pointer.type.pointee)} *block, "
                  f"const uint block_coord[{dims}], const uint coord_in_block[{dims}])'")

        def signature_problem(ftype):
            problems = []
            if ftype.ret != mtype.elem:
                problems.append(f"it returns '{spell(ftype.ret)}', not the component type "
                                f"'{spell(mtype.elem)}'")
            if len(ftype.params) != 3 or ftype.variadic:
                problems.append(f"it has {len(ftype.params)} parameters, not 3")
            else:
                block, coord, in_block = ftype.params
                if not block.is_pointer or block.pointee != pointer.type.pointee \
                        or block.addrspace != pointer.type.addrspace:
                    problems.append(f"its first parameter is '{spell(block)}', not a pointer to the "
                                    f"loaded '{spell(pointer.type.pointee)}' in the pointer's address space")
                for what, p in (("second", coord), ("third", in_block)):
                    if not (p.is_pointer and p.pointee == T.UINT):
                        problems.append(f"its {what} parameter is '{spell(p)}', not 'const uint[{dims}]'")
            if problems:
                return (f"invalid decode function '{node.name}': {'; '.join(problems)} (a decode "
                        f"function for this load is {wanted})")
            return None
        return function_operand(self.ctx, node, name, index, signature_problem)


def static_block_size(expr):
    """The block sizes a layout expression is known to have at compile time: through a
    chain of layout operations (create gives 1s) and const variables initialized by one;
    None when unknown."""
    if isinstance(expr, tast.VarRef):
        var = expr.var
        if var.is_const and isinstance(var.initializer, tast.Expr):
            return static_block_size(var.initializer)
        return None
    if isinstance(expr, tast.ImplicitCast):
        return static_block_size(expr.operand)
    if not isinstance(expr, tast.TensorOp):
        return None
    if expr.op == "coop_tensor_layout_create":
        return (1,) * expr.type.spec.dims
    if expr.op == "coop_tensor_layout_set_block_size":
        values = [fold(v) for v in expr.values]
        return tuple(values) if all(isinstance(v, int) for v in values) else None
    return static_block_size(expr.operand)


# name -> (min args, max args, CoopTensorChecks method): registered in coop_check.COOP_BUILTINS.
TENSOR_BUILTINS = {
    "coop_tensor_layout_create": (0, 0, CoopTensorChecks.tensor_create),
    "coop_tensor_view_create": (0, 0, CoopTensorChecks.tensor_create),
    "coop_mat_load_tensor": (2, 5, CoopTensorChecks.coop_load_tensor),
    "coop_mat_store_tensor": (3, 5, CoopTensorChecks.coop_store_tensor),     # 5: a decode, refused
}
TENSOR_BUILTINS.update({name: (1, 11, CoopTensorChecks.tensor_update) for name in (
    "coop_tensor_layout_set_dimension", "coop_tensor_layout_set_stride",
    "coop_tensor_layout_set_block_size", "coop_tensor_layout_slice",
    "coop_tensor_layout_set_clamp_value", "coop_tensor_view_set_dimension",
    "coop_tensor_view_set_stride", "coop_tensor_view_set_clip")})
