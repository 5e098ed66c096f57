"""--emit-spirv on OpenCL C 2.0 atomic_fetch_min/max: llc-22 leaves them imported, clcoop.spirv.rewrite
makes them OpAtomicSMin/UMin/SMax/UMax with the scope and semantics llc-22 gives atomic_fetch_add."""

import os
import sys

import pytest

from test_spirv_pipeline import assert_no_imports, needs_tools, spirv_link_ok  # noqa: E402

from clcoop.cli import compile_main  # noqa: E402
from clcoop.spirv import binary as sb  # noqa: E402
from clcoop.spirv import validate  # noqa: E402

TYPES = {"int": ("1", "max", sb.OP_ATOMIC_SMAX), "uint": ("1u", "min", sb.OP_ATOMIC_UMIN),
         "long": ("1l", "min", sb.OP_ATOMIC_SMIN), "ulong": ("1ul", "max", sb.OP_ATOMIC_UMAX)}
SPACES = {"global": "a", "local": "l", "generic": "g"}
# Every form: default, explicit order (each order), explicit order and scope (each scope).
FORMS = ([""] + [f", memory_order_{o}" for o in ("relaxed", "acquire", "release", "acq_rel", "seq_cst")]
         + [f", memory_order_acquire, memory_scope_{s}"
            for s in ("work_item", "work_group", "device", "all_svm_devices", "sub_group")])


def kernel(type_name, space):
    value, which, _ = TYPES[type_name]
    p = SPACES[space]
    lines = []
    for i, form in enumerate(FORMS):
        suffix = "_explicit" if form else ""
        lines.append(f"  o[{2 * i}] = atomic_fetch_add{suffix}({p}, {value}{form});")
        lines.append(f"  o[{2 * i + 1}] = atomic_fetch_{which}{suffix}({p}, {value}{form});")
    body = "\n".join(lines)
    return (f"kernel void k(global atomic_{type_name} *a, global {type_name} *o, "
            f"local atomic_{type_name} *l) {{\n  atomic_{type_name} *g = a;\n{body}\n}}\n")


def emit(source_text, tmp_path):
    source = tmp_path / "k.cl"
    source.write_text(source_text)
    out = tmp_path / "k.spv"
    status = compile_main.run([str(source), "--emit-spirv", "-o", str(out)])
    return status, out


def constant_values(module):
    values = {}
    for inst in module.instructions:
        if inst.opcode == sb.OP_CONSTANT:
            values[inst.result_id] = inst.operands[2]
        elif inst.opcode == sb.OP_CONSTANT_NULL:
            values[inst.result_id] = 0
    return values


@needs_tools
@pytest.mark.parametrize("space", sorted(SPACES))
@pytest.mark.parametrize("type_name", sorted(TYPES))
def test_min_max_as_native_atomics(type_name, space, tmp_path):
    status, out = emit(kernel(type_name, space), tmp_path)
    assert status == 0
    data = out.read_bytes()
    validate(data)
    ok, stderr = spirv_link_ok(data, tmp_path)
    assert ok, stderr
    module = sb.read_module(data)
    assert_no_imports(module)
    opcode = TYPES[type_name][2]
    adds = [i for i in module.instructions if i.opcode == 234]  # OpAtomicIAdd, lowered by llc-22
    rewritten = [i for i in module.instructions if i.opcode == opcode]
    assert len(adds) == len(rewritten) == len(FORMS)
    values = constant_values(module)
    for add, new in zip(adds, rewritten):
        # Result type, pointer type, value, and the scope and semantics values as llc-22's.
        assert new.operands[0] == add.operands[0] and new.operands[5] == add.operands[5]
        assert [values[w] for w in new.operands[3:5]] == [values[w] for w in add.operands[3:5]]
    defs = sb.definitions(module)
    assert len({defs[i.operands[2]].result_type for i in adds + rewritten}) == 1
    has_int64_atomics = [sb.OP_CAPABILITY, [sb.CAPABILITY_INT64_ATOMICS]] in [
        [i.opcode, i.operands] for i in module.instructions]
    assert has_int64_atomics == type_name.endswith("long")


@needs_tools
def test_min_max_alone_gets_its_capability_and_constants(tmp_path):
    """Without an atomic llc-22 lowers, the rewrite adds Int64Atomics and the scope/semantics constants."""
    status, out = emit("kernel void k(global atomic_ulong *a, global ulong *o) {\n"
                       "  o[0] = atomic_fetch_max(a, 1ul);\n"
                       "  o[1] = atomic_fetch_min_explicit(a, 1ul, memory_order_release, memory_scope_device);\n}\n",
                       tmp_path)
    assert status == 0
    data = out.read_bytes()
    validate(data)
    assert spirv_link_ok(data, tmp_path)[0]
    module = sb.read_module(data)
    assert_no_imports(module)
    values = constant_values(module)
    found = [(i.opcode, values[i.operands[3]], values[i.operands[4]]) for i in module.instructions
             if i.opcode in (sb.OP_ATOMIC_UMAX, sb.OP_ATOMIC_UMIN)]
    # Workgroup scope, no semantics (llc-22's default); Device scope, Release | CrossWorkgroupMemory.
    assert found == [(sb.OP_ATOMIC_UMAX, 2, 0), (sb.OP_ATOMIC_UMIN, 1, 0x204)]
    assert [sb.OP_CAPABILITY, [sb.CAPABILITY_INT64_ATOMICS]] in [[i.opcode, i.operands] for i in module.instructions]


@needs_tools
@pytest.mark.parametrize("type_name, value", [("float", "7.0f"), ("double", "7.0")])
def test_float_min_max_is_a_clear_error(type_name, value, tmp_path, capsys):
    """Float atomic_fetch_min/max (cl_ext_float_atomics) has no rewrite: --emit-spirv refuses it."""
    pragma = "#pragma OPENCL EXTENSION cl_khr_fp64 : enable\n" if type_name == "double" else ""
    status, out = emit(f"{pragma}kernel void k(global atomic_{type_name} *a, global {type_name} *o) "
                       f"{{ o[0] = atomic_fetch_max(a, {value}); }}\n", tmp_path)
    err = capsys.readouterr().err
    assert status == 1 and not out.exists()
    assert err.startswith("clcoop: error: atomic_fetch_max cannot be emitted as SPIR-V: llc-22 leaves it "
                          "an imported function (_Z16atomic_fetch_maxPU3AS1VU7_Atomic"), err


@needs_tools
@pytest.mark.parametrize("args, what", [("1, m", "memory order"),
                                        ("1, memory_order_relaxed, s", "memory scope")])
def test_non_constant_order_or_scope_is_a_clear_error(args, what, tmp_path, capsys):
    status, out = emit("kernel void k(global atomic_int *a, global int *o) {\n"
                       "  memory_order m = memory_order_relaxed; memory_scope s = memory_scope_device;\n"
                       f"  o[0] = atomic_fetch_min_explicit(a, {args});\n}}\n", tmp_path)
    err = capsys.readouterr().err
    assert status == 1 and not out.exists()
    assert err.startswith(f"clcoop: error: atomic_fetch_min_explicit cannot be emitted as SPIR-V with a "
                          f"{what} that is not a constant"), err
