"""The interpreter's flat 64-bit address space.

Every buffer (a kernel's NumPy array argument, __local memory of each work-group,
__constant and program-scope globals, the private allocas of every work-item) is a
region with its own base address. Pointers of every address space (including the
generic one) are int64 addresses into this single space, so addrspacecast is the
identity. Regions are separated by unmapped gaps and never reuse addresses, so an
out-of-bounds, null or dangling (freed) pointer always lands outside every region.
"""
import bisect

import numpy as np

from clcoop.errors import RuntimeFault

_REGION_ALIGN = 4096
_GAP = 1 << 20          # unmapped bytes between regions: overruns land nowhere
_FIRST_BASE = 1 << 32   # small integers (and null) are never valid addresses
_FIRST_BASE_32 = 1 << 24


class Region:
    __slots__ = ("name", "base", "size", "data", "views", "writable", "space")

    def __init__(self, name, base, data, writable=True, space=1):
        self.space = space        # OpenCL address space (0 private, 1 global, 2 constant, 3 local): to_global & co.
        self.name = name
        self.base = base
        self.data = data          # 1-D uint8 array (may be a view of the caller's array)
        self.size = data.size
        self.views = {}
        self.writable = writable

    def view(self, dtype):
        v = self.views.get(dtype)
        if v is None:
            n = self.size // dtype.itemsize
            v = self.data[:n * dtype.itemsize].view(dtype)
            self.views[dtype] = v
        return v


class Memory:
    """Regions by base address; load/store gather and scatter for many lanes at once.

    `fault_handler(message, lanes, buffer)` raises the RuntimeFault (it knows the kernel,
    the work-items of the lanes and the current instruction).
    """

    def __init__(self, fault_handler=None, pointer_bytes=8):
        self.regions = []           # sorted by base
        self._bases = np.zeros(0, np.int64)
        self._base_list = []        # the same, for one address at a time (bisect)
        # 32-bit targets (spir) keep every address below 2**32 so pointers fit in 4 bytes.
        self._next_base = _FIRST_BASE if pointer_bytes == 8 else _FIRST_BASE_32
        self.limit = 1 << 62 if pointer_bytes == 8 else 1 << 32
        # 64-bit: 4 GiB of unmapped space around every buffer, so even far overruns fault
        # instead of landing in another buffer.
        self.gap = 1 << 32 if pointer_bytes == 8 else _GAP
        self.fault_handler = fault_handler

    # -------------------------------------------------------------- regions
    def add_region(self, name, data, writable=True, space=1):
        """Map a 1-D uint8 array; return its Region (base address in .base)."""
        base = self._next_base
        self._next_base = _align_up(base + data.size + self.gap, _REGION_ALIGN)
        if self._next_base >= self.limit:
            raise RuntimeFault("the kernel's buffers exceed the 32-bit address space of the target")
        region = Region(name, base, data, writable, space)
        self.regions.append(region)
        self._base_list.append(base)
        self._bases = np.array(self._base_list, np.int64)
        return region

    def allocate(self, name, nbytes, writable=True, space=1):
        return self.add_region(name, np.zeros(max(int(nbytes), 1), np.uint8), writable, space)

    def spaces_at(self, addrs):
        """The address space of the region each address points into (-1: none)."""
        addrs = np.asarray(addrs, np.int64)
        index = np.searchsorted(self._bases, addrs, side="right") - 1
        spaces = np.array([r.space for r in self.regions] + [-1], np.int64)
        ends = np.array([r.base + r.size for r in self.regions] + [0], np.int64)
        index = np.where(index < 0, len(self.regions), index)
        return np.where(addrs < ends[index], spaces[index], -1)

    def free(self, region):
        self.regions.remove(region)
        self._base_list = [r.base for r in self.regions]
        self._bases = np.array(self._base_list, np.int64)

    def region_at(self, addr):
        i = bisect.bisect_right(self._base_list, addr) - 1
        if i < 0:
            return None
        r = self.regions[i]
        return r if r.base <= addr < r.base + r.size else None

    # -------------------------------------------------------------- access
    def load(self, addrs, dtype):
        """Values of `dtype` at int64 `addrs` (any shape); faults on invalid access."""
        dtype = np.dtype(dtype)
        addrs = np.asarray(addrs, np.int64)
        if addrs.size == 0:
            return np.zeros(addrs.shape, dtype)
        contiguous = self._contiguous(addrs, dtype, "read")
        if contiguous is not None:
            region, start = contiguous
            return region.view(dtype)[start:start + addrs.size].copy()
        region, index = self._locate(addrs, dtype, "read")
        return region.view(dtype)[index] if region is not None else \
            self._gather_multi(addrs, dtype)

    def _contiguous(self, addrs, dtype, what):
        """(region, first element) when addrs are consecutive elements of one buffer (a[i]
        with i the work-item id): then a slice replaces the gather and its checks."""
        n = addrs.size
        size = dtype.itemsize
        if addrs.ndim != 1 or n < 32:
            return None
        first, last = int(addrs[0]), int(addrs[-1])
        if last - first != (n - 1) * size or first % size:
            return None
        region = self.region_at(first)
        if region is None or last + size > region.base + region.size:
            return None
        if what != "read" and not region.writable:
            return None
        if (np.diff(addrs) != size).any():
            return None
        return region, (first - region.base) // size

    def store(self, addrs, values, dtype):
        dtype = np.dtype(dtype)
        addrs = np.asarray(addrs, np.int64)
        if addrs.size == 0:
            return
        values = np.broadcast_to(np.asarray(values).astype(dtype, copy=False), addrs.shape)
        contiguous = self._contiguous(addrs, dtype, "write")
        if contiguous is not None:
            region, start = contiguous
            region.view(dtype)[start:start + addrs.size] = values
            return
        region, index = self._locate(addrs, dtype, "write")
        if region is not None:
            region.view(dtype)[index] = values
            return
        flat_a, flat_v = addrs.reshape(-1), values.reshape(-1)
        idx = self._region_indices(flat_a)
        for i in np.unique(idx):
            sel = idx == i
            r = self.regions[i]
            r.view(dtype)[(flat_a[sel] - r.base) // dtype.itemsize] = flat_v[sel]

    def load_rows(self, base, n, dtype):
        """(k, n) values: row r holds n consecutive `dtype` elements starting at base[r].

        Checks run on the k row addresses only; equally spaced rows (the private memory
        of consecutive lanes, unit-stride vectors) become a strided view of the buffer.
        """
        dtype = np.dtype(dtype)
        base = np.asarray(base, np.int64)
        if base.size == 0:
            return np.zeros((0, n), dtype)
        span = n * dtype.itemsize
        region, offsets = self._locate_rows(base, span, dtype, "read")
        if region is None:
            return self.load(base[:, None] + np.arange(n, dtype=np.int64) * dtype.itemsize, dtype)
        strided = self._strided(region, offsets, n, dtype, span, writing=False)
        if strided is not None:
            return strided.copy()
        # Gather whole rows from a sliding-window view: no (k, n) index array needed.
        view = region.view(dtype)
        windows = np.lib.stride_tricks.as_strided(
            view, shape=(view.size - n + 1, n), strides=(dtype.itemsize, dtype.itemsize),
            writeable=False)
        return windows[offsets // dtype.itemsize]

    def store_rows(self, base, values, dtype):
        dtype = np.dtype(dtype)
        base = np.asarray(base, np.int64)
        if base.size == 0:
            return
        n = values.shape[1]
        span = n * dtype.itemsize
        region, offsets = self._locate_rows(base, span, dtype, "write")
        if region is None:
            self.store(base[:, None] + np.arange(n, dtype=np.int64) * dtype.itemsize, values, dtype)
            return
        strided = self._strided(region, offsets, n, dtype, span, writing=True)
        if strided is not None:
            strided[...] = values
            return
        region.view(dtype)[(offsets // dtype.itemsize)[:, None] + np.arange(n)] = values

    def _locate_rows(self, base, span, dtype, what):
        lo, hi = int(base.min()), int(base.max())
        region = self.region_at(lo)
        if region is None or hi + span > region.base + region.size:
            return None, None
        offsets = base - region.base
        size = dtype.itemsize
        if size > 1 and (offsets & (size - 1)).any():
            return None, None          # the element-wise path reports it
        if what != "read" and not region.writable:
            return None, None
        return region, offsets

    @staticmethod
    def _strided(region, offsets, n, dtype, span, writing):
        k = offsets.size
        if k < 2:
            return None
        step = int(offsets[1] - offsets[0])
        if step <= 0 or step % dtype.itemsize or (writing and step < span):
            return None
        if offsets[-1] - offsets[0] != step * (k - 1) or (np.diff(offsets) != step).any():
            return None
        view = region.view(dtype)
        start = int(offsets[0]) // dtype.itemsize
        return np.lib.stride_tricks.as_strided(view[start:], shape=(k, n),
                                               strides=(step, dtype.itemsize), writeable=writing)

    def atomic_region_view(self, addrs, dtype):
        """(typed view, element indices) for an atomic read-modify-write on `addrs`."""
        dtype = np.dtype(dtype)
        addrs = np.asarray(addrs, np.int64)
        region, index = self._locate(addrs, dtype, "atomic")
        if region is None:
            self._fault("atomic operation on pointers into different buffers", addrs, None)
        return region.view(dtype), index

    # -------------------------------------------------------------- checks
    def _locate(self, addrs, dtype, what):
        """Fast path: every address in one region -> (region, element indices); else (None, None)."""
        lo, hi = int(addrs.min()), int(addrs.max())
        region = self.region_at(lo)
        size = dtype.itemsize
        if region is not None and hi + size <= region.base + region.size:
            # Region bases are 4096-aligned, so alignment can be checked on the address.
            if size > 1:
                misaligned = addrs & (size - 1)
                if misaligned.any():
                    bad = misaligned != 0
                    self._fault(f"misaligned {what} of {dtype.name} at "
                                f"{describe_offset(region, int(addrs[bad].flat[0]), dtype)}",
                                addrs, region.name, bad_mask=bad)
            if what != "read" and not region.writable:
                self._fault(f"{what} to read-only memory", addrs, region.name)
            index = addrs - region.base
            if size > 1:
                np.right_shift(index, size.bit_length() - 1, out=index)
            return region, index
        self._check_all(addrs, dtype, what)
        return None, None

    def _region_indices(self, flat):
        return np.searchsorted(self._bases, flat, side="right") - 1

    def _check_all(self, addrs, dtype, what):
        flat = addrs.reshape(-1)
        idx = self._region_indices(flat)
        ok = idx >= 0
        ends = np.array([r.base + r.size for r in self.regions] + [0], np.int64)
        bases = np.append(self._bases, 0)
        safe = np.where(ok, idx, len(self.regions))
        ok &= (flat >= bases[safe]) & (flat + dtype.itemsize <= ends[safe])
        if not ok.all():
            bad_addr = int(flat[~ok][0])
            self._fault(self._describe_bad(bad_addr, dtype, what), addrs, self._nearest_name(bad_addr),
                        bad_mask=~ok.reshape(addrs.shape))
        offs = flat - bases[safe]
        if dtype.itemsize > 1 and (offs & (dtype.itemsize - 1)).any():
            self._fault(f"misaligned {what} of {dtype.name}", addrs, None)

    def _gather_multi(self, addrs, dtype):
        flat = addrs.reshape(-1)
        idx = self._region_indices(flat)
        out = np.empty(flat.shape, dtype)
        for i in np.unique(idx):
            sel = idx == i
            r = self.regions[i]
            out[sel] = r.view(dtype)[(flat[sel] - r.base) // dtype.itemsize]
        return out.reshape(addrs.shape)

    def _describe_bad(self, addr, dtype, what):
        if addr == 0:
            return f"{what} through a null pointer"
        near = self._nearest(addr)
        if near is not None and near.base - self.gap <= addr < near.base + near.size + self.gap:
            return f"out-of-bounds {what} of {dtype.name} at {describe_offset(near, addr, dtype)}"
        return f"{what} through an invalid pointer {addr:#x} (no buffer there, or it was freed)"

    def _nearest(self, addr):
        if not self.regions:
            return None
        i = bisect.bisect_right(self._base_list, addr) - 1
        cands = [self.regions[j] for j in (i, i + 1) if 0 <= j < len(self.regions)]
        return min(cands, key=lambda r: min(abs(addr - r.base), abs(addr - (r.base + r.size))))

    def _nearest_name(self, addr):
        near = self._nearest(addr)
        if near is not None and near.base - self.gap <= addr < near.base + near.size + self.gap:
            return near.name
        return None

    def _fault(self, message, addrs, buffer, bad_mask=None):
        if self.fault_handler is not None:
            self.fault_handler(message, addrs, buffer, bad_mask)
        raise RuntimeFault(message, buffer=buffer)


def describe_offset(region, addr, dtype):
    """Where `addr` is in the terms of the kernel's source: the element offset in the
    buffer (`p[i]` faults at element i), or the byte offset when not element-aligned,
    and the buffer's size, rather than a flat interpreter address."""
    offset, size = addr - region.base, dtype.itemsize
    where = f"element {offset // size}" if offset % size == 0 else f"byte offset {offset}"
    extent = f"{region.size // size} elements" if region.size % size == 0 else f"{region.size} bytes"
    return f"{where} of buffer '{region.name}' ({extent})"


def _align_up(x, a):
    return (x + a - 1) // a * a
