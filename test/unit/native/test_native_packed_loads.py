"""Padded copies of read-only matrix operands (clcoop/native/packed_loads.py; docs/native.md,
"Packed loads"): a fast-path matrix load from a buffer the launch cannot write, whose stride
is a multiple of 4 KiB, reads its rows from a copy with a pad after each row. Results must
be bit-equal to the interpreter's (the oracle), faults worded as the interpreter's from the
original addresses, and buffers the launch may write are never copied."""
import os
import re

import numpy as np
import pytest

import clcoop
from clcoop.native import packed_loads

HEADER = """
#pragma OPENCL EXTENSION cl_khr_cooperative_matrix : enable
typedef float mat_a __attribute__((coop_mat(CLK_COOPERATIVE_MATRIX_SCOPE_SUBGROUP, 8, 16, CLK_COOPERATIVE_MATRIX_A)));
typedef float mat_b __attribute__((coop_mat(CLK_COOPERATIVE_MATRIX_SCOPE_SUBGROUP, 16, 16, CLK_COOPERATIVE_MATRIX_B)));
typedef float mat_c __attribute__((coop_mat(CLK_COOPERATIVE_MATRIX_SCOPE_SUBGROUP, 8, 16, CLK_COOPERATIVE_MATRIX_ACCUMULATOR)));
"""

# C (rows x 16 * tiles, leading dimension ldc) = A (K columns) times the K x (16 * tiles)
# window of B starting at column col0, B's leading dimension ldb. D is never written: a
# non-const parameter, so an array passed as D is one the launch may write.
WINDOW = HEADER + """
__kernel void window(__global const float *A, __global const float *B, __global float *C,
                     __global float *D, int K, int ldb, int col0, int ldc) {
    size_t tile_col = get_global_id(0) / get_sub_group_size();
    size_t tile_row = get_global_id(1);
    mat_c acc = coop_mat_init(0.0f);
    for (int k = 0; k < K; k += 16) {
        mat_a a = coop_mat_load(A + tile_row * 8 * K + k, CLK_COOPERATIVE_MATRIX_LAYOUT_ROW_MAJOR, (size_t)K);
        mat_b b = coop_mat_load(B + (size_t)k * ldb + col0 + tile_col * 16, CLK_COOPERATIVE_MATRIX_LAYOUT_ROW_MAJOR,
                                (size_t)ldb);
        acc = coop_mat_mulAdd(a, b, acc);
    }
    coop_mat_store(C + tile_row * 8 * ldc + tile_col * 16, acc, CLK_COOPERATIVE_MATRIX_LAYOUT_ROW_MAJOR, (size_t)ldc);
}
"""

# Loads B, then stores the product into B's rows below the first K: B is written.
IN_PLACE = HEADER + """
__kernel void in_place(__global const float *A, __global float *B, int K, int ldb) {
    size_t tile_col = get_global_id(0) / get_sub_group_size();
    size_t tile_row = get_global_id(1);
    mat_c acc = coop_mat_init(0.0f);
    for (int k = 0; k < K; k += 16) {
        mat_a a = coop_mat_load(A + tile_row * 8 * K + k, CLK_COOPERATIVE_MATRIX_LAYOUT_ROW_MAJOR, (size_t)K);
        mat_b b = coop_mat_load(B + (size_t)k * ldb + tile_col * 16, CLK_COOPERATIVE_MATRIX_LAYOUT_ROW_MAJOR,
                                (size_t)ldb);
        acc = coop_mat_mulAdd(a, b, acc);
    }
    coop_mat_store(B + (size_t)(K + tile_row * 8) * ldb + tile_col * 16, acc,
                   CLK_COOPERATIVE_MATRIX_LAYOUT_ROW_MAJOR, (size_t)ldb);
}
"""

LDB = 1024            # 4 KiB rows: a stride the copy is made for
TILES = LDB // 16     # tile columns (work-groups per row of tiles)


def operands(K, rows=16, extra_rows=1, seed=0):
    rng = np.random.default_rng(seed)
    a = rng.standard_normal((rows, K)).astype(np.float32)
    b = rng.standard_normal((K + extra_rows, LDB)).astype(np.float32)
    return a, b


def run_window(prog, a, b, c, d, K, col0, ldb=LDB):
    rows = a.shape[0]
    prog.window((TILES * 16, rows // 8), (16, 1), a, b, c, d, K, ldb, col0, c.shape[1], subgroup_size=16)


def expected_window(a, b, K, col0):
    """NumPy: the window of B read as the kernel's loads read it (a row's tile may run into
    the next row: the flat buffer)."""
    flat = b.reshape(-1)
    rows = np.stack([flat[k * LDB + col0:k * LDB + col0 + TILES * 16] for k in range(K)])
    return a @ rows


@pytest.mark.parametrize("col0", [0, 8], ids=["aligned", "tiles-past-the-row-end"])
def test_read_only_operand_is_read_from_the_padded_copy_bit_equal(col0, shared_builds):
    """B (4 KiB rows, read-only) is copied; with col0 = 8 the last tile of each row reads
    8 elements of the next row, which the copy holds in its pad."""
    K = 48
    a, b = operands(K)
    results = {}
    for engine in ("native", "interp"):
        prog = shared_builds.build(WINDOW, engine)
        c = np.zeros((16, TILES * 16), np.float32)
        run_window(prog, a, b, c, np.zeros(1, np.float32), K, col0)
        results[engine] = c
        if engine == "native":
            native = prog._native
            assert native.execution_mode("window", 16) == "subgroup"
            assert native.packed_params["window"] == (1,)
    np.testing.assert_array_equal(results["native"], results["interp"])
    np.testing.assert_allclose(results["native"], expected_window(a, b, K, col0), rtol=1e-4, atol=1e-4)


def test_copy_is_made_afresh_at_each_launch(shared_builds):
    """A launch repeated with the same arrays (its cached plan) reads B as it is now."""
    K = 32
    a, b = operands(K)
    prog = shared_builds.build(WINDOW, "native")
    c = np.zeros((16, TILES * 16), np.float32)
    d = np.zeros(1, np.float32)
    run_window(prog, a, b, c, d, K, 0)
    first = c.copy()
    b *= 2
    run_window(prog, a, b, c, d, K, 0)
    assert prog._native.packed_params["window"] == (1,)
    np.testing.assert_array_equal(c, 2 * first)
    np.testing.assert_allclose(c, expected_window(a, b, K, 0), rtol=1e-4, atol=1e-4)


def test_an_array_the_launch_may_write_is_not_copied(shared_builds):
    """B passed again as the non-const D: the launch may write that array, so it is read
    where it is (and the results are the interpreter's)."""
    K = 32
    a, b = operands(K)
    results = {}
    for engine in ("native", "interp"):
        prog = shared_builds.build(WINDOW, engine)
        bb = b.copy()
        c = np.zeros((16, TILES * 16), np.float32)
        run_window(prog, a, bb, c, bb, K, 0)
        results[engine] = c
        if engine == "native":
            assert prog._native.packed_params["window"] == ()
    np.testing.assert_array_equal(results["native"], results["interp"])


def test_a_kernel_writing_the_buffer_it_reads_is_not_copied(shared_builds):
    K = 32
    rows = 16
    a, _ = operands(K, rows)
    b = np.random.default_rng(3).standard_normal((K + rows, LDB)).astype(np.float32)
    results = {}
    for engine in ("native", "interp"):
        prog = shared_builds.build(IN_PLACE, engine)
        bb = b.copy()
        prog.in_place((TILES * 16, rows // 8), (16, 1), a, bb, K, LDB, subgroup_size=16)
        results[engine] = bb
        if engine == "native":
            assert prog._native.execution_mode("in_place", 16) == "subgroup"
            assert prog._native.packed_params["in_place"] == ()
    np.testing.assert_array_equal(results["native"], results["interp"])
    np.testing.assert_allclose(results["native"][K:], a @ b[:K], rtol=1e-4, atol=1e-4)


def test_other_strides_are_read_in_place(shared_builds):
    """A leading dimension of 1000 floats (not a multiple of 4 KiB): no copy."""
    K = 32
    rng = np.random.default_rng(5)
    a = rng.standard_normal((16, K)).astype(np.float32)
    b = rng.standard_normal((K + 1, LDB)).astype(np.float32)
    prog = shared_builds.build(WINDOW, "native")
    c = np.zeros((16, TILES * 16), np.float32)
    prog.window(((1000 // 16) * 16, 2), (16, 1), a, b, c, np.zeros(1, np.float32), K, 1000, 0, c.shape[1],
                subgroup_size=16)
    assert prog._native.packed_params["window"] == ()


def fault_words(text):
    return [line.strip() for line in text.splitlines()
            if "work-item global id" in line or line.strip().startswith("buffer:") or "out-of-bounds" in line]


def test_out_of_bounds_load_faults_as_the_interpreter_from_the_original_addresses(shared_builds):
    """K = 48 over a B of 33 rows: the tile at k = 32 reads rows 32-47. The copy is made
    (read-only, 4 KiB rows) and the fault is the interpreter's, B untouched."""
    K = 48
    a, b = operands(K)
    b = b[:33].copy()
    texts = []
    for engine in ("native", "interp"):
        prog = shared_builds.build(WINDOW, engine)
        c = np.zeros((16, TILES * 16), np.float32)
        with pytest.raises(clcoop.RuntimeFault) as info:
            run_window(prog, a, b, c, np.zeros(1, np.float32), K, 0)
        texts.append(str(info.value))
        assert (c == 0).all()
        if engine == "native":
            assert prog._native.packed_params["window"] == (1,)
    assert fault_words(texts[0]) == fault_words(texts[1]) != []
    assert "'B'" in texts[0] or "buffer: B" in texts[0]


# ---------------------------------------------------------------- the pieces


@pytest.mark.parametrize("threads", [1, 2])
def test_copy_puts_the_next_rows_start_in_each_pad(threads):
    """LaunchPacks.add/refresh (ll/pack_rows.ll on the worker pool): row r of the copy is
    the source's bytes from r * stride, stride + pad of them where they exist."""
    rng = np.random.default_rng(threads)
    source = rng.integers(0, 256, 100 * 64 + 40, dtype=np.uint8)   # 100 rows of 64 bytes and a partial one
    stride, pad = 64, 32
    packs = packed_loads.LaunchPacks(3, threads)
    copy = packs.add(2, source, stride, pad)
    assert copy.shape == (101, stride + pad) and copy.ctypes.data % 64 == 0
    for _ in range(2):                       # made afresh from the source as it is now
        source += 1
        packs.refresh(threads)
        for r in range(101):
            part = source[r * stride:r * stride + stride + pad]
            np.testing.assert_array_equal(copy[r, :part.size], part)
    row = 2 * packed_loads.PACK_ROW_WORDS
    assert list(packs.table[row:row + 3]) == [copy.ctypes.data, stride, pad]
    assert packs.table[packed_loads.PACK_STRIDE] == -1       # parameter 0: no copy


def _vm_flags(address):
    """The VmFlags of the mapping of this process that holds `address` (/proc/self/smaps)."""
    inside = False
    for line in open("/proc/self/smaps"):
        head = re.match(r"([0-9a-f]+)-([0-9a-f]+) ", line)
        if head:
            inside = int(head.group(1), 16) <= address < int(head.group(2), 16)
        elif inside and line.startswith("VmFlags:"):
            return line.split()[1:]
    raise AssertionError(f"no mapping holds {address:#x}")


def test_large_copies_lie_in_memory_advised_for_huge_pages():
    """A copy of HUGE_PAGE_COPY_BYTES or more starts on a 2 MiB boundary, in memory advised
    for transparent huge pages (the 'hg' flag of its mapping) where the kernel has them: its
    rows lie a 4 KiB page or more apart, and 4 KiB pages overflowed the first-level TLB
    (packed_loads.copy_storage). Smaller copies stay ordinary arrays."""
    big = packed_loads.HUGE_PAGE_COPY_BYTES
    storage = packed_loads.copy_storage(big + 1000)
    assert storage.size == big + 1000 and storage.dtype == np.uint8
    linux = hasattr(packed_loads.mmap, "MADV_HUGEPAGE")
    if linux:
        assert storage.ctypes.data % packed_loads.HUGE_PAGE == 0
        storage[:] = 7                                   # writable, private memory
        # (madvise(MADV_HUGEPAGE) fails on a kernel built without them: 4 KiB pages then.)
        has_thp = os.path.exists("/sys/kernel/mm/transparent_hugepage/enabled")
        assert ("hg" in _vm_flags(storage.ctypes.data)) == has_thp
    # The launch's copy (LaunchPacks.add) is made there: a B panel of 512 rows of 2 KiB.
    source = np.arange(512 * 2048, dtype=np.uint8)
    packs = packed_loads.LaunchPacks(1, 1)
    copy = packs.add(0, source, 2048, 64)
    if linux:
        assert copy.ctypes.data % packed_loads.HUGE_PAGE == 0
    packs.refresh(1)
    np.testing.assert_array_equal(copy[:-1, :2048], source.reshape(512, 2048)[:-1])
    small = packed_loads.copy_storage(4096)
    assert small.size == 4096


def parse_stride(ir_body, params="i32 %n, i64 %m"):
    import llvmlite.binding as llvm
    module = llvm.parse_assembly(f"define i64 @f({params}) {{\n{ir_body}\n}}")
    f = module.get_function("f")
    defs = {i.name: i for b in f.blocks for i in b.instructions if i.name}
    index = {a.name: k for k, a in enumerate(f.arguments)}
    ret = [i for b in f.blocks for i in b.instructions if i.opcode == "ret"][0]
    value = list(ret.operands)[0]
    return packed_loads.stride_expression(value, lambda a: index.get(a.name), lambda v: defs.get(v.name))


@pytest.mark.parametrize("body,args,expect", [
    ("%s = sext i32 %n to i64\nret i64 %s", (-2, 0), -2),
    ("%s = zext i32 %n to i64\nret i64 %s", (-2, 0), (1 << 32) - 2),
    ("%s = sext i32 %n to i64\n%t = shl i64 %s, 2\n%u = add i64 %t, %m\nret i64 %u", (1024, 16), 4112),
    ("%t = trunc i64 %m to i32\n%u = mul i32 %t, 3\n%s = sext i32 %u to i64\nret i64 %s", (0, (1 << 32) + 5), 15),
    ("%s = sub i64 %m, 1\nret i64 %s", (0, 0), -1),
])
def test_stride_expressions_evaluate_as_the_ir(body, args, expect):
    tree = parse_stride(body)
    assert packed_loads.evaluate(tree, [np.int32(args[0]), np.int64(args[1])]) == expect


def test_strides_from_anything_but_arguments_and_constants_are_not_followed():
    assert parse_stride("%s = load i64, ptr %p\nret i64 %s", "ptr %p") is None
    assert parse_stride("%s = udiv i64 %m, 3\nret i64 %s") is None


def test_pack_rows_ll_parses_with_the_job_layout_written_in():
    import llvmlite.binding as llvm
    from clcoop.native import fixed_ir
    from clcoop.native.jit import ensure_llvm
    ensure_llvm()
    assert {"J_SOURCE", "J_COPY", "J_STRIDE", "J_WIDTH", "J_ROWS", "J_SIZE", "J_COUNTER", "PACK_CHUNK"} == \
        fixed_ir.placeholders("pack_rows.ll")
    module = llvm.parse_assembly(fixed_ir.load("pack_rows.ll", vars(packed_loads)))
    module.verify()
    assert not module.get_function("clcoop_pack_rows").is_declaration


@pytest.mark.parametrize("floats,rows,expect", [
    (1024, 16, True), (2048, 2048, True), (3072, 4, True),      # a multiple of 4 KiB: one L1 set
    (512, 512, True), (512, 16, False), (1536, 512, True),      # 2 L1 sets of 8 ways: 16 rows
    (1536, 1536, True),                                         # and 64 L2 sets of 8 ways: 512 rows
    (512, 2048, True), (1000, 100000, False), (1040, 4096, False), (1008, 4096, False)])
def test_conflicting_strides(floats, rows, expect):
    assert packed_loads.conflicting(4 * floats, rows) is expect


def test_a_constant_stride_is_its_signed_value():
    assert packed_loads.evaluate(parse_stride("ret i64 -8"), [0, 0]) == -8
    assert packed_loads.evaluate(parse_stride("%s = sext i32 -8 to i64\nret i64 %s"), [0, 0]) == -8


@pytest.mark.parametrize("stride", [64, 4096, 6144, 8256, 12345, (1 << 32) - 1])
def test_magic_gives_the_row_of_every_offset(stride):
    """The generated load's row, (off * magic) >> 64, is off // stride for offsets below
    2^32 (the copied buffers' sizes)."""
    rng = np.random.default_rng(stride)
    m = packed_loads.magic(stride)
    assert 0 < m < 1 << 64
    for off in [0, 1, stride - 1, stride, stride + 1, (1 << 32) - 1, *rng.integers(0, 1 << 32, 2000).tolist()]:
        assert (off * m) >> 64 == off // stride


def _function_blocks(ir_text, name):
    """The basic blocks of function @name in LLVM IR text: [(label, lines)], entry first."""
    lines = ir_text.splitlines()
    start = next(i for i, line in enumerate(lines) if line.startswith("define") and f"@{name}(" in line)
    blocks = [("entry", [])]
    for line in lines[start + 1:]:
        if line.startswith("}"):
            break
        label = re.match(r"^([\w.$-]+):", line)
        if label:
            blocks.append((label.group(1), []))
        elif line.strip():
            blocks[-1][1].append(line)
    return blocks


def test_the_loads_table_reads_are_hoisted_out_of_the_kernels_loop(shared_builds):
    """The region table's rows and the packed copies' descriptors do not change while a
    kernel runs (matrix_tiles.INVARIANT): LLVM loads them once before the K loop, not in
    every step, where they lengthened the chain from a step's start to its first FMA."""
    prog = shared_builds.build(WINDOW, "native")
    blocks = _function_blocks(prog._native.engine.optimized_ir, "window.sg")
    # The K loop: from the block of the accumulator's phi to the last block branching back to it.
    head = next(i for i, (_, body) in enumerate(blocks) if any("phi <128 x float>" in x for x in body))
    label = blocks[head][0]
    latch = max(i for i, (_, body) in enumerate(blocks) if any(f"label %{label}" in x for x in body[-1:]))
    loop = [x for _, body in blocks[head:latch + 1] for x in body]
    assert any("llvm.fma.v16f32" in x for x in loop)
    table_reads = [x for x in loop if re.search(r"%\S*\.(span\.(t|rlo|rhi|rw)|pk\.(t|copy|for|pad|magic)|sc)"
                                                r"(\.pre)?\d* = load", x)]
    assert table_reads == []
