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


def counted_sum(name):
    """i64 name(ptr p, i64 n): the sum of p[0..n) by for_range (a loop LLVM vectorizes)."""
    fn, b = irbuild.define(name, irbuild.I64, [(irbuild.PTR, "p"), (irbuild.I64, "n")], inline=False)
    total = irbuild.alloca(b, irbuild.I64, 8, "t")
    b.store(irbuild.const(irbuild.I64, 0), total)
    with irbuild.for_range(b, 0, fn.args[1], "i") as (i, _):
        x = b.load(b.gep(fn.args[0], [i], source_etype=irbuild.I64), typ=irbuild.I64)
        b.store(b.add(b.load(total, typ=irbuild.I64), x), total)
    b.ret(b.load(total, typ=irbuild.I64))
    return irbuild.function_text(fn)


def test_for_range_loops_are_left_out_of_llvms_loop_vectorizer():
    """The back edge names one loop ID, numbered after the module's own metadata; LLVM
    parses it and leaves the loop scalar at O3, where the same loop without it is
    vectorized (vector.body)."""
    from clcoop.native import jit
    own = '!0 = !{!"the module\'s own"}\n!named = !{!0}\n'
    text = irbuild.loop_metadata(own + counted_sum("s") + counted_sum("u"))
    assert text.count(", !llvm.loop !1") == 2 and "__clcoop" not in text
    assert '!1 = distinct !{!1, !2}\n!2 = !{!"llvm.loop.vectorize.enable", i1 false}' in text
    public = text.replace("define internal", "define")
    llvm.parse_assembly(public).verify()
    assert "vector.body" not in jit.optimize_text(public, 3)
    plain = public.replace(", !llvm.loop !1", "")
    assert "vector.body" in jit.optimize_text(plain, 3)
    assert irbuild.loop_metadata("define void @f() {\n  ret void\n}\n").endswith("}\n")


def test_the_tensor_routines_of_a_kernel_are_not_vectorized():
    """examples/conv2d_nhwc.cl: its tensor loads' element loops, with the addressing
    inlined, had been if-converted into 11,000 lines of predicated blocks (2.2 s of its
    module's 2.6 s in opt and llc)."""
    import pathlib
    import re
    import clcoop
    source = (pathlib.Path(__file__).resolve().parents[3] / "examples" / "conv2d_nhwc.cl").read_text()
    program = clcoop.Program(source).build(engine="native")
    functions = re.split(r"^define ", program._native.engine.optimized_ir, flags=re.M)
    routines = [f for f in functions if f.split("(", 1)[0].split("@")[-1].startswith("__clcoop_coop.")]
    assert routines and not [f for f in routines if "vector.body" in f]
