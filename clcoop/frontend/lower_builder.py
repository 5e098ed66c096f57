"""llvmlite's IRBuilder with its commonest instructions made in one step.

An instruction made through llvmlite passes a chain of constructors (the builder's method or
its decorator's wrapper, the class's __init__, Instruction's, NamedValue's with its
assertions, _set_name, the scope's register): about 2 us each, and a large kernel makes
~30,000 (pocl's test_bitselect.cl: 9,216 loads, 5,292 casts, 2,928 binary operators, 2,640
GEPs, 2,448 stores), a tenth of its lowering. `Builder` makes loads, stores, GEPs, casts,
the binary operators, calls, comparisons and branches (and `new_block` the blocks: 3,457
blocks, 3,360 branches and 1,488 comparisons there) as the same objects with the same
attributes, set in llvmlite 0.50's order, and inserts them as IRBuilder._insert does; any
other call, or a call these do not cover (a load without its type, a GEP without its source
element type, a pointer that is not opaque, a predicate llvmlite refuses), goes to
llvmlite's method. test_lower_builder builds every one both ways and
compares the objects, the blocks and the names registered.
"""
from llvmlite import ir
from llvmlite.ir import instructions as I
from llvmlite.ir import types as llvm_types
from llvmlite.ir.builder import _CMP_MAP

_new = object.__new__
# One `void` for every store: llvmlite makes a new VoidType each time, and types compare
# and print by their text.
_VOID = ir.VoidType()
_I1 = ir.IntType(1)
# IRBuilder's methods the comparisons and terminators replace, for what they do not cover.
_COMPARE_METHODS = {(I.ICMPInstr, "s"): ir.IRBuilder.icmp_signed, (I.ICMPInstr, "u"): ir.IRBuilder.icmp_unsigned,
                    (I.FCMPInstr, "o"): ir.IRBuilder.fcmp_ordered, (I.FCMPInstr, "u"): ir.IRBuilder.fcmp_unordered}
_TERMINATOR_METHODS = {I.Branch: ir.IRBuilder.branch, I.ConditionalBranch: ir.IRBuilder.cbranch}


def _instruction(cls, block, typ, name, opname, operands):
    """An instance of `cls` as Instruction.__init__(block, typ, opname, operands, name)
    leaves it (no flags). Here and below the __dict__ is given whole, in llvmlite's order:
    one dict made, where update's keywords made one and copied it."""
    inst = _new(cls)
    inst.__dict__ = {"parent": block, "type": typ, "_name": block.scope.register(name, deduplicate=True),
                     "opname": opname, "operands": operands, "flags": [], "metadata": {}}
    return inst


def _cast(opname):
    """IRBuilder's `_castop(opname)` method."""
    def cast(self, val, typ, name=""):
        if val.type == typ:
            return val
        inst = _instruction(I.CastInstr, self._block, typ, name, opname, [val])
        self._insert(inst)
        return inst
    cast.__name__ = opname
    return cast


def _binary(method):
    """IRBuilder's `_binop` method `method` (`or_` for `or`)."""
    opname = method.rstrip("_")

    def binary(self, lhs, rhs, name="", flags=()):
        if lhs.type != rhs.type:
            return getattr(ir.IRBuilder, method)(self, lhs, rhs, name, flags)     # its error
        inst = _new(I.Instruction)
        inst.__dict__ = {"parent": self._block, "type": lhs.type,
                         "_name": self._block.scope.register(name, deduplicate=True), "opname": opname,
                         "operands": (lhs, rhs), "flags": list(flags), "metadata": {}}
        self._insert(inst)
        return inst
    binary.__name__ = method
    return binary


def _compare(cls, prefix):
    """IRBuilder's comparison `icmp_signed` (cls ICMPInstr, prefix "s"), `icmp_unsigned`
    ("u"), `fcmp_ordered` (FCMPInstr, "o") or `fcmp_unordered` ("u"): the predicate as
    llvmlite spells it (== and != of integers take no prefix; a float predicate may be
    given by its name), an i1 or <N x i1> result. What llvmlite refuses goes to its method."""
    integer = cls is I.ICMPInstr
    theirs = _COMPARE_METHODS[cls, prefix]

    def compare(self, cmpop, lhs, rhs, name="", flags=()):
        op = _CMP_MAP.get(cmpop, None if integer else cmpop)
        if cmpop in _CMP_MAP and not (integer and cmpop in ("==", "!=")):
            op = prefix + op
        if op not in cls.VALID_OP or not all(flag in cls.VALID_FLAG for flag in flags):
            return theirs(self, cmpop, lhs, rhs, name, *([flags] if flags else []))     # its error
        typ = lhs.type
        block = self._block
        inst = _new(cls)
        inst.__dict__ = {"parent": block,
                         "type": llvm_types.VectorType(_I1, typ.count) if isinstance(typ, llvm_types.VectorType)
                         else _I1,
                         "_name": block.scope.register(name, deduplicate=True), "opname": cls.OPNAME,
                         "operands": [lhs, rhs], "flags": list(flags), "metadata": {}, "op": op}
        self._insert(inst)
        return inst
    compare.__name__ = theirs.__name__
    return compare


def _terminate(self, cls, operands):
    """IRBuilder._set_terminator of a new `cls` ("br") with these operands; a block that has
    its terminator goes to llvmlite (its assertion)."""
    block = self._block
    if block.terminator is not None:
        return _TERMINATOR_METHODS[cls](self, *operands)
    inst = _new(cls)
    inst.__dict__ = {"parent": block, "type": _VOID, "_name": block.scope.register("", deduplicate=True),
                     "opname": "br", "operands": operands, "flags": [], "metadata": {}}
    self._insert(inst)
    block.terminator = inst
    return inst


def new_block(function, name=""):
    """`ir.Block(parent=function, name=name)`, not placed in the function: a block's
    constructor chain (NamedValue's assertions, a new LabelType, the name registered) for
    each of pocl's test_bitselect.cl's 3,457 blocks."""
    block = _new(ir.Block)
    scope = function.scope
    block.__dict__ = {"parent": function, "type": llvm_types.LabelType(),
                      "_name": scope.register(name, deduplicate=True), "scope": scope,
                      "instructions": [], "terminator": None}
    return block


# The cast and binary methods Builder replaces, by their IRBuilder names.
CASTS = ("trunc", "zext", "sext", "fptrunc", "fpext", "bitcast", "addrspacecast", "fptoui",
         "uitofp", "fptosi", "sitofp", "ptrtoint", "inttoptr")
BINARY = ("shl", "lshr", "ashr", "add", "fadd", "sub", "fsub", "mul", "fmul", "udiv", "sdiv",
          "fdiv", "urem", "srem", "frem", "or_", "and_", "xor")


class Builder(ir.IRBuilder):
    """ir.IRBuilder, its loads, stores, GEPs, casts and binary operators made directly."""

    def load(self, ptr, name="", align=None, typ=None):
        if typ is None or not isinstance(ptr.type, llvm_types.PointerType):
            return super().load(ptr, name, align, typ)
        inst = _instruction(I.LoadInstr, self._block, typ, name, "load", [ptr])
        inst.align = align
        self._insert(inst)
        return inst

    def store(self, value, ptr, align=None):
        pointer_type = ptr.type
        if not isinstance(pointer_type, llvm_types.PointerType) or not pointer_type.is_opaque:
            return super().store(value, ptr, align)
        inst = _instruction(I.StoreInstr, self._block, _VOID, "", "store", [value, ptr])
        inst.align = align
        self._insert(inst)
        return inst

    def call(self, fn, args, name="", cconv=None, tail=False, fastmath=(), attrs=(), arg_attrs=None):
        """A call of a defined or declared function with no attributes, its arguments of
        the parameters' types (not metadata); any other call is llvmlite's (its checks, its
        errors). 3,540 calls in pocl's test_hadd.cl: llvmlite's CallInstr also compares each
        argument's type by its text."""
        if tail or fastmath or attrs or arg_attrs or not isinstance(fn, ir.Function):
            return super().call(fn, args, name, cconv, tail, fastmath, attrs, arg_attrs)
        ftype = fn.ftype
        for arg, expected in zip(args, ftype.args):
            if arg.type is not expected and (isinstance(expected, ir.MetaDataType) or arg.type != expected):
                return super().call(fn, args, name, cconv, tail, fastmath, attrs, arg_attrs)
        if len(args) < len(ftype.args):
            return super().call(fn, args, name, cconv, tail, fastmath, attrs, arg_attrs)   # its IndexError
        block = self._block
        inst = _new(I.CallInstr)
        inst.__dict__ = {"cconv": fn.calling_convention if cconv is None else cconv, "tail": "",
                         "fastmath": I.FastMathFlags(), "attributes": I.CallInstrAttributes(),
                         "arg_attributes": {}, "parent": block, "type": ftype.return_type,
                         "_name": block.scope.register(name, deduplicate=True), "opname": "call",
                         "operands": [fn] + list(args), "flags": [], "metadata": {}}
        self._insert(inst)
        return inst

    def entry_alloca(self, block, index, typ, pointer_type, name):
        """`typ`'s slot of type `pointer_type` inserted at `index` of `block`, as a new
        IRBuilder positioned there would make it by `alloca(typ, name=name)` (no dbg, no
        count) with its type then set to `pointer_type`; this builder is left where it is.
        Lowering makes one per local and parameter (1,980 in pocl's test_hadd.cl), and
        llvmlite's way took a new builder and a search of the entry block for each."""
        inst = _new(I.AllocaInstr)
        inst.__dict__ = {"parent": block, "type": pointer_type,
                         "_name": block.scope.register(name, deduplicate=True), "opname": "alloca",
                         "operands": (), "flags": [], "metadata": {}, "allocated_type": typ, "align": None}
        block.instructions.insert(index, inst)
        return inst

    def branch(self, target):
        return _terminate(self, I.Branch, [target])

    def cbranch(self, cond, truebr, falsebr):
        return _terminate(self, I.ConditionalBranch, [cond, truebr, falsebr])

    def splat(self, value, undef, index, mask):
        """`insert_element(undef, value, index, name="splat.splatinsert")`, then
        `shuffle_vector(that, undef, mask, name="splat.splat")`: clang's splat of a scalar,
        with lower's operands for the vector type (its undef vector, `i64 0` and an all-zero
        i32 mask), which pass llvmlite's checks by construction; the shuffle's type is the
        undef vector's (llvmlite makes an equal new one and checks each mask element).
        pocl's test_convert_type_16.cl makes 540. Other operands go through llvmlite."""
        vector_type = undef.type
        if value.type != vector_type.element or mask.type.count != vector_type.count \
                or any(element.constant != 0 for element in mask.constant):
            inserted = self.insert_element(undef, value, index, name="splat.splatinsert")
            return self.shuffle_vector(inserted, undef, mask, name="splat.splat")
        block = self._block
        register = block.scope.register
        inserted = _new(I.InsertElement)
        inserted.__dict__ = {"parent": block, "type": vector_type,
                             "_name": register("splat.splatinsert", deduplicate=True), "opname": "insertelement",
                             "operands": [undef, value, index], "flags": [], "metadata": {}}
        self._insert(inserted)
        splat = _new(I.ShuffleVector)
        splat.__dict__ = {"parent": block, "type": vector_type,
                          "_name": register("splat.splat", deduplicate=True), "opname": "shufflevector",
                          "operands": [inserted, undef, mask], "flags": [], "metadata": {}}
        self._insert(splat)
        return splat

    def gep(self, ptr, indices, inbounds=False, name="", source_etype=None):
        if source_etype is None:
            return super().gep(ptr, indices, inbounds, name, source_etype)
        block = self._block
        inst = _new(I.GEPInstr)
        inst.__dict__ = {"source_etype": source_etype, "parent": block, "type": ptr.type,
                         "_name": block.scope.register(name, deduplicate=True), "opname": "getelementptr",
                         "operands": [ptr] + list(indices), "flags": [], "metadata": {}, "pointer": ptr,
                         "indices": indices, "inbounds": inbounds}
        self._insert(inst)
        return inst


Builder.icmp_signed = _compare(I.ICMPInstr, "s")
Builder.icmp_unsigned = _compare(I.ICMPInstr, "u")
Builder.fcmp_ordered = _compare(I.FCMPInstr, "o")
Builder.fcmp_unordered = _compare(I.FCMPInstr, "u")
for _method in CASTS:
    setattr(Builder, _method, _cast(_method))
for _method in BINARY:
    setattr(Builder, _method, _binary(_method))
