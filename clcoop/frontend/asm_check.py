"""GNU inline assembly statements (`__asm__ [volatile] ("template" : outputs : inputs :
clobbers)`, GCC "Extended Asm"), checked as clang-22 checks them for SPIR and turned into
what clang emits (`call ... asm [sideeffect] "template", "constraints"(inputs)`):

- the template in LLVM's syntax: %N and %[name] become $N, %lN ${N:l}, %= ${:uid},
  %% a percent sign, and $ becomes $$;
- constraints: the outputs ("=c" as written, "+c" as "=c"), the inputs, then one input tied
  to each "+" output (its number), then the clobbers as ~{memory} / ~{cc};
- sideeffect when the statement is volatile or has no outputs (GCC: such an asm is
  implicitly volatile).
clang's errors where it has them ("invalid output constraint 'r' in asm", "invalid lvalue
in asm output", ...). `asm` without underscores is not a keyword in OpenCL C (clang-22:
"use of undeclared identifier 'asm'"). Memory operands ("m", "o", ...) are refused:
clcoop does not lower indirect operands. Whether an engine can run the result is decided
when the IR is loaded (clcoop/interp/inline_asm.py).
"""
import re

from pycparser import c_ast

from clcoop.diagnostics import SourceLocation
from clcoop.frontend import tast
from clcoop.frontend import types as T
from clcoop.frontend.check_support import location
from clcoop.frontend.conversions import spell

_MEMORY_LETTERS = set("moV<>")
_CLOBBERS = {"memory", "cc"}          # SPIR has no register names


class InlineAsmChecks:
    """The checker's inline assembly statement. ctx: the checker's CheckContext;
    expressions: what types the operands (.expr(node), .rvalue(e), .check_assignable(e,
    node): check_expr.ExpressionChecks); literals: the Literals part (the template's string)."""

    def __init__(self, ctx, expressions, literals):
        self.ctx = ctx
        self.expressions = expressions
        self.literals = literals

    def asm_statement(self, node):
        if not node.asm_keyword.startswith("__asm"):
            self.ctx.fail("use of undeclared identifier 'asm'", node)
        template = self.asm_string(node.template.exprs[0] if node.template else None, node)
        outputs = [self.asm_operand(item) for item in (node.output_operands.exprs if node.output_operands else [])]
        inputs = [self.asm_operand(item) for item in (node.input_operands.exprs if node.input_operands else [])]
        clobbers = [self.asm_clobber(c) for c in (node.clobbered_regs.exprs if node.clobbered_regs else [])]
        targets, constraints, tied = [], [], []
        for k, (name, constraint, expr, where) in enumerate(outputs):
            if not constraint.startswith(("=", "+")):
                self.ctx.fail(f"invalid output constraint '{constraint}' in asm", where)
            self.refuse_memory_operand(constraint, where)
            target = self.expressions.expr(expr)
            if not target.is_lvalue or isinstance(target.type, T.ArrayType):
                self.ctx.fail("invalid lvalue in asm output", target.loc or expr)
            self.expressions.check_assignable(target, expr)
            if not isinstance(target.type, (T.ScalarType, T.VectorType, T.PointerType, T.EnumType)):
                self.ctx.fail(f"invalid type '{spell(target.type)}' in asm output", expr)
            targets.append(target)
            constraints.append("=" + constraint[1:])
            if constraint.startswith("+"):
                self.expressions.rvalue(target)         # read as well (-Wuninitialized)
                tied.append(k)
        values = []
        for name, constraint, expr, where in inputs:
            constraint = constraint.lstrip("=+")        # clang-22 (SPIR) drops them from an input
            self.refuse_memory_operand(constraint, where)
            values.append(self.expressions.rvalue(self.expressions.expr(expr)))
            constraints.append(constraint)
        constraints += [str(k) for k in tied]
        constraints += [f"~{{{c}}}" for c in clobbers]
        names = [name for name, _, _, _ in outputs + inputs]
        llvm_template = self.asm_template(template, names, node.template.exprs[0])
        side_effect = "volatile" in node.asm_keyword or not outputs
        return tast.Asm(location(node), llvm_template, ",".join(constraints), targets, values, tied, side_effect)

    def asm_string(self, node, where):
        if not (isinstance(node, c_ast.Constant) and node.type == "string"):
            self.ctx.fail("expected string literal in 'asm'", node or where)
        return self.literals.string_bytes(node).decode("latin-1")

    def asm_operand(self, item):
        """(name or None, constraint, operand expression node, constraint node)."""
        name = None
        if isinstance(item, c_ast.NamedInitializer):
            name, item = item.name[0].name, item.expr
        if not (isinstance(item, c_ast.FuncCall) and isinstance(item.name, c_ast.Constant)
                and item.name.type == "string" and item.args is not None and len(item.args.exprs) == 1):
            self.ctx.fail("expected an asm operand: \"constraint\"(expression)", item)
        return name, self.asm_string(item.name, item), item.args.exprs[0], item.name

    def asm_clobber(self, node):
        clobber = self.asm_string(node, node)
        if clobber not in _CLOBBERS:
            self.ctx.fail(f"unknown register name '{clobber}' in asm", node)
        return clobber

    def refuse_memory_operand(self, constraint, where):
        letters = set(constraint.lstrip("=+&")) & _MEMORY_LETTERS
        if letters:
            self.ctx.fail(f"memory operand constraint '{constraint}' of inline assembly is not supported "
                          f"by clcoop (only register and immediate operands)", where)

    def asm_template(self, text, names, node):
        """GCC's template syntax -> LLVM's (clang's AsmStmt::AnalyzeAsmString); errors at
        the offending character, as clang."""
        def at(offset):
            loc = location(node)
            return loc and SourceLocation(loc.file, loc.line, loc.column + 1 + offset)
        out = []
        i = 0
        count = len(names)
        while i < len(text):
            c = text[i]
            if c == "$":
                out.append("$$")
                i += 1
                continue
            if c != "%":
                out.append(c)
                i += 1
                continue
            m = re.compile(r"%(?:(%)|(=)|([a-zA-Z]?)(?:(\d+)|\[(\w+)\]))").match(text, i)
            if m is None:
                self.ctx.fail("invalid % escape in inline assembly string", at(i))
            percent, uid, modifier, number, name = m.groups()
            if percent:
                out.append("%")
            elif uid:
                out.append("${:uid}")
            else:
                if name is not None:
                    if name not in names:
                        self.ctx.fail("unknown symbolic operand name in inline assembly string", at(m.start(5)))
                    index = names.index(name)
                else:
                    index = int(number)
                    if index >= count:
                        self.ctx.fail("invalid operand number in inline asm string", at(m.start(4)))
                out.append(f"${{{index}:{modifier}}}" if modifier else f"${index}")
            i = m.end()
        return "".join(out)
