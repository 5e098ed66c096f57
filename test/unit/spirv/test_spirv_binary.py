"""The SPIR-V word-stream reader/writer (SPIR-V spec 2.3) and its lookups."""

import struct
import subprocess

import pytest

from clcoop.errors import ClcoopError, ToolMissing
from clcoop.spirv import binary as sb
from clcoop.spirv import find_tool

ASSEMBLY = """\
OpCapability Kernel
OpCapability Addresses
OpCapability Linkage
OpMemoryModel Physical64 OpenCL
OpName %ext "ext_function_name"
OpDecorate %ext LinkageAttributes "ext_function_name" Import
OpDecorate %kept LinkageAttributes "kept" Export
%float = OpTypeFloat 32
%fn = OpTypeFunction %float %float
%ext = OpFunction %float None %fn
%p = OpFunctionParameter %float
OpFunctionEnd
%kept = OpFunction %float None %fn
%q = OpFunctionParameter %float
%entry = OpLabel
%r = OpFunctionCall %float %ext %q
%s = OpFAdd %float %r %q
OpReturnValue %s
OpFunctionEnd
"""


def _assemble(tmp_path):
    try:
        spirv_as = find_tool("spirv-as")
    except ToolMissing as exc:
        pytest.skip(str(exc))
    source = tmp_path / "m.spvasm"
    source.write_text(ASSEMBLY)
    subprocess.run([spirv_as, str(source), "-o", str(tmp_path / "m.spv")], check=True)
    return (tmp_path / "m.spv").read_bytes()


def test_round_trip_is_byte_identical(tmp_path):
    data = _assemble(tmp_path)
    module = sb.read_module(data)
    assert sb.write_module(module) == data
    assert module.instructions[0] == sb.Instruction(sb.OP_CAPABILITY, [6])  # Kernel


def test_lookups(tmp_path):
    module = sb.read_module(_assemble(tmp_path))
    names = sb.names(module)
    imports = sb.imported_functions(module)
    assert list(imports.values()) == ["ext_function_name"]
    (ext_id,) = imports
    assert names[ext_id] == "ext_function_name"
    links = sb.linkage_decorations(module)
    assert sorted((name, kind) for _, name, kind in links) == [("ext_function_name", 1), ("kept", 0)]
    defs = sb.definitions(module)
    call = next(i for i in module.instructions if i.opcode == sb.OP_FUNCTION_CALL)
    assert call.operands[2] == ext_id and defs[call.result_type].opcode == sb.OP_TYPE_FLOAT


def test_find_or_add_pointer_type(tmp_path):
    module = sb.read_module(_assemble(tmp_path))
    float_id = next(i.result_id for i in module.instructions if i.opcode == sb.OP_TYPE_FLOAT)
    bound = module.bound
    new = sb.find_or_add_pointer_type(module, sb.STORAGE_CLASS_FUNCTION, float_id)
    assert new == bound and module.bound == bound + 1
    # Declared before the first function, found again rather than duplicated.
    index = [i.result_id for i in module.instructions].index(new)
    assert index < sb.first_function_index(module)
    assert sb.find_or_add_pointer_type(module, sb.STORAGE_CLASS_FUNCTION, float_id) == new


@pytest.mark.parametrize("text", ["", "a", "abc", "abcd", "LinkageAttributes", "_Z19__spirv_AccessChain"])
def test_strings(text):
    words = sb.encode_string(text)
    assert len(words) == len(text) // 4 + 1  # NUL terminator always fits in the padding or a new word
    assert sb.decode_string(words + [0xDEADBEEF]) == (text, len(words))


def test_big_endian_module_is_read():
    words = [sb.MAGIC, 0x00010400, 0, 4, 0, (2 << 16) | sb.OP_CAPABILITY, 6]
    module = sb.read_module(struct.pack(f">{len(words)}I", *words))
    assert module.bound == 4 and module.instructions == [sb.Instruction(sb.OP_CAPABILITY, [6])]


@pytest.mark.parametrize("data", [b"", b"\x00" * 20, b"\x03\x02\x23\x07" + b"\x00" * 17,
                                  struct.pack("<6I", sb.MAGIC, 0, 0, 1, 0, (5 << 16) | 17)])
def test_malformed_input_is_a_clcoop_error(data):
    with pytest.raises(ClcoopError):
        sb.read_module(data)


def test_id_operands_skip_literals():
    load = sb.Instruction(sb.OP_LOAD, [1, 2, 3, 2, 4])  # Aligned 4
    assert sb.id_operands(load) == [1, 2, 3]
    variable = sb.Instruction(sb.OP_VARIABLE, [5, 6, 7])  # storage class Function
    assert sb.id_operands(variable) == [5, 6]
    unknown = sb.Instruction(9999, [1, 2, 3])
    assert sb.id_operands(unknown) == [1, 2, 3]


def test_binary_knows_the_result_ids_of_the_tensor_instructions():
    """binary.py (not an import-time patch by spirv/tensor.py) knows which tensor
    instructions have a result type and id, and the tensor types."""
    from clcoop.spirv import tensor
    results = {op for op in tensor.OPCODES.values() if op != tensor.OP_STORE_TENSOR}
    assert results <= sb.TYPED_RESULT_OPCODES
    assert tensor.OP_STORE_TENSOR not in sb.TYPED_RESULT_OPCODES
    assert {tensor.OP_TYPE_TENSOR_LAYOUT, tensor.OP_TYPE_TENSOR_VIEW} <= sb.TYPE_OPCODES
