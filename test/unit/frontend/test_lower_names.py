"""Value names at -O0 (clcoop/frontend/lower.py, _clang_like_names): renamed in llvmlite's
text before LLVM parses it, exactly as LLVM's own Value::setName renames them after
(_clang_like_names_in_llvm, the oracle here): unnamed temporaries numbered, `name.N`
made unique with the function's one counter."""
from pathlib import Path

import llvmlite.binding as llvm
import pytest

from clcoop.frontend import driver, lower

ROOT = Path(__file__).resolve().parents[3]

# llvmlite-style text: `.N` temporaries, `name.N` duplicates whose base name exists (x.1),
# is free (y.1), or collides with a name LLVM's counter would make (x1); an unnamed block.
HANDWRITTEN = r'''
define i32 @"f"(i32 %"x", i32 %"x1")
{
entry:
  %"x.addr" = alloca i32, align 4
  %"x.1" = add i32 %"x", 1
  %"y.1" = add i32 %"x.1", %"x1"
  %".5" = add i32 %"y.1", 2
  br label %"for.cond.1"
for.cond.1:
  %".7" = phi i32 [ %".5", %"entry" ], [ %".9", %".3" ]
  %"x.2" = icmp slt i32 %".7", 10
  br i1 %"x.2", label %".3", label %"for.cond"
.3:
  %".9" = add i32 %".7", 1
  br label %"for.cond.1"
for.cond:
  %"for.cond.7" = add i32 %".7", %".5"
  ret i32 %"for.cond.7"
}

define void @"g"()
{
entry:
  ret void
}
'''


def _through_llvm(text):
    module = llvm.parse_assembly(text, context=llvm.create_context())
    lower._clang_like_names_in_llvm(module)
    module.verify()
    return str(module)


def _through_text(text):
    module = llvm.parse_assembly(lower._clang_like_names(text), context=llvm.create_context())
    module.verify()
    return str(module)


def test_handwritten_collisions_are_renamed_as_llvm_renames_them():
    expected = _through_llvm(HANDWRITTEN)
    assert "%x2 = add" in expected and "%0 = add" in expected      # the case is not trivial
    assert _through_text(HANDWRITTEN) == expected


# workgroup_scope.cl is a template: its types come from -D options (test_workgroup_scope.py).
TEMPLATES = {"workgroup_scope.cl"}
KERNELS = [p for p in sorted((ROOT / "examples").glob("*.cl")) + sorted((ROOT / "test/unit/kernels").glob("*.cl"))
           if p.name not in TEMPLATES]


@pytest.mark.parametrize("path", KERNELS[:40], ids=lambda p: p.name)
def test_compiled_kernels_get_the_names_llvm_would_give(path, monkeypatch):
    options = driver.CompileOptions(filename=path.name, debug_info=True)
    text_renamed = driver.compile_source(path.read_text(), options).ir
    monkeypatch.setattr(lower, "_clang_like_names", lambda text: text)
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
