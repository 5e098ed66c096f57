"""clcoop/frontend/lower_builder.py's Builder makes loads, stores, GEPs, casts and binary
operators without llvmlite's constructor chain; llvmlite's IRBuilder is the oracle: the same
calls on two identical modules must leave the same objects (class, attributes in order,
names), the same blocks and the same names registered."""
import pytest
from llvmlite import ir
from llvmlite.ir._utils import NameScope

from clcoop.frontend import driver, lower
from clcoop.frontend.lower import ValueNames
from clcoop.frontend.lower_builder import BINARY, CASTS, Builder

I1, I8, I32, I64, F32, F64 = (ir.IntType(1), ir.IntType(8), ir.IntType(32), ir.IntType(64),
                              ir.FloatType(), ir.DoubleType())
PTR = ir.PointerType()


def _plain(value):
    """An attribute's value, comparable across the two modules: objects by class and name."""
    if isinstance(value, (list, tuple)):
        return type(value).__name__, [_plain(v) for v in value]
    if isinstance(value, dict):
        return {k: _plain(v) for k, v in value.items()}
    if isinstance(value, ir.Type):
        return "type", type(value).__name__, str(value)
    if isinstance(value, ir.Constant):
        return "constant", str(value)
    if isinstance(value, ir.MetaDataArgument):
        return "metadata argument", _plain(value.wrapped_value)
    if isinstance(value, NameScope):
        return "scope", sorted(value._useset)        # a block's: its function's (checked there)
    if isinstance(value, (ir.NamedValue, ir.Block)):
        return type(value).__name__, value._name
    return value


def _state(value):
    return type(value).__name__, [(k, _plain(v)) for k, v in vars(value).items()]


def _function(builder_class, debug=False):
    """A function with two arguments, its scope a ValueNames (as lower's), and a builder."""
    module = ir.Module()
    fn = ir.Function(module, ir.FunctionType(ir.VoidType(), [PTR, I32]), "f")
    fn.scope = ValueNames(fn.scope)
    builder = builder_class(fn.append_basic_block("entry"))
    if debug:
        builder.debug_metadata = module.add_metadata([ir.Constant(I32, 7)])
    return fn, builder


def _each_way(steps, debug=False):
    """Run steps(builder, fn) with llvmlite's IRBuilder and with Builder; return both states."""
    states = []
    for builder_class in (ir.IRBuilder, Builder):
        fn, builder = _function(builder_class, debug)
        made = steps(builder, fn)
        block = fn.blocks[0]
        states.append(([_state(v) for v in made], [_state(i) for i in block.instructions],
                       sorted(fn.scope._useset), dict(fn.scope._basenamemap), builder._anchor, str(fn)))
    return states


def _memory(builder, fn):
    pointer, count = fn.args
    slot = builder.alloca(I32, name="slot")
    made = [builder.load(pointer, name="x", align=4, typ=I32),
            builder.load(pointer, name="x", typ=F32),             # a duplicate name, no alignment
            builder.load(slot, name=""),                          # no type: llvmlite's own path
            builder.store(count, pointer, align=4),
            builder.store(count, slot),
            builder.gep(pointer, [count], inbounds=True, name="arrayidx", source_etype=I32),
            builder.gep(pointer, [ir.Constant(I32, 0), count], name="arrayidx", source_etype=ir.ArrayType(I32, 4)),
            builder.gep(pointer, (count,), inbounds=False, name="", source_etype=I8)]
    return made


@pytest.mark.parametrize("debug", [False, True], ids=["plain", "dbg"])
def test_loads_stores_and_geps_are_llvmlites(debug):
    theirs, ours = _each_way(_memory, debug)
    assert ours == theirs


def _casts(builder, fn):
    pointer, count = fn.args
    wide = builder.sext(count, I64, name="conv")
    real = builder.sitofp(count, F32, name="conv")
    made = [builder.trunc(count, I8, name="conv"), builder.zext(count, I64), wide,
            builder.fptrunc(builder.fpext(real, F64, name="ext"), F32, name="conv"),
            builder.bitcast(real, I32, name="astype"), builder.fptoui(real, I32), builder.uitofp(count, F64),
            builder.fptosi(real, I64, name="conv"), builder.ptrtoint(pointer, I64, name="p"),
            builder.inttoptr(wide, PTR, name="p"), builder.addrspacecast(pointer, ir.PointerType(addrspace=1)),
            builder.zext(count, I32, name="same")]      # no cast: the value itself
    assert made[-1] is count
    return made[:-1]


def test_every_cast_is_llvmlites():
    assert set(CASTS) == {"trunc", "zext", "sext", "fptrunc", "fpext", "bitcast", "addrspacecast",
                          "fptoui", "uitofp", "fptosi", "sitofp", "ptrtoint", "inttoptr"}
    theirs, ours = _each_way(_casts)
    assert ours == theirs


def _binaries(builder, fn):
    _, count = fn.args
    real = builder.sitofp(count, F32, name="conv")
    made = []
    for method in BINARY:
        operand = real if method.startswith("f") else count
        made.append(getattr(builder, method)(operand, operand, name=method.rstrip("_")))
    made.append(builder.add(count, count, name="add", flags=["nsw"]))
    made.append(builder.fmul(real, real, flags=("fast",)))
    return made


def test_every_binary_operator_is_llvmlites():
    theirs, ours = _each_way(_binaries)
    assert ours == theirs


def _calls(builder, fn):
    pointer, count = fn.args
    module = fn.module
    callee = ir.Function(module, ir.FunctionType(I32, [PTR, I32]), "g")
    callee.calling_convention = "spir_func"
    void = ir.Function(module, ir.FunctionType(ir.VoidType(), []), "h")
    printf = ir.Function(module, ir.FunctionType(I32, [PTR], var_arg=True), "printf")
    meta = ir.Function(module, ir.FunctionType(ir.VoidType(), [ir.MetaDataType()]), "llvm.m")
    made = [builder.call(callee, [pointer, count], name="call"),
            builder.call(callee, (pointer, count), name="call", cconv="spir_func"),   # a duplicate name
            builder.call(void, []),
            builder.call(printf, [pointer, count, ir.Constant(F64, 1.5)], name="call", cconv="spir_func"),
            builder.call(callee, [pointer, count], tail=True),                         # llvmlite's own paths
            builder.call(callee, [pointer, count], attrs=("convergent",)),
            builder.call(callee, [pointer, count], arg_attrs={0: ()}),
            builder.call(meta, [ir.Constant(I32, 1)])]
    return made


@pytest.mark.parametrize("debug", [False, True], ids=["plain", "dbg"])
def test_calls_are_llvmlites(debug):
    theirs, ours = _each_way(_calls, debug)
    assert ours == theirs


def _allocas(builder, fn):
    """Lowerer.alloca's steps: a new IRBuilder at the start of the entry block or after the
    last alloca, its alloca given an opaque pointer type; Builder.entry_alloca is told the
    index instead."""
    pointer, count = fn.args
    entry = fn.blocks[0]
    made = [builder.load(pointer, name="x", typ=I32)]
    slots = []
    for typ, name in ((I32, "x"), (ir.ArrayType(I8, 4), "x"), (F32, ""), (PTR, "p.addr")):
        if isinstance(builder, Builder):
            slot = builder.entry_alloca(entry, len(slots), typ, PTR, name)
        else:
            b = ir.IRBuilder(entry)
            if slots:
                b.position_after(slots[-1])
            else:
                b.position_at_start(entry)
            slot = b.alloca(typ, name=name)
            slot.type = PTR
        slots.append(slot)
    return made + slots


def test_entry_allocas_are_llvmlites():
    theirs, ours = _each_way(_allocas)
    assert ours == theirs


def test_mismatched_operands_and_pointers_fail_as_llvmlite_fails():
    fn, builder = _function(Builder)
    pointer, count = fn.args
    with pytest.raises(ValueError, match="Operands must be the same type"):
        builder.add(count, ir.Constant(I64, 1))
    with pytest.raises(TypeError, match="not a pointer"):
        builder.load(count, typ=I32)
    with pytest.raises(TypeError, match="not a pointer"):
        builder.store(count, count)
    callee = ir.Function(fn.module, ir.FunctionType(I32, [PTR, I32]), "g")
    with pytest.raises(TypeError, match="arg mismatch"):
        builder.call(callee, [count, count])
    with pytest.raises(IndexError):
        builder.call(callee, [pointer])
    assert fn.blocks[0].instructions == []


def test_a_compile_makes_its_instructions_through_builder(monkeypatch):
    def refuse(*args, **kwargs):
        raise AssertionError("an instruction made through llvmlite's IRBuilder")
    for method in ("load", "store", "gep", "sext", "mul", "add", "call", "alloca", "icmp_signed",
                   "fcmp_ordered", "branch", "cbranch"):
        monkeypatch.setattr(ir.IRBuilder, method, refuse)
    source = ("int f(int x) { return x; }\n"
              "kernel void k(global int *o, global long *p) { int i = f(o[1]) * 3; p[i] = i + o[2];\n"
              "  if (i < 3 && (float)i > 2.0f) p[0] = 1; }")
    ir_text = driver.compile_source(source, driver.CompileOptions(filename="k.cl")).ir
    assert "getelementptr inbounds i64" in ir_text and "sext i32" in ir_text
    assert "call spir_func i32 @f" in ir_text and "%i = alloca i32" in ir_text
    monkeypatch.undo()
    assert driver.compile_source(source, driver.CompileOptions(filename="k.cl")).ir == ir_text


def test_the_lowerer_builds_functions_with_builder():
    unit_source = "kernel void k(global int *o) { o[0] = 1; }"
    options = driver.CompileOptions(filename="k.cl")
    from clcoop.diagnostics import DiagnosticEngine
    from clcoop.frontend import check
    from clcoop.frontend.types import Target
    diag = DiagnosticEngine()
    target = Target(options.triple)
    unit = check.check(driver.front_end(unit_source, options, diag), diag, target, options.fp_contract,
                       options.cl_std)
    lw = lower.Lowerer(target)
    lw.lower_unit(unit)
    assert type(lw.builder) is Builder


def _comparisons(builder, fn):
    _, count = fn.args
    real = builder.sitofp(count, F32, name="conv")
    vector = builder.insert_element(ir.Constant(ir.VectorType(F32, 4), ir.Undefined), real,
                                    ir.Constant(I32, 0), name="v")
    integers = builder.insert_element(ir.Constant(ir.VectorType(I32, 4), ir.Undefined), count,
                                      ir.Constant(I32, 0), name="w")
    made = []
    for op in ("==", "!=", "<", "<=", ">", ">="):
        made += [builder.icmp_signed(op, count, count, name="cmp"), builder.icmp_unsigned(op, count, count),
                 builder.icmp_unsigned(op, integers, integers, name="cmp"),
                 builder.fcmp_ordered(op, real, real, name="cmp"), builder.fcmp_unordered(op, real, real),
                 builder.fcmp_ordered(op, vector, vector, name="cmp", flags=("fast",)),
                 builder.fcmp_unordered(op, real, real, name="cmp", flags=["nnan", "ninf"])]
    for name in ("ord", "uno", "true", "false", "oeq", "une"):      # a float predicate by its name
        made += [builder.fcmp_ordered(name, real, real, name="cmp"), builder.fcmp_unordered(name, real, real)]
    return made


@pytest.mark.parametrize("debug", [False, True], ids=["plain", "dbg"])
def test_comparisons_are_llvmlites(debug):
    theirs, ours = _each_way(_comparisons, debug)
    assert ours == theirs


def _branches(builder, fn):
    """Blocks made by lower's way (not placed, then appended), branches between them."""
    _, count = fn.args
    blocks = []
    for name in ("if.then", "if.end", "if.then", "", "for.cond"):
        block = lower.new_block(fn, name) if isinstance(builder, Builder) else ir.Block(parent=fn, name=name)
        fn.blocks.append(block)
        blocks.append(block)
    cond = builder.icmp_signed("<", count, count, name="cmp")
    made = [cond, builder.cbranch(cond, blocks[0], blocks[1])]
    for block, target in zip(blocks, blocks[1:] + blocks[:1]):
        builder.position_at_end(block)
        made.append(builder.branch(target))
    assert all(block.scope is fn.scope for block in blocks)
    return made + blocks + [builder.block.terminator]


@pytest.mark.parametrize("debug", [False, True], ids=["plain", "dbg"])
def test_blocks_and_branches_are_llvmlites(debug):
    theirs, ours = _each_way(_branches, debug)
    assert ours == theirs


def test_refused_comparisons_and_branches_fail_as_llvmlite_fails():
    fn, builder = _function(Builder)
    _, count = fn.args
    real = builder.sitofp(count, F32)
    with pytest.raises(ValueError, match="invalid comparison"):
        builder.icmp_signed("ord", count, count)
    with pytest.raises(ValueError, match="invalid comparison"):
        builder.fcmp_ordered("~", real, real)
    with pytest.raises(ValueError, match="invalid flag"):
        builder.fcmp_ordered("<", real, real, flags=("nsw",))
    builder.branch(fn.blocks[0])
    with pytest.raises(AssertionError):
        builder.branch(fn.blocks[0])
    with pytest.raises(AssertionError):
        builder.cbranch(ir.Constant(I1, 1), fn.blocks[0], fn.blocks[0])
    assert len(fn.blocks[0].instructions) == 2


def _splats(builder, fn):
    """lower_expr.splat's operands for <4 x i32> and <16 x float>, then a mask that is not
    all zeros and a value of another type (llvmlite's own path, and its error)."""
    _, count = fn.args
    real = builder.sitofp(count, F32, name="conv")
    made = []
    for value, vector_type, mask in ((count, ir.VectorType(I32, 4), [0] * 4),
                                     (real, ir.VectorType(F32, 16), [0] * 16),
                                     (count, ir.VectorType(I32, 4), [0, 1, 2, 3]),
                                     (count, ir.VectorType(I32, 4), [0] * 4)):
        undef = ir.Constant(vector_type, ir.Undefined)
        index = ir.Constant(I64, 0)
        mask = ir.Constant(ir.VectorType(I32, vector_type.count), mask)
        if isinstance(builder, Builder):
            made.append(builder.splat(value, undef, index, mask))
        else:
            inserted = builder.insert_element(undef, value, index, name="splat.splatinsert")
            made.append(builder.shuffle_vector(inserted, undef, mask, name="splat.splat"))
        made.append(made[-1].operands[0])
    return made


@pytest.mark.parametrize("debug", [False, True], ids=["plain", "dbg"])
def test_splats_are_llvmlites(debug):
    theirs, ours = _each_way(_splats, debug)
    assert ours == theirs


def test_a_splat_of_a_value_of_another_type_fails_as_llvmlite_fails():
    fn, builder = _function(Builder)
    _, count = fn.args
    vector_type = ir.VectorType(F32, 4)
    with pytest.raises(TypeError, match="value needs to be of type"):
        builder.splat(count, ir.Constant(vector_type, ir.Undefined), ir.Constant(I64, 0),
                      ir.Constant(ir.VectorType(I32, 4), [0] * 4))
