"""The native execution engine: kernels compiled to host code by LLVM (llvmlite MCJIT).

docs/native.md describes the execution model, the safety checks and the fallback reasons.
- support.py: which kernels the engine takes, and why not (Unsupported reasons).
- codegen.py: the kernel's IR rewritten into a checked, host-compilable module (generate()).
- context.py: the work-item context slots and the fault kinds.
- text_rewrite.py: reading and rewriting IR text.
- builtin_ir.py: native definitions of the OpenCL built-ins.
- runtime_ir.py: the checks, fault recording and coroutine IR every module shares.
- drivers.py: per-kernel drivers (work-group loop, work-item loop, barrier coroutines).
- atomic_calls.py: the atomic built-ins (OpenCL 1.x and C 2.0).
- coop_routines.py: cooperative-matrix calls (components per work-item, sub-group rendezvous).
- coop_ir.py: the cooperative-matrix mul-add routine.
- jit.py: llvmlite engines and their lifetime.
- runtime.py: launches (arguments, region table, threads, faults).
"""
