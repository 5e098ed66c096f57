"""What a cooperative-matrix call's operands are, read from its callee (the mangled name and
the template arguments, coop_names.Callee) and checked against the IR types: the pointee
size a load or store steps by, the matrices it names, the component dtype it moves. Both
engines read them here, so their checks and fault words come from one place.
"""
import re

import numpy as np

from clcoop import coop_names
from clcoop import float8 as float8_names
from clcoop.errors import IRError
from clcoop.ir.scalars import COMPONENT_DTYPES, SCALARS


def pointee_size(params):
    """Size in bytes of the pointee of the first (pointer) parameter: 'PU3AS1f' -> 4."""
    match = re.match(r"P(?:U3AS\d+)?[KVr]*(Dv(\d+)_)?(DF16b|Dh|u10__fp8_e4m3|u10__fp8_e5m2|[cahbstijlmxyfd])",
                     params)
    if not match:
        raise IRError(f"cannot read the pointer parameter type from mangled parameters '{params}'")
    count = int(match.group(2)) if match.group(2) else 1
    if count == 3:
        count = 4   # OpenCL 3-component vectors occupy 4 components
    if match.group(3) in float8_names.BY_ITANIUM:
        return count          # an fp8 pointee: one byte (clcoop/float8.py)
    return count * SCALARS[match.group(3)].dtype.itemsize


def component_dtype(matrix_arg):
    return np.dtype(COMPONENT_DTYPES[matrix_arg.elem])


def result_matrix(callee, ret_type, what):
    """The result matrix type: from the template args, else from the IR return type (a
    loader Ty; its component is the signed one of its width)."""
    if callee.matrices:
        return callee.matrices[0]
    if ret_type is not None and ret_type.kind == "matrix":
        return coop_names.MatrixArg.of_matrix_type(ret_type.matrix)
    raise IRError(f"cooperative matrix call {what} names no matrix type")


def memory_dtype(callee, ret_type=None):
    """The element dtype a matrix load (ret_type: its result's Ty) or store (None) reads or
    writes, as its faults name it (the native engine words its faults with it)."""
    if ret_type is not None:
        return component_dtype(result_matrix(callee, ret_type, "load"))
    return component_dtype(operand_matrices(callee, 1, "store", has_result=False)[0])


def operand_matrices(callee, count, what, has_result):
    matrices = callee.matrices[1:] if has_result else callee.matrices
    if len(matrices) < count:
        raise IRError(f"cooperative matrix callee for {what} must name {count} matrix "
                      f"parameter type(s) in its template arguments")
    return matrices[:count]
