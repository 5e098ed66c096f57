"""The parser's expression rules by precedence climbing (throughput, issue 26).

pycparser's recursive descent takes every operand through a dozen rules (assignment,
conditional, binary, cast, unary, postfix, primary), each peeking at the next token through
the token stream's calls: ~6 calls a token. `ExpressionRules` parses the same grammar
(C99 6.5) with the binary operators by precedence climbing and the common operands (a name,
a constant, a unary operator, a parenthesized expression, a cast, `sizeof`, a string
literal, postfix operators) in one rule, reading the stream's buffer in place; a type name
that is one token (`(float4)`, `sizeof(int)`) is made without the declaration rules.
Everything else (statement expressions, compound literals, longer type names, _Alignof,
++/-- prefixes, wide strings, errors) goes to the base rules at the point where they would
have been reached, so the AST, its coordinates and the syntax errors are the base's
(test_parse_fast_paths compares the two, node by node).

Every node is made before the token after it is lexed, as in the base rules: a node's
Coord takes the lexer's current file, which a #line marker after the token would change.
"""
from pycparser import c_ast
from pycparser.c_parser import (_ASSIGNMENT_OPS, _BINARY_PRECEDENCE, _CHAR_CONST, _FLOAT_CONST,
                                _INT_CONST, _TYPE_SPEC_SIMPLE, Coord)
from pycparserext.ext_c_parser import _OCL_DECL_START

# Postfix operators (C99 6.5.2); `(` is a call after an operand.
_POSTFIX_START = frozenset({"LBRACKET", "LPAREN", "PERIOD", "ARROW", "PLUSPLUS", "MINUSMINUS"})
# What ends an assignment expression that is one operand (`1,` in a table, `x;`, `a[i]`).
_EXPRESSION_END = frozenset({"COMMA", "RBRACE", "SEMI", "RPAREN", "RBRACKET", "COLON"})
# Unary operators whose operand is a cast expression (C99 6.5.3).
_UNARY_OPERATORS = frozenset({"AND", "TIMES", "PLUS", "MINUS", "NOT", "LNOT"})
_INT_TOKENS = frozenset(_INT_CONST)
_FLOAT_TOKENS = frozenset(_FLOAT_CONST)
_CHAR_TOKENS = frozenset(_CHAR_CONST)
_CONSTANT_TOKENS = _INT_TOKENS | _FLOAT_TOKENS | _CHAR_TOKENS
_ASSIGNMENT_TOKENS = frozenset(_ASSIGNMENT_OPS)
# A type name that is one token: a typedef name or a type keyword (`(float4)`, `sizeof(int)`).
_ONE_TOKEN_TYPES = frozenset(_TYPE_SPEC_SIMPLE | {"TYPEID"})


def _constant_type(tok):
    """The type pycparser's _parse_constant gives a constant token (C99 6.4.4)."""
    kind = tok.type
    value = tok.value
    if kind in _INT_TOKENS:
        if value[-1] not in "uUlL":
            return "int"
        u_count = l_count = 0
        for ch in value[-3:]:
            if ch in ("l", "L"):
                l_count += 1
            elif ch in ("u", "U"):
                u_count += 1
        if u_count > 1:
            raise ValueError("Constant cannot have more than one u/U suffix.")
        if l_count > 2:
            raise ValueError("Constant cannot have more than two l/L suffix.")
        return "unsigned " * u_count + "long " * l_count + "int"
    if kind in _FLOAT_TOKENS:
        last = value[-1]
        return "float" if last in ("f", "F") else "long double" if last in ("l", "L") else "double"
    return "char"


class ExpressionRules:
    """The expression rules of pycparser's CParser (C99 6.5), for a parser class that also
    derives from it; the token stream's buffer is read in place as ClcoopParser._peek does
    (a token one past the buffer's end is lexed through _peek)."""

    def _parse_expression(self):
        """expression: assignment-expression (',' assignment-expression)* (C99 6.5.17)."""
        expr = self._parse_assignment_expression()
        tokens = self._tokens
        buffer = tokens._buffer
        index = tokens._index
        tok = buffer[index] if index < len(buffer) else self._peek()
        if tok is None or tok.type != "COMMA":
            return expr
        exprs = [expr]
        while tok is not None and tok.type == "COMMA":
            tokens._index += 1
            self._last_token = tok
            exprs.append(self._parse_assignment_expression())
            index = tokens._index
            tok = buffer[index] if index < len(buffer) else self._peek()
        return c_ast.ExprList(exprs, expr.coord)

    def _parse_assignment_expression(self):
        """assignment-expression (C99 6.5.16): a conditional expression, or a unary one, an
        assignment operator and an assignment expression. `({ ... })` (a GNU statement
        expression) goes to the base rule; a name or a constant followed by what ends an
        expression is returned at once."""
        tokens = self._tokens
        buffer = tokens._buffer
        index = tokens._index
        tok = buffer[index] if index < len(buffer) else self._peek()
        if tok is None:
            return super()._parse_assignment_expression()
        kind = tok.type
        if kind == "ID" or kind in _CONSTANT_TOKENS:
            expr = self._name_or_constant(tok)
            index += 1
            tok = buffer[index] if index < len(buffer) else self._peek()
            if tok is None or tok.type in _EXPRESSION_END:
                return expr
            if tok.type in _POSTFIX_START:
                expr = self._postfix_operators(expr)
            expr = self._parse_binary_expression(0, expr)
        else:
            if kind == "LPAREN" and self._peek_type(2) == "LBRACE":
                return super()._parse_assignment_expression()
            expr = self._parse_binary_expression()
        index = tokens._index
        tok = buffer[index] if index < len(buffer) else self._peek()
        if tok is None:
            return expr
        kind = tok.type
        if kind == "CONDOP":
            expr = self._conditional_rest(expr, tok)
            index = tokens._index
            tok = buffer[index] if index < len(buffer) else self._peek()
            if tok is None:
                return expr
            kind = tok.type
        if kind in _ASSIGNMENT_TOKENS:
            tokens._index = index + 1
            self._last_token = tok
            rhs = self._parse_assignment_expression()
            return c_ast.Assignment(tok.value, expr, rhs, expr.coord)
        return expr

    def _parse_conditional_expression(self):
        """conditional-expression (C99 6.5.15)."""
        expr = self._parse_binary_expression()
        tokens = self._tokens
        buffer = tokens._buffer
        index = tokens._index
        tok = buffer[index] if index < len(buffer) else self._peek()
        if tok is not None and tok.type == "CONDOP":
            return self._conditional_rest(expr, tok)
        return expr

    def _conditional_rest(self, condition, question):
        """`? expression : conditional-expression` after `condition`, `question` the next token."""
        self._tokens._index += 1
        self._last_token = question
        iftrue = self._parse_expression()
        self._expect("COLON")
        iffalse = self._parse_conditional_expression()
        return c_ast.TernaryOp(condition, iftrue, iffalse, condition.coord)

    def _parse_binary_expression(self, min_prec=0, lhs=None):
        """The binary operators (C99 6.5.5-6.5.14) by precedence climbing, left to right
        within a level: pycparser's rule with the next token read in place."""
        if lhs is None:
            lhs = self._parse_cast_expression()
        tokens = self._tokens
        buffer = tokens._buffer
        precedence = _BINARY_PRECEDENCE
        while True:
            index = tokens._index
            tok = buffer[index] if index < len(buffer) else self._peek()
            if tok is None:
                return lhs
            prec = precedence.get(tok.type)
            if prec is None or prec < min_prec:
                return lhs
            tokens._index = index + 1
            self._last_token = tok
            rhs = self._parse_cast_expression()
            while True:
                index = tokens._index
                after = buffer[index] if index < len(buffer) else self._peek()
                if after is None:
                    break
                next_prec = precedence.get(after.type)
                if next_prec is None or next_prec <= prec:
                    break
                rhs = self._parse_binary_expression(next_prec, rhs)
            lhs = c_ast.BinaryOp(tok.value, lhs, rhs, lhs.coord)

    def _parse_cast_expression(self):
        """cast-expression (C99 6.5.4) and the unary and postfix expressions under it: a name
        or constant and its postfix operators, a unary operator and its operand, a
        parenthesized expression, a cast, a string literal; the rest through the base rules."""
        tokens = self._tokens
        buffer = tokens._buffer
        index = tokens._index
        tok = buffer[index] if index < len(buffer) else self._peek()
        if tok is None:
            return super()._parse_cast_expression()
        kind = tok.type
        if kind == "ID" or kind in _CONSTANT_TOKENS:
            expr = self._name_or_constant(tok)
            index += 1
            after = buffer[index] if index < len(buffer) else self._peek()
            if after is not None and after.type in _POSTFIX_START:
                return self._postfix_operators(expr)
            return expr
        if kind in _UNARY_OPERATORS:
            tokens._index = index + 1
            self._last_token = tok
            operand = self._parse_cast_expression()
            return c_ast.UnaryOp(tok.value, operand, operand.coord)
        if kind == "LPAREN":
            second = buffer[index + 1] if index + 1 < len(buffer) else self._peek(2)
            if second is None or second.type not in _OCL_DECL_START:
                return self._parenthesized_expression(tok)
            return self._cast_or_compound_literal()
        if kind == "SIZEOF":
            return self._sizeof_expression(tok)
        if kind == "STRING_LITERAL":
            # The base's unary, postfix and primary rules take it to the same two calls.
            return self._postfix_operators(self._parse_unified_string_literal())
        return super()._parse_cast_expression()

    def _name_or_constant(self, tok):
        """The ID or Constant of `tok`, the next token, consumed (C99 6.5.1): the base's
        _parse_identifier and _parse_constant."""
        self._tokens._index += 1
        self._last_token = tok
        coord = Coord(self.clex._filename, tok.lineno, tok.column)
        if tok.type == "ID":
            return c_ast.ID(tok.value, coord)
        return c_ast.Constant(_constant_type(tok), tok.value, coord)

    def _parenthesized_expression(self, lparen):
        """`( expression )` and its postfix operators (C99 6.5.1), `lparen` the next token."""
        tokens = self._tokens
        tokens._index += 1
        self._last_token = lparen
        expr = self._parse_expression()
        self._expect("RPAREN")
        buffer = tokens._buffer
        index = tokens._index
        after = buffer[index] if index < len(buffer) else self._peek()
        if after is not None and after.type in _POSTFIX_START:
            return self._postfix_operators(expr)
        return expr

    def _cast_or_compound_literal(self):
        """`( type-name ) cast-expression` (C99 6.5.4) as the base's cast rule parses it; a
        compound literal or what is no type name after all through the base's unary rule."""
        mark = self._tokens._index
        typ = self._one_token_type_name()
        if typ is not None:
            lparen = self._tokens._buffer[mark]
        else:
            result = self._try_parse_paren_type_name()
            if result is None:
                return self._parse_unary_expression()
            typ, mark, lparen = result
        if self._peek_type() == "LBRACE":
            self._reset(mark)
            return self._parse_unary_expression()
        operand = self._parse_cast_expression()
        return c_ast.Cast(typ, operand, Coord(self.clex._filename, lparen.lineno, lparen.column))

    def _sizeof_expression(self, keyword):
        """`sizeof unary-expression` and `sizeof ( type-name )` (C99 6.5.3.4), `keyword` the
        next token: the base's unary rule, a one-token type name taken at once."""
        self._tokens._index += 1
        self._last_token = keyword
        typ = self._one_token_type_name()
        if typ is None:
            result = self._try_parse_paren_type_name()
            typ = result[0] if result is not None else self._parse_unary_expression()
        return c_ast.UnaryOp(keyword.value, typ, Coord(self.clex._filename, keyword.lineno, keyword.column))

    def _one_token_type_name(self):
        """`( T )` where T is a typedef name or a type keyword: the Typename the base's
        _try_parse_paren_type_name makes of it (its specifier list and no declarator,
        through _fix_decl_name_type), the `)` consumed; else None with nothing consumed.
        The Coord is made before the `)` is lexed, as the base's is."""
        tokens = self._tokens
        buffer = tokens._buffer
        index = tokens._index
        lparen = buffer[index] if index < len(buffer) else self._peek()
        if lparen is None or lparen.type != "LPAREN":
            return None
        name = buffer[index + 1] if index + 1 < len(buffer) else self._peek(2)
        if name is None or name.type not in _ONE_TOKEN_TYPES:
            return None
        coord = Coord(self.clex._filename, name.lineno, name.column)
        rparen = buffer[index + 2] if index + 2 < len(buffer) else self._peek(3)
        if rparen is None or rparen.type != "RPAREN":
            return None
        tokens._index = index + 3
        self._last_token = rparen
        return c_ast.Typename(None, [], None,
                              c_ast.TypeDecl(None, [], None, c_ast.IdentifierType([name.value], coord)),
                              coord)

    def _postfix_operators(self, expr):
        """The postfix operators after a primary expression (C99 6.5.2): subscripts, calls,
        member accesses, ++ and --, the next token read once per operator."""
        tokens = self._tokens
        buffer = tokens._buffer
        while True:
            index = tokens._index
            tok = buffer[index] if index < len(buffer) else self._peek()
            if tok is None:
                return expr
            kind = tok.type
            if kind == "LBRACKET":
                tokens._index = index + 1
                self._last_token = tok
                sub = self._parse_expression()
                self._expect("RBRACKET")
                expr = c_ast.ArrayRef(expr, sub, expr.coord)
            elif kind == "LPAREN":
                tokens._index = index + 1
                self._last_token = tok
                expr = c_ast.FuncCall(expr, self._call_arguments(), expr.coord)
            elif kind == "PERIOD" or kind == "ARROW":
                tokens._index = index + 1
                self._last_token = tok
                name_tok = self._advance()
                if name_tok.type not in ("ID", "TYPEID"):
                    self._parse_error("Invalid struct reference", self._tok_coord(name_tok))
                field = c_ast.ID(name_tok.value, Coord(self.clex._filename, name_tok.lineno, name_tok.column))
                expr = c_ast.StructRef(expr, tok.value, field, expr.coord)
            elif kind == "PLUSPLUS" or kind == "MINUSMINUS":
                tokens._index = index + 1
                self._last_token = tok
                expr = c_ast.UnaryOp("p" + tok.value, expr, expr.coord)
            else:
                return expr

    def _call_arguments(self):
        """A call's arguments after its `(`, and the `)`: None when there are none, else an
        ExprList (C99 6.5.2.2's argument-expression-list)."""
        tokens = self._tokens
        buffer = tokens._buffer
        index = tokens._index
        tok = buffer[index] if index < len(buffer) else self._peek()
        if tok is not None and tok.type == "RPAREN":
            tokens._index = index + 1
            self._last_token = tok
            return None
        first = self._parse_assignment_expression()
        exprs = self._more_after_commas([first], self._parse_assignment_expression)
        self._expect("RPAREN")
        return c_ast.ExprList(exprs, first.coord)

    def _more_after_commas(self, items, parse_item, unless_before=None):
        """`items` with parse_item()'s result appended after each `,` that comes next (the
        rest of a comma-separated list: arguments, declarators, parameters), up to a `,`
        before a token of type `unless_before` (`, ...`), which is left."""
        tokens = self._tokens
        buffer = tokens._buffer
        while True:
            index = tokens._index
            tok = buffer[index] if index < len(buffer) else self._peek()
            if tok is None or tok.type != "COMMA":
                return items
            if unless_before is not None:
                after = buffer[index + 1] if index + 1 < len(buffer) else self._peek(2)
                if after is not None and after.type == unless_before:
                    return items
            tokens._index = index + 1
            self._last_token = tok
            items.append(parse_item())
