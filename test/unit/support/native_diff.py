"""Differential runs of the native engine against the interpreter (issue 16).

`differential(module)` lists the test functions of a test module with their parameter
combinations; `run_case` runs one with every kernel launch doubled: the interpreter on the
caller's arrays (the test's own NumPy oracle still checks them) and the native engine on
copies. Every array must come out bit-identical and both engines must fault, or neither.
Launches of kernels the native engine does not take run in the interpreter only and are
recorded with the reason.
"""
import inspect
import itertools
import re

import numpy as np

import clcoop
from clcoop.errors import RuntimeFault
from clcoop import api

_NATIVE = {}


def cases(module):
    """(id, function, kwargs) of every test of `module` whose parameters all come from
    @pytest.mark.parametrize."""
    out = []
    for name, fn in inspect.getmembers(module, inspect.isfunction):
        if not name.startswith("test_") or fn.__module__ != module.__name__:
            continue
        marks = [m for m in getattr(fn, "pytestmark", []) if m.name == "parametrize"]
        axes = []
        for m in marks:
            names = [n.strip() for n in m.args[0].split(",")] if isinstance(m.args[0], str) else list(m.args[0])
            values = [_unwrapped(v, len(names)) for v in m.args[1]]
            axes.append([dict(zip(names, v)) for v in values])
        wanted = set(inspect.signature(fn).parameters)
        for combo in itertools.product(*axes):
            kwargs = {}
            for d in combo:
                kwargs.update(d)
            if set(kwargs) != wanted:
                continue
            label = "-".join(_stable_text(v) for v in kwargs.values())
            out.append((f"{name}[{label}]" if label else name, fn, kwargs))
    return _unique_ids(out)


def _stable_text(value):
    """A value's text without memory addresses ('<function <lambda> at 0x7f...>'): test ids
    must be the same in every process (pytest-xdist's workers compare their collections)."""
    return re.sub(r" at 0x[0-9a-fA-F]+", "", str(value))


def _unique_ids(cases):
    """Cases whose ids repeat (lambdas without addresses) numbered in order: id#2, id#3."""
    seen, out = {}, []
    for case_id, fn, kwargs in cases:
        seen[case_id] = seen.get(case_id, 0) + 1
        out.append((case_id if seen[case_id] == 1 else f"{case_id}#{seen[case_id]}", fn, kwargs))
    return out


def _unwrapped(value, count):
    """A parametrize value as the tuple of its arguments (pytest.param's values, marks
    dropped: the caller runs the case either way)."""
    if hasattr(value, "values") and hasattr(value, "marks"):
        value = value.values
        return tuple(value) if count > 1 else (value[0],)
    return value if count > 1 else (value,)


class Record:
    def __init__(self):
        self.native = []       # kernel names run on both engines
        self.fallback = {}     # kernel name -> reason


def _native_program(program):
    key = program.ir
    if key not in _NATIVE:
        import warnings
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            _NATIVE[key] = clcoop.Program.from_ir(program.ir, engine="auto")
    return _NATIVE[key]


def run_case(fn, kwargs, monkeypatch, order_dependent=False):
    """order_dependent: the kernel's results depend on the order of atomic operations of
    different work-groups (which run on several threads natively): the native results
    replace the interpreter's in the caller's arrays, for the test's own oracle to check."""
    record = Record()
    original = api.Kernel.__call__

    def doubled(self, global_size, local_size, *args, **kw):
        if self.program.engine != "interp":
            return original(self, global_size, local_size, *args, **kw)
        nk = _native_program(self.program).kernel(self.name)
        if nk.engine != "native":
            record.fallback[self.name] = nk.fallback_reason
            return original(self, global_size, local_size, *args, **kw)
        copies = [np.array(a, copy=True) if isinstance(a, np.ndarray) else a for a in args]
        native_fault = interp_fault = None
        try:
            nk(global_size, local_size, *copies, **kw)
        except RuntimeFault as exc:
            native_fault = exc
        try:
            original(self, global_size, local_size, *args, **kw)
        except RuntimeFault as exc:
            interp_fault = exc
        record.native.append(self.name)
        assert (native_fault is None) == (interp_fault is None), \
            f"kernel {self.name}: interpreter fault {interp_fault!s} / native fault {native_fault!s}"
        if interp_fault is not None:
            raise interp_fault
        for i, (a, b) in enumerate(zip(args, copies)):
            if isinstance(a, np.ndarray) and order_dependent:
                np.copyto(a, b)
            elif isinstance(a, np.ndarray):
                same = np.array_equal(a.reshape(-1).view(np.uint8), b.reshape(-1).view(np.uint8))
                assert same, f"kernel {self.name}: argument {i} differs between the engines"
        return None

    monkeypatch.setattr(api.Kernel, "__call__", doubled)
    fn(**kwargs)
    return record
