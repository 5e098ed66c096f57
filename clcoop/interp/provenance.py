"""Where the pointer of a load, store or atomic comes from, found statically, so that the
interpreter checks an access against the object its pointer was derived from, as the native
engine does (clcoop/native/codegen.py, `base_of` and `root_pointer`; docs/design.md
"Interpreter memory model"):

- the base: the kernel argument, global variable or entry-block alloca the pointer is
  computed from through getelementptr, bitcast, addrspacecast, and phis and selects whose
  incoming pointers all have that one base; None when the pointer was loaded from memory,
  is a helper function's parameter, comes from inttoptr or a call, or mixes bases;
- the root: the value the pointer is computed from by getelementptr and casts alone (a
  helper's parameter, a loaded pointer), which names the object of a pointer that is in
  none; None when that is the pointer itself.

Both are value-table slots (the executor reads the per-lane addresses there)."""
import re

import numpy as np

from clcoop.interp.lanes import bcast
from clcoop.ir.loader import value_id, value_kind
from clcoop.ir.memory import Provenance

_OFFSETS = ("getelementptr", "bitcast", "addrspacecast")
_CYCLE = "cycle"


def pointer_origin(tr, ptr):
    """(base slot or None, root slot or None) of the pointer operand `ptr` of an access in
    the function being translated (tr.fn)."""
    return _base(tr, ptr, set()), _root(tr, ptr)


def _base(tr, v, seen):
    kind = value_kind(v)
    if kind == "argument":
        return tr.operand(v) if tr.fn.name in tr.module.kernels else None
    if kind == "global_variable":
        return tr.operand(v)
    if kind == "constant_expr":
        return _constant_base(tr, v)
    if kind != "instruction":
        return None
    d = tr.definitions.get(value_id(v))
    if d is None:
        return None
    key = value_id(d)
    if key in seen:
        return _CYCLE
    seen.add(key)
    op = d.opcode
    if op == "alloca":
        return tr.operand(v) if key in tr.entry_allocas else None
    if op in _OFFSETS:
        return _base(tr, list(d.operands)[0], seen)
    if op in ("phi", "select"):
        ops = list(d.operands)[1:] if op == "select" else list(d.operands)
        bases = {_base(tr, o, seen) for o in ops} - {_CYCLE}
        return bases.pop() if len(bases) == 1 else None
    return None


def _constant_base(tr, v):
    """A constant getelementptr/cast of one global variable (as the native engine reads it)."""
    text = str(v)
    names = set(re.findall(r"@([-\w.$]+)", text))
    if len(names) != 1 or not re.match(r"\S+ (?:ptr.*)?(getelementptr|addrspacecast|bitcast)", text):
        return None
    name = names.pop()
    if name not in tr.module.globals:
        return None
    return tr.global_operand(name)


def _root(tr, ptr):
    v, seen = ptr, set()
    while value_kind(v) == "instruction":
        d = tr.definitions.get(value_id(v))
        if d is None or d.opcode not in _OFFSETS or value_id(d) in seen:
            break
        seen.add(value_id(d))
        v = list(d.operands)[0]
    if v is ptr or value_kind(v) not in ("argument", "instruction"):
        return None
    return tr.operand(v)


def with_provenance(ex, vals, ins, lanes):
    """Tell memory the object the access's pointer was derived from and its root, per
    active lane; the caller resets ex.memory.provenance to None after the access."""
    ex.memory.provenance = provenance_of(ex, vals, ins.base, ins.root, lanes)


def provenance_of(ex, vals, base, root, lanes):
    """The Provenance of a pointer whose base and root are these value slots (None where
    neither is known), one entry per active lane."""
    if base is None and root is None:
        return None
    return Provenance(_lane_values(ex, vals, base, lanes), _lane_values(ex, vals, root, lanes))


def provenance_row(provenance, row):
    """The Provenance of one active lane's row (a memory intrinsic copying lane by lane)."""
    if provenance is None:
        return None
    pick = lambda v: v if v is None or np.ndim(v) == 0 else v[row:row + 1]
    return Provenance(pick(provenance.bases), pick(provenance.roots))


def _lane_values(ex, vals, slot, lanes):
    if slot is None:
        return None
    v = vals[slot]
    if v is None:
        return None
    if np.ndim(v) == 0:
        return v
    v = bcast(v, ex.lane_count)
    return v if lanes is None else v[lanes]
