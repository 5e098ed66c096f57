"""The kernels' entries of a Vulkan module's reflection record (docs/vulkan-abi.md "The
reflection record"; clcoop.spirv.reflection writes and reads it)."""
import re

from clcoop import coop_names
from clcoop.coopmat_spec import COMPONENTS, Operand
from clcoop.ir.text import DEFINE_RE, llvm_unquote
from clcoop.spirv.vulkan_types import dtype_of_opencl, scalar_spec_ids, specializable

# OpenCL C component name -> VkComponentTypeKHR without its prefix.
VK_COMPONENTS = {"char": "s8", "uchar": "u8", "short": "s16", "ushort": "u16", "int": "s32",
                 "uint": "u32", "long": "s64", "ulong": "u64", "half": "f16", "float": "f32",
                 "double": "f64", "__bf16": "bf16"}
SCOPES = {3: "subgroup", 2: "workgroup"}
USES = {0: "a", 1: "b", 2: "accumulator"}
# The subgroup size clcoop's matrices assume on a GPU (shared/notes/gpu-vulkan.md: the KHR
# configurations need 32).
MATRIX_SUBGROUP_SIZE = 32
# SPIR-V capability -> the Vulkan feature a device must enable for it (VkPhysicalDevice*Features
# member names; Vulkan 1.3 core, VK_KHR_cooperative_matrix, VK_NV_cooperative_matrix2,
# VK_KHR_shader_bfloat16).
CAPABILITY_FEATURES = {
    9: "shaderFloat16", 10: "shaderFloat64", 11: "shaderInt64", 12: "shaderBufferInt64Atomics",
    22: "shaderInt16", 39: "shaderInt8", 4433: "storageBuffer16BitAccess", 4435: "storagePushConstant16",
    4448: "storageBuffer8BitAccess", 4450: "storagePushConstant8", 5345: "vulkanMemoryModel",
    5346: "vulkanMemoryModelDeviceScope", 5347: "bufferDeviceAddress", 6022: "cooperativeMatrix",
    5430: "cooperativeMatrixReductions", 5431: "cooperativeMatrixConversions",
    5432: "cooperativeMatrixPerElementOperations", 5433: "cooperativeMatrixTensorAddressing",
    5434: "cooperativeMatrixBlockLoads", 5116: "shaderBFloat16Type",
    5118: "shaderBFloat16CooperativeMatrix",
}
OP_CAPABILITY = 17
OP_EXECUTION_MODE_ID = 331
LOCAL_SIZE_ID = 38


def device_features(module, matrices):
    """The Vulkan features the module's capabilities (and workgroup-scope matrices) need."""
    features = {CAPABILITY_FEATURES[i.operands[0]] for i in module.instructions
                if i.opcode == OP_CAPABILITY and i.operands[0] in CAPABILITY_FEATURES}
    if any(m["scope"] == "workgroup" for m in matrices):
        features.add("cooperativeMatrixWorkgroupScope")
    if any(i.opcode == OP_EXECUTION_MODE_ID and i.operands[1] == LOCAL_SIZE_ID for i in module.instructions):
        features.add("maintenance4")             # LocalSizeId (Vulkan 1.3 core feature)
    return sorted(features)


_CALL = re.compile(r"call [^@\n]*@(_Z\d+" + re.escape(coop_names.SPIRV_PREFIX) + r"\w+)\((.*)\)")


def _function_bodies(text):
    """name -> body text of each definition."""
    bodies = {}
    for m in DEFINE_RE.finditer(text):
        end = text.find("\n}", m.end())
        bodies[llvm_unquote(m.group(1))] = text[m.end():end]
    return bodies


def _operand_component(elem, signed_bit):
    """A multiply-add operand's component as the device's configurations name it: an integer's
    signedness is the operands mask's (SPV_KHR_cooperative_matrix, "Cooperative Matrix
    Operands": without Matrix{A,B,C,Result}SignedComponentsKHR the components are unsigned),
    not its OpenCL C type's."""
    component = VK_COMPONENTS[elem]
    if component[0] in "su":
        return ("s" if signed_bit else "u") + component[1:]
    return component


def _matrix(arg):
    return {"scope": SCOPES.get(arg.scope, str(arg.scope)), "rows": arg.rows, "cols": arg.cols,
            "use": USES.get(arg.use, str(arg.use)), "component": VK_COMPONENTS[arg.elem]}


def matrix_uses(body):
    """(matrices, mul_adds, uses NV2) of one function body's cooperative-matrix calls."""
    matrices, mul_adds, nv2 = [], [], False
    for m in _CALL.finditer(body):
        callee = coop_names.parse_callee(m.group(1))
        if callee is None:
            continue
        if callee.base.endswith("NV") or callee.base.endswith("EXT"):
            nv2 = True
        for arg in callee.matrices:
            entry = _matrix(arg)
            if entry not in matrices:
                matrices.append(entry)
        if callee.base == coop_names.MUL_ADD and len(callee.matrices) == 4:
            result, a, b, c = callee.matrices
            found = re.search(r"i32 (\d+)\s*$", m.group(2))
            mask = int(found.group(1)) if found else 0
            entry = {"scope": SCOPES.get(result.scope, str(result.scope)), "M": a.rows, "N": b.cols,
                     "K": a.cols, "A": _operand_component(a.elem, mask & Operand.MATRIX_A_SIGNED),
                     "B": _operand_component(b.elem, mask & Operand.MATRIX_B_SIGNED),
                     "C": _operand_component(c.elem, mask & Operand.MATRIX_C_SIGNED),
                     "result": _operand_component(result.elem, mask & Operand.MATRIX_RESULT_SIGNED),
                     "saturating": bool(mask & Operand.SATURATING_ACCUMULATION)}
            if entry not in mul_adds:
                mul_adds.append(entry)
    return matrices, mul_adds, nv2


def _argument(arg, offset, size):
    record = {"name": arg.name, "kind": arg.kind, "type": arg.type_name}
    if arg.kind == "local":
        record["dtype"] = dtype_of_opencl(arg.type_name)
        return record
    if arg.kind in ("global", "constant"):
        record["dtype"] = dtype_of_opencl(arg.type_name, arg.record_size) or "uint8"
        record["writable"] = arg.kind == "global" and "const" not in arg.qualifiers.split()
    else:
        record["dtype"] = dtype_of_opencl(arg.type_name)
    record["offset"], record["size"] = offset, size
    return record


def kernel_records(vulkan, kernels, layouts, ir_text):
    """{kernel name: signature dict} for the reflection record."""
    from clcoop.ir.loader import DataLayout, TokenStream, parse_type
    layout = DataLayout(8)
    bodies = _function_bodies(ir_text)
    records = {}
    for kernel in kernels:
        offsets, total = layouts[kernel.name]
        args = []
        for index, arg in enumerate(kernel.args):
            if arg.kind == "local":
                entry = _argument(arg, None, None)
                entry["spec_id"] = 100 + index
            else:
                member = parse_type(TokenStream(kernel.members[arg.member], {}))
                entry = _argument(arg, offsets[arg.member], layout.size(member))
                if entry["kind"] == "scalar" and entry["dtype"] is None and member.kind == "int":
                    # An enum (OpenCL C 6.1: an integer type; clang passes its int): its IR width.
                    entry["dtype"] = f"int{member.bits}"
                if entry["kind"] == "scalar" and specializable(arg.type_name):
                    entry["spec_ids"] = list(scalar_spec_ids(index))
            args.append(entry)
        matrices, mul_adds, nv2 = matrix_uses(bodies.get(kernel.name, ""))
        bf16 = any("bf16" in (m["component"],) for m in matrices)
        extensions = (["VK_KHR_cooperative_matrix"] if matrices else []) + \
                     (["VK_NV_cooperative_matrix2"] if nv2 or any(m["scope"] == "workgroup" for m in matrices) else []) + \
                     (["VK_KHR_shader_bfloat16"] if bf16 else [])
        subgroup = kernel.subgroup_size or (MATRIX_SUBGROUP_SIZE if any(m["scope"] == "subgroup" for m in matrices) else None)
        records[kernel.name] = {
            "args": args, "push_constant_size": total, "global_offset_offset": offsets[-1],
            "local_size": list(kernel.local_size) if kernel.local_size else None,
            "subgroup_size": subgroup, "matrices": matrices, "mul_adds": mul_adds,
            "device_extensions": extensions,
            "device_features": device_features(vulkan.module, matrices),
        }
    return records


__all__ = ["kernel_records", "matrix_uses", "VK_COMPONENTS", "COMPONENTS"]
