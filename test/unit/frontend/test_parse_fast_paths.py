"""The parser's fast paths (clcoop/frontend/parse.py, parse_expr.py) against the slower ones
they replace: the expressions by precedence climbing (parse_expr.ExpressionRules), the
statements dispatched on their first token, one-token type names and one-name declarators,
the table of typedef names; and the lexer's names, punctuators, plain integers, strings,
#line markers and lines split at their spaces (ClcoopLexer.token). The AST must be the one
pycparser's rules build (the full descent: _full_descent), node for node and coordinate for
coordinate, with the same diagnostics, and the tokens those pycparser's own matching gives;
over sources written for the paths and every kernel of examples/ and test/lit."""
from pathlib import Path

import pytest
from pycparser import c_ast
from pycparserext.ext_c_parser import OpenCLCParser

from clcoop.diagnostics import DiagnosticEngine
from clcoop.frontend import parse as P
from clcoop.frontend import parse_decl
from clcoop.frontend.types import Target

SOURCES = {
    "tables": """
        constant uint t[] = {0x0, 1U, 2u, 3l, 4UL, 'a', 1.5f, 2.0, 0x1p3f, 07, 0b101};
        int u[2][3] = {{1, 2, 3}, {4, 5, 6}};
        struct P { int x; float y; } ps[] = {{1, 2.0f}, {.y = 3, .x = 4}, [0].x = 5};
        """,
    "operands": """
        typedef int T;
        struct S { int a; int b : 3; } s;
        enum E { A = 1, B, C = A + 2 };
        int f(int x, global int *p, struct S *q) {
            int y = x, z = (int)x, w = (T)1, v = sizeof x, r = sizeof(T);
            y = x; y = x + 1 * z - w / v % r; y += x; y = -x; y = !x; y = ~x;
            y = p[x]; y = p[1]; y = q->a; y = s.b; y = x++; y = ++x; y = x--;
            y = f(x, p, q); y = f(1, p, q); y = x ? 1 : 2; y = x ? y : z;
            y = (int[]){5, 6}[1]; y = ((x)); y = (x, z);
            y = z = x; y = 1 + 2 * 3 - 4 << 1 | x & 7 ^ w; y = x < y && y >= z || !x; y = x ? y = 1 : z;
            y = 3 ? x : y ? z : w; y = x, z = y; y = v * (x + 1) + p[1] * q->a; y = 'a' + x++;
            switch (x) { case 1: y = 2; break; case A: break; default: ; }
            for (int i = 0; i < x; ++i) p[i] = i;
            if (x) return x; else return 1;
        }
        kernel void k(global float *o) { float4 v = (float4)(1, 2, 3, 4); o[0] = v.x; o[1] = 0.5h; }
        """,
    "postfix operators": """
        typedef struct { int v[4]; int (*f)(int); } R;
        typedef int T;
        struct Q { R r; struct Q *next; T T2; };
        int h(int x) { return x; }
        int (*pick(int k))(int) { return h; }
        int g(struct Q *q, R *r, int i) {
            i = q->next->r.v[i]++ + r[0].v[1]-- - q[i].r.f(i)--;
            i = pick(1)(2) + (h)(3) + ((int[]){1, 2})[i] + (R){{1}, h}.v[0] + sizeof q->r.v[1];
            i = -q->next[0].r.v[2] * !i + ~i[q->r.v] + *&i + ++i + --i + (int)+i + i++ + i--;
            i = h(h(h(i))) + q->T2 + r->f(i)[&i - &i] + (R){0}.v[1]++ + (T){3};
            return q->r.v[h(i) ? i : -i];
        }
        """,
    "scopes": """
        typedef int T;
        typedef float U;
        int f(int T) { int x = T + 1; { typedef char T; T y = 2; x += y; } return T * x; }
        U g(void) { T t = 1; { int U = 3; t += U; { typedef int U; U z = t; t = z; } t += U; }
                    U u = t; T w = (T)u; { for (int T = 0; T < 2; T++) u += T; } return u + w; }
        int h(T a, U b) { { int T = 4; a += T; } T r = a; { typedef T *P; P p = &r; } return r + (int)b; }
        T k(T v) { T T2 = v; return T2; }
        """,
    "declarations and type names": """
        typedef struct { int a : 4, : 2, b; float f[2]; } S;
        int x __attribute__((aligned(4))), *y, z[3] = {1, 2, 3}, (w) = 1, u asm("u");
        constant int c = sizeof(int) + sizeof(S) + sizeof(float4) + sizeof c + sizeof(unsigned int)
                         + sizeof(int *) + sizeof(const int) + sizeof (S) + sizeof(x) + sizeof(1);
        int f(int n, global float *p) {
            int i, j = n, k; S s = {1, 2}; float4 v = (float4)(1.0f), t = (float4)(1, 2, 3, 4);
            i = (int)(char)n + (unsigned)j + (S){1}.a + (S){2, 3}.b + (int)-n + (long)(int)+1;
            k = i = j; return (int)p[0] + s.b + (int)v.x + i + k + (int)t.y + (x);
        }
        """,
    "declarators": """
        typedef int T;
        typedef float V[4], *W, **X[2];
        constant int N = 3;
        global int g0, *g1, g2[2], *g3[3], **g4, g5[2][N + 1], g6[] = {1, 2}, *const g7 = 0;
        static const volatile int s0 = 1, s1[4] = {0}, *restrict s2;
        struct P { int a[4]; float *p, **q; char c[2][3]; T t; unsigned int u : 3, : 2, w; } ps;
        union U { uchar raw[sizeof(int)]; int value; } us = {{1, 2}};
        enum E { A, B = 2 } e0, e1[B];
        inline int f(global int *p, local float * const q, constant uchar *r, int n, T t,
                     global int * global * restrict pp, int a[4], int b[][2], private int *z);
        kernel void k(global float *o, int n) {
            int i, *pi = &i, ai[3] = {1, 2, 3}, aj[2][2] = {{1}, {2}}, *pa[2] = {pi, pi};
            local float tile[16][N * 2 + 1];
            private uchar bytes[sizeof(float4)];
            unsigned long long x = 1, y[sizeof(x) / sizeof(int)];
            const global float *const in = o;
            union { char value; uchar raw[sizeof(char)]; } src, dst;
            struct { int a; } *sp = 0, sa[2];
            float4 v[2] = {(float4)(1), (float4)(2)};
            T t = 1, tt[2] = {t, t};
            o[n] = tile[0][0] + bytes[0] + in[0] + v[1].x + ai[0] + aj[1][0] + *pa[1] + t + src.raw[0];
        }
        """,
    "declarators the base's rules take": """
        typedef int T;
        int (*fp)(int), (*afp[2])(int), *(*pfp)(void), proto(int, float *, T[3]);
        int x __attribute__((aligned(4))), y[2] __attribute__((aligned(8))), *z __attribute__((unused));
        int u asm("u"), v[2] asm("v");
        int h(int n, int [*], int m[static 4], int *, int [], T (a), float4);
        int va(constant char *format, ...), vb(void), vc(const int, volatile float4 *restrict, ...);
        int g(int n) { int T2 = n; { T T = 1; n += T; } return T2 + n; }
        int (w) = 1, ((ww))[2];
        _Atomic(int) at0, at1[2];
        _Alignas(8) int al0, al1[2];
        int __attribute__((unused)) *q0, q1;
        struct Q { union { int i; float f; }; struct { int x; } __attribute__((packed)); _Alignas(4) int al;
                   const int c; int b : 2 __attribute__((packed)); int : 0, e : 1; __attribute__((aligned)) int d; ;
                   struct R { int r; } rr, *pr; enum { Q0, Q1 } qe : 2; volatile struct R vr; } qs;
        """,
    # A #line marker inside a declaration: each Coord takes the file the lexer is in when the
    # base's rules make it (a pointer's once the name is lexed, a name's before what follows).
    "declarators across #line markers": (
        '#line 1 "a.cl"\nglobal int *\n#line 5 "b.cl"\n* const p\n#line 9 "c.cl"\n, q\n#line 12 "d.cl"\n'
        '[2]\n#line 20 "e.cl"\n[\n#line 30 "f.cl"\n3], r\n#line 40 "g.cl"\n;\n'
        'struct S { int\n#line 50 "h.cl"\na\n#line 60 "i.cl"\n[4]; } s;\n'
        'void k(global int\n#line 70 "j.cl"\n*\n#line 80 "k.cl"\nx\n#line 90 "l.cl"\n) { }\n'),
    "statement expressions and strings": """
        constant char *names[] = {"a", "b" "c", "d"};
        int g(int x) { int y = ({ int t = x; t + 1; }); return y; }
        """,
}

ERRORS = ["int f(int x) { return x 1; }\n", "int t[] = {1, 2 3};\n", "int f() { x; }\n",
          "int f(int x) { int y = x\n return y; }\n",
          # postfix operators cut short, a struct reference without a name, end of file
          "struct S { int a; } s; int f(int x) { return s.1 + s->; }\n",
          "int f(int *p) { return p[1 + f(p, ; }\nint g(int x) { return x++ ++ x; }\n",
          "int f(int *p) { return p[0](1)(2)[3]", "int f(int x) { return x. }\n",
          "int f(int x) { return (x)(1 +) + x->y[; }\nint g() { return h(1, 2 }\n",
          # an expression going on from a one-token operand, cut short or wrong
          "int f(int x) { x = ; x ? 1 ; x = x + ; return x ? x : ; }\nint g(int y) { y y; 1 = = 2; }\n",
          "int f(int x) { return x +",
          # declarators cut short or wrong
          "int a[3;\nint *;\nint b[] = ;\nint *c[2 = {0};\nstruct { int d[; } s;\nint e[2][;\n",
          "int f(global int *, int p[) { int *const; int **q[1 +; int r[2] x; }\nint *",
          "void g() { int a[2], b[3] c; float *d, e[ }\nint h[1][2"]


def _parse(text):
    diag = DiagnosticEngine()
    ast = P.parse(text, "f.cl", diag, Target("spir64-unknown-unknown"))
    return (ast.__repr__() if ast is not None else None), diag.render_all()


def _advance_through_the_stream(self):
    """ClcoopParser._advance as it was before the token stream's next() was inlined."""
    tok = self._tokens.next()
    if tok is None:
        self._parse_error("unexpected end of file", None)
    self._last_token = tok
    return tok


def _expect_through_peek(self):
    """ClcoopParser._expect as it was before a buffered token was taken in place."""
    def expect(token_type):
        tok = self._peek()
        if tok is None or tok.type != token_type:
            self._error_expected(token_type, tok)
        return self._advance()
    return expect


def _postfix_through_the_base(self):
    """ClcoopParser._parse_postfix_expression as it was before _postfix_operators: every
    postfix expression through the base parser's rule, a compound literal's postfix
    operators too (its primary expression handed over by _primary_or_pending)."""
    start = self._peek()
    expr = OpenCLCParser._parse_postfix_expression(self)
    if isinstance(expr, c_ast.CompoundLiteral):
        if expr.coord is None and start is not None:
            expr.coord = self._tok_coord(start)
        if self._peek_type() in P._POSTFIX_AFTER_LITERAL:
            self._pending_primary = expr
            expr = OpenCLCParser._parse_postfix_expression(self)
    return expr


def _primary_or_pending(self):
    pending, self._pending_primary = getattr(self, "_pending_primary", None), None
    return pending if pending is not None else OpenCLCParser._parse_primary_expression(self)


def _statement_through_the_base(self):
    """ClcoopParser._parse_statement before its dispatch on the first token: loop attributes,
    then the base's rule (asm, labels, the rest)."""
    if self._loop_attributes_ahead():
        hint = self._loop_attributes(self._parse_attributes_opt())
        loop = OpenCLCParser._parse_statement(self)
        P.LOOP_UNROLL_HINTS[loop] = hint
        return loop
    return OpenCLCParser._parse_statement(self)


def _block_item_through_the_base(self):
    """ClcoopParser._parse_block_item before its dispatch on the first token."""
    start = self._mark()
    try:
        if self._loop_attributes_ahead():
            return self._parse_statement()
        return OpenCLCParser._parse_block_item(self)
    except P.SyntaxErrorAt as err:
        if len(self.errors) >= P.MAX_SYNTAX_ERRORS:
            raise
        self.errors.append(err)
        self._recover(start, stop_at_rbrace=True)
        return []


def _full_descent(monkeypatch):
    """The base parser's methods in place of the fast ones, and pycparser's token matching."""
    for name in ("_parse_expression", "_parse_assignment_expression", "_parse_conditional_expression",
                 "_parse_binary_expression", "_parse_cast_expression", "_peek", "_peek_type",
                 "_accept", "_coord", "_tok_coord", "_try_parse_paren_type_name",
                 "_push_scope", "_pop_scope", "_add_typedef_name", "_add_identifier", "_is_type_in_scope",
                 "_parse_declarator", "_parse_id_declarator", "_parse_any_declarator",
                 "_parse_declaration_specifiers", "_parse_specifier_qualifier_list",
                 "_peek_declarator_name_info", "_parse_struct_declaration", "_parse_struct_declarator",
                 "_parse_decl_body", "_parse_init_declarator_list", "_parse_init_declarator",
                 "_parse_initializer", "_parse_initializer_list", "_parse_parameter_list"):
        monkeypatch.setattr(P.ClcoopParser, name, getattr(OpenCLCParser, name))
    monkeypatch.delattr(parse_decl.DeclarationRules, "_build_declarations")
    monkeypatch.delattr(parse_decl.DeclarationRules, "_parse_parameter_declaration")
    monkeypatch.setattr(P.ClcoopParser, "_advance", _advance_through_the_stream)
    monkeypatch.setattr(P.ClcoopParser, "_expect", lambda self, kind: _expect_through_peek(self)(kind))
    monkeypatch.setattr(P.ClcoopParser, "_parse_postfix_expression", _postfix_through_the_base)
    monkeypatch.setattr(P.ClcoopParser, "_parse_primary_expression", _primary_or_pending)
    monkeypatch.setattr(P.ClcoopParser, "_parse_statement", _statement_through_the_base)
    monkeypatch.setattr(P.ClcoopParser, "_parse_block_item", _block_item_through_the_base)
    original_init = P.ClcoopParser.__init__

    def init_asking_through_the_base(self, **kwds):
        original_init(self, **kwds)
        self.clex.type_lookup_func = self._lex_type_lookup_func

    monkeypatch.setattr(P.ClcoopParser, "__init__", init_asking_through_the_base)
    monkeypatch.setattr(P.ClcoopLexer, "fast_paths", False)


def _dump(text):
    """The tree node by node with coordinates, and the diagnostics (_nodes)."""
    return _nodes(text)


@pytest.mark.parametrize("name", list(SOURCES) + [f"error {i}" for i in range(len(ERRORS))])
def test_the_fast_paths_build_the_full_descents_tree(name, monkeypatch):
    text = SOURCES[name] if name in SOURCES else ERRORS[int(name.split()[1])]
    fast = _dump(text)
    with monkeypatch.context() as patched:
        _full_descent(patched)
        full = _dump(text)
    assert fast == full
    if name in SOURCES:
        assert fast[1] == "", fast[1]


def test_a_table_of_numbers_does_not_descend_the_precedence_levels(monkeypatch):
    calls = []
    original = OpenCLCParser._parse_unary_expression
    monkeypatch.setattr(OpenCLCParser, "_parse_unary_expression",
                        lambda self: calls.append(1) or original(self))
    table = ", ".join(str(i) for i in range(1000))
    tree, rendered = _parse(f"constant uint t[] = {{{table}}};\n")
    assert rendered == "" and tree.count("Constant(") == 1000
    assert calls == []


def test_common_declarations_do_not_enter_the_base_declaration_rules(monkeypatch):
    """Specifiers, pointer and array declarators, init-declarator lists and struct members
    as pocl's kernels write them: none reaches the base's declarator scan, declarator,
    array or specifier rules or its _build_declarations (the kernel's function declarator
    is the base's)."""
    calls = []
    for cls, name in ((OpenCLCParser, "_scan_declarator_name_info"), (OpenCLCParser, "_parse_declarator_kind"),
                      (OpenCLCParser, "_parse_array_decl_common"), (OpenCLCParser, "_add_declaration_specifier"),
                      (OpenCLCParser, "_parse_declaration_specifiers"), (OpenCLCParser, "_build_declarations"),
                      (OpenCLCParser, "_parse_specifier_qualifier_list"), (OpenCLCParser, "_parse_struct_declaration"),
                      (OpenCLCParser, "_parse_init_declarator"), (OpenCLCParser, "_parse_initializer_item")):
        original = getattr(cls, name)
        monkeypatch.setattr(cls, name, lambda self, *args, _name=name, _original=original, **kwds:
                            calls.append(_name) or _original(self, *args, **kwds))
    nodes, rendered = _nodes("""
        constant uint t[4] = {1, 2, 3, 4};
        kernel void k(global float *out, global const float *in, int n) {
            size_t gid = get_global_id(0), *pg = &gid;
            union { char value; uchar raw[sizeof(char)]; } src, dst;
            local float tile[16][16 + 1];
            float acc = in[gid], parts[2][3] = {{1, 2, 3}, {4, 5, 6}};
            const global float *const p = in;
            out[gid] = acc + tile[0][1] + src.value + dst.raw[0] + parts[1][2] + *p + t[0] + *pg;
        }
        """)
    kinds = [node[0] for node in nodes]
    assert rendered == "" and kinds.count("ArrayDecl") == 7 and kinds.count("PtrDecl") == 4
    assert calls == ["_parse_declarator_kind"]


# Every punctuator, names next to quotes (L"x" is a wide string, u8'c' a character), `$` in
# names, numbers that start with '.', comments and errors the master pattern reports.
LEXER_TEXT = r"""
a+++b;c-->d;e<<=f>>=g;h...i;j->k&&l||m;n!=o==p<=q>=r;s*=t/=u%=v+=w-=x&=y|=z^=A;
~B!C?D:E;F[G](H){I}J,K.L;M<N>O&P|Q^R%S/T*U-V+W=X;
L"w" u8"a" u"b" U"c" L'x' u8'y' u'z' U'q' Lx u8x ux Ux L ' $id a$b _x9
.5 x.y 1.5f 0x1p3 07 0b1 0x1F 'a' "s\n" 09 '' 'ab' // a comment
kernel __global float4 int unsigned __attribute__((aligned(4))) __generic generic
@ # `
1 0 00 017 0x1f 0XAB 123456 1u 0x 0xg 08 019 1e3 1.e2 1..2 .. ... x.y x . y x/y x/=y 4/ 2
"" "a" "a\"b" "\\" "x\ty\n" "bad\q" "%s\x41\101" u"w" x"y" 1"z" 0x1F"s" a/*b
"unterminated
"""


# What the preprocessor writes between tokens and what the lexer's token() leaves to
# pycparser: #line markers (the file and line change), pragmas (a PPPRAGMA and its string),
# a `#` of no directive, tabs, other blanks, a name or a quote at a line's start or end.
LINES_TEXT = '#line 3 "a.cl"\n  x = y;\t\tz\n#pragma OPENCL EXTENSION cl_khr_fp16 : enable\n{ a }\n' \
    '# 7 "b \\"q\\".cl"\n\tL"s" \r q \x0c r\n#pragma unroll\nfloat4 T\n# define x\n #line 20\nw\n' \
    "u8'c'\n}\n  \n\n#line 5 \"c.cl\" 1 3\n(float4)(1) ; 0.5h 1.0hx .5f ..\n''"


# Lines as the preprocessor writes a macro's expansion (tokens one space apart), which the
# lexer splits at its spaces: pieces of one token (punctuators, keywords, names, typedef
# names, plain integers, braces) and pieces it hands to the match (several tokens, literals
# with and without spaces, one ending inside a piece, numbers with suffixes or points,
# comments, one over two lines, tabs, `$`, non-ASCII names, bad constants), several spaces,
# a trailing space, a #line marker, the end of input without a newline.
SPLIT_TEXT = (
    '\nx = y + 1 ; { int z = x << 2 ; } T a , * b ; if ( a >= b ) return 0x1F + 017 + 0 ;\n'
    'f ( "a b  c" , "d" ) ; ({ x ; }) ; a.b [ 1 ] ->c ++ ; 1.5f + 2u + 0.5h + 1e3 + .5 ;\n'
    'g ( "x y", 1 ) ; h ( "p q"+ 2 , "r" ) ; /* a\nb */ k = 1 ; "s t" ;\n'
    'x  =   y ; \t z = 1 ;\ty = 2 ; /* c d */ x = 3 ; // e f\n'
    'q = L"w x" + u8\'c\' + L\'d\' + $id + a$b + 08 + 0x + 0xg + 09 + 1"z" + \u00e9t\u00e9 ;\n'
    '#line 7 "g.cl"\n'
    '  ... . / /= a /b ; x ++ -- -> != == <<= >>= ; kernel float4 __global generic T ; \n'
    '\n'
    '} } x ; "unterminated\n'
    'last = 1 ; tail'
)


# Pieces of several tokens (no spaces between them, as a source's own lines write them),
# which the lexer splits into names, punctuators, plain integers and decimal floats: braces
# inside a piece, typedef names, keywords, floats with and without `f` next to
# punctuators; and the pieces it hands to the match from where its split stops: a float
# with an exponent, a half suffix or a second point, `1.f`, `.5f`, hex floats, `08`, `$` in
# names, non-ASCII names, a literal, a string with a space, a comment, a tab.
PIECES_TEXT = (
    'f(x[i],y);{int*p=&a[0];}T*q;while(i<n){s+=1.5f*x;}return(float4)(1.5,2.0f);\n'
    'x=0.5h+1.5e3f+2.5.3+1.f+.5f+0x1p3f+0x1F+017+08+09;a$b=c$;\u00e9t\u00e9=1;x=L"w"+\'c\';\n'
    'p("a b",1);q("c");r=x/*c*/+y;z=w//e\n'
    'w("\\%");s("%d\\n",x);t("\\q");u("a"L"b");v("\\"");"x""y",\'z\',"\u00e9";"(("u8"k";\n'
    'k=1;\tm=2;{{}}x.y=a->b[c]++;--d;e>>=f<<2;g=h?i:j;\n'
    't={0x1FUL,1u+2U*3ul-4LL+5llu,0U,07L,0xffu,1lL,1uLl,0b101u,123Ux,2892198447U};\n'
    '    0x7fffffffffffffffL\n  ,(double)0xffffffffffffffffUL 1U 0u 017u 0X1Fl 9lu 1ull 1uLL 1LLU 1Lu\n'
    '#line 4 "p.cl"\n'
    'x=1.5;y=(T)2.25F;z=0.0f}'
)


def _tokens(text, fast):
    errors = []
    lexer = P.ClcoopLexer(error_func=lambda msg, line, col: errors.append((msg, line, col)),
                          on_lbrace_func=lambda: errors.append("{"),
                          on_rbrace_func=lambda: errors.append("}"),
                          type_lookup_func=lambda name: name in ("float4", "T"))
    lexer.fast_paths = fast
    lexer.input(text, "f.cl")
    tokens = []
    while (tok := lexer.token()) is not None:
        tokens.append((tok.type, tok.value, tok.lineno, tok.column, lexer.filename))
    return tokens, errors


def test_common_tokens_do_not_reach_pycparsers_token(monkeypatch):
    """Numbers (suffixed integers and decimal floats too), strings, periods, divisions and
    #line markers are the fast paths' own (they
    were a sixth of the tokens pocl's macro-heavy files lexed the slow way)."""
    from pycparser.c_lexer import CLexer
    slow = []
    original = CLexer.token
    monkeypatch.setattr(CLexer, "token", lambda self: slow.append(1) or original(self))
    text = '#line 4 "a.cl"\nx = s.a / 10 + 0x1F * 07 / 0;\n# 9 "b.cl"\np("%d\\n", 1) ... y /= 2;\n' \
        '  2892198447U,\n  0x7f800000U ,0UL, 1.5f;\n'
    tokens, errors = _tokens(text, True)
    assert len(tokens) == 33 and errors == [] and slow == [1]    # the end of the input
    assert ("INT_CONST_DEC", "2892198447U", 10, 3, "b.cl") in tokens
    assert ("INT_CONST_OCT", "0UL", 11, 16, "b.cl") in tokens
    assert tokens[-1][4] == "b.cl" and tokens[-1][2] == 11


def test_a_line_of_tokens_one_space_apart_is_not_matched_token_by_token(monkeypatch):
    """A macro's expansion as the preprocessor writes it: the line is split at its spaces,
    and the pattern is matched only at the line's start and end (the piece of three
    tokens, `a.b`, is split into them without it)."""
    matched = []
    original = P.ClcoopLexer._match_from_text
    monkeypatch.setattr(P.ClcoopLexer, "_match_from_text", lambda self: matched.append(1) or original(self))
    text = '# 1 "a.cl"\n  y = ( T ) x [ 0x1F ] + f ( 1 , 2 ) ; { z -= ~ y ; } w = a.b ; return 0 ;\n'
    tokens, errors = _tokens(text, True)
    assert len(tokens) == 33 and errors == ["{", "}"]
    assert len(matched) == 2        # the line's start, the end


def _corpus_texts():
    """Every kernel of examples/ and test/lit that preprocesses without errors, preprocessed
    (the parse tests' sources: syntax errors included)."""
    from clcoop.errors import CompileError
    from clcoop.frontend import driver
    root = Path(__file__).resolve().parents[3]
    for path in sorted((root / "examples").glob("**/*.cl")) + sorted((root / "test" / "lit").glob("**/*.cl")):
        try:
            yield driver.preprocess_source(path.read_bytes(), driver.CompileOptions(filename=str(path))).ir
        except CompileError:
            continue


def test_every_kernel_of_the_examples_and_lit_parses_to_the_full_descents_tree(monkeypatch):
    """examples/ and test/lit, preprocessed: the same tokens as pycparser's matching gives,
    and the same tree (node by node, with coordinates, attributes and asm labels) and
    diagnostics as the base parser's rules build."""
    texts = list(_corpus_texts())
    assert len(texts) > 180
    for text in texts:
        assert _tokens(text, True) == _tokens(text, False)
    fast = [_nodes(text) for text in texts]
    with monkeypatch.context() as patched:
        _full_descent(patched)
        full = [_nodes(text) for text in texts]
    for text, fast_one, full_one in zip(texts, fast, full):
        assert fast_one == full_one, text[:200]
    assert sum(len(nodes) for nodes, _ in fast) > 40000


def test_pieces_of_several_tokens_are_not_matched_token_by_token(monkeypatch):
    """A line as a source writes it (`f(x[i],1.5f);`): each piece is split into its tokens
    without the pattern, floats included, and pycparser's own matching is not reached."""
    from pycparser.c_lexer import CLexer
    matched, slow = [], []
    original = P.ClcoopLexer._match_from_text
    monkeypatch.setattr(P.ClcoopLexer, "_match_from_text", lambda self: matched.append(1) or original(self))
    original_token = CLexer.token
    monkeypatch.setattr(CLexer, "token", lambda self: slow.append(1) or original_token(self))
    text = '# 1 "a.cl"\n  y=f(x[i],1.5f)*2.0; {z-=(T)y;} w=a.b+0x1F;\n'
    tokens, errors = _tokens(text, True)
    assert len(tokens) == 31 and errors == ["{", "}"]
    assert ("FLOAT_CONST", "1.5f", 1, 12, "a.cl") in tokens and ("FLOAT_CONST", "2.0", 1, 18, "a.cl") in tokens
    assert len(matched) == 2 and slow == [1]        # the line's start, the end


@pytest.mark.parametrize("text", [LEXER_TEXT, LINES_TEXT, SPLIT_TEXT, PIECES_TEXT] + list(SOURCES.values()) + ERRORS)
def test_the_lexers_fast_paths_give_pycparsers_tokens(text):
    fast = _tokens(text, True)
    assert fast == _tokens(text, False)
    assert fast[0]


def _nodes(text):
    """Every node of the tree (its class, attributes and coordinate, in walk order) and the
    diagnostics (not the tree's repr, which fails for a TypeDeclExt carrying attributes: it
    has no `asm`)."""
    diag = DiagnosticEngine()
    ast = P.parse(text, "f.cl", diag, Target("spir64-unknown-unknown"))
    nodes = []

    def walk(node):
        attrs = tuple(repr(getattr(node, name, None)) for name in node.attr_names)
        nodes.append((type(node).__name__, attrs, str(node.coord)))
        for _, child in node.children():
            walk(child)
        for extra in ("attributes", "asm"):      # pycparserext's, outside children()
            child = getattr(node, extra, None)
            if isinstance(child, c_ast.Node):
                nodes.append(extra)
                walk(child)
    walk(ast)
    return nodes, diag.render_all()
