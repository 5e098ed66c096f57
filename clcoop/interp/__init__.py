"""The CPU interpreter of clcoop's SPIR LLVM IR (vectorized over work-items with NumPy)."""
