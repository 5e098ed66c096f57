"""Launch preparation (clcoop/prepare.py): every engine's launches are checked there, before
anything runs (issues 25, 26). Each check is run on both CPU engines: a refusal must not
depend on the engine, and the native engine once took what the interpreter refused."""
import re
import struct

import numpy as np
import pytest

import clcoop
from clcoop import launch_cache, prepare

ENGINES = ("interp", "native")

WRITE = """__kernel void k(__global float *c) { c[get_global_id(0)] = 1.0f; }"""
COPY = """__kernel void k(__global float *a, __global float *c) {
    size_t i = get_global_id(0); c[i] = a[i]; }"""
CONST_COPY = """__kernel void k(__global const float *a, __global float *c) {
    size_t i = get_global_id(0); c[i] = a[i]; }"""
STRUCTS = """typedef struct { float d; char q[32]; } blk8;
struct pair { int a; double b; };
__kernel void k(__global const blk8 *b, __global const struct pair *p, __global float *o) {
    size_t i = get_global_id(0); o[i] = b[i].d + (float)b[i].q[31] + (float)p[i].b; }"""

BLK8 = np.dtype([("d", np.float32), ("q", np.int8, (32,))], align=True)      # 36 bytes
PAIR = np.dtype([("a", np.int32), ("b", np.float64)], align=True)           # 16 bytes


@pytest.fixture(scope="module")
def programs():
    """(source, options, engine) -> the built program, once per module."""
    built = {}

    def get(source, engine, options=()):
        key = (source, tuple(options), engine)
        if key not in built:
            built[key] = clcoop.Program(source).build(options=list(options), engine=engine)
        return built[key]
    return get


def read_only(array):
    array.flags.writeable = False
    return array


# ------------------------------------------------------------------ read-only arrays
@pytest.mark.parametrize("engine", ENGINES)
def test_a_read_only_array_for_a_parameter_the_kernel_writes_is_refused_before_the_launch(programs, engine):
    c = read_only(np.zeros(16, np.float32))
    with pytest.raises(clcoop.ArgumentError, match=r"argument 0 'c' of kernel 'k' \(float\*\): the array "
                                                   r"is read-only, and the kernel may write"):
        programs(WRITE, engine).k(16, 16, c)
    assert not c.any()


@pytest.mark.parametrize("engine", ENGINES)
def test_a_read_only_array_is_taken_by_a_const_parameter(programs, engine):
    a = read_only(np.arange(16, dtype=np.float32))
    c = np.zeros(16, np.float32)
    programs(CONST_COPY, engine).k(16, 16, a, c)
    assert (c == a).all()


def test_a_parameter_the_ir_marks_readonly_takes_a_read_only_array():
    # At -O2 LLVM marks `a` readonly (it is only read); at -O0 nothing says so: refused.
    a = read_only(np.arange(16, dtype=np.float32))
    c = np.zeros(16, np.float32)
    clcoop.Program(COPY).build(options=["-O2"]).k(16, 16, a, c)
    assert (c == a).all()
    with pytest.raises(clcoop.ArgumentError, match="argument 0 'a' .* read-only"):
        clcoop.Program(COPY).build(options=["-O0"]).k(16, 16, a, c)


# ------------------------------------------------------------------ LocalMemory
@pytest.mark.parametrize("nbytes", [1 << 40, prepare.LOCAL_MEMORY_LIMIT + 1, 0, -4])
def test_local_memory_sizes_out_of_range_are_argument_errors(nbytes):
    with pytest.raises(clcoop.ArgumentError, match=f"LocalMemory size must be 1 to {prepare.LOCAL_MEMORY_LIMIT} "
                                                   f"bytes .*, got {nbytes}"):
        clcoop.LocalMemory(nbytes)


@pytest.mark.parametrize("nbytes", [2.5, "64", None, True])
def test_local_memory_needs_a_whole_number_of_bytes(nbytes):
    with pytest.raises(clcoop.ArgumentError, match="LocalMemory needs a whole number of bytes"):
        clcoop.LocalMemory(nbytes)


def test_local_memory_arguments_together_are_bounded(programs):
    prog = programs("""__kernel void k(__local float *x, __local float *y, __global float *o) {
        x[0] = 1.0f; y[0] = 2.0f; o[0] = x[0] + y[0]; }""", "interp")
    half = clcoop.LocalMemory(prepare.LOCAL_MEMORY_LIMIT // 2 + 4)
    with pytest.raises(clcoop.ArgumentError, match="the LocalMemory arguments take 1073741832 bytes per work-group"):
        prog.k(1, 1, half, half, np.zeros(1, np.float32))


HUGE_VARIABLE_IR = """target triple = "spir64-unknown-unknown"
@g = internal SPACE global [1099511627776 x i8] zeroinitializer
define spir_kernel void @k(ptr addrspace(1) %o, ptr addrspace(3) %x) {
  %p = getelementptr i8, ptr SPACE @g, i64 1099511627775
  store i8 1, ptr SPACE %p
  ret void
}
"""


# Found by hand: a 1 TiB variable had been NumPy's MemoryError out of both engines.
@pytest.mark.parametrize("engine", ("interp", "auto"))     # native: program-scope variables fall back
@pytest.mark.parametrize("space, words", [
    ("addrspace(3)", "kernel 'k': its __local variables take 1099511627776 bytes per work-group and the "
                     "LocalMemory arguments 16, more than the 1073741824 bytes"),
    ("addrspace(1)", "the program-scope variable @g takes 1099511627776 bytes, more than the 1073741824 bytes"),
])
def test_huge_variables_are_argument_errors(engine, space, words):
    import warnings
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        prog = clcoop.Program.from_ir(HUGE_VARIABLE_IR.replace("SPACE", space), engine=engine)
        with pytest.raises(clcoop.ArgumentError, match=re.escape(words)):
            prog.k(1, 1, np.zeros(1, np.float32), clcoop.LocalMemory(16))


# ------------------------------------------------------------------ launch options
@pytest.mark.parametrize("engine", ENGINES)
@pytest.mark.parametrize("limit", [-1, 0, 1.5, True, "100", None, 1 << 63])
def test_invalid_instruction_limits_are_argument_errors(programs, engine, limit):
    c = np.zeros(16, np.float32)
    with pytest.raises(clcoop.ArgumentError, match=re.escape(f"instruction_limit must be a positive integer "
                                                             f"below 2**63, got {limit!r}")):
        programs(WRITE, engine).k(16, 16, c, instruction_limit=limit)
    assert not c.any()


@pytest.mark.parametrize("lanes", [0, -16, 2.0])
def test_invalid_max_lanes_are_argument_errors(programs, lanes):
    with pytest.raises(clcoop.ArgumentError, match="max_lanes must be a positive integer"):
        programs(WRITE, "interp").k(16, 16, np.zeros(16, np.float32), max_lanes=lanes)


@pytest.mark.parametrize("engine", ENGINES)
@pytest.mark.parametrize("global_size, offset, message", [
    (1 << 63, None, "global size 9223372036854775808 in dimension 0 is too large"),
    ((1 << 64, 1), None, "global size 18446744073709551616 in dimension 0 is too large"),
    ((16, 1 << 62), (0, 1 << 62), r"global size 4611686018427387904 plus offset 4611686018427387904 in "
                                  r"dimension 1 is too large: global ids must stay below 2\*\*63"),
])
def test_global_sizes_of_2_63_or_more_are_argument_errors(programs, engine, global_size, offset, message):
    local = (16, 1) if isinstance(global_size, tuple) else 16
    with pytest.raises(clcoop.ArgumentError, match=message):
        programs(WRITE, engine).k(global_size, local, np.zeros(16, np.float32), global_offset=offset)


# ------------------------------------------------------------------ struct pointers
@pytest.mark.parametrize("engine", ENGINES)
@pytest.mark.parametrize("options", [["-O2"], ["-O0"]])
def test_struct_pointers_take_records_of_the_structs_size(programs, engine, options):
    prog = programs(STRUCTS, engine, options)
    b, p = np.zeros(4, BLK8), np.zeros(4, PAIR)
    b["d"], b["q"][:, 31], p["b"] = [1, 2, 3, 4], 10, 0.5
    o = np.zeros(4, np.float32)
    prog.k(4, 4, b, p, o)
    assert o.tolist() == [11.5, 12.5, 13.5, 14.5]
    o[:] = 0
    prog.k(4, 4, b.view(np.uint8), p.view(np.int8), o)      # raw bytes of whole records
    assert o.tolist() == [11.5, 12.5, 13.5, 14.5]


@pytest.mark.parametrize("engine", ENGINES)
@pytest.mark.parametrize("bad, got", [
    (np.zeros(4, np.float32), "got a float32 array"),
    (np.zeros(4, np.dtype([("d", np.float32), ("q", np.int8, (16,))])), "got records of 20 bytes"),
    (np.zeros(36 * 4 + 4, np.uint8), "got 148 bytes, not a whole number of records"),
    (np.zeros(36, np.int16), "got a int16 array"),
])
def test_struct_pointers_refuse_other_records(programs, engine, bad, got):
    with pytest.raises(clcoop.ArgumentError, match=r"argument 0 'b' of kernel 'k' \(blk8\*\) needs 36-byte "
                                                   r"records \(the struct's size\): .*; " + got):
        programs(STRUCTS, engine).k(4, 4, bad, np.zeros(4, PAIR), np.zeros(4, np.float32))


def test_struct_records_of_ir_from_elsewhere_are_checked_by_its_named_struct():
    # Without clcoop's metadata (IR from other producers), a struct the IR declares gives the
    # size (clang -O0 declares the types its code uses).
    ir = clcoop.Program(STRUCTS).build(options=["-O0"]).ir
    foreign = re.sub(r" !clcoop\.arg_record_size !\d+", "", ir)
    assert "clcoop.arg_record_size" not in foreign.split("\ndefine", 1)[1].split("\n", 1)[0]
    prog = clcoop.Program.from_ir(foreign)
    with pytest.raises(clcoop.ArgumentError, match="36-byte records .*; got records of 20 bytes"):
        prog.k(4, 4, np.zeros(4, np.dtype([("d", np.float32), ("q", np.int8, (16,))])),
               np.zeros(4, PAIR), np.zeros(4, np.float32))


# ------------------------------------------------------------------ repeated launches (issue 28)
# Preparations.prepare recognizes a launch repeating the last one without building its key
# (LastLaunch). Each case changes one thing between two launches: the second preparation must
# be keyed and checked exactly as a launch prepared anew (launch_key, prepare_launch).
REPEAT = """__kernel void add(__global const float *a, __global float *c, float s, int n) {
    size_t i = get_global_id(0); if (i < n) c[i] = a[i] * s; }
__kernel void tile(__global float *c, __local float *t, float s) {
    t[get_local_id(0)] = s; c[get_global_id(0)] = t[get_local_id(0)]; }"""
DEFAULTS = (None, prepare.DEFAULT_INSTRUCTION_LIMIT, prepare.DEFAULT_MAX_LANES, None, False)


def prepare_twice(programs, kernel, first, second, sizes=(64, 16), second_sizes=None, between=None):
    """(the first launch's preparation, the second's, the second's key as built anew) by the
    kernel's Preparations (each launch: (global, local) sizes and an argument tuple);
    between() runs between them (a change in place)."""
    preparations = getattr(programs(REPEAT, "interp"), kernel)._preparations
    before = preparations.prepare(*sizes, first, *DEFAULTS)
    if between is not None:
        between()
    got = preparations.prepare(*(second_sizes or sizes), second, *DEFAULTS)
    return before, got, fresh_key(*(second_sizes or sizes), second)


def fresh_key(global_size, local_size, args):
    subgroup, limit, lanes, offset, serial = DEFAULTS
    key = launch_cache.launch_key(global_size, local_size, args, subgroup, limit, offset, prepare.LocalMemory)
    return launch_cache.options_key(key, lanes, serial)


def test_a_repeated_launch_is_not_keyed_again(programs, monkeypatch):
    a, c = np.ones(64, np.float32), np.zeros(64, np.float32)
    preparations = programs(REPEAT, "interp").add._preparations
    first = preparations.prepare(64, 16, (a, c, 2.0, 64), *DEFAULTS)
    monkeypatch.setattr(prepare, "launch_key", None)       # (a call would raise)
    again = preparations.prepare(64, 16, (a, c, 2.0, 64), *DEFAULTS)
    assert again.key is first.key and again.values[1] is c


def resize(array):
    array.resize(4096, refcheck=False)          # reallocated in place: a new address and size


def retype(array):
    array.dtype = np.int32


def make_read_only(array):
    array.flags.writeable = False


def transpose_in_place(array):
    with pytest.warns(DeprecationWarning):       # (NumPy 2.4 deprecates setting strides)
        array.strides = (4, 32)                  # the transpose's layout: not C-contiguous


@pytest.mark.parametrize("change, refused", [
    ("other array", None), (resize, None), ("int scalar", None), ("bool for int", None),
    (retype, "argument 1 'c' of kernel 'add' \\(float\\*\\) needs a float32 array"),
    (make_read_only, "argument 1 'c' .* the array is read-only"),
    (transpose_in_place, "argument 1 'c' .* not C-contiguous")])
def test_a_changed_array_or_scalar_is_keyed_and_checked_anew(programs, change, refused):
    a, c = np.ones(64, np.float32), np.zeros((8, 8), np.float32)
    second = {"other array": (a, np.zeros((8, 8), np.float32), 2.0, 64), "int scalar": (a, c, 2.0, 63),
              "bool for int": (a, c, 2.0, True)}.get(change, (a, c, 2.0, 64))
    between = None if isinstance(change, str) else lambda: change(c)
    if refused:
        with pytest.raises(clcoop.ArgumentError, match=refused):
            prepare_twice(programs, "add", (a, c, 2.0, 64), second, between=between)
        return
    first, got, key = prepare_twice(programs, "add", (a, c, 2.0, 64), second, between=between)
    assert got.key == key and got.key != first.key
    assert got.arguments[1].nbytes == second[1].nbytes and got.arguments[3].value == np.int32(second[3])


NAN_PAYLOAD = struct.unpack("<d", struct.pack("<Q", 0x7FF4_0000_0000_0000))[0]    # a signalling NaN


@pytest.mark.parametrize("before, after", [
    (0.0, -0.0), (-0.0, 0.0), (np.float32(0.0), np.float32(-0.0)), (float("nan"), NAN_PAYLOAD),
    (2.0, np.float32(2.0)), (2.0, 2.5), (2.0, float("nan")), (float("nan"), float("nan"))])
def test_a_changed_float_scalar_is_keyed_by_its_bits(programs, before, after):
    a, c = np.ones(64, np.float32), np.zeros(64, np.float32)
    _, got, key = prepare_twice(programs, "add", (a, c, before, 64), (a, c, after, 64))
    assert got.key == key
    assert np.float32(after).tobytes() == np.asarray(got.arguments[2].value).tobytes()


def test_a_0d_array_scalar_changed_in_place_is_converted_anew(programs):
    a, c, s = np.ones(64, np.float32), np.zeros(64, np.float32), np.array(2.0, np.float32)
    preparations = programs(REPEAT, "interp").add._preparations
    preparations.prepare(64, 16, (a, c, s, 64), *DEFAULTS)
    s[()] = 3.0
    assert preparations.prepare(64, 16, (a, c, s, 64), *DEFAULTS).arguments[2].value == 3.0


@pytest.mark.parametrize("first, sizes, message", [
    ((64, 16), (64, 32), None), ((64, 16), (64, None), None), ((64, 16), ((64,), (16,)), None),
    (((64,), (16,)), ([64], [16]), None), (((64,), (16,)), ((64,), (32,)), None),
    ((64, 16), (64, 16.0), "local_size must be an int"), ((64, 16), (64.0, 16), "global_size must be an int"),
    (((64,), (16,)), ((64,), (16.0,)), None), ((64, 16), (64, 48), "not a multiple")])
def test_changed_sizes_are_keyed_and_checked_anew(programs, first, sizes, message):
    a, c = np.ones(64, np.float32), np.zeros(64, np.float32)
    args = (a, c, 2.0, 64)
    if message is not None:
        with pytest.raises(clcoop.ArgumentError, match=message):
            prepare_twice(programs, "add", args, args, sizes=first, second_sizes=sizes)
        return
    _, got, key = prepare_twice(programs, "add", args, args, sizes=first, second_sizes=sizes)
    assert got.key == key and got.nd.local_size == prepare.NDRange(*(
        (prepare._sizes(s, "") if s is not None else (64,)) for s in sizes)).local_size


def test_a_size_list_changed_in_place_is_keyed_anew(programs):
    a, c, local = np.ones(64, np.float32), np.zeros(64, np.float32), [16]
    preparations = programs(REPEAT, "interp").add._preparations
    preparations.prepare(64, local, (a, c, 2.0, 64), *DEFAULTS)
    local[0] = 32
    got = preparations.prepare(64, local, (a, c, 2.0, 64), *DEFAULTS)
    assert got.nd.local_size[0] == 32 and got.key == fresh_key(64, [32], (a, c, 2.0, 64))


def test_a_local_memory_resized_in_place_is_keyed_anew(programs):
    c, t = np.zeros(64, np.float32), prepare.LocalMemory(64)
    preparations = programs(REPEAT, "interp").tile._preparations
    preparations.prepare(64, 16, (c, t, 1.0), *DEFAULTS)
    t.nbytes = 128
    got = preparations.prepare(64, 16, (c, t, 1.0), *DEFAULTS)
    assert got.arguments[1].nbytes == 128 and got.key == fresh_key(64, 16, (c, t, 1.0))
