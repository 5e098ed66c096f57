"""Kernel metadata of clcoop's own, written by the front end (frontend/lower.py) and read by
launch preparation (prepare.py); pure, so that both sides import it cheaply.

clang's kernel metadata (kernel_arg_type, kernel_arg_type_qual, ...) names types; with opaque
pointers the IR no longer says how large a struct pointee is, so clcoop adds it.
"""

# !{i32 size, ...}: per kernel parameter, the size in bytes of its struct pointee (0: the
# parameter is no pointer to a struct). Only on kernels with such a parameter.
ARG_RECORD_SIZE = "clcoop.arg_record_size"
