"""One launch on a device: the arrays up to device memory, the dispatch, the written arrays
back, in one command buffer submitted with a fence, and the timings.

The command buffer (Vulkan 1.3, 7. Synchronization): copies staging -> device buffers; a
barrier (transfer writes -> shader reads and writes); per repetition a timestamp, the
dispatch, a timestamp and, between repetitions, a barrier (shader writes -> shader reads and
writes); a barrier (shader writes -> transfer reads); copies of the written buffers ->
staging; a barrier (transfer writes -> host reads). The host waits on the fence at most
`timeout` seconds: a launch still running then raises DeviceTimeout, and its resources stay
reserved until a later launch finds it finished (nothing the GPU may still use is freed or
reused). VK_ERROR_DEVICE_LOST marks the device lost for good (DeviceLost).
"""
import ctypes
import os
import time
from dataclasses import dataclass, field

from clcoop.errors import DeviceTimeout
from clcoop.launch_cache import data_address
from clcoop.vulkan import vk
from clcoop.vulkan.memory import BufferPool, Staging

TIMEOUT_ENV = "CLCOOP_VULKAN_TIMEOUT"
DEFAULT_TIMEOUT_S = 60.0
STAGING_ALIGNMENT = 256       # copy offsets aligned generously (optimalBufferCopyOffsetAlignment <= 256)
WAIT_SLICE_S = 0.1            # the longest single wait: Python sees Ctrl-C between waits


def default_timeout():
    text = os.environ.get(TIMEOUT_ENV)
    try:
        return float(text) if text else DEFAULT_TIMEOUT_S
    except ValueError:
        return DEFAULT_TIMEOUT_S


@dataclass
class Timings:
    """Seconds. upload: the host copies into staging; submit_to_done: vkQueueSubmit to the
    fence seen signalled (copies, dispatches and the wait); download: staging to the
    arrays; total: the whole launch, argument checks included; gpu: each dispatch's time
    from its timestamps (empty when the queue has none)."""
    upload: float = 0.0
    submit_to_done: float = 0.0
    download: float = 0.0
    total: float = 0.0
    gpu: list = field(default_factory=list)

    def as_dict(self):
        return {"upload_s": self.upload, "submit_to_done_s": self.submit_to_done, "download_s": self.download,
                "total_s": self.total, "gpu_s": list(self.gpu)}


@dataclass
class Transfer:
    """One array of a launch: its bytes go up (every buffer) and come back when `written`."""
    array: object            # a C-contiguous NumPy array
    written: bool
    buffer: object = None    # its memory.Buffer, once taken
    staging_offset: int = 0


def _align(value, alignment=STAGING_ALIGNMENT):
    return (value + alignment - 1) // alignment * alignment


class Runner:
    """The per-device launch machinery: command pool and buffer, fence, timestamp queries,
    staging and the buffer pool. One launch at a time (device.lock)."""

    def __init__(self, device):
        self.device = device
        self.api = device.vk
        self.pool = BufferPool(device)
        self.staging = Staging(device)
        self.pending = None           # (fence, buffers) of a launch that timed out
        self.recorded = None          # what the command buffer holds (a launch equal to it reuses it)
        self.command_pool = vk.HANDLE(0)
        self.query_pool = vk.HANDLE(0)
        self.query_count = 0
        info = vk.VkCommandPoolCreateInfo(vk.ST_COMMAND_POOL_CREATE_INFO, None,
                                          vk.COMMAND_POOL_CREATE_RESET_COMMAND_BUFFER_BIT, device.queue_family)
        device.check(self.api.vkCreateCommandPool(device.handle, ctypes.byref(info), None,
                                                  ctypes.byref(self.command_pool)), "creating a command pool")
        allocate = vk.VkCommandBufferAllocateInfo(vk.ST_COMMAND_BUFFER_ALLOCATE_INFO, None, self.command_pool.value,
                                                  vk.COMMAND_BUFFER_LEVEL_PRIMARY, 1)
        self.commands = vk.VP()
        device.check(self.api.vkAllocateCommandBuffers(device.handle, ctypes.byref(allocate),
                                                       ctypes.byref(self.commands)), "allocating a command buffer")
        self.fence = self._fence()
        # The submission is always of this one command buffer: its VkSubmitInfo is made once.
        self._command_array = (vk.VP * 1)(self.commands)
        self._submit = vk.VkSubmitInfo(vk.ST_SUBMIT_INFO, None, 0, None, None, 1,
                                       ctypes.cast(self._command_array, vk.VP), 0, None)
        self._ticks = None            # the timestamps' array, kept while the query count is the same
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

    def run(self, pipeline, layout, push, groups, transfers, repeat=1, timeout=None):
        """Dispatch `pipeline` over `groups` (x, y, z) work-groups `repeat` times with the
        push-constant bytes `push` (a callable: device addresses -> bytes, since addresses
        are known once buffers are taken); transfers: the arrays, in push order. Returns
        Timings; the written arrays hold the results."""
        timeout = default_timeout() if timeout is None else float(timeout)
        device = self.device
        with device.lock:
            device.require_usable()
            self._settle(timeout)
            timings = Timings()
            try:
                self._take_buffers(transfers)
                start = time.perf_counter()
                self._upload(transfers)
                timings.upload = time.perf_counter() - start
                with_times = self._queries(2 * repeat)
                push_bytes = push([t.buffer.address for t in transfers])
                recording = (self.device.generation, pipeline.value, layout.value, push_bytes, tuple(groups),
                             repeat, with_times, self.staging.buffer.handle.value, self.query_pool.value,
                             tuple((t.buffer.handle.value, t.array.nbytes, t.staging_offset, t.written)
                                   for t in transfers))
                if recording != self.recorded:
                    self.recorded = None
                    self._record(pipeline, layout, push_bytes, groups, transfers, repeat, with_times)
                    self.recorded = recording
                start = time.perf_counter()
                self._submit_and_wait(timeout, transfers)
                timings.submit_to_done = time.perf_counter() - start
            except BaseException:       # (buffers a launch left running holds are no longer here)
                self.recorded = None
                self._give_back(transfers)
                raise
            start = time.perf_counter()
            self._download(transfers)
            timings.download = time.perf_counter() - start
            timings.gpu = self._gpu_times(repeat) if with_times else []
            self._give_back(transfers)
            return timings

    def _give_back(self, transfers):
        """The launch's buffers back to the pool, in reverse: the next launch with the same
        sizes takes the same buffers (the pool is last in, first out) and reuses the recording."""
        self.pool.give([t.buffer for t in reversed(transfers) if t.buffer is not None])

    def _take_buffers(self, transfers):
        for transfer in transfers:
            transfer.buffer = self.pool.take(max(transfer.array.nbytes, 1))

    def _upload(self, transfers):
        offset = 0
        for transfer in transfers:
            transfer.staging_offset = offset
            offset = _align(offset + transfer.array.nbytes)
        staging = self.staging.reserve(max(offset, 1))
        for transfer in transfers:
            nbytes = transfer.array.nbytes
            if nbytes:
                ctypes.memmove(staging.mapped + transfer.staging_offset, data_address(transfer.array), nbytes)

    def _download(self, transfers):
        staging = self.staging.buffer
        for transfer in transfers:
            if transfer.written and transfer.array.nbytes:
                ctypes.memmove(data_address(transfer.array), staging.mapped + transfer.staging_offset,
                               transfer.array.nbytes)

    def _barrier(self, src_stage, dst_stage, src_access, dst_access):
        barrier = vk.VkMemoryBarrier(vk.ST_MEMORY_BARRIER, None, src_access, dst_access)
        self.api.vkCmdPipelineBarrier(self.commands, src_stage, dst_stage, 0, 1, ctypes.byref(barrier),
                                      0, None, 0, None)

    def _copies(self, transfers, upward):
        staging = self.staging.buffer.handle
        for transfer in transfers:
            if transfer.array.nbytes == 0 or not (upward or transfer.written):
                continue
            region = vk.VkBufferCopy(transfer.staging_offset, 0, transfer.array.nbytes) if upward else \
                vk.VkBufferCopy(0, transfer.staging_offset, transfer.array.nbytes)
            source, target = (staging, transfer.buffer.handle) if upward else (transfer.buffer.handle, staging)
            self.api.vkCmdCopyBuffer(self.commands, source, target, 1, ctypes.byref(region))

    def _record(self, pipeline, layout, push_bytes, groups, transfers, repeat, with_times):
        api, commands = self.api, self.commands
        self.device.check(api.vkResetCommandBuffer(commands, 0), "vkResetCommandBuffer")
        begin = vk.VkCommandBufferBeginInfo(vk.ST_COMMAND_BUFFER_BEGIN_INFO, None,
                                            vk.COMMAND_BUFFER_USAGE_ONE_TIME_SUBMIT_BIT, None)
        self.device.check(api.vkBeginCommandBuffer(commands, ctypes.byref(begin)), "vkBeginCommandBuffer")
        self._copies(transfers, upward=True)
        self._barrier(vk.PIPELINE_STAGE_TRANSFER_BIT | vk.PIPELINE_STAGE_HOST_BIT, vk.PIPELINE_STAGE_COMPUTE_SHADER_BIT,
                      vk.ACCESS_TRANSFER_WRITE_BIT | vk.ACCESS_HOST_WRITE_BIT,
                      vk.ACCESS_SHADER_READ_BIT | vk.ACCESS_SHADER_WRITE_BIT)
        if with_times:
            api.vkCmdResetQueryPool(commands, self.query_pool, 0, 2 * repeat)
        api.vkCmdBindPipeline(commands, vk.PIPELINE_BIND_POINT_COMPUTE, pipeline)
        if push_bytes:
            data = ctypes.create_string_buffer(push_bytes, len(push_bytes))
            api.vkCmdPushConstants(commands, layout, vk.SHADER_STAGE_COMPUTE_BIT, 0, len(push_bytes), data)
        for r in range(repeat):
            if r:
                self._barrier(vk.PIPELINE_STAGE_COMPUTE_SHADER_BIT, vk.PIPELINE_STAGE_COMPUTE_SHADER_BIT,
                              vk.ACCESS_SHADER_WRITE_BIT, vk.ACCESS_SHADER_READ_BIT | vk.ACCESS_SHADER_WRITE_BIT)
            if with_times:
                api.vkCmdWriteTimestamp(commands, vk.PIPELINE_STAGE_TOP_OF_PIPE_BIT, self.query_pool, 2 * r)
            api.vkCmdDispatch(commands, *groups)
            if with_times:
                api.vkCmdWriteTimestamp(commands, vk.PIPELINE_STAGE_BOTTOM_OF_PIPE_BIT, self.query_pool, 2 * r + 1)
        self._barrier(vk.PIPELINE_STAGE_COMPUTE_SHADER_BIT, vk.PIPELINE_STAGE_TRANSFER_BIT,
                      vk.ACCESS_SHADER_WRITE_BIT, vk.ACCESS_TRANSFER_READ_BIT)
        self._copies(transfers, upward=False)
        self._barrier(vk.PIPELINE_STAGE_TRANSFER_BIT, vk.PIPELINE_STAGE_HOST_BIT,
                      vk.ACCESS_TRANSFER_WRITE_BIT, vk.ACCESS_HOST_READ_BIT)
        self.device.check(api.vkEndCommandBuffer(commands), "vkEndCommandBuffer")

    def _submit_and_wait(self, timeout, transfers):
        api, device = self.api, self.device
        fence = self.fence
        device.check(api.vkResetFences(device.handle, 1, ctypes.byref(fence)), "vkResetFences")
        device.check(api.vkQueueSubmit(device.queue, 1, ctypes.byref(self._submit), fence.value), "vkQueueSubmit")
        try:
            result = self._wait(fence, timeout)
        except KeyboardInterrupt:
            self._keep_pending(fence, transfers)
            raise
        if result == vk.TIMEOUT:
            self._keep_pending(fence, transfers)
            raise DeviceTimeout(f"the launch did not finish within {timeout:g} s (timeout=, or "
                                f"{TIMEOUT_ENV}); it may still be running: the next launch waits for it")
        device.check(result, "waiting for the launch (vkWaitForFences)")

    def _wait(self, fence, timeout):
        """vkWaitForFences in slices of at most WAIT_SLICE_S, so that Ctrl-C is seen between them."""
        deadline = time.monotonic() + timeout
        while True:
            left = deadline - time.monotonic()
            result = self.api.vkWaitForFences(self.device.handle, 1, ctypes.byref(fence), 1,
                                              _nanoseconds(max(0.0, min(left, WAIT_SLICE_S))))
            if result != vk.TIMEOUT or left <= WAIT_SLICE_S:
                return result

    def _keep_pending(self, fence, transfers):
        """A launch left running (timeout, interrupt): the GPU may still use its fence, the
        command buffer, staging and its buffers; they stay reserved until _settle sees it end."""
        self.pending = (fence, [t.buffer for t in transfers])
        for transfer in transfers:
            transfer.buffer = None
        self.recorded = None
        self.fence = self._fence()
        self.device.busy = True

    def _settle(self, timeout):
        """Wait for a launch that timed out earlier before reusing what it holds."""
        if self.pending is None:
            return
        fence, buffers = self.pending
        result = self._wait(fence, timeout)
        if result == vk.TIMEOUT:
            raise DeviceTimeout(f"an earlier launch that timed out is still running after another {timeout:g} s")
        self.device.check(result, "waiting for an earlier launch")
        self.api.vkDestroyFence(self.device.handle, fence, None)
        self.pool.give(buffers)
        self.pending = None
        self.device.busy = False

    def _gpu_times(self, repeat):
        if self._ticks is None or len(self._ticks) != 2 * repeat:
            self._ticks = (ctypes.c_uint64 * (2 * repeat))()
        ticks = self._ticks
        result = self.api.vkGetQueryPoolResults(self.device.handle, self.query_pool, 0, 2 * repeat,
                                                ctypes.sizeof(ticks), ticks, 8,
                                                vk.QUERY_RESULT_64_BIT | vk.QUERY_RESULT_WAIT_BIT)
        self.device.check(result, "reading the timestamps")
        mask = (1 << self.device.timestamp_bits) - 1 if self.device.timestamp_bits < 64 else (1 << 64) - 1
        period = self.device.description.timestamp_period_ns * 1e-9
        return [((ticks[2 * r + 1] - ticks[2 * r]) & mask) * period for r in range(repeat)]

    def destroy(self):
        api, handle = self.api, self.device.handle
        self.pool.clear()
        self.staging.clear()
        if self.query_pool.value:
            api.vkDestroyQueryPool(handle, self.query_pool, None)
        api.vkDestroyFence(handle, self.fence, None)
        api.vkDestroyCommandPool(handle, self.command_pool, None)


def _nanoseconds(seconds):
    return max(0, min(int(seconds * 1e9), (1 << 64) - 1))


_runners = {}


def runner(device):
    """The device's Runner (one per device)."""
    found = _runners.get(id(device))
    if found is None or found.device is not device:
        found = _runners[id(device)] = Runner(device)
    return found
