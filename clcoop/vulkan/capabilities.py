"""What a Vulkan device can run, as plain data, and the check of a kernel against it.

A DeviceDescription is what device.py reads from a physical device (or what a JSON file
recorded from one holds): its extensions, subgroup sizes, limits and cooperative-matrix
configurations (vkGetPhysicalDeviceCooperativeMatrixPropertiesKHR and, with
VK_NV_cooperative_matrix2, vkGetPhysicalDeviceCooperativeMatrixFlexibleDimensionsPropertiesNV).
check_kernel() compares a kernel's reflection record (docs/vulkan-abi.md) with it before
anything is dispatched, and raises UnsupportedOnDevice listing what the device supports. No
Vulkan call happens here, so CI checks kernels against a recorded description.
"""
import json
from dataclasses import asdict, dataclass, field

from clcoop.errors import DeviceError, UnsupportedOnDevice

KHR_COOPERATIVE_MATRIX = "VK_KHR_cooperative_matrix"
NV_COOPERATIVE_MATRIX2 = "VK_NV_cooperative_matrix2"
KHR_SHADER_BFLOAT16 = "VK_KHR_shader_bfloat16"
EXT_SUBGROUP_SIZE_CONTROL = "VK_EXT_subgroup_size_control"
DESCRIPTION_VERSION = 1


@dataclass(frozen=True)
class MatrixConfig:
    """One KHR configuration: an M x N x K multiply-add and its component types
    (VkCooperativeMatrixPropertiesKHR)."""
    M: int
    N: int
    K: int
    A: str
    B: str
    C: str
    result: str
    saturating: bool
    scope: str

    def text(self):
        sat = ", saturating" if self.saturating else ""
        return (f"{self.scope} {self.M}x{self.N}x{self.K} {self.A} x {self.B} + {self.C} -> "
                f"{self.result}{sat}")


@dataclass(frozen=True)
class FlexibleConfig:
    """One NV2 flexible-dimension configuration: any multiple of the granularities
    (VkCooperativeMatrixFlexibleDimensionsPropertiesNV); workgroup_invocations is the
    work-group size it applies to at workgroup scope."""
    M_granularity: int
    N_granularity: int
    K_granularity: int
    A: str
    B: str
    C: str
    result: str
    saturating: bool
    scope: str
    workgroup_invocations: int

    def text(self):
        sat = ", saturating" if self.saturating else ""
        where = f" with {self.workgroup_invocations} invocations" if self.scope == "workgroup" else ""
        return (f"{self.scope}{where}: multiples of {self.M_granularity}x{self.N_granularity}x"
                f"{self.K_granularity} {self.A} x {self.B} + {self.C} -> {self.result}{sat}")


@dataclass
class DeviceDescription:
    """A physical device as the engine sees it (JSON-serialisable)."""
    name: str
    index: int = 0
    device_type: str = "other"
    api_version: str = "1.3.0"
    driver_name: str = ""
    driver_info: str = ""
    vendor_id: int = 0
    device_id: int = 0
    extensions: tuple = ()
    subgroup_size: int = 0
    min_subgroup_size: int = 0
    max_subgroup_size: int = 0
    subgroup_size_control: bool = False      # requiredSubgroupSize works for compute shaders
    max_workgroup_size: tuple = (0, 0, 0)
    max_workgroup_invocations: int = 0
    max_workgroup_count: tuple = (0, 0, 0)
    max_shared_memory: int = 0
    max_push_constants_size: int = 0
    timestamp_period_ns: float = 0.0
    features: dict = field(default_factory=dict)   # the features the engine cares about -> bool
    khr: tuple = ()                                 # MatrixConfig
    flexible: tuple = ()                            # FlexibleConfig
    flexible_max_dimension: int = 0
    workgroup_scope_max_workgroup_size: int = 0
    # Bytes of shared memory the driver keeps when a module has workgroup-scope matrices
    # (VkPhysicalDeviceCooperativeMatrix2PropertiesNV; VUID-RuntimeSpirv-maxComputeSharedMemorySize-10168).
    workgroup_scope_reserved_shared_memory: int = 0
    source: str = ""                                # where a recorded description came from

    def has(self, extension):
        return extension in self.extensions

    def title(self):
        driver = f", {self.driver_name} {self.driver_info}".rstrip() if self.driver_name else ""
        return f"[{self.index}] {self.name} ({self.device_type}, Vulkan {self.api_version}{driver})"

    def to_json(self):
        data = asdict(self)
        data["version"] = DESCRIPTION_VERSION
        return data

    @classmethod
    def from_json(cls, data):
        if not isinstance(data, dict) or data.get("version") != DESCRIPTION_VERSION:
            raise DeviceError(f"not a clcoop device description (version {DESCRIPTION_VERSION})")
        data = dict(data)
        data.pop("version")
        try:
            data["khr"] = tuple(MatrixConfig(**c) for c in data.get("khr", ()))
            data["flexible"] = tuple(FlexibleConfig(**c) for c in data.get("flexible", ()))
            for key in ("extensions", "max_workgroup_size", "max_workgroup_count"):
                if key in data:
                    data[key] = tuple(data[key])
            return cls(**data)
        except TypeError as error:
            raise DeviceError(f"unreadable device description: {error}") from None


def load_description(path):
    """A DeviceDescription recorded with `clcoop-devices --json` (one device, or the first of a list)."""
    with open(path, encoding="utf-8") as f:
        data = json.load(f)
    if isinstance(data, list):
        data = data[0]
    return DeviceDescription.from_json(data)


# ------------------------------------------------------------------------------ the check

def supported_text(description):
    """What the device supports, one configuration a line (the error's list, clcoop-devices)."""
    lines = [f"subgroup size {_subgroup_text(description)}"]
    if description.khr:
        lines.append("KHR cooperative-matrix configurations (M x N x K):")
        lines += [f"  {c.text()}" for c in description.khr]
    else:
        lines.append(f"no KHR cooperative-matrix configurations ({KHR_COOPERATIVE_MATRIX} "
                     f"{'has none' if description.has(KHR_COOPERATIVE_MATRIX) else 'is missing'})")
    if description.flexible:
        lines.append("NV2 flexible dimensions:")
        lines += [f"  {c.text()}" for c in description.flexible]
    return "\n".join(lines)


def _subgroup_text(description):
    low, high = description.min_subgroup_size, description.max_subgroup_size
    if low and high and low != high:
        control = "selectable" if description.subgroup_size_control else "chosen by the driver"
        return f"{low} to {high} ({control}; default {description.subgroup_size})"
    return str(description.subgroup_size)


def kernel_problems(name, record, description, local_size=None):
    """Why the device cannot run kernel `name` (its reflection record), as a list of lines;
    [] when it can. local_size: the launch's (x, y, z), which workgroup-scope matrices need."""
    problems = []
    for extension in record.get("device_extensions") or ():
        if not description.has(extension):
            problems.append(f"the device lacks {extension}")
    problems += _subgroup_problems(record.get("subgroup_size"), description)
    invocations = _product(local_size) if local_size is not None else None
    for matrix in record.get("matrices") or ():
        if not _matrix_supported(matrix, description, invocations):
            problems.append(f"matrix type {_matrix_text(matrix)} is not supported")
    for mul_add in record.get("mul_adds") or ():
        if not _mul_add_supported(mul_add, description, invocations):
            problems.append(f"multiply-add {_mul_add_text(mul_add)} is not supported")
    return problems


def check_kernel(name, record, description, local_size=None):
    """UnsupportedOnDevice when kernel `name` cannot run on the device, with what it supports."""
    why = unsupported_reason(name, record, description, local_size)
    if why:
        raise UnsupportedOnDevice(f"kernel '{name}' cannot run on {why}")


def unsupported_reason(name, record, description, local_size=None):
    """'<the device>:' and the problems, then what the device supports; None when it runs."""
    problems = kernel_problems(name, record, description, local_size)
    if not problems:
        return None
    return (f"{description.title()}:\n" + "\n".join(f"  - {p}" for p in problems) +
            "\nthe device supports:\n" + _indent(supported_text(description)))


def _indent(text):
    return "\n".join("  " + line for line in text.splitlines())


def _product(sizes):
    total = 1
    for size in sizes:
        total *= int(size)
    return total


def _subgroup_problems(size, description):
    if size is None:
        return []
    low = description.min_subgroup_size or description.subgroup_size
    high = description.max_subgroup_size or description.subgroup_size
    if low == high == size:
        return []
    if not low <= size <= high or size & (size - 1):
        return [f"subgroup size {size} is required, the device has {_subgroup_text(description)}"]
    if not description.subgroup_size_control:
        return [f"subgroup size {size} is required, the device has {_subgroup_text(description)} "
                f"and cannot select one for compute shaders ({EXT_SUBGROUP_SIZE_CONTROL})"]
    return []


USE_DIMENSIONS = {"a": ("M", "K", "A"), "b": ("K", "N", "B"), "accumulator": ("M", "N", "C")}


def _matrix_supported(matrix, description, invocations):
    """SPV_KHR_cooperative_matrix / VK_KHR_cooperative_matrix: a matrix type must match a
    supported configuration: use A is M x K of AType, B is K x N of BType, an accumulator
    M x N of CType or ResultType (VUID-RuntimeSpirv-OpTypeCooperativeMatrixKHR-10163); with
    VK_NV_cooperative_matrix2, multiples of a flexible configuration's granularities."""
    use = matrix.get("use")
    if use not in USE_DIMENSIONS:
        return False
    row_dim, col_dim, type_key = USE_DIMENSIONS[use]
    rows, cols, component, scope = matrix["rows"], matrix["cols"], matrix["component"], matrix["scope"]
    for config in description.khr:
        sizes = {"M": config.M, "N": config.N, "K": config.K}
        types = {getattr(config, type_key)} | ({config.result} if use == "accumulator" else set())
        if config.scope == scope and sizes[row_dim] == rows and sizes[col_dim] == cols and component in types:
            return True
    for config in description.flexible:
        grains = {"M": config.M_granularity, "N": config.N_granularity, "K": config.K_granularity}
        types = {getattr(config, type_key)} | ({config.result} if use == "accumulator" else set())
        if config.scope == scope and _scope_fits(config, invocations) and \
                rows % grains[row_dim] == 0 and cols % grains[col_dim] == 0 and component in types:
            return True
    return False


def _scope_fits(config, invocations):
    """A workgroup-scope flexible configuration applies to its own work-group size only; an
    unknown launch size (the check before the launch) takes any."""
    return config.scope != "workgroup" or invocations is None or config.workgroup_invocations == invocations


def _mul_add_supported(mul_add, description, invocations):
    want = (mul_add["A"], mul_add["B"], mul_add["C"], mul_add["result"], bool(mul_add.get("saturating")),
            mul_add["scope"])
    M, N, K = mul_add["M"], mul_add["N"], mul_add["K"]
    for config in description.khr:
        have = (config.A, config.B, config.C, config.result, config.saturating, config.scope)
        if have == want and (config.M, config.N, config.K) == (M, N, K):
            return True
    for config in description.flexible:
        have = (config.A, config.B, config.C, config.result, config.saturating, config.scope)
        if have == want and _scope_fits(config, invocations) and M % config.M_granularity == 0 and \
                N % config.N_granularity == 0 and K % config.K_granularity == 0:
            return True
    return False


def _matrix_text(matrix):
    return f"{matrix['scope']} {matrix['rows']}x{matrix['cols']} {matrix['component']} use {matrix['use']}"


def _mul_add_text(mul_add):
    sat = ", saturating" if mul_add.get("saturating") else ""
    return (f"{mul_add['scope']} {mul_add['M']}x{mul_add['N']}x{mul_add['K']} {mul_add['A']} x {mul_add['B']} + "
            f"{mul_add['C']} -> {mul_add['result']}{sat}")
