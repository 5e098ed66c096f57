"""Human-readable views of the cooperative-matrix layout and of matrix values.

`format_layout_table(layout)` draws the work-item table as the layout spec does
(clcoop-layout prints it); `show(value, type, subgroup_size)` lays a matrix value of
the interpreter ((L, V), one row per lane) out per work-item and as the logical matrix.
"""
import numpy as np

from clcoop.ir.layout import USE_NAMES, MatrixLayout, get_layout
from clcoop.ir.wg_layout import WorkgroupLayout, layout_of_type

PADDING_CELL = "-"


def component_name(v):
    """.x .y .z .w for the first four components like the spec's tables, then .s4, .s5, ...
    (decimal numbers, also past 9)."""
    return "." + "xyzw"[v] if v < 4 else f".s{v}"


def layout_cells(layout):
    """cells[v][p] = 'row,col' or '-' for padding."""
    return [[_cell(layout.row_col(p, v)) for p in range(layout.group_size)]
            for v in range(layout.length)]


def _cell(row_col):
    return PADDING_CELL if row_col is None else f"{row_col[0]},{row_col[1]}"


def _format_grid(header, rows):
    """Aligned text grid: header row then rows, each a list of strings, first column left."""
    table = [header] + rows
    widths = [max(len(line[k]) for line in table) for k in range(len(header))]
    lines = []
    for line in table:
        cells = [line[0].ljust(widths[0])] + [cell.rjust(widths[k + 1])
                                              for k, cell in enumerate(line[1:])]
        lines.append("  ".join(cells).rstrip())
    return "\n".join(lines)


def format_layout_table(layout):
    """The spec's table: one column per work-item p, one row per component."""
    header = ["p"] + [str(p) for p in range(layout.group_size)]
    rows = [[component_name(v)] + cells for v, cells in enumerate(layout_cells(layout))]
    return _format_grid(header, rows)


def layout_json(layout):
    """Plain data for clcoop-layout --json: work_items[p][v] = [row, col] or None (p the
    local linear id at workgroup scope, which adds "scope" and "work_group_size")."""
    work_items = [[list(rc) if (rc := layout.row_col(p, v)) is not None else None
                   for v in range(layout.length)] for p in range(layout.group_size)]
    data = {"rows": layout.rows, "cols": layout.cols, "subgroup_size": layout.subgroup_size,
            "use": USE_NAMES[layout.use], "type": layout.elem,
            "length": layout.length, "work_items": work_items}
    if isinstance(layout, WorkgroupLayout):
        data.update(scope="workgroup", work_group_size=layout.work_group_size)
    return data


def _resolve_layout(matrix_type, subgroup_size, work_group_size):
    if isinstance(matrix_type, (MatrixLayout, WorkgroupLayout)):
        return matrix_type
    if isinstance(matrix_type, tuple):
        return get_layout(*matrix_type, subgroup_size)
    return layout_of_type(matrix_type, subgroup_size, work_group_size)


def show(matrix_value, matrix_type, subgroup_size=16, work_group_size=None):
    """A string showing a matrix value per work-item and as the logical matrix.

    matrix_value: (L, V) lane components (L a multiple of S, subgroups consecutive; of W,
    work-groups consecutive, at workgroup scope) or (S, V); matrix_type: an IR type string
    (work_group_size W needed at workgroup scope), a MatrixLayout or WorkgroupLayout, or
    (rows, cols, use, elem).
    """
    layout = _resolve_layout(matrix_type, subgroup_size, work_group_size)
    values = np.asarray(matrix_value)
    S, V = layout.group_size, layout.length
    if values.ndim != 2 or values.shape[1] != V or values.shape[0] % S:
        return (f"<matrix value of shape {values.shape} does not fit {layout!r}: expected "
                f"(n*{S}, {V})>")
    groups = values.reshape(-1, S, V)
    logical = layout.to_logical(groups)
    parts = [f"{layout!r}, length {V}"]
    for g in range(groups.shape[0]):
        header = ["p"] + [str(p) for p in range(S)]
        rows = [[component_name(v)] + [_value_cell(layout, groups[g, p, v], p, v)
                                       for p in range(S)] for v in range(V)]
        group = "work-group" if isinstance(layout, WorkgroupLayout) else "sub-group"
        parts.append(f"{group} {g} per work-item:\n" + _format_grid(header, rows))
        parts.append(f"{group} {g} logical {layout.rows}x{layout.cols}:\n"
                     + np.array2string(logical[g], max_line_width=160, threshold=100000))
    return "\n".join(parts)


def _value_cell(layout, value, p, v):
    return PADDING_CELL if layout.index[p, v] < 0 else str(value)
