"""Value names at -O0 (clcoop/frontend/lower.py, _clang_like_names): renamed on llvmlite's
objects before the module is printed, exactly as LLVM's own Value::setName renames them
after parsing (_clang_like_names_in_llvm, the oracle here): unnamed temporaries numbered,
`name.N` made unique with the function's one counter."""
from pathlib import Path

import llvmlite.binding as llvm
import pytest
from llvmlite import ir

from clcoop.frontend import driver, lower
from spies import record_calls

ROOT = Path(__file__).resolve().parents[3]
I32 = ir.IntType(32)


def _handwritten():
    """llvmlite's names as it makes them: `.N` temporaries, `name.N` duplicates whose base
    name exists (x.1), is free (y.1), or collides with a name LLVM's counter would make (x1);
    an unnamed block (llvmlite's `.N`); a use of a value before its definition (a phi)."""
    module = ir.Module(name="m", context=ir.Context())
    f = ir.Function(module, ir.FunctionType(I32, [I32, I32]), "f")
    x, x1 = f.args
    x.name, x1.name = "x", "x1"
    entry, loop, body, done = (f.append_basic_block(n) for n in ("entry", "for.cond.1", "", "for.cond"))
    b = ir.IRBuilder(entry)
    b.alloca(I32, name="x.addr")
    x_1 = b.add(x, ir.Constant(I32, 1), name="x.1")
    y_1 = b.add(x_1, x1, name="y.1")
    t5 = b.add(y_1, ir.Constant(I32, 2), name=".5")
    b.branch(loop)
    b.position_at_end(loop)
    phi = b.phi(I32, name=".7")
    x_2 = b.icmp_signed("<", phi, ir.Constant(I32, 10), name="x.2")
    b.cbranch(x_2, body, done)
    b.position_at_end(body)
    t9 = b.add(phi, ir.Constant(I32, 1), name=".9")
    b.branch(loop)
    phi.add_incoming(t5, entry)
    phi.add_incoming(t9, body)
    b.position_at_end(done)
    b.ret(b.add(phi, t5, name="for.cond.7"))
    g = ir.Function(module, ir.FunctionType(ir.VoidType(), []), "g")
    ir.IRBuilder(g.append_basic_block("entry")).ret_void()
    return module


def _through_llvm(module):
    parsed = llvm.parse_assembly(str(module), context=llvm.create_context())
    lower._clang_like_names_in_llvm(parsed)
    parsed.verify()
    return str(parsed)


def _renamed_first(module):
    lower._clang_like_names(module)
    parsed = llvm.parse_assembly(str(module), context=llvm.create_context())
    parsed.verify()
    return str(parsed)


def test_handwritten_collisions_are_renamed_as_llvm_renames_them():
    expected = _through_llvm(_handwritten())
    assert "%x2 = add" in expected and "%0 = add" in expected      # the case is not trivial
    assert "\n2:" in expected                                      # the unnamed block, numbered
    assert _renamed_first(_handwritten()) == expected


def test_names_with_dots_and_digits_are_renamed_as_llvm_renames_them():
    """The `.N` suffix rule (LLVM strips the last `.digits`): nested suffixes, a dot without
    digits, digits without a dot, a suffix of zero, a non-ASCII decimal digit."""
    module = ir.Module(name="m", context=ir.Context())
    f = ir.Function(module, ir.FunctionType(I32, [I32]), "f")
    x, = f.args
    x.name = "x"
    b = ir.IRBuilder(f.append_basic_block("entry.0"))
    value = x
    for name in ("a.1.2", "a.1", "z.", "w.x1", "q.0", "q", "d.\u0663", "d", "9", ".12.3", "e.1e"):
        value = b.add(value, ir.Constant(I32, 1), name=name)
    b.ret(value)
    expected = _through_llvm(module)
    assert "%a.11 = add" in expected and "%z. = add" in expected and "%.12 = add" in expected
    assert _renamed_first(module) == expected


# workgroup_scope.cl is a template: its types come from -D options (test_workgroup_scope.py).
TEMPLATES = {"workgroup_scope.cl"}
KERNELS = [p for p in sorted((ROOT / "examples").glob("*.cl")) + sorted((ROOT / "test/unit/kernels").glob("*.cl"))
           if p.name not in TEMPLATES]


@pytest.mark.parametrize("path", KERNELS[:40], ids=lambda p: p.name)
def test_compiled_kernels_get_the_names_llvm_would_give(path, monkeypatch):
    options = driver.CompileOptions(filename=path.name, debug_info=True)
    text_renamed = driver.compile_source(path.read_text(), options).ir
    monkeypatch.setattr(lower, "_clang_like_names", lambda module: None)
    original = lower.finish

    def finish_renaming_in_llvm(module_text, opt_level, source_name=None):
        parse = llvm.parse_assembly

        def parse_and_rename(text, context=None):
            module = parse(text, context=context)
            lower._clang_like_names_in_llvm(module)
            return module
        monkeypatch.setattr(llvm, "parse_assembly", parse_and_rename)
        try:
            return original(module_text, opt_level, source_name)
        finally:
            monkeypatch.setattr(llvm, "parse_assembly", parse)
    monkeypatch.setattr(lower, "finish", finish_renaming_in_llvm)
    assert driver.compile_source(path.read_text(), options).ir == text_renamed


def test_an_O0_compile_renames_without_a_foreign_call_per_instruction(monkeypatch):
    def refuse(module):
        raise AssertionError("renamed through llvmlite.binding")
    monkeypatch.setattr(lower, "_clang_like_names_in_llvm", refuse)
    ir = driver.compile_source("kernel void k(global int *o) { int a = o[0]; int b = a + 1;"
                               " { int a = 2; o[1] = a + b; } }\n",
                               driver.CompileOptions(filename="k.cl")).ir
    assert "%a1 = alloca" in ir and "%0 = load" in ir


def test_value_names_register_as_llvmlites_name_scope_does():
    """lower.ValueNames against llvmlite's NameScope: the same names for a random sequence of
    registrations (repeated bases, names that look deduplicated, the empty name), and the
    same refusal of a duplicate that may not be renamed."""
    from llvmlite.ir._utils import DuplicatedNameError, NameScope
    import random
    rng = random.Random(26)
    pool = ["", "x", "x.1", "x.2", "call", "call.1", ".1", ".3", "for.cond", "for.cond.1", "a1"]
    for _ in range(200):
        oracle, fast = NameScope(), NameScope()
        oracle.register("arg")
        fast.register("arg")
        fast = lower.ValueNames(fast)
        for _ in range(rng.randint(1, 60)):
            name = rng.choice(pool)
            dedup = rng.random() < 0.9
            try:
                expected = oracle.register(name, deduplicate=dedup)
            except DuplicatedNameError:
                with pytest.raises(DuplicatedNameError):
                    fast.register(name, deduplicate=dedup)
                continue
            assert fast.register(name, deduplicate=dedup) == expected
        assert fast._useset == oracle._useset
        assert dict(fast._basenamemap) == dict(oracle._basenamemap)


def test_a_defined_functions_values_register_through_value_names(monkeypatch):
    registered = []
    register = lower.ValueNames.register

    def counting(self, name, deduplicate=False):
        registered.append(name)
        return register(self, name, deduplicate)
    monkeypatch.setattr(lower.ValueNames, "register", counting)
    ir_text = driver.compile_source("int f(int x) { int y = x + 1; return y + x; }\n",
                                    driver.CompileOptions(filename="k.cl")).ir
    assert registered.count("add") == 2 and "y" in registered
    assert "%y = alloca" in ir_text and "%add = add" in ir_text and "%add1 = add" in ir_text


def _references_made_by_llvmlite(module):
    """Each block's and value-defining instruction's reference as llvmlite makes it from
    the value's name (its kept text dropped first), with the kept text."""
    made = {}
    for fn in module.functions:
        for block in fn.blocks:
            for value in [block] + [i for i in block.instructions if not isinstance(i.type, ir.VoidType)]:
                kept = value.__dict__.pop(lower.REFERENCE_CACHE, None)
                # An unnamed temporary's reference is its number (`%3`), kept since it was
                # numbered: llvmlite would write `%""`.
                made[id(value)] = (value.get_reference() if value._name else kept, kept)
                if kept is not None:
                    value.__dict__[lower.REFERENCE_CACHE] = kept
    return made


def test_renaming_keeps_each_values_final_reference_as_llvmlite_would_make_it():
    module = _handwritten()
    f = module.get_global("f")
    b = ir.IRBuilder(f.blocks[0])
    b.position_at_start(f.blocks[0])
    b.add(f.args[0], f.args[1], name='q"uote\\d.3')       # escaped by llvmlite's reference
    b.add(f.args[0], f.args[1], name='plain"')
    lower._clang_like_names(module)
    references = _references_made_by_llvmlite(module)
    # Every renamed or named value's reference was kept by the renaming, and it is llvmlite's.
    assert all(kept is not None for _, kept in references.values())
    assert all(made == kept for made, kept in references.values())
    assert '%"q\\22uote\\5cd"' in str(module) and '%"plain\\22"' in str(module)


@pytest.mark.parametrize("path", sorted((ROOT / "examples").glob("*.cl"))[:8], ids=lambda p: p.name)
def test_compiled_kernels_keep_llvmlites_references(path):
    from clcoop.diagnostics import DiagnosticEngine
    from clcoop.frontend import check
    from clcoop.frontend.types import Target
    options = driver.CompileOptions(filename=path.name)
    diag = DiagnosticEngine()
    target = Target(options.triple)
    unit = check.check(driver.front_end(path.read_text(), options, diag), diag, target, options.fp_contract,
                       options.cl_std)
    lw = lower.Lowerer(target)
    lw.lower_unit(unit)
    lower._clang_like_names(lw.module)
    assert all(made == kept for made, kept in _references_made_by_llvmlite(lw.module).values())


_DEFINE_LINE = __import__("re").compile(r"^define .*$", __import__("re").MULTILINE)


def _fix_function_metadata_by_lines(text):
    """The regular expression over every line that lower._fix_function_metadata replaces."""
    return _DEFINE_LINE.sub(lambda line: lower._FN_MD_COMMA.sub(r"\1", line[0]), text)


@pytest.mark.parametrize("text", [
    "define void @k() !a !1, !b !2, !c !3 {\n  ret void\n}\n",
    '; ModuleID = "m"\ndefine void @k() !a !1, !b !2 {\nentry:\n  ret void\n}\n\ndefine void @g() {\n}\n'
    "define void @h() !x !4, !y.z !5\n",
    "declare void @d() !a !1, !b !2\n  define void @i() !a !1, !b !2\n",     # neither is a define line
    "@g = global i32 0, !a !1, !b !2\ndefine void @k() !a !1, !b !2",        # no newline at the end
    "",
])
def test_function_metadata_commas_are_fixed_on_define_lines_only(text):
    assert lower._fix_function_metadata(text) == _fix_function_metadata_by_lines(text)


def test_a_compiled_kernels_function_metadata_is_fixed_as_by_lines(monkeypatch):
    fix = lower._fix_function_metadata
    texts = record_calls(monkeypatch, lower, "_fix_function_metadata")
    source = "kernel void k(global int *o, local float *l) { o[0] = 1; }\nvoid f(void) {}\n"
    driver.compile_source(source, driver.CompileOptions(filename="k.cl"))
    [text] = texts
    assert "!kernel_arg_addr_space !" in text and text.count("\ndefine ") == 2
    assert fix(text) == _fix_function_metadata_by_lines(text) != text
