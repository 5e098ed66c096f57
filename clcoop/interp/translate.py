"""Translation of LLVM IR functions into the compact form execute.py runs.

Each function is translated once: blocks in reverse post-order, instruction records with
operand slots into a value table, constants pre-converted to NumPy, precomputed GEP
offsets and pre-resolved call handlers (instructions.prepare, resolve_call).
"""
import re

import numpy as np

from clcoop.errors import IRError
from clcoop.ir import cfg
from clcoop.interp import instructions
from clcoop.interp.coop_function_calls import FunctionOperand
from clcoop.ir.loader import (Const, TokenStream, parse_constant, parse_type,
                                  parse_typed_constant, value_id, value_kind)
from clcoop.interp.provenance import pointer_origin
from clcoop.ir.scalars import scalar_dtype


# ============================================================================ translation

class Instr:
    __slots__ = ("op", "dst", "args", "ty", "text", "data", "fn", "vector", "alloca", "loc", "base", "root",
                 "origins")

    def __init__(self, op, dst, args, ty, text, data=None):
        self.op, self.dst, self.args, self.ty, self.text, self.data = op, dst, args, ty, text, data
        self.fn = None
        self.loc = None      # -g: its DILocation's node id (module.debug_info.point resolves it)
        self.alloca = None   # load/store: slot of the alloca it accesses directly
        self.base = self.root = None   # load/store/atomics: the pointer's origin (provenance.py)
        self.origins = None  # a memory intrinsic call: [(base, root)] of each pointer operand
        self.vector = ty is not None and ty.kind in ("vec", "matrix")


class Block:
    __slots__ = ("name", "phis", "body", "term", "index", "dead")

    def __init__(self, name, index):
        self.name, self.index = name, index
        self.phis, self.body, self.term = [], [], None
        self.dead = ()     # slots only used inside this block: dropped after it runs


class Function:
    """A translated function: value table template, blocks in reverse post-order."""

    def __init__(self, name):
        self.name = name
        self.template = []      # constant slots pre-filled, others None
        self.late = []          # (slot, Const) evaluated per batch (refer to globals)
        self.arg_slots = []
        self.blocks = []
        self.ret_ty = None


class Translator:
    def __init__(self, module):
        self.module = module
        self.cache = {}

    def function(self, name):
        fn = self.cache.get(name)
        if fn is None:
            fn = self._translate(self.module.functions[name])
            self.cache[name] = fn
        return fn

    def _type(self, text):
        return self.module.type_of(text)

    def _translate(self, f):
        fn = Function(f.name)
        self.fn = fn
        self.slots = {}
        self.const_slots = {}
        for a in f.arguments:
            fn.arg_slots.append(self._new_slot(value_id(a)))
        blocks = list(f.blocks)
        # What provenance.py walks: each instruction by identity, the entry block's allocas.
        self.definitions = {value_id(ins): ins for b in blocks for ins in b.instructions}
        self.entry_allocas = {value_id(ins) for ins in (blocks[0].instructions if blocks else ())
                              if ins.opcode == "alloca"}
        order = _reverse_post_order(blocks)
        block_index = {value_id(b): i for i, b in enumerate(order)}
        for i, b in enumerate(order):
            fn.blocks.append(Block(b.name, i))
        # Slots for all instruction results first (operands may refer forward, e.g. phis).
        for b in order:
            for ins in b.instructions:
                self._new_slot(value_id(ins))
        debug = self.module.debug_info
        lines = debug.lines.get(f.name) if debug is not None else None
        ordinal = {value_id(ins): k for k, ins in enumerate(i for b in blocks for i in b.instructions)} \
            if lines else {}
        if len(ordinal) != len(lines or ()):
            ordinal = {}        # the printed and the iterated instructions disagree: no lines
        for b, blk in zip(order, fn.blocks):
            for ins in b.instructions:
                rec = self._instr(ins, block_index)
                if ordinal:
                    rec.loc = lines[ordinal[value_id(ins)]]
                if rec.op == "phi":
                    blk.phis.append(rec)
                elif rec.op in ("br", "switch", "ret", "unreachable"):
                    blk.term = rec
                else:
                    blk.body.append(rec)
        _mark_block_local_values(fn)
        return fn

    def _new_slot(self, key):
        slot = len(self.fn.template)
        self.fn.template.append(None)
        self.slots[key] = slot
        return slot

    def operand(self, v):
        """Slot of an operand value (instruction, argument, constant, global)."""
        key = value_id(v)
        slot = self.slots.get(key)
        if slot is not None:
            return slot
        kind = value_kind(v)
        if kind == "basic_block":
            raise IRError("internal: block used as a value")
        text = str(v).strip()
        ty = self._type(str(v.type))
        if kind in ("global_variable", "function"):
            const = Const("global", ty, v.name)
        else:
            ts = TokenStream(text, self.module.structs)
            parse_type(ts)
            const = parse_constant(ts, ty)
        slot = self._new_slot(key)
        if _refers_to_globals(const):
            self.fn.late.append((slot, const))
        else:
            self.fn.template[slot] = constant_value(const, self.module.layout)
        return slot

    def global_operand(self, name):
        """Slot of the address of the global variable @name."""
        return self.operand(self.module.llvm_module.get_global_variable(name))

    def function_operand(self, v):
        """Slot of a function operand of a cooperative-matrix call (`ptr @f`): a
        FunctionOperand, which coop_function_calls runs on lanes."""
        known = self.slots.get(("function operand", value_id(v)))
        if known is not None:
            return known
        defined = self.module.functions.get(v.name)
        if defined is None or defined.is_declaration:
            raise IRError(f"the function operand @{v.name} of a cooperative matrix operation is not "
                          f"defined in the module (declared only)")
        slot = self._new_slot(("function operand", value_id(v)))
        self.fn.template[slot] = FunctionOperand(v.name)
        return slot

    def _instr(self, ins, block_index):
        op = ins.opcode
        text = _METADATA_ATTACHMENTS.sub("", str(ins).strip())
        ty = None if op in ("store", "br", "switch", "ret", "unreachable") else self._type(str(ins.type))
        dst = self.slots[value_id(ins)]
        operands = list(ins.operands)
        if op == "phi":
            incoming = [(self.operand(v), block_index[value_id(b)])
                        for v, b in zip(operands, ins.incoming_blocks)]
            return Instr(op, dst, [], ty, text, incoming)
        if op == "br":
            if len(operands) == 1:
                return Instr(op, dst, [], ty, text, (block_index[value_id(operands[0])],))
            # LLVM lists a conditional br's operands as (cond, false dest, true dest).
            return Instr(op, dst, [self.operand(operands[0])], ty, text,
                         (block_index[value_id(operands[2])], block_index[value_id(operands[1])]))
        if op == "switch":
            cond_ty = self._type(str(operands[0].type))
            values = [constant_value(c, self.module.layout) for c in _switch_case_values(text, cond_ty, self.module)]
            targets = [block_index[value_id(b)] for b in operands[1:]]
            return Instr(op, dst, [self.operand(operands[0])], ty, text,
                         (targets[0], values, targets[1:]))
        if op in ("ret", "unreachable"):
            return Instr(op, dst, [self.operand(v) for v in operands], ty, text)
        if op == "call":
            callee = operands[-1]
            rec = Instr(op, dst, [], ty, text)
            rec.data = instructions.resolve_call(self, callee, operands[:-1], rec, ins.type)
            rec.args = [self.function_operand(a) if rec.data[0] in ("coop", "tensor") and value_kind(a) == "function"
                        else self.operand(a) for a in operands[:-1]]
            rec.fn = instructions.op_call
            if rec.data[0] == "coop" and operands[:-1] and str(operands[0].type).startswith("ptr"):
                # a matrix load's or store's pointer: its elements' object (coop_calls)
                rec.base, rec.root = pointer_origin(self, operands[0])
            return rec
        args = [self.operand(a) for a in operands]
        rec = Instr(op, dst, args, ty, text)
        instructions.prepare(self, ins, rec, operands)
        return rec


# `, !dbg !12, !tbaa !5` after an instruction: the text parsers read operands from the end
# of the instruction, and the debug location is read from the module (Instr.loc).
_METADATA_ATTACHMENTS = re.compile(r"(?:,\s*![A-Za-z_.][\w.]*\s+!(?:\d+|\{[^{}]*\}))+$")


def uses_private_memory(translator):
    """True when a function of the module has an alloca (cached on the translator)."""
    uses = getattr(translator, "uses_private_memory", None)
    if uses is None:
        uses = any(ins.opcode == "alloca" for f in translator.module.functions.values()
                   for b in f.blocks for ins in b.instructions)
        translator.uses_private_memory = uses
    return uses


def _mark_block_local_values(fn):
    """Values defined and used only within one block are dropped when the block ends,
    which keeps the per-lane working set of a batch small (-O0 IR is mostly such values)."""
    def_block, use_blocks = {}, {}
    for blk in fn.blocks:
        for ins in blk.phis + blk.body + [blk.term]:
            if ins is None:
                continue
            if ins.op != "phi":
                def_block.setdefault(ins.dst, blk.index)
            else:
                def_block.setdefault(ins.dst, -1)   # phis stay (read across iterations)
                for slot, _ in ins.data:
                    use_blocks.setdefault(slot, set()).add(-1)
            for slot in ins.args:
                use_blocks.setdefault(slot, set()).add(blk.index)
    for blk in fn.blocks:
        blk.dead = tuple(slot for slot, b in def_block.items()
                         if b == blk.index and use_blocks.get(slot, set()) <= {blk.index}
                         and fn.template[slot] is None)


def _refers_to_globals(c):
    if c.kind == "global":
        return True
    if c.kind in ("vec", "array", "struct"):
        return any(_refers_to_globals(e) for e in c.value)
    if c.kind == "gep":
        return _refers_to_globals(c.extra[1]) or any(_refers_to_globals(i) for i in c.extra[2])
    if c.kind == "cast":
        return _refers_to_globals(c.value)
    return False


def _switch_case_values(text, cond_ty, module):
    body = text[text.index("[") + 1:text.rindex("]")]
    values = []
    for m in re.finditer(r"(i\d+)\s+(-?\w+)\s*,\s*label", body):
        ts = TokenStream(f"{m.group(1)} {m.group(2)}", module.structs)
        values.append(parse_typed_constant(ts))
    return values


def _reverse_post_order(blocks):
    """The blocks in reverse post-order (cfg.reverse_post_order, unreachable blocks last),
    by identity (blocks may be unnamed here). The search takes a conditional branch's
    false target first (the interpreter's block numbering, which its scheduler runs
    diverged lanes in, has always been this)."""
    by_id = {value_id(b): b for b in blocks}
    succ = cfg.block_graph(blocks, key=value_id, successors=_false_target_first)
    return [by_id[k] for k in cfg.reverse_post_order(succ)]


def _false_target_first(block):
    return [o for o in list(block.instructions)[-1].operands if _is_block(o)]


def _is_block(v):
    kind = value_kind(v)
    return kind == "basic_block"


# ============================================================================ constants

def constant_value(c, layout, globals_addr=None):
    """NumPy value of a Const: a NumPy scalar, an (n,) array for vectors, tuple for
    aggregates. `globals_addr(name)` gives addresses (scalars or per-lane arrays)."""
    t = c.ty
    if c.kind == "global":
        if globals_addr is None:
            raise IRError("internal: global in a plain constant")
        return globals_addr(c.value)
    if c.kind == "gep":
        src, base, indices = c.extra
        addr = constant_value(base, layout, globals_addr)
        idx_values = [int(constant_value(i, layout, globals_addr)) for i in indices]
        return addr + np.int64(gep_constant_offset(src, idx_values, layout))
    if c.kind == "cast":
        return _retype_scalar(constant_value(c.value, layout, globals_addr), t)
    if t.kind in ("int", "float", "ptr", "event"):
        dtype = scalar_dtype(t)
        if c.kind in ("zero", "null", "undef"):
            return dtype.type(0)
        if t.kind == "int" and t.bits > 1:
            v = int(c.value) & ((1 << t.bits) - 1)
            if v >= 1 << (t.bits - 1):
                v -= 1 << t.bits
            return dtype.type(v)
        return dtype.type(c.value)
    if t.kind == "vec":
        dtype = scalar_dtype(t)
        if c.kind in ("zero", "undef", "null"):
            return np.zeros((1, t.n), dtype)
        elems = [constant_value(e, layout, globals_addr) for e in c.value]
        if any(np.ndim(e) for e in elems):   # per-lane (global addresses)
            lanes = max(np.shape(e)[0] for e in elems if np.ndim(e))
            return np.stack([np.broadcast_to(e, (lanes,)) for e in elems], axis=-1)
        # Constant vectors are (1, n): they broadcast against per-lane (L, n) values and
        # cannot be mistaken for a per-lane scalar (L,) when n == L.
        return np.array(elems, dtype)[None, :]
    if t.kind in ("array", "struct"):
        if c.kind in ("zero", "undef"):
            fields = t.fields if t.kind == "struct" else [t.elem] * t.n
            return tuple(constant_value(Const("zero", f), layout) for f in fields)
        if c.kind == "bytes":
            return tuple(np.int8(b if b < 128 else b - 256) for b in c.value)
        return tuple(constant_value(e, layout, globals_addr) for e in c.value)
    if t.kind == "matrix" and c.kind in ("zero", "undef"):
        # The matrix length depends on the launch's subgroup size: a 0-d zero of the
        # component type stands for the whole matrix and broadcasts where it is used.
        # undef and poison read as zero, like every other undef value (docs/ir-conventions.md).
        return scalar_dtype(t).type(0)
    raise IRError(f"unsupported constant of type {t}")


def _retype_scalar(v, t):
    if t.kind in ("ptr", "int"):
        return np.asarray(v).astype(scalar_dtype(t))[()] if np.ndim(v) == 0 else v.astype(scalar_dtype(t))
    return v


def gep_constant_offset(src, indices, layout):
    off = indices[0] * layout.size(src) if indices else 0
    t = src
    for i in indices[1:]:
        if t.kind == "struct":
            offsets, _ = layout.struct_layout(t)
            off += offsets[i]
            t = t.fields[i]
        else:
            t = t.elem
            off += i * layout.size(t)
    return off


def constant_bytes(c, layout, globals_addr):
    """Serialize a global's initializer to bytes (little endian)."""
    t = c.ty
    size = layout.size(t)
    out = bytearray(size)
    if c.kind in ("zero", "undef", "null"):
        return bytes(out)
    if c.kind == "bytes":
        return bytes(c.value[:size]).ljust(size, b"\0")
    if t.kind in ("array", "vec"):
        es = layout.size(t.elem)
        for i, e in enumerate(c.value):
            out[i * es:(i + 1) * es] = constant_bytes(e, layout, globals_addr)
        return bytes(out)
    if t.kind == "struct":
        offsets, _ = layout.struct_layout(t)
        for off, e in zip(offsets, c.value):
            b = constant_bytes(e, layout, globals_addr)
            out[off:off + len(b)] = b
        return bytes(out)
    v = constant_value(c, layout, globals_addr)
    if np.ndim(v):
        raise IRError("a global initializer refers to per-work-group __local memory")
    if t.kind == "ptr" and layout.pointer_bytes == 4:
        return np.asarray(v).astype(np.int32).tobytes()
    dtype = np.dtype(np.uint8) if (t.kind == "int" and t.bits == 1) else scalar_dtype(t)
    return np.asarray(v).astype(dtype).tobytes()


