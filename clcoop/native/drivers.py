"""Per-kernel drivers (docs/native.md, "Execution model"): a generated function that runs
work-groups taken from an atomic counter and, in each, the work-items in linear local-id
order; kernels with barriers run as coroutines advanced barrier by barrier."""
from clcoop.native.builtin_ir import ctx_slot
from clcoop.native.context import CTX, CTX_SLOTS, DETAIL_SLOTS, FAULT_BARRIER, REGION_HI, REGION_LO, REGION_ROW_WORDS
from clcoop.native.coop_routines import WORKGROUP_PREFIX
from clcoop.native.text_rewrite import gquote

def plain_driver(plan):
    """void driver(args, ctx template, first group, group count, arena, fault out)."""
    k = plan.name
    lines = [f"define void {gquote(plan.driver)}(ptr %args, ptr %tmpl, i64 %first, i64 %count, "
             f"ptr %priv, ptr %fout) {{",
             "entry:",
             f"  %ctx = alloca [{CTX_SLOTS} x i64], align 16",
             f"  call void @llvm.memcpy.p0.p0.i64(ptr %ctx, ptr %tmpl, i64 {CTX_SLOTS * 8}, i1 false)",
             ] + [f"  %s.{field} = getelementptr i64, ptr %ctx, i64 {i}" for field, i in CTX.items()] + [
             "  store ptr %priv, ptr %s.priv"]
    arg_lines, call_args = argument_lines(plan)
    lines += arg_lines
    call_args = ["ptr %ctx"] + call_args
    lines += [
        "  %wg = load i64, ptr %s.wg_size",
        f"  %ngx = load i64, ptr {ctx_slot('ngrp0')}",
        f"  %ngy = load i64, ptr {ctx_slot('ngrp1')}",
        f"  %lx = load i64, ptr {ctx_slot('lsize0')}",
        f"  %ly = load i64, ptr {ctx_slot('lsize1')}",
        f"  %ngz = load i64, ptr {ctx_slot('ngrp2')}",
        *one_dim_lines("%ngy", "%ngz"),
        f"  %psz = load i64, ptr {ctx_slot('priv_size')}",
        f"  %abp = load ptr, ptr {ctx_slot('abort')}",
        # Work-groups [first, first + count) are shared by the threads through an
        # atomic counter (dynamic balance without returning to Python).
        f"  %nextp = load ptr, ptr {ctx_slot('next_group')}"] + group_head_lines("group.ids") + [
        *group_id_lines("group.ids", linear_group_id_lines("%ngx", "%ngy")),
        f"  store i64 %gx, ptr {ctx_slot('grp0')}",
        f"  store i64 %gy, ptr {ctx_slot('grp1')}",
        f"  store i64 %gz, ptr {ctx_slot('grp2')}",
        f"  %tabi = load i64, ptr {ctx_slot('table')}",
        "  %tab = inttoptr i64 %tabi to ptr",
        "  br label %gz.pre",
        "gz.pre:"] + zero_local_lines("%tab", plan.local_rows, "gz") + [
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
        f"  store i64 %l, ptr {ctx_slot('llid')}",
        f"  store i64 %x, ptr {ctx_slot('lid0')}",
        f"  store i64 %y, ptr {ctx_slot('lid1')}",
        f"  store i64 %z, ptr {ctx_slot('lid2')}",
        f"  store i64 0, ptr {ctx_slot('steps')}",
        "  %hasarena = icmp ne i64 %psz, 0",
        "  br i1 %hasarena, label %item.zero, label %item.call",
        "item.zero:",
        "  call void @llvm.memset.p0.i64(ptr %priv, i8 0, i64 %psz, i1 false)",
        "  br label %item.call",
        "item.call:",
        f"  call void {gquote(k)}({', '.join(call_args)})",
        f"  %fv = load i64, ptr {ctx_slot('fault')}",
        "  %faulted = icmp ne i64 %fv, 0",
        "  br i1 %faulted, label %fault, label %item.ok",
        "item.ok:",
        "  %lnext = add i64 %l, 1",
        *next_local_id_lines("%lx", "%ly"),
        "  br label %item",
        "group.next:",
        "  br label %group",
        "fault:",
        ] + fault_out_lines("%ctx", "%fv", "%l") + [
        "  store atomic i64 1, ptr %abp monotonic, align 8",
        "  ret void",
        "done:",
        "  ret void",
        "}"]
    # Slot pointers are constant GEPs on %ctx.
    return "\n".join(lines)


def next_local_id_lines(lsize0, lsize1, p=""):
    """Driver IR stepping the local ids %<p>x, %<p>y, %<p>z to the next work-item in linear
    order (%<p>xn, %<p>yn, %<p>zn): counted up, since a division per work-item costs more
    than a small kernel."""
    return [f"  %{p}x1 = add i64 %{p}x, 1",
            f"  %{p}xwrap = icmp eq i64 %{p}x1, {lsize0}",
            f"  %{p}xn = select i1 %{p}xwrap, i64 0, i64 %{p}x1",
            f"  %{p}y1 = add i64 %{p}y, 1",
            f"  %{p}yinc = select i1 %{p}xwrap, i64 %{p}y1, i64 %{p}y",
            f"  %{p}ywrap = icmp eq i64 %{p}yinc, {lsize1}",
            f"  %{p}yn = select i1 %{p}ywrap, i64 0, i64 %{p}yinc",
            f"  %{p}z1 = add i64 %{p}z, 1",
            f"  %{p}zn = select i1 %{p}ywrap, i64 %{p}z1, i64 %{p}z"]


def one_dim_lines(ngrp1, ngrp2):
    """Driver IR setting %oned: whether the launch has one work-group in dimensions 1 and 2
    (group_id_lines)."""
    return [f"  %oned1 = icmp eq i64 {ngrp1}, 1",
            f"  %oned2 = icmp eq i64 {ngrp2}, 1",
            "  %oned = and i1 %oned1, %oned2"]


def group_id_lines(label, id_lines):
    """Driver IR of block `label` setting the group ids %gx, %gy, %gz of work-group %g: %g,
    0, 0 in a 1-D launch (%oned, one_dim_lines), else those id_lines compute (%gx.n, %gy.n,
    %gz.n: up to six 64-bit divisions, a quarter of the vector add's driver time at local
    size 64);
    continues in block <label>.done."""
    return [f"{label}:",
            f"  br i1 %oned, label %{label}.done, label %{label}.nd",
            f"{label}.nd:",
            *id_lines,
            f"  br label %{label}.done",
            f"{label}.done:",
            *[f"  %{v} = phi i64 [ {one}, %{label} ], [ %{v}.n, %{label}.nd ]"
              for v, one in (("gx", "%g"), ("gy", "0"), ("gz", "0"))]]


def linear_group_id_lines(ngrp0, ngrp1):
    """group_id_lines' ids in linear order (dimension 0 fastest), as the interpreter numbers
    the work-groups."""
    return [f"  %gx.n = urem i64 %g, {ngrp0}",
            f"  %gq = udiv i64 %g, {ngrp0}",
            f"  %gy.n = urem i64 %gq, {ngrp1}",
            f"  %gz.n = udiv i64 %gq, {ngrp1}"]


def argument_lines(plan):
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


def group_head_lines(next_label):
    """Driver IR taking the next work-group %g of [first, first + count): chunks of
    tmpl[group_chunk] consecutive groups from the atomic counter %nextp shared by the
    threads (dynamic balance without returning to Python; one atomic per group made two
    threads slower than one on small groups: the counter's cache line went back and forth);
    %done when none is left or another thread faulted (%abp)."""
    return ["  %end = add i64 %first, %count",
            f"  %gchunk.p = getelementptr i64, ptr %tmpl, i64 {CTX['group_chunk']}",
            "  %gchunk = load i64, ptr %gchunk.p",
            "  %gcur = alloca i64, align 8",
            "  %gend = alloca i64, align 8",
            "  store i64 0, ptr %gcur",
            "  store i64 0, ptr %gend",
            "  br label %group",
            "group:",
            "  %gc = load i64, ptr %gcur",
            "  %ge = load i64, ptr %gend",
            "  %ghave = icmp ult i64 %gc, %ge",
            "  br i1 %ghave, label %group.take, label %group.chunk",
            "group.chunk:",
            "  %gi = atomicrmw add ptr %nextp, i64 %gchunk monotonic",
            "  %gk0 = add i64 %gi, %first",
            "  %gkmore = icmp ult i64 %gk0, %end",
            "  br i1 %gkmore, label %group.store, label %done",
            "group.store:",
            "  %gk1 = add i64 %gk0, %gchunk",
            "  %gkfull = icmp ult i64 %gk1, %end",
            "  %gkend = select i1 %gkfull, i64 %gk1, i64 %end",
            "  store i64 %gk0, ptr %gcur",
            "  store i64 %gkend, ptr %gend",
            "  br label %group",
            "group.take:",
            "  %g = add i64 %gc, 0",
            "  %gnext = add i64 %gc, 1",
            "  store i64 %gnext, ptr %gcur",
            "  br label %group.body",
            "group.body:",
            "  %abv = load atomic i64, ptr %abp monotonic, align 8",
            "  %aborted = icmp ne i64 %abv, 0",
            f"  br i1 %aborted, label %done, label %{next_label}"]


def fault_out_lines(ctx, fault, item):
    """Driver IR copying a work-item's fault to %fout: [site + 1, kind, address, group,
    local linear id, access size, region code, the work-item's arena, its detail slots]
    (runtime.NativeProgram._fault reads it)."""
    lines = [f"  store i64 {fault}, ptr %fout"]
    for k, value in ((1, "fault_kind"), (2, "fault_addr"), (3, "%g"), (4, item), (5, "fault_size"),
                     (6, "fault_region"), (7, "priv"), *((8 + d, f"detail{d}") for d in range(DETAIL_SLOTS))):
        if not value.startswith("%"):
            lines += [f"  %fo.{value}.p = getelementptr i64, ptr {ctx}, i64 {CTX[value]}",
                      f"  %fo.{value} = load i64, ptr %fo.{value}.p"]
            value = f"%fo.{value}"
        lines += [f"  %fo{k} = getelementptr i64, ptr %fout, i64 {k}", f"  store i64 {value}, ptr %fo{k}"]
    return lines



def zero_local_lines(table, rows, prefix):
    """IR lines zeroing the kernel's __local regions (rows: their region-table rows,
    KernelPlan.local_rows) at the start of a work-group: local memory starts as zeros in
    the interpreter too. Only those rows (none: no work), not a scan of the whole table per
    work-group. Ends at label %<prefix>.zdone."""
    lines = []
    for r in rows:
        p = f"%{prefix}.r{r}"
        lines += [f"  {p}.lop = getelementptr i64, ptr {table}, i64 {REGION_ROW_WORDS * r + REGION_LO}",
                  f"  {p}.lo = load i64, ptr {p}.lop",
                  f"  {p}.hip = getelementptr i64, ptr {table}, i64 {REGION_ROW_WORDS * r + REGION_HI}",
                  f"  {p}.hi = load i64, ptr {p}.hip",
                  f"  {p}.p = inttoptr i64 {p}.lo to ptr",
                  f"  {p}.n = sub i64 {p}.hi, {p}.lo",
                  f"  call void @llvm.memset.p0.i64(ptr {p}.p, i8 0, i64 {p}.n, i1 false)"]
    return lines + [f"  br label %{prefix}.zdone", f"{prefix}.zdone:"]


def coroutine_driver(plan, kernel, lanes=1, name=None, lane_contexts=True):
    """Driver of a kernel with barriers: every work-item of a group is a coroutine; the
    group advances barrier by barrier (all work-items suspended at the same barrier, then
    all resumed), and a work-item that finishes while others wait is a divergent barrier
    (OpenCL C 3.0 6.15.8: all work-items of the group must reach it).
    With lanes > 1 (the subgroup-wide fast path, subgroup.py) each coroutine is the
    subgroup function of `lanes` consecutive work-items, called with the first one's
    context (the lanes' contexts follow it; lanes other than the first read theirs only
    when lane_contexts); its faults only need fout[0] != 0."""
    L = [f"define void {gquote(name or plan.driver)}(ptr %args, ptr %tmpl, i64 %first, i64 %count, "
         f"ptr %priv, ptr %fout) {{",
         "entry:"]
    arg_lines, call_args = argument_lines(plan)
    L += arg_lines
    for field in ("wg_size", "ngrp0", "ngrp1", "ngrp2", "lsize0", "lsize1", "priv_size", "table", "sg_size"):
        L.append(f"  %t.{field}.p = getelementptr i64, ptr %tmpl, i64 {CTX[field]}")
        L.append(f"  %t.{field} = load i64, ptr %t.{field}.p")
    L += [f"  %t.abort.p = getelementptr i64, ptr %tmpl, i64 {CTX['abort']}",
          "  %abp = load ptr, ptr %t.abort.p",
          "  %tab = inttoptr i64 %t.table to ptr",
          *one_dim_lines("%t.ngrp1", "%t.ngrp2"),
          f"  %ctxbytes = mul i64 %t.wg_size, {CTX_SLOTS * 8}",
          "  %ctxs = call ptr @malloc(i64 %ctxbytes)",
          f"  %nh = udiv i64 %t.wg_size, {lanes}",
          "  %hbytes = mul i64 %nh, 8",
          "  %hs = call ptr @malloc(i64 %hbytes)",
          f"  %t.next.p = getelementptr i64, ptr %tmpl, i64 {CTX['next_group']}",
          "  %nextp = load ptr, ptr %t.next.p",
          "  %hasarena = icmp ne i64 %t.priv_size, 0",
          "  %fpool.p = alloca ptr, align 8",
          "  %fcap.p = alloca i64, align 8",
          "  store ptr null, ptr %fpool.p",
          "  store i64 0, ptr %fcap.p"] + (_contexts_once_lines() if lanes > 1 else []) + \
        group_head_lines("gz.pre") + [
          "gz.pre:"]
    L += zero_local_lines("%tab", plan.local_rows, "gz")
    L += ["  br label %group.ids",
          *group_id_lines("group.ids", linear_group_id_lines("%t.ngrp0", "%t.ngrp1")),
          "  br label %init.pre",
          "init.pre:"]
    L += _init_items_lines(kernel, call_args) if lanes == 1 else \
        _init_subgroups_lines(kernel, call_args, lanes, lane_contexts)
    L += [
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
          # In the first suspended work-item's sub-group: how many wait where it waits,
          # and the first that does not (a matrix operation reached by part of a sub-group
          # is worded as the interpreter's: runtime.py).
          "  %nsg = phi i64 [ 0, %round ], [ %nsg2, %scan.next ]",
          "  %inact = phi i64 [ -1, %round ], [ %inact2, %scan.next ]",
          "  %smore = icmp ult i64 %s, %nh",
          "  br i1 %smore, label %scan.body, label %scan.end",
          "scan.body:",
          f"  %scoff = mul i64 %s, {CTX_SLOTS * lanes}",
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
          "  %fs.sg = udiv i64 %firstsusp2, %t.sg_size",
          "  %s.sg = udiv i64 %s, %t.sg_size",
          "  %same.sg = icmp eq i64 %s.sg, %fs.sg",
          "  %has.fs = icmp ne i64 %firstsusp2, -1",
          "  %in.sg = and i1 %same.sg, %has.fs",
          "  %at.site = icmp eq i64 %sb, %site2",
          "  %waits.here = and i1 %sdone.not, %at.site",
          "  %counted = and i1 %in.sg, %waits.here",
          "  %cinc = zext i1 %counted to i64",
          "  %nsg2 = add i64 %nsg, %cinc",
          "  %elsewhere = xor i1 %waits.here, true",
          "  %inact.new = and i1 %in.sg, %elsewhere",
          "  %no.inact = icmp eq i64 %inact, -1",
          "  %take.inact = and i1 %inact.new, %no.inact",
          "  %inact2 = select i1 %take.inact, i64 %s, i64 %inact",
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
          "  %rmore = icmp ult i64 %r, %nh",
          "  br i1 %rmore, label %resume.body, label %round",
          "resume.body:",
          "  %rhp = getelementptr ptr, ptr %hs, i64 %r",
          "  %rh = load ptr, ptr %rhp",
          "  call void @llvm.coro.resume(ptr %rh)",
          "  %rnext = add i64 %r, 1",
          "  br label %resume",
          *(coop_round_lines(plan) if lanes == 1 else []),
          *(workgroup_round_lines(plan) if lanes == 1 else []),
          "destroy:",
          "  br label %destroy.loop",
          "destroy.loop:",
          "  %d = phi i64 [ 0, %destroy ], [ %dnext, %destroy.body ]",
          "  %dmore = icmp ult i64 %d, %nh",
          "  br i1 %dmore, label %destroy.body, label %destroyed",
          "destroy.body:",
          "  %dhp = getelementptr ptr, ptr %hs, i64 %d",
          "  %dh = load ptr, ptr %dhp",
          "  call void @llvm.coro.destroy(ptr %dh)",
          "  %dnext = add i64 %d, 1",
          "  br label %destroy.loop",
          "destroyed:",
          *frame_pool_lines(lanes),
          "  br label %group",
          # Faults: recorded in fout; every coroutine of the group is destroyed.
          "fault:",
          ] + fault_out_lines("%sc", "%sfv", "%s") + [
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
          "  store i64 %nsg, ptr %dv5",
          "  %dv6 = getelementptr i64, ptr %fout, i64 6",
          "  store i64 %inact, ptr %dv6",
          "  br label %abandon",
          "abandon:",
          "  store atomic i64 1, ptr %abp monotonic, align 8",
          "  br label %abandon.loop",
          "abandon.loop:",
          "  %e = phi i64 [ 0, %abandon ], [ %enext, %abandon.body ]",
          "  %emore = icmp ult i64 %e, %nh",
          "  br i1 %emore, label %abandon.body, label %done",
          "abandon.body:",
          "  %ehp = getelementptr ptr, ptr %hs, i64 %e",
          "  %eh = load ptr, ptr %ehp",
          "  call void @llvm.coro.destroy(ptr %eh)",
          "  %enext = add i64 %e, 1",
          "  br label %abandon.loop",
          "done:",
          "  %fpool.end = load ptr, ptr %fpool.p",
          "  call void @free(ptr %fpool.end)",
          "  call void @free(ptr %ctxs)",
          "  call void @free(ptr %hs)",
          "  ret void",
          "}"]
    text = "\n".join(L)
    if workgroup_sites(plan) and lanes == 1:
        # Every work-item waits at one workgroup-scope matrix operation: done by its
        # function over the work-group before all resume (workgroup_round_lines).
        text = text.replace("label %divergent, label %resume", "label %divergent, label %wg.pre")
        text = text.replace("  %r = phi i64 [ 0, %check ]", "  %r = phi i64 [ 0, %wg.done ]")
        text = text.replace("  store i64 %nsg, ptr %dv5", "  store i64 %dv.n, ptr %dv5")
        text = text.replace("  store i64 %inact, ptr %dv6", "  store i64 %dv.inact, ptr %dv6")
        text = text.replace("  %dv5 = getelementptr i64, ptr %fout, i64 5",
                            "  %dv5 = getelementptr i64, ptr %fout, i64 5\n" + "\n".join(_workgroup_divergence_lines(plan)))
    if plan.coop_sites and lanes == 1:
        # Rounds start with the cooperative-matrix pass (coop_round_lines).
        text = text.replace("label %init.body, label %round", "label %init.body, label %cround")
        text = text.replace("label %resume.body, label %round", "label %resume.body, label %cround")
    return text


def frame_slot_lines(ctx, index):
    """Driver IR giving the coroutine about to start (context ctx, number index in its
    work-group) its slot of the frame pool (runtime_ir.FRAME_IR)."""
    return ["  %fpool = load ptr, ptr %fpool.p",
            "  %fcap = load i64, ptr %fcap.p",
            f"  %foff = mul i64 {index}, %fcap",
            "  %fslot = getelementptr i8, ptr %fpool, i64 %foff",
            f"  %fslot.p = getelementptr i64, ptr {ctx}, i64 {CTX['frame']}",
            "  store ptr %fslot, ptr %fslot.p",
            f"  %fcap.c = getelementptr i64, ptr {ctx}, i64 {CTX['frame_cap']}",
            "  store i64 %fcap, ptr %fcap.c",
            f"  %fneed.c = getelementptr i64, ptr {ctx}, i64 {CTX['frame_need']}",
            "  store i64 0, ptr %fneed.c"]


def frame_pool_lines(lanes):
    """Driver IR run when a work-group's coroutines are destroyed: when a frame did not fit
    its slot (frame_need), the pool grows to slots of the largest size for the next
    work-groups (a failed allocation leaves the slots empty: frames are then allocated one
    by one)."""
    return ["  br label %fneed",
            "fneed:",
            "  %fs = phi i64 [ 0, %destroyed ], [ %fs.next, %fneed.body ]",
            "  %fmax = phi i64 [ 0, %destroyed ], [ %fmax2, %fneed.body ]",
            "  %fs.more = icmp ult i64 %fs, %nh",
            "  br i1 %fs.more, label %fneed.body, label %fneed.end",
            "fneed.body:",
            f"  %fs.off = mul i64 %fs, {CTX_SLOTS * lanes}",
            "  %fs.c = getelementptr i64, ptr %ctxs, i64 %fs.off",
            f"  %fs.np = getelementptr i64, ptr %fs.c, i64 {CTX['frame_need']}",
            "  %fs.n = load i64, ptr %fs.np",
            "  %fs.gt = icmp ugt i64 %fs.n, %fmax",
            "  %fmax2 = select i1 %fs.gt, i64 %fs.n, i64 %fmax",
            "  %fs.next = add i64 %fs, 1",
            "  br label %fneed",
            "fneed.end:",
            "  %fcap.old = load i64, ptr %fcap.p",
            "  %fgrow = icmp ugt i64 %fmax, %fcap.old",
            "  br i1 %fgrow, label %fgrow.body, label %fgrow.done",
            "fgrow.body:",
            "  %fpool.old = load ptr, ptr %fpool.p",
            "  call void @free(ptr %fpool.old)",
            "  %fbytes = mul i64 %fmax, %nh",
            "  %fpool.new = call ptr @aligned_alloc(i64 64, i64 %fbytes)",
            "  %fpool.ok = icmp ne ptr %fpool.new, null",
            "  %fcap.new = select i1 %fpool.ok, i64 %fmax, i64 0",
            "  store ptr %fpool.new, ptr %fpool.p",
            "  store i64 %fcap.new, ptr %fcap.p",
            "  br label %fgrow.done",
            "fgrow.done:"]


def _init_items_lines(kernel, call_args):
    """Driver IR starting a work-group's coroutines, one per work-item: each context is the
    template with the work-item's ids; then %round."""
    L = ["  br label %init",
         "init:",
         "  %l = phi i64 [ 0, %init.pre ], [ %lnext, %init.call ]",
         "  %x = phi i64 [ 0, %init.pre ], [ %xn, %init.call ]",
         "  %y = phi i64 [ 0, %init.pre ], [ %yn, %init.call ]",
         "  %z = phi i64 [ 0, %init.pre ], [ %zn, %init.call ]",
         "  %lmore = icmp ult i64 %l, %t.wg_size",
         "  br i1 %lmore, label %init.body, label %round",
         "init.body:",
         f"  %coff = mul i64 %l, {CTX_SLOTS}",
         "  %c = getelementptr i64, ptr %ctxs, i64 %coff",
         f"  call void @llvm.memcpy.p0.p0.i64(ptr %c, ptr %tmpl, i64 {CTX_SLOTS * 8}, i1 false)"]
    for field, v in (("llid", "%l"), ("lid0", "%x"), ("lid1", "%y"), ("lid2", "%z"), ("grp0", "%gx"),
                     ("grp1", "%gy"), ("grp2", "%gz")):
        L += [f"  %c.{field} = getelementptr i64, ptr %c, i64 {CTX[field]}", f"  store i64 {v}, ptr %c.{field}"]
    return L + [
        "  %poff = mul i64 %l, %t.priv_size",
        "  %pl = getelementptr i8, ptr %priv, i64 %poff",
        f"  %c.priv = getelementptr i64, ptr %c, i64 {CTX['priv']}",
        "  store ptr %pl, ptr %c.priv",
        "  br i1 %hasarena, label %init.zero, label %init.call",
        "init.zero:",
        "  call void @llvm.memset.p0.i64(ptr %pl, i8 0, i64 %t.priv_size, i1 false)",
        "  br label %init.call",
        "init.call:",
        *frame_slot_lines("%c", "%l"),
        f"  %h = call ptr {gquote(kernel)}(ptr %c{''.join(', ' + a for a in call_args)})",
        "  %hp = getelementptr ptr, ptr %hs, i64 %l",
        "  store ptr %h, ptr %hp",
        "  %lnext = add i64 %l, 1",
        *next_local_id_lines("%t.lsize0", "%t.lsize1"),
        "  br label %init"]


def _init_subgroups_lines(kernel, call_args, lanes, lane_contexts):
    """Driver IR starting a work-group's coroutines, one per subgroup of `lanes` work-items
    (the fast path): the contexts already hold the work-items' own ids (_contexts_once_lines),
    only the group ids and step counts are set, in the lanes that read them; the private
    arenas are zeroed at once; then %round."""
    return ["  br i1 %hasarena, label %init.zero, label %init.go",
            "init.zero:",
            "  %abytes = mul i64 %t.wg_size, %t.priv_size",
            "  call void @llvm.memset.p0.i64(ptr %priv, i8 0, i64 %abytes, i1 false)",
            "  br label %init.go",
            "init.go:",
            "  br label %init",
            "init:",
            "  %hi = phi i64 [ 0, %init.go ], [ %hi.next, %init.call ]",
            "  %himore = icmp ult i64 %hi, %nh",
            "  br i1 %himore, label %init.body, label %round",
            "init.body:",
            f"  %c0off = mul i64 %hi, {CTX_SLOTS * lanes}",
            "  %c0 = getelementptr i64, ptr %ctxs, i64 %c0off",
            "  br label %init.lane",
            "init.lane:",
            "  %j = phi i64 [ 0, %init.body ], [ %j.next, %init.lane ]",
            f"  %joff = mul i64 %j, {CTX_SLOTS}",
            "  %c = getelementptr i64, ptr %c0, i64 %joff",
            *[line for field, v in (("grp0", "%gx"), ("grp1", "%gy"), ("grp2", "%gz"), ("steps", "0"))
              for line in (f"  %c.{field} = getelementptr i64, ptr %c, i64 {CTX[field]}",
                           f"  store i64 {v}, ptr %c.{field}")],
            "  %j.next = add i64 %j, 1",
            f"  %j.more = icmp ult i64 %j.next, {lanes if lane_contexts else 1}",
            "  br i1 %j.more, label %init.lane, label %init.call",
            "init.call:",
            *frame_slot_lines("%c0", "%hi"),
            f"  %h = call ptr {gquote(kernel)}(ptr %c0{''.join(', ' + a for a in call_args)})",
            "  %hp = getelementptr ptr, ptr %hs, i64 %hi",
            "  store ptr %h, ptr %hp",
            "  %hi.next = add i64 %hi, 1",
            "  br label %init"]


def _contexts_once_lines():
    """Driver IR copying the template into every work-item context once per thread, with
    the work-item's own local ids and private arena (the fast path with barriers sets only
    the group ids per work-group: _init_subgroups_lines)."""
    return ["  br label %cinit",
            "cinit:",
            "  %ci = phi i64 [ 0, %entry ], [ %ci.next, %cinit.body ]",
            "  %ci.x = phi i64 [ 0, %entry ], [ %ci.xn, %cinit.body ]",
            "  %ci.y = phi i64 [ 0, %entry ], [ %ci.yn, %cinit.body ]",
            "  %ci.z = phi i64 [ 0, %entry ], [ %ci.zn, %cinit.body ]",
            "  %ci.more = icmp ult i64 %ci, %t.wg_size",
            "  br i1 %ci.more, label %cinit.body, label %cinit.done",
            "cinit.body:",
            f"  %ci.off = mul i64 %ci, {CTX_SLOTS}",
            "  %ci.c = getelementptr i64, ptr %ctxs, i64 %ci.off",
            f"  call void @llvm.memcpy.p0.p0.i64(ptr %ci.c, ptr %tmpl, i64 {CTX_SLOTS * 8}, i1 false)",
            *[line for field, v in (("llid", "%ci"), ("lid0", "%ci.x"), ("lid1", "%ci.y"), ("lid2", "%ci.z"))
              for line in (f"  %ci.{field} = getelementptr i64, ptr %ci.c, i64 {CTX[field]}",
                           f"  store i64 {v}, ptr %ci.{field}")],
            "  %ci.poff = mul i64 %ci, %t.priv_size",
            "  %ci.pl = getelementptr i8, ptr %priv, i64 %ci.poff",
            f"  %ci.priv = getelementptr i64, ptr %ci.c, i64 {CTX['priv']}",
            "  store ptr %ci.pl, ptr %ci.priv",
            "  %ci.next = add i64 %ci, 1",
            *next_local_id_lines("%t.lsize0", "%t.lsize1", "ci."),
            "  br label %cinit",
            "cinit.done:"]


def workgroup_sites(plan):
    """The (site, function) of the kernel's workgroup-scope matrix operations
    (coop_routines.WORKGROUP_PREFIX names their functions)."""
    return [(site, fname) for site, fname in plan.coop_sites if fname.startswith(WORKGROUP_PREFIX)]


def workgroup_round_lines(plan):
    """Driver IR of a kernel with workgroup-scope matrix operations: when every work-item
    of the group waits at one of them (the barrier logic's %check found no divergence), its
    function runs over the whole work-group (first 0, count W), then all resume; a fault
    it records goes to %round, whose scan reports it."""
    sites = workgroup_sites(plan)
    if not sites:
        return []
    L = ["wg.pre:",
         "  switch i64 %site0, label %wg.done [" + " ".join(f"i64 {site}, label %wg.call.{site}"
                                                     for site, _ in sites) + "]"]
    for site, fname in sites:
        L += [f"wg.call.{site}:",
              f"  %wg.f.{site} = call i1 @{fname}(ptr %ctxs, i64 0, i64 %t.wg_size)",
              f"  br i1 %wg.f.{site}, label %round, label %wg.done"]
    return L + ["wg.done:", "  br label %resume"]


def _workgroup_divergence_lines(plan):
    """In the divergence fault: at a workgroup-scope operation the work-items waiting
    there in the whole work-group and the first that finished (runtime.py words them as
    the interpreter's coop_calls.Subgroups._partial_message), else the sub-group's."""
    sites = workgroup_sites(plan)
    L = ["  %dv.wg0 = add i1 false, false"]
    for k, (site, _) in enumerate(sites):
        L += [f"  %dv.is{k} = icmp eq i64 %site0, {site}", f"  %dv.wg{k + 1} = or i1 %dv.wg{k}, %dv.is{k}"]
    return L + [f"  %dv.n = select i1 %dv.wg{len(sites)}, i64 %nsusp, i64 %nsg",
                f"  %dv.inact = select i1 %dv.wg{len(sites)}, i64 %firstdone, i64 %inact"]


def coop_round_lines(plan):
    """Driver IR of a kernel with cooperative-matrix operations (clcoop/native/coop_routines.py):
    each subgroup whose work-items all wait at the same matrix operation has it done by the
    operation's function and is resumed; rounds repeat while that makes progress, then the
    barrier logic above (%round) takes the rest: every work-item at one barrier, all done, or
    a divergence fault (a subgroup whose work-items wait at different places)."""
    if not plan.coop_sites:
        return []
    sites = [(site, fname) for site, fname in plan.coop_sites if not fname.startswith(WORKGROUP_PREFIX)]
    slot = CTX_SLOTS * 8
    L = ["cround:",
         "  br label %sg.loop",
         "sg.loop:",
         "  %sgf = phi i64 [ 0, %cround ], [ %sgf.next, %sg.next ]",
         "  %prog = phi i1 [ false, %cround ], [ %prog.next, %sg.next ]",
         "  %sgmore = icmp ult i64 %sgf, %t.wg_size",
         "  br i1 %sgmore, label %sg.body, label %sg.end",
         "sg.body:",
         "  %sgrest = sub i64 %t.wg_size, %sgf",
         "  %sglt = icmp ult i64 %sgrest, %t.sg_size",
         "  %sgcnt = select i1 %sglt, i64 %sgrest, i64 %t.sg_size",
         f"  %sgf.off = mul i64 %sgf, {slot}",
         "  %sgf.ctx = getelementptr i8, ptr %ctxs, i64 %sgf.off",
         f"  %sgf.sp = getelementptr i64, ptr %sgf.ctx, i64 {CTX['barrier']}",
         "  %sgf.site = load i64, ptr %sgf.sp",
         "  br label %sg.chk",
         "sg.chk:",
         "  %q = phi i64 [ 0, %sg.body ], [ %q.next, %sg.chk.body ]",
         "  %qmore = icmp ult i64 %q, %sgcnt",
         "  br i1 %qmore, label %sg.chk.body, label %sg.run",
         "sg.chk.body:",
         "  %qi = add i64 %sgf, %q",
         "  %qhp = getelementptr ptr, ptr %hs, i64 %qi",
         "  %qh = load ptr, ptr %qhp",
         "  %qdone = call i1 @llvm.coro.done(ptr %qh)",
         f"  %qoff = mul i64 %qi, {slot}",
         "  %qctx = getelementptr i8, ptr %ctxs, i64 %qoff",
         f"  %qsp = getelementptr i64, ptr %qctx, i64 {CTX['barrier']}",
         "  %qsite = load i64, ptr %qsp",
         "  %qfv = load i64, ptr %qctx",
         "  %qfault = icmp ne i64 %qfv, 0",
         "  %qsame = icmp eq i64 %qsite, %sgf.site",
         "  %qbad0 = or i1 %qdone, %qfault",
         "  %qdiff = xor i1 %qsame, true",
         "  %qbad = or i1 %qbad0, %qdiff",
         "  %q.next = add i64 %q, 1",
         "  br i1 %qbad, label %sg.skip, label %sg.chk",
         "sg.run:",
         "  switch i64 %sgf.site, label %sg.skip [" + " ".join(
             f"i64 {site}, label %sg.call.{site}" for site, _ in sites) + "]"]
    for site, fname in sites:
        L += [f"sg.call.{site}:",
              f"  %sg.f.{site} = call i1 @{fname}(ptr %ctxs, i64 %sgf, i64 %sgcnt)",
              f"  br i1 %sg.f.{site}, label %round, label %sg.resume"]
    L += ["sg.resume:",
          "  %rq = phi i64 [ 0, %sg.resume.pre ], [ %rq.next, %sg.resume.body ]",
          "  %rqmore = icmp ult i64 %rq, %sgcnt",
          "  br i1 %rqmore, label %sg.resume.body, label %sg.done",
          "sg.resume.body:",
          "  %rqi = add i64 %sgf, %rq",
          "  %rqhp = getelementptr ptr, ptr %hs, i64 %rqi",
          "  %rqh = load ptr, ptr %rqhp",
          "  call void @llvm.coro.resume(ptr %rqh)",
          "  %rq.next = add i64 %rq, 1",
          "  br label %sg.resume",
          "sg.skip:",
          "  br label %sg.next",
          "sg.done:",
          "  br label %sg.next",
          "sg.next:",
          "  %prog.next = phi i1 [ %prog, %sg.skip ], [ true, %sg.done ]",
          "  %sgf.next = add i64 %sgf, %t.sg_size",
          "  br label %sg.loop",
          "sg.end:",
          "  br i1 %prog, label %cround, label %round"]
    # The resume loop is entered from every call block: one pre-block gathers them.
    L = [line.replace(", label %sg.resume", ", label %sg.resume.pre") if line.startswith("  br i1 %sg.f.")
         else line for line in L]
    at = L.index("sg.resume:")
    L[at:at] = ["sg.resume.pre:", "  br label %sg.resume"]
    return L
