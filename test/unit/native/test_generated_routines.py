"""The matrix routines the native engine builds with llvmlite.ir (rendezvous_ir.py's skeleton,
coop_routines.py, tensor_routines.py), each verified by LLVM and run alone (without a kernel
or driver around it, generated_functions.compile_definition) against an independent oracle:
NumPy's matrix and the interpreter's layout and tensor addressing (clcoop/interp/tensor.py)."""
import types

import numpy as np
import pytest

from clcoop.coopmat_spec import ClampMode
from clcoop.interp import tensor
from clcoop.native import coop_routines, irbuild, tensor_routines
from clcoop.native.context import CTX, CTX_SLOTS, FAULT_COOP
from clcoop.native.tensor_routines import CLIPPED, CONSTANT, FAULT, VALID
from clcoop.tensor_spec import TensorType
from generated_functions import compile_definition

# The runtime functions a routine calls (ll/runtime.ll), as stubs that record the fault in
# the context slots runtime.py reads, and check nothing (the routines decide what to check).
_STUBS = [f"""define internal void @__clcoop_fault(ptr %c, i32 %site, i32 %kind, i64 %addr, i64 %size) {{
  %f = getelementptr i64, ptr %c, i64 {CTX['fault']}
  store i64 1, ptr %f
  %k = getelementptr i64, ptr %c, i64 {CTX['fault_kind']}
  %k64 = zext i32 %kind to i64
  store i64 %k64, ptr %k
  %a = getelementptr i64, ptr %c, i64 {CTX['fault_addr']}
  store i64 %addr, ptr %a
  %s = getelementptr i64, ptr %c, i64 {CTX['fault_size']}
  store i64 %size, ptr %s
  ret void
}}""", """define internal void @__clcoop_fault_in(ptr %c, i32 %site, i32 %kind, i64 %addr, i64 %size, i64 %region) {
  call void @__clcoop_fault(ptr %c, i32 %site, i32 %kind, i64 %addr, i64 %size)
  ret void
}""", """define internal i64 @__clcoop_region_of(ptr %c, ptr %p) {
  ret i64 0
}""", """define internal ptr @__clcoop_chk_in(ptr %c, ptr %p, ptr %root, i64 %code, i64 %n, i64 %al, i32 %site, i32 %kind, i1 %w) {
  ret ptr %p
}"""]


def _span_stub(ok):
    return f"""define internal i1 @__clcoop_span_ok(ptr %c, i64 %lo, i64 %hi, i64 %al, i1 %w) {{
  ret i1 {'true' if ok else 'false'}
}}"""


def _load_routine(mt, layout, fast):
    """The subgroup load of `mt` run alone: f(contexts, first, count) -> faulted."""
    coop = coop_routines.CoopModule(mt.group_size)
    definition = coop_routines._memory_function("load", 7, mt, layout, coop.table(mt), load=True)
    return compile_definition(definition, "load", "i1", ["i64", "i64"],
                              extra=list(coop.tables.values()) + _STUBS + [_span_stub(fast)])


def _contexts(S, **slots):
    ctxs = np.zeros((S, CTX_SLOTS), np.int64)
    for name, values in slots.items():
        ctxs[:, CTX[name]] = values
    return ctxs


@pytest.mark.parametrize("layout", [0, 1])
@pytest.mark.parametrize("fast", [True, False])
@pytest.mark.parametrize("rows, cols, use", [(8, 16, 0), (16, 8, 1), (8, 8, 2)])
def test_matrix_load_routine_gathers_each_work_items_components(rows, cols, use, layout, fast):
    """_memory_function (a load): each work-item's spill holds, component by component,
    the element (row, col) the layout table gives it, read from a row- or column-major
    matrix with a stride past its width, padding 0; through the span's fast path and the
    checked path alike."""
    S = 8
    mt = coop_routines.matrix_type(f'target("spirv.CooperativeMatrixKHR", i32, 3, {rows}, {cols}, {use})', S)
    stride = (cols if layout == 0 else rows) + 3
    memory = np.arange(stride * max(rows, cols) * 2, dtype=np.int32) * 7 + 1
    spills = np.full((S, mt.length), -5, np.int32)
    ctxs = _contexts(S, coop0=memory.ctypes.data, coop1=layout, coop2=stride,
                     coop3=[spills[j].ctypes.data for j in range(S)])
    run = _wrapper_run(_load_routine(mt, layout, fast))
    assert run(ctxs, 0, S) == 0 and not ctxs[:, CTX["fault"]].any()
    index = np.asarray(mt.layout.index)
    row, col = index // cols, index % cols
    offset = row * stride + col if layout == 0 else col * stride + row
    want = np.where(index >= 0, memory[np.where(index >= 0, offset, 0)], 0)
    assert np.array_equal(spills, want)


@pytest.mark.parametrize("slot, code", [("coop0", coop_routines.NON_UNIFORM_POINTER),
                                        ("coop2", coop_routines.NON_UNIFORM_STRIDE)])
def test_matrix_load_routine_faults_on_a_non_uniform_operand(slot, code):
    """A load whose pointer or stride differs in work-item 5: the fault of work-item 5,
    FAULT_COOP with the operand's sub-code, its value and the first work-item's; partial
    subgroups fault with their count; a negative stride faults with it."""
    S = 8
    mt = coop_routines.matrix_type('target("spirv.CooperativeMatrixKHR", float, 3, 8, 8, 0)', S)
    memory = np.zeros(256, np.float32)
    spills = np.zeros((S, mt.length), np.float32)
    values = {"coop0": memory.ctypes.data, "coop2": 8}
    ctxs = _contexts(S, coop0=values["coop0"], coop1=0, coop2=values["coop2"],
                     coop3=[spills[j].ctypes.data for j in range(S)])
    ctxs[5, CTX[slot]] += 4
    routine = coop_routines._memory_function("load", 7, mt, 0, "@t", load=True)
    assert "define internal i1 @\"load\"" in routine and "noinline" in routine
    f = _load_routine(mt, 0, True)
    run = _wrapper_run(f)
    assert run(ctxs, 0, S) == 1
    assert ctxs[5, CTX["fault"]] == 1 and ctxs[5, CTX["fault_kind"]] == FAULT_COOP
    assert (ctxs[5, CTX["fault_addr"]], ctxs[5, CTX["fault_size"]]) == (code, values[slot] + 4)
    assert not ctxs[np.arange(S) != 5, CTX["fault"]].any()
    ctxs[:, CTX["fault"]] = 0
    ctxs[5, CTX[slot]] -= 4
    assert run(ctxs, 0, S - 1) == 1
    assert (ctxs[0, CTX["fault_addr"]], ctxs[0, CTX["fault_size"]]) == (coop_routines.PARTIAL_SUBGROUP, S - 1)
    ctxs[:, CTX["fault"]] = 0
    ctxs[:, CTX["coop2"]] = -1
    assert run(ctxs, 0, S) == 1
    assert (ctxs[0, CTX["fault_addr"]], ctxs[0, CTX["fault_size"]]) == (coop_routines.NEGATIVE_LOAD_STRIDE, -1)
    ctxs[:, CTX["fault"]] = 0
    ctxs[:, CTX["coop2"]] = 8
    assert run(ctxs, 0, S) == 0


def _wrapper_run(f):
    """run(contexts, first, count) -> the routine's i1 (generated_functions' wrapper passes
    the contexts array as its context pointer)."""
    import ctypes
    run = ctypes.CFUNCTYPE(None, ctypes.c_void_p, ctypes.c_void_p, ctypes.c_void_p)(f.engine.address("run"))

    def call(ctxs, first, count):
        args = np.zeros(16, np.int64)
        args[0], args[8] = first, count
        out = np.zeros(8, np.uint8)
        run(args.ctypes.data, out.ctypes.data, ctxs.ctypes.data)
        return int(out[0] & 1)
    call.engine = f.engine      # the compiled code lives as long as the function
    return call


_OPERATIONS = tensor_routines.FLOOR_HELPERS_IR


def _fields_of(obj, spec):
    """The native `<F x i64>` fields of an interpreter layout or view (tensor_routines._fields)."""
    if spec.is_layout:
        values = [*obj.dimension, *obj.stride, *obj.offset, *obj.span, *obj.block_size, obj.clamp_value]
    else:
        values = [*obj.dimension, *obj.stride, *obj.clip]
    return np.array([int(v) for v in values], np.int64)


def _operation(spec, operation, count, ctx=None):
    """The native helper of one layout/view operation run alone (LLVM-verified):
    f(fields, *operands) -> fields."""
    import ctypes
    import llvmlite.binding as llvm
    from clcoop.native import jit
    name = f"__clcoop_tensor_op.{operation}"
    V = f"<{spec.field_count} x i64>"
    operands = "".join(f"  %p{k} = getelementptr i32, ptr %ops, i64 {k}\n  %a{k} = load i32, ptr %p{k}\n"
                       for k in range(count))
    args = "".join(f", i32 %a{k}" for k in range(count))
    wrapper = (f"define void @run(ptr %in, ptr %out, ptr %ops, ptr %ctx) {{\n  %t = load {V}, ptr %in, align 8\n"
               f"{operands}  %r = call {V} @\"{name}\"(ptr %ctx, i32 0, {V} %t{args})\n"
               f"  store {V} %r, ptr %out, align 8\n  ret void\n}}")
    text = irbuild.loop_metadata("\n".join([tensor_routines._operation_ir(name, spec, operation, count), _OPERATIONS,
                                            coop_routines.COOP_FAULT_IF_IR, _STUBS[0], wrapper]) + "\n")
    jit.ensure_llvm()
    llvm.parse_assembly(text).verify()
    engine = jit.Engine(text)
    run = ctypes.CFUNCTYPE(None, *[ctypes.c_void_p] * 4)(engine.address("run"))
    ctx = np.zeros(CTX_SLOTS, np.int64) if ctx is None else ctx

    def call(fields, *values):
        fields = np.ascontiguousarray(fields, np.int64)
        out = np.zeros(spec.field_count, np.int64)
        ops = np.array(values, np.uint64).astype(np.uint32)
        run(fields.ctypes.data, out.ctypes.data, ops.ctypes.data, ctx.ctypes.data)
        return out
    call.engine = engine
    return call


@pytest.mark.parametrize("dims", [2, 3])
def test_tensor_layout_operations_match_the_interpreter(dims):
    """Each layout operation's helper (set_dimension with block sizes: ceil divisions;
    slice: 32-bit signed offsets wrapping; set_stride; set_clamp_value) gives the
    interpreter's TensorLayout fields, on values up to 2^32 - 1."""
    spec = TensorType.layout(dims, int(ClampMode.CONSTANT))
    layout = tensor.TensorLayout.create(dims, ClampMode.CONSTANT)
    fields = _fields_of(layout, spec)
    rng = np.random.default_rng(dims)
    steps = [("coop_tensor_layout_set_block_size", "set_block_size", [3, 1, 7][:dims]),
             ("coop_tensor_layout_set_dimension", "set_dimension", [1000, 4294967295, 17][:dims]),
             ("coop_tensor_layout_slice", "slice", [v for d in range(dims) for v in (2147483647, 5 + d)]),
             ("coop_tensor_layout_slice", "slice", [v for d in range(dims) for v in (int(rng.integers(0, 1 << 32)), 9)]),
             ("coop_tensor_layout_set_stride", "set_stride", [4294967295, 12, 1][:dims]),
             ("coop_tensor_layout_set_clamp_value", "set_clamp_value", [0xBF800000])]
    for operation, method, operands in steps:
        fields = _operation(spec, operation, len(operands))(fields, *operands)
        layout = getattr(layout, method)(*[int(np.int32(np.uint32(v))) if method == "slice" and k % 2 == 0 else v
                                           for k, v in enumerate(operands)])
        assert fields.tolist() == _fields_of(layout, spec).tolist(), operation


def test_tensor_view_operations_match_the_interpreter():
    spec = TensorType.view(3, True, (2, 0, 1))
    view = tensor.TensorView.create(3, True, (2, 0, 1))
    fields = _fields_of(view, spec)
    for operation, method, operands in [("coop_tensor_view_set_dimension", "set_dimension", [7, 4294967295, 3]),
                                        ("coop_tensor_view_set_stride", "set_stride", [1, 2, 4294967295]),
                                        ("coop_tensor_view_set_clip", "set_clip", [1, 5, 4294967295, 2])]:
        fields = _operation(spec, operation, len(operands))(fields, *operands)
        view = getattr(view, method)(*operands)
        assert fields.tolist() == _fields_of(view, spec).tolist(), operation


def test_tensor_block_size_zero_records_the_fault():
    """set_block_size with a 0: __clcoop_coop_fault_if records FAULT_COOP BLOCK_SIZE_ZERO."""
    spec = TensorType.layout(2, 0)
    ctx = np.zeros(CTX_SLOTS, np.int64)
    f = _operation(spec, "coop_tensor_layout_set_block_size", 2, ctx)
    f(np.zeros(spec.field_count, np.int64), 4, 1)
    assert ctx[CTX["fault"]] == 0
    f(np.zeros(spec.field_count, np.int64), 4, 0)
    assert (ctx[CTX["fault_kind"]], ctx[CTX["fault_addr"]]) == (FAULT_COOP, tensor_routines.BLOCK_SIZE_ZERO)


def _address(layout_spec, view_spec, cols):
    """The addressing function of a tensor access run alone: f(layout fields, view fields,
    row, col) -> (kind, out words)."""
    mode = ClampMode(layout_spec.clamp_mode)
    access = types.SimpleNamespace(layout=layout_spec, view=view_spec, mode=mode, mt=types.SimpleNamespace(cols=cols))
    definition = tensor_routines._address_function("addr", access)
    import ctypes
    f = compile_definition(definition, "addr", "i32", ["ptr", "i64", "i64", "ptr"], extra=[_OPERATIONS])
    run = ctypes.CFUNCTYPE(None, ctypes.c_void_p, ctypes.c_void_p, ctypes.c_void_p)(f.engine.address("run"))
    D = layout_spec.dims

    def call(layout_fields, view_fields, row, col):
        out = np.zeros(1 + 3 * D, np.int64)
        args = np.zeros(32, np.int64)
        args[0] = 0 if view_fields is None else view_fields.ctypes.data
        args[8], args[16], args[24] = row, col, out.ctypes.data
        result = np.zeros(8, np.int32)
        run(args.ctypes.data, result.ctypes.data, layout_fields.ctypes.data)
        return int(result[0]), out
    call.engine = f.engine
    return call


@pytest.mark.parametrize("mode", [ClampMode.UNDEFINED, ClampMode.CONSTANT, ClampMode.CLAMP_TO_EDGE,
                                  ClampMode.REPEAT, ClampMode.REPEAT_MIRRORED])
@pytest.mark.parametrize("view_kind", [None, "dimensions", "span"])
def test_tensor_addressing_matches_the_interpreter(mode, view_kind):
    """_address_function on every element of a 6 x 5 matrix: the element's kind (valid,
    constant, clipped, fault), its index, tensor and block coordinates as
    interp/tensor.tensor_addresses computes them, through a sliced, blocked layout, with
    no view, a permuted view with dimensions and a clipped one without."""
    rows, cols = 6, 5
    layout = tensor.TensorLayout.create(2, mode).set_block_size(2, 1).set_dimension(9, 7).slice(-2, 6, 3, 5)
    layout_spec = TensorType.layout(2, int(mode))
    view = view_spec = None
    if view_kind == "dimensions":
        view_spec = TensorType.view(2, True, (1, 0))
        view = tensor.TensorView.create(2, True, (1, 0)).set_dimension(5, 6).set_clip(1, 4, 0, 3)
    elif view_kind == "span":
        view_spec = TensorType.view(2, False, (0, 1))
        view = tensor.TensorView.create(2, False, (0, 1)).set_clip(0, 5, 1, 4)
    f = _address(layout_spec, view_spec, cols)
    want = tensor.tensor_addresses(layout, rows, cols, view)
    lf = _fields_of(layout, layout_spec)
    vf = None if view is None else _fields_of(view, view_spec)
    for r in range(rows):
        for c in range(cols):
            kind, out = f(lf, vf, r, c)
            expected = (VALID if want.valid[r, c] else CONSTANT if want.constant[r, c] else
                        CLIPPED if want.clipped[r, c] else FAULT)
            assert kind == expected, (r, c)
            if kind == VALID:
                assert out[0] == want.index[r, c], (r, c)
                assert out[3:5].tolist() == want.block_coord[r, c].tolist(), (r, c)
            if kind in (VALID, FAULT):
                assert out[1:3].tolist() == want.tensor_coord[r, c].tolist(), (r, c)


def test_irbuild_loop_blocks_and_opaque_pointers():
    """irbuild.for_range (a `continue` to the step block, the body leaving early), new_block
    and place, alloca and global_ref referred to as `ptr`, freeze: a function summing the
    even i < n from a table, stopping at a negative entry, run alone."""
    import llvmlite.ir as ir
    from clcoop.native import irbuild
    fn, b = irbuild.define("sum_even", irbuild.I64, [(irbuild.PTR, "c"), (irbuild.I64, "n")], inline=False)
    table = irbuild.global_ref(b, "__test_table", ir.ArrayType(irbuild.I64, 8))
    acc = irbuild.alloca(b, irbuild.I64, 8, "acc")
    b.store(ir.Constant(irbuild.I64, 0), acc)
    done = irbuild.new_block(b, "done")
    with irbuild.for_range(b, 0, fn.args[1], "i") as (i, step):
        with b.if_then(b.trunc(i, irbuild.I1, name="odd")):
            b.branch(step)
        entry = b.load(b.gep(table, [i], source_etype=irbuild.I64, name="p"), name="x", typ=irbuild.I64)
        with b.if_then(irbuild.icmp(b, "slt", entry, ir.Constant(irbuild.I64, 0), name="neg")):
            b.branch(done)
        b.store(b.add(b.load(acc, name="a", typ=irbuild.I64), entry, name="s"), acc)
    b.branch(done)
    irbuild.place(b, done)
    b.ret(irbuild.freeze(b, b.load(acc, name="r", typ=irbuild.I64), "out"))
    text = irbuild.function_text(fn)
    assert "ptr @\"__test_table\"" in text and "alloca i64, align 8" in text and "freeze i64" in text
    values = [5, 100, 7, 100, -1, 100, 9, 100]
    definition = "@__test_table = internal constant [8 x i64] [" + ", ".join(f"i64 {v}" for v in values) + "]"
    f = compile_definition(text, "sum_even", "i64", ["i64"], extra=[definition])
    got = f(np.array([0, 1, 2, 3, 4, 8], np.int64), out_dtype=np.int64)
    assert got.tolist() == [0, 5, 5, 12, 12, 12]


def test_a_refused_mul_add_routine_leaves_no_name_behind():
    """A mul-add the routine cannot compute is refused at every call site: the refusal at the
    first must not record a routine name that a later site then calls without a definition
    (that was an LLVM parse error, "use of undefined value '@__clcoop_mad.0'")."""
    from clcoop.native import coop_ir
    from clcoop.native.support import Unsupported
    coop = coop_routines.CoopModule(16)
    for _ in range(2):
        # bf16 x half: SPV_KHR_bfloat16 takes both factors bf16, so the routine refuses it.
        with pytest.raises(Unsupported, match="mul-add of bfloat x half"):
            coop.mul_add_routine(20, 12, 10, ("bfloat", "half", "float", "float"), 0)
    assert coop.routines == {} and coop.functions == []
