"""The interpreter as an engine (clcoop/engine.py's protocol): the reference semantics, which
takes every kernel and every launch.

A launch maps its prepared arguments (clcoop/prepare.py) onto a fresh interp.memory.Memory,
the writable buffers as private copies copied back into the caller's arrays only when the
whole launch succeeds (a fault leaves them untouched), and runs the work-groups in batches
of at most max_lanes work-items (execute.Executor).
"""
import numpy as np

from clcoop.engine import EngineFallbackWarning
from clcoop.errors import IRError, RuntimeFault
from clcoop.interp import execute, translate
from clcoop.ir.loader import METADATA_TABLES
from clcoop.ir.memory import Memory
from clcoop.prepare import PRIVATE, map_arguments


class InterpreterEngine:
    name = "interp"
    fallback_warning = EngineFallbackWarning    # (never issued: the reference takes every launch)

    def __init__(self, module):
        self.module = module
        self.translator = translate.Translator(module)

    @classmethod
    def build(cls, module):
        return cls(module)

    def reason(self, kernel_name):
        return None

    def close(self):
        pass

    def launch(self, kernel, prepared):
        module = self.module
        memory = Memory(pointer_bytes=module.layout.pointer_bytes)
        call_args, copies = map_arguments(prepared, memory, PRIVATE)
        globals_addr = _map_globals(module, memory)
        nd = prepared.nd
        ex = execute.Executor(module, self.translator, kernel, nd, prepared.subgroup_size, memory,
                              prepared.instruction_limit, serial_subgroups=prepared.serial_subgroups)
        groups_per_batch = max(1, prepared.max_lanes // nd.wg_size)
        with np.errstate(all="ignore"):
            for first in range(0, nd.total_groups, groups_per_batch):
                count = min(groups_per_batch, nd.total_groups - first)
                ex.run_batch(first, count, call_args, globals_addr)
        for _, user_array, private in copies:
            np.copyto(user_array, private.reshape(user_array.shape))
        _save_program_globals(module, memory, globals_addr)


def _save_program_globals(module, memory, globals_addr):
    """Program-scope __global variables keep their values from one launch to the next
    (OpenCL C 6.8: their lifetime is the program's), like on an OpenCL device."""
    state = {}
    for name, gv in module.globals.items():
        if gv.addrspace != 3 and not gv.constant and name not in METADATA_TABLES:
            region = memory.region_at(int(globals_addr[name]))
            state[name] = region.data.copy()
    module.global_state = state


def _map_globals(module, memory):
    """Program-scope variables (__constant, __global): one region each for the launch."""
    addrs = {}
    pending = []
    for name, gv in module.globals.items():
        if gv.addrspace == 3:
            continue   # __local: per work-group, mapped per batch
        if name in METADATA_TABLES:
            continue   # nothing of llvm.used and its kind exists at run time (loader.py)
        if gv.init is None:
            raise RuntimeFault(f"external global @{name} has no definition")
        size = module.layout.size(gv.ty)
        region = memory.allocate(f"global variable @{name}", size, writable=not gv.constant,
                                 space=gv.addrspace)
        addrs[name] = np.int64(region.base)
        pending.append((gv, region))
    saved = getattr(module, "global_state", {})
    for gv, region in pending:
        if gv.name in saved:
            region.data[:] = saved[gv.name]
            continue
        data = translate.constant_bytes(gv.init, module.layout, _initializer_addresses(addrs, gv.name))
        region.data[:len(data)] = np.frombuffer(data, np.uint8)
    return addrs


def _initializer_addresses(addrs, holder):
    """The address of a global named in @holder's initializer; an IRError for the globals
    that have none outside a kernel: an intrinsic table (section "llvm.metadata") and a
    __local variable (one per work-group)."""
    def address(name):
        if name in addrs:
            return addrs[name]
        what = ("holds nothing at run time (an intrinsic table of section \"llvm.metadata\")"
                if name in METADATA_TABLES else "is a __local variable: one per work-group, "
                "with no address outside a kernel (OpenCL C 3.0 6.7.2)")
        raise IRError(f"the program-scope variable @{holder} holds the address of @{name}, which {what}")
    return address
