"""Ctrl-C during a native launch (docs/native.md, "Safety contract").

A launch is one foreign call (pool.py) that holds no GIL: Python's SIGINT handler only
notes the signal, and KeyboardInterrupt would come when the launch ends, which for a
runaway kernel is never. So a small native signal handler, chained in front of Python's,
sets the running launch's abort flag: every thread stops at its next safe point (loop
back-edges poll it, runtime_ir.__clcoop_poll; drivers read it between work-groups), the
launch returns, and runtime._run_driver raises KeyboardInterrupt; the launch's caller
restores the written buffers from their backups, as for a fault.

- Armed only for launches of the main thread (the thread Python raises
  KeyboardInterrupt in) while Python's own handler (signal.default_int_handler) is the
  SIGINT handler; otherwise the signal goes to whatever handler there was.
- Outside an armed launch the handler calls the handler it replaced (Python's C-level
  handler), so Ctrl-C elsewhere behaves as it always did.
- A later signal.signal(SIGINT, ...) replaces this handler; the next armed launch installs
  it again in front of the new one if that is Python's default handler.
"""
import ctypes
import signal
import threading
import time

from clcoop.native import fixed_ir

_IR = fixed_ir.load("interrupt.ll", {})

_SA_SIGINFO = 4


class _Sigaction(ctypes.Structure):
    """struct sigaction of glibc on x86-64 / aarch64 Linux."""
    _fields_ = [("handler", ctypes.c_void_p), ("mask", ctypes.c_uint64 * 16),
                ("flags", ctypes.c_int), ("restorer", ctypes.c_void_p)]


_lock = threading.Lock()
_state = None      # (engine, handler address, globals, libc) once built; False when unavailable
# When SIGINT's handlers were last looked at, and whether ours was in place: asking costs
# about 10 us (signal.getsignal, sigaction through ctypes), more than half of a cached
# launch's overhead, so at most once a second. A handler that signal.signal installs
# meanwhile is seen at the next look.
_checked_at = -1.0
_in_place = False
_RECHECK_SECONDS = 1.0


def _code():
    global _state
    with _lock:
        if _state is None:
            try:
                from clcoop.native import jit
                engine = jit.Engine(_IR, opt=1)
                libc = ctypes.CDLL(None, use_errno=True)
                libc.sigaction.argtypes = [ctypes.c_int, ctypes.POINTER(_Sigaction), ctypes.POINTER(_Sigaction)]
                words = {name: ctypes.c_int64.from_address(engine.global_address(name))
                         for name in ("target", "previous", "interrupted")}
                _state = (engine, engine.address("clcoop_on_sigint"), words, libc)
            except (OSError, AttributeError, RuntimeError):
                _state = False
        return _state


def _installed(code):
    """Whether the native handler is SIGINT's handler now; installs it in front of the
    current one when Python's default handler is in place."""
    global _checked_at, _in_place
    now = time.monotonic()
    if now - _checked_at < _RECHECK_SECONDS:
        return _in_place
    _checked_at = now
    _in_place = False
    if signal.getsignal(signal.SIGINT) is not signal.default_int_handler:
        return False
    _, handler, words, libc = code
    current = _Sigaction()
    if libc.sigaction(signal.SIGINT, None, ctypes.byref(current)) != 0:
        return False
    if current.handler != handler:
        words["previous"].value = current.handler or 0
        ours = _Sigaction()
        ours.handler = handler
        ours.mask = current.mask
        ours.flags = current.flags | _SA_SIGINFO
        if libc.sigaction(signal.SIGINT, ctypes.byref(ours), None) != 0:
            return False
    _in_place = True
    return True


def arm(abort_address):
    """Before a launch: SIGINT sets the int64 at `abort_address` (the launch's abort flag)
    until disarm. Returns a token for disarm (None: not armed)."""
    if threading.current_thread() is not _MAIN:
        return None
    code = _state if _state is not None else _code()
    if not code or not _installed(code):
        return None
    words = code[2]
    words["interrupted"].value = 0
    words["target"].value = abort_address
    return words


def disarm(token):
    """After the launch: whether SIGINT came while it ran (the caller raises
    KeyboardInterrupt once it has stopped)."""
    if token is None:
        return False
    token["target"].value = 0
    return bool(token["interrupted"].value)


_MAIN = threading.main_thread()
