"""Kernel IR -> a checked LLVM module for the host (docs/native.md, "Execution model").

Every defined function is re-emitted instruction by instruction with:
- a context pointer (%__ctx) as first parameter, passed on to every call of a defined
  function or of a work-item built-in (the built-ins read ids and sizes from the context);
- a bounds check before every load, store, atomic and memory intrinsic, against the
  region the pointer comes from (a kernel argument's buffer, a __constant global, a
  private array) or, when that is not known statically, against every region of the
  launch; a failed check records the fault in the context and redirects the access to a
  scratch area, so native code never touches memory outside the launch's regions;
- integer division guarded (division by zero is a fault; INT_MIN / -1 wraps like the
  interpreter's NumPy) so the host never traps;
- at every backward branch, a poll that counts the loop's instructions against the
  limit and returns early once the work-item has faulted;
- llvm.fmuladd (unfused) computed like the interpreter (intrinsics._fmuladd); llvm.fma rounded once (interp/fused.py).
A per-kernel driver runs a range of work-groups, work-item after work-item.
"""
import re

import numpy as np

from clcoop import coop_names, coopmat_spec, float8
from clcoop.errors import IRError
from clcoop.ir import call_signatures
from clcoop.ir.loader import value_kind, parse_type_text, read_structs
from clcoop.ir.demangle import demangle
from clcoop.ir.scalars import scalar_dtype
from clcoop.ir.source_map import read_debug_info
from clcoop.native import atomic_calls, bfloat_ir, collectives, coop_routines, float8_ir, local_memory, named_ir, \
    private_matrices, support, \
    tensor_routines
from clcoop.native import ballot_ir, bit_ops_ir, irbuild, votes, workgroup_collectives
from clcoop.native.builtin_ir import (bool_type, elem_size, exact_builtin, exact_math_definition, intrinsic_suffix,
                                     intrinsics_in, no_op_definition, params_of, store_size, type_suffix,
                                     workitem_definition)
from clcoop.native.context import (ATOMIC_FUNCTIONS, BARRIERS, CTX, FAULT_ATOMIC, FAULT_DIVZERO, FAULT_READ,
                                   FAULT_UNREACHABLE, FAULT_WRITE, MAX_STACK_BYTES, PRIVATE_LIVE, PRIVATE_OFFSET,
                                   PRIVATE_ROW_WORDS, PRIVATE_SIZE, SCRATCH_BYTES, SUSPENDING_CALLS)
from clcoop.native.drivers import coroutine_driver, plain_driver
from clcoop.native.text_rewrite import (clean_ir, declared_name, gquote, quote, ref, replace_first, replace_last,
                                  split_function_type, typed, value_id)
from clcoop.native.runtime_ir import CORO_DECLS, CORO_EPILOGUE, CORO_PROLOGUE, FRAME_IR, RUNTIME_DECLS, RUNTIME_IR
from clcoop.native.support import Unsupported

# Bytes left free after every private array of the arena (_plan_allocas).
PRIVATE_RED_ZONE = 16


class Site:
    """A place where a fault can happen: the function and its IR instruction."""

    def __init__(self, function, text, what, size, dbg=None):
        self.function = function
        self.text = text
        self.what = what       # "read", "write", "atomic", "division", "loop", "unreachable"
        self.size = size
        self.dbg = dbg         # the instruction's !dbg node in NativeModule.debug_info (-g)
        self.dtype = None      # NumPy dtype of the element accessed (the interpreter's words)


class KernelPlan:
    """What runtime.py needs to launch one compiled kernel."""

    def __init__(self, name, params, arena_size):
        self.name = name
        self.driver = f"__clcoop_run.{name}"
        self.params = params          # [(Ty, arg block offset, size)]
        self.arena_size = arena_size
        self.arg_block_size = 0
        self.coop_sites = []          # [(site, rendezvous function)] (coop_routines.py)
        self.subgroup_driver = None   # the subgroup-wide fast path's driver (subgroup.py)
        self.subgroup_lanes = None    # work-items it runs in lockstep
        # Whether any lane count would do (nothing observes the subgroup): a launch whose
        # rows do not hold subgroup_lanes work-items can use a build with fewer.
        self.lanes_free = False
        self.subgroup_reason = "not generated"
        # Why launches of this kernel cannot run work-item by work-item (the driver exists
        # but must not run), or None: then every launch that does not take the fast path,
        # or whose fast path faults, runs in the interpreter (runtime.py).
        self.work_item_reason = None
        self.uses_local = False       # __local memory: each thread has its own (runtime.py)
        self.local_rows = []          # its region-table rows, zeroed per work-group (drivers.py)
        self.single_thread = False    # ... unless local_memory.py could not rewrite the module
        self.packed_loads = []        # fast-path loads that may read padded copies (packed_loads.py)


class NativeModule:
    def __init__(self):
        self.text = ""
        self.plans = {}               # kernel name -> KernelPlan
        self.reasons = {}             # kernel name -> why it is not compiled
        self.sites = []
        self.globals = []             # names of the program-scope globals in the region table
        self.scratch_bytes = SCRATCH_BYTES
        self.local_per_thread = True  # __local globals reached per thread (local_memory.py)
        self.debug_info = None        # -g: source_map.DebugInfo of the module compiled
        # Arena offset of each private array -> (its name as the interpreter gives it, its
        # size): a fault's region code names it (runtime_ir.py, __clcoop_fault_in).
        self.private_names = {}
        self.allocas = {}             # function -> its allocas' names before inlining
        self.inlined = []             # functions inlined into their callers (barriers)
        self.named = None             # named_ir.NamedModule it was generated from (ranges.py reads it)
        self.driver_lines = {}        # driver symbol -> the first line of its definition

    def text_without(self, drivers):
        """The text with the driver symbols `drivers` internal: LLVM's optimizer deletes them
        and what only they call, so a build leaves out a path (runtime.NativeProgram.deferred)."""
        text = self.text
        for line in map(self.driver_lines.get, drivers):
            text = text.replace(line, "define internal " + line.removeprefix("define "), 1)
        return text


# Every name the engine gives its own functions and globals begins so (runtime_ir.py,
# drivers.py, local_memory.py, coop_routines.py, ...).
RESERVED_PREFIX = "__clcoop"


def _lower_align(text, align):
    """An access's text with its `align N` at most `align`."""
    return re.sub(r", align (\d+)", lambda m: f", align {min(int(m.group(1)), align)}", text)


def safe_divisor(o):
    """A constant divisor that is neither 0 nor -1: its division cannot fault (no check)."""
    return o.is_constant and not re.search(r"\b0\b|zeroinitializer|-1\b|undef|poison", ref(o))


def generate(module, kernel_names, subgroup_size=None, fast_path=None):
    """NativeModule with every kernel of `kernel_names` that the engine takes; kernels with
    cooperative matrices only with a `subgroup_size` (their layout depends on it)."""
    out = NativeModule()
    if module.layout.pointer_bytes != 8:
        for k in kernel_names:
            out.reasons[k] = "32-bit SPIR target (spir-unknown-unknown): only spir64 is compiled natively"
        return out
    reserved = sorted(n for n in list(module.functions) + list(module.globals) if n.startswith(RESERVED_PREFIX))
    if reserved:
        # The engine's own runtime functions, drivers and tables have these names: IR that
        # defines or declares one would stand in for them.
        for k in kernel_names:
            out.reasons[k] = f"the name @{reserved[0]} (names beginning with {RESERVED_PREFIX} are the native engine's)"
        return out
    # The one parse and naming of the module (named_ir.py): the range proof reads it too.
    named = named_ir.parse(module)
    out.named = named
    out.local_per_thread = named.local_per_thread
    out.allocas = named.allocas
    out.inlined = named.inlined
    mod = named.mod
    # Source lines of fault sites (-g): the !dbg of the instructions as compiled here
    # (inlined and renamed), so a native fault names the line the interpreter names.
    out.debug_info = read_debug_info(str(mod))
    gen = _ModuleGen(module, mod, out, subgroup_size)
    gen.fast_path = fast_path
    for name in kernel_names:
        try:
            gen.kernel(name)
        except Unsupported as exc:
            out.reasons[name] = str(exc)
    out.text = gen.finish()
    return out


def _private_row(offset, size, live):
    """A row of @__clcoop_privates (context.PRIVATE_*, read by ll/runtime.ll)."""
    words = [0] * PRIVATE_ROW_WORDS
    words[PRIVATE_OFFSET], words[PRIVATE_SIZE], words[PRIVATE_LIVE] = offset, size, live
    return f"[{PRIVATE_ROW_WORDS} x i64] [{', '.join(f'i64 {w}' for w in words)}]"


def _host_has_f16c():
    import llvmlite.binding as llvm
    return bool(llvm.get_host_cpu_features().get("f16c"))


class _ModuleGen:
    def __init__(self, module, mod, out, subgroup_size=None):
        self.module = module
        self.subgroup_size = subgroup_size
        self.coop = coop_routines.CoopModule(subgroup_size)
        self.mod = mod
        self.out = out
        self.functions = {f.name: f for f in mod.functions}
        # Named struct types of this parse (LLVM renames them in its global context when
        # the same IR is parsed twice: %struct.S becomes %struct.S.0).
        self.structs = read_structs(mod)
        self.emitted = {}          # function name -> text (or Unsupported)
        self.arena = {}            # function name -> {alloca name: (offset, size)}, size
        self.needed_decls = set()
        self.builtin_defs = {}
        self.global_index = {}
        for gv in mod.global_variables:
            self.global_index[gv.name] = len(self.global_index)
        self.out.globals = list(self.global_index)
        self.drivers = []
        self.sg_functions = []     # subgroup-wide kernel variants (subgroup.py)
        # subgroup.generate when they are made (runtime.py; it retries without them when
        # LLVM rejects the module).
        self.fast_path = None
        # Private arrays of every function at disjoint offsets of the work-item's arena
        # (OpenCL C has no recursion: each function has one frame at a time).
        self.arena_base = {}
        self.arena_total = 0
        self.decls = {}
        self.coroutines = {}       # kernel name -> True when it waits at barriers
        self.collective_functions = {}  # function name -> a sub-group collective it calls

    # ------------------------------------------------------------ kernels
    def kernel(self, name):
        info = self.module.kernels[name]
        if info.byval:
            raise Unsupported("a struct argument passed by value")
        order = self._call_tree(name)
        # Region-table rows of the kernel's __local memory (runtime._region_table: the
        # program's globals, then the parameters): the drivers zero them at the start of
        # every work-group (drivers.zero_locals).
        local_rows = [self.global_index[g.name] for g in self.mod.global_variables
                      if self._global_info(g).addrspace == 3 and any(self._uses_global(f, g.name) for f in order)]
        local_rows += [len(self.global_index) + i for i, (_, t) in enumerate(info.params)
                       if t.kind == "ptr" and t.addrspace == 3]
        uses_local = bool(local_rows)
        for fname in order:
            for g in self.mod.global_variables:
                gi = self._global_info(g)
                if gi.addrspace != 3 and g.is_declaration and self._uses_global(fname, g.name):
                    # MCJIT would resolve it to the host process's symbol of that name.
                    raise Unsupported(f"the external variable @{g.name} (declared, not defined in the module)")
                if gi.addrspace != 3 and not gi.constant and self._uses_global(fname, g.name):
                    raise Unsupported(f"the program-scope variable @{g.name} (its value lives "
                                      f"from launch to launch in the interpreter's state)")
            self._function(fname, fname == name)
        params, off = [], 0
        for _, t in info.params:
            size = store_size(t, self.module.layout)
            off = (off + 15) // 16 * 16
            params.append((t, off, size))
            off += size
        plan = KernelPlan(name, params, 0)
        plan.arg_block_size = max(off, 1)
        # __local variables: each thread's own (local_memory.py, runtime.py), or, when
        # the module could not be rewritten, one instance: then such kernels run their
        # work-groups one after the other (docs/native.md).
        plan.single_thread = uses_local and not self.out.local_per_thread
        plan.uses_local = uses_local
        plan.local_rows = local_rows
        plan.coroutine = self.coroutines.get(name, False)
        plan.coop_sites = self.coop.sites.get(name, [])
        if self.fast_path is not None:
            self._subgroup_variant(plan)
        collective = next((self.collective_functions[f] for f in order if f in self.collective_functions), None)
        if collective is not None:
            self._collective_plan(plan, collective)
        self._driver(plan.driver, coroutine_driver(plan, name) if plan.coroutine else plain_driver(plan))
        self.out.plans[name] = plan

    def _collective_plan(self, plan, collective):
        """A kernel calling the sub-group collective `collective`: only its subgroup-wide
        path computes it (collectives.py); without that path it is not compiled."""
        plan.work_item_reason = (f"the sub-group collective '{collective}' runs natively only on the "
                                 f"subgroup-wide path (the work-items of a sub-group in lockstep)")
        if plan.subgroup_reason is not None:
            why = plan.subgroup_reason if self.fast_path is not None else \
                "the subgroup-wide paths were left out of this build"
            raise Unsupported(f"the sub-group collective '{collective}' runs natively only on the "
                              f"subgroup-wide path, which this kernel does not take: {why}")

    def _subgroup_variant(self, plan):
        """The subgroup-wide fast path of a kernel (subgroup.py), beside the per-work-item
        path it falls back to; plan.subgroup_reason says why not."""
        try:
            function, driver = self.fast_path(self, plan)
        except Unsupported as exc:
            plan.subgroup_reason = str(exc)
            return
        except Exception as exc:   # noqa: BLE001 - a bug here must not cost the kernel
            plan.subgroup_reason = f"internal: {type(exc).__name__}: {exc}"
            return
        self.sg_functions.append(function)
        self._driver(plan.subgroup_driver, driver)
        plan.subgroup_reason = None

    def _driver(self, symbol, text):
        self.drivers.append(text)
        self.out.driver_lines[symbol] = text.split("\n", 1)[0]    # (NativeModule.text_without)

    def _global_info(self, g):
        return self.module.globals[g.name]

    def _uses_global(self, fname, gname):
        f = self.functions[fname]
        # (After local_memory.per_thread, a __local variable is reached by a call.)
        names = "|".join(re.escape(n) for n in (gname, local_memory.function_name(gname)))
        pat = re.compile(r'@"?(?:' + names + r')(?:"|(?![-\w.$]))')
        return bool(pat.search(str(f)))

    def _call_tree(self, root):
        """Defined functions reachable from the kernel, callees first; no recursion."""
        order, state = [], {}

        def visit(fname, stack):
            if state.get(fname) == "done":
                return
            if fname in stack:
                raise Unsupported(f"recursion through @{fname}")
            stack.append(fname)
            for callee in self._callees(self.functions[fname]):
                visit(callee, stack)
            stack.pop()
            state[fname] = "done"
            order.append(fname)
        visit(root, [])
        return order

    def _callees(self, f):
        out = []
        for b in f.blocks:
            for ins in b.instructions:
                if ins.opcode == "call":
                    *args, callee = ins.operands
                    g = self.functions.get(callee.name)
                    if g is not None and not g.is_declaration and value_kind(callee) == "function":
                        out.append(callee.name)
                    elif g is not None and coop_routines.callee_of(callee.name) is not None:
                        # A function operand (coop_mat_per_element's fn): the operation calls it.
                        out += [a.name for a in args if value_kind(a) == "function"
                                and a.name in self.functions and not self.functions[a.name].is_declaration]
        return out

    # ------------------------------------------------------------ functions
    def _function(self, fname, is_kernel):
        if fname in self.emitted:
            if isinstance(self.emitted[fname], Unsupported):
                raise self.emitted[fname]
            return
        try:
            self.emitted[fname] = self.function_emitter(fname, is_kernel).emit()
            size = self.arena[fname][1]
            self.arena_base[fname] = (self.arena_total + 15) // 16 * 16
            self.arena_total = self.arena_base[fname] + size
        except Unsupported as exc:
            self.emitted[fname] = exc
            raise

    def function_emitter(self, fname, is_kernel):
        """The per-work-item emitter of the defined function fname (a _FunctionGen); the
        subgroup generator (subgroup.py) is handed one for the kernel it re-emits."""
        return _FunctionGen(self, self.functions[fname], is_kernel)

    # ------------------------------------------------------------ module text
    def finish(self):
        parts = []
        for line in str(self.mod).splitlines():
            if re.match(r"%[-\w.$\"]+ = type ", line):
                parts.append(line)
        for g in self.mod.global_variables:
            text = clean_ir(str(g))
            # A private global has no symbol in the object file, so MCJIT cannot give its
            # address for the region table (clang's `@__const.<f>.<var>` tables of local
            # constant arrays read garbage); internal is as local and keeps the symbol.
            text = re.sub(r"^(@[-\w.$\"]+ = )private ", r"\1internal ", text)
            parts.append(text)
        parts.append(RUNTIME_IR)
        parts.append(self.coop.text())
        parts.append(CORO_DECLS)
        parts.append(FRAME_IR)
        parts.extend(self.builtin_defs.values())
        decls = dict(self.decls)
        for f in self.mod.functions:
            if f.is_declaration and f.name in self.needed_decls:
                decls.setdefault(f.name, clean_ir(str(f).strip().splitlines()[-1]))
        for name in ("llvm.memcpy.p0.p0.i64", "llvm.memset.p0.i64"):
            decls.setdefault(name, RUNTIME_DECLS[name])
        parts.extend(decls.values())
        # Arena: the frames, then one live flag per function with a frame; the table of
        # private arrays lets chk_any tell a live array from a dangling pointer.
        framed = [f for f, t in self.emitted.items() if isinstance(t, str) and self.arena[f][1]]
        flags = (self.arena_total + 15) // 16 * 16
        rows = []
        for fi, fname in enumerate(framed):
            for name, (off, size) in self.arena[fname][0].items():
                rows.append(_private_row(self.arena_base[fname] + off, size, flags + 8 * fi))
                # clcoop/interp/instructions.py op_alloca names its region so.
                self.out.private_names[self.arena_base[fname] + off] = \
                    (f"private variable {declared_name(self.out, fname, name)}", size)
        rows.append(_private_row(0, 0, 0))
        parts.append(f"@__clcoop_privates = internal constant [{len(rows)} x [{PRIVATE_ROW_WORDS} x i64]] "
                     f"[{', '.join(rows)}]")
        parts.append(f"@__clcoop_private_count = internal constant i64 {len(rows) - 1}")
        for plan in self.out.plans.values():
            plan.arena_size = flags + 8 * len(framed)
        for fname, text in self.emitted.items():
            if isinstance(text, str):
                text = text.replace("@__ARENA_BASE__", str(self.arena_base.get(fname, 0)))
                if fname in framed:
                    text = text.replace("@__LIVE_FLAG__", str(flags + 8 * framed.index(fname)))
                parts.append(text)
        parts.extend(self.sg_functions)
        parts.extend(self.drivers)
        return irbuild.loop_metadata(bfloat_ir.as_bits("\n".join(p for p in parts if p) + "\n"))

    # ------------------------------------------------------------ built-ins
    def builtin(self, f):
        """Name of the native definition of the declared function f, or Unsupported."""
        name = f.name
        if name in self.builtin_defs:
            return name
        base, _ = demangle(name)
        ret, params = split_function_type(str(f.global_value_type))
        if base in support.WORKITEM_FUNCTIONS:
            self.builtin_defs[name] = workitem_definition(name, base, ret, params)
            return name
        if local_memory.global_of(name) in self.global_index:
            self.builtin_defs[name] = local_memory.address_definition(name, self.global_index[local_memory.global_of(name)])
            return name
        conversion = float8.parse_conversion(base)
        if base in support.NO_OP_FUNCTIONS:
            definition = no_op_definition(name, params)
        elif base in support.EXACT_MATH and len(params) == 1 and params[0] == ret:
            definition = exact_math_definition(name, base, ret)
        elif conversion:
            definition = float8_ir.definition(name, conversion, ret, params)
        else:
            definition = ballot_ir.lane_definition(name, base, ret, params) or \
                exact_builtin(name, base, params_of(name), ret, params)
        if definition is not None:
            self.builtin_defs[name] = definition
            for intr, decl in intrinsics_in(definition):
                self.needed_intrinsic(intr, decl)
            return name
        if base == "sub_group_barrier":
            raise Unsupported("sub_group_barrier (only work-group barriers are compiled natively)")
        if base == "printf":
            raise Unsupported("printf")
        if coop_names.names_spirv_operation(name) or base.startswith("coop_") or "Cooperative" in name:
            raise Unsupported(f"cooperative-matrix operations ({name})")
        raise Unsupported(f"the built-in '{base}' is not compiled natively yet")

    def needed_intrinsic(self, name, decl):
        self.needed_decls.add(name)
        self.decls.setdefault(name, decl)



class _FunctionGen:
    """The per-work-item emitter of one defined function f of the module mg (_ModuleGen):
    emit() re-emits it whole; instruction(ins, label) emits one instruction for one
    work-item into `lines` (fresh names %__<stem><n> from the counter n, fault sites
    through site(), checked accesses through check()). The subgroup generator
    (subgroup._SubgroupGen) holds one and emits its per-lane copies through it."""

    def __init__(self, mg, f, is_kernel):
        self.mg = mg
        self.f = f
        self.is_kernel = is_kernel
        self.layout = mg.module.layout
        self.structs = mg.structs
        self.n = 0
        self.spills = []           # allocas of matrix operands (coop_routines)
        self.lines = []
        self.cur_block = 0         # index in blocks of the block being emitted
        self.coroutine = False     # suspends at barriers (emit() decides; read by instruction())
        self.renames = {}          # block name -> name of the block now ending it
        self.arena = {}            # alloca name -> (offset, size)
        self.safe_allocas = set()
        self.blocks = list(f.blocks)
        self.block_index = {b.name: i for i, b in enumerate(self.blocks)}
        self.block_cost = [sum(1 for _ in b.instructions) for b in self.blocks]
        self.param_index = {a.name: i for i, a in enumerate(f.arguments)}
        # Operands are not instruction handles in llvmlite: their definitions by name
        # (the instruction namer named every value).
        self.defs = {ins.name: ins for b in self.blocks for ins in b.instructions if ins.name}
        lines = mg.out.debug_info.lines.get(f.name, []) if mg.out.debug_info else []
        instructions = [ins for b in self.blocks for ins in b.instructions]
        self.dbg = {value_id(ins): node for ins, node in zip(instructions, lines)} \
            if len(lines) == len(instructions) else {}

    def definition(self, v):
        """The defining instruction of an operand, or None."""
        if value_kind(v) != "instruction":
            return None
        return self.defs.get(v.name)

    def ty(self, text):
        try:
            return parse_type_text(text, self.structs)
        except IRError as exc:
            # A type the engines do not read (fp128, a scalable vector): the kernel falls
            # back to the interpreter, which refuses it in its own words (docs/native.md).
            raise Unsupported(str(exc)) from None

    def fresh(self, stem):
        self.n += 1
        return f"%__{stem}{self.n}"

    def site(self, ins, what, size, dtype=None):
        """A new fault site at `ins`; dtype: the NumPy dtype of the element accessed where
        `ins` is a call (an atomic built-in, a memory intrinsic), for the interpreter's words."""
        site = Site(self.f.name, clean_ir(str(ins)), what, size, self.dbg.get(value_id(ins)))
        site.dtype = dtype if dtype is not None else self._accessed_dtype(ins)
        self.mg.out.sites.append(site)
        return len(self.mg.out.sites) - 1

    def _accessed_dtype(self, ins):
        """The scalar (or vector element) dtype a load, store or atomic accesses, as the
        interpreter's memory checks name it; None for other instructions and aggregates."""
        ops = list(ins.operands)
        text = {"load": lambda: str(ins.type), "store": lambda: str(ops[0].type),
                "atomicrmw": lambda: str(ops[1].type), "cmpxchg": lambda: str(ops[1].type)}.get(ins.opcode)
        if text is None:
            return None
        try:
            return scalar_dtype(self.ty(text()))
        except Exception:          # noqa: BLE001 - structs, arrays: described in bytes
            return None

    # ------------------------------------------------------------ emit
    def emit(self):
        f = self.f
        if not _host_has_f16c() and re.search(r"\bhalf\b", str(f)):
            raise Unsupported("half values on a CPU without F16C (LLVM would call runtime "
                              "library conversions that are not in the process)")
        ret, _ = split_function_type(str(f.global_value_type))
        if "..." in str(f.global_value_type):
            raise Unsupported(f"the variadic function @{f.name}")
        matrices = coopmat_spec.mentions_matrix_type(str(f))
        if matrices and not self.is_kernel and self._has_rendezvous():
            # A called function is no coroutine: what needs the whole sub-group (load,
            # store, mul-add, ...) stays in kernels; matrix values and per-work-item
            # operations (element-wise, m[i], length) are plain code anywhere.
            raise Unsupported(f"a cooperative-matrix operation of the whole sub-group in the called "
                              f"function @{f.name}")
        if matrices and self.mg.subgroup_size is None:
            raise Unsupported("cooperative-matrix operations (compiled per sub-group size)")
        self._plan_allocas()
        self.coroutine = self.has_barrier() or self._has_rendezvous()
        if self.coroutine and not self.is_kernel:
            raise Unsupported(f"a barrier in the called function @{f.name}")
        if self.coroutine:
            self.mg.coroutines[f.name] = True
        params = ["ptr noalias %__ctx"] + [f"{a.type} {quote(a.name)}" for a in f.arguments]
        for a in f.arguments:
            if "byval" in str(a) or "sret" in str(a):
                raise Unsupported(f"a byval/sret parameter of @{f.name}")
        body = []
        entry = True
        for bi, b in enumerate(self.blocks):
            self.cur_block = bi
            self.lines = []
            if entry and self.coroutine:
                self.lines.extend(CORO_PROLOGUE)
            if entry and self.arena:
                self.lines.append(f"  %__privslot = getelementptr i64, ptr %__ctx, i64 {CTX['priv']}")
                self.lines.append("  %__privraw = load ptr, ptr %__privslot")
                self.lines.append("  %__priv = getelementptr i8, ptr %__privraw, i64 @__ARENA_BASE__")
                # The frame is live until the function returns: pointers into it that
                # outlive the call are dangling (chk_any faults on them).
                self.lines.append("  %__live = getelementptr i8, ptr %__privraw, i64 @__LIVE_FLAG__")
                self.lines.append("  store i64 1, ptr %__live")
            entry = False
            label = b.name
            out_label = label
            for ins in b.instructions:
                out_label = self.instruction(ins, label) or out_label
            body.append((label, self.lines))
        if self.spills:
            # Spill slots of matrix operands in the entry block (the coroutine frame keeps them).
            at = len(CORO_PROLOGUE) if self.coroutine else 0
            body[0][1][at:at] = self.spills
        ret_default = "void" if ret == "void" else f"{ret} zeroinitializer"
        if self.coroutine:
            text = [f"define internal ptr {gquote(f.name)}({', '.join(params)}) presplitcoroutine {{"]
        else:
            text = [f"define internal {ret} {gquote(f.name)}({', '.join(params)}) {{"]
        for label, lines in body:
            text.append(f"{quote(label)[1:]}:")
            text.extend(self.fix_phis(line) for line in lines)
        text.append("__abort:")
        if self.arena:
            text.append("  store i64 0, ptr %__live")
        if self.coroutine:
            text.append("  br label %__coro.final")
            text.extend(CORO_EPILOGUE)
        else:
            text.append(f"  ret {ret_default}")
        text.append("}")
        self.mg.arena[f.name] = (self.arena, self.arena_end if self.arena else 0)
        text = tensor_routines.replace_tensor_types("\n".join(text))
        return coop_routines.replace_matrix_types(text, coop_routines.sizes_of(self)) if matrices else text

    def fix_phis(self, line):
        """A line with its phi's incoming blocks renamed: a block split by a poll or a
        barrier (branch, suspend) reaches its successors from the block now ending it."""
        if " = phi " not in line or not self.renames:
            return line
        return re.sub(r"(,\s*)%(\"[^\"]*\"|[-\w.$]+)\s*\]", lambda m: m.group(1) + quote(
            self.renames.get(m.group(2).strip('"'), m.group(2).strip('"'))) + " ]", line)

    # ------------------------------------------------------------ allocas
    def _plan_allocas(self):
        """Allocas only loaded and stored directly stay on the stack (no check needed:
        in bounds by construction); the others (indexed, escaping) move to the arena."""
        uses = {}
        allocas = []
        for b in self.blocks:
            for ins in b.instructions:
                if ins.opcode == "alloca":
                    allocas.append(ins)
                for k, op in enumerate(ins.operands):
                    if not op.is_constant and value_kind(op) == "instruction":
                        uses.setdefault(op.name, []).append((ins, k))
        off = stack = 0
        for a in allocas:
            if a.name not in {i.name for i in self.blocks[0].instructions}:
                raise Unsupported(f"an alloca outside the entry block of @{self.f.name}")
            text = tensor_routines.replace_tensor_types(str(a))     # a layout is <F x i64>
            matrix = coopmat_spec.mentions_matrix_type(text)
            # A matrix variable holds its work-item's <V x T> components (private_matrices.py).
            text = coop_routines.component_text(self, text)
            m = re.search(r"alloca (.+?)(?:, align (\d+))?(?:, addrspace\((\d+)\))?$", clean_ir(text))
            if not m or re.search(r"alloca [^,]+, (?!align)", clean_ir(text)):
                raise Unsupported(f"a dynamic alloca in @{self.f.name}: {clean_ir(text)}")
            t = self.ty(m.group(1))
            # A matrix variable is V x sizeof(T) bytes, as the interpreter's (op_alloca).
            size = store_size(t, self.layout) if matrix else max(1, self.layout.size(t))
            safe = True
            for user, k in uses.get(a.name, []):
                if user.opcode == "load" and k == 0:
                    safe &= store_size(self.ty(coop_routines.component_text(self, str(user.type))),
                                       self.layout) <= size
                elif user.opcode == "store" and k == 1:
                    vt = self.ty(coop_routines.component_text(self, str(list(user.operands)[0].type)))
                    safe &= store_size(vt, self.layout) <= size
                elif user.opcode == "call" and str(list(user.operands)[-1].name).startswith("llvm.lifetime"):
                    pass
                else:
                    safe = False
            # The function's stack allocas together stay within MAX_STACK_BYTES: many
            # arrays each under it would overflow a thread's stack (a crash).
            if safe and stack + size <= MAX_STACK_BYTES:
                self.safe_allocas.add(a.name)
                stack += size
            else:
                align = int(m.group(2) or 16)
                align = max(align, 16)
                off = (off + align - 1) // align * align
                self.arena[a.name] = (off, size)
                # Each array is an object of its own, as in the interpreter: a red zone
                # after it, so that a pointer one past its end (or a short overrun) lies
                # in no array, not at the start of the next one (docs/native.md, "Safety
                # contract").
                off += size + PRIVATE_RED_ZONE
        self.arena_end = off

    # ------------------------------------------------------------ provenance
    def base_of(self, v, seen=None):
        """('arg', i) | ('global', name) | ('arena', name) | ('stack', name) | None."""
        seen = seen if seen is not None else set()
        kind = value_kind(v)
        if kind == "argument":
            return ("arg", self.param_index[v.name]) if self.is_kernel else None
        if kind == "global_variable":
            return ("global", v.name)
        if kind == "constant_expr":
            m = re.search(r"@([-\w.$]+)", str(v))
            names = re.findall(r"@([-\w.$]+)", str(v))
            if m and len(set(names)) == 1 and re.match(r"\S+ (?:ptr.*)?(getelementptr|addrspacecast|bitcast)", str(v)):
                return ("global", m.group(1)) if m.group(1) in self.mg.global_index else None
            return None
        v = self.definition(v)
        if v is None:
            return None
        key = value_id(v)
        if key in seen:
            return "cycle"
        seen.add(key)
        op = v.opcode
        if op == "alloca":
            return ("arena", v.name) if v.name in self.arena else ("stack", v.name)
        if op in ("getelementptr", "bitcast", "addrspacecast") or private_matrices.is_access_chain(v):
            return self.base_of(list(v.operands)[0], seen)
        if op == "call" and local_memory.global_of(list(v.operands)[-1].name or "") in self.mg.global_index:
            return ("global", local_memory.global_of(list(v.operands)[-1].name))
        if op in ("phi", "select"):
            ops = list(v.operands)
            if op == "select":
                ops = ops[1:]
            bases = {self.base_of(o, seen) for o in ops} - {"cycle"}
            if len(bases) == 1:
                return bases.pop()
            return None
        return None

    # ------------------------------------------------------------ checks
    def check(self, ins, ptr, size, elem, what, write, size_text=None, dtype=None):
        """Emit a check of `ptr` (an operand) and return the text of the checked pointer
        (dtype: as site's)."""
        kind = {"read": FAULT_READ, "write": FAULT_WRITE, "atomic": FAULT_ATOMIC}[what]
        if size > MAX_STACK_BYTES:
            raise Unsupported(f"an access of {size} bytes (values larger than {MAX_STACK_BYTES} "
                              f"bytes would live on the native stack)")
        # A failed check redirects the access to the scratch area: as large as the
        # largest access (dynamic memcpy lengths are zeroed instead).
        self.mg.out.scratch_bytes = max(self.mg.out.scratch_bytes, size)
        site = self.site(ins, what, size, dtype)
        pty = str(ptr.type)
        p0 = self.frozen_pointer(typed(ptr))
        n = size_text or f"i64 {size}"
        r = self.checked(ptr, p0, n, elem, site, kind, write)
        if pty == "ptr":
            return f"ptr {r}"
        back = self.fresh("q")
        self.lines.append(f"  {back} = addrspacecast ptr {r} to {pty}")
        return f"{pty} {back}"

    def frozen_pointer(self, pointer):
        """A generic pointer (text) with the value of `pointer` (typed text), frozen: a
        poison address (an inbounds GEP or nsw index that overflowed, a `ptr poison` of
        hostile IR) is then one fixed value, which the check tests and the access uses
        (unfrozen, LLVM may assume the check's comparisons anything: LangRef "Poison
        Values", a branch on poison is undefined behaviour)."""
        p0 = self.fresh("p")
        if pointer.startswith("ptr ") and not pointer.startswith("ptr addrspace("):
            self.lines.append(f"  {p0} = freeze {pointer}")
        else:
            self.lines.append(f"  {p0}.g = addrspacecast {pointer} to ptr")
            self.lines.append(f"  {p0} = freeze ptr {p0}.g")
        return p0

    def checked(self, ptr, p0, n, elem, site, kind, write):
        """Emit the check of `p0` (ptr), an address computed from the operand `ptr`, for an
        access of `n` (typed i64 text) bytes; return the checked pointer. The check is against
        the region `ptr` comes from where that is known statically (a kernel argument, a
        global, a private array), else the region holding p0 at run time; a failed check
        records that region, so the fault names it (runtime_ir.py, __clcoop_fault_in)."""
        base = self.base_of(ptr)
        w = "true" if write else "false"
        r = self.fresh("c")
        if base is not None and base[0] in ("arg", "global"):   # its row of the region table
            slot = len(self.mg.global_index) + base[1] if base[0] == "arg" else self.global_slot(base[1])
            self.lines.append(f"  {r} = call ptr @__clcoop_chk(ptr %__ctx, ptr {p0}, {n}, i64 {elem}, "
                              f"i32 {site}, i32 {kind}, i64 {slot}, i1 {w})")
        elif base is not None and base[0] == "arena":
            off, asize = self.arena[base[1]]
            lo = self.fresh("lo")
            self.lines.append(f"  {lo} = ptrtoint ptr {quote(base[1])} to i64")
            hi = self.fresh("hi")
            self.lines.append(f"  {hi} = add i64 {lo}, {asize}")
            # Region code -1 - (the array's offset in the arena); the function's own base
            # is known when the module is finished (@__ARENA_BASE__).
            code = self.fresh("rg")
            self.lines.append(f"  {code} = sub i64 {-1 - off}, @__ARENA_BASE__")
            self.lines.append(f"  {r} = call ptr @__clcoop_chk_range(ptr %__ctx, ptr {p0}, {n}, i64 {elem}, "
                              f"i32 {site}, i32 {kind}, i64 {lo}, i64 {hi}, i1 {w}, i1 true, i64 {code})")
        else:
            root = self.root_pointer(ptr, p0)
            self.lines.append(f"  {r} = call ptr @__clcoop_chk_any(ptr %__ctx, ptr {p0}, ptr {root}, {n}, "
                              f"i64 {elem}, i32 {site}, i32 {kind}, i1 {w})")
        return r

    def root_pointer(self, ptr, p0):
        """Text of a generic pointer to what `ptr` was computed from by getelementptr and
        casts alone (it dominates `ptr`'s definition, so this point too); `p0` when there
        is nothing to go back to."""
        v = ptr
        seen = set()
        while True:
            d = self.definition(v)
            if d is None or d.opcode not in ("getelementptr", "bitcast", "addrspacecast") \
                    or value_id(d) in seen:
                break
            seen.add(value_id(d))
            v = list(d.operands)[0]
        if v is ptr or value_kind(v) not in ("argument", "instruction"):
            return p0
        root = self.fresh("root")
        if str(v.type) == "ptr":
            self.lines.append(f"  {root} = getelementptr i8, {typed(v)}, i64 0")
        else:
            self.lines.append(f"  {root} = addrspacecast {typed(v)} to ptr")
        return root

    def global_slot(self, name):
        """The region table holds the program's globals first, then the kernel's
        parameters (runtime.py builds it in that order)."""
        return self.mg.global_index[name]

    # ------------------------------------------------------------ instructions
    def instruction(self, ins, label):
        op = ins.opcode
        text = clean_ir(str(ins))
        ops = list(ins.operands)
        if bfloat_ir.mentions(text) and bfloat_ir.instruction(self, ins, text, ops):
            return None
        if op == "alloca":
            if ins.name in self.arena:
                off, _ = self.arena[ins.name]
                self.lines.append(f"  {quote(ins.name)} = getelementptr inbounds i8, ptr %__priv, i64 {off}")
            else:
                self.lines.append("  " + text)
            return None
        if op in ("load", "store"):
            # load: the pointer is operand 0 and the type is the result's; store: the
            # pointer is operand 1 and the type is the stored value's.
            ptr, vty = (ops[0], str(ins.type)) if op == "load" else (ops[1], str(ops[0].type))
            self.access(ins, text, op, ptr, self.ty(coop_routines.component_text(self, vty)))
            return None
        if op in ("atomicrmw", "cmpxchg"):
            t = self.ty(str(ops[1].type))
            if t.kind == "vec":      # refused by the interpreter, in its words (instructions.py)
                raise Unsupported(f"atomic operations on vectors are not supported: {text}")
            checked = self.check(ins, ops[0], store_size(t, self.layout), store_size(t, self.layout), "atomic", True)
            self.lines.append("  " + replace_first(text, typed(ops[0]), checked))
            return None
        if op in ("sdiv", "udiv", "srem", "urem"):
            self.division(ins, text, ops)
            return None
        if op == "call":
            return self.call(ins, text, ops)
        if op in ("br", "switch"):
            return self.branch(ins, text, ops, label)
        if op == "unreachable":
            site = self.site(ins, "unreachable", 0)
            self.lines.append(f"  call void @__clcoop_fault(ptr %__ctx, i32 {site}, i32 {FAULT_UNREACHABLE}, i64 0, i64 0)")
            self.lines.append("  br label %__abort")
            return None
        if op == "ret" and self.arena:
            self.lines.append("  store i64 0, ptr %__live")
        if op == "ret" and self.coroutine:
            self.lines.append("  br label %__coro.final")
            return None
        if op in ("fptosi", "fptoui"):
            self.float_to_int(ins, ops, op)
            return None
        if op in ("fptrunc", "sitofp", "uitofp") and re.search(r"to (<\d+ x )?half>?$", text):
            src = str(ops[0].type)
            if op == "fptrunc" and "double" in src:
                self.double_to_half(ref(ops[0]), src, str(ins.type), quote(ins.name))
                return None
            if op != "fptrunc":
                # integer -> double is exact below 2^53 (above, half is infinite anyway),
                # then one correct rounding to half.
                wide = re.sub(r"i\d+", "double", src)
                d = self.fresh("i2d")
                self.lines.append(f"  {d} = {op} {typed(ops[0])} to {wide}")
                self.double_to_half(d, wide, str(ins.type), quote(ins.name))
                return None
        if op in ("indirectbr", "invoke", "callbr", "resume", "landingpad", "va_arg"):
            raise Unsupported(f"the instruction '{op}': {text}")
        if op in ("inttoptr",):
            pass   # checked where it is used (no provenance: every region is searched)
        self.lines.append("  " + text)
        return None

    def float_to_int(self, ins, ops, op):
        """fptosi/fptoui as the interpreter (scalars.float_to_int): saturating, NaN -> 0:
        LLVM's fpto[su]i.sat. (Plain fptosi is poison out of range, which a branch must
        not see, and x86 gives INT_MIN where the interpreter gave 0.) To i1, as the
        interpreter: x != 0."""
        src, dst = str(ops[0].type), str(ins.type)
        if self.ty(dst).kind == "vec" and self.ty(dst).elem.bits == 1 or dst == "i1":
            self.lines.append(f"  {quote(ins.name)} = fcmp une {typed(ops[0])}, zeroinitializer")
            return
        intr = f"llvm.{op}.sat.{intrinsic_suffix(dst)}.{type_suffix(src)}"
        self.mg.needed_intrinsic(intr, f"declare {dst} @{intr}({src})")
        self.lines.append(f"  {quote(ins.name)} = call {dst} @{intr}({typed(ops[0])})")

    def access(self, ins, text, op, ptr, t):
        if " atomic " in text:
            raise Unsupported(f"an atomic {op}: {text}")
        if self._direct_stack(ptr):
            self.lines.append("  " + text)
            return
        what = "read" if op == "load" else "write"
        elem = elem_size(t, self.layout)
        checked = self.check(ins, ptr, store_size(t, self.layout), elem, what, op == "store")
        # The check guarantees the element's alignment (relative to a region whose base
        # has its dtype's), not the `align` the IR claims: a larger one would let LLVM use
        # aligned vector moves (movaps), which trap on a 4-aligned float4 (clang's `align
        # 16` for `*(float4 *)(a + 1)`).
        self.lines.append("  " + _lower_align(replace_last(text, typed(ptr), checked), elem))

    def _direct_stack(self, ptr):
        d = self.definition(ptr)
        return d is not None and d.opcode == "alloca" and d.name in self.safe_allocas

    def division(self, ins, text, ops):
        t = str(ops[1].type)
        b = typed(ops[1])
        if safe_divisor(ops[1]):
            self.lines.append("  " + text)
            return
        ty = self.ty(t)
        vec = ty.kind == "vec"
        n = ty.n if vec else 1
        elem = str(ty.elem) if vec else t

        def splat(v):
            return f"<{', '.join(f'{elem} {v}' for _ in range(n))}>" if vec else str(v)
        bt = "<%d x i1>" % n if vec else "i1"
        z = self.fresh("z")
        self.lines.append(f"  {z} = icmp eq {b}, zeroinitializer")
        anyz = z
        if vec:
            anyz = self.fresh("anyz")
            self.lines.append(f"  {anyz} = call i1 @llvm.vector.reduce.or.v{n}i1({bt} {z})")
            self.mg.needed_intrinsic(f"llvm.vector.reduce.or.v{n}i1", f"declare i1 @llvm.vector.reduce.or.v{n}i1(<{n} x i1>)")
        site = self.site(ins, "division", 0)
        # A fault only when it divides by zero (the branchless select below keeps
        # vectorization possible).
        self.lines.append(f"  call void @__clcoop_fault_if(ptr %__ctx, i1 {anyz}, i32 {site}, i32 {FAULT_DIVZERO})")
        safe_cond = z
        if ins.opcode in ("sdiv", "srem"):
            bits = ty.elem.bits if vec else ty.bits
            minv = -(1 << (bits - 1))
            ma = self.fresh("ma")
            self.lines.append(f"  {ma} = icmp eq {typed(ops[0])}, {splat(minv)}")
            mb = self.fresh("mb")
            self.lines.append(f"  {mb} = icmp eq {b}, {splat(-1)}")
            mab = self.fresh("mab")
            self.lines.append(f"  {mab} = and {bt} {ma}, {mb}")
            safe_cond = self.fresh("sc")
            self.lines.append(f"  {safe_cond} = or {bt} {z}, {mab}")
        nb = self.fresh("d")
        self.lines.append(f"  {nb} = select {bt} {safe_cond}, {t} {splat(1)}, {b}")
        exact = " exact" if " exact " in text.split("=", 1)[1] else ""
        self.lines.append(f"  {quote(ins.name)} = {ins.opcode}{exact} {typed(ops[0])}, {nb}")

    def call(self, ins, text, ops):
        callee = ops[-1]
        if value_kind(callee) == "inline_asm":
            # Device code (a GPU ISA): the host cannot run it (interp/inline_asm.py runs the
            # empty optimization barriers).
            raise Unsupported(f"inline assembly: {text}")
        if value_kind(callee) != "function":
            raise Unsupported(f"an indirect call: {text}")
        name = callee.name
        f = self.mg.functions[name]
        # Untrusted IR: a call whose types are not its callee's (an ABI mismatch on the
        # host) or not the built-in's it names is refused (call_signatures.py).
        reason = call_signatures.mismatch(f, f.global_value_type, ins.type, [o.type for o in ops[:-1]],
                                          self.structs)
        if reason is not None:
            raise Unsupported(f"{reason}: {text}")
        if name.startswith("llvm."):
            return self.intrinsic(ins, text, ops, name)
        if f.is_declaration and demangle(name)[0] in BARRIERS:
            return self.barrier(ins)
        if f.is_declaration and votes.is_vote(demangle(name)[0]):
            return votes.emit(self, ins, ops, demangle(name)[0])
        if f.is_declaration and workgroup_collectives.is_collective(demangle(name)[0]):
            return workgroup_collectives.emit(self, ins, ops, *demangle(name))
        if f.is_declaration and tensor_routines.is_tensor_call(name):
            return tensor_routines.emit_call(self, ins, ops, name)
        if f.is_declaration and coop_routines.callee_of(name) is not None:
            return coop_routines.emit_call(self, ins, ops, name)
        if f.is_declaration and re.fullmatch(r"v(load|store)(2|3|4|8|16)", demangle(name)[0]):
            return self.vector_memory(ins, ops, *demangle(name))
        if f.is_declaration and demangle(name)[0] in ATOMIC_FUNCTIONS:
            return atomic_calls.emit(self, ins, ops, *demangle(name))
        if f.is_declaration and collectives.needs_other_lanes(demangle(name)[0]):
            return self.collective_stub(ins, demangle(name)[0])
        if f.is_declaration and bit_ops_ir.is_bit_op(demangle(name)[0]):
            return bit_ops_ir.emit(self, ins, ops, demangle(name)[0])
        if f.is_declaration:
            target = self.mg.builtin(f)
        else:
            target = name
        args = ", ".join(["ptr %__ctx"] + [typed(o) for o in ops[:-1]])
        ret = str(ins.type)
        lhs = f"{quote(ins.name)} = " if ret != "void" else ""
        self.lines.append(f"  {lhs}call {ret} {gquote(target)}({args})")
        return None

    def collective_stub(self, ins, base):
        """A sub-group collective on the per-work-item path, which cannot see the other
        work-items: a fault and no value. The kernel's plan says so (work_item_reason): its
        launches run the subgroup-wide path (subgroup.py) or the interpreter, never this."""
        self.mg.collective_functions.setdefault(self.f.name, base)
        site = self.site(ins, "sub-group collective", 0)
        self.lines.append(f"  call void @__clcoop_fault(ptr %__ctx, i32 {site}, i32 {FAULT_UNREACHABLE}, i64 0, i64 0)")
        if str(ins.type) != "void":
            self.lines.append(f"  {quote(ins.name)} = freeze {ins.type} poison")
        return None

    def vector_memory(self, ins, ops, base, params):
        """vloadN(offset, p) / vstoreN(v, offset, p) (OpenCL C 3.0 6.15.11): N elements
        at p + offset * N, aligned to the element. N and the element are the IR vector
        type's, the type the access has (call already refused a name that says otherwise)."""
        load = base.startswith("vload")
        ptr_op, off_op = (ops[1], ops[0]) if load else (ops[2], ops[1])
        vt = self.ty(str(ins.type) if load else str(ops[0].type))
        if vt.kind != "vec":
            raise Unsupported(f"the built-in '{base}' on {vt}")
        n, elem = vt.n, vt.elem
        esize = store_size(elem, self.layout)
        pty = str(ptr_op.type)
        start = self.fresh("vo")
        self.lines.append(f"  {start} = mul {typed(off_op)}, {n}")
        addr = self.fresh("va")
        self.lines.append(f"  {addr} = getelementptr {elem}, {typed(ptr_op)}, {off_op.type} {start}")
        site = self.site(ins, "read" if load else "write", n * esize, scalar_dtype(elem))
        kind = FAULT_READ if load else FAULT_WRITE
        p0 = self.frozen_pointer(f"{pty} {addr}")
        r = self.checked(ptr_op, p0, f"i64 {n * esize}", esize, site, kind, not load)
        if load:
            self.lines.append(f"  {quote(ins.name)} = load {vt}, ptr {r}, align {esize}")
        else:
            self.lines.append(f"  store {typed(ops[0])}, ptr {r}, align {esize}")
        return None

    def _has_rendezvous(self):
        return any(ins.opcode == "call" and coop_routines.is_rendezvous(list(ins.operands)[-1].name)
                   for b in self.blocks for ins in b.instructions)

    def coop_spill(self, vector_type):
        name = self.fresh("spill")
        self.spills.append(f"  {name} = alloca {vector_type}, align 64")
        return name

    def has_barrier(self):
        for b in self.blocks:
            for ins in b.instructions:
                if ins.opcode == "call":
                    callee = list(ins.operands)[-1]
                    base = demangle(callee.name)[0] if value_kind(callee) == "function" else None
                    if base in SUSPENDING_CALLS:
                        return True
        return False

    def barrier(self, ins):
        """A work-group barrier: the work-item's coroutine suspends; the driver resumes
        the work-group once every work-item waits at the same barrier."""
        return self.suspend(self.site(ins, "barrier", 0))

    def suspend(self, site):
        """Suspend the work-item's coroutine at `site` (the driver reads the site from the
        context); returns the label the block continues in after the resume."""
        self.n += 1
        self.lines.append(f"  %__bsp{self.n} = getelementptr i64, ptr %__ctx, i64 {CTX['barrier']}")
        self.lines.append(f"  store i64 {site}, ptr %__bsp{self.n}")
        s = self.fresh("susp")
        resume = f"__resume.{self.n}"
        self.lines.append(f"  {s} = call i8 @llvm.coro.suspend(token none, i1 false)")
        self.lines.append(f"  switch i8 {s}, label %__coro.suspend [i8 0, label {quote(resume)} "
                          f"i8 1, label %__coro.cleanup]")
        self.lines.append(f"{resume}:")
        label = self.blocks[self.cur_block].name
        self.renames[label] = resume
        return resume

    def intrinsic(self, ins, text, ops, name):
        if name.startswith(support.DROPPED_INTRINSICS):
            return None
        if name.startswith("llvm.fmuladd."):
            self.unfused(ins, ops)
            return None
        if name.startswith("llvm.fma.") and self._mul_add_result(ins)[1].bits == 16:
            self.fused_half(ins, ops)
            return None
        if name.startswith(support.MEMORY_INTRINSICS):
            length = typed(ops[2])
            if str(ops[2].type) != "i64":
                ln = self.fresh("len")
                self.lines.append(f"  {ln} = zext {length} to i64")
                length = f"i64 {ln}"
            args = [typed(o) for o in ops[:-1]]
            # Bytes: the interpreter names the first one outside as an element of uint8.
            byte = np.dtype(np.uint8)
            # The source first: a copy reads each byte before it writes it, so where both
            # ranges leave their buffers the read faults first (as in the interpreter).
            if not name.startswith("llvm.memset."):
                args[1] = self.check(ins, ops[1], 0, 1, "read", False, size_text=length, dtype=byte)
            args[0] = self.check(ins, ops[0], 0, 1, "write", True, size_text=length, dtype=byte)
            # A failed check redirects to the scratch area, which is smaller than the
            # length may be: a faulted work-item copies nothing.
            fv, ok, n = self.fresh("fv"), self.fresh("ok"), self.fresh("n")
            self.lines += [f"  {fv}.p = getelementptr i64, ptr %__ctx, i64 {CTX['fault']}",
                           f"  {fv} = load i64, ptr {fv}.p", f"  {ok} = icmp eq i64 {fv}, 0",
                           f"  {n} = select i1 {ok}, {length}, i64 0"]
            lt = str(ops[2].type)
            if lt != "i64":
                self.lines.append(f"  {n}.t = trunc i64 {n} to {lt}")
                n = f"{n}.t"
            args[2] = f"{lt} {n}"
            self.lines.append(f"  call void {gquote(name)}({', '.join(args)})")
            self.mg.needed_decls.add(name)
            return None
        if name.startswith(support.KEPT_INTRINSICS):
            self.mg.needed_decls.add(name)
            self.lines.append("  " + text)
            return None
        raise Unsupported(f"the intrinsic @{name} is not compiled natively yet")

    def unfused(self, ins, ops):
        """llvm.fmuladd as the interpreter computes it (ocl_builtins._fmuladd): the product
        rounded to the type, then the sum, as fmul then fadd (docs/ir-conventions.md)."""
        t, elem, out = self._mul_add_result(ins)
        if elem.bits != 16:
            self._mul_then_add(t, ops, out)
            return
        # half: each step exact in double, rounded to half by the engine's own conversion
        # (LLVM would call a library function the process does not have).
        wide, xs = self._widened(ins, ops)
        m, mh, mx, s = self.fresh("m"), self.fresh("mh"), self.fresh("mx"), self.fresh("s")
        self.lines.append(f"  {m} = fmul {wide} {xs[0]}, {xs[1]}")
        self.double_to_half(m, wide, t, mh)
        self.lines.append(f"  {mx} = fpext {t} {mh} to {wide}")
        self.lines.append(f"  {s} = fadd {wide} {mx}, {xs[2]}")
        self.double_to_half(s, wide, t, out)

    def fused_half(self, ins, ops):
        """llvm.fma of half rounded once, as the interpreter (interp/fused.py): the exact
        product in double, plus c rounded in double, then to half (double holds a * b + c
        of halves exactly unless c dwarfs the product by more than half's precision, when
        both roundings give c's neighbourhood alike: docs/native.md, "Floating point").
        (llvm.fma of float and double is kept as written: support.KEPT_INTRINSICS.)"""
        t, _, out = self._mul_add_result(ins)
        wide, xs = self._widened(ins, ops)
        m, s = self.fresh("m"), self.fresh("s")
        self.lines.append(f"  {m} = fmul {wide} {xs[0]}, {xs[1]}")
        self.lines.append(f"  {s} = fadd {wide} {m}, {xs[2]}")
        self.double_to_half(s, wide, t, out)

    def _mul_add_result(self, ins):
        """(type text, element type, result name) of an fmuladd/fma."""
        t = str(ins.type)
        ty = self.ty(t)
        return t, (ty.elem if ty.kind == "vec" else ty), quote(ins.name)

    def _mul_then_add(self, t, ops, out):
        """out = a * b + c in the type itself, two roundings."""
        m = self.fresh("m")
        self.lines.append(f"  {m} = fmul {typed(ops[0])}, {ref(ops[1])}")
        self.lines.append(f"  {out} = fadd {t} {m}, {ref(ops[2])}")

    def _widened(self, ins, ops):
        """(double type, [a, b, c] extended to it) of an fmuladd/fma's operands."""
        ty = self.ty(str(ins.type))
        wide = f"<{ty.n} x double>" if ty.kind == "vec" else "double"
        xs = []
        for v in ops[:3]:
            x = self.fresh("x")
            self.lines.append(f"  {x} = fpext {typed(v)} to {wide}")
            xs.append(x)
        return wide, xs

    def double_to_half(self, value, wide, half, out):
        """double -> half, correctly rounded without the runtime library call LLVM emits
        for it on x86 (__truncdfhf2, not in the process: calling it crashed): round to
        float with round-to-odd (inexact results get an odd last bit), then float -> half
        (F16C). Round-to-odd with 13 spare bits makes the second rounding exact."""
        vec = re.fullmatch(r"<(\d+) x double>", wide)
        flt = f"<{vec.group(1)} x float>" if vec else "float"
        i32 = f"<{vec.group(1)} x i32>" if vec else "i32"
        b1 = bool_type(wide)
        fs = intrinsic_suffix(flt).replace("float", "f32")
        ds = intrinsic_suffix(wide).replace("double", "f64")
        self.mg.needed_intrinsic(f"llvm.fabs.{fs}", f"declare {flt} @llvm.fabs.{fs}({flt})")
        self.mg.needed_intrinsic(f"llvm.fabs.{ds}", f"declare {wide} @llvm.fabs.{ds}({wide})")
        one = f"<{', '.join('i32 1' for _ in range(int(vec.group(1))))}>" if vec else "1"
        n = self.fresh("h")
        self.lines += [
            f"  {n}.t = fptrunc {wide} {value} to {flt}",
            f"  {n}.back = fpext {flt} {n}.t to {wide}",
            f"  {n}.exact = fcmp oeq {wide} {n}.back, {value}",
            f"  {n}.at = call {flt} @llvm.fabs.{fs}({flt} {n}.t)",
            f"  {n}.atw = fpext {flt} {n}.at to {wide}",
            f"  {n}.as = call {wide} @llvm.fabs.{ds}({wide} {value})",
            f"  {n}.over = fcmp ogt {wide} {n}.atw, {n}.as",
            f"  {n}.bits = bitcast {flt} {n}.t to {i32}",
            f"  {n}.dec = sub {i32} {n}.bits, {one}",
            f"  {n}.tz = select {b1} {n}.over, {i32} {n}.dec, {i32} {n}.bits",
            f"  {n}.odd = or {i32} {n}.tz, {one}",
            f"  {n}.fin = select {b1} {n}.exact, {i32} {n}.bits, {i32} {n}.odd",
            f"  {n}.f = bitcast {i32} {n}.fin to {flt}",
            f"  {out} = fptrunc {flt} {n}.f to {half}"]

    def branch(self, ins, text, ops, label):
        here = self.block_index[label]
        targets = [o.name for o in ops if value_kind(o) == "basic_block"]
        back = [t for t in targets if self.block_index[t] <= here]
        if not back:
            self.lines.append("  " + text)
            return None
        lo = min(self.block_index[t] for t in back)
        cost = sum(self.block_cost[lo:here + 1])
        site = self.site(ins, "loop", 0)
        stop = self.fresh("stop")
        cont = f"__cont.{self.n}.{label}"
        self.lines.append(f"  {stop} = call i1 @__clcoop_poll(ptr %__ctx, i64 {cost}, i32 {site})")
        self.lines.append(f"  br i1 {stop}, label %__abort, label {quote(cont)}")
        self.lines.append(f"{cont}:")
        self.lines.append("  " + text)
        self.renames[label] = cont
        return cont

