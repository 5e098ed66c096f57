"""Programs built once per test session (issue 27: native builds cached by session-scoped
fixtures). A native build is LLVM's optimization and code generation of the whole module
(about 0.3 s for a plain kernel, seconds for a matrix kernel); tests that launch the same
kernel build it once through the `shared_builds` fixture (test/unit/conftest.py). The
warnings of the build (engine="auto"'s fallbacks, the compiler's) are issued again to every
test that asks for the program, under that test's warning filters.

A shared program keeps its state between tests: its launch counters (in_place_launches,
fast_launches, ...) and its builds for other sub-group sizes. A test that counts launches
compares counts before and after its own launch; a test that patches a program builds its
own."""
import warnings

import clcoop


class SharedBuilds:
    def __init__(self):
        self._programs = {}

    def build(self, source, engine="native", options=()):
        """clcoop.Program(source).build(options, engine=engine), once per session."""
        return self._get(("source", source, tuple(options), engine),
                         lambda: clcoop.Program(source).build(options=list(options), engine=engine))

    def from_ir(self, ir_text, engine="native"):
        """clcoop.Program.from_ir(ir_text, engine), once per session."""
        return self._get(("ir", ir_text, engine), lambda: clcoop.Program.from_ir(ir_text, engine=engine))

    def _get(self, key, make):
        if key not in self._programs:
            with warnings.catch_warnings(record=True) as caught:
                warnings.simplefilter("always")
                program = make()
            self._programs[key] = program, caught
        program, caught = self._programs[key]
        for w in caught:
            warnings.warn_explicit(w.message, w.category, w.filename, w.lineno)
        return program
