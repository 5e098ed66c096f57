"""Running one generated native function (builtin_ir, math_ir, ... definitions built with
native/irbuild.py) on given arguments: the definition, the declarations it calls
(builtin_ir.intrinsics_in), and a wrapper that loads each argument from memory, calls it
with a null context and stores the result, compiled with MCJIT after LLVM's verifier."""
import ctypes

import numpy as np

from clcoop.native import irbuild, jit
from clcoop.native.builtin_ir import intrinsics_in

_SLOT = 64          # bytes per argument and for the result: the widest vector tested


def compile_definition(definition, name, ret, params, extra=(), context=None):
    """A callable f(*arrays) -> array: the definition `name` (ret, params: IR type texts)
    run on every row of NumPy arrays holding the arguments (each a column of its type), its
    context pointer `context` (an int64 array of context.CTX slots) or null; `extra`: more
    definitions it calls."""
    import llvmlite.binding as llvm
    jit.ensure_llvm()
    decls = dict(intrinsics_in(definition))
    loads = [f"  %p{i} = getelementptr i8, ptr %in, i64 {_SLOT * i}\n  %x{i} = load {t}, ptr %p{i}, align 1"
             for i, t in enumerate(params)]
    args = "".join(f", {t} %x{i}" for i, t in enumerate(params))
    wrapper = ("define void @run(ptr %in, ptr %out, ptr %ctx) {\n" + "\n".join(loads) +
               f"\n  %r = call {ret} @\"{name}\"(ptr %ctx{args})\n  store {ret} %r, ptr %out, align 1\n"
               "  ret void\n}")
    # (as codegen assembles a module: for_range's loops name the loop metadata it defines)
    text = irbuild.loop_metadata("\n".join([definition, *extra, *decls.values(), wrapper]) + "\n")
    llvm.parse_assembly(text).verify()
    engine = jit.Engine(text)
    run = ctypes.CFUNCTYPE(None, ctypes.c_void_p, ctypes.c_void_p, ctypes.c_void_p)(engine.address("run"))
    ctx = None if context is None else np.ascontiguousarray(context, np.int64)

    def call(*columns, out_dtype, out_count=1, rows=None):
        rows = len(columns[0]) if columns else rows
        result = np.zeros((rows, out_count), out_dtype)
        for r in range(rows):
            buf = np.zeros(_SLOT * len(columns), np.uint8)
            for i, col in enumerate(columns):
                raw = np.ascontiguousarray(col[r]).view(np.uint8).reshape(-1)
                buf[_SLOT * i:_SLOT * i + raw.size] = raw
            out = np.zeros(_SLOT, np.uint8)
            run(buf.ctypes.data, out.ctypes.data, None if ctx is None else ctx.ctypes.data)
            result[r] = out[:result.itemsize * out_count].view(out_dtype)
        return result if out_count > 1 else result[:, 0]
    call.engine = engine        # kept alive with the function
    return call
