"""jit.compiled_modules: a module text compiled again in the process loads LLVM's earlier
object code instead of optimizing and generating code again (issue 27: builds are most of a
native test's time; a user's program built twice pays once)."""
import ctypes

import numpy as np
import pytest

import clcoop
from clcoop.native import jit
from clcoop.native.jit import CompiledModules, Engine

ADD = "; {tag}\ndefine i32 @f(i32 %x) {{\n  %y = add i32 %x, {n}\n  ret i32 %y\n}}\n"
CALL = ctypes.CFUNCTYPE(ctypes.c_int32, ctypes.c_int32)
SCALE = """
__kernel void scale(__global const float *a, __global float *c, float s) {
  int i = get_global_id(0);
  c[i] = a[i] * s + 1.0f;
}
"""


def run(engine, x):
    return CALL(engine.address("f"))(x)


def test_the_same_text_is_compiled_once_and_each_engine_has_its_own_code():
    text = ADD.format(tag="same text", n=5)
    first, second = Engine(text, opt=1), Engine(text, opt=1)
    assert not first.from_cache and second.from_cache
    assert second.optimized_ir == first.optimized_ir
    assert first.address("f") != second.address("f")      # two loaded copies
    first.close()
    assert run(second, 10) == 15                            # closing one frees nothing of the other
    second.close()


def test_another_level_or_another_text_compiles_again():
    text = ADD.format(tag="levels", n=7)
    assert not Engine(text, opt=1).from_cache
    assert not Engine(text, opt=2).from_cache
    assert Engine(text, opt=2).from_cache
    other = Engine(ADD.format(tag="levels", n=8), opt=1)
    assert not other.from_cache and run(other, 1) == 9


def test_a_module_llvm_rejects_is_not_kept():
    bad = "define i32 @f(i32 %x) {\n  ret i64 %x\n}\n"
    for _ in range(2):
        with pytest.raises(RuntimeError):
            Engine(bad, opt=1)


def test_a_module_calling_a_missing_symbol_is_refused_from_the_cache_too():
    text = "declare i32 @clcoop_no_such_function(i32)\ndefine i32 @f(i32 %x) {\n" \
           "  %y = call i32 @clcoop_no_such_function(i32 %x)\n  ret i32 %y\n}\n"
    for _ in range(2):
        with pytest.raises(RuntimeError, match="clcoop_no_such_function"):
            Engine(text, opt=1)


def test_the_least_recently_used_entries_go_beyond_the_limit():
    cache = CompiledModules(limit=100)
    keys = [CompiledModules.key(f"text {i}", 3) for i in range(4)]
    cache.put(keys[0], "a" * 30, b"x" * 10)
    cache.put(keys[1], "b" * 30, b"y" * 10)
    assert cache.get(keys[0]) is not None          # now the most recent
    cache.put(keys[2], "c" * 30, b"z" * 10)        # 120 bytes: keys[1] goes
    assert cache.get(keys[1]) is None and cache.get(keys[0]) and cache.get(keys[2])
    cache.put(keys[3], "d" * 200, b"")             # larger than the limit: not kept
    assert cache.get(keys[3]) is None and len(cache) == 2
    cache.clear()
    assert len(cache) == 0


def test_a_program_built_twice_compiles_once_and_runs_as_the_interpreter():
    source = SCALE + "// built twice\n"
    a = np.linspace(-3, 3, 64, dtype=np.float32)
    results = []
    for expect_cached in (False, True):
        prog = clcoop.Program(source).build(engine="native")
        assert prog._native.engine.from_cache == expect_cached
        c = np.zeros_like(a)
        prog.scale(64, 16, a, c, np.float32(2.5))
        results.append(c)
    interp = clcoop.Program(source).build()
    c = np.zeros_like(a)
    interp.scale(64, 16, a, c, np.float32(2.5))
    for got in results:
        assert got.tobytes() == c.tobytes()
    np.testing.assert_array_equal(c, a * np.float32(2.5) + np.float32(1))


def test_a_limit_of_zero_keeps_nothing(monkeypatch):
    # (scripts/bench.py sets it: its compile figures are LLVM's work, never a copy)
    monkeypatch.setattr(jit.compiled_modules, "limit", 0)
    text = ADD.format(tag="cold", n=3)
    assert not Engine(text, opt=1).from_cache and not Engine(text, opt=1).from_cache
