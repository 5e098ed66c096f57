"""Semantic analysis: pycparser AST -> typed AST (clcoop.frontend.tast), with every diagnostic.

`check(ast, diag, target) -> tast.TranslationUnit`

The checker applies the C99 rules (usual arithmetic conversions, integer promotions,
pointer arithmetic, lvalues), the OpenCL C 3.0 rules (address spaces, vectors, swizzles,
kernels) and the cooperative-matrix rules of the RFC and of the clang pull request
llvm/llvm-project #221328 (diagnostic wording follows its tests). Every implicit
conversion becomes an explicit tast.ImplicitCast, so lower never re-derives a C rule.
This module checks the translation unit, declarations and functions; statements are
check_stmt.py's, expressions check_expr.py's, and each rule module is a part object given
what it uses (docs/design.md, "The checker").

Error recovery: an error inside a statement or a declaration abandons that statement or
declaration only (a Abandon exception caught at statement level), so one run reports
several errors; after DiagnosticEngine.max_errors errors checking stops.

Location convention (clang's): a diagnostic about an operator points at the operator token
(found in the source line just before the right operand); a conversion diagnostic at the
start of the converted expression; a declaration diagnostic at the declared name; a
built-in argument diagnostic at that argument.

Cooperative-matrix decisions (where the RFC and the pull request are silent): coop_check.py.
"""
import contextlib
import re

from pycparser import c_ast

from clcoop.diagnostics import SourceLocation
from clcoop.frontend import builtins as _builtins
from clcoop.frontend.asm_check import InlineAsmChecks
from clcoop.frontend import tast
from clcoop.frontend import types as T
from clcoop.frontend.check_expr import ExpressionChecks
from clcoop.frontend.check_stmt import StatementChecks
from clcoop.frontend.check_support import (Abandon, CheckContext, FunctionContext, Scope, TooManyErrors, location,
                                           name_location)
from clcoop.frontend.conversions import spell
from clcoop.frontend.coop_check import COOP_BUILTINS, COOP_EXTENSION
from clcoop.frontend.coop_tensor_check import coop_what
from clcoop.frontend.decl_types import written_typedef_name


def check(ast, diag, target, fp_contract="on", cl_std="CL3.0"):
    """Check a pycparser FileAST; report to diag; return the typed AST.
    fp_contract: -ffp-contract's on|off|fast, the state before any FP_CONTRACT pragma;
    cl_std: -cl-std (built-ins clang's opencl-c.h does not declare for it are hidden)."""
    checker = Checker(diag, target)
    checker.fp_contract_default = checker.ctx.fp_contract = fp_contract
    checker.ctx.hidden_builtins = _builtins.hidden_at(cl_std)
    checker.ctx.pre_cl20 = cl_std.upper() in ("CL1.0", "CL1.1", "CL1.2")    # no to_global & co.
    try:
        checker.translation_unit(ast)
    except TooManyErrors:
        pass
    except RecursionError:
        # The parser bounds nesting too; this keeps a pathological input a diagnostic.
        diag.error("expression or statement nested too deeply", checker.ctx.last_loc)
    return tast.TranslationUnit(functions=checker.ctx.functions, globals=checker.globals)


def declared_parameter_names(decl):
    """Names in a function declarator's parameter list (None where unnamed)."""
    args = getattr(getattr(decl, "type", None), "args", None)
    return [getattr(p, "name", None) for p in (args.params if args is not None else [])]


def _kernel_pointer_spaces_ok(t):
    while t.is_pointer:
        if t.addrspace not in (T.GLOBAL, T.CONSTANT, T.LOCAL):
            return False
        t = t.pointee
    return True


def _reaches(callees, start, goal):
    """Whether `goal` is reachable from `start` in the call graph {caller: [(callee, loc)]}."""
    seen, stack = set(), [start]
    while stack:
        f = stack.pop()
        if f is goal:
            return True
        if f in seen:
            continue
        seen.add(f)
        stack.extend(c for c, _ in callees.get(f, []))
    return False


class Checker:
    """The translation unit, declarations and functions. The rules live in parts, one object
    per module, built once and sharing one CheckContext (docs/design.md, "The checker"):
    expressions (check_expr.py) builds the parts that type expressions; statements
    (check_stmt.py) take this Checker as their `declarations`."""

    def __init__(self, diag, target):
        self.ctx = CheckContext(diag, target)
        self.expressions = ExpressionChecks(self.ctx)
        # The parts declarations use: those the expression checker built.
        self.literals = self.expressions.literals
        self.folding = self.expressions.folding
        self.conversions = self.expressions.conversions
        self.coop = self.expressions.coop
        self.decl_types = self.expressions.decl_types
        self.initializers = self.expressions.initializers
        asm = InlineAsmChecks(self.ctx, self.expressions, self.literals)
        self.statements = StatementChecks(self.ctx, self.expressions, self, self.folding, self.conversions,
                                          self.literals, asm)
        self.function_by_name = {}
        self.globals = []
        self.fp_contract_default = "on"     # -ffp-contract's state (#pragma ... FP_CONTRACT DEFAULT)

    # ------------------------------------------------------------------ extensions
    def pragma(self, node):
        """`#pragma OPENCL EXTENSION name|all : enable|disable` (OpenCL C 3.0 6.2.1),
        in effect from there on. Of the extensions clcoop knows only cl_khr_fp16 changes
        what is accepted: without it, half values are errors as in clang-22; every other
        extension (fp64, subgroups, cooperative matrices) is always on."""
        words = (node.string or "").replace(":", " : ").split()
        if words[:2] in (["OPENCL", "FP_CONTRACT"], ["STDC", "FP_CONTRACT"]):
            self.fp_contract_pragma(words, node)
            return
        if len(words) != 5 or words[:2] != ["OPENCL", "EXTENSION"] or words[3] != ":":
            return
        name, behavior = words[2], words[4]
        names = {"cl_khr_fp16", COOP_EXTENSION} if name == "all" else {name}
        if behavior == "enable":
            self.ctx.enabled_extensions |= names
        elif behavior == "disable":
            self.ctx.enabled_extensions -= names

    def fp_contract_pragma(self, words, node, in_block_after_statements=False):
        """`#pragma OPENCL FP_CONTRACT ON|OFF|DEFAULT` (OpenCL C 3.0 6.11.1) and C99's
        `#pragma STDC FP_CONTRACT` (7.12.2): at file scope, or first in a compound statement
        until its end; DEFAULT is -ffp-contract's state. clang-22's wording."""
        states = {"ON": "on", "OFF": "off", "DEFAULT": self.fp_contract_default}
        if len(words) != 3 or words[2] not in states:
            self.ctx.warn("expected 'ON' or 'OFF' or 'DEFAULT' in pragma [-Wunknown-pragmas]",
                          self.pragma_word_location(node, 2))
            return
        if in_block_after_statements:
            self.ctx.fail("'#pragma fp_contract' can only appear at file scope or at the start of a "
                          "compound statement", self.pragma_word_location(node, 1))
        self.ctx.fp_contract = states[words[2]]

    def pragma_word_location(self, node, index):
        """Location of the index-th word after `#pragma` or `_Pragma("` (clang points at it)."""
        loc = location(node)
        line = self.ctx.diag.sources.line(loc.file, loc.line) if loc else None
        if not line:
            return loc
        found = list(re.finditer(r"[A-Za-z_]\w*", line))
        words = [m for m in found if m.group() not in ("pragma", "_Pragma")][index:]
        column = words[0].start() + 1 if words else loc.column
        return SourceLocation(loc.file, loc.line, column)

    def require_fp16_object(self, t, aspace, decl, what):
        """Declarations of half objects (arrays of half too)."""
        elem = t
        while isinstance(elem, T.ArrayType):
            elem = elem.elem
        if elem != T.HALF:
            return
        space = T.ADDRSPACE_NAMES[aspace if aspace is not None else T.PRIVATE]
        spelled = f"'{space} {spell(t)}'"
        written = written_typedef_name(decl)
        if written is not None and t == T.HALF:
            spelled = f"'{space} {written}' (aka {spelled})"
        if what == "parameter":
            self.ctx.require_fp16(f"declaring function parameter of type {spelled} is not allowed; "
                                  f"did you forget * ?", name_location(decl))
        elif "cl_khr_fp16" not in self.ctx.enabled_extensions:
            # The declaration is abandoned (its initializer unchecked) and its name stays
            # silent, as clang marks it invalid.
            self.ctx.poisoned.add(decl.name)
            self.ctx.fail(f"declaring variable of type {spelled} is not allowed", name_location(decl))

    def warn_uninitialized_uses(self):
        """clang's -Wuninitialized: a local variable read where no path has assigned it."""
        if self.ctx.fn.gotos or self.ctx.fn.labels:
            return          # a backward goto could assign it first: stay silent, as for switch
        if self.ctx.diag.error_count:
            return          # as clang: no flow analysis once the source has errors
        for var, ref in self.ctx.fn.uninitialized.uses():
            name_end = SourceLocation(var.loc.file, var.loc.line, var.loc.column + len(var.name)) \
                if var.loc is not None else None
            self.ctx.warn(f"variable '{var.name}' is uninitialized when used here", ref.loc,
                          [self.ctx.note(f"initialize the variable '{var.name}' to silence this warning", name_end)],
                          flag="uninitialized")

    # ------------------------------------------------------------------ translation unit
    def translation_unit(self, ast):
        for ext in ast.ext:
            try:
                self.external(ext)
            except Abandon:
                pass
        self.check_recursion()
        self.coop.check_workgroup_scope_kernels()
        for name, loc in self.ctx.extern_uses.items():
            var = self.ctx.scope.names.get(name)
            if isinstance(var, tast.Var) and id(var) in self.ctx.extern_vars:
                self.ctx.error(f"'{name}' is declared extern but not defined in this translation unit "
                               "(clcoop compiles and runs one translation unit)", loc,
                               [self.ctx.note("declared here", var.loc)])
        self.ctx.functions = [f for f in self.ctx.functions if f.body is not None or getattr(f, "_used", False)]

    @contextlib.contextmanager
    def poison_on_error(self, name):
        """A declaration whose type is in error still declares its name, silently: later uses
        of the name are abandoned without a second, cascading error (clang marks such a
        declaration invalid and does the same)."""
        try:
            yield
        except Abandon:
            if name:
                self.ctx.poisoned.add(name)
            raise

    def check_recursion(self):
        """OpenCL C 3.0 6.11 (restrictions): recursion is not supported. Report each call that
        closes a cycle of the call graph, at the call."""
        callees = {}
        for caller, callee, loc in self.ctx.call_edges:
            callees.setdefault(caller, []).append((callee, loc))
        reported = set()
        # Whether a call closes a cycle depends only on its two functions: a file's thousands
        # of calls (pocl's tests) are a few hundred pairs, each searched once.
        closes = {}
        for caller, callee, loc in self.ctx.call_edges:
            if caller in reported and callee in reported:
                continue
            pair = (callee, caller)
            if pair not in closes:
                closes[pair] = _reaches(callees, callee, caller)
            if not closes[pair]:
                continue
            reported.update((caller, callee))      # one error per cycle
            if callee is caller:
                self.ctx.error(f"recursion is not supported in OpenCL C ('{caller.name}' calls itself)", loc)
            else:
                self.ctx.error(f"recursion is not supported in OpenCL C ('{caller.name}' calls '{callee.name}', "
                               f"which calls '{caller.name}' again)", loc)

    def external(self, node):
        self.ctx.last_loc = location(node) or self.ctx.last_loc
        if isinstance(node, c_ast.FuncDef):
            self.function_definition(node)
        elif isinstance(node, c_ast.Decl):
            self.declaration(node, program_scope=True)
        elif isinstance(node, c_ast.Typedef):
            self.typedef(node)
        elif isinstance(node, c_ast.Pragma):
            self.pragma(node)
        elif isinstance(node, c_ast.StaticAssert):
            self.statements.static_assert(node)
        elif type(node).__name__ in ("PreprocessorLine", "Asm"):
            pass
        else:
            self.ctx.fail(f"unsupported declaration '{type(node).__name__}'", node)

    # ------------------------------------------------------------------ declarations
    def typedef(self, node):
        with self.poison_on_error(node.name):
            t, aspace, _ = self.decl_types.full_decl_type(node, typedef_name=node.name)
        self.declare_typedef(node, t, aspace)

    def declare_typedef(self, node, t, aspace):
        previous = self.ctx.scope.names.get(node.name)
        if isinstance(previous, tuple) and previous[0] == "typedef" and previous[3] is not None:
            # C11 6.7p3 allows the same type again (clang warns under C99); another type is an error.
            note = [self.ctx.note("previous definition is here", previous[3])]
            if previous[1] != t:
                self.ctx.fail(f"typedef redefinition with different types ('{spell(t)}' vs '{spell(previous[1])}')",
                              name_location(node), note)
            if not previous[3].file.endswith("opencl-c-coop.h"):   # clang: not for system headers
                self.ctx.warn(f"redefinition of typedef '{node.name}' is a C11 feature [-Wtypedef-redefinition]",
                              name_location(node), note)
            return
        if isinstance(t, T.StructType) and t.tag is None and t.typedef_name is None:
            object.__setattr__(t, "typedef_name", node.name)
        self.ctx.scope.names[node.name] = ("typedef", t, aspace, location(node))
        if t.is_coop_opaque:
            self.ctx.coop_decl_locs[node.name] = location(node)

    def declaration(self, node, program_scope=False):
        if isinstance(node.type, (c_ast.Struct, c_ast.Union, c_ast.Enum)) and node.name is None:
            self.decl_types.base_type(node.type)        # a tag declaration only
            return []
        if node.type is not None and (isinstance(node.type, c_ast.FuncDecl)
                                      or type(node.type).__name__ == "FuncDeclExt"):
            self.function_declaration(node)
            return []
        with self.poison_on_error(node.name):
            t, aspace, const = self.decl_types.full_decl_type(node)
        storage = list(node.storage or [])
        if "typedef" in storage:
            self.declare_typedef(node, t, aspace)
            return []
        previous = self.ctx.scope.names.get(node.name)
        if "extern" in storage and program_scope:
            return self.extern_declaration(node, t, aspace, const, previous)
        if program_scope and isinstance(previous, tast.Var) and id(previous) in self.ctx.extern_vars:
            return [self.define_extern(node, previous, t, aspace, const)]
        if isinstance(previous, (tast.Var, tast.Function)) or (isinstance(previous, tuple) and previous[0] == "enum"):
            prev_loc = previous.loc if not isinstance(previous, tuple) else previous[3]
            self.ctx.poisoned.discard(node.name)
            kind = " as different kind of symbol" if isinstance(previous, tast.Function) else ""
            self.ctx.fail(f"redefinition of '{node.name}'{kind}", name_location(node),
                          [self.ctx.note("previous definition is here", prev_loc)] if prev_loc else [])
        if program_scope:
            var = self.global_variable(node, t, aspace, const)
            return [var]
        return [self.local_variable(node, t, aspace, const, "static" in storage)]

    def extern_declaration(self, node, t, aspace, const, previous):
        """`extern T x;` at program scope (C99 6.9.2): declares x; a definition must follow in
        this translation unit if x is used (clcoop links nothing; clang leaves an external global)."""
        space = T.GLOBAL if aspace in (None, T.GENERIC) else aspace
        self.decl_types.program_scope_space_rules(node, aspace, extern=True)
        if isinstance(previous, tast.Var):
            if previous.type != t and not (isinstance(previous.type, T.ArrayType) and isinstance(t, T.ArrayType)
                                           and previous.type.elem == t.elem and t.length is None):
                self.ctx.fail(f"redeclaration of '{node.name}' with a different type: '{spell(t)}' vs "
                              f"'{spell(previous.type)}'", name_location(node),
                              [self.ctx.note("previous declaration is here", previous.loc)])
            return []
        if node.init is not None:
            self.ctx.warn("'extern' variable has an initializer", name_location(node))
            return [self.global_variable(node, t, aspace, const)]
        var = tast.Var(node.name, t, "global", space, None, location(node), const or space == T.CONSTANT,
                       global_name=node.name)
        self.ctx.scope.names[node.name] = var
        self.ctx.extern_vars[id(var)] = var
        return []

    def define_extern(self, node, var, t, aspace, const):
        """The definition of a variable declared `extern` before: the same Var, now defined."""
        del self.ctx.extern_vars[id(var)]
        del self.ctx.scope.names[node.name]
        defined = self.global_variable(node, t, aspace, const)
        self.globals.remove(defined)
        if defined.type != var.type and not (isinstance(var.type, T.ArrayType) and var.type.length is None):
            self.ctx.fail(f"redefinition of '{node.name}' with a different type: '{spell(defined.type)}' vs "
                          f"'{spell(var.type)}'", name_location(node),
                          [self.ctx.note("previous declaration is here", var.loc)])
        for field_name in ("type", "addrspace", "initializer", "loc", "is_const"):
            setattr(var, field_name, getattr(defined, field_name))
        if id(defined) in self.ctx.implicitly_const:
            self.ctx.implicitly_const.add(id(var))
        self.ctx.scope.names[node.name] = var
        self.globals.append(var)
        return var

    def overloadable_declaration(self, node, name, ftype, is_kernel, defining):
        """`__attribute__((overloadable))` (clang's C extension): one function per parameter
        list, named as clang mangles it (Itanium, like the OpenCL built-ins)."""
        try:
            mangled = _builtins.mangle(name, ftype.params)
        except ValueError:
            self.ctx.fail(f"clcoop cannot mangle the parameter types of overloadable function '{name}'",
                          name_location(node))
        family = self.ctx.overloads.setdefault(name, [])
        for existing in family:
            if existing.mangled == mangled:
                if existing.type != ftype:
                    self.ctx.fail(f"conflicting types for '{name}'", name_location(node),
                                  [self.ctx.note("previous declaration is here", existing.loc)])
                if defining and existing.body is not None:
                    self.ctx.fail(f"redefinition of '{name}'", name_location(node),
                                  [self.ctx.note("previous definition is here", existing.loc)])
                if defining:
                    existing.loc = location(node)
                return existing
        fn = tast.Function(name, ftype, [], None, is_kernel, "static" in (node.storage or []), location(node),
                           mangled=mangled)
        self.ctx.declared_param_names[id(fn)] = declared_parameter_names(node)
        family.append(fn)
        self.ctx.functions.append(fn)
        self.ctx.scope.names.setdefault(name, fn)
        return fn

    def check_object_type(self, t, node, where):
        if t.is_void:
            self.ctx.fail(f"variable has incomplete type 'void'", node)
        if isinstance(t, T.StructType) and not t.complete:
            self.ctx.fail(f"variable has incomplete type '{spell(t)}'", node)

    def global_variable(self, node, t, aspace, const):
        self.coop.coop_storage_error(t, aspace, node, "program")
        self.decl_types.program_scope_space_rules(node, aspace)
        if aspace is None:
            aspace = T.GLOBAL      # OpenCL C 2.0+: program-scope variables default to __global
        self.require_fp16_object(t, aspace, node, "variable")
        if aspace in (T.PRIVATE, T.LOCAL):
            self.ctx.fail(f"program scope variable must reside in global or constant address space", node)
        self.check_object_type(t, node, "global")
        var = self.static_storage_variable(node, t, "global", aspace, const, node.name)
        self.globals.append(var)
        return var

    def static_storage_variable(self, node, t, storage, space, const, global_name):
        """A program-scope or static variable: __constant ones are const and must be
        initialized, initializers are constant expressions (OpenCL C 3.0 6.7.1)."""
        var = tast.Var(node.name, t, storage, space, None, location(node), const or space == T.CONSTANT,
                       global_name=global_name)
        if space == T.CONSTANT and not const:
            self.ctx.implicitly_const.add(id(var))
        self.ctx.scope.names[node.name] = var
        if node.init is not None:
            var.initializer = self.initializers.initializer(node.init, var, constant=True, decl=node)
            var.type = self.initializers.complete_array_type(var.type, var.initializer)
        elif space == T.CONSTANT:
            self.ctx.fail("variable in constant address space must be initialized", node)
        return var

    def local_variable(self, node, t, aspace, const, is_static):
        fn = self.ctx.fn.function
        loc = location(node)
        if aspace in (T.GLOBAL, T.LOCAL, T.CONSTANT) and t.is_coop_opaque:
            self.coop.coop_storage_error(t, aspace, node, "local")
        if aspace == T.GLOBAL and not is_static:
            self.ctx.fail("function scope variable cannot be declared in global address space", node)
        self.decl_types.function_scope_space_rules(node, aspace, is_static, fn)
        self.check_object_type(t, node, "local")
        self.require_fp16_object(t, aspace if aspace != T.GENERIC else T.PRIVATE, node, "variable")
        if aspace == T.LOCAL:
            if node.init is not None:
                self.ctx.fail("'__local' variable cannot have an initializer", node.init)
            var = tast.Var(node.name, t, "kernel-local", T.LOCAL, None, loc, const,
                           global_name=f"{fn.name}.{node.name}")
            fn.local_vars.append(var)
            self.ctx.scope.names[node.name] = var
            return var
        if is_static or aspace in (T.CONSTANT, T.GLOBAL):
            if t.is_coop_opaque:
                self.ctx.fail(f"{coop_what(t)} type cannot be declared 'static'", node)
            # OpenCL C 2.0+: static function-scope variables live in the global address space.
            space = aspace if aspace in (T.CONSTANT, T.GLOBAL) else T.GLOBAL
            # Same-named statics of inner scopes get clang's suffixes: f.x, f.x.1, f.x.2 ...
            taken = sum(1 for v in fn.static_vars if v.name == node.name)
            name = f"{fn.name}.{node.name}" + (f".{taken}" if taken else "")
            var = self.static_storage_variable(node, t, "static", space, const, name)
            fn.static_vars.append(var)
            return var
        var = tast.Var(node.name, t, "local-var", T.PRIVATE, None, loc, const)
        # The name is visible in its own initializer (C99 6.2.1p7), but a matrix load needs the type.
        self.ctx.scope.names[node.name] = var
        if node.init is None and (t.is_coop_opaque or t.is_pointer or isinstance(t, (T.ScalarType, T.VectorType))):
            self.ctx.fn.uninitialized.declared(var)
        if node.init is not None:
            var.initializer = self.initializers.initializer(node.init, var, constant=False, decl=node)
            var.type = self.initializers.complete_array_type(var.type, var.initializer)
        elif isinstance(t, T.ArrayType) and t.length is None:
            self.ctx.fail(f"definition of variable with array type needs an explicit size or an initializer", node)
        return var

    # ------------------------------------------------------------------ functions
    def function_declaration(self, node, defining=False):
        ftype, _, _ = self.decl_types.declarator_type(node.type, node)
        name = node.name
        if ftype.ret == T.HALF:
            self.ctx.require_fp16("declaring function return value of type 'half' is not allowed ; "
                                  "did you forget * ?", name_location(node))
        args = getattr(node.type, "args", None)
        for p in (args.params if args is not None else []):
            if isinstance(p, c_ast.Decl) and getattr(p, "type", None) is not None:
                pt, paspace, _ = self.decl_types.full_decl_type(p)
                if pt == T.HALF:
                    self.require_fp16_object(pt, paspace, p, "parameter")
        funcspec = [s for s in (node.funcspec or []) if isinstance(s, str)]
        is_kernel = "__kernel" in funcspec or "kernel" in funcspec
        if name in COOP_BUILTINS or name == "printf" or _builtins.is_builtin(name):
            if not defining:
                return None    # a re-declaration of a built-in (e.g. from a header): keep the built-in
        if ftype.variadic:
            # OpenCL C 3.0 6.11 (restrictions): only printf is variadic; clang-22's wording.
            self.ctx.fail("invalid prototype, variadic arguments are not allowed in OpenCL", name_location(node))
        overloadable = any(n.strip("_") == "overloadable" for n, _, _ in self.decl_types.attributes_of(node))
        if overloadable:
            return self.overloadable_declaration(node, name, ftype, is_kernel, defining)
        other = self.ctx.scope.names.get(name)
        if other is not None and not isinstance(other, tast.Function):
            other_loc = other[3] if isinstance(other, tuple) else other.loc
            self.ctx.fail(f"redefinition of '{name}' as different kind of symbol", name_location(node),
                          [self.ctx.note("previous definition is here", other_loc)] if other_loc else [])
        existing = self.function_by_name.get(name)
        if existing is not None:
            if existing.type != ftype:
                self.ctx.fail(f"conflicting types for '{name}'", node,
                              [self.ctx.note("previous declaration is here", existing.loc)])
            if defining and existing.body is not None:
                self.ctx.fail(f"redefinition of '{name}'", node,
                              [self.ctx.note("previous definition is here", existing.loc)])
            if defining:
                existing.loc = location(node)
            return existing
        fn = tast.Function(name, ftype, [], None, is_kernel, "static" in (node.storage or []), location(node))
        self.ctx.declared_param_names[id(fn)] = declared_parameter_names(node)
        self.function_by_name[name] = fn
        self.ctx.functions.append(fn)
        self.ctx.scope.names[name] = fn
        return fn

    def function_definition(self, node):
        decl = node.decl
        fn = self.function_declaration(decl, defining=True)
        if fn is None:
            self.ctx.fail(f"redefinition of built-in function '{decl.name}'", decl)
        fn.is_kernel = fn.is_kernel or any(s in ("__kernel", "kernel") for s in decl.funcspec or []
                                           if isinstance(s, str))
        fn.body = tast.Compound(location(node.body), [])   # marks it defined even if the body fails
        self.decl_types.kernel_attributes(fn, decl)
        if fn.is_kernel and fn.is_static:
            self.ctx.error("kernel functions cannot be declared static", name_location(decl))
        if fn.name == "main":
            # OpenCL C 3.0 6.11.e: no `main` (the host starts kernels); clang-22's wording.
            self.ctx.error(f"{'kernel' if fn.is_kernel else 'function'} cannot be called 'main'",
                           name_location(decl))
        if fn.is_kernel and not fn.type.ret.is_void:
            self.ctx.error("kernel must have void return type", decl)
        if isinstance(fn.type.ret, T.ArrayType):
            self.ctx.error("function cannot return array type", decl)
        outer = self.ctx.scope
        self.ctx.scope = Scope(outer)
        self.ctx.fn = FunctionContext(fn)
        try:
            fn.params = self.parameters(fn, decl)
            fn.body = self.statements.compound(node.body, new_scope=False)
            self.resolve_gotos()
            self.warn_uninitialized_uses()
        finally:
            self.ctx.scope = outer
            self.ctx.fn = None

    def parameters(self, fn, decl):
        func_decl = decl.type
        params = []
        if func_decl.args is None:
            return params
        index = 0
        for p in func_decl.args.params:
            if isinstance(p, c_ast.EllipsisParam):
                continue
            t, aspace, const = self.decl_types.full_decl_type(p)
            if t.is_void and getattr(p, "name", None) is None:
                continue
            t = self.decl_types.adjust_param_type(t)
            if p.name is None:
                self.ctx.error("parameter name omitted", p)
            var = tast.Var(p.name or f"arg{index}", t, "param", T.PRIVATE, None, location(p), const)
            if fn.is_kernel:
                self.kernel_parameter_checks(var, p)
                fn.param_type_names.append(self.written_type_name(p))
                fn.param_access_quals.append("none")
            params.append(var)
            if p.name:
                if p.name in self.ctx.scope.names:
                    self.ctx.error(f"redefinition of parameter '{p.name}'", p)
                self.ctx.scope.names[p.name] = var
            index += 1
        return params

    def written_type_name(self, p):
        """Parameter type as written (typedef names kept) for kernel_arg_type metadata."""
        node = p.type
        stars = 0
        while isinstance(node, c_ast.PtrDecl):
            stars += 1
            node = node.type
        if isinstance(node, c_ast.TypeDecl) and isinstance(node.type, c_ast.IdentifierType):
            base = " ".join(node.type.names)
            base = {"unsigned int": "uint", "unsigned char": "uchar", "unsigned short": "ushort",
                    "unsigned long": "ulong", "unsigned": "uint", "signed char": "char",
                    "_Bool": "bool"}.get(base, base)
            return base + "*" * stars
        if isinstance(node, c_ast.TypeDecl) and isinstance(node.type, (c_ast.Struct, c_ast.Union)):
            kw = "union" if isinstance(node.type, c_ast.Union) else "struct"
            return f"{kw} {node.type.name}" + "*" * stars
        t, _, _ = self.decl_types.declarator_type(p.type, p)
        return t.spelling()

    def kernel_parameter_checks(self, var, p):
        t = var.type
        p = name_location(p)
        if t.is_coop_opaque:
            notes = []
            if t.typedef_name and t.typedef_name in self.ctx.coop_decl_locs:
                notes.append(self.ctx.note(f"'{t.typedef_name}' declared here",
                                           self.ctx.coop_decl_locs[t.typedef_name]))
            self.ctx.error(f"'{spell(t)}' cannot be used as the type of a kernel parameter", p, notes)
        elif t == T.BOOL:
            self.ctx.error("'bool' cannot be used as the type of a kernel parameter", p)
        elif t.is_pointer and t.pointee.is_pointer and self.ctx.pre_cl20:
            # OpenCL C 1.2 6.9.a: no pointer-to-pointer kernel arguments (2.0 lifted it).
            self.ctx.error("kernel parameter cannot be declared as a pointer to a pointer", p)
        elif t.is_pointer and not _kernel_pointer_spaces_ok(t):
            # OpenCL C 3.0 6.11.a: every level of a pointer (to pointer) kernel argument
            # points into __global, __constant or __local memory (clang-22's rule and wording).
            self.ctx.error("pointer arguments to kernel functions must reside in '__global', "
                           "'__constant' or '__local' address space", p)

    def resolve_gotos(self):
        for name, node in self.ctx.fn.gotos:
            if name not in self.ctx.fn.labels:
                self.ctx.error(f"use of undeclared label '{name}'", node)
