"""native/irbuild.py: the cgutils-style helpers the generated functions are built with, and
the two bridges to the module assembled as text (a printed definition, spliced lines)."""
import llvmlite.binding as llvm
import pytest

from clcoop.native import irbuild
from clcoop.native.context import CTX, REGION_HI, REGION_ROW_WORDS
from clcoop.native.support import Unsupported


@pytest.mark.parametrize("text", ["i1", "i8", "i128", "half", "bfloat", "float", "double", "ptr", "ptr addrspace(3)",
                                  "<4 x i8>", "<2 x half>", "<8 x bfloat>", "void"])
def test_parse_type_prints_back(text):
    assert str(irbuild.parse_type(text)) == text


def test_parse_type_refuses_what_it_does_not_know():
    with pytest.raises(Unsupported, match="x86_fp80"):
        irbuild.parse_type("x86_fp80")


def test_printed_definition_is_valid_llvm_with_its_layout_words():
    """function_text: a definition LLVM parses and verifies (its intrinsic declared
    beside it), reading context slot `table` and word REGION_HI of row 2 of the table."""
    fn, b = irbuild.builtin("f", "i64", ["<2 x i32>"])
    table = b.inttoptr(irbuild.load_slot(b, fn.args[0], "table"), irbuild.PTR, name="tab")
    high = b.load(irbuild.region_word(b, table, 2, REGION_HI, "w"), name="hi", typ=irbuild.I64)
    wide = irbuild.intrinsic(b, "smax", [fn.args[1], irbuild.const(fn.args[1].type, -3)], "m")
    lane = b.sext(b.extract_element(wide, irbuild.const(irbuild.I64, 1)), irbuild.I64)
    b.ret(b.add(high, lane))
    text = irbuild.function_text(fn)
    assert f"i64 {CTX['table']}\n" in text and f"i64 {2 * REGION_ROW_WORDS + REGION_HI}\n" in text
    assert "alwaysinline" in text and text.startswith('define internal i64 @"f"(ptr %"c", <2 x i32> %"a0")')
    module = "declare <2 x i32> @llvm.smax.v2i32(<2 x i32>, <2 x i32>)\n" + text
    llvm.parse_assembly(module).verify()


def test_splice_names_temporaries_under_the_prefix_and_the_result_out():
    def build(b, x, y):
        s = b.add(x, y, name="s")
        return b.mul(s, irbuild.splat(b, b.extract_element(s, irbuild.const(irbuild.I64, 0), name="e"), s.type, "v"),
                     name="m")
    lines = irbuild.splice(build, [("<2 x i32>", "%a"), ("<2 x i32>", "<i32 1, i32 2>")], "%out", "%__t7")
    assert lines[0] == "  %__t7.s = add <2 x i32> %a, <i32 1, i32 2>"
    assert lines[-1] == "  %out = mul <2 x i32> %__t7.s, %__t7.v"
    body = "\n".join(lines)
    llvm.parse_assembly(f"define <2 x i32> @g(<2 x i32> %a) {{\n{body}\n  ret <2 x i32> %out\n}}").verify()


def test_splice_refuses_control_flow():
    def build(b, x):
        with b.if_then(irbuild.icmp(b, "eq", x, irbuild.const(x.type, 0))):
            pass
        return b.add(x, x)
    with pytest.raises(AssertionError, match="straight-line"):
        irbuild.splice(build, [("i32", "%a")], "%out", "%p")
