; IR every generated module links (clcoop/native/runtime_ir.py loads it): the bounds checks
; against the region table and the private arrays, fault recording, the instruction-limit
; poll. $-brace names are layouts named once in clcoop/native/context.py: the work-item
; context's slots (CTX), the fault kinds, a region-table row (REGION_*), a row of a
; module's @__clcoop_privates (PRIVATE_*, written by codegen.py).
define internal void @__clcoop_fault(ptr %c, i32 %site, i32 %kind, i64 %addr, i64 %size) noinline cold {
entry:
  call void @__clcoop_fault_in(ptr %c, i32 %site, i32 %kind, i64 %addr, i64 %size, i64 0)
  ret void
}

; A fault of `kind` at `site` when `bad` (one call per check, branchless at the call:
; cheap when the flag is false, and the caller's vector code stays vectorizable).
define internal void @__clcoop_fault_if(ptr %c, i1 %bad, i32 %site, i32 %kind) alwaysinline {
entry:
  br i1 %bad, label %rec, label %out
rec:
  call void @__clcoop_fault(ptr %c, i32 %site, i32 %kind, i64 0, i64 0)
  br label %out
out:
  ret void
}

; A faulting access and the region it was checked against (its pointer's provenance):
; fault_region is 1 + its row of the region table, -1 - the arena offset of a private
; array, 0 when the pointer is in no region and came from none (runtime.py names it).
; Only a work-item's first fault is recorded.
define internal void @__clcoop_fault_in(ptr %c, i32 %site, i32 %kind, i64 %addr, i64 %size, i64 %region) noinline cold {
entry:
  %fp = getelementptr i64, ptr %c, i64 ${CTX.fault}
  %f = load i64, ptr %fp
  %first = icmp eq i64 %f, 0
  br i1 %first, label %rec, label %out
rec:
  %s = zext i32 %site to i64
  %s1 = add i64 %s, 1
  store i64 %s1, ptr %fp
  %kp = getelementptr i64, ptr %c, i64 ${CTX.fault_kind}
  %k = zext i32 %kind to i64
  store i64 %k, ptr %kp
  %ap = getelementptr i64, ptr %c, i64 ${CTX.fault_addr}
  store i64 %addr, ptr %ap
  %zp = getelementptr i64, ptr %c, i64 ${CTX.fault_size}
  store i64 %size, ptr %zp
  %rp = getelementptr i64, ptr %c, i64 ${CTX.fault_region}
  store i64 %region, ptr %rp
  br label %out
out:
  ret void
}

define internal ptr @__clcoop_bad(ptr %c, ptr %p, i64 %n, i32 %site, i32 %kind, i64 %region) noinline cold {
entry:
  %a = ptrtoint ptr %p to i64
  call void @__clcoop_fault_in(ptr %c, i32 %site, i32 %kind, i64 %a, i64 %n, i64 %region)
  %sp = getelementptr i64, ptr %c, i64 ${CTX.scratch}
  %s = load ptr, ptr %sp
  ret ptr %s
}

; p is valid for n bytes in [lo, hi) (region `region`, as __clcoop_fault_in), aligned to al
; relative to lo, writable if asked.
define internal ptr @__clcoop_chk_range(ptr %c, ptr %p, i64 %n, i64 %al, i32 %site, i32 %kind, i64 %lo, i64 %hi, i1 %w, i1 %canw, i64 %region) alwaysinline {
entry:
  ; An access of no bytes (a memory intrinsic of length 0: a no-op, LangRef) touches nothing.
  %empty = icmp eq i64 %n, 0
  br i1 %empty, label %good, label %sized
sized:
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
  %r1 = call ptr @__clcoop_bad(ptr %c, ptr %p, i64 %n, i32 %site, i32 %kind, i64 %region)
  ret ptr %r1
misaligned:
  %r2 = call ptr @__clcoop_bad(ptr %c, ptr %p, i64 %n, i32 %site, i32 ${FAULT_MISALIGNED}, i64 %region)
  ret ptr %r2
readonly:
  %r3 = call ptr @__clcoop_bad(ptr %c, ptr %p, i64 %n, i32 %site, i32 ${FAULT_READONLY}, i64 %region)
  ret ptr %r3
}

; Against region `idx` of the table.
define internal ptr @__clcoop_chk(ptr %c, ptr %p, i64 %n, i64 %al, i32 %site, i32 %kind, i64 %idx, i1 %w) alwaysinline {
entry:
  %tp = getelementptr i64, ptr %c, i64 ${CTX.table}
  %t = load ptr, ptr %tp
  %i3 = mul i64 %idx, ${REGION_ROW_WORDS}
  %rowp = getelementptr i64, ptr %t, i64 %i3
  %lop = getelementptr i64, ptr %rowp, i64 ${REGION_LO}
  %lo = load i64, ptr %lop
  %hip = getelementptr i64, ptr %rowp, i64 ${REGION_HI}
  %hi = load i64, ptr %hip
  %wp = getelementptr i64, ptr %rowp, i64 ${REGION_FLAGS}
  %wv = load i64, ptr %wp
  %canw = icmp ne i64 %wv, 0
  %row = add i64 %idx, 1
  %r = call ptr @__clcoop_chk_range(ptr %c, ptr %p, i64 %n, i64 %al, i32 %site, i32 %kind, i64 %lo, i64 %hi, i1 %w, i1 %canw, i64 %row)
  ret ptr %r
}

; Provenance not known statically: p is checked against the region of the table (or the
; work-item's arena) holding it. `root` is the pointer p was computed from by offsets alone
; (p itself when that is not known): a p in no region is named after root's region, not
; after whatever region lies nearest to p in host memory.
define internal ptr @__clcoop_chk_any(ptr %c, ptr %p, ptr %root, i64 %n, i64 %al, i32 %site, i32 %kind, i1 %w) noinline {
entry:
  %empty = icmp eq i64 %n, 0
  br i1 %empty, label %nothing, label %sized
nothing:
  ret ptr %p
sized:
  %a = ptrtoint ptr %p to i64
  %pp = getelementptr i64, ptr %c, i64 ${CTX.priv}
  %priv = load i64, ptr %pp
  %psp = getelementptr i64, ptr %c, i64 ${CTX.priv_size}
  %psz = load i64, ptr %psp
  %pend = add i64 %priv, %psz
  %inpl = icmp uge i64 %a, %priv
  %inph = icmp ult i64 %a, %pend
  %inp = and i1 %inpl, %inph
  br i1 %inp, label %arena, label %scan
arena:
  %prow = call i64 @__clcoop_private_at(ptr %c, i64 %a)
  %plive = icmp sge i64 %prow, 0
  br i1 %plive, label %pfound, label %dangling
pfound:
  %rowp = getelementptr [${PRIVATE_ROW_WORDS} x i64], ptr @__clcoop_privates, i64 %prow
  %offp = getelementptr i64, ptr %rowp, i64 ${PRIVATE_OFFSET}
  %off = load i64, ptr %offp
  %szp = getelementptr i64, ptr %rowp, i64 ${PRIVATE_SIZE}
  %sz = load i64, ptr %szp
  %plo = add i64 %priv, %off
  %phi.hi = add i64 %plo, %sz
  %pcode = sub i64 -1, %off
  ; Each region is an object of its own: p must lie in the one its root points into (or
  ; one past the end of), not in a neighbour it overran into (private arrays: the red zone
  ; between them keeps a pointer one past the end out of the next).
  %ra = ptrtoint ptr %root to i64
  %rge = icmp uge i64 %ra, %plo
  %rle = icmp ule i64 %ra, %phi.hi
  %rin = and i1 %rge, %rle
  br i1 %rin, label %pcheck, label %proot
pcheck:
  %r0 = call ptr @__clcoop_chk_range(ptr %c, ptr %p, i64 %n, i64 %al, i32 %site, i32 %kind, i64 %plo, i64 %phi.hi, i1 %w, i1 true, i64 %pcode)
  ret ptr %r0
proot:
  ; root in another live region: out of bounds of that one (root in none: p's own array,
  ; as the interpreter, which checks the object holding p)
  %rcode = call i64 @__clcoop_region_of(ptr %c, ptr %root)
  %rknown = icmp ne i64 %rcode, 0
  br i1 %rknown, label %roverrun, label %pcheck
roverrun:
  %r5 = call ptr @__clcoop_bad(ptr %c, ptr %p, i64 %n, i32 %site, i32 %kind, i64 %rcode)
  ret ptr %r5
dangling:
  ; between or in dead private arrays: out of bounds of root's array if root is in a live one
  %dcode = call i64 @__clcoop_region_of(ptr %c, ptr %root)
  %dknown = icmp ne i64 %dcode, 0
  br i1 %dknown, label %none, label %freed
freed:
  %r4 = call ptr @__clcoop_bad(ptr %c, ptr %p, i64 %n, i32 %site, i32 ${FAULT_FREED}, i64 0)
  ret ptr %r4
scan:
  %i = call i64 @__clcoop_table_row(ptr %c, i64 %a)
  %intab = icmp sge i64 %i, 0
  br i1 %intab, label %found, label %none
found:
  ; (as pfound: the root must lie in p's region, or one past its end, or in none)
  %ftp = getelementptr i64, ptr %c, i64 ${CTX.table}
  %ft = load ptr, ptr %ftp
  %fi3 = mul i64 %i, ${REGION_ROW_WORDS}
  %frow = getelementptr i64, ptr %ft, i64 %fi3
  %flop = getelementptr i64, ptr %frow, i64 ${REGION_LO}
  %flo = load i64, ptr %flop
  %fhip = getelementptr i64, ptr %frow, i64 ${REGION_HI}
  %fhi = load i64, ptr %fhip
  %fra = ptrtoint ptr %root to i64
  %frge = icmp uge i64 %fra, %flo
  %frle = icmp ule i64 %fra, %fhi
  %frin = and i1 %frge, %frle
  br i1 %frin, label %fcheck, label %froot
fcheck:
  %r = call ptr @__clcoop_chk(ptr %c, ptr %p, i64 %n, i64 %al, i32 %site, i32 %kind, i64 %i, i1 %w)
  ret ptr %r
froot:
  %fcode = call i64 @__clcoop_region_of(ptr %c, ptr %root)
  %fknown = icmp ne i64 %fcode, 0
  br i1 %fknown, label %foverrun, label %fcheck
foverrun:
  %r6 = call ptr @__clcoop_bad(ptr %c, ptr %p, i64 %n, i32 %site, i32 %kind, i64 %fcode)
  ret ptr %r6
none:
  %code = call i64 @__clcoop_region_of(ptr %c, ptr %root)
  %r2 = call ptr @__clcoop_bad(ptr %c, ptr %p, i64 %n, i32 %site, i32 %kind, i64 %code)
  ret ptr %r2
}

; Against region `code` (as __clcoop_fault_in) when it is a row of the table, else as
; __clcoop_chk_any: where the region of p's root was found at run time.
define internal ptr @__clcoop_chk_in(ptr %c, ptr %p, ptr %root, i64 %code, i64 %n, i64 %al, i32 %site, i32 %kind, i1 %w) alwaysinline {
entry:
  %intable = icmp sgt i64 %code, 0
  br i1 %intable, label %row, label %any
row:
  %idx = sub i64 %code, 1
  %r = call ptr @__clcoop_chk(ptr %c, ptr %p, i64 %n, i64 %al, i32 %site, i32 %kind, i64 %idx, i1 %w)
  ret ptr %r
any:
  %r2 = call ptr @__clcoop_chk_any(ptr %c, ptr %p, ptr %root, i64 %n, i64 %al, i32 %site, i32 %kind, i1 %w)
  ret ptr %r2
}

; The row of @__clcoop_privates holding address %a of the work-item's arena, -1 when none
; does or its function has returned (a dangling pointer).
define internal i64 @__clcoop_private_at(ptr %c, i64 %a) alwaysinline {
entry:
  %pp = getelementptr i64, ptr %c, i64 ${CTX.priv}
  %priv = load i64, ptr %pp
  %pp.raw = inttoptr i64 %priv to ptr
  %rel = sub i64 %a, %priv
  %cnt = load i64, ptr @__clcoop_private_count
  br label %loop
loop:
  %j = phi i64 [ 0, %entry ], [ %jnext, %next ]
  %more = icmp ult i64 %j, %cnt
  br i1 %more, label %body, label %no
body:
  %rowp = getelementptr [${PRIVATE_ROW_WORDS} x i64], ptr @__clcoop_privates, i64 %j
  %offp = getelementptr i64, ptr %rowp, i64 ${PRIVATE_OFFSET}
  %off = load i64, ptr %offp
  %szp = getelementptr i64, ptr %rowp, i64 ${PRIVATE_SIZE}
  %sz = load i64, ptr %szp
  %flp = getelementptr i64, ptr %rowp, i64 ${PRIVATE_LIVE}
  %fl = load i64, ptr %flp
  %end = add i64 %off, %sz
  %ge = icmp uge i64 %rel, %off
  %lt = icmp ult i64 %rel, %end
  %in = and i1 %ge, %lt
  %jnext = add i64 %j, 1
  br i1 %in, label %found, label %next
next:
  br label %loop
found:
  %flagp = getelementptr i8, ptr %pp.raw, i64 %fl
  %live = load i64, ptr %flagp
  %isl = icmp ne i64 %live, 0
  %row = select i1 %isl, i64 %j, i64 -1
  ret i64 %row
no:
  ret i64 -1
}

; The row of the region table holding address a, -1 when none does.
define internal i64 @__clcoop_table_row(ptr %c, i64 %a) noinline {
entry:
  %tp = getelementptr i64, ptr %c, i64 ${CTX.table}
  %t = load ptr, ptr %tp
  %cp = getelementptr i64, ptr %c, i64 ${CTX.table_count}
  %cnt = load i64, ptr %cp
  br label %loop
loop:
  %i = phi i64 [ 0, %entry ], [ %inext, %next ]
  %more = icmp ult i64 %i, %cnt
  br i1 %more, label %body, label %none
body:
  %i3 = mul i64 %i, ${REGION_ROW_WORDS}
  %rowp = getelementptr i64, ptr %t, i64 %i3
  %lop = getelementptr i64, ptr %rowp, i64 ${REGION_LO}
  %lo = load i64, ptr %lop
  %hip = getelementptr i64, ptr %rowp, i64 ${REGION_HI}
  %hi = load i64, ptr %hip
  %ge = icmp uge i64 %a, %lo
  %lt = icmp ult i64 %a, %hi
  %in = and i1 %ge, %lt
  %inext = add i64 %i, 1
  br i1 %in, label %found, label %next
next:
  br label %loop
found:
  ret i64 %i
none:
  ret i64 -1
}

; The region code (as __clcoop_fault_in) of the live region holding p, 0 when none does.
define internal i64 @__clcoop_region_of(ptr %c, ptr %p) noinline cold {
entry:
  %a = ptrtoint ptr %p to i64
  %i = call i64 @__clcoop_table_row(ptr %c, i64 %a)
  %intab = icmp sge i64 %i, 0
  br i1 %intab, label %found, label %private
found:
  %code = add i64 %i, 1
  ret i64 %code
private:
  ; (an address outside the arena is in no private array's row either)
  %prow = call i64 @__clcoop_private_at(ptr %c, i64 %a)
  %plive = icmp sge i64 %prow, 0
  br i1 %plive, label %pfound, label %unknown
pfound:
  %rowp = getelementptr [${PRIVATE_ROW_WORDS} x i64], ptr @__clcoop_privates, i64 %prow
  %offp = getelementptr i64, ptr %rowp, i64 ${PRIVATE_OFFSET}
  %off = load i64, ptr %offp
  %pcode = sub i64 -1, %off
  ret i64 %pcode
unknown:
  ret i64 0
}

; Backward branch: count the loop's instructions, stop a faulted work-item.
define internal i1 @__clcoop_poll(ptr %c, i64 %cost, i32 %site) alwaysinline {
entry:
  %sp = getelementptr i64, ptr %c, i64 ${CTX.steps}
  %s = load i64, ptr %sp
  %s1 = add i64 %s, %cost
  store i64 %s1, ptr %sp
  %lp = getelementptr i64, ptr %c, i64 ${CTX.limit}
  %l = load i64, ptr %lp
  %over = icmp ugt i64 %s1, %l
  br i1 %over, label %limit, label %check
limit:
  call void @__clcoop_fault(ptr %c, i32 %site, i32 ${FAULT_LIMIT}, i64 0, i64 0)
  ret i1 true
check:
  %fp = getelementptr i64, ptr %c, i64 ${CTX.fault}
  %f = load i64, ptr %fp
  %stop = icmp ne i64 %f, 0
  ; Every 2^16 instructions counted, the launch's abort flag too (another thread's fault,
  ; Ctrl-C: interrupt.py): a long loop stops at its next back-edge.
  %low = and i64 %s1, 65535
  %crossed = icmp ult i64 %low, %cost
  br i1 %crossed, label %aborted, label %out
aborted:
  %abp = getelementptr i64, ptr %c, i64 ${CTX.abort}
  %ab = load ptr, ptr %abp
  %abv = load atomic i64, ptr %ab monotonic, align 8
  %abs = icmp ne i64 %abv, 0
  %any = or i1 %stop, %abs
  ret i1 %any
out:
  ret i1 %stop
}
