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
- llvm.fmuladd (unfused) and llvm.fma computed like the interpreter (ocl_builtins._fmuladd, _fma).
A per-kernel driver runs a range of work-groups, work-item after work-item.
"""
import re

from clcoop.interp.loader import parse_type_text
from clcoop.interp.ocl_builtins import demangle
from clcoop.native import support
from clcoop.native.support import Unsupported

# Context: an array of i64 slots (runtime.py fills the template).
CTX = {name: i for i, name in enumerate((
    "fault", "fault_kind", "fault_addr", "steps", "limit", "priv", "table", "table_count",
    "scratch", "abort", "work_dim", "sg_size", "llid", "lid0", "lid1", "lid2", "grp0",
    "grp1", "grp2", "gsize0", "gsize1", "gsize2", "lsize0", "lsize1", "lsize2", "ngrp0",
    "ngrp1", "ngrp2", "off0", "off1", "off2", "fault_size", "priv_size", "wg_size", "barrier", "next_group"))}
CTX_SLOTS = len(CTX)
SCRATCH_BYTES = 4096
# Private variables and loaded/stored values above this size could overflow a thread's
# stack (a crash): larger private variables live in the arena, larger accesses fall back.
MAX_STACK_BYTES = 1 << 16

# Fault kinds recorded in the context (runtime.describe_fault words them).
FAULT_READ, FAULT_WRITE, FAULT_ATOMIC, FAULT_READONLY, FAULT_MISALIGNED, FAULT_DIVZERO, \
    FAULT_LIMIT, FAULT_UNREACHABLE, FAULT_FREED, FAULT_BARRIER = range(1, 11)

BARRIERS = ("barrier", "work_group_barrier")
ATOMIC_FUNCTIONS = {f"{prefix}_{op}" for prefix in ("atomic", "atom")
                    for op in ("add", "sub", "xchg", "min", "max", "and", "or", "xor", "inc", "dec",
                               "cmpxchg")}

_META_RE = re.compile(r",\s*!(?!\{)[\w.]+\s+!\d+")
_ATTR_GROUP_RE = re.compile(r"\s#\d+")


class Site:
    """A place where a fault can happen: the function and its IR instruction."""

    def __init__(self, function, text, what, size):
        self.function = function
        self.text = text
        self.what = what       # "read", "write", "atomic", "division", "loop", "unreachable"
        self.size = size


class KernelPlan:
    """What runtime.py needs to launch one compiled kernel."""

    def __init__(self, name, params, arena_size):
        self.name = name
        self.driver = f"__clcoop_run.{name}"
        self.params = params          # [(Ty, arg block offset, size)]
        self.arena_size = arena_size
        self.arg_block_size = 0


class NativeModule:
    def __init__(self):
        self.text = ""
        self.plans = {}               # kernel name -> KernelPlan
        self.reasons = {}             # kernel name -> why it is not compiled
        self.sites = []
        self.globals = []             # names of the program-scope globals in the region table
        self.scratch_bytes = SCRATCH_BYTES


def generate(module, kernel_names):
    """NativeModule with every kernel of `kernel_names` that the engine takes."""
    import llvmlite.binding as llvm
    from clcoop.native.jit import ensure_llvm
    ensure_llvm()
    out = NativeModule()
    if module.layout.pointer_bytes != 8:
        for k in kernel_names:
            out.reasons[k] = "32-bit SPIR target (spir-unknown-unknown): only spir64 is compiled natively"
        return out
    # optnone/noinline (clang/clcoop -O0) would make LLVM skip the instruction namer and
    # the inliner; the checks are inserted before any optimization, so dropping them is safe.
    ir = module.ir
    for attr in ("optnone", "noinline"):
        ir = re.sub(r"(?m)^(attributes #\d+ = \{.*?)\b" + attr + r"\b", r"\1", ir)
    mod = llvm.parse_assembly(ir)
    # Functions that wait at a barrier are inlined into their kernels (clang's -O0 kernel
    # stubs __clang_ocl_kern_imp_*): only a kernel's own body becomes a coroutine.
    for f in _barrier_callers(mod):
        f.add_function_attribute("alwaysinline")
    pm = llvm.create_new_module_pass_manager()
    pm.add_always_inliner_pass()
    pm.add_instruction_namer_pass()
    from clcoop.native.jit import host_target_machine
    pm.run(mod, llvm.create_pass_builder(host_target_machine(), llvm.create_pipeline_tuning_options()))
    gen = _ModuleGen(module, mod, out)
    for name in kernel_names:
        try:
            gen.kernel(name)
        except Unsupported as exc:
            out.reasons[name] = str(exc)
    out.text = gen.finish()
    return out


def _host_has_f16c():
    import llvmlite.binding as llvm
    return bool(llvm.get_host_cpu_features().get("f16c"))


def _barrier_callers(mod):
    """Defined non-kernel functions that reach a work-group barrier."""
    funcs = {f.name: f for f in mod.functions}
    calls = {}
    for f in mod.functions:
        if f.is_declaration:
            continue
        calls[f.name] = set()
        for b in f.blocks:
            for ins in b.instructions:
                if ins.opcode == "call":
                    callee = list(ins.operands)[-1]
                    if callee.value_kind.name == "function":
                        calls[f.name].add(callee.name)
    reach = {n for n, cs in calls.items() if any(demangle(c)[0] in BARRIERS for c in cs)}
    changed = True
    while changed:
        changed = False
        for n, cs in calls.items():
            if n not in reach and cs & reach:
                reach.add(n)
                changed = True
    return [funcs[n] for n in reach if " spir_kernel " not in str(funcs[n]).split("{", 1)[0]]


def _quote(name):
    return "%" + name if re.fullmatch(r"[-\w.$]+", name) else '%"' + name + '"'


def _gquote(name):
    return "@" + name if re.fullmatch(r"[-\w.$]+", name) else '@"' + name + '"'


def typed(v):
    """'<type> <ref>' of an operand."""
    kind = v.value_kind.name
    if kind in ("global_variable", "function", "global_alias"):
        return f"{v.type} {_gquote(v.name)}"
    if v.is_constant:
        return str(v).strip()
    return f"{v.type} {_quote(v.name)}"


def ref(v):
    text = typed(v)
    return text[len(str(v.type)) + 1:]


def _clean(text):
    text = _META_RE.sub("", text.strip())
    text = _ATTR_GROUP_RE.sub("", text)
    text = re.sub(r"\b(?:tail|musttail|notail) call\b", "call", text)
    return text.replace(" spir_func ", " ").replace(" spir_kernel ", " ")


def _split_function_type(fty):
    """'i32 (i32, ptr)' -> ('i32', ['i32', 'ptr'])."""
    depth = 0
    for i in range(len(fty) - 1, -1, -1):
        c = fty[i]
        if c in ")]}>":
            depth += 1
        elif c in "([{<":
            depth -= 1
            if depth == 0:
                return fty[:i].strip(), _split_top(fty[i + 1:-1])
    raise Unsupported(f"cannot read the function type {fty}")


def _split_top(text):
    parts, depth, cur = [], 0, ""
    for c in text:
        if c in "([{<":
            depth += 1
        elif c in ")]}>":
            depth -= 1
        if c == "," and depth == 0:
            parts.append(cur.strip())
            cur = ""
        else:
            cur += c
    if cur.strip():
        parts.append(cur.strip())
    return parts


def _vid(v):
    import ctypes
    return ctypes.cast(v._ptr, ctypes.c_void_p).value


class _ModuleGen:
    def __init__(self, module, mod, out):
        self.module = module
        self.mod = mod
        self.out = out
        self.functions = {f.name: f for f in mod.functions}
        # Named struct types of this parse (LLVM renames them in its global context when
        # the same IR is parsed twice: %struct.S becomes %struct.S.0).
        from clcoop.interp.loader import _read_structs
        self.structs = _read_structs(mod)
        self.emitted = {}          # function name -> text (or Unsupported)
        self.arena = {}            # function name -> {alloca name: (offset, size)}, size
        self.needed_decls = set()
        self.builtin_defs = {}
        self.global_index = {}
        for gv in mod.global_variables:
            self.global_index[gv.name] = len(self.global_index)
        self.out.globals = list(self.global_index)
        self.drivers = []
        # Private arrays of every function at disjoint offsets of the work-item's arena
        # (OpenCL C has no recursion: each function has one frame at a time).
        self.arena_base = {}
        self.arena_total = 0
        self.decls = {}
        self.coroutines = {}       # kernel name -> True when it waits at barriers

    # ------------------------------------------------------------ kernels
    def kernel(self, name):
        info = self.module.kernels[name]
        if info.byval:
            raise Unsupported("a struct argument passed by value")
        uses_local = any(t.kind == "ptr" and t.addrspace == 3 for _, t in info.params)
        order = self._call_tree(name)
        for g in self.mod.global_variables:
            if self._global_info(g).addrspace == 3 and any(self._uses_global(f, g.name) for f in order):
                uses_local = True
        for fname in order:
            for g in self.mod.global_variables:
                gi = self._global_info(g)
                if gi.addrspace != 3 and not gi.constant and self._uses_global(fname, g.name):
                    raise Unsupported(f"the program-scope variable @{g.name} (its value lives "
                                      f"from launch to launch in the interpreter's state)")
            self._function(fname, fname == name)
        params, off = [], 0
        for _, t in info.params:
            size = _store_size(t, self.module.layout)
            off = (off + 15) // 16 * 16
            params.append((t, off, size))
            off += size
        plan = KernelPlan(name, params, 0)
        plan.arg_block_size = max(off, 1)
        # __local variables are globals of the engine, one instance: such kernels run
        # their work-groups one after the other (docs/native.md).
        plan.single_thread = uses_local
        plan.coroutine = self.coroutines.get(name, False)
        self.drivers.append(_coroutine_driver(plan, name) if plan.coroutine else self._driver(plan))
        self.out.plans[name] = plan

    def _global_info(self, g):
        return self.module.globals[g.name]

    def _uses_global(self, fname, gname):
        f = self.functions[fname]
        pat = re.compile(r"@" + re.escape(gname) + r"\b")
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
                    callee = list(ins.operands)[-1]
                    g = self.functions.get(callee.name)
                    if g is not None and not g.is_declaration and callee.value_kind.name == "function":
                        out.append(callee.name)
        return out

    # ------------------------------------------------------------ functions
    def _function(self, fname, is_kernel):
        if fname in self.emitted:
            if isinstance(self.emitted[fname], Unsupported):
                raise self.emitted[fname]
            return
        try:
            self.emitted[fname] = _FunctionGen(self, self.functions[fname], is_kernel).emit()
            size = self.arena[fname][1]
            self.arena_base[fname] = (self.arena_total + 15) // 16 * 16
            self.arena_total = self.arena_base[fname] + size
        except Unsupported as exc:
            self.emitted[fname] = exc
            raise

    # ------------------------------------------------------------ module text
    def finish(self):
        parts = []
        for line in str(self.mod).splitlines():
            if re.match(r"%[-\w.$\"]+ = type ", line):
                parts.append(line)
        for g in self.mod.global_variables:
            text = _clean(str(g))
            parts.append(text)
        parts.append(_RUNTIME_IR)
        parts.append(_CORO_DECLS)
        parts.extend(self.builtin_defs.values())
        decls = dict(self.decls)
        for f in self.mod.functions:
            if f.is_declaration and f.name in self.needed_decls:
                decls.setdefault(f.name, _clean(str(f).strip().splitlines()[-1]))
        for name in ("llvm.memcpy.p0.p0.i64", "llvm.memset.p0.i64"):
            decls.setdefault(name, _RUNTIME_DECLS[name])
        parts.extend(decls.values())
        # Arena: the frames, then one live flag per function with a frame; the table of
        # private arrays lets chk_any tell a live array from a dangling pointer.
        framed = [f for f, t in self.emitted.items() if isinstance(t, str) and self.arena[f][1]]
        flags = (self.arena_total + 15) // 16 * 16
        rows = []
        for fi, fname in enumerate(framed):
            for off, size in self.arena[fname][0].values():
                rows.append(f"[3 x i64] [i64 {self.arena_base[fname] + off}, i64 {size}, i64 {flags + 8 * fi}]")
        rows.append("[3 x i64] [i64 0, i64 0, i64 0]")
        parts.append(f"@__clcoop_privates = internal constant [{len(rows)} x [3 x i64]] [{', '.join(rows)}]")
        parts.append(f"@__clcoop_private_count = internal constant i64 {len(rows) - 1}")
        for plan in self.out.plans.values():
            plan.arena_size = flags + 8 * len(framed)
        for fname, text in self.emitted.items():
            if isinstance(text, str):
                text = text.replace("@__ARENA_BASE__", str(self.arena_base.get(fname, 0)))
                if fname in framed:
                    text = text.replace("@__LIVE_FLAG__", str(flags + 8 * framed.index(fname)))
                parts.append(text)
        parts.extend(self.drivers)
        return "\n".join(p for p in parts if p) + "\n"

    # ------------------------------------------------------------ built-ins
    def builtin(self, f):
        """Name of the native definition of the declared function f, or Unsupported."""
        name = f.name
        if name in self.builtin_defs:
            return name
        base, _ = demangle(name)
        ret, params = _split_function_type(str(f.global_value_type))
        if base in support.WORKITEM_FUNCTIONS:
            self.builtin_defs[name] = _workitem_definition(name, base, ret, params)
            return name
        if base in support.NO_OP_FUNCTIONS:
            args = "".join(f", {p} %a{i}" for i, p in enumerate(params))
            self.builtin_defs[name] = f"define internal void {_gquote(name)}(ptr %c{args}) alwaysinline {{\n  ret void\n}}"
            return name
        if base in support.EXACT_MATH and len(params) == 1 and params[0] == ret:
            intr = f"llvm.{support.EXACT_MATH[base]}.{_type_suffix(ret)}"
            self.needed_intrinsic(intr, f"declare {ret} @{intr}({ret})")
            self.builtin_defs[name] = (
                f"define internal {ret} {_gquote(name)}(ptr %c, {ret} %x) alwaysinline {{\n"
                f"  %r = call {ret} @{intr}({ret} %x)\n  ret {ret} %r\n}}")
            return name
        definition = _exact_builtin(name, base, params_of(name), ret, params)
        if definition is not None:
            self.builtin_defs[name] = definition
            for intr, decl in _intrinsics_in(definition):
                self.needed_intrinsic(intr, decl)
            return name
        if base == "sub_group_barrier":
            raise Unsupported("sub_group_barrier (only work-group barriers are compiled natively)")
        if base == "printf":
            raise Unsupported("printf")
        if "__spirv_" in name or base.startswith("coop_") or "Cooperative" in name:
            raise Unsupported(f"cooperative-matrix operations ({name})")
        raise Unsupported(f"the built-in '{base}' is not compiled natively yet")

    def needed_intrinsic(self, name, decl):
        self.needed_decls.add(name)
        self.decls.setdefault(name, decl)

    # ------------------------------------------------------------ driver
    def _driver(self, plan):
        """void driver(args, ctx template, first group, group count, arena, fault out)."""
        k = plan.name
        lines = [f"define void {_gquote(plan.driver)}(ptr %args, ptr %tmpl, i64 %first, i64 %count, "
                 f"ptr %priv, ptr %fout) {{",
                 "entry:",
                 f"  %ctx = alloca [{CTX_SLOTS} x i64], align 16",
                 f"  call void @llvm.memcpy.p0.p0.i64(ptr %ctx, ptr %tmpl, i64 {CTX_SLOTS * 8}, i1 false)",
                 ] + [f"  %s.{field} = getelementptr i64, ptr %ctx, i64 {i}" for field, i in CTX.items()] + [
                 "  store ptr %priv, ptr %s.priv"]
        arg_lines, call_args = _argument_lines(plan)
        lines += arg_lines
        call_args = ["ptr %ctx"] + call_args
        lines += [
            "  %wg = load i64, ptr %s.wg_size",
            f"  %ngx = load i64, ptr {_slot('ngrp0')}",
            f"  %ngy = load i64, ptr {_slot('ngrp1')}",
            f"  %lx = load i64, ptr {_slot('lsize0')}",
            f"  %ly = load i64, ptr {_slot('lsize1')}",
            f"  %psz = load i64, ptr {_slot('priv_size')}",
            f"  %abp = load ptr, ptr {_slot('abort')}",
            # Work-groups [first, first + count) are shared by the threads through an
            # atomic counter (dynamic balance without returning to Python).
            f"  %nextp = load ptr, ptr {_slot('next_group')}"] + _group_head_lines("group.ids") + [
            "group.ids:",
            "  %gx = urem i64 %g, %ngx",
            "  %gq = udiv i64 %g, %ngx",
            "  %gy = urem i64 %gq, %ngy",
            "  %gz = udiv i64 %gq, %ngy",
            f"  store i64 %gx, ptr {_slot('grp0')}",
            f"  store i64 %gy, ptr {_slot('grp1')}",
            f"  store i64 %gz, ptr {_slot('grp2')}",
            f"  %tabi = load i64, ptr {_slot('table')}",
            "  %tab = inttoptr i64 %tabi to ptr",
            f"  %tabn = load i64, ptr {_slot('table_count')}",
            "  br label %gz.pre",
            "gz.pre:"] + _zero_local_lines("%tab", "%tabn", "gz") + [
            "  br label %item",
            "item:",
            "  %l = phi i64 [ 0, %gz.zdone ], [ %lnext, %item.ok ]",
            # Local ids counted up (a division per work-item costs more than a small kernel).
            "  %x = phi i64 [ 0, %gz.zdone ], [ %xn, %item.ok ]",
            "  %y = phi i64 [ 0, %gz.zdone ], [ %yn, %item.ok ]",
            "  %z = phi i64 [ 0, %gz.zdone ], [ %zn, %item.ok ]",
            "  %lmore = icmp ult i64 %l, %wg",
            "  br i1 %lmore, label %item.body, label %group.next",
            "item.body:",
            f"  store i64 %l, ptr {_slot('llid')}",
            f"  store i64 %x, ptr {_slot('lid0')}",
            f"  store i64 %y, ptr {_slot('lid1')}",
            f"  store i64 %z, ptr {_slot('lid2')}",
            f"  store i64 0, ptr {_slot('steps')}",
            "  %hasarena = icmp ne i64 %psz, 0",
            "  br i1 %hasarena, label %item.zero, label %item.call",
            "item.zero:",
            "  call void @llvm.memset.p0.i64(ptr %priv, i8 0, i64 %psz, i1 false)",
            "  br label %item.call",
            "item.call:",
            f"  call void {_gquote(k)}({', '.join(call_args)})",
            f"  %fv = load i64, ptr {_slot('fault')}",
            "  %faulted = icmp ne i64 %fv, 0",
            "  br i1 %faulted, label %fault, label %item.ok",
            "item.ok:",
            "  %lnext = add i64 %l, 1",
            "  %x1 = add i64 %x, 1",
            "  %xwrap = icmp eq i64 %x1, %lx",
            "  %xn = select i1 %xwrap, i64 0, i64 %x1",
            "  %y1 = add i64 %y, 1",
            "  %yinc = select i1 %xwrap, i64 %y1, i64 %y",
            "  %ywrap = icmp eq i64 %yinc, %ly",
            "  %yn = select i1 %ywrap, i64 0, i64 %yinc",
            "  %z1 = add i64 %z, 1",
            "  %zn = select i1 %ywrap, i64 %z1, i64 %z",
            "  br label %item",
            "group.next:",
            "  br label %group",
            "fault:",
            ] + _fault_out_lines("%ctx", "%fv", "%l") + [
            "  store atomic i64 1, ptr %abp monotonic, align 8",
            "  ret void",
            "done:",
            "  ret void",
            "}"]
        # Slot pointers are constant GEPs on %ctx.
        return "\n".join(lines)


def _argument_lines(plan):
    """Driver IR loading the kernel's arguments from the argument block: (lines, typed
    argument texts)."""
    lines, args = [], []
    for i, (t, off, size) in enumerate(plan.params):
        lines.append(f"  %ap{i} = getelementptr i8, ptr %args, i64 {off}")
        if t.kind == "int" and t.bits == 1:
            lines += [f"  %ab{i} = load i8, ptr %ap{i}, align 1", f"  %a{i} = trunc i8 %ab{i} to i1"]
        else:
            lines.append(f"  %a{i} = load {t}, ptr %ap{i}, align 1")
        args.append(f"{t} %a{i}")
    return lines, args


def _group_head_lines(next_label):
    """Driver IR taking the next work-group %g of [first, first + count) from the atomic
    counter %nextp shared by the threads (dynamic balance without returning to Python);
    %done when none is left or another thread faulted (%abp)."""
    return ["  %end = add i64 %first, %count",
            "  br label %group",
            "group:",
            "  %gi = atomicrmw add ptr %nextp, i64 1 monotonic",
            "  %g = add i64 %gi, %first",
            "  %gmore = icmp ult i64 %g, %end",
            "  br i1 %gmore, label %group.body, label %done",
            "group.body:",
            "  %abv = load atomic i64, ptr %abp monotonic, align 8",
            "  %aborted = icmp ne i64 %abv, 0",
            f"  br i1 %aborted, label %done, label %{next_label}"]


def _fault_out_lines(ctx, fault, item):
    """Driver IR copying a work-item's fault to %fout: [site + 1, kind, address, group,
    local linear id, access size] (runtime.NativeProgram._fault reads it)."""
    lines = [f"  store i64 {fault}, ptr %fout"]
    for k, value in ((1, "fault_kind"), (2, "fault_addr"), (3, "%g"), (4, item), (5, "fault_size")):
        if not value.startswith("%"):
            lines += [f"  %fo.{value}.p = getelementptr i64, ptr {ctx}, i64 {CTX[value]}",
                      f"  %fo.{value} = load i64, ptr %fo.{value}.p"]
            value = f"%fo.{value}"
        lines += [f"  %fo{k} = getelementptr i64, ptr %fout, i64 {k}", f"  store i64 {value}, ptr %fo{k}"]
    return lines


def params_of(name):
    return demangle(name)[1]


_CONVERT_RE = re.compile(r"convert_(u?char|u?short|u?int|u?long|float|double|half)(\d*)")


def _exact_builtin(name, base, mparams, ret, params):
    """Definitions of the integer min/max/clamp/abs and the default-rounding conversions
    whose LLVM instruction gives the interpreter's NumPy result bit for bit; None for
    everything else."""
    if mparams is None or not mparams:
        return None
    first = mparams[0]
    scalar = first[2] if first[0] == "vec" else first
    args = ", ".join(f"{t} %a{i}" for i, t in enumerate(params))
    head = f"define internal {ret} {_gquote(name)}(ptr %c, {args}) alwaysinline {{"
    if base in ("min", "max", "clamp", "abs") and scalar[0] == "int":
        if any(p != first for p in mparams) or any(t != params[0] for t in params):
            return None
        sign = "s" if scalar[2] else "u"
        suffix = _intrinsic_suffix(params[0])
        if base == "abs":
            if not scalar[2]:
                return f"{head}\n  ret {ret} %a0\n}}"
            return (f"{head}\n  %r = call {ret} @llvm.abs.{suffix}({ret} %a0, i1 false)\n"
                    f"  ret {ret} %r\n}}")
        if base == "clamp":
            return (f"{head}\n  %m = call {ret} @llvm.{sign}max.{suffix}({ret} %a0, {ret} %a1)\n"
                    f"  %r = call {ret} @llvm.{sign}min.{suffix}({ret} %m, {ret} %a2)\n  ret {ret} %r\n}}")
        return (f"{head}\n  %r = call {ret} @llvm.{sign}{base}.{suffix}({ret} %a0, {ret} %a1)\n"
                f"  ret {ret} %r\n}}")
    if base == "select" and len(params) == 3 and params[0] == params[1] == ret:
        # OpenCL C 6.15.6: scalar c != 0, vector: the most significant bit of each c.
        c_vec = params[2].startswith("<")
        zero = "zeroinitializer"
        cond = f"icmp slt {params[2]} %a2, {zero}" if c_vec else f"icmp ne {params[2]} %a2, {zero}"
        return f"{head}\n  %cond = {cond}\n  %r = select {_bool_type(params[2])} %cond, {ret} %a1, {ret} %a0\n  ret {ret} %r\n}}"
    if base in ("fmax", "fmin") and scalar[0] == "float" and len(params) == 2 and params[0] == params[1] == ret:
        # As NumPy's fmax/fmin (the interpreter): NaN a -> b; NaN b -> a; ties -> a.
        order = "oge" if base == "fmax" else "ole"
        b1 = _bool_type(ret)
        return (f"{head}\n  %an = fcmp uno {ret} %a0, %a0\n  %bn = fcmp uno {ret} %a1, %a1\n"
                f"  %keep = fcmp {order} {ret} %a0, %a1\n  %t = select {b1} %keep, {ret} %a0, {ret} %a1\n"
                f"  %u = select {b1} %bn, {ret} %a0, {ret} %t\n  %r = select {b1} %an, {ret} %a1, {ret} %u\n"
                f"  ret {ret} %r\n}}")
    if base in _INTEGER_BUILTINS and scalar[0] == "int" and all(p == first for p in mparams) \
            and all(t == params[0] for t in params) and len(params) == _INTEGER_BUILTINS[base]:
        return f"{head}\n{_integer_builtin_body(base, ret, scalar[1], scalar[2])}\n}}"
    m = _CONVERT_RE.fullmatch(base)
    if m and len(params) == 1:
        src, dst = params[0], ret
        src_float = scalar[0] == "float"
        dst_float = m.group(1) in ("float", "double", "half")
        if src_float and not dst_float:
            return None     # out-of-range float -> int differs between NumPy and LLVM
        sbits, dbits = _bits(src), _bits(dst)
        if src_float and dst_float:
            op = "fpext" if dbits > sbits else "fptrunc" if dbits < sbits else None
        elif dst_float:
            op = "sitofp" if scalar[2] else "uitofp"
        else:
            op = "trunc" if dbits < sbits else ("sext" if scalar[2] else "zext") if dbits > sbits else None
        body = f"  %r = {op} {src} %a0 to {dst}\n  ret {dst} %r" if op else f"  ret {dst} %a0"
        return f"{head}\n{body}\n}}"
    return None


# OpenCL C 3.0 6.15.3 integer functions with an exact LLVM form: name -> arity.
_INTEGER_BUILTINS = {"popcount": 1, "clz": 1, "ctz": 1, "rotate": 2, "add_sat": 2, "sub_sat": 2,
                     "hadd": 2, "rhadd": 2, "abs_diff": 2, "mul_hi": 2, "mad_hi": 3, "mad_sat": 3}


def _integer_builtin_body(base, t, bits, signed):
    """IR body (arguments %a0.., result type t) of an integer built-in; results that need
    more bits are computed in a type twice as wide, then narrowed."""
    sfx = _intrinsic_suffix(t)
    wide = re.sub(r"i\d+", f"i{2 * bits}", t)
    wsfx = _intrinsic_suffix(wide)
    ext = "sext" if signed else "zext"
    shr = "ashr" if signed else "lshr"
    sg = "s" if signed else "u"

    def splat(ty, v):
        m = re.fullmatch(r"<(\d+) x (\w+)>", ty)
        return f"<{', '.join(f'{m.group(2)} {v}' for _ in range(int(m.group(1))))}>" if m else str(v)
    widen = [f"  %w0 = {ext} {t} %a0 to {wide}", f"  %w1 = {ext} {t} %a1 to {wide}"]
    if base == "popcount":
        lines = [f"  %r = call {t} @llvm.ctpop.{sfx}({t} %a0)"]
    elif base in ("clz", "ctz"):
        intr = "ctlz" if base == "clz" else "cttz"
        lines = [f"  %r = call {t} @llvm.{intr}.{sfx}({t} %a0, i1 false)"]
    elif base == "rotate":
        lines = [f"  %r = call {t} @llvm.fshl.{sfx}({t} %a0, {t} %a0, {t} %a1)"]
    elif base in ("add_sat", "sub_sat"):
        lines = [f"  %r = call {t} @llvm.{sg}{base[:3]}.sat.{sfx}({t} %a0, {t} %a1)"]
    elif base in ("hadd", "rhadd"):
        lines = widen + [f"  %s = add {wide} %w0, %w1"]
        if base == "rhadd":
            lines.append(f"  %s1 = add {wide} %s, {splat(wide, 1)}")
        lines += [f"  %h = {shr} {wide} {'%s1' if base == 'rhadd' else '%s'}, {splat(wide, 1)}",
                  f"  %r = trunc {wide} %h to {t}"]
    elif base == "abs_diff":
        lines = widen + [f"  %d = sub {wide} %w0, %w1",
                         f"  %ad = call {wide} @llvm.abs.{wsfx}({wide} %d, i1 false)",
                         f"  %r = trunc {wide} %ad to {t}"]
    elif base in ("mul_hi", "mad_hi"):
        lines = widen + [f"  %p = mul {wide} %w0, %w1", f"  %h = lshr {wide} %p, {splat(wide, bits)}",
                         f"  %hi = trunc {wide} %h to {t}"]
        lines.append(f"  %r = add {t} %hi, %a2" if base == "mad_hi" else f"  %r = add {t} %hi, {splat(t, 0)}")
    else:   # mad_sat: a*b+c exactly in twice the bits, then saturated
        lo, hi = (-(1 << (bits - 1)), (1 << (bits - 1)) - 1) if signed else (0, (1 << bits) - 1)
        lines = widen + [f"  %w2 = {ext} {t} %a2 to {wide}", f"  %p = mul {wide} %w0, %w1",
                         f"  %s = add {wide} %p, %w2"]
        if signed:
            lines.append(f"  %c0 = call {wide} @llvm.smax.{wsfx}({wide} %s, {wide} {splat(wide, lo)})")
        else:
            lines.append(f"  %c0 = add {wide} %s, {splat(wide, 0)}")
        lines += [f"  %c1 = call {wide} @llvm.{sg}min.{wsfx}({wide} %c0, {wide} {splat(wide, hi)})",
                  f"  %r = trunc {wide} %c1 to {t}"]
    return "\n".join(lines + [f"  ret {t} %r"])


def _bits(t):
    elem = re.sub(r"<\d+ x (\w+)>", r"\1", t)
    return {"half": 16, "float": 32, "double": 64}.get(elem) or int(elem[1:])


def _intrinsic_suffix(t):
    m = re.fullmatch(r"<(\d+) x (\w+)>", t)
    return f"v{m.group(1)}{m.group(2)}" if m else t


def _bool_type(t):
    m = re.fullmatch(r"<(\d+) x \w+>", t)
    return f"<{m.group(1)} x i1>" if m else "i1"


def _leading_type(typed_value):
    """'<4 x i32> %x' -> '<4 x i32>', 'i128 -5' -> 'i128'."""
    if typed_value.startswith("<"):
        return typed_value[:typed_value.index(">") + 1]
    return typed_value.split(" ", 1)[0]


def _intrinsics_in(definition):
    """(name, declaration) of the llvm.* intrinsics a built-in definition calls."""
    out = []
    for m in re.finditer(r"call (\S+|<[^>]+>) @(llvm\.[\w.]+)\(([^)]*)\)", definition):
        ret, name, args = m.groups()
        types = [_leading_type(a.strip()) for a in _split_top(args)]
        out.append((name, f"declare {ret} @{name}({', '.join(types)})"))
    return out


def _slot(name):
    return f"%s.{name}"


def _type_suffix(t):
    m = re.fullmatch(r"<(\d+) x (\w+)>", t)
    if m:
        return f"v{m.group(1)}{_type_suffix(m.group(2))}"
    return {"float": "f32", "double": "f64", "half": "f16"}.get(t, t)


def _store_size(t, layout):
    if t.kind == "int":
        return max(1, (t.bits + 7) // 8)
    if t.kind == "float":
        return t.bits // 8
    if t.kind == "ptr":
        return 8
    if t.kind == "vec":
        return t.n * _store_size(t.elem, layout)
    if t.kind in ("struct", "array"):
        return layout.size(t)
    raise Unsupported(f"values of type {t}")


def _elem_size(t, layout):
    if t.kind == "vec":
        return _store_size(t.elem, layout)
    if t.kind in ("int", "float", "ptr"):
        return _store_size(t, layout)
    return 1


def _workitem_definition(name, base, ret, params):
    """A work-item function reading the context (ids as the interpreter's _LaneIds)."""
    kind = base[len("get_"):]
    pname = f", {params[0]} %d" if params else ""
    lines = [f"define internal {ret} {_gquote(name)}(ptr %c{pname}) alwaysinline {{"]

    def slot(field):
        lines.append(f"  %p.{field} = getelementptr i64, ptr %c, i64 {CTX[field]}")
        lines.append(f"  %{field} = load i64, ptr %p.{field}")
        return f"%{field}"

    def per_dim(prefix, default):
        """Value of the slots prefix0..2 at dimension %d; default outside 0..2."""
        d = "%dd"
        lines.append(f"  {d} = zext {params[0]} %d to i64")
        vals = [slot(f"{prefix}{i}") for i in range(3)]
        lines.append(f"  %is0 = icmp eq i64 {d}, 0")
        lines.append(f"  %is1 = icmp eq i64 {d}, 1")
        lines.append(f"  %is2 = icmp eq i64 {d}, 2")
        lines.append(f"  %s2 = select i1 %is2, i64 {vals[2]}, i64 {default}")
        lines.append(f"  %s1 = select i1 %is1, i64 {vals[1]}, i64 %s2")
        lines.append(f"  %v.{prefix} = select i1 %is0, i64 {vals[0]}, i64 %s1")
        return f"%v.{prefix}"

    if kind in ("global_id",):
        g = per_dim("grp", 0)
        ls = per_dim_fresh(lines, "lsize", 1)
        li = per_dim_fresh(lines, "lid", 0)
        of = per_dim_fresh(lines, "off", 0)
        lines += [f"  %m = mul i64 {g}, {ls}", f"  %a = add i64 %m, {li}", f"  %v = add i64 %a, {of}"]
        v = "%v"
    elif kind == "local_id":
        v = per_dim("lid", 0)
    elif kind == "group_id":
        v = per_dim("grp", 0)
    elif kind == "global_size":
        v = per_dim("gsize", 1)
    elif kind in ("local_size", "enqueued_local_size"):
        v = per_dim("lsize", 1)
    elif kind == "num_groups":
        v = per_dim("ngrp", 1)
    elif kind == "global_offset":
        v = per_dim("off", 0)
    elif kind == "work_dim":
        v = slot("work_dim")
    elif kind == "local_linear_id":
        v = slot("llid")
    elif kind == "global_linear_id":
        # (gid0 - off0) + (gid1 - off1) * gs0 + (gid2 - off2) * gs0 * gs1, gid - off = grp * ls + lid
        ids = []
        for i in range(3):
            g, ls, li = slot(f"grp{i}"), slot(f"lsize{i}"), slot(f"lid{i}")
            lines += [f"  %gm{i} = mul i64 {g}, {ls}", f"  %id{i} = add i64 %gm{i}, {li}"]
            ids.append(f"%id{i}")
        gs0, gs1 = slot("gsize0"), slot("gsize1")
        lines += ["  %t1 = mul i64 %id1, " + gs0, f"  %gs01 = mul i64 {gs0}, {gs1}",
                  "  %t2 = mul i64 %id2, %gs01", "  %u = add i64 %id0, %t1", "  %v = add i64 %u, %t2"]
        v = "%v"
    elif kind == "sub_group_size":
        S, wg, llid = slot("sg_size"), slot("wg_size"), slot("llid")
        lines += [f"  %sg = udiv i64 {llid}, {S}", f"  %first = mul i64 %sg, {S}",
                  f"  %left = sub i64 {wg}, %first", f"  %lt = icmp ult i64 %left, {S}",
                  f"  %v = select i1 %lt, i64 %left, i64 {S}"]
        v = "%v"
    elif kind == "max_sub_group_size":
        S, wg = slot("sg_size"), slot("wg_size")
        lines += [f"  %lt = icmp ult i64 {wg}, {S}", f"  %v = select i1 %lt, i64 {wg}, i64 {S}"]
        v = "%v"
    elif kind in ("num_sub_groups", "enqueued_num_sub_groups"):
        S, wg = slot("sg_size"), slot("wg_size")
        lines += [f"  %sm1 = sub i64 {S}, 1", f"  %w = add i64 {wg}, %sm1", f"  %v = udiv i64 %w, {S}"]
        v = "%v"
    elif kind == "sub_group_id":
        S, llid = slot("sg_size"), slot("llid")
        lines.append(f"  %v = udiv i64 {llid}, {S}")
        v = "%v"
    elif kind == "sub_group_local_id":
        S, llid = slot("sg_size"), slot("llid")
        lines.append(f"  %v = urem i64 {llid}, {S}")
        v = "%v"
    else:
        raise Unsupported(f"the built-in '{base}'")
    if ret == "i64":
        lines.append(f"  ret i64 {v}")
    else:
        lines.append(f"  %r = trunc i64 {v} to {ret}")
        lines.append(f"  ret {ret} %r")
    lines.append("}")
    return "\n".join(lines)


def per_dim_fresh(lines, prefix, default):
    """Like per_dim in _workitem_definition, for a second field once %dd and %is0..2 exist."""
    vals = []
    for i in range(3):
        lines.append(f"  %p.{prefix}{i} = getelementptr i64, ptr %c, i64 {CTX[prefix + str(i)]}")
        lines.append(f"  %{prefix}{i} = load i64, ptr %p.{prefix}{i}")
        vals.append(f"%{prefix}{i}")
    lines.append(f"  %{prefix}.s2 = select i1 %is2, i64 {vals[2]}, i64 {default}")
    lines.append(f"  %{prefix}.s1 = select i1 %is1, i64 {vals[1]}, i64 %{prefix}.s2")
    lines.append(f"  %v.{prefix} = select i1 %is0, i64 {vals[0]}, i64 %{prefix}.s1")
    return f"%v.{prefix}"


# ---------------------------------------------------------------------------- runtime IR
# Checks and fault recording shared by every kernel. A region table entry is
# {lo, hi, writable} (i64 each).
_RUNTIME_DECLS = {"llvm.memcpy.p0.p0.i64": "declare void @llvm.memcpy.p0.p0.i64(ptr, ptr, i64, i1)",
                  "llvm.memset.p0.i64": "declare void @llvm.memset.p0.i64(ptr, i8, i64, i1)"}

_RUNTIME_IR = f"""

define internal void @__clcoop_fault(ptr %c, i32 %site, i32 %kind, i64 %addr, i64 %size) noinline cold {{
entry:
  %fp = getelementptr i64, ptr %c, i64 {CTX['fault']}
  %f = load i64, ptr %fp
  %first = icmp eq i64 %f, 0
  br i1 %first, label %rec, label %out
rec:
  %s = zext i32 %site to i64
  %s1 = add i64 %s, 1
  store i64 %s1, ptr %fp
  %kp = getelementptr i64, ptr %c, i64 {CTX['fault_kind']}
  %k = zext i32 %kind to i64
  store i64 %k, ptr %kp
  %ap = getelementptr i64, ptr %c, i64 {CTX['fault_addr']}
  store i64 %addr, ptr %ap
  %zp = getelementptr i64, ptr %c, i64 {CTX['fault_size']}
  store i64 %size, ptr %zp
  br label %out
out:
  ret void
}}

define internal ptr @__clcoop_bad(ptr %c, ptr %p, i64 %n, i32 %site, i32 %kind) noinline cold {{
entry:
  %a = ptrtoint ptr %p to i64
  call void @__clcoop_fault(ptr %c, i32 %site, i32 %kind, i64 %a, i64 %n)
  %sp = getelementptr i64, ptr %c, i64 {CTX['scratch']}
  %s = load ptr, ptr %sp
  ret ptr %s
}}

; p is valid for n bytes in [lo, hi), aligned to al relative to lo, writable if asked.
define internal ptr @__clcoop_chk_range(ptr %c, ptr %p, i64 %n, i64 %al, i32 %site, i32 %kind, i64 %lo, i64 %hi, i1 %w, i1 %canw) alwaysinline {{
entry:
  %a = ptrtoint ptr %p to i64
  %end = add i64 %a, %n
  %ge = icmp uge i64 %a, %lo
  %le = icmp ule i64 %end, %hi
  %nw = icmp uge i64 %end, %a
  %in0 = and i1 %ge, %le
  %in = and i1 %in0, %nw
  br i1 %in, label %inside, label %bad
inside:
  %rel = sub i64 %a, %lo
  %am1 = sub i64 %al, 1
  %mis = and i64 %rel, %am1
  %aligned = icmp eq i64 %mis, 0
  br i1 %aligned, label %perm, label %misaligned
perm:
  %nokw = xor i1 %w, true
  %ok = or i1 %nokw, %canw
  br i1 %ok, label %good, label %readonly
good:
  ret ptr %p
bad:
  %r1 = call ptr @__clcoop_bad(ptr %c, ptr %p, i64 %n, i32 %site, i32 %kind)
  ret ptr %r1
misaligned:
  %r2 = call ptr @__clcoop_bad(ptr %c, ptr %p, i64 %n, i32 %site, i32 {FAULT_MISALIGNED})
  ret ptr %r2
readonly:
  %r3 = call ptr @__clcoop_bad(ptr %c, ptr %p, i64 %n, i32 %site, i32 {FAULT_READONLY})
  ret ptr %r3
}}

; Against region `idx` of the table.
define internal ptr @__clcoop_chk(ptr %c, ptr %p, i64 %n, i64 %al, i32 %site, i32 %kind, i64 %idx, i1 %w) alwaysinline {{
entry:
  %tp = getelementptr i64, ptr %c, i64 {CTX['table']}
  %t = load ptr, ptr %tp
  %i3 = mul i64 %idx, 3
  %lop = getelementptr i64, ptr %t, i64 %i3
  %lo = load i64, ptr %lop
  %hip = getelementptr i64, ptr %lop, i64 1
  %hi = load i64, ptr %hip
  %wp = getelementptr i64, ptr %lop, i64 2
  %wv = load i64, ptr %wp
  %canw = icmp ne i64 %wv, 0
  %r = call ptr @__clcoop_chk_range(ptr %c, ptr %p, i64 %n, i64 %al, i32 %site, i32 %kind, i64 %lo, i64 %hi, i1 %w, i1 %canw)
  ret ptr %r
}}

; Provenance unknown: the region of the table (or the work-item's arena) holding p.
define internal ptr @__clcoop_chk_any(ptr %c, ptr %p, i64 %n, i64 %al, i32 %site, i32 %kind, i1 %w) noinline {{
entry:
  %a = ptrtoint ptr %p to i64
  %pp = getelementptr i64, ptr %c, i64 {CTX['priv']}
  %priv = load i64, ptr %pp
  %pp.raw = inttoptr i64 %priv to ptr
  %psp = getelementptr i64, ptr %c, i64 {CTX['priv_size']}
  %psz = load i64, ptr %psp
  %pend = add i64 %priv, %psz
  %inpl = icmp uge i64 %a, %priv
  %inph = icmp ult i64 %a, %pend
  %inp = and i1 %inpl, %inph
  br i1 %inp, label %arena, label %scan
arena:
  %rel = sub i64 %a, %priv
  %cntp = load i64, ptr @__clcoop_private_count
  br label %ploop
ploop:
  %j = phi i64 [ 0, %arena ], [ %jnext, %pnext ]
  %pmore = icmp ult i64 %j, %cntp
  br i1 %pmore, label %pbody, label %dangling
pbody:
  %rowp = getelementptr [3 x i64], ptr @__clcoop_privates, i64 %j
  %off = load i64, ptr %rowp
  %szp = getelementptr i64, ptr %rowp, i64 1
  %sz = load i64, ptr %szp
  %flp = getelementptr i64, ptr %rowp, i64 2
  %fl = load i64, ptr %flp
  %pend.j = add i64 %off, %sz
  %pge = icmp uge i64 %rel, %off
  %plt = icmp ult i64 %rel, %pend.j
  %pin = and i1 %pge, %plt
  %jnext = add i64 %j, 1
  br i1 %pin, label %pfound, label %pnext
pnext:
  br label %ploop
pfound:
  %flagp = getelementptr i8, ptr %pp.raw, i64 %fl
  %live = load i64, ptr %flagp
  %isl = icmp ne i64 %live, 0
  br i1 %isl, label %plive, label %dangling
plive:
  %plo = add i64 %priv, %off
  %phi.hi = add i64 %plo, %sz
  %r0 = call ptr @__clcoop_chk_range(ptr %c, ptr %p, i64 %n, i64 %al, i32 %site, i32 %kind, i64 %plo, i64 %phi.hi, i1 %w, i1 true)
  ret ptr %r0
dangling:
  %r4 = call ptr @__clcoop_bad(ptr %c, ptr %p, i64 %n, i32 %site, i32 {FAULT_FREED})
  ret ptr %r4
scan:
  %tp = getelementptr i64, ptr %c, i64 {CTX['table']}
  %t = load ptr, ptr %tp
  %cp = getelementptr i64, ptr %c, i64 {CTX['table_count']}
  %cnt = load i64, ptr %cp
  br label %loop
loop:
  %i = phi i64 [ 0, %scan ], [ %inext, %next ]
  %more = icmp ult i64 %i, %cnt
  br i1 %more, label %body, label %none
body:
  %i3 = mul i64 %i, 3
  %lop = getelementptr i64, ptr %t, i64 %i3
  %lo = load i64, ptr %lop
  %hip = getelementptr i64, ptr %lop, i64 1
  %hi = load i64, ptr %hip
  %ge = icmp uge i64 %a, %lo
  %lt = icmp ult i64 %a, %hi
  %in = and i1 %ge, %lt
  %inext = add i64 %i, 1
  br i1 %in, label %found, label %next
next:
  br label %loop
found:
  %r = call ptr @__clcoop_chk(ptr %c, ptr %p, i64 %n, i64 %al, i32 %site, i32 %kind, i64 %i, i1 %w)
  ret ptr %r
none:
  %r2 = call ptr @__clcoop_bad(ptr %c, ptr %p, i64 %n, i32 %site, i32 %kind)
  ret ptr %r2
}}

; Backward branch: count the loop's instructions, stop a faulted work-item.
define internal i1 @__clcoop_poll(ptr %c, i64 %cost, i32 %site) alwaysinline {{
entry:
  %sp = getelementptr i64, ptr %c, i64 {CTX['steps']}
  %s = load i64, ptr %sp
  %s1 = add i64 %s, %cost
  store i64 %s1, ptr %sp
  %lp = getelementptr i64, ptr %c, i64 {CTX['limit']}
  %l = load i64, ptr %lp
  %over = icmp ugt i64 %s1, %l
  br i1 %over, label %limit, label %check
limit:
  call void @__clcoop_fault(ptr %c, i32 %site, i32 {FAULT_LIMIT}, i64 0, i64 0)
  ret i1 true
check:
  %fp = getelementptr i64, ptr %c, i64 {CTX['fault']}
  %f = load i64, ptr %fp
  %stop = icmp ne i64 %f, 0
  ret i1 %stop
}}
"""


class _FunctionGen:
    def __init__(self, mg, f, is_kernel):
        self.mg = mg
        self.f = f
        self.is_kernel = is_kernel
        self.layout = mg.module.layout
        self.structs = mg.structs
        self.n = 0
        self.lines = []
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

    def definition(self, v):
        """The defining instruction of an operand, or None."""
        if v.value_kind.name != "instruction":
            return None
        return self.defs.get(v.name)

    def ty(self, text):
        return parse_type_text(text, self.structs)

    def fresh(self, stem):
        self.n += 1
        return f"%__{stem}{self.n}"

    def site(self, ins, what, size):
        self.mg.out.sites.append(Site(self.f.name, _clean(str(ins)), what, size))
        return len(self.mg.out.sites) - 1

    # ------------------------------------------------------------ emit
    def emit(self):
        f = self.f
        if not _host_has_f16c() and re.search(r"\bhalf\b", str(f)):
            raise Unsupported("half values on a CPU without F16C (LLVM would call runtime "
                              "library conversions that are not in the process)")
        ret, _ = _split_function_type(str(f.global_value_type))
        if "..." in str(f.global_value_type):
            raise Unsupported(f"the variadic function @{f.name}")
        if 'target("spirv.CooperativeMatrixKHR"' in str(f):
            raise Unsupported(f"cooperative-matrix values in @{f.name}")
        self._plan_allocas()
        self.coroutine = self._has_barrier()
        if self.coroutine and not self.is_kernel:
            raise Unsupported(f"a barrier in the called function @{f.name}")
        if self.coroutine:
            self.mg.coroutines[f.name] = True
        params = ["ptr noalias %__ctx"] + [f"{a.type} {_quote(a.name)}" for a in f.arguments]
        for a in f.arguments:
            if "byval" in str(a) or "sret" in str(a):
                raise Unsupported(f"a byval/sret parameter of @{f.name}")
        body = []
        entry = True
        for bi, b in enumerate(self.blocks):
            self.cur_block = bi
            self.lines = []
            if entry and self.coroutine:
                self.lines.extend(_CORO_PROLOGUE)
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
        ret_default = "void" if ret == "void" else f"{ret} zeroinitializer"
        if self.coroutine:
            text = [f"define internal ptr {_gquote(f.name)}({', '.join(params)}) presplitcoroutine {{"]
        else:
            text = [f"define internal {ret} {_gquote(f.name)}({', '.join(params)}) {{"]
        for label, lines in body:
            text.append(f"{_quote(label)[1:]}:")
            text.extend(self._fix_phis(line) for line in lines)
        text.append("__abort:")
        if self.arena:
            text.append("  store i64 0, ptr %__live")
        if self.coroutine:
            text.append("  br label %__coro.final")
            text.extend(_CORO_EPILOGUE)
        else:
            text.append(f"  ret {ret_default}")
        text.append("}")
        self.mg.arena[f.name] = (self.arena, self.arena_end if self.arena else 0)
        return "\n".join(text)

    def _fix_phis(self, line):
        if " = phi " not in line or not self.renames:
            return line

        return re.sub(r"(,\s*)%(\"[^\"]*\"|[-\w.$]+)\s*\]", lambda m: m.group(1) + _quote(
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
                    if not op.is_constant and op.value_kind.name == "instruction":
                        uses.setdefault(op.name, []).append((ins, k))
        off = 0
        for a in allocas:
            if a.name not in {i.name for i in self.blocks[0].instructions}:
                raise Unsupported(f"an alloca outside the entry block of @{self.f.name}")
            text = str(a)
            m = re.search(r"alloca (.+?)(?:, align (\d+))?(?:, addrspace\((\d+)\))?$", _clean(text))
            if not m or re.search(r"alloca [^,]+, (?!align)", _clean(text)):
                raise Unsupported(f"a dynamic alloca in @{self.f.name}: {_clean(text)}")
            t = self.ty(m.group(1))
            size = max(1, self.layout.size(t))
            safe = True
            for user, k in uses.get(a.name, []):
                if user.opcode == "load" and k == 0:
                    safe &= _store_size(self.ty(str(user.type)), self.layout) <= size
                elif user.opcode == "store" and k == 1:
                    vt = self.ty(str(list(user.operands)[0].type))
                    safe &= _store_size(vt, self.layout) <= size
                elif user.opcode == "call" and str(list(user.operands)[-1].name).startswith("llvm.lifetime"):
                    pass
                else:
                    safe = False
            if safe and size <= MAX_STACK_BYTES:
                self.safe_allocas.add(a.name)
            else:
                align = int(m.group(2) or 16)
                align = max(align, 16)
                off = (off + align - 1) // align * align
                self.arena[a.name] = (off, size)
                off += size
        self.arena_end = off

    # ------------------------------------------------------------ provenance
    def base_of(self, v, seen=None):
        """('arg', i) | ('global', name) | ('arena', name) | ('stack', name) | None."""
        seen = seen if seen is not None else set()
        kind = v.value_kind.name
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
        key = _vid(v)
        if key in seen:
            return "cycle"
        seen.add(key)
        op = v.opcode
        if op == "alloca":
            return ("arena", v.name) if v.name in self.arena else ("stack", v.name)
        if op in ("getelementptr", "bitcast", "addrspacecast"):
            return self.base_of(list(v.operands)[0], seen)
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
    def check(self, ins, ptr, size, elem, what, write, size_text=None):
        """Emit a check of `ptr` (an operand) and return the text of the checked pointer."""
        kind = {"read": FAULT_READ, "write": FAULT_WRITE, "atomic": FAULT_ATOMIC}[what]
        if size > MAX_STACK_BYTES:
            raise Unsupported(f"an access of {size} bytes (values larger than {MAX_STACK_BYTES} "
                              f"bytes would live on the native stack)")
        # A failed check redirects the access to the scratch area: as large as the
        # largest access (dynamic memcpy lengths are zeroed instead).
        self.mg.out.scratch_bytes = max(self.mg.out.scratch_bytes, size)
        site = self.site(ins, what, size)
        pty = str(ptr.type)
        p0 = self.fresh("p")
        if pty == "ptr":
            self.lines.append(f"  {p0} = getelementptr i8, {typed(ptr)}, i64 0")
        else:
            self.lines.append(f"  {p0} = addrspacecast {typed(ptr)} to ptr")
        n = size_text or f"i64 {size}"
        base = self.base_of(ptr)
        w = "true" if write else "false"
        r = self.fresh("c")
        if base is not None and base[0] == "arg":   # kernel pointer argument: its buffer
            slot = len(self.mg.global_index) + base[1]
            self.lines.append(f"  {r} = call ptr @__clcoop_chk(ptr %__ctx, ptr {p0}, {n}, i64 {elem}, "
                              f"i32 {site}, i32 {kind}, i64 {slot}, i1 {w})")
        elif base is not None and base[0] == "global":
            self.lines.append(f"  {r} = call ptr @__clcoop_chk(ptr %__ctx, ptr {p0}, {n}, i64 {elem}, "
                              f"i32 {site}, i32 {kind}, i64 {self._global_slot(base[1])}, i1 {w})")
        elif base is not None and base[0] == "arena":
            off, asize = self.arena[base[1]]
            lo = self.fresh("lo")
            self.lines.append(f"  {lo} = ptrtoint ptr {_quote(base[1])} to i64")
            hi = self.fresh("hi")
            self.lines.append(f"  {hi} = add i64 {lo}, {asize}")
            self.lines.append(f"  {r} = call ptr @__clcoop_chk_range(ptr %__ctx, ptr {p0}, {n}, i64 {elem}, "
                              f"i32 {site}, i32 {kind}, i64 {lo}, i64 {hi}, i1 {w}, i1 true)")
        else:
            self.lines.append(f"  {r} = call ptr @__clcoop_chk_any(ptr %__ctx, ptr {p0}, {n}, i64 {elem}, "
                              f"i32 {site}, i32 {kind}, i1 {w})")
        if pty == "ptr":
            return f"ptr {r}"
        back = self.fresh("q")
        self.lines.append(f"  {back} = addrspacecast ptr {r} to {pty}")
        return f"{pty} {back}"

    def _global_slot(self, name):
        """The region table holds the program's globals first, then the kernel's
        parameters (runtime.py builds it in that order)."""
        return self.mg.global_index[name]

    # ------------------------------------------------------------ instructions
    def instruction(self, ins, label):
        op = ins.opcode
        text = _clean(str(ins))
        ops = list(ins.operands)
        if op == "alloca":
            if ins.name in self.arena:
                off, _ = self.arena[ins.name]
                self.lines.append(f"  {_quote(ins.name)} = getelementptr inbounds i8, ptr %__priv, i64 {off}")
            else:
                self.lines.append("  " + text)
            return None
        if op in ("load", "store"):
            # load: the pointer is operand 0 and the type is the result's; store: the
            # pointer is operand 1 and the type is the stored value's.
            ptr, vty = (ops[0], str(ins.type)) if op == "load" else (ops[1], str(ops[0].type))
            self.access(ins, text, op, ptr, self.ty(vty))
            return None
        if op in ("atomicrmw", "cmpxchg"):
            t = self.ty(str(ops[1].type))
            checked = self.check(ins, ops[0], _store_size(t, self.layout), _store_size(t, self.layout), "atomic", True)
            self.lines.append("  " + _replace_first(text, typed(ops[0]), checked))
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
        if op in ("fptrunc", "sitofp", "uitofp") and re.search(r"to (<\d+ x )?half>?$", text):
            src = str(ops[0].type)
            if op == "fptrunc" and "double" in src:
                self.double_to_half(ref(ops[0]), src, str(ins.type), _quote(ins.name))
                return None
            if op != "fptrunc":
                # integer -> double is exact below 2^53 (above, half is infinite anyway),
                # then one correct rounding to half.
                wide = re.sub(r"i\d+", "double", src)
                d = self.fresh("i2d")
                self.lines.append(f"  {d} = {op} {typed(ops[0])} to {wide}")
                self.double_to_half(d, wide, str(ins.type), _quote(ins.name))
                return None
        if op in ("indirectbr", "invoke", "callbr", "resume", "landingpad", "va_arg"):
            raise Unsupported(f"the instruction '{op}': {text}")
        if op in ("inttoptr",):
            pass   # checked where it is used (no provenance: every region is searched)
        self.lines.append("  " + text)
        return None

    def access(self, ins, text, op, ptr, t):
        if " atomic " in text:
            raise Unsupported(f"an atomic {op}: {text}")
        if self._direct_stack(ptr):
            self.lines.append("  " + text)
            return
        what = "read" if op == "load" else "write"
        checked = self.check(ins, ptr, _store_size(t, self.layout), _elem_size(t, self.layout), what, op == "store")
        self.lines.append("  " + _replace_last(text, typed(ptr), checked))

    def _direct_stack(self, ptr):
        d = self.definition(ptr)
        return d is not None and d.opcode == "alloca" and d.name in self.safe_allocas

    def division(self, ins, text, ops):
        t = str(ops[1].type)
        b = typed(ops[1])
        if ops[1].is_constant and not re.search(r"\b0\b|zeroinitializer|-1\b|undef|poison", ref(ops[1])):
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
        fz = self.fresh("fz")
        self.lines.append(f"  {fz} = zext i1 {anyz} to i32")
        # One call per division only when it divides by zero (the branchless select keeps
        # vectorization possible: __clcoop_divzero is cheap when the flag is 0).
        self.lines.append(f"  call void @__clcoop_divzero(ptr %__ctx, i32 {fz}, i32 {site})")
        self.mg.builtin_defs.setdefault("__divzero", _DIVZERO_IR)
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
        self.lines.append(f"  {_quote(ins.name)} = {ins.opcode}{exact} {typed(ops[0])}, {nb}")

    def call(self, ins, text, ops):
        callee = ops[-1]
        if callee.value_kind.name != "function":
            raise Unsupported(f"an indirect call: {text}")
        name = callee.name
        f = self.mg.functions[name]
        if name.startswith("llvm."):
            return self.intrinsic(ins, text, ops, name)
        if f.is_declaration and demangle(name)[0] in BARRIERS:
            return self.barrier(ins)
        if f.is_declaration and re.fullmatch(r"v(load|store)(2|3|4|8|16)", demangle(name)[0]):
            return self.vector_memory(ins, ops, *demangle(name))
        if f.is_declaration and demangle(name)[0] in ATOMIC_FUNCTIONS:
            return self.atomic_function(ins, ops, *demangle(name))
        if f.is_declaration:
            target = self.mg.builtin(f)
        else:
            target = name
        args = ", ".join(["ptr %__ctx"] + [typed(o) for o in ops[:-1]])
        ret = str(ins.type)
        lhs = f"{_quote(ins.name)} = " if ret != "void" else ""
        self.lines.append(f"  {lhs}call {ret} {_gquote(target)}({args})")
        return None

    def vector_memory(self, ins, ops, base, params):
        """vloadN(offset, p) / vstoreN(v, offset, p) (OpenCL C 3.0 6.15.11): N elements
        at p + offset * N, aligned to the element."""
        n = int(re.search(r"\d+", base).group())
        load = base.startswith("vload")
        ptr_op, off_op = (ops[1], ops[0]) if load else (ops[2], ops[1])
        vt = self.ty(str(ins.type) if load else str(ops[0].type))
        elem = vt.elem
        esize = _store_size(elem, self.layout)
        pty = str(ptr_op.type)
        start = self.fresh("vo")
        self.lines.append(f"  {start} = mul {typed(off_op)}, {n}")
        addr = self.fresh("va")
        self.lines.append(f"  {addr} = getelementptr {elem}, {typed(ptr_op)}, {off_op.type} {start}")
        site = self.site(ins, "read" if load else "write", n * esize)
        kind = FAULT_READ if load else FAULT_WRITE
        p0 = self.fresh("p")
        self.lines.append(f"  {p0} = addrspacecast {pty} {addr} to ptr" if pty != "ptr"
                          else f"  {p0} = getelementptr i8, ptr {addr}, i64 0")
        r = self.fresh("c")
        self.lines.append(f"  {r} = call ptr @__clcoop_chk_any(ptr %__ctx, ptr {p0}, i64 {n * esize}, "
                          f"i64 {esize}, i32 {site}, i32 {kind}, i1 {'false' if load else 'true'})")
        if load:
            self.lines.append(f"  {_quote(ins.name)} = load {vt}, ptr {r}, align {esize}")
        else:
            self.lines.append(f"  store {typed(ops[0])}, ptr {r}, align {esize}")
        return None

    def atomic_function(self, ins, ops, base, params):
        """OpenCL 1.x atomic_<op> / atom_<op> (OpenCL C 3.0 6.15.12.x legacy): one LLVM
        atomic instruction on the checked pointer, sequentially consistent."""
        op = base.split("_", 1)[1]
        t = self.ty(str(ins.type))
        size = _store_size(t, self.layout)
        signed = True
        if params and params[0][0] == "ptr" and isinstance(params[0][2], tuple):
            pointee = params[0][2]
            signed = pointee[0] != "int" or pointee[2]
        if t.kind != "int" and op != "xchg":
            raise Unsupported(f"the built-in '{base}' on {t}")
        ptr = self.check(ins, ops[0], size, size, "atomic", True)
        out = _quote(ins.name)
        if op == "cmpxchg":
            pair = self.fresh("cx")
            self.lines.append(f"  {pair} = cmpxchg {ptr}, {typed(ops[1])}, {typed(ops[2])} seq_cst seq_cst")
            self.lines.append(f"  {out} = extractvalue {{ {t}, i1 }} {pair}, 0")
            return None
        rmw = {"inc": "add", "dec": "sub"}.get(op, op)
        if rmw in ("min", "max") and not signed:
            rmw = "u" + rmw
        value = f"{t} 1" if op in ("inc", "dec") else typed(ops[1])
        self.lines.append(f"  {out} = atomicrmw {rmw} {ptr}, {value} seq_cst")
        return None

    def _has_barrier(self):
        for b in self.blocks:
            for ins in b.instructions:
                if ins.opcode == "call":
                    callee = list(ins.operands)[-1]
                    if callee.value_kind.name == "function" and demangle(callee.name)[0] in BARRIERS:
                        return True
        return False

    def barrier(self, ins):
        """A work-group barrier: the work-item's coroutine suspends; the driver resumes
        the work-group once every work-item waits at the same barrier."""
        site = self.site(ins, "barrier", 0)
        self.lines.append(f"  %__bsp{self.n} = getelementptr i64, ptr %__ctx, i64 {CTX['barrier']}")
        self.lines.append(f"  store i64 {site}, ptr %__bsp{self.n}")
        s = self.fresh("susp")
        resume = f"__resume.{self.n}"
        self.lines.append(f"  {s} = call i8 @llvm.coro.suspend(token none, i1 false)")
        self.lines.append(f"  switch i8 {s}, label %__coro.suspend [i8 0, label {_quote(resume)} "
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
        if name.startswith("llvm.fma."):
            self.fused(ins, ops)
            return None
        if name.startswith(support.MEMORY_INTRINSICS):
            length = typed(ops[2])
            if str(ops[2].type) != "i64":
                ln = self.fresh("len")
                self.lines.append(f"  {ln} = zext {length} to i64")
                length = f"i64 {ln}"
            args = [typed(o) for o in ops[:-1]]
            args[0] = self.check(ins, ops[0], 0, 1, "write", True, size_text=length)
            if not name.startswith("llvm.memset."):
                args[1] = self.check(ins, ops[1], 0, 1, "read", False, size_text=length)
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
            self.lines.append(f"  call void {_gquote(name)}({', '.join(args)})")
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
        t = str(ins.type)
        ty = self.ty(t)
        elem = ty.elem if ty.kind == "vec" else ty
        a, b, c = (typed(o) for o in ops[:3])
        out = _quote(ins.name)
        if elem.bits != 16:
            m = self.fresh("m")
            self.lines.append(f"  {m} = fmul {a}, {ref(ops[1])}")
            self.lines.append(f"  {out} = fadd {t} {m}, {ref(ops[2])}")
            return
        # half: each step exact in double, rounded to half by the engine's own conversion
        # (LLVM would call a library function the process does not have).
        wide = f"<{ty.n} x double>" if ty.kind == "vec" else "double"
        xs = []
        for v in (a, b, c):
            x = self.fresh("x")
            self.lines.append(f"  {x} = fpext {v} to {wide}")
            xs.append(x)
        m, mh, mx, s = self.fresh("m"), self.fresh("mh"), self.fresh("mx"), self.fresh("s")
        self.lines.append(f"  {m} = fmul {wide} {xs[0]}, {xs[1]}")
        self.double_to_half(m, wide, t, mh)
        self.lines.append(f"  {mx} = fpext {t} {mh} to {wide}")
        self.lines.append(f"  {s} = fadd {wide} {mx}, {xs[2]}")
        self.double_to_half(s, wide, t, out)

    def fused(self, ins, ops):
        """llvm.fma as the interpreter computes it (ocl_builtins._fma):
        half/float: exact product and sum in double, one rounding back; double: a*b+c
        with two roundings (docs/native.md, "Floating point")."""
        t = str(ins.type)
        ty = self.ty(t)
        elem = ty.elem if ty.kind == "vec" else ty
        a, b, c = (typed(o) for o in ops[:3])
        out = _quote(ins.name)
        if elem.bits == 64:
            m = self.fresh("m")
            self.lines.append(f"  {m} = fmul {a}, {ref(ops[1])}")
            self.lines.append(f"  {out} = fadd {t} {m}, {ref(ops[2])}")
            return
        wide = f"<{ty.n} x double>" if ty.kind == "vec" else "double"
        xs = []
        for v in (a, b, c):
            x = self.fresh("x")
            self.lines.append(f"  {x} = fpext {v} to {wide}")
            xs.append(x)
        m = self.fresh("m")
        self.lines.append(f"  {m} = fmul {wide} {xs[0]}, {xs[1]}")
        s = self.fresh("s")
        self.lines.append(f"  {s} = fadd {wide} {m}, {xs[2]}")
        if elem.bits == 16:
            self.double_to_half(s, wide, t, out)
        else:
            self.lines.append(f"  {out} = fptrunc {wide} {s} to {t}")

    def double_to_half(self, value, wide, half, out):
        """double -> half, correctly rounded without the runtime library call LLVM emits
        for it on x86 (__truncdfhf2, not in the process: calling it crashed): round to
        float with round-to-odd (inexact results get an odd last bit), then float -> half
        (F16C). Round-to-odd with 13 spare bits makes the second rounding exact."""
        vec = re.fullmatch(r"<(\d+) x double>", wide)
        flt = f"<{vec.group(1)} x float>" if vec else "float"
        i32 = f"<{vec.group(1)} x i32>" if vec else "i32"
        b1 = _bool_type(wide)
        fs = _intrinsic_suffix(flt).replace("float", "f32")
        ds = _intrinsic_suffix(wide).replace("double", "f64")
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
        targets = [o.name for o in ops if o.value_kind.name == "basic_block"]
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
        self.lines.append(f"  br i1 {stop}, label %__abort, label {_quote(cont)}")
        self.lines.append(f"{cont}:")
        self.lines.append("  " + text)
        self.renames[label] = cont
        return cont


_CORO_PROLOGUE = [
    "  %__coro.id = call token @llvm.coro.id(i32 0, ptr null, ptr null, ptr null)",
    "  %__coro.size = call i64 @llvm.coro.size.i64()",
    "  %__coro.mem = call ptr @malloc(i64 %__coro.size)",
    "  %__coro.hdl = call ptr @llvm.coro.begin(token %__coro.id, ptr %__coro.mem)",
]

# After the kernel's last instruction: a final suspend (the driver sees coro.done); the
# frame is freed by coro.destroy.
_CORO_EPILOGUE = [
    "__coro.final:",
    "  %__coro.f = call i8 @llvm.coro.suspend(token none, i1 true)",
    "  switch i8 %__coro.f, label %__coro.suspend [i8 0, label %__coro.trap i8 1, label %__coro.cleanup]",
    "__coro.trap:",
    "  unreachable",
    "__coro.cleanup:",
    "  %__coro.fm = call ptr @llvm.coro.free(token %__coro.id, ptr %__coro.hdl)",
    "  call void @free(ptr %__coro.fm)",
    "  br label %__coro.suspend",
    "__coro.suspend:",
    "  call void @llvm.coro.end(ptr %__coro.hdl, i1 false, token none)",
    "  ret ptr %__coro.hdl",
]

_CORO_DECLS = """declare token @llvm.coro.id(i32, ptr, ptr, ptr)
declare i64 @llvm.coro.size.i64()
declare ptr @llvm.coro.begin(token, ptr)
declare i8 @llvm.coro.suspend(token, i1)
declare ptr @llvm.coro.free(token, ptr)
declare void @llvm.coro.end(ptr, i1, token)
declare void @llvm.coro.resume(ptr)
declare void @llvm.coro.destroy(ptr)
declare i1 @llvm.coro.done(ptr)
declare ptr @malloc(i64)
declare void @free(ptr)"""


_DIVZERO_IR = f"""define internal void @__clcoop_divzero(ptr %c, i32 %z, i32 %site) alwaysinline {{
entry:
  %bad = icmp ne i32 %z, 0
  br i1 %bad, label %rec, label %out
rec:
  call void @__clcoop_fault(ptr %c, i32 %site, i32 {FAULT_DIVZERO}, i64 0, i64 0)
  br label %out
out:
  ret void
}}"""


def _find_operand(text, needle, start=0):
    """Index of `needle` in text as a whole operand (followed by ',', ')', ' ' or end)."""
    i = text.find(needle, start)
    while i >= 0:
        end = i + len(needle)
        if end == len(text) or text[end] in ",) ":
            return i
        i = text.find(needle, i + 1)
    return -1


def _replace_first(text, needle, new):
    i = _find_operand(text, needle)
    if i < 0:
        raise Unsupported(f"cannot rewrite the operand {needle} of: {text}")
    return text[:i] + new + text[i + len(needle):]


def _replace_nth(text, needle, new, nth):
    i = _find_operand(text, needle)
    for _ in range(nth):
        i = _find_operand(text, needle, i + 1)
    if i < 0:
        raise Unsupported(f"cannot rewrite the operand {needle} of: {text}")
    return text[:i] + new + text[i + len(needle):]


def _replace_last(text, needle, new, sep_only=False):
    idx, i = -1, _find_operand(text, needle)
    while i >= 0:
        idx = i
        i = _find_operand(text, needle, i + 1)
    if idx < 0:
        if sep_only:
            # "sdiv i32 %a, %b": the divisor appears untyped after the comma.
            untyped = needle.split(" ", 1)[1] if " " in needle else needle
            new_untyped = new.split(" ", 1)[1]
            j = text.rfind(", " + untyped)
            if j >= 0:
                return text[:j + 2] + new_untyped + text[j + 2 + len(untyped):]
        raise Unsupported(f"cannot rewrite the operand {needle} of: {text}")
    return text[:idx] + new + text[idx + len(needle):]



def _zero_local_lines(table, count, prefix):
    """IR lines zeroing every __local region of the table (rows flagged 2) at the start of
    a work-group: local memory starts as zeros in the interpreter too."""
    return [
        f"  br label %{prefix}.z",
        f"{prefix}.z:",
        f"  %{prefix}.i = phi i64 [ 0, %{prefix}.pre ], [ %{prefix}.inext, %{prefix}.znext ]",
        f"  %{prefix}.more = icmp ult i64 %{prefix}.i, {count}",
        f"  br i1 %{prefix}.more, label %{prefix}.zbody, label %{prefix}.zdone",
        f"{prefix}.zbody:",
        f"  %{prefix}.i3 = mul i64 %{prefix}.i, 3",
        f"  %{prefix}.row = getelementptr i64, ptr {table}, i64 %{prefix}.i3",
        f"  %{prefix}.lo = load i64, ptr %{prefix}.row",
        f"  %{prefix}.hip = getelementptr i64, ptr %{prefix}.row, i64 1",
        f"  %{prefix}.hi = load i64, ptr %{prefix}.hip",
        f"  %{prefix}.flp = getelementptr i64, ptr %{prefix}.row, i64 2",
        f"  %{prefix}.fl = load i64, ptr %{prefix}.flp",
        f"  %{prefix}.isl = and i64 %{prefix}.fl, 2",
        f"  %{prefix}.loc = icmp ne i64 %{prefix}.isl, 0",
        f"  %{prefix}.inext = add i64 %{prefix}.i, 1",
        f"  br i1 %{prefix}.loc, label %{prefix}.zero, label %{prefix}.znext",
        f"{prefix}.zero:",
        f"  %{prefix}.p = inttoptr i64 %{prefix}.lo to ptr",
        f"  %{prefix}.n = sub i64 %{prefix}.hi, %{prefix}.lo",
        f"  call void @llvm.memset.p0.i64(ptr %{prefix}.p, i8 0, i64 %{prefix}.n, i1 false)",
        f"  br label %{prefix}.znext",
        f"{prefix}.znext:",
        f"  br label %{prefix}.z",
        f"{prefix}.zdone:",
    ]


def _coroutine_driver(plan, kernel):
    """Driver of a kernel with barriers: every work-item of a group is a coroutine; the
    group advances barrier by barrier (all work-items suspended at the same barrier, then
    all resumed), and a work-item that finishes while others wait is a divergent barrier
    (OpenCL C 3.0 6.15.8: all work-items of the group must reach it)."""
    L = [f"define void {_gquote(plan.driver)}(ptr %args, ptr %tmpl, i64 %first, i64 %count, "
         f"ptr %priv, ptr %fout) {{",
         "entry:"]
    arg_lines, call_args = _argument_lines(plan)
    L += arg_lines
    for field in ("wg_size", "ngrp0", "ngrp1", "lsize0", "lsize1", "priv_size", "table", "table_count"):
        L.append(f"  %t.{field}.p = getelementptr i64, ptr %tmpl, i64 {CTX[field]}")
        L.append(f"  %t.{field} = load i64, ptr %t.{field}.p")
    L += [f"  %t.abort.p = getelementptr i64, ptr %tmpl, i64 {CTX['abort']}",
          "  %abp = load ptr, ptr %t.abort.p",
          "  %tab = inttoptr i64 %t.table to ptr",
          f"  %ctxbytes = mul i64 %t.wg_size, {CTX_SLOTS * 8}",
          "  %ctxs = call ptr @malloc(i64 %ctxbytes)",
          "  %hbytes = mul i64 %t.wg_size, 8",
          "  %hs = call ptr @malloc(i64 %hbytes)",
          f"  %t.next.p = getelementptr i64, ptr %tmpl, i64 {CTX['next_group']}",
          "  %nextp = load ptr, ptr %t.next.p"] + _group_head_lines("gz.pre") + [
          "gz.pre:"]
    L += _zero_local_lines("%tab", "%t.table_count", "gz")
    L += ["  %gx = urem i64 %g, %t.ngrp0",
          "  %gq = udiv i64 %g, %t.ngrp0",
          "  %gy = urem i64 %gq, %t.ngrp1",
          "  %gzz = udiv i64 %gq, %t.ngrp1",
          "  br label %init",
          "init:",
          "  %l = phi i64 [ 0, %gz.zdone ], [ %lnext, %init.body ]",
          "  %lmore = icmp ult i64 %l, %t.wg_size",
          "  br i1 %lmore, label %init.body, label %round",
          "init.body:",
          f"  %coff = mul i64 %l, {CTX_SLOTS}",
          "  %c = getelementptr i64, ptr %ctxs, i64 %coff",
          f"  call void @llvm.memcpy.p0.p0.i64(ptr %c, ptr %tmpl, i64 {CTX_SLOTS * 8}, i1 false)",
          "  %x = urem i64 %l, %t.lsize0",
          "  %lq = udiv i64 %l, %t.lsize0",
          "  %y = urem i64 %lq, %t.lsize1",
          "  %z = udiv i64 %lq, %t.lsize1"]
    for field, v in (("llid", "%l"), ("lid0", "%x"), ("lid1", "%y"), ("lid2", "%z"), ("grp0", "%gx"),
                     ("grp1", "%gy"), ("grp2", "%gzz")):
        L += [f"  %c.{field} = getelementptr i64, ptr %c, i64 {CTX[field]}", f"  store i64 {v}, ptr %c.{field}"]
    L += ["  %poff = mul i64 %l, %t.priv_size",
          "  %pl = getelementptr i8, ptr %priv, i64 %poff",
          f"  %c.priv = getelementptr i64, ptr %c, i64 {CTX['priv']}",
          "  store ptr %pl, ptr %c.priv",
          "  call void @llvm.memset.p0.i64(ptr %pl, i8 0, i64 %t.priv_size, i1 false)",
          f"  %h = call ptr {_gquote(kernel)}(ptr %c{''.join(', ' + a for a in call_args)})",
          "  %hp = getelementptr ptr, ptr %hs, i64 %l",
          "  store ptr %h, ptr %hp",
          "  %lnext = add i64 %l, 1",
          "  br label %init",
          # A round: every work-item has run to a barrier or to its end.
          "round:",
          "  br label %scan",
          "scan:",
          "  %s = phi i64 [ 0, %round ], [ %snext, %scan.next ]",
          "  %ndone = phi i64 [ 0, %round ], [ %ndone2, %scan.next ]",
          "  %nsusp = phi i64 [ 0, %round ], [ %nsusp2, %scan.next ]",
          "  %site0 = phi i64 [ -1, %round ], [ %site2, %scan.next ]",
          "  %mixed = phi i1 [ false, %round ], [ %mixed2, %scan.next ]",
          "  %firstdone = phi i64 [ -1, %round ], [ %firstdone2, %scan.next ]",
          "  %firstsusp = phi i64 [ -1, %round ], [ %firstsusp2, %scan.next ]",
          "  %smore = icmp ult i64 %s, %t.wg_size",
          "  br i1 %smore, label %scan.body, label %scan.end",
          "scan.body:",
          f"  %scoff = mul i64 %s, {CTX_SLOTS}",
          "  %sc = getelementptr i64, ptr %ctxs, i64 %scoff",
          "  %sfv = load i64, ptr %sc",
          "  %sfault = icmp ne i64 %sfv, 0",
          "  br i1 %sfault, label %fault, label %scan.state",
          "scan.state:",
          "  %shp = getelementptr ptr, ptr %hs, i64 %s",
          "  %sh = load ptr, ptr %shp",
          "  %sdone = call i1 @llvm.coro.done(ptr %sh)",
          f"  %sbp = getelementptr i64, ptr %sc, i64 {CTX['barrier']}",
          "  %sb = load i64, ptr %sbp",
          "  %dinc = zext i1 %sdone to i64",
          "  %ndone2 = add i64 %ndone, %dinc",
          "  %sinc = xor i64 %dinc, 1",
          "  %nsusp2 = add i64 %nsusp, %sinc",
          "  %nofirst = icmp eq i64 %site0, -1",
          "  %sdone.not = xor i1 %sdone, true",
          "  %takesite = and i1 %nofirst, %sdone.not",
          "  %site2 = select i1 %takesite, i64 %sb, i64 %site0",
          "  %differs = icmp ne i64 %sb, %site2",
          "  %baddiff = and i1 %differs, %sdone.not",
          "  %mixed2 = or i1 %mixed, %baddiff",
          "  %fdnone = icmp eq i64 %firstdone, -1",
          "  %takefd = and i1 %fdnone, %sdone",
          "  %firstdone2 = select i1 %takefd, i64 %s, i64 %firstdone",
          "  %fsnone = icmp eq i64 %firstsusp, -1",
          "  %takefs = and i1 %fsnone, %sdone.not",
          "  %firstsusp2 = select i1 %takefs, i64 %s, i64 %firstsusp",
          "  br label %scan.next",
          "scan.next:",
          "  %snext = add i64 %s, 1",
          "  br label %scan",
          "scan.end:",
          "  %alldone = icmp eq i64 %nsusp, 0",
          "  br i1 %alldone, label %destroy, label %check",
          "check:",
          "  %somedone = icmp ne i64 %ndone, 0",
          "  %diverged = or i1 %somedone, %mixed",
          "  br i1 %diverged, label %divergent, label %resume",
          "resume:",
          "  %r = phi i64 [ 0, %check ], [ %rnext, %resume.body ]",
          "  %rmore = icmp ult i64 %r, %t.wg_size",
          "  br i1 %rmore, label %resume.body, label %round",
          "resume.body:",
          "  %rhp = getelementptr ptr, ptr %hs, i64 %r",
          "  %rh = load ptr, ptr %rhp",
          "  call void @llvm.coro.resume(ptr %rh)",
          "  %rnext = add i64 %r, 1",
          "  br label %resume",
          "destroy:",
          "  br label %destroy.loop",
          "destroy.loop:",
          "  %d = phi i64 [ 0, %destroy ], [ %dnext, %destroy.body ]",
          "  %dmore = icmp ult i64 %d, %t.wg_size",
          "  br i1 %dmore, label %destroy.body, label %destroyed",
          "destroy.body:",
          "  %dhp = getelementptr ptr, ptr %hs, i64 %d",
          "  %dh = load ptr, ptr %dhp",
          "  call void @llvm.coro.destroy(ptr %dh)",
          "  %dnext = add i64 %d, 1",
          "  br label %destroy.loop",
          "destroyed:",
          "  br label %group",
          # Faults: recorded in fout; every coroutine of the group is destroyed.
          "fault:",
          ] + _fault_out_lines("%sc", "%sfv", "%s") + [
          "  br label %abandon",
          "divergent:",
          "  %bsite = add i64 %site0, 1",
          "  store i64 %bsite, ptr %fout",
          "  %dv1 = getelementptr i64, ptr %fout, i64 1",
          f"  store i64 {FAULT_BARRIER}, ptr %dv1",
          "  %dv2 = getelementptr i64, ptr %fout, i64 2",
          "  %other = select i1 %somedone, i64 %firstdone, i64 -1",
          "  store i64 %other, ptr %dv2",
          "  %dv3 = getelementptr i64, ptr %fout, i64 3",
          "  store i64 %g, ptr %dv3",
          "  %dv4 = getelementptr i64, ptr %fout, i64 4",
          "  store i64 %firstsusp, ptr %dv4",
          "  %dv5 = getelementptr i64, ptr %fout, i64 5",
          "  store i64 0, ptr %dv5",
          "  br label %abandon",
          "abandon:",
          "  store atomic i64 1, ptr %abp monotonic, align 8",
          "  br label %abandon.loop",
          "abandon.loop:",
          "  %e = phi i64 [ 0, %abandon ], [ %enext, %abandon.body ]",
          "  %emore = icmp ult i64 %e, %t.wg_size",
          "  br i1 %emore, label %abandon.body, label %done",
          "abandon.body:",
          "  %ehp = getelementptr ptr, ptr %hs, i64 %e",
          "  %eh = load ptr, ptr %ehp",
          "  call void @llvm.coro.destroy(ptr %eh)",
          "  %enext = add i64 %e, 1",
          "  br label %abandon.loop",
          "done:",
          "  call void @free(ptr %ctxs)",
          "  call void @free(ptr %hs)",
          "  ret void",
          "}"]
    return "\n".join(L)
