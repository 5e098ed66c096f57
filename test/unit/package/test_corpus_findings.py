"""Bugs scripts/corpus_run.py found in pocl's tests (issue 15), each reduced to a kernel
written here and checked against an independent expectation."""
import shutil
import subprocess

import numpy as np
import pytest

import clcoop.api as api

CLANG = shutil.which("clang-22")


@pytest.mark.skipif(CLANG is None, reason="the IR under test is clang-22's")
def test_ir_strings_with_a_backslash_load():
    """LLVM prints a backslash in a c"..." string as \\\\ (pocl test_as_type's printf
    formats); the loader took it for a hex escape and raised ValueError."""
    source = 'kernel void k(global char *o) { constant char *s = "a\\\\b"; o[0] = s[1]; }'
    ir = subprocess.run([CLANG, "-cc1", "-triple", "spir64-unknown-unknown", "-cl-std=CL3.0",
                         "-finclude-default-header", "-emit-llvm", "-O0", "-x", "cl", "-", "-o", "-"],
                        input=source, capture_output=True, text=True, check=True).stdout
    assert 'c"a\\\\b\\00"' in ir
    out = np.zeros(1, np.int8)
    api.Program.from_ir(ir).k((1,), (1,), out)
    assert out[0] == ord("\\")


def test_a_statement_past_column_65535_builds_with_debug_info():
    """DILocation has 16 bits of column (pocl test_rotate expands a macro onto one long
    line); Program.build always emits -g, and LLVM refused the module."""
    source = "kernel void k(global int *o) {" + " " * 70000 + "o[0] = 7; }"
    program = api.Program(source).build()
    assert "DILocation(line: 1, scope:" in program.ir      # column 0 (unknown): LLVM omits it
    out = np.zeros(1, np.int32)
    program.k((1,), (1,), out)
    assert out[0] == 7


def test_a_source_string_starting_with_a_byte_order_mark_builds():
    """open(f).read() keeps a UTF-8 byte-order mark as U+FEFF (five of pocl's
    test_convert_type_*.cl start with one); clang skips it, and so do files clcoop reads."""
    program = api.Program("\ufeffkernel void k(global int *o) { o[0] = 3; }").build()
    out = np.zeros(1, np.int32)
    program.k((1,), (1,), out)
    assert out[0] == 3
