"""Private copies of the writable buffers of a launch, reused from launch to launch.

An interpreter launch runs on private copies of the buffers it may write
(interp/engine.py, map_arguments), copied back only when it succeeds; a native launch writes the
caller's arrays and keeps these copies as backups, copied back when it fails. Either way a
fault leaves the caller's arrays untouched (a launch proven fault-free before it starts
needs none: native/ranges.py). A fresh copy
per launch costs page faults on every page of new memory; on this machine (a virtual CPU)
that made a 1M-element native vector add take 7 ms between interpreter runs instead of
1 ms. A pool keeps the copies of a program's recent launches, by size, for the next ones.
"""
import threading

import numpy as np

# Copies kept per size, and in all: the buffers of a few recent launches.
PER_SIZE = 4
MAX_BYTES = 1 << 30


class PrivateBuffers:
    """take(arr): a private copy of arr; give(copies): the copies of a finished launch."""

    def __init__(self):
        self._free = {}            # nbytes -> [uint8 arrays]
        self._bytes = 0
        self._lock = threading.Lock()

    def take(self, arr):
        with self._lock:
            spare = self._free.get(arr.nbytes)
            raw = spare.pop() if spare else None
            if raw is not None:
                self._bytes -= raw.nbytes
        if raw is None:
            return arr.copy()
        private = raw.view(arr.dtype).reshape(arr.shape)
        np.copyto(private, arr)
        return private

    def give(self, copies):
        with self._lock:
            for _, private in copies:
                raw = private.reshape(-1).view(np.uint8)     # take() made it: contiguous
                spare = self._free.setdefault(raw.nbytes, [])
                if len(spare) < PER_SIZE and self._bytes + raw.nbytes <= MAX_BYTES:
                    spare.append(raw)
                    self._bytes += raw.nbytes
