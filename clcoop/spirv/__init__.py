"""SPIR-V from clcoop's LLVM IR: llc-22, then the rewrite of imported cooperative-matrix calls, then spirv-val.

Interface: `ir_to_spirv(ir_text, triple) -> bytes` (a complete module, checked with spirv-val and, when
the kernel calls nothing external, spirv-link), `find_tool(name)`, `validate(spirv_bytes)`, `disassemble(bytes)`.
A module with OpCooperativeMatrixGetCoordinateEXT, the EXT use conversions, or tensor accesses through
CrossWorkgroup pointers or with decode functions fails spirv-val 2025.5 as emitted: `validate_known`
checks the copy `known_part` makes, with exactly those instructions changed.
"""
import re

import os
import tempfile

from clcoop.spirv.binary import imported_functions, read_module, write_module
from clcoop.spirv.coop2 import reject_bfloat16_arithmetic_ir, without_ext_constructs
from clcoop.spirv.float8 import rewrite_float8
from clcoop.spirv.function_operands import llc_extensions, without_get_coordinate
from clcoop.spirv.llc_workarounds import work_around_llc
from clcoop.spirv.rewrite import rewrite_cooperative_calls
from clcoop.spirv.tensor import rewrite_tensor_calls, validator_copy
from clcoop.spirv.tools import INTERNAL_HINT, SpirvError, find_tool, run_tool

__all__ = ["ir_to_spirv", "find_tool", "llc_spirv", "validate", "validate_known", "known_part", "disassemble", "spirv_triple",
           "SpirvError", "LLC_EXTENSIONS"]

# Enabled one by one: `--spirv-ext=all` gives modules spirv-val rejects (notes/llc22-cooperative-matrix.md).
LLC_EXTENSIONS = "+SPV_KHR_cooperative_matrix,+SPV_KHR_bfloat16"


def spirv_triple(triple):
    """The llc target for an OpenCL SPIR triple: spir64-* -> spirv64, spir-* -> spirv32."""
    arch = (triple or "spir64-unknown-unknown").split("-", 1)[0]
    if arch in ("spir64", "spirv64"):
        return "spirv64-unknown-unknown"
    if arch in ("spir", "spir32", "spirv32"):
        return "spirv32-unknown-unknown"
    raise SpirvError(f"no SPIR-V target for triple '{triple}' (use spir64 or spir)")


def llc_spirv(ir_text, triple, opt_level=0):
    """Run llc-22 on IR text; returns the SPIR-V bytes exactly as llc wrote them (imports included)."""
    with tempfile.TemporaryDirectory(prefix="clcoop-spirv-") as folder:
        source = os.path.join(folder, "kernel.ll")
        target = os.path.join(folder, "kernel.spv")
        with open(source, "w", encoding="utf-8") as handle:
            handle.write(ir_text)
        extensions = llc_extensions(LLC_EXTENSIONS, ir_text)
        if _INLINE_ASM.search(ir_text):
            extensions += ",+SPV_INTEL_inline_assembly"      # OpAsmINTEL / OpAsmCallINTEL
        done = _llc(opt_level, triple, extensions, source, target)
        asked = set()
        while done.returncode != 0 and len(asked) < MAX_EXTENSION_RETRIES:
            needed = extension_llc_requires(done.stderr.decode("utf-8", "replace"))
            if needed is None or needed in asked:
                break
            asked.add(needed)
            extensions += ",+" + needed
            done = _llc(opt_level, triple, extensions, source, target)
        if done.returncode != 0 or not os.path.exists(target):
            message = done.stderr.decode("utf-8", "replace").strip()
            raise SpirvError(f"llc-22 rejected the generated IR:\n{message}\n{INTERNAL_HINT}")
        with open(target, "rb") as handle:
            return handle.read()


def _llc(opt_level, triple, extensions, source, target):
    return run_tool("llc", [f"-O{opt_level}", f"-mtriple={spirv_triple(triple)}", f"--spirv-ext={extensions}",
                            "-filetype=obj", source, "-o", target])


def _run_on_bytes(tool, args, data):
    with tempfile.TemporaryDirectory(prefix="clcoop-spirv-") as folder:
        path = os.path.join(folder, "module.spv")
        with open(path, "wb") as handle:
            handle.write(data)
        return run_tool(tool, list(args) + [path])


def validate(data):
    """spirv-val; raises SpirvError with its message when the module is invalid."""
    done = _run_on_bytes("spirv-val", [], data)
    if done.returncode != 0:
        message = (done.stdout + done.stderr).decode("utf-8", "replace").strip()
        raise SpirvError(f"the SPIR-V module is invalid (spirv-val):\n{message}\n{INTERNAL_HINT}")


def disassemble(data):
    """spirv-dis text of a module (for messages and tests)."""
    done = _run_on_bytes("spirv-dis", ["--no-color"], data)
    if done.returncode != 0:
        raise SpirvError("spirv-dis failed: " + done.stderr.decode("utf-8", "replace").strip())
    return done.stdout.decode("utf-8", "replace")


# `@addr = ... global i64 ptrtoint (...)`: llc-22 emits an OpVariable whose initializer ID
# is never defined (spirv-val: "ID has not been defined"), for clang-22's IR as well.
_PTRTOINT_GLOBAL = re.compile(r"^@(?P<name>[\w.$\"]+) = .*\bglobal\b.*\bptrtoint \(", re.M)


# OpenCL C 2.0 atomic min/max: llc-22 leaves the calls as imported functions (the module would fail
# spirv-link), for clang-22's IR as well. The integer ones are rewritten (clcoop.spirv.rewrite);
# float ones (cl_ext_float_atomics) are refused.
_UNLOWERED_ATOMIC = re.compile(
    r"^declare .*@(_Z\d+(atomic_fetch_(?:min|max)(?:_explicit)?)P(?:U3AS\d+)?VU7_Atomic[fdDh]\w*)\(", re.M)


# llc-22 stops when the IR needs an extension it was not given: "LLVM ERROR: clock_read_device:
# the builtin requires the following SPIR-V extension: SPV_KHR_shader_clock" (pocl's
# test_kernel_clock), "LLVM ERROR: SPV_EXT_relaxed_printf_string_address_space is required
# because printf uses a format string not in constant address space" (some printf calls in
# functions taking a `constant char *`, pocl's test_convert_type_N; by a rule of llc's own, not
# the call's operands alone). clang-22's IR stops the same way. `--spirv-ext=all` is no answer
# (it gives modules spirv-val rejects), and a consumer must support each extension declared, so
# llc is asked again with each extension it names, once each: the module declares only those
# llc needs, and spirv-val still checks it.
_REQUIRED_EXTENSION = re.compile(r"requires the following SPIR-V extension: (SPV_\w+)"
                                 r"|(SPV_\w+) is required\b")
MAX_EXTENSION_RETRIES = 8


def extension_llc_requires(stderr_text):
    """The extension llc-22's error message says the IR needs, or None."""
    m = _REQUIRED_EXTENSION.search(stderr_text)
    return (m.group(1) or m.group(2)) if m else None


# A call of inline assembly: `call <type> asm [sideeffect ...] "template", "constraints"(...)`;
# one with outputs has a result (`%r = call`).
_INLINE_ASM = re.compile(r"\bcall\b[^\n]*?\basm\s+(?:\w+\s+)*\"", re.M)
_INLINE_ASM_WITH_OUTPUTS = re.compile(r"=\s*(?:\w+\s+)?call\b[^\n]*?\basm\s+(?:\w+\s+)*\"", re.M)


def reject_what_llc_cannot_lower(ir_text):
    """A clear error, instead of an invalid or incomplete module, for IR that llc-22 lowers
    wrongly or not at all."""
    m = _UNLOWERED_ATOMIC.search(ir_text)
    if m:
        raise SpirvError(f"{m.group(2)} cannot be emitted as SPIR-V: llc-22 leaves it an imported "
                         f"function ({m.group(1)}) on floating point, also for clang-22's IR; use a "
                         f"compare-exchange loop")
    if _INLINE_ASM_WITH_OUTPUTS.search(ir_text):
        raise SpirvError("inline assembly with outputs cannot be emitted as SPIR-V: llc-22 writes "
                         "an invalid module for it (an OpUConvert of the OpAsmCallINTEL result, "
                         "which spirv-val rejects), for clang-22's IR as well; statements without "
                         "outputs are emitted (SPV_INTEL_inline_assembly)")
    m = _PTRTOINT_GLOBAL.search(ir_text)
    if m:
        raise SpirvError(f"program-scope variable '{m.group('name')}' is initialized "
                         f"with an address converted to an integer, which llc-22 cannot lower to "
                         f"SPIR-V (clang-22's IR for it fails the same way); initialize a pointer "
                         f"variable instead")


# clang-22 calls to_global/to_local/to_private `__to_global(ptr addrspace(4))`, which llc-22
# leaves an imported function (for clang's IR too); under the mangled OpenCL name it lowers
# them to OpGenericCastToPtrExplicit (LLVM's SPIRVBuiltins.td: to_global & co.).
_ADDRESS_SPACE_QUERY = re.compile(r"@__(to_(?:global|local|private))\(")


def name_address_space_queries(ir_text):
    """`@__to_global(` -> `@_Z9to_globalPU3AS4v(` (and to_local, to_private)."""
    return _ADDRESS_SPACE_QUERY.sub(lambda m: f"@_Z{len(m.group(1))}{m.group(1)}PU3AS4v(", ir_text)


def ir_to_spirv(ir_text, triple="spir64-unknown-unknown", opt_level=0):
    """LLVM IR (docs/ir-conventions.md) -> a SPIR-V module with no cooperative-matrix imports, checked by
    validate_known (what spirv-val 2025.5 does not know is checked in a copy: known_part)."""
    find_tool("llc")
    find_tool("spirv-val")  # fail early, before any work, if a tool is missing
    reject_what_llc_cannot_lower(ir_text)
    reject_bfloat16_arithmetic_ir(ir_text)
    ir_text = work_around_llc(name_address_space_queries(ir_text))
    raw = llc_spirv(ir_text, triple, opt_level)
    module = rewrite_float8(rewrite_tensor_calls(rewrite_cooperative_calls(read_module(raw)), ir_text))
    reject_unlowered_builtins(module)
    data = write_module(module)
    validate_known(data)
    return data


def reject_unlowered_builtins(module):
    """A clear error for an OpenCL C built-in llc-22 left an imported function (the OpenCL 1.x
    atomic_min/max and atom_min/max, sub_group_barrier, ...): the module would not link, as no
    library defines them. User functions are not mangled in OpenCL C, so an imported `_Z` name
    that is no SPIR-V operation is a built-in."""
    from clcoop.coop_names import names_spirv_operation
    from clcoop.ir.demangle import demangle
    left = sorted({demangle(name)[0] for name in imported_functions(module).values()
                   if name.startswith("_Z") and not names_spirv_operation(name)})
    if left:
        raise SpirvError(f"llc-22 leaves the OpenCL C built-in{'s' if len(left) > 1 else ''} "
                         f"{', '.join(left)} unlowered (an imported function no library defines), "
                         f"so --emit-spirv cannot emit this kernel; the interpreter and the Vulkan "
                         f"target (--target-env vulkan1.3) run it")


def known_part(data):
    """The copy of a module that SPIRV-Tools 2025.5 knows: OpCooperativeMatrixGetCoordinateEXT and
    the EXT conversions (A/B -> Accumulator, the transpose into A) made OpUndefs of their result
    types, their capabilities, extension and decoration dropped (docs/coopmat2-semantics.md
    "SPIR-V"); tensor pointers and decode operands changed as spirv.tensor.validator_copy
    says; everything else as it is."""
    checked, _changes = validator_copy(read_module(data))
    return write_module(without_get_coordinate(without_ext_constructs(checked)))


def validate_known(data):
    """validate() of what spirv-val 2025.5 knows (known_part): it does not know
    OpCooperativeMatrixGetCoordinateEXT nor the EXT conversions (docs/coopmat2-semantics.md
    "SPIR-V"), and it rejects two constructs of SPV_NV_cooperative_matrix2 outside Vulkan
    (tensor loads/stores through CrossWorkgroup pointers, decode functions), which it checks
    in a copy with exactly those changed (clcoop.spirv.tensor, docs/tensor.md "SPIR-V and
    validation")."""
    validate(known_part(data))
