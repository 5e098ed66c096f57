"""Checks of the cooperative-matrix conversions that change more than the component type:
use conversions by cast (`(mat_a)acc`, `(mat_b)acc`, `(mat_acc)a`) and coop_mat_transpose.

Plain functions of the checker: conversions.py calls `coop_matrix_cast` (with the
CheckContext) for every cast between matrix types, and coop_check's COOP_BUILTINS
table names `check_transpose`. The type rules are coopmat_spec's (conversion_problem,
transpose_problem); this module only places the diagnostics.

- A cast may change the component type (KHR OpFConvert & co.), the use (NV2
  OpCooperativeMatrixConvertNV: Accumulator -> A or B; EXT ConvertUseEXT: A or B ->
  Accumulator), or both at once (NV2/EXT allow Op*Convert to change the use). Rows,
  columns and scope must match; A <-> B is neither extension's.
- coop_mat_transpose takes its result type from the context, like coop_mat_load: a B
  matrix (NV2 OpCooperativeMatrixTransposeNV) or an A matrix (EXT conversion decorated
  CooperativeMatrixTransposeEXT), with rows and columns swapped.
"""
from clcoop.coopmat_spec import conversion_problem, transpose_problem
from clcoop.frontend import tast
from clcoop.frontend.check_support import location


def coop_matrix_cast(ctx, operand, t, node):
    """The typed-AST node of the cast `(t)operand` between two matrix types (ctx: the
    checker's CheckContext)."""
    st = operand.type
    if st == t:
        return operand
    problem = conversion_problem(st.spec, t.spec)
    if problem is not None:
        notes = [ctx.note(problem.note, location(node))] if problem.note else []
        ctx.fail(f"invalid conversion between cooperative matrix types '{st.spelling()}' and "
                 f"'{t.spelling()}': {_CAST_PROBLEMS.get(problem.message, problem.message)}",
                 node, notes)
    return tast.CoopConvert(t, location(node), operand)


# coopmat_spec's wording -> what the cast diagnostic says (the operand is the cast's).
_CAST_PROBLEMS = {
    "cooperative matrix conversion changes the shape": "rows and columns must match",
    "cooperative matrix conversion changes the scope": "the scope must match",
    "cooperative matrix conversion between A and B uses":
        "a use conversion is from or to an accumulator (A <-> B is not allowed)",
}


def check_transpose(coop, name, args_nodes, node, expected):
    """`R coop_mat_transpose(Acc m)`; `expected` is the context's matrix type R (a
    CoopBuiltin check: `coop` is the CoopChecks part)."""
    m = coop.coop_matrix_arg(args_nodes[0])
    problem = transpose_problem(m.type.spec, expected.spec)
    if problem is not None:
        where = args_nodes[0] if problem.operand == 0 else node
        notes = [coop.ctx.note(f"the result type is '{expected.spelling()}'", location(node))] \
            if problem.operand < 0 else []
        if problem.note:
            notes.append(coop.ctx.note(problem.note, location(args_nodes[0])))
        coop.ctx.fail(problem.message, where, notes)
    return tast.CoopTranspose(expected, location(node), m)
