"""Float maximum and minimum with one answer for every pair of operands.

NumPy's fmax and fmin choose between -0.0 and +0.0 differently with the length of the
array (its SIMD loops and its scalar loop disagree: for float32, fmax(-0.0, +0.0) is +0.0
in an array of one and mixed in an array of 17), and maximum and minimum return the second
operand of an equal pair. Results would depend on how many work-items run together. Here
-0.0 < +0.0, as in IEEE 754-2019's maximumNumber/minimumNumber and maximum/minimum, which
every rule that uses these allows: OpenCL C 3.0 6.15.2 fmax/fmin and 6.15.4 max/min/clamp
(C99 fmax: either zero), LLVM's maxnum/minnum ("either one of the operands") and
maximum/minimum (-0.0 < +0.0). The native engine computes the same selects
(native/builtin_ir.py).
"""
import numpy as np


def fmax(a, b):
    """The larger; a NaN operand loses to the other (both NaN: a)."""
    a, b = np.asarray(a), np.asarray(b)
    return np.where((a > b) | ((a == b) & ~np.signbit(a)) | np.isnan(b), a, b)


def fmin(a, b):
    """The smaller; a NaN operand loses to the other (both NaN: a)."""
    a, b = np.asarray(a), np.asarray(b)
    return np.where((a < b) | ((a == b) & np.signbit(a)) | np.isnan(b), a, b)


def maximum(a, b):
    """The larger; a NaN operand wins (the first NaN)."""
    a, b = np.asarray(a), np.asarray(b)
    return np.where(np.isnan(a) | (a > b) | ((a == b) & ~np.signbit(a)), a, b)


def minimum(a, b):
    """The smaller; a NaN operand wins (the first NaN)."""
    a, b = np.asarray(a), np.asarray(b)
    return np.where(np.isnan(a) | (a < b) | ((a == b) & np.signbit(a)), a, b)
