"""Call signatures checked against what the callee is (docs/native.md, "Safety contract").

IR from elsewhere is untrusted: a call may name `vload4` and return `<16 x float>`, or
call a function with another function type than it is declared with (opaque pointers make
both valid LLVM IR). Both engines derive every access from the IR types; these checks
refuse such calls before either engine runs them, with the reason:

- the call's function type (its result and argument types, read by LLVM) must be the
  callee's declared one (a mismatch is undefined behaviour in LLVM, and on the host an
  ABI mismatch: a callee returning through a hidden pointer the caller never passed);
- a call of an OpenCL C built-in (an Itanium-mangled declaration, as clang names them)
  must have the parameter types its mangled name spells (scalars by width, vectors by
  length, pointers by address space), and, where OpenCL C 3.0 6.15 fixes it from the
  name and the parameters, the return type (vloadN: `<N x pointee>`, atomics: the
  pointee, convert_T: T, relational functions: the integer of the operand's width, ...).

`mismatch(...)` returns the reason or None; the interpreter raises it as an IRError when
it translates the call (instructions.resolve_call), the native engine refuses the kernel
with it (codegen.call: Kernel.fallback_reason).
"""
import re

from clcoop import coop_names, coopmat_spec
from clcoop.errors import IRError
from clcoop.ir import coop_spellings
from clcoop.ir.coop_operands import pointee_size
from clcoop.ir.demangle import demangle
from clcoop.ir.loader import Ty, parse_type_text, value_kind
from clcoop.tensor_spec import TensorType

_WORKITEM = {"get_global_id", "get_local_id", "get_group_id", "get_global_size", "get_local_size",
             "get_enqueued_local_size", "get_num_groups", "get_global_offset", "get_work_dim",
             "get_global_linear_id", "get_local_linear_id", "get_sub_group_size",
             "get_max_sub_group_size", "get_num_sub_groups", "get_enqueued_num_sub_groups",
             "get_sub_group_id", "get_sub_group_local_id"}
# OpenCL C 3.0 6.15.6 relational functions: an int for a scalar, the signed integer of the
# operand's element width for a vector.
_RELATIONAL = {"isequal", "isnotequal", "isgreater", "isgreaterequal", "isless", "islessequal",
               "isordered", "isunordered", "isnan", "isinf", "isfinite", "isnormal", "signbit"}
# Built-ins returning the type of their first operand (gentype f(gentype, ...), OpenCL C
# 3.0 6.15.2-6.15.4, 6.15.6's select/bitselect, the sub-group and work-group collectives).
_SAME_AS_FIRST = {
    "sqrt", "rsqrt", "fabs", "exp", "exp2", "exp10", "log", "log2", "log10", "log1p", "expm1",
    "sin", "cos", "tan", "asin", "acos", "atan", "sinh", "cosh", "tanh", "asinh", "acosh", "atanh",
    "cbrt", "floor", "ceil", "trunc", "rint", "round", "atan2", "pow", "powr", "fmod", "hypot",
    "copysign", "fmin", "fmax", "fdim", "fma", "mad", "pown", "rootn", "recip", "divide",
    "degrees", "radians", "sign", "mix", "normalize", "cross", "ldexp",
    "remainder", "nextafter", "logb", "sinpi", "cospi", "tanpi", "asinpi", "acospi", "atanpi",
    "atan2pi", "erf", "erfc", "tgamma", "lgamma", "maxmag", "minmag", "fract", "modf",
    "sincos", "frexp", "min", "max", "clamp", "abs", "abs_diff", "add_sat", "sub_sat", "hadd",
    "rhadd", "mul24", "mad24", "mul_hi", "mad_hi", "clz", "ctz", "popcount", "rotate",
    "mad_sat", "select", "bitselect"}
# Built-ins without a result: OpenCL C 3.0 6.15.8 synchronization (barrier, work_group_barrier,
# sub_group_barrier), 6.15.9 legacy fences, 6.15.11 wait_group_events and prefetch, 6.15.12
# atomic_work_item_fence.
_VOID = {"barrier", "work_group_barrier", "sub_group_barrier", "mem_fence", "read_mem_fence",
         "write_mem_fence", "atomic_work_item_fence", "wait_group_events", "prefetch"}
_NATIVE_MATH = re.compile(r"(?:native|half|fast)_(\w+)")
_VLOAD = re.compile(r"v(load|store)(a?_half)?(\d*)(?:_rt[ezpn])?")
_CONVERT = re.compile(r"convert_(u?char|u?short|u?int|u?long|float|double|half)(\d*)(?:_sat)?(?:_rt[ezpn])?")
_CONVERT_SCALARS = {"char": ("int", 8), "uchar": ("int", 8), "short": ("int", 16), "ushort": ("int", 16),
                    "int": ("int", 32), "uint": ("int", 32), "long": ("int", 64), "ulong": ("int", 64),
                    "half": ("float", 16), "float": ("float", 32), "double": ("float", 64)}
_LEGACY_ATOMIC = re.compile(r"atom(?:ic)?_(add|sub|xchg|min|max|and|or|xor|inc|dec|cmpxchg)")
_C11_ATOMIC = re.compile(r"atomic_(fetch_\w+|exchange|load|store|init|compare_exchange_(?:strong|weak)|"
                         r"flag_test_and_set|flag_clear)(?:_explicit)?")
_COLLECTIVE = re.compile(r"(?:sub_group|work_group)_(?:non_uniform_)?(?:(all|any)|broadcast|"
                         r"(?:reduce|scan_inclusive|scan_exclusive)_\w+)|(?:intel_)?sub_group_shuffle\w*")


def mismatch(callee, declared, ret, args, structs):
    """Why a call may not run, or None. callee: the called llvmlite function; declared: its
    function TypeRef; ret, args: the call's result and argument types (llvmlite TypeRefs);
    structs: the module's named struct types (loader.read_structs)."""
    name = callee.name
    want = [str(t) for t in declared.elements]
    got = [str(ret)] + [str(a) for a in args]
    fixed = got[:len(want)] if declared.is_function_vararg else got
    if fixed != want:
        return (f"the call of @{name} has the function type {_signature(got)}, but @{name} is "
                f"{'defined' if not callee.is_declaration else 'declared'} as {_signature(want)}")
    if not callee.is_declaration or name.startswith("llvm."):
        return None   # LLVM's verifier checks intrinsic signatures against their names
    if coop_names.names_spirv_operation(name):
        try:
            ret_ty, *arg_tys = (parse_type_text(t, structs) for t in got)
        except IRError as exc:
            return f"the call of @{name}: {exc}"
        return coop_mismatch(name, ret_ty, arg_tys)
    base, params = demangle(name)
    if base == "printf" and str(ret) != "i32":
        # (its parameters end in `...`, which demangle does not read)
        return f"the built-in 'printf' (@{name}) returns i32 (OpenCL C 3.0 6.15.14), but the call's result is {ret}"
    if params is None:
        return None     # not a mangled built-in name (the engines refuse unknown functions)
    ret_ty = parse_type_text(str(ret), structs)
    arg_tys = [parse_type_text(str(a), structs) for a in args]
    return _builtin_mismatch(name, base, params, ret_ty, arg_tys)


def _signature(types):
    return f"{types[0]} ({', '.join(types[1:])})"


def _builtin_mismatch(name, base, params, ret, args):
    spelled = f"'{base}' (@{name})"
    if len(params) != len(args):
        return f"the built-in {spelled} takes {len(params)} arguments, the call passes {len(args)}"
    for k, (p, t) in enumerate(zip(params, args)):
        if not _matches(p, t):
            return (f"argument {k + 1} of the built-in {spelled} is {_spell(p)} by its name, "
                    f"but the call passes {t}")
    try:
        expected = expected_return(base, params, args)
    except _Mismatch as exc:
        return f"the built-in {spelled}: {exc}"
    if expected is not None and not _return_matches(expected, ret):
        return (f"the built-in {spelled} returns {_describe(expected)}, but the call's result "
                f"is {ret}")
    return None


class _Mismatch(Exception):
    """Operands that no overload of the named built-in has; str() says why."""


def _matches(p, t):
    """Whether the IR type t is the mangled parameter type p."""
    kind = p[0]
    if kind == "int":
        return t.kind == "int" and t.bits == p[1]
    if kind == "float":
        return t.kind == "float" and t.bits == p[1] and not t.bfloat
    if kind == "vec":
        return t.kind == "vec" and t.n == p[1] and _matches(p[2], t.elem)
    if kind == "ptr":
        return t.kind == "ptr" and t.addrspace == p[1]
    if kind == "void":
        return t.kind == "void"
    return True      # named types (events, enums, images): their IR form varies by producer


def _spell(p):
    kind = p[0]
    if kind == "int":
        return f"i{p[1]}"
    if kind == "float":
        return {16: "half", 32: "float", 64: "double"}.get(p[1], f"f{p[1]}")
    if kind == "vec":
        return f"<{p[1]} x {_spell(p[2])}>"
    if kind == "ptr":
        return "ptr" if not p[1] else f"ptr addrspace({p[1]})"
    return kind if kind == "void" else p[1]


def _ty(p):
    """The IR type (loader.Ty) of a mangled scalar or vector type."""
    if p[0] == "vec":
        return Ty("vec", n=p[1], elem=_ty(p[2]))
    if p[0] in ("int", "float"):
        return Ty(p[0], p[1])
    return None


def expected_return(base, params, args):
    """What OpenCL C 3.0 6.15 says `base` returns for these operands: a loader.Ty, "int"
    (an integer of any width: size_t, bool), "void", or None (not checked); _Mismatch
    when no overload has these operands."""
    m = _NATIVE_MATH.fullmatch(base)
    if m and m.group(1) in _SAME_AS_FIRST | {"dot", "length", "distance", "step", "smoothstep"}:
        base = m.group(1)
    if base in _WORKITEM:
        return "int"
    if base in _VOID:
        return "void"
    if base in _SAME_AS_FIRST:
        return args[0] if args else None
    if base in ("step", "smoothstep"):
        return args[-1] if args else None    # step(float edge, float4 x): x's type
    if base in ("any", "all"):
        return Ty("int", 32)
    if base in _RELATIONAL:
        return _relational_result(args[0]) if args else None
    if base in ("dot", "dot_acc_sat") and args and args[0].kind == "vec" and args[0].elem.kind == "int":
        return Ty("int", 32)      # cl_khr_integer_dot_product: (u)char4 operands, (u)int result
    if base in ("dot", "length", "distance"):
        return (args[0].elem if args[0].kind == "vec" else args[0]) if args else None
    if base == "ilogb":       # intn ilogb(floatn / doublen / halfn), OpenCL C 3.0 6.15.2
        return Ty("vec", n=args[0].n, elem=Ty("int", 32)) if args and args[0].kind == "vec" else Ty("int", 32)
    if base in ("shuffle", "shuffle2") and len(args) >= 2 and args[0].kind == "vec" and args[-1].kind == "vec":
        return Ty("vec", n=args[-1].n, elem=args[0].elem)
    m = _VLOAD.fullmatch(base)
    if m:
        return _vector_memory_return(m, params)
    m = _CONVERT.fullmatch(base)
    if m and args:
        kind, bits = _CONVERT_SCALARS[m.group(1)]
        scalar = Ty(kind, bits)
        n = int(m.group(2) or 1)
        if _length(args[0]) != n:
            raise _Mismatch(f"it converts {n} element(s), but its operand is {args[0]}")
        return Ty("vec", n=n, elem=scalar) if m.group(2) and n > 1 else scalar
    m = _LEGACY_ATOMIC.fullmatch(base) or _C11_ATOMIC.fullmatch(base)
    if m:
        return _atomic_return(m.group(1), params)
    m = _COLLECTIVE.fullmatch(base)
    if m and args:
        return Ty("int", 32) if m.group(1) else args[0]
    return None


def _relational_result(t):
    if t.kind == "vec":
        return Ty("vec", n=t.n, elem=Ty("int", t.elem.bits))
    return Ty("int", 32)


def _vector_memory_return(m, params):
    """vloadN / vload_halfN / vstore...: the element type is the pointer's pointee, N the
    name's (OpenCL C 3.0 6.15.11)."""
    load, half, n = m.group(1) == "load", bool(m.group(2)), int(m.group(3) or 1)
    pointer = params[-1] if params else None
    if pointer is None or pointer[0] != "ptr" or len(params) != (2 if load else 3):
        raise _Mismatch("its operands are not (offset, pointer)" if load else
                        "its operands are not (data, offset, pointer)")
    pointee = _ty(pointer[2])
    if pointee is None or (half and pointee != Ty("float", 16)):
        raise _Mismatch(f"its pointer's pointee {_spell(pointer[2])} is not "
                        f"{'half' if half else 'a scalar'}")
    if not load:
        data = _ty(params[0])
        wants = (Ty("float", 32), Ty("float", 64)) if half else (pointee,)
        if data is None or _length(data) != n or _element(data) not in wants:
            raise _Mismatch(f"it stores {n} x {' or '.join(map(str, wants))}, but its data operand "
                            f"is {_spell(params[0])}")
        return "void"
    elem = Ty("float", 32) if half else pointee
    return Ty("vec", n=n, elem=elem) if m.group(3) and n > 1 else elem


def _length(t):
    return t.n if t.kind == "vec" else 1


def _element(t):
    return t.elem if t.kind == "vec" else t


def _atomic_return(op, params):
    """An atomic's result: the pointee (the old value), a bool, or nothing."""
    pointer = params[0] if params else None
    pointee = _ty(pointer[2]) if pointer is not None and pointer[0] == "ptr" else None
    if pointee is None:
        raise _Mismatch("its first operand is not a pointer to a scalar")
    if not op.startswith("flag_"):
        # The value operands (and compare_exchange's *expected) are the pointee's type.
        for p in params[1:]:
            q = p[2] if p[0] == "ptr" else p
            if q[0] in ("int", "float", "vec") and _ty(q) != pointee:
                raise _Mismatch(f"its operand {_spell(p)} is not its pointer's pointee {pointee}")
    if op in ("store", "init", "flag_clear"):
        return "void"
    if op.startswith("compare_exchange") or op == "flag_test_and_set":
        return "int"
    return pointee


def _return_matches(expected, ret):
    if expected == "int":
        return ret.kind == "int"
    if expected == "void":
        return ret.kind == "void"
    return ret == expected


def _describe(expected):
    return "an integer" if expected == "int" else str(expected)


# ---------------------------------------------------------------- cooperative-matrix calls
# The operands of each operation as SPV_KHR_cooperative_matrix, SPV_NV_cooperative_matrix2
# and SPV_NV_tensor_addressing define them, in the order docs/ir-conventions.md ("Callee
# names") passes them: (result, operands every call has, the kind of the optional operands
# after them, how many of those at most). Kinds: M a matrix (the callee's next named matrix
# type), P a pointer, I an integer scalar, S a scalar of the result's component type, T a
# tensor layout or view, X a matrix, a scalar or a pointer (per-element extras), C the <2 x i32>
# coordinate, V nothing. Both engines index the operands by these positions
# (interp/coop_calls.py, interp/tensor_calls.py, native/coop_routines.py).
_ONE_MATRIX = ("M", "M", "", 0)
_OPERANDS = {
    coop_names.LOAD: ("M", "PI", "I", 3),       # Pointer, MemoryLayout, [Stride], [Memory Operand, its literal]
    coop_names.STORE: ("V", "PMI", "I", 3),     # Pointer, Object, MemoryLayout, [Stride], [Memory Operand, its literal]
    coop_names.MUL_ADD: ("M", "MMM", "I", 1),   # A, B, C, [Cooperative Matrix Operands]
    coop_names.LENGTH: ("I", "M", "", 0),       # the matrix (its type is what counts)
    coop_names.SPLAT: ("M", "S", "", 0),
    coop_names.NEGATE: _ONE_MATRIX,
    coop_names.SCALAR_MUL: ("M", "MS", "", 0),
    coop_names.ACCESS_CHAIN: ("P", "PI", "", 0),    # &matrix, component index
    coop_names.CONVERT_USE: _ONE_MATRIX,
    coop_names.TRANSPOSE: _ONE_MATRIX,
    coop_names.REDUCE: ("M", "MIP", "", 0),     # Matrix, Reduce mode, CombineFunc
    coop_names.PER_ELEMENT: ("M", "MP", "X", None),   # Matrix, Func, operands passed to Func
    coop_names.GET_COORDINATE: ("C", "MI", "", 0),
    # Pointer, Object (loads: the matrix kept where the tensor is clamped), TensorLayout,
    # Memory Operand, Tensor Addressing Operands, [TensorView], [DecodeFunc]
    coop_names.LOAD_TENSOR: ("M", "PMTII", "TP", 2),
    coop_names.STORE_TENSOR: ("V", "PMTII", "T", 1),
}
_OPERANDS.update({base: ("M", "MM", "", 0) for base in coop_names.BINARY.values()})
_OPERANDS.update({base: _ONE_MATRIX for base in coop_names.CONVERSIONS})
_KIND_WORDS = {"M": "a cooperative matrix", "P": "a pointer", "I": "an integer scalar",
               "S": "a scalar of the matrix's component type", "T": "a tensor layout or view",
               "X": "a cooperative matrix, a scalar or a pointer", "C": "<2 x i32>", "V": "void"}


def coop_mismatch(name, ret, args):
    """Why a call of the cooperative-matrix or tensor operation `name` (a `__spirv_`
    callee: clcoop's names, or another producer's, read through coop_spellings) cannot
    run, or None. ret, args: the call's result and argument types (loader.Ty). The
    operands must be what the operation takes, and each matrix the type the callee's
    name says (the engines lay matrices out by the named types)."""
    canonical = coop_spellings.canonical_name(name, ret, args) or name
    callee = coop_names.parse_callee(canonical)
    spelled = f"@{name}"
    if callee is None or not callee.well_formed:
        return (f"cannot read a cooperative-matrix operation and its matrix types from the "
                f"callee name {spelled}")
    op = coop_names.operation_name(callee.base)
    spelled = f"the cooperative-matrix operation {op} ({spelled})"
    if callee.base in coop_names.TENSOR_BASES and callee.base not in _OPERANDS:
        return _tensor_operation_mismatch(spelled, coop_names.TENSOR_BASES[callee.base], ret, args)
    shape = _OPERANDS.get(callee.base)
    if shape is None:
        return f"{spelled} is not an operation clcoop runs"
    return (_operand_mismatch(spelled, shape, ret, args)
            or _named_matrices_mismatch(spelled, callee, ret, args)
            or _same_type_mismatch(spelled, callee.base, ret, args)
            or _pointer_mismatch(spelled, callee, args))


def _operand_mismatch(spelled, shape, ret, args):
    result, required, optional, most = shape
    extra = len(args) - len(required)
    if extra < 0 or (most is not None and extra > most):
        return f"{spelled} takes {_operand_words(shape)}, but the call passes {len(args)} argument(s)"
    if not _is_kind(result, ret, ret):
        return f"{spelled} returns {_KIND_WORDS[result]}, but the call's result is {_text(ret)}"
    for k, t in enumerate(args):
        if k < len(required):
            kinds = required[k]
        else:   # optional operands in order when all are there (a tensor load's view, decode)
            kinds = optional[k - len(required)] if extra == len(optional) > 1 else optional
        if not any(_is_kind(kind, t, ret) for kind in kinds):
            return (f"argument {k + 1} of {spelled} must be "
                    f"{' or '.join(_KIND_WORDS[kind] for kind in kinds)}, but the call passes {_text(t)}")
    return None


def _operand_words(shape):
    result, required, optional, most = shape
    words = ", ".join(_KIND_WORDS[k] for k in required) or "no operand"
    if optional:
        more = " or ".join(_KIND_WORDS[k] for k in optional)
        words += f", then at most {most} more ({more})" if most else f", then any number of more ({more})"
    return words


def _text(t):
    """A type as the IR writes it (the loader's matrix text is spaced as tokens)."""
    return t.matrix.ir_text() if t.kind == "matrix" else str(t)


def _is_kind(kind, t, ret):
    if kind == "M":
        return t.kind == "matrix"
    if kind == "P":
        return t.kind == "ptr"
    if kind == "I":
        return t.kind == "int"
    if kind == "S":
        return ret.kind == "matrix" and str(t) == _component_scalar(ret.matrix.component)
    if kind == "T":
        return TensorType.parse(str(t)) is not None
    if kind == "X":
        return t.kind in ("matrix", "int", "float", "ptr")
    if kind == "C":
        return t == Ty("vec", n=2, elem=Ty("int", 32))
    return t.kind == "void"


def _component_scalar(component):
    """The IR scalar of a matrix component: fp8 scalars are the i8 of their bits."""
    return "i8" if component.bits == 8 and component.is_float else component.llvm


def _named_matrices_mismatch(spelled, callee, ret, args):
    """The IR matrix types (result first) against the matrix types the callee names."""
    if callee.base == coop_names.ACCESS_CHAIN or not callee.matrices:
        return None     # (an access chain names the matrix its pointer points to)
    typed = ([("its result", ret)] if ret.kind == "matrix" else []) + \
        [(f"argument {k + 1}", t) for k, t in enumerate(args) if t.kind == "matrix"]
    if len(typed) != len(callee.matrices):
        return (f"{spelled} names {len(callee.matrices)} matrix type(s), but the call has "
                f"{len(typed)} matrix result and operand(s)")
    for (where, t), named in zip(typed, callee.matrices):
        if _matrix_key(t.matrix) != _matrix_key(named.matrix_type()):
            return (f"{where} of {spelled} is {t.matrix.ir_text()}, but the callee's name says "
                    f"{named.matrix_type().ir_text()}")
    return None


# Operations whose matrix operands have the result's type: SPV_KHR_cooperative_matrix's
# element-wise arithmetic and OpMatrixTimesScalar, SPV_NV_cooperative_matrix2's
# OpCooperativeMatrixPerElementOpNV (its Matrix; the interpreter lays matrix extras out as
# the result too) and OpCooperativeMatrixLoadTensorNV (its Object).
_SAME_TYPE = {coop_names.NEGATE, coop_names.SCALAR_MUL, coop_names.PER_ELEMENT,
              coop_names.LOAD_TENSOR, *coop_names.BINARY.values()}


def _same_type_mismatch(spelled, base, ret, args):
    if base not in _SAME_TYPE or ret.kind != "matrix":
        return None
    for k, t in enumerate(args):
        if t.kind == "matrix" and _matrix_key(t.matrix) != _matrix_key(ret.matrix):
            return (f"argument {k + 1} of {spelled} is {t.matrix.ir_text()}, but the operation "
                    f"takes its result's type {ret.matrix.ir_text()}")
    return None


def _matrix_key(m):
    """A matrix type as the IR has it (components without signedness)."""
    return m.component.llvm, m.scope, m.rows, m.cols, m.use


def _pointer_mismatch(spelled, callee, args):
    """A load or store steps its pointer by the pointee its name spells (the stride's unit),
    and the pointer is in the address space the name spells (the IR's pointer is what the
    engines access: a name that says __global for a __local pointer is refused, as for the
    built-ins)."""
    memory = (coop_names.LOAD, coop_names.STORE, coop_names.LOAD_TENSOR, coop_names.STORE_TENSOR)
    if callee.base not in memory:
        return None
    if callee.base in (coop_names.LOAD, coop_names.STORE):
        try:
            pointee_size(callee.params)
        except IRError as exc:
            return f"{spelled}: {exc}"
    named = re.match(r"P(?:U3AS(\d+))?", callee.params)
    space = int(named.group(1) or 0) if named else None
    if space is not None and args and args[0].kind == "ptr" and args[0].addrspace != space:
        return (f"argument 1 of {spelled} is {args[0]}, but the callee's name says a pointer "
                f"to address space {space}")
    return None


def _tensor_operation_mismatch(spelled, operation, ret, args):
    """Tensor layout and view operations: the result is the layout or view type, and each
    one but create takes that type and its operands (tensor_spec, coopmat_spec)."""
    spec = TensorType.parse(str(ret))
    if spec is None:
        return f"{spelled} returns a tensor layout or view, but the call's result is {ret}"
    if operation in ("coop_tensor_layout_create", "coop_tensor_view_create"):
        return f"{spelled} takes no operands, but the call passes {len(args)}" if args else None
    if not args or str(args[0]) != str(ret):
        return (f"argument 1 of {spelled} must be the layout or view it returns ({ret}), but "
                f"the call passes {args[0] if args else 'nothing'}")
    problem = coopmat_spec.tensor_operand_count_problem(operation, spec.dims, len(args) - 1)
    if problem is not None:
        return f"{spelled}: {problem.message}"
    for k, t in enumerate(args[1:], start=2):
        if t.kind != "int":
            return f"argument {k} of {spelled} must be an integer scalar, but the call passes {t}"
    return None


def function_operand_mismatch(name, ret, args, operands, functions, kernels):
    """Why a function operand (`ptr @f`) of the cooperative-matrix call of `name` cannot be
    called as its operation calls it, or None: a reduction calls T (T, T), a per-element
    operation T (i32 row, i32 col, T, its extra operands...), a tensor load's decode
    function T (ptr, [D x i32], [D x i32]) (SPV_NV_cooperative_matrix2; T the matrix's
    component, fp8 as its i8 bits). ret, args: the call's types (loader.Ty); operands: its
    llvmlite argument values; functions: the module's (name -> llvmlite function);
    kernels: the names of its kernels. (A function called with other types than it has
    got None for the missing parameters in the interpreter: a TypeError.)"""
    callee = coop_names.parse_callee(coop_spellings.canonical_name(name, ret, args) or name)
    if callee is None:
        return None
    op = coop_names.operation_name(callee.base)
    for k, value in enumerate(operands):
        want = _function_operand_type(callee.base, k, ret, args)
        if value_kind(value) != "function":
            if want is not None:
                return (f"argument {k + 1} of {op} (@{name}) must be a function defined in the "
                        f"module, called as {want.__doc__}, but it is {value}")
            continue
        spelled = f"the function operand @{value.name} (argument {k + 1}) of {op} (@{name})"
        if want is None:
            return f"{spelled}: the operation takes no function there"
        target = functions.get(value.name)
        if target is None or target.is_declaration or value.name in kernels:
            return f"{spelled} is not a function defined in the module (a kernel or a declaration)"
        have = str(target.global_value_type)
        if not want(have):
            return f"{spelled} has the type {have}, but the operation calls it as {want.__doc__}"
    return None


def _function_operand_type(base, k, ret, args):
    """A predicate on the function type text the operand at position k must have (its
    __doc__ the type in words), or None where the operation takes no function."""
    def exactly(text):
        check = (lambda have: have == text)
        check.__doc__ = text
        return check
    if base == coop_names.REDUCE and k == 2 and args and args[0].kind == "matrix":
        t = _component_scalar(args[0].matrix.component)
        return exactly(f"{t} ({t}, {t})")
    if base == coop_names.PER_ELEMENT and k == 1 and ret.kind == "matrix":
        t = _component_scalar(ret.matrix.component)
        extras = [t if a.kind == "matrix" else _text(a) for a in args[2:]]
        return exactly(f"{t} ({', '.join(['i32', 'i32', t] + extras)})")
    if base == coop_names.LOAD_TENSOR and k == len(args) - 1 and k >= 5 and args[k].kind == "ptr" \
            and ret.kind == "matrix":
        spec = TensorType.parse(str(args[2]))
        t = _component_scalar(ret.matrix.component)
        coordinates = f"[{spec.dims} x i32]" if spec is not None else "[D x i32]"
        pattern = re.compile(rf"{re.escape(t)} \(ptr(?: addrspace\(\d+\))?, "
                             rf"{re.escape(coordinates)}, {re.escape(coordinates)}\)")
        check = (lambda have: pattern.fullmatch(have) is not None)
        check.__doc__ = f"{t} (ptr, {coordinates}, {coordinates})"
        return check
    return None


def recursive_functions(functions):
    """Names of the defined functions that can reach themselves through calls (OpenCL C 3.0
    6.11 forbids recursion: neither engine runs it; the interpreter's Python stack would
    overflow). functions: name -> llvmlite function."""
    callees = {}
    for name, f in functions.items():
        if f.is_declaration:
            continue
        callees[name] = {list(ins.operands)[-1].name for b in f.blocks for ins in b.instructions
                         if ins.opcode == "call"} & functions.keys()
    recursive = set()
    for start in callees:
        stack, seen = list(callees[start]), set()
        while stack:
            name = stack.pop()
            if name == start:
                recursive.add(start)
                break
            if name not in seen:
                seen.add(name)
                stack.extend(callees.get(name, ()))
    return recursive
