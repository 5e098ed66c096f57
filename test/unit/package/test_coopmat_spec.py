"""clcoop/coopmat_spec.py: the one home of the cooperative-matrix rules."""
import re
from pathlib import Path

import pytest

from clcoop import coopmat_spec as S

HEADER = Path(__file__).resolve().parents[3] / "include" / "clcoop" / "opencl-c-coop.h"


def header_enumerators():
    """Every CLK_COOPERATIVE_MATRIX_* enumerator of the header with its value."""
    text = HEADER.read_text()
    return {name: int(value) for name, value in
            re.findall(r"^\s*(CLK_COOPERATIVE_MATRIX_\w+)\s*=\s*(\d+)", text, re.M)}


def spec_enumerators():
    return {member.opencl: int(member) for enum in S.SPELLED_ENUMS for member in enum.__members__.values()}


def test_header_enums_are_the_spec_modules():
    assert header_enumerators() == spec_enumerators()


@pytest.mark.parametrize("text, expected", [
    ('target("spirv.CooperativeMatrixKHR", float, 3, 8, 16, 2)',
     S.MatrixType(S.COMPONENTS["float"], 3, 8, 16, 2)),
    ('target( "spirv.CooperativeMatrixKHR" , i8,3,16,32,0 )',
     S.MatrixType(S.COMPONENTS["char"], 3, 16, 32, 0)),
    ('target("spirv.CooperativeMatrixKHR", bfloat, 2, 64, 64, 1)',
     S.MatrixType(S.COMPONENTS["__bf16"], 2, 64, 64, 1)),
    ('target("spirv.CooperativeMatrixKHR", i3, 3, 8, 8, 0)', None),
    ('target("spirv.Image", float, 3, 8, 8, 0)', None),
    ("<4 x float>", None),
])
def test_matrix_type_parse(text, expected):
    assert S.MatrixType.parse(text) == expected


def test_matrix_type_text_round_trips():
    for component in S.COMPONENTS.values():
        m = S.MatrixType(component, 3, 12, 48, 2)
        parsed = S.MatrixType.parse(m.ir_text())
        assert parsed.ir_text() == m.ir_text()
        assert parsed.component.llvm == component.llvm


def mat(elem, rows, cols, use, scope=3):
    return S.MatrixType(S.COMPONENTS[elem], scope, rows, cols, use)


def test_mul_add_rules():
    a, b, c = mat("half", 8, 16, 0), mat("half", 16, 8, 1), mat("float", 8, 8, 2)
    assert S.mul_add_problem(a, b, c) is None
    # Mixed signedness of one width is valid (KHR: component types need not match).
    assert S.mul_add_problem(mat("uchar", 8, 32, 0), mat("char", 32, 8, 1), mat("int", 8, 8, 2)) is None
    # Floats must agree; the note names all three component types.
    mixed = S.mul_add_problem(mat("half", 8, 32, 0), mat("__bf16", 32, 8, 1), mat("float", 8, 8, 2))
    assert mixed.operand == 1 and mixed.note == "element types are 'half', '__bf16' and 'float'"
    assert S.mul_add_problem(mat("__bf16", 8, 32, 0), mat("__bf16", 32, 8, 1), mat("__bf16", 8, 8, 2)) is None
    # A shape note is about A (the checker points it there); a component note about the call.
    assert S.mul_add_problem(a, mat("half", 8, 8, 1), c).note_operand == 0
    assert S.mul_add_problem(a, mat("float", 16, 8, 1), c).note_operand == -1
    assert S.mul_add_problem(mat("char", 8, 32, 0), mat("short", 32, 8, 1), mat("int", 8, 8, 2)).operand == 1
    assert S.mul_add_problem(a, mat("float", 16, 8, 1), c).operand == 1
    assert S.mul_add_problem(a, b, mat("int", 8, 8, 2)).operand == 2
    assert "incompatible shapes" in S.mul_add_problem(a, mat("half", 8, 8, 1), c).message
    assert "incompatible shapes" in S.mul_add_problem(a, b, mat("float", 8, 16, 2)).message
    assert "'CLK_COOPERATIVE_MATRIX_B' use" in S.mul_add_problem(a, mat("half", 16, 8, 0), c).message
    assert "scope" in S.mul_add_problem(a, b, mat("float", 8, 8, 2, scope=2)).message


def test_signedness_operands():
    assert S.default_operands(mat("char", 8, 8, 0), mat("uchar", 8, 8, 1), mat("int", 8, 8, 2)) == (
        S.Operand.MATRIX_A_SIGNED | S.Operand.MATRIX_C_SIGNED | S.Operand.MATRIX_RESULT_SIGNED)
    f = mat("float", 8, 8, 2)
    assert S.default_operands(mat("half", 8, 8, 0), mat("half", 8, 8, 1), f) == S.Operand.NONE
    kept = S.operands_for_float(S.Operand.MATRIX_RESULT_SIGNED | S.Operand.SATURATING_ACCUMULATION,
                                mat("half", 8, 8, 0), mat("half", 8, 8, 1), f)
    assert kept == S.Operand.SATURATING_ACCUMULATION


def test_conversion_transpose_reduce_rules():
    acc = mat("float", 16, 8, 2)
    assert S.conversion_problem(acc, mat("half", 16, 8, 0)) is None
    assert S.conversion_problem(mat("half", 16, 8, 0), acc) is None
    assert S.use_conversion_needs_ext(mat("half", 16, 8, 0), acc)
    assert not S.use_conversion_needs_ext(acc, mat("half", 16, 8, 0))
    assert S.conversion_problem(mat("half", 16, 8, 0), mat("half", 16, 8, 1)) is not None
    assert S.conversion_problem(acc, mat("float", 8, 16, 0)) is not None
    assert S.transpose_problem(acc, mat("float", 8, 16, 1)) is None
    assert S.transpose_problem(acc, mat("float", 8, 16, 2)).message == "cannot transpose into an accumulator"
    assert S.transpose_problem(acc, mat("float", 16, 8, 1)) is not None
    assert S.reduce_problem(acc, mat("float", 16, 1, 2), S.Reduce.ROW) is None
    assert S.reduce_problem(acc, mat("float", 16, 64, 2), S.Reduce.ROW) is None   # the broadcast trick
    assert S.reduce_problem(acc, mat("float", 3, 8, 2), S.Reduce.COLUMN) is None
    assert S.reduce_problem(acc, mat("float", 5, 5, 2), S.Reduce.ROW | S.Reduce.COLUMN) is None
    assert S.reduce_problem(acc, mat("float", 8, 4, 2), S.Reduce.TWO_BY_TWO) is None
    assert S.reduce_problem(acc, mat("float", 8, 8, 2), S.Reduce.TWO_BY_TWO) is not None
    assert S.reduce_problem(acc, mat("float", 8, 4, 2), S.Reduce.TWO_BY_TWO | S.Reduce.ROW).operand == 1
    assert S.reduce_problem(acc, mat("float", 8, 8, 2), S.Reduce.ROW) is not None


def test_scope_values():
    assert S.scope_of_value(3) is S.Scope.SUBGROUP
    assert S.scope_of_value(4) is S.Scope.SUBGROUP        # memory_scope_sub_group
    assert S.scope_of_value(2) is S.Scope.WORKGROUP
    assert S.scope_of_value(1) is S.Scope.WORKGROUP       # memory_scope_work_group
    assert S.scope_of_value(7) is None


def test_spec_module_is_pure():
    import ast
    tree = ast.parse(Path(S.__file__).read_text())
    imported = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            imported |= {alias.name for alias in node.names}
        elif isinstance(node, ast.ImportFrom):
            imported |= ({f"clcoop.{alias.name}" for alias in node.names} if node.module == "clcoop"
                         else {node.module})
    # The standard library and clcoop's leaf modules of plain data (records: lean dataclasses).
    assert imported <= {"enum", "re", "dataclasses", "clcoop.records", "clcoop.float8"}, imported


def test_tensor_operand_counts():
    assert S.tensor_operand_count("coop_tensor_layout_slice", 3) == 6
    assert S.tensor_operand_count("coop_tensor_layout_set_dimension", 5) == 5
    assert S.tensor_operand_count("coop_tensor_view_set_clip", 2) == 4
    assert S.tensor_operand_count("coop_tensor_layout_set_clamp_value", 4) == 1
    assert S.tensor_operand_count("coop_tensor_layout_create", 2) == 0
    assert S.tensor_operand_count("coop_mat_load", 2) is None
    assert S.tensor_operand_count_problem("coop_tensor_layout_set_stride", 2, 2) is None
    too_many = S.tensor_operand_count_problem("coop_tensor_layout_set_stride", 2, 3)
    assert "takes 2 operands after the layout for a 2-dimensional tensor, 3 given" in too_many.message
    assert too_many.operand == 3          # the first extra operand (the layout is operand 0)
    assert S.tensor_operand_count_problem("coop_tensor_view_set_dimension", 3, 1).operand == 1
    assert "after the view" in S.tensor_operand_count_problem("coop_tensor_view_set_clip", 2, 2).message


def test_tensor_type_rules():
    assert S.tensor_type_problem(2, S.ClampMode.CONSTANT) is None
    assert S.tensor_type_problem(5, permutation=(4, 3, 2, 1, 0)) is None
    assert S.tensor_type_problem(0).operand == 0
    assert S.tensor_type_problem(6).message == "a tensor layout or view has 1 to 5 dimensions, not 6"
    assert S.tensor_type_problem(2, 5).operand == 1
    assert S.tensor_type_problem(3, permutation=(0, 1, 1)).operand == 2
    assert S.tensor_type_problem(2, permutation=(0, 1, 2)) is not None


def test_vk_component_names_are_those_of_the_vulkan_enum_and_fit_the_component():
    """VK_COMPONENTS (the names reflection records and probes write) spell VkComponentTypeKHR
    values as VK_COMPONENT_TYPES does, each of its component's kind and width."""
    names = set(S.VK_COMPONENT_TYPES.values())
    assert len(names) == len(S.VK_COMPONENT_TYPES)
    for opencl_name, vk_name in S.VK_COMPONENTS.items():
        component = S.COMPONENTS[opencl_name]
        assert vk_name in names
        kind = "bf" if component.llvm == "bfloat" else "f" if component.is_float else "s" if component.signed else "u"
        assert vk_name == f"{kind}{component.bits}", opencl_name
    assert {"char", "uchar", "short", "ushort", "int", "uint", "long", "ulong", "half", "__bf16", "float",
            "double"} <= set(S.VK_COMPONENTS)
