"""The interpreter's flat 64-bit address space.

Every buffer (a kernel's NumPy array argument, __local memory of each work-group,
__constant and program-scope globals, the private allocas of every work-item) is a
region with its own base address. Pointers of every address space (including the
generic one) are int64 addresses into this single space, so addrspacecast is the
identity. Regions are separated by unmapped gaps and never reuse addresses, so an
out-of-bounds, null or dangling (freed) pointer always lands outside every region.

A batch runs many work-items and work-groups at once, so one region holds the private
variable of every work-item of the batch, or a __local variable of every work-group: its
`Slots`, one object each, owned by one work-item or work-group. What is checked is per
object, whatever the batching (issue 25; docs/design.md "Interpreter memory model"):
an access must lie inside one object of its own work-item (private) or work-group
(__local), and, where the executor knows the object a pointer was derived from (its
provenance: `Provenance`), inside that very object, as the native engine checks
(clcoop/native/codegen.py, `checked`).
"""
import bisect

import numpy as np

from clcoop.errors import RuntimeFault

_REGION_ALIGN = 4096
_GAP = 1 << 20          # unmapped bytes between regions: overruns land nowhere
_FIRST_BASE = 1 << 32   # small integers (and null) are never valid addresses
_FIRST_BASE_32 = 1 << 24


class Region:
    __slots__ = ("name", "base", "size", "data", "views", "writable", "space", "slots")

    def __init__(self, name, base, data, writable=True, space=1):
        self.space = space        # OpenCL address space (0 private, 1 global, 2 constant, 3 local): to_global & co.
        self.name = name
        self.base = base
        self.data = data          # 1-D uint8 array (may be a view of the caller's array)
        self.size = data.size
        self.views = {}
        self.writable = writable
        self.slots = None         # Slots: one object per work-item or work-group of a batch

    def view(self, dtype):
        v = self.views.get(dtype)
        if v is None:
            n = self.size // dtype.itemsize
            v = self.data[:n * dtype.itemsize].view(dtype)
            self.views[dtype] = v
        return v


class Slots:
    """The objects of a region shared by a batch: object k is `size` bytes at
    region.base + k * stride, owned by owners[k], the key of a work-item (`per`
    "work-item": private variables) or of a work-group ("work-group": __local memory);
    keys as Executor.row_owners gives them."""
    __slots__ = ("stride", "size", "owners", "per")

    def __init__(self, stride, size, owners, per):
        self.stride, self.size, self.owners, self.per = stride, size, owners, per


class Provenance:
    """What the executor knows of the pointer of one access (an IR load, store or atomic),
    one entry per row of its addresses: `bases`, the address of the object the pointer was
    derived from (a kernel argument's buffer, a global, a private variable: the access
    must stay inside it), or None when not known statically; `roots`, the pointer it was
    computed from by offsets alone (names the object of an address outside every one), or
    None. The native engine's `base_of` and `root_pointer` (clcoop/native/codegen.py)."""
    __slots__ = ("bases", "roots")

    def __init__(self, bases, roots):
        self.bases, self.roots = bases, roots


class ObjectView:
    """An object in the terms describe_offset reads: a whole region, or one of its slots."""
    __slots__ = ("name", "base", "size")

    def __init__(self, name, base, size):
        self.name, self.base, self.size = name, base, size


class Memory:
    """Regions by base address; load/store gather and scatter for many lanes at once.

    `fault_handler(message, lanes, buffer)` raises the RuntimeFault (it knows the kernel,
    the work-items of the lanes and the current instruction). `row_owners(rows)` gives
    the (work-item keys, work-group keys) of the rows of the addresses being accessed, or
    None when the executor does not know them; `provenance` is set around an access whose
    pointer's provenance is known (Provenance).
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
        self.row_owners = None
        self.provenance = None
        self._slotted = 0           # live regions with Slots (their checks cost only then)

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

    def allocate_slots(self, name, size, owners, per, align, space):
        """A region of one object of `size` bytes per owner (Slots), each `align`-aligned."""
        stride = (max(int(size), 1) + align - 1) // align * align
        region = self.allocate(name, stride * len(owners), space=space)
        region.slots = Slots(stride, int(size), np.asarray(owners, np.int64), per)
        self._slotted += 1
        return region

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
        if region.slots is not None:
            self._slotted -= 1
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
        if self.provenance is not None or self._slotted:
            self.check_objects(addrs, dtype.itemsize, dtype, "read")
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
        if self.provenance is not None or self._slotted:
            self.check_objects(addrs, dtype.itemsize, dtype, "write")
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
        if self.provenance is not None or self._slotted:
            self.check_objects(base, span, dtype, "read")
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
        if self.provenance is not None or self._slotted:
            self.check_objects(base, span, dtype, "write")
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
        if self.provenance is not None or self._slotted:
            self.check_objects(addrs, dtype.itemsize, dtype, "atomic")
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
                    first = int(addrs[bad].flat[0])
                    self._fault(f"misaligned {what} of {dtype.name} at "
                                f"{describe_offset(object_view(region, first), first, dtype)}",
                                addrs, region.name, bad_mask=bad)
            if what != "read" and not region.writable:
                self._fault(f"{what} to read-only memory", addrs, region.name)
            index = addrs - region.base
            if size > 1:
                np.right_shift(index, size.bit_length() - 1, out=index)
            return region, index
        self._check_all(addrs, dtype, what)
        return None, None

    # -------------------------------------------------------------- objects
    def check_objects(self, addrs, nbytes, dtype, what):
        """Each access of `nbytes` at addrs (rows first) lies inside one object: the one its
        pointer was derived from where that is known (self.provenance), else the one
        holding it, which must belong to the row's work-item or work-group (Slots). An
        address outside every region is the region checks' (_check_all), unless the
        pointer's root (Provenance.roots) names the object it overran."""
        rows = addrs.shape[0] if addrs.ndim else 1
        flat = addrs.reshape(rows, -1)
        prov = self.provenance
        bases = prov.bases if prov is not None else None
        if bases is not None:
            if self._inside_base_objects(flat, bases, nbytes):
                return
            ref = np.broadcast_to(np.asarray(bases, np.int64).reshape(-1, 1), flat.shape) \
                if np.ndim(bases) else np.broadcast_to(np.int64(bases), flat.shape)
        elif self._in_one_unslotted_region(flat):
            return
        else:
            ref = flat
        lo, hi, owner = self._objects(ref)
        ok = (flat >= lo) & (flat + nbytes <= hi)
        owners = None
        if bases is None:
            # In no region: the region checks report it, unless the pointer's root names
            # the object it overran (a helper's parameter, as the native engine names it).
            if prov is None or prov.roots is None:
                ok |= lo == hi
            if (owner >= 0).any() and self.row_owners is not None:
                owners = self.row_owners(rows)
                if owners is not None:
                    ok &= self._owned(ref, owner, owners)
        if ok.all():
            return
        bad = ~ok
        first = np.argwhere(bad)[0]
        row, addr = int(first[0]), int(flat[tuple(first)])
        message, buffer = self._object_fault(addr, int(ref[tuple(first)]), bases is not None, row,
                                             nbytes, dtype, what, owners)
        self._fault(message, addrs, buffer, bad_mask=bad.reshape(addrs.shape) if addrs.ndim else None)

    def _inside_base_objects(self, flat, bases, nbytes):
        """The fast check: every row's accesses inside the object of its base, where the
        bases lie in one region (a kernel argument, a global, one private or __local
        variable: the usual case)."""
        b = np.asarray(bases, np.int64)
        lo_b, hi_b = (int(b), int(b)) if b.ndim == 0 else (int(b.min()), int(b.max()))
        region = self.region_at(lo_b)
        if region is None or hi_b >= region.base + region.size:
            return False
        if region.slots is None:
            return int(flat.min()) >= region.base and int(flat.max()) + nbytes <= region.base + region.size
        st = region.slots
        start = region.base + (b - region.base) // st.stride * st.stride
        rel = flat - (start.reshape(-1, 1) if b.ndim else start)
        return int(rel.min()) >= 0 and int(rel.max()) <= st.size - nbytes

    def _in_one_unslotted_region(self, flat):
        """Whether all of flat lies in one region without slots (no object check needed)."""
        region = self.region_at(int(flat.min()))
        return region is not None and region.slots is None and int(flat.max()) < region.base + region.size

    def _objects(self, ref):
        """(lo, hi, owner key or -1) of the object holding each address of `ref`: a region,
        or one of its slots; lo == hi for an address in no region."""
        idx = np.searchsorted(self._bases, ref, side="right") - 1
        lo = np.array(ref, np.int64)
        hi = lo.copy()
        owner = np.full(ref.shape, -1, np.int64)
        for i in np.unique(idx):
            if i < 0:
                continue
            r = self.regions[i]
            sel = idx == i
            sel &= ref < r.base + r.size
            if not sel.any():
                continue
            if r.slots is None:
                lo[sel], hi[sel] = r.base, r.base + r.size
                continue
            slot = (ref[sel] - r.base) // r.slots.stride
            lo[sel] = r.base + slot * r.slots.stride
            hi[sel] = lo[sel] + r.slots.size
            owner[sel] = r.slots.owners[slot]
        return lo, hi, owner

    def _owned(self, ref, owner, owners):
        """Whether each slotted object of `ref` belongs to its row's work-item or work-group."""
        items, groups = (np.asarray(o, np.int64).reshape(-1, 1) for o in owners)
        ok = owner < 0
        for i in np.unique(np.searchsorted(self._bases, ref[owner >= 0], side="right") - 1):
            r = self.regions[i]
            keys = items if r.slots.per == "work-item" else groups
            in_r = (ref >= r.base) & (ref < r.base + r.size) & (owner >= 0)
            ok |= in_r & (owner == keys)
        return ok

    def _object_fault(self, addr, ref, derived, row, nbytes, dtype, what, owners):
        """(message, buffer) of a failed object check at addr: out of bounds of the object
        the pointer was derived from (`derived`: ref is its base), else of its root's or
        its own object; or an object of another work-item or work-group."""
        obj = self.object_at(ref)
        if not derived:
            root = self._root_object(row, owners)
            here = self.object_at(addr)
            if root is not None and (here is None or here[1].base != root[1].base or not self._mine(here, row, owners)):
                obj = root
            elif here is not None and not self._mine(here, row, owners):
                region = here[0]
                whose = "work-item's private memory" if region.slots.per == "work-item" \
                    else "work-group's __local memory"
                return f"{what} through a pointer to another {whose} ('{region.name}')", region.name
        if obj is None:
            return self._describe_bad(addr, dtype, what), self._nearest_name(addr)
        view = obj[1]
        first_bad = view.base + view.size if view.base <= addr < view.base + view.size else addr
        kind = dtype.name if nbytes % dtype.itemsize == 0 else f"{nbytes} bytes"
        return f"out-of-bounds {what} of {kind} at {describe_offset(view, first_bad, dtype)}", view.name

    def object_at(self, addr):
        """(region, its object holding addr: the region or one of its Slots), or None."""
        region = self.region_at(int(addr))
        return None if region is None else (region, object_view(region, int(addr)))

    def _mine(self, obj, row, owners):
        region, view = obj
        if region.slots is None or owners is None:
            return True
        k = (view.base - region.base) // region.slots.stride
        key = owners[0][row] if region.slots.per == "work-item" else owners[1][row]
        return int(region.slots.owners[k]) == int(key)

    def _root_object(self, row, owners):
        prov = self.provenance
        roots = prov.roots if prov is not None else None
        if roots is None:
            return None
        root = int(roots) if np.ndim(roots) == 0 else int(np.asarray(roots).reshape(-1)[row])
        obj = self.object_at(root)
        return obj if obj is not None and self._mine(obj, row, owners) else None

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
            view = object_view(near, addr)     # (the nearest of its objects)
            return f"out-of-bounds {what} of {dtype.name} at {describe_offset(view, addr, dtype)}"
        return f"{what} through an invalid pointer {addr:#x} (no buffer there, or it was freed)"

    def _nearest(self, addr):
        if not self.regions:
            return None
        i = bisect.bisect_right(self._base_list, addr) - 1
        cands = [self.regions[j] for j in (i, i + 1) if 0 <= j < len(self.regions)]
        return min(cands, key=lambda r: min(abs(addr - r.base), abs(addr - (r.base + r.size))))

    def _nearest_name(self, addr):
        if addr == 0:
            return None          # a null pointer is no buffer's (the native engine's words)
        near = self._nearest(addr)
        if near is not None and near.base - self.gap <= addr < near.base + near.size + self.gap:
            return near.name
        return None

    def _fault(self, message, addrs, buffer, bad_mask=None):
        if self.fault_handler is not None:
            self.fault_handler(message, addrs, buffer, bad_mask)
        raise RuntimeFault(message, buffer=buffer)


def object_view(region, addr):
    """The object of `region` at or nearest to addr: the region, or one of its Slots."""
    if region.slots is None:
        return region
    st = region.slots
    k = min(max((addr - region.base) // st.stride, 0), st.owners.size - 1)
    return ObjectView(region.name, region.base + k * st.stride, st.size)


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


class LocalArgument:
    """A __local pointer argument: the engine allocates nbytes per work-group (prepare.py's
    map_arguments passes it; the interpreter's Executor maps one region per group)."""

    def __init__(self, name, nbytes):
        self.name, self.nbytes = name, nbytes
