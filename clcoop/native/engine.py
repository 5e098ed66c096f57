"""The native engine (clcoop/engine.py's protocol): kernels compiled by LLVM for the host
(runtime.NativeProgram), and what its launches keep from one to the next.

A launch runs on the caller's arrays: proven fault-free before it starts (ranges.py), with
no copies; else with backups of the written buffers, copied back when it faults. Its plan
(runtime.LaunchPlan) and backups are kept for the next launch with the same launch key
(launch_cache.py), which then skips the proof and the plan. docs/native.md describes it.
"""
import numpy as np

from clcoop.engine import LaunchNotTaken
from clcoop.errors import RuntimeFault
from clcoop.prepare import BACKUP, DIRECT, map_arguments
from clcoop.ir.memory import Memory
from clcoop.launch_cache import CachedLaunch, LaunchCache
from clcoop.native.runtime import NativeProgram
from clcoop.native.support import NativeFallbackWarning, WorkItemPathUnavailable
from clcoop.prepare import BUFFER, LOCAL, SCALAR, STRUCT
from clcoop.private_buffers import PrivateBuffers


class NativeEngine:
    name = "native"
    fallback_warning = NativeFallbackWarning

    def __init__(self, program):
        self.program = program                              # runtime.NativeProgram
        self.private_buffers = PrivateBuffers()             # the launches' backups
        self.launches = LaunchCache(self.private_buffers)   # their plans, for the next ones

    @classmethod
    def build(cls, module):
        return cls(NativeProgram(module))

    def reason(self, kernel_name):
        return self.program.reason(kernel_name)

    def close(self):
        self.launches.clear()
        self.program.close()

    def launch(self, kernel, prepared):
        """A launch planned anew, or the plan of an earlier launch with the same key run
        again. LaunchNotTaken for a launch the kernel's native build does not take
        (support.WorkItemPathUnavailable), with the caller's arrays as they were passed."""
        program = self.program
        program.prewake(kernel.name)
        key = prepared.key
        entry = self.launches.take(kernel.name, key) if key is not None else None
        fresh = entry is None
        if fresh:
            entry = self._plan(kernel, prepared)
        backups = [(prepared.values[i], backup) for i, backup in entry.copies]
        if not fresh:
            for user_array, backup in backups:
                np.copyto(backup, user_array.reshape(backup.shape))

        def restore():
            # The written buffers as the caller passed them (a fault, or the fast path's
            # restart on the per-work-item path).
            for user_array, backup in backups:
                np.copyto(user_array, backup.reshape(user_array.shape))
        try:
            program.run_plan(entry.plan, restore)
        except RuntimeFault:
            restore()
            self.launches.put(kernel.name, key, entry)
            raise
        except WorkItemPathUnavailable as why:
            restore()
            self.launches.put(kernel.name, key, entry)
            raise LaunchNotTaken(str(why)) from None
        except BaseException:
            # Not a fault of the kernel (an internal error, an interrupt): forget the entry.
            restore()
            self.launches.discard(kernel.name, key, entry)
            raise
        self.launches.put(kernel.name, key, entry)

    def _plan(self, kernel, prepared):
        """A new CachedLaunch: the launch mapped on the caller's arrays (with backups of the
        written buffers unless the launch is proven fault-free) and planned."""
        facts = proof_facts(prepared)
        direct = facts is not None and self.program.proves_in_place(kernel, prepared.nd, *facts,
                                                                    prepared.instruction_limit)
        memory = Memory(pointer_bytes=self.program.module.layout.pointer_bytes)
        call_args, copies = map_arguments(prepared, memory, DIRECT if direct else BACKUP,
                                          self.private_buffers.take)
        mapped = MappedLaunch(prepared.nd, prepared.subgroup_size, memory, call_args, direct)
        try:
            plan = self.program.plan_launch(kernel, mapped, prepared.instruction_limit)
        except WorkItemPathUnavailable as why:
            self.private_buffers.give([(user, copy) for _, user, copy in copies])
            raise LaunchNotTaken(str(why)) from None
        except BaseException:
            self.private_buffers.give([(user, copy) for _, user, copy in copies])
            raise
        return CachedLaunch(plan, [(i, copy) for i, _, copy in copies])


class MappedLaunch:
    """What NativeProgram.plan_launch reads of a launch: nd, subgroup_size, memory and
    call_args (prepare.map_arguments), in_place (it runs on the caller's arrays)."""

    def __init__(self, nd, subgroup_size, memory, call_args, in_place):
        self.nd, self.subgroup_size, self.memory = nd, subgroup_size, memory
        self.call_args, self.in_place = call_args, in_place


def proof_facts(prepared):
    """What the proof (ranges.py) needs of a launch's arguments: ({param: int} of the
    integer scalars, {param: (nbytes, writable)} of the buffers); None when an argument is
    one the proof does not model (a __local buffer, a struct passed by value)."""
    scalars, buffers = {}, {}
    for arg in prepared.arguments:
        if arg.kind in (LOCAL, STRUCT):
            return None
        if arg.kind == BUFFER:
            buffers[arg.index] = (arg.nbytes, arg.writable)
        elif arg.kind == SCALAR and arg.dtype.kind in "iub" and np.ndim(arg.value) == 0:
            scalars[arg.index] = int(arg.value)
    return scalars, buffers
