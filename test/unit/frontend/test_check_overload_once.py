"""An overloaded user call's arguments are checked once (issue 26, compile throughput): the
check that chooses the overload hands its values to the call, where they were checked a second
time before, so that nested overloaded calls cost 2^depth checks (17,524 argument checks for
652 calls written in pocl's test_mad_sat.cl)."""
import numpy as np

import clcoop
from clcoop.frontend import check_expr, driver

DEPTH = 12
SOURCE = """
__attribute__((overloadable)) int twice(int x) { return 2 * x; }
__attribute__((overloadable)) float twice(float x) { return 2.0f * x; }
kernel void k(global int *out, global float *fout) {
    out[0] = %s;
    fout[0] = twice(1.5f);
}
""" % ("twice(" * DEPTH + "1" + ")" * DEPTH)


def test_nested_overloaded_calls_check_each_argument_once(monkeypatch):
    calls = []
    real = check_expr.ExpressionChecks.expr

    def counted(self, node, *args, **kwargs):
        calls.append(node)
        return real(self, node, *args, **kwargs)
    monkeypatch.setattr(check_expr.ExpressionChecks, "expr", counted)
    driver.compile_source(SOURCE, driver.CompileOptions(filename="nested.cl"))
    # Linear in the depth: a handful of checks per call (2^12 = 4096 checked twice each level).
    assert len(calls) < 20 * DEPTH, len(calls)


def test_nested_overloaded_calls_compute_as_written():
    out, fout = np.zeros(1, np.int32), np.zeros(1, np.float32)
    clcoop.Program(SOURCE).build().k(1, 1, out, fout)
    assert out[0] == 2 ** DEPTH and fout[0] == 3.0
