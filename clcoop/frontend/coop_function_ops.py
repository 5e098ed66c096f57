"""Checks of the cooperative-matrix built-ins that take a function operand
(SPV_NV_cooperative_matrix2, SPV_EXT_cooperative_matrix_maintenance1; issue 13):
coop_mat_reduce, coop_mat_per_element, and coop_mat_get_coord beside them.

Function operands (the shared machinery; `function_operand`): OpenCL C has no function
pointers, so the argument must be a function designator, the bare name of a user function
of the same program (parentheses allowed). Anything else is an error at that argument. The
caller gives a rule that checks the function's type (`signature_problem(ftype) -> message
or None`). The result is a tast.FunctionRef, which lower_coop.py passes as `ptr @f`
(mangled as clang mangles a pointer to that function type, coop_names.function_operand_code);
the interpreter (interp/coop_function_calls.py) runs the function over lanes and
`--emit-spirv` maps the operand back to the OpFunction (spirv/function_operands.py).

The functions below are CoopBuiltin checks, check(coop, name, args_nodes, node, expected),
called with the CoopChecks part as `coop` (coop_check.COOP_BUILTINS).
"""
from pycparser import c_ast

from clcoop.coopmat_spec import Reduce, reduce_problem
from clcoop.frontend import tast
from clcoop.frontend import types as T
from clcoop.frontend.check_support import location
from clcoop.frontend.constfold import fold
from clcoop.frontend.conversions import spell
from clcoop.frontend.types import is_integer_like

# Extra operands of coop_mat_per_element beyond the matrix and the function: enough for any
# real per-element function (the table needs a bound).
MAX_PER_ELEMENT_EXTRAS = 32
ORDINALS = ("first", "second", "third", "fourth", "fifth", "sixth")


def _ordinal(index):
    return ORDINALS[index] if index < len(ORDINALS) else f"#{index + 1}"


def function_operand(ctx, node, builtin, index, signature_problem):
    """The tast.FunctionRef of argument `index` of `builtin` (a pycparser node), which must
    name a user function whose type `signature_problem` accepts (None = accepted, else the
    message). Marks the function used (it is emitted even if nothing else calls it) and
    records the call edge (recursion checks). ctx: the coop's CheckContext."""
    what = f"{_ordinal(index)} argument of '{builtin}'"
    if not isinstance(node, c_ast.ID):
        ctx.fail(f"{what} must be the name of a function (OpenCL C has no function pointers)", node)
    entry = ctx.scope.lookup(node.name)
    if not isinstance(entry, tast.Function):
        if entry is None and node.name not in ctx.poisoned:
            ctx.fail(f"use of undeclared identifier '{node.name}'", node)
        ctx.fail(f"{what} must be the name of a function; '{node.name}' is not a function", node)
    notes = [ctx.note(f"'{entry.name}' declared here", entry.loc)] if entry.loc else []
    if entry.is_kernel:
        ctx.fail(f"{what} must not be a kernel", node, notes)
    if entry.name in ctx.overloads:
        ctx.fail(f"{what} must not name an overloadable function ('{entry.name}' has "
                 f"{len(ctx.overloads[entry.name])} overloads)", node, notes)
    problem = signature_problem(entry.type)
    if problem:
        ctx.fail(f"{what}: {problem}", node,
                 [ctx.note(f"'{entry.name}' has type '{spell(entry.type)}'", entry.loc or location(node))])
    if ctx.fn is not None:
        ctx.call_edges.append((ctx.fn.function, entry, location(node)))
    entry._used = True
    return tast.FunctionRef(entry.type, location(node), entry)


def exact_signature(ret, params):
    """A signature rule: exactly `ret (params...)`."""
    wanted = T.FunctionType(ret, tuple(params))

    def problem(ftype):
        if ftype.variadic or ftype.ret != ret or tuple(ftype.params) != tuple(params):
            return f"the function must have type '{spell(wanted)}'"
        return None
    return problem


# ------------------------------------------------------------------ coop_mat_reduce
def coop_reduce(coop, name, args_nodes, node, expected):
    """R coop_mat_reduce(M m, mode, combine): NV2 OpCooperativeMatrixReduceNV."""
    m = coop.coop_matrix_arg(args_nodes[0])
    mode = _reduce_mode(coop, name, args_nodes[1])
    elem = m.type.elem
    combine = function_operand(coop.ctx, args_nodes[2], name, 2, exact_signature(elem, (elem, elem)))
    problem = reduce_problem(m.type.spec, expected.spec, mode)
    if problem is not None:
        where = args_nodes[problem.operand] if problem.operand >= 0 else node
        notes = [coop.ctx.note(problem.note, location(where))] if problem.note else []
        if problem.operand < 0:
            notes.append(coop.ctx.note(f"the result type '{spell(expected)}' comes from the context",
                                       location(node)))
        coop.ctx.fail(problem.message, where, notes)
    return tast.CoopReduce(expected, location(node), m, mode, combine)


def _reduce_mode(coop, name, node):
    v = coop.expressions.rvalue(coop.expressions.expr(node))
    value = fold(v) if is_integer_like(v.type) else None
    if not isinstance(value, int):
        coop.ctx.fail(f"reduce mode of '{name}' must be an integer constant expression "
                      f"(CLK_COOPERATIVE_MATRIX_REDUCE_ROW, _COLUMN, _ROW | _COLUMN or _2X2)", node)
    if value & Reduce.TWO_BY_TWO and value & (Reduce.ROW | Reduce.COLUMN):
        # NV2 / EXT 3.X "Cooperative Matrix Reduce Mode": "It is invalid to combine 2x2 with Row or Column."
        coop.ctx.fail(f"reduce mode {value}: CLK_COOPERATIVE_MATRIX_REDUCE_2X2 cannot be combined "
                      f"with ROW or COLUMN", node)
    if value not in (1, 2, 3, 4):
        coop.ctx.fail(f"invalid reduce mode {value} (CLK_COOPERATIVE_MATRIX_REDUCE_ROW, _COLUMN, "
                      f"_ROW | _COLUMN or _2X2)", node)
    return value


# ------------------------------------------------------------------ coop_mat_per_element
def coop_per_element(coop, name, args_nodes, node, expected):
    """M coop_mat_per_element(M m, fn, extra...): NV2 OpCooperativeMatrixPerElementOpNV;
    fn is T fn(uint row, uint col, T x, extra...) (EXT: row and col 32-bit integers)."""
    m = coop.coop_matrix_arg(args_nodes[0])
    elem = m.type.elem
    extra_count = len(args_nodes) - 2

    def signature(ftype):
        params = tuple(ftype.params)
        wanted = f"'{spell(elem)} (uint, uint, {spell(elem)}, ...)'"
        if ftype.variadic or ftype.ret != elem or len(params) < 3 or params[2] != elem \
                or not all(_is_int32(p) for p in params[:2]):
            return f"the function must have type {wanted}: row, column, element, then the extra operands"
        if len(params) - 3 != extra_count:
            return (f"the function takes {len(params) - 3} extra operand(s) after (row, column, "
                    f"element), but the call passes {extra_count}")
        return None

    function = function_operand(coop.ctx, args_nodes[1], name, 1, signature)
    params = function.function.type.params
    extras = []
    for k, arg in enumerate(args_nodes[2:]):
        param = params[3 + k]
        v = coop.expressions.rvalue(coop.expressions.expr(arg))
        if v.type.is_coop_matrix:
            if v.type != m.type:
                coop.ctx.fail(f"matrix operand of '{name}' must have the type of its first argument "
                              f"('{spell(m.type)}', not '{spell(v.type)}')", arg)
            if param != elem:
                coop.ctx.fail(f"parameter {4 + k} of '{function.function.name}' must have the component "
                              f"type '{spell(elem)}' to take elements of a matrix operand", arg,
                              [coop.ctx.note(f"'{function.function.name}' declared here", function.function.loc)])
            extras.append(v)
        elif isinstance(param, T.ScalarType) or param.is_pointer:
            # NV2: an operand that is not a matrix is passed as it is: a scalar, or a pointer
            # the function reads or writes through (shaders store from per-element functions).
            extras.append(coop.conversions.convert(v, param, arg, "passing"))
        else:
            coop.ctx.fail(f"extra operand of '{name}' must be a scalar, a pointer or a matrix of the "
                          f"first argument's type (parameter {4 + k} of '{function.function.name}' "
                          f"has type '{spell(param)}')", arg)
    return tast.CoopPerElement(m.type, location(node), m, function, extras)


def _is_int32(t):
    return isinstance(t, T.ScalarType) and t.kind == "int" and t.bits == 32


# ------------------------------------------------------------------ coop_mat_get_coord
def coop_get_coord(coop, name, args_nodes, node, expected):
    """uint2 coop_mat_get_coord(M m, uint i): EXT OpCooperativeMatrixGetCoordinateEXT."""
    m = coop.coop_matrix_arg(args_nodes[0])
    index = coop.expressions.rvalue(coop.expressions.expr(args_nodes[1]))
    if not is_integer_like(index.type):
        coop.ctx.fail(f"index of '{name}' must be an integer ('{spell(index.type)}' invalid)", args_nodes[1])
    value = fold(index)
    if isinstance(value, int) and value < 0:
        coop.ctx.fail(f"index of '{name}' must not be negative", args_nodes[1])
    index = coop.conversions.arith_convert(index, T.UINT)
    return tast.CoopGetCoord(T.VectorType(T.UINT, 2), location(node), m, index)
