"""The rewrite's name parsing and its handling of imports it must not touch."""

import os
import sys

import pytest

from test_spirv_binary import _assemble  # noqa: E402

from clcoop.spirv import binary as sb  # noqa: E402
from clcoop.spirv.rewrite import classify, parse_callee, rewrite_cooperative_calls  # noqa: E402


@pytest.mark.parametrize("name, expected", [
    ("_Z32__spirv_CooperativeMatrixLoadKHRIfLi3ELi8ELi16ELi2EEvPU3AS1fim",
     ("__spirv_CooperativeMatrixLoadKHR", ["f"])),
    ("_Z34__spirv_CooperativeMatrixBinaryDivIjLi3ELi8ELi16ELi2EjLi3ELi8ELi16ELi2EjLi3ELi8ELi16ELi2EEv",
     ("__spirv_CooperativeMatrixBinaryDiv", ["j", "j", "j"])),
    ("_Z19__spirv_AccessChainIDhLi3ELi8ELi16ELi0EEvPDhm", ("__spirv_AccessChain", ["Dh"])),
    ("_Z7barrierj", ("barrier", [])),
    ("not_mangled", None),
])
def test_parse_callee(name, expected):
    assert parse_callee(name) == expected


def test_classify():
    assert classify("_Z34__spirv_CooperativeMatrixBinaryAddIfLi3ELi8ELi16ELi2EfLi3ELi8ELi16ELi2E"
                    "fLi3ELi8ELi16ELi2EEv") == ("add", ["f", "f", "f"])
    assert classify("_Z34__spirv_CooperativeMatrixScalarMulIcLi3ELi8ELi16ELi2EcLi3ELi8ELi16ELi2EEvc")[0] \
        == "scalar_mul"
    # Lowered natively by llc-22, so never rewritten:
    assert classify("_Z34__spirv_CooperativeMatrixMulAddKHRIfLi3ELi8ELi16ELi2EEvi") is None
    assert classify("_Z13get_global_idj") is None


def test_other_imports_are_kept(tmp_path):
    data = _assemble(tmp_path)
    module = rewrite_cooperative_calls(sb.read_module(data))
    assert sb.write_module(module) == data  # nothing cooperative: the module is untouched
    assert list(sb.imported_functions(module).values()) == ["ext_function_name"]


def test_scalar_call_with_an_operator_name_is_left_alone(tmp_path, monkeypatch):
    """Only calls on cooperative matrices are rewritten; a scalar import keeps its call and linkage."""
    import test_spirv_binary
    monkeypatch.setattr(test_spirv_binary, "ASSEMBLY",
                        test_spirv_binary.ASSEMBLY.replace("ext_function_name", "_Z12__spirv_FAddff"))
    data = _assemble(tmp_path)
    module = rewrite_cooperative_calls(sb.read_module(data))
    assert list(sb.imported_functions(module).values()) == ["_Z12__spirv_FAddff"]
    assert any(inst.opcode == sb.OP_FUNCTION_CALL for inst in module.instructions)
    assert sb.write_module(module) == data
