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
  clcoop_launch resets it (the group counter, scratch, each thread's arena and fault
  record, the chunk size in each template) before the drivers run, so a launch from Python
  is this one call. The abort flag is not in the block: the caller zeroes it before it
  arms Ctrl-C (runtime._run_driver), so a Ctrl-C that lands before the drivers start is
  not wiped out by the reset (interrupt.py).
- BUSY admits one launch at a time; a launch that finds the pool busy (a launch from
  another Python thread) runs on its own thread, as one-thread launches do.
"""
import atexit
import ctypes
import os
import threading
import time

import numpy as np

from clcoop.native import fixed_ir

# The layouts below are shared with ll/pool.ll, which names them as ${NAME} (fixed_ir.load).
# The control block: these int64 words, then the pthread mutex and condition variable at
# byte offsets MUTEX_BYTES and COND_BYTES, PTHREAD_BYTES reserved for each.
(GEN, CLAIM, DONE, SLEEPERS, BUSY, STOP, DRIVER, TOTAL, NTHREADS, CALLS, SPIN, SPIN_MIN, SPIN_MAX,
 CLOCK) = range(14)
PTHREAD_BYTES = 128
MUTEX_BYTES = 128
COND_BYTES = MUTEX_BYTES + PTHREAD_BYTES
CONTROL_WORDS = (COND_BYTES + PTHREAD_BYTES) // 8
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
# A thread's row of the calls table: its argument block, template, arena and fault record
# (addresses; launch_block writes them, pool.ll's run_slot reads them); CALL_WORDS long.
(C_ARGS, C_TEMPLATE, C_ARENA, C_FAULT, CALL_WORDS) = range(5)
# A launch block: these words (LAUNCH_WORDS), then a row of the calls table per thread.
(B_TOTAL, B_NEXT_GROUP, B_SCRATCH, B_SCRATCH_BYTES, B_ARENA_BYTES, B_CHUNK_SLOT,
 B_SLOTS, LAUNCH_WORDS) = range(8)
# Work-groups taken at a time by a thread of a launch on several: about CHUNKS_PER_THREAD
# chunks per thread keep the balance dynamic; at most MAX_CHUNK groups.
CHUNKS_PER_THREAD = 16
MAX_CHUNK = 64
# clcoop_launch's result: how many threads ran it, plus FAULTED when one recorded a fault.
FAULTED = 1 << 32
# pool.ll's spin loop reads the clock every SPINS_PER_CLOCK spins; a worker's claim in the
# CLAIM word counts below CLOSED.
SPIN_CLOCK_MASK = SPINS_PER_CLOCK - 1
CLAIM_COUNT_MASK = CLOSED - 1

_LIBC = ("pthread_mutex_lock", "pthread_mutex_unlock", "pthread_cond_wait", "pthread_cond_broadcast",
         "clock_gettime", "sched_yield")


def _relax(triple):
    """A spin-wait hint for the host (its declaration, its call): x86's pause, AArch64's
    yield, else nothing."""
    if triple.startswith(("x86_64", "i386", "i686")):
        return "declare void @llvm.x86.sse2.pause()", "call void @llvm.x86.sse2.pause()"
    if triple.startswith(("aarch64", "arm64")):
        return "declare void @llvm.aarch64.hint(i32)", "call void @llvm.aarch64.hint(i32 1)"
    return "", ""


def pool_ir(triple):
    """The pool's module (ll/pool.ll): clcoop_pool_worker, clcoop_launch, clcoop_pool_wake
    and clcoop_pool_stop (the protocol above), with this module's layouts written in."""
    declaration, relax = _relax(triple)
    return fixed_ir.load("pool.ll", {**globals(), "RELAX_DECLARATION": declaration, "RELAX": relax})


def launch_block(total, next_group, scratch, scratch_bytes, arena_bytes, chunk_slot, calls):
    """A launch's block (int64 words): its work-group count, the addresses of its group
    counter and scratch, the scratch's and each arena's size, the template's
    chunk-size slot, then `calls`: (argument block, template, arena, fault record) of each
    thread (addresses)."""
    words = [0] * LAUNCH_WORDS
    words[B_TOTAL], words[B_NEXT_GROUP], words[B_SCRATCH] = total, next_group, scratch
    words[B_SCRATCH_BYTES], words[B_ARENA_BYTES], words[B_CHUNK_SLOT] = scratch_bytes, arena_bytes, chunk_slot
    words[B_SLOTS] = len(calls)
    for args, template, arena, fault in calls:
        row = [0] * CALL_WORDS
        row[C_ARGS], row[C_TEMPLATE], row[C_ARENA], row[C_FAULT] = args, template, arena, fault
        words += row
    return np.array(words, np.int64)


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
        return result & (FAULTED - 1), bool(result & FAULTED)

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
