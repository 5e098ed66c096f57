"""Worker threads parked in native code (docs/native.md, "Both cores").

A launch is one foreign call, clcoop_launch: on several threads it publishes the
job (the driver, the work-group count, each thread's argument block, template, arena and
fault record), wakes the workers that sleep, runs thread 0's share itself and waits for
the workers that joined. No step takes the GIL: a Python worker pool had to hand each job
to a thread that then waited for the GIL (about 60 us per launch, more than a launch of
a memory-bound kernel saves on the second core).

The job's protocol (one control block of CONTROL_WORDS int64 words, pthread mutex and
condition variable inside it):
- GEN counts jobs. A worker spins on it after each job (SPIN nanoseconds), then sleeps
  on the condition variable (SLEEPERS counts the sleepers, so a launch broadcasts only
  when one sleeps: a seq_cst store of GEN then load of SLEEPERS, against the worker's
  seq_cst increment of SLEEPERS then load of GEN, loses no wake-up).
- CLAIM holds the job's generation (high 32 bits), a closed bit and how many workers
  joined. A worker joins with a compare-exchange that fails once the launch closed it,
  so a worker that wakes late never touches a finished launch's buffers; the launch
  waits for exactly the workers that joined (DONE). Groups come from the launch's shared
  counter, so the calling thread runs every group nobody else took.
- A launch's own state is its block (LAUNCH_WORDS words, then CALL_WORDS per thread):
  clcoop_launch resets it (the group counter, the abort flag, scratch, each thread's
  arena and fault record, the chunk size in each template) before the drivers run, so a
  launch from Python is this one call.
- BUSY admits one launch at a time; a launch that finds the pool busy (a launch from
  another Python thread) runs on its own thread, as one-thread launches do.
"""
import atexit
import ctypes
import os
import threading
import time

import numpy as np

(GEN, CLAIM, DONE, SLEEPERS, BUSY, STOP, DRIVER, TOTAL, NTHREADS, CALLS, SPIN, SPIN_MIN, SPIN_MAX,
 CLOCK) = range(14)
MUTEX_BYTES, COND_BYTES = 128, 256           # offsets of the pthread objects (128 bytes each)
CONTROL_WORDS = 48
CLOSED = 1 << 31
# How long a worker spins for the next job before it sleeps (SPIN, nanoseconds): it adapts
# to the gaps between launches. A worker woken from sleep spins next time for twice the
# gap it saw (spin plus sleep), at most SPIN_MAX_NS, so that launches in a loop with
# Python work between them find it awake; a gap longer than that (sporadic launches) puts
# it back to SPIN_MIN_NS. Waking a sleeping worker costs the launch a futex wake and an
# interrupt to the idle virtual CPU (10-50 us here) and the worker 50-100 us more before
# it runs: a quarter of a short launch. The bound is LLVM OpenMP's default spin before
# sleeping (KMP_BLOCKTIME, 200 ms); CLCOOP_WORKER_SPIN_MS sets it (0: always the minimum).
SPIN_MIN_NS = 1_000_000
SPIN_MAX_NS = 200_000_000
# Spins between two readings of the clock.
SPINS_PER_CLOCK = 64
# Words per thread in the calls table: argument block, template, arena, fault record.
CALL_WORDS = 4
# A launch block: these words, then CALL_WORDS per thread (runtime.launch_block).
(B_TOTAL, B_NEXT_GROUP, B_ABORT, B_SCRATCH, B_SCRATCH_BYTES, B_ARENA_BYTES, B_CHUNK_SLOT,
 B_SLOTS) = range(8)
LAUNCH_WORDS = 8
# Work-groups taken at a time by a thread of a launch on several: about 16 chunks per
# thread keep the balance dynamic; at most this many.
MAX_CHUNK = 64

_LIBC = ("pthread_mutex_lock", "pthread_mutex_unlock", "pthread_cond_wait", "pthread_cond_broadcast",
         "clock_gettime", "sched_yield")


def _relax(triple):
    """A spin-wait hint for the host: x86's pause, AArch64's yield, else nothing."""
    if triple.startswith(("x86_64", "i386", "i686")):
        return "declare void @llvm.x86.sse2.pause()\n", "call void @llvm.x86.sse2.pause()"
    if triple.startswith(("aarch64", "arm64")):
        return "declare void @llvm.aarch64.hint(i32)\n", "call void @llvm.aarch64.hint(i32 1)"
    return "", ""


def pool_ir(triple):
    """The pool's module: clcoop_pool_worker, clcoop_launch, clcoop_pool_wake and
    clcoop_pool_stop (the protocol above)."""
    declare_relax, relax = _relax(triple)
    return f"""
declare i32 @pthread_mutex_lock(ptr)
declare i32 @pthread_mutex_unlock(ptr)
declare i32 @pthread_cond_wait(ptr, ptr)
declare i32 @pthread_cond_broadcast(ptr)
declare void @llvm.memset.p0.i64(ptr, i8, i64, i1)
declare i32 @clock_gettime(i32, ptr)
declare i32 @sched_yield()
{declare_relax}
define internal ptr @word(ptr %ctl, i64 %i) {{
  %p = getelementptr i64, ptr %ctl, i64 %i
  ret ptr %p
}}

define internal void @relax() {{
  {relax}
  ret void
}}

define internal void @broadcast(ptr %ctl) {{
  %mu = getelementptr i8, ptr %ctl, i64 {MUTEX_BYTES}
  %cv = getelementptr i8, ptr %ctl, i64 {COND_BYTES}
  call i32 @pthread_mutex_lock(ptr %mu)
  call i32 @pthread_cond_broadcast(ptr %cv)
  call i32 @pthread_mutex_unlock(ptr %mu)
  ret void
}}

; Publishes the next generation, open to workers or (closed = CLOSED) to none; wakes the
; sleeping workers.
define internal void @publish_next(ptr %ctl, i64 %closed) {{
  %genp = call ptr @word(ptr %ctl, i64 {GEN})
  %g0 = load atomic i64, ptr %genp monotonic, align 8
  %g = add i64 %g0, 1
  %open = call i64 @claim_word(i64 %g)
  %claim = or i64 %open, %closed
  %claimp = call ptr @word(ptr %ctl, i64 {CLAIM})
  store atomic i64 %claim, ptr %claimp release, align 8
  store atomic i64 %g, ptr %genp seq_cst, align 8
  %sp = call ptr @word(ptr %ctl, i64 {SLEEPERS})
  %s = load atomic i64, ptr %sp seq_cst, align 8
  %any = icmp ne i64 %s, 0
  br i1 %any, label %wake, label %done
wake:
  call void @broadcast(ptr %ctl)
  br label %done
done:
  ret void
}}

; Takes the pool for one launch (or wake-up); false when another has it.
define internal i1 @take_busy(ptr %ctl) {{
  %busyp = call ptr @word(ptr %ctl, i64 {BUSY})
  %b = cmpxchg ptr %busyp, i64 0, i64 1 acquire monotonic, align 8
  %free = extractvalue {{ i64, i1 }} %b, 1
  ret i1 %free
}}

define internal void @give_busy(ptr %ctl) {{
  %busyp = call ptr @word(ptr %ctl, i64 {BUSY})
  store atomic i64 0, ptr %busyp release, align 8
  ret void
}}

; The monotonic clock in nanoseconds (the clock's id is in the control block).
define internal i64 @now(ptr %ctl) {{
  %ts = alloca [2 x i64], align 8
  %idp = call ptr @word(ptr %ctl, i64 {CLOCK})
  %id = load atomic i64, ptr %idp monotonic, align 8
  %id32 = trunc i64 %id to i32
  call i32 @clock_gettime(i32 %id32, ptr %ts)
  %sec = load i64, ptr %ts, align 8
  %nsp = getelementptr i64, ptr %ts, i64 1
  %ns = load i64, ptr %nsp, align 8
  %secns = mul i64 %sec, 1000000000
  %t = add i64 %secns, %ns
  ret i64 %t
}}

; After a sleep of `slept` ns that followed a spin of `window` ns: the next spin is twice
; the whole gap, unless the gap exceeded the bound (then the minimum).
define internal void @adapt(ptr %ctl, i64 %window, i64 %slept) {{
  %gap = add i64 %window, %slept
  %maxp = call ptr @word(ptr %ctl, i64 {SPIN_MAX})
  %max = load atomic i64, ptr %maxp monotonic, align 8
  %minp = call ptr @word(ptr %ctl, i64 {SPIN_MIN})
  %min = load atomic i64, ptr %minp monotonic, align 8
  %long = icmp ugt i64 %gap, %max
  %twice = shl i64 %gap, 1
  %over = icmp ugt i64 %twice, %max
  %capped = select i1 %over, i64 %max, i64 %twice
  %next = select i1 %long, i64 %min, i64 %capped
  %spinp = call ptr @word(ptr %ctl, i64 {SPIN})
  store atomic i64 %next, ptr %spinp monotonic, align 8
  ret void
}}

define internal i64 @claim_word(i64 %g) {{
  %low = and i64 %g, 4294967295
  %w = shl i64 %low, 32
  ret i64 %w
}}

define internal void @run_slot(i64 %driver, i64 %total, ptr %calls, i64 %k) {{
  %base = mul i64 %k, {CALL_WORDS}
  %p0 = getelementptr i64, ptr %calls, i64 %base
  %args = load i64, ptr %p0, align 8
  %p1 = getelementptr i64, ptr %p0, i64 1
  %tmpl = load i64, ptr %p1, align 8
  %p2 = getelementptr i64, ptr %p0, i64 2
  %arena = load i64, ptr %p2, align 8
  %p3 = getelementptr i64, ptr %p0, i64 3
  %fout = load i64, ptr %p3, align 8
  %f = inttoptr i64 %driver to ptr
  %a = inttoptr i64 %args to ptr
  %t = inttoptr i64 %tmpl to ptr
  %r = inttoptr i64 %arena to ptr
  %o = inttoptr i64 %fout to ptr
  call void %f(ptr %a, ptr %t, i64 0, i64 %total, ptr %r, ptr %o)
  ret void
}}

define void @clcoop_pool_worker(ptr %ctl) {{
entry:
  %genp = call ptr @word(ptr %ctl, i64 {GEN})
  %claimp = call ptr @word(ptr %ctl, i64 {CLAIM})
  %sleepp = call ptr @word(ptr %ctl, i64 {SLEEPERS})
  %mu = getelementptr i8, ptr %ctl, i64 {MUTEX_BYTES}
  %cv = getelementptr i8, ptr %ctl, i64 {COND_BYTES}
  %first = load atomic i64, ptr %genp acquire, align 8
  br label %wait
wait:
  %seen = phi i64 [ %first, %entry ], [ %g, %joined ], [ %g, %skip ]
  %spinp = call ptr @word(ptr %ctl, i64 {SPIN})
  %window = load atomic i64, ptr %spinp monotonic, align 8
  %t0 = call i64 @now(ptr %ctl)
  br label %spin
spin:
  %i = phi i64 [ 0, %wait ], [ %i1, %spin_more ]
  %cur = load atomic i64, ptr %genp acquire, align 8
  %same = icmp eq i64 %cur, %seen
  br i1 %same, label %spin_check, label %woken
spin_check:
  %low = and i64 %i, {SPINS_PER_CLOCK - 1}
  %tick = icmp eq i64 %low, {SPINS_PER_CLOCK - 1}
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
  %stopp = call ptr @word(ptr %ctl, i64 {STOP})
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
  %closed_bits = and i64 %c, {CLOSED}
  %open = icmp eq i64 %closed_bits, 0
  %count = and i64 %c, {CLOSED - 1}
  %slot = add i64 %count, 1
  %np = call ptr @word(ptr %ctl, i64 {NTHREADS})
  %n = load atomic i64, ptr %np monotonic, align 8
  %room = icmp ult i64 %slot, %n
  %ok1 = and i1 %same_gen, %open
  %ok = and i1 %ok1, %room
  br i1 %ok, label %try, label %skip
try:
  %next = add i64 %c, 1
  %r = cmpxchg ptr %claimp, i64 %c, i64 %next acq_rel acquire, align 8
  %seen_c = extractvalue {{ i64, i1 }} %r, 0
  %won = extractvalue {{ i64, i1 }} %r, 1
  br i1 %won, label %run, label %retry
retry:
  br label %claim
run:
  ; The claim succeeded while the job was open: its fields are this job's until the
  ; launch has seen DONE count this worker.
  %dp = call ptr @word(ptr %ctl, i64 {DRIVER})
  %driver = load atomic i64, ptr %dp monotonic, align 8
  %tp = call ptr @word(ptr %ctl, i64 {TOTAL})
  %total = load atomic i64, ptr %tp monotonic, align 8
  %cp = call ptr @word(ptr %ctl, i64 {CALLS})
  %callsw = load atomic i64, ptr %cp monotonic, align 8
  %calls = inttoptr i64 %callsw to ptr
  call void @run_slot(i64 %driver, i64 %total, ptr %calls, i64 %slot)
  %donep = call ptr @word(ptr %ctl, i64 {DONE})
  atomicrmw add ptr %donep, i64 1 release
  br label %joined
joined:
  br label %wait
skip:
  br label %wait
exit:
  ret void
}}

; Runs a launch on the calling thread and every worker that joins (at most nthreads in
; all); returns how many threads ran it.
define internal i64 @pool_launch(ptr %ctl, i64 %driver, i64 %total, i64 %nthreads, ptr %calls) {{
entry:
  %free = call i1 @take_busy(ptr %ctl)
  br i1 %free, label %publish, label %alone
alone:
  call void @run_slot(i64 %driver, i64 %total, ptr %calls, i64 0)
  ret i64 1
publish:
  %dp = call ptr @word(ptr %ctl, i64 {DRIVER})
  store atomic i64 %driver, ptr %dp monotonic, align 8
  %tp = call ptr @word(ptr %ctl, i64 {TOTAL})
  store atomic i64 %total, ptr %tp monotonic, align 8
  %np = call ptr @word(ptr %ctl, i64 {NTHREADS})
  store atomic i64 %nthreads, ptr %np monotonic, align 8
  %cp = call ptr @word(ptr %ctl, i64 {CALLS})
  %callsw = ptrtoint ptr %calls to i64
  store atomic i64 %callsw, ptr %cp monotonic, align 8
  %donep = call ptr @word(ptr %ctl, i64 {DONE})
  store atomic i64 0, ptr %donep monotonic, align 8
  call void @publish_next(ptr %ctl, i64 0)
  call void @run_slot(i64 %driver, i64 %total, ptr %calls, i64 0)
  %claimp = call ptr @word(ptr %ctl, i64 {CLAIM})
  %old = atomicrmw or ptr %claimp, i64 {CLOSED} acq_rel
  %started = and i64 %old, {CLOSED - 1}
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
}}

define internal i64 @block_word(ptr %block, i64 %i) {{
  %p = getelementptr i64, ptr %block, i64 %i
  %v = load i64, ptr %p, align 8
  ret i64 %v
}}

define internal void @zero(i64 %address, i64 %bytes) {{
  %p = inttoptr i64 %address to ptr
  call void @llvm.memset.p0.i64(ptr %p, i8 0, i64 %bytes, i1 false)
  ret void
}}

; A launch of `driver` on nthreads threads (at most the block's slots) from its block:
; its state reset as for a first launch, then run (pool_launch). Returns how many
; threads ran it, plus 2^32 when one of them recorded a fault.
define i64 @clcoop_launch(ptr %ctl, ptr %block, i64 %driver, i64 %asked) {{
entry:
  %total = call i64 @block_word(ptr %block, i64 {B_TOTAL})
  %slots = call i64 @block_word(ptr %block, i64 {B_SLOTS})
  %fewer = icmp ult i64 %asked, %slots
  %n0 = select i1 %fewer, i64 %asked, i64 %slots
  %none = icmp eq i64 %n0, 0
  %n = select i1 %none, i64 1, i64 %n0
  %next = call i64 @block_word(ptr %block, i64 {B_NEXT_GROUP})
  call void @zero(i64 %next, i64 8)
  %abort = call i64 @block_word(ptr %block, i64 {B_ABORT})
  call void @zero(i64 %abort, i64 8)
  %scratch = call i64 @block_word(ptr %block, i64 {B_SCRATCH})
  %scratch_bytes = call i64 @block_word(ptr %block, i64 {B_SCRATCH_BYTES})
  call void @zero(i64 %scratch, i64 %scratch_bytes)
  %arena_bytes = call i64 @block_word(ptr %block, i64 {B_ARENA_BYTES})
  %chunk_slot = call i64 @block_word(ptr %block, i64 {B_CHUNK_SLOT})
  %per = mul i64 %n, 16
  %c0 = udiv i64 %total, %per
  %big = icmp ugt i64 %c0, {MAX_CHUNK}
  %c1 = select i1 %big, i64 {MAX_CHUNK}, i64 %c0
  %small = icmp eq i64 %c1, 0
  %c2 = select i1 %small, i64 1, i64 %c1
  %single = icmp eq i64 %n, 1
  %chunk = select i1 %single, i64 1, i64 %c2
  %calls = getelementptr i64, ptr %block, i64 {LAUNCH_WORDS}
  br label %reset
reset:
  %k = phi i64 [ 0, %entry ], [ %k1, %reset ]
  %base = mul i64 %k, {CALL_WORDS}
  %tmplp = getelementptr i64, ptr %calls, i64 %base
  %tmplw.p = getelementptr i64, ptr %tmplp, i64 1
  %tmplw = load i64, ptr %tmplw.p, align 8
  %tmpl = inttoptr i64 %tmplw to ptr
  %chunkp = getelementptr i64, ptr %tmpl, i64 %chunk_slot
  store i64 %chunk, ptr %chunkp, align 8
  %arenaw.p = getelementptr i64, ptr %tmplp, i64 2
  %arenaw = load i64, ptr %arenaw.p, align 8
  call void @zero(i64 %arenaw, i64 %arena_bytes)
  %foutw.p = getelementptr i64, ptr %tmplp, i64 3
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
  %jb = mul i64 %j, {CALL_WORDS}
  %jp = getelementptr i64, ptr %calls, i64 %jb
  %jf.p = getelementptr i64, ptr %jp, i64 3
  %jf = load i64, ptr %jf.p, align 8
  %jfp = inttoptr i64 %jf to ptr
  %code = load i64, ptr %jfp, align 8
  %seen1 = or i64 %seen, %code
  %j1 = add i64 %j, 1
  %jmore = icmp ult i64 %j1, %ran
  br i1 %jmore, label %scan, label %report
report:
  %faulted = icmp ne i64 %seen1, 0
  %flag = select i1 %faulted, i64 4294967296, i64 0
  %result = or i64 %ran, %flag
  ret i64 %result
}}

; Wakes the sleeping workers ahead of a launch (a job nobody may join): they spin, awake,
; when the launch comes. Does nothing while a launch runs.
define void @clcoop_pool_wake(ptr %ctl) {{
entry:
  %free = call i1 @take_busy(ptr %ctl)
  br i1 %free, label %wake, label %done
wake:
  call void @publish_next(ptr %ctl, i64 {CLOSED})
  call void @give_busy(ptr %ctl)
  br label %done
done:
  ret void
}}

define void @clcoop_pool_stop(ptr %ctl) {{
  %stopp = call ptr @word(ptr %ctl, i64 {STOP})
  store atomic i64 1, ptr %stopp seq_cst, align 8
  %genp = call ptr @word(ptr %ctl, i64 {GEN})
  atomicrmw add ptr %genp, i64 1 seq_cst
  call void @broadcast(ptr %ctl)
  ret void
}}
"""


def usable_cpus():
    """The CPUs this process may run on (its affinity mask; all of them where the platform
    has none)."""
    try:
        return len(os.sched_getaffinity(0))
    except (AttributeError, OSError):
        return os.cpu_count() or 1


def spin_max_ns():
    """SPIN_MAX_NS, or CLCOOP_WORKER_SPIN_MS (milliseconds) when set; the minimum when the
    process may use one CPU only (a worker there spins on the caller's own CPU)."""
    value = os.environ.get("CLCOOP_WORKER_SPIN_MS")
    if value is None:
        return SPIN_MAX_NS if usable_cpus() > 1 else SPIN_MIN_NS
    try:
        return max(SPIN_MIN_NS, int(float(value) * 1e6))
    except (ValueError, OverflowError):
        import warnings
        warnings.warn(f"CLCOOP_WORKER_SPIN_MS must be a number of milliseconds, got {value!r}: "
                      f"using {SPIN_MAX_NS // 1_000_000}", RuntimeWarning, stacklevel=2)
        return SPIN_MAX_NS


_LAUNCH = ctypes.CFUNCTYPE(ctypes.c_int64, ctypes.c_void_p, ctypes.c_void_p, ctypes.c_int64,
                           ctypes.c_int64)
_ON_CONTROL = ctypes.CFUNCTYPE(None, ctypes.c_void_p)


class _Code:
    """The compiled pool module, once per process (a forked child keeps using it)."""

    def __init__(self):
        import llvmlite.binding as llvm
        from clcoop.native import jit
        jit.ensure_llvm()
        jit.register_symbols(None, _LIBC)      # the pool's pthread and clock functions
        self.engine = jit.Engine(pool_ir(llvm.get_process_triple()), opt=2)
        self.worker = _ON_CONTROL(self.engine.address("clcoop_pool_worker"))
        self.launch = _LAUNCH(self.engine.address("clcoop_launch"))
        self.wake = _ON_CONTROL(self.engine.address("clcoop_pool_wake"))
        self.stop = _ON_CONTROL(self.engine.address("clcoop_pool_stop"))
        # Exit hooks run last-registered first: registered after the engine's weakref
        # finalizer (also an exit hook), this one stops the workers before the code they
        # spin in is freed.
        atexit.register(_stop_at_exit)


class NativePool:
    """A control block and the worker threads parked on it (module docstring)."""

    def __init__(self, code):
        self._code = code
        self.control = np.zeros(CONTROL_WORDS, np.int64)
        self.address = self.control.ctypes.data
        self.control[SPIN] = self.control[SPIN_MIN] = SPIN_MIN_NS
        self.control[SPIN_MAX] = spin_max_ns()
        self.control[CLOCK] = time.CLOCK_MONOTONIC
        libc = ctypes.CDLL(None)
        if libc.pthread_mutex_init(ctypes.c_void_p(self.address + MUTEX_BYTES), None) or \
                libc.pthread_cond_init(ctypes.c_void_p(self.address + COND_BYTES), None):
            raise RuntimeError("clcoop: could not set up the native worker pool's mutex")
        self.threads = []
        self._lock = threading.Lock()
        self._stopped = False

    def reserve(self, workers):
        """At least `workers` threads parked in the pool (a thread's start takes
        milliseconds on a busy machine: better at build time than in a launch)."""
        with self._lock:
            while len(self.threads) < workers and not self._stopped:
                thread = threading.Thread(target=self._code.worker, args=(self.address,),
                                          daemon=True, name="clcoop-native-worker")
                thread.start()
                self.threads.append(thread)

    def launch(self, block_address, driver_address, nthreads):
        """Runs a launch (its block: runtime.launch_block) on this thread and on up to nthreads - 1
        workers: (threads that ran it, whether one recorded a fault). The GIL is released
        for the whole call (ctypes)."""
        result = self._code.launch(self.address, block_address, driver_address, nthreads)
        return result & 0xFFFFFFFF, bool(result >> 32)

    def wake(self):
        """Wake the sleeping workers now, if one sleeps: the next launch finds them
        spinning. (Read without the lock: a worker that falls asleep just after is woken
        by the launch itself.)"""
        if self.control[SLEEPERS]:
            self._code.wake(self.address)

    def stop(self):
        """Let the workers return, and wait for them (before the process frees the
        code they run)."""
        with self._lock:
            if self._stopped:
                return
            self._stopped = True
        self._code.stop(self.address)
        for thread in self.threads:
            thread.join(timeout=5)


_lock = threading.Lock()
_code = None
_pool = None


def get():
    """The process's pool (created on first use)."""
    global _code, _pool
    pool = _pool
    if pool is not None:
        return pool
    with _lock:
        if _pool is None:
            if _code is None:
                _code = _Code()
            _pool = NativePool(_code)
        return _pool


def _forget_in_child():
    # A forked child starts its own pool: the parent's threads are not in it, and the
    # parent's mutex may have been held at the fork. (The compiled code is kept.)
    global _pool, _lock
    _pool, _lock = None, threading.Lock()


os.register_at_fork(after_in_child=_forget_in_child)


def _stop_at_exit():
    pool = _pool
    if pool is not None:
        pool.stop()
