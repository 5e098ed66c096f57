"""Runtime faults name the source line (issue 12 item 4): `file:line:col: error:`, the line
and a caret, the work-item, and for memory faults the buffer argument and the element
offset. Program.build() compiles with -g; clang-22 -g IR works through Program.from_ir."""
import shutil
import subprocess

import numpy as np
import pytest

import clcoop
from clcoop.errors import RuntimeFault
from interp_helpers import CLANG, KERNELS, needs_clang

FAULTS = (KERNELS / "faults.cl").read_text()
MATRIX_FAULTS = (KERNELS / "matrix_faults.cl").read_text()


def fault_of(kernel_call):
    with pytest.raises(RuntimeFault) as info:
        kernel_call()
    return info.value


def build(source, filename, opt="-O2", extra=()):
    return clcoop.Program(source).build(options=[opt, *extra], filename=filename)


# ----------------------------------------------------------- clcoop source (build -g)

@pytest.mark.parametrize("opt", ["-O0", "-O2"])
def test_out_of_bounds_store_at_source_line(opt):
    data = np.zeros(16, np.float32)
    err = fault_of(lambda: build(FAULTS, "faults.cl", opt).out_of_bounds(16, 8, data, 4))
    assert str(err) == (
        "faults.cl:4:3: error: kernel 'out_of_bounds': out-of-bounds write of float32 at "
        "element 16 of buffer 'data' (16 elements)\n"
        "  data[i + n] = 1.0f;\n"
        "  ^\n"
        "  in work-item global id (12) (local id (4), group (1))\n"
        "  buffer: data")
    assert (err.location.file, err.location.line, err.location.column) == ("faults.cl", 4, 3)
    assert err.work_item == (12,) and err.buffer == "data"
    assert "store" in err.instruction      # the IR instruction stays available


OOB_LOAD = """\
__kernel void gather(__global const int *table, __global int *out, int shift) {
  int i = get_global_id(0);
  out[i] = 2 * table[i + shift];
}
"""


@pytest.mark.parametrize("opt", ["-O0", "-O2"])
def test_out_of_bounds_load_names_argument_and_element(opt):
    table, out = np.arange(64, dtype=np.int32), np.zeros(64, np.int32)
    err = fault_of(lambda: build(OOB_LOAD, "gather.cl", opt).gather(64, 16, table, out, 7))
    lines = str(err).splitlines()
    assert lines[0] == ("gather.cl:3:16: error: kernel 'gather': out-of-bounds read of int32 at "
                        "element 64 of buffer 'table' (64 elements)")
    assert lines[1:3] == ["  out[i] = 2 * table[i + shift];", "               ^"]
    assert lines[3] == "  in work-item global id (57) (local id (9), group (3))"
    assert "address" not in str(err) and "0x" not in str(err)


def test_misaligned_access_is_a_byte_offset_of_the_buffer():
    source = """\
__kernel void misaligned(__global char *bytes, __global int *out) {
  out[0] = *(__global int *)(bytes + 2);
}
"""
    err = fault_of(lambda: build(source, "m.cl", "-O0").misaligned(
        1, 1, np.zeros(16, np.int8), np.zeros(1, np.int32)))
    first = str(err).splitlines()[0]
    assert first.startswith("m.cl:2:")
    assert "misaligned read of int32 at byte offset 2 of buffer 'bytes'" in first


@pytest.mark.parametrize("opt", ["-O0", "-O2"])
def test_division_by_zero_at_source_line(opt):
    data = np.arange(32, dtype=np.int32) + 1
    err = fault_of(lambda: build(FAULTS, "faults.cl", opt).divide(32, 8, data, 5))
    lines = str(err).splitlines()
    assert lines[0].startswith("faults.cl:9:") and lines[0].endswith(
        "error: kernel 'divide': integer division by zero")
    assert lines[1] == "  data[i] = data[i] / (d - i);"
    assert lines[3] == "  in work-item global id (5) (local id (5), group (0))"


def test_instruction_limit_at_the_loop():
    data = np.zeros(2, np.int32)
    err = fault_of(lambda: build(FAULTS, "faults.cl", "-O0").runaway(1, 1, data,
                                                                     instruction_limit=20000))
    lines = str(err).splitlines()
    assert lines[0].startswith("faults.cl:2") and "instruction limit of 20000 exceeded" in lines[0]
    assert int(lines[0].split(":")[1]) in (21, 22)      # the while loop or its body


def test_without_debug_info_the_instruction_is_named():
    """-g0 (or IR without debug info): the IR instruction, as before."""
    data = np.zeros(16, np.float32)
    err = fault_of(lambda: build(FAULTS, "faults.cl", "-O0", ["-g0"]).out_of_bounds(16, 8, data, 4))
    assert err.location is None
    assert str(err).startswith("kernel 'out_of_bounds': out-of-bounds write of float32 at "
                               "element 16 of buffer 'data'")
    assert "  instruction: store float" in str(err)


def test_inlined_helper_names_the_call_site():
    source = """\
int load_at(__global const int *p, int i) {
  return p[i];
}

__kernel void k(__global const int *in, __global int *out) {
  int i = get_global_id(0);
  out[i] = load_at(in, i + 1);
}
"""
    err = fault_of(lambda: build(source, "inl.cl", "-O2").k(
        8, 8, np.zeros(8, np.int32), np.zeros(8, np.int32)))
    lines = str(err).splitlines()
    assert lines[0].startswith("inl.cl:2:10: error: kernel 'k': out-of-bounds read of int32 "
                               "at element 8 of buffer 'in'")
    assert lines[1:3] == ["  return p[i];", "         ^"]
    assert lines[3].startswith("  in 'load_at', inlined at inl.cl:7:") and lines[3].endswith("(in 'k')")


# ----------------------------------------------------------- cooperative matrices

@pytest.mark.parametrize("opt", ["-O0", "-O2"])
def test_matrix_load_past_the_end(opt):
    src, dst = np.zeros(128, np.float32), np.zeros(128, np.float32)
    err = fault_of(lambda: build(MATRIX_FAULTS, "mf.cl", opt).load_past_end(16, 16, src, dst, 20))
    lines = str(err).splitlines()
    assert lines[0] == ("mf.cl:6:13: error: kernel 'load_past_end': out-of-bounds read of float32 "
                        "at element 128 of buffer 'src' (128 elements)")
    assert lines[1:3] == ["  mat_c c = coop_mat_load(src, CLK_COOPERATIVE_MATRIX_LAYOUT_ROW_MAJOR, stride);",
                          "            ^"]


def test_matrix_store_past_the_end():
    src, dst = np.zeros(128, np.float32), np.zeros(128, np.float32)
    err = fault_of(lambda: build(MATRIX_FAULTS, "mf.cl").store_past_end(16, 16, src, dst, 5))
    first = str(err).splitlines()[0]
    assert first == ("mf.cl:12:3: error: kernel 'store_past_end': out-of-bounds write of float32 "
                     "at element 128 of buffer 'dst' (128 elements)")


def test_matrix_store_stride_zero_is_located():
    src, dst = np.zeros(128, np.float32), np.zeros(128, np.float32)
    err = fault_of(lambda: build(MATRIX_FAULTS, "mf.cl").store_stride(16, 16, src, dst, 0))
    lines = str(err).splitlines()
    assert lines[0].startswith("mf.cl:17:3: error: kernel 'store_stride': cooperative matrix "
                               "store with stride 0")
    assert lines[1] == "  coop_mat_store(dst, c, CLK_COOPERATIVE_MATRIX_LAYOUT_ROW_MAJOR, stride);"


@pytest.mark.parametrize("opt", ["-O0", "-O2"])
def test_non_uniform_matrix_operation_is_located(opt):
    src, dst = np.zeros(128, np.float32), np.zeros(128, np.float32)
    err = fault_of(lambda: build(MATRIX_FAULTS, "mf.cl", opt).non_uniform(16, 16, src, dst))
    lines = str(err).splitlines()
    assert lines[0].startswith("mf.cl:22:15: error: kernel 'non_uniform': cooperative matrix "
                               "operation CooperativeMatrixLoadKHR reached by only part of sub-group 0")
    assert lines[2] == "              ^"


def test_matrix_fault_from_ir_file_reads_the_source(tmp_path):
    """clcoop -g IR run through from_ir: the line comes from the DIFile on disk."""
    from clcoop.frontend.driver import CompileOptions, compile_source
    path = tmp_path / "mf.cl"
    path.write_text(MATRIX_FAULTS)
    ir = compile_source(MATRIX_FAULTS, CompileOptions(filename=str(path), debug_info=True)).ir
    src, dst = np.zeros(128, np.float32), np.zeros(128, np.float32)
    err = fault_of(lambda: clcoop.Program.from_ir(ir).load_past_end(16, 16, src, dst, 20))
    assert str(err).splitlines()[:2] == [
        f"{path}:6:13: error: kernel 'load_past_end': out-of-bounds read of float32 at element "
        "128 of buffer 'src' (128 elements)",
        "  mat_c c = coop_mat_load(src, CLK_COOPERATIVE_MATRIX_LAYOUT_ROW_MAJOR, stride);"]


# ----------------------------------------------------------- clang-22 -g IR

def clang_g_ir(directory, filename, opt):
    """clang-22 -g IR (DWARF 5 as the driver asks for) of directory/filename."""
    cmd = [CLANG, "-cc1", "-triple", "spir64-unknown-unknown", "-cl-std=CL3.0",
           "-finclude-default-header", "-emit-llvm", f"-O{opt}", "-debug-info-kind=limited",
           "-dwarf-version=5", f"-fdebug-compilation-dir={directory}", "-discard-value-names",
           filename, "-o", "-"]
    if opt == 0:
        cmd.append("-disable-llvm-passes")
    return subprocess.run(cmd, cwd=directory, check=True, capture_output=True, text=True).stdout


@needs_clang
@pytest.mark.parametrize("opt", [0, 2])
def test_clang_g_ir_out_of_bounds_store(tmp_path, opt):
    shutil.copy(KERNELS / "faults.cl", tmp_path / "faults.cl")
    ir = clang_g_ir(tmp_path, "faults.cl", opt)
    assert "%data" not in ir          # no value names: the argument's name comes from -g
    data = np.zeros(16, np.float32)
    err = fault_of(lambda: clcoop.Program.from_ir(ir).out_of_bounds(16, 8, data, 4))
    assert str(err) == (
        "faults.cl:4:15: error: kernel 'out_of_bounds': out-of-bounds write of float32 at "
        "element 16 of buffer 'data' (16 elements)\n"
        "  data[i + n] = 1.0f;\n"
        "              ^\n"
        "  in work-item global id (12) (local id (4), group (1))\n"
        "  buffer: data")


@needs_clang
@pytest.mark.parametrize("opt", [0, 2])
def test_clang_g_ir_division_and_instruction_limit(tmp_path, opt):
    shutil.copy(KERNELS / "faults.cl", tmp_path / "faults.cl")
    prog = clcoop.Program.from_ir(clang_g_ir(tmp_path, "faults.cl", opt))
    err = fault_of(lambda: prog.divide(32, 8, np.arange(32, dtype=np.int32) + 1, 5))
    assert str(err).splitlines()[:3] == [
        "faults.cl:9:21: error: kernel 'divide': integer division by zero",
        "  data[i] = data[i] / (d - i);",
        "                    ^"]
    err = fault_of(lambda: prog.runaway(1, 1, np.zeros(2, np.int32), instruction_limit=20000))
    assert str(err).splitlines()[1] == "  while (data[0] == 0)"


@needs_clang
def test_clang_g_ir_out_of_bounds_load_kernel_parameter_names(tmp_path):
    (tmp_path / "gather.cl").write_text(OOB_LOAD)
    prog = clcoop.Program.from_ir(clang_g_ir(tmp_path, "gather.cl", 0))
    assert [name for name, _ in prog.gather.info.params] == ["table", "out", "shift"]
    err = fault_of(lambda: prog.gather(64, 16, np.arange(64, dtype=np.int32),
                                       np.zeros(64, np.int32), 7))
    assert str(err).splitlines()[0] == (
        "gather.cl:3:16: error: kernel 'gather': out-of-bounds read of int32 at element 64 "
        "of buffer 'table' (64 elements)")


@needs_clang
def test_clang_g_ir_without_the_source_file(tmp_path):
    """The DIFile names a file that is gone: file:line:col without the line."""
    shutil.copy(KERNELS / "faults.cl", tmp_path / "faults.cl")
    ir = clang_g_ir(tmp_path, "faults.cl", 0)
    (tmp_path / "faults.cl").unlink()
    err = fault_of(lambda: clcoop.Program.from_ir(ir).out_of_bounds(
        16, 8, np.zeros(16, np.float32), 4))
    assert str(err).splitlines() == [
        "faults.cl:4:15: error: kernel 'out_of_bounds': out-of-bounds write of float32 at "
        "element 16 of buffer 'data' (16 elements)",
        "  in work-item global id (12) (local id (4), group (1))",
        "  buffer: data"]


@needs_clang
def test_clang_g_ir_with_an_edited_source_file(tmp_path):
    """The file no longer matches the DIFile's MD5: its lines would lie, so none is shown."""
    shutil.copy(KERNELS / "faults.cl", tmp_path / "faults.cl")
    ir = clang_g_ir(tmp_path, "faults.cl", 0)
    (tmp_path / "faults.cl").write_text("// edited\n" + FAULTS)
    err = fault_of(lambda: clcoop.Program.from_ir(ir).out_of_bounds(
        16, 8, np.zeros(16, np.float32), 4))
    assert str(err).splitlines()[1] == "  in work-item global id (12) (local id (4), group (1))"


def test_fault_in_a_header_reads_the_header(tmp_path):
    (tmp_path / "helpers.h").write_text("int load_at(__global const int *p, int i) {\n"
                                        "  return p[i];\n}\n")
    source = ('#include "helpers.h"\n'
              "__kernel void k(__global const int *in, __global int *out) {\n"
              "  out[get_global_id(0)] = load_at(in, get_global_id(0) + 1);\n}\n")
    prog = build(source, "main.cl", "-O0", [f"-I{tmp_path}"])
    err = fault_of(lambda: prog.k(8, 8, np.zeros(8, np.int32), np.zeros(8, np.int32)))
    lines = str(err).splitlines()
    assert lines[0].startswith(f"{tmp_path}/helpers.h:2:10: error: kernel 'k': out-of-bounds read")
    assert lines[1:3] == ["  return p[i];", "         ^"]


def _ir_with_store_location(tmp_path, replacement):
    """clcoop -g IR of faults.cl (file on disk) with the faulting store's DILocation text
    replaced: `replacement(line_text) -> line_text`."""
    import re
    from clcoop.frontend.driver import CompileOptions, compile_source
    path = tmp_path / "faults.cl"
    path.write_text(FAULTS)
    ir = compile_source(FAULTS, CompileOptions(filename=str(path), debug_info=True)).ir
    node = re.search(r"store float 1\.0+e\+00, .*!dbg !(\d+)", ir).group(1)
    return re.sub(rf"^!{node} = .*$", lambda m: replacement(m.group(0)), ir, flags=re.M), path


def test_location_without_column_shows_the_line_without_caret(tmp_path):
    ir, path = _ir_with_store_location(tmp_path, lambda t: t.replace("column: 3", "column: 0"))
    err = fault_of(lambda: clcoop.Program.from_ir(ir).out_of_bounds(
        16, 8, np.zeros(16, np.float32), 4))
    assert str(err).splitlines()[:3] == [
        f"{path}:4: error: kernel 'out_of_bounds': out-of-bounds write of float32 at element 16 "
        "of buffer 'data' (16 elements)",
        "  data[i + n] = 1.0f;",
        "  in work-item global id (12) (local id (4), group (1))"]


def test_line_zero_falls_back_to_the_instruction(tmp_path):
    ir, _ = _ir_with_store_location(tmp_path, lambda t: t.replace("line: 4,", "line: 0,"))
    err = fault_of(lambda: clcoop.Program.from_ir(ir).out_of_bounds(
        16, 8, np.zeros(16, np.float32), 4))
    assert err.location is None
    assert str(err).startswith("kernel 'out_of_bounds': out-of-bounds write")
    assert "  instruction: store float 1.0" in str(err)
