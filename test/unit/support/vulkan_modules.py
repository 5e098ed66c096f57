"""Vulkan test modules written by hand in SPIR-V assembly, following docs/vulkan-abi.md
(push-constant block of device addresses and scalars, then the global offset; local size
SpecIds 0-2; __local lengths SpecId 100 + i), assembled with spirv-as and checked with
spirv-val --target-env vulkan1.3, each with its reflection record.

They let the GPU engine's tests run without the Vulkan target of the compiler, and with
exactly known modules. device_or_skip() gives the first Vulkan device (lavapipe here), or
skips naming what is missing.
"""
import json
import subprocess

import pytest

from clcoop.errors import ToolMissing
from clcoop.spirv.reflection import PREFIX
from clcoop.spirv.tools import find_tool

HEADER = """
               OpCapability Shader
               OpCapability Int64
               OpCapability PhysicalStorageBufferAddresses
               OpCapability VulkanMemoryModel
               OpMemoryModel PhysicalStorageBuffer64 Vulkan
"""

TYPES = """
       %void = OpTypeVoid
         %fn = OpTypeFunction %void
       %bool = OpTypeBool
       %uint = OpTypeInt 32 0
        %int = OpTypeInt 32 1
      %ulong = OpTypeInt 64 0
      %float = OpTypeFloat 32
     %v3uint = OpTypeVector %uint 3
     %uint_0 = OpConstant %uint 0
     %uint_1 = OpConstant %uint 1
     %uint_2 = OpConstant %uint 2
     %uint_3 = OpConstant %uint 3
    %uint_32 = OpConstant %uint 32
   %uint_264 = OpConstant %uint 264
      %int_0 = OpConstant %int 0
      %int_1 = OpConstant %int 1
      %int_2 = OpConstant %int 2
      %int_3 = OpConstant %int 3
      %int_4 = OpConstant %int 4
    %float_0 = OpConstant %float 0
       %arr3 = OpTypeArray %uint %uint_3
   %pculong = OpTypePointer PushConstant %ulong
     %pcint = OpTypePointer PushConstant %int
    %pcuint = OpTypePointer PushConstant %uint
    %pcfloat = OpTypePointer PushConstant %float
       %fptr = OpTypePointer PhysicalStorageBuffer %float
      %inv3 = OpTypePointer Input %v3uint
         %lx = OpSpecConstant %uint 1
         %ly = OpSpecConstant %uint 1
         %lz = OpSpecConstant %uint 1
     %wgsize = OpSpecConstantComposite %v3uint %lx %ly %lz
"""

LOCAL_SIZE_DECORATIONS = """
               OpDecorate %wgsize BuiltIn WorkgroupSize
               OpDecorate %lx SpecId 0
               OpDecorate %ly SpecId 1
               OpDecorate %lz SpecId 2
               OpDecorate %arr3 ArrayStride 4
               OpDecorate %fptr ArrayStride 4
"""


def _global(name, offset, writable, dtype="float32", type_name="float*"):
    return {"name": name, "kind": "global", "type": type_name, "dtype": dtype, "writable": writable,
            "offset": offset, "size": 8}


def _scalar(name, offset, type_name="int", dtype="int32", size=4):
    return {"name": name, "kind": "scalar", "type": type_name, "dtype": dtype, "offset": offset, "size": size}


def record(args, push_size, offset_at, **extra):
    kernel = {"args": args, "push_constant_size": push_size, "global_offset_offset": offset_at,
              "local_size": None, "subgroup_size": None, "matrices": [], "mul_adds": [], "device_extensions": []}
    kernel.update(extra)
    return kernel


# c[i] = a[i] + b[i] for i = get_global_id(0) < n.
VADD = HEADER + """
               OpEntryPoint GLCompute %main "vadd" %gid %pc
""" + "@RECORD@" + LOCAL_SIZE_DECORATIONS + """
               OpDecorate %gid BuiltIn GlobalInvocationId
               OpDecorate %Push Block
               OpMemberDecorate %Push 0 Offset 0
               OpMemberDecorate %Push 1 Offset 8
               OpMemberDecorate %Push 2 Offset 16
               OpMemberDecorate %Push 3 Offset 24
               OpMemberDecorate %Push 4 Offset 28
""" + TYPES + """
       %Push = OpTypeStruct %ulong %ulong %ulong %int %arr3
     %pcptr = OpTypePointer PushConstant %Push
         %pc = OpVariable %pcptr PushConstant
        %gid = OpVariable %inv3 Input
       %main = OpFunction %void None %fn
      %entry = OpLabel
         %g3 = OpLoad %v3uint %gid
         %g0 = OpCompositeExtract %uint %g3 0
       %offp = OpAccessChain %pcuint %pc %int_4 %int_0
        %off = OpLoad %uint %offp
          %i = OpIAdd %uint %g0 %off
         %np = OpAccessChain %pcint %pc %int_3
          %n = OpLoad %int %np
         %nu = OpBitcast %uint %n
         %in = OpULessThan %bool %i %nu
               OpSelectionMerge %end None
               OpBranchConditional %in %body %end
       %body = OpLabel
         %ap = OpAccessChain %pculong %pc %int_0
         %aa = OpLoad %ulong %ap
         %bp = OpAccessChain %pculong %pc %int_1
         %ba = OpLoad %ulong %bp
         %cp = OpAccessChain %pculong %pc %int_2
         %ca = OpLoad %ulong %cp
         %a0 = OpConvertUToPtr %fptr %aa
         %b0 = OpConvertUToPtr %fptr %ba
         %c0 = OpConvertUToPtr %fptr %ca
         %ai = OpPtrAccessChain %fptr %a0 %i
         %bi = OpPtrAccessChain %fptr %b0 %i
         %ci = OpPtrAccessChain %fptr %c0 %i
         %av = OpLoad %float %ai Aligned 4
         %bv = OpLoad %float %bi Aligned 4
         %sv = OpFAdd %float %av %bv
               OpStore %ci %sv Aligned 4
               OpBranch %end
        %end = OpLabel
               OpReturn
               OpFunctionEnd
"""
VADD_RECORD = {"vadd": record([_global("a", 0, False), _global("b", 8, False), _global("c", 16, True),
                               _scalar("n", 24)], 40, 28)}

# A kernel that breaks its record's promise: it writes `a` (recorded read-only) and `c`:
# a[i] = -1; c[i] = 2 * i. Only `c` may come back.
WRITES_READ_ONLY = HEADER + """
               OpEntryPoint GLCompute %main "scribble" %gid %pc
""" + "@RECORD@" + LOCAL_SIZE_DECORATIONS + """
               OpDecorate %gid BuiltIn GlobalInvocationId
               OpDecorate %Push Block
               OpMemberDecorate %Push 0 Offset 0
               OpMemberDecorate %Push 1 Offset 8
               OpMemberDecorate %Push 2 Offset 16
""" + TYPES + """
       %Push = OpTypeStruct %ulong %ulong %arr3
     %pcptr = OpTypePointer PushConstant %Push
         %pc = OpVariable %pcptr PushConstant
        %gid = OpVariable %inv3 Input
   %float_m1 = OpConstant %float -1
       %main = OpFunction %void None %fn
      %entry = OpLabel
         %g3 = OpLoad %v3uint %gid
          %i = OpCompositeExtract %uint %g3 0
         %ap = OpAccessChain %pculong %pc %int_0
         %aa = OpLoad %ulong %ap
         %cp = OpAccessChain %pculong %pc %int_1
         %ca = OpLoad %ulong %cp
         %a0 = OpConvertUToPtr %fptr %aa
         %c0 = OpConvertUToPtr %fptr %ca
         %ai = OpPtrAccessChain %fptr %a0 %i
         %ci = OpPtrAccessChain %fptr %c0 %i
               OpStore %ai %float_m1 Aligned 4
         %i2 = OpIMul %uint %i %uint_2
         %fi = OpConvertUToF %float %i2
               OpStore %ci %fi Aligned 4
               OpReturn
               OpFunctionEnd
"""
WRITES_READ_ONLY_RECORD = {"scribble": record([_global("a", 0, False), _global("c", 8, True)], 28, 16)}

# __local memory and the local size: tmp[lid] = lid + scale * group; barrier; work-item 0
# writes out[group] = sum of tmp[0 .. local_size.x). tmp is argument 1: its length is SpecId 101.
LOCAL_SUM = HEADER + """
               OpEntryPoint GLCompute %main "local_sum" %lid %grp %pc %tmp
""" + "@RECORD@" + LOCAL_SIZE_DECORATIONS + """
               OpDecorate %lid BuiltIn LocalInvocationId
               OpDecorate %grp BuiltIn WorkgroupId
               OpDecorate %tmplen SpecId 101
               OpDecorate %Push Block
               OpMemberDecorate %Push 0 Offset 0
               OpMemberDecorate %Push 1 Offset 8
               OpMemberDecorate %Push 2 Offset 12
""" + TYPES + """
     %tmplen = OpSpecConstant %uint 1
     %tmparr = OpTypeArray %float %tmplen
     %wgarr = OpTypePointer Workgroup %tmparr
    %wgfloat = OpTypePointer Workgroup %float
        %tmp = OpVariable %wgarr Workgroup
       %Push = OpTypeStruct %ulong %float %arr3
     %pcptr = OpTypePointer PushConstant %Push
         %pc = OpVariable %pcptr PushConstant
        %lid = OpVariable %inv3 Input
        %grp = OpVariable %inv3 Input
      %fnuint = OpTypePointer Function %uint
     %fnfloat = OpTypePointer Function %float
       %main = OpFunction %void None %fn
      %entry = OpLabel
          %k = OpVariable %fnuint Function
        %acc = OpVariable %fnfloat Function
         %l3 = OpLoad %v3uint %lid
         %l0 = OpCompositeExtract %uint %l3 0
         %w3 = OpLoad %v3uint %grp
         %w0 = OpCompositeExtract %uint %w3 0
         %sp = OpAccessChain %pcfloat %pc %int_1
      %scale = OpLoad %float %sp
         %lf = OpConvertUToF %float %l0
         %wf = OpConvertUToF %float %w0
         %sw = OpFMul %float %scale %wf
         %vv = OpFAdd %float %lf %sw
         %tl = OpAccessChain %wgfloat %tmp %l0
               OpStore %tl %vv
               OpControlBarrier %uint_2 %uint_2 %uint_264
       %first = OpIEqual %bool %l0 %uint_0
               OpSelectionMerge %done None
               OpBranchConditional %first %sum %done
        %sum = OpLabel
               OpStore %k %uint_0
               OpStore %acc %float_0
               OpBranch %head
       %head = OpLabel
               OpLoopMerge %after %cont None
               OpBranch %test
       %test = OpLabel
         %kv = OpLoad %uint %k
       %more = OpULessThan %bool %kv %lx
               OpBranchConditional %more %body %after
       %body = OpLabel
         %tk = OpAccessChain %wgfloat %tmp %kv
         %tv = OpLoad %float %tk
         %av = OpLoad %float %acc
         %nv = OpFAdd %float %av %tv
               OpStore %acc %nv
               OpBranch %cont
       %cont = OpLabel
         %k1 = OpIAdd %uint %kv %uint_1
               OpStore %k %k1
               OpBranch %head
      %after = OpLabel
         %op = OpAccessChain %pculong %pc %int_0
         %oa = OpLoad %ulong %op
         %o0 = OpConvertUToPtr %fptr %oa
         %ow = OpPtrAccessChain %fptr %o0 %w0
         %fv = OpLoad %float %acc
               OpStore %ow %fv Aligned 4
               OpBranch %done
       %done = OpLabel
               OpReturn
               OpFunctionEnd
"""
LOCAL_SUM_RECORD = {"local_sum": record(
    [_global("out", 0, True), {"name": "tmp", "kind": "local", "type": "float*", "dtype": "float32", "spec_id": 101},
     _scalar("scale", 8, "float", "float32")], 24, 12)}

# A loop of n iterations per work-item (a launch that takes long): a linear congruential
# generator, whose exit value no compiler computes in closed form: for k < n:
# acc = acc * 1664525 + 1013904223 + k; out[i] = acc.
SPIN = HEADER + """
               OpEntryPoint GLCompute %main "spin" %gid %pc
""" + "@RECORD@" + LOCAL_SIZE_DECORATIONS + """
               OpDecorate %gid BuiltIn GlobalInvocationId
               OpDecorate %Push Block
               OpMemberDecorate %Push 0 Offset 0
               OpMemberDecorate %Push 1 Offset 8
               OpMemberDecorate %Push 2 Offset 12
""" + TYPES + """
       %Push = OpTypeStruct %ulong %uint %arr3
     %pcptr = OpTypePointer PushConstant %Push
         %pc = OpVariable %pcptr PushConstant
        %gid = OpVariable %inv3 Input
      %fnuint = OpTypePointer Function %uint
      %lcg_a = OpConstant %uint 1664525
      %lcg_c = OpConstant %uint 1013904223
       %main = OpFunction %void None %fn
      %entry = OpLabel
          %k = OpVariable %fnuint Function
        %acc = OpVariable %fnuint Function
         %g3 = OpLoad %v3uint %gid
          %i = OpCompositeExtract %uint %g3 0
         %np = OpAccessChain %pcuint %pc %int_1
          %n = OpLoad %uint %np
               OpStore %k %uint_0
               OpStore %acc %uint_0
               OpBranch %head
       %head = OpLabel
               OpLoopMerge %after %cont None
               OpBranch %test
       %test = OpLabel
         %kv = OpLoad %uint %k
       %more = OpULessThan %bool %kv %n
               OpBranchConditional %more %body %after
       %body = OpLabel
         %av = OpLoad %uint %acc
         %mx = OpIMul %uint %av %lcg_a
         %mc = OpIAdd %uint %mx %lcg_c
         %a1 = OpIAdd %uint %mc %kv
               OpStore %acc %a1
               OpBranch %cont
       %cont = OpLabel
         %k1 = OpIAdd %uint %kv %uint_1
               OpStore %k %k1
               OpBranch %head
      %after = OpLabel
         %op = OpAccessChain %pculong %pc %int_0
         %oa = OpLoad %ulong %op
         %o0 = OpConvertUToPtr %fptr %oa
         %oi = OpPtrAccessChain %fptr %o0 %i
         %fv = OpLoad %uint %acc
         %ff = OpConvertUToF %float %fv
               OpStore %oi %ff Aligned 4
               OpReturn
               OpFunctionEnd
"""
SPIN_RECORD = {"spin": record([_global("out", 0, True), _scalar("n", 8, "uint", "uint32")], 24, 12)}


def record_instruction(records):
    """The OpSourceExtension line that carries `records` (docs/vulkan-abi.md)."""
    text = PREFIX + json.dumps({"kernels": records}, sort_keys=True, separators=(",", ":"))
    return f"               OpSourceExtension {json.dumps(text)}\n"


def assemble(source, records, tmp_path):
    """The module's bytes: `source` with its record, assembled and validated (vulkan1.3)."""
    try:
        spirv_as, spirv_val = find_tool("spirv-as"), find_tool("spirv-val")
    except ToolMissing as missing:
        pytest.skip(str(missing))
    text = source.replace("@RECORD@", record_instruction(records))
    asm, binary = tmp_path / "module.spvasm", tmp_path / "module.spv"
    asm.write_text(text)
    subprocess.run([spirv_as, "--target-env", "vulkan1.3", str(asm), "-o", str(binary)], check=True,
                   capture_output=True)
    subprocess.run([spirv_val, "--target-env", "vulkan1.3", str(binary)], check=True, capture_output=True)
    return binary.read_bytes()


def device_or_skip():
    """The DeviceDescription the engine would run on, or a skip saying why there is none."""
    from clcoop.errors import DeviceError
    from clcoop.vulkan import device
    try:
        return device.descriptions()[device.choose(device.descriptions())]
    except DeviceError as error:
        pytest.skip(f"no usable Vulkan device: {error}")


# Workgroup memory of two kinds: a static array tile[@LENGTH@] (a kernel's own __local array)
# and the __local argument `extra` (SpecId 101): tile[lid] = lid; extra[lid] = 2 * lid;
# barrier; out[gid] = tile[lid] + extra[lid] (local size <= both lengths).
def static_tile(length):
    return HEADER + """
               OpEntryPoint GLCompute %main "tile" %lid %gid %pc %tile %extra
""" + "@RECORD@" + LOCAL_SIZE_DECORATIONS + """
               OpDecorate %lid BuiltIn LocalInvocationId
               OpDecorate %gid BuiltIn GlobalInvocationId
               OpDecorate %extralen SpecId 101
               OpDecorate %Push Block
               OpMemberDecorate %Push 0 Offset 0
               OpMemberDecorate %Push 1 Offset 8
""" + TYPES + f"""
    %tilelen = OpConstant %uint {length}
""" + """
    %tilearr = OpTypeArray %float %tilelen
     %wgtile = OpTypePointer Workgroup %tilearr
   %extralen = OpSpecConstant %uint 1
   %extraarr = OpTypeArray %float %extralen
    %wgextra = OpTypePointer Workgroup %extraarr
    %wgfloat = OpTypePointer Workgroup %float
       %tile = OpVariable %wgtile Workgroup
      %extra = OpVariable %wgextra Workgroup
       %Push = OpTypeStruct %ulong %arr3
     %pcptr = OpTypePointer PushConstant %Push
         %pc = OpVariable %pcptr PushConstant
        %lid = OpVariable %inv3 Input
        %gid = OpVariable %inv3 Input
       %main = OpFunction %void None %fn
      %entry = OpLabel
         %l3 = OpLoad %v3uint %lid
         %l0 = OpCompositeExtract %uint %l3 0
         %g3 = OpLoad %v3uint %gid
         %g0 = OpCompositeExtract %uint %g3 0
         %lf = OpConvertUToF %float %l0
         %l2 = OpFAdd %float %lf %lf
         %tl = OpAccessChain %wgfloat %tile %l0
               OpStore %tl %lf
         %el = OpAccessChain %wgfloat %extra %l0
               OpStore %el %l2
               OpControlBarrier %uint_2 %uint_2 %uint_264
         %tv = OpLoad %float %tl
         %ev = OpLoad %float %el
         %sv = OpFAdd %float %tv %ev
         %op = OpAccessChain %pculong %pc %int_0
         %oa = OpLoad %ulong %op
         %o0 = OpConvertUToPtr %fptr %oa
         %oi = OpPtrAccessChain %fptr %o0 %g0
               OpStore %oi %sv Aligned 4
               OpReturn
               OpFunctionEnd
"""


STATIC_TILE_RECORD = {"tile": record(
    [_global("out", 0, True), {"name": "extra", "kind": "local", "type": "float*", "dtype": "float32",
                               "spec_id": 101}], 20, 8)}
