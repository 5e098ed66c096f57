"""The driver's own statistics of a compute pipeline, through VK_KHR_pipeline_executable_properties:
what the driver compiled a kernel into (register count, spills, shared memory, instruction
counts: whatever the driver chooses to report), per executable of the pipeline.

    executables(device, pipeline)  ->  [{"name", "description", "stages", "subgroup_size",
                                         "statistics": {name: (value, description)}}, ...]

A value is a Python bool, int or float as the statistic's format says (bool32, int64, uint64,
float64). With representations=True each executable also has "representations": a list of
{"name", "description", "text" (a str) or "data" (bytes)}: the driver's internal forms (its IR,
its assembly), which only a pipeline created with CAPTURE_INTERNAL_REPRESENTATIONS has.

The extension's queries follow the usual two calls (count, then fill; Vulkan 1.3, 3.10
"Opaque Data Queries"). VulkanKernel.statistics() picks the pipeline a launch would use;
format_executables() is clcoop-run's text.
"""
import ctypes

from clcoop.errors import DeviceError, UnsupportedOnDevice
from clcoop.vulkan import vk
from clcoop.vulkan.device import KHR_PIPELINE_EXECUTABLE_PROPERTIES

STAGE_NAMES = {vk.SHADER_STAGE_COMPUTE_BIT: "compute"}
# How a statistic's value is read from its union, per VkPipelineExecutableStatisticFormatKHR.
_READ_VALUE = {
    vk.STATISTIC_FORMAT_BOOL32: lambda value: bool(value.b32),
    vk.STATISTIC_FORMAT_INT64: lambda value: int(value.i64),
    vk.STATISTIC_FORMAT_UINT64: lambda value: int(value.u64),
    vk.STATISTIC_FORMAT_FLOAT64: lambda value: float(value.f64),
}
# A count that keeps changing between the two calls (VK_INCOMPLETE each time) is a driver fault.
_QUERY_TRIES = 4


def unsupported_reason(device):
    """Why `device` (a device.Device) cannot report pipeline statistics, or None."""
    description = device.description
    if not description.has(KHR_PIPELINE_EXECUTABLE_PROPERTIES):
        return (f"{description.title()} does not offer {KHR_PIPELINE_EXECUTABLE_PROPERTIES} "
                f"(the driver's statistics of a pipeline)")
    if not device.pipeline_statistics:
        return (f"{description.title()} offers {KHR_PIPELINE_EXECUTABLE_PROPERTIES} but not its feature "
                f"pipelineExecutableInfo")
    return None


def require_statistics(device, what):
    """UnsupportedOnDevice, naming `what` was asked, unless `device` reports statistics."""
    why = unsupported_reason(device)
    if why is not None:
        raise UnsupportedOnDevice(f"{what}: no pipeline statistics: {why}")


def _text(chars):
    return chars.decode("utf-8", errors="replace")


def _function(device, name):
    function = device.vk.device_function(device.handle, name)
    if function is None:
        raise DeviceError(f"{device.description.title()} enabled {KHR_PIPELINE_EXECUTABLE_PROPERTIES} "
                          f"but its driver has no {name}")
    return function


def _query(device, function, info, struct, stype, what):
    """The structures a two-call query fills: first the count, then the array (again when
    the driver answers VK_INCOMPLETE: its count changed)."""
    for _ in range(_QUERY_TRIES):
        count = vk.U32(0)
        device.check(function(device.handle, ctypes.byref(info), ctypes.byref(count), None), what)
        items = (struct * count.value)(*[struct(stype) for _ in range(count.value)])
        result = device.check(function(device.handle, ctypes.byref(info), ctypes.byref(count), items), what)
        if result != vk.INCOMPLETE:
            return list(items[:count.value])
    raise DeviceError(f"{what}: the driver's count kept changing (VK_INCOMPLETE {_QUERY_TRIES} times)")


def statistic_value(statistic):
    """The Python value of a VkPipelineExecutableStatisticKHR (DeviceError for an unknown format)."""
    read = _READ_VALUE.get(statistic.format)
    if read is None:
        raise DeviceError(f"the driver's statistic '{_text(statistic.name)}' has format {statistic.format}, "
                          f"none of VkPipelineExecutableStatisticFormatKHR's")
    return read(statistic.value)


def _statistics(device, info, what):
    function = _function(device, "vkGetPipelineExecutableStatisticsKHR")
    found = {}
    for statistic in _query(device, function, info, vk.VkPipelineExecutableStatisticKHR,
                            vk.ST_PIPELINE_EXECUTABLE_STATISTIC_KHR, what):
        name, number = _text(statistic.name), 2
        while name in found:              # a driver may repeat a name: keep both
            name, number = f"{_text(statistic.name)} ({number})", number + 1
        found[name] = (statistic_value(statistic), _text(statistic.description))
    return found


def _representations(device, info, what):
    """The internal representations of one executable: sizes first (pData NULL), then the data."""
    function = _function(device, "vkGetPipelineExecutableInternalRepresentationsKHR")
    struct = vk.VkPipelineExecutableInternalRepresentationKHR
    stype = vk.ST_PIPELINE_EXECUTABLE_INTERNAL_REPRESENTATION_KHR
    for _ in range(_QUERY_TRIES):
        sized = _query(device, function, info, struct, stype, what)
        items = (struct * len(sized))(*[struct(stype) for _ in sized])
        buffers = []
        for item, size in zip(items, sized):
            buffer = ctypes.create_string_buffer(max(size.dataSize, 1))
            item.dataSize, item.pData = size.dataSize, ctypes.cast(buffer, vk.VP)
            buffers.append(buffer)
        count = vk.U32(len(items))
        result = device.check(function(device.handle, ctypes.byref(info), ctypes.byref(count), items), what)
        if result != vk.INCOMPLETE:
            return [_representation(item, buffer) for item, buffer in zip(items[:count.value], buffers)]
    raise DeviceError(f"{what}: the driver's representations kept changing (VK_INCOMPLETE {_QUERY_TRIES} times)")


def _representation(item, buffer):
    data = buffer.raw[:item.dataSize]
    entry = {"name": _text(item.name), "description": _text(item.description)}
    if item.isText:        # null-terminated UTF-8 (the extension's VkPipelineExecutableInternalRepresentationKHR)
        entry["text"] = data.split(b"\0", 1)[0].decode("utf-8", errors="replace")
    else:
        entry["data"] = data
    return entry


def executables(device, pipeline, representations=False, what="the pipeline statistics"):
    """Every executable of `pipeline` (a VkPipeline handle value made on `device` with
    CAPTURE_STATISTICS, and CAPTURE_INTERNAL_REPRESENTATIONS for representations=True) with
    its statistics (module docstring). UnsupportedOnDevice when the device cannot tell."""
    require_statistics(device, what)
    properties = _function(device, "vkGetPipelineExecutablePropertiesKHR")
    pipeline_info = vk.VkPipelineInfoKHR(vk.ST_PIPELINE_INFO_KHR, None, pipeline)
    found = []
    for index, executable in enumerate(_query(device, properties, pipeline_info, vk.VkPipelineExecutablePropertiesKHR,
                                               vk.ST_PIPELINE_EXECUTABLE_PROPERTIES_KHR, what)):
        info = vk.VkPipelineExecutableInfoKHR(vk.ST_PIPELINE_EXECUTABLE_INFO_KHR, None, pipeline, index)
        entry = {"name": _text(executable.name), "description": _text(executable.description),
                 "stages": [label for bit, label in STAGE_NAMES.items() if executable.stages & bit]
                 or [f"{executable.stages:#x}"],
                 "subgroup_size": executable.subgroupSize,
                 "statistics": _statistics(device, info, what)}
        if representations:
            entry["representations"] = _representations(device, info, what)
        found.append(entry)
    return found


def as_json(found):
    """executables()' result as JSON data: values stay typed, (value, description) pairs become
    {"value", "description"}, binary representations their size."""
    data = []
    for executable in found:
        entry = dict(executable)
        entry["statistics"] = {name: {"value": value, "description": description}
                               for name, (value, description) in executable["statistics"].items()}
        if "representations" in executable:
            entry["representations"] = [
                {key: (f"{len(value)} bytes of binary data" if key == "data" else value) for key, value in r.items()}
                for r in executable["representations"]]
        data.append(entry)
    return data


def format_value(value):
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, float):
        return f"{value:g}"
    return str(value)


def format_executables(found, representations=False):
    """Text for a person: each executable, then one line per statistic (name, value,
    the driver's description), then its internal representations when asked."""
    lines = []
    for index, executable in enumerate(found):
        lines.append(f"executable {index}: {executable['name']} ({', '.join(executable['stages'])}, "
                     f"subgroup size {executable['subgroup_size']}): {executable['description']}")
        statistics = executable["statistics"]
        width = max((len(name) for name in statistics), default=0)
        for name, (value, description) in statistics.items():
            lines.append(f"  {name:<{width}}  {format_value(value):>12}  {description}")
        if not statistics:
            lines.append("  (the driver reports no statistics)")
        for representation in executable.get("representations", ()) if representations else ():
            lines.append(f"  --- {representation['name']}: {representation['description']}")
            if "text" in representation:
                lines += ["  " + line for line in representation["text"].splitlines()]
            else:
                lines.append(f"  ({len(representation['data'])} bytes of binary data)")
    return "\n".join(lines) if lines else "(the driver reports no executables)"
