"""One launch on a device: the arrays into device-visible memory, the dispatch, the written
arrays back, in one command buffer submitted with a fence, and the timings.

Where an array lives (memory.py): a small one (at most Runner.direct_max_bytes) in a mapped
host-visible buffer that the kernel reads and writes in place, a large one in device-local
memory through the staging buffer (and so is a written one when the module has atomics). The command buffer (Vulkan 1.3, 7. Synchronization):
copies staging -> device buffers and a barrier (transfer writes -> shader reads and writes),
when any array is staged (the host's writes into mapped memory need no barrier: a queue
submission makes them visible, 7.9 "Host Write Ordering Guarantees"); the query reset; per
repetition a timestamp, the dispatch, a timestamp and, between repetitions, a barrier
(shader writes -> shader reads and writes); when a written array is staged, a barrier
(shader writes -> transfer reads) and its copy -> staging; the timestamps copied into a
mapped buffer (vkCmdCopyQueryPoolResults, no vkGetQueryPoolResults call after the launch);
a barrier (shader and transfer writes -> host reads).

A launch reuses what the launches before it made: buffers from pools (the same sizes get the
same buffers back), one fence, and a recorded command buffer per distinct launch (its
pipeline, push constants, work-group count, buffers, repetitions), kept for the last
KEPT_RECORDINGS of them: a repeated launch copies its arrays in, submits, waits and copies
the results out, with no Vulkan object made and no command recorded.

The host waits on the fence at most `timeout` seconds, first spinning on vkGetFenceStatus
for at most Runner.spin_s on a GPU (a blocking wait's wake-up costs more than a small
kernel's run; CUDA's default synchronisation spins too), then blocking in slices: a launch
still running then raises DeviceTimeout, and its resources stay reserved until a later
launch finds it finished (nothing the GPU may still use is freed or reused).
VK_ERROR_DEVICE_LOST marks the device lost for good (DeviceLost).
"""
import ctypes
import os
import struct
import time
from dataclasses import dataclass

from clcoop.errors import DeviceTimeout
from clcoop.launch_cache import data_address
from clcoop.vulkan import vk
from clcoop.vulkan.memory import BufferPool, Staging, device_buffer, direct_input_buffer, direct_output_buffer

TIMEOUT_ENV = "CLCOOP_VULKAN_TIMEOUT"
SPIN_ENV = "CLCOOP_VULKAN_SPIN_US"
DEFAULT_TIMEOUT_S = 60.0
DEFAULT_SPIN_S = 0.001        # on a GPU; none on a CPU device (its threads run the launch: spinning slows it)
DIRECT_MAX_BYTES = 64 * 1024  # larger arrays are staged: a kernel may read them many times
STAGING_ALIGNMENT = 256       # copy offsets aligned generously (optimalBufferCopyOffsetAlignment <= 256)
WAIT_SLICE_S = 0.1            # the longest single wait: Python sees Ctrl-C between waits
KEPT_RECORDINGS = 8           # command buffers recorded for distinct launches, kept for their repeats
STAGED, DIRECT_IN, DIRECT_OUT = "staged", "direct input", "direct output"


def default_timeout():
    text = os.environ.get(TIMEOUT_ENV)
    try:
        return float(text) if text else DEFAULT_TIMEOUT_S
    except ValueError:
        return DEFAULT_TIMEOUT_S


def default_spin(description):
    """Seconds to spin on the fence before a blocking wait: CLCOOP_VULKAN_SPIN_US, else
    DEFAULT_SPIN_S on a GPU and 0 on a CPU device."""
    fallback = 0.0 if description.device_type == "CPU" else DEFAULT_SPIN_S
    text = os.environ.get(SPIN_ENV)
    try:
        return max(0.0, float(text) * 1e-6) if text else fallback
    except ValueError:          # as default_timeout: a value that is no number is ignored
        return fallback


@dataclass
class Timings:
    """Seconds, host wall times. upload: the arrays copied into mapped memory; record: the
    command buffer recorded (0 when a recording was reused); submit: vkResetFences and
    vkQueueSubmit; wait: until the fence is seen signalled (copies, dispatches, the GPU's
    latency); download: the written arrays copied out; runner: the whole Runner.run (these
    and its bookkeeping); total: the whole call, argument checks included (set by
    VulkanKernel.__call__; 0 for a launch through clcoop.Program, which the caller times).
    gpu: each dispatch's time from its timestamps (empty unless the launch asked for them,
    gpu_times=True, and the queue has them)."""
    upload: float = 0.0
    record: float = 0.0
    submit: float = 0.0
    wait: float = 0.0
    download: float = 0.0
    runner: float = 0.0
    total: float = 0.0
    ticks: bytes = b""            # the timestamps as the GPU wrote them (2 per repetition)
    tick_mask: int = 0
    tick_period_s: float = 0.0

    @property
    def submit_to_done(self):
        """vkQueueSubmit to the fence seen signalled."""
        return self.submit + self.wait

    @property
    def gpu(self):
        ticks = struct.unpack(f"<{len(self.ticks) // 8}Q", self.ticks)
        return [((end - start) & self.tick_mask) * self.tick_period_s for start, end in zip(ticks[::2], ticks[1::2])]

    def as_dict(self):
        return {"upload_s": self.upload, "record_s": self.record, "submit_s": self.submit, "wait_s": self.wait,
                "submit_to_done_s": self.submit_to_done, "download_s": self.download, "runner_s": self.runner,
                "total_s": self.total, "gpu_s": self.gpu}


@dataclass(frozen=True, eq=False)       # compared and hashed by identity: a recording's key holds it
class Launch:
    """A kernel's launch in the runner's terms, the same for every launch with one launch key:
    pipeline and layout (handles), push(addresses) -> the push-constant bytes (addresses are
    known once buffers are taken), the work-group count, per distinct array its bytes and
    whether it comes back, and whether a written array may live in host memory (not when the
    module has atomics: a device's atomics on host memory across PCIe need the platform's
    optional PCIe AtomicOps, and CUDA documents them as not atomic towards the host)."""
    pipeline: int
    layout: int
    push: object
    groups: tuple
    sizes: tuple
    written: tuple
    direct_writes: bool = True


@dataclass(frozen=True, eq=False)       # by identity, as Launch
class Placement:
    """Where a launch's arrays live: per array its pool (STAGED, DIRECT_IN, DIRECT_OUT) and
    staging offset (staged arrays), and the staging bytes in all."""
    pools: tuple
    offsets: tuple
    staging_bytes: int


def placement(sizes, written, direct_max_bytes, direct_writes=True):
    pools, offsets, offset = [], [], 0
    for nbytes, back in zip(sizes, written):
        if nbytes <= direct_max_bytes and (direct_writes or not back):
            pools.append(DIRECT_OUT if back else DIRECT_IN)
            offsets.append(0)
        else:
            pools.append(STAGED)
            offsets.append(offset)
            offset = _align(offset + nbytes)
    return Placement(tuple(pools), tuple(offsets), offset)


class Recording:
    """One command buffer and the VkSubmitInfo that submits it (made once)."""

    def __init__(self, commands):
        self.commands = commands
        self._array = (vk.VP * 1)(commands)
        self.submit = vk.VkSubmitInfo(vk.ST_SUBMIT_INFO, None, 0, None, None, 1, ctypes.cast(self._array, vk.VP),
                                      0, None)


def _align(value, alignment=STAGING_ALIGNMENT):
    return (value + alignment - 1) // alignment * alignment


class Runner:
    """The per-device launch machinery: command pool and recordings, fence, timestamp queries,
    the buffer pools and staging. One launch at a time (device.lock). direct_max_bytes and
    spin_s may be changed between launches (scripts/gpu_check.py measures both ways)."""

    def __init__(self, device):
        self.device = device
        self.api = device.vk
        self.pools = {STAGED: BufferPool(device, device_buffer), DIRECT_IN: BufferPool(device, direct_input_buffer),
                      DIRECT_OUT: BufferPool(device, direct_output_buffer)}
        self.staging = Staging(device)
        self.tick_buffer = Staging(device)        # where the timestamps are copied
        self.direct_max_bytes = DIRECT_MAX_BYTES
        self.spin_s = default_spin(device.description)
        self.pending = None           # (fence, buffers) of a launch that timed out
        self.recordings = {}          # recording key -> Recording, oldest first
        self.recorded = None          # the Recording the last launch submitted
        self._spare = []              # Recordings whose command buffers may be recorded anew
        self._placements = {}
        self.command_pool = vk.HANDLE(0)
        self.query_pool = vk.HANDLE(0)
        self.query_count = 0
        info = vk.VkCommandPoolCreateInfo(vk.ST_COMMAND_POOL_CREATE_INFO, None,
                                          vk.COMMAND_POOL_CREATE_RESET_COMMAND_BUFFER_BIT, device.queue_family)
        device.check(self.api.vkCreateCommandPool(device.handle, ctypes.byref(info), None,
                                                  ctypes.byref(self.command_pool)), "creating a command pool")
        self.fence = self._fence()
        tick_bits = device.timestamp_bits
        self._tick_mask = (1 << tick_bits) - 1 if tick_bits < 64 else (1 << 64) - 1
        self._tick_period_s = device.description.timestamp_period_ns * 1e-9
        device.close_hooks.append(self.destroy)

    def _fence(self):
        fence = vk.HANDLE(0)
        info = vk.VkFenceCreateInfo(vk.ST_FENCE_CREATE_INFO, None, 0)
        self.device.check(self.api.vkCreateFence(self.device.handle, ctypes.byref(info), None, ctypes.byref(fence)),
                          "creating a fence")
        return fence

    def _queries(self, count):
        if self.device.timestamp_bits == 0:
            return False
        if self.query_count < count:
            if self.query_pool.value:
                self.api.vkDestroyQueryPool(self.device.handle, self.query_pool, None)
                self.query_pool = vk.HANDLE(0)
                self.device.generation += 1
            info = vk.VkQueryPoolCreateInfo(vk.ST_QUERY_POOL_CREATE_INFO, None, 0, vk.QUERY_TYPE_TIMESTAMP, count, 0)
            self.device.check(self.api.vkCreateQueryPool(self.device.handle, ctypes.byref(info), None,
                                                         ctypes.byref(self.query_pool)), "creating a query pool")
            self.query_count = count
        return True

    # ---------------------------------------------------------------------------- launch

    def run(self, launch, arrays, repeat=1, timeout=None, gpu_times=False):
        """Dispatch `launch` `repeat` times with `arrays` (the caller's C-contiguous arrays,
        one per distinct buffer, in launch.sizes' order); gpu_times: time each dispatch with
        timestamps (opt-in, as OpenCL's CL_QUEUE_PROFILING_ENABLE: on lavapipe they cost more
        than the launch). Returns Timings; the written arrays hold the results."""
        timeout = default_timeout() if timeout is None else float(timeout)
        device = self.device
        with device.lock:
            clock = time.perf_counter
            start = clock()
            device.require_usable()
            if self.pending is not None:
                self._settle(timeout)
            timings = Timings()
            where = self._placement(launch)
            buffers = []
            try:
                self._take_buffers(launch, where, buffers)
                targets = self._targets(where, buffers)
                mark = clock()
                self._upload(launch, arrays, targets)
                timings.upload = clock() - mark
                with_times = gpu_times and self._queries(2 * repeat)
                mark = clock()
                self.recorded, recorded_now = self._recording(launch, where, buffers, repeat, with_times)
                timings.record = clock() - mark if recorded_now else 0.0
                mark = clock()
                self._submit(self.recorded)
                timings.submit = clock() - mark
                mark = clock()
                self._finish(timeout, where, buffers)
                timings.wait = clock() - mark
            except BaseException:       # (buffers a launch left running holds are no longer here)
                self._give_back(where, buffers)
                raise
            mark = clock()
            self._download(launch, arrays, targets)
            timings.download = clock() - mark
            if with_times:
                timings.ticks = ctypes.string_at(self.tick_buffer.buffer.mapped, 16 * repeat)
                timings.tick_mask, timings.tick_period_s = self._tick_mask, self._tick_period_s
            self._give_back(where, buffers)
            timings.runner = clock() - start
            return timings

    def _placement(self, launch):
        key = (launch.sizes, launch.written, self.direct_max_bytes, launch.direct_writes)
        found = self._placements.get(key)
        if found is None:
            if len(self._placements) >= 4 * KEPT_RECORDINGS:
                self._placements.clear()
            found = self._placements[key] = placement(*key)
        return found

    def _take_buffers(self, launch, where, buffers):
        """The launch's buffers, appended to `buffers` as they are taken (so that a failure
        gives back those already taken)."""
        pools = self.pools
        for nbytes, pool in zip(launch.sizes, where.pools):
            buffers.append(pools[pool].take(max(nbytes, 1)))
        if where.staging_bytes:
            self.staging.reserve(where.staging_bytes)

    def _give_back(self, where, buffers):
        """The launch's buffers back to their pools, in reverse: the next launch with the same
        sizes takes the same buffers (the pools are last in, first out) and reuses its recording."""
        for buffer, pool in zip(reversed(buffers), reversed(where.pools[:len(buffers)])):
            self.pools[pool].give([buffer])

    def _targets(self, where, buffers):
        """Per array, the host address its bytes go to and come back from."""
        staging = self.staging.buffer.mapped if where.staging_bytes else 0
        return [buffer.mapped if pool != STAGED else staging + offset
                for buffer, pool, offset in zip(buffers, where.pools, where.offsets)]

    @staticmethod
    def _upload(launch, arrays, targets):
        move = ctypes.memmove
        for array, target, nbytes in zip(arrays, targets, launch.sizes):
            if nbytes:
                move(target, data_address(array), nbytes)

    @staticmethod
    def _download(launch, arrays, targets):
        move = ctypes.memmove
        for array, target, nbytes, written in zip(arrays, targets, launch.sizes, launch.written):
            if written and nbytes:
                move(data_address(array), target, nbytes)

    # ---------------------------------------------------------------------------- recording

    def _recording(self, launch, where, buffers, repeat, with_times):
        """(the Recording of this launch, whether it was recorded now): kept from an equal
        launch, or recorded now. Equal means the same Launch (pipeline, push constants but
        the addresses, work-group count), buffers (so the same addresses), placement,
        repetitions and timestamps, with no Vulkan object destroyed since (device.generation)."""
        # The key holds the objects themselves, compared by identity and kept alive by the
        # key (so no id is reused by another object while it is kept).
        tick_buffer = self.tick_buffer.reserve(16 * repeat) if with_times else None
        key = (self.device.generation, launch, where, repeat, tick_buffer, self.query_pool.value,
               self.staging.buffer if where.staging_bytes else None, *buffers)
        recordings = self.recordings
        recording = recordings.pop(key, None)
        recorded_now = recording is None
        if recorded_now:
            recording = self._blank()
            try:
                push_bytes = launch.push([buffer.address for buffer in buffers])
                self._record(recording.commands, launch, where, buffers, push_bytes, repeat, with_times)
            except BaseException:
                self._spare.append(recording)
                raise
        recordings[key] = recording          # the newest last
        return recording, recorded_now

    def _blank(self):
        """A Recording to record into: a spare one, the oldest kept one, or a new command buffer."""
        if self._spare:
            return self._spare.pop()
        if len(self.recordings) >= KEPT_RECORDINGS:
            return self.recordings.pop(next(iter(self.recordings)))
        commands = vk.VP()
        allocate = vk.VkCommandBufferAllocateInfo(vk.ST_COMMAND_BUFFER_ALLOCATE_INFO, None, self.command_pool.value,
                                                  vk.COMMAND_BUFFER_LEVEL_PRIMARY, 1)
        self.device.check(self.api.vkAllocateCommandBuffers(self.device.handle, ctypes.byref(allocate),
                                                            ctypes.byref(commands)), "allocating a command buffer")
        return Recording(commands)

    def _barrier(self, commands, src_stage, dst_stage, src_access, dst_access):
        barrier = vk.VkMemoryBarrier(vk.ST_MEMORY_BARRIER, None, src_access, dst_access)
        self.api.vkCmdPipelineBarrier(commands, src_stage, dst_stage, 0, 1, ctypes.byref(barrier), 0, None, 0, None)

    def _copies(self, commands, launch, where, buffers, upward):
        staging = self.staging.buffer.handle
        for nbytes, back, pool, offset, buffer in zip(launch.sizes, launch.written, where.pools, where.offsets,
                                                      buffers):
            if pool != STAGED or nbytes == 0 or not (upward or back):
                continue
            region = vk.VkBufferCopy(offset, 0, nbytes) if upward else vk.VkBufferCopy(0, offset, nbytes)
            source, target = (staging, buffer.handle) if upward else (buffer.handle, staging)
            self.api.vkCmdCopyBuffer(commands, source, target, 1, ctypes.byref(region))

    def _record(self, commands, launch, where, buffers, push_bytes, repeat, with_times):
        api, device = self.api, self.device
        device.check(api.vkResetCommandBuffer(commands, 0), "vkResetCommandBuffer")
        # Submitted again and again: not ONE_TIME_SUBMIT (Vulkan 1.3, 6.4 "Command Buffer Recording").
        begin = vk.VkCommandBufferBeginInfo(vk.ST_COMMAND_BUFFER_BEGIN_INFO, None, 0, None)
        device.check(api.vkBeginCommandBuffer(commands, ctypes.byref(begin)), "vkBeginCommandBuffer")
        staged = [pool == STAGED and nbytes > 0 for pool, nbytes in zip(where.pools, launch.sizes)]
        if any(staged):
            self._copies(commands, launch, where, buffers, upward=True)
            self._barrier(commands, vk.PIPELINE_STAGE_TRANSFER_BIT, vk.PIPELINE_STAGE_COMPUTE_SHADER_BIT,
                          vk.ACCESS_TRANSFER_WRITE_BIT, vk.ACCESS_SHADER_READ_BIT | vk.ACCESS_SHADER_WRITE_BIT)
        if with_times:
            api.vkCmdResetQueryPool(commands, self.query_pool, 0, 2 * repeat)
        api.vkCmdBindPipeline(commands, vk.PIPELINE_BIND_POINT_COMPUTE, launch.pipeline)
        if push_bytes:
            data = ctypes.create_string_buffer(push_bytes, len(push_bytes))
            api.vkCmdPushConstants(commands, launch.layout, vk.SHADER_STAGE_COMPUTE_BIT, 0, len(push_bytes), data)
        for r in range(repeat):
            if r:
                self._barrier(commands, vk.PIPELINE_STAGE_COMPUTE_SHADER_BIT, vk.PIPELINE_STAGE_COMPUTE_SHADER_BIT,
                              vk.ACCESS_SHADER_WRITE_BIT, vk.ACCESS_SHADER_READ_BIT | vk.ACCESS_SHADER_WRITE_BIT)
            if with_times:
                api.vkCmdWriteTimestamp(commands, vk.PIPELINE_STAGE_TOP_OF_PIPE_BIT, self.query_pool, 2 * r)
            api.vkCmdDispatch(commands, *launch.groups)
            if with_times:
                api.vkCmdWriteTimestamp(commands, vk.PIPELINE_STAGE_BOTTOM_OF_PIPE_BIT, self.query_pool, 2 * r + 1)
        if any(s and back for s, back in zip(staged, launch.written)):
            self._barrier(commands, vk.PIPELINE_STAGE_COMPUTE_SHADER_BIT, vk.PIPELINE_STAGE_TRANSFER_BIT,
                          vk.ACCESS_SHADER_WRITE_BIT, vk.ACCESS_TRANSFER_READ_BIT)
            self._copies(commands, launch, where, buffers, upward=False)
        if with_times:      # a transfer operation (Vulkan 1.3, 17.2 "Query Operation"); WAIT: after the last timestamp
            api.vkCmdCopyQueryPoolResults(commands, self.query_pool, 0, 2 * repeat, self.tick_buffer.buffer.handle,
                                          0, 8, vk.QUERY_RESULT_64_BIT | vk.QUERY_RESULT_WAIT_BIT)
        self._barrier(commands, vk.PIPELINE_STAGE_COMPUTE_SHADER_BIT | vk.PIPELINE_STAGE_TRANSFER_BIT,
                      vk.PIPELINE_STAGE_HOST_BIT, vk.ACCESS_SHADER_WRITE_BIT | vk.ACCESS_TRANSFER_WRITE_BIT,
                      vk.ACCESS_HOST_READ_BIT)
        device.check(api.vkEndCommandBuffer(commands), "vkEndCommandBuffer")

    # ---------------------------------------------------------------------------- submit and wait

    def _submit(self, recording):
        api, device = self.api, self.device
        device.check(api.vkResetFences(device.handle, 1, ctypes.byref(self.fence)), "vkResetFences")
        device.check(api.vkQueueSubmit(device.queue, 1, ctypes.byref(recording.submit), self.fence.value),
                     "vkQueueSubmit")

    def _finish(self, timeout, where, buffers):
        fence = self.fence
        try:
            result = self._wait(fence, timeout)
        except KeyboardInterrupt:
            self._keep_pending(fence, where, buffers)
            raise
        if result == vk.TIMEOUT:
            self._keep_pending(fence, where, buffers)
            raise DeviceTimeout(f"the launch did not finish within {timeout:g} s (timeout=, or "
                                f"{TIMEOUT_ENV}); it may still be running: the next launch waits for it")
        self.device.check(result, "waiting for the launch (vkWaitForFences)")

    def _wait(self, fence, timeout):
        """vkGetFenceStatus for at most spin_s, then vkWaitForFences in slices of at most
        WAIT_SLICE_S, so that Ctrl-C is seen between them."""
        api, handle = self.api, self.device.handle
        now = time.perf_counter()
        deadline = now + timeout
        if self.spin_s > 0:
            status, spin_end = api.vkGetFenceStatus, now + min(self.spin_s, timeout)
            while now < spin_end:
                result = status(handle, fence)
                if result != vk.NOT_READY:
                    return result
                now = time.perf_counter()
        while True:
            left = deadline - time.perf_counter()
            result = api.vkWaitForFences(handle, 1, ctypes.byref(fence), 1,
                                         _nanoseconds(max(0.0, min(left, WAIT_SLICE_S))))
            if result != vk.TIMEOUT or left <= WAIT_SLICE_S:
                return result

    def _keep_pending(self, fence, where, buffers):
        """A launch left running (timeout, interrupt): the GPU may still use its fence, its
        command buffer, staging and its buffers; they stay reserved until _settle sees it end."""
        self.pending = (fence, where, list(buffers))
        buffers.clear()
        self.fence = self._fence()
        self.device.busy = True

    def _settle(self, timeout):
        """Wait for a launch that timed out earlier before reusing what it holds."""
        fence, where, buffers = self.pending
        result = self._wait(fence, timeout)
        if result == vk.TIMEOUT:
            raise DeviceTimeout(f"an earlier launch that timed out is still running after another {timeout:g} s")
        self.device.check(result, "waiting for an earlier launch")
        self.api.vkDestroyFence(self.device.handle, fence, None)
        self._give_back(where, buffers)
        self.pending = None
        self.device.busy = False

    def destroy(self):
        api, handle = self.api, self.device.handle
        for pool in self.pools.values():
            pool.clear()
        self.staging.clear()
        self.tick_buffer.clear()
        if self.query_pool.value:
            api.vkDestroyQueryPool(handle, self.query_pool, None)
        api.vkDestroyFence(handle, self.fence, None)
        api.vkDestroyCommandPool(handle, self.command_pool, None)     # frees the command buffers
        self.recordings, self._spare, self.recorded = {}, [], None


def _nanoseconds(seconds):
    return max(0, min(int(seconds * 1e9), (1 << 64) - 1))


_runners = {}


def runner(device):
    """The device's Runner (one per device)."""
    found = _runners.get(id(device))
    if found is None or found.device is not device:
        found = _runners[id(device)] = Runner(device)
    return found
