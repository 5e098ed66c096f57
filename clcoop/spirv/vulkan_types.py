"""OpenCL C type names (kernel_arg_type) -> IR types and NumPy dtype names, for the Vulkan
target's push constants, `__local` arrays and reflection record (docs/vulkan-abi.md)."""
import re

# OpenCL C scalar name -> (IR type, NumPy dtype name). OpenCL C 6.1.1.
SCALARS = {
    "char": ("i8", "int8"), "uchar": ("i8", "uint8"), "unsigned char": ("i8", "uint8"),
    "short": ("i16", "int16"), "ushort": ("i16", "uint16"), "unsigned short": ("i16", "uint16"),
    "int": ("i32", "int32"), "uint": ("i32", "uint32"), "unsigned int": ("i32", "uint32"),
    "long": ("i64", "int64"), "ulong": ("i64", "uint64"), "unsigned long": ("i64", "uint64"),
    "size_t": ("i64", "uint64"), "ptrdiff_t": ("i64", "int64"), "intptr_t": ("i64", "int64"),
    "uintptr_t": ("i64", "uint64"), "bool": ("i8", "bool"),
    "half": ("half", "float16"), "float": ("float", "float32"), "double": ("double", "float64"),
    "__bf16": ("bfloat", "bfloat16"),
}
_QUALIFIERS = re.compile(r"\b(?:const|volatile|restrict|__global|__local|__constant|__private|global|local|constant|private)\b")


def _split(name):
    """'float4' -> ('float', 4); 'uint' -> ('uint', 1); unknown -> (name, None)."""
    base = _QUALIFIERS.sub("", name).replace("*", "").strip()
    base = re.sub(r"\s+", " ", base)
    if base in SCALARS:
        return base, 1
    m = re.fullmatch(r"([a-z_0-9]+?)(2|3|4|8|16)", base)
    if m and m.group(1) in SCALARS:
        return m.group(1), int(m.group(2))
    return base, None


def ir_type_of_opencl(name):
    """IR type text of an OpenCL C scalar or vector type name, None for others (structs...)."""
    base, count = _split(name)
    if count is None:
        return None
    ir = SCALARS[base][0]
    return ir if count == 1 else f"<{count} x {ir}>"


def dtype_of_opencl(name, size=None):
    """NumPy dtype name of an OpenCL C scalar or vector type's elements; `V<size>` for others."""
    base, count = _split(name)
    if count is None:
        return f"V{size}" if size else None
    return SCALARS[base][1]


# Scalar kernel arguments that a launch may specialize (docs/vulkan-abi.md, "Specialized scalar
# arguments"): the dtypes whose OpSpecConstant needs no capability beyond the argument's own
# (a 32- or 64-bit integer, a 32-bit float), and the SpecIds of argument `index`: a bool that
# says whether the pipeline is specialized, and the value it is specialized with.
SPECIALIZABLE_DTYPES = ("int32", "uint32", "int64", "uint64", "float32")
SCALAR_SPEC_ID_BASE = 200


def specializable(type_name):
    """Whether a scalar kernel argument of this OpenCL C type gets specialization constants."""
    base, count = _split(type_name)
    return count == 1 and SCALARS[base][1] in SPECIALIZABLE_DTYPES


def scalar_spec_ids(index):
    """(flag SpecId, value SpecId) of scalar argument `index`."""
    return SCALAR_SPEC_ID_BASE + 2 * index, SCALAR_SPEC_ID_BASE + 2 * index + 1
