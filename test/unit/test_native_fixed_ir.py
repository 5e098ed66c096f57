"""The native engine's fixed IR (clcoop/native/ll/*.ll, fixed_ir.py): each file, with the
layouts Python names written in, is a module LLVM accepts; every ${NAME} it uses is named
in Python; the layouts' words are distinct and fit their blocks."""
from importlib import resources

import llvmlite.binding as llvm
import pytest

from clcoop.native import fixed_ir, pool
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
    block = [pool.B_TOTAL, pool.B_NEXT_GROUP, pool.B_ABORT, pool.B_SCRATCH, pool.B_SCRATCH_BYTES,
             pool.B_ARENA_BYTES, pool.B_CHUNK_SLOT, pool.B_SLOTS]
    assert sorted(block) == list(range(pool.LAUNCH_WORDS))
    assert sorted([pool.C_ARGS, pool.C_TEMPLATE, pool.C_ARENA, pool.C_FAULT]) == list(range(pool.CALL_WORDS))


def test_launch_block_lays_out_the_block_and_each_threads_row():
    words = pool.launch_block(100, 1001, 1002, 1003, 64, 128, 7, [(11, 12, 13, 14), (21, 22, 23, 24)])
    assert len(words) == pool.LAUNCH_WORDS + 2 * pool.CALL_WORDS
    assert (words[pool.B_TOTAL], words[pool.B_NEXT_GROUP], words[pool.B_ABORT], words[pool.B_SCRATCH],
            words[pool.B_SCRATCH_BYTES], words[pool.B_ARENA_BYTES], words[pool.B_CHUNK_SLOT],
            words[pool.B_SLOTS]) == (100, 1001, 1002, 1003, 64, 128, 7, 2)
    second = words[pool.LAUNCH_WORDS + pool.CALL_WORDS:]
    assert (second[pool.C_ARGS], second[pool.C_TEMPLATE], second[pool.C_ARENA], second[pool.C_FAULT]) == \
        (21, 22, 23, 24)


def test_every_ll_file_of_the_package_is_loaded_by_a_module():
    files = sorted(p.name for p in resources.files("clcoop.native").joinpath("ll").iterdir()
                   if p.name.endswith(".ll"))
    assert files == ["pool.ll"]
