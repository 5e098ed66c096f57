"""A launch's arguments as a Vulkan module takes them (docs/vulkan-abi.md): the push-constant
block (device addresses, scalars, the global offset), the buffers to copy up and back, and
the specialization constants (local size, __local lengths).

The arguments are checked by clcoop.prepare, the one place every engine's launches are
checked: a module loaded from a file has no LLVM IR, so its reflection record is turned into
the KernelInfo that prepare reads (kernel_info()).
"""
import re
import struct
from dataclasses import dataclass

import numpy as np

from clcoop.errors import ArgumentError
from clcoop.ir.loader import KernelInfo, Ty
from clcoop.prepare import BUFFER, LOCAL, SCALAR, STRUCT
from clcoop.spirv.reflection import SCALAR_DTYPES, ReflectionError

# docs/vulkan-abi.md: kind -> the address space prepare knows it by (OpenCL's numbering).
ADDRESS_SPACES = {"global": 1, "constant": 2, "local": 3}
LOCAL_SIZE_SPEC_IDS = (0, 1, 2)
LOCAL_SPEC_BASE = 100
# prepare's argument kinds -> the record's that may stand for them
_KINDS = {BUFFER: ("global", "constant"), LOCAL: ("local",), SCALAR: ("scalar",), STRUCT: ()}
# An OpenCL C vector type name (6.1.2): a scalar type and 2, 3, 4, 8 or 16.
VECTOR_TYPE = re.compile(r"(char|uchar|short|ushort|int|uint|long|ulong|half|float|double)(2|3|4|8|16)")


@dataclass(frozen=True)
class _RecordParameter:
    """What prepare asks of an IR parameter: its attributes (a record says `writable`
    instead: a read-only pointer is `const`-qualified in kernel_info())."""
    attributes: tuple = ()


@dataclass(frozen=True)
class _RecordFunction:
    arguments: tuple


def _scalar_type(arg):
    """The loader Ty of a scalar or vector argument from its record entry."""
    dtype = np.dtype(arg["dtype"]) if arg["dtype"] != "bfloat16" else None
    if dtype is None:
        elem = Ty("float", 16, bfloat=True)
    elif dtype.kind == "f":
        elem = Ty("float", dtype.itemsize * 8)
    elif dtype.kind in "iub":
        elem = Ty("int", 1 if dtype.kind == "b" else dtype.itemsize * 8)
    else:
        raise ArgumentError(f"argument '{arg['name']}' has dtype {arg['dtype']}, which the Vulkan engine "
                            f"cannot pass as a scalar")
    vector = VECTOR_TYPE.fullmatch(arg["type"].strip())
    return Ty("vec", n=int(vector.group(2)), elem=elem) if vector else elem


MAX_PUSH_CONSTANTS = 4096      # far above any device's maxPushConstantsSize (128 to 256 bytes)


def check_record(name, record):
    """ReflectionError unless kernel `name`'s record has what a launch reads, and every
    push-constant member lies inside the block: a module is data from elsewhere."""
    def fail(why):
        raise ReflectionError(f"kernel '{name}': unusable reflection record: {why}")

    def whole(value, low=0, high=MAX_PUSH_CONSTANTS):
        return isinstance(value, int) and not isinstance(value, bool) and low <= value <= high

    size = record.get("push_constant_size", 0)
    if not whole(size):
        fail(f"push_constant_size {size!r} is not 0 to {MAX_PUSH_CONSTANTS}")
    members = [(arg, 8 if arg["kind"] in ("global", "constant") else arg.get("size"))
               for arg in record["args"] if arg["kind"] != "local"]
    for arg, width in members:
        if not whole(width, 1) or not whole(arg.get("offset")) or arg["offset"] + width > size:
            fail(f"argument {arg.get('name')!r} at offset {arg.get('offset')!r} of {width!r} bytes is not inside "
                 f"the {size}-byte push-constant block")
    for arg in record["args"]:
        if not isinstance(arg.get("name"), str) or not isinstance(arg.get("type", ""), str):
            fail(f"an argument without a name or type: {arg!r}")
        if arg["kind"] == "local" and not whole(arg.get("spec_id"), 0, 0xFFFFFFFF):
            fail(f"__local argument {arg['name']!r} has no SpecId")
        if arg.get("dtype") is None and arg["kind"] in ("local", "scalar"):
            fail(f"argument {arg['name']!r} has no dtype")
        if arg.get("dtype") is not None and not _record_dtype(arg["dtype"]):
            fail(f"argument {arg['name']!r} has an unknown dtype {arg['dtype']!r}")
        if not isinstance(arg.get("writable", True), bool):
            fail(f"argument {arg['name']!r}: writable is {arg['writable']!r}, not true or false")
        ids = arg.get("spec_ids")
        if ids is not None and not (isinstance(ids, list) and len(ids) == 2 and all(whole(i, 0, 0xFFFFFFFF)
                                                                                   for i in ids)):
            fail(f"argument {arg['name']!r}: spec_ids {ids!r} is not two SpecIds")
    offset_at = record.get("global_offset_offset")
    if offset_at is not None and (not whole(offset_at) or offset_at + 12 > size):
        fail(f"the global offset at {offset_at!r} is not inside the {size}-byte push-constant block")
    local = record.get("local_size")
    if local is not None and (not isinstance(local, list) or len(local) != 3 or not all(whole(v, 1, 1 << 16)
                                                                                        for v in local)):
        fail(f"local_size {local!r} is not three sizes")
    subgroup = record.get("subgroup_size")
    if subgroup is not None and not whole(subgroup, 1, 1 << 16):
        fail(f"subgroup_size {subgroup!r} is not a size")
    for key in ("device_extensions", "device_features"):
        names = record.get(key)
        if names is not None and not (isinstance(names, list) and all(isinstance(n, str) for n in names)):
            fail(f"{key} {names!r} is not a list of names")
    for key, fields in _MATRIX_FIELDS.items():
        entries = record.get(key)
        if entries is not None and not (isinstance(entries, list) and all(_fields_have_types(e, fields)
                                                                           for e in entries)):
            fail(f"{key} {entries!r} is not a list of {', '.join(fields)} entries")


# The record's matrix entries (docs/vulkan-abi.md), the capability check reads: field -> type.
_MATRIX_FIELDS = {
    "matrices": {"rows": int, "cols": int, "component": str, "scope": str, "use": str},
    "mul_adds": {"M": int, "N": int, "K": int, "A": str, "B": str, "C": str, "result": str, "scope": str},
}


def _fields_have_types(entry, fields):
    return isinstance(entry, dict) and all(isinstance(entry.get(key), kind) and not isinstance(entry.get(key), bool)
                                           for key, kind in fields.items()) and \
        isinstance(entry.get("saturating", False), bool)


def _record_dtype(name):
    """A dtype the record may give an argument (reflection.SCALAR_DTYPES, or V<bytes> for a
    struct pointer's records)."""
    return name in SCALAR_DTYPES or (isinstance(name, str) and re.fullmatch(r"V[1-9][0-9]{0,5}", name) is not None)


def kernel_info(name, record):
    """The interp.loader.KernelInfo of kernel `name` as its reflection record describes it
    (ReflectionError for a record a launch cannot use)."""
    check_record(name, record)
    params, types, qualifiers = [], [], []
    for arg in record["args"]:
        kind = arg["kind"]
        if kind == "scalar":
            params.append((arg["name"], _scalar_type(arg)))
        else:
            params.append((arg["name"], Ty("ptr", addrspace=ADDRESS_SPACES[kind])))
        types.append(arg.get("type", ""))
        writable = kind == "global" and arg.get("writable", True)
        qualifiers.append("const" if kind in ("global", "constant") and not writable else "")
    local = record.get("local_size")
    return KernelInfo(name, _RecordFunction(tuple(_RecordParameter() for _ in params)), params, types, qualifiers,
                      [ADDRESS_SPACES.get(a["kind"], 0) for a in record["args"]],
                      tuple(local) if local else None, record.get("subgroup_size"), {})


@dataclass
class Marshalled:
    """A launch in the module's terms; every launch with the same launch key (prepare's)
    has the same one, so a kernel keeps it. slots: (index of the argument whose array it
    is, whether it comes back) per distinct array, in first-use order; push(addresses) ->
    the push-constant bytes; constants: {SpecId: uint32, or bytes for a wider constant}; local_bytes: the LocalMemory
    arguments' bytes per work-group; fields: the push-constant block as (offset, bytes or
    ("address", slot)) pairs, so that launches which differ only in their arrays' host
    addresses (prepare's key has them) are seen to be equal."""
    slots: tuple
    push: object
    constants: dict
    groups: tuple
    local_size: tuple
    local_bytes: int = 0
    fields: tuple = ()

    def arrays(self, values):
        """This launch's arrays, one per slot, among `values` (the caller's arguments)."""
        return [values[index] for index, _ in self.slots]

    def written(self):
        """Per slot, whether its array comes back."""
        return tuple(written for _, written in self.slots)


def marshal(name, record, prepared):
    """The Marshalled launch of a clcoop.prepare.PreparedLaunch of kernel `name`."""
    entries = record["args"]
    if len(entries) != len(prepared.arguments) or any(
            entry["kind"] not in _KINDS[arg.kind] for arg, entry in zip(prepared.arguments, entries)):
        raise ReflectionError(f"kernel '{name}': the module's reflection record lists arguments "
                              f"({', '.join(e.get('kind', '?') for e in entries)}) that do not match the kernel's "
                              f"({', '.join(a.kind for a in prepared.arguments)})")
    nd = prepared.nd
    local, groups, offsets = nd.local_size, nd.num_groups, nd.offset      # each padded to 3
    constants = {}
    if not record.get("local_size"):
        constants.update(zip(LOCAL_SIZE_SPEC_IDS, local))
    slots, slot_of = [], {}            # argument index -> slot index
    fields = []                        # (offset, bytes or ("address", slot index))
    for arg, entry in zip(prepared.arguments, record["args"]):
        if arg.kind == BUFFER:
            first = arg.same_as if arg.same_as is not None else arg.index
            if first not in slot_of:
                slot_of[first] = len(slots)
                slots.append([first, False])
            slots[slot_of[first]][1] |= arg.writable and entry["kind"] == "global" and entry.get("writable", True)
            fields.append((entry["offset"], ("address", slot_of[first])))
        elif arg.kind == LOCAL:
            constants[entry["spec_id"]] = _local_length(name, entry, arg.nbytes)
        elif arg.kind == SCALAR:
            fields.append((entry["offset"], scalar_bytes(name, entry, arg.value)))
            if arg.index in prepared.specialize:
                constants.update(specialization(name, entry, fields[-1][1]))
        elif arg.kind == STRUCT:
            raise ArgumentError(f"kernel '{name}': a struct passed by value is not in the Vulkan contract")
    if record.get("global_offset_offset") is not None:
        fields.append((record["global_offset_offset"], struct.pack("<3I", *offsets)))
    elif any(offsets):
        raise ArgumentError(f"kernel '{name}' takes no global offset (its module has no launch record)")
    local_bytes = sum(arg.nbytes for arg in prepared.arguments if arg.kind == LOCAL)
    return Marshalled(tuple((index, written) for index, written in slots),
                      _push_writer(record.get("push_constant_size", 0), fields), constants, groups, local, local_bytes,
                      tuple(fields))


def _push_writer(size, fields):
    """push(addresses) -> the push-constant block: the constant fields written once, the
    device addresses per launch (the same buffers, the pool's, give the same bytes: kept)."""
    block = bytearray(size)
    addressed = []
    for offset, value in fields:
        if isinstance(value, tuple):
            addressed.append((offset, value[1]))
        else:
            block[offset:offset + len(value)] = value
    last = [None, bytes(block)]

    def push(addresses):
        if addresses != last[0]:
            for offset, slot in addressed:
                struct.pack_into("<Q", block, offset, addresses[slot])
            last[0], last[1] = list(addresses), bytes(block)
        return last[1]
    return push


def _local_length(name, entry, nbytes):
    """The element count of a __local argument (SpecId 100 + i): its bytes over the pointee's size."""
    itemsize = 2 if entry["dtype"] == "bfloat16" else np.dtype(entry["dtype"]).itemsize
    if nbytes % itemsize:
        raise ArgumentError(f"argument '{entry['name']}' of kernel '{name}' ({entry['type']}): LocalMemory({nbytes}) "
                            f"is not a whole number of {itemsize}-byte elements")
    return nbytes // itemsize


def specialization(name, entry, data):
    """{SpecId: value} specializing a scalar argument with its bytes (docs/vulkan-abi.md,
    "Specialized scalar arguments"): its flag true, its value as a uint32 or, for an 8-byte
    argument, its 8 bytes (a map entry is as wide as the constant, Vulkan 1.3, 10.9.1)."""
    ids = entry.get("spec_ids")
    if not ids:
        raise ArgumentError(f"kernel '{name}': argument '{entry['name']}' ({entry.get('type', '?')}) cannot be "
                            f"specialized: only 32- and 64-bit integer and 32-bit float scalars can")
    flag, value = ids
    return {flag: 1, value: int.from_bytes(data, "little") if len(data) == 4 else bytes(data)}


def scalar_bytes(name, entry, value):
    data = np.ascontiguousarray(value).tobytes()
    if entry.get("size") is not None and len(data) > entry["size"]:
        raise ArgumentError(f"argument '{entry['name']}' of kernel '{name}': {len(data)} bytes do not fit the "
                            f"{entry['size']}-byte push-constant member")
    return data
