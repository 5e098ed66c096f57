"""The reflection record of a Vulkan module: its kernels' signatures, carried inside the module.

docs/vulkan-abi.md is the contract. The record is one `OpSourceExtension` whose string is
`clcoop-reflect-v1:` followed by JSON, so that the GPU engine (clcoop/vulkan/) can load a module
compiled elsewhere with the standard library and NumPy alone: this module imports neither
llvmlite nor NumPy. SPIR-V 3.32.2: OpSourceExtension is a debug instruction (it may appear any
number of times, in the debug section, and changes no semantics).
"""

import json
import struct

from clcoop.errors import ClcoopError

PREFIX = "clcoop-reflect-v1:"
MAGIC = 0x07230203
OP_SOURCE_EXTENSION = 4
KINDS = ("global", "constant", "local", "scalar")
# The element dtypes an argument's entry may name (docs/vulkan-abi.md): those of OpenCL C's
# scalar types (vulkan_types.SCALARS, which a test keeps within this set), and V<bytes> for
# a struct pointer's records.
SCALAR_DTYPES = frozenset(("bool", "int8", "uint8", "int16", "uint16", "int32", "uint32", "int64", "uint64",
                           "float16", "bfloat16", "float32", "float64"))


class ReflectionError(ClcoopError):
    """A module without a readable reflection record."""


def encode_string(text):
    """A SPIR-V literal string: UTF-8, NUL-terminated, padded to words (SPIR-V 2.2.1)."""
    data = text.encode("utf-8") + b"\0"
    data += b"\0" * (-len(data) % 4)
    return list(struct.unpack(f"<{len(data) // 4}I", data))


def decode_string(words):
    data = struct.pack(f"<{len(words)}I", *words)
    return data.split(b"\0", 1)[0].decode("utf-8")


def record_words(kernels):
    """The operand words of the OpSourceExtension that carries `kernels` (name -> signature dict)."""
    text = PREFIX + json.dumps({"kernels": kernels}, sort_keys=True, separators=(",", ":"))
    return encode_string(text)


def _instructions(data):
    if len(data) < 20 or len(data) % 4:
        raise ReflectionError("not a SPIR-V module (too short or not a whole number of words)")
    words = struct.unpack(f"<{len(data) // 4}I", data)
    if words[0] != MAGIC:
        raise ReflectionError("not a SPIR-V module (bad magic number)")
    at = 5
    while at < len(words):
        count, opcode = words[at] >> 16, words[at] & 0xFFFF
        if count == 0 or at + count > len(words):
            raise ReflectionError(f"truncated SPIR-V module (instruction at word {at})")
        yield opcode, words[at + 1:at + count]
        at += count


def read_reflection(data):
    """The kernels record of a module's bytes: {kernel name: signature dict} (docs/vulkan-abi.md)."""
    for opcode, operands in _instructions(bytes(data)):
        if opcode != OP_SOURCE_EXTENSION:
            continue
        text = decode_string(operands)
        if not text.startswith(PREFIX):
            continue
        try:
            kernels = json.loads(text[len(PREFIX):])["kernels"]
        except (ValueError, KeyError, TypeError) as error:
            raise ReflectionError(f"unreadable clcoop reflection record: {error}") from None
        _check_record(kernels)
        return kernels
    raise ReflectionError("the module has no clcoop reflection record (was it compiled with "
                          "`clcoop --emit-spirv --target-env vulkan1.3`, and not stripped of debug instructions?)")


def _check_record(kernels):
    if not isinstance(kernels, dict):
        raise ReflectionError("unreadable clcoop reflection record: 'kernels' is not an object")
    for name, kernel in kernels.items():
        args = kernel.get("args") if isinstance(kernel, dict) else None
        if not isinstance(args, list):
            raise ReflectionError(f"unreadable clcoop reflection record: kernel '{name}' has no argument list")
        for arg in args:
            if not isinstance(arg, dict) or arg.get("kind") not in KINDS:
                raise ReflectionError(f"unreadable clcoop reflection record: kernel '{name}' has an argument "
                                      f"of unknown kind {arg.get('kind') if isinstance(arg, dict) else arg!r}")
