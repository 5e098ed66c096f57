"""The Vulkan instance, the physical devices as DeviceDescriptions, and the logical device
the engine runs on (one per physical device and process).

A device is created with every extension of WANTED_EXTENSIONS it has and the feature chain
of ../shared/notes/gpu-vulkan.md: VkPhysicalDeviceFeatures2 -> Vulkan11 -> Vulkan12 ->
Vulkan13 -> cooperative matrix (KHR) -> cooperative matrix 2 (NV) -> bfloat16, filled by
vkGetPhysicalDeviceFeatures2 and passed as VkDeviceCreateInfo.pNext, so that a module may
use whatever the device offers; a few features that cost speed or change addresses are
turned off (DISABLED_FEATURES). One compute queue. VK_KHR_pipeline_executable_properties and
its feature pipelineExecutableInfo, where offered, let the driver report its statistics of
each pipeline (statistics.py): Device.pipeline_statistics.
"""
import atexit
import ctypes
import os
import threading

from clcoop.errors import DeviceError, DeviceLost, DeviceUnavailable
from clcoop.vulkan import vk
from clcoop.vulkan.capabilities import (KHR_COOPERATIVE_MATRIX, KHR_SHADER_BFLOAT16,
                                        NV_COOPERATIVE_MATRIX2, DeviceDescription, FlexibleConfig,
                                        MatrixConfig)

DEVICE_ENV = "CLCOOP_VULKAN_DEVICE"
# Enabled when present. Core in Vulkan 1.3 (and so not listed): buffer device address,
# Vulkan memory model, float16/int8, 8/16-bit storage, subgroup size control, variable pointers.
# (Each comes with its feature structure in FeatureChain.)
# The driver's statistics of a pipeline (registers, spills, ...: statistics.py).
KHR_PIPELINE_EXECUTABLE_PROPERTIES = "VK_KHR_pipeline_executable_properties"
WANTED_EXTENSIONS = (KHR_COOPERATIVE_MATRIX, NV_COOPERATIVE_MATRIX2, KHR_SHADER_BFLOAT16,
                     KHR_PIPELINE_EXECUTABLE_PROPERTIES)
# What every module of the contract needs (docs/vulkan-abi.md): 64-bit device addresses in
# push constants, PhysicalStorageBuffer64 and the Vulkan memory model.
REQUIRED_FEATURES = ("bufferDeviceAddress", "vulkanMemoryModel", "shaderInt64")
# Features that slow every access (robustness) or change how addresses are allocated.
DISABLED_FEATURES = ("robustBufferAccess", "robustImageAccess", "bufferDeviceAddressCaptureReplay",
                     "bufferDeviceAddressMultiDevice", "cooperativeMatrixRobustBufferAccess", "protectedMemory")
# The features a DeviceDescription lists (what clcoop-devices shows and modules may need).
DESCRIBED_FEATURES = ("shaderInt64", "shaderFloat64", "shaderInt16", "shaderFloat16", "shaderInt8",
                      "storageBuffer16BitAccess", "storageBuffer8BitAccess", "bufferDeviceAddress",
                      "vulkanMemoryModel", "vulkanMemoryModelDeviceScope", "shaderBufferInt64Atomics",
                      "shaderSharedInt64Atomics", "subgroupSizeControl", "computeFullSubgroups",
                      "cooperativeMatrix", "cooperativeMatrixWorkgroupScope",
                      "cooperativeMatrixFlexibleDimensions", "cooperativeMatrixReductions",
                      "cooperativeMatrixConversions", "cooperativeMatrixPerElementOperations",
                      "cooperativeMatrixTensorAddressing", "cooperativeMatrixBlockLoads",
                      "shaderBFloat16Type", "shaderBFloat16CooperativeMatrix")


class Instance:
    """The process's VkInstance (Vulkan 1.3) and its physical devices."""

    def __init__(self):
        self.vk = vk.load()
        version = vk.U32(0)
        self.vk.vkEnumerateInstanceVersion(ctypes.byref(version))
        if version.value < vk.API_VERSION_1_3:
            raise DeviceUnavailable(f"the Vulkan loader supports Vulkan {vk.version_text(version.value)}; "
                                    f"the engine needs 1.3")
        self._app = vk.VkApplicationInfo(vk.ST_APPLICATION_INFO, None, b"clcoop", 1, b"clcoop", 1,
                                         vk.API_VERSION_1_3)
        info = vk.VkInstanceCreateInfo(vk.ST_INSTANCE_CREATE_INFO, None, 0,
                                       ctypes.cast(ctypes.pointer(self._app), vk.VP), 0, None, 0, None)
        self.handle = vk.VP()
        result = self.vk.vkCreateInstance(ctypes.byref(info), None, ctypes.byref(self.handle))
        if result == vk.ERROR_INCOMPATIBLE_DRIVER:
            raise DeviceUnavailable("no Vulkan driver is installed (vkCreateInstance: "
                                    "VK_ERROR_INCOMPATIBLE_DRIVER); docs/gpu.md, Setup")
        vk.check(result, "vkCreateInstance")
        count = vk.U32(0)
        vk.check(self.vk.vkEnumeratePhysicalDevices(self.handle, ctypes.byref(count), None),
                 "vkEnumeratePhysicalDevices")
        handles = (vk.VP * count.value)()
        vk.check(self.vk.vkEnumeratePhysicalDevices(self.handle, ctypes.byref(count), handles),
                 "vkEnumeratePhysicalDevices")
        self.physical = list(handles[:count.value])
        self.descriptions = [describe(self, handle, i) for i, handle in enumerate(self.physical)]


_lock = threading.RLock()
_instance = None
_devices = {}


def instance():
    """The process's one Instance (made on first use)."""
    global _instance
    with _lock:
        if _instance is None:
            _instance = Instance()
        return _instance


def descriptions():
    """DeviceDescription of every physical device, in the loader's order."""
    return list(instance().descriptions)


# --------------------------------------------------------------------------- description

def device_extensions(inst, handle):
    count = vk.U32(0)
    vk.check(inst.vk.vkEnumerateDeviceExtensionProperties(handle, None, ctypes.byref(count), None),
             "vkEnumerateDeviceExtensionProperties")
    props = (vk.VkExtensionProperties * count.value)()
    vk.check(inst.vk.vkEnumerateDeviceExtensionProperties(handle, None, ctypes.byref(count), props),
             "vkEnumerateDeviceExtensionProperties")
    return tuple(sorted(p.extensionName.decode() for p in props[:count.value]))


def _chain(*structs):
    """Link structures through pNext, first to last; returns the first."""
    for head, tail in zip(structs, structs[1:]):
        head.pNext = ctypes.cast(ctypes.pointer(tail), vk.VP)
    return structs[0]


class FeatureChain:
    """The feature structures of a device, linked, filled by vkGetPhysicalDeviceFeatures2."""

    def __init__(self, inst, handle, extensions):
        self.features2 = vk.VkPhysicalDeviceFeatures2(vk.ST_PHYSICAL_DEVICE_FEATURES_2)
        self.parts = [vk.VkPhysicalDeviceVulkan11Features(vk.ST_PHYSICAL_DEVICE_VULKAN_1_1_FEATURES),
                      vk.VkPhysicalDeviceVulkan12Features(vk.ST_PHYSICAL_DEVICE_VULKAN_1_2_FEATURES),
                      vk.VkPhysicalDeviceVulkan13Features(vk.ST_PHYSICAL_DEVICE_VULKAN_1_3_FEATURES)]
        if KHR_COOPERATIVE_MATRIX in extensions:
            self.parts.append(vk.VkPhysicalDeviceCooperativeMatrixFeaturesKHR(
                vk.ST_PHYSICAL_DEVICE_COOPERATIVE_MATRIX_FEATURES_KHR))
        if NV_COOPERATIVE_MATRIX2 in extensions:
            self.parts.append(vk.VkPhysicalDeviceCooperativeMatrix2FeaturesNV(
                vk.ST_PHYSICAL_DEVICE_COOPERATIVE_MATRIX_2_FEATURES_NV))
        if KHR_SHADER_BFLOAT16 in extensions:
            self.parts.append(vk.VkPhysicalDeviceShaderBfloat16FeaturesKHR(
                vk.ST_PHYSICAL_DEVICE_SHADER_BFLOAT16_FEATURES_KHR))
        if KHR_PIPELINE_EXECUTABLE_PROPERTIES in extensions:
            self.parts.append(vk.VkPhysicalDevicePipelineExecutablePropertiesFeaturesKHR(
                vk.ST_PHYSICAL_DEVICE_PIPELINE_EXECUTABLE_PROPERTIES_FEATURES_KHR))
        _chain(self.features2, *self.parts)
        inst.vk.vkGetPhysicalDeviceFeatures2(handle, ctypes.byref(self.features2))

    def _structs(self):
        return [self.features2.features] + self.parts

    def get(self, name):
        for struct in self._structs():
            if any(field == name for field, _ in struct._fields_):
                return bool(getattr(struct, name))
        return False

    def disable(self, names):
        for struct in self._structs():
            for field, _ in struct._fields_:
                if field in names:
                    setattr(struct, field, 0)


def describe(inst, handle, index):
    """The DeviceDescription of one physical device (of a device older than Vulkan 1.3, what
    its core properties say: the 1.3 structures may not be chained for it)."""
    extensions = device_extensions(inst, handle)
    core = vk.VkPhysicalDeviceProperties2(vk.ST_PHYSICAL_DEVICE_PROPERTIES_2)
    inst.vk.vkGetPhysicalDeviceProperties2(handle, ctypes.byref(core))
    if core.properties.apiVersion < vk.API_VERSION_1_3:
        return DeviceDescription(name=core.properties.deviceName.decode(errors="replace"), index=index,
                                 device_type=vk.PHYSICAL_DEVICE_TYPES.get(core.properties.deviceType, "other"),
                                 api_version=vk.version_text(core.properties.apiVersion), extensions=extensions)
    props = vk.VkPhysicalDeviceProperties2(vk.ST_PHYSICAL_DEVICE_PROPERTIES_2)
    p11 = vk.VkPhysicalDeviceVulkan11Properties(vk.ST_PHYSICAL_DEVICE_VULKAN_1_1_PROPERTIES)
    p12 = vk.VkPhysicalDeviceVulkan12Properties(vk.ST_PHYSICAL_DEVICE_VULKAN_1_2_PROPERTIES)
    p13 = vk.VkPhysicalDeviceVulkan13Properties(vk.ST_PHYSICAL_DEVICE_VULKAN_1_3_PROPERTIES)
    nv2 = vk.VkPhysicalDeviceCooperativeMatrix2PropertiesNV(vk.ST_PHYSICAL_DEVICE_COOPERATIVE_MATRIX_2_PROPERTIES_NV)
    chain = [props, p11, p12, p13] + ([nv2] if NV_COOPERATIVE_MATRIX2 in extensions else [])
    _chain(*chain)
    inst.vk.vkGetPhysicalDeviceProperties2(handle, ctypes.byref(props))
    core, limits = props.properties, props.properties.limits
    features = FeatureChain(inst, handle, extensions)
    return DeviceDescription(
        name=core.deviceName.decode(errors="replace"), index=index,
        device_type=vk.PHYSICAL_DEVICE_TYPES.get(core.deviceType, "other"),
        api_version=vk.version_text(core.apiVersion),
        driver_name=p12.driverName.decode(errors="replace"), driver_info=p12.driverInfo.decode(errors="replace"),
        vendor_id=core.vendorID, device_id=core.deviceID, extensions=extensions,
        subgroup_size=p11.subgroupSize, min_subgroup_size=p13.minSubgroupSize, max_subgroup_size=p13.maxSubgroupSize,
        subgroup_size_control=bool(features.get("subgroupSizeControl") and
                                   p13.requiredSubgroupSizeStages & vk.SHADER_STAGE_COMPUTE_BIT),
        max_workgroup_size=tuple(limits.maxComputeWorkGroupSize),
        max_workgroup_invocations=limits.maxComputeWorkGroupInvocations,
        max_workgroup_count=tuple(limits.maxComputeWorkGroupCount),
        max_shared_memory=limits.maxComputeSharedMemorySize,
        max_push_constants_size=limits.maxPushConstantsSize,
        timestamp_period_ns=float(limits.timestampPeriod),
        features={name: features.get(name) for name in DESCRIBED_FEATURES},
        khr=_khr_configs(inst, handle) if KHR_COOPERATIVE_MATRIX in extensions else (),
        flexible=_flexible_configs(inst, handle) if NV_COOPERATIVE_MATRIX2 in extensions else (),
        flexible_max_dimension=nv2.cooperativeMatrixFlexibleDimensionsMaxDimension,
        workgroup_scope_max_workgroup_size=nv2.cooperativeMatrixWorkgroupScopeMaxWorkgroupSize,
        workgroup_scope_reserved_shared_memory=nv2.cooperativeMatrixWorkgroupScopeReservedSharedMemory)


def _query_array(inst, handle, function_name, struct, stype):
    function = inst.vk.instance_function(inst.handle, function_name)
    if function is None:
        return []
    count = vk.U32(0)
    vk.check(function(handle, ctypes.byref(count), None), function_name)
    items = (struct * count.value)(*[struct(stype) for _ in range(count.value)])
    vk.check(function(handle, ctypes.byref(count), items), function_name)
    return items[:count.value]


def _component(value):
    return vk.COMPONENT_TYPES.get(value, f"component{value}")


def _scope(value):
    return vk.SCOPES.get(value, f"scope{value}")


def _khr_configs(inst, handle):
    items = _query_array(inst, handle, "vkGetPhysicalDeviceCooperativeMatrixPropertiesKHR",
                         vk.VkCooperativeMatrixPropertiesKHR, vk.ST_COOPERATIVE_MATRIX_PROPERTIES_KHR)
    return tuple(MatrixConfig(p.MSize, p.NSize, p.KSize, _component(p.AType), _component(p.BType),
                              _component(p.CType), _component(p.ResultType), bool(p.saturatingAccumulation),
                              _scope(p.scope)) for p in items)


def _flexible_configs(inst, handle):
    items = _query_array(inst, handle, "vkGetPhysicalDeviceCooperativeMatrixFlexibleDimensionsPropertiesNV",
                         vk.VkCooperativeMatrixFlexibleDimensionsPropertiesNV,
                         vk.ST_COOPERATIVE_MATRIX_FLEXIBLE_DIMENSIONS_PROPERTIES_NV)
    return tuple(FlexibleConfig(p.MGranularity, p.NGranularity, p.KGranularity, _component(p.AType),
                                _component(p.BType), _component(p.CType), _component(p.ResultType),
                                bool(p.saturatingAccumulation), _scope(p.scope), p.workgroupInvocations)
                 for p in items)


# ------------------------------------------------------------------------------ choosing

def base_problems(description):
    """Why the engine cannot use a device at all ([] when it can)."""
    problems = []
    major, minor = (int(part) for part in description.api_version.split(".")[:2])
    if (major, minor) < (1, 3):
        problems.append(f"Vulkan {description.api_version} (1.3 needed)")
    problems += [f"no {name}" for name in REQUIRED_FEATURES if not description.features.get(name)]
    return problems


def choose(all_descriptions, needed_extensions=(), selector=None, what=DEVICE_ENV):
    """The index of the device to run on: the one `selector` (an index or a name substring;
    default CLCOOP_VULKAN_DEVICE) names, else the first usable device with every needed
    extension, else the first usable device (whose launches then say what it lacks).
    what: how messages name the selector."""
    if selector is None:
        selector = os.environ.get(DEVICE_ENV) or None
    listing = "\n".join("  " + d.title() for d in all_descriptions) or "  (none)"
    if not all_descriptions:
        raise DeviceUnavailable("no Vulkan device found (the loader lists none; docs/gpu.md, Setup)")
    if selector is not None:
        chosen = _select(all_descriptions, str(selector).strip())
        if chosen is None:
            raise DeviceUnavailable(f"{what}={selector!r} names no device; the devices are:\n{listing}")
        problems = base_problems(all_descriptions[chosen])
        if problems:
            raise DeviceUnavailable(f"{what}={selector!r} names {all_descriptions[chosen].title()}, which "
                                    f"the engine cannot use: {', '.join(problems)}")
        return chosen
    usable = [d for d in all_descriptions if not base_problems(d)]
    if not usable:
        reasons = "\n".join(f"  {d.title()}: {', '.join(base_problems(d))}" for d in all_descriptions)
        raise DeviceUnavailable(f"no Vulkan device the engine can use:\n{reasons}")
    for description in usable:
        if all(description.has(e) for e in needed_extensions):
            return description.index
    return usable[0].index


def _select(all_descriptions, selector):
    if selector.isdigit():
        index = int(selector)
        return index if index < len(all_descriptions) else None
    for description in all_descriptions:
        if selector.lower() in description.name.lower():
            return description.index
    return None


def device(index):
    """The process's Device on physical device `index` (made on first use)."""
    with _lock:
        dev = _devices.get(index)
        if dev is None or dev.closed:
            dev = _devices[index] = Device(instance(), index)
        return dev


# ------------------------------------------------------------------------------- device

class Device:
    """A VkDevice with one compute queue. `lost` is set for good after VK_ERROR_DEVICE_LOST."""

    def __init__(self, inst, index):
        self.instance = inst
        self.vk = inst.vk
        self.index = index
        self.physical = inst.physical[index]
        self.description = inst.descriptions[index]
        self.lost = None              # the DeviceLost message, once the device is lost
        self.closed = False
        self.busy = False             # a launch still runs after a timeout or an interrupt (runner.py)
        self.close_hooks = []         # what must be freed before the device (the engine's pools)
        # Counts destructions of buffers and pipelines: a recorded command buffer that may
        # name a destroyed object is recorded again (its handle value may be reused).
        self.generation = 0
        self.lock = threading.RLock()   # one launch at a time: one queue, one command buffer
        self.queue_family, self.timestamp_bits = self._queue_family()
        self.memory = vk.VkPhysicalDeviceMemoryProperties()
        self.vk.vkGetPhysicalDeviceMemoryProperties(self.physical, ctypes.byref(self.memory))
        self.enabled_extensions = tuple(e for e in WANTED_EXTENSIONS if self.description.has(e))
        self.pipeline_statistics = False    # pipelineExecutableInfo enabled (set by _create)
        self.handle = self._create()
        self.queue = vk.VP()
        self.vk.vkGetDeviceQueue(self.handle, self.queue_family, 0, ctypes.byref(self.queue))
        atexit.register(self.close)

    def _queue_family(self):
        count = vk.U32(0)
        self.vk.vkGetPhysicalDeviceQueueFamilyProperties(self.physical, ctypes.byref(count), None)
        families = (vk.VkQueueFamilyProperties * count.value)()
        self.vk.vkGetPhysicalDeviceQueueFamilyProperties(self.physical, ctypes.byref(count), families)
        compute = [(i, f) for i, f in enumerate(families[:count.value]) if f.queueFlags & vk.QUEUE_COMPUTE_BIT]
        if not compute:
            raise DeviceUnavailable(f"{self.description.title()} has no compute queue")
        # Prefer a family with timestamps (the benchmarks' GPU times).
        index, family = max(compute, key=lambda item: item[1].timestampValidBits > 0)
        return index, family.timestampValidBits

    def _create(self):
        features = FeatureChain(self.instance, self.physical, self.enabled_extensions)
        features.disable(DISABLED_FEATURES)
        self.pipeline_statistics = features.get("pipelineExecutableInfo")
        priority = ctypes.c_float(1.0)
        queue_info = vk.VkDeviceQueueCreateInfo(vk.ST_DEVICE_QUEUE_CREATE_INFO, None, 0, self.queue_family, 1,
                                                ctypes.cast(ctypes.pointer(priority), vk.VP))
        names = (vk.CP * len(self.enabled_extensions))(*[e.encode() for e in self.enabled_extensions])
        info = vk.VkDeviceCreateInfo(vk.ST_DEVICE_CREATE_INFO, ctypes.cast(ctypes.pointer(features.features2), vk.VP),
                                     0, 1, ctypes.cast(ctypes.pointer(queue_info), vk.VP), 0, None,
                                     len(self.enabled_extensions), ctypes.cast(names, vk.VP), None)
        handle = vk.VP()
        vk.check(self.vk.vkCreateDevice(self.physical, ctypes.byref(info), None, ctypes.byref(handle)),
                 f"creating the device on {self.description.title()}")
        return handle

    def check(self, result, what):
        """vk.check, remembering a lost device."""
        try:
            return vk.check(result, what)
        except DeviceError as error:
            if result == vk.ERROR_DEVICE_LOST:
                self.lost = str(error)
            raise

    def require_usable(self):
        if self.lost:
            raise DeviceLost(self.lost)
        if self.closed:
            raise DeviceError("the Vulkan device was closed")

    def memory_type(self, type_bits, wanted, preferred=0):
        """The index of a memory type allowed by `type_bits` with all `wanted` property
        flags, those with `preferred` flags too first."""
        candidates = [i for i in range(self.memory.memoryTypeCount)
                      if type_bits & (1 << i) and
                      self.memory.memoryTypes[i].propertyFlags & wanted == wanted]
        if not candidates:
            raise DeviceError(f"{self.description.title()} has no memory type with flags {wanted:#x}")
        best = [i for i in candidates if self.memory.memoryTypes[i].propertyFlags & preferred == preferred]
        return (best or candidates)[0]

    def close(self):
        """Destroy the device (after its work is done). A lost device, or one with a launch
        still running after a timeout, is left to the process's exit: destroying objects the
        GPU may still use is undefined behaviour (Vulkan 1.3, 3.3.1 Object Lifetime)."""
        if self.closed:
            return
        self.closed = True
        if self.lost or self.busy:
            return
        for hook in self.close_hooks:
            hook()
        self.vk.vkDeviceWaitIdle(self.handle)
        self.vk.vkDestroyDevice(self.handle, None)
