"""The coopmatrix layout against the spec (coopmatrix-layout.txt): its tables, its load
pseudo-code re-implemented independently here, VNNI packing and round trips."""
import json

import numpy as np
import pytest

from clcoop.cli import layout_main
from clcoop.errors import ClcoopError
from clcoop.interp.debug import format_layout_table, layout_cells
from clcoop.ir.layout import LayoutError, get_layout, matrix_type_of, MatrixLayout
from clcoop.ir.wg_layout import matrix_length

# The spec's 4x15 table, S = 16, transcribed row by row (component .x .y .z .w).
# The spec writes padding as "-, -" here and "-,-" below; spec_rows normalizes both to "-".
SPEC_4X15 = """
0,0 1,0 2,0 3,0 0,1 1,1 2,1 3,1 0,2 1,2 2,2 3,2 0,3 1,3 2,3 3,3
0,4 1,4 2,4 3,4 0,5 1,5 2,5 3,5 0,6 1,6 2,6 3,6 0,7 1,7 2,7 3,7
0,8 1,8 2,8 3,8 0,9 1,9 2,9 3,9 0,10 1,10 2,10 3,10 0,11 1,11 2,11 3,11
0,12 1,12 2,12 3,12 0,13 1,13 2,13 3,13 0,14 1,14 2,14 3,14 -, - -, - -, - -, -
"""
SPEC_1X17 = """
0,0 0,1 0,2 0,3 0,4 0,5 0,6 0,7 0,8 0,9 0,10 0,11 0,12 0,13 0,14 0,15
0,16 -,- -,- -,- -,- -,- -,- -,- -,- -,- -,- -,- -,- -,- -,- -,-
"""


def spec_rows(text):
    """Spec cells per component row, with both padding spellings normalized to '-'."""
    lines = text.strip().replace("-, -", "-,-").splitlines()
    return [["-" if cell == "-,-" else cell for cell in line.split()] for line in lines]


@pytest.mark.parametrize("rows, cols, table", [(4, 15, SPEC_4X15), (1, 17, SPEC_1X17)])
def test_spec_tables(rows, cols, table):
    layout = get_layout(rows, cols, "accumulator", "float", 16)
    assert layout_cells(layout) == spec_rows(table)


@pytest.mark.parametrize("rows, cols, table", [(4, 15, SPEC_4X15), (1, 17, SPEC_1X17)])
def test_cli_prints_spec_tables(rows, cols, table, capsys):
    assert layout_main.main(["--rows", str(rows), "--cols", str(cols), "--subgroup-size", "16"]) == 0
    lines = capsys.readouterr().out.strip().splitlines()
    assert lines[0].split() == ["p"] + [str(p) for p in range(16)]
    names = [".x", ".y", ".z", ".w"]
    expected = spec_rows(table)
    assert len(lines) == 1 + len(expected)
    for v, line in enumerate(lines[1:]):
        assert line.split() == [names[v]] + expected[v]


def test_cli_json_matches_spec(capsys):
    assert layout_main.main(["--rows", "1", "--cols", "17", "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["rows"] == 1 and data["cols"] == 17 and data["subgroup_size"] == 16
    assert data["use"] == "accumulator" and data["type"] == "float" and data["length"] == 2
    assert data["work_items"][0] == [[0, 0], [0, 16]]
    assert data["work_items"][5] == [[0, 5], None]
    assert len(data["work_items"]) == 16


@pytest.mark.parametrize("argv", [["--rows", "0", "--cols", "4"],
                                  ["--rows", "4", "--cols", "4", "--subgroup-size", "12"],
                                  ["--rows", "4", "--cols", "0"],
                                  ["--rows", "4", "--cols", "4", "--use", "d"],
                                  ["--rows", "four", "--cols", "4"]])
def test_cli_errors(argv, capsys):
    try:
        status = layout_main.main(argv)
    except SystemExit as exit_:
        status = exit_.code
    assert status == 1
    err = capsys.readouterr().err
    assert "clcoop-layout: error:" in err and "Traceback" not in err


def test_cli_component_names_past_w(capsys):
    assert layout_main.main(["--rows", "8", "--cols", "16", "--subgroup-size", "8"]) == 0
    names = [line.split()[0] for line in capsys.readouterr().out.strip().splitlines()[1:]]
    assert names == [".x", ".y", ".z", ".w"] + [f".s{v}" for v in range(4, 16)]


def spec_load_index(rows, cols, S, K1):
    """The spec's "Load pseudo-code (SIMT)" for a row-major M x N matrix, written
    independently of clcoop: R[w1 + u*K1 + w2*K1*(V/K)] = A[row, col] or padding."""
    I = min(rows, S)
    J = -(-I * cols // S) * S // I
    K = rows // I
    K2 = K // K1
    V = I * K * J // S
    index = np.full((S, V), -1)
    for p in range(S):
        i0, j0 = p % I, p // I
        for w1 in range(K1):
            for w2 in range(K2):
                row = i0 + (w1 + w2 * K1) * I
                for u in range(V // K):
                    j = j0 + u * (S // I)
                    if j < cols:
                        index[p, w1 + u * K1 + w2 * K1 * (V // K)] = row * cols + j
    return index


SHAPES = [(m, n, s) for m in (1, 2, 4, 8, 16, 32, 64) for n in (1, 3, 4, 15, 16, 17, 32, 33)
          for s in (1, 4, 8, 16, 32, 64)]


@pytest.mark.parametrize("rows, cols, S", SHAPES)
def test_accumulator_matches_spec_pseudocode(rows, cols, S):
    layout = get_layout(rows, cols, "accumulator", "float", S)
    np.testing.assert_array_equal(layout.index, spec_load_index(rows, cols, S, 1))


@pytest.mark.parametrize("rows, cols, S", SHAPES)
def test_matrix_b_k1_matches_spec_pseudocode(rows, cols, S):
    # "Matrix B": K1 = omega_b = max(1, 2/size) if M/S > 1 else 1: 2 for 8-bit types.
    layout = get_layout(rows, cols, "b", "char", S)
    k1 = 2 if rows // S > 1 else 1
    assert layout.K1 == k1
    np.testing.assert_array_equal(layout.index, spec_load_index(rows, cols, S, k1))
    half = get_layout(rows, cols, "b", "half", S)
    assert half.K1 == 1


def test_matrix_b_k1_component_order():
    # 32x16 char, S=16: K = 2 = K1, so components alternate between the two row blocks.
    layout = get_layout(32, 16, "b", "uchar", 16)
    assert layout.length == 32
    for p in range(16):
        for v in range(32):
            assert layout.row_col(p, v) == (p + (v % 2) * 16, v // 2)


def test_vnni_component_order():
    # 8x16 char matrix_a, S=16: omega = 4; entry e of work-item p packs channels c=0..3
    # as components 4e+c, holding columns c + 4j' of A** (docs/layout.md).
    layout = get_layout(8, 16, "a", "char", 16)
    assert layout.omega == 4 and layout.length == 8
    assert [layout.row_col(0, v) for v in range(8)] == [(0, c) for c in (0, 1, 2, 3, 8, 9, 10, 11)]
    assert [layout.row_col(8, v) for v in range(8)] == [(0, c) for c in (4, 5, 6, 7, 12, 13, 14, 15)]
    assert [layout.row_col(3, v) for v in range(4)] == [(3, c) for c in range(4)]
    # The same matrix as an accumulator is not packed: columns step by S/I = 2.
    acc = get_layout(8, 16, "accumulator", "char", 16)
    assert [acc.row_col(0, v) for v in range(8)] == [(0, c) for c in range(0, 16, 2)]


def test_vnni_half_two_channels():
    layout = get_layout(4, 16, "a", "half", 16)
    assert layout.omega == 2
    # I=4, J=16, J'=8: entry e of p is A**[:, i=p%4, j'=p//4 + 4e].
    assert [layout.row_col(5, v) for v in range(4)] == [(1, 2), (1, 3), (1, 10), (1, 11)]


def test_vnni_not_applied_when_cols_not_multiple_of_omega():
    layout = get_layout(8, 18, "a", "char", 16)
    assert layout.omega == 1
    np.testing.assert_array_equal(layout.index, spec_load_index(8, 18, 16, 1))


def test_vnni_is_identity_when_rows_fill_the_subgroup():
    # With I = S each work-item holds whole rows, so packing does not reorder.
    for elem in ("char", "half"):
        layout = get_layout(32, 32, "a", elem, 16)
        assert layout.omega == 4 // np.dtype(layout.dtype).itemsize
        np.testing.assert_array_equal(layout.index, spec_load_index(32, 32, 16, 1))


@pytest.mark.parametrize("use", ["a", "b", "accumulator"])
@pytest.mark.parametrize("elem", ["char", "uchar", "short", "half", "float", "double"])
def test_round_trip_and_coverage(use, elem):
    rng = np.random.default_rng(0)
    for rows, cols, S in SHAPES[::3]:
        layout = get_layout(rows, cols, use, elem, S)
        mats = rng.integers(-100, 100, size=(3, rows, cols)).astype(layout.dtype)
        lanes = layout.from_logical(mats)
        assert lanes.shape == (3, S, layout.length)
        np.testing.assert_array_equal(layout.to_logical(lanes), mats)
        # Every element appears exactly once; padding slots are zero.
        valid = layout.index[layout.index >= 0]
        assert sorted(valid.tolist()) == list(range(rows * cols))
        assert (lanes[:, layout.index < 0] == 0).all()
        assert layout.length == layout.I * layout.K * layout.J // S


def test_length_and_type_parsing():
    t = 'target("spirv.CooperativeMatrixKHR", float, 3, 8, 16, 2)'
    matrix = matrix_type_of(t)
    assert (matrix.component.llvm, matrix.scope, matrix.rows, matrix.cols, matrix.use) == ("float", 3, 8, 16, 2)
    assert matrix_length(t, 16, 64) == 8
    assert matrix_length('target("spirv.CooperativeMatrixKHR", i8, 3, 8, 32, 0)', 16, 64) == 16
    assert matrix_length('target("spirv.CooperativeMatrixKHR", half, 3, 16, 16, 1)', 8, 64) == 32
    with pytest.raises(ClcoopError):
        matrix_type_of("float")


@pytest.mark.parametrize("rows, S, message", [(0, 16, "at least one row"),
                                               (4, 12, "power of two"), (4, 0, "power of two")])
def test_unrepresentable_shape_is_a_clear_error(rows, S, message):
    with pytest.raises(LayoutError, match=message):
        get_layout(rows, 8, "accumulator", "float", S)


def padded_spec_load_index(rows, cols, S, use, size):
    """The load pseudo-code for any M: the layout of the smallest matrix of M' >= M rows
    the spec's formulas allow (I = min(2^ceil(log2 M), S), K = ceil(M/I), K a multiple
    of K1), reading rows >= M as padding as its RowsChecked branch does for rows outside
    the shape (docs/layout.md). Written independently of clcoop."""
    I = min(2 ** int(np.ceil(np.log2(rows))), S)
    J = -(-I * cols // S) * S // I
    K1 = max(1, 2 // size) if use == "b" and rows > S else 1
    K = -(-(-(-rows // I)) // K1) * K1
    K2 = K // K1
    V = I * K * J // S
    index = np.full((S, V), -1)
    for p in range(S):
        i0, j0 = p % I, p // I
        for w1 in range(K1):
            for w2 in range(K2):
                row = i0 + (w1 + w2 * K1) * I
                for u in range(V // K):
                    j = j0 + u * (S // I)
                    if j < cols and row < rows:
                        index[p, w1 + u * K1 + w2 * K1 * (V // K)] = row * cols + j
    return index


ANY_ROWS = [(m, n, s) for m in (3, 5, 6, 7, 12, 20, 24, 48, 96) for n in (1, 5, 12, 16, 48)
            for s in (4, 8, 16, 32)]


@pytest.mark.parametrize("rows, cols, S", ANY_ROWS)
def test_any_row_count_is_padded_like_the_spec_pseudocode(rows, cols, S):
    for use, elem, size in (("accumulator", "float", 4), ("b", "char", 1), ("b", "half", 2)):
        layout = get_layout(rows, cols, use, elem, S)
        np.testing.assert_array_equal(layout.index, padded_spec_load_index(rows, cols, S, use, size))
        assert layout.length == layout.index.shape[1] >= -(-rows * cols // S)
        mats = np.arange(2 * rows * cols).reshape(2, rows, cols).astype(layout.dtype)
        lanes = layout.from_logical(mats)
        np.testing.assert_array_equal(layout.to_logical(lanes), mats)
        assert (lanes[:, layout.index < 0] == 0).all()


def test_power_of_two_rows_are_unchanged_by_padding():
    for rows, cols, S in SHAPES:
        for use, elem, size in (("accumulator", "float", 4), ("b", "char", 1)):
            layout = get_layout(rows, cols, use, elem, S)
            assert layout.padded_rows == rows
            np.testing.assert_array_equal(layout.index,
                                          padded_spec_load_index(rows, cols, S, use, size))


def test_translator_shapes_12x12_and_12x48():
    # The SPIRV-LLVM-Translator's KHR tests use 12x12 int, 12x48 and 48x12 char matrices.
    acc = get_layout(12, 12, "accumulator", "int", 16)
    assert (acc.I, acc.K, acc.J, acc.length) == (16, 1, 12, 12)
    assert acc.row_col(11, 0) == (11, 0) and acc.row_col(12, 0) is None
    a = get_layout(12, 48, "a", "char", 16)
    assert a.omega == 4 and a.length == 48
    assert [a.row_col(1, v) for v in range(5)] == [(1, 0), (1, 1), (1, 2), (1, 3), (1, 4)]
    assert a.row_col(13, 0) is None
    b = get_layout(48, 12, "b", "char", 16)
    assert (b.K1, b.K, b.padded_rows, b.length) == (2, 4, 64, 48)
    assert matrix_length('target("spirv.CooperativeMatrixKHR", i32, 3, 12, 12, 2)', 16, 64) == 12


def test_layouts_are_cached():
    assert get_layout(8, 16, 2, "float", 16) is get_layout(8, 16, "accumulator", "float", 16)
    assert isinstance(get_layout(8, 16, 2, "i8", 16), MatrixLayout)
    assert get_layout(8, 16, 2, "i8", 16).elem == "char"


def test_format_layout_table_header():
    text = format_layout_table(get_layout(2, 2, "accumulator", "int", 4))
    assert text.splitlines()[0].split() == ["p", "0", "1", "2", "3"]
    assert text.splitlines()[1].split() == [".x", "0,0", "1,0", "0,1", "1,1"]


def test_debug_show_per_work_item_and_logical():
    from clcoop.interp.debug import show
    layout = get_layout(2, 3, "accumulator", "int", 4)
    logical = np.array([[[10, 11, 12], [20, 21, 22]]], dtype=np.int32)
    lanes = layout.from_logical(logical).reshape(4, -1)
    text = show(lanes, 'target("spirv.CooperativeMatrixKHR", i32, 3, 2, 3, 2)', 4)
    lines = text.splitlines()
    table_start = lines.index("sub-group 0 per work-item:")
    # Work-item 0 holds (0,0) and (0,2); work-item 2 holds (0,1) and padding.
    assert lines[table_start + 2].split() == [".x", "10", "20", "11", "21"]
    assert lines[table_start + 3].split() == [".y", "12", "22", "-", "-"]
    assert "[[10 11 12]" in text and "[20 21 22]]" in text
    assert "does not fit" in show(np.zeros((4, 3)), layout)


PADDED_KERNEL = """
typedef float __attribute__((coop_mat(CLK_COOPERATIVE_MATRIX_SCOPE_SUBGROUP, 12, 12,
                                      CLK_COOPERATIVE_MATRIX_ACCUMULATOR))) C12;
kernel void k(global float *x, global float *y, global uint *n) {
  C12 m = coop_mat_load(x, CLK_COOPERATIVE_MATRIX_LAYOUT_ROW_MAJOR, (size_t)12);
  m = m * 2.0f + m;
  coop_mat_store(y, m, CLK_COOPERATIVE_MATRIX_LAYOUT_ROW_MAJOR, (size_t)12);
  n[get_global_id(0)] = coop_mat_length(m);
}
"""


@pytest.mark.parametrize("S", [16, 8])
def test_12x12_kernel_from_opencl_c_matches_numpy(S):
    import clcoop
    x = np.arange(144, dtype=np.float32) - 70
    y = np.zeros(144, np.float32)
    n = np.zeros(S, np.uint32)
    clcoop.Program(PADDED_KERNEL).build().k(S, S, x, y, n, subgroup_size=S)
    np.testing.assert_array_equal(y, x * 3)
    np.testing.assert_array_equal(n, 192 // S)       # laid out as 16x12
