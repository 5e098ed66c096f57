"""What the native engine compiles, and the reason when it does not (docs/native.md).

A kernel the engine cannot run exactly like the interpreter falls back to the interpreter;
the reason names the construct and, where there is one, the IR instruction.
"""
from clcoop.engine import EngineFallbackWarning


class Unsupported(Exception):
    """The kernel uses something the native engine does not compile; str() is the reason."""


class WorkItemPathUnavailable(Exception):
    """A launch that needs the per-work-item path of a kernel compiled natively only on the
    subgroup-wide path (KernelPlan.work_item_reason): the caller runs it in the interpreter
    (nothing ran on the caller's arrays)."""


# OpenCL work-item functions (OpenCL C 3.0 6.15.1) and the easy sub-group queries
# (6.15.15): values that depend on the work-item only, read from the context.
WORKITEM_FUNCTIONS = {
    "get_global_id", "get_local_id", "get_group_id", "get_global_size", "get_local_size",
    "get_enqueued_local_size", "get_num_groups", "get_global_offset", "get_work_dim",
    "get_global_linear_id", "get_local_linear_id", "get_sub_group_size",
    "get_max_sub_group_size", "get_num_sub_groups", "get_enqueued_num_sub_groups",
    "get_sub_group_id", "get_sub_group_local_id",
}

# Built-ins with nothing to do on one CPU thread that runs a work-group's work-items in
# order (there is no barrier among the supported kernels).
NO_OP_FUNCTIONS = {"mem_fence", "read_mem_fence", "write_mem_fence", "atomic_work_item_fence"}

# Built-ins whose native instruction rounds exactly like the interpreter's NumPy ufunc
# (IEEE operations correctly rounded on both sides; integer min/max exact).
EXACT_MATH = {"fabs": "fabs", "sqrt": "sqrt", "floor": "floor", "ceil": "ceil",
              "trunc": "trunc", "rint": "rint"}

# LLVM intrinsics kept as they are: exact on the host, no memory access, no trap.
KEPT_INTRINSICS = (
    "llvm.fabs.", "llvm.sqrt.", "llvm.floor.", "llvm.ceil.", "llvm.trunc.", "llvm.rint.",
    "llvm.nearbyint.", "llvm.roundeven.", "llvm.copysign.", "llvm.smax.", "llvm.smin.",
    "llvm.umax.", "llvm.umin.", "llvm.abs.", "llvm.ctpop.", "llvm.ctlz.", "llvm.cttz.",
    "llvm.bswap.", "llvm.bitreverse.", "llvm.fshl.", "llvm.fshr.", "llvm.sadd.sat.",
    "llvm.uadd.sat.", "llvm.ssub.sat.", "llvm.usub.sat.", "llvm.sadd.with.overflow.",
    "llvm.uadd.with.overflow.", "llvm.ssub.with.overflow.", "llvm.usub.with.overflow.",
    "llvm.smul.with.overflow.", "llvm.umul.with.overflow.", "llvm.vector.reduce.add.",
    "llvm.vector.reduce.mul.", "llvm.vector.reduce.and.", "llvm.vector.reduce.or.",
    "llvm.vector.reduce.xor.", "llvm.vector.reduce.smax.", "llvm.vector.reduce.smin.",
    "llvm.vector.reduce.umax.", "llvm.vector.reduce.umin.",
    # float and double: rounded once by the host's FMA instruction or libm's fma/fmaf, as
    # the interpreter (interp/fused.py); half is codegen's fused_half (LLVM would round
    # through float, twice).
    "llvm.fma.",
)

# Intrinsics with no effect on the result: dropped.
DROPPED_INTRINSICS = ("llvm.lifetime.", "llvm.dbg.", "llvm.assume",
                      "llvm.experimental.noalias.scope.decl", "llvm.var.annotation",
                      "llvm.invariant.", "llvm.sideeffect")

# Memory intrinsics: kept, with their pointers bounds-checked over the length.
MEMORY_INTRINSICS = ("llvm.memcpy.", "llvm.memmove.", "llvm.memset.")


class NativeFallbackWarning(EngineFallbackWarning):
    """engine='auto' runs a kernel in the interpreter; the message says why (one class for
    every engine's fallbacks: EngineFallbackWarning)."""
