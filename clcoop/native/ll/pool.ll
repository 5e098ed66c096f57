; The native worker pool (clcoop/native/pool.py, whose docstring states the protocol):
; clcoop_pool_worker, clcoop_launch, clcoop_pool_wake and clcoop_pool_stop.
; $-brace names: the layouts shared with Python (the control block's words, the launch block's
; words, a thread's row of the calls table), named once in pool.py (fixed_ir.load).
declare i32 @pthread_mutex_lock(ptr)
declare i32 @pthread_mutex_unlock(ptr)
declare i32 @pthread_cond_wait(ptr, ptr)
declare i32 @pthread_cond_broadcast(ptr)
declare void @llvm.memset.p0.i64(ptr, i8, i64, i1)
declare i32 @clock_gettime(i32, ptr)
declare i32 @sched_yield()
${RELAX_DECLARATION}
define internal ptr @word(ptr %ctl, i64 %i) {
  %p = getelementptr i64, ptr %ctl, i64 %i
  ret ptr %p
}

define internal void @relax() {
  ${RELAX}
  ret void
}

define internal void @broadcast(ptr %ctl) {
  %mu = getelementptr i8, ptr %ctl, i64 ${MUTEX_BYTES}
  %cv = getelementptr i8, ptr %ctl, i64 ${COND_BYTES}
  call i32 @pthread_mutex_lock(ptr %mu)
  call i32 @pthread_cond_broadcast(ptr %cv)
  call i32 @pthread_mutex_unlock(ptr %mu)
  ret void
}

; Publishes the next generation, open to workers or (closed = CLOSED) to none; wakes the
; sleeping workers.
define internal void @publish_next(ptr %ctl, i64 %closed) {
  %genp = call ptr @word(ptr %ctl, i64 ${GEN})
  %g0 = load atomic i64, ptr %genp monotonic, align 8
  %g = add i64 %g0, 1
  %open = call i64 @claim_word(i64 %g)
  %claim = or i64 %open, %closed
  %claimp = call ptr @word(ptr %ctl, i64 ${CLAIM})
  store atomic i64 %claim, ptr %claimp release, align 8
  store atomic i64 %g, ptr %genp seq_cst, align 8
  %sp = call ptr @word(ptr %ctl, i64 ${SLEEPERS})
  %s = load atomic i64, ptr %sp seq_cst, align 8
  %any = icmp ne i64 %s, 0
  br i1 %any, label %wake, label %done
wake:
  call void @broadcast(ptr %ctl)
  br label %done
done:
  ret void
}

; Takes the pool for one launch (or wake-up); false when another has it.
define internal i1 @take_busy(ptr %ctl) {
  %busyp = call ptr @word(ptr %ctl, i64 ${BUSY})
  %b = cmpxchg ptr %busyp, i64 0, i64 1 acquire monotonic, align 8
  %free = extractvalue { i64, i1 } %b, 1
  ret i1 %free
}

define internal void @give_busy(ptr %ctl) {
  %busyp = call ptr @word(ptr %ctl, i64 ${BUSY})
  store atomic i64 0, ptr %busyp release, align 8
  ret void
}

; The monotonic clock in nanoseconds (the clock's id is in the control block).
define internal i64 @now(ptr %ctl) {
  %ts = alloca [2 x i64], align 8
  %idp = call ptr @word(ptr %ctl, i64 ${CLOCK})
  %id = load atomic i64, ptr %idp monotonic, align 8
  %id32 = trunc i64 %id to i32
  call i32 @clock_gettime(i32 %id32, ptr %ts)
  %sec = load i64, ptr %ts, align 8
  %nsp = getelementptr i64, ptr %ts, i64 1
  %ns = load i64, ptr %nsp, align 8
  %secns = mul i64 %sec, 1000000000
  %t = add i64 %secns, %ns
  ret i64 %t
}

; After a sleep of `slept` ns that followed a spin of `window` ns: the next spin is twice
; the whole gap, unless the gap exceeded the bound (then the minimum).
define internal void @adapt(ptr %ctl, i64 %window, i64 %slept) {
  %gap = add i64 %window, %slept
  %maxp = call ptr @word(ptr %ctl, i64 ${SPIN_MAX})
  %max = load atomic i64, ptr %maxp monotonic, align 8
  %minp = call ptr @word(ptr %ctl, i64 ${SPIN_MIN})
  %min = load atomic i64, ptr %minp monotonic, align 8
  %long = icmp ugt i64 %gap, %max
  %twice = shl i64 %gap, 1
  %over = icmp ugt i64 %twice, %max
  %capped = select i1 %over, i64 %max, i64 %twice
  %next = select i1 %long, i64 %min, i64 %capped
  %spinp = call ptr @word(ptr %ctl, i64 ${SPIN})
  store atomic i64 %next, ptr %spinp monotonic, align 8
  ret void
}

define internal i64 @claim_word(i64 %g) {
  %low = and i64 %g, 4294967295
  %w = shl i64 %low, 32
  ret i64 %w
}

define internal void @run_slot(i64 %driver, i64 %total, ptr %calls, i64 %k) {
  %base = mul i64 %k, ${CALL_WORDS}
  %row = getelementptr i64, ptr %calls, i64 %base
  %p0 = getelementptr i64, ptr %row, i64 ${C_ARGS}
  %args = load i64, ptr %p0, align 8
  %p1 = getelementptr i64, ptr %row, i64 ${C_TEMPLATE}
  %tmpl = load i64, ptr %p1, align 8
  %p2 = getelementptr i64, ptr %row, i64 ${C_ARENA}
  %arena = load i64, ptr %p2, align 8
  %p3 = getelementptr i64, ptr %row, i64 ${C_FAULT}
  %fout = load i64, ptr %p3, align 8
  %f = inttoptr i64 %driver to ptr
  %a = inttoptr i64 %args to ptr
  %t = inttoptr i64 %tmpl to ptr
  %r = inttoptr i64 %arena to ptr
  %o = inttoptr i64 %fout to ptr
  call void %f(ptr %a, ptr %t, i64 0, i64 %total, ptr %r, ptr %o)
  ret void
}

define void @clcoop_pool_worker(ptr %ctl) {
entry:
  %genp = call ptr @word(ptr %ctl, i64 ${GEN})
  %claimp = call ptr @word(ptr %ctl, i64 ${CLAIM})
  %sleepp = call ptr @word(ptr %ctl, i64 ${SLEEPERS})
  %mu = getelementptr i8, ptr %ctl, i64 ${MUTEX_BYTES}
  %cv = getelementptr i8, ptr %ctl, i64 ${COND_BYTES}
  %first = load atomic i64, ptr %genp acquire, align 8
  br label %wait
wait:
  %seen = phi i64 [ %first, %entry ], [ %g, %joined ], [ %g, %skip ]
  %spinp = call ptr @word(ptr %ctl, i64 ${SPIN})
  %window = load atomic i64, ptr %spinp monotonic, align 8
  %t0 = call i64 @now(ptr %ctl)
  br label %spin
spin:
  %i = phi i64 [ 0, %wait ], [ %i1, %spin_more ]
  %cur = load atomic i64, ptr %genp acquire, align 8
  %same = icmp eq i64 %cur, %seen
  br i1 %same, label %spin_check, label %woken
spin_check:
  %low = and i64 %i, ${SPIN_CLOCK_MASK}
  %tick = icmp eq i64 %low, ${SPIN_CLOCK_MASK}
  br i1 %tick, label %spin_clock, label %spin_more
spin_clock:
  ; Give the core to any other thread that wants it (a spinning thread would hold it
  ; for a scheduler time slice, milliseconds, from a thread woken meanwhile: OpenBLAS's
  ; worker during NumPy's matmul ran 2-4x slower).
  call i32 @sched_yield()
  %t = call i64 @now(ptr %ctl)
  %elapsed = sub i64 %t, %t0
  %more = icmp ult i64 %elapsed, %window
  br i1 %more, label %spin_more, label %sleep
spin_more:
  call void @relax()
  %i1 = add i64 %i, 1
  br label %spin
sleep:
  %ts = call i64 @now(ptr %ctl)
  call i32 @pthread_mutex_lock(ptr %mu)
  atomicrmw add ptr %sleepp, i64 1 seq_cst
  br label %sleep_check
sleep_check:
  %cur2 = load atomic i64, ptr %genp seq_cst, align 8
  %same2 = icmp eq i64 %cur2, %seen
  br i1 %same2, label %sleep_wait, label %sleep_done
sleep_wait:
  call i32 @pthread_cond_wait(ptr %cv, ptr %mu)
  br label %sleep_check
sleep_done:
  atomicrmw sub ptr %sleepp, i64 1 seq_cst
  call i32 @pthread_mutex_unlock(ptr %mu)
  %te = call i64 @now(ptr %ctl)
  %slept = sub i64 %te, %ts
  call void @adapt(ptr %ctl, i64 %window, i64 %slept)
  br label %woken
woken:
  %g = load atomic i64, ptr %genp acquire, align 8
  %stopp = call ptr @word(ptr %ctl, i64 ${STOP})
  %stop = load atomic i64, ptr %stopp acquire, align 8
  %stopping = icmp ne i64 %stop, 0
  br i1 %stopping, label %exit, label %claim_start
claim_start:
  %c0 = load atomic i64, ptr %claimp acquire, align 8
  %want = call i64 @claim_word(i64 %g)
  br label %claim
claim:
  %c = phi i64 [ %c0, %claim_start ], [ %seen_c, %retry ]
  %cgen = and i64 %c, -4294967296
  %same_gen = icmp eq i64 %cgen, %want
  %closed_bits = and i64 %c, ${CLOSED}
  %open = icmp eq i64 %closed_bits, 0
  %count = and i64 %c, ${CLAIM_COUNT_MASK}
  %slot = add i64 %count, 1
  %np = call ptr @word(ptr %ctl, i64 ${NTHREADS})
  %n = load atomic i64, ptr %np monotonic, align 8
  %room = icmp ult i64 %slot, %n
  %ok1 = and i1 %same_gen, %open
  %ok = and i1 %ok1, %room
  br i1 %ok, label %try, label %skip
try:
  %next = add i64 %c, 1
  %r = cmpxchg ptr %claimp, i64 %c, i64 %next acq_rel acquire, align 8
  %seen_c = extractvalue { i64, i1 } %r, 0
  %won = extractvalue { i64, i1 } %r, 1
  br i1 %won, label %run, label %retry
retry:
  br label %claim
run:
  ; The claim succeeded while the job was open: its fields are this job's until the
  ; launch has seen DONE count this worker.
  %dp = call ptr @word(ptr %ctl, i64 ${DRIVER})
  %driver = load atomic i64, ptr %dp monotonic, align 8
  %tp = call ptr @word(ptr %ctl, i64 ${TOTAL})
  %total = load atomic i64, ptr %tp monotonic, align 8
  %cp = call ptr @word(ptr %ctl, i64 ${CALLS})
  %callsw = load atomic i64, ptr %cp monotonic, align 8
  %calls = inttoptr i64 %callsw to ptr
  call void @run_slot(i64 %driver, i64 %total, ptr %calls, i64 %slot)
  %donep = call ptr @word(ptr %ctl, i64 ${DONE})
  atomicrmw add ptr %donep, i64 1 release
  br label %joined
joined:
  br label %wait
skip:
  br label %wait
exit:
  ret void
}

; Runs a launch on the calling thread and every worker that joins (at most nthreads in
; all); returns how many threads ran it.
define internal i64 @pool_launch(ptr %ctl, i64 %driver, i64 %total, i64 %nthreads, ptr %calls) {
entry:
  %free = call i1 @take_busy(ptr %ctl)
  br i1 %free, label %publish, label %alone
alone:
  call void @run_slot(i64 %driver, i64 %total, ptr %calls, i64 0)
  ret i64 1
publish:
  %dp = call ptr @word(ptr %ctl, i64 ${DRIVER})
  store atomic i64 %driver, ptr %dp monotonic, align 8
  %tp = call ptr @word(ptr %ctl, i64 ${TOTAL})
  store atomic i64 %total, ptr %tp monotonic, align 8
  %np = call ptr @word(ptr %ctl, i64 ${NTHREADS})
  store atomic i64 %nthreads, ptr %np monotonic, align 8
  %cp = call ptr @word(ptr %ctl, i64 ${CALLS})
  %callsw = ptrtoint ptr %calls to i64
  store atomic i64 %callsw, ptr %cp monotonic, align 8
  %donep = call ptr @word(ptr %ctl, i64 ${DONE})
  store atomic i64 0, ptr %donep monotonic, align 8
  call void @publish_next(ptr %ctl, i64 0)
  call void @run_slot(i64 %driver, i64 %total, ptr %calls, i64 0)
  %claimp = call ptr @word(ptr %ctl, i64 ${CLAIM})
  %old = atomicrmw or ptr %claimp, i64 ${CLOSED} acq_rel
  %started = and i64 %old, ${CLAIM_COUNT_MASK}
  br label %join
join:
  %d = load atomic i64, ptr %donep acquire, align 8
  %waiting = icmp ult i64 %d, %started
  br i1 %waiting, label %join_relax, label %joined
join_relax:
  call void @relax()
  br label %join
joined:
  call void @give_busy(ptr %ctl)
  %ran = add i64 %started, 1
  ret i64 %ran
}

define internal i64 @block_word(ptr %block, i64 %i) {
  %p = getelementptr i64, ptr %block, i64 %i
  %v = load i64, ptr %p, align 8
  ret i64 %v
}

define internal void @zero(i64 %address, i64 %bytes) {
  %p = inttoptr i64 %address to ptr
  call void @llvm.memset.p0.i64(ptr %p, i8 0, i64 %bytes, i1 false)
  ret void
}

; A launch of `driver` on nthreads threads (at most the block's slots) from its block:
; its state reset as for a first launch, then run (pool_launch). Returns how many
; threads ran it, plus 2^32 when one of them recorded a fault.
define i64 @clcoop_launch(ptr %ctl, ptr %block, i64 %driver, i64 %asked) {
entry:
  %total = call i64 @block_word(ptr %block, i64 ${B_TOTAL})
  %slots = call i64 @block_word(ptr %block, i64 ${B_SLOTS})
  %fewer = icmp ult i64 %asked, %slots
  %n0 = select i1 %fewer, i64 %asked, i64 %slots
  %none = icmp eq i64 %n0, 0
  %n = select i1 %none, i64 1, i64 %n0
  %next = call i64 @block_word(ptr %block, i64 ${B_NEXT_GROUP})
  call void @zero(i64 %next, i64 8)
  %scratch = call i64 @block_word(ptr %block, i64 ${B_SCRATCH})
  %scratch_bytes = call i64 @block_word(ptr %block, i64 ${B_SCRATCH_BYTES})
  call void @zero(i64 %scratch, i64 %scratch_bytes)
  %arena_bytes = call i64 @block_word(ptr %block, i64 ${B_ARENA_BYTES})
  %chunk_slot = call i64 @block_word(ptr %block, i64 ${B_CHUNK_SLOT})
  %per = mul i64 %n, ${CHUNKS_PER_THREAD}
  %c0 = udiv i64 %total, %per
  %big = icmp ugt i64 %c0, ${MAX_CHUNK}
  %c1 = select i1 %big, i64 ${MAX_CHUNK}, i64 %c0
  %small = icmp eq i64 %c1, 0
  %c2 = select i1 %small, i64 1, i64 %c1
  %single = icmp eq i64 %n, 1
  %chunk = select i1 %single, i64 1, i64 %c2
  %calls = getelementptr i64, ptr %block, i64 ${LAUNCH_WORDS}
  br label %reset
reset:
  %k = phi i64 [ 0, %entry ], [ %k1, %reset ]
  %base = mul i64 %k, ${CALL_WORDS}
  %tmplp = getelementptr i64, ptr %calls, i64 %base
  %tmplw.p = getelementptr i64, ptr %tmplp, i64 ${C_TEMPLATE}
  %tmplw = load i64, ptr %tmplw.p, align 8
  %tmpl = inttoptr i64 %tmplw to ptr
  %chunkp = getelementptr i64, ptr %tmpl, i64 %chunk_slot
  store i64 %chunk, ptr %chunkp, align 8
  %arenaw.p = getelementptr i64, ptr %tmplp, i64 ${C_ARENA}
  %arenaw = load i64, ptr %arenaw.p, align 8
  call void @zero(i64 %arenaw, i64 %arena_bytes)
  %foutw.p = getelementptr i64, ptr %tmplp, i64 ${C_FAULT}
  %foutw = load i64, ptr %foutw.p, align 8
  call void @zero(i64 %foutw, i64 8)
  %k1 = add i64 %k, 1
  %more = icmp ult i64 %k1, %n
  br i1 %more, label %reset, label %run
run:
  br i1 %single, label %alone, label %pooled
alone:
  call void @run_slot(i64 %driver, i64 %total, ptr %calls, i64 0)
  br label %faults
pooled:
  %r = call i64 @pool_launch(ptr %ctl, i64 %driver, i64 %total, i64 %n, ptr %calls)
  br label %faults
faults:
  %ran = phi i64 [ 1, %alone ], [ %r, %pooled ]
  br label %scan
scan:
  %j = phi i64 [ 0, %faults ], [ %j1, %scan ]
  %seen = phi i64 [ 0, %faults ], [ %seen1, %scan ]
  %jb = mul i64 %j, ${CALL_WORDS}
  %jp = getelementptr i64, ptr %calls, i64 %jb
  %jf.p = getelementptr i64, ptr %jp, i64 ${C_FAULT}
  %jf = load i64, ptr %jf.p, align 8
  %jfp = inttoptr i64 %jf to ptr
  %code = load i64, ptr %jfp, align 8
  %seen1 = or i64 %seen, %code
  %j1 = add i64 %j, 1
  %jmore = icmp ult i64 %j1, %ran
  br i1 %jmore, label %scan, label %report
report:
  %faulted = icmp ne i64 %seen1, 0
  %flag = select i1 %faulted, i64 ${FAULTED}, i64 0
  %result = or i64 %ran, %flag
  ret i64 %result
}

; Wakes the sleeping workers ahead of a launch (a job nobody may join): they spin, awake,
; when the launch comes. Does nothing while a launch runs.
define void @clcoop_pool_wake(ptr %ctl) {
entry:
  %free = call i1 @take_busy(ptr %ctl)
  br i1 %free, label %wake, label %done
wake:
  call void @publish_next(ptr %ctl, i64 ${CLOSED})
  call void @give_busy(ptr %ctl)
  br label %done
done:
  ret void
}

define void @clcoop_pool_stop(ptr %ctl) {
  %stopp = call ptr @word(ptr %ctl, i64 ${STOP})
  store atomic i64 1, ptr %stopp seq_cst, align 8
  %genp = call ptr @word(ptr %ctl, i64 ${GEN})
  atomicrmw add ptr %genp, i64 1 seq_cst
  call void @broadcast(ptr %ctl)
  ret void
}
