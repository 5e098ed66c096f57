"""Small helpers for building the native engine's generated functions with llvmlite.ir,
in the style of numba's cgutils (docs/native.md, "How generated code is built").

The kernel module is assembled as text (codegen.finish joins the kernel functions, which
are rewritten in place instruction by instruction, with the generated ones). A generated
function is built here as an llvmlite.ir.Function in a module of its own and handed over
as its printed text (function_text): the bridge between the two. Calls of intrinsics and
host functions are declared in that module; the text's callers (builtin_ir.intrinsics_in)
read them back from the calls.

The layouts shared with runtime.py and ll/runtime.ll are reached through context_slot and
region_word only, each spelled once in context.py.
"""
import contextlib
import re

import llvmlite.ir as ir

from clcoop.native.context import CTX, CTX_SLOTS, REGION_ROW_WORDS
from clcoop.native.support import Unsupported

I1, I8, I16, I32, I64 = (ir.IntType(n) for n in (1, 8, 16, 32, 64))
DOUBLE, FLOAT, HALF = ir.DoubleType(), ir.FloatType(), ir.HalfType()
PTR = ir.PointerType()


class BFloatType(ir.types._BaseFloatType):
    """LLVM's bfloat (llvmlite has none): only moved and bitcast here (bfloat_ir.py does
    the arithmetic on its bits; codegen.finish turns every bfloat into i16 at the end)."""
    intrinsic_name = "bf16"

    def __str__(self):
        return "bfloat"

    def format_constant(self, value):
        raise Unsupported("a bfloat constant in a generated function")


BFloatType._create_instance()
BFLOAT = BFloatType()

_SCALARS = {"half": HALF, "bfloat": BFLOAT, "float": FLOAT, "double": DOUBLE, "ptr": PTR, "void": ir.VoidType()}
_VECTOR = re.compile(r"<\s*(\d+) x (.+?)\s*>")
_ADDRSPACE = re.compile(r"ptr addrspace\((\d+)\)")


def parse_type(text):
    """The llvmlite type of an IR type's text: iN, half, bfloat, float, double, ptr,
    ptr addrspace(N), void, <N x T> of those."""
    text = text.strip()
    if text in _SCALARS:
        return _SCALARS[text]
    if re.fullmatch(r"i\d+", text):
        return ir.IntType(int(text[1:]))
    m = _ADDRSPACE.fullmatch(text)
    if m:
        return ir.PointerType(addrspace=int(m.group(1)))
    m = _VECTOR.fullmatch(text)
    if m:
        return ir.VectorType(parse_type(m.group(2)), int(m.group(1)))
    raise Unsupported(f"the type {text} in a generated function")


def lanes(t):
    """Lane count of a vector type, None for a scalar."""
    return t.count if isinstance(t, ir.VectorType) else None


def element(t):
    return t.element if isinstance(t, ir.VectorType) else t


def shaped(t, elem):
    """`elem` with the lanes of `t`: shaped(<4 x float>, i32) is <4 x i32>."""
    return ir.VectorType(elem, t.count) if isinstance(t, ir.VectorType) else elem


def bool_of(t):
    return shaped(t, I1)


def const(t, value):
    """The constant `value` of type t; of a vector type, every lane `value`."""
    if isinstance(t, ir.VectorType):
        return ir.Constant(t, [ir.Constant(t.element, value)] * t.count)
    return ir.Constant(t, value)


def bits_of(t):
    """Width of a scalar or vector element type: i8 -> 8, half -> 16, <4 x float> -> 32."""
    e = element(t)
    if isinstance(e, ir.IntType):
        return e.width
    return {HALF: 16, BFLOAT: 16, FLOAT: 32, DOUBLE: 64}[e]


def int_of_width(t):
    """The integer type as wide as the float type t: float -> i32, <4 x half> -> <4 x i16>."""
    return shaped(t, ir.IntType(bits_of(t)))


def suffix(t):
    """The overloaded-intrinsic suffix of a type: i32, v4i32, f32, v2f16."""
    if isinstance(t, ir.VectorType):
        return f"v{t.count}{suffix(t.element)}"
    if isinstance(t, ir.IntType):
        return f"i{t.width}"
    return t.intrinsic_name


def define(name, ret, params, inline=True):
    """(function, builder at its entry block) of `define internal ret @name(params)` in a
    module of its own; arguments named a0, a1, ... unless params is [(type, name)]."""
    module = ir.Module()
    typed = [p if isinstance(p, tuple) else (p, f"a{i}") for i, p in enumerate(params)]
    fn = ir.Function(module, ir.FunctionType(ret, [t for t, _ in typed]), name=name)
    fn.linkage = "internal"
    if inline:
        fn.attributes.add("alwaysinline")
    for arg, (_, arg_name) in zip(fn.args, typed):
        arg.name = arg_name
    return fn, ir.IRBuilder(fn.append_basic_block("entry"))


def builtin(name, ret, params):
    """A built-in's definition: `ptr %c` (the work-item context) first, then the call's
    parameters a0, a1, ... (ret and params: IR type texts)."""
    return define(name, parse_type(ret), [(PTR, "c")] + [(parse_type(p), f"a{i}") for i, p in enumerate(params)])


def callee(builder, name, ret, params):
    """The function @name(params) -> ret of the builder's module, declared on first use
    (an intrinsic, a host function, or another generated function defined elsewhere)."""
    module = builder.module
    if name in module.globals:
        return module.globals[name]
    return ir.Function(module, ir.FunctionType(ret, params), name=name)


def call(builder, name, ret, args, result=""):
    """`call ret @name(args)`, @name declared in the builder's module."""
    return builder.call(callee(builder, name, ret, [a.type for a in args]), args, name=result)


def intrinsic(builder, base, args, result="", types=None, ret=None):
    """`call @llvm.<base>.<suffixes>(args)`: suffixes of `types` (default: the first
    argument's type), the result of type `ret` (default: the first argument's)."""
    types = types if types is not None else [args[0].type]
    name = ".".join(["llvm", base] + [suffix(t) for t in types])
    return call(builder, name, ret if ret is not None else args[0].type, args, result)


def icmp(builder, predicate, a, b, name=""):
    """icmp with LLVM's predicate names (eq, ne, slt, ult, ...)."""
    instr = ir.instructions.ICMPInstr(builder.block, predicate, a, b, name=name)
    builder._insert(instr)
    return instr


def fcmp(builder, predicate, a, b, name=""):
    """fcmp with LLVM's predicate names (oeq, une, ord, uno, ...)."""
    return builder.fcmp_ordered(predicate, a, b, name=name)


def splat(builder, value, t, name=""):
    """`value` (a scalar) in every lane of the vector type t (insertelement and
    shufflevector, as clang splats); a scalar type gives `value` itself."""
    if not isinstance(t, ir.VectorType):
        return value
    first = builder.insert_element(ir.Constant(t, ir.Undefined), value, ir.Constant(I64, 0), name=f"{name}.0")
    return builder.shuffle_vector(first, ir.Constant(t, ir.Undefined),
                                  ir.Constant(ir.VectorType(I32, t.count), None), name=name)


def context_slot(builder, ctx, slot, name=None):
    """Pointer to the context slot `slot` (context.CTX: the one spelling of the slots)."""
    return builder.gep(ctx, [ir.Constant(I64, CTX[slot])], source_etype=I64, name=f"p.{name or slot}")


def load_slot(builder, ctx, slot, name=None):
    """The i64 in the context slot `slot`."""
    return builder.load(context_slot(builder, ctx, slot, name), name=name or slot, typ=I64)


def region_word(builder, table, row, word, name=""):
    """Pointer to word `word` (context.REGION_LO, ...) of row `row` (a constant) of a region
    table (context.REGION_ROW_WORDS words a row)."""
    return builder.gep(table, [ir.Constant(I64, REGION_ROW_WORDS * row + word)], source_etype=I64, name=name)


_LOCAL = re.compile(r'%"([^"]*)"')
_PLAIN_NAME = re.compile(r"[-\w.$]+")


def splice(build, inputs, out, prefix):
    """IR lines computing `out` = build(builder, *values) inside a function that is being
    rewritten as text (an instruction rewritten in place): `inputs` are [(type text, the
    value's reference there)]; the built code must be one basic block; its values are
    named `prefix`.<name> (prefix: a fresh name of the caller's), its result `out`."""
    fn, b = define("__splice", ir.VoidType(), [parse_type(t) for t, _ in inputs], inline=False)
    result = build(b, *fn.args)
    if len(fn.blocks) != 1 or not isinstance(result, ir.Instruction) or result.parent is not b.block:
        raise AssertionError("a spliced computation is straight-line code ending in a new value")
    names = {arg.name: ref for arg, (_, ref) in zip(fn.args, inputs)}
    for instr in b.block.instructions:
        if instr.name:
            names[instr.name] = out if instr is result else f"{prefix}.{instr.name}"

    def rename(m):
        new = names.get(m.group(1))
        if new is not None:
            return new
        return "%" + m.group(1) if _PLAIN_NAME.fullmatch(m.group(1)) else m.group(0)
    return ["  " + _LOCAL.sub(rename, str(instr).strip()) for instr in b.block.instructions]


def function_text(fn):
    """The bridge to the module assembled as text: the function's definition as LLVM's
    parser reads it (its declarations stay behind; callers declare what it calls)."""
    return str(fn)


def store_atomic(builder, value, ptr, ordering, align):
    """`store atomic value, ptr ordering, align N` (llvmlite's own store_atomic reads the
    pointee of the pointer's type, which an opaque ptr does not have)."""
    instr = ir.instructions.StoreAtomicInstr(builder.block, value, ptr, ordering, align)
    builder._insert(instr)
    return instr


class _TextType(ir.Type):
    """A type the builders only move (load it, pass it on): a kernel argument's struct or
    array, printed as the IR's own text for it (the module's type definitions name it)."""

    def __init__(self, text):
        self.text = text

    def _to_string(self):
        return self.text


def value_type(text):
    """parse_type's type, or for any other first-class type text (a struct, an array) one
    printed as that text."""
    try:
        return parse_type(text)
    except Unsupported:
        return _TextType(text.strip())


def global_ref(builder, name, value_type):
    """The global @name (of value type `value_type`, defined in the module assembled as
    text: a layout table) declared in the builder's module, referred to as an opaque `ptr`
    (llvmlite gives globals typed pointers)."""
    module = builder.module
    if name not in module.globals:
        ir.GlobalVariable(module, value_type, name).type = PTR
    return module.globals[name]


def alloca(builder, value_type, align, name=""):
    """`alloca value_type, align N` in the function's entry block position of the builder,
    referred to as an opaque `ptr`."""
    slot = builder.alloca(value_type, name=name)
    slot.align = align
    slot.type = PTR
    return slot


def new_block(builder, name):
    """A basic block of the builder's function not yet placed: a branch target whose code
    comes later (place puts it at the end of the function)."""
    return ir.Block(parent=builder.function, name=name)


def place(builder, block):
    builder.function.blocks.append(block)
    builder.position_at_end(block)


@contextlib.contextmanager
def for_range(builder, start, stop, name):
    """`for (i = start; i < stop; i++)` over i64 (start, stop: values or ints), as numba's
    cgutils.for_range: yields (i, the block that goes on with the next i: a `continue`);
    the body may also leave the function. The builder ends at the loop's exit."""
    start, stop = (ir.Constant(I64, x) if isinstance(x, int) else x for x in (start, stop))
    before = builder.block
    head = builder.append_basic_block(f"{name}.loop")
    builder.branch(head)
    builder.position_at_end(head)
    index = builder.phi(I64, name=name)
    body, step, end = builder.append_basic_block(f"{name}.body"), new_block(builder, f"{name}.next"), \
        new_block(builder, f"{name}.end")
    builder.cbranch(icmp(builder, "ult", index, stop, name=f"{name}.more"), body, end)
    builder.position_at_end(body)
    yield index, step
    if not builder.block.is_terminated:
        builder.branch(step)
    place(builder, step)
    index.add_incoming(start, before)
    index.add_incoming(builder.add(index, ir.Constant(I64, 1), name=f"{name}.inc"), step)
    builder.branch(head).set_metadata("llvm.loop", _LoopNotVectorized())
    place(builder, end)


# The loops for_range makes (the engine's own: over a matrix's elements, a subgroup's
# contexts) are not for LLVM's loop vectorizer. It if-converted their checked bodies into
# predicated scalar blocks, most of some modules' code: a tensor load's element loop with
# its addressing inlined became 11,000 lines, and examples/conv2d_nhwc.cl's module took
# 2.2 s in opt and llc instead of 0.6, running no faster (bench_ports.py). The metadata is
# one node, numbered when the module's text is assembled (loop_metadata).
LOOP_NOT_VECTORIZED = "!__clcoop_loop_not_vectorized"


class _LoopNotVectorized:
    def get_reference(self):
        return LOOP_NOT_VECTORIZED


def loop_metadata(module_text):
    """The module's text with for_range's loop metadata defined: `llvm.loop` names a
    distinct node that refers to itself (LLVM's loop ID, LangRef "llvm.loop") and holds
    `llvm.loop.vectorize.enable false`, numbered after the module's own metadata."""
    if LOOP_NOT_VECTORIZED not in module_text:
        return module_text
    n = 1 + max((int(m) for m in re.findall(r"^!(\d+) = ", module_text, re.M)), default=-1)
    text = module_text.replace(LOOP_NOT_VECTORIZED, f"!{n}")
    return f'{text}\n!{n} = distinct !{{!{n}, !{n + 1}}}\n!{n + 1} = !{{!"llvm.loop.vectorize.enable", i1 false}}\n'


def context_at(builder, contexts, index, name, per=1):
    """Pointer to work-item context number `index` of an array of contexts (context.CTX_SLOTS
    words each; per > 1: the first of groups of `per` contexts, a subgroup's lanes)."""
    offset = builder.mul(index, ir.Constant(I64, CTX_SLOTS * per), name=f"{name}.off")
    return builder.gep(contexts, [offset], source_etype=I64, name=name)


def freeze(builder, value, name=""):
    """`freeze value` (llvmlite's builder has no method for it)."""
    instr = ir.instructions.Instruction(builder.block, value.type, "freeze", [value], name=name)
    builder._insert(instr)
    return instr


_QUOTED_PLAIN = re.compile(r'([%@])"([A-Za-z_.$][-\w.$]*)"')


def plain_text(fn):
    """function_text with the names that need no quotes printed without them (%"acc0" ->
    %acc0, @"mad" -> @mad): for generated code whose text callers read it by name
    (coop_ir's routines: `define internal void @name`)."""
    return _QUOTED_PLAIN.sub(r"\1\2", function_text(fn))
