"""Cooperative matrices on the subgroup-wide fast path (subgroup.py; docs/native.md, "The
subgroup-wide fast path"): a matrix is one logical row-major tile <R*C x T> per subgroup
(matrices are always uniform there).

- loads and stores copy whole rows (columns for column-major, through a transposed tile),
  after one check of the span: the pointer and stride may be varying but must be equal in
  every lane, the span inside one region (its row of the region table for a kernel
  argument: context.REGION_*), the stride legal (coopmat: loads >= 0, stores > 0 and rows
  that do not overlap); a failed check records a fault (the launch is run again on the
  per-work-item path, which reports it) and the access goes to the scratch area;
- the mul-add calls the routine of coop_ir directly, reading its a and b operands where a
  load in the same block left them in memory (no store in between), else from the tile a
  load copied them into, else from a spill;
- splat, scalar multiply, negate and the element-wise operations are vector instructions
  (bfloat in float32, rounded once: bfloat_ir).
"""
import re

from clcoop import coopmat_spec
from clcoop.coop_names import BINARY, LENGTH, LOAD, MUL_ADD, NEGATE, SCALAR_MUL, SPLAT, STORE
from clcoop.ir.loader import value_kind
from clcoop.native import bfloat_ir, coop_ir, coop_routines, packed_loads
from clcoop.native.context import CTX, FAULT_COOP, REGION_FLAGS, REGION_HI, REGION_LO, REGION_ROW_WORDS
from clcoop.native.support import Unsupported
from clcoop.native.text_rewrite import quote, ref

# The launch's tables (the context's table, packs and scratch words, the region table's rows,
# the packed copies' descriptors) do not change while a kernel runs: loads of them may be
# hoisted out of the kernel's loops, past its fault calls (LLVM LangRef, !invariant.load).
INVARIANT = ", !invariant.load !{}"

# Strides above this could overflow the span computation: such launches take the fallback.
MAX_STRIDE = 1 << 32

# What MatrixTiles uses of the subgroup generator (subgroup._SubgroupGen), and nothing else
# (test_native_subgroup_parts checks it): the lane count S, the lines being emitted, fresh
# names, entry allocas (tiles, spills, results), lane j's value of an operand and the
# varying values (a pointer or stride must be equal in every lane), fault sites, the module
# (the mul-add routines, the sites' elements, the region table's rows), a pointer's origin
# and the index of the block being emitted (a load's rows are read in place only in its
# block).
GENERATOR_USES = ("S", "lines", "fresh", "entry_alloca", "lane", "varying", "operand_varying", "site", "mg",
                  "base_of", "cur_block", "defs", "may_leave_block", "continue_in", "entry_line")


class MatrixTiles:
    """The subgroup generator's part for cooperative-matrix operations: emit(ins, ops,
    callee) for each; tiles (load result -> (the tile it was copied into, stride, by
    columns)) and in_memory (load result -> (rows pointer, stride, by columns, block,
    stores)) say where a loaded matrix can be read; saw_store() counts the stores after
    which a load's rows may be stale."""

    def __init__(self, gen):
        self.gen = gen
        self.tiles = {}
        self.in_memory = {}
        self.stores = 0            # stores emitted so far (a load's rows may be stale after one)
        self.packs = []            # loads that may read a padded copy (packed_loads.Candidate)

    def saw_store(self):
        self.stores += 1

    def emit(self, ins, ops, callee):
        """The call ins of the matrix operation callee (coop_routines.callee_of)."""
        gen = self.gen
        base = callee.base
        lhs = f"{quote(ins.name)} = " if str(ins.type) != "void" else ""
        if base == SPLAT:
            mt = _matrix(str(ins.type))
            tmp = gen.fresh("splat")
            gen.lines += [f"  {tmp} = insertelement {mt} poison, {ops[0].type} {ref(ops[0])}, i64 0",
                          f"  {lhs}shufflevector {mt} {tmp}, {mt} poison, <{_count(mt)} x i32> zeroinitializer"]
        elif base == LENGTH:
            mt = coop_routines._matrix_of_callee(callee, gen.S)
            gen.lines.append(f"  {lhs}add {ins.type} 0, {mt.length}")
        elif base == NEGATE or base in coop_routines.ELEMENTWISE:
            self._elementwise(ins, ops, base, lhs)
        elif base == SCALAR_MUL:
            mt = _matrix(str(ins.type))
            elem = _elem(mt)
            tmp, tmp2 = gen.fresh("smul"), gen.fresh("smuls")
            op = "fmul" if elem in coop_ir.FLOAT_TYPES else "mul"
            gen.lines += [f"  {tmp} = insertelement {mt} poison, {elem} {ref(ops[1])}, i64 0",
                          f"  {tmp2} = shufflevector {mt} {tmp}, {mt} poison, <{_count(mt)} x i32> zeroinitializer"]
            if elem == "bfloat":
                gen.lines += bfloat_ir.arithmetic(gen.fresh, "fmul", mt, ref(ops[0]), tmp2, quote(ins.name))
            else:
                gen.lines.append(f"  {lhs}{op} {mt} {ref(ops[0])}, {tmp2}")
        elif base == LOAD:
            self._memory(ins, ops, callee, lhs, load=True)
        elif base == STORE:
            self._memory(ins, ops, callee, lhs, load=False)
        elif base == MUL_ADD:
            self._mul_add(ins, ops, lhs)
        else:
            raise Unsupported(f"the cooperative-matrix operation {base}")

    def _elementwise(self, ins, ops, base, lhs):
        gen = self.gen
        mt = _matrix(str(ins.type))
        floating = _elem(mt) in coop_ir.FLOAT_TYPES
        if _elem(mt) == "bfloat":      # in float32, rounded once (bfloat_ir)
            code = "fneg" if base == NEGATE else coop_routines.ELEMENTWISE[base][0]
            gen.lines += bfloat_ir.arithmetic(gen.fresh, code, mt, ref(ops[0]),
                                              None if base == NEGATE else ref(ops[1]), quote(ins.name))
            return
        if base == NEGATE:
            op = f"fneg {mt} {ref(ops[0])}" if floating else f"sub {mt} zeroinitializer, {ref(ops[0])}"
        else:
            code = coop_routines.ELEMENTWISE[base][0 if floating else 1]
            if code is None or base == BINARY["div"] and not floating:
                raise Unsupported("an integer cooperative-matrix division")
            op = f"{code} {mt} {ref(ops[0])}, {ref(ops[1])}"
        gen.lines.append(f"  {lhs}{op}")

    def _uniform_i64(self, v, site_bad):
        """Lane 0's value of an integer or pointer operand as i64; ORs 'differs in a lane'
        into the list site_bad."""
        gen = self.gen
        ty = str(v.type)
        ptr = ty.startswith("ptr")
        out = []
        for j in range(gen.S if gen.operand_varying(v, gen.varying) else 1):
            x = gen.fresh("u")
            if ptr:
                gen.lines.append(f"  {x} = ptrtoint {ty} {gen.lane(v, j)} to i64")
            elif ty == "i64":
                gen.lines.append(f"  {x} = add i64 {gen.lane(v, j)}, 0")
            else:
                gen.lines.append(f"  {x} = sext {ty} {gen.lane(v, j)} to i64")
            out.append(x)
        for x in out[1:]:
            d = gen.fresh("ud")
            gen.lines.append(f"  {d} = icmp ne i64 {x}, {out[0]}")
            site_bad.append(d)
        return out[0]

    def _memory(self, ins, ops, callee, lhs, load):
        gen = self.gen
        mtext = str(ins.type) if load else str(ops[1].type)
        per_lane = coop_routines.matrix_type(mtext, gen.S)
        layout, stride_op = coop_routines._memory_operands(ops, 1 if load else 2, callee, per_lane)
        T, R, C = per_lane.elem, per_lane.rows, per_lane.cols
        esz = coop_routines.ELEMENT_BYTES[T]
        site = gen.site(ins, "cooperative-matrix operation", 0)
        coop_routines.element_site(gen.mg.out.sites[site], per_lane)
        bad = []
        p = self._uniform_i64(ops[0], bad)
        stride = self._uniform_i64(stride_op, bad)
        majors, minor = (R, C) if layout == 0 else (C, R)
        packable = self._pack_candidate(ops[0], stride_op, esz, minor * esz) if load and majors > packed_loads.SET_WAYS else None
        n = gen.fresh("m")
        # The stride rules of coopmat (loads >= 0, stores > 0), and stores whose rows do not
        # overlap (the rendezvous path stores those element by element).
        lowest = 0 if load else minor
        gen.lines += [f"  {n}.slo = icmp slt i64 {stride}, {lowest}",
                      f"  {n}.shi = icmp ugt i64 {stride}, {MAX_STRIDE}",
                      f"  {n}.maj = mul i64 {stride}, {majors - 1}",
                      f"  {n}.last = add i64 {n}.maj, {minor}",
                      f"  {n}.bytes = mul i64 {n}.last, {esz}",
                      f"  {n}.hi = add i64 {p}, {n}.bytes",
                      *self._span_check(ops[0], p, f"{n}.hi", esz, not load, f"{n}.span"),
                      f"  {n}.nospan = xor i1 {n}.span, true"]
        bad += [f"{n}.slo", f"{n}.shi", f"{n}.nospan"]
        acc = bad[0]
        for i, b in enumerate(bad[1:]):
            gen.lines.append(f"  {n}.bad{i} = or i1 {acc}, {b}")
            acc = f"{n}.bad{i}"
        gen.lines.append(f"  call void @__clcoop_fault_if(ptr %__ctx, i1 {acc}, i32 {site}, i32 {FAULT_COOP})")
        if gen.may_leave_block():
            # The subgroup function returns at a failed check (the launch is run again on
            # the per-work-item path, which reports the fault): the access's address then
            # does not wait for the checks through selects (the GEMM's tile step: about
            # 10-15% of one thread's time on the Xeon, docs/performance.md).
            ok = f"{n}.ok"
            gen.lines += [f"  br i1 {acc}, label %__abort, label %{ok[1:]}", f"{ok[1:]}:"]
            gen.continue_in(ok[1:])
            gen.lines += [f"  {n}.base{'0' if packable else ''} = add i64 {p}, 0",
                          f"  {n}.stb{'0' if packable else ''} = mul i64 {stride}, {esz}"]
            acc = "false"
        else:
            gen.lines += [  # A failed check reads or writes the scratch area, one row at stride 0.
                f"  {n}.scp = getelementptr i64, ptr %__ctx, i64 {CTX['scratch']}",
                f"  {n}.sc = load i64, ptr {n}.scp{INVARIANT}",
                f"  {n}.base{'0' if packable else ''} = select i1 {acc}, i64 {n}.sc, i64 {p}",
                f"  {n}.st = select i1 {acc}, i64 0, i64 {stride}",
                f"  {n}.stb{'0' if packable else ''} = mul i64 {n}.st, {esz}"]
        if packable:
            self._packed_rows(n, acc, p, stride, esz, packable)
        logical = f"<{R * C} x {T}>"
        tmp = gen.entry_alloca(f"[{R * C} x {T}]")
        row_t = f"<{minor} x {T}>"
        # Column-major: the columns go through a transposed tile (C x R), shuffled.
        transpose = [c * R + r for r in range(R) for c in range(C)]       # logical <- transposed
        inverse = [r * C + c for c in range(C) for r in range(R)]         # transposed <- logical
        if not load:
            value = ref(ops[1])
            if layout == 1:
                t = gen.fresh("tr")
                gen.lines.append(f"  {t} = shufflevector {logical} {value}, {logical} poison, {_mask(inverse)}")
                value = t
            gen.lines.append(f"  store {logical} {value}, ptr {tmp}, align {esz}")
        for k in range(majors):
            a, q, s = f"{n}.a{k}", f"{n}.q{k}", f"{n}.s{k}"
            gen.lines += [f"  {a}.o = mul i64 {n}.stb, {k}",
                          f"  {a} = add i64 {n}.base, {a}.o",
                          f"  {q} = inttoptr i64 {a} to ptr",
                          f"  {s} = getelementptr {T}, ptr {tmp}, i64 {k * minor}"]
            if load:
                gen.lines += [f"  {n}.v{k} = load {row_t}, ptr {q}, align {esz}",
                              f"  store {row_t} {n}.v{k}, ptr {s}, align {esz}"]
            else:
                gen.lines += [f"  {n}.v{k} = load {row_t}, ptr {s}, align {esz}",
                              f"  store {row_t} {n}.v{k}, ptr {q}, align {esz}"]
        if load:
            if layout == 1:
                gen.lines += [f"  {n}.t = load {logical}, ptr {tmp}, align {esz}",
                              f"  {lhs}shufflevector {logical} {n}.t, {logical} poison, {_mask(transpose)}"]
            else:
                gen.lines.append(f"  {lhs}load {logical}, ptr {tmp}, align {esz}")
            # The tile holds this value (by columns when column-major) wherever it is used
            # (a non-phi use of an SSA value sees the latest execution of its definition,
            # and only this load writes the tile): a mul-add reads its operand there (no
            # copy; a column-major operand is not transposed: LLVM drops the shuffle above
            # when nothing else uses the value).
            by_columns = layout == 1
            self.tiles[ins.name] = (tmp, minor * esz, by_columns)
            # Where the rows (columns) are in memory (after the checks: the scratch area at
            # stride 0 when one failed), for a mul-add in the same block with no store in
            # between (it reads them there: no copy at all).
            gen.lines.append(f"  {n}.bp = inttoptr i64 {n}.base to ptr")
            self.in_memory[ins.name] = (f"{n}.bp", f"{n}.stb", by_columns, gen.cur_block, self.stores)

    def _pack_candidate(self, pointer, stride_op, esz, row_bytes):
        """A packed_loads.Candidate for a load from a kernel argument whose stride the
        launch can compute from its arguments (it may then read a padded copy), else None."""
        base = self.gen.base_of(pointer)
        if base is None or base[0] != "arg":
            return None

        def param_of(argument):
            found = self.gen.base_of(argument)
            return found[1] if found is not None and found[0] == "arg" else None
        stride = packed_loads.stride_expression(stride_op, param_of, lambda v: self.gen.defs.get(v.name))
        if stride is None:
            return None
        candidate = packed_loads.Candidate(base[1], stride, esz, row_bytes)
        self.packs.append(candidate)
        return candidate

    def _packed_rows(self, n, bad, p, stride, esz, candidate):
        """%{n}.base and %{n}.stb: where the load reads its rows, the launch's padded copy of
        the argument when it made one for this stride (packed_loads.py) and every check
        passed, else where the checks left them (%{n}.base0, %{n}.stb0). The row of an
        address is its offset in the argument's region (the span check's row, %{n}.span.rlo)
        divided by the stride."""
        row = packed_loads.PACK_ROW_WORDS * candidate.param
        k = f"{n}.pk"
        # The descriptor read in the entry block: it does not change while the kernel runs,
        # and after a check that may leave the block LLVM would not hoist it out of loops.
        for line in [f"  {k}.tp = getelementptr i64, ptr %__ctx, i64 {CTX['packs']}",
                     f"  {k}.t = load ptr, ptr {k}.tp{INVARIANT}",
                     *(line for field, word in (("copy", packed_loads.PACK_COPY), ("for", packed_loads.PACK_STRIDE),
                                                ("pad", packed_loads.PACK_PAD), ("magic", packed_loads.PACK_MAGIC))
                       for line in (f"  {k}.{field}p = getelementptr i64, ptr {k}.t, i64 {row + word}",
                                    f"  {k}.{field} = load i64, ptr {k}.{field}p{INVARIANT}"))]:
            self.gen.entry_line(line)
        self.gen.lines += [
            f"  {k}.stb = mul i64 {stride}, {esz}",
            f"  {k}.same = icmp eq i64 {k}.stb, {k}.for",
            f"  {k}.ok = xor i1 {bad}, true",
            f"  {k}.use = and i1 {k}.same, {k}.ok",
            # The row: off / stride as the high word of off * magic (packed_loads.magic:
            # exact for offsets and strides below 2^32; no division in the loop).
            f"  {k}.off = sub i64 {p}, {n}.span.rlo",
            f"  {k}.offw = zext i64 {k}.off to i128",
            f"  {k}.mw = zext i64 {k}.magic to i128",
            f"  {k}.prod = mul i128 {k}.offw, {k}.mw",
            f"  {k}.hi = lshr i128 {k}.prod, 64",
            f"  {k}.row = trunc i128 {k}.hi to i64",
            f"  {k}.skip = mul i64 {k}.row, {k}.pad",
            f"  {k}.at0 = add i64 {k}.copy, {k}.off",
            f"  {k}.at = add i64 {k}.at0, {k}.skip",
            f"  {k}.wide = add i64 {k}.stb, {k}.pad",
            f"  {n}.base = select i1 {k}.use, i64 {k}.at, i64 {n}.base0",
            f"  {n}.stb = select i1 {k}.use, i64 {k}.wide, i64 {n}.stb0"]

    def _span_check(self, pointer, lo, hi, esz, write, out):
        """IR setting `out` when [lo, hi) lies in one region, aligned to esz from its start,
        writable if written. A pointer from a kernel argument is compared with that
        argument's row of the region table (no search; LLVM hoists the row's loads out of
        loops); any other with every row (__clcoop_span_ok)."""
        gen = self.gen
        base = gen.base_of(pointer)
        if base is None or base[0] != "arg":
            return [f"  {out} = call i1 @__clcoop_span_ok(ptr %__ctx, i64 {lo}, i64 {hi}, i64 {esz}, "
                    f"i1 {'true' if write else 'false'})"]
        row = REGION_ROW_WORDS * (len(gen.mg.global_index) + base[1])
        # The argument's row read in the entry block (as the packed descriptor: _packed_rows).
        entry = [f"  {out}.tp = getelementptr i64, ptr %__ctx, i64 {CTX['table']}",
                 f"  {out}.t = load ptr, ptr {out}.tp{INVARIANT}"]
        for field, k in (("rlo", REGION_LO), ("rhi", REGION_HI), ("rw", REGION_FLAGS)):
            entry += [f"  {out}.{field}p = getelementptr i64, ptr {out}.t, i64 {row + k}",
                      f"  {out}.{field} = load i64, ptr {out}.{field}p{INVARIANT}"]
        for line in entry:
            gen.entry_line(line)
        lines = [f"  {out}.nw = icmp ule i64 {lo}, {hi}",
                  f"  {out}.ge = icmp uge i64 {lo}, {out}.rlo",
                  f"  {out}.le = icmp ule i64 {hi}, {out}.rhi",
                  f"  {out}.rel = sub i64 {lo}, {out}.rlo",
                  f"  {out}.mis = urem i64 {out}.rel, {esz}",
                  f"  {out}.al = icmp eq i64 {out}.mis, 0",
                  f"  {out}.c0 = and i1 {out}.nw, {out}.ge",
                  f"  {out}.c1 = and i1 {out}.c0, {out}.le",
                  f"  {out}.c2 = and i1 {out}.c1, {out}.al"]
        if write:
            lines += [f"  {out}.w = icmp ne i64 {out}.rw, 0",
                      f"  {out} = and i1 {out}.c2, {out}.w"]
        else:
            lines.append(f"  {out} = add i1 {out}.c2, false")
        return lines

    def _mul_add(self, ins, ops, lhs):
        gen = self.gen
        S = gen.S
        a, b, c = (coop_routines.matrix_type(str(o.type), S) for o in ops[:3])
        r = coop_routines.matrix_type(str(ins.type), S)
        operands = coop_routines.mul_add_operands(ops, (a, b, c, r))
        args, columns = [], []
        for mt, o in zip((a, b), ops[:2]):
            pointer, stride, by_columns = self._operand_rows(mt, o)
            args.append(f"ptr {pointer}, i64 {stride}")
            columns.append(by_columns)
        slot = self.tiles.get(_instruction_name(ops[2]), (None,))[0]
        if slot is None or self.tiles[ops[2].name][2]:
            slot = self._spill(c, ops[2])
        args.append(f"ptr {slot}")
        mad = gen.mg.coop.mul_add_routine(a.rows, b.cols, a.cols,
                                          tuple(coop_routines.routine_type(mt) for mt in (a, b, c, r)), operands,
                                          strided=True, columns=tuple(columns))
        out = gen.entry_alloca(f"[{r.rows * r.cols} x {r.elem}]")
        gen.lines += [f"  call void @{mad}({', '.join(args)}, ptr {out})",
                      f"  {lhs}load <{r.rows * r.cols} x {r.elem}>, ptr {out}, align 64"]

    def _operand_rows(self, mt, o):
        """(pointer, stride in bytes, by columns) of a mul-add's a or b operand: where a load
        in the same block found it when no store came in between, else the tile a load left,
        else a copy of the value (row-major)."""
        gen = self.gen
        name = _instruction_name(o)
        where = self.in_memory.get(name)
        if where is not None and where[3:] == (gen.cur_block, self.stores):
            return where[:3]
        if name in self.tiles:
            return self.tiles[name]
        return self._spill(mt, o), mt.cols * coop_routines.ELEMENT_BYTES[mt.elem], False

    def _spill(self, mt, o):
        gen = self.gen
        slot = gen.entry_alloca(f"[{mt.rows * mt.cols} x {mt.elem}]")
        gen.lines.append(f"  store <{mt.rows * mt.cols} x {mt.elem}> {ref(o)}, ptr {slot}, align 64")
        return slot


def _instruction_name(o):
    return o.name if value_kind(o) == "instruction" else None


# The largest subgroup-scope tile the fast path holds as one vector: 64 x 64 (the largest
# the test suite's and examples' fast-path kernels use; 1 x 4096 and 4096 x 1 compile in
# seconds).
MAX_TILE_ELEMENTS = 4096


def logical_vector(type_text):
    """The <R*C x T> vector of a subgroup-scope matrix type's logical tile (Unsupported for
    a workgroup-scope one)."""
    fields = coopmat_spec.first_matrix_type_fields(type_text)
    elem, scope, rows, cols, _ = fields
    if scope == coopmat_spec.Scope.WORKGROUP:
        # One tile per subgroup does not hold it: the per-work-item path runs it.
        raise Unsupported("a workgroup-scope matrix")
    if rows * cols > MAX_TILE_ELEMENTS:
        # LLVM -O3 over one vector that wide: a 512 x 512 tile (262,144 elements) took over
        # 15 CPU-minutes and more than 20 GB before it was killed. The per-work-item path
        # keeps the matrix in memory.
        raise Unsupported(f"a {rows} x {cols} matrix ({rows * cols} elements, more than the "
                          f"{MAX_TILE_ELEMENTS} of one vector the fast path compiles)")
    return f"<{rows * cols} x {elem}>"


def _matrix(type_text):
    return logical_vector(type_text) if coopmat_spec.mentions_matrix_type(type_text) else type_text


def _count(vector):
    return int(re.match(r"<(\d+) x", vector).group(1))


def _elem(vector):
    return re.match(r"<\d+ x (.+)>", vector).group(1)


def _mask(indices):
    return f"<{len(indices)} x i32> <{', '.join(f'i32 {i}' for i in indices)}>"

