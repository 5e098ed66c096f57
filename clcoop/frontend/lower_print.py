"""The text of an llvmlite module, the same characters as `str(module)`, written faster.

llvmlite prints an instruction through four layers (its string cache, `_to_string`, `descr`
into a list, a join and an rstrip) and a `str.format` for each; for a large kernel (30,000
instructions, pocl's test_mad_sat.cl) that was a tenth of the compile. Here the common
instruction classes (loads, stores, casts, GEPs, allocas, branches, calls, comparisons, the
plain operators, returns, selects, phis and the vector element and shuffle instructions)
are written by one function each, the whole line at once (the `%name = `,
the descr with the same format as llvmlite 0.50's, and what its final strip leaves); every
other class (and clcoop's own subclasses, such as VolatileLoad) is printed by
llvmlite itself. test_lower_print compares the two texts over whole compiles.
"""
from llvmlite import ir
from llvmlite.ir import instructions as I
from llvmlite.ir._utils import _StringReferenceCaching

# The attributes where llvmlite keeps a value's printed text and its reference once made
# (_utils._StrCaching, _StringReferenceCaching).
TEXT_CACHE = "_StrCaching__cached_str"
REFERENCE_CACHE = "_StringReferenceCaching__cached_refstr"
_GET_REFERENCE = _StringReferenceCaching.get_reference


def reference(value):
    """`value.get_reference()`. llvmlite's looks for the kept text and catches the
    AttributeError of its first use, which every value and new constant has (one per
    instruction defined: ~5% of printing a large module); made and kept here the same way
    without the exception. A class that defines its own get_reference is asked for it."""
    kept = value.__dict__.get(REFERENCE_CACHE)
    if kept is not None:
        return kept
    if type(value).get_reference is not _GET_REFERENCE:
        return value.get_reference()
    text = value.__dict__[REFERENCE_CACHE] = value._get_reference()
    return text


def module_text(module):
    """`str(module)` (llvmlite's Module.__repr__), defined functions written by function_text."""
    lines = [f'; ModuleID = "{module.name}"',
             f'target triple = "{module.triple}"',
             f'target datalayout = "{module.data_layout}"',
             '']
    lines += [t.get_declaration() for t in module.get_identified_types().values()]
    lines += [function_text(v) if isinstance(v, ir.Function) and v.blocks else str(v)
              for v in module.globals.values()]
    lines += module._get_metadata_lines()
    return "\n".join(lines)


def function_text(fn):
    """`str(fn)` of a defined function (llvmlite's Function.descr and Block.descr)."""
    buf = []
    fn.descr_prototype(buf)
    buf.append("{\n")
    line_of = _LINE.get
    for block in fn.blocks:
        buf.append(f"{block._format_name()}:\n")
        # `str(inst)`: llvmlite's NamedValue._to_string (`%name = ` before a value's descr,
        # the whole stripped at its end) with the class's descr: each writer below makes the
        # line at once (a large module has ~30,000 instructions).
        for inst in block.instructions:
            text = inst.__dict__.get(TEXT_CACHE)
            if text is None:
                write = line_of(inst.__class__)
                if write is not None:
                    buf.append(write(inst))
                    continue
                text = str(inst)
            buf.append(f"  {text}\n")
    buf.append("}\n")
    return "".join(buf)


# The writers read a type's kept text and a value's kept reference from the object's
# __dict__ inline (`t.__dict__.get(TEXT_CACHE) or str(t)`, `v.__dict__.get(REFERENCE_CACHE)
# or reference(v)`: str() and reference() when nothing is kept, or a class keeps nothing,
# such as llvmlite's FloatType). A call per type and per operand, through _StrCaching.__str__
# or reference(), was ~10% of printing pocl's test_hadd.cl (~60,000 of each).

def _metadata(inst):
    """_HasMetadata._stringify_metadata(leading_comma=True)."""
    return "".join([f", !{key} {node.get_reference()}" for key, node in inst.metadata.items()])


def _load(inst):
    [pointer] = inst.operands
    typ, pointer_type = inst.type, pointer.type
    align = "" if inst.align is None else f", align {inst.align}"
    metadata = _metadata(inst) if inst.metadata else ""
    return (f"  {inst.__dict__.get(REFERENCE_CACHE) or reference(inst)} = load "
            f"{typ.__dict__.get(TEXT_CACHE) or str(typ)}, "
            f"{pointer_type.__dict__.get(TEXT_CACHE) or str(pointer_type)} "
            f"{pointer.__dict__.get(REFERENCE_CACHE) or reference(pointer)}{align}{metadata}\n")


def _store(inst):
    value, pointer = inst.operands
    value_type, pointer_type = value.type, pointer.type
    align = "" if inst.align is None else f", align {inst.align}"
    metadata = _metadata(inst) if inst.metadata else ""
    return (f"  store {value_type.__dict__.get(TEXT_CACHE) or str(value_type)} "
            f"{value.__dict__.get(REFERENCE_CACHE) or reference(value)}, "
            f"{pointer_type.__dict__.get(TEXT_CACHE) or str(pointer_type)} "
            f"{pointer.__dict__.get(REFERENCE_CACHE) or reference(pointer)}{align}{metadata}\n")


def _cast(inst):
    """llvmlite writes a space before the metadata (`to i32 , !dbg !7`), stripped without."""
    operand = inst.operands[0]
    source, typ = operand.type, inst.type
    metadata = " " + _metadata(inst) if inst.metadata else ""
    return (f"  {inst.__dict__.get(REFERENCE_CACHE) or reference(inst)} = {inst.opname} "
            f"{source.__dict__.get(TEXT_CACHE) or str(source)} "
            f"{operand.__dict__.get(REFERENCE_CACHE) or reference(operand)} "
            f"to {typ.__dict__.get(TEXT_CACHE) or str(typ)}{metadata}\n")


def _gep(inst):
    """A space before the metadata, as _cast."""
    indices = ", ".join([f"{i.type} {i.__dict__.get(REFERENCE_CACHE) or reference(i)}" for i in inst.indices])
    op = "getelementptr inbounds" if inst.inbounds else "getelementptr"
    pointer = inst.pointer
    element, pointer_type = inst.source_etype, pointer.type
    metadata = " " + _metadata(inst) if inst.metadata else ""
    text = (f"{inst.__dict__.get(REFERENCE_CACHE) or reference(inst)} = {op} "
            f"{element.__dict__.get(TEXT_CACHE) or str(element)}, "
            f"{pointer_type.__dict__.get(TEXT_CACHE) or str(pointer_type)} "
            f"{pointer.__dict__.get(REFERENCE_CACHE) or reference(pointer)}, {indices}{metadata}")
    return f"  {text if indices or metadata else text.rstrip()}\n"


def _alloca(inst):
    text = f"  {inst.__dict__.get(REFERENCE_CACHE) or reference(inst)} = {inst.opname} {inst.allocated_type}"
    if inst.operands:
        operand, = inst.operands
        text += f", {operand.type} {reference(operand)}"
    if inst.align is not None:
        text += f", align {inst.align}"
    if inst.metadata:
        text += _metadata(inst)
    return text + "\n"


def _terminator(inst):
    operands = ", ".join([f"{op.type} {op.__dict__.get(REFERENCE_CACHE) or reference(op)}"
                          for op in inst.operands])
    metadata = _metadata(inst) if inst.metadata else ""
    text = f"{inst.opname} {operands}{metadata}"
    return f"  {text if operands or metadata else text.rstrip()}\n"


def _plain(inst):
    opname = inst.opname
    if inst.flags:
        opname = " ".join([opname] + inst.flags)
    operands = ", ".join([op.__dict__.get(REFERENCE_CACHE) or reference(op) for op in inst.operands])
    typ = inst.type
    metadata = _metadata(inst) if inst.metadata else ""
    text = (f"{inst.__dict__.get(REFERENCE_CACHE) or reference(inst)} = {opname} "
            f"{typ.__dict__.get(TEXT_CACHE) or str(typ)} {operands}{metadata}")
    return f"  {text if operands or metadata else text.rstrip()}\n"


def _compare(inst):
    """A space before the metadata, as _cast."""
    flags = "".join([" " + flag for flag in inst.flags])
    lhs, rhs = inst.operands[0], inst.operands[1]
    typ = lhs.type
    metadata = " " + _metadata(inst) if inst.metadata else ""
    return (f"  {inst.__dict__.get(REFERENCE_CACHE) or reference(inst)} = {inst.opname}{flags} {inst.op} "
            f"{typ.__dict__.get(TEXT_CACHE) or str(typ)} {lhs.__dict__.get(REFERENCE_CACHE) or reference(lhs)}, "
            f"{rhs.__dict__.get(REFERENCE_CACHE) or reference(rhs)}{metadata}\n")


def _call(inst):
    """CallInstr._descr(add_metadata=True)."""
    arg_attributes = inst.arg_attributes
    operands = inst.operands
    if arg_attributes:
        args = []
        for i, a in enumerate(operands[1:]):
            attrs = " ".join(arg_attributes[i]._to_list(a.type)) + " " if i in arg_attributes else ""
            args.append(f"{a.type} {attrs}{reference(a)}")
    else:
        args = [f"{a.type.__dict__.get(TEXT_CACHE) or str(a.type)} {a.__dict__.get(REFERENCE_CACHE) or reference(a)}"
                for a in operands[1:]]
    callee = operands[0]
    fnty = callee.function_type
    ty = fnty if fnty.var_arg else fnty.return_type
    callee_ref = f"{ty} {callee.__dict__.get(REFERENCE_CACHE) or reference(callee)}"
    if inst.cconv:
        callee_ref = f"{inst.cconv} {callee_ref}"
    tail = f"{inst.tail} " if inst.tail else ""
    fn_attrs = " " + " ".join(inst.attributes._to_list(fnty.return_type)) if inst.attributes else ""
    fm_attrs = " " + " ".join(inst.fastmath._to_list(fnty.return_type)) if inst.fastmath else ""
    metadata = _metadata(inst) if inst.metadata else ""
    defined = "" if isinstance(inst.type, ir.VoidType) else \
        f"{inst.__dict__.get(REFERENCE_CACHE) or reference(inst)} = "
    return f"  {defined}{tail}{inst.opname}{fm_attrs} {callee_ref}({', '.join(args)}){fn_attrs}{metadata}\n"


def _operand_list(inst):
    return ", ".join([f"{op.type.__dict__.get(TEXT_CACHE) or str(op.type)} "
                      f"{op.__dict__.get(REFERENCE_CACHE) or reference(op)}" for op in inst.operands])


def _vector_element(inst):
    """ExtractElement's and InsertElement's descr: llvmlite writes no metadata for them."""
    text = f"{inst.__dict__.get(REFERENCE_CACHE) or reference(inst)} = {inst.opname} {_operand_list(inst)}"
    return f"  {text.rstrip()}\n"


def _shuffle(inst):
    """ShuffleVector's descr: a space before the metadata, as _cast."""
    metadata = _metadata(inst) if inst.metadata else ""
    text = f"{inst.__dict__.get(REFERENCE_CACHE) or reference(inst)} = shufflevector {_operand_list(inst)} {metadata}"
    return f"  {text.rstrip()}\n"


def _select(inst):
    """SelectInstr's descr: its flags joined after `select` (two spaces without any), a
    space before the metadata."""
    cond, lhs, rhs = inst.operands
    metadata = _metadata(inst) if inst.metadata else ""
    text = (f"{inst.__dict__.get(REFERENCE_CACHE) or reference(inst)} = select {' '.join(inst.flags)} "
            f"{cond.type} {cond.__dict__.get(REFERENCE_CACHE) or reference(cond)}, "
            f"{lhs.type} {lhs.__dict__.get(REFERENCE_CACHE) or reference(lhs)}, "
            f"{rhs.type} {rhs.__dict__.get(REFERENCE_CACHE) or reference(rhs)} {metadata}")
    return f"  {text.rstrip()}\n"


def _phi(inst):
    """PhiInstr's descr: flags, type, the [value, block] pairs, the metadata, space-separated."""
    incomings = ", ".join([f"[{v.__dict__.get(REFERENCE_CACHE) or reference(v)}, "
                           f"{b.__dict__.get(REFERENCE_CACHE) or reference(b)}]" for v, b in inst.incomings])
    metadata = _metadata(inst) if inst.metadata else ""
    typ = inst.type
    text = (f"{inst.__dict__.get(REFERENCE_CACHE) or reference(inst)} = phi {' '.join(inst.flags)} "
            f"{typ.__dict__.get(TEXT_CACHE) or str(typ)} {incomings} {metadata}")
    return f"  {text.rstrip()}\n"


def _ret(inst):
    """Ret's descr (a void instruction: no `%name = `)."""
    metadata = _metadata(inst) if inst.metadata else ""
    if inst.operands:
        value = inst.operands[0]
        text = f"{inst.opname} {value.type} {value.__dict__.get(REFERENCE_CACHE) or reference(value)}{metadata}"
    else:
        text = f"{inst.opname}{metadata}"
    return f"  {text.rstrip()}\n"


# Exact classes only: a subclass may print differently (clcoop's VolatileLoad).
_LINE = {
    I.LoadInstr: _load,
    I.StoreInstr: _store,
    I.CastInstr: _cast,
    I.GEPInstr: _gep,
    I.AllocaInstr: _alloca,
    I.Branch: _terminator,
    I.ConditionalBranch: _terminator,
    I.Instruction: _plain,
    I.ICMPInstr: _compare,
    I.FCMPInstr: _compare,
    I.CallInstr: _call,
    I.ExtractElement: _vector_element,
    I.InsertElement: _vector_element,
    I.ShuffleVector: _shuffle,
    I.SelectInstr: _select,
    I.PhiInstr: _phi,
    I.Ret: _ret,
}
