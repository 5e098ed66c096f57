"""Vectorized SIMT execution of LLVM IR kernels over batches of work-groups.

Each function is translated once into a compact form (blocks in reverse post-order,
instruction records with operand slots into a value table, constants pre-converted
to NumPy, precomputed GEP offsets, pre-resolved call handlers). Execution runs every
instruction for all lanes of a batch at once: a value is a NumPy array with one row
per lane (docs/design.md "Interpreter value model"). Divergent control flow keeps a
per-lane "next block"; the lowest pending block in reverse post-order runs first, so
lanes reconverge at join points and loop exits.
"""
import re

import numpy as np

from clcoop.errors import IRError, RuntimeFault
from clcoop.interp.matrix_value import MatrixValue
from clcoop.interp.loader import Const, TokenStream, parse_type, parse_constant, \
    parse_typed_constant, value_id

# Lanes of one batch: more lanes amortize the per-instruction cost over more work-items
# (docs/performance.md), fewer bound the working set. Values of alloca-free kernels take
# ~0.5 KB per lane (1 << 15 lanes: ~2.3x the buffers of the 1024^3 GEMM); kernels with
# private variables (-O0 code) also keep every variable in memory (~1 KB per lane), so
# their batches are split to PRIVATE_MEMORY_MAX_LANES.
DEFAULT_MAX_LANES = 1 << 15
PRIVATE_MEMORY_MAX_LANES = 1 << 13
DEFAULT_INSTRUCTION_LIMIT = 10_000_000

_INT_DTYPES = {1: np.dtype(np.bool_), 8: np.dtype(np.int8), 16: np.dtype(np.int16),
               32: np.dtype(np.int32), 64: np.dtype(np.int64)}
_UINT_DTYPES = {8: np.dtype(np.uint8), 16: np.dtype(np.uint16), 32: np.dtype(np.uint32),
                64: np.dtype(np.uint64)}
_FLOAT_DTYPES = {16: np.dtype(np.float16), 32: np.dtype(np.float32), 64: np.dtype(np.float64)}


def scalar_dtype(t):
    """NumPy dtype holding one scalar (or vector element) of LLVM type t."""
    if t.kind == "int":
        if t.bits not in _INT_DTYPES:
            raise IRError(f"integer type i{t.bits} is not supported by the interpreter")
        return _INT_DTYPES[t.bits]
    if t.kind == "float":
        return _FLOAT_DTYPES[t.bits]
    if t.kind in ("ptr", "event"):
        return np.dtype(np.int64)
    if t.kind in ("vec", "matrix"):
        return scalar_dtype(t.elem)
    raise IRError(f"type {t} has no scalar representation")


def unsigned(v, t):
    """View integer values of type t as unsigned (LLVM integers carry no sign)."""
    bits = t.elem.bits if t.kind == "vec" else t.bits
    if bits == 1:
        return v
    return np.asarray(v).view(_UINT_DTYPES[bits]) if np.ndim(v) else \
        np.asarray(v).astype(_UINT_DTYPES[bits])


# ============================================================================ translation

class Instr:
    __slots__ = ("op", "dst", "args", "ty", "text", "data", "fn", "vector", "alloca", "loc")

    def __init__(self, op, dst, args, ty, text, data=None):
        self.op, self.dst, self.args, self.ty, self.text, self.data = op, dst, args, ty, text, data
        self.fn = None
        self.loc = None      # -g: its DILocation's node id (module.debug_info.point resolves it)
        self.alloca = None   # load/store: slot of the alloca it accesses directly
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
        import clcoop.interp.execute as ops
        fn = Function(f.name)
        self.fn = fn
        self.slots = {}
        self.const_slots = {}
        for a in f.arguments:
            fn.arg_slots.append(self._new_slot(value_id(a)))
        blocks = list(f.blocks)
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
                rec = self._instr(ins, block_index, ops)
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

    def _instr(self, ins, block_index, ops):
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
            args = [self.operand(a) for a in operands[:-1]]
            rec = Instr(op, dst, args, ty, text)
            rec.data = ops.resolve_call(self, callee, operands[:-1], rec)
            rec.fn = ops.op_call
            return rec
        args = [self.operand(a) for a in operands]
        rec = Instr(op, dst, args, ty, text)
        ops.prepare(self, ins, rec, operands)
        return rec


# `, !dbg !12, !tbaa !5` after an instruction: the text parsers read operands from the end
# of the instruction, and the debug location is read from the module (Instr.loc).
_METADATA_ATTACHMENTS = re.compile(r"(?:,\s*![A-Za-z_.][\w.]*\s+!(?:\d+|\{[^{}]*\}))+$")


def _uses_private_memory(translator):
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


def value_kind(v):
    """llvmlite's value kind name; kinds its enum does not know (e.g. 26, a target-type
    'none' constant) are constants."""
    try:
        kind = v.value_kind
    except ValueError:
        return "constant"
    return kind.name if hasattr(kind, "name") else str(kind)


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
    succ = {}
    for b in blocks:
        term = list(b.instructions)[-1]
        succ[value_id(b)] = [o for o in term.operands if _is_block(o)]
    seen, post = set(), []
    by_id = {value_id(b): b for b in blocks}

    def visit(b):
        stack = [(b, iter(succ[value_id(b)]))]
        seen.add(value_id(b))
        while stack:
            node, it = stack[-1]
            nxt = next(it, None)
            if nxt is None:
                stack.pop()
                post.append(node)
            elif value_id(nxt) not in seen:
                seen.add(value_id(nxt))
                stack.append((by_id[value_id(nxt)], iter(succ[value_id(nxt)])))
    visit(blocks[0])
    order = list(reversed(post))
    order += [b for b in blocks if value_id(b) not in seen]   # unreachable blocks last
    return order


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


# ============================================================================ execution

class NDRange:
    def __init__(self, global_size, local_size, offset=(0, 0, 0)):
        self.dims = len(global_size)
        self.global_size = tuple(global_size) + (1,) * (3 - len(global_size))
        self.local_size = tuple(local_size) + (1,) * (3 - len(local_size))
        self.num_groups = tuple(g // l for g, l in zip(self.global_size, self.local_size))
        self.offset = tuple(offset) + (0,) * (3 - len(offset))
        self.wg_size = self.local_size[0] * self.local_size[1] * self.local_size[2]
        self.total_groups = self.num_groups[0] * self.num_groups[1] * self.num_groups[2]


class Executor:
    """Runs one kernel launch. Also the ctx handed to execute_coop_call."""

    def __init__(self, module, translator, kernel, ndrange, subgroup_size, memory,
                 instruction_limit=DEFAULT_INSTRUCTION_LIMIT, serial_subgroups=False):
        self.module = module
        self.translator = translator
        self.kernel = kernel
        self.nd = ndrange
        self.subgroup_size = subgroup_size
        self.memory = memory
        self.layout = module.layout
        self.instruction_limit = instruction_limit
        self.serial_subgroups = serial_subgroups
        self.instructions = 0
        memory.fault_handler = self._memory_fault
        self.current = None        # instruction being executed
        self.cur_lanes = None      # lanes of the rows passed to memory
        self.mask = None
        self.global_addrs = {}
        self.work_group_size = ndrange.wg_size   # lanes of one work-group in the batch

    # ------------------------------------------------------------------ batches
    def run_batch(self, first_group, group_count, args, globals_per_batch):
        """Run work-groups [first_group, first_group + group_count), in several batches
        when the kernel uses private memory (bounded memory, see DEFAULT_MAX_LANES), or
        one work-group at a time, one sub-group per batch, with serial_subgroups."""
        groups_per_batch = group_count
        if self.serial_subgroups:
            groups_per_batch = 1
        elif group_count * self.nd.wg_size > PRIVATE_MEMORY_MAX_LANES \
                and _uses_private_memory(self.translator):
            groups_per_batch = max(1, PRIVATE_MEMORY_MAX_LANES // self.nd.wg_size)
        for first in range(first_group, first_group + group_count, groups_per_batch):
            count = min(groups_per_batch, first_group + group_count - first)
            self._run_one_batch(first, count, args, globals_per_batch)

    def _run_one_batch(self, first_group, group_count, args, globals_per_batch):
        """__local memory for the work-groups, then their work-items: all at once, or
        with serial_subgroups one sub-group after the other (sharing that memory)."""
        wg, S = self.nd.wg_size, self.subgroup_size
        spans = [(0, wg)]
        if self.serial_subgroups:
            spans = [(first, min(first + S, wg)) for first in range(0, wg, S)]
        regions = []
        try:
            local_globals, local_args = self._allocate_local_memory(group_count, args, regions)
            for span in spans:
                self._run_lanes(first_group, group_count, span, args, globals_per_batch,
                                local_globals, local_args)
        finally:
            for r in regions:
                self.memory.free(r)

    def _allocate_local_memory(self, group_count, args, regions):
        """(global name -> (base, stride), argument index -> (base, stride)): one slice
        of a region per work-group in the batch, for __local variables and arguments."""
        def allocate(what, nbytes):
            stride = (max(nbytes, 1) + 15) // 16 * 16
            region = self.memory.allocate(what, stride * group_count, space=3)
            regions.append(region)
            return region.base, stride
        local_globals = {name: allocate(f"__local {name}", self.layout.size(gv.ty))
                         for name, gv in self.module.globals.items() if gv.addrspace == 3}
        local_args = {i: allocate(f"{a.name} (__local)", a.nbytes)
                      for i, a in enumerate(args) if isinstance(a, _LocalArg)}
        return local_globals, local_args

    def _run_lanes(self, first_group, group_count, span, args, globals_per_batch,
                   local_globals, local_args):
        """Runs the work-items of local linear ids span[0] <= id < span[1] of each work-group."""
        nd = self.nd
        self.group_count = group_count
        self.work_group_size = span[1] - span[0]
        self.lane_count = group_count * self.work_group_size
        L = self.lane_count
        self.lane_ids = _LaneIds(nd, first_group, group_count, self.subgroup_size, span)
        # The limit bounds the instructions of each work-item: lanes of a batch run in
        # lockstep, so one count per batch (divergent paths add up) is what one work-item
        # could have executed at most.
        self.instructions = 0
        self.batch_cache = {}
        wg_in_batch = np.repeat(np.arange(group_count, dtype=np.int64), self.work_group_size)
        self.global_addrs = dict(globals_per_batch)
        for name, (base, stride) in local_globals.items():
            self.global_addrs[name] = base + wg_in_batch * stride
        call_args = list(args)
        for i, (base, stride) in local_args.items():
            call_args[i] = base + wg_in_batch * stride
        self.call(self.kernel.name, call_args, np.ones(L, bool))

    def runs_part_of_work_groups(self):
        """True when the batch holds only some sub-groups of its work-groups (serial_subgroups)."""
        return self.work_group_size != self.nd.wg_size

    # ------------------------------------------------------------------ functions
    def call(self, name, args, mask):
        fn = self.translator.function(name)
        vals = list(fn.template)
        for slot, const in fn.late:
            vals[slot] = self._late_constant(const)
        for slot, a in zip(fn.arg_slots, args):
            vals[slot] = a
        L = self.lane_count
        nblocks = len(fn.blocks)
        cur = np.full(L, nblocks, np.int32)
        cur[mask] = 0
        prev = np.full(L, -1, np.int32)
        frame = _Frame(vals, nblocks, name)
        blocks = fn.blocks
        saved_frame, self.frame = getattr(self, "frame", None), frame
        try:
            next_block = None
            while True:
                if next_block is None:
                    b = int(cur.min())
                    if b >= nblocks:
                        break
                    bmask = cur == b
                    full = bool(bmask.all())
                else:
                    b = next_block      # every lane took the same branch: bmask stays all-true
                block = blocks[b]
                self.instructions += len(block.body) + 1
                if self.instructions > self.instruction_limit:
                    self.current = block.term
                    self.fault(f"instruction limit of {self.instruction_limit} exceeded "
                               f"(runaway loop?); raise it with instruction_limit=", bmask)
                if block.phis:
                    self._phis(block, vals, prev, bmask, full)
                for ins in block.body:
                    self.current = ins
                    value = ins.fn(self, vals, ins, bmask, full)
                    if ins.dst is not None and value is not None:
                        _assign(vals, ins.dst, value, bmask, full, L)
                self.current = block.term
                next_block = self._terminator(block, vals, cur, prev, bmask, full, frame)
                for slot in block.dead:
                    vals[slot] = None
        finally:
            self.frame = saved_frame
            for region in frame.allocas:
                self.memory.free(region)
        return frame.ret

    def _phis(self, block, vals, prev, bmask, full):
        # Phis of a block read their inputs simultaneously (LLVM LangRef "phi").
        new = []
        for ins in block.phis:
            res = None
            for slot, pred in ins.data:
                sel = prev == pred
                if not full:
                    sel &= bmask
                if not sel.any():
                    continue
                v = vals[slot]
                res = v if res is None else _where(sel, v, res, self.lane_count)
            new.append((ins.dst, res))
        for dst, res in new:
            if res is not None:
                _assign(vals, dst, res, bmask, full, self.lane_count)

    def _terminator(self, block, vals, cur, prev, bmask, full, frame):
        """Set each active lane's next block; return the next block when all lanes of a
        fully active frame go to the same one (the scheduler then skips its search)."""
        t = block.term
        op = t.op
        if op == "br":
            if len(t.data) == 1:
                target = t.data[0]
                if full:
                    cur[:] = target
                    prev[:] = block.index
                    return target
                cur[bmask] = target
                prev[bmask] = block.index
                return None
            cond = vals[t.args[0]]
            if full:
                uniform = bool(cond) if np.ndim(cond) == 0 else \
                    (True if cond.all() else False if not cond.any() else None)
                if uniform is not None:
                    target = t.data[0] if uniform else t.data[1]
                    cur[:] = target
                    prev[:] = block.index
                    return target
            tgt = _bcast(np.where(cond, np.int32(t.data[0]), np.int32(t.data[1])), self.lane_count)
            cur[bmask] = tgt[bmask]
            prev[bmask] = block.index
        elif op == "switch":
            cond = np.broadcast_to(vals[t.args[0]], (self.lane_count,))
            default, values, targets = t.data
            tgt = np.full(self.lane_count, default, np.int32)
            for v, dest in zip(values, targets):
                tgt[cond == v] = dest
            cur[bmask] = tgt[bmask]
            prev[bmask] = block.index
        elif op == "ret":
            if t.args:
                v = vals[t.args[0]]
                frame.ret = v if frame.ret is None else _where(bmask, v, frame.ret, self.lane_count)
            cur[bmask] = frame.nblocks
        else:
            self.fault("reached 'unreachable'", bmask)
        return None

    def _late_constant(self, const):
        key = id(const)
        v = self.batch_cache.get(key)
        if v is None:
            v = constant_value(const, self.layout, self._global_addr)
            self.batch_cache[key] = v
        return v

    def _global_addr(self, name):
        if name in self.global_addrs:
            return self.global_addrs[name]
        if name in self.module.functions:
            raise IRError(f"function pointers are not supported (@{name})")
        raise IRError(f"unknown global @{name}")

    # ------------------------------------------------------------------ faults
    def fault(self, message, lanes_mask=None, buffer=None, lane=None):
        """Raise a RuntimeFault naming kernel, work-item, instruction and buffer."""
        if lane is None:
            if lanes_mask is None:
                lanes_mask = self.mask
            lane = int(np.argmax(lanes_mask)) if lanes_mask is not None and np.any(lanes_mask) else 0
        gid, lid, grp = self.lane_ids.describe(lane)
        instruction = self.current.text if self.current is not None else None
        point = self.module.debug_info.point(self.current.loc) \
            if self.current is not None and self.current.loc else None
        work_item_line = f"in work-item global id {gid} (local id {lid}, group {grp})"
        buffer_line = f"buffer: {buffer}"
        if point is not None:
            # -g: the source line replaces the IR instruction (still in .instruction).
            from clcoop.interp.source_map import render_fault
            text = render_fault(f"kernel '{self.kernel.name}': {message}", point,
                                self.module.sources,
                                [work_item_line] + ([buffer_line] if buffer else []))
        else:
            parts = [f"kernel '{self.kernel.name}': {message}", "  " + work_item_line]
            if buffer:
                parts.append("  " + buffer_line)
            if instruction:
                where = getattr(getattr(self, "frame", None), "fn_name", None)
                parts.append(f"  instruction: {instruction}" + (f"  (in @{where})" if where else ""))
            text = "\n".join(parts)
        work_item = tuple(int(self.lane_ids.global_id(d)[lane]) for d in range(self.nd.dims))
        raise RuntimeFault(text, kernel=self.kernel.name, work_item=work_item,
                           instruction=instruction, buffer=buffer, location=point)

    def _memory_fault(self, message, addrs, buffer, bad_mask):
        lane = None
        if self.cur_lanes is not None and bad_mask is not None:
            rows = np.asarray(bad_mask).reshape(np.shape(bad_mask)[0], -1).any(axis=1) \
                if np.ndim(bad_mask) else None
            if rows is not None and rows.size == len(self.cur_lanes) and rows.any():
                lane = int(self.cur_lanes[int(np.argmax(rows))])
        if lane is None and self.mask is not None and np.any(self.mask):
            lane = int(np.argmax(self.mask))
        self.fault(message, buffer=buffer, lane=lane if lane is not None else 0)


class _Frame:
    __slots__ = ("vals", "ret", "allocas", "nblocks", "alloca_regions", "fn_name", "alloca_views",
                 "stored_matrices")

    def __init__(self, vals, nblocks, fn_name):
        self.vals = vals
        self.nblocks = nblocks
        self.fn_name = fn_name
        self.alloca_regions = {}
        self.alloca_views = {}
        self.stored_matrices = {}   # alloca slot -> matrix value last stored whole to it
        self.ret = None
        self.allocas = []


class _LocalArg:
    def __init__(self, name, nbytes):
        self.name, self.nbytes = name, nbytes


def _where(sel, a, b, L):
    a_nd, b_nd = np.ndim(a), np.ndim(b)
    nd = max(a_nd, b_nd, 1)
    if isinstance(a, tuple) or isinstance(b, tuple):
        return tuple(_where(sel, x, y, L) for x, y in zip(a, b))
    s = sel.reshape((-1,) + (1,) * (nd - 1))
    if a_nd and b_nd and np.shape(a)[0] != L and np.shape(b)[0] != L:
        a = _bcast(a, L)        # both are constant vectors (1, n)
    return np.where(s, a, b)


def _assign(vals, dst, value, bmask, full, L):
    old = vals[dst]
    if full or old is None:
        vals[dst] = value
    else:
        vals[dst] = _where(bmask, value, old, L)


class _LaneIds:
    """Work-item ids of each lane of a batch (lazily computed, cached)."""

    def __init__(self, nd, first_group, group_count, subgroup_size, span=None):
        self.nd = nd
        self.first_group = first_group
        self.group_count = group_count
        self.S = subgroup_size
        self.cache = {}
        first, end = span or (0, nd.wg_size)     # the local linear ids in the batch
        self.llid = np.tile(np.arange(first, end, dtype=np.int64), group_count)
        self.group_linear = np.repeat(np.arange(first_group, first_group + group_count,
                                                dtype=np.int64), end - first)

    def local_id(self, d):
        key = ("l", d)
        if key not in self.cache:
            lx, ly = self.nd.local_size[0], self.nd.local_size[1]
            v = (self.llid % lx, (self.llid // lx) % ly, self.llid // (lx * ly))[d]
            self.cache[key] = v
        return self.cache[key]

    def group_id(self, d):
        key = ("g", d)
        if key not in self.cache:
            nx, ny = self.nd.num_groups[0], self.nd.num_groups[1]
            g = self.group_linear
            self.cache[key] = (g % nx, (g // nx) % ny, g // (nx * ny))[d]
        return self.cache[key]

    def global_id(self, d):
        key = ("G", d)
        if key not in self.cache:
            self.cache[key] = self.group_id(d) * self.nd.local_size[d] + self.local_id(d) + \
                self.nd.offset[d]
        return self.cache[key]

    def describe(self, lane):
        gid = tuple(int(self.global_id(d)[lane]) for d in range(self.nd.dims))
        lid = tuple(int(self.local_id(d)[lane]) for d in range(self.nd.dims))
        grp = tuple(int(self.group_id(d)[lane]) for d in range(self.nd.dims))
        fmt = lambda t: "(" + ", ".join(str(x) for x in t) + ")"  # noqa: E731
        return fmt(gid), fmt(lid), fmt(grp)


# ============================================================================ instructions
# Each op is fn(ex, vals, ins, bmask, full) -> value (or None). Inactive lanes may compute
# garbage; only operations with side effects or faults restrict themselves to bmask.

def _bcast(v, L):
    """Per-lane view of a value: uniform scalars () and constant vectors (1, n) are
    broadcast to (L,) and (L, n). A MatrixValue is per-lane already (and stays lazy)."""
    if isinstance(v, MatrixValue):
        return v
    v = np.asarray(v)
    if v.ndim == 0:
        return np.broadcast_to(v, (L,))
    if v.shape[0] != L:
        return np.broadcast_to(v, (L,) + v.shape[1:]) if v.shape[0] == 1 else \
            np.broadcast_to(v, (L,) + v.shape)
    return v


def _active(ex, bmask, full):
    if full:
        ex.cur_lanes = np.arange(ex.lane_count)
        return None
    lanes = np.nonzero(bmask)[0]
    ex.cur_lanes = lanes
    return lanes


def _expand(ex, lanes, res, dtype=None):
    if lanes is None:
        return res
    out = np.zeros((ex.lane_count,) + res.shape[1:], dtype or res.dtype)
    out[lanes] = res
    return out


def prepare(tr, ins, rec, operands):
    op = rec.op
    handler = _SIMPLE_OPS.get(op)
    if handler is not None:
        rec.fn = handler
        if op == "store":
            rec.data = tr._type(str(operands[0].type))
        ptr = operands[0] if op == "load" else operands[1] if op == "store" else None
        if ptr is not None and _is_alloca(ptr):
            rec.alloca = rec.args[0] if op == "load" else rec.args[1]
    elif op in _BINARY:
        rec.fn = op_binary
        rec.data = _binary_fn(op, tr._type(str(operands[0].type)))
    elif op in ("icmp", "fcmp"):
        rec.fn = op_compare
        words = rec.text.split(op, 1)[1].split()
        pred = next(w for w in words if w in _PREDICATES)
        rec.data = _compare_fn(op, pred, tr._type(str(operands[0].type)))
    elif op in _CASTS:
        rec.fn = op_cast
        rec.data = (tr._type(str(operands[0].type)), op)
    elif op == "getelementptr":
        rec.fn = op_gep
        rec.data = _prepare_gep(tr, rec, operands)
    elif op == "alloca":
        rec.fn = op_alloca
        ts = TokenStream(rec.text.split("alloca", 1)[1], tr.module.structs)
        rec.data = parse_type(ts)
    elif op == "shufflevector":
        rec.fn = op_shuffle
        rec.data = _shuffle_mask(tr, rec.text)
        rec.args = rec.args[:2]
    elif op == "atomicrmw":
        rec.fn = op_atomicrmw
        words = rec.text.split("atomicrmw", 1)[1].split()
        words = [w for w in words if w != "volatile"]
        rec.data = (words[0], tr._type(str(operands[1].type)))
    elif op == "cmpxchg":
        rec.fn = op_cmpxchg
        rec.data = tr._type(str(operands[1].type))
    elif op in ("extractvalue", "insertvalue"):
        rec.fn = op_extractvalue if op == "extractvalue" else op_insertvalue
        rec.data = [int(x) for x in re.findall(r",\s*(\d+)(?=\s*(?:,|$))", rec.text)]
    elif op == "fence":
        rec.fn = op_nothing
    else:
        raise IRError(f"the interpreter does not support the instruction: {rec.text}")


def _is_alloca(v):
    # llvmlite's is_instruction is False for operands; read the value kind and the text.
    kind = value_kind(v)
    if kind != "instruction":
        return False
    text = str(v).strip()
    return "=" in text and text.split("=", 1)[1].lstrip().startswith("alloca ")


def op_nothing(ex, vals, ins, bmask, full):
    return None


# ---------------------------------------------------------------- memory

def op_alloca(ex, vals, ins, bmask, full):
    t = ins.data
    if t.kind == "matrix":
        from clcoop.interp.layout import matrix_length
        size = matrix_length(str(t), ex.subgroup_size) * ex.layout.size(t.elem)
    else:
        size = ex.layout.size(t)
    count = vals[ins.args[0]] if ins.args else 1
    size *= int(np.max(count)) if np.ndim(count) else int(count)
    stride = (max(size, 1) + 7) // 8 * 8
    region = ex.memory.allocate(f"private variable {ins.text.split('=')[0].strip()} "
                                f"in {ex.frame.fn_name}", stride * ex.lane_count, space=0)
    frame = ex.frame
    frame.allocas.append(region)
    # Direct loads/stores of this alloca use a strided view (no address checks needed);
    # only when it ran once in the frame, so every lane's pointer is in this region.
    frame.alloca_regions[ins.dst] = None if ins.dst in frame.alloca_regions else (region, stride, size)
    return region.base + np.arange(ex.lane_count, dtype=np.int64) * stride


def _alloca_view(ex, ins, t):
    """Strided (L,) or (L, n) view of a private alloca accessed by a load/store, or None
    (cached per frame: a loop body reuses the view)."""
    frame = ex.frame
    key = id(ins)
    cached = frame.alloca_views.get(key, _MISSING)
    if cached is _MISSING or (cached is not None and cached[3] is not frame.alloca_regions.get(ins.alloca)):
        cached = _make_alloca_view(ex, ins, t)
        frame.alloca_views[key] = cached
    return cached


_MISSING = object()


def _make_alloca_view(ex, ins, t):
    entry = ex.frame.alloca_regions.get(ins.alloca)
    if entry is None or _is_aggregate(t) or t.kind not in ("int", "float", "ptr", "event", "vec", "matrix"):
        return None
    region, stride, size = entry
    dtype, n, es = _access_shape(ex, t)
    mdt = _mem_dtype(ex, t, dtype)
    if (n or 1) * mdt.itemsize > size or (n is not None and mdt.itemsize != es) or stride % mdt.itemsize:
        return None
    view = region.view(mdt)
    shape = (ex.lane_count,) if n is None else (ex.lane_count, n)
    strides = (stride,) if n is None else (stride, mdt.itemsize)
    return np.lib.stride_tricks.as_strided(view, shape=shape, strides=strides), dtype, mdt, entry


def _access_shape(ex, t):
    """(scalar dtype, component count or None, element byte size) of a loaded type."""
    if t.kind == "vec":
        return scalar_dtype(t), t.n, ex.layout.size(t.elem)
    if t.kind == "matrix":
        from clcoop.interp.layout import matrix_length
        return scalar_dtype(t), matrix_length(str(t), ex.subgroup_size), ex.layout.size(t.elem)
    if t.kind in ("int", "float", "ptr", "event"):
        return scalar_dtype(t), None, None
    raise IRError(f"loads and stores of {t} values are not supported: {ex.current.text}")


def _mem_dtype(ex, t, dtype):
    if t.kind == "int" and t.bits == 1 or (t.kind == "vec" and t.elem.kind == "int" and t.elem.bits == 1):
        return np.dtype(np.uint8)
    if (t.kind == "ptr" or (t.kind == "vec" and t.elem.kind == "ptr")) and ex.layout.pointer_bytes == 4:
        return np.dtype(np.uint32)
    return dtype


def _is_aggregate(t):
    return t.kind in ("array", "struct")


def _aggregate_leaves(ex, t, offset=0):
    """[(byte offset, index path, scalar/vector type)] of an array or struct type."""
    if t.kind == "struct":
        offsets, _ = ex.layout.struct_layout(t)
        items = [(offsets[i], f) for i, f in enumerate(t.fields)]
    else:
        es = ex.layout.size(t.elem)
        items = [(i * es, t.elem) for i in range(t.n)]
    return [(offset + off, ft) for off, ft in items]


def read_aggregate(ex, addrs, t):
    out = []
    for off, ft in _aggregate_leaves(ex, t):
        a = addrs + np.int64(off)
        out.append(read_aggregate(ex, a, ft) if _is_aggregate(ft) else read_typed(ex, a, ft))
    return tuple(out)


def write_aggregate(ex, addrs, value, t):
    if _all_zero(value):
        size = ex.layout.size(t)
        ex.memory.store_rows(addrs, np.zeros((addrs.shape[0], size), np.uint8), np.uint8)
        return
    for (off, ft), v in zip(_aggregate_leaves(ex, t), value):
        a = addrs + np.int64(off)
        if _is_aggregate(ft):
            write_aggregate(ex, a, v, ft)
        else:
            write_typed(ex, a, _bcast(v, addrs.shape[0]) if np.ndim(v) == 0 else v, ft)


def _all_zero(value):
    if isinstance(value, tuple):
        return all(_all_zero(v) for v in value)
    return np.ndim(value) <= 1 and not np.any(value) and (np.ndim(value) == 0 or value.size < 64)


def _map_leaves(fn, value):
    if isinstance(value, tuple):
        return tuple(_map_leaves(fn, v) for v in value)
    return fn(value)


def read_typed(ex, addrs, t):
    if _is_aggregate(t):
        return read_aggregate(ex, addrs, t)
    dtype, n, es = _access_shape(ex, t)
    mdt = _mem_dtype(ex, t, dtype)
    if n is not None and mdt.itemsize == es:
        v = ex.memory.load_rows(addrs, n, mdt)
        return v.astype(dtype) if mdt != dtype else v
    if n is not None:
        addrs = addrs[:, None] + np.arange(n, dtype=np.int64) * es
    v = ex.memory.load(addrs, mdt)
    return v.astype(dtype) if mdt != dtype else v


def write_typed(ex, addrs, values, t):
    if _is_aggregate(t):
        write_aggregate(ex, addrs, values, t)
        return
    dtype, n, es = _access_shape(ex, t)
    mdt = _mem_dtype(ex, t, dtype)
    if n is not None and mdt.itemsize == es:
        ex.memory.store_rows(addrs, np.asarray(values).astype(mdt, copy=False), mdt)
        return
    if n is not None:
        addrs = addrs[:, None] + np.arange(n, dtype=np.int64) * es
    ex.memory.store(addrs, np.asarray(values).astype(mdt, copy=False), mdt)


def op_load(ex, vals, ins, bmask, full):
    L = ex.lane_count
    if ins.alloca is not None:
        direct = _alloca_view(ex, ins, ins.ty)
        if direct is not None:
            view, dtype, mdt, _ = direct
            if ins.ty.kind == "matrix":
                stored = _stored_matrix(ex, ins, view, dtype, mdt)
                if stored is not None:
                    return stored
            return view.astype(dtype) if mdt == dtype or dtype != np.bool_ else view != 0
    addrs = _bcast(vals[ins.args[0]], L)
    lanes = _active(ex, bmask, full)
    if lanes is not None:
        addrs = addrs[lanes]
    value = read_typed(ex, addrs, ins.ty)
    if isinstance(value, tuple):
        return _map_leaves(lambda v: _expand(ex, lanes, v), value)
    return _expand(ex, lanes, value)


def _stored_matrix(ex, ins, view, dtype, mdt):
    """-O0 code keeps matrix variables in allocas: a load of the matrix last stored
    whole to the alloca returns that very value (no copy; its cached logical form stays
    usable, clcoop.interp.coop_calls) when memory still holds its exact bits, whoever
    wrote in between."""
    stored = ex.frame.stored_matrices.get(ins.alloca)
    if stored is None or mdt != dtype:
        return None
    lanes = np.asarray(stored)
    if lanes.dtype != dtype or lanes.shape != view.shape:
        return None
    bits = np.dtype(f"u{dtype.itemsize}") if dtype.itemsize in (1, 2, 4, 8) else None
    if bits is None or not np.array_equal(view.view(bits), lanes.view(bits)):
        return None
    return stored


def op_store(ex, vals, ins, bmask, full):
    L = ex.lane_count
    value = vals[ins.args[0]]
    if ins.alloca is not None and not isinstance(value, tuple):
        direct = _alloca_view(ex, ins, ins.data)
        if direct is not None:
            view, dtype, mdt, _ = direct
            ex.frame.stored_matrices.pop(ins.alloca, None)
            if full:
                view[...] = np.asarray(value).astype(mdt, copy=False)
                if ins.data.kind == "matrix":
                    ex.frame.stored_matrices[ins.alloca] = value
            else:
                lanes = np.nonzero(bmask)[0]
                view[lanes] = _bcast(value, L)[lanes].astype(mdt, copy=False)
            return None
    addrs = _bcast(vals[ins.args[1]], L)
    lanes = _active(ex, bmask, full)
    if isinstance(value, tuple):
        if not _all_zero(value):
            value = _map_leaves(lambda v: _bcast(v, L) if lanes is None else _bcast(v, L)[lanes], value)
        if lanes is not None:
            addrs = addrs[lanes]
        write_typed(ex, addrs, value, ins.data)
        return None
    value = _bcast(value, L)
    if lanes is not None:
        addrs, value = addrs[lanes], value[lanes]
    t = ins.data
    write_typed(ex, addrs, value, t)
    return None


def _prepare_gep(tr, rec, operands):
    text = rec.text.split("getelementptr", 1)[1]
    ts = TokenStream(text, tr.module.structs)
    while ts.peek() in ("inbounds", "nuw", "nusw", "inrange"):
        ts.next()
    src = parse_type(ts)
    layout = tr.module.layout
    const_off = 0
    terms = []          # (slot, stride)
    t = src
    for k, v in enumerate(operands[1:]):
        slot = rec.args[k + 1]
        cv = tr.fn.template[slot]
        if k == 0:
            stride = layout.size(src)
        elif t.kind == "struct":
            offsets, _ = layout.struct_layout(t)
            field = int(cv)
            const_off += offsets[field]
            t = t.fields[field]
            continue
        else:
            t = t.elem
            stride = layout.size(t)
        if cv is not None and np.ndim(cv) == 0:
            const_off += int(cv) * stride
        else:
            terms.append((slot, stride))
    return np.int64(const_off), terms


def op_gep(ex, vals, ins, bmask, full):
    const_off, terms = ins.data
    addr = vals[ins.args[0]]
    for slot, stride in terms:
        idx = vals[slot]
        if np.ndim(idx) > 1:
            raise IRError(f"vector GEPs are not supported: {ins.text}")
        addr = addr + idx.astype(np.int64) * np.int64(stride)
    if const_off:
        addr = addr + const_off
    return addr


# ---------------------------------------------------------------- arithmetic

def _sdiv(a, b):
    r = np.fmod(a, b)
    return (a - r) // b


def _div_guard(ex, ins, b, bmask, full):
    zero = b == 0
    if np.ndim(zero) == 0:
        if zero:
            ex.fault("integer division by zero", bmask)
        return b
    bad = zero if full else zero & (bmask if zero.ndim == 1 else bmask[:, None])
    if bad.any():
        lanes = bad if bad.ndim == 1 else bad.any(axis=1)
        ex.fault("integer division by zero", lanes)
    return np.where(zero, np.ones_like(b), b)


_BINARY = {"add", "sub", "mul", "udiv", "sdiv", "urem", "srem", "shl", "lshr", "ashr",
           "and", "or", "xor", "fadd", "fsub", "fmul", "fdiv", "frem"}


def _binary_fn(op, t):
    elem = t.elem if t.kind == "vec" else t
    if elem.kind == "int" and elem.bits == 1:
        return {"add": np.logical_xor, "sub": np.logical_xor, "mul": np.logical_and,
                "and": np.logical_and, "or": np.logical_or, "xor": np.logical_xor,
                "udiv": lambda a, b: a, "sdiv": lambda a, b: a,
                "urem": lambda a, b: np.zeros_like(a), "srem": lambda a, b: np.zeros_like(a),
                "shl": lambda a, b: a, "lshr": lambda a, b: a, "ashr": lambda a, b: a}[op]
    bits = elem.bits
    if op in ("add", "fadd"):
        return np.add
    if op in ("sub", "fsub"):
        return np.subtract
    if op in ("mul", "fmul"):
        return np.multiply
    if op == "fdiv":
        return np.divide
    if op == "frem":
        return np.fmod
    if op == "and":
        return np.bitwise_and
    if op == "or":
        return np.bitwise_or
    if op == "xor":
        return np.bitwise_xor
    sdt, udt = _INT_DTYPES[bits], _UINT_DTYPES[bits]
    shift_mask = bits - 1
    if op == "shl":
        return lambda a, b: np.left_shift(a, (b & shift_mask).astype(sdt))
    if op == "ashr":
        return lambda a, b: np.right_shift(a, (b & shift_mask).astype(sdt))
    if op == "lshr":
        return lambda a, b: np.right_shift(np.asarray(a).astype(udt), (np.asarray(b) & shift_mask).astype(udt)).astype(sdt)
    if op == "udiv":
        return lambda a, b: (np.asarray(a).astype(udt) // np.asarray(b).astype(udt)).astype(sdt)
    if op == "urem":
        return lambda a, b: (np.asarray(a).astype(udt) % np.asarray(b).astype(udt)).astype(sdt)
    if op == "sdiv":
        return lambda a, b: _sdiv(np.asarray(a), np.asarray(b)).astype(sdt)
    if op == "srem":
        return lambda a, b: np.fmod(np.asarray(a), np.asarray(b)).astype(sdt)
    raise IRError(f"unsupported binary operator {op}")


def op_binary(ex, vals, ins, bmask, full):
    a, b = vals[ins.args[0]], vals[ins.args[1]]
    if ins.op in ("udiv", "sdiv", "urem", "srem") and b is not None and np.asarray(b).dtype != np.bool_:
        b = _div_guard(ex, ins, b, bmask, full)
    return ins.data(a, b)


def op_fneg(ex, vals, ins, bmask, full):
    return np.negative(vals[ins.args[0]])


def op_freeze(ex, vals, ins, bmask, full):
    return vals[ins.args[0]]


_PREDICATES = {"eq", "ne", "ugt", "uge", "ult", "ule", "sgt", "sge", "slt", "sle", "false",
               "oeq", "ogt", "oge", "olt", "ole", "one", "ord", "ueq", "une", "uno", "true"}


def _compare_fn(op, pred, t):
    if op == "icmp":
        elem = t.elem if t.kind == "vec" else t
        if pred in ("eq", "ne", "sgt", "sge", "slt", "sle") or elem.kind == "ptr" or elem.bits == 1:
            base = {"eq": np.equal, "ne": np.not_equal, "sgt": np.greater, "sge": np.greater_equal,
                    "slt": np.less, "sle": np.less_equal, "ugt": np.greater, "uge": np.greater_equal,
                    "ult": np.less, "ule": np.less_equal}[pred]
            return base
        udt = _UINT_DTYPES[elem.bits]
        base = {"ugt": np.greater, "uge": np.greater_equal, "ult": np.less, "ule": np.less_equal}[pred]
        return lambda a, b: base(np.asarray(a).astype(udt), np.asarray(b).astype(udt))
    # fcmp: ordered predicates are false when either operand is NaN (LangRef "fcmp").
    def unordered(a, b):
        return np.isnan(a) | np.isnan(b)
    table = {
        "false": lambda a, b: np.zeros(np.broadcast(a, b).shape, bool),
        "true": lambda a, b: np.ones(np.broadcast(a, b).shape, bool),
        "oeq": np.equal, "ogt": np.greater, "oge": np.greater_equal, "olt": np.less,
        "ole": np.less_equal, "one": lambda a, b: np.not_equal(a, b) & ~unordered(a, b),
        "ord": lambda a, b: ~unordered(a, b), "uno": unordered,
        "ueq": lambda a, b: np.equal(a, b) | unordered(a, b),
        "ugt": lambda a, b: np.greater(a, b) | unordered(a, b),
        "uge": lambda a, b: np.greater_equal(a, b) | unordered(a, b),
        "ult": lambda a, b: np.less(a, b) | unordered(a, b),
        "ule": lambda a, b: np.less_equal(a, b) | unordered(a, b),
        "une": np.not_equal,
    }
    return table[pred]


def op_compare(ex, vals, ins, bmask, full):
    return ins.data(vals[ins.args[0]], vals[ins.args[1]])


def op_select(ex, vals, ins, bmask, full):
    c, a, b = vals[ins.args[0]], vals[ins.args[1]], vals[ins.args[2]]
    if isinstance(a, tuple):
        return tuple(np.where(_cond_shape(c, x), x, y) for x, y in zip(a, b))
    if np.ndim(c) == 0:
        return a if c else b
    return np.where(_cond_shape(c, a, b), a, b)


def _cond_shape(c, a, b=None):
    c = np.asarray(c)
    target = max(np.ndim(a), np.ndim(b) if b is not None else 0)
    if c.ndim == 1 and target == 2:
        return c[:, None]
    return c


# ---------------------------------------------------------------- casts

_CASTS = {"trunc", "zext", "sext", "fptrunc", "fpext", "fptoui", "fptosi", "uitofp", "sitofp",
          "ptrtoint", "inttoptr", "bitcast", "addrspacecast"}


def op_cast(ex, vals, ins, bmask, full):
    src_t, op = ins.data
    v = np.asarray(vals[ins.args[0]])
    dst_t = ins.ty
    dst = scalar_dtype(dst_t)
    src_elem = src_t.elem if src_t.kind == "vec" else src_t
    if op == "addrspacecast":
        return v
    if op == "trunc":
        if dst == np.bool_:
            return (v & 1).astype(bool)
        return v.astype(dst)
    if op == "zext":
        if v.dtype == np.bool_:
            return v.astype(dst)
        return v.astype(_UINT_DTYPES[src_elem.bits]).astype(dst)
    if op == "sext":
        if v.dtype == np.bool_:
            return -(v.astype(dst))
        return v.astype(dst)
    if op in ("fptrunc", "fpext", "sitofp"):
        if op == "sitofp" and v.dtype == np.bool_:
            # i1 true is -1; negate in integers so false stays +0.0, not -0.0
            return (-(v.astype(np.int8))).astype(dst)
        return v.astype(dst)
    if op == "uitofp":
        if v.dtype == np.bool_:
            return v.astype(dst)
        return v.astype(_UINT_DTYPES[src_elem.bits]).astype(dst)
    if op == "fptosi":
        return np.nan_to_num(v, nan=0.0, posinf=0.0, neginf=0.0).astype(np.float64).astype(dst) \
            if dst != np.bool_ else (v != 0)
    if op == "fptoui":
        if dst == np.bool_:
            return v != 0
        w = np.nan_to_num(v.astype(np.float64), nan=0.0, posinf=0.0, neginf=0.0)
        return np.where(w >= 2.0**63, (w - 2.0**64), w).astype(np.int64).astype(dst)
    if op == "ptrtoint":
        return v.astype(dst)
    if op == "inttoptr":
        if src_elem.bits < 64:
            return v.astype(_UINT_DTYPES[src_elem.bits]).astype(np.int64)
        return v.astype(np.int64)
    if op == "bitcast":
        return _bitcast(v, src_t, dst_t, ex.lane_count)
    raise IRError(f"unsupported cast {op}")


def _bitcast(v, src_t, dst_t, L):
    if src_t == dst_t or (src_t.kind == "ptr" and dst_t.kind == "ptr"):
        return v
    dst = scalar_dtype(dst_t)
    per_lane = v.ndim > (1 if src_t.kind == "vec" else 0)
    if not per_lane:
        out = np.ascontiguousarray(v).view(dst)
        return out[0] if dst_t.kind != "vec" else out
    v = np.ascontiguousarray(v.reshape(v.shape[0], -1))
    out = v.view(dst)
    return out[:, 0] if dst_t.kind != "vec" else out


# ---------------------------------------------------------------- vectors and aggregates

def op_extractelement(ex, vals, ins, bmask, full):
    v, idx = vals[ins.args[0]], vals[ins.args[1]]
    v = np.asarray(v)
    if np.ndim(idx) == 0:
        return v[..., int(idx)] if v.ndim else v
    idx = _bcast(np.asarray(idx).astype(np.int64) % v.shape[-1], ex.lane_count)
    v = _bcast(v, ex.lane_count)
    return v[np.arange(v.shape[0]), idx]


def op_insertelement(ex, vals, ins, bmask, full):
    v, x, idx = vals[ins.args[0]], vals[ins.args[1]], vals[ins.args[2]]
    v = np.asarray(v)
    if v.shape[0] == 1 and np.ndim(x) == 0 and np.ndim(idx) == 0 and ex.lane_count != 1:
        out = v.copy()              # still a constant (1, n) vector
        out[:, int(idx)] = x
        return out
    out = np.array(_bcast(v, ex.lane_count))
    if np.ndim(idx) == 0:
        out[:, int(idx)] = x
    else:
        idx = np.asarray(idx).astype(np.int64) % out.shape[1]
        out[np.arange(out.shape[0]), idx] = _bcast(x, ex.lane_count)
    return out


def _shuffle_mask(tr, text):
    # "... , <4 x i32> <i32 0, i32 poison, ...>" or "<4 x i32> zeroinitializer" or poison
    m = re.search(r",\s*(<\d+ x i32>\s*(?:<[^<>]*>|zeroinitializer|poison|undef))\s*$", text)
    if not m:
        raise IRError(f"cannot read the shuffle mask of: {text}")
    ts = TokenStream(m.group(1), tr.module.structs)
    c = parse_typed_constant(ts)
    n = c.ty.n
    if c.kind in ("zero",):
        return np.zeros(n, np.int64)
    if c.kind == "undef":
        return np.zeros(n, np.int64)
    return np.array([0 if e.kind == "undef" else int(e.value) for e in c.value], np.int64)


def op_shuffle(ex, vals, ins, bmask, full):
    a, b = np.asarray(vals[ins.args[0]]), np.asarray(vals[ins.args[1]])
    if a.shape[0] != b.shape[0]:
        a, b = _bcast(a, ex.lane_count), _bcast(b, ex.lane_count)
    both = np.concatenate([a, b], axis=-1)
    return both[..., ins.data]


def op_extractvalue(ex, vals, ins, bmask, full):
    v = vals[ins.args[0]]
    for i in ins.data:
        v = v[i]
    return v


def op_insertvalue(ex, vals, ins, bmask, full):
    agg, x = vals[ins.args[0]], vals[ins.args[1]]
    return _insert_path(agg, ins.data, x)


def _insert_path(agg, path, x):
    items = list(agg)
    if len(path) == 1:
        items[path[0]] = x
    else:
        items[path[0]] = _insert_path(items[path[0]], path[1:], x)
    return tuple(items)


# ---------------------------------------------------------------- atomics

def atomic_apply(ex, addrs, values, t, op, lanes, compare=None):
    """Apply an atomic RMW for each active lane in lane order; return old values."""
    dtype = _mem_dtype(ex, t, scalar_dtype(t))
    view, idx = ex.memory.atomic_region_view(addrs, dtype)
    values = np.asarray(values).astype(dtype)
    compare = None if compare is None else np.asarray(compare).astype(dtype)
    uniq = np.unique(idx).size == idx.size
    if uniq:
        old = view[idx].copy()
        view[idx] = _rmw(op, old, values, compare)
        return old
    if op in ("add", "sub") and dtype.kind in "iu":
        # Segmented exclusive prefix sums give each lane the value it saw in lane order.
        delta = values if op == "add" else -values
        order = np.argsort(idx, kind="stable")
        s_idx, s_delta = idx[order], delta[order]
        csum = np.cumsum(s_delta, dtype=dtype)
        starts = np.r_[True, s_idx[1:] != s_idx[:-1]]
        seg_start = np.maximum.accumulate(np.where(starts, np.arange(idx.size), 0))
        before = csum - s_delta - (csum[seg_start] - s_delta[seg_start])
        old_sorted = view[s_idx] + before
        old = np.empty_like(old_sorted)
        old[order] = old_sorted
        np.add.at(view, idx, delta)
        return old
    old = np.empty(idx.size, dtype)
    for k in range(idx.size):     # serial lane order (rare: contended non-add atomics)
        i = idx[k]
        old[k] = view[i]
        view[i] = _rmw(op, view[i:i + 1], values[k:k + 1],
                       None if compare is None else compare[k:k + 1])[0]
    return old


def _rmw(op, old, v, compare):
    if op == "xchg":
        return v
    if op == "add" or op == "fadd":
        return old + v
    if op == "sub" or op == "fsub":
        return old - v
    if op == "and":
        return old & v
    if op == "or":
        return old | v
    if op == "xor":
        return old ^ v
    if op == "nand":
        return ~(old & v)
    if op in ("max", "min", "fmax", "fmin"):
        if old.dtype.kind == "f":      # LLVM maxnum/minnum, cl_ext_float_atomics: NaN loses
            return np.fmax(old, v) if "max" in op else np.fmin(old, v)
        return np.maximum(old, v) if "max" in op else np.minimum(old, v)
    if op in ("umax", "umin"):
        udt = _UINT_DTYPES[old.dtype.itemsize * 8]
        u = (np.maximum if op == "umax" else np.minimum)(old.astype(udt), np.asarray(v).astype(udt))
        return u.astype(old.dtype)
    if op == "uinc_wrap":
        return np.where(old.astype(np.uint64) >= np.asarray(v).astype(np.uint64), 0, old + 1).astype(old.dtype)
    if op == "udec_wrap":
        return np.where((old == 0) | (old.astype(np.uint64) > np.asarray(v).astype(np.uint64)), v, old - 1).astype(old.dtype)
    if op == "cmpxchg":
        return np.where(same_bits(old, compare), v, old)
    raise IRError(f"unsupported atomic operation {op}")


def same_bits(a, b):
    """The compare of a compare-and-exchange: equal object representations (C11 7.17.7.4),
    so for floats -0.0 differs from 0.0 and a NaN matches the same NaN."""
    a = np.asarray(a)
    b = np.asarray(b).astype(a.dtype)
    if a.dtype.kind == "f":
        u = _UINT_DTYPES[a.dtype.itemsize * 8]
        return a.view(u) == b.view(u)
    return a == b


def op_atomicrmw(ex, vals, ins, bmask, full):
    op, t = ins.data
    L = ex.lane_count
    addrs = _bcast(vals[ins.args[0]], L)
    v = _bcast(vals[ins.args[1]], L)
    lanes = _active(ex, bmask, full)
    if lanes is not None:
        addrs, v = addrs[lanes], v[lanes]
    old = atomic_apply(ex, addrs, v, t, op, lanes)
    return _expand(ex, lanes, old.astype(scalar_dtype(t)))


def op_cmpxchg(ex, vals, ins, bmask, full):
    t = ins.data
    L = ex.lane_count
    addrs = _bcast(vals[ins.args[0]], L)
    cmp = _bcast(vals[ins.args[1]], L)
    new = _bcast(vals[ins.args[2]], L)
    lanes = _active(ex, bmask, full)
    if lanes is not None:
        addrs, cmp, new = addrs[lanes], cmp[lanes], new[lanes]
    old = atomic_apply(ex, addrs, new, t, "cmpxchg", lanes, compare=cmp)
    old = old.astype(scalar_dtype(t))
    ok = same_bits(old, cmp)
    return (_expand(ex, lanes, old), _expand(ex, lanes, ok))


# ---------------------------------------------------------------- calls

def resolve_call(tr, callee, arg_values, rec):
    """Pre-resolve a call: ('function', name) | ('builtin', handler) | ('coop', name)."""
    name = callee.name
    kind = value_kind(callee)
    if kind != "function" or not name:
        raise IRError(f"indirect calls are not supported: {rec.text}")
    f = tr.module.functions.get(name)
    if f is not None and not f.is_declaration:
        return ("function", name)
    if "__spirv_" in name:
        return ("coop", name)
    from clcoop.interp import ocl_builtins
    arg_types = [tr._type(str(a.type)) for a in arg_values]
    handler = ocl_builtins.resolve(name, arg_types, rec.ty, rec.text)
    return ("builtin", handler)


def op_call(ex, vals, ins, bmask, full):
    kind, target = ins.data
    args = [vals[a] for a in ins.args]
    if kind == "function":
        saved = ex.current
        result = ex.call(target, args, bmask)
        ex.current = saved
        return result
    ex.mask = bmask
    if kind == "coop":
        from clcoop.interp.coop_calls import execute_coop_call
        ex.cur_lanes = None
        L = ex.lane_count
        args = [_bcast(a, L) if a is not None and not isinstance(a, tuple) else a for a in args]
        return execute_coop_call(ex, target, args, str(ins.ty) if ins.ty is not None else "void")
    return target(ex, args, bmask, full, ins)


_SIMPLE_OPS = {
    "load": op_load, "store": op_store, "fneg": op_fneg, "freeze": op_freeze,
    "select": op_select, "extractelement": op_extractelement,
    "insertelement": op_insertelement,
}

