"""The native engine's fixed IR (clcoop/native/ll/*.ll, fixed_ir.py): each file, with the
layouts Python names written in, is a module LLVM accepts; every ${NAME} it uses is named
in Python; the layouts' words are distinct and fit their blocks."""
from importlib import resources

import llvmlite.binding as llvm
import pytest

from clcoop.native import context, fixed_ir, pool, runtime_ir
from clcoop.native.codegen import _private_row
from clcoop.native.jit import ensure_llvm

TRIPLES = ("x86_64-unknown-linux-gnu", "aarch64-unknown-linux-gnu", "riscv64-unknown-linux-gnu")


@pytest.mark.parametrize("triple", TRIPLES)
def test_pool_ll_parses_and_verifies_with_its_spin_hint(triple):
    ensure_llvm()
    text = pool.pool_ir(triple)
    assert "${" not in text
    mod = llvm.parse_assembly(text)
    mod.verify()
    defined = {f.name for f in mod.functions if not f.is_declaration}
    assert {"clcoop_pool_worker", "clcoop_launch", "clcoop_pool_wake", "clcoop_pool_stop"} <= defined
    hint = {"x86_64": "llvm.x86.sse2.pause", "aarch64": "llvm.aarch64.hint"}.get(triple.split("-")[0])
    assert (hint in text) if hint else ("llvm.x86" not in text and "llvm.aarch64" not in text)


def test_pool_ll_names_its_layout_words_and_writes_pool_py_values():
    names = fixed_ir.placeholders("pool.ll")
    assert {"GEN", "CLAIM", "B_TOTAL", "B_SLOTS", "LAUNCH_WORDS", "CALL_WORDS", "C_FAULT",
            "MUTEX_BYTES", "COND_BYTES"} <= names
    text = pool.pool_ir("x86_64-unknown-linux-gnu")
    # The launch block's calls table starts after LAUNCH_WORDS words, as launch_block lays it.
    assert f"%calls = getelementptr i64, ptr %block, i64 {pool.LAUNCH_WORDS}" in text
    assert f"%p3 = getelementptr i64, ptr %row, i64 {pool.C_FAULT}" in text


def test_load_refuses_a_name_python_does_not_define():
    with pytest.raises(KeyError, match=r"pool.ll: no value for \$\{GEN\}"):
        fixed_ir.load("pool.ll", {**{k: v for k, v in vars(pool).items() if k != "GEN"},
                                  "RELAX_DECLARATION": "", "RELAX": ""})
    with pytest.raises(TypeError, match="not a number or text"):
        fixed_ir.load("pool.ll", {**vars(pool), "GEN": 1.5, "RELAX_DECLARATION": "", "RELAX": ""})


def test_pool_layouts_are_distinct_words_inside_their_blocks():
    control = [pool.GEN, pool.CLAIM, pool.DONE, pool.SLEEPERS, pool.BUSY, pool.STOP, pool.DRIVER,
               pool.TOTAL, pool.NTHREADS, pool.CALLS, pool.SPIN, pool.SPIN_MIN, pool.SPIN_MAX, pool.CLOCK]
    assert sorted(control) == list(range(len(control)))
    assert len(control) * 8 <= pool.MUTEX_BYTES < pool.COND_BYTES < pool.CONTROL_WORDS * 8
    block = [pool.B_TOTAL, pool.B_NEXT_GROUP, pool.B_SCRATCH, pool.B_SCRATCH_BYTES,
             pool.B_ARENA_BYTES, pool.B_CHUNK_SLOT, pool.B_SLOTS]
    assert sorted(block) == list(range(pool.LAUNCH_WORDS))
    assert sorted([pool.C_ARGS, pool.C_TEMPLATE, pool.C_ARENA, pool.C_FAULT]) == list(range(pool.CALL_WORDS))


def test_launch_block_lays_out_the_block_and_each_threads_row():
    words = pool.launch_block(100, 1001, 1003, 64, 128, 7, [(11, 12, 13, 14), (21, 22, 23, 24)])
    assert len(words) == pool.LAUNCH_WORDS + 2 * pool.CALL_WORDS
    assert (words[pool.B_TOTAL], words[pool.B_NEXT_GROUP], words[pool.B_SCRATCH],
            words[pool.B_SCRATCH_BYTES], words[pool.B_ARENA_BYTES], words[pool.B_CHUNK_SLOT],
            words[pool.B_SLOTS]) == (100, 1001, 1003, 64, 128, 7, 2)
    second = words[pool.LAUNCH_WORDS + pool.CALL_WORDS:]
    assert (second[pool.C_ARGS], second[pool.C_TEMPLATE], second[pool.C_ARENA], second[pool.C_FAULT]) == \
        (21, 22, 23, 24)


def test_every_ll_file_of_the_package_is_loaded_by_a_module():
    files = sorted(p.name for p in resources.files("clcoop.native").joinpath("ll").iterdir()
                   if p.name.endswith(".ll"))
    assert files == ["check_cold.ll", "coroutine_frame.ll", "floor_division.ll", "interrupt.ll", "pack_rows.ll",
                     "pool.ll", "runtime.ll", "span_check.ll"]


def test_the_interrupt_handler_and_the_span_check_parse():
    from clcoop.native import coop_routines, interrupt
    ensure_llvm()
    handler = llvm.parse_assembly(interrupt._IR)
    handler.verify()
    assert not handler.get_function("clcoop_on_sigint").is_declaration
    assert fixed_ir.placeholders("interrupt.ll") == set()
    span = llvm.parse_assembly(coop_routines.SPAN_OK_IR)
    span.verify()
    assert {"REGION_ROW_WORDS", "REGION_LO", "REGION_HI", "REGION_FLAGS", "CTX.table", "CTX.table_count"} == \
        fixed_ir.placeholders("span_check.ll")


def test_runtime_ll_and_the_coroutine_frame_parse_with_a_private_table_as_codegen_writes_it():
    ensure_llvm()
    privates = (f"@__clcoop_privates = internal constant [2 x [{context.PRIVATE_ROW_WORDS} x i64]] "
                f"[{_private_row(16, 64, 96)}, {_private_row(0, 0, 0)}]\n"
                "@__clcoop_private_count = internal constant i64 1\n")
    decls = "declare ptr @aligned_alloc(i64, i64)\ndeclare void @free(ptr)\n"
    mod = llvm.parse_assembly(privates + decls + runtime_ir.RUNTIME_IR + runtime_ir.FRAME_IR)
    mod.verify()
    defined = {f.name for f in mod.functions if not f.is_declaration}
    assert {"__clcoop_chk", "__clcoop_chk_any", "__clcoop_poll", "__clcoop_fault_if", "__clcoop_table_row",
            "__clcoop_frame_alloc", "__clcoop_frame_free"} <= defined


def test_the_cold_check_is_one_out_of_line_call_of_the_runtime_check():
    """ll/check_cold.ll (masking.py's masked copies call it): links with runtime.ll, stays
    out of line (noinline cold) and is runtime.ll's check, arguments in order."""
    from clcoop.native import masking
    ensure_llvm()
    privates = (f"@__clcoop_privates = internal constant [1 x [{context.PRIVATE_ROW_WORDS} x i64]] "
                f"[{_private_row(0, 0, 0)}]\n@__clcoop_private_count = internal constant i64 0\n")
    mod = llvm.parse_assembly(privates + runtime_ir.RUNTIME_IR + masking.CHECK_COLD_IR)
    mod.verify()
    cold = mod.get_function("__clcoop_chk_cold")
    attributes = " ".join(a.decode() if isinstance(a, bytes) else a for a in cold.attributes).split()
    assert not cold.is_declaration and {"noinline", "cold"} <= set(attributes)
    calls = [str(i).strip() for b in cold.blocks for i in b.instructions if i.opcode == "call"]
    assert calls == ["%r = call ptr @__clcoop_chk(ptr %c, ptr %p, i64 %n, i64 %al, i32 %site, i32 %kind, "
                     "i64 %idx, i1 %w)"]
    assert fixed_ir.placeholders("check_cold.ll") == set()


def test_runtime_ll_reads_the_context_and_the_rows_through_context_py():
    names = fixed_ir.placeholders("runtime.ll")
    assert {"CTX.fault", "CTX.table", "CTX.table_count", "REGION_ROW_WORDS", "REGION_LO", "REGION_HI",
            "REGION_FLAGS", "PRIVATE_ROW_WORDS", "PRIVATE_OFFSET", "PRIVATE_SIZE", "PRIVATE_LIVE"} <= names
    assert {"CTX.frame_cap", "CTX.frame_need"} <= fixed_ir.placeholders("coroutine_frame.ll")
    text = runtime_ir.RUNTIME_IR
    assert f"%tp = getelementptr i64, ptr %c, i64 {context.CTX['table']}" in text
    assert f"%i3 = mul i64 %idx, {context.REGION_ROW_WORDS}" in text
    with pytest.raises(KeyError, match="REGION_HI"):
        fixed_ir.load("runtime.ll", {k: v for k, v in vars(context).items() if k != "REGION_HI"})


def test_the_floor_division_helpers_parse_and_divide_as_numpy():
    """ll/floor_division.ll: NumPy's int64 // and % (interp/tensor.py's), 0 for a zero
    divisor, INT64_MIN // -1 wrapping; the 32-bit short way gives the same results."""
    import ctypes
    import numpy as np
    from clcoop.native import tensor_routines
    ensure_llvm()
    text = tensor_routines.FLOOR_HELPERS_IR.replace("define internal", "define")
    mod = llvm.parse_assembly(text)
    mod.verify()
    target = llvm.Target.from_default_triple().create_target_machine()
    engine = llvm.create_mcjit_compiler(mod, target)
    engine.finalize_object()
    proto = ctypes.CFUNCTYPE(ctypes.c_int64, ctypes.c_int64, ctypes.c_int64)
    fdiv = proto(engine.get_function_address("__clcoop_tfdiv"))
    fmod = proto(engine.get_function_address("__clcoop_tfmod"))
    lo = -2 ** 63
    for a in (0, 1, 7, -7, 2 ** 32 - 1, 2 ** 32, -(2 ** 40) - 3, lo, 2 ** 63 - 1):
        for b in (1, 2, 3, -3, -1, 2 ** 31 + 5, -(2 ** 33), lo):
            with np.errstate(all="ignore"):
                q, r = np.int64(a) // np.int64(b), np.int64(a) % np.int64(b)
            assert (fdiv(a, b), fmod(a, b)) == (int(q), int(r)), (a, b)
        assert (fdiv(a, 0), fmod(a, 0)) == (0, 0)
