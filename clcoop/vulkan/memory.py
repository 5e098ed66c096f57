"""Buffers on a Vulkan device, in two placements:

- staged: a device-local storage buffer with a device address (what kernels read and write),
  its contents going up and down through a host-visible staging buffer (vkCmdCopyBuffer), so
  that large arrays live in the GPU's own memory;
- direct (small arrays): a storage buffer in host-visible, host-coherent memory that the
  kernel reads and writes in place. The host copies the array straight into its mapping and
  the results straight out of it: no copy commands, no staging, fewer barriers. An input
  prefers device-local host-visible memory (the BAR heap on a discrete GPU: the kernel reads
  it at device speed, the host writes it sequentially); a buffer that comes back prefers
  host-cached memory (reading uncached or BAR memory from the host is slow). Vulkan 1.3,
  11.2.1 "Device Memory Properties": every device has a host-visible, host-coherent type.

Buffers are kept in pools by placement and size class and reused by later launches
(allocation costs far more than a launch: Vulkan 1.3, 11.2 "Device Memory" recommends few,
large allocations).
"""
import ctypes

from clcoop.errors import DeviceError, DeviceOutOfMemory
from clcoop.vulkan import vk

STORAGE_USAGE = (vk.BUFFER_USAGE_STORAGE_BUFFER_BIT | vk.BUFFER_USAGE_SHADER_DEVICE_ADDRESS_BIT |
                 vk.BUFFER_USAGE_TRANSFER_SRC_BIT | vk.BUFFER_USAGE_TRANSFER_DST_BIT)
STAGING_USAGE = vk.BUFFER_USAGE_TRANSFER_SRC_BIT | vk.BUFFER_USAGE_TRANSFER_DST_BIT
SMALLEST_CLASS = 256


def size_class(nbytes):
    """The pool's size for an array of nbytes: the next power of two, at least 256 bytes."""
    size = SMALLEST_CLASS
    while size < nbytes:
        size *= 2
    return size


class Buffer:
    """One VkBuffer bound to its own VkDeviceMemory; `address` is its device address,
    `mapped` its host pointer (host-visible buffers only)."""

    def __init__(self, device, size, usage, wanted, preferred=0, with_address=False):
        self.device = device
        self.size = size
        self.handle = vk.HANDLE(0)
        self.memory = vk.HANDLE(0)
        self.mapped = None
        self.address = 0
        api = device.vk
        info = vk.VkBufferCreateInfo(vk.ST_BUFFER_CREATE_INFO, None, 0, size, usage, vk.SHARING_MODE_EXCLUSIVE, 0, None)
        device.check(api.vkCreateBuffer(device.handle, ctypes.byref(info), None, ctypes.byref(self.handle)),
                     f"creating a buffer of {size} bytes")
        try:
            self._allocate(wanted, preferred, with_address)
        except BaseException:
            self.destroy()
            raise
        if with_address:
            address_info = vk.VkBufferDeviceAddressInfo(vk.ST_BUFFER_DEVICE_ADDRESS_INFO, None, self.handle.value)
            self.address = api.vkGetBufferDeviceAddress(device.handle, ctypes.byref(address_info))

    def _allocate(self, wanted, preferred, with_address):
        device, api = self.device, self.device.vk
        requirements = vk.VkMemoryRequirements()
        api.vkGetBufferMemoryRequirements(device.handle, self.handle, ctypes.byref(requirements))
        type_index = device.memory_type(requirements.memoryTypeBits, wanted, preferred)
        flags = vk.VkMemoryAllocateFlagsInfo(vk.ST_MEMORY_ALLOCATE_FLAGS_INFO, None,
                                             vk.MEMORY_ALLOCATE_DEVICE_ADDRESS_BIT, 0)
        info = vk.VkMemoryAllocateInfo(vk.ST_MEMORY_ALLOCATE_INFO,
                                       ctypes.cast(ctypes.pointer(flags), vk.VP) if with_address else None,
                                       requirements.size, type_index)
        device.check(api.vkAllocateMemory(device.handle, ctypes.byref(info), None, ctypes.byref(self.memory)),
                     f"allocating {requirements.size} bytes of device memory")
        device.check(api.vkBindBufferMemory(device.handle, self.handle, self.memory, 0), "vkBindBufferMemory")
        if wanted & vk.MEMORY_PROPERTY_HOST_VISIBLE_BIT:
            pointer = vk.VP()
            device.check(api.vkMapMemory(device.handle, self.memory, 0, self.size, 0, ctypes.byref(pointer)),
                         "mapping a host-visible buffer")
            self.mapped = pointer.value

    def view(self, nbytes, offset=0):
        """The mapped bytes [offset, offset + nbytes) as a ctypes array (host-visible buffers)."""
        if self.mapped is None or offset + nbytes > self.size:
            raise DeviceError("internal: a view outside a mapped buffer")
        return (ctypes.c_uint8 * nbytes).from_address(self.mapped + offset)

    def destroy(self):
        self.device.generation += 1
        api, handle = self.device.vk, self.device.handle
        if self.mapped is not None:
            api.vkUnmapMemory(handle, self.memory)
            self.mapped = None
        if self.handle.value:
            api.vkDestroyBuffer(handle, self.handle, None)
            self.handle = vk.HANDLE(0)
        if self.memory.value:
            api.vkFreeMemory(handle, self.memory, None)
            self.memory = vk.HANDLE(0)


HOST_MEMORY = vk.MEMORY_PROPERTY_HOST_VISIBLE_BIT | vk.MEMORY_PROPERTY_HOST_COHERENT_BIT


def device_buffer(device, size):
    """A device-local storage buffer with a device address."""
    return Buffer(device, size, STORAGE_USAGE, vk.MEMORY_PROPERTY_DEVICE_LOCAL_BIT, with_address=True)


def direct_input_buffer(device, size):
    """A mapped storage buffer with a device address for an array that only goes up:
    device-local host-visible memory where the device has it (and it is not full), else
    host memory."""
    try:
        return Buffer(device, size, STORAGE_USAGE, HOST_MEMORY, preferred=vk.MEMORY_PROPERTY_DEVICE_LOCAL_BIT,
                      with_address=True)
    except DeviceOutOfMemory:       # the BAR heap is small (256 MiB without resizable BAR)
        return Buffer(device, size, STORAGE_USAGE, HOST_MEMORY, preferred=vk.MEMORY_PROPERTY_HOST_CACHED_BIT,
                      with_address=True)


def direct_output_buffer(device, size):
    """A mapped storage buffer with a device address for an array that comes back:
    host-cached memory where the device has it, so that the host reads the results fast."""
    return Buffer(device, size, STORAGE_USAGE, HOST_MEMORY, preferred=vk.MEMORY_PROPERTY_HOST_CACHED_BIT,
                  with_address=True)


def staging_buffer(device, size):
    """A host-visible, coherent buffer for copies, host-cached where the device has such
    memory (reading results back from uncached memory is slow)."""
    return Buffer(device, size, STAGING_USAGE, HOST_MEMORY, preferred=vk.MEMORY_PROPERTY_HOST_CACHED_BIT)


class BufferPool:
    """Buffers of one placement by size class, taken for a launch and given back after it;
    make(device, size) makes a new one (device_buffer, direct_input_buffer, ...)."""

    def __init__(self, device, make=device_buffer):
        self.device = device
        self.make = make
        self.free = {}          # size class -> [Buffer]

    def take(self, nbytes):
        size = size_class(nbytes)
        spare = self.free.get(size)
        if spare:
            return spare.pop()
        try:
            return self.make(self.device, size)
        except DeviceOutOfMemory:
            # Out of memory with spare buffers of other sizes: free them and try once more.
            if not any(self.free.values()):
                raise
            self.clear()
            return self.make(self.device, size)

    def give(self, buffers):
        for buffer in buffers:
            self.free.setdefault(buffer.size, []).append(buffer)

    def clear(self):
        for buffers in self.free.values():
            for buffer in buffers:
                buffer.destroy()
        self.free = {}


class Staging:
    """One staging buffer that grows to the largest launch's bytes."""

    def __init__(self, device):
        self.device = device
        self.buffer = None

    def reserve(self, nbytes):
        if self.buffer is None or self.buffer.size < nbytes:
            if self.buffer is not None:
                self.buffer.destroy()
                self.buffer = None
            self.buffer = staging_buffer(self.device, size_class(max(nbytes, 1)))
        return self.buffer

    def clear(self):
        if self.buffer is not None:
            self.buffer.destroy()
            self.buffer = None
