"""Structural guards for the compiler's start-up cost (issue 6: compile latency <= clang).

Not timed tests: they check what keeps `clcoop k.cl` fast on any machine — heavy modules
stay out of the compile path or are imported only when needed, and the typed-AST/type
classes (built by clcoop.frontend.types.record instead of @dataclass) keep dataclass
behaviour.
"""
import dataclasses
import json
import os
import subprocess
import sys

import pytest

from clcoop.coopmat_spec import Use
from clcoop.frontend import tast
from clcoop.frontend import types as T

KERNEL = """__kernel void add(__global const float *a, __global float *c, int n) {
    int i = get_global_id(0);
    if (i < n) c[i] = a[i] * 2.0f;
}
"""


def _modules_after(code, env=None, cwd=None):
    """Run `code` in a fresh interpreter; returns the set of module names imported."""
    script = code + "\nimport sys\nprint('\\n'.join(sorted(sys.modules)))\n"
    out = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True,
                         env=env, cwd=cwd, check=True)
    return set(out.stdout.split())


def test_compiling_a_kernel_does_not_import_numpy_or_the_interpreter(tmp_path):
    src = tmp_path / "k.cl"
    src.write_text(KERNEL)
    code = ("import sys\nfrom clcoop.cli.compile_main import run\n"
            f"assert run([{str(src)!r}, '-o', {str(tmp_path / 'k.ll')!r}]) == 0\n")
    modules = _modules_after(code)
    assert "clcoop.frontend.lower" in modules        # it did compile
    assert "numpy" not in modules
    assert not any(m.startswith("clcoop.interp") for m in modules)
    assert (tmp_path / "k.ll").read_text().startswith("; ModuleID")


def test_import_clcoop_stays_lazy():
    modules = _modules_after("import clcoop")
    for heavy in ("numpy", "pcpp", "pycparser", "llvmlite", "clcoop.api"):
        assert heavy not in modules, heavy


def test_driver_imports_no_stage_until_used():
    modules = _modules_after("import clcoop.frontend.driver, clcoop.cli.compile_main")
    for heavy in ("pcpp", "pycparser", "llvmlite", "clcoop.frontend.check",
                  "clcoop.frontend.lower", "clcoop.frontend.tast"):
        assert heavy not in modules, heavy


def test_syntax_error_does_not_load_check_lower_or_llvmlite(tmp_path):
    src = tmp_path / "bad.cl"
    src.write_text("__kernel void f( {\n")
    code = ("from clcoop.cli.compile_main import run\n"
            f"assert run([{str(src)!r}, '-fsyntax-only']) == 1\n")
    modules = _modules_after(code)
    assert "pycparser" in modules
    for heavy in ("clcoop.frontend.check", "clcoop.frontend.lower", "llvmlite"):
        assert heavy not in modules, heavy


# ---------------------------------------------------------------- record == dataclass
def test_tast_nodes_are_dataclasses_with_positional_and_keyword_init():
    a = tast.IntConst(T.INT, None, 3)
    b = tast.IntConst(type=T.INT, loc=None, value=3)
    assert dataclasses.is_dataclass(a)
    assert [f.name for f in dataclasses.fields(tast.Binary)] == ["type", "loc", "op", "left", "right",
                                                                 "fp_contract"]
    assert tast.Binary.__match_args__ == ("type", "loc", "op", "left", "right", "fp_contract")
    assert tast.Binary(T.INT, None, "+", a, b).fp_contract == "off"      # the default
    assert a == b and a != tast.IntConst(T.INT, None, 4)
    assert a != tast.FloatConst(T.INT, None, 3)          # different classes never equal
    with pytest.raises(TypeError):
        hash(a)                                          # mutable + eq: unhashable, as @dataclass
    with pytest.raises(TypeError):
        tast.IntConst(T.INT, None)                       # missing argument
    assert repr(a).startswith("IntConst(type=")


def test_tast_default_factories_give_fresh_lists_and_identity_classes_hash():
    f1 = tast.Function("f", T.FunctionType(T.VOID, ()), [])
    f2 = tast.Function("f", T.FunctionType(T.VOID, ()), [])
    assert f1.local_vars == [] and f1.local_vars is not f2.local_vars
    assert f1 != f2 and f1 == f1 and len({f1, f2}) == 2   # eq=False: identity
    switch = tast.Switch(None, T.INT, None)
    assert switch.cases == [] and switch.default is None


def test_repr_of_a_cycle_terminates():
    var = tast.Var("x", T.INT, "local-var")
    var.initializer = tast.VarRef(T.INT, None, var)
    assert "..." in repr(var)


def test_types_are_frozen_hashable_and_replace_works():
    p = T.PointerType(T.INT, T.GLOBAL)
    assert p == T.PointerType(T.INT, T.GLOBAL) and hash(p) == hash(T.PointerType(T.INT, T.GLOBAL))
    with pytest.raises(dataclasses.FrozenInstanceError):
        p.pointee = T.FLOAT
    q = dataclasses.replace(p, const=True)
    assert q.const and q != p and q.pointee == T.INT
    # compare=False fields do not take part in equality or hashing.
    m1 = T.CoopMatType(T.FLOAT, 3, 8, 16, Use.ACCUMULATOR, "acc_t")
    m2 = T.CoopMatType(T.FLOAT, 3, 8, 16, Use.ACCUMULATOR)
    assert m1 == m2 and hash(m1) == hash(m2) and m1.spelling() != m2.spelling()
    s = T.StructType("S")
    assert s != T.StructType("S") and s.fields == []     # eq=False: identity


# ---------------------------------------------------------------- bytecode note
def test_verbose_run_explains_missing_bytecode(tmp_path):
    src = tmp_path / "k.cl"
    src.write_text(KERNEL)
    env = dict(os.environ, PYTHONDONTWRITEBYTECODE="1",
               PYTHONPYCACHEPREFIX=str(tmp_path / "no-pyc"))   # no .pyc can be found there
    cmd = [sys.executable, "-m", "clcoop.cli.compile_main", str(src), "-o", str(tmp_path / "k.ll")]
    verbose = subprocess.run(cmd + ["-v"], capture_output=True, text=True, env=env)
    assert verbose.returncode == 0
    assert "compileall" in verbose.stderr
    quiet = subprocess.run(cmd, capture_output=True, text=True, env=env)
    assert quiet.returncode == 0 and quiet.stderr == ""
    assert not (tmp_path / "no-pyc").exists()              # clcoop wrote no bytecode itself


# ---------------------------------------------------------------- on-disk header cache
from clcoop.diagnostics import DiagnosticEngine            # noqa: E402
from clcoop.frontend import driver, preprocess as P         # noqa: E402

MACRO_USER = ('const char *s = K(hi there);\n'
              'int b[] = {H(1), H(1, 2)};\n'
              'int f(int a) { return F(a) + G(1, 2) + __LINE__; }\n')
FUNCTION_LIKE = {"F(x)": "((x)+1)", "G(a,...)": "a+__VA_ARGS__",
                 "H(x,...)": "x,##__VA_ARGS__", "K(x)": "#x"}


def _preprocess(source, defines=FUNCTION_LIKE):
    options = driver.CompileOptions(filename="m.cl", defines=dict(defines))
    diag = DiagnosticEngine()
    text = P.preprocess(source, "m.cl", [], driver.predefined_macros(options), diag)
    assert diag.error_count == 0, diag.render_all()
    return text


def _fresh_process_state():
    P._HEADER_CACHE.clear()      # what a new `clcoop` process starts with


def test_header_cache_hit_gives_the_same_text_as_no_cache(tmp_path, monkeypatch):
    monkeypatch.setenv("CLCOOP_NO_CACHE", "1")
    _fresh_process_state()
    expected = _preprocess(MACRO_USER)
    monkeypatch.delenv("CLCOOP_NO_CACHE")
    monkeypatch.setenv("CLCOOP_CACHE_DIR", str(tmp_path / "cache"))
    _fresh_process_state()
    assert _preprocess(MACRO_USER) == expected                 # miss: computes and stores
    files = list((tmp_path / "cache").glob("header-*.json"))
    assert len(files) == 1
    assert "__DATE__" not in files[0].read_text()              # clock macros stay fresh
    _fresh_process_state()
    assert _preprocess(MACRO_USER) == expected                 # hit: loaded from disk
    squeezed = "".join(expected.split())
    assert '"hithere"' in squeezed and "intb[]={1,1,2};" in squeezed   # # and , ## __VA_ARGS__


def test_header_cache_is_keyed_by_the_defines(tmp_path, monkeypatch):
    monkeypatch.setenv("CLCOOP_CACHE_DIR", str(tmp_path))
    for value in ("1", "2"):
        _fresh_process_state()
        assert _preprocess("int x = V;\n", {"V": value}).rstrip().endswith(f"= {value};")
    assert len(list(tmp_path.glob("header-*.json"))) == 2


def test_corrupt_or_unwritable_cache_is_only_a_miss(tmp_path, monkeypatch):
    monkeypatch.setenv("CLCOOP_CACHE_DIR", str(tmp_path))
    _fresh_process_state()
    expected = _preprocess(MACRO_USER)
    for file in tmp_path.glob("header-*.json"):
        file.write_text('{"key": [1, 2], "macros": ')          # truncated JSON
    _fresh_process_state()
    assert _preprocess(MACRO_USER) == expected
    not_a_dir = tmp_path / "plain-file"
    not_a_dir.write_text("")
    monkeypatch.setenv("CLCOOP_CACHE_DIR", str(not_a_dir / "sub"))
    _fresh_process_state()
    assert _preprocess(MACRO_USER) == expected


def test_header_cache_keeps_a_bounded_number_of_files(tmp_path, monkeypatch):
    monkeypatch.setenv("CLCOOP_CACHE_DIR", str(tmp_path))
    monkeypatch.setattr(P, "_MAX_CACHE_FILES", 3)
    for value in range(5):
        _fresh_process_state()
        _preprocess("int x = V;\n", {"V": str(value)})
    assert len(list(tmp_path.glob("header-*.json"))) == 3


# ---------------------------------------------------------------- issue 26: start-up
# What compiling a kernel must not import: an engine (interpreter, native, GPU), the API that
# launches kernels, the SPIR-V pipeline, NumPy, and modules only a rare path needs.
NOT_ON_THE_COMPILE_PATH = ("numpy", "clcoop.api", "clcoop.interp", "clcoop.native", "clcoop.vulkan",
                           "clcoop.engine", "clcoop.prepare", "clcoop.spirv", "ml_dtypes", "fractions")


def test_compile_path_imports_no_engine_and_nothing_only_rare_paths_need(tmp_path):
    src = tmp_path / "k.cl"
    src.write_text(KERNEL)
    code = ("from clcoop.cli.compile_main import run\n"
            f"assert run([{str(src)!r}, '-o', {str(tmp_path / 'k.ll')!r}]) == 0\n")
    modules = _modules_after(code)
    assert "clcoop.frontend.lower" in modules
    loaded = [m for m in modules if m.split(".")[0] in ("numpy", "ml_dtypes", "fractions")
              or m.startswith(NOT_ON_THE_COMPILE_PATH[1:])]
    assert loaded == [], loaded


def test_a_header_cache_hit_defines_no_macro_one_by_one(tmp_path, monkeypatch):
    """The ~330 predefined macros are in the cached result: a hit skips defining them."""
    monkeypatch.setenv("CLCOOP_CACHE_DIR", str(tmp_path))
    _fresh_process_state()
    expected = _preprocess(MACRO_USER)
    cls = P._preprocessor_class()
    calls = []
    original = cls.define
    monkeypatch.setattr(cls, "define", lambda self, tokens: calls.append(tokens) or original(self, tokens))
    _fresh_process_state()
    assert _preprocess(MACRO_USER) == expected                  # a hit, from disk
    by_pcpp_itself = ("__DATE__", "__TIME__", "__PCPP__", "__FILE__")     # per Preprocessor or file
    assert [c for c in calls if not str(c).startswith(by_pcpp_itself)] == [], calls[:8]
    _fresh_process_state()
    calls.clear()
    monkeypatch.setenv("CLCOOP_NO_CACHE", "1")
    assert _preprocess(MACRO_USER) == expected                  # a miss defines them all
    assert len(calls) > 300


def test_the_command_exits_without_teardown_after_flushing_and_atexit(tmp_path):
    """`clcoop` ends with os._exit (the interpreter's teardown is 20-40 ms of CPU): stdout is
    flushed and atexit handlers run all the same; objects are not finalized."""
    src = tmp_path / "k.cl"
    src.write_text(KERNEL)
    code = ("import atexit, sys\n"
            "atexit.register(lambda: print('atexit ran'))\n"
            "class Finalized:\n"
            "    def __del__(self): print('finalized')\n"
            "keep = Finalized()\n"
            "from clcoop.cli.compile_main import main\n"
            f"sys.argv = ['clcoop', {str(src)!r}, '-o', '-']\n"
            "main()\n"
            "print('not reached')\n")
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.startswith("; ModuleID") and "define spir_kernel void @add" in proc.stdout
    assert proc.stdout.rstrip().endswith("atexit ran")
    assert "finalized" not in proc.stdout and "not reached" not in proc.stdout
    bad = tmp_path / "bad.cl"
    bad.write_text("kernel void f( {\n")
    proc = subprocess.run([sys.executable, "-m", "clcoop.cli.compile_main", str(bad)],
                          capture_output=True, text=True, timeout=120)
    assert proc.returncode == 1 and "error:" in proc.stderr


def test_the_command_runs_no_cyclic_collection_after_the_compile(tmp_path):
    """The driver pauses the collector while a source compiles; the command, which ends after
    one compile, does not resume it: its first collection would walk every object of the
    compile (0.3-0.45 s of pocl's test_abs.cl). An in-process caller gets the collector back."""
    src = tmp_path / "k.cl"
    src.write_text("".join(KERNEL.replace("add", f"add{i}") for i in range(40)))
    code = ("import atexit, gc, sys\n"
            "from clcoop.frontend import driver\n"
            "real, collections = driver.compile_source, []\n"
            "def counted(*args, **kwargs):\n"
            "    gc.callbacks.append(lambda phase, info: phase == 'start' and collections.append(info))\n"
            "    return real(*args, **kwargs)\n"
            "driver.compile_source = counted\n"
            "atexit.register(lambda: print('collections', len(collections), gc.isenabled()))\n"
            "from clcoop.cli.compile_main import main\n"
            f"sys.argv = ['clcoop', {str(src)!r}, '-o', {str(tmp_path / 'k.ll')!r}]\n"
            "main()\n")
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.strip() == "collections 0 False"
    assert "define spir_kernel void @add39" in (tmp_path / "k.ll").read_text()
    in_process = subprocess.run(
        [sys.executable, "-c", "import gc\nfrom clcoop.cli.compile_main import main\n"
         f"assert main([{str(src)!r}, '-o', {str(tmp_path / 'k2.ll')!r}]) == 0\nprint(gc.isenabled())"],
        capture_output=True, text=True, timeout=120)
    assert in_process.stdout.strip() == "True", in_process.stderr


def test_the_compile_paths_plain_data_classes_are_records(tmp_path):
    """@dataclass compiles (exec) 4-6 functions per class at import: every clcoop class loaded
    by a compile is a clcoop.records.record (dataclass(init=False, eq=False), __init__ shared
    and compiled on first use) instead."""
    src = tmp_path / "k.cl"
    src.write_text(KERNEL)
    code = ("import dataclasses, sys\nfrom clcoop.cli.compile_main import run\n"
            f"assert run([{str(src)!r}, '-o', {str(tmp_path / 'k.ll')!r}]) == 0\n"
            "for name, module in list(sys.modules.items()):\n"
            "    if name.startswith('clcoop'):\n"
            "        for value in vars(module).values():\n"
            "            if isinstance(value, type) and value.__module__ == name and dataclasses.is_dataclass(value)"
            " and value.__dataclass_params__.init:\n"
            "                print(name, value.__name__)\n")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout == ""


def test_a_record_compiles_its_init_on_first_construction():
    from clcoop.records import record

    @record(frozen=True)
    class Fresh:
        first_field_of_a_new_shape: int
        second: str = "x"
    stub = Fresh.__init__
    value = Fresh(1)
    assert Fresh.__init__ is not stub and Fresh(1, "x") == value and Fresh(first_field_of_a_new_shape=1) == value
    with pytest.raises(TypeError):
        Fresh()


# ---------------------------------------------------------------- compiled regular expressions
from clcoop.frontend import disk_cache                     # noqa: E402

PATTERNS = [(r"(?P<number>0[xX][0-9a-fA-F]+|[0-9]+)(?P<suffix>[uUlL]*)", 0),
            (r"^\s*#\s*(define|undef)\s+(\w+)", 8),                      # re.MULTILINE
            (r"[a-z_][a-z0-9_]*", 2),                                    # re.IGNORECASE
            (r"(a)|(b)(?=c)|(?<!d)e{2,5}?", 0)]
SAMPLES = ["0x1fU", "12l", "  #define X 1\n#undef Y", "Foo_9", "bc", "eeeee", "a"]


def _from_text(pattern, flags):
    return disk_cache._state["original"](pattern, flags)


# Compiled by a module's top level, as the lexers compile theirs (what the cache keeps).
_TOP_LEVEL = compile("import re._compiler\ncompiled = []\nfor pattern, flags in PATTERNS:\n"
                     "    compiled.append(re._compiler.compile(pattern, flags))\n", "patterns.py", "exec")


def _compile_all():
    namespace = {"PATTERNS": PATTERNS}
    exec(_TOP_LEVEL, namespace)
    return namespace["compiled"]


@pytest.fixture
def regex_cache(tmp_path):
    yield tmp_path
    disk_cache.uninstall()


def test_a_cached_regular_expression_equals_the_one_compiled_from_its_text(regex_cache, monkeypatch):
    assert disk_cache.install(str(regex_cache))
    first = _compile_all()
    disk_cache.save()
    disk_cache.uninstall()
    assert len(list(regex_cache.glob("regex-*.json"))) == 1
    assert disk_cache.install(str(regex_cache))
    import re._parser
    parsed = []
    original_parse = re._parser.parse
    monkeypatch.setattr(re._parser, "parse", lambda *a, **k: parsed.append(a[0]) or original_parse(*a, **k))
    second = _compile_all()
    assert parsed == []                                        # every one came from the file
    for (pattern, flags), a, b in zip(PATTERNS, first, second):
        assert b == _from_text(pattern, flags) == a            # Pattern ==: same flags and SRE code
        assert b.groupindex == a.groupindex and b.groups == a.groups
        for text in SAMPLES:
            ma, mb = a.search(text), b.search(text)
            assert (ma and (ma.span(), ma.groups())) == (mb and (mb.span(), mb.groups()))


def test_a_foreign_or_corrupt_regex_cache_is_only_a_miss(regex_cache):
    assert disk_cache.install(str(regex_cache))
    _compile_all()
    disk_cache.save()
    disk_cache.uninstall()
    (file,) = regex_cache.glob("regex-*.json")
    data = json.loads(file.read_text())
    data["key"][1] = "another Python"
    file.write_text(json.dumps(data))
    assert disk_cache.install(str(regex_cache))
    assert disk_cache._state["known"] == {}
    assert [p.pattern for p in _compile_all()] == [p for p, _ in PATTERNS]
    disk_cache.uninstall()
    data["key"] = disk_cache._key()
    first_key = next(iter(data["patterns"]))
    data["patterns"][first_key][1] = [1, 2, 3]                 # SRE code _sre.compile refuses
    file.write_text(json.dumps(data))
    assert disk_cache.install(str(regex_cache))
    compiled = _compile_all()
    assert compiled[0] == _from_text(*PATTERNS[0]) and compiled[0].search("0x1fU")
    disk_cache.uninstall()
    file.write_text('{"key": [1, ')                              # truncated
    assert disk_cache.install(str(regex_cache)) and disk_cache._state["known"] == {}


def test_the_second_clcoop_run_compiles_the_lexers_patterns_from_the_cache(tmp_path):
    """pycparser's master token pattern (~11 ms to compile from its text, issue 26) is read
    from CLCOOP_CACHE_DIR by every run after the first."""
    src = tmp_path / "k.cl"
    src.write_text(KERNEL)
    code = ("import atexit, sys, re._parser\n"
            "original = re._parser.parse\n"
            "seen = []\n"
            "def parse(text, *args, **kwargs):\n"
            "    seen.append(str(text))\n"
            "    return original(text, *args, **kwargs)\n"
            "re._parser.parse = parse\n"
            "atexit.register(lambda: print('lexer patterns parsed:',"
            " sum('UNSUPPORTED_C_STYLE_COMMENT' in s for s in seen)))\n"
            "from clcoop.cli.compile_main import main\n"
            f"sys.argv = ['clcoop', {str(src)!r}, '-o', {str(tmp_path / 'k.ll')!r}]\n"
            "main()\n")
    env = dict(os.environ, CLCOOP_CACHE_DIR=str(tmp_path / "cache"))
    env.pop("CLCOOP_NO_CACHE", None)
    runs = [subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env,
                           timeout=120) for _ in range(2)]
    assert [r.returncode for r in runs] == [0, 0], runs[1].stderr
    assert runs[0].stdout.strip() == "lexer patterns parsed: 1"
    assert runs[1].stdout.strip() == "lexer patterns parsed: 0"
    (file,) = (tmp_path / "cache").glob("regex-*.json")
    written = file.stat().st_mtime_ns, file.read_text()
    third = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env,
                           timeout=120)
    assert third.returncode == 0 and third.stdout.strip() == "lexer patterns parsed: 0"
    # Nothing new to keep (another hash seed, the same patterns): the file is not rewritten.
    assert (file.stat().st_mtime_ns, file.read_text()) == written
    patterns = json.loads(written[1])["patterns"]
    assert 0 < len(patterns) < 100, len(patterns)


def _compile_in_a_function(name):
    import re
    re.search(rf"\b{re.escape(name)}\b", "")        # built from the input
    return re.match(r"a_constant_[0-9]+", "")          # written in the code


def test_only_patterns_the_code_fixes_are_kept(regex_cache):
    """A pattern a function builds (from a macro's name, say) is compiled but not kept; one
    written as a constant, or compiled by a module at its top level, is."""
    assert disk_cache.install(str(regex_cache))
    _compile_in_a_function("some_macro_name")
    exec(compile("import re._compiler\nre._compiler.compile(r'top[-_]level', 0)\n", "m.py", "exec"), {})
    assert sorted(disk_cache._state["added"]) == ["0:a_constant_[0-9]+", "0:top[-_]level"]


# ---------------------------------------------------------------- cyclic garbage collection
def test_no_cycle_collection_runs_while_a_source_compiles():
    """The compile's objects all live to its end: the collector is paused meanwhile (a third
    of a macro-heavy file's CPU time) and resumed afterwards."""
    import gc
    collections = []

    from clcoop.frontend import check, lower, parse
    stage_files = {check.__file__, lower.__file__, parse.__file__, P.__file__}

    def inside_a_compile():
        frame = sys._getframe()
        while frame is not None:
            if frame.f_code.co_filename in stage_files:
                return True
            frame = frame.f_back
        return False

    def count(phase, info):
        if phase == "start" and inside_a_compile():
            collections.append(info["generation"])
    source = "".join(f"float f{i}(float x) {{ return x * {i}.0f + {i}; }}\n" for i in range(200))
    gc.callbacks.append(count)
    try:
        for stages in (driver.compile_source, driver.check_source, driver.preprocess_source):
            assert gc.isenabled()
            gc.collect()          # none pending from before
            stages(source, driver.CompileOptions(filename="many.cl"))
    finally:
        gc.callbacks.remove(count)
    assert collections == []
    assert gc.isenabled()


def test_a_records_fields_and_class_attributes_are_those_dataclass_makes():
    """record builds the Field objects itself (no dataclass processing per class): the same
    fields, in the same order, with the same class attributes left behind."""
    from clcoop.records import record

    def shapes(decorate):
        @decorate
        class Base:
            a: int
            b: str = "b"
            c: list = dataclasses.field(default_factory=list, compare=False)

        @decorate
        class Derived(Base):
            d: float = 1.5
            b: str = "override"                 # keeps its place, new default
            e: tuple = dataclasses.field(default=(1,), repr=False)
        return Base, Derived

    def described(cls):
        return ([(f.name, f.type, f.default, f.default_factory, f.init, f.repr, f.compare, f.hash,
                  f.kw_only, f._field_type) for f in dataclasses.fields(cls)],
                {name: getattr(cls, name, "absent") for name in "abcde"}, cls.__match_args__)

    plain = shapes(lambda cls: dataclasses.dataclass(cls, init=False, repr=False, eq=False))
    lean = shapes(record)
    for expected, got in zip(plain, lean):
        assert described(got) == described(expected)
    value = lean[1](1, "x", [2], 2.5, (3,))
    assert dataclasses.asdict(value) == {"a": 1, "b": "x", "c": [2], "d": 2.5, "e": (3,)}
    assert dataclasses.replace(value, d=4.0).d == 4.0 and lean[1](1).b == "override"
    with pytest.raises(TypeError):
        @record
        class Misordered:
            a: int = 1
            b: int
    with pytest.raises(ValueError):
        @record
        class Mutable:
            a: list = []


def test_a_record_is_made_without_dataclass_processing(monkeypatch):
    from clcoop import records
    records._dataclass_markers()            # its one probe dataclass, made once per process

    def refuse(*args, **kwargs):
        raise AssertionError("dataclass processing")
    monkeypatch.setattr(dataclasses, "_process_class", refuse)

    @records.record(frozen=True)
    class Cheap:
        x: int
        y: int = 2
    assert Cheap(1) == Cheap(1, 2) and dataclasses.fields(Cheap)[1].default == 2
