"""printf compiled by clcoop and run by the interpreter (the compiler's side is in
test/lit/codegen/printf.cl, the formatting in test_interp_printf.py): output per work-item in
order, only from active work-items, and a matrix's components as each work-item holds them."""
import numpy as np

import clcoop
from clcoop.ir.layout import get_layout

KERNEL = r"""
#pragma OPENCL EXTENSION cl_khr_fp16 : enable
kernel void k(global float *f, global half *h) {
  int i = get_global_id(0);
  if (i % 2 == 0)
    printf("wi %d: %.2f %s %c %v2hlf %.1f %x\n", i, f[i], "ok", 'A' + i, (float2)(f[i], 1.5f),
           h[i], (uchar)255);
}
"""

MATRIX_KERNEL = r"""
typedef float mat __attribute__((coop_mat(memory_scope_sub_group, 2, 8, CLK_COOPERATIVE_MATRIX_ACCUMULATOR)));
kernel void k(global float *p) {
  mat m = coop_mat_load(p, CLK_COOPERATIVE_MATRIX_LAYOUT_ROW_MAJOR, 8);
  for (int c = 0; c < coop_mat_length(m); c++)
    printf("wi %d c %d = %g\n", (int)get_sub_group_local_id(), c, m[c]);
}
"""


def test_printf_from_clcoop_at_both_optimization_levels(capsys):
    f = np.arange(4, dtype=np.float32)
    h = (np.arange(4) / 2).astype(np.float16)
    for options in ([], ["-O0"]):
        clcoop.Program(KERNEL).build(options).k((4,), (4,), f, h)
        assert capsys.readouterr().out == ("wi 0: 0.00 ok A 0.000000,1.500000 0.0 ff\n"
                                           "wi 2: 2.00 ok C 2.000000,1.500000 1.0 ff\n")


def test_printf_shows_which_work_item_holds_which_matrix_element(capsys):
    p = np.arange(16, dtype=np.float32)      # element (r, c) = 8 r + c
    clcoop.Program(MATRIX_KERNEL).build().k((8,), (8,), p, subgroup_size=8)
    lines = capsys.readouterr().out.splitlines()
    held = {}
    for line in lines:
        _, wi, _, c, _, value = line.split()
        held[(int(wi), int(c))] = float(value)
    # What clcoop-layout shows for a 2 x 8 accumulator with S = 8 (docs/layout.md).
    layout = get_layout(2, 8, 2, "float", 8)
    want = {}
    for wi in range(8):
        for c in range(layout.length):
            row_col = layout.row_col(wi, c)
            want[(wi, c)] = 0.0 if row_col is None else float(8 * row_col[0] + row_col[1])
    assert held == want and len(lines) == 8 * layout.length
