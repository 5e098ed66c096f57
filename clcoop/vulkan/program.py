"""A Vulkan module loaded on a device, and its kernels launched with the pyopencl-style
convention of the other engines:

    prog = VulkanProgram(open("k.spv", "rb").read())
    timings = prog.gemm((N // 16 * 32, M // 16), (32, 1), A, B, C, M, N, K)

The module carries its kernels' signatures (docs/vulkan-abi.md), so this needs NumPy and the
Vulkan loader alone. Before a kernel is dispatched, its matrix types, multiply-adds, subgroup
size and extensions are checked against the device (capabilities.check_kernel) and its sizes
against the device's limits.
"""
import hashlib
import threading
import time
from dataclasses import dataclass
from types import SimpleNamespace

import numpy as np

from clcoop.errors import ArgumentError, UnsupportedOnDevice
from clcoop.prepare import DEFAULT_INSTRUCTION_LIMIT, DEFAULT_MAX_LANES
from clcoop.prepare import KEPT_PREPARATIONS, LocalMemory, Preparations
from clcoop.spirv.binary import read_module
from clcoop.spirv.reflection import read_reflection
from clcoop.vulkan import device as devices
from clcoop.vulkan.arguments import LOCAL_SIZE_SPEC_IDS, _local_length, check_record, kernel_info, marshal, scalar_bytes, \
    specialization
from clcoop.vulkan.capabilities import check_kernel, unsupported_reason
from clcoop.vulkan.pipeline import Pipelines
from clcoop.vulkan.record_check import check_module_record
from clcoop.vulkan.runner import Launch, runner
from clcoop.vulkan.statistics import executables, require_statistics
from clcoop.vulkan.workgroup_memory import WorkgroupMemory, workgroup_memory_problem


# SPIR-V 1.6, 3.52.18 "Atomic Instructions": OpAtomicLoad (227) to OpAtomicXor (242), the
# flag instructions (318, 319), and OpAtomicFMinEXT, OpAtomicFMaxEXT, OpAtomicFAddEXT.
ATOMIC_OPCODES = frozenset((*range(227, 243), 318, 319, 5614, 5615, 6035))


def has_atomics(module_bytes):
    """Whether the module has any atomic instruction (runner.Launch.direct_writes)."""
    return any(inst.opcode in ATOMIC_OPCODES for inst in read_module(module_bytes).instructions)


class VulkanProgram:
    """module_bytes: a Vulkan SPIR-V module with a reflection record; device: an index or
    name substring (default: CLCOOP_VULKAN_DEVICE, else the first device with the
    extensions the module's kernels need)."""

    def __init__(self, module_bytes, device=None):
        self.module_bytes = bytes(module_bytes)
        self.records = read_reflection(self.module_bytes)
        for name, record in self.records.items():
            check_record(name, record)
        check_module_record(self.module_bytes, self.records)     # before the device sees anything
        needed = sorted({e for r in self.records.values() for e in r.get("device_extensions") or ()})
        all_descriptions = devices.descriptions()
        self.device = devices.device(devices.choose(all_descriptions, needed, device))
        self.description = self.device.description
        self.workgroup_memory = WorkgroupMemory(self.module_bytes)
        self.pipelines = Pipelines(self.device, self.module_bytes)
        self.device.close_hooks.append(self.pipelines.destroy)     # destroyed before the device
        self._kernels = {}
        self._reasons = {}       # kernel name -> reason(): the record and the device do not change
        self.has_atomics = has_atomics(self.module_bytes)

    @property
    def kernel_names(self):
        return sorted(self.records)

    def kernel(self, name):
        kernel = self._kernels.get(name)
        if kernel is None:
            if name not in self.records:
                raise ArgumentError(f"no kernel named '{name}' in the module (available: "
                                    f"{', '.join(self.kernel_names) or 'none'})")
            kernel = self._kernels[name] = VulkanKernel(self, name)
        return kernel

    def __getattr__(self, name):
        if name.startswith("_"):
            raise AttributeError(name)
        return self.kernel(name)

    def run(self, name, global_size, local_size, *args, **options):
        """kernel(name)(global_size, local_size, *args, **options), as Program.run."""
        return self.kernel(name)(global_size, local_size, *args, **options)

    def reason(self, name):
        """Why the device cannot run kernel `name` (before its launch size is known), or None
        (asked before every launch through clcoop.Program: kept)."""
        if name in self._reasons:
            return self._reasons[name]
        why = self._reasons[name] = self._reason(name)
        return why

    def _reason(self, name):
        why = unsupported_reason(name, self.records[name], self.description)
        if why is None:     # its own __local arrays, whatever LocalMemory arguments it gets
            record = self.records[name]
            none = {arg["spec_id"]: 0 for arg in record["args"] if arg["kind"] == "local"}
            error = workgroup_memory_problem(name, record, self.workgroup_memory, none, self.description)
            why = str(error) if isinstance(error, UnsupportedOnDevice) else None
        return why

    def close(self):
        """Destroy the program's pipelines (after the device's work is done)."""
        with self.device.lock:
            if self.pipelines.destroy in self.device.close_hooks:
                self.device.close_hooks.remove(self.pipelines.destroy)
            if not (self.device.lost or self.device.busy or self.device.closed):
                self.device.vk.vkDeviceWaitIdle(self.device.handle)
                self.pipelines.destroy()


@dataclass
class _Plan:
    """A launch checked against the device, the same for every launch with its launch key:
    the marshalled arguments, the subgroup size to require, whether subgroups are full, the
    bytes of each slot's array, and the runner.Launch (made under the device's lock)."""
    marshalled: object
    subgroup_size: object
    full_subgroups: bool
    sizes: tuple
    launch: object = None
    generation: int = -1


class VulkanKernel:
    def __init__(self, program, name):
        self.program = program
        self.name = name
        self.record = program.records[name]
        self.info = kernel_info(name, self.record)
        self._preparations = Preparations(None, self.info)     # equal launches are checked once
        self._memory_checked = set()     # specializations whose Workgroup memory fits the device
        self._plans = {}                 # (launch key, subgroup_size) -> checked (Marshalled, size, full)
        self._plans_lock = threading.Lock()
        self._launches = {}              # content of a plan -> its runner.Launch (made under the device's lock)
        self._launches_generation = -1
        self.last_timings = None

    def __repr__(self):
        return f"<clcoop.vulkan kernel {self.name}({', '.join(a.get('type', '?') for a in self.record['args'])})>"

    def __call__(self, global_size, local_size, *args, subgroup_size=None, global_offset=None, timeout=None,
                 repeat=1, gpu_times=False, specialize=()):
        """One launch (repeat: dispatches of it in one submission, for timing; gpu_times: each
        dispatch timed on the GPU, Timings.gpu; specialize: names of scalar arguments whose
        values the pipeline is specialized with); the written arrays hold the results; returns
        the runner.Timings."""
        start = time.perf_counter()
        prepared = self._preparations.prepare(global_size, local_size, args, None, DEFAULT_INSTRUCTION_LIMIT,
                                              DEFAULT_MAX_LANES, global_offset, False)
        if specialize:
            prepared = prepared.specialized(self.info, specialize)
        timings = self.launch_prepared(prepared, subgroup_size, timeout, repeat, gpu_times)
        timings.total = time.perf_counter() - start
        return timings

    def launch_prepared(self, prepared, subgroup_size=None, timeout=None, repeat=1, gpu_times=False):
        """A launch checked by clcoop.prepare (the engine protocol's entry)."""
        if isinstance(repeat, bool) or not isinstance(repeat, int) or repeat < 1:
            raise ArgumentError(f"repeat must be a positive integer, got {repeat!r}")
        if timeout is not None and (isinstance(timeout, bool) or not isinstance(timeout, (int, float)) or
                                    not 0 < timeout < 1e9):
            raise ArgumentError(f"timeout must be a positive number of seconds, got {timeout!r}")
        device = self.program.device
        plan = self._plan(prepared, subgroup_size)
        with device.lock:        # one thread at a time makes pipelines and submits
            device.require_usable()
            timings = runner(device).run(self._launch(plan), plan.marshalled.arrays(prepared.values), repeat, timeout,
                                         bool(gpu_times))
        self.last_timings = timings
        return timings

    def _launch(self, plan):
        """The plan's runner.Launch, its pipeline made on first use; made again after any
        Vulkan object was destroyed (a closed program's pipelines are made anew). Plans that
        differ only in their arrays' host addresses share one Launch, and so one recording."""
        generation = self.program.device.generation
        if plan.launch is None or plan.generation != generation:
            m = plan.marshalled
            key = (m.fields, tuple(sorted(m.constants.items())), plan.subgroup_size, plan.full_subgroups, m.groups,
                   plan.sizes, m.slots)
            if self._launches_generation != generation:
                self._launches, self._launches_generation = {}, generation
            launch = self._launches.get(key)
            if launch is None:
                if len(self._launches) >= KEPT_PREPARATIONS:
                    self._launches.pop(next(iter(self._launches)))
                launch = self._launches[key] = self._new_launch(plan)
            plan.launch, plan.generation = launch, generation
        return plan.launch

    def _new_launch(self, plan):
        program, marshalled = self.program, plan.marshalled
        push_size = self.record.get("push_constant_size", 0)
        pipeline = program.pipelines.pipeline(self.name, push_size, marshalled.constants, plan.subgroup_size,
                                              plan.full_subgroups)
        return Launch(pipeline.value, program.pipelines.layout(push_size).value, marshalled.push, marshalled.groups,
                      plan.sizes, marshalled.written(), direct_writes=not program.has_atomics)

    def _plan(self, prepared, subgroup_size):
        """The _Plan of a launch (Marshalled, subgroup size to require, full subgroups),
        checked against the device. It depends on nothing but the launch key (sizes, scalars,
        array sizes and dtypes, LocalMemory sizes) and the subgroup size, so a launch with a
        key seen before reuses it unchecked (prepare.Preparations does the same for the
        arguments)."""
        key = (prepared.key, subgroup_size, prepared.specialize) \
            if prepared.key is not None and type(subgroup_size) in (int, type(None)) else None
        plan = self._plans.get(key) if key is not None else None
        if plan is None:
            marshalled = marshal(self.name, self.record, prepared)
            check_kernel(self.name, self.record, self.program.description, marshalled.local_size)
            self._check_limits(marshalled)
            sizes = tuple(prepared.values[index].nbytes for index, _ in marshalled.slots)
            plan = _Plan(marshalled, *self._subgroup(subgroup_size, marshalled.local_size), sizes)
            if key is not None:
                with self._plans_lock:
                    if len(self._plans) >= KEPT_PREPARATIONS:
                        self._plans.pop(next(iter(self._plans)))
                    self._plans[key] = plan
        return plan

    def statistics(self, local_size=None, local_memory=None, subgroup_size=None, representations=False,
                   specialize=None):
        """The driver's statistics of the pipeline a launch with this local size would use
        (VK_KHR_pipeline_executable_properties; statistics.py says what comes back): a list
        of executables, each {name, description, stages, subgroup_size, statistics: {name:
        (value, description)}}, and "representations" (the driver's IR and assembly) when
        asked. local_size: required unless the kernel has reqd_work_group_size; local_memory:
        {argument name: LocalMemory or bytes} for each __local argument (its length
        specializes the pipeline); subgroup_size as for a launch; specialize: {scalar argument
        name: value} for the pipeline a launch with specialize= would use. UnsupportedOnDevice
        when the device cannot report statistics, or cannot run the kernel."""
        device = self.program.device
        local = self._statistics_local_size(local_size)
        constants = {} if self.record.get("local_size") else dict(zip(LOCAL_SIZE_SPEC_IDS, local))
        constants.update(self._local_lengths(local_memory or {}))
        constants.update(self._specialized_values(specialize or {}))
        require_statistics(device, f"kernel '{self.name}'")
        check_kernel(self.name, self.record, self.program.description, local)
        self._check_limits(SimpleNamespace(local_size=local, groups=(1, 1, 1), constants=constants))
        required, full = self._subgroup(subgroup_size, local)
        with device.lock:
            device.require_usable()
            pipeline = self.program.pipelines.pipeline(self.name, self.record.get("push_constant_size", 0), constants,
                                                       required, full, representations)
            return executables(device, pipeline.value, representations, f"kernel '{self.name}'")

    def _statistics_local_size(self, local_size):
        """The local size of statistics(): the kernel's reqd_work_group_size or the one given, as 3 sizes."""
        fixed = tuple(self.record["local_size"]) if self.record.get("local_size") else None
        if local_size is None:
            if fixed is None:
                raise ArgumentError(f"kernel '{self.name}' has no reqd_work_group_size: its pipeline is specialized "
                                    f"for the launch's local size; give local_size=")
            return fixed
        sizes = tuple(local_size) if isinstance(local_size, (tuple, list)) else (local_size,)
        if not 1 <= len(sizes) <= 3 or any(isinstance(s, bool) or not hasattr(s, "__index__") or int(s) < 1
                                           for s in sizes):
            raise ArgumentError(f"local_size must be 1 to 3 positive integers, got {local_size!r}")
        sizes = tuple(int(s) for s in sizes) + (1,) * (3 - len(sizes))
        if fixed is not None and sizes != fixed:
            raise ArgumentError(f"kernel '{self.name}' has reqd_work_group_size{fixed}, got local_size={sizes}")
        return sizes

    def _specialized_values(self, values):
        """{SpecId: value} of statistics(specialize={name: value}), as a launch makes them."""
        entries = {arg["name"]: arg for arg in self.record["args"] if arg["kind"] == "scalar"}
        if not isinstance(values, dict):
            raise ArgumentError(f"kernel '{self.name}': specialize must be {{argument name: value}}, got {values!r}")
        constants = {}
        for name, value in values.items():
            entry = entries.get(name)
            if entry is None:
                raise ArgumentError(f"kernel '{self.name}': specialize names {name!r}, which is not one of its "
                                    f"scalar arguments ({', '.join(entries) or 'it has none'})")
            try:
                typed = np.dtype(entry["dtype"]).type(value)
            except (OverflowError, ValueError, TypeError):
                raise ArgumentError(f"kernel '{self.name}': specialize[{name!r}] = {value!r} is not a "
                                    f"{entry['dtype']}") from None
            constants.update(specialization(self.name, entry, scalar_bytes(self.name, entry, typed)))
        return constants

    def _local_lengths(self, local_memory):
        """{SpecId: element count} of the __local arguments from {name: LocalMemory or bytes}."""
        entries = {arg["name"]: arg for arg in self.record["args"] if arg["kind"] == "local"}
        unknown = sorted(set(local_memory) - set(entries))
        missing = sorted(set(entries) - set(local_memory))
        if unknown or missing:
            raise ArgumentError(f"kernel '{self.name}': local_memory must give the bytes of each __local argument "
                                f"({', '.join(entries) or 'it has none'})"
                                + (f"; not one: {', '.join(unknown)}" if unknown else "")
                                + (f"; missing: {', '.join(missing)}" if missing else ""))
        lengths = {}
        for name, size in local_memory.items():
            nbytes = size.nbytes if isinstance(size, LocalMemory) else size     # (a NumPy integer's nbytes is its own)
            if isinstance(nbytes, bool) or not hasattr(nbytes, "__index__") or int(nbytes) < 1:
                raise ArgumentError(f"kernel '{self.name}': local_memory['{name}'] must be a LocalMemory or a "
                                    f"positive byte count, got {size!r}")
            lengths[entries[name]["spec_id"]] = _local_length(self.name, entries[name], int(nbytes))
        return lengths

    def _subgroup(self, requested, local_size):
        """(the subgroup size to require or None, whether to require full subgroups)."""
        description = self.program.description
        want = self.record.get("subgroup_size")
        if requested is not None:
            if isinstance(requested, bool) or not isinstance(requested, int) or requested < 1:
                raise ArgumentError(f"subgroup_size must be a positive integer, got {requested!r}")
            if want is not None and requested != want:
                raise ArgumentError(f"kernel '{self.name}' requires sub-group size {want}, got "
                                    f"subgroup_size={requested}")
            want = requested
            check_kernel(self.name, {"subgroup_size": want}, description)
        if want is None:
            return None, False
        full = local_size[0] % want == 0
        fixed = description.min_subgroup_size == description.max_subgroup_size == want
        return (None if fixed else want), full and description.features.get("computeFullSubgroups", False)

    def _check_limits(self, marshalled):
        d = self.program.description
        local, groups = marshalled.local_size, marshalled.groups
        invocations = local[0] * local[1] * local[2]
        problems = []
        if any(l > m for l, m in zip(local, d.max_workgroup_size)) or invocations > d.max_workgroup_invocations:
            problems.append(f"local size {local} exceeds the device's maximum work-group size "
                            f"{tuple(d.max_workgroup_size)} ({d.max_workgroup_invocations} invocations)")
        if any(g > m for g, m in zip(groups, d.max_workgroup_count)):
            problems.append(f"{groups} work-groups exceed the device's maximum count {tuple(d.max_workgroup_count)}")
        push_size = self.record.get("push_constant_size", 0)
        if push_size > d.max_push_constants_size:
            problems.append(f"the arguments take {push_size} bytes of push constants, the device has "
                            f"{d.max_push_constants_size}")
        if problems:
            raise ArgumentError(f"kernel '{self.name}' cannot launch on {d.title()}: " + "; ".join(problems))
        self._check_workgroup_memory(marshalled.constants)

    def _check_workgroup_memory(self, constants):
        """UnsupportedOnDevice when the kernel's own __local arrays exceed the device's shared
        memory, ArgumentError when its LocalMemory arguments make the launch exceed it."""
        key = tuple(sorted(constants.items()))
        if key in self._memory_checked:
            return
        why = workgroup_memory_problem(self.name, self.record, self.program.workgroup_memory, constants,
                                       self.program.description)
        if why is not None:
            raise why
        self._memory_checked.add(key)


# ---------------------------------------------------------------------- one-call helper

_programs = {}
_programs_lock = threading.Lock()
KEPT_PROGRAMS = 16


def program_for(module_bytes, device=None):
    """The VulkanProgram of these module bytes on `device`, kept for later calls."""
    key = (hashlib.sha256(bytes(module_bytes)).hexdigest(), device)
    with _programs_lock:
        program = _programs.get(key)
        if program is None:
            if len(_programs) >= KEPT_PROGRAMS:
                _programs.pop(next(iter(_programs))).close()
            program = _programs[key] = VulkanProgram(module_bytes, device)
        return program


def run_kernel(module_bytes, kernel, global_size, local_size, args, subgroup_size=None, global_offset=None,
               repeat=1, timeout=None, device=None, gpu_times=True, specialize=()):
    """Run kernel `kernel` of a Vulkan module once (scripts/gpu_check.py's entry):
    returns ({argument name: array} of the buffers it may write, runner.Timings, with the
    dispatches' GPU times unless gpu_times=False). The arrays in `args` are updated in
    place; the returned ones are those same arrays."""
    program = program_for(module_bytes, device)
    target = program.kernel(kernel)
    timings = target(global_size, local_size, *args, subgroup_size=subgroup_size, global_offset=global_offset,
                     timeout=timeout, repeat=repeat, gpu_times=gpu_times, specialize=specialize)
    outputs = {entry["name"]: value for entry, value in zip(target.record["args"], args)
               if entry["kind"] == "global" and entry.get("writable", True) and hasattr(value, "dtype")}
    return outputs, timings
