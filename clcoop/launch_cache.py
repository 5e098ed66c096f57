"""The native launches of a program kept for the next launch with the same sizes and the
same arguments (native/engine.py; prepare.Preparations keys every engine's preparations
the same way), as pyopencl keeps a kernel's arguments set.

A launch's checks, argument conversion, proof (native/ranges.py) and native state
(NativeProgram.plan_launch: region tables, argument blocks, arenas) depend only on the
launch's sizes and on the arguments' addresses, sizes, dtypes, flags and scalar values, not
on the arrays' contents: a launch whose key (launch_key) equals an earlier one's runs that
one's plan again. Measured on the bench's plain kernels (docs/performance.md), preparing a
launch took 50-90 us of Python when warm and 130-230 us after other work had evicted it
from the caches: more than some whole launches.

An entry holds no caller's array: its plan holds addresses, which are the same arrays'
addresses when the key matches (the caller passes those arrays to the launch), and it owns
the backups of the written buffers (refreshed from the caller's arrays at each launch:
interp/engine.py's map_arguments, BACKUP).
"""
import collections
import ctypes
import math
import threading

import numpy as np

# Entries kept per program: enough for launches that alternate between a few argument
# sets (ping-pong buffers, a kernel per stage).
MAX_ENTRIES = 8


class CachedLaunch:
    """plan: runtime.LaunchPlan; copies: [(parameter index, backup)] of the written
    buffers (none when the launch runs in place)."""

    def __init__(self, plan, copies):
        self.plan = plan
        self.copies = copies
        self.busy = threading.Lock()   # one launch at a time runs an entry's state
        self.dropped = False           # set (under the cache's lock) once it leaves the cache


class LaunchCache:
    """take(kernel, key): an entry, held by the caller until put back, or None; put(kernel,
    key, entry): keep it (an older entry goes back to the private-buffer pool)."""

    def __init__(self, private_buffers):
        self._entries = collections.OrderedDict()
        self._lock = threading.Lock()
        self._private_buffers = private_buffers
        # (kernel, key, entry) last put back: a launch repeating it takes it without the
        # lock and the ordered dict (a third of a short launch's Python, measured cold).
        self._last = None

    def take(self, kernel, key):
        last = self._last
        if last is not None and last[1] == key and last[0] == kernel and last[2].busy.acquire(blocking=False):
            if not last[2].dropped:      # (checked once held: _release gives back only idle entries)
                return last[2]
            last[2].busy.release()
        with self._lock:
            entry = self._entries.get((kernel, key))
            if entry is None or not entry.busy.acquire(blocking=False):
                return None
            self._entries.move_to_end((kernel, key))
            return entry

    def put(self, kernel, key, entry):
        """Keep `entry` (taken with take, or new) for the next launch with this key; a
        launch without a key (launch_key None) is not kept: its copies go back to the pool."""
        if key is None:
            self.discard(kernel, key, entry)
            return
        last = self._last
        if last is not None and last[2] is entry:        # (_release clears it once dropped)
            entry.busy.release()
            return
        if self._entries.get((kernel, key)) is entry:
            # Taken from here: it stays.
            self._last = (kernel, key, entry)
            if entry.busy.locked():
                entry.busy.release()
            return
        if entry.busy.locked():
            entry.busy.release()
        with self._lock:
            old = self._entries.pop((kernel, key), None)
            self._entries[(kernel, key)] = entry
            dropped = [old] if old is not None and old is not entry else []
            while len(self._entries) > MAX_ENTRIES:
                dropped.append(self._entries.popitem(last=False)[1])
        self._release(dropped)

    def discard(self, kernel, key, entry):
        """Forget `entry` (taken, or new): its copies go back to the pool."""
        with self._lock:
            if key is not None and self._entries.get((kernel, key)) is entry:
                del self._entries[(kernel, key)]
        if entry.busy.locked():
            entry.busy.release()
        self._release([entry])

    def clear(self):
        with self._lock:
            dropped = list(self._entries.values())
            self._entries.clear()
        self._release(dropped)

    def _release(self, dropped):
        """The private copies of dropped entries go back to the pool, except those of an
        entry a launch is running (they are garbage once it is done)."""
        with self._lock:
            for gone in dropped:
                gone.dropped = True
            if self._last is not None and self._last[2].dropped:
                self._last = None
        for gone in dropped:
            if not gone.busy.locked():
                self._private_buffers.give([(None, private) for _, private in gone.copies])


def launch_key(global_size, local_size, args, subgroup_size, instruction_limit, global_offset,
               local_memory_type):
    """What a launch's preparation depends on, as one flat hashable tuple; None for a launch
    with an argument of a kind not listed here (it is prepared anew each time). Kept short:
    it runs before every native launch. local_memory_type: prepare.LocalMemory (a __local
    argument: keyed by its size)."""
    parts = [_sizes_key(global_size), _sizes_key(local_size), _sizes_key(global_offset),
             _scalar_key(subgroup_size), _scalar_key(instruction_limit)]
    for arg in args:
        if type(arg) is np.ndarray:
            # flags.num: contiguity and writeability (prepare.py: _check_buffer, _written_keys).
            parts += (data_address(arg), arg.nbytes, arg.dtype, arg.flags.num)
            if arg.ndim == 0:      # a scalar argument: its value is in the argument block
                parts.append(arg.tobytes())
        elif isinstance(arg, local_memory_type):
            parts.append(("local", arg.nbytes))
        else:
            parts.append(_scalar_key(arg))
    return None if any(part is _NO_KEY for part in parts) else tuple(parts)


def options_key(key, *options):
    """`key` (launch_key) extended with more of a launch's options, None when one is of a
    kind _scalar_key does not key."""
    parts = tuple(_scalar_key(option) for option in options)
    return None if any(part is _NO_KEY for part in parts) else key + parts


def _array_data_field(array):
    """The data pointer of an ndarray read from the array object itself: NumPy's public
    PyArrayObject (PyArray_DATA) keeps it right after the object header. A tenth of the
    cost of __array_interface__, which builds a dict; used only where _data_field_works."""
    return _from_address(id(array) + _DATA_OFFSET).value or 0


def _array_interface_data(array):
    return array.__array_interface__["data"][0]


_from_address = ctypes.c_void_p.from_address
_DATA_OFFSET = object.__basicsize__      # ob_refcnt, ob_type (CPython's id is the address)


def _data_field_works():
    """The field is where PyArray_DATA reads it in this build (a debug build of CPython
    has a larger header): checked on an array and on an offset view of it."""
    base = np.arange(16, dtype=np.int32)
    return all(_array_data_field(a) == _array_interface_data(a) for a in (base, base[3:], base[::2]))


# The address of the first byte of an ndarray or of an instance of a subclass (api maps
# buffers at it).
data_address = _array_data_field if _data_field_works() else _array_interface_data


_NO_KEY = ("no key",)


def _scalar_key(value):
    """Equal keys for values that convert to the same argument bytes: a float is keyed by
    its bits (0.0 == -0.0, and NaN != NaN), every value by its type too (True == 1)."""
    kind = type(value)
    if kind is int or value is None:        # the common case first: it runs per launch
        return (kind, value)
    if isinstance(value, (bool, int, np.integer, np.bool_)):
        return (type(value), value)
    if isinstance(value, (float, np.floating)):
        return (type(value), float(value).hex() if not math.isnan(value) else np.asarray(value).tobytes())
    return _NO_KEY


def _sizes_key(sizes):
    if type(sizes) is tuple and all(type(x) is int for x in sizes):
        return (tuple, sizes)
    if isinstance(sizes, (tuple, list)):
        parts = tuple(_scalar_key(x) for x in sizes)
        return _NO_KEY if any(part is _NO_KEY for part in parts) else parts
    return _scalar_key(sizes)
