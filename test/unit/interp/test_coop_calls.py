"""execute_coop_call with a fake executor context and a dict-backed memory."""
import numpy as np
import pytest

from clcoop.errors import RuntimeFault
from clcoop.interp.coop_calls import execute_coop_call, is_coop_call, parse_callee
from clcoop.ir.coop_operands import pointee_size
from clcoop.ir.layout import get_layout
from clcoop.ir.wg_layout import get_workgroup_layout


class DictMemory:
    """address -> byte; reading an address never written is a fault."""

    def __init__(self):
        self.cells = {}

    def load(self, addrs, dtype):
        size = np.dtype(dtype).itemsize
        out = bytearray()
        for addr in np.asarray(addrs).reshape(-1).tolist():
            for k in range(size):
                if addr + k not in self.cells:
                    raise RuntimeFault(f"invalid address {addr + k}")
                out.append(self.cells[addr + k])
        return np.frombuffer(bytes(out), dtype=dtype).copy().reshape(np.shape(addrs))

    def store(self, addrs, values, dtype):
        flat = np.asarray(addrs).reshape(-1)
        raw = np.ascontiguousarray(values, dtype=dtype).view(np.uint8).reshape(flat.size, -1)
        for addr, chunk in zip(flat.tolist(), raw):
            for k, byte in enumerate(chunk.tolist()):
                self.cells[addr + k] = byte

    def put(self, addr, array):
        raw = np.ascontiguousarray(array).view(np.uint8).reshape(-1)
        for k, byte in enumerate(raw.tolist()):
            self.cells[addr + k] = byte
        return addr

    def get(self, addr, dtype, shape):
        count = int(np.prod(shape))
        return self.load(addr + np.arange(count) * np.dtype(dtype).itemsize, dtype).reshape(shape)


class FakeCtx:
    def __init__(self, lane_count, subgroup_size=16, work_group_size=None, memory=None):
        self.memory = memory or DictMemory()
        self.subgroup_size = subgroup_size
        self.lane_count = lane_count
        self.work_group_size = work_group_size
        self.mask = np.ones(lane_count, dtype=bool)
        self.faults = []

    def fault(self, message, lanes_mask=None):
        """Like the executor's: names the first lane of lanes_mask (default: of mask)."""
        lanes_mask = self.mask if lanes_mask is None else lanes_mask
        self.faults.append((message, int(np.argmax(lanes_mask))))
        raise RuntimeFault(message, kernel="k")


def mat(code, rows, cols, use):
    return f"{code}Li3ELi{rows}ELi{cols}ELi{use}E"


def name(base, matrices, params):
    return f"_Z{len(base)}{base}I{''.join(matrices)}Ev{params}"


LOAD, STORE = "__spirv_CooperativeMatrixLoadKHR", "__spirv_CooperativeMatrixStoreKHR"
MULADD = "__spirv_CooperativeMatrixMulAddKHR"


def test_parse_callee_of_the_conventions_example():
    callee = parse_callee("_Z32__spirv_CooperativeMatrixLoadKHRIfLi3ELi8ELi16ELi2EEvPU3AS1fim")
    assert callee.base == LOAD and callee.params == "PU3AS1fim"
    (m,) = callee.matrices
    assert (m.elem, m.scope, m.rows, m.cols, m.use) == ("float", 3, 8, 16, 2)
    assert pointee_size(callee.params) == 4
    assert pointee_size("PU3AS3Dhim") == 2 and pointee_size("PU3AS1Dv4_jim") == 16
    assert is_coop_call("_Z32__spirv_CooperativeMatrixLoadKHRIfLi3ELi8ELi16ELi2EEvPU3AS1fim")
    assert not is_coop_call("_Z13get_global_idj")


def tile_pointers(ctx, base, offsets):
    """Per-lane pointer: every lane of subgroup g gets base + offsets[g]."""
    S = ctx.subgroup_size
    return np.repeat(base + np.asarray(offsets, dtype=np.int64), S)


def test_int8_gemm_through_calls_matches_numpy():
    # Two work-groups of 32 lanes, S = 16: four subgroups, each computes its own
    # 8x16 tile of C = A(8 x 32 rows per tile) * B with signed int8 -> int32.
    rng = np.random.default_rng(1)
    ctx = FakeCtx(64, 16, work_group_size=32)
    A = rng.integers(-128, 128, size=(32, 16), dtype=np.int64).astype(np.int8)   # 4 tiles of 8 rows
    B = rng.integers(-128, 128, size=(16, 16), dtype=np.int64).astype(np.int8)
    C = rng.integers(-1000, 1000, size=(32, 16), dtype=np.int64).astype(np.int32)
    a_addr = ctx.memory.put(1 << 20, A)
    b_addr = ctx.memory.put(2 << 20, np.ascontiguousarray(B.T))      # column-major B
    c_addr = ctx.memory.put(3 << 20, C)
    tiles = [0, 1, 2, 3]
    a_ptr = tile_pointers(ctx, a_addr, [t * 8 * 16 for t in tiles])
    c_ptr = tile_pointers(ctx, c_addr, [t * 8 * 16 * 4 for t in tiles])
    ma, mb, mc = mat("c", 8, 16, 0), mat("c", 16, 16, 1), mat("i", 8, 16, 2)
    a = execute_coop_call(ctx, name(LOAD, [ma], "PU3AS1cim"), [a_ptr, np.int32(0), np.int64(16)], None)
    b = execute_coop_call(ctx, name(LOAD, [mb], "PU3AS1cim"), [np.int64(b_addr), 1, 16], None)
    c = execute_coop_call(ctx, name(LOAD, [mc], "PU3AS1iim"), [c_ptr, 0, np.int64(16)], None)
    assert a.shape == (64, get_layout(8, 16, 0, "char", 16).length) and a.dtype == np.int8
    d = execute_coop_call(ctx, name(MULADD, [mc, ma, mb, mc], "i"), [a, b, c, np.int32(15)], None)
    execute_coop_call(ctx, name(STORE, [mc], "PU3AS1iim"), [c_ptr, d, np.int32(0), np.int64(16)],
                      "void")
    expected = (A.astype(np.int64) @ B.astype(np.int64) + C).astype(np.int32)
    np.testing.assert_array_equal(ctx.memory.get(c_addr, np.int32, (32, 16)), expected)


def test_loaded_lane_components_follow_the_layout():
    # matrix_a half 8x16 at S=16 is VNNI packed: lane p's component v is A[row_col(p, v)].
    ctx = FakeCtx(16, 16)
    A = np.arange(8 * 16, dtype=np.float16).reshape(8, 16)
    addr = ctx.memory.put(4096, A)
    ma = mat("Dh", 8, 16, 0)
    lanes = execute_coop_call(ctx, name(LOAD, [ma], "PU3AS1Dhim"), [np.int64(addr), 0, 16], None)
    layout = get_layout(8, 16, "a", "half", 16)
    assert layout.omega == 2
    for p in range(16):
        for v in range(layout.length):
            assert lanes[p, v] == A[layout.row_col(p, v)]


def test_half_to_float_gemm_with_vnni_a():
    rng = np.random.default_rng(2)
    ctx = FakeCtx(16, 16)
    A = rng.standard_normal((8, 16)).astype(np.float16)
    B = rng.standard_normal((16, 16)).astype(np.float16)
    a_addr, b_addr = ctx.memory.put(0, A), ctx.memory.put(4096, B)
    c_addr = ctx.memory.put(8192, np.zeros((8, 16), np.float32))
    ma, mb, mc = mat("Dh", 8, 16, 0), mat("Dh", 16, 16, 1), mat("f", 8, 16, 2)
    a = execute_coop_call(ctx, name(LOAD, [ma], "PU3AS1Dhim"), [np.int64(a_addr), 0, 16], None)
    b = execute_coop_call(ctx, name(LOAD, [mb], "PU3AS1Dhim"), [np.int64(b_addr), 0, 16], None)
    c = execute_coop_call(ctx, name("__spirv_CompositeConstruct", [mc], "f"), [np.float32(1.0)], None)
    d = execute_coop_call(ctx, name(MULADD, [mc, ma, mb, mc], "i"), [a, b, c, 0], None)
    execute_coop_call(ctx, name(STORE, [mc], "PU3AS1fim"), [np.int64(c_addr), d, 0, 16], None)
    # The reference order (docs/design.md, "Float mul-add summation order"): one chain over
    # k from +0 in float32, then + C; half products are exact in float32, so each fused step
    # is NumPy's rounded float32 addition.
    expected = np.zeros((8, 16), np.float32)
    for k in range(16):
        expected += np.outer(A[:, k].astype(np.float32), B[k].astype(np.float32))
    expected += np.float32(1)
    np.testing.assert_array_equal(ctx.memory.get(c_addr, np.float32, (8, 16)), expected)


def test_partly_active_subgroup_faults():
    ctx = FakeCtx(32, 16)
    ctx.mask[20] = False
    addr = ctx.memory.put(0, np.zeros(64, np.float32))
    with pytest.raises(RuntimeFault, match="only part of sub-group 1"):
        execute_coop_call(ctx, name(LOAD, [mat("f", 4, 16, 2)], "PU3AS1fim"),
                          [np.int64(addr), 0, 16], None)
    assert ctx.faults[-1][1] == 16       # names an active work-item of that subgroup


def test_wholly_inactive_subgroup_is_skipped():
    ctx = FakeCtx(32, 16)
    ctx.mask[16:] = False
    ctx.memory.put(0, np.zeros(64, np.float32))
    mc = mat("f", 4, 16, 2)
    value = np.ones((32, 4), np.float32)
    execute_coop_call(ctx, name(STORE, [mc], "PU3AS1fim"),
                      [np.r_[np.zeros(16), np.full(16, 1 << 30)].astype(np.int64), value, 0, 16],
                      None)
    np.testing.assert_array_equal(ctx.memory.get(0, np.float32, (64,)), 1.0)
    assert not any(addr >= 1 << 30 for addr in ctx.memory.cells)


def test_work_group_not_multiple_of_subgroup_faults():
    ctx = FakeCtx(48, 16, work_group_size=24)
    with pytest.raises(RuntimeFault, match="not a multiple of the sub-group size"):
        execute_coop_call(ctx, name("__spirv_CompositeConstruct", [mat("f", 4, 16, 2)], "f"),
                          [np.float32(0)], None)


@pytest.mark.parametrize("operand", ["pointer", "stride"])
def test_non_uniform_operand_faults(operand):
    ctx = FakeCtx(16, 16)
    addr = ctx.memory.put(0, np.zeros(256, np.float32))
    pointer = np.full(16, addr, dtype=np.int64)
    stride = np.full(16, 16, dtype=np.int64)
    (pointer if operand == "pointer" else stride)[3] += 4
    with pytest.raises(RuntimeFault, match=f"operand '{operand}' must be uniform"):
        execute_coop_call(ctx, name(LOAD, [mat("f", 4, 16, 2)], "PU3AS1fim"),
                          [pointer, 0, stride], None)
    assert ctx.faults[-1][1] == 3        # names the work-item whose operand differs


def test_non_uniform_splat_value_faults():
    ctx = FakeCtx(16, 16)
    with pytest.raises(RuntimeFault, match="'value' must be uniform"):
        execute_coop_call(ctx, name("__spirv_CompositeConstruct", [mat("f", 4, 16, 2)], "f"),
                          [np.arange(16, dtype=np.float32)], None)


def test_invalid_address_in_load_is_located_at_the_subgroup():
    ctx = FakeCtx(32, 16)
    ctx.memory.put(0, np.zeros(64, np.float32))
    pointer = np.r_[np.zeros(16), np.full(16, 1 << 30)].astype(np.int64)
    with pytest.raises(RuntimeFault, match="invalid address"):
        execute_coop_call(ctx, name(LOAD, [mat("f", 4, 16, 2)], "PU3AS1fim"),
                          [pointer, 0, np.int64(16)], None)
    assert ctx.faults[-1][1] == 16


def test_store_stride_zero_faults_through_ctx():
    ctx = FakeCtx(16, 16)
    mc = mat("f", 4, 16, 2)
    with pytest.raises(RuntimeFault, match="greater than 0"):
        execute_coop_call(ctx, name(STORE, [mc], "PU3AS1fim"),
                          [np.int64(0), np.zeros((16, 4), np.float32), 0, np.int64(0)], None)
    assert ctx.faults


def test_non_power_of_two_rows_are_padded():
    # 3 x 16 is laid out as 4 x 16 with row 3 padding (docs/layout.md): each of the 16
    # work-items holds 4 components, one of them padding in every 4th work-item.
    ctx = FakeCtx(16, 16)
    value = execute_coop_call(ctx, name("__spirv_CompositeConstruct", [mat("f", 3, 16, 2)], "f"),
                              [np.float32(2)], None)
    lanes = np.asarray(value)
    assert lanes.shape == (16, 4)
    np.testing.assert_array_equal(lanes[3], 0)
    np.testing.assert_array_equal(lanes[[0, 1, 2, 4]], 2)


def test_length_does_not_need_uniform_control_flow():
    ctx = FakeCtx(32, 16)
    ctx.mask[5] = False
    base = "__spirv_CooperativeMatrixLengthKHR"
    length = execute_coop_call(ctx, name(base, [mat("f", 4, 15, 2)], ""), [None], "i32")
    np.testing.assert_array_equal(length, 4)


def test_access_chain_addresses_component():
    ctx = FakeCtx(16, 16)
    ctx.mask[3] = False      # allowed in divergent control flow (SPV_KHR issue 11)
    base = "__spirv_AccessChain"
    addrs = execute_coop_call(ctx, name(base, [mat("Dh", 8, 16, 0)], "Pvm"),
                              [np.arange(16, dtype=np.int64) * 100, np.int64(3)], "ptr")
    np.testing.assert_array_equal(addrs, np.arange(16) * 100 + 6)


def lanes_of(ctx, code, dtype, values):
    """Splat a uniform value into a 4x16 accumulator of the given component code."""
    return execute_coop_call(ctx, name("__spirv_CompositeConstruct", [mat(code, 4, 16, 2)], code),
                             [np.asarray(values, dtype=dtype)], None)


def test_integer_division_signedness_from_callee_name():
    ctx = FakeCtx(16, 16)
    a = np.full((16, 4), -7, dtype=np.int8)
    b = np.full((16, 4), 2, dtype=np.int8)
    div = "__spirv_CooperativeMatrixBinaryDiv"
    signed = execute_coop_call(ctx, name(div, [mat("c", 4, 16, 2)] * 3, ""), [a, b], None)
    assert (signed == -3).all()
    unsigned = execute_coop_call(ctx, name(div, [mat("h", 4, 16, 2)] * 3, ""), [a, b], None)
    assert (unsigned == 249 // 2).all()
    with pytest.raises(RuntimeFault, match="division by zero"):
        execute_coop_call(ctx, name(div, [mat("c", 4, 16, 2)] * 3, ""), [a, b * 0], None)


def test_conversion_extension_follows_source_code():
    ctx = FakeCtx(16, 16)
    x = np.full((16, 4), -1, dtype=np.int8)
    uconv = execute_coop_call(ctx, name("__spirv_UConvert", [mat("i", 4, 16, 2), mat("h", 4, 16, 2)],
                                        ""), [x], None)
    assert uconv.dtype == np.int32 and (uconv == 255).all()
    sconv = execute_coop_call(ctx, name("__spirv_SConvert", [mat("i", 4, 16, 2), mat("c", 4, 16, 2)],
                                        ""), [x], None)
    assert (sconv == -1).all()
    tof = execute_coop_call(ctx, name("__spirv_ConvertUToF", [mat("f", 4, 16, 2),
                                                              mat("h", 4, 16, 2)], ""), [x], None)
    assert (tof == 255.0).all()


def test_conversion_between_uses_relayouts():
    # acc -> matrix_a of char 8x16 (VNNI): logical elements must survive the change of layout.
    ctx = FakeCtx(16, 16)
    acc_layout = get_layout(8, 16, "accumulator", "int", 16)
    logical = np.arange(128).reshape(1, 8, 16)
    acc = acc_layout.from_logical(logical.astype(np.int32)).reshape(16, -1)
    a = execute_coop_call(ctx, name("__spirv_SConvert", [mat("c", 8, 16, 0), mat("i", 8, 16, 2)], ""),
                          [acc], None)
    a_layout = get_layout(8, 16, "a", "char", 16)
    np.testing.assert_array_equal(a_layout.to_logical(a.reshape(1, 16, -1)),
                                  logical.astype(np.int8))


def test_binary_negate_and_scalar_mul():
    ctx = FakeCtx(16, 16)
    m = mat("f", 4, 16, 2)
    a = lanes_of(ctx, "f", np.float32, 3.0)
    b = lanes_of(ctx, "f", np.float32, 2.0)
    for base, expected in (("Add", 5.0), ("Sub", 1.0), ("Mul", 6.0), ("Div", 1.5)):
        out = execute_coop_call(ctx, name(f"__spirv_CooperativeMatrixBinary{base}", [m] * 3, ""),
                                [a, b], None)
        assert (out == expected).all(), base
    neg = execute_coop_call(ctx, name("__spirv_CooperativeMatrixScalarNeg", [m, m], ""), [a], None)
    assert (neg == -3.0).all()
    scaled = execute_coop_call(ctx, name("__spirv_CooperativeMatrixScalarMul", [m, m], "f"),
                               [a, np.float32(0.5)], None)
    assert (scaled == 1.5).all()


def test_unknown_callee_is_an_ir_error():
    from clcoop.errors import IRError
    with pytest.raises(IRError):
        execute_coop_call(FakeCtx(16), "_Z20__spirv_SomethingElsev", [], None)


# ---------------------------------------------------------------- with the real executor

GEMM_F16_ACCESS_CHAIN_IR = """\
target datalayout = "e-i64:64-v16:16-v24:32-v32:32-v48:64-v96:128-v192:256-v256:256-v512:512-v1024:1024-n8:16:32:64-G1"
target triple = "spir64-unknown-unknown"

declare spir_func target("spirv.CooperativeMatrixKHR", float, 3, 8, 16, 2) @_Z32__spirv_CooperativeMatrixLoadKHRIfLi3ELi8ELi16ELi2EEvPU3AS1fim(ptr addrspace(1), i32, i64)
declare spir_func target("spirv.CooperativeMatrixKHR", half, 3, 8, 16, 0) @_Z32__spirv_CooperativeMatrixLoadKHRIDhLi3ELi8ELi16ELi0EEvPU3AS1Dhim(ptr addrspace(1), i32, i64)
declare spir_func target("spirv.CooperativeMatrixKHR", half, 3, 16, 16, 1) @_Z32__spirv_CooperativeMatrixLoadKHRIDhLi3ELi16ELi16ELi1EEvPU3AS1Dhim(ptr addrspace(1), i32, i64)
declare spir_func target("spirv.CooperativeMatrixKHR", float, 3, 8, 16, 2) @_Z34__spirv_CooperativeMatrixMulAddKHRIfLi3ELi8ELi16ELi2EDhLi3ELi8ELi16ELi0EDhLi3ELi16ELi16ELi1EfLi3ELi8ELi16ELi2EEvi(target("spirv.CooperativeMatrixKHR", half, 3, 8, 16, 0), target("spirv.CooperativeMatrixKHR", half, 3, 16, 16, 1), target("spirv.CooperativeMatrixKHR", float, 3, 8, 16, 2), i32)
declare spir_func void @_Z33__spirv_CooperativeMatrixStoreKHRIfLi3ELi8ELi16ELi2EEvPU3AS1fim(ptr addrspace(1), target("spirv.CooperativeMatrixKHR", float, 3, 8, 16, 2), i32, i64)
declare spir_func i32 @_Z34__spirv_CooperativeMatrixLengthKHRIfLi3ELi8ELi16ELi2EEv(target("spirv.CooperativeMatrixKHR", float, 3, 8, 16, 2))
declare spir_func ptr @_Z19__spirv_AccessChainIfLi3ELi8ELi16ELi2EEvPfm(ptr, i64)
declare spir_func i64 @_Z22get_sub_group_local_idv()
declare spir_func i64 @_Z13get_global_idj(i32)

define spir_kernel void @k(ptr addrspace(1) %A, ptr addrspace(1) %B, ptr addrspace(1) %C, ptr addrspace(1) %L) {
entry:
  %slot = alloca target("spirv.CooperativeMatrixKHR", float, 3, 8, 16, 2)
  %c = call spir_func target("spirv.CooperativeMatrixKHR", float, 3, 8, 16, 2) @_Z32__spirv_CooperativeMatrixLoadKHRIfLi3ELi8ELi16ELi2EEvPU3AS1fim(ptr addrspace(1) %C, i32 0, i64 16)
  %a = call spir_func target("spirv.CooperativeMatrixKHR", half, 3, 8, 16, 0) @_Z32__spirv_CooperativeMatrixLoadKHRIDhLi3ELi8ELi16ELi0EEvPU3AS1Dhim(ptr addrspace(1) %A, i32 0, i64 16)
  %b = call spir_func target("spirv.CooperativeMatrixKHR", half, 3, 16, 16, 1) @_Z32__spirv_CooperativeMatrixLoadKHRIDhLi3ELi16ELi16ELi1EEvPU3AS1Dhim(ptr addrspace(1) %B, i32 1, i64 16)
  %d = call spir_func target("spirv.CooperativeMatrixKHR", float, 3, 8, 16, 2) @_Z34__spirv_CooperativeMatrixMulAddKHRIfLi3ELi8ELi16ELi2EDhLi3ELi8ELi16ELi0EDhLi3ELi16ELi16ELi1EfLi3ELi8ELi16ELi2EEvi(target("spirv.CooperativeMatrixKHR", half, 3, 8, 16, 0) %a, target("spirv.CooperativeMatrixKHR", half, 3, 16, 16, 1) %b, target("spirv.CooperativeMatrixKHR", float, 3, 8, 16, 2) %c, i32 0)
  store target("spirv.CooperativeMatrixKHR", float, 3, 8, 16, 2) %d, ptr %slot
  %n = call spir_func i32 @_Z34__spirv_CooperativeMatrixLengthKHRIfLi3ELi8ELi16ELi2EEv(target("spirv.CooperativeMatrixKHR", float, 3, 8, 16, 2) %d)
  %p0 = call spir_func ptr @_Z19__spirv_AccessChainIfLi3ELi8ELi16ELi2EEvPfm(ptr %slot, i64 1)
  %x = load float, ptr %p0
  %x2 = fadd float %x, 1000.0
  store float %x2, ptr %p0
  %d2 = load target("spirv.CooperativeMatrixKHR", float, 3, 8, 16, 2), ptr %slot
  call spir_func void @_Z33__spirv_CooperativeMatrixStoreKHRIfLi3ELi8ELi16ELi2EEvPU3AS1fim(ptr addrspace(1) %C, target("spirv.CooperativeMatrixKHR", float, 3, 8, 16, 2) %d2, i32 0, i64 16)
  %gid = call spir_func i64 @_Z13get_global_idj(i32 0)
  %lp = getelementptr inbounds i32, ptr addrspace(1) %L, i64 %gid
  store i32 %n, ptr addrspace(1) %lp
  ret void
}
"""

DIVERGENT_LOAD_IR = """\
target datalayout = "e-i64:64-v16:16-v24:32-v32:32-v48:64-v96:128-v192:256-v256:256-v512:512-v1024:1024-n8:16:32:64-G1"
target triple = "spir64-unknown-unknown"

declare spir_func target("spirv.CooperativeMatrixKHR", float, 3, 8, 16, 2) @_Z32__spirv_CooperativeMatrixLoadKHRIfLi3ELi8ELi16ELi2EEvPU3AS1fim(ptr addrspace(1), i32, i64)
declare spir_func void @_Z33__spirv_CooperativeMatrixStoreKHRIfLi3ELi8ELi16ELi2EEvPU3AS1fim(ptr addrspace(1), target("spirv.CooperativeMatrixKHR", float, 3, 8, 16, 2), i32, i64)
declare spir_func i64 @_Z13get_global_idj(i32)

define spir_kernel void @k(ptr addrspace(1) %C, i64 %lim) {
entry:
  %gid = call spir_func i64 @_Z13get_global_idj(i32 0)
  %ok = icmp ult i64 %gid, %lim
  br i1 %ok, label %then, label %done
then:
  %c = call spir_func target("spirv.CooperativeMatrixKHR", float, 3, 8, 16, 2) @_Z32__spirv_CooperativeMatrixLoadKHRIfLi3ELi8ELi16ELi2EEvPU3AS1fim(ptr addrspace(1) %C, i32 0, i64 16)
  %off = mul i64 %gid, 0
  %tile = getelementptr inbounds float, ptr addrspace(1) %C, i64 128
  call spir_func void @_Z33__spirv_CooperativeMatrixStoreKHRIfLi3ELi8ELi16ELi2EEvPU3AS1fim(ptr addrspace(1) %tile, target("spirv.CooperativeMatrixKHR", float, 3, 8, 16, 2) %c, i32 0, i64 16)
  br label %done
done:
  ret void
}
"""


def _program(ir_text):
    import clcoop
    return clcoop.Program.from_ir(ir_text)


def test_executor_gemm_length_and_access_chain():
    # half 8x16 (VNNI matrix_a) x half 16x16 (column-major B) + float C; then m[1] += 1000
    # through __spirv_AccessChain on the matrix's private slot, and coop_mat_length.
    prog = _program(GEMM_F16_ACCESS_CHAIN_IR)
    rng = np.random.default_rng(0)
    A = rng.standard_normal((8, 16)).astype(np.float16)
    B = rng.standard_normal((16, 16)).astype(np.float16)
    C = rng.standard_normal((8, 16)).astype(np.float32)
    lengths = np.zeros(16, np.int32)
    expected = A.astype(np.float32) @ B.astype(np.float32) + C
    layout = get_layout(8, 16, "accumulator", "float", 16)
    for p in range(16):
        expected[layout.row_col(p, 1)] += 1000
    prog.k((16,), (16,), A, np.ascontiguousarray(B.T), C, lengths, subgroup_size=16)
    np.testing.assert_allclose(C, expected, rtol=1e-6, atol=1e-6)
    np.testing.assert_array_equal(lengths, layout.length)


def test_executor_divergent_matrix_load_faults():
    from clcoop.errors import RuntimeFault as Fault
    prog = _program(DIVERGENT_LOAD_IR)
    C = np.arange(512, dtype=np.float32)
    prog.k((32,), (32,), C, np.int64(16), subgroup_size=16)     # sub-group 0 only: fine
    np.testing.assert_array_equal(C[128:256], np.arange(128))
    with pytest.raises(Fault, match=r"(?s)only part of sub-group 1.*global id \(16\)"):
        prog.k((32,), (32,), C, np.int64(20), subgroup_size=16)
    with pytest.raises(Fault, match="not a multiple of the sub-group size"):
        prog.k((24,), (24,), C, np.int64(100), subgroup_size=16)
    with pytest.raises(Fault, match="out-of-bounds write"):
        prog.k((32,), (32,), np.zeros(200, np.float32), np.int64(16), subgroup_size=16)


@pytest.mark.parametrize("matrices, message", [
    ([mat("f", 8, 16, 2), mat("Dh", 8, 16, 0), mat("Dh", 8, 16, 1), mat("f", 8, 16, 2)],
     "incompatible shapes"),
    ([mat("f", 8, 16, 2), mat("Dh", 8, 16, 2), mat("Dh", 16, 16, 1), mat("f", 8, 16, 2)],
     "must have 'CLK_COOPERATIVE_MATRIX_A' use"),
    ([mat("i", 8, 16, 2), mat("c", 8, 16, 0), mat("Dh", 16, 16, 1), mat("i", 8, 16, 2)],
     "inconsistent cooperative matrix element types")])
def test_mul_add_types_named_by_the_callee_follow_the_spec_rule(matrices, message):
    """The matrix types a mul-add callee names are checked by coopmat_spec.mul_add_problem
    (the rule the compiler applies) before any matrix is read."""
    ctx = FakeCtx(16, 16)
    with pytest.raises(RuntimeFault, match=message):
        execute_coop_call(ctx, name(MULADD, matrices, "i"), [None, None, None, 0], None)
    assert "MulAddKHR" in ctx.faults[-1][0]


def wg_mat(code, rows, cols, use):
    return f"{code}Li2ELi{rows}ELi{cols}ELi{use}E"


def test_workgroup_scope_load_store_over_whole_work_groups():
    """Scope 2: each work-group of W = 24 lanes (one and a half subgroups of 16) holds one
    20 x 6 matrix, loaded and stored through its logical form."""
    W, groups = 24, 2
    ctx = FakeCtx(W * groups, subgroup_size=16, work_group_size=W)
    data = np.arange(groups * 120, dtype=np.float32).reshape(groups, 20, 6)
    base = ctx.memory.put(4096, data)
    pointer = np.repeat(base + np.arange(groups) * 480, W)
    loaded = execute_coop_call(ctx, name(LOAD, [wg_mat("f", 20, 6, 2)], "PU3AS1fim"),
                               [pointer, np.int32(0), np.int64(6)], None)
    layout = get_workgroup_layout(20, 6, 2, "float", 16, W)
    assert np.asarray(loaded).shape == (W * groups, layout.length)
    np.testing.assert_array_equal(np.asarray(loaded).reshape(groups, W, -1),
                                  layout.to_work_items(data))
    out = ctx.memory.put(1 << 16, np.zeros_like(data))
    execute_coop_call(ctx, name(STORE, [wg_mat("f", 20, 6, 2)], "PU3AS1fim"),
                      [np.repeat(out + np.arange(groups) * 480, W), loaded, np.int32(0),
                       np.int64(6)], None)
    np.testing.assert_array_equal(ctx.memory.get(out, np.float32, data.shape), data)


def test_mixed_scopes_in_one_call_fault():
    """Foreign IR may name matrices of both scopes in one mul-add: a located fault."""
    ctx = FakeCtx(32, subgroup_size=16, work_group_size=32)
    callee = name(MULADD, [wg_mat("f", 8, 8, 2), mat("f", 8, 8, 0), wg_mat("f", 8, 8, 1),
                           wg_mat("f", 8, 8, 2)], "")
    zero = np.float32(0)
    with pytest.raises(RuntimeFault, match="mixes matrices of different scopes "
                                           r"\(Workgroup, Subgroup\)"):
        execute_coop_call(ctx, callee, [zero, zero, zero], None)
