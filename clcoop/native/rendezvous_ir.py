"""The skeleton of a matrix rendezvous function (coop_routines.py, tensor_routines.py), built
with llvmlite.ir through irbuild (docs/native.md, "How generated code is built").

A rendezvous function `i1 @name(ptr %ctxs, i64 %first, i64 %count)` runs once per subgroup
(or work-group) at a matrix load, store, mul-add, reduction, conversion or tensor access:
the driver calls it over the contexts of the work-items `first .. first + count` once all of
them wait there. It returns whether it recorded a fault. Routine builds its entry (the
partial-subgroup fault, the uniform-operand checks, as the interpreter's
coop_calls.Subgroups) and gives the loops over the work-items and their components.
"""
import llvmlite.ir as ir

from clcoop.native import irbuild
from clcoop.native.context import FAULT_COOP

I1, I8, I32, I64, PTR = irbuild.I1, irbuild.I8, irbuild.I32, irbuild.I64, irbuild.PTR
# Sub-codes of FAULT_COOP (in the fault's address word; runtime.py words them).
NON_UNIFORM, PARTIAL_SUBGROUP, NEGATIVE_LOAD_STRIDE, STORE_STRIDE, COORD_INDEX = 1, 2, 3, 4, 5
# A load's or store's operand that differs across the sub-group, by its context slot (the
# fault's size word holds the differing value, its region word the first work-item's).
NON_UNIFORM_POINTER, NON_UNIFORM_LAYOUT, NON_UNIFORM_STRIDE = 6, 7, 8
NON_UNIFORM_OPERAND = {"coop0": NON_UNIFORM_POINTER, "coop1": NON_UNIFORM_LAYOUT, "coop2": NON_UNIFORM_STRIDE}


def i64(value):
    return ir.Constant(I64, value)


class Routine:
    """A rendezvous function being built: fn, its builder b, %base (the first work-item's
    context, whose fault a subgroup's fault is), %count, and `uniform` (slot name -> the
    first work-item's value of each operand checked uniform)."""

    def __init__(self, name, site, group_size, checks=()):
        self.fn, self.b = irbuild.define(name, I1, [(PTR, "ctxs"), (I64, "first"), (I64, "count")], inline=False)
        # noinline: one call per sub-group and operation; inlining them all into the driver
        # multiplied its compile time.
        self.fn.attributes.add("noinline")
        self.ctxs, first, self.count = self.fn.args
        self.site = ir.Constant(I32, site)
        self.base = irbuild.context_at(self.b, self.ctxs, first, "base")
        b = self.b
        with b.if_then(irbuild.icmp(b, "ne", self.count, i64(group_size), name="partial")):
            # (its word: how many work-items the sub-group has, for runtime.py's words)
            self.fault(self.base, PARTIAL_SUBGROUP, self.count)
        self.uniform = {slot: self.slot(self.base, slot, f"u0.{slot}") for slot in checks}
        # One operand after the other over the sub-group, as the interpreter checks them
        # (coop_calls.Subgroups.uniform): the fault names the operand, the first work-item's
        # value and the first work-item whose value differs.
        for k, slot in enumerate(checks):
            with irbuild.for_range(b, 1, self.count, f"u{k}") as (j, _):
                c = self.context(j, f"u{k}c")
                value = self.slot(c, slot, f"u{k}.{slot}")
                with b.if_then(irbuild.icmp(b, "ne", value, self.uniform[slot], name=f"u{k}.differs")):
                    irbuild.call(b, "__clcoop_fault_in", ir.VoidType(),
                                 [c, self.site, ir.Constant(I32, FAULT_COOP), i64(NON_UNIFORM_OPERAND[slot]),
                                  value, self.uniform[slot]])
                    b.ret(ir.Constant(I1, 1))

    def context(self, j, name):
        """The context of the subgroup's work-item j."""
        return irbuild.context_at(self.b, self.base, j, name)

    def slot(self, ctx, slot, name=None):
        return irbuild.load_slot(self.b, ctx, slot, name)

    def slot_pointer(self, ctx, slot, name):
        """The pointer a work-item left in its context slot (an operand's spill)."""
        return self.b.inttoptr(self.slot(ctx, slot, f"{name}.w"), PTR, name=name)

    def fault(self, ctx, code, word, details=()):
        """Record the FAULT_COOP `code` with `word` in ctx (its detail slots first) and leave
        the function."""
        b = self.b
        for k, value in enumerate(details):
            b.store(value, irbuild.context_slot(b, ctx, f"detail{k}"))
        irbuild.call(b, "__clcoop_fault", ir.VoidType(),
                     [ctx, self.site, ir.Constant(I32, FAULT_COOP), i64(code), word])
        b.ret(ir.Constant(I1, 1))

    def stop_if_faulted(self, ctx=None):
        """Leave the function (true) when ctx (default: %base) recorded a fault."""
        b = self.b
        recorded = self.slot(self.base if ctx is None else ctx, "fault", "fault")
        with b.if_then(irbuild.icmp(b, "ne", recorded, i64(0), name="faulted")):
            b.ret(ir.Constant(I1, 1))

    def table(self, name, length):
        """A layout table @name of `length` i32 (CoopModule.tables defines it)."""
        return irbuild.global_ref(self.b, name.lstrip("@"), ir.ArrayType(I32, length))

    def finish(self, faulted=False):
        """`ret i1 faulted` (a value or a bool); the function's text."""
        self.b.ret(faulted if isinstance(faulted, ir.Value) else ir.Constant(I1, int(faulted)))
        return irbuild.function_text(self.fn)


def item_loop(r, name, V, body, after=None):
    """for each work-item j < %count (its context c), each component v < V: body(j, v, c,
    next), `next` the block that goes on with the next component; after(j, c) per item."""
    with irbuild.for_range(r.b, 0, r.count, f"{name}j") as (j, _):
        c = r.context(j, f"{name}c")
        with irbuild.for_range(r.b, 0, V, f"{name}v") as (v, step):
            body(j, v, c, step)
        if after is not None:
            after(j, c)


def table_index(r, table, V, j, v, name):
    """(index, padding): the logical element index (i64) of component v of item j in a
    layout table of V components per item, and whether it is padding (-1)."""
    b = r.b
    slot = b.add(b.mul(j, i64(V), name=f"{name}.tj"), v, name=f"{name}.ti")
    entry = b.load(b.gep(table, [slot], source_etype=I32, name=f"{name}.tp"), name=f"{name}.idx32", typ=I32)
    index = b.sext(entry, I64, name=f"{name}.idx")
    return index, irbuild.icmp(b, "slt", index, i64(0), name=f"{name}.pad")


def element(b, T, base, index, name):
    """Pointer to element `index` (i64) of T at base."""
    return b.gep(base, [index], source_etype=T, name=name)
