"""Tests of clcoop.frontend.builtins: overload resolution, mangling, and agreement with clang-22.

The clang tests batch many calls into one OpenCL C file: one `-fsyntax-only` run tells
which calls clang accepts (errors carry line numbers), one `-emit-llvm` run gives the
callee of each accepted call (each call sits in its own function `t<i>`), and a
`__builtin_types_compatible_p` static assertion checks the exact OpenCL return type.
"""
import random
import re
import shutil
import subprocess
import sys

import pytest

from clcoop.frontend import builtins as B
from clcoop.frontend.types import (
    EventType,
    BOOL, CHAR, CONSTANT, DOUBLE, FLOAT, GENERIC, GLOBAL, HALF, INT, LOCAL, LONG, PRIVATE,
    SCALARS, SHORT, SPIR32, SPIR64, UCHAR, UINT, ULONG, USHORT, VOID, EnumType, PointerType,
    VectorType,
)

CLANG = shutil.which("clang-22")
needs_clang = pytest.mark.skipif(CLANG is None, reason="clang-22 is not installed")

F4, F3, D2, H4 = VectorType(FLOAT, 4), VectorType(FLOAT, 3), VectorType(DOUBLE, 2), VectorType(HALF, 4)
I4, U4, C4, L2 = VectorType(INT, 4), VectorType(UINT, 4), VectorType(CHAR, 4), VectorType(LONG, 2)
SCOPE, ORDER = EnumType("memory_scope"), EnumType("memory_order")


class Lit:
    """A literal argument: its source text and its type (`2` is int, `1.0` double, `1.0f` float)."""

    def __init__(self, text, type_):
        self.text, self.type = text, type_


def arg_type(a):
    return a.type if isinstance(a, Lit) else a


def resolve64(name, *args):
    return B.resolve(name, [arg_type(a) for a in args], SPIR64)


# ---------------------------------------------------------------------------
# Pure unit tests (no clang).
# ---------------------------------------------------------------------------
def test_exact_scalar_and_vector_overloads():
    assert resolve64("sqrt", FLOAT).mangled == "_Z4sqrtf"
    assert resolve64("sqrt", F4).ret == F4
    assert resolve64("sqrt", HALF).mangled == "_Z4sqrtDh"
    assert resolve64("fmax", F4, F4).mangled == "_Z4fmaxDv4_fS_"


def test_scalar_argument_prefers_the_vector_scalar_overload():
    # fmax(float4, float) exists; a float or int second argument picks it over widening.
    assert resolve64("fmax", F4, FLOAT).mangled == "_Z4fmaxDv4_ff"
    assert resolve64("fmax", F4, INT).mangled == "_Z4fmaxDv4_ff"
    assert resolve64("min", I4, INT).mangled == "_Z3minDv4_ii"
    assert resolve64("clamp", F4, FLOAT, FLOAT).mangled == "_Z5clampDv4_fff"


def test_scalar_widens_to_vector_when_no_scalar_overload():
    o = resolve64("dot", F4, FLOAT)
    assert o.mangled == "_Z3dotDv4_fS_" and o.params == (F4, F4) and o.ret == FLOAT
    assert resolve64("fmax", FLOAT, F4).mangled == "_Z4fmaxDv4_fS_"


def test_int_literal_to_float_math_is_ambiguous():
    with pytest.raises(B.BuiltinMismatch) as e:
        resolve64("sqrt", INT)
    assert e.value.message == "call to 'sqrt' is ambiguous"
    assert any("float sqrt(float)" in n for n in e.value.notes)
    assert any("double sqrt(double)" in n for n in e.value.notes)


def test_promotions_decide():
    assert resolve64("min", INT, INT).mangled == "_Z3minii"
    assert resolve64("abs", BOOL).mangled == "_Z3absi"          # bool -> int is a promotion
    assert resolve64("abs", INT).ret == UINT                    # abs returns ugentype
    assert resolve64("mix", F4, F4, DOUBLE).mangled == "_Z3mixDv4_fS_f"
    for args in ((UINT, INT), (INT, CHAR), (FLOAT, DOUBLE)):
        with pytest.raises(B.BuiltinMismatch, match="is ambiguous"):
            resolve64("max" if args[0] != FLOAT else "fmax", *args)


def test_no_match_errors():
    with pytest.raises(B.BuiltinMismatch) as e:
        resolve64("sqrt", I4)
    assert e.value.message == "no matching function for call to 'sqrt'"
    assert "no known conversion from 'int4' to 'float' for 1st argument" in e.value.notes[0]
    with pytest.raises(B.BuiltinMismatch) as e:
        resolve64("sqrt", FLOAT, FLOAT)
    assert "requires 1 argument, but 2 were provided" in e.value.notes[0]
    with pytest.raises(B.BuiltinMismatch, match="no matching function"):
        resolve64("fmax", F4, D2)          # no lax vector conversions in OpenCL
    with pytest.raises(B.BuiltinMismatch, match="no matching function"):
        resolve64("atomic_add", PointerType(INT, GENERIC), INT)   # 1.x atomics: global/local only
    with pytest.raises(B.BuiltinMismatch, match="no matching function"):
        resolve64("vstore4", F4, INT, PointerType(FLOAT, CONSTANT))


def test_pointers_convert_to_generic():
    for space in (PRIVATE, GLOBAL, LOCAL):
        o = resolve64("vload4", INT, PointerType(FLOAT, space))
        assert o.mangled == "_Z6vload4mPU3AS4Kf"
        assert o.params == (ULONG, PointerType(FLOAT, GENERIC, const=True))
    assert resolve64("vload4", INT, PointerType(FLOAT, CONSTANT)).mangled == "_Z6vload4mPU3AS2Kf"
    assert resolve64("fract", F4, PointerType(F4, PRIVATE)).mangled == "_Z5fractDv4_fPU3AS4S_"
    assert resolve64("frexp", F4, PointerType(I4, GLOBAL)).mangled == "_Z5frexpDv4_fPU3AS4Dv4_i"


def test_atomics_per_address_space():
    assert resolve64("atomic_add", PointerType(INT, GLOBAL), INT).mangled == "_Z10atomic_addPU3AS1Vii"
    assert resolve64("atomic_add", PointerType(UINT, LOCAL), INT).mangled == "_Z10atomic_addPU3AS3Vjj"
    assert resolve64("atomic_cmpxchg", PointerType(INT, GLOBAL), INT, INT).mangled == \
        "_Z14atomic_cmpxchgPU3AS1Viii"
    assert resolve64("atom_add", PointerType(LONG, LOCAL), LONG).mangled == "_Z8atom_addPU3AS3Vll"


def test_size_t_depends_on_target():
    assert B.resolve("get_global_id", [INT], SPIR64).ret == ULONG
    assert B.resolve("get_global_id", [INT], SPIR32).ret == UINT
    assert B.resolve("get_global_id", [INT], SPIR32).mangled == "_Z13get_global_idj"
    assert B.resolve("vload4", [INT, PointerType(FLOAT, GLOBAL)], SPIR32).mangled == "_Z6vload4jPU3AS4Kf"


def test_pointer_conversions_like_c():
    gi, gu = PointerType(INT, GLOBAL), PointerType(UINT, GLOBAL)
    # Sign-only pointee changes are accepted (clang warns); the exact pointer wins over them.
    o = resolve64("atomic_add", PointerType(UINT, GLOBAL, const=True), INT)
    assert o.mangled == "_Z10atomic_addPU3AS1Vii"
    assert "different sign" in B.conversion_warnings(o, [PointerType(UINT, GLOBAL, const=True), INT])[0]
    assert resolve64("atomic_add", gu, INT).mangled == "_Z10atomic_addPU3AS1Vjj"
    o = resolve64("fract", FLOAT, PointerType(FLOAT, PRIVATE, const=True))
    assert B.conversion_warnings(o, [FLOAT, PointerType(FLOAT, PRIVATE, const=True)])[0].endswith(
        "discards qualifiers")
    assert B.conversion_warnings(resolve64("atomic_add", gi, INT), [gi, INT]) == []
    with pytest.raises(B.BuiltinMismatch, match="incompatible pointer types passing"):
        resolve64("vstore4", F4, INT, PointerType(INT, GLOBAL))
    with pytest.raises(B.BuiltinMismatch, match="is ambiguous"):
        resolve64("atom_inc", PointerType(HALF, GLOBAL))
    # void * converts to any object pointer (C99 6.3.2.3): other arguments decide.
    assert resolve64("fract", F4, PointerType(VOID, GENERIC)).mangled == "_Z5fractDv4_fPU3AS4S_"
    assert resolve64("atomic_add", PointerType(VOID, GLOBAL), INT).mangled == "_Z10atomic_addPU3AS1Vii"
    with pytest.raises(B.BuiltinMismatch, match="is ambiguous"):
        resolve64("vload4", INT, PointerType(VOID, GLOBAL))


def test_enum_arguments():
    o = resolve64("atomic_work_item_fence", UINT, SCOPE, ORDER)     # both enums swapped: clang warns
    assert o.mangled == "_Z22atomic_work_item_fencej12memory_order12memory_scope"
    # The warnings come from each argument's conversion, with clang's flag (an enumerator
    # too, not only an enum variable): test/lit/diagnostics/enum-conversion.cl.
    assert B.conversion_warnings(o, [UINT, SCOPE, ORDER]) == []
    # clang types these enums as unsigned int: an enum variable promotes to uint, not int.
    assert resolve64("abs", SCOPE).mangled == "_Z3absj"
    with pytest.raises(B.BuiltinMismatch, match="ambiguous"):
        resolve64("min", SCOPE, INT)


def test_single_declaration_errors_read_like_c_calls():
    with pytest.raises(B.BuiltinMismatch, match="too few arguments to function call, expected 1, have 0"):
        resolve64("get_global_id")
    with pytest.raises(B.BuiltinMismatch, match="too many arguments to function call, expected 1, have 2"):
        resolve64("barrier", INT, INT)
    with pytest.raises(B.BuiltinMismatch, match="passing 'uint4' to parameter of incompatible type 'uint'"):
        resolve64("get_local_id", U4)


def test_convergence_and_barriers():
    assert resolve64("barrier", INT).convergent
    assert resolve64("work_group_barrier", UINT, INT).mangled == "_Z18work_group_barrierj12memory_scope"
    assert resolve64("work_group_barrier", UINT, SCOPE).convergent
    assert resolve64("sub_group_reduce_add", FLOAT).convergent
    assert not resolve64("get_sub_group_local_id").convergent
    assert not resolve64("sqrt", FLOAT).convergent


def test_relational_result_types():
    assert resolve64("signbit", FLOAT).ret == INT
    assert resolve64("signbit", F4).ret == I4
    assert resolve64("isnan", DOUBLE).ret == INT
    assert resolve64("isnan", D2).ret == L2
    assert resolve64("isnan", H4).ret == VectorType(SHORT, 4)


def test_convert_and_as_type():
    assert resolve64("convert_float", INT).mangled == "_Z13convert_floati"
    assert resolve64("convert_uchar4_sat", F4).mangled == "_Z18convert_uchar4_satDv4_f"
    assert resolve64("convert_uchar4_sat", F4).ret == VectorType(UCHAR, 4)
    assert B.is_builtin("convert_int16_sat_rtz")
    assert not B.is_builtin("convert_int5") and not B.is_builtin("convert_bool")
    assert B.is_as_type("as_float4") == F4
    assert B.is_as_type("as_uint") == UINT
    assert B.is_as_type("as_float5") is None and B.is_as_type("sqrt") is None
    assert not B.is_builtin("as_float")


def test_extension_builtins():
    UC4 = VectorType(UCHAR, 4)
    assert resolve64("dot", UC4, UC4).ret == UINT                 # cl_khr_integer_dot_product
    assert resolve64("dot", C4, UC4).mangled == "_Z3dotDv4_cDv4_h"
    o = resolve64("shuffle", F4, VectorType(UINT, 2))
    assert o.ret == VectorType(FLOAT, 2) and o.mangled == "_Z7shuffleDv4_fDv2_j"
    assert resolve64("intel_sub_group_shuffle", FLOAT, INT).mangled == "_Z23intel_sub_group_shufflefj"
    assert resolve64("intel_sub_group_shuffle", FLOAT, INT).convergent
    assert resolve64("sub_group_ballot", INT).ret == U4


def test_is_builtin():
    for name in ("get_global_id", "sqrt", "native_exp", "half_divide", "vload16", "vstore_half4_rtn",
                 "atomic_xchg", "atom_cmpxchg", "sub_group_scan_exclusive_max", "mem_fence"):
        assert B.is_builtin(name), name
    for name in ("coop_mat_load", "foo", "vload5", "native_fma"):
        assert not B.is_builtin(name), name
    with pytest.raises(B.BuiltinMismatch):
        B.resolve("foo", [], SPIR64)


def test_substitution_numbering():
    assert B._substitution(0) == "S_" and B._substitution(1) == "S0_" and B._substitution(11) == "SA_"
    assert B.mangle("f", (F4, I4, F4, I4, PointerType(F4, GENERIC))) == "_Z1fDv4_fDv4_iS_S0_PU3AS4S_"


def test_import_is_fast(tmp_path):
    """Importing builtins must not build the tables (the compiler starts on every call)."""
    code = ("import time, clcoop.frontend.types, re, dataclasses\n"
            "t = time.perf_counter()\nimport clcoop.frontend.builtins as b\n"
            "print((time.perf_counter() - t) * 1000, b._SPECS is None)")
    env = {"PYTHONPYCACHEPREFIX": str(tmp_path), "PATH": "/usr/bin:/bin"}
    subprocess.run([sys.executable, "-c", code], env=env, check=True, capture_output=True)  # fills the cache
    out = subprocess.run([sys.executable, "-c", code], env=env, check=True, capture_output=True, text=True)
    ms, lazy = out.stdout.split()
    assert lazy == "True"
    assert float(ms) < 25, f"import took {ms} ms"


# ---------------------------------------------------------------------------
# Comparison with clang-22.
# ---------------------------------------------------------------------------
def decl_spelling(t, name):
    """A parameter declaration; pointers spell their address space (unqualified means generic in CL3.0)."""
    if isinstance(t, PointerType):
        quals = " ".join(q for q, on in (("const", t.const), ("volatile", t.volatile)) if on)
        space = {PRIVATE: "__private", GLOBAL: "__global", LOCAL: "__local",
                 CONSTANT: "__constant", GENERIC: "__generic"}[t.addrspace]
        return f"{space} {quals} {t.pointee.spelling()} *{name}"
    return f"{t.spelling()} {name}"


def type_spelling(t):
    if isinstance(t, PointerType):
        return decl_spelling(t, "").strip()
    return t.spelling()


def llvm_type(t):
    if isinstance(t, VectorType):
        return f"<{t.count} x {t.elem.llvm_name}>"
    if isinstance(t, EnumType):
        return "i32"
    if isinstance(t, EventType):
        return 'target("spirv.Event")'
    return t.llvm_name


def kernel_source(samples):
    """One function per call, `void t<i>(params) { name(args); }`, each on its own line."""
    lines = ["#pragma OPENCL EXTENSION cl_khr_fp16 : enable",
             "#pragma OPENCL EXTENSION cl_khr_fp64 : enable"]
    line_of = {}
    for i, (name, args) in enumerate(samples):
        params, exprs = [], []
        for j, a in enumerate(args):
            if isinstance(a, Lit):
                exprs.append(a.text)
            else:
                params.append(decl_spelling(a, f"a{j}"))
                exprs.append(f"a{j}")
        call = f"{name}({', '.join(exprs)})"
        line_of[len(lines) + 1] = i
        lines.append(f"void t{i}({', '.join(params) or 'void'}) {{ {call}; }}")
    return "\n".join(lines) + "\n", line_of


def ret_assertions(samples, overloads):
    """Static assertions that clang's call has exactly our return type (signedness included)."""
    lines = []
    for i, ((name, args), o) in enumerate(zip(samples, overloads)):
        params = ", ".join(decl_spelling(arg_type(a), f"a{j}") for j, a in enumerate(args)) or "void"
        exprs = ", ".join(a.text if isinstance(a, Lit) else f"a{j}" for j, a in enumerate(args))
        lines.append(f"void r{i}({params}) {{ _Static_assert(__builtin_types_compatible_p("
                     f"__typeof__({name}({exprs})), {type_spelling(o.ret)}), \"ret {i}\"); }}")
    return "\n".join(lines) + "\n"


def run_clang(source, tmp_path, triple, emit):
    path = tmp_path / f"k_{triple.split('-')[0]}_{'ir' if emit else 'sema'}.cl"
    path.write_text(source)
    cmd = [CLANG, "-cc1", "-triple", triple, "-cl-std=CL3.0", "-finclude-default-header",
           "-ferror-limit", "0", "-w"]
    cmd += ["-emit-llvm", "-O0", "-disable-llvm-passes", "-o", "-"] if emit else ["-fsyntax-only"]
    return subprocess.run(cmd + [str(path)], capture_output=True, text=True)


def clang_errors(stderr, line_of):
    """sample index -> clang's error message for that sample's line."""
    errors = {}
    for m in re.finditer(r"^\S+\.cl:(\d+):\d+: error: (.*)$", stderr, re.M):
        i = line_of.get(int(m.group(1)))
        if i is not None:
            errors.setdefault(i, m.group(2))
    return errors


def clang_callees(ir):
    """sample index -> (llvm return type, callee name) of the first call in t<i>."""
    callees = {}
    for m in re.finditer(r"^define [^@]*@t(\d+)\(.*?^}", ir, re.M | re.S):
        call = re.search(r"call spir_func (?:(?:signext|zeroext|noundef) )*(.+?) @([\w.$]+)\(", m.group(0))
        if call:
            callees[int(m.group(1))] = (call.group(1), call.group(2))
    return callees


def error_kind(message):
    """Errors are compared by kind: the wording of the not-viable cases differs from clang's."""
    for kind in ("is ambiguous", "use of undeclared identifier", "too few arguments",
                 "too many arguments", "incompatible pointer types"):
        if kind in message:
            return kind
    return "no viable overload"


def our_outcome(name, args, target):
    try:
        return B.resolve(name, [arg_type(a) for a in args], target)
    except B.BuiltinMismatch as e:
        return e


def compare_with_clang(samples, tmp_path, target=SPIR64):
    """Assert that clang accepts exactly the calls we resolve, with the same callee and return type."""
    ours = [our_outcome(n, a, target) for n, a in samples]
    source, line_of = kernel_source(samples)
    sema = run_clang(source, tmp_path, target.triple, emit=False)
    errors = clang_errors(sema.stderr, line_of)
    problems = []
    for i, ((name, args), o) in enumerate(zip(samples, ours)):
        call = f"{name}({', '.join(type_spelling(arg_type(a)) for a in args)})"
        if isinstance(o, B.BuiltinMismatch) and i not in errors:
            problems.append(f"{call}: clang accepts, we say {o.message}")
        elif not isinstance(o, B.BuiltinMismatch) and i in errors:
            problems.append(f"{call}: we pick {o.mangled}, clang says {errors[i]}")
        elif isinstance(o, B.BuiltinMismatch) and error_kind(o.message) != error_kind(errors[i]):
            problems.append(f"{call}: we say {o.message}, clang says {errors[i]}")
    accepted = [(i, s, o) for i, (s, o) in enumerate(zip(samples, ours))
                if i not in errors and not isinstance(o, B.BuiltinMismatch)]
    if accepted:
        good_samples = [s for _, s, _ in accepted]
        good = [o for _, _, o in accepted]
        src, _ = kernel_source(good_samples)
        ir = run_clang(src + ret_assertions(good_samples, good), tmp_path, target.triple, emit=True)
        assert ir.returncode == 0, ir.stderr[:3000]
        callees = clang_callees(ir.stdout)
        for k, ((name, args), o) in enumerate(zip(good_samples, good)):
            expected = (llvm_type(o.ret), o.mangled)
            if callees.get(k) != expected:
                problems.append(f"{name}{tuple(type_spelling(arg_type(a)) for a in args)}: "
                                f"we {expected}, clang {callees.get(k)}")
    assert not problems, f"{len(problems)} disagreements:\n" + "\n".join(problems[:40])


def table_names():
    return B.builtin_names()


@pytest.mark.slow          # every overload of the table against clang-22 (differential)
@needs_clang
def test_every_overload_in_the_table_matches_clang(tmp_path):
    """Each of the ~3900 overloads, called with its own parameter types: clang must pick the same one."""
    samples = [(n, list(o.params)) for n in table_names() for o in B.overloads(n, SPIR64)]
    assert len(samples) > 3000
    compare_with_clang(samples, tmp_path)


SCALAR_ARGS = [SCALARS[n] for n in ("bool", "char", "uchar", "short", "ushort", "int", "uint",
                                     "long", "ulong", "half", "float", "double")]
SPACES = (PRIVATE, GLOBAL, LOCAL, CONSTANT, GENERIC)


def perturb(rng, params):
    """Change one or two arguments of a signature the way real calls differ from declarations."""
    k = rng.randrange(len(params))
    p, r = params[k], rng.random()
    if isinstance(p, PointerType) and r < 0.5:
        pointee = p.pointee if r < 0.25 else rng.choice(SCALAR_ARGS[1:] + [F4, I4, VOID])
        params[k] = PointerType(pointee, rng.choice(SPACES), const=rng.random() < 0.4,
                                volatile=rng.random() < 0.4)
    elif isinstance(p, VectorType) and r < 0.4:
        params[k] = p.elem if r < 0.2 else VectorType(rng.choice(SCALAR_ARGS[1:]), rng.choice((2, 3, 4, 8, 16)))
    elif r < 0.1:
        params.pop(k)
    elif r < 0.2:
        params.insert(k, rng.choice(SCALAR_ARGS))
    elif r < 0.3:
        params[k] = VectorType(rng.choice(SCALAR_ARGS[1:]), rng.choice((2, 4)))
    elif r < 0.35:
        params[k] = rng.choice((SCOPE, ORDER))
    else:
        params[k] = rng.choice(SCALAR_ARGS)
        if rng.random() < 0.3:
            params[rng.randrange(len(params))] = rng.choice(SCALAR_ARGS)
    return params


def perturbed_samples(rng, count):
    names = table_names()
    samples = []
    while len(samples) < count:
        name = rng.choice(names)
        params = list(rng.choice(B.overloads(name, SPIR64)).params)
        if params:
            samples.append((name, perturb(rng, params)))
    return samples


@needs_clang
def test_implicit_conversions_match_clang(tmp_path):
    compare_with_clang(perturbed_samples(random.Random(11), 1500), tmp_path)


@needs_clang
def test_literal_and_mixed_calls_match_clang(tmp_path):
    i2, f1, d05 = Lit("2", INT), Lit("1.0f", FLOAT), Lit("0.5", DOUBLE)
    samples = [
        ("sqrt", [i2]), ("min", [INT, Lit("1", INT)]), ("min", [UINT, Lit("1", INT)]),
        ("min", [UINT, Lit("1u", UINT)]), ("fmax", [F4, Lit("0.0f", FLOAT)]), ("fmax", [F4, i2]),
        ("fmax", [FLOAT, i2]), ("fmin", [FLOAT, d05]), ("mix", [F4, F4, d05]), ("dot", [F4, f1]),
        ("clamp", [FLOAT, Lit("0", INT), Lit("1", INT)]), ("clamp", [INT, Lit("0", INT), Lit("10", INT)]),
        ("clamp", [F4, Lit("0.0f", FLOAT), f1]), ("step", [Lit("0.5f", FLOAT), F4]),
        ("smoothstep", [Lit("0.0f", FLOAT), f1, F3]), ("pow", [FLOAT, i2]), ("pown", [FLOAT, i2]),
        ("ldexp", [F4, i2]), ("max", [I4, Lit("0", INT)]), ("max", [U4, Lit("0", INT)]),
        ("abs", [C4]), ("abs_diff", [UINT, UINT]), ("rotate", [U4, Lit("3u", UINT)]),
        ("select", [F4, F4, I4]), ("select", [F4, F4, U4]), ("select", [INT, INT, Lit("1", INT)]),
        ("barrier", [Lit("CLK_LOCAL_MEM_FENCE", UINT)]),
        ("work_group_barrier", [Lit("CLK_GLOBAL_MEM_FENCE", UINT), Lit("memory_scope_work_group", SCOPE)]),
        ("work_group_barrier", [Lit("CLK_GLOBAL_MEM_FENCE", UINT), Lit("1", INT)]),
        ("sub_group_barrier", [Lit("CLK_LOCAL_MEM_FENCE", UINT)]),
        ("get_global_id", [Lit("0", INT)]), ("get_local_size", [LONG]), ("get_work_dim", []),
        ("get_global_linear_id", []), ("get_sub_group_local_id", []), ("get_enqueued_num_sub_groups", []),
        ("sub_group_broadcast", [FLOAT, Lit("0", INT)]), ("sub_group_any", [BOOL]),
        ("sub_group_reduce_max", [INT]), ("sub_group_scan_exclusive_add", [HALF]),
        ("vload4", [Lit("0", INT), PointerType(FLOAT, GLOBAL)]),
        ("vload2", [LONG, PointerType(HALF, LOCAL, const=True)]),
        ("vstore4", [F4, Lit("0", INT), PointerType(FLOAT, PRIVATE)]),
        ("vstore_half", [FLOAT, Lit("0", INT), PointerType(HALF, GLOBAL)]),
        ("vload_half4", [INT, PointerType(HALF, CONSTANT, const=True)]),
        ("atomic_inc", [PointerType(INT, GLOBAL)]), ("atomic_max", [PointerType(UINT, LOCAL), INT]),
        ("atomic_xchg", [PointerType(FLOAT, GLOBAL), f1]), ("atom_add", [PointerType(ULONG, GLOBAL), i2]),
        ("atomic_cmpxchg", [PointerType(INT, LOCAL, volatile=True), INT, INT]),
        ("fract", [FLOAT, PointerType(FLOAT, PRIVATE)]), ("modf", [D2, PointerType(D2, LOCAL)]),
        ("remquo", [F4, F4, PointerType(I4, GLOBAL)]), ("sincos", [H4, PointerType(H4, PRIVATE)]),
        ("native_divide", [FLOAT, i2]), ("half_exp", [F4]), ("fast_normalize", [F3]),
        ("cross", [F4, F4]), ("length", [DOUBLE]), ("isless", [F4, F4]), ("any", [C4]), ("all", [INT]),
        ("upsample", [SHORT, USHORT]), ("mul24", [UINT, UINT]), ("mad_sat", [C4, C4, C4]),
        ("convert_float4", [I4]), ("convert_int", [BOOL]), ("convert_half2_rtz", [D2]),
        ("convert_ulong_sat_rtp", [FLOAT]), ("convert_float", [INT]), ("convert_char4", [FLOAT]),
        ("min", [Lit("memory_scope_device", INT), Lit("1", INT)]), ("abs", [SCOPE]), ("min", [SCOPE, INT]),
        ("signbit", [DOUBLE]), ("isfinite", [H4]), ("popcount", [CHAR]), ("clz", [ULONG]),
        ("mem_fence", [Lit("CLK_LOCAL_MEM_FENCE", UINT)]), ("bitselect", [F4, F4, F4]),
        ("dot", [VectorType(UCHAR, 4), VectorType(UCHAR, 4)]), ("dot", [C4, VectorType(UCHAR, 4)]),
        ("dot_acc_sat", [C4, C4, i2]), ("dot_4x8packed_su_int", [UINT, INT]),
        ("shuffle", [F4, VectorType(UINT, 8)]), ("shuffle2", [C4, C4, VectorType(UCHAR, 2)]),
        ("intel_sub_group_shuffle", [FLOAT, Lit("1", INT)]), ("intel_sub_group_shuffle_down", [F4, F4, UINT]),
        ("sub_group_shuffle_xor", [INT, Lit("1", INT)]), ("sub_group_ballot", [BOOL]),
        ("sub_group_non_uniform_reduce_logical_or", [INT]), ("sub_group_clustered_reduce_add", [FLOAT, i2]),
        ("work_group_broadcast", [FLOAT, Lit("0", INT)]), ("work_group_reduce_add", [INT]),
        ("bitfield_extract_signed", [UINT, UINT, UINT]), ("bit_reverse", [U4]),
    ]
    compare_with_clang(samples, tmp_path)


def convert_samples(rng, count):
    dsts = ("char", "uchar", "short", "ushort", "int", "uint", "long", "ulong", "half", "float", "double")
    samples = []
    for _ in range(count):
        n = rng.choice((1, 2, 3, 4, 8, 16))
        name = f"convert_{rng.choice(dsts)}{'' if n == 1 else n}{rng.choice(('', '_sat'))}" \
               f"{rng.choice(B.ROUNDING_MODES)}"
        src = SCALARS[rng.choice(dsts)]
        samples.append((name, [src if n == 1 else VectorType(src, n)]))
    return samples


@needs_clang
def test_conversions_match_clang(tmp_path):
    compare_with_clang(convert_samples(random.Random(3), 300), tmp_path)


@needs_clang
def test_spir32_size_t_mangling_matches_clang(tmp_path):
    samples = [("get_global_id", [UINT]), ("get_global_size", [INT]), ("get_local_linear_id", []),
               ("vload4", [INT, PointerType(FLOAT, GLOBAL)]), ("vstore2", [VectorType(INT, 2), UINT,
                                                                         PointerType(INT, LOCAL)]),
               ("vload_half", [ULONG, PointerType(HALF, CONSTANT, const=True)]),
               ("vstorea_half4_rte", [F4, INT, PointerType(HALF, GLOBAL)])]
    compare_with_clang(samples, tmp_path, target=SPIR32)
