"""clcoop-run: runs a kernel from .cl or .ll, writes updated buffers only on success."""
import subprocess
import sys

import numpy as np
import pytest

from clcoop.cli.run_main import main
from interp_helpers import KERNELS, clang_ir, needs_clang


@pytest.fixture
def inputs(tmp_path):
    np.save(tmp_path / "a.npy", np.arange(16, dtype=np.float32))
    np.save(tmp_path / "b.npy", np.full(16, 2, np.float32))
    np.save(tmp_path / "c.npy", np.zeros(16, np.float32))
    return tmp_path


def vadd_args(d, n=12):
    return ["--arg", f"a={d / 'a.npy'}", "--arg", f"b={d / 'b.npy'}",
            "--arg", f"c={d / 'c.npy'}", "--arg", f"n={n}"]


def test_run_source_writes_updated_buffers(inputs, capsys):
    out = inputs / "out"
    rc = main([str(KERNELS / "vector_add.cl"), "--kernel", "vector_add", "--global", "16",
               "--local", "8", "--out", str(out)] + vadd_args(inputs))
    assert rc == 0
    c = np.load(out / "c.npy")
    np.testing.assert_array_equal(c[:12], np.arange(12) + 2)
    assert (c[12:] == 0).all()
    assert not (out / "a.npy").exists(), "const inputs are not written back"
    assert "c.npy" in capsys.readouterr().out


@needs_clang
def test_run_llvm_ir_from_clang(inputs):
    ll = inputs / "vadd.ll"
    ll.write_text(clang_ir("vector_add", 2))
    rc = main([str(ll), "--global", "16", "--local", "4", "--out", str(inputs / "o")] + vadd_args(inputs, 16))
    assert rc == 0
    np.testing.assert_array_equal(np.load(inputs / "o" / "c.npy"), np.arange(16) + 2)


def test_local_memory_argument(inputs):
    np.save(inputs / "x.npy", np.arange(128, dtype=np.float32))
    np.save(inputs / "p.npy", np.zeros(2, np.float32))
    rc = main([str(KERNELS / "reduce_local.cl"), "--kernel", "reduce_local", "--global", "128",
               "--local", "64", "--arg", f"in={inputs / 'x.npy'}", "--arg", f"partial={inputs / 'p.npy'}",
               "--arg", "scratch=local:256", "--out", str(inputs)])
    assert rc == 0
    np.testing.assert_allclose(np.load(inputs / "p.npy"), [2016, 6112])   # the file's name


def test_fault_reports_and_writes_nothing(inputs, capsys):
    out = inputs / "out"
    rc = main([str(KERNELS / "faults.cl"), "--kernel", "out_of_bounds", "--global", "16",
               "--local", "8", "--arg", f"data={inputs / 'c.npy'}", "--arg", "n=4", "--out", str(out)])
    err = capsys.readouterr().err
    assert rc == 1
    # clcoop-run compiles with -g: the fault is located like a compiler diagnostic.
    assert err.startswith(f"{KERNELS / 'faults.cl'}:4:3: error: kernel 'out_of_bounds': "
                          "out-of-bounds write of float32 at element 16 of buffer 'data' (16 elements)\n"
                          "  data[i + n] = 1.0f;\n  ^\n")
    assert "Traceback" not in err
    assert not out.exists()


@pytest.mark.parametrize("argv, message", [
    (["--global", "16"], "missing --arg for parameter(s): a, b, c, n"),
    (["--global", "16", "--arg", "zz=1"], "has no parameter 'zz'"),
    (["--global", "1x6"], "--global must be comma-separated integers"),
    (["--global", "16", "--kernel", "nope"], "no kernel named 'nope'"),
])
def test_usage_errors(argv, message, capsys):
    rc = main([str(KERNELS / "vector_add.cl")] + argv)
    err = capsys.readouterr().err
    assert rc == 1
    assert message in err and err.startswith("clcoop-run: error:")


def test_unreadable_npy_files_are_usage_errors(inputs, capsys):
    # An empty file had been numpy's EOFError, a header claiming 4 TiB its MemoryError, both
    # reported as internal errors (found by hand).
    (inputs / "empty.npy").write_bytes(b"")
    (inputs / "cut.npy").write_bytes((inputs / "a.npy").read_bytes()[:20])
    with open(inputs / "huge.npy", "wb") as f:
        np.lib.format.write_array_header_1_0(f, {"descr": "<f4", "fortran_order": False, "shape": (2**40,)})
    for name in ("empty.npy", "cut.npy", "huge.npy"):
        rc = main([str(KERNELS / "vector_add.cl"), "--global", "16", "--arg", f"a={inputs / name}"]
                  + vadd_args(inputs)[2:])
        err = capsys.readouterr().err
        assert rc == 1
        assert err.startswith(f"clcoop-run: error: --arg a: cannot read '{inputs / name}'")


def test_entry_point_subprocess(inputs):
    proc = subprocess.run([sys.executable, "-m", "clcoop.cli.run_main", str(KERNELS / "vector_add.cl"),
                           "--global", "16", "--local", "17", "--out", str(inputs)] + vadd_args(inputs),
                          capture_output=True, text=True)
    assert proc.returncode == 1
    assert "clcoop-run: error: global size 16 is not a multiple of the local size 17" in proc.stderr


def test_vector_argument(tmp_path):
    src = tmp_path / "v.cl"
    src.write_text("__kernel void k(__global float *o, float4 v) { o[get_global_id(0)] = v.x + v.w; }")
    np.save(tmp_path / "o.npy", np.zeros(4, np.float32))
    rc = main([str(src), "--global", "4", "--arg", f"o={tmp_path / 'o.npy'}", "--arg", "v=1,2,3,4.5",
               "--out", str(tmp_path)])
    assert rc == 0
    assert (np.load(tmp_path / "o.npy") == 5.5).all()


def test_outputs_get_umask_mode_like_clcoop_o(inputs):
    """clcoop-run wrote its .npy outputs 0600 (mkstemp); clcoop -o gives 0666 minus the umask."""
    import os
    out = inputs / "modes"
    old = os.umask(0o022)
    try:
        assert main([str(KERNELS / "vector_add.cl"), "--kernel", "vector_add", "--global", "16",
                     "--local", "8", "--out", str(out)] + vadd_args(inputs)) == 0
    finally:
        os.umask(old)
    assert (os.stat(out / "c.npy").st_mode & 0o777) == 0o644


BARRIER_KERNEL = """
__kernel void rev(__global int *x) {
  __local int t[16];
  int i = get_local_id(0);
  t[i] = x[i];
  barrier(CLK_LOCAL_MEM_FENCE);
  x[i] = t[15 - i];
}
"""


def test_serial_subgroups_reaches_the_launch(tmp_path, capsys):
    src = tmp_path / "rev.cl"
    src.write_text(BARRIER_KERNEL)
    np.save(tmp_path / "x.npy", np.arange(16, dtype=np.int32))
    common = [str(src), "--global", "16", "--local", "16", "--subgroup-size", "8",
              "--arg", f"x={tmp_path / 'x.npy'}"]
    assert main(common + ["--out", str(tmp_path / "all")]) == 0
    np.testing.assert_array_equal(np.load(tmp_path / "all" / "x.npy"), np.arange(16)[::-1])
    capsys.readouterr()
    # One sub-group at a time cannot meet a work-group barrier of two sub-groups: a fault,
    # and no output written.
    assert main(common + ["--out", str(tmp_path / "serial"), "--serial-subgroups"]) == 1
    assert "barrier" in capsys.readouterr().err
    assert not (tmp_path / "serial" / "x.npy").exists()
