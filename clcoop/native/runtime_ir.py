"""IR shared by every generated module: the bounds checks and fault recording, the
coroutine frame of kernels with barriers, the conditional fault (division guard, fast-path
checks). The fixed functions are .ll files of the package (ll/runtime.ll,
ll/coroutine_frame.ll: fixed_ir.py); the coroutine prologue and epilogue are lines spliced
into each generated kernel."""
from clcoop.native import context, fixed_ir
from clcoop.native.context import CTX

# ---------------------------------------------------------------------------- runtime IR
# Declarations of the intrinsics the generated code calls, for modules that lack them.
RUNTIME_DECLS = {"llvm.memcpy.p0.p0.i64": "declare void @llvm.memcpy.p0.p0.i64(ptr, ptr, i64, i1)",
                  "llvm.memset.p0.i64": "declare void @llvm.memset.p0.i64(ptr, i8, i64, i1)"}

# Checks and fault recording shared by every kernel (ll/runtime.ll, with context.py's
# layouts written in: context slots, fault kinds, region-table and private-array rows).
RUNTIME_IR = fixed_ir.load("runtime.ll", vars(context))


CORO_PROLOGUE = [
    "  %__coro.id = call token @llvm.coro.id(i32 0, ptr null, ptr null, ptr null)",
    "  %__coro.size = call i64 @llvm.coro.size.i64()",
    "  %__coro.slot.p = getelementptr i64, ptr %__ctx, i64 " + str(CTX["frame"]),
    "  %__coro.slot = load ptr, ptr %__coro.slot.p",
    "  %__coro.mem = call ptr @__clcoop_frame_alloc(ptr %__ctx, ptr %__coro.slot, i64 %__coro.size)",
    "  %__coro.hdl = call ptr @llvm.coro.begin(token %__coro.id, ptr %__coro.mem)",
]

# After the kernel's last instruction: a final suspend (the driver sees coro.done); the
# frame is freed by coro.destroy.
CORO_EPILOGUE = [
    "__coro.final:",
    "  %__coro.f = call i8 @llvm.coro.suspend(token none, i1 true)",
    "  switch i8 %__coro.f, label %__coro.suspend [i8 0, label %__coro.trap i8 1, label %__coro.cleanup]",
    "__coro.trap:",
    "  unreachable",
    "__coro.cleanup:",
    "  %__coro.fm = call ptr @llvm.coro.free(token %__coro.id, ptr %__coro.hdl)",
    "  call void @__clcoop_frame_free(ptr %__coro.fm, ptr %__coro.slot)",
    "  br label %__coro.suspend",
    "__coro.suspend:",
    "  call void @llvm.coro.end(ptr %__coro.hdl, i1 false, token none)",
    "  ret ptr %__coro.hdl",
]

# Coroutine frames come from the driver's pool (drivers.coroutine_driver): one slot per
# coroutine of a work-group, reused by every work-group; a frame larger than the slot is
# allocated (and its size reported in frame_need, so that the pool grows between
# work-groups). A malloc and a free per coroutine and work-group were a third of a
# barrier kernel's time. 64-byte aligned: LLVM lays values out in the frame at their
# natural alignment (32 for <8 x float>) and uses aligned moves on it.
FRAME_IR = fixed_ir.load("coroutine_frame.ll", vars(context))

CORO_DECLS = """declare token @llvm.coro.id(i32, ptr, ptr, ptr)
declare i64 @llvm.coro.size.i64()
declare ptr @llvm.coro.begin(token, ptr)
declare i8 @llvm.coro.suspend(token, i1)
declare ptr @llvm.coro.free(token, ptr)
declare void @llvm.coro.end(ptr, i1, token)
declare void @llvm.coro.resume(ptr)
declare void @llvm.coro.destroy(ptr)
declare i1 @llvm.coro.done(ptr)
declare ptr @malloc(i64)
declare ptr @aligned_alloc(i64, i64)
declare void @free(ptr)"""


