"""The module text written by clcoop/frontend/lower_print.py must be llvmlite's own
`str(module)`, character for character (the oracle): over compiled kernels, with and without
-g, and over a hand-built module with every variant the fast writers format (metadata,
flags, fast-math flags, argument attributes, tail calls, calling conventions, varargs, no
alignment, returns, selects, phis, vector element and shuffle instructions, a subclass that
prints otherwise)."""
from pathlib import Path

import pytest
from llvmlite import ir

from clcoop.diagnostics import DiagnosticEngine
from clcoop.frontend import check, driver, lower, lower_print
from clcoop.frontend.debug_info import DebugInfo
from clcoop.frontend.llvm_types import mark_volatile
from clcoop.frontend.types import Target

ROOT = Path(__file__).resolve().parents[3]
TEMPLATES = {"workgroup_scope.cl"}      # its types come from -D options
KERNELS = [p for p in sorted((ROOT / "examples").glob("*.cl")) + sorted((ROOT / "test/unit/kernels").glob("*.cl"))
           if p.name not in TEMPLATES]
I32, I64, F32 = ir.IntType(32), ir.IntType(64), ir.FloatType()


def _lowered(path, debug):
    """The llvmlite module of a compile at -O0, renamed as lower() renames it."""
    options = driver.CompileOptions(filename=path.name, debug_info=debug)
    diag = DiagnosticEngine()
    target = Target(options.triple)
    ast = driver.front_end(path.read_text(), options, diag)
    unit = check.check(ast, diag, target, options.fp_contract, options.cl_std)
    lw = lower.Lowerer(target)
    if debug:
        lw.debug = DebugInfo(lw.module, path.name, False, "test")
    lw.lower_unit(unit)
    if debug:       # the DILocations are numbered after llvmlite's metadata (module_text)
        lw.debug.first_location_id = len(lw.module.metadata)
    lower._clang_like_names(lw.module)
    return lw.module


@pytest.mark.parametrize("debug", [False, True], ids=["plain", "g"])
@pytest.mark.parametrize("path", KERNELS[:30], ids=lambda p: p.name)
def test_compiled_modules_print_as_llvmlite_prints_them(path, debug):
    module = _lowered(path, debug)
    fast = lower_print.module_text(module)
    assert fast == str(module)
    assert ("!dbg" in fast) == debug


def test_a_large_kernel_prints_as_llvmlite_prints_it():
    source = "kernel void k(global int *o, global float *f) {\n" + "".join(
        f"  o[{i}] = o[{i + 1}] * {i} + (int)f[{i}] - (o[{i}] > {i} ? 1 : 2);\n"
        f"  f[{i}] = sin(f[{i}]) + (float)o[{i}];\n" for i in range(200)) + "}\n"
    options = driver.CompileOptions(filename="k.cl")
    diag = DiagnosticEngine()
    target = Target(options.triple)
    unit = check.check(driver.front_end(source, options, diag), diag, target, options.fp_contract, options.cl_std)
    lw = lower.Lowerer(target)
    lw.lower_unit(unit)
    lower._clang_like_names(lw.module)
    assert lower_print.module_text(lw.module) == str(lw.module)


def _every_variant():
    module = ir.Module(name="m", context=ir.Context())
    module.triple = "spir64-unknown-unknown"
    callee = ir.Function(module, ir.FunctionType(F32, [F32, ir.PointerType()]), "g")
    callee.calling_convention = "spir_func"
    variadic = ir.Function(module, ir.FunctionType(I32, [ir.PointerType()], var_arg=True), "printf")
    node = module.add_metadata([ir.MetaDataString(module, "hint")])
    f = ir.Function(module, ir.FunctionType(ir.VoidType(), [ir.PointerType(1), F32]), "f")
    p, x = f.args
    entry, other = f.append_basic_block("entry"), f.append_basic_block("")
    b = ir.IRBuilder(entry)
    slot = b.alloca(I32, name="slot")
    slot.align = 4
    counted = b.alloca(I32, size=ir.Constant(I64, 4))           # no alignment, a size operand
    counted.set_metadata("hint", node)
    v = b.load(p, typ=I32)                                       # no alignment
    w = b.load(slot, align=4)
    w.set_metadata("hint", node)
    mark_volatile(b.load(slot, align=4), True)                   # llvmlite's own printing
    b.store(v, slot, align=4)
    b.store(w, counted).set_metadata("hint", node)
    s = b.add(v, w, name="sum", flags=["nsw"])
    s.set_metadata("hint", node)
    b.sub(s, v)
    b.sext(s, I64).set_metadata("hint", node)
    b.trunc(b.zext(s, I64), I32)
    b.gep(p, [ir.Constant(I64, 1)], inbounds=True, source_etype=I32)
    b.gep(p, [ir.Constant(I64, 1), ir.Constant(I32, 0)], source_etype=ir.ArrayType(I32, 4)).set_metadata("hint", node)
    c = b.icmp_signed("<", s, w)
    b.icmp_unsigned("==", s, w).set_metadata("hint", node)
    b.fcmp_ordered("<", x, x, flags=["fast"])
    b.fadd(x, x, flags=["nnan", "ninf"])
    b.call(callee, [x, slot])
    b.call(callee, [x, slot], tail=True, fastmath=("fast",), attrs=("convergent", "nounwind"),
           arg_attrs={1: ("noundef",)}).set_metadata("hint", node)
    b.call(variadic, [slot, v, x])
    b.call(callee, [x, slot], cconv="fastcc")
    vector = ir.Constant(ir.VectorType(I32, 4), ir.Undefined)
    inserted = b.insert_element(vector, v, ir.Constant(I32, 0), name="vecins")
    inserted.set_metadata("hint", node)                          # llvmlite prints no metadata here
    b.extract_element(inserted, ir.Constant(I32, 1)).set_metadata("hint", node)
    b.extract_element(inserted, ir.Constant(I64, 2), name="vecext")
    b.shuffle_vector(inserted, vector, ir.Constant(ir.VectorType(I32, 4), [0] * 4), name="splat")
    b.shuffle_vector(inserted, inserted, ir.Constant(ir.VectorType(I32, 2), [1, 4])).set_metadata("hint", node)
    b.select(c, s, w, name="cond")
    b.select(c, x, x, flags=["fast", "nnan"]).set_metadata("hint", node)
    b.cbranch(c, other, other).set_metadata("hint", node)
    b.position_at_end(other)
    merged = b.phi(I32, name="merged")
    merged.add_incoming(v, entry)
    merged.add_incoming(ir.Constant(I32, 7), entry)
    real = b.phi(F32, flags=["fast"])
    real.add_incoming(x, entry)
    real.set_metadata("hint", node)
    b.ret_void().set_metadata("hint", node)
    for name, metadata in (("h", False), ("h.1", True)):
        h = ir.Function(module, ir.FunctionType(I32, [I32]), name)
        returned = ir.IRBuilder(h.append_basic_block("entry")).ret(h.args[0])
        if metadata:
            returned.set_metadata("hint", node)
    ir.IRBuilder(ir.Function(module, ir.FunctionType(ir.VoidType(), []), "v").append_basic_block()).ret_void()
    return module


def test_every_variant_of_the_fast_writers_prints_as_llvmlite_prints_it():
    module = _every_variant()
    text = str(module)
    assert "tail call fast spir_func float" in text and "noundef" in text and "(ptr, ...)" in text
    assert "load volatile" in text and "!hint" in text
    assert "select fast nnan i1" in text and "phi fast float" in text and "shufflevector <4 x i32>" in text
    assert "ret i32 %\".1\", !hint" in text and "ret void, !hint" in text
    assert lower_print.module_text(_every_variant()) == text


def test_an_instruction_printed_before_keeps_its_text():
    """llvmlite keeps an instruction's text once printed; module_text uses it, as str() does."""
    module = _every_variant()
    inst = module.get_global("f").blocks[0].instructions[0]
    str(inst)
    inst.__dict__["_StrCaching__cached_str"] = "%\"slot\" = alloca i32, align 8"
    assert lower_print.module_text(module) == str(module)
    assert "align 8" in lower_print.module_text(module)


def test_pointer_and_integer_types_are_one_object_each_and_print_as_new_ones():
    """llvm_types.ptr_type and scalar_ir hand out one llvmlite type object per address space
    and width (its text is made once and kept on it); each prints as a new object does."""
    from clcoop.frontend import llvm_types
    from clcoop.frontend import types as T
    for space in (0, 1, 2, 3, 4, 5):
        assert llvm_types.ptr_type(space) is llvm_types.ptr_type(space)
        assert str(llvm_types.ptr_type(space)) == str(ir.PointerType(addrspace=space))
    for name, scalar in T.SCALARS.items():
        if scalar.kind in ("int", "fp8"):
            assert llvm_types.scalar_ir(scalar) is ir.IntType(scalar.bits), name



def test_vector_types_are_one_object_per_element_and_count_and_print_as_new_ones():
    """Lowerer.value_type hands out one ir.VectorType per element type and count (its text
    made once); each is equal to, and prints as, the new one it made before."""
    from clcoop.frontend import llvm_types
    from clcoop.frontend import types as T
    lw = lower.Lowerer(Target(driver.CompileOptions(filename="k.cl").triple))
    made = set()
    for name, scalar in T.SCALARS.items():
        if scalar.kind == "void":
            continue
        for count in (2, 3, 4, 8, 16):
            vector = T.VectorType(scalar, count)
            kept = lw.value_type(vector)
            assert kept is lw.value_type(T.VectorType(T.ScalarType(*[getattr(scalar, f) for f in
                                                                     ("name", "kind", "bits", "signed")]), count))
            fresh = ir.VectorType(llvm_types.scalar_ir(scalar), count)
            assert kept == fresh and str(kept) == str(fresh), (name, count)
            made.add(id(kept))
    assert len(made) == len(lw.vector_types) >= 5 * 10


SPLATS = """
kernel void k(global int4 *o, global float16 *f, global char8 *c, int x, float y, char z) {
    o[0] = (int4)(x) + x;  o[1] = x * o[1];  f[0] = y + f[1];  f[2] = (float16)(y);
    c[0] = (char8)(z) - z;  o[2] = (int4)(x + 1);
}
"""


def _fresh_splat(self, v, vty):
    """ExpressionLowering.splat as it was: new constants at each splat (the oracle)."""
    if isinstance(v, ir.Constant) and not isinstance(v, ir.FormattedConstant):
        return ir.Constant(vty, [v] * vty.count)
    b = self.lw.builder
    ins = b.insert_element(ir.Constant(vty, ir.Undefined), v, ir.Constant(I64, 0), name="splat.splatinsert")
    mask = ir.Constant(ir.VectorType(I32, vty.count), [0] * vty.count)
    return b.shuffle_vector(ins, ir.Constant(vty, ir.Undefined), mask, name="splat.splat")


@pytest.mark.parametrize("debug", [False, True])
def test_splats_share_their_constants_and_print_as_fresh_ones(debug, monkeypatch):
    from clcoop.frontend import lower_expr
    options = driver.CompileOptions(filename="splats.cl", debug_info=debug)
    shared = driver.compile_source(SPLATS, options).ir
    assert shared.count("shufflevector <4 x i32>") == 4 and shared.count("shufflevector") == 8
    module = driver.front_end(SPLATS, options, DiagnosticEngine())
    monkeypatch.setattr(lower_expr.ExpressionLowering, "splat", _fresh_splat)
    assert driver.compile_source(SPLATS, options).ir == shared
    monkeypatch.undo()
    lw = lower.Lowerer(Target(options.triple))
    lw.lower_unit(check.check(module, DiagnosticEngine(), lw.target, options.fp_contract, options.cl_std))
    shuffles = [i for f in lw.module.functions for b in f.blocks for i in b.instructions
                if isinstance(i, ir.ShuffleVector) and str(i.type) == "<4 x i32>"]
    assert len(shuffles) == 4 and all(s.operands[2] is shuffles[0].operands[2] for s in shuffles)


CONSTANTS = """
typedef struct { int a; long b; char c[4]; } S;
typedef union { int4 v; int s[4]; } U;
kernel void k(global long *o, global S *s, int n) {
    int a[8]; S t; U u; char4 c = (char4)(1, 2, 3, 4);
    a[0] = 0; a[3] = 1; a[n] = 1; t.a = 0; t.b = 1; t.c[2] = 3; u.s[1] = 1; u.v.x = 7;
    o[0] = a[1] + (long)3 + (char)300 + (ulong)-1 + t.c[1] + c.y + (bool)1 + true;
    s[1].c[3] = (uchar)255; o[2] = s[0].b + s[n].a + 0x7fffffffffffffffL;
}
"""


@pytest.mark.parametrize("debug", [False, True])
def test_integer_constants_are_shared_and_print_as_fresh_ones(debug, monkeypatch):
    """ExpressionLowering.int_constant hands out one ir.Constant per type object and value;
    the IR is the one made with a new constant at each use (the oracle)."""
    from clcoop.frontend import lower_expr
    options = driver.CompileOptions(filename="constants.cl", debug_info=debug)
    shared = driver.compile_source(CONSTANTS, options).ir
    assert "getelementptr inbounds [8 x i32], ptr %a, i64 0, i64 3" in shared
    monkeypatch.setattr(lower_expr.ExpressionLowering, "int_constant", lambda self, ty, value: ir.Constant(ty, value))
    assert driver.compile_source(CONSTANTS, options).ir == shared
    monkeypatch.undo()
    module = driver.front_end(CONSTANTS, options, DiagnosticEngine())
    lw = lower.Lowerer(Target(options.triple))
    lw.lower_unit(check.check(module, DiagnosticEngine(), lw.target, options.fp_contract, options.cl_std))
    zeros = [op for f in lw.module.functions for b in f.blocks for i in b.instructions
             for op in i.operands if isinstance(op, ir.Constant) and str(op) == "i64 0"]
    assert len(zeros) >= 4 and all(zero is zeros[0] for zero in zeros)
    kept = lw.expressions.int_constants
    assert all(id(ty) == key[0] and constant.type is ty and constant.constant == key[2]
               and type(constant.constant) is key[1] for key, (ty, constant) in kept.items())
    # True and 1 are different entries: llvmlite prints `i1 true` and `i1 1`.
    expressions = lw.expressions
    assert str(expressions.int_constant(ir.IntType(1), True)) == "i1 true"
    assert str(expressions.int_constant(ir.IntType(1), 1)) == "i1 1"


KERNELS_ALIKE = "".join(
    f"kernel void k{i}(global {t} *o, local float *l, int n) {{ o[0] = n; }}\n"
    for i, t in enumerate(["int", "float", "int", "int", "float"]))


class _NothingKept(dict):
    def get(self, key, default=None):
        return default


def test_kernels_with_the_same_arguments_share_their_metadata_nodes():
    """Lowerer.kernel_metadata keeps one node per list of strings or address spaces, the node
    llvmlite's add_metadata finds again for an equal list: the text is the one made with new
    strings and constants for each kernel (nothing kept, the oracle)."""
    options = driver.CompileOptions(filename="alike.cl")
    unit = check.check(driver.front_end(KERNELS_ALIKE, options, DiagnosticEngine()), DiagnosticEngine(),
                       Target(options.triple), options.fp_contract, options.cl_std)
    texts, kept = [], None
    for nothing_kept in (False, True):
        lw = lower.Lowerer(Target(options.triple))
        if nothing_kept:
            lw.kernel_arg_nodes = _NothingKept()
        lw.lower_unit(unit)
        lower._clang_like_names(lw.module)
        texts.append(lower_print.module_text(lw.module))
        kept = kept or lw.kernel_arg_nodes
    assert texts[0] == texts[1] and "kernel_arg_type" in texts[0]
    # address spaces, access qualifiers, type qualifiers and the two lists of types (the base
    # types are the types), each made once for the five kernels
    assert len(kept) == 5


STRUCTS_ALIKE = """
struct anon { int a; };
kernel void k(global int *o) {
""" + "".join(f"    {{ union {{ int v; char raw[4]; }} u{i}; struct {{ float f; }} s{i}; struct anon a{i};"
              f" union {{ int v; }} w{i}; u{i}.v = {i}; s{i}.f = 1; a{i}.a = 2; w{i}.v = 3; o[{i}] = u{i}.raw[0]; }}\n"
              for i in range(40)) + "}\n"


def test_many_anonymous_types_are_numbered_as_counting_from_zero_numbers_them():
    """Lowerer.struct_type goes on numbering a base's duplicates from the number it last took
    (%union.anon.0, .1, ...; a thousand anonymous unions in pocl's test_as_type.cl): the names
    are the ones counting from 0 for each type gives (nothing kept, the oracle)."""
    options = driver.CompileOptions(filename="structs.cl")
    unit = check.check(driver.front_end(STRUCTS_ALIKE, options, DiagnosticEngine()), DiagnosticEngine(),
                       Target(options.triple), options.fp_contract, options.cl_std)
    texts, looked_up = [], []

    class Counted(dict):
        def __contains__(self, name):
            looked_up.append(name)
            return super().__contains__(name)
    for nothing_kept in (False, True):
        lw = lower.Lowerer(Target(options.triple))
        if nothing_kept:
            lw.struct_suffixes = _NothingKept()
        else:
            lw.module.context.identified_types = Counted()
        lw.lower_unit(unit)
        texts.append(lower_print.module_text(lw.module))
    assert texts[0] == texts[1]
    assert len(looked_up) < 3 * 161     # each name tried about once, not once per earlier duplicate
    assert '"union.anon.78" = type' in texts[0] and '"struct.anon.39" = type' in texts[0]


class _OwnReference(ir.Constant):
    def get_reference(self):
        return "own"


def test_reference_is_get_reference_without_the_first_uses_exception():
    """lower_print.reference gives what llvmlite's get_reference gives, for every operand and
    instruction of a module (kept the same way), and raises and catches nothing at a value's
    first use; a class with its own get_reference is asked for it."""
    import sys

    def values(module):
        found = []
        for f in module.functions:
            for block in f.blocks:
                for inst in block.instructions:
                    found += [inst, *inst.operands]
        return found + [ir.Constant(I32, 5), ir.Constant(F32, 0.5), ir.Constant(I64, None)]
    expected = [v.get_reference() for v in values(_every_variant())]
    fresh = values(_every_variant())
    raised = []
    # (a vector constant's elements are referenced inside llvmlite's own formatting)
    vector = ir.Constant(ir.VectorType(I32, 2), [1, 2])
    assert lower_print.reference(vector) == "<i32 1, i32 2>"
    for v in fresh:         # the module's own vector constants (shuffle masks, undef vectors)
        if isinstance(v, ir.Constant) and isinstance(v.type, ir.VectorType):
            lower_print.reference(v)

    def trace(frame, event, arg):
        if event == "exception":
            raised.append(arg[0])
        return trace
    sys.settrace(trace)
    try:
        got = [lower_print.reference(v) for v in fresh]
    finally:
        sys.settrace(None)
    assert got == expected and raised == []
    assert [v.get_reference() for v in fresh] == expected       # kept where llvmlite keeps it
    assert lower_print.reference(_OwnReference(I32, 1)) == "own"


@pytest.mark.parametrize("debug", [False, True], ids=["plain", "g"])
@pytest.mark.parametrize("path", KERNELS[:12], ids=lambda p: p.name)
def test_types_kept_per_object_give_the_ir_of_types_made_anew(path, debug, monkeypatch):
    """Lowerer.mem_type, value_type and align_of keep each answer per C type object; the IR is
    the one made when each is asked anew (memory_type, llvm_type, alignment: the oracle)."""
    options = driver.CompileOptions(filename=path.name, debug_info=debug)
    kept = driver.compile_source(path.read_text(), options).ir
    for method, anew in (("mem_type", "memory_type"), ("value_type", "llvm_type"), ("align_of", "alignment")):
        monkeypatch.setattr(lower.Lowerer, method, getattr(lower.Lowerer, anew))
    assert driver.compile_source(path.read_text(), options).ir == kept


def test_a_kept_type_is_asked_for_once_per_object():
    lw = lower.Lowerer(Target("spir64-unknown-unknown"))
    from clcoop.frontend import types as T
    vector = T.VectorType(T.INT, 4)
    made = []
    real = lw.llvm_type
    lw.llvm_type = lambda t: made.append(t) or real(t)
    assert lw.value_type(vector) is lw.value_type(vector) and made == [vector]
    assert str(lw.mem_type(T.BOOL)) == "i8" and str(lw.value_type(T.BOOL)) == "i1"
    assert lw.align_of(vector) == 16 and set(lw.alignments) == {id(vector)}


STRINGS = r"""
constant char greeting[] = "hi";
kernel void k(global int *o) {
    printf("%d\n", o[0]); printf("%d\n", o[1]); printf("%s\n", "hi"); printf("\x01\xff\"q\"\n");
    printf("%d\n", o[2]); printf("");
}
"""


def _fresh_string(self, e):
    """ExpressionLowering.ex_StringLiteral as it was: a new initializer for each (the oracle)."""
    data = bytearray(e.value)
    array = ir.ArrayType(ir.IntType(8), len(data))
    g = ir.GlobalVariable(self.lw.module, array, self.lw.module.get_unique_name(".str"), addrspace=2)
    g.linkage = "private"
    g.unnamed_addr = True
    g.global_constant = True
    g.align = 1
    g.initializer = ir.Constant(array, data)
    return g


@pytest.mark.parametrize("debug", [False, True])
def test_string_literals_share_their_initializers_and_print_as_fresh_ones(debug, monkeypatch):
    from clcoop.frontend import lower_expr
    options = driver.CompileOptions(filename="strings.cl", debug_info=debug)
    shared = driver.compile_source(STRINGS, options).ir
    assert shared.count('c"%d\\0A\\00"') == 3 and '"\\01\\FF\\22q\\22\\0A\\00"' in shared
    monkeypatch.setattr(lower_expr.ExpressionLowering, "ex_StringLiteral", _fresh_string)
    assert driver.compile_source(STRINGS, options).ir == shared
    monkeypatch.undo()
    lw = lower.Lowerer(Target(options.triple))
    module = driver.front_end(STRINGS, options, DiagnosticEngine())
    lw.lower_unit(check.check(module, DiagnosticEngine(), lw.target, options.fp_contract, options.cl_std))
    strings = [g for g in lw.module.global_values if g.name.startswith(".str")]
    formats = [g for g in strings if bytes(g.initializer.constant) == b"%d\n\0"]
    assert len(strings) == 7 and len(formats) == 3
    assert all(g.initializer is formats[0].initializer for g in formats)
    assert lower_print.module_text(lw.module) == str(lw.module)
