"""Launch preparation: a launch's sizes, options and arguments checked and converted once,
into plain data that every engine takes (clcoop/engine.py).

    prepared = prepare_launch(module, kernel_info, global_size, local_size, args, ...)
    engine.launch(kernel_info, prepared)

Kernel arguments (api's docstring is the user's side of this):
- a NumPy array is a __global or __constant buffer: C-contiguous, its dtype the parameter's
  pointee type (kernel_arg_type); a struct pointer takes a structured array whose records
  have the struct's size. A read-only array is refused for a parameter the kernel may write
  (neither `const` nor `readonly` in the IR), before anything runs;
- LocalMemory(nbytes) is a __local pointer (one buffer per work-group);
- a number is converted to the parameter's scalar type, a sequence of n numbers to a
  vector; values that do not fit are refused;
- a struct passed by value is a NumPy structured scalar or its bytes.
Every refusal is an ArgumentError naming the argument, the kernel and the parameter type.

Preparing costs 50-90 us of Python per launch (docs/performance.md), more than some whole
native launches: Preparations keeps a kernel's recent preparations by launch key
(launch_cache.launch_key), so that a launch repeating an earlier one's sizes and arguments
is prepared once; a launch repeating the last one is recognized without building its key
(LastLaunch).
"""
import functools
import math
import re
import threading
from dataclasses import dataclass

import numpy as np

from clcoop import kernel_metadata
from clcoop.errors import ArgumentError
from clcoop.ir.memory import LocalArgument
from clcoop.ir.rounding import to_bfloat16, to_float8
from clcoop.ir.scalars import BFLOAT16, FLOAT8_DTYPES, scalar_dtype
from clcoop.launch_cache import data_address, launch_key, options_key

DEFAULT_SUBGROUP_SIZE = 16
SUPPORTED_SUBGROUP_SIZES = (1, 2, 4, 8, 16, 32, 64, 128)
# Global sizes, offsets, their sums and the instruction limit are below 2**63: the engines
# keep ids and counters in signed 64-bit integers (NumPy int64, i64 context slots).
SIZE_LIMIT = 1 << 63
# __local memory a work-group may have through its LocalMemory arguments together (a
# device's CL_DEVICE_LOCAL_MEM_SIZE; GPUs have 32-228 KiB, this is the CPU engines' bound).
LOCAL_MEMORY_LIMIT = 1 << 30
PROGRAM_VARIABLE_LIMIT = 1 << 30      # bytes of one program-scope variable (the same bound)
# Preparations kept per kernel (as launch_cache.MAX_ENTRIES: a few alternating argument sets).
KEPT_PREPARATIONS = 8

# LaunchArgument.kind
BUFFER, LOCAL, SCALAR, STRUCT = "buffer", "local", "scalar", "struct"

# The interpreter's defaults (interp/execute.py says how batches use them).
DEFAULT_MAX_LANES = 1 << 15
DEFAULT_INSTRUCTION_LIMIT = 10_000_000


class NDRange:
    def __init__(self, global_size, local_size, offset=(0, 0, 0)):
        self.dims = len(global_size)
        self.global_size = tuple(global_size) + (1,) * (3 - len(global_size))
        self.local_size = tuple(local_size) + (1,) * (3 - len(local_size))
        self.num_groups = tuple(g // l for g, l in zip(self.global_size, self.local_size))
        self.offset = tuple(offset) + (0,) * (3 - len(offset))
        self.wg_size = self.local_size[0] * self.local_size[1] * self.local_size[2]
        self.total_groups = self.num_groups[0] * self.num_groups[1] * self.num_groups[2]



class LocalMemory:
    """A __local buffer of `nbytes` bytes per work-group (pyopencl.LocalMemory)."""

    def __init__(self, nbytes):
        if isinstance(nbytes, (bool, np.bool_)) or not isinstance(nbytes, (int, np.integer)):
            raise ArgumentError(f"LocalMemory needs a whole number of bytes, got {nbytes!r}")
        if not 0 < nbytes <= LOCAL_MEMORY_LIMIT:
            raise ArgumentError(f"LocalMemory size must be 1 to {LOCAL_MEMORY_LIMIT} bytes "
                                f"(1 GiB of __local memory per work-group), got {nbytes}")
        self.nbytes = int(nbytes)

    def __repr__(self):
        return f"LocalMemory({self.nbytes})"


@dataclass(frozen=True)
class LaunchArgument:
    """One kernel argument, checked and converted.

    index, name, type_name (kernel_arg_type, e.g. "float*"), where (the argument as
    messages name it); kind: BUFFER, LOCAL, SCALAR or STRUCT (a struct passed by value).
    BUFFER: address_space (1 __global, 2 __constant), dtype and nbytes of the caller's
    array (prepared.values[index]), writable (the kernel may write it: a non-const
    __global parameter; an array passed to several parameters is writable if any is),
    same_as (the index of the first parameter given the same array, else None: map it once).
    LOCAL: nbytes per work-group. SCALAR: value (a NumPy scalar of the parameter's type, or
    a 1-D array for a vector), dtype, nbytes. STRUCT: value (its bytes), nbytes."""
    index: int
    name: str
    type_name: str
    where: str
    kind: str
    nbytes: int = 0
    dtype: object = None
    value: object = None
    address_space: int = None
    writable: bool = False
    same_as: int = None


@dataclass
class PreparedLaunch:
    """A launch, checked and converted (prepare_launch). nd: NDRange (sizes
    and offsets padded to 3 dimensions, dims, num_groups, wg_size, total_groups);
    arguments: one LaunchArgument per parameter; values: the caller's arguments of this
    launch as passed (the NumPy array of a BUFFER); key: the launch key (equal keys,
    equal preparations; None when not keyed); subgroup_size_given: whether the caller
    passed subgroup_size= (else subgroup_size is the kernel's or DEFAULT_SUBGROUP_SIZE, which
    an engine whose device fixes the size, the GPU's, may replace); specialize: the indices of
    the scalar arguments whose values the launch asks an engine to compile in (specialized())."""
    kernel: str
    nd: NDRange
    subgroup_size: int
    instruction_limit: int
    max_lanes: int
    serial_subgroups: bool
    arguments: tuple
    values: tuple
    key: tuple = None
    subgroup_size_given: bool = False
    specialize: tuple = ()

    def bound(self, values):
        """This preparation for a launch with equal key and these arguments."""
        other = object.__new__(PreparedLaunch)
        other.__dict__.update(self.__dict__)
        other.values = values
        return other

    def specialized(self, info, names):
        """This preparation asking for the scalar arguments `names` (an iterable of parameter
        names) to be specialized: an engine that compiles per launch may build the kernel with
        their values as constants (the GPU engine: a pipeline per value, docs/vulkan-abi.md);
        the CPU engines run it unchanged. The results are the same either way."""
        if isinstance(names, str):
            names = (names,)
        try:
            wanted = list(names)
        except TypeError:
            raise ArgumentError(f"specialize must be a sequence of argument names, got {names!r}") from None
        positions = {name: i for i, (name, _ty) in enumerate(info.params) if name}
        indices = set()
        for name in wanted:
            index = positions.get(name) if isinstance(name, str) else None
            if index is None or self.arguments[index].kind != SCALAR:
                scalars = [n for n, i in positions.items() if self.arguments[i].kind == SCALAR]
                raise ArgumentError(f"kernel '{info.name}': specialize names {name!r}, which is not one of its scalar "
                                    f"arguments ({', '.join(scalars) or 'it has none'})")
            indices.add(index)
        other = self.bound(self.values)
        other.specialize = tuple(sorted(indices))
        return other


class Preparations:
    """One kernel's launches prepared, the last KEPT_PREPARATIONS kept by launch key.
    A kept preparation holds no caller's array (prepared.values is bound per launch)."""

    def __init__(self, module, info):
        self.module, self.info = module, info
        self._kept = {}
        self._lock = threading.Lock()
        # The last keyed launch (LastLaunch): a launch repeating it is recognized without
        # building its key (the key took 6 us of a 13 us native launch, measured here).
        self._last = None

    def prepare(self, global_size, local_size, args, subgroup_size, instruction_limit, max_lanes,
                global_offset, serial_subgroups):
        options = (global_size, local_size, subgroup_size, instruction_limit, max_lanes, global_offset,
                   serial_subgroups)
        args = tuple(args)
        last = self._last
        if last is not None and last.repeated_by(options, args):
            return last.prepared.bound(args)
        key = launch_key(global_size, local_size, args, subgroup_size, instruction_limit, global_offset,
                         LocalMemory)
        key = options_key(key, max_lanes, serial_subgroups) if key is not None else None
        if key is not None:
            kept = self._kept.get(key)
            if kept is not None:
                self._last = LastLaunch(options, args, kept)
                return kept.bound(args)
        prepared = prepare_launch(self.module, self.info, global_size, local_size, args, subgroup_size,
                                  instruction_limit, max_lanes, global_offset, serial_subgroups)
        if key is not None:
            prepared.key = key
            kept = prepared.bound(None)
            with self._lock:
                if len(self._kept) >= KEPT_PREPARATIONS:
                    self._kept.pop(next(iter(self._kept)))
                self._kept[key] = kept
            self._last = LastLaunch(options, args, kept)
        return prepared


class LastLaunch:
    """A keyed launch's sizes, options and arguments as its launch key saw them, and its kept
    preparation: repeated_by(options, args) is true only for a launch whose launch key
    (launch_cache.launch_key, options_key) equals it, checked without building the key, by
    a comparison chosen per value when it was recorded (_expected).

    It holds no caller's array: an array is compared by what the key holds of it (data
    address, nbytes, dtype, flags; a 0-d array's bytes), so a new array with all of these
    equal has an equal key too. Numbers are compared by type and value, a float by its bits
    (-0.0 is not 0.0; a NaN never repeats here: the full key compares its bits)."""

    __slots__ = ("expected", "prepared")

    def __init__(self, options, args, prepared):
        self.expected = tuple(_expected(value) for value in options + tuple(args))
        self.prepared = prepared

    def repeated_by(self, options, args):
        values = options + args
        expected = self.expected
        if len(values) != len(expected):
            return False
        for value, (kind, was) in zip(values, expected):
            if kind is _EXACT:
                if value is not was and (type(value) is not type(was) or value != was):
                    return False
            elif kind is _ARRAY:
                if type(value) is not np.ndarray or data_address(value) != was[0] or value.nbytes != was[1] or \
                        value.dtype != was[2] or value.flags.num != was[3] or \
                        (was[4] is not None and value.tobytes() != was[4]):
                    return False
            elif kind is _FLOAT:
                if value is not was and (type(value) is not type(was) or value != was or
                                         (value == 0 and math.copysign(1.0, value) != math.copysign(1.0, was))):
                    return False
            elif kind is _INTS:
                if type(value) is not type(was) or value != was:
                    return False
                for item in value:
                    if type(item) is not int:
                        return False
            elif kind is _LOCAL:
                if not isinstance(value, LocalMemory) or value.nbytes != was:
                    return False
            else:
                return False
        return True


# LastLaunch's comparisons: by type and value (_EXACT: integers, bools, None; _FLOAT: by bits,
# IEEE 754 3.4: equal floats other than zeros have equal bits; _INTS: a tuple or list of
# ints, as sizes), as the key sees an array or a LocalMemory, or never (the full key decides).
_EXACT, _FLOAT, _INTS, _ARRAY, _LOCAL, _NEVER = "exact", "float", "ints", "array", "local", "never"


def _expected(value):
    """(comparison, what LastLaunch.repeated_by compares) of a keyed launch's option or argument."""
    if type(value) is np.ndarray:
        return _ARRAY, (data_address(value), value.nbytes, value.dtype, value.flags.num,
                        value.tobytes() if value.ndim == 0 else None)
    if isinstance(value, LocalMemory):
        return _LOCAL, value.nbytes
    if value is None or isinstance(value, (int, np.integer, np.bool_)):
        return _EXACT, value
    if isinstance(value, (float, np.floating)):
        return _FLOAT, value
    if type(value) in (tuple, list) and all(type(item) is int for item in value):
        return _INTS, tuple(value) if type(value) is tuple else list(value)
    return _NEVER, None


def prepare_launch(module, info, global_size, local_size, args, subgroup_size=None,
                   instruction_limit=DEFAULT_INSTRUCTION_LIMIT, max_lanes=DEFAULT_MAX_LANES,
                   global_offset=None, serial_subgroups=False):
    """The launch of kernel `info` (interp.loader.KernelInfo) of `module`, checked and
    converted: a PreparedLaunch, or ArgumentError."""
    nd = _ndrange(info, global_size, local_size, global_offset)
    S = _subgroup_size(info, subgroup_size)
    limit = _positive_int(instruction_limit, "instruction_limit")
    lanes = _positive_int(max_lanes, "max_lanes")
    if len(args) != len(info.params):
        names = ", ".join(n or f"arg{i}" for i, (n, _) in enumerate(info.params))
        raise ArgumentError(f"kernel '{info.name}' takes {len(info.params)} arguments ({names}), "
                            f"got {len(args)}")
    arguments = _convert_args(module, info, args)
    return PreparedLaunch(info.name, nd, S, limit, lanes, bool(serial_subgroups), arguments, tuple(args),
                          subgroup_size_given=subgroup_size is not None)


# ============================================================================ sizes
def _ndrange(info, global_size, local_size, global_offset):
    gsize = _sizes(global_size, "global_size")
    if local_size is None:
        lsize = _pick_local_size(gsize)
        if info.reqd_work_group_size:
            lsize = tuple(info.reqd_work_group_size[:len(gsize)])
    else:
        lsize = _sizes(local_size, "local_size")
    if len(lsize) != len(gsize):
        raise ArgumentError(f"global_size {gsize} and local_size {lsize} have different dimensions")
    for d, (g, l) in enumerate(zip(gsize, lsize)):
        if g % l:
            raise ArgumentError(f"global size {g} is not a multiple of the local size {l} in "
                                f"dimension {d} (required by OpenCL 1.x uniform work-groups)")
    if info.reqd_work_group_size:
        want = tuple(info.reqd_work_group_size) + (1,) * 3
        have = lsize + (1,) * (3 - len(lsize))
        if have[:3] != want[:3]:
            raise ArgumentError(f"kernel '{info.name}' requires the work-group size "
                                f"{tuple(want[:3])} (reqd_work_group_size), got local size {lsize}")
    offset = _offsets(global_offset, len(gsize)) if global_offset is not None else ()
    for d, g in enumerate(gsize):
        if g + (offset[d] if offset else 0) >= SIZE_LIMIT:
            raise ArgumentError(f"global size {g}{f' plus offset {offset[d]}' if offset else ''} in "
                                f"dimension {d} is too large: global ids must stay below 2**63")
    return NDRange(gsize, lsize, offset)


def _int_tuple(value, what):
    """An int or a sequence of ints as a tuple (ArgumentError otherwise)."""
    if isinstance(value, (int, np.integer)):
        return (int(value),)
    try:
        return tuple(int(v) for v in value)
    except (TypeError, ValueError):
        raise ArgumentError(f"{what} must be an int or a tuple of 1 to 3 ints, got {value!r}") from None


def _sizes(value, what):
    sizes = _int_tuple(value, what)
    if not 1 <= len(sizes) <= 3 or any(s <= 0 for s in sizes):
        raise ArgumentError(f"{what} must have 1 to 3 positive sizes, got {value!r}")
    return sizes


def _offsets(value, dims):
    """global_offset: one offset >= 0 per dimension of the global size (zero offsets are
    valid; clEnqueueNDRangeKernel and pyopencl take global_work_offset of work_dim)."""
    offsets = _int_tuple(value, "global_offset")
    if len(offsets) != dims or any(o < 0 for o in offsets):
        raise ArgumentError(f"global_offset must have {dims} non-negative offset(s), one per "
                            f"dimension of global_size, got {value!r}")
    return offsets


def _pick_local_size(global_size, limit=256):
    """Like pyopencl with local_size=None: the largest divisor per dimension, first dim first."""
    local, budget = [], limit
    for g in global_size:
        best = 1
        for d in range(1, min(g, budget) + 1):
            if g % d == 0:
                best = d
        local.append(best)
        budget //= best
    return tuple(local)


def _positive_int(value, what):
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, (int, np.integer)) or \
            not 0 < value < SIZE_LIMIT:
        raise ArgumentError(f"{what} must be a positive integer below 2**63, got {value!r}")
    return int(value)


def _subgroup_size(info, requested):
    if requested is not None:
        if isinstance(requested, (bool, np.bool_)) or not isinstance(requested, (int, np.integer)):
            raise ArgumentError(f"subgroup_size must be an integer, got {requested!r}")
        S = int(requested)
        if info.reqd_sub_group_size and S != info.reqd_sub_group_size:
            raise ArgumentError(f"kernel '{info.name}' requires sub-group size "
                                f"{info.reqd_sub_group_size} (intel_reqd_sub_group_size), "
                                f"got subgroup_size={S}")
    else:
        S = info.reqd_sub_group_size or DEFAULT_SUBGROUP_SIZE
    if S not in SUPPORTED_SUBGROUP_SIZES:
        raise ArgumentError(f"unsupported sub-group size {S} (supported: "
                            f"{', '.join(map(str, SUPPORTED_SUBGROUP_SIZES))})")
    return S


# ============================================================================ arguments
_SCALAR_TYPES = {
    "char": np.int8, "uchar": np.uint8, "unsigned char": np.uint8, "short": np.int16,
    "ushort": np.uint16, "unsigned short": np.uint16, "int": np.int32, "uint": np.uint32,
    "unsigned int": np.uint32, "long": np.int64, "ulong": np.uint64, "unsigned long": np.uint64,
    "half": np.float16, "float": np.float32, "double": np.float64, "bool": np.bool_,
    "size_t": np.uint64, "ptrdiff_t": np.int64, "intptr_t": np.int64, "uintptr_t": np.uint64,
}


# __bf16 buffers: bfloat16 values, or uint16 bit patterns (the same bytes).
BFLOAT16_BUFFER_DTYPES = (BFLOAT16, np.dtype(np.uint16))
# __fp8_e4m3 / __fp8_e5m2 buffers: ml_dtypes' float8_e4m3fn / float8_e5m2, or uint8 bits.
FLOAT8_BUFFER_DTYPES = {name: (dtype, np.dtype(np.uint8)) for name, dtype in FLOAT8_DTYPES.items()}


def _pointee_name(type_name):
    return type_name.replace("const", "").replace("volatile", "").replace("restrict", "").rstrip("* ").strip()


@functools.lru_cache(maxsize=None)
def _is_bfloat16_pointer(type_name):
    return _pointee_name(type_name) == "__bf16"


@functools.lru_cache(maxsize=None)
def _pointee_dtype(type_name):
    """'float*' -> float32, 'uint4*' -> uint32, unknown (struct*) -> None."""
    m = re.fullmatch(r"([a-z ]+?)(\d+)?", _pointee_name(type_name))
    if not m:
        return None
    return _SCALAR_TYPES.get(m.group(1).strip())


def _buffer_key(arr):
    return (data_address(arr), arr.nbytes)


def _convert_args(module, info, args):
    """One LaunchArgument per parameter (ArgumentError for the first argument refused)."""
    checked, seen = [], {}
    writes = _written_keys(info, args)
    for i, (arg, (pname, ptype)) in enumerate(zip(args, info.params)):
        name = pname or f"arg{i}"
        type_name = info.arg_types[i] if i < len(info.arg_types) else str(ptype)
        where = f"argument {i} '{name}' of kernel '{info.name}' ({type_name})"
        base = (i, name, type_name, where)
        if i in info.byval:
            data = _struct_bytes(arg, where, module.layout.size(info.byval[i]))
            checked.append(LaunchArgument(*base, STRUCT, len(data), value=data))
        elif ptype.kind == "ptr" and ptype.addrspace == 3:
            if not isinstance(arg, LocalMemory):
                raise ArgumentError(f"{where} is a __local pointer: pass clcoop.LocalMemory(nbytes)")
            checked.append(LaunchArgument(*base, LOCAL, arg.nbytes))
        elif ptype.kind == "ptr":
            _check_buffer(module, info, i, arg, where, type_name)
            key = _buffer_key(arg)
            first = seen.setdefault(key, i)
            checked.append(LaunchArgument(*base, BUFFER, arg.nbytes, arg.dtype, address_space=ptype.addrspace,
                                          writable=key in writes, same_as=None if first == i else first))
        else:
            value = _convert_scalar(arg, ptype, type_name, where)
            checked.append(LaunchArgument(*base, SCALAR, np.asarray(value).nbytes, np.asarray(value).dtype,
                                          value=value))
    _check_local_total(module, info, checked)
    _check_program_variables(module)
    return tuple(checked)


def _check_local_total(module, info, checked):
    """A work-group's __local memory: its LocalMemory arguments and the module's __local
    variables (both engines give each work-group all of them) at most 1 GiB together."""
    total = sum(arg.nbytes for arg in checked if arg.kind == LOCAL)
    # No loaded module (the Vulkan engine's launches): its driver sizes the variables.
    variables = 0 if module is None else module.local_variable_bytes
    if total + variables <= LOCAL_MEMORY_LIMIT:
        return
    what = (f"its __local variables take {variables} bytes per work-group and the LocalMemory "
            f"arguments {total}," if variables else
            f"the LocalMemory arguments take {total} bytes per work-group together,")
    raise ArgumentError(f"kernel '{info.name}': {what} more than the {LOCAL_MEMORY_LIMIT} bytes (1 GiB) "
                        f"of __local memory a work-group may have")


def _check_program_variables(module):
    """A program-scope variable (a launch maps each) holds at most 1 GiB, as a work-group's
    __local memory: a larger one is a device's CL_OUT_OF_RESOURCES, not a host's MemoryError."""
    if module is None:      # the Vulkan engine's launches: its driver maps the variables
        return
    for name, size in module.program_variable_sizes:
        if size > PROGRAM_VARIABLE_LIMIT:
            raise ArgumentError(f"the program-scope variable @{name} takes {size} bytes, more than the "
                                f"{PROGRAM_VARIABLE_LIMIT} bytes (1 GiB) a program-scope variable may have")


def _may_write(info, i):
    """Whether the kernel may write through pointer parameter i: a __global pointer to a
    non-const pointee that the IR does not mark readonly (LLVM LangRef, "Parameter
    Attributes": writing through a readonly pointer is undefined, so the attribute is
    kept as a promise; a kernel that breaks it faults on the read-only buffer)."""
    ptype = info.params[i][1]
    qual = info.arg_qualifiers[i] if i < len(info.arg_qualifiers) else ""
    if ptype.addrspace in (2, 3) or "const" in qual.split():
        return False
    param = list(info.function.arguments)[i]
    return not {b"readonly", b"readnone"} & set(param.attributes)


def _written_keys(info, args):
    """Keys of the arrays some parameter may write (an array passed twice is mapped once,
    writable if any use is); ArgumentError for overlapping different views of one array."""
    written, arrays = set(), []
    for i, (arg, (_, ptype)) in enumerate(zip(args, info.params)):
        if ptype.kind != "ptr" or i in info.byval or not isinstance(arg, np.ndarray):
            continue
        key = _buffer_key(arg)
        qual = info.arg_qualifiers[i] if i < len(info.arg_qualifiers) else ""
        if ptype.addrspace not in (2, 3) and "const" not in qual.split() and arg.flags.writeable:
            written.add(key)
        arrays.append((i, arg, key))
    for a, (i, x, kx) in enumerate(arrays):
        for j, y, ky in arrays[a + 1:]:
            if kx != ky and (kx in written or ky in written) and _may_overlap(x, kx, y, ky) and \
                    np.shares_memory(x, y):
                raise ArgumentError(f"arguments {i} and {j} of kernel '{info.name}' are "
                                    f"overlapping but different views of one array; pass the "
                                    f"same array, or non-overlapping arrays")
    return written


def _may_overlap(x, xkey, y, ykey):
    """False when x and y, both C-contiguous, have byte ranges apart (np.shares_memory is
    the exact test, and costs more)."""
    if not (x.flags.c_contiguous and y.flags.c_contiguous):
        return True
    (xs, xn), (ys, yn) = xkey, ykey
    return xs < ys + yn and ys < xs + xn


def _check_buffer(module, info, i, arg, where, type_name):
    if isinstance(arg, LocalMemory):
        raise ArgumentError(f"{where} is a __global pointer, not __local: pass a NumPy array")
    if not isinstance(arg, np.ndarray):
        raise ArgumentError(f"{where} is a pointer: pass a NumPy array, got {type(arg).__name__}")
    if not arg.flags.c_contiguous:
        raise ArgumentError(f"{where}: the array is not C-contiguous (use np.ascontiguousarray)")
    want = _pointee_dtype(type_name)
    if _is_bfloat16_pointer(type_name) and arg.dtype not in BFLOAT16_BUFFER_DTYPES:
        raise ArgumentError(f"{where} needs a bfloat16 array (ml_dtypes.bfloat16) or a uint16 array "
                            f"of bf16 bit patterns, got {arg.dtype.name}")
    fp8_dtypes = FLOAT8_BUFFER_DTYPES.get(_pointee_name(type_name))
    if fp8_dtypes is not None and arg.dtype not in fp8_dtypes:
        raise ArgumentError(f"{where} needs a {fp8_dtypes[0].name} array (ml_dtypes) or a uint8 array "
                            f"of its bit patterns, got {arg.dtype.name}")
    if want is not None and arg.dtype != np.dtype(want):
        raise ArgumentError(f"{where} needs a {np.dtype(want).name} array, got {arg.dtype.name}")
    if want is None and not _is_bfloat16_pointer(type_name):
        _check_records(module, info, i, arg, where)
    if not arg.flags.writeable and _may_write(info, i):
        raise ArgumentError(f"{where}: the array is read-only, and the kernel may write through "
                            f"this parameter (declare it const, or pass a writable array)")


def _check_records(module, info, i, arg, where):
    """A struct pointer's buffer: NumPy records of the struct's size, or raw bytes (uint8 or
    int8: C lets any object be accessed as characters, C99 6.5p7) holding whole records,
    where the module says the size (clcoop's kernel metadata, or a named struct of the IR)."""
    size = _record_size(module, info, i)
    if size is None:
        return
    raw = arg.dtype in (np.dtype(np.uint8), np.dtype(np.int8))
    if (arg.dtype.kind == "V" and arg.dtype.itemsize == size) or (raw and arg.nbytes % size == 0):
        return
    got = (f"records of {arg.dtype.itemsize} bytes" if arg.dtype.kind == "V" else
           f"{arg.nbytes} bytes, not a whole number of records" if raw else f"a {arg.dtype.name} array")
    raise ArgumentError(f"{where} needs {size}-byte records (the struct's size): a NumPy structured "
                        f"array (np.dtype([...], align=True) lays the fields out as OpenCL C does) or "
                        f"uint8 bytes of whole records; got {got}")


def _record_size(module, info, i):
    """The size of parameter i's struct pointee, or None when the module does not say."""
    if module is None:
        return None
    size = _record_sizes(module.ir, info.name).get(i)
    if size:
        return size
    type_name = info.arg_types[i] if i < len(info.arg_types) else ""
    name = "struct." + _pointee_name(type_name).removeprefix("struct ").removeprefix("union ").strip()
    # LLVM renames a named type that its context already holds (struct.S.0, struct.S.1, ...):
    # the exact name, else the one renamed copy.
    found = [module.structs[name]] if name in module.structs else \
        [t for n, t in module.structs.items() if re.fullmatch(re.escape(name) + r"\.\d+", n)]
    return module.layout.size(found[0]) if len(found) == 1 and found[0].fields else None


_METADATA_NODE = re.compile(r"^!(\d+) = (?:distinct )?!\{(.*)\}$", re.M)


@functools.lru_cache(maxsize=32)
def _record_sizes(ir_text, kernel_name):
    """{parameter index: struct pointee size} of the kernel's kernel_metadata.ARG_RECORD_SIZE,
    {} when it has none (IR from other producers)."""
    define = re.search(r"^define [^\n]*@\"?" + re.escape(kernel_name) + r"\"?\([^\n]*$", ir_text, re.M)
    ref = define and re.search(r"!" + re.escape(kernel_metadata.ARG_RECORD_SIZE) + r" !(\d+)", define.group(0))
    if not ref:
        return {}
    for node, body in _METADATA_NODE.findall(ir_text):
        if node == ref.group(1):
            sizes = [int(x) for x in re.findall(r"i32 (-?\d+)", body)]
            return {k: n for k, n in enumerate(sizes) if n > 0}
    return {}


def _struct_bytes(arg, where, size):
    """A struct passed by value: a NumPy structured scalar/array element or raw bytes of
    exactly the struct's size (its layout follows the target's data layout)."""
    if isinstance(arg, (bytes, bytearray)):
        data = bytes(arg)
    elif isinstance(arg, (np.void, np.ndarray)):
        data = np.ascontiguousarray(arg).tobytes()
    else:
        raise ArgumentError(f"{where} is a struct passed by value: pass a NumPy structured "
                            f"scalar or {size} bytes, got {type(arg).__name__}")
    if len(data) != size:
        raise ArgumentError(f"{where}: the struct has {size} bytes, the argument has {len(data)}")
    return data


def _float8_scalar(arg, dtype, where):
    """An `__fp8_e4m3` / `__fp8_e5m2` argument (an i8 of bits in the IR): a number rounded once
    as a cast rounds it (docs/coopmat2-semantics.md "fp8"), or an ml_dtypes value of any float8
    format (its exact value)."""
    if isinstance(arg, (bool, np.bool_)) or not isinstance(arg, (int, float, np.integer, np.floating, np.generic)):
        raise ArgumentError(f"{where} needs a number or an ml_dtypes {dtype.name} value, got {type(arg).__name__}")
    return to_float8(np.float64(arg), dtype).view(np.int8)[()]


def _convert_scalar(arg, ptype, type_name, where):
    if isinstance(arg, (np.ndarray, LocalMemory)) and not (isinstance(arg, np.ndarray) and arg.ndim == 0):
        raise ArgumentError(f"{where} is a scalar: got {type(arg).__name__}")
    if ptype.kind == "vec":
        dtype = scalar_dtype(ptype)
        v = np.asarray(arg)
        if v.shape != (ptype.n,):
            raise ArgumentError(f"{where} is a vector of {ptype.n}: pass a sequence of {ptype.n} numbers")
        return v.astype(dtype)
    if ptype.kind not in ("int", "float"):
        raise ArgumentError(f"{where}: parameters of type {ptype} are not supported")
    fp8_dtype = FLOAT8_DTYPES.get(_pointee_name(type_name))
    if fp8_dtype is not None:
        return _float8_scalar(arg, fp8_dtype, where)
    if isinstance(arg, (bool, np.bool_)) and ptype.kind == "int" and ptype.bits > 1:
        arg = int(arg)
    if not isinstance(arg, (int, float, np.integer, np.floating, np.bool_, np.ndarray)):
        raise ArgumentError(f"{where} needs a number, got {type(arg).__name__}")
    dtype = scalar_dtype(ptype)
    if dtype == BFLOAT16:
        return to_bfloat16(np.float64(arg))[()]     # one rounding, as a double -> __bf16 cast
    if ptype.kind == "float":
        return dtype.type(arg)
    if isinstance(arg, (float, np.floating)) or (isinstance(arg, np.ndarray) and arg.dtype.kind == "f"):
        # A float (a 0-d array too) passes for an integer only when it is one: not 2.5,
        # and not infinity or NaN, which int() refuses with Python's own errors.
        if not math.isfinite(arg) or float(arg) != int(arg):
            raise ArgumentError(f"{where} is an integer, got {arg!r}")
    value = int(arg)
    user_t = _SCALAR_TYPES.get(type_name.strip())
    bits = ptype.bits
    if bits == 1:
        return np.bool_(value != 0)
    unsigned_t = user_t is not None and np.dtype(user_t).kind == "u"
    lo = 0 if unsigned_t else -(1 << (bits - 1))
    hi = (1 << bits) - 1 if unsigned_t else (1 << (bits - 1)) - 1
    if not lo <= value <= hi:
        raise ArgumentError(f"{where}: value {value} does not fit ({lo}..{hi})")
    if value >= 1 << (bits - 1):
        value -= 1 << bits
    return dtype.type(value)


# map_arguments's treatment of the written buffers: PRIVATE, mapped as private copies
# (copied back by the caller when the launch succeeds); BACKUP, mapped as they are, the
# copies their backups (copied back by the caller when it fails); DIRECT, mapped as they
# are with no copy (a launch proven not to fault: native/ranges.py).
PRIVATE, BACKUP, DIRECT = "private", "backup", "direct"


def map_arguments(prepared, memory, mode, take_copy=np.copy):
    """The kernel's call arguments with its buffers mapped in `memory` (a buffer's argument
    is its region's base address; a __local one an ir.memory.LocalArgument; a scalar its value),
    and [(parameter index, caller's array, copy)] of the written buffers' copies (mode:
    PRIVATE, BACKUP or DIRECT; take_copy(array) makes one, e.g. PrivateBuffers.take)."""
    call_args, copies = [], []
    for arg in prepared.arguments:
        value = prepared.values[arg.index]
        if arg.kind == BUFFER:
            call_args.append(call_args[arg.same_as] if arg.same_as is not None else
                             _map_buffer(arg, value, memory, mode, take_copy, copies))
        elif arg.kind == LOCAL:
            call_args.append(LocalArgument(arg.name, arg.nbytes))
        elif arg.kind == STRUCT:
            data = np.frombuffer(arg.value, np.uint8).copy()
            region = memory.add_region(f"{arg.name} (struct argument)", data, writable=False, space=0)
            call_args.append(np.int64(region.base))
        else:
            call_args.append(arg.value)
    return call_args, copies


def _map_buffer(arg, array, memory, mode, take_copy, copies):
    if not arg.writable or mode == DIRECT:
        data = array
    else:
        copy = take_copy(array)
        copies.append((arg.index, array, copy))
        data = copy if mode == PRIVATE else array
    region = memory.add_region(arg.name, data.reshape(-1).view(np.uint8), writable=arg.writable)
    return np.int64(region.base)
