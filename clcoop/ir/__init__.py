"""The IR shared by every engine: the loader (LLVM IR text -> Module, parsed and named once),
IR text utilities, demangling, scalar types and their one-rounding conversions, source maps,
the cooperative-matrix layouts and operand reading, call signatures, and the memory model
(regions, addresses, provenance records). No engine is imported here (clcoop/_imports.py).
"""
