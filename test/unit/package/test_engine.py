"""The engine boundary (clcoop/engine.py, issue 27): engines are named once, in the registry;
an engine registered there is built, asked and launched through the protocol alone, with
arguments prepared once (clcoop/prepare.py); the reference engine takes what it declines."""
import subprocess
import sys
import warnings

import numpy as np
import pytest

import clcoop
from clcoop import engine, prepare
from clcoop.cli import run_main

SOURCE = """__kernel void k(__global float *c, float x) { c[get_global_id(0)] += x; }
__kernel void other(__global float *c) { c[get_global_id(0)] = 7.0f; }"""


class RecordingEngine:
    """A third engine, as one plugs in: it takes kernel 'k' (its launches add 2x, computed
    with NumPy from the prepared arguments), declines 'other', and gives launches of 32
    work-items back to the reference engine."""
    name = "recording"
    fallback_warning = engine.EngineFallbackWarning
    launches = []

    def __init__(self, module):
        self.module, self.closed = module, False

    @classmethod
    def build(cls, module):
        return cls(module)

    def reason(self, kernel_name):
        return None if kernel_name == "k" else "it only takes kernel 'k'"

    def launch(self, kernel, prepared):
        RecordingEngine.launches.append(prepared)
        if prepared.nd.global_size[0] == 32:
            raise engine.LaunchNotTaken("kernel 'k': launches of 32 work-items are not taken")
        buffer, x = prepared.arguments
        prepared.values[buffer.index][:] += 2 * x.value

    def close(self):
        self.closed = True


@pytest.fixture
def recording(monkeypatch):
    monkeypatch.setitem(engine.ENGINES, "recording", f"{__name__}:RecordingEngine")
    RecordingEngine.launches = []
    return RecordingEngine


def test_engine_names_are_spelled_once_in_the_registry():
    assert engine.CHOICES == (*engine.ENGINES, engine.AUTO)
    assert engine.REFERENCE in engine.ENGINES and set(engine.AUTO_ORDER) <= set(engine.ENGINES)
    action = next(a for a in run_main._parser()._actions if a.dest == "engine")
    assert tuple(action.choices) == engine.CHOICES
    with pytest.raises(clcoop.ArgumentError, match="unknown engine 'fast' \\(choose one of interp, native, "
                                                   "vulkan, auto\\)"):
        clcoop.Program(SOURCE).build(engine="fast")


def test_the_compile_path_and_the_registry_import_no_engine():
    code = ("import sys, clcoop, clcoop.engine, clcoop.cli.run_main\n"
            "from clcoop.frontend.driver import CompileOptions, compile_source\n"
            "compile_source('kernel void k(global int *o) { o[0] = 1; }', CompileOptions())\n"
            "print(sorted(m for m in sys.modules if m.startswith(('clcoop.interp', 'clcoop.native', "
            "'clcoop.vulkan', 'clcoop.api', 'clcoop.prepare', 'numpy'))))")
    run = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert run.returncode == 0, run.stderr
    assert run.stdout.strip() == "[]"


def test_a_registered_engine_runs_through_the_protocol_with_prepared_arguments(recording):
    prog = clcoop.Program(SOURCE).build(engine="recording")
    assert prog.k.engine == "recording" and prog.k.fallback_reason is None
    c = np.ones(16, np.float32)
    prog.k(16, 8, c, 1.5)
    prog.k(16, 8, c, 1.5)
    assert (c == 7).all()
    first, second = recording.launches
    assert second.values[0] is c and first.key == second.key is not None
    buffer, x = second.arguments
    assert (buffer.kind, buffer.dtype, buffer.nbytes, buffer.writable) == (prepare.BUFFER, np.float32, 64, True)
    assert (x.kind, x.value, x.dtype) == (prepare.SCALAR, np.float32(1.5), np.float32)
    assert second.nd.local_size == (8, 1, 1) and second.subgroup_size == prepare.DEFAULT_SUBGROUP_SIZE


def test_a_kernel_the_engine_declines_is_refused_or_falls_back(recording, monkeypatch):
    prog = clcoop.Program(SOURCE).build(engine="recording")
    with pytest.raises(clcoop.ArgumentError, match="kernel 'other' cannot run on the recording engine: it only "
                                                   "takes kernel 'k' \\(build with engine='auto'"):
        prog.other(16, 16, np.zeros(16, np.float32))
    monkeypatch.setattr(engine, "AUTO_ORDER", ("recording",))
    with pytest.warns(engine.EngineFallbackWarning, match="kernel 'other' runs in the interpreter: it only "
                                                          "takes kernel 'k'"):
        prog = clcoop.Program(SOURCE).build(engine="auto")
    c = np.zeros(16, np.float32)
    prog.other(16, 16, c)
    assert (c == 7).all() and prog.other.engine == "interp" and not recording.launches


def test_a_launch_the_engine_does_not_take_runs_on_the_reference_with_one_warning(recording):
    prog = clcoop.Program(SOURCE).build(engine="recording")
    c = np.zeros(32, np.float32)
    with pytest.warns(engine.EngineFallbackWarning, match="launches of 32 work-items are not taken: this "
                                                          "launch runs in the interpreter"):
        prog.k(32, 8, c, 1.0)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        prog.k(32, 8, c, 1.0)       # once per kernel and reason
    assert (c == 2).all() and len(recording.launches) == 2


def test_a_rebuild_closes_the_engines_builds(recording):
    prog = clcoop.Program(SOURCE).build(engine="recording")
    build = prog._builds["recording"]
    prog.build(engine="interp")
    assert build.closed and prog._builds == {} and prog.k.engine == "interp"


def test_an_engine_whose_package_is_missing_is_an_argument_error(monkeypatch):
    monkeypatch.setitem(engine.ENGINES, "ghost", "clcoop.ghost.engine:GhostEngine")
    with pytest.raises(clcoop.ArgumentError, match="the ghost engine is not available in this installation"):
        clcoop.Program(SOURCE).build(engine="ghost")


def test_equal_launches_are_prepared_once(recording, monkeypatch):
    calls = []
    real = prepare.prepare_launch
    monkeypatch.setattr(prepare, "prepare_launch", lambda *a, **k: calls.append(a) or real(*a, **k))
    prog = clcoop.Program(SOURCE).build(engine="recording")
    c, d = np.zeros(16, np.float32), np.zeros(16, np.float32)
    for array in (c, c, d, c):
        prog.k(16, 8, array, 1.0)
    assert len(calls) == 2                            # c, then d (another address)
    assert [p.values[0] is a for p, a in zip(recording.launches, (c, c, d, c))] == [True] * 4
    prog.k(16, 8, c, 2.0)                             # another scalar value: prepared anew
    assert len(calls) == 3 and (c == 10).all()



def test_the_native_engines_fallback_is_an_engine_fallback():
    # One warning class filters every engine's fallbacks, the native engine's too.
    from test_native_api import COOP_UNSUPPORTED
    with pytest.warns(engine.EngineFallbackWarning, match="kernel 'ones' runs in the interpreter"):
        prog = clcoop.Program(COOP_UNSUPPORTED).build(engine="auto")
    assert prog.ones.engine == "interp"
