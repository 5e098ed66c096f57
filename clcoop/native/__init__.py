"""The native execution engine: kernels compiled to host code by LLVM (llvmlite MCJIT).

docs/native.md describes the execution model, the safety checks and the fallback reasons.
- support.py: which kernels the engine takes, and why not (Unsupported reasons).
- codegen.py: the kernel's IR rewritten into a checked, host-compilable module.
- jit.py: llvmlite engines and their lifetime.
- runtime.py: launches (arguments, region table, threads, faults).
"""
