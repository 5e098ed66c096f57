"""The OpenCL C built-in functions (not the cooperative-matrix ones): table and overload resolution.

The overloads are those clang-22's opencl-c.h declares for `-cl-std=CL3.0` on a SPIR target
(generic address space on; named-address-space builtins off, so vload/vstore/fract/...
take `__generic` pointers, plus `__constant` ones for the vloads).  They are described
by families ("gentype F = half/float/double scalars and vectors", ...) and expanded
lazily, one name at a time, so that importing this module costs almost nothing.

Resolution follows clang's C++-style overload rules as clang applies them to
`__attribute__((overloadable))` OpenCL built-ins: every argument gets an implicit
conversion rank (exact, promotion, conversion, scalar-to-vector widening); the best viable
overload is the one not worse on any argument and better on one; otherwise the call is
ambiguous.  As in C, an argument needing an incompatible pointer conversion makes a
candidate worse than any other; the call is then an error unless the pointees differ only in
signedness or a qualifier is lost (clang warns; see conversion_warnings).  Callee names are
Itanium-mangled like clang does, with substitutions (`_Z6selectDv4_iS_S_`).

Every overload here is checked against clang-22 by test/unit/interp/test_builtins.py.
"""
import functools
import re
from pathlib import Path

from clcoop.frontend.types import (
    CONSTANT, EVENT, GENERIC, GLOBAL, LOCAL, PRIVATE, SCALARS, VOID, AtomicType, CType, EnumType,
    EventType, PointerType, ScalarType, VectorType, builtin_typedefs, vector_of,
)
from clcoop.records import record


@record(frozen=True)
class BuiltinOverload:
    name: str                 # OpenCL name, e.g. "sqrt"
    ret: CType
    params: tuple             # CTypes the arguments are converted to before the call
    mangled: str              # callee name exactly as clang-22 names it
    convergent: bool = False  # barrier, work_group_barrier, sub_group_* collectives

    def signature(self):
        return f"{self.ret.spelling()} {self.name}({', '.join(p.spelling() for p in self.params)})"


class BuiltinMismatch(Exception):
    """No overload, or several equally good ones. `message` is clang's wording (str(exc) too);
    `notes` lists candidates as clang's notes would."""

    def __init__(self, message, notes=()):
        super().__init__(message)
        self.message = message
        self.notes = list(notes)


# ---------------------------------------------------------------------------
# Type families
# ---------------------------------------------------------------------------
S = SCALARS
FLOAT_NAMES = ("float", "double", "half")
INT_NAMES = ("char", "uchar", "short", "ushort", "int", "uint", "long", "ulong")
SIGNED_INT_NAMES = ("char", "short", "int", "long")
ALL_COUNTS = (1, 2, 3, 4, 8, 16)
GEOMETRIC_COUNTS = (1, 2, 3, 4)
VLOAD_COUNTS = (2, 3, 4, 8, 16)
ROUNDING_MODES = ("", "_rte", "_rtz", "_rtp", "_rtn")

# Named families: element names and vector counts (1 = the scalar).
FAMILIES = {
    "F": (FLOAT_NAMES, ALL_COUNTS),            # gentype F (math)
    "f": (("float",), ALL_COUNTS),             # native_ / half_ take float only
    "I": (INT_NAMES, ALL_COUNTS),              # gentype I (integer functions)
    "IS": (SIGNED_INT_NAMES, ALL_COUNTS),      # any/all
    "I32": (("int", "uint"), ALL_COUNTS),      # mul24/mad24
    "IF": (INT_NAMES + FLOAT_NAMES, ALL_COUNTS),
    "Fv": (FLOAT_NAMES, ALL_COUNTS[1:]),       # vector-only overloads (fmax(float4, float))
    "Iv": (INT_NAMES, ALL_COUNTS[1:]),
    "G": (FLOAT_NAMES, GEOMETRIC_COUNTS),      # geometric
    "Gf": (("float",), GEOMETRIC_COUNTS),      # fast_length & co.
    "X": (FLOAT_NAMES, (3, 4)),                # cross
    "UP": (("char", "uchar", "short", "ushort", "int", "uint"), ALL_COUNTS),  # upsample
    "SG": (INT_NAMES + FLOAT_NAMES, (1,)),     # sub-group reductions (with extended types)
    "SGW": (("int", "uint", "long", "ulong", "float", "double", "half"), (1,)),  # work-group collectives
    "SGI": (INT_NAMES, (1,)),                  # sub-group bitwise reductions
    "ISH": (("char", "uchar", "short", "ushort", "int", "uint", "float"), ALL_COUNTS),  # intel shuffles
    "ISH1": (("long", "ulong", "double", "half"), (1,)),
    "ISB": (("char", "uchar", "short", "ushort"), (1, 2, 3, 4, 8)),   # cl_intel_subgroups_char/short
    "ISR": (("char", "uchar", "short", "ushort"), (1,)),
    "N": ((), (1,)),                           # no gentype: fixed signature
}

_UNSIGNED = {"char": "uchar", "short": "ushort", "int": "uint", "long": "ulong"}
_SIGNED_OF_WIDTH = {8: "char", 16: "short", 32: "int", 64: "long"}
_UNSIGNED_OF_WIDTH = {8: "uchar", 16: "ushort", 32: "uint", 64: "ulong"}
_UPSAMPLE_WIDE = {"char": "short", "uchar": "ushort", "short": "int", "ushort": "uint",
                  "int": "long", "uint": "ulong"}
_NAN_ARG = {"float": "uint", "double": "ulong", "half": "ushort"}
_MEMORY_SCOPE = EnumType("memory_scope")
_MEMORY_ORDER = EnumType("memory_order")


def _type_code(code, elem, count, target):
    """One parameter/return code of a family signature, instantiated for gentype elem x count.

    g gentype, s its scalar, u unsigned gentype, us unsigned scalar, k relational result
    (int for scalars, same-width signed vector otherwise; OpenCL 3.0 6.15.6), ks/ku same-width
    signed/unsigned of the same count (select), n int of the same count, fn float of the same
    count, w upsample result, nanarg nan()'s argument, i int, j uint, z size_t, v void, f float,
    ulong, uint2, ballot uint4, ms/mo memory_scope/memory_order, cgp `const __global g *`.
    A code ending in `*` is a `__generic` pointer to it; `c...*` a pointer to const.
    """
    if code.endswith("*"):
        const = code.startswith("c")
        inner = code[1:-1] if const else code[:-1]
        return PointerType(_type_code(inner, elem, count, target), GENERIC, const=const)
    e = S[elem] if elem else None
    if code == "g":
        return vector_of(e, count)
    if code == "s":
        return e
    if code == "u":
        return vector_of(S[_UNSIGNED.get(elem, elem)], count)
    if code == "us":
        return S[_UNSIGNED.get(elem, elem)]
    if code == "k":
        return S["int"] if count == 1 else VectorType(S[_SIGNED_OF_WIDTH[e.bits]], count)
    if code == "ks":
        return vector_of(S[_SIGNED_OF_WIDTH[e.bits]], count)
    if code == "ku":
        return vector_of(S[_UNSIGNED_OF_WIDTH[e.bits]], count)
    if code == "n":
        return vector_of(S["int"], count)
    if code == "fn":
        return vector_of(S["float"], count)
    if code == "w":
        return vector_of(S[_UPSAMPLE_WIDE[elem]], count)
    if code == "nanarg":
        return vector_of(S[_NAN_ARG[elem]], count)
    if code == "z":
        return target.size_t
    if code == "cgp":
        return PointerType(vector_of(e, count), GLOBAL, const=True)
    if code in ("lp", "clp", "gp"):         # __local g *, const __local g *, __global g *
        return PointerType(vector_of(e, count), GLOBAL if code == "gp" else LOCAL, const=code == "clp")
    if code == "ev":
        return EVENT
    if code == "ballot":
        return VectorType(S["uint"], 4)
    if code == "uint2":
        return VectorType(S["uint"], 2)
    if code == "ms":
        return _MEMORY_SCOPE
    if code == "mo":
        return _MEMORY_ORDER
    fixed = {"i": "int", "j": "uint", "v": "void", "f": "float", "h": "half", "ulong": "ulong"}
    return S[fixed[code]]


# ---------------------------------------------------------------------------
# The table: name -> list of (family, "ret(params)") entries.
# Built from compact specs on first use (_table()).
# ---------------------------------------------------------------------------
def _names(text):
    return text.split()


_MATH_UNARY = _names("""acos acosh acospi asin asinh asinpi atan atanh atanpi cbrt ceil cos cosh
    cospi erf erfc exp exp2 exp10 expm1 fabs floor lgamma log log2 log10 log1p logb rint round
    rsqrt sin sinh sinpi sqrt tan tanh tanpi tgamma trunc degrees radians sign""")
_MATH_BINARY = _names("""atan2 atan2pi copysign fdim fmod hypot maxmag minmag nextafter pow powr
    remainder""")
_NATIVE_UNARY = _names("cos exp exp2 exp10 log log2 log10 recip rsqrt sin sqrt tan")
_NATIVE_BINARY = _names("divide powr")
_INT_UNARY = _names("clz ctz popcount")
_INT_BINARY = _names("add_sat sub_sat hadd rhadd mul_hi rotate")
_REL_UNARY = _names("isfinite isinf isnan isnormal signbit")
_REL_BINARY = _names("""isequal isnotequal isgreater isgreaterequal isless islessequal
    islessgreater isordered isunordered""")
_ATOMIC_BINARY = _names("add sub xchg min max and or xor")
_WORK_ITEM_DIM = _names("""get_global_size get_global_id get_local_size get_enqueued_local_size
    get_local_id get_num_groups get_group_id get_global_offset""")
_SUB_GROUP_QUERIES = _names("""get_sub_group_size get_max_sub_group_size get_num_sub_groups
    get_enqueued_num_sub_groups get_sub_group_id get_sub_group_local_id""")
_COLLECTIVE_OPS = _names("reduce_add reduce_min reduce_max scan_inclusive_add scan_inclusive_min "
                         "scan_inclusive_max scan_exclusive_add scan_exclusive_min scan_exclusive_max")


def _build_specs():
    """name -> list of (family, ret_code, param_codes), codes as _type_code reads them."""
    specs = {}

    def add(names, family, ret, *params):
        for name in ([names] if isinstance(names, str) else names):
            specs.setdefault(name, []).append((family, ret, params))

    # Work-item functions (OpenCL 3.0 6.15.1).
    add("get_work_dim", "N", "j")
    add(_WORK_ITEM_DIM, "N", "z", "j")
    add(["get_global_linear_id", "get_local_linear_id"], "N", "z")
    add(_SUB_GROUP_QUERIES, "N", "j")
    # Synchronization (6.15.8) and fences (6.15.9); cl_mem_fence_flags is uint.
    add("barrier", "N", "v", "j")
    add(["work_group_barrier", "sub_group_barrier"], "N", "v", "j")
    add(["work_group_barrier", "sub_group_barrier"], "N", "v", "j", "ms")
    add(["mem_fence", "read_mem_fence", "write_mem_fence"], "N", "v", "j")
    add("prefetch", "IF", "v", "cgp", "z")          # 6.15.13
    # Async copies (6.15.11).
    add("async_work_group_copy", "IF", "ev", "lp", "cgp", "z", "ev")
    add("async_work_group_copy", "IF", "ev", "gp", "clp", "z", "ev")
    add("async_work_group_strided_copy", "IF", "ev", "lp", "cgp", "z", "z", "ev")
    add("async_work_group_strided_copy", "IF", "ev", "gp", "clp", "z", "z", "ev")
    add("wait_group_events", "N", "v", "i", "ev*")
    # __opencl_c_kernel_clock_scope_* (cl_khr_kernel_clock).
    add(["clock_read_device", "clock_read_work_group", "clock_read_sub_group"], "N", "ulong")
    add(["clock_read_hilo_device", "clock_read_hilo_work_group", "clock_read_hilo_sub_group"], "N", "uint2")
    add("atomic_work_item_fence", "N", "v", "j", "mo", "ms")
    # Math (6.15.2).
    add(_MATH_UNARY, "F", "g", "g")
    add(_MATH_BINARY, "F", "g", "g", "g")
    add(["fmax", "fmin"], "F", "g", "g", "g")
    add(["fmax", "fmin"], "Fv", "g", "g", "s")
    add(["fma", "mad"], "F", "g", "g", "g", "g")
    add(["fract", "modf", "sincos"], "F", "g", "g", "g*")
    add(["frexp", "lgamma_r"], "F", "g", "g", "n*")
    add("remquo", "F", "g", "g", "g", "n*")
    add(["ldexp", "pown", "rootn"], "F", "g", "g", "n")
    add("ldexp", "Fv", "g", "g", "i")
    add("ilogb", "F", "n", "g")
    add("nan", "F", "g", "nanarg")
    for prefix in ("native_", "half_"):
        add([prefix + n for n in _NATIVE_UNARY], "f", "g", "g")
        add([prefix + n for n in _NATIVE_BINARY], "f", "g", "g", "g")
    # Common functions (6.15.4).
    add("clamp", "F", "g", "g", "g", "g")
    add("clamp", "Fv", "g", "g", "s", "s")
    add(["max", "min"], "F", "g", "g", "g")
    add(["max", "min"], "Fv", "g", "g", "s")
    add("mix", "F", "g", "g", "g", "g")
    add("mix", "Fv", "g", "g", "g", "s")
    add("step", "F", "g", "g", "g")
    add("step", "Fv", "g", "s", "g")
    add("smoothstep", "F", "g", "g", "g", "g")
    add("smoothstep", "Fv", "g", "s", "s", "g")
    # Integer functions (6.15.3).
    add("abs", "I", "u", "g")
    add("abs_diff", "I", "u", "g", "g")
    add(_INT_UNARY, "I", "g", "g")
    add(_INT_BINARY, "I", "g", "g", "g")
    add(["mad_hi", "mad_sat"], "I", "g", "g", "g", "g")
    add("clamp", "I", "g", "g", "g", "g")
    add("clamp", "Iv", "g", "g", "s", "s")
    add(["max", "min"], "I", "g", "g", "g")
    add(["max", "min"], "Iv", "g", "g", "s")
    add("upsample", "UP", "w", "g", "u")
    add(["mul24"], "I32", "g", "g", "g")
    add(["mad24"], "I32", "g", "g", "g", "g")
    # Geometric functions (6.15.5).
    add("dot", "G", "s", "g", "g")
    add("distance", "G", "s", "g", "g")
    add("length", "G", "s", "g")
    add("normalize", "G", "g", "g")
    add("cross", "X", "g", "g", "g")
    add(["fast_distance"], "Gf", "s", "g", "g")
    add(["fast_length"], "Gf", "s", "g")
    add(["fast_normalize"], "Gf", "g", "g")
    # Relational functions (6.15.6).
    add(_REL_UNARY, "F", "k", "g")
    add(_REL_BINARY, "F", "k", "g", "g")
    add(["any", "all"], "IS", "i", "g")
    add("bitselect", "IF", "g", "g", "g", "g")
    add("select", "IF", "g", "g", "g", "ks")
    add("select", "IF", "g", "g", "g", "ku")
    # Sub-group functions (cl_khr_subgroups, cl_khr_subgroup_extended_types).
    add(["sub_group_any", "sub_group_all"], "N", "i", "i")
    add("sub_group_broadcast", "IF", "g", "g", "j")
    add(["sub_group_" + op for op in _COLLECTIVE_OPS], "SG", "g", "g")
    add(["work_group_any", "work_group_all"], "N", "i", "i")
    add(["work_group_" + op for op in _COLLECTIVE_OPS], "SGW", "g", "g")
    add("work_group_broadcast", "SGW", "g", "g", "z")
    add("work_group_broadcast", "SGW", "g", "g", "z", "z")
    add("work_group_broadcast", "SGW", "g", "g", "z", "z", "z")
    _add_khr_sub_group_extensions(add)
    # cl_intel_subgroups shuffles.
    for family in ("ISH", "ISH1"):
        add(["intel_sub_group_shuffle", "intel_sub_group_shuffle_xor"], family, "g", "g", "j")
        add(["intel_sub_group_shuffle_down", "intel_sub_group_shuffle_up"], family, "g", "g", "g", "j")
    add("intel_sub_group_broadcast", "ISB", "g", "g", "j")
    add(["intel_sub_group_" + op for op in _COLLECTIVE_OPS], "ISR", "g", "g")
    # cl_khr_extended_bit_ops.
    add("bitfield_insert", "I", "g", "g", "g", "j", "j")
    add("bitfield_extract_signed", "I", "ks", "g", "j", "j")
    add("bitfield_extract_unsigned", "I", "ku", "g", "j", "j")
    add("bit_reverse", "I", "g", "g")
    # cl_khr_integer_dot_product, packed forms (the char4/uchar4 forms are in _build_shuffle_and_dot_specs).
    for signs, ret in (("uu", "j"), ("ss", "i"), ("us", "i"), ("su", "i")):
        kind = "uint" if ret == "j" else "int"
        add(f"dot_4x8packed_{signs}_{kind}", "N", ret, "j", "j")
        add(f"dot_acc_sat_4x8packed_{signs}_{kind}", "N", ret, "j", "j", ret)
    return specs


def _add_khr_sub_group_extensions(add):
    """cl_khr_subgroup_{non_uniform_vote,ballot,non_uniform_arithmetic,clustered_reduce,shuffle,
    shuffle_relative,rotate} as opencl-c.h declares them."""
    add("sub_group_elect", "N", "i")
    add(["get_sub_group_eq_mask", "get_sub_group_ge_mask", "get_sub_group_gt_mask",
         "get_sub_group_le_mask", "get_sub_group_lt_mask"], "N", "ballot")
    add(["sub_group_non_uniform_all", "sub_group_non_uniform_any"], "N", "i", "i")
    add("sub_group_non_uniform_all_equal", "SG", "i", "g")
    add("sub_group_non_uniform_broadcast", "IF", "g", "g", "j")
    add("sub_group_broadcast_first", "SG", "g", "g")
    add("sub_group_ballot", "N", "ballot", "i")
    add("sub_group_inverse_ballot", "N", "i", "ballot")
    add("sub_group_ballot_bit_extract", "N", "i", "ballot", "j")
    add(["sub_group_ballot_bit_count", "sub_group_ballot_inclusive_scan",
         "sub_group_ballot_exclusive_scan", "sub_group_ballot_find_lsb",
         "sub_group_ballot_find_msb"], "N", "j", "ballot")
    for kind in ("reduce", "scan_inclusive", "scan_exclusive"):
        base = f"sub_group_non_uniform_{kind}_"
        add([base + op for op in ("add", "min", "max", "mul")], "SG", "g", "g")
        add([base + op for op in ("and", "or", "xor")], "SGI", "g", "g")
        add([base + "logical_" + op for op in ("and", "or", "xor")], "N", "i", "i")
    base = "sub_group_clustered_reduce_"
    add([base + op for op in ("add", "min", "max", "mul")], "SG", "g", "g", "j")
    add([base + op for op in ("and", "or", "xor")], "SGI", "g", "g", "j")
    add([base + "logical_" + op for op in ("and", "or", "xor")], "N", "i", "i", "j")
    add(["sub_group_shuffle", "sub_group_shuffle_xor", "sub_group_shuffle_up",
         "sub_group_shuffle_down"], "SG", "g", "g", "j")
    add("sub_group_rotate", "SG", "g", "g", "i")
    add("sub_group_clustered_rotate", "SG", "g", "g", "i", "j")


def _adder(specs):
    def add(name, entry):
        specs.setdefault(name, []).append(entry)
    return add


def _build_vload_specs():
    """Overloads listed type by type (ret, params; "z" = size_t): vload/vstore."""
    specs = {}
    add = _adder(specs)
    # vload/vstore (6.15.11): generic pointers, and __constant for loads.
    for n in VLOAD_COUNTS:
        for elem in INT_NAMES + FLOAT_NAMES:
            e = S[elem]
            for space in (GENERIC, CONSTANT):
                add(f"vload{n}", (VectorType(e, n), ("z", PointerType(e, space, const=True))))
            add(f"vstore{n}", (S["void"], (VectorType(e, n), "z", PointerType(e, GENERIC))))
    half = S["half"]
    for space in (GENERIC, CONSTANT):
        p = PointerType(half, space, const=True)
        add("vload_half", (S["float"], ("z", p)))
        for n in VLOAD_COUNTS:
            add(f"vload_half{n}", (VectorType(S["float"], n), ("z", p)))
            add(f"vloada_half{n}", (VectorType(S["float"], n), ("z", p)))
    for mode in ROUNDING_MODES:
        for src in ("float", "double"):
            out = PointerType(half, GENERIC)
            add(f"vstore_half{mode}", (S["void"], (S[src], "z", out)))
            for n in VLOAD_COUNTS:
                v = VectorType(S[src], n)
                add(f"vstore_half{n}{mode}", (S["void"], (v, "z", out)))
                add(f"vstorea_half{n}{mode}", (S["void"], (v, "z", out)))
    return specs


_ATOMIC_TABLE = Path(__file__).with_name("atomic_builtins.txt")
_DECLARATION = re.compile(r"(?P<ret>[\w ]+?) (?P<name>\w+)\((?P<params>[^)]*)\)$")


def _build_atomic_specs():
    specs = {}
    add = _adder(specs)
    # OpenCL C 2.0+ atomics (6.15.12.7-9), as clang-22's opencl-c.h declares them for CL3.0
    # (generated by scripts/gen_atomic_builtins.py); types stay text until a target is known.
    for line in _ATOMIC_TABLE.read_text().splitlines():
        m = _DECLARATION.match(line)
        if m:
            add(m.group("name"), (m.group("ret"), tuple(p.strip() for p in m.group("params").split(";"))))
    # 32-bit atomics (6.15.12.8 legacy) on volatile __global/__local; atom_* also 64-bit.
    for prefix, elems in (("atomic_", ("int", "uint")), ("atom_", ("int", "uint", "long", "ulong"))):
        for space in (GLOBAL, LOCAL):
            for elem in elems:
                e = S[elem]
                p = PointerType(e, space, volatile=True)
                for op in _ATOMIC_BINARY:
                    add(prefix + op, (e, (p, e)))
                add(prefix + "inc", (e, (p,)))
                add(prefix + "dec", (e, (p,)))
                add(prefix + "cmpxchg", (e, (p, e, e)))
            float_p = PointerType(S["float"], space, volatile=True)
            if prefix == "atomic_":
                add("atomic_xchg", (S["float"], (float_p, S["float"])))
    return specs


def _build_shuffle_and_dot_specs():
    specs = {}
    add = _adder(specs)
    # shuffle/shuffle2 (6.15.15): any element, 2/4/8/16 in, 2/4/8/16 out, unsigned same-width mask.
    for elem in INT_NAMES + FLOAT_NAMES:
        mask_elem = S[_UNSIGNED_OF_WIDTH[S[elem].bits]]
        for m in (2, 4, 8, 16):
            for n in (2, 4, 8, 16):
                src, out, mask = VectorType(S[elem], m), VectorType(S[elem], n), VectorType(mask_elem, n)
                add("shuffle", (out, (src, mask)))
                add("shuffle2", (out, (src, src, mask)))
    # cl_khr_integer_dot_product (4x8bit): dot and dot_acc_sat on char4/uchar4.
    c4, uc4 = VectorType(S["char"], 4), VectorType(S["uchar"], 4)
    for a, b in ((uc4, uc4), (c4, c4), (uc4, c4), (c4, uc4)):
        acc = S["uint"] if a == b == uc4 else S["int"]
        add("dot", (acc, (a, b)))
        add("dot_acc_sat", (acc, (a, b, acc)))
    return specs


_CONVERGENT_PREFIXES = ("sub_group_", "work_group_", "intel_sub_group_")
_CONVERGENT_NAMES = frozenset(("barrier", "async_work_group_copy", "async_work_group_strided_copy",
                               "wait_group_events"))    # work-group functions (6.15.11)
_SPECS = None
# Type-by-type overloads, built per group on first use (name prefixes -> builder).
_EXPLICIT_GROUPS = ((("vload", "vstore"), _build_vload_specs),
                    (("atomic_", "atom_"), _build_atomic_specs),
                    (("shuffle", "dot"), _build_shuffle_and_dot_specs))
_EXPLICIT_SPECS = {}    # group index -> {name: [(ret, params)]}
_CACHE = {}
_CONVERT_RE = re.compile(r"convert_(char|uchar|short|ushort|int|uint|long|ulong|float|double|half)"
                         r"(2|3|4|8|16)?(_sat)?(_rte|_rtz|_rtp|_rtn)?\Z")
_AS_RE = re.compile(r"as_(char|uchar|short|ushort|int|uint|long|ulong|float|double|half)"
                    r"(2|3|4|8|16)?\Z")


def _convert_match(name):
    """The convert_ name's parts; `_sat` exists only for integer destinations (OpenCL 3.0 6.4.3.3)."""
    m = _CONVERT_RE.match(name)
    if m and m.group(3) and m.group(1) in FLOAT_NAMES:
        return None
    return m


def _family_specs():
    global _SPECS
    if _SPECS is None:
        _SPECS = _build_specs()
    return _SPECS


def _explicit_specs(name):
    for index, (prefixes, build) in enumerate(_EXPLICIT_GROUPS):
        if name.startswith(prefixes):
            if index not in _EXPLICIT_SPECS:
                _EXPLICIT_SPECS[index] = build()
            return _EXPLICIT_SPECS[index].get(name, ())
    return ()


def is_builtin(name):
    """True when `name` is an OpenCL C built-in function this table knows (convert_* included)."""
    return bool(_convert_match(name) or name in _family_specs() or _explicit_specs(name))


_BY_VERSION_TABLE = Path(__file__).with_name("builtins_by_version.txt")


@functools.lru_cache(maxsize=None)
def hidden_at(cl_std):
    """Built-ins clang-22's opencl-c.h does not declare at `cl_std` (CL1.2: the OpenCL 2.0 and
    3.0-extension functions); from builtins_by_version.txt (scripts/gen_version_builtins.py)."""
    for line in _BY_VERSION_TABLE.read_text(encoding="utf-8").splitlines():
        words = line.split()
        if words and words[0].upper() == cl_std.upper():
            return frozenset(words[1:])
    return frozenset()


def builtin_names():
    """Every built-in name except the convert_* family (for tests and 'did you mean' hints)."""
    names = set(_family_specs())
    for _, build in _EXPLICIT_GROUPS:
        names.update(build())
    return sorted(names)


def is_as_type(name):
    """`as_<type>` is a bitcast in clang, not a call: the target type, or None (OpenCL 3.0 6.4.4.2)."""
    m = _AS_RE.match(name)
    if not m:
        return None
    return vector_of(S[m.group(1)], int(m.group(2) or 1))


def overloads(name, target):
    """Every overload of `name` for `target`, in a stable order."""
    key = (name, target.pointer_bits)
    if key not in _CACHE:
        _CACHE[key] = tuple(_expand(name, target))
    return _CACHE[key]


def _expand(name, target):
    convergent = name in _CONVERGENT_NAMES or name.startswith(_CONVERGENT_PREFIXES)
    m = _convert_match(name)
    if m:
        yield from _convert_overloads(name, m, target)
        return
    for family, ret_code, param_codes in _family_specs().get(name, ()):
        elems, counts = FAMILIES[family]
        for elem in (elems or (None,)):
            for count in counts:
                ret = _type_code(ret_code, elem, count, target)
                params = tuple(_type_code(c, elem, count, target) for c in param_codes)
                yield _make(name, ret, params, convergent)
    seen = set()
    for ret, params in _explicit_specs(name):
        ret = _target_type(ret, target)
        params = tuple(_target_type(p, target) for p in params)
        if params not in seen:      # a redeclaration (atomic_uintptr_t is atomic_ulong on spir64)
            seen.add(params)
            yield _make(name, ret, params, convergent)


_SPACE_WORDS = {"__global": GLOBAL, "__local": LOCAL, "__private": PRIVATE, "__generic": GENERIC,
                "__constant": CONSTANT}


def _target_type(spec, target):
    """A type of an explicit overload: a CType, "z" (size_t), or a type as opencl-c.h writes
    it ("volatile __global atomic_int *"; a pointer without address space is __generic)."""
    if not isinstance(spec, str):
        return spec
    if spec == "z":
        return target.size_t
    words = spec.replace("*", " * ").split()
    space = next((_SPACE_WORDS[w] for w in words if w in _SPACE_WORDS), GENERIC)
    base_name = next(w for w in words if w not in _SPACE_WORDS and w not in ("volatile", "const", "*"))
    base = {"memory_order": _MEMORY_ORDER, "memory_scope": _MEMORY_SCOPE}.get(base_name) \
        or builtin_typedefs(target)[base_name]
    if "*" not in words:
        return base
    return PointerType(base, space, const="const" in words, volatile="volatile" in words)


def _convert_overloads(name, m, target):
    """convert_<dst><n>[_sat][_rnd] from every scalar/vector type with the same count (6.4.3)."""
    count = int(m.group(2) or 1)
    dst = vector_of(S[m.group(1)], count)
    for src in INT_NAMES + FLOAT_NAMES:
        yield _make(name, dst, (vector_of(S[src], count),), False)


def _make(name, ret, params, convergent):
    return BuiltinOverload(name, ret, params, mangle(name, params), convergent)


# ---------------------------------------------------------------------------
# Itanium mangling with substitutions, as clang mangles overloadable C functions.
# ---------------------------------------------------------------------------
def mangle(name, params):
    """`_Z<len><name><params>`; `v` for no parameters; repeated non-builtin types become S_, S0_..."""
    subs = []
    body = "".join(_mangle_type(p, subs) for p in params) or "v"
    return f"_Z{len(name)}{name}{body}"


def _substitution(index):
    if index == 0:
        return "S_"
    digits, n = "", index - 1
    while True:
        digits = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ"[n % 36] + digits
        n //= 36
        if n == 0:
            break
    return f"S{digits}_"


def _mangle_type(t, subs):
    """Builtin scalars are not substitution candidates; vectors, enums, qualified types and pointers are."""
    if isinstance(t, ScalarType):
        return t.itanium()
    key = ("type", t)
    if key in subs:
        return _substitution(subs.index(key))
    if isinstance(t, VectorType):
        text = t.itanium()
    elif isinstance(t, EnumType):
        text = f"{len(t.tag)}{t.tag}"
    elif isinstance(t, AtomicType):
        text = t.itanium()            # the vendor qualifier U7_Atomic: a candidate, like K/V
    elif isinstance(t, EventType):
        text = t.itanium()            # a named (class-like) type: a candidate
    elif isinstance(t, PointerType):
        text = "P" + _mangle_pointee(t, subs)
    else:
        raise ValueError(f"cannot mangle built-in parameter type {t.spelling()}")
    subs.append(key)
    return text


def _mangle_pointee(ptr, subs):
    """The pointee with its qualifiers: address space (U3AS<n>, not for private), then K, V."""
    quals = ("U3AS%d" % ptr.addrspace if ptr.addrspace != PRIVATE else "") + \
        ("K" if ptr.const else "") + ("V" if ptr.volatile else "")
    if not quals and ptr.addrspace != PRIVATE:
        return _mangle_type(ptr.pointee, subs)
    # A private pointee is written `__private T` in opencl-c.h (unqualified means __generic in
    # CL3.0): a qualified type whose qualifier mangles to nothing, still a substitution candidate.
    key = ("qual", ptr.pointee, ptr.addrspace, ptr.const, ptr.volatile)
    if key in subs:
        return _substitution(subs.index(key))
    text = quals + _mangle_type(ptr.pointee, subs)
    subs.append(key)
    return text


# ---------------------------------------------------------------------------
# Overload resolution.
# ---------------------------------------------------------------------------
# clang's ImplicitConversionRank order: ..., ICR_OCL_Scalar_Widening, ..., ICR_C_Conversion
# (void * to T *), ICR_C_Conversion_Extension (incompatible pointers: ill-formed).
EXACT, PROMOTION, CONVERSION, WIDENING, VOID_POINTER, INCOMPATIBLE = 0, 1, 2, 3, 4, 5
_PROMOTES_TO_INT = ("bool", "char", "uchar", "short", "ushort")


def conversion_rank(arg, param):
    """Rank of the implicit conversion arg -> param for a built-in call, or None if impossible.

    C++ [over.ics.scalar] as clang applies it to overloadable C functions: integral
    promotion to int and float->double are promotions (half->float is not: OpenCL has
    native half); other arithmetic conversions are conversions; a scalar converts to a
    vector by widening, ranked below every conversion (clang's ICR_OCL_Scalar_Widening);
    vectors convert only to themselves (OpenCL has no lax vector conversions).
    """
    if isinstance(arg, EnumType):
        if arg == param:
            return EXACT
        if isinstance(param, EnumType):
            return CONVERSION        # C99 6.3.1.3: an enum converts to any other enum through int
        # clang gives a C enum without negative enumerators the type unsigned int, which is
        # then its promoted type (EnumType does not keep values: all enums are taken so).
        return _scalar_rank(S["uint"], param, from_enum=True)
    if isinstance(arg, ScalarType):
        if arg.is_void:
            return None
        if isinstance(param, EnumType):
            return CONVERSION        # C99 6.3.1.4/6.3.1.3: any arithmetic value converts to an enum
        if isinstance(param, ScalarType):
            return _scalar_rank(arg, param)
        if isinstance(param, VectorType):
            return WIDENING
        if isinstance(param, EventType) and arg.is_integer:
            return CONVERSION        # only a constant 0 (clang's zero-to-event); check verifies it
        return None
    if isinstance(arg, VectorType):
        return EXACT if arg == param else None
    if isinstance(arg, PointerType):
        return _pointer_rank(arg, param)
    if isinstance(arg, EventType):
        return EXACT if arg == param else None
    return None


def _scalar_rank(arg, param, from_enum=False):
    if not isinstance(param, ScalarType) or param.is_void:
        return WIDENING if isinstance(param, VectorType) else None
    if arg == param:
        return PROMOTION if from_enum else EXACT
    if param.name == "int" and arg.name in _PROMOTES_TO_INT:
        return PROMOTION
    if arg.name == "float" and param.name == "double":
        return PROMOTION
    return CONVERSION


def _pointer_rank(arg, param):
    """Address space equal or convertible to generic; then exact, or INCOMPATIBLE when the pointee
    differs or a qualifier would be dropped (viable for ranking in C, as clang does, but an error)."""
    if not isinstance(param, PointerType):
        return None
    if arg.addrspace == param.addrspace:
        rank = EXACT
    # OpenCL 3.0 6.7.9: private, global and local pointers convert to generic ones.
    elif param.addrspace == GENERIC and arg.addrspace in (PRIVATE, GLOBAL, LOCAL):
        rank = CONVERSION
    else:
        return None
    if arg.pointee != param.pointee or _drops_qualifiers(arg, param):
        if arg.pointee == VOID and not _drops_qualifiers(arg, param):
            return max(rank, VOID_POINTER)      # C99 6.3.2.3p1: void * converts to any object pointer
        return INCOMPATIBLE
    return rank


def _drops_qualifiers(arg, param):
    return (arg.const and not param.const) or (arg.volatile and not param.volatile)


def _ranks(overload, arg_types):
    if len(overload.params) != len(arg_types):
        return None
    ranks = []
    for arg, param in zip(arg_types, overload.params):
        rank = conversion_rank(arg, param)
        if rank is None:
            return None
        ranks.append(rank)
    return ranks


def _better(ranks_a, ranks_b):
    """C++ [over.match.best]: not worse for any argument, better for at least one.

    First, as clang does for C: a candidate needing an ill-formed (incompatible pointer)
    conversion where the other does not is worse, whatever the other arguments.
    """
    if INCOMPATIBLE not in ranks_a and INCOMPATIBLE not in ranks_b:   # the usual case, quickly
        return ranks_a != ranks_b and all(a <= b for a, b in zip(ranks_a, ranks_b))
    bad_a = [r == INCOMPATIBLE for r in ranks_a]
    bad_b = [r == INCOMPATIBLE for r in ranks_b]
    if any(a and not b for a, b in zip(bad_a, bad_b)):
        return False
    if any(b and not a for a, b in zip(bad_a, bad_b)):
        return True
    return all(a <= b for a, b in zip(ranks_a, ranks_b)) and ranks_a != ranks_b


_EXACT = {}     # (name, pointer bits) -> exact_overloads of the built-in's overloads


def resolve(name, arg_types, target):
    """The overload of built-in `name` a call with `arg_types` selects; raises BuiltinMismatch."""
    candidates = overloads(name, target)
    if not candidates:
        raise BuiltinMismatch(f"use of undeclared identifier '{name}'")
    key = (name, target.pointer_bits)
    exact = _EXACT.get(key)
    if exact is None:
        exact = _EXACT[key] = exact_overloads(candidates)
    return select_overload(name, candidates, arg_types, exact)


def exact_overloads(candidates):
    """{parameter types: the candidates with exactly those}, select_overload's `exact` index
    ({} when a parameter type cannot be a key)."""
    index = {}
    try:
        for o in candidates:
            index.setdefault(tuple(o.params), []).append(o)
    except TypeError:
        return {}
    return index


# Argument types whose conversion is EXACT only to the same type (conversion_rank). A
# candidate whose parameters are exactly such arguments is then better than every other
# viable one (C++ [over.match.best]: not worse for any argument, better for one), unless
# another has the same parameters. A pointer ranks EXACT against a more qualified pointee
# too, so it is not among them.
_EXACT_ONLY_WHEN_EQUAL = (ScalarType, VectorType, EnumType, EventType)


def _exact_match(exact, arg_types):
    """The one candidate of the `exact` index whose parameters are `arg_types`, when that makes
    it the best (see _EXACT_ONLY_WHEN_EQUAL), else None. pocl's tests call one family of 48
    overloads with its own types hundreds of times: ranking every candidate for each
    distinct argument list was ~10% of checking them (throughput, issue 26)."""
    for t in arg_types:
        if not isinstance(t, _EXACT_ONLY_WHEN_EQUAL):
            return None
    same = exact.get(tuple(arg_types))
    if same is None or len(same) != 1:
        return None
    ranks = _ranks(same[0], arg_types)
    if ranks is None or any(ranks):
        return None
    return same[0]


def select_overload(name, candidates, arg_types, exact=None):
    """clang's overload resolution among `candidates` (BuiltinOverload objects: the built-ins,
    or a user's __attribute__((overloadable)) functions); raises BuiltinMismatch. `exact`,
    the candidates' exact_overloads, finds an exact match without ranking the others."""
    if exact:
        chosen = _exact_match(exact, arg_types)
        if chosen is not None:
            return chosen
    viable = [(o, r) for o in candidates if (r := _ranks(o, arg_types)) is not None]
    if not viable:
        if len(candidates) == 1:
            raise BuiltinMismatch(_single_candidate_error(candidates[0], arg_types))
        raise BuiltinMismatch(f"no matching function for call to '{name}'",
                              _not_viable_notes(candidates, arg_types))
    best = _best_viable(viable)
    if best is not None:
        overload, ranks = best
        _check_pointer_arguments(overload, arg_types, ranks)
        return overload
    # Ambiguous: list the candidates no other candidate beats, as clang does.
    undominated = [o for o, r in viable if not any(_better(r2, r) for _, r2 in viable)]
    raise BuiltinMismatch(f"call to '{name}' is ambiguous",
                          [f"candidate function: {o.signature()}" for o in undominated[:8]])


def _best_viable(viable):
    """The (overload, ranks) better than every other viable one, or None (ambiguous).

    At most one can be: _better is asymmetric. So one pass keeps a champion, replaced by
    any candidate better than it (the best one, if there is one, replaces whatever precedes
    it and nothing replaces it), and a second pass checks that it beats all the others:
    2n comparisons where testing each candidate against all was n^2 (a user's overloadable
    function of 48 vector types, called thousands of times in pocl's tests; issue 26)."""
    champion, champion_ranks = viable[0]
    for overload, ranks in viable[1:]:
        if _better(ranks, champion_ranks):
            champion, champion_ranks = overload, ranks
    copies = 0
    for overload, ranks in viable:
        if overload is champion:
            copies += 1       # listed twice, it is best twice over: ambiguous, as by definition
        elif not _better(champion_ranks, ranks):
            return None
    return (champion, champion_ranks) if copies == 1 else None


def _single_candidate_error(overload, arg_types):
    """A built-in with one declaration is diagnosed like a plain C call (clang does the same)."""
    want, have = len(overload.params), len(arg_types)
    if have < want:
        return f"too few arguments to function call, expected {want}, have {have}"
    if have > want:
        return f"too many arguments to function call, expected {want}, have {have}"
    for arg, param in zip(arg_types, overload.params):
        if conversion_rank(arg, param) is None:
            return f"passing '{arg.spelling()}' to parameter of incompatible type '{param.spelling()}'"
    return f"no matching function for call to '{overload.name}'"


def _check_pointer_arguments(overload, arg_types, ranks):
    """The chosen overload may still need an invalid pointer conversion (C99 6.5.16.1).

    Pointees differing only in signedness, or lost qualifiers, are accepted as clang does
    (it warns: see conversion_warnings); other pointee mismatches are errors.
    """
    for arg, param, rank in zip(arg_types, overload.params, ranks):
        if rank == INCOMPATIBLE and not _same_but_sign(arg.pointee, param.pointee):
            raise BuiltinMismatch(f"incompatible pointer types passing '{arg.spelling()}' to "
                                  f"parameter of type '{param.spelling()}'")


def _same_but_sign(a, b):
    """Pointees clang converts between with at most a warning: equal, void, or integers of one width."""
    return a == b or a == VOID or _differ_in_sign(a, b)


def _differ_in_sign(a, b):
    return (isinstance(a, ScalarType) and isinstance(b, ScalarType) and a != b
            and a.kind == b.kind == "int" and a.bits == b.bits)


def conversion_warnings(overload, arg_types):
    """clang's warnings for a resolved call: pointer sign changes, dropped qualifiers (enum
    mixes: the argument's conversion, conversions.warn_enum_conversion)."""
    warnings = []
    for arg, param in zip(arg_types, overload.params):
        if not (isinstance(arg, PointerType) and isinstance(param, PointerType)):
            continue
        if _differ_in_sign(arg.pointee, param.pointee):
            warnings.append(f"passing '{arg.spelling()}' to parameter of type '{param.spelling()}' "
                            f"converts between pointers to integer types with different sign")
        elif _drops_qualifiers(arg, param):
            warnings.append(f"passing '{arg.spelling()}' to parameter of type '{param.spelling()}' "
                            f"discards qualifiers")
    return warnings


_ORDINALS = {1: "1st", 2: "2nd", 3: "3rd"}


def _not_viable_notes(candidates, arg_types, limit=8):
    notes = []
    for o in candidates[:limit]:
        if len(o.params) != len(arg_types):
            word = "argument" if len(o.params) == 1 else "arguments"
            notes.append(f"candidate function not viable: requires {len(o.params)} {word}, "
                         f"but {len(arg_types)} were provided: {o.signature()}")
            continue
        for i, (arg, param) in enumerate(zip(arg_types, o.params), 1):
            if conversion_rank(arg, param) is None:
                nth = _ORDINALS.get(i, f"{i}th")
                notes.append(f"candidate function not viable: no known conversion from "
                             f"'{arg.spelling()}' to '{param.spelling()}' for {nth} argument: "
                             f"{o.signature()}")
                break
    if len(candidates) > limit:
        notes.append(f"{len(candidates) - limit} more candidates not shown")
    return notes
