"""The work-item context shared by generated code and runtime.py: an array of i64 slots
(runtime.py fills the template, the generated built-ins and drivers read and write it),
the fault kinds recorded in it, and the sizes that bound native memory use."""

# Context: an array of i64 slots (runtime.py fills the template).
CTX = {name: i for i, name in enumerate((
    "fault", "fault_kind", "fault_addr", "steps", "limit", "priv", "table", "table_count",
    "scratch", "abort", "work_dim", "sg_size", "llid", "lid0", "lid1", "lid2", "grp0",
    "grp1", "grp2", "gsize0", "gsize1", "gsize2", "lsize0", "lsize1", "lsize2", "ngrp0",
    "ngrp1", "ngrp2", "off0", "off1", "off2", "fault_size", "priv_size", "wg_size", "barrier", "next_group",
    "coop0", "coop1", "coop2", "coop3", "fault_region", "group_chunk",
    # A coroutine's frame slot in the driver's pool, the slot size, and the frame size a
    # coroutine needed when it did not fit (runtime_ir.CORO_PROLOGUE).
    "frame", "frame_cap", "frame_need",
    # Values a fault's words need beyond its address and size (tensor_routines.py: an
    # Undefined-clamp fault's element, tensor coordinate and dimensions), copied to the
    # fault record (drivers.fault_out).
    *(f"detail{k}" for k in range(12)),
    # The launch's table of padded copies of read-only matrix operands (packed_loads.py).
    "packs"))}
DETAIL_SLOTS = 12
# A fault record (the drivers write it to their fault-out words, drivers.fault_out;
# runtime.NativeProgram._fault reads it): [site + 1, fault kind, address, work-group, local
# linear id, access size, region code, the work-item's arena], then the detail slots.
FAULT_RECORD = ("site", "kind", "address", "group", "item", "size", "region", "arena")
FAULT_RECORD_WORDS = len(FAULT_RECORD) + DETAIL_SLOTS
CTX_SLOTS = len(CTX)
SCRATCH_BYTES = 4096
# Private variables and loaded/stored values above this size could overflow a thread's
# stack (a crash): larger private variables live in the arena, larger accesses fall back.
MAX_STACK_BYTES = 1 << 16
# A row of the region table (runtime.py writes it per launch; the generated checks, the
# drivers and the __local references read it): REGION_ROW_WORDS int64 words, the region's
# bytes [lo, hi) and its flags.
(REGION_LO, REGION_HI, REGION_FLAGS, REGION_ROW_WORDS) = range(4)
REGION_WRITABLE, REGION_LOCAL = 1, 2      # flags: stores allowed; __local memory
# A row of a module's @__clcoop_privates (codegen.py writes it; ll/runtime.ll reads it): a
# private array's offset in the work-item's arena, its size, and the arena offset of the
# live flag of the function that declares it.
(PRIVATE_OFFSET, PRIVATE_SIZE, PRIVATE_LIVE, PRIVATE_ROW_WORDS) = range(4)

# Fault kinds recorded in the context (runtime.describe_fault words them).
FAULT_READ, FAULT_WRITE, FAULT_ATOMIC, FAULT_READONLY, FAULT_MISALIGNED, FAULT_DIVZERO, \
    FAULT_LIMIT, FAULT_UNREACHABLE, FAULT_FREED, FAULT_BARRIER, FAULT_COOP = range(1, 12)
# A bit field past its type's width (bit_ops_ir.py): offset and count in the address and
# size words.
FAULT_BIT_FIELD = 12

BARRIERS = ("barrier", "work_group_barrier")
# Votes the per-work-item path computes by a rendezvous (votes.py): like barriers, the
# work-item's coroutine suspends at them, so functions reaching them are inlined (named_ir).
WORKGROUP_VOTES = ("work_group_all", "work_group_any")
SUBGROUP_VOTES = ("sub_group_all", "sub_group_any")
# Work-group collectives, a rendezvous of the work-group too (workgroup_collectives.py).
WORKGROUP_COLLECTIVES = ("work_group_broadcast",) + tuple(
    f"work_group_{kind}_{op}" for kind in ("reduce", "scan_inclusive", "scan_exclusive")
    for op in ("add", "min", "max", "mul", "and", "or", "xor"))
SUSPENDING_CALLS = BARRIERS + WORKGROUP_VOTES + SUBGROUP_VOTES + WORKGROUP_COLLECTIVES
LEGACY_ATOMIC_FUNCTIONS = {f"{prefix}_{op}" for prefix in ("atomic", "atom")
                           for op in ("add", "sub", "xchg", "min", "max", "and", "or", "xor", "inc",
                                      "dec", "cmpxchg")}
# OpenCL C 2.0 atomics (OpenCL C 3.0 6.15.12.7), each with an _explicit form.
C11_ATOMIC_FUNCTIONS = {f"atomic_{op}{suffix}" for suffix in ("", "_explicit")
                        for op in ("fetch_add", "fetch_sub", "fetch_min", "fetch_max", "fetch_and",
                                   "fetch_or", "fetch_xor", "exchange", "load", "store",
                                   "compare_exchange_strong", "compare_exchange_weak",
                                   "flag_test_and_set", "flag_clear")} | {"atomic_init"}
ATOMIC_FUNCTIONS = LEGACY_ATOMIC_FUNCTIONS | C11_ATOMIC_FUNCTIONS
