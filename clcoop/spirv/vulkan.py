"""The Vulkan target: clcoop's LLVM IR -> a Vulkan compute module (docs/vulkan.md, the contract
docs/vulkan-abi.md).

    data = ir_to_vulkan_spirv(ir_text)        # bytes, accepted by spirv-val --target-env vulkan1.3

The route: clcoop.spirv.vulkan_ir rewrites the IR for llc-22's Vulkan target and opt-22 inlines
everything; llc-22 (`spirv1.6-unknown-vulkan1.3-compute`) structurizes the control flow and
selects instructions; clcoop.spirv.vulkan_module turns its output into the contract's module
(PhysicalStorageBuffer64, push constants, spec constants, Vulkan scopes, GLSL.std.450,
cooperative-matrix instructions), clcoop.spirv.rewrite lowers the element-wise matrix calls as
for the Kernel flavour, and clcoop.spirv.reflection records the kernels' signatures.
"""
import os
import re
import tempfile

from clcoop.spirv import binary as sb
from clcoop.spirv.reflection import record_words
from clcoop.spirv.rewrite import rewrite_cooperative_calls
from clcoop.spirv.tensor import rewrite_tensor_calls
from clcoop.spirv.tools import INTERNAL_HINT, SpirvError, find_tool, run_tool
from clcoop.spirv.vulkan_builtins import Builtins
from clcoop.spirv.vulkan_ir import (Locator, VulkanTargetError, after_inlining, before_inlining,
                                    kernel_of, private_constants, push_constant_layout, record_sizes)
from clcoop.spirv.vulkan_reflect import kernel_records

__all__ = ["ir_to_vulkan_spirv", "validate_vulkan", "TARGET_ENVS", "VulkanTargetError"]

TARGET_ENVS = ("vulkan1.3",)
LLC_TRIPLE = "spirv1.6-unknown-vulkan1.3-compute"
LLC_EXTENSIONS = "+SPV_KHR_cooperative_matrix,+SPV_KHR_bfloat16"
WIDE_VECTOR = re.compile(r"<(?:8|16) x ")
OPT_PASSES = "always-inline,mem2reg,infer-address-spaces,sroa,globaldce,lower-switch"
# LLVM's structurizecfg before llc-22: only for modules where llc-22's own structurizer writes
# invalid merge blocks (-O2 IR with a switch in a loop nest). Its Flow blocks cost the GEMMs of
# docs/gpu.md 35-40% on the H200 (143 against 91 TFLOP/s, measured 2026-11-28), so it is the
# second attempt, not the first.
STRUCTURIZE_PASSES = ",structurizecfg"


def _run(tool, args, text, what):
    with tempfile.TemporaryDirectory(prefix="clcoop-vulkan-") as folder:
        source = os.path.join(folder, "in.ll")
        target = os.path.join(folder, "out")
        with open(source, "w", encoding="utf-8") as handle:
            handle.write(text)
        done = run_tool(tool, list(args) + [source, "-o", target])
        if done.returncode != 0 or not os.path.exists(target):
            message = done.stderr.decode("utf-8", "replace").strip()
            raise SpirvError(f"{what} rejected the IR for the Vulkan target:\n{message}\n{INTERNAL_HINT}")
        with open(target, "rb") as handle:
            return handle.read()


def vulkan_ir(ir_text, structurize=False):
    """(IR text for llc-22's Vulkan target, the Kernel descriptions, the module's structs);
    `structurize`: LLVM's structurizecfg runs first (see STRUCTURIZE_PASSES)."""
    from clcoop.ir.loader import load_module
    loaded = load_module(ir_text)
    text = str(loaded.llvm_module)
    if not loaded.kernels:
        raise VulkanTargetError("error: the program has no kernel, so a Vulkan module would have no "
                                "entry point (Vulkan target)")
    builtins = Builtins(text, Locator(text))        # printf & co. first: their strings are globals
    text = private_constants(text, _program_scope_constants(loaded))
    kernels = [kernel_of(info, loaded.structs, record_sizes(text, info.name)) for info in loaded.kernels.values()]
    text = before_inlining(text, kernels, builtins)
    text = re.sub(r"^define (?:dso_local )?spir_func ", "define internal spir_func ",
                  text, flags=re.M)
    passes = OPT_PASSES + (STRUCTURIZE_PASSES if structurize else "")
    if WIDE_VECTOR.search(text):
        # Shader SPIR-V has vectors of 2-4 components (Vector16 is a Kernel capability): split
        # 8- and 16-wide ones into pieces of 32 bits (<4 x i8>, <2 x half>, scalars).
        passes += ",scalarizer<load-store;min-bits=32>"
    # The SPIR-V (OpenCL) target tells infer-address-spaces that addrspace(4) is generic.
    inlined = _run("opt", ["-mtriple=spirv64-unknown-unknown", f"-passes={passes}", "-S"], text, "opt-22").decode("utf-8")
    text, tokens = after_inlining(inlined, loaded.structs)
    return text, kernels, tokens


def _program_scope_constants(loaded):
    """Names of program-scope __constant variables (kept as Private arrays); __global ones are
    refused."""
    names = []
    for name, var in loaded.globals.items():
        if var.addrspace == 1 and var.init is not None:
            raise VulkanTargetError(f"error: program-scope variable '{name}' in the __global address "
                                    "space has no Vulkan form (a Vulkan module has no global memory of its "
                                    "own); pass the data in a buffer (Vulkan target)")
        if var.addrspace == 2 and var.init is not None:
            names.append(name)
    return names


def ir_to_vulkan_spirv(ir_text, target_env="vulkan1.3"):
    """LLVM IR (clcoop's, compiled with -g for located errors) -> the bytes of a Vulkan compute
    module that spirv-val --target-env vulkan1.3 accepts; VulkanTargetError for what cannot map."""
    if target_env not in TARGET_ENVS:
        raise VulkanTargetError(f"error: unknown target environment '{target_env}' (use "
                                f"{', '.join(TARGET_ENVS)})")
    find_tool("llc")
    find_tool("opt")
    find_tool("spirv-val")
    try:
        return _module(ir_text, target_env, structurize=False)
    except SpirvError:          # (a VulkanTargetError, what cannot map, is not one: it stands)
        # llc-22's structurizer wrote invalid merge blocks (or llc-22 failed): LLVM's first.
        return _module(ir_text, target_env, structurize=True)


def _module(ir_text, target_env, structurize):
    text, kernels, tokens = vulkan_ir(ir_text, structurize)
    raw = _run("llc", ["-O0", f"-mtriple={LLC_TRIPLE}", f"--spirv-ext={LLC_EXTENSIONS}", "-filetype=obj"],
               text, "llc-22")
    layouts = {k.name: push_constant_layout(k) for k in kernels}
    module = sb.read_module(raw)
    vulkan = _finish(module, kernels, layouts, tokens)
    records = kernel_records(vulkan, kernels, layouts, text)
    vulkan.add_source_extension(record_words(records))
    data = sb.write_module(vulkan.module)
    validate_vulkan(data, target_env)
    return data


def _finish(module, kernels, layouts, tokens):
    from clcoop.spirv.vulkan_module import finish_module
    vulkan = finish_module(module, kernels, layouts, tokens)
    vulkan.decode_block_parameters()           # before the tensor rewrite, which looks for the blocks
    rewrite_tensor_calls(rewrite_cooperative_calls(vulkan.module))
    vulkan.defs = sb.definitions(vulkan.module)
    vulkan.aligned_tensor_accesses()
    vulkan.drop_imports()
    vulkan.check()
    return vulkan


def validate_vulkan(data, target_env="vulkan1.3"):
    """spirv-val --target-env <env> on the module exactly as it is; SpirvError with its message."""
    with tempfile.TemporaryDirectory(prefix="clcoop-vulkan-") as folder:
        path = os.path.join(folder, "module.spv")
        with open(path, "wb") as handle:
            handle.write(data)
        done = run_tool("spirv-val", ["--target-env", target_env, path])
    if done.returncode != 0:
        message = (done.stdout + done.stderr).decode("utf-8", "replace").strip()
        raise SpirvError(f"the Vulkan module is invalid (spirv-val --target-env {target_env}):\n"
                         f"{message}\n{INTERNAL_HINT}")
