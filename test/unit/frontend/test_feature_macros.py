"""The feature and extension macros clcoop predefines (include/clcoop/opencl-c-coop.h) are
docs/opencl-features.md's `defined` rows, at every -cl-std; with clang-22 installed, the
table covers every macro clang-22 defines, and clcoop defines what clang-22 defines at
that version among them, and nothing else (but its own cooperative-matrix macros)."""
import re
import subprocess
from pathlib import Path

import pytest

from clcoop.frontend.driver import compile_source
from clcoop.options import CompileOptions
from interp_helpers import CLANG

ROOT = Path(__file__).resolve().parents[3]
OWN = {"cl_khr_cooperative_matrix", "__opencl_c_ext_cooperative_matrix"}
VERSIONS = ("CL1.2", "CL2.0", "CL3.0")


def table():
    """{macro: defined?} from docs/opencl-features.md."""
    rows = re.findall(r"^\| `(\w+)` \| (defined|not defined) \|", (ROOT / "docs" / "opencl-features.md").read_text(), re.M)
    return {name: state == "defined" for name, state in rows}


def clang_macros(std):
    text = subprocess.run([CLANG, "-cc1", "-triple", "spir64-unknown-unknown", f"-cl-std={std}",
                           "-finclude-default-header", "-dM", "-E", "-x", "cl", "/dev/null"],
                          capture_output=True, text=True, check=True).stdout
    return set(re.findall(r"^#define ((?:cl_|__opencl_c_|__OPENCL_VERSION__)\w*)", text, re.M))


def clcoop_defines(names, std):
    """The subset of `names` clcoop predefines at `std` (the preprocessor's view)."""
    probe = "\n".join(f"#ifdef {n}\nconstant int defined_{n} = 1;\n#endif" for n in sorted(names))
    ir = compile_source(probe, CompileOptions(cl_std=std)).ir
    return {n for n in names if f"@defined_{n} " in ir}


def test_the_table_has_one_row_per_macro():
    rows = re.findall(r"^\| `(\w+)` \|", (ROOT / "docs" / "opencl-features.md").read_text(), re.M)
    assert len(rows) == len(set(rows)) == len(table())


@pytest.mark.parametrize("std", VERSIONS)
def test_clcoop_defines_what_the_table_says(std):
    names = set(table()) | OWN | {"__OPENCL_VERSION__"}
    defined = clcoop_defines(names, std)
    assert OWN <= defined and "__OPENCL_VERSION__" not in defined
    if std == "CL3.0":
        assert defined - OWN == {n for n, d in table().items() if d}


@pytest.mark.parametrize("std", VERSIONS)
def test_the_set_is_clangs_minus_what_is_documented(std):
    if CLANG is None:
        pytest.skip("clang-22 is not installed")
    clang = clang_macros(std)
    documented = table()
    assert clang <= set(documented), f"clang-22 defines macros docs/opencl-features.md lacks: {clang - set(documented)}"
    assert "__OPENCL_VERSION__" not in clang
    expected = {n for n in clang if documented[n]}
    assert clcoop_defines(set(documented) | {"__OPENCL_VERSION__"}, std) == expected


def test_a_kernel_guarded_by_integer_dot_product_is_compiled():
    """clpeak's int8 kernels are guarded so (clcoop compiled 0 of them before)."""
    source = """#if defined(cl_khr_integer_dot_product)
    kernel void k(global int *o, global char4 *a) { o[0] = dot(a[0], a[1]); }
    #endif"""
    assert "define spir_kernel void @k(" in compile_source(source, CompileOptions()).ir
