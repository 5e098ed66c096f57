"""The checker's fast paths (issue 26, throughput), each against the slower code it replaces:
check_support.location keeps a node's SourceLocation on its pycparser Coord, made once;
DeclTypes.base_type looks a specifier up as written before sorting its words."""
from pycparser import c_ast

from clcoop.diagnostics import SourceLocation
from clcoop.frontend import check_support
from clcoop.frontend.parse import parse
from clcoop.frontend.types import Target
from clcoop.diagnostics import DiagnosticEngine
from spies import record_calls

SOURCE = """kernel void k(global int *o) {
    int a = o[0];
    o[1] = a + 2;
}
"""


def _nodes(node):
    yield node
    for _, child in node.children():
        yield from _nodes(child)


def _made_directly(coord):
    """The definition: a new SourceLocation from the Coord's fields."""
    if coord is None or coord.line is None:
        return None
    return SourceLocation(coord.file or "<source>", coord.line, coord.column or 1)


def test_every_node_location_is_the_coords_and_is_made_once():
    tree = parse(SOURCE, "k.cl", DiagnosticEngine(), Target("spir64-unknown-unknown"))
    nodes = list(_nodes(tree))
    assert len(nodes) > 15
    for node in nodes:
        first = check_support.location(node)
        assert first == _made_directly(getattr(node, "coord", None))
        assert check_support.location(node) is first


def test_a_coords_first_location_raises_nothing_inside():
    """The location is read from and kept in the Coord's __dict__: an AttributeError raised
    and caught at each Coord's first use cost more than the lookup (12,400 Coords in
    pocl's test_convert_type_4.cl)."""
    import sys
    from pycparser.c_parser import Coord
    raised = []

    def trace(frame, event, arg):
        if event == "exception":
            raised.append(arg[0])
        return trace
    node = c_ast.ID("x", coord=Coord("a.cl", 5, 2))
    sys.settrace(trace)
    try:
        loc = check_support.location(node)
    finally:
        sys.settrace(None)
    assert loc == SourceLocation("a.cl", 5, 2) and raised == []


def test_a_coords_location_is_made_at_its_first_read_only(monkeypatch):
    """Coord.clcoop_location makes the location at the first read and keeps it in the Coord,
    where later reads find it without the descriptor."""
    from pycparser.c_parser import Coord
    made = []
    real = check_support.coord_location
    monkeypatch.setattr(check_support, "coord_location", lambda coord: made.append(coord) or real(coord))
    coord = Coord("a.cl", 7, 3)
    node = c_ast.ID("x", coord=coord)
    first = check_support.location(node)
    assert first == SourceLocation("a.cl", 7, 3) and made == [coord]
    assert check_support.location(node) is first and check_support.location(c_ast.ID("y", coord=coord)) is first
    assert made == [coord] and vars(coord)["clcoop_location"] is first
    assert check_support.location(c_ast.ID("z", coord=Coord("a.cl", None))) is None


class _SlottedCoord:
    """A Coord that takes no new attributes: the location is made each time, still right."""
    __slots__ = ("file", "line", "column")

    def __init__(self, file, line, column):
        self.file, self.line, self.column = file, line, column


def test_a_coord_without_room_for_the_location_still_gives_it():
    node = c_ast.ID("x", coord=_SlottedCoord("a.cl", 3, None))
    assert check_support.location(node) == SourceLocation("a.cl", 3, 1)
    assert check_support.location(c_ast.ID("x", coord=_SlottedCoord(None, None, None))) is None
    assert check_support.location(c_ast.ID("x")) is None


def _sorted_spelling(names):
    """The slow path of DeclTypes.base_type: the words in the canonical order."""
    order = ("signed", "unsigned", "short", "long", "char", "int")
    return tuple(sorted(names, key=lambda n: order.index(n) if n in order else 9))


def test_type_specifiers_in_any_order_name_the_type_of_their_canonical_order():
    """base_type looks a specifier's words up as written before sorting them: every order of
    every spelling must still give the type of the sorted words."""
    import itertools
    from clcoop.frontend import types as T
    from clcoop.frontend.decl_types import DeclTypes
    types = DeclTypes(None, None, None, None)
    checked = 0
    for spelling in T.C_SPELLINGS:
        for names in set(itertools.permutations(spelling)):
            expected = T.C_SPELLINGS.get(names) or T.C_SPELLINGS[_sorted_spelling(names)]
            assert types.base_type(c_ast.IdentifierType(list(names))) == expected, names
            checked += 1
    assert checked > 40


def test_coords_at_one_position_share_a_location_and_the_table_stays_bounded(monkeypatch):
    from pycparser.c_parser import Coord
    first = check_support.location(c_ast.ID("x", coord=Coord("a.cl", 7, 3)))
    again = check_support.location(c_ast.ID("y", coord=Coord("a.cl", 7, 3)))
    assert again is first and first == SourceLocation("a.cl", 7, 3)
    assert check_support.location(c_ast.ID("z", coord=Coord("a.cl", 7, 4))) == SourceLocation("a.cl", 7, 4)
    monkeypatch.setattr(check_support, "_LOCATIONS_KEPT", 10)
    for column in range(1, 40):
        node = c_ast.ID("x", coord=Coord("b.cl", 1, column))
        assert check_support.location(node) == _made_directly(node.coord)
        assert len(check_support._LOCATIONS) <= 10


RECURSIVE_CALLS = """
int f(int x);
int g(int x) { return x > 0 ? f(x - 1) : 0; }
int f(int x) { return g(x) + g(x - 1) + f(x - 2); }
int h(int x) { return x + 1; }
kernel void k(global int *o) {
""" + "".join(f"    o[{i}] = h({i}) + f({i});\n" for i in range(30)) + "}\n"


def test_each_pair_of_functions_is_searched_for_a_cycle_once(monkeypatch):
    """Checker.check_recursion decides each (caller, callee) pair once for its many calls; the
    errors are the ones a search per call reports (one per cycle, at its first call)."""
    from clcoop.frontend import check as C
    searched = []
    real = C._reaches
    monkeypatch.setattr(C, "_reaches", lambda callees, start, goal: searched.append(1) or real(callees, start, goal))
    diag = DiagnosticEngine()
    tree = parse(RECURSIVE_CALLS, "r.cl", diag, Target("spir64-unknown-unknown"))
    C.check(tree, diag, Target("spir64-unknown-unknown"))
    assert diag.render_all() == ("r.cl:3:31: error: recursion is not supported in OpenCL C ('g' calls 'f', "
                                 "which calls 'g' again)\n1 error generated.")
    # g -> f closes the cycle (f -> g and f -> f are then within it); k -> h and k -> f, 60
    # calls, are two pairs.
    assert len(searched) == 3


def test_the_builtin_type_names_are_one_read_only_table_per_target():
    """types.builtin_typedefs is built once per target (every as_<type> call looks a name up:
    a thousand in pocl's test_as_type.cl), read-only, and the table a new build gives."""
    import pytest
    from clcoop.frontend import types as T
    for target in (Target("spir64-unknown-unknown"), Target("spir-unknown-unknown")):
        table = T.builtin_typedefs(target)
        assert T.builtin_typedefs(Target(target.triple)) is table
        assert dict(table) == dict(T.builtin_typedefs.__wrapped__(target))
        assert table["size_t"] == target.size_t and table["float4"] == T.VectorType(T.FLOAT, 4)
        with pytest.raises(TypeError):
            table["float4"] = T.INT


def _scalar_types():
    from clcoop.frontend import types as T
    return [value for value in vars(T).values() if isinstance(value, T.ScalarType)]


def test_scalar_types_compare_as_their_records_compare():
    from clcoop import records
    from clcoop.frontend import types as T
    scalars = _scalar_types()
    copies = [T.ScalarType(t.name, t.kind, t.bits, t.signed) for t in scalars]
    others = [T.VectorType(T.INT, 4), T.PointerType(T.INT, T.GLOBAL, False), "int", 32, None]
    assert len(scalars) >= 15
    for a in scalars + copies:
        for b in scalars + copies + others:
            assert (a == b) == (records._record_eq(a, b) is True), (a, b)
            assert (a != b) == (records._record_eq(a, b) is not True), (a, b)
            if a == b:
                assert hash(a) == hash(b)
    assert T.ScalarType.__eq__ is not records._record_eq      # the field-by-field comparison


def test_each_expression_class_finds_its_method_once(monkeypatch):
    from clcoop.frontend import check_expr
    monkeypatch.setattr(check_expr, "_EXPR_METHODS", {})
    found = record_calls(monkeypatch, check_expr, "_expr_method", lambda checks_class, node_class: node_class.__name__)
    source = "kernel void k(global int *o) {\n" + "".join(
        f"    o[{i}] = o[{i + 1}] * {i} + (int)(o[0] > {i} ? 1.5f : 2.0f);\n" for i in range(20)) + "}\n"
    from clcoop.frontend import driver
    driver.compile_source(source, driver.CompileOptions(filename="k.cl"))
    assert len(found) == len(set(found)) and {"ArrayRef", "BinaryOp", "Cast", "TernaryOp", "Constant"} <= set(found)
    for (checks_class, node_class), (function, takes_expected) in check_expr._EXPR_METHODS.items():
        method = getattr(checks_class, "expr_" + node_class.__name__)
        assert function is method and takes_expected == (method.__code__.co_argcount > 2)


def test_an_expression_class_without_a_method_is_reported_as_before():
    import pytest
    from clcoop.frontend import check_expr

    class Failed(Exception):
        pass

    class Context:
        def fail(self, message, node):
            raise Failed(message, node)
    checks = check_expr.ExpressionChecks.__new__(check_expr.ExpressionChecks)
    checks.ctx = Context()
    node = c_ast.EmptyStatement()
    for _ in range(2):          # found, then kept
        with pytest.raises(Failed) as failed:
            checks.expr(node)
        assert failed.value.args == ("unsupported expression 'EmptyStatement'", node)


PRINTFS = """kernel void k(global int *o) {
    printf("%d %s\\n", o[0], "x");
    printf("%d %d\\n", o[0]);
    printf("%d\\n", o[0], o[1]);
    printf("%v4d %q %d\\n", (int4)(1), o[0]);
    printf("%*.*f %%\\n", 3, 2, 1.5f);
    printf("%d %d\\n", o[0]);
    printf(  "%lu %hhd %d",
           1ul, (char)2);
}
"""


def _eager_argument_count(self, literal, data_nodes):
    """BuiltinCalls.check_printf_argument_count as it was (the oracle): every conversion's
    location found before its checks, the format scanned at every call."""
    from clcoop import printf_format
    used = 0
    for conversion in printf_format.scan(literal.value[1:-1]):
        at = self.literal_offset_location(literal, conversion.end)
        if conversion.error is not None:
            self.ctx.warn(f"invalid printf format: {conversion.error}", at)
        used += conversion.arguments
        if used > len(data_nodes):
            self.ctx.warn("more '%' conversions than data arguments", at)
            return
    if used < len(data_nodes):
        self.ctx.warn("data argument not used by format string", data_nodes[used])


def test_printf_format_warnings_are_the_eager_checks(monkeypatch):
    from clcoop.frontend import builtin_calls, driver
    options = driver.CompileOptions(filename="printfs.cl")
    found = []
    locate = builtin_calls.BuiltinCalls.literal_offset_location

    def counted(self, literal, offset):
        found.append(offset)
        return locate(self, literal, offset)
    monkeypatch.setattr(builtin_calls.BuiltinCalls, "literal_offset_location", counted)
    lazy = driver.compile_source(PRINTFS, options).rendered
    assert "more '%' conversions than data arguments" in lazy and "invalid printf format" in lazy
    assert "data argument not used by format string" in lazy
    assert found == [5, 8, 10, 5, 11]      # the warnings' locations only, not every conversion's
    monkeypatch.setattr(builtin_calls.BuiltinCalls, "check_printf_argument_count", _eager_argument_count)
    assert driver.compile_source(PRINTFS, options).rendered == lazy


def test_each_printf_format_is_scanned_once(monkeypatch):
    from clcoop import printf_format
    from clcoop.frontend import builtin_calls, driver
    scanned = record_calls(monkeypatch, printf_format, "scan")
    builtin_calls._conversions.cache_clear()
    source = "kernel void k(global int *o) {\n" + "    printf(\"%d %u\\n\", o[0], 1u);\n" * 30 + "}\n"
    driver.compile_source(source, driver.CompileOptions(filename="k.cl"))
    builtin_calls._conversions.cache_clear()
    assert scanned == ["%d %u\\n"]


NUMBERS_SOURCE = """kernel void k(global long *o, global float *f) {
    o[0] = 0 + 1 + 017 + 0x7fffffff + 0x80000000 + 0xffffffffffffffff + 0b101 + 2147483647;
    o[1] = 2147483648 + 4294967295 + 4294967296 + 9223372036854775807 + 1u + 1UL + 5l + 7LU;
    o[2] = 18446744073709551615 + 'a';
    f[0] = 1.0f + 1.0 + 0x1p-3f + 1e10 + 2.f + .5e-3F + 1.5L;
}
"""


class _LiteralContext:
    def __init__(self):
        self.warnings = []

    def warn(self, message, node):
        self.warnings.append((message, node.value))

    def fail(self, message, node):
        raise AssertionError(message)

    def require_fp16(self, message, node):
        pass


def test_a_kept_number_is_the_constant_made_from_its_spelling(monkeypatch):
    from clcoop.frontend import literals
    monkeypatch.setattr(literals, "_NUMBERS", {})
    diag = DiagnosticEngine()
    tree = parse(NUMBERS_SOURCE, "k.cl", diag, Target("spir64-unknown-unknown"))
    constants = [n for n in _nodes(tree) if isinstance(n, c_ast.Constant)]
    assert len(constants) >= 20
    ctx = _LiteralContext()
    checks = literals.Literals(ctx)
    for node in constants:
        made = checks.constant_made(node)
        found = checks.expr_Constant(node)
        assert (type(found), found.type, found.value, found.loc) == (type(made), made.type, made.value, made.loc)
    assert len(literals._NUMBERS) >= 20
    # The too-large decimal constant is never kept: it warns at each use, as when made.
    assert ctx.warnings == [(ctx.warnings[0][0], "18446744073709551615")] * 2
    assert ("int", "18446744073709551615") not in literals._NUMBERS


def _lookup_by_membership(scope, name):
    """The oracle: Scope.lookup as `in`, then the entry."""
    while scope is not None:
        if name in scope.names:
            return scope.names[name]
        scope = scope.parent
    return None


def test_a_scope_finds_what_membership_finds():
    outer = check_support.Scope()
    inner = check_support.Scope(check_support.Scope(outer))
    outer.names.update(a=("typedef", 1, None, None), b=("enum", 0, None, None), c=("enum", 2, None, None))
    inner.names.update(b=("enum", 1, None, None), d=("typedef", 3, None, None))
    for name in "abcdex":
        assert inner.lookup(name) is _lookup_by_membership(inner, name)
        assert outer.lookup(name) is _lookup_by_membership(outer, name)


def _attributes_by_concatenation(decl):
    """The oracle: DeclTypes.attributes_of before qualifier strings were skipped."""
    found = []

    def add_list(exprlist):
        if exprlist is None:
            return
        exprs = getattr(exprlist, "exprs", None)
        if exprs is None:
            exprs = [exprlist]
        for e in exprs:
            if isinstance(e, c_ast.FuncCall) and isinstance(e.name, c_ast.ID):
                found.append((e.name.name, list(e.args.exprs if e.args is not None else []), e))
            elif isinstance(e, c_ast.ID):
                found.append((e.name, [], e))
            elif isinstance(e, c_ast.ExprList):
                add_list(e)

    for spec in list(getattr(decl, "funcspec", None) or []) + list(getattr(decl, "quals", None) or []):
        if type(spec).__name__ == "AttributeSpecifier":
            add_list(spec.exprlist)
    node = getattr(decl, "type", None)
    while node is not None:
        if getattr(node, "attributes", None) is not None:
            add_list(node.attributes)
        for q in getattr(node, "quals", None) or []:
            if type(q).__name__ == "AttributeSpecifier":
                add_list(q.exprlist)
        node = getattr(node, "type", None)
        if not isinstance(node, c_ast.Node):
            break
    return found


ATTRIBUTES_SOURCE = """typedef float float4_t __attribute__((ext_vector_type(4)));
typedef struct { int a __attribute__((aligned(8))); } __attribute__((packed)) S;
__attribute__((overloadable)) int f(int x);
__attribute__((overloadable)) __attribute__((always_inline)) int f(float x);
kernel __attribute__((reqd_work_group_size(8, 1, 1))) __attribute__((vec_type_hint(float4)))
void k(global const volatile int * restrict o, local float *l) {
    __attribute__((aligned(16))) const int v[4] = {1, 2, 3, 4};
    private int *const p = 0;
    o[0] = v[0];
}
"""


def test_a_declarations_attributes_are_the_concatenated_lists():
    from clcoop.frontend import decl_types
    tree = parse(ATTRIBUTES_SOURCE, "k.cl", DiagnosticEngine(), Target("spir64-unknown-unknown"))
    decls = [n for n in _nodes(tree) if isinstance(n, (c_ast.Decl, c_ast.Typedef, c_ast.Typename))]
    checks = decl_types.DeclTypes.__new__(decl_types.DeclTypes)
    names = set()
    for decl in decls:
        found = checks.attributes_of(decl)
        assert found == _attributes_by_concatenation(decl)
        names.update(name for name, _, _ in found)
    assert {"ext_vector_type", "aligned", "packed", "overloadable", "always_inline",
            "reqd_work_group_size", "vec_type_hint"} <= names



def _subclasses(cls):
    for sub in cls.__subclasses__():
        yield sub
        yield from _subclasses(sub)


def test_the_class_predicates_of_a_type_are_its_isinstance_tests():
    """CType's is_pointer, is_vector, is_coop_matrix, is_coop_tensor and is_coop_opaque are
    class attributes; the oracle is the isinstance test each property made."""
    from clcoop.frontend import types as T
    classes = [T.CType] + list(_subclasses(T.CType))
    assert len(classes) >= 12
    for cls in classes:
        assert cls.is_pointer is issubclass(cls, T.PointerType), cls
        assert cls.is_vector is issubclass(cls, T.VectorType), cls
        assert cls.is_coop_matrix is issubclass(cls, T.CoopMatType), cls
        assert cls.is_coop_tensor is issubclass(cls, T.CoopTensorType), cls
        assert cls.is_coop_opaque is issubclass(cls, (T.CoopMatType, T.CoopTensorType)), cls
        predicates = {"is_pointer", "is_vector", "is_coop_matrix", "is_coop_tensor", "is_coop_opaque"}
        assert not predicates & set(getattr(cls, "__dataclass_fields__", ())), cls      # not fields
    for t in (T.INT, T.PointerType(T.INT, T.GLOBAL), T.vector_of(T.FLOAT, 4), T.ArrayType(T.INT, 4)):
        assert (t.is_pointer, t.is_vector, t.is_coop_matrix, t.is_coop_opaque) == (
            isinstance(t, T.PointerType), isinstance(t, T.VectorType), isinstance(t, T.CoopMatType),
            isinstance(t, (T.CoopMatType, T.CoopTensorType)))


def _scalar_predicates_as_properties(t):
    """The oracle: CType's is_scalar, is_integer, is_float, is_arithmetic and is_void as the
    properties they were."""
    from clcoop.frontend import types as T
    scalar = isinstance(t, T.ScalarType)
    integer = scalar and t.kind in ("int", "bool")
    real = scalar and t.kind == "float"
    return scalar and t.kind != "void", integer, real, integer or real, scalar and t.kind == "void"


def test_the_kind_predicates_of_a_type_are_the_properties_they_were():
    import copy
    import dataclasses
    import pickle
    from clcoop.frontend import types as T
    scalars = _scalar_types() + [T.ScalarType("x", "int", 8, True), dataclasses.replace(T.INT, kind="float")]
    others = [T.PointerType(T.INT, T.GLOBAL), T.vector_of(T.FLOAT, 4), T.ArrayType(T.INT, 4), T.EVENT,
              T.EnumType("e"), T.StructType("s", False)]
    assert {t.kind for t in scalars} == {"int", "float", "bool", "void", "fp8"}
    for t in scalars + others + [copy.copy(t) for t in scalars] + [pickle.loads(pickle.dumps(t)) for t in scalars]:
        assert (t.is_scalar, t.is_integer, t.is_float, t.is_arithmetic, t.is_void) == \
            _scalar_predicates_as_properties(t), t
    assert [f.name for f in dataclasses.fields(T.ScalarType)] == ["name", "kind", "bits", "signed"]
    assert T.ScalarType(name="int", kind="int", bits=32, signed=True) == T.INT


SWIZZLES = """kernel void k(global float *o) {
  float4 v = (float4)(1.0f);
  float2 w = (float2)(1.0f);
  o[0] = v.x + v.s3 + w.y + v.lo.y + v.xyzw.w + v.odd.x;
  o[1] = v.xyq;
  o[2] = w.w;
  o[3] = v.s9;
}
"""


def test_a_swizzles_dot_is_found_only_for_its_error(monkeypatch):
    """The '.' of a vector component name is looked up in the source line for an error only;
    where it points is test/lit/diagnostics/vector-components.cl's (clang-22's columns)."""
    from clcoop.frontend import check_expr, driver
    found = []
    locate = check_expr.operator_location

    def counted(sources, op, operand, fallback):
        found.append(op)
        return locate(sources, op, operand, fallback)
    monkeypatch.setattr(check_expr, "operator_location", counted)
    import pytest
    from clcoop.errors import CompileError
    with pytest.raises(CompileError) as failed:
        driver.compile_source(SWIZZLES, driver.CompileOptions(filename="s.cl"))
    rendered = str(failed.value)
    assert "s.cl:5:14: error: illegal vector component name 'q'" in rendered
    assert "s.cl:6:11: error: vector component access exceeds type 'float2'" in rendered
    assert "s.cl:7:11: error: vector component access exceeds type 'float4'" in rendered
    assert found.count(".") == 3        # the three errors, not the six valid names before them


def test_a_kept_strings_bytes_are_the_bytes_made_from_its_spelling(monkeypatch):
    from clcoop.frontend import literals
    monkeypatch.setattr(literals, "_STRINGS", {})
    source = (r'constant char a[] = "plain", b[] = "tab\there\n", c[] = "\x41\x7e\101\0z\?\"q\"";' "\n"
              r'kernel void k(global int *o) { printf("%d\n", 1); printf("%d\n", 2); printf("\xff\377"); }' "\n")
    tree = parse(source, "k.cl", DiagnosticEngine(), Target("spir64-unknown-unknown"))
    strings = [n for n in _nodes(tree) if isinstance(n, c_ast.Constant) and n.type == "string"]
    assert len(strings) == 6
    checks = literals.Literals(_LiteralContext())
    for node in strings:
        made = checks.string_bytes_made(node)
        assert checks.string_bytes(node) == made and checks.string_bytes(node) is literals._STRINGS[node.value]
    assert len(literals._STRINGS) == 5 and literals._STRINGS['"%d\\n"'] == b"%d\n"
    assert literals._STRINGS['"\\x41\\x7e\\101\\0z\\?\\"q\\""'] == b'A~A\x00z?"q"'
