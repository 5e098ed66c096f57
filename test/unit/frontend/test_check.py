"""Semantic analysis (clcoop.frontend.check) at the typed-AST level.

Sources go through the real preprocessor and parser (driver.front_end), then check();
the tests look at the typed AST (types, implicit casts, cooperative-matrix nodes) and at
diagnostics (wording and line:col).
"""
import pytest

from clcoop.coopmat_spec import Scope, Use
from clcoop.diagnostics import DiagnosticEngine, WarningPolicy
from clcoop.errors import CompileError
from clcoop.frontend import check as checkmod
from clcoop.frontend import constfold
from clcoop.frontend import tast
from clcoop.frontend import types as T
from clcoop.frontend.driver import CompileOptions, front_end

MATS = """\
typedef float matA __attribute__((coop_mat(CLK_COOPERATIVE_MATRIX_SCOPE_SUBGROUP, 8, 16, CLK_COOPERATIVE_MATRIX_A)));
typedef float matB __attribute__((coop_mat(CLK_COOPERATIVE_MATRIX_SCOPE_SUBGROUP, 16, 8, CLK_COOPERATIVE_MATRIX_B)));
typedef float matC __attribute__((coop_mat(CLK_COOPERATIVE_MATRIX_SCOPE_SUBGROUP, 8, 8, CLK_COOPERATIVE_MATRIX_ACCUMULATOR)));
typedef int matI __attribute__((coop_mat(CLK_COOPERATIVE_MATRIX_SCOPE_SUBGROUP, 8, 8, CLK_COOPERATIVE_MATRIX_ACCUMULATOR)));
"""
MATS_LINES = MATS.count("\n")


def run(source, target=T.SPIR64, max_errors=50, warnings_off=("coop-portability",)):
    """Check source; the -Wcoop-portability warnings (tested in test/lit/diagnostics/
    coop-portability.cl) are off unless asked for, so that each test sees its own diagnostic."""
    diag = DiagnosticEngine(warning_policy=WarningPolicy(disabled=set(warnings_off)))
    diag.max_errors = max_errors
    ast = front_end(source, CompileOptions(filename="t.cl", triple=target.triple), diag)
    unit = checkmod.check(ast, diag, target)
    return unit, diag


# Half values need the extension enabled (cl_khr_fp16), as in clang.
FP16 = "#pragma OPENCL EXTENSION cl_khr_fp16 : enable\n"


def ok(source, target=T.SPIR64):
    unit, diag = run(source, target)
    errors = [str(d) for d in diag.diagnostics if d.severity == "error"]
    assert not errors, errors
    return unit


def messages(source, severity=None, warnings_off=("coop-portability",)):
    _, diag = run(source, warnings_off=warnings_off)
    return [f"{d.location.line}:{d.location.column}: {d.severity}: {d.message}" if d.location
            else f"{d.severity}: {d.message}"
            for d in diag.diagnostics if severity is None or d.severity == severity]


def function(unit, name):
    return next(f for f in unit.functions if f.name == name)


def local(fn, name):
    """The Var declared as `name` in fn's body (searching nested statements)."""
    found = []

    def walk(node):
        if isinstance(node, tast.DeclStmt):
            found.extend(v for v in node.vars if v.name == name)
        for attr in ("items", "then", "otherwise", "body", "init"):
            child = getattr(node, attr, None)
            if isinstance(child, list):
                for c in child:
                    walk(c)
            elif isinstance(child, tast.Stmt):
                walk(child)
    walk(fn.body)
    assert found, name
    return found[0]


def init_of(source, name, fn="f"):
    return local(function(ok(source), fn), name).initializer


def strip_casts(e):
    while isinstance(e, tast.ImplicitCast):
        e = e.operand
    return e


# ------------------------------------------------------------------ C arithmetic
@pytest.mark.parametrize("decls, expr, expected", [
    ("char a; short b;", "a + b", T.INT),          # integer promotions (C99 6.3.1.1)
    ("uint a; int b;", "a + b", T.UINT),
    ("long a; uint b;", "a + b", T.LONG),          # long represents every uint
    ("ulong a; long b;", "a * b", T.ULONG),
    ("float a; int b;", "a - b", T.FLOAT),
    ("half a; float b;", "a * b", T.FLOAT),
    ("half a; half b;", "a * b", T.HALF),
    ("float a; double b;", "a / b", T.DOUBLE),
    ("uchar a; int b;", "a << b", T.INT),          # shift: type of the promoted left operand
    ("int a; ulong b;", "a >> b", T.INT),
    ("float a; float b;", "a < b", T.INT),
    ("int a; int b;", "a && b", T.INT),
])
def test_scalar_expression_types(decls, expr, expected):
    e = init_of(f"{FP16}void f(void) {{ {decls} a = 1; b = 1; {spell(expected)} r = {expr}; }}", "r")
    assert e.type == expected


def spell(t):
    return t.spelling()


def test_binary_operands_are_converted_to_the_operation_type():
    e = init_of("void f(void) { char a = 1; uint b = 2; uint r = a + b; }", "r")
    assert isinstance(e, tast.Binary) and e.type == T.UINT
    assert e.left.type == T.UINT and e.right.type == T.UINT
    assert isinstance(e.left, tast.ImplicitCast) and e.left.kind == "int-to-int"
    assert e.left.operand.type == T.CHAR


def test_int_to_float_and_float_to_int_casts():
    e = init_of("void f(void) { int i = 3; float r = i; }", "r")
    assert isinstance(e, tast.ImplicitCast) and e.kind == "int-to-float"
    e = init_of("void f(void) { float x = 3.5f; int r = x; }", "r")
    assert isinstance(e, tast.ImplicitCast) and e.kind == "float-to-int" and e.type == T.INT


def test_conditions_are_bool():
    unit = ok("void f(int n, __global int *p) { if (n) {} while (p) {} for (;n < 3;) {} }")
    body = function(unit, "f").body.items
    assert body[0].cond.type == T.BOOL and body[0].cond.kind == "int-to-bool"
    assert body[1].cond.kind == "pointer-to-bool"
    assert body[2].cond.type == T.BOOL and isinstance(body[2].cond.operand, tast.Binary)


def test_integer_literal_types():
    e = init_of("void f(void) { long r = 4294967295; }", "r")   # decimal: int, long
    assert strip_casts(e).type == T.LONG
    e = init_of("void f(void) { long r = 0xffffffff; }", "r")   # hex: int, uint, long
    assert strip_casts(e).type == T.UINT
    e = init_of("void f(void) { ulong r = 1ul; }", "r")
    assert e.type == T.ULONG
    e = init_of("void f(void) { float r = 1.5f; }", "r")
    assert isinstance(e, tast.FloatConst) and e.type == T.FLOAT
    e = init_of("void f(void) { double r = 1.5; }", "r")
    assert e.type == T.DOUBLE


def test_pointer_arithmetic_and_difference():
    unit = ok("void f(__global float *p, int i) { __global float *q = p + i; long d = q - p; float x = p[i]; }")
    fn = function(unit, "f")
    q = local(fn, "q").initializer
    assert isinstance(q, tast.PointerArith) and q.offset.type == T.LONG
    d = strip_casts(local(fn, "d").initializer)
    assert isinstance(d, tast.PointerDiff) and d.type == T.LONG
    x = local(fn, "x").initializer
    assert isinstance(x, tast.Index) and x.is_lvalue and x.type == T.FLOAT


def test_spir32_size_t_and_ptrdiff():
    unit = ok("void f(__global float *p, int i) { __global float *q = p + i; size_t s = sizeof(int); }",
              T.SPIR32)
    fn = function(unit, "f")
    assert local(fn, "q").initializer.offset.type == T.INT
    assert local(fn, "s").initializer.type == T.UINT


def test_array_decay_and_generic_conversion():
    unit = ok("void f(void) { float a[4]; float *p = a; int x; int *q = &x; }")
    fn = function(unit, "f")
    p = local(fn, "p").initializer
    # array -> __private float * -> __generic float * (OpenCL C 3.0 generic address space)
    assert p.kind == "addrspace-to-generic" and p.type == T.PointerType(T.FLOAT, T.GENERIC)
    assert p.operand.kind == "array-to-pointer" and p.operand.type.addrspace == T.PRIVATE
    q = local(fn, "q").initializer
    assert q.kind == "addrspace-to-generic" and isinstance(q.operand, tast.AddrOf)


def test_null_pointer_constant():
    e = init_of("void f(void) { __global int *p = 0; }", "p")
    assert isinstance(e, tast.ImplicitCast) and e.kind == "null-to-pointer"


def test_compound_assignment_computes_in_the_promoted_type():
    unit = ok("void f(void) { char c = 1; c += 300; c++; }")
    items = function(unit, "f").body.items
    ca = items[1].expr
    assert isinstance(ca, tast.CompoundAssign) and ca.type == T.CHAR
    assert ca.compute.type == T.CHAR and ca.compute.kind == "int-to-int"
    binary = ca.compute.operand
    assert binary.type == T.INT and isinstance(binary.left.operand, tast.OldValue)
    inc = items[2].expr
    assert isinstance(inc, tast.IncDec) and not inc.prefix and inc.compute.type == T.CHAR


def test_enum_constants_and_switch():
    unit = ok("enum E { A = 2, B }; void f(int n) { switch (n) { case B: break; case A + 5: default: n = 0; } }")
    sw = function(unit, "f").body.items[0]
    assert [c.value for c in sw.cases] == [3, 7] and sw.default is not None


# ------------------------------------------------------------------ vectors
def test_vector_literal_and_swizzles():
    unit = ok("void f(void) { float4 v = (float4)(1.0f, (float2)(2.0f, 3.0f), 4); float2 w = v.zy;"
              " float s = v.s3; v.xy = w; float4 u = (float4)(2.0f); }")
    fn = function(unit, "f")
    lit = local(fn, "v").initializer
    assert isinstance(lit, tast.VectorLiteral) and [e.type for e in lit.elements] == \
        [T.FLOAT, T.VectorType(T.FLOAT, 2), T.FLOAT]
    assert lit.elements[2].kind == "int-to-float"
    w = local(fn, "w").initializer
    assert isinstance(w, tast.Swizzle) and w.indices == (2, 1)
    assert local(fn, "s").initializer.indices == (3,)
    assign = fn.body.items[3].expr
    assert isinstance(assign.target, tast.Swizzle) and assign.target.is_lvalue
    u = local(fn, "u").initializer              # (float4)(2.0f): a splat (OpenCL C 6.1.6)
    assert isinstance(u, tast.Cast) and u.kind == "splat" and u.operand.type == T.FLOAT


def test_vector_scalar_operations_splat_and_comparisons():
    unit = ok(FP16 + "void f(void) { float4 v = 1.0f; half8 h = (half)1.0f; float4 a = v * 2; int4 m = v < a;"
              " short8 hm = h == h; long2 dm = (double2)(1.0) > 0.0; }")
    fn = function(unit, "f")
    assert local(fn, "v").initializer.kind == "splat"
    mul = local(fn, "a").initializer
    assert mul.type == T.VectorType(T.FLOAT, 4) and mul.right.kind == "splat"
    assert mul.right.operand.kind == "int-to-float"
    # OpenCL C 6.3.d: vector comparisons give signed integers of the element width
    assert local(fn, "m").initializer.type == T.VectorType(T.INT, 4)
    assert local(fn, "hm").initializer.type == T.VectorType(T.SHORT, 8)
    assert local(fn, "dm").initializer.type == T.VectorType(T.LONG, 2)


def test_swizzle_lo_hi_even_odd():
    unit = ok("void f(void) { float8 v = 0.0f; float4 lo = v.lo; float4 hi = v.hi; float4 ev = v.even;"
              " float2 o = v.odd.lo; }")
    fn = function(unit, "f")
    assert local(fn, "lo").initializer.indices == (0, 1, 2, 3)
    assert local(fn, "hi").initializer.indices == (4, 5, 6, 7)
    assert local(fn, "ev").initializer.indices == (0, 2, 4, 6)
    assert local(fn, "o").initializer.indices == (1, 3)     # folded into one swizzle


def test_convert_and_as_type():
    unit = ok("void f(void) { int4 i = 1; float4 a = convert_float4(i); uchar4 s = convert_uchar4_sat_rte(a);"
              " float4 b = as_float4(i); }")
    fn = function(unit, "f")
    a = local(fn, "a").initializer
    assert isinstance(a, tast.ConvertCall) and a.type == T.VectorType(T.FLOAT, 4) and not a.saturate
    s = local(fn, "s").initializer
    assert s.saturate and s.rounding == "rte"
    assert isinstance(local(fn, "b").initializer, tast.AsType)


def test_builtin_calls_resolve_with_converted_arguments():
    unit = ok("kernel void k(global float *p) { size_t i = get_global_id(0); p[i] = sqrt(p[i]); }")
    fn = function(unit, "k")
    gid = local(fn, "i").initializer
    assert isinstance(gid, tast.BuiltinCall) and gid.overload.mangled == "_Z13get_global_idj"
    assert gid.args[0].type == T.UINT


# ------------------------------------------------------------------ declarations and kernels
def test_kernel_attributes_locals_and_helpers():
    unit = ok("static int helper(int x) { return x * 2; }\n"
              "__constant float table[3] = {1.0f, 2.0f};\n"
              "__kernel __attribute__((reqd_work_group_size(16, 2, 1))) __attribute__((intel_reqd_sub_group_size(16)))"
              " void k(__global int *p, __local float *lp) { __local float buf[8]; p[0] = helper(3) + (int)table[1]; }")
    k = function(unit, "k")
    assert k.is_kernel and k.reqd_work_group_size == (16, 2, 1) and k.intel_reqd_sub_group_size == 16
    assert [v.name for v in k.local_vars] == ["buf"] and k.local_vars[0].storage == "kernel-local"
    assert k.local_vars[0].addrspace == T.LOCAL and k.local_vars[0].global_name == "k.buf"
    assert k.param_type_names == ["int*", "float*"]
    helper = function(unit, "helper")
    assert helper.is_static and not helper.is_kernel
    table = unit.globals[0]
    assert table.addrspace == T.CONSTANT and table.type == T.ArrayType(T.FLOAT, 3)
    assert [type(e).__name__ for e in table.initializer.elements] == ["FloatConst", "FloatConst", "NoneType"]


def test_struct_member_access_and_sizeof():
    unit = ok("struct P { char c; int a; float b[2]; };"
              " void f(__global struct P *s) { int x = s->a; float y = s->b[1]; size_t n = sizeof(struct P); }")
    fn = function(unit, "f")
    x = local(fn, "x").initializer
    assert isinstance(x, tast.Member) and x.field_index == 1 and isinstance(x.base, tast.Deref)
    assert local(fn, "n").initializer.value == 16


# ------------------------------------------------------------------ cooperative matrices
def test_coop_type_from_attribute_forms():
    unit = ok(MATS + """
typedef half h44 __attribute__((coop_mat(memory_scope_sub_group, 4, 4, CLK_COOPERATIVE_MATRIX_B)));
typedef float q48 __attribute__((coop_mat("CLK_COOPERATIVE_MATRIX_SCOPE_SUBGROUP", 4, 8, "CLK_COOPERATIVE_MATRIX_A")));
void f(void) { matC c; h44 h; q48 q; float v __attribute__((coop_mat(CLK_COOPERATIVE_MATRIX_SCOPE_SUBGROUP, 2 * 4, 8, 2))); }
""")
    fn = function(unit, "f")
    c = local(fn, "c").type
    assert c == T.CoopMatType(T.FLOAT, Scope.SUBGROUP, 8, 8, Use.ACCUMULATOR)
    assert c.typedef_name == "matC"
    # memory_scope_sub_group is 4 in OpenCL C and SPIR-V's Subgroup (3) in the type
    assert local(fn, "h").type == T.CoopMatType(T.HALF, 3, 4, 4, Use.B)
    assert local(fn, "q").type == T.CoopMatType(T.FLOAT, 3, 4, 8, Use.A)
    assert local(fn, "v").type == T.CoopMatType(T.FLOAT, 3, 8, 8, Use.ACCUMULATOR)


def test_coop_load_store_muladd_nodes():
    unit = ok(MATS + """
kernel void k(global float *p, int n) {
  matA a = coop_mat_load(p, CLK_COOPERATIVE_MATRIX_LAYOUT_ROW_MAJOR, 16);
  matB b;
  b = coop_mat_load(p, CLK_COOPERATIVE_MATRIX_LAYOUT_COLUMN_MAJOR, n);
  matC c = coop_mat_init(0);
  c = coop_mat_mulAdd(a, b, c);
  c = coop_matmul_add(a, b, c, CLK_COOPERATIVE_MATRIX_OPERAND_NONE);
  coop_mat_store(p, c, CLK_COOPERATIVE_MATRIX_LAYOUT_ROW_MAJOR, 8);
  uint len = coop_mat_length(c);
}""")
    fn = function(unit, "k")
    load = local(fn, "a").initializer
    assert isinstance(load, tast.CoopLoad) and load.layout == 0 and load.type.use == Use.A
    assert load.stride.type == T.ULONG
    assign_b = fn.body.items[2].expr
    assert isinstance(assign_b.value, tast.CoopLoad) and assign_b.value.layout == 1
    assert assign_b.value.type.use == Use.B
    init = local(fn, "c").initializer
    assert isinstance(init, tast.CoopInit) and init.scalar.type == T.FLOAT
    muladd = fn.body.items[4].expr.value
    assert isinstance(muladd, tast.CoopMulAdd) and muladd.operands == 0 and muladd.type.use == Use.ACCUMULATOR
    store = fn.body.items[6].expr
    assert isinstance(store, tast.CoopStore) and store.type == T.VOID and store.stride.type == T.ULONG
    length = local(fn, "len").initializer
    assert isinstance(length, tast.CoopLength) and length.type == T.UINT


def test_coop_load_typed_by_return_and_argument():
    unit = ok(MATS + """
matC load(global float *p) { return coop_mat_load(p, 0, 8); }
void use(matC m) {}
void g(global float *p) { use(coop_mat_init(1.0f)); }""")
    ret = function(unit, "load").body.items[0]
    assert isinstance(ret.value, tast.CoopLoad) and ret.value.type.typedef_name == "matC"
    call = function(unit, "g").body.items[0].expr
    assert isinstance(call.args[0], tast.CoopInit)


def test_coop_operators():
    unit = ok(MATS + """
void f(matC x, matC y, float s) {
  matC a = x + y; matC b = x / y; matC n = -x; matC m = x * 4; matC r = 2.5 * x; matC t = x * s;
  x += y; x *= 3;
}""")
    fn = function(unit, "f")
    assert isinstance(local(fn, "a").initializer, tast.CoopBinary)
    assert local(fn, "b").initializer.op == "/"
    assert isinstance(local(fn, "n").initializer, tast.CoopNeg)
    m = local(fn, "m").initializer
    # RFC 4.6 writes `a * 4` with an i32 4; the scalar must become the component type (float 4.0).
    assert isinstance(m, tast.CoopScalarMul) and m.scalar.type == T.FLOAT
    assert constfold.fold(m.scalar) == 4.0
    r = local(fn, "r").initializer
    assert isinstance(r, tast.CoopScalarMul) and r.scalar.kind == "float-to-float"
    compound = fn.body.items[-1].expr
    assert isinstance(compound, tast.CompoundAssign) and isinstance(compound.compute, tast.CoopScalarMul)


def test_coop_conversion_and_element_access():
    unit = ok(MATS + """
void f(matC x, int i) { matI y = (matI)x; x[i] = x[0] * 2.0f; float e = x[1]; matC z = (matC)x; }""")
    fn = function(unit, "f")
    conv = local(fn, "y").initializer
    assert isinstance(conv, tast.CoopConvert) and conv.type.elem == T.INT and conv.matrix.type.elem == T.FLOAT
    assign = fn.body.items[1].expr
    assert isinstance(assign.target, tast.CoopElement) and assign.target.is_lvalue
    assert assign.target.type == T.FLOAT and assign.target.index.type == T.ULONG
    assert isinstance(local(fn, "z").initializer, tast.VarRef)       # identity cast: no node


def test_coop_muladd_mixed_precision_allowed():
    ok("""
typedef half hA __attribute__((coop_mat(3, 8, 16, 0)));
typedef half hB __attribute__((coop_mat(3, 16, 8, 1)));
typedef float fC __attribute__((coop_mat(3, 8, 8, 2)));
typedef char cA __attribute__((coop_mat(3, 8, 32, 0)));
typedef char cB __attribute__((coop_mat(3, 32, 8, 1)));
typedef int iC __attribute__((coop_mat(3, 8, 8, 2)));
void f(hA a, hB b, fC c, cA ca, cB cb, iC ci) { c = coop_mat_mulAdd(a, b, c); ci = coop_mat_mulAdd(ca, cb, ci, 15); }""")


# ------------------------------------------------------------------ diagnostics (wording and line:col)
L = MATS_LINES + 1      # first line after MATS


@pytest.mark.parametrize("source, expected", [
    ("typedef bool bm __attribute__((coop_mat(3, 8, 8, 0)));",
     "1:9: error: 'bool' is invalid cooperative matrix element type"),
    ("typedef float4 vm __attribute__((coop_mat(3, 8, 8, 0)));",
     "1:9: error: 'float4' is invalid cooperative matrix element type"),
    ("typedef float sm __attribute__((coop_mat(memory_scope_device, 8, 8, 0)));",
     "1:42: error: invalid 'scope' argument of cooperative matrix attribute"),
    ("typedef float um __attribute__((coop_mat(3, 8, 8, 5)));",
     "1:51: error: invalid 'use' argument of cooperative matrix attribute"),
    ("typedef float um __attribute__((coop_mat(3, 8, 8, \"CLK_COOPERATIVE_MATRIX_C\")));",
     "1:51: error: invalid 'use' argument of cooperative matrix attribute"),
    ("typedef float zm __attribute__((coop_mat(3, 0, 8, 0)));", "1:45: error: zero matrix size"),
    ("typedef float nm __attribute__((coop_mat(3, 8, -4, 0)));",
     "1:48: error: matrix column size must be positive"),
    ("typedef float bigm __attribute__((coop_mat(3, 100000, 8, 0)));", "1:47: error: matrix row size too large"),
    ("void f(int n) { float m __attribute__((coop_mat(3, n, 8, 0))); }",
     "1:52: error: 'coop_mat' attribute requires an integer constant"),
    ("typedef float m3 __attribute__((coop_mat(3, 8, 8)));",
     "1:33: error: 'coop_mat' attribute requires exactly 4 arguments"),
])
def test_coop_type_diagnostics(source, expected):
    assert messages(source) == [expected]


def test_kernel_parameter_matrix_has_note():
    _, diag = run(MATS + "kernel void k(matA m) {}")
    [d] = diag.diagnostics
    assert (d.location.line, d.location.column) == (L, 20)
    assert d.message == "'matA' cannot be used as the type of a kernel parameter"
    assert [(n.message, n.location.line, n.location.column) for n in d.notes] == [("'matA' declared here", 1, 15)]


@pytest.mark.parametrize("body, expected", [
    ("matA g;", f"{L}:6: error: cooperative matrix type cannot be declared at program scope"),
    ("kernel void k(void) { local matA l; }",
     f"{L}:34: error: cooperative matrix type cannot be declared in the '__local' address space"),
    ("void f(matA a) { matA *p; }", f"{L}:24: error: pointer to cooperative matrix type is not allowed"),
    ("void f(matA a) { void *p = &a; }", f"{L}:28: error: cannot take the address of a cooperative matrix"),
    ("void f(matA a) { matA arr[2]; }", f"{L}:23: error: array of cooperative matrix type is not supported"),
])
def test_coop_storage_diagnostics(body, expected):
    assert messages(MATS + body) == [expected]


KERNEL_HEAD = "kernel void k(global float *p, global int *ip, int n) { matA a; matB b; matC c; matI ci;\n"
K = L + 1   # line of the statement under test


@pytest.mark.parametrize("stmt, expected", [
    ("c = coop_mat_mulAdd(b, b, c);", f"{K}:21: error: argument of cooperative matrix must have 'CLK_COOPERATIVE_MATRIX_A' use"),
    ("c = coop_mat_mulAdd(a, a, c);", f"{K}:24: error: argument of cooperative matrix must have 'CLK_COOPERATIVE_MATRIX_B' use"),
    ("c = coop_mat_mulAdd(a, b, a);",
     f"{K}:27: error: argument of cooperative matrix must have 'CLK_COOPERATIVE_MATRIX_ACCUMULATOR' use"),
    ("ci = coop_mat_mulAdd(a, b, ci);", f"{K}:28: error: inconsistent cooperative matrix element types"),
    ("c = coop_mat_mulAdd(a, b, n);", f"{K}:27: error: argument must be a valid cooperative matrix type"),
    ("c = coop_mat_mulAdd(a, b, c, n);",
     f"{K}:30: error: fourth argument of 'coop_mat_mulAdd' must be an integer constant expression"),
    ("c = coop_mat_mulAdd(a, b, c, 1.0f);", f"{K}:30: error: fourth argument of 'coop_mat_mulAdd' must have enum type"),
    ("c = coop_matmul_add(a, b, c, 64);", f"{K}:30: error: invalid cooperative matrix operands value 64"),
    ("ci = coop_mat_mulAdd(a, b, c);", f"{K}:6: error: incompatible cooperative matrix types"),
    ("coop_mat_load(p, 0, 16);",
     f"{K}:1: error: builtin return value should be assigned to cooperative matrix type variable"),
    ("int x = coop_mat_init(1);",
     f"{K}:9: error: builtin return value should be assigned to cooperative matrix type variable"),
    ("a = coop_mat_load(p, 2, 16);", f"{K}:22: error: memory layout should be ROW_MAJOR or COLUMN_MAJOR"),
    ("a = coop_mat_load(p, n, 16);", f"{K}:22: error: memory layout should be ROW_MAJOR or COLUMN_MAJOR"),
    ("a = coop_mat_load(p, 0, 1.5f);", f"{K}:25: error: stride argument must have type 'size_t' ('float' invalid)"),
    ("coop_mat_store(p, c, 0, 0);", f"{K}:25: error: stride of 'coop_mat_store' must be greater than zero"),
    ("a = coop_mat_load(p, 0, -1);", f"{K}:25: error: stride argument must not be negative"),
    ("c = c & c;", f"{K}:7: error: unsupported cooperative matrix binary operator"),
    ("n = c == c;", f"{K}:7: error: unsupported cooperative matrix binary operator"),
    ("c = c / 2.0f;", f"{K}:7: error: unsupported cooperative matrix scalar operator"),
    ("c = c + 1;", f"{K}:7: error: unsupported cooperative matrix scalar operator"),
    ("c = ~c;", f"{K}:5: error: unsupported cooperative matrix unary operator"),
    ("c = a;", f"{K}:5: error: incompatible cooperative matrix types"),
    ("c = a + a;", f"{K}:5: error: incompatible cooperative matrix types"),
    ("c = c + ci;", f"{K}:7: error: incompatible cooperative matrix types"),
    ("a = (matA)c;", f"{K}:5: error: invalid conversion between cooperative matrix types 'matC' and 'matA': "
                     "rows and columns must match"),
    ("n = coop_mat_length(n);", f"{K}:21: error: argument must be a valid cooperative matrix type"),
    ("c = coop_mat_mulAdd(a, b);", f"{K}:5: error: too few arguments to function call, expected 3, have 2"),
    ("if (c) {}", f"{K}:5: error: statement requires expression of scalar type ('matC' invalid)"),
    ("coop_mat_store(p, c, 0, n); float x = c[1.0f];", f"{K}:41: error: array subscript is not an integer"),
])
def test_coop_operation_diagnostics(stmt, expected):
    errors = messages(MATS + KERNEL_HEAD + stmt + "\n}", "error")
    assert errors == [expected]


def test_pointer_element_mismatch_is_a_warning():
    # SPV_KHR_cooperative_matrix issue 8: the pointee may differ from the component type.
    # clang's pull request rejects it: a -Wcoop-portability warning.
    source = MATS + KERNEL_HEAD + "a = coop_mat_load(ip, 0, (size_t)16);\n}"
    assert messages(source) == []
    _, diag = run(source, warnings_off=())
    [mismatch] = [d for d in diag.diagnostics if d.location.line == K]
    assert (mismatch.location.column, mismatch.severity, mismatch.message, mismatch.flag) == \
        (19, "warning", "inconsistent between cooperative matrix element type and buffer pointer type",
         "coop-portability")


def test_signed_flags_on_float_matrices_warn():
    msgs = messages(MATS + KERNEL_HEAD +
                    "c = coop_matmul_add(a, b, c, CLK_COOPERATIVE_MATRIX_OPERAND_MATRIX_RESULT_SIGNED);\n}",
                    warnings_off=("coop-portability", "uninitialized"))
    assert msgs == [f"{K}:30: warning: signed-component operands of a floating-point cooperative matrix are ignored"]


@pytest.mark.parametrize("source, expected", [
    ("void f(void) { x = 1; }", "1:16: error: use of undeclared identifier 'x'"),
    ("void f(void) { foo(1); }", "1:16: error: use of undeclared identifier 'foo'"),
    ("int g(int a, int b); void f(void) { g(1); }", "1:40: error: too few arguments to function call, expected 2, have 1"),
    ("int g(int a); void f(void) { g(1, 2); }", "1:35: error: too many arguments to function call, expected single argument 'a', have 2 arguments"),
    ("void f(__global int *p) { p = 3; }", "1:29: error: incompatible integer to pointer conversion "
                                           "assigning to '__global int *' from 'int'"),
    ("void f(__constant int *c) { __global int *p = c; }",
     "1:43: error: initializing '__global int *' with an expression of type '__constant int *' "
     "changes address space of pointer"),
    ("void f(void) { float4 v; int4 w = v; }",
     "1:31: error: initializing 'int4' with an expression of incompatible type 'float4'"),
    ("void f(void) { float4 v; v.xq = 1; }", "1:29: error: illegal vector component name 'q'"),
    ("void f(void) { float4 v; v.s7 = 1; }", "1:27: error: vector component access exceeds type 'float4'"),
    ("void f(void) { float4 v = (float4)(1.0f, 2.0f); }",
     "1:35: error: too few elements in vector initialization (expected 4 elements, have 2)"),
    ("void f(void) { const int c = 1; c = 2; }",
     "1:35: error: cannot assign to variable 'c' with const-qualified type 'const int'"),
    ("void f(void) { float x; x = x % 2; }",
     "1:31: error: invalid operands to binary expression ('float' and 'int')"),
    ("kernel int k(void) { return 0; }", "1:12: error: kernel must have void return type"),
    ("kernel void k(int *p) {}", "1:20: error: pointer arguments to kernel functions must reside in "
                                 "'__global', '__constant' or '__local' address space"),
    ("void f(void) { __local int x; }",
     "1:28: error: non-kernel function variable cannot be declared in local address space"),
    ("void f(void) { break; }", "1:16: error: 'break' statement not in loop or switch statement"),
    ("int f(void) { return; }", "1:15: error: non-void function 'f' should return a value"),
    ("void f(void) { printf(1.0f); }", "1:23: error: passing 'float' to parameter of incompatible "
                                       "type 'const __constant char *'"),
    ("void f(void) { float x = sqrt(1, 2); }", None),
])
def test_c_diagnostics(source, expected):
    errors = messages(source, "error")
    if expected is None:
        assert len(errors) == 1 and errors[0].startswith("1:26: error: ")
    else:
        assert errors == [expected]


def test_several_errors_in_one_run():
    errors = messages(MATS + "kernel void k(global float *p) {\n"
                      "  undeclared = 1;\n"
                      "  matC c = coop_mat_load(p, 7, 8);\n"
                      "  c = c % c;\n"
                      "  matA a; c = a;\n"
                      "}\n", "error")
    assert errors == [
        f"{L + 1}:3: error: use of undeclared identifier 'undeclared'",
        f"{L + 2}:29: error: memory layout should be ROW_MAJOR or COLUMN_MAJOR",
        f"{L + 3}:9: error: unsupported cooperative matrix binary operator",
        f"{L + 4}:15: error: incompatible cooperative matrix types",
    ]


def test_error_cap():
    source = "void f(void) {\n" + "x = 1;\n" * 30 + "}\n"
    _, diag = run(source, max_errors=5)
    assert diag.error_count == 6          # five, then "too many errors emitted"
    assert diag.diagnostics[-1].message == "too many errors emitted, stopping now"


# ------------------------------------------------------------------ the contract with lower (tast docstring)
def contract_violations(unit):
    """Walk a typed AST and list the places that break what tast's docstring promises lower."""
    bad = []

    def expect(cond, node, what):
        if not cond:
            bad.append(f"{type(node).__name__} at {node.loc}: {what}")

    def visit(node):
        if isinstance(node, list):
            for n in node:
                visit(n)
            return
        if isinstance(node, (tast.ImplicitCast, tast.Cast)):
            expect(node.kind in tast.CAST_KINDS, node, f"cast kind {node.kind}")
            if node.kind == "array-to-pointer":
                expect(isinstance(node.operand.type, T.ArrayType), node, "decay of a non-array")
        if isinstance(node, tast.Binary):
            expect(node.left.type == node.right.type, node, "operands differ")
            if not node.is_comparison:
                expect(node.left.type == node.type, node, "operand type != node type")
        if isinstance(node, tast.Logical) and not isinstance(node.type, T.VectorType):
            expect(node.left.type == T.BOOL and node.right.type == T.BOOL, node, "logical operands not bool")
        if isinstance(node, (tast.If, tast.While, tast.DoWhile)) or (isinstance(node, tast.For) and node.cond):
            expect(node.cond.type == T.BOOL, node, "condition not bool")
        if isinstance(node, tast.Assign):
            expect(node.value.type == node.target.type, node, "assigned value not converted")
            expect(node.target.is_lvalue, node, "target not an lvalue")
        if isinstance(node, (tast.CompoundAssign, tast.IncDec)):
            expect(node.compute.type == node.target.type, node, "compute not converted")
        if isinstance(node, tast.Call):
            expect([a.type for a in node.args] == list(node.callee.type.params), node, "arguments not converted")
        if isinstance(node, tast.BuiltinCall):
            expect([a.type for a in node.args] == list(node.overload.params), node, "arguments not converted")
        if isinstance(node, tast.Conditional) and node.type != T.VOID:
            expect(node.then.type == node.type and node.otherwise.type == node.type, node, "arms not converted")
        if isinstance(node, (tast.CoopInit, tast.CoopScalarMul)):
            scalar = node.scalar
            expect(scalar.type == node.type.elem, node, "scalar not converted to the component type")
        if isinstance(node, tast.CoopBinary):
            expect(node.a.type == node.b.type == node.type, node, "matrix operand types differ")
        if isinstance(node, (tast.CoopLoad, tast.CoopStore)):
            expect(node.layout in (0, 1), node, "layout")
            expect(node.stride.type in (T.ULONG, T.UINT), node, "stride not size_t")
        if isinstance(node, tast.CoopElement):
            expect(node.matrix.is_lvalue, node, "element of an rvalue matrix")
        if isinstance(node, tast.Index):
            expect(node.base.type.is_pointer, node, "index base not a pointer")
        if isinstance(node, tast.Var) and node.initializer is not None and isinstance(node.initializer, tast.Expr):
            expect(node.initializer.type == node.type, node, "initializer not converted")
        if isinstance(node, tast.Return) and node.value is not None:
            pass
        if hasattr(node, "__dataclass_fields__") and not isinstance(node, T.CType):
            for name in node.__dataclass_fields__:
                if name in ("var", "callee", "overload", "type", "loc", "function"):
                    continue
                child = getattr(node, name)
                if isinstance(child, (list, tast.Expr, tast.Stmt, tast.Var, tast.InitList)):
                    visit(child)

    for fn in unit.functions:
        if fn.body is not None:
            visit(fn.body)
    visit(unit.globals)
    return bad


CONTRACT_SOURCE = MATS + """
struct P { char c; int a; float b[2]; };
__constant float table[4] = {1.0f, 2.0f};
static matC twice(matC m) { for (uint i = 0; i < coop_mat_length(m); ++i) m[i] = 2.0f * m[i] + 1; return m; }
kernel void k(global float *p, global int *ip, local float *lp, global struct P *ps, uint n, float s) {
  local float buf[16];
  char c = 'a'; c += 300; c++; short sh = c * 2; uint u = n >> 2; u <<= c; long l = -1; ulong ul = l + n;
  float4 v = (float4)(1, (float2)(2.0f, 3.0f), 4); int4 m = v < 2.0f; v *= 2; v.xy = v.yx; v = m ? v : -v;
  bool b = n && ip; b = !b; int x = b ? 1 : 2.5f; x = (x, n);
  buf[get_local_id(0)] = lp[0] + table[1] + ps->b[1] + dot(v, v) + sqrt(s);
  barrier(CLK_LOCAL_MEM_FENCE);
  switch (x) { case 1: break; default: x = 0; }
  for (int i = 0; i < 4; i++) { if (i == 2) continue; p[i] = (float)i; }
  do { n--; } while (n > 0);
  float *gp = lp; gp = p;
  matA a = coop_mat_load(p, CLK_COOPERATIVE_MATRIX_LAYOUT_ROW_MAJOR, n);
  matB bm = coop_mat_load(ip, CLK_COOPERATIVE_MATRIX_LAYOUT_COLUMN_MAJOR, 16);
  matC acc = coop_mat_init(0);
  acc = coop_mat_mulAdd(a, bm, acc);
  acc = twice(acc * s + acc * 2 - (-acc) / acc);
  acc += acc; acc *= 3;
  matI ai = (matI)acc; ai[0] = acc[1];
  coop_mat_store(p, acc, CLK_COOPERATIVE_MATRIX_LAYOUT_ROW_MAJOR, 8);
  coop_mat_store(ip, ai, CLK_COOPERATIVE_MATRIX_LAYOUT_ROW_MAJOR, 8);
}
"""


def test_typed_ast_keeps_the_contract_with_lower():
    unit = ok(CONTRACT_SOURCE)
    assert contract_violations(unit) == []


@pytest.mark.parametrize("example", ["gemm_f32.cl", "gemm_f16_f32.cl", "gemm_i8_i32.cl", "gemm_i8_sat.cl",
                                     "operators.cl", "reduction_local.cl"])
def test_examples_check_clean_and_keep_the_contract(example):
    import pathlib
    path = pathlib.Path(__file__).resolve().parents[3] / "examples" / example
    unit = ok(path.read_text())
    assert contract_violations(unit) == []


def test_recursion_is_reported_once_per_cycle():
    errors = messages("int odd(int n);\nint even(int n) { return n ? odd(n - 1) : 1; }\n"
                      "int odd(int n) { return n ? even(n - 1) : 0; }\nint f(int n) { return f(n); }\n", "error")
    assert errors == [
        "2:30: error: recursion is not supported in OpenCL C ('even' calls 'odd', which calls 'even' again)",
        "4:23: error: recursion is not supported in OpenCL C ('f' calls itself)",
    ]


def test_matrix_scalar_literal_conversion_warns():
    msgs = messages(MATS + "void f(matI m) { m = m * 2.5f; m = m * 2.0f; }")
    assert msgs == [f"{L}:26: warning: implicit conversion from 'float' to 'int' changes value from 2.5 to 2"]


def test_no_cascade_after_a_failed_declaration():
    # clang marks the declaration invalid and stays quiet about its uses; so does clcoop.
    errors = messages("typedef bool bm __attribute__((coop_mat(3, 8, 8, 0)));\n"
                      "void f(void) { bm x; x = 1; float w __attribute__((coop_mat(3, 0, 8, 0))); w = 1; y = 2; }\n",
                      "error")
    assert errors == ["1:9: error: 'bool' is invalid cooperative matrix element type",
                      "2:64: error: zero matrix size",
                      "2:83: error: use of undeclared identifier 'y'"]


def test_coop_attribute_on_parameters_and_members():
    unit = ok("void f(float m __attribute__((coop_mat(3, 8, 8, 2)))) { float x = m[0]; }")
    assert function(unit, "f").params[0].type == T.CoopMatType(T.FLOAT, 3, 8, 8, Use.ACCUMULATOR)
    assert messages("struct S { float m __attribute__((coop_mat(3, 8, 8, 2))); };") == \
        ["1:18: error: cooperative matrix type cannot be a struct or union member"]


def test_null_comparisons_in_any_address_space():
    unit = ok("kernel void k(global float *p, local int *l) { int a = p == NULL; int b = NULL != l; }")
    fn = function(unit, "k")
    a = local(fn, "a").initializer
    assert a.right.kind == "null-to-pointer" and a.right.type == a.left.type
    b = local(fn, "b").initializer
    assert b.left.kind == "null-to-pointer" and b.left.type == b.right.type


def test_vector_subscript_with_constant_index_is_a_swizzle():
    unit = ok("void f(float4 v) { v[1] = v[3]; }")
    assign = function(unit, "f").body.items[0].expr
    assert isinstance(assign.target, tast.Swizzle) and assign.target.indices == (1,) and assign.target.is_lvalue
    assert assign.value.indices == (3,)
    element = function(ok("void f(float4 v, int n) { float x = v[n]; }"), "f").body.items[0]
    assert "VectorElement" in repr(element)      # a variable index: extractelement (clang's extension)
    assert messages("void f(float4 v, int n) { float *p = &v[n]; }") == [
        "1:38: error: address of vector element requested"]


def test_redefinition_in_one_scope():
    assert messages("void f(int a) { int x; float x; { int x; } int a; }", "error") == [
        "1:30: error: redefinition of 'x'", "1:48: error: redefinition of 'a'"]


# ------------------------------------------------------------------ random expressions: no crash, contract kept
FUZZ_DECLS = ("int i; uint u; float f; half h; long l; char c; bool b; float4 v4; int4 i4; int *p; "
              "struct S s; int arr[4]; matA ma; matB mb; matC mc; matI mi;")
FUZZ_LEAVES = ["i", "u", "f", "h", "l", "c", "b", "v4", "i4", "p", "s", "arr", "ma", "mb", "mc", "mi", "1", "2.0f",
               "0", "'a'", "gp[0]", "s.f", "v4.xy", "mc[0]", "v4[1]"]
FUZZ_BINARY = ["+", "-", "*", "/", "%", "&", "|", "<<", "<", "==", "&&", "||", ","]
FUZZ_CALLS = ["coop_mat_load(gp, 0, 8)", "coop_mat_init({})", "coop_mat_length({})", "coop_mat_mulAdd({}, {}, {})",
              "coop_mat_store(gp, {}, 0, 8)", "sqrt({})", "min({}, {})", "convert_int4({})", "as_float({})",
              "helper({})"]
FUZZ_CASTS = ["(int)", "(float)", "(float4)", "(matC)", "(matI)", "(global float *)", "(void)", "(bool)"]


def random_expr(rng, depth):
    r = rng.random()
    if depth <= 0 or r < 0.25:
        return rng.choice(FUZZ_LEAVES)
    if r < 0.5:
        return f"({random_expr(rng, depth - 1)} {rng.choice(FUZZ_BINARY)} {random_expr(rng, depth - 1)})"
    if r < 0.6:
        return f"{rng.choice(['-', '!', '~', '*', '&', '++'])}{random_expr(rng, depth - 1)}"
    if r < 0.75:
        call = rng.choice(FUZZ_CALLS)
        return call.format(*[random_expr(rng, depth - 1) for _ in range(call.count("{}"))])
    if r < 0.88:
        return f"{rng.choice(FUZZ_CASTS)}{random_expr(rng, depth - 1)}"
    return f"({random_expr(rng, depth - 1)} ? {random_expr(rng, depth - 1)} : {random_expr(rng, depth - 1)})"


@pytest.mark.slow          # random expressions (fuzz)
def test_random_expressions_never_crash_and_keep_the_contract():
    import random
    rng = random.Random(2026)
    accepted = 0
    for _ in range(120):
        target_type = rng.choice(["int", "float", "float4", "matC", "global float *", "bool", "ulong"])
        stmt = rng.choice([f"{{ {target_type} t_ = {random_expr(rng, 3)}; }}",
                           f"{rng.choice(FUZZ_LEAVES[:16])} {rng.choice(['=', '+=', '*='])} {random_expr(rng, 3)};",
                           f"if ({random_expr(rng, 2)}) {{ {random_expr(rng, 2)}; }}"])
        source = (FP16 + MATS + "struct S { int i; float f; };\nstatic matC helper(matC m) { return m; }\n"
                  "kernel void k(global float *gp) {\n" + FUZZ_DECLS + "\n" + stmt + "\n}\n")
        try:
            unit, diag = run(source)      # any exception other than a diagnostic fails the test
        except CompileError:
            continue                      # a syntax error: the parser's business

        errors = [d for d in diag.diagnostics if d.severity == "error"]
        assert all(d.location is not None for d in errors), (stmt, [str(d) for d in errors])
        if not errors:
            accepted += 1
            assert contract_violations(unit) == [], stmt
    assert accepted > 10        # the generator must exercise accepted code too


# ---- C99 6.6p9 address constants in program-scope and static initializers
ADDRESS_DECLS = ("global int g[4]; global int m[3][4]; typedef struct { int a; int b[3]; } S; global S s;\n"
                 "constant float t[2] = {1, 2}; global int i;\n")


@pytest.mark.parametrize("decl", [
    "global int *p = &g[1];",
    "constant float *p = t;",
    "generic int *p = &g[0];",
    "global int *p = g + 2;",
    "global int *p = &s.b[1];",
    "global int *p = &m[1][2];",
    "global int *p = m[2] - 1;",
    "global char *p = (global char *)&i;",
    "global int *p = &*g;",
    "kernel void k(void) { static global int *p = &g[3]; }",
])
def test_address_constants_are_accepted(decl):
    assert messages(ADDRESS_DECLS + decl) == []


@pytest.mark.parametrize("decl, expected", [
    ("global int *p = &g[i];", "3:17: error: initializer element is not a compile-time constant"),
    ("global int *p = g + i;", "3:19: error: initializer element is not a compile-time constant"),
    ("global int v = g[1];", "3:16: error: initializer element is not a compile-time constant"),
])
def test_non_constant_addresses_are_rejected(decl, expected):
    assert messages(ADDRESS_DECLS + decl, "error") == [expected]


def test_address_constant_indices_are_folded_for_lower():
    unit = ok(ADDRESS_DECLS + "global int *p = &m[1][1 + 1];")
    p = next(v for v in unit.globals if v.name == "p")
    index = p.initializer.operand.index
    assert isinstance(index, tast.IntConst) and index.value == 2


@pytest.mark.parametrize("source, expected", [
    # clang's type printer: a pointer pointee carries its qualifiers after its star.
    ("void f(global int **pp) { int x = pp; }",
     "1:31: error: incompatible pointer to integer conversion initializing 'int' with an expression of type "
     "'__global int *__generic *'"),
    ("void f(const global int **pp) { int x; x = pp; }",
     "1:42: error: incompatible pointer to integer conversion assigning to 'int' from "
     "'const __global int *__generic *'"),
    ("void f(local float * volatile *pp) { int x; x = pp; }",
     "1:47: error: incompatible pointer to integer conversion assigning to 'int' from "
     "'__local float *volatile __generic *'"),
])
def test_pointer_to_pointer_spelling_matches_clang(source, expected):
    assert messages(source, "error") == [expected]


def test_constant_array_decays_without_const_qualifier():
    # clang: `constant float *q = t;` is fine (no discards-qualifiers warning); writes still fail.
    assert messages("constant float t[2] = {1, 2}; constant float *q = t;") == []
    assert messages("constant int c = 3; kernel void k(void) { c = 4; }", "error") == [
        "1:45: error: read-only variable is not assignable"]


@pytest.mark.parametrize("source, expected", [
    ("kernel void k(void) { int m[2][2] = {1, 2, 3, 4, 5}; }", "1:50: warning: excess elements in array initializer"),
    ("kernel void k(void) { int a[2] = {[2] = 1}; }", "1:36: error: array designator index (2) exceeds array bounds (2)"),
    ("struct S { int a; }; kernel void k(void) { struct S s = {.b = 1}; }",
     "1:59: error: field designator 'b' does not refer to any field in type 'struct S'"),
])
def test_initializer_list_diagnostics(source, expected):
    assert messages(source) == [expected]


def test_brace_elision_fills_nested_aggregates():
    unit = ok("typedef struct { int a; int b[2]; } S; kernel void k(void) { S s[2] = {1, 2, 3, 4}; }")
    init = local(function(unit, "k"), "s").initializer
    first, second = init.elements
    assert [strip_casts(e).value for e in [first.elements[0]] + first.elements[1].elements] == [1, 2, 3]
    assert strip_casts(second.elements[0]).value == 4 and second.elements[1] is None


def test_cast_constant_is_the_value_lower_emits_for_a_cast_of_a_constant():
    """constfold.cast_constant: the one place that folds casts for lower (tast.py's contract)."""
    c300 = tast.IntConst(T.INT, None, 300)
    assert constfold.cast_constant(tast.ImplicitCast(T.CHAR, None, "int-to-int", c300)) == 44
    minus1 = tast.IntConst(T.INT, None, -1)
    assert constfold.cast_constant(tast.Cast(T.UINT, None, "int-to-int", minus1)) == 0xFFFFFFFF
    as_uchar = tast.ImplicitCast(T.UCHAR, None, "int-to-int", minus1)
    assert constfold.cast_constant(tast.ImplicitCast(T.FLOAT, None, "int-to-float", as_uchar)) == 255.0
    half = tast.FloatConst(T.HALF, None, 0.5)
    assert constfold.cast_constant(tast.ImplicitCast(T.FLOAT, None, "float-to-float", half)) == 0.5
    narrowing = tast.ImplicitCast(T.HALF, None, "float-to-float", tast.FloatConst(T.FLOAT, None, 0.1))
    assert constfold.cast_constant(narrowing) is None       # rounding is the instruction's
    comma = tast.Comma(T.INT, None, tast.IntConst(T.INT, None, 0), c300)
    assert constfold.cast_constant(tast.ImplicitCast(T.LONG, None, "int-to-int", comma)) == 300
    assert constfold.cast_constant(tast.ImplicitCast(T.BOOL, None, "int-to-bool", c300)) is None
