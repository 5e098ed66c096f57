"""The checker's statements (C99 6.8; OpenCL C 3.0 6.11's loop hints and FP_CONTRACT
pragmas): compound statements and their scopes, if/while/do/for with their unroll hints,
switch/case/default, break/continue/goto/labels, return, _Static_assert. Error recovery is
per statement: an Abandon inside one abandons that statement only.
"""
from pycparser import c_ast

from clcoop.frontend import tast
from clcoop.frontend.check_support import Abandon, Scope, location
from clcoop.frontend.conversions import promote, spell
from clcoop.frontend.parse import LOOP_UNROLL_HINTS
from clcoop.frontend.types import is_integer_like, wrap_int


def _is_fp_contract_pragma(node):
    return (node.string or "").split()[1:2] == ["FP_CONTRACT"]


class StatementChecks:
    """Checks statements into the typed AST. ctx: the checker's CheckContext; expressions:
    check_expr.ExpressionChecks (.expr, .rvalue, .condition); declarations: what checks a
    declaration or pragma met among statements (.declaration(node), .typedef(node),
    .pragma(node), .fp_contract_pragma(words, node, in_block_after_statements):
    check.Checker); folding, conversions, literals, asm: those parts (case values, return
    conversions, static assertion messages, inline assembly)."""

    def __init__(self, ctx, expressions, declarations, folding, conversions, literals, asm):
        self.ctx = ctx
        self.expressions = expressions
        self.declarations = declarations
        self.folding = folding
        self.conversions = conversions
        self.literals = literals
        self.asm = asm

    def compound(self, node, new_scope=True):
        outer = self.ctx.scope
        outer_fp_contract = self.ctx.fp_contract
        if new_scope:
            self.ctx.scope = Scope(outer)
        self.ctx.fn.depth += 1
        items = []
        try:
            for index, item in enumerate(node.block_items or []):
                try:
                    if isinstance(item, c_ast.Pragma) and _is_fp_contract_pragma(item) \
                            and not all(isinstance(i, c_ast.Pragma) for i in node.block_items[:index]):
                        self.declarations.fp_contract_pragma((item.string or "").split(), item, True)
                        continue
                    items.extend(self.block_item(item))
                except Abandon:
                    pass
        finally:
            self.ctx.fn.depth -= 1
            self.ctx.scope = outer
            self.ctx.fp_contract = outer_fp_contract
        return tast.Compound(location(node), items)

    def block_item(self, node):
        self.ctx.last_loc = location(node) or self.ctx.last_loc
        if isinstance(node, c_ast.Decl):
            vars_ = self.declarations.declaration(node)
            return [tast.DeclStmt(location(node), vars_)] if vars_ else []
        if isinstance(node, c_ast.Typedef):
            self.declarations.typedef(node)
            return []
        if isinstance(node, c_ast.DeclList):
            out = []
            for d in node.decls:
                out.extend(self.declarations.declaration(d))
            return [tast.DeclStmt(location(node), out)]
        return [self.statement(node)]

    def statement(self, node):
        loc = location(node)
        if isinstance(node, c_ast.Compound):
            return self.compound(node)
        if isinstance(node, c_ast.If):
            cond = self.expressions.condition(node.cond)
            then = self.sub_statement(node.iftrue)
            other = self.sub_statement(node.iffalse) if node.iffalse is not None else None
            return tast.If(loc, cond, then, other)
        if isinstance(node, c_ast.While):
            with self.ctx.fn.uninitialized.loop():
                cond = self.expressions.condition(node.cond)
                return tast.While(loc, cond, self.loop_body(node.stmt), LOOP_UNROLL_HINTS.get(node))
        if isinstance(node, c_ast.DoWhile):
            with self.ctx.fn.uninitialized.loop():
                body = self.loop_body(node.stmt)
                return tast.DoWhile(loc, body, self.expressions.condition(node.cond), LOOP_UNROLL_HINTS.get(node))
        if isinstance(node, c_ast.For):
            return self.for_statement(node)
        if isinstance(node, c_ast.Switch):
            return self.switch_statement(node)
        if isinstance(node, c_ast.Case):
            return self.case_statement(node)
        if isinstance(node, c_ast.Default):
            return self.default_statement(node)
        if isinstance(node, c_ast.Break):
            if self.ctx.fn.loop_depth == 0 and not self.ctx.fn.switch_stack:
                self.ctx.fail("'break' statement not in loop or switch statement", node)
            return tast.Break(loc)
        if isinstance(node, c_ast.Continue):
            if self.ctx.fn.loop_depth == 0:
                self.ctx.fail("'continue' statement not in loop statement", node)
            return tast.Continue(loc)
        if isinstance(node, c_ast.Return):
            return self.return_statement(node)
        if isinstance(node, c_ast.Goto):
            self.ctx.fn.gotos.append((node.name, node))
            return tast.Goto(loc, node.name)
        if isinstance(node, c_ast.Label):
            if node.name in self.ctx.fn.labels:
                self.ctx.fail(f"redefinition of label '{node.name}'", node)
            self.ctx.fn.labels[node.name] = node
            return tast.Label(loc, node.name, self.sub_statement(node.stmt))
        if isinstance(node, c_ast.EmptyStatement):
            return tast.Null(loc)
        if isinstance(node, c_ast.Pragma):
            self.declarations.pragma(node)
            return tast.Null(loc)
        if isinstance(node, (c_ast.Decl, c_ast.Typedef, c_ast.DeclList)):
            items = self.block_item(node)
            return items[0] if items else tast.Null(loc)
        if isinstance(node, c_ast.StaticAssert):
            self.static_assert(node)
            return tast.Null(loc)
        if type(node).__name__ == "Asm":         # pycparserext.ext_c_parser.Asm
            return self.asm.asm_statement(node)
        expr = self.expressions.expr(node)
        return tast.ExprStmt(loc, self.expressions.rvalue(expr))

    def sub_statement(self, node):
        """A statement in its own scope (C99 6.8.4p3); errors stay inside it."""
        outer = self.ctx.scope
        self.ctx.scope = Scope(outer)
        try:
            return self.statement(node)
        except Abandon:
            return tast.Null(location(node))
        finally:
            self.ctx.scope = outer

    def loop_body(self, node):
        self.ctx.fn.loop_depth += 1
        try:
            return self.sub_statement(node)
        finally:
            self.ctx.fn.loop_depth -= 1

    def for_statement(self, node):
        outer = self.ctx.scope
        self.ctx.scope = Scope(outer)
        try:
            init = None
            if node.init is not None:
                if isinstance(node.init, c_ast.DeclList):
                    vars_ = []
                    for d in node.init.decls:
                        vars_.extend(self.declarations.declaration(d))
                    init = tast.DeclStmt(location(node.init), vars_)
                else:
                    init = tast.ExprStmt(location(node.init), self.expressions.expr(node.init))
            with self.ctx.fn.uninitialized.loop():
                cond = self.expressions.condition(node.cond) if node.cond is not None else None
                step = self.expressions.expr(node.next) if node.next is not None else None
                body = self.loop_body(node.stmt)
            return tast.For(location(node), init, cond, step, body, LOOP_UNROLL_HINTS.get(node))
        finally:
            self.ctx.scope = outer

    def switch_statement(self, node):
        cond = self.expressions.rvalue(self.expressions.expr(node.cond))
        if not is_integer_like(cond.type):
            self.ctx.fail(f"statement requires expression of integer type ('{spell(cond.type)}' invalid)", node.cond)
        ctype = promote(cond.type)
        cond = self.conversions.convert(cond, ctype, node.cond, "converting")
        sw = tast.Switch(location(node), cond, None)
        self.ctx.fn.switch_stack.append(sw)
        try:
            sw.body = self.sub_statement(node.stmt)
        finally:
            self.ctx.fn.switch_stack.pop()
        return sw

    def case_statement(self, node):
        if not self.ctx.fn.switch_stack:
            self.ctx.fail("'case' statement not in switch statement", node)
        sw = self.ctx.fn.switch_stack[-1]
        value = wrap_int(self.folding.integer_constant(node.expr, "case value"), sw.cond.type)
        for c in sw.cases:
            if c.value == value:
                self.ctx.fail(f"duplicate case value '{value}'", node.expr,
                              [self.ctx.note("previous case defined here", c.loc)])
        body = self.case_body(node.stmts, node)
        case = tast.Case(location(node), value, body)
        sw.cases.append(case)
        return case

    def default_statement(self, node):
        if not self.ctx.fn.switch_stack:
            self.ctx.fail("'default' statement not in switch statement", node)
        sw = self.ctx.fn.switch_stack[-1]
        if sw.default is not None:
            self.ctx.fail("multiple default labels in one switch", node,
                          [self.ctx.note("previous case defined here", sw.default.loc)])
        default = tast.Default(location(node), None)
        sw.default = default
        default.body = self.case_body(node.stmts, node)
        return default

    def case_body(self, stmts, node):
        items = []
        for s in stmts or []:
            try:
                items.extend(self.block_item(s))
            except Abandon:
                pass
        return tast.Compound(location(node), items)

    def return_statement(self, node):
        ret = self.ctx.fn.function.type.ret
        loc = location(node)
        if node.expr is None:
            if not ret.is_void:
                self.ctx.fail(f"non-void function '{self.ctx.fn.function.name}' should return a value", node)
            return tast.Return(loc, None)
        value = self.expressions.expr(node.expr, expected=ret)
        if ret.is_void:
            if value.type.is_void:
                # `return f();` with void f (C permits it in practice): evaluate, then return.
                return tast.Compound(loc, [tast.ExprStmt(loc, value), tast.Return(loc, None)])
            self.ctx.fail(f"void function '{self.ctx.fn.function.name}' should not return a value", node)
        return tast.Return(loc, self.conversions.convert(self.expressions.rvalue(value), ret, node.expr, "returning"))

    def static_assert(self, node):
        value = self.folding.integer_constant(node.cond, "static assertion expression")
        if not value:
            msg = self.literals.string_bytes(node.message).decode() if node.message is not None else ""
            self.ctx.error(f"static assertion failed{': ' + msg if msg else ''}", node)
