"""Padded copies of read-only matrix operands for the subgroup-wide fast path (docs/native.md,
"Packed loads").

A matrix load whose rows lie a multiple of 4 KiB apart (a GEMM's B with a power-of-two
leading dimension) puts every row of its tile in the same set of the first-level data cache
and in few sets of the second level: on x86-64, 64 sets of 64-byte lines (4 KiB) and about
2,048 sets (128 KiB). A B panel that consecutive work-groups share then streams from the
third level for every tile (measured on the development VM: examples/gemm_f32.cl at 2048^3
took 1.1-1.9x the time of the same GEMM with a leading dimension of 2048 + 16; with the
copy, 1024^3 and 2048^3 went from 1.7x and 3.3x NumPy's time to about 1.1x:
docs/performance.md). So, for a load from a kernel argument whose
buffer the launch cannot write (its region is read-only: no parameter given that array may
store, prepare._written_keys), the launch makes a copy of the buffer with each row of
`stride` bytes followed by `pad` bytes of the next row's start, and the load reads its rows
there:

    copy[r * (stride + pad) + c] = buffer[r * stride + c]   for c < stride + pad

A tile row starting at column c0 < stride and `row_bytes` <= pad long lies in copy row r
whole, so the load's rows are the same bytes at a stride of stride + pad. Every check of
the load (uniformity, stride, span, alignment) is still made on the original pointer and
stride, first: a load that fails one reads the scratch area as before and is reported on
the per-work-item path from the original addresses; a load whose run-time stride is not the
one the copy was made for reads the buffer itself. The copy is made afresh at each launch
(the caller may change the array between launches), by the worker pool's threads before
they run the work-groups (ll/pack_rows.ll).

The stride a copy is made for is the value of the load's stride operand at launch, when it
is computed from kernel arguments and constants only (stride_expression); loads whose
stride is anything else read the buffer itself.
"""
import math
import mmap
import threading

import numpy as np

from clcoop.ir.loader import value_kind
from clcoop.native import fixed_ir, pool

# A row of the launch's descriptor table per kernel parameter (the context's "packs" slot
# points at it): the copy's address, the stride in bytes it was made for (-1: no copy),
# the pad bytes after each row, and magic(stride) (the load's row is the high word of its
# offset times it).
(PACK_COPY, PACK_STRIDE, PACK_PAD, PACK_MAGIC, PACK_ROW_WORDS) = range(5)
# Copies are made of buffers below this size only (magic's range).
MAX_COPIED_BYTES = 1 << 32
# Rows this many bytes apart (or a multiple) fall in one set of the first-level data cache
# (64 sets of 64-byte lines on x86-64).
L1_PERIOD = 4096
# ... and the second level's sets repeat every L2_PERIOD bytes (2,048 sets of 64-byte lines
# on AMD Zen 4's 1 MiB and Intel's 2 MiB second levels), L2_WAYS ways each at least.
L2_PERIOD = 128 * 1024
L2_WAYS = 8
# Loads of more rows than this (the ways of a first-level set on x86-64: 8 on AMD Zen 4,
# 12 on recent Intel cores) may read a copy; a tile of at most 8 rows fits one set (a
# GEMM's A tile of 8 rows at 8 KiB reads as fast from the buffer: measured).
SET_WAYS = 8
# The pad after each row: whole cache lines (alignment modulo 64 bytes is kept).
LINE_BYTES = 64
# A copy is made only for a launch of at least one work-group per this many bytes of the
# buffer (a launch reading a large buffer a few times would pay more for the copy).
BYTES_PER_GROUP = 4096
# Copies of at least this many bytes are made in memory advised for transparent huge pages
# (copy_storage).
HUGE_PAGE_COPY_BYTES = 512 * 1024
# x86-64's transparent huge page (and its alignment).
HUGE_PAGE = 2 << 20
# Operations stride_expression follows, on integers of at most 64 bits.
_INTEGER_OPS = ("add", "sub", "mul", "shl", "sext", "zext", "trunc")


class Candidate:
    """A fast-path load that may read a copy: the kernel parameter it reads (param), the
    stride operand's expression (stride_expression, in elements), the element's bytes and
    its rows' bytes (row_bytes: a column's, column-major)."""

    def __init__(self, param, stride, element_bytes, row_bytes):
        self.param, self.stride = param, stride
        self.element_bytes, self.row_bytes = element_bytes, row_bytes


def stride_expression(value, param_of, definition, depth=8):
    """The stride operand `value` as a tree evaluate() computes at launch from the kernel's
    scalar arguments: ('arg', index, bits), ('const', value, bits), (opcode, bits, source bits,
    operand trees); None when it depends on anything else (a work-item id, a load, a phi,
    ...). param_of(argument value) gives the parameter index (None outside a kernel),
    definition(value) an instruction operand's defining instruction (or None)."""
    kind = value_kind(value)
    bits = _bits(str(value.type))
    if bits is None or depth < 0:
        return None
    if kind == "argument":
        index = param_of(value)
        return None if index is None else ("arg", index, bits)
    if kind == "constant_int":
        return ("const", value.get_constant_value(signed_int=True) % (1 << bits), bits)
    value = definition(value) if kind == "instruction" else None
    if value is None or value.opcode not in _INTEGER_OPS:
        return None
    operands = [stride_expression(o, param_of, definition, depth - 1) for o in value.operands]
    if any(o is None for o in operands):
        return None
    source_bits = _bits(str(list(value.operands)[0].type))
    return (value.opcode, bits, source_bits, *operands)


def evaluate(tree, scalars):
    """The expression's value as a signed integer of its width, given the launch's
    arguments (scalars: the call arguments, by parameter index); None when an argument is
    not an integer scalar."""
    value = _unsigned(tree, scalars)
    return None if value is None else _signed(value, tree[2] if tree[0] in ("arg", "const") else tree[1])


def _unsigned(tree, scalars):
    if tree[0] == "const":
        return tree[1]
    if tree[0] == "arg":
        arg = scalars[tree[1]]
        if not isinstance(arg, (int, np.integer, np.bool_)):
            return None
        return int(arg) % (1 << tree[2])
    op, bits, source_bits, *operands = tree
    values = [_unsigned(o, scalars) for o in operands]
    if any(v is None for v in values):
        return None
    mask = (1 << bits) - 1
    if op == "sext":
        return _signed(values[0], source_bits) & mask
    if op in ("zext", "trunc"):
        return values[0] & mask
    a, b = values
    if op == "shl":
        return (a << b) & mask if b < bits else None    # poison: no copy
    return {"add": a + b, "sub": a - b, "mul": a * b}[op] & mask


def _signed(value, bits):
    return value - (1 << bits) if value >> (bits - 1) & 1 else value


def _bits(type_text):
    if type_text.startswith("i") and type_text[1:].isdigit() and int(type_text[1:]) <= 64:
        return int(type_text[1:])
    return None


class LaunchPacks:
    """A launch's descriptor table (one PACK_ROW_WORDS row per parameter) and the copies it
    points at; refresh(threads) copies the buffers again (at each run of the launch), on
    that many threads of the worker pool (ll/pack_rows.ll)."""

    def __init__(self, params, slots):
        self.table = np.zeros(params * PACK_ROW_WORDS, np.int64)
        self.table[PACK_STRIDE::PACK_ROW_WORDS] = -1
        self.address = self.table.ctypes.data
        self.slots = slots          # threads a refresh may use
        self.copied = []            # the parameters copied
        self._keep = []             # the copies, their jobs and launch blocks
        self._blocks = []           # (launch block's address, rows)
        self._dummy = np.zeros(2, np.int64)     # each call's template, arena and fault word

    def add(self, param, source, stride, pad):
        """A copy of `source` (bytes) with rows of `stride` bytes, each followed by `pad`
        bytes of the next row's start."""
        rows = -(-source.size // stride)
        width = stride + pad
        storage = copy_storage(rows * width + LINE_BYTES)
        start = -storage.ctypes.data % LINE_BYTES
        copy = storage[start:start + rows * width].reshape(rows, width)
        counter = np.zeros(1, np.int64)
        job = np.zeros(JOB_WORDS, np.int64)
        job[[J_SOURCE, J_COPY, J_STRIDE, J_WIDTH, J_ROWS, J_SIZE, J_COUNTER]] = (
            source.ctypes.data, copy.ctypes.data, stride, width, rows, source.size, counter.ctypes.data)
        dummy = self._dummy.ctypes.data
        block = pool.launch_block(rows, counter.ctypes.data, dummy, 0, 0, 0,
                                  [(job.ctypes.data, dummy, dummy, dummy + 8)] * self.slots)
        self._keep.append((source, copy, counter, job, block))
        self._blocks.append(block.ctypes.data)
        self.copied.append(param)
        row = param * PACK_ROW_WORDS
        self.table[row + PACK_COPY] = copy.ctypes.data
        self.table[row + PACK_STRIDE] = stride
        self.table[row + PACK_PAD] = pad
        self.table[row + PACK_MAGIC] = np.uint64(magic(stride)).view(np.int64)
        return copy

    def refresh(self, threads=1):
        driver = _copier()
        workers = pool.get()
        for block in self._blocks:
            workers.launch(block, driver, max(1, min(threads, self.slots)))

    def params(self):
        return tuple(self.copied)

    def __len__(self):
        return len(self.copied)


# The copy job's words (ll/pack_rows.ll): the source's and the copy's addresses, the
# source's row stride and the copy's row width in bytes, the rows, the source's size and
# the address of the row counter.
(J_SOURCE, J_COPY, J_STRIDE, J_WIDTH, J_ROWS, J_SIZE, J_COUNTER, JOB_WORDS) = range(8)
# Rows a thread takes at a time.
PACK_CHUNK = 16
_copier_lock = threading.Lock()
_copier_engine = None


def _copier():
    """The address of clcoop_pack_rows (compiled once per process)."""
    global _copier_engine
    with _copier_lock:
        if _copier_engine is None:
            from clcoop.native import jit
            jit.ensure_llvm()
            jit.register_symbols(None, ("memcpy",))    # a copy of a run-time length
            _copier_engine = jit.Engine(fixed_ir.load("pack_rows.ll", globals()), opt=2)
        return _copier_engine.address("clcoop_pack_rows")


def launch_packs(candidates, params, buffers, call_args, total_groups, threads):
    """LaunchPacks for a launch of a kernel with these candidate loads (refreshed on up to
    `threads` threads), or None when it has none. buffers: runtime._buffer_regions'
    (region, address) per parameter. A parameter gets a copy when its region is read-only,
    the stride of its first candidate load evaluates to a positive number of bytes whose
    rows are `conflicting`, and the launch has at least one work-group per BYTES_PER_GROUP
    bytes of it."""
    if not candidates:
        return None
    packs = LaunchPacks(params, threads)
    chosen = {}
    for c in candidates:
        region = buffers[c.param][0] if isinstance(buffers[c.param], tuple) else None
        if region is None or region.writable:
            continue
        if c.param in chosen:
            stride, pad = chosen[c.param]
            chosen[c.param] = (stride, max(pad, _pad(c.row_bytes)))
            continue
        elements = evaluate(c.stride, call_args)
        stride = None if elements is None else elements * c.element_bytes
        if stride is None or not 0 < stride < MAX_COPIED_BYTES or region.size >= MAX_COPIED_BYTES or \
                not conflicting(stride, region.size // stride) or region.size > BYTES_PER_GROUP * total_groups:
            continue
        chosen[c.param] = (stride, _pad(c.row_bytes))
    for param, (stride, pad) in sorted(chosen.items()):
        packs.add(param, buffers[param][0].data, stride, pad)
    return packs


def copy_storage(nbytes):
    """`nbytes` bytes for a copy. From HUGE_PAGE_COPY_BYTES up, where the kernel offers it
    (Linux's madvise(MADV_HUGEPAGE)), 2 MiB-aligned anonymous memory advised for
    transparent huge pages: a copy's rows lie `stride + pad` bytes apart, so a tile step
    reads each of its rows from another 4 KiB page (16 pages per step, a B panel of 512
    rows 264 pages), more than the first-level TLB holds. On the GPU machine's Xeon, one
    thread, 512^3 went from 1.46-1.50x NumPy's time to 1.32-1.42x with the copy in huge
    pages, measured in one process (docs/performance.md). NumPy advises only arrays of 4
    MiB and more, not aligned to 2 MiB. The mapping is freed with the array."""
    advise = getattr(mmap, "MADV_HUGEPAGE", None)
    if nbytes < HUGE_PAGE_COPY_BYTES or advise is None:
        return np.empty(nbytes, np.uint8)
    length = -(-nbytes // HUGE_PAGE) * HUGE_PAGE + HUGE_PAGE
    mapping = mmap.mmap(-1, length, flags=mmap.MAP_PRIVATE | mmap.MAP_ANONYMOUS)
    whole = np.frombuffer(mapping, np.uint8)
    start = -whole.ctypes.data % HUGE_PAGE
    try:
        mapping.madvise(advise, start, length - start)
    except OSError:
        pass            # no transparent huge pages in this kernel: 4 KiB pages, as np.empty
    return whole[start:start + nbytes]


def magic(stride):
    """ceil(2^64 / stride): for 0 <= off < 2^32 and 0 < stride < 2^32, (off * magic) >> 64
    is off // stride. (off * magic / 2^64 = off / stride + e with 0 <= e < off / 2^64 <
    2^-32 < 1 / stride, and the fraction of off / stride is at most 1 - 1 / stride.)"""
    return -(-(1 << 64) // stride)


def conflicting(stride, rows):
    """Whether `rows` rows `stride` bytes apart crowd a few cache sets: every one in the same
    first-level set (a multiple of L1_PERIOD: a tile of more than SET_WAYS rows misses
    there at every step), more of them than the SET_WAYS ways of the few first-level sets
    they visit hold (a GEMM's B panel then comes from the second level at every step: 512
    floats, 2 of the 64 sets), or more than the L2_WAYS ways of the second-level sets they
    visit hold (the panel then streams from the third level for every tile of its column).
    1024 or 2048 floats: the first; 512 or 1536 with 512 rows: the second (1536 with 1,536
    rows: the third too); 1000 floats (128 first-level sets): none."""
    if stride % L1_PERIOD == 0:
        return True
    l1_sets = L1_PERIOD // math.gcd(stride, L1_PERIOD)
    if l1_sets < L1_PERIOD // LINE_BYTES and rows > SET_WAYS * l1_sets:
        return True
    sets = L2_PERIOD // math.gcd(stride, L2_PERIOD)
    # (Visiting every set, rows beyond the ways are the cache's capacity: no copy helps.)
    return sets < L2_PERIOD // LINE_BYTES and rows > L2_WAYS * sets


def _pad(row_bytes):
    return -(-row_bytes // LINE_BYTES) * LINE_BYTES
