"""Native faults name the source line as the interpreter does (-g, the default of
Program.build): the fault site's !dbg in the module as the engine compiled it
(codegen.Site.dbg), rendered by the interpreter's source_map.render_fault."""
import re

import numpy as np
import pytest

import clcoop

KERNELS = {
    "read": ("""
__kernel void k(__global const float *a, __global float *c, int shift) {
    size_t i = get_global_id(0);
    float v = a[i + shift];
    c[i] = v;
}""", "<source>:4:15: error:"),
    "write": ("""
__kernel void k(__global const float *a, __global float *c, int shift) {
    size_t i = get_global_id(0);
    c[i + shift] = a[i];
}""", "<source>:4:5: error:"),
    "division": ("""
__kernel void k(__global const float *a, __global float *c, int shift) {
    int i = get_global_id(0);
    c[i] = a[i] + (float)(i / (shift - 3));
}""", "<source>:4:27: error:"),
    "called function": ("""
float at(__global const float *a, int i) { return a[i]; }
__kernel void k(__global const float *a, __global float *c, int shift) {
    int i = get_global_id(0);
    c[i] = at(a, i + shift) * 2.0f;
}""", "<source>:2:51: error:"),
}


def located(message):
    """The message without the words of an out-of-bounds access (how it measures the
    offset, elements or bytes, is test_native_coop's matter)."""
    return re.sub(r"out-of-bounds (\w+) of .*? of buffer '(\w+)' \([^)]*\)", r"out-of-bounds \1 of \2", message)


def fault(prog, shift):
    a = np.ones(64, np.float32)
    c = np.full(64, 5.0, np.float32)
    with pytest.raises(clcoop.RuntimeFault) as info:
        prog.k((64,), (16,), a, c, np.int32(shift))
    assert (c == 5.0).all()
    return str(info.value)


@pytest.mark.parametrize("name", sorted(KERNELS))
@pytest.mark.parametrize("fast", [True, False])
def test_native_fault_names_the_source_line_as_the_interpreter(name, fast):
    source, head = KERNELS[name]
    native = clcoop.Program(source).build(engine="native")
    assert native.k.engine == "native"
    if not fast:
        native._native.subgroup_drivers.clear()
    shift = 3 if name == "division" else 70
    message = fault(native, shift)
    assert located(message) == located(fault(clcoop.Program(source).build(), shift))
    assert message.startswith(head), message
    assert "instruction:" not in message


def test_without_debug_information_the_instruction_is_named():
    source = KERNELS["read"][0]
    prog = clcoop.Program(source).build(options="-g0")
    native = clcoop.Program.from_ir(prog.ir, engine="native")
    message = fault(native, 70)
    assert "instruction: " in message and "load float" in message
