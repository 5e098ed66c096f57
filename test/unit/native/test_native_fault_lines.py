"""Native faults name the source line as the interpreter does (-g, the default of
Program.build): the fault site's !dbg in the module as the engine compiled it
(codegen.Site.dbg), rendered by the interpreter's source_map.render_fault; the access in the
interpreter's words (the element type, the first element outside the buffer)."""
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
    assert message == fault(clcoop.Program(source).build(), shift)
    assert message.startswith(head), message
    assert "instruction:" not in message


def test_without_debug_information_the_instruction_is_named():
    source = KERNELS["read"][0]
    prog = clcoop.Program(source).build(options="-g0")
    native = clcoop.Program.from_ir(prog.ir, engine="native")
    message = fault(native, 70)
    assert "instruction: " in message and "load float" in message


VECTORS = """
__kernel void k(__global const float4 *a, __global float4 *c, __global const uint *u, __global uint *o, int s) {
    size_t i = get_global_id(0);
    if (s == 0) c[i] = a[i + 3];
    else if (s == 1) o[i] = u[i + 3];
    else o[i - 3] = u[i];
}"""


@pytest.mark.parametrize("s", [0, 1, 2])
def test_out_of_bounds_access_is_worded_as_the_interpreter(s, shared_builds):
    """A float4 read past the end is at element 32 of 32 floats (the first element outside),
    a uint one at element 8, a write before the start at element -3: the interpreter's words."""
    messages = []
    for engine in ("native", "interp"):
        prog = shared_builds.build(VECTORS, engine)
        with pytest.raises(clcoop.RuntimeFault) as info:
            prog.k((8,), (8,), np.ones(32, np.float32), np.zeros(32, np.float32), np.ones(8, np.uint32),
                   np.zeros(8, np.uint32), np.int32(s))
        messages.append(str(info.value))
    assert messages[0] == messages[1]
    assert ["element 32 of buffer 'a' (32 elements)", "element 8 of buffer 'u'", "element -3 of buffer 'o'"][s] \
        in messages[0]


def test_misaligned_access_is_worded_as_the_interpreter():
    source = """
__kernel void k(__global char *bytes, __global int *out) {
    out[0] = *(__global int *)(bytes + 2);
}"""
    messages = []
    for engine in ("native", "interp"):
        prog = clcoop.Program(source).build(["-O0"], engine=engine)
        with pytest.raises(clcoop.RuntimeFault) as info:
            prog.k(1, 1, np.zeros(16, np.int8), np.zeros(1, np.int32))
        messages.append(str(info.value))
    assert messages[0] == messages[1]
    assert "misaligned read of int32 at byte offset 2 of buffer 'bytes'" in messages[0]
