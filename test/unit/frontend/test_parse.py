"""The parser: OpenCL C syntax, where attributes land in the AST, syntax errors and recovery."""
from pycparser import c_ast
from pycparserext.ext_c_parser import FuncDeclExt, TypeDeclExt

from clcoop.diagnostics import DiagnosticEngine
from clcoop.frontend.parse import attributes_of, parse
from clcoop.frontend.preprocess import preprocess
from clcoop.frontend.types import SPIR32, SPIR64


def front(source, target=SPIR64, filename="k.cl"):
    diag = DiagnosticEngine()
    text = preprocess(source, filename, [], {}, diag)
    assert diag.error_count == 0, diag.render_all()
    ast = parse(text, filename, diag, target)
    return ast, diag


def user_decls(ast, filename="k.cl"):
    return [e for e in ast.ext if e.coord is not None and e.coord.file == filename
            or isinstance(e, c_ast.FuncDef) and e.decl.coord.file == filename]


def errors(diag):
    return [(str(d.location), d.message) for d in diag.diagnostics if d.severity == "error"]


def find(node, cls):
    found = []

    class Visitor(c_ast.NodeVisitor):
        def generic_visit(self, n):
            if isinstance(n, cls):
                found.append(n)
            for child in n:
                self.visit(child)

    Visitor().visit(node)
    return found


def test_builtin_type_names_without_declarations():
    ast, diag = front("kernel void k(global uchar4 *a, half h, bool b, size_t n, double16 d) {"
                      " float3 v; ulong8 u; ptrdiff_t p; }")
    assert errors(diag) == []
    names = {tuple(t.names) for t in find(ast.ext[-1], c_ast.IdentifierType)}
    assert {("uchar4",), ("half",), ("bool",), ("size_t",), ("double16",), ("float3",),
            ("ulong8",), ("ptrdiff_t",)} <= names


def test_c_keywords_stay_keywords_and_user_names_are_free():
    # int8_t and image2d_t are not OpenCL C type names for clcoop: plain identifiers work.
    ast, diag = front("kernel void k(global int *int8_t) { int image2d_t = int8_t[0]; }")
    assert errors(diag) == []


def test_address_spaces_all_spellings_and_kernel():
    src = ("__kernel void a(__global int *p, __local int *q, __constant int *r, __private int s) {}\n"
           "kernel void b(global int *p, local int *q, constant int *r, private int s) {}\n"
           "void c(__generic int *p, generic int *q) {}\n")
    ast, diag = front(src)
    assert errors(diag) == []
    funcs = [e for e in ast.ext if isinstance(e, c_ast.FuncDef)]
    assert [f.decl.funcspec for f in funcs] == [["__kernel"], ["kernel"], []]
    quals = [sorted(q for d in f.decl.type.args.params for q in d.quals) for f in funcs]
    assert quals[0] == sorted(["__global", "__local", "__constant", "__private"])
    assert quals[1] == sorted(["global", "local", "constant", "private"])
    assert quals[2] == sorted(["__generic", "generic"])
    # For a pointer parameter the address space qualifies the pointee's TypeDecl.
    param = funcs[0].decl.type.args.params[0]
    assert isinstance(param.type, c_ast.PtrDecl) and param.type.type.quals == ["__global"]


def test_attributes_land_on_typedecl_and_funcdecl():
    src = """
typedef float matA __attribute__((coop_mat(CLK_COOPERATIVE_MATRIX_SCOPE_SUBGROUP, 8, 16, CLK_COOPERATIVE_MATRIX_A)));
typedef float __attribute__((coop_mat(3, 16, 16, 1))) matB;
__attribute__((coop_mat(3, 8, 16, 2))) typedef float matC;
typedef float matQ __attribute__((coop_mat("CLK_COOPERATIVE_MATRIX_SCOPE_SUBGROUP", 4, 8, "CLK_COOPERATIVE_MATRIX_A")));
__attribute__((reqd_work_group_size(16, 1, 1))) kernel void k(global float *p)
    __attribute__((intel_reqd_sub_group_size(16)))
{
  float m __attribute__((coop_mat(memory_scope_sub_group, 8, 16, CLK_COOPERATIVE_MATRIX_ACCUMULATOR)));
  float __attribute__((coop_mat(3, 8, 16, 2))) n, o;
}
"""
    ast, diag = front(src)
    assert errors(diag) == []
    typedefs = {e.name: e for e in ast.ext if isinstance(e, c_ast.Typedef)}
    for name, use in (("matA", "CLK_COOPERATIVE_MATRIX_A"), ("matB", "1"), ("matC", "2")):
        attrs = attributes_of(typedefs[name])
        assert [a.name for a in attrs] == ["coop_mat"], name
        assert isinstance(typedefs[name].type, TypeDeclExt)
        last = attrs[0].args[3]
        assert getattr(last, "name", getattr(last, "value", None)) == use
    quoted = attributes_of(typedefs["matQ"])[0].args
    assert quoted[0].type == "string" and quoted[0].value == '"CLK_COOPERATIVE_MATRIX_SCOPE_SUBGROUP"'
    kernel = ast.ext[-1]
    assert isinstance(kernel.decl.type, FuncDeclExt)
    assert [a.name for a in attributes_of(kernel)] == ["reqd_work_group_size",
                                                       "intel_reqd_sub_group_size"]
    assert [c.value for c in attributes_of(kernel)[0].args] == ["16", "1", "1"]
    assert all(isinstance(f, str) for f in kernel.decl.funcspec)
    decls = {d.name: d for d in find(kernel.body, c_ast.Decl)}
    for name in ("m", "n", "o"):
        assert [a.name for a in attributes_of(decls[name])] == ["coop_mat"], name
    assert attributes_of(decls["m"])[0].coord.line == 9


def test_vector_literals_and_swizzles():
    ast, diag = front("kernel void k(global float4 *p) { float4 v = (float4)(1, 2, 3, 4);"
                      " float2 w = v.xy; p[0].s01 = w; p[1] = (float4)(0.5f); }")
    assert errors(diag) == []
    casts = find(ast.ext[-1], c_ast.Cast)
    assert isinstance(casts[0].expr, c_ast.ExprList) and len(casts[0].expr.exprs) == 4
    assert isinstance(casts[1].expr, c_ast.Constant)
    assert {r.field.name for r in find(ast.ext[-1], c_ast.StructRef)} == {"xy", "s01"}


def test_coordinates_are_original_positions():
    src = "#define N 4\n\nkernel void k(global int *p) {\n    p[N] = 1;\n}\n"
    ast, diag = front(src)
    assign = find(ast.ext[-1], c_ast.Assignment)[0]
    assert (assign.coord.file, assign.coord.line, assign.coord.column) == ("k.cl", 4, 5)


def test_true_false_are_constants():
    ast, _ = front("kernel void k(global int *p) { bool b = true; p[0] = false; }")
    values = [c.value for c in find(ast.ext[-1], c_ast.Constant)]
    assert values == ["1", "0", "0"]


def test_size_t_depends_on_target():
    for target in (SPIR64, SPIR32):
        _, diag = front("kernel void k(global int *p) { size_t i = 0; uintptr_t j = i; }", target)
        assert errors(diag) == []


def test_missing_semicolon_is_after_previous_token():
    _, diag = front("kernel void k(global int *p) {\n  p[0] = 1\n  p[1] = 2;\n}\n")
    assert errors(diag) == [("k.cl:2:11", "expected ';' after expression")]


def test_several_errors_reported_in_one_run():
    src = ("kernel void a(global int *p) {\n  p[0] = ;\n  p[1] = 1;\n  return 1 2;\n}\n"
           "int x = ;\n"
           "kernel void b(global int *p) { p[0] = (1 + ; }\n")
    _, diag = front(src)
    assert errors(diag) == [
        ("k.cl:2:10", "expected expression"),
        ("k.cl:4:11", "expected ';' after return statement"),
        ("k.cl:6:9", "expected expression"),
        ("k.cl:7:44", "expected expression"),
    ]


def test_unexpected_end_of_file():
    _, diag = front("kernel void k(global int *p) {\n  p[0] = 1;\n")
    assert errors(diag) == [("k.cl:2:12", "expected '}'")]


def test_error_in_included_file_names_it(tmp_path):
    (tmp_path / "h.h").write_text("int a = 1;\nint b = ;\n")
    diag = DiagnosticEngine()
    main = tmp_path / "k.cl"
    text = preprocess('#include "h.h"\nint c;\n', str(main), [], {}, diag)
    parse(text, str(main), diag, SPIR64)
    [(where, message)] = errors(diag)
    assert where.endswith("h.h:2:9") and message == "expected expression"


def test_garbage_is_capped_and_located():
    _, diag = front("kernel void k() {\n" + "p[0] = ;\n" * 50 + "}\n")
    assert diag.error_count == 20
    assert all(d.location is not None for d in diag.diagnostics)
