"""Semantic analysis: pycparser AST -> typed AST (clcoop.frontend.tast), with every diagnostic.

`check(ast, diag, target) -> tast.TranslationUnit`

The checker applies the C99 rules (usual arithmetic conversions, integer promotions,
pointer arithmetic, lvalues), the OpenCL C 3.0 rules (address spaces, vectors, swizzles,
kernels) and the cooperative-matrix rules of the RFC and of the clang pull request
llvm/llvm-project #221328 (diagnostic wording follows its tests). Every implicit
conversion becomes an explicit tast.ImplicitCast, so lower never re-derives a C rule.

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
from clcoop.frontend.builtin_calls import ADDRESS_SPACE_QUERIES, CLANG_BUILTINS, BuiltinCalls
from clcoop.frontend.check_support import (Abandon, CheckContext, FunctionContext, Scope, TooManyErrors, location,
                                           name_location, operator_location)
from clcoop.frontend.constfold import ConstantFolding, fold
from clcoop.frontend.conversions import (Conversions, arith_or_vector, comparison_result, described, is_arith_like,
                                         promote, spell, strip_pointer_quals)
from clcoop.frontend.coop_check import COOP_BUILTINS, COOP_EXTENSION, CoopChecks
from clcoop.frontend.coop_tensor_check import CoopTensorChecks, coop_what
from clcoop.frontend.decl_types import DeclTypes, written_typedef_name
from clcoop.frontend.initializers import Initializers
from clcoop.frontend.literals import Literals
from clcoop.frontend.parse import LOOP_UNROLL_HINTS
from clcoop.frontend.types import as_arith, is_integer_like, unqualified_elem, wrap_int


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


def member_path(t, name):
    """[(index, field), ...] from struct/union t down to member `name`, through anonymous
    struct/union members; None when there is no such member."""
    for i, f in enumerate(t.fields):
        if f.name == name:
            return [(i, f)]
        if f.name is None and isinstance(f.type, T.StructType):
            inner = member_path(f.type, name)
            if inner is not None:
                return [(i, f)] + inner
    return None


def _is_fp_contract_pragma(node):
    return (node.string or "").split()[1:2] == ["FP_CONTRACT"]


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


class Checker:
    """Declarations, statements and expressions; the mixins hold the rules of their modules."""

    def __init__(self, diag, target):
        self.ctx = CheckContext(diag, target)
        self.literals = Literals(self.ctx)
        self.folding = ConstantFolding(self.ctx, self)
        self.conversions = Conversions(self.ctx)
        self.asm = InlineAsmChecks(self.ctx, self, self.literals)
        self.tensors = CoopTensorChecks(self.ctx, self, self.folding, self.conversions)
        self.coop = CoopChecks(self.ctx, self, self.folding, self.conversions, self.tensors)
        self.decl_types = DeclTypes(self.ctx, self.folding, self.coop, self.tensors)
        self.initializers = Initializers(self.ctx, self, self.conversions, self.folding, self.decl_types,
                                         self.literals)
        self.builtin_calls = BuiltinCalls(self.ctx, self, self.conversions, self.literals)
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
        """Location of the index-th word after `#pragma` (clang points at it)."""
        loc = location(node)
        line = self.ctx.diag.sources.line(loc.file, loc.line) if loc else None
        if not line:
            return loc
        found = list(re.finditer(r"[A-Za-z_]\w*", line))
        words = [m for m in found if m.group() != "pragma"][index:]
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

        def reaches(start, goal):
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

        for caller, callee, loc in self.ctx.call_edges:
            if (caller in reported and callee in reported) or not reaches(callee, caller):
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
            self.static_assert(node)
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

    def overloaded_call(self, name, args_nodes, node):
        """A call to a user's overloadable function: clang's overload resolution picks one."""
        family = self.ctx.overloads[name]
        arg_types = [self.rvalue(self.expr(a)).type for a in args_nodes]
        candidates = {_builtins.BuiltinOverload(name, f.type.ret, f.type.params, f.mangled): f for f in family}
        try:
            chosen = _builtins.select_overload(name, list(candidates), arg_types)
        except _builtins.BuiltinMismatch as exc:
            by_signature = {o.signature(): f for o, f in candidates.items()}
            notes = []
            for text in exc.notes:        # "candidate function: <signature>": at its declaration, as clang
                head, _, signature = text.partition(": ")
                fn = by_signature.get(signature)
                notes.append(self.ctx.note(head, fn.loc) if fn is not None else self.ctx.note(text, location(node)))
            self.ctx.fail(exc.message, node, notes)
        return self.user_call(candidates[chosen], args_nodes, node)

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
            fn.body = self.compound(node.body, new_scope=False)
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

    # ------------------------------------------------------------------ statements
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
                        self.fp_contract_pragma((item.string or "").split(), item, True)
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
            vars_ = self.declaration(node)
            return [tast.DeclStmt(location(node), vars_)] if vars_ else []
        if isinstance(node, c_ast.Typedef):
            self.typedef(node)
            return []
        if isinstance(node, c_ast.DeclList):
            out = []
            for d in node.decls:
                out.extend(self.declaration(d))
            return [tast.DeclStmt(location(node), out)]
        return [self.statement(node)]

    def statement(self, node):
        loc = location(node)
        if isinstance(node, c_ast.Compound):
            return self.compound(node)
        if isinstance(node, c_ast.If):
            cond = self.condition(node.cond)
            then = self.sub_statement(node.iftrue)
            other = self.sub_statement(node.iffalse) if node.iffalse is not None else None
            return tast.If(loc, cond, then, other)
        if isinstance(node, c_ast.While):
            with self.ctx.fn.uninitialized.loop():
                cond = self.condition(node.cond)
                return tast.While(loc, cond, self.loop_body(node.stmt), LOOP_UNROLL_HINTS.get(node))
        if isinstance(node, c_ast.DoWhile):
            with self.ctx.fn.uninitialized.loop():
                body = self.loop_body(node.stmt)
                return tast.DoWhile(loc, body, self.condition(node.cond), LOOP_UNROLL_HINTS.get(node))
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
            self.pragma(node)
            return tast.Null(loc)
        if isinstance(node, (c_ast.Decl, c_ast.Typedef, c_ast.DeclList)):
            items = self.block_item(node)
            return items[0] if items else tast.Null(loc)
        if isinstance(node, c_ast.StaticAssert):
            self.static_assert(node)
            return tast.Null(loc)
        if type(node).__name__ == "Asm":         # pycparserext.ext_c_parser.Asm
            return self.asm.asm_statement(node)
        expr = self.expr(node)
        return tast.ExprStmt(loc, self.rvalue(expr))

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
                        vars_.extend(self.declaration(d))
                    init = tast.DeclStmt(location(node.init), vars_)
                else:
                    init = tast.ExprStmt(location(node.init), self.expr(node.init))
            with self.ctx.fn.uninitialized.loop():
                cond = self.condition(node.cond) if node.cond is not None else None
                step = self.expr(node.next) if node.next is not None else None
                body = self.loop_body(node.stmt)
            return tast.For(location(node), init, cond, step, body, LOOP_UNROLL_HINTS.get(node))
        finally:
            self.ctx.scope = outer

    def switch_statement(self, node):
        cond = self.rvalue(self.expr(node.cond))
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
        value = self.expr(node.expr, expected=ret)
        if ret.is_void:
            if value.type.is_void:
                # `return f();` with void f (C permits it in practice): evaluate, then return.
                return tast.Compound(loc, [tast.ExprStmt(loc, value), tast.Return(loc, None)])
            self.ctx.fail(f"void function '{self.ctx.fn.function.name}' should not return a value", node)
        return tast.Return(loc, self.conversions.convert(self.rvalue(value), ret, node.expr, "returning"))

    def static_assert(self, node):
        value = self.folding.integer_constant(node.cond, "static assertion expression")
        if not value:
            msg = self.literals.string_bytes(node.message).decode() if node.message is not None else ""
            self.ctx.error(f"static assertion failed{': ' + msg if msg else ''}", node)

    def condition(self, node):
        e = self.rvalue(self.expr(node))
        return self.to_bool(e, node)

    def to_bool(self, e, node):
        t = e.type
        if t == T.BOOL:
            return e
        if is_integer_like(t):
            return tast.ImplicitCast(T.BOOL, e.loc, "int-to-bool", e)
        if t.is_float:
            return tast.ImplicitCast(T.BOOL, e.loc, "float-to-bool", e)
        if t.is_pointer:
            return tast.ImplicitCast(T.BOOL, e.loc, "pointer-to-bool", e)
        self.ctx.fail(f"statement requires expression of scalar type ('{spell(t)}' invalid)", node)

    # ------------------------------------------------------------------ expressions
    def rvalue(self, e):
        """Value of e: arrays decay to pointers (C99 6.3.2.1p3)."""
        if isinstance(e, tast.VarRef) and self.ctx.fn is not None:
            self.ctx.fn.uninitialized.read(e)
        if isinstance(e.type, T.AtomicType):
            self.ctx.fail(f"an object of type '{spell(e.type)}' is read only through the atomic "
                          f"functions (e.g. atomic_load; OpenCL C 3.0 6.15.12.6)", e.loc)
        if e.type == T.HALF and isinstance(e, (tast.Deref, tast.Index)):
            space = T.ADDRSPACE_NAMES[self.object_space(e)]
            where = e.loc
            if isinstance(e, tast.Deref) and e.operand.loc is not None:
                where = operator_location(self.ctx.diag.sources, "*", e.operand.loc, e.loc)
            self.ctx.require_fp16(f"loading directly from pointer to type '{space} half' requires "
                                  f"cl_khr_fp16. Use vector data load builtin functions instead", where)
        if isinstance(e.type, T.ArrayType):
            aspace = self.object_space(e)
            return tast.ImplicitCast(T.PointerType(e.type.elem, aspace, self.object_const(e)),
                                     e.loc, "array-to-pointer", e)
        return e

    def object_space(self, e):
        """Address space of the object an lvalue designates."""
        if isinstance(e, tast.VarRef):
            return e.var.addrspace
        if isinstance(e, tast.Deref):
            return e.operand.type.addrspace
        if isinstance(e, tast.Index):
            return e.base.type.addrspace
        if isinstance(e, tast.Member):
            return self.object_space(e.base) if e.base.is_lvalue else T.PRIVATE
        if isinstance(e, (tast.Swizzle, tast.VectorElement)):
            return self.object_space(e.base)
        return T.PRIVATE

    def object_const(self, e):
        """Whether an lvalue's type is const-qualified (assignments also check Var.is_const)."""
        if isinstance(e, tast.VarRef):
            return e.var.is_const and id(e.var) not in self.ctx.implicitly_const
        if isinstance(e, tast.Deref):
            return e.operand.type.const
        if isinstance(e, tast.Index):
            return e.base.type.const
        if isinstance(e, (tast.Member, tast.Swizzle, tast.VectorElement)):
            return self.object_const(e.base)
        return False

    def expr(self, node, expected=None):
        """Type an expression. `expected` is the destination type where C gives one
        (initializer, assignment, return, argument): coop_mat_load/init take it."""
        method = getattr(self, "expr_" + type(node).__name__, None)
        if method is None:
            self.ctx.fail(f"unsupported expression '{type(node).__name__}'", node)
        if method.__code__.co_argcount > 2:
            return method(node, expected)
        return method(node)

    def expr_Constant(self, node):
        return self.literals.expr_Constant(node)

    def expr_CompoundLiteral(self, node):
        return self.initializers.expr_CompoundLiteral(node)

    def expr_InitList(self, node):
        return self.initializers.expr_InitList(node)

    def expr_ID(self, node):
        entry = self.ctx.scope.lookup(node.name)
        loc = location(node)
        if node.name == "__func__" and entry is None and self.ctx.fn is not None:
            # C99 6.4.2.2: `static const char __func__[] = "name";`, in __constant memory as clang.
            return tast.StringLiteral(T.PointerType(T.CHAR, T.CONSTANT, True), loc,
                                      self.ctx.fn.function.name.encode() + b"\0")
        if isinstance(entry, tast.Var):
            if id(entry) in self.ctx.extern_vars:
                self.ctx.extern_uses.setdefault(node.name, loc)
            ref = tast.VarRef(entry.type, loc, entry)
            if self.ctx.fn is not None:
                self.ctx.fn.uninitialized.referenced(ref)
            return ref
        if isinstance(entry, tuple) and entry[0] == "enum":
            return tast.IntConst(T.INT, loc, entry[1], entry[2])
        if isinstance(entry, tast.Function):
            # Calls name their callee directly (expr_FuncCall); anything else would be a function pointer.
            self.ctx.fail(f"function '{node.name}' must be called: OpenCL C has no function pointers", node)
        if isinstance(entry, tuple) and entry[0] == "typedef":
            self.ctx.fail(f"unexpected type name '{node.name}': expected expression", node)
        if node.name in COOP_BUILTINS or _builtins.is_builtin(node.name):
            self.ctx.fail(f"built-in function '{node.name}' must be called", node)
        if node.name in self.ctx.poisoned:
            raise Abandon()       # its declaration already had an error
        self.ctx.fail(f"use of undeclared identifier '{node.name}'", node)

    # ---- unary
    def expr_UnaryOp(self, node):
        op = node.op
        if op == "sizeof":
            return self.sizeof_expr(node)
        if op in ("_Alignof", "__alignof__", "alignof"):
            t = self.type_of_operand(node.expr)
            return tast.IntConst(self.ctx.target.size_t, location(node), self.alignof(t, node))
        if op in ("p++", "p--", "++", "--"):
            return self.incdec(node)
        if op == "&":
            return self.address_of(node)
        if op == "*":
            operand = self.rvalue(self.expr(node.expr))
            if not operand.type.is_pointer:
                self.ctx.fail(f"indirection requires pointer operand ('{spell(operand.type)}' invalid)", node)
            if operand.type.pointee.is_void:
                self.ctx.fail("indirection of a 'void *' pointer is not allowed here", node)
            return tast.Deref(operand.type.pointee, location(node), operand)
        operand = self.rvalue(self.expr(node.expr))
        t = operand.type
        loc = location(node)
        if t.is_coop_matrix:
            if op == "-":
                return tast.CoopNeg(t, loc, operand)
            if op == "+":
                return operand
            self.ctx.fail("unsupported cooperative matrix unary operator", node)
        if op == "!":
            if isinstance(t, T.VectorType):
                if t.elem.is_float:
                    self.ctx.fail(f"invalid argument type '{spell(t)}' to unary expression", node)
                return tast.Unary(comparison_result(t), loc, "!", operand)
            return tast.Unary(T.INT, loc, "!", self.to_bool(operand, node.expr))
        if op in ("-", "+"):
            if not (is_arith_like(t) or isinstance(t, T.VectorType)):
                self.ctx.fail(f"invalid argument type '{spell(t)}' to unary expression", node)
            operand = self.conversions.promote_expr(operand)
            if op == "+":
                return operand
            return tast.Unary(operand.type, loc, "-", operand)
        if op == "~":
            if not (is_integer_like(t) or (isinstance(t, T.VectorType) and t.elem.is_integer)):
                self.ctx.fail(f"invalid argument type '{spell(t)}' to unary expression", node)
            operand = self.conversions.promote_expr(operand)
            return tast.Unary(operand.type, loc, "~", operand)
        self.ctx.fail(f"unsupported unary operator '{op}'", node)

    def address_of(self, node):
        operand = self.expr(node.expr)
        loc = location(node)
        if operand.type.is_coop_matrix:
            self.ctx.fail("cannot take the address of a cooperative matrix", node)
        if isinstance(operand, tast.CoopElement):
            self.ctx.fail("cannot take the address of a cooperative matrix element", node)
        if isinstance(operand, tast.FunctionRef):
            self.ctx.fail("taking the address of a function is not allowed in OpenCL", node)
        if isinstance(operand, tast.VectorElement):
            self.ctx.fail("address of vector element requested", node)     # clang-22's wording
        if not operand.is_lvalue or isinstance(operand, tast.Swizzle):
            self.ctx.fail(f"cannot take the address of an rvalue of type '{spell(operand.type)}'", node)
        space = self.object_space(operand)
        return tast.AddrOf(T.PointerType(operand.type, space, self.object_const(operand)), loc, operand)

    def type_of_operand(self, node):
        if isinstance(node, c_ast.Typename):
            t, _, _ = self.decl_types.full_decl_type(node)
            return t
        if isinstance(node, c_ast.Constant) and node.type == "string":
            # C99 6.4.5p5: a string literal is an array of char, NUL included (it decays elsewhere).
            return T.ArrayType(T.CHAR, len(self.literals.string_bytes(node)) + 1)
        return self.expr(node).type

    def sizeof_expr(self, node):
        t = self.type_of_operand(node.expr)
        if t.is_void:
            # C99 6.5.3.4p1 (GNU C's sizeof(void) == 1 is not OpenCL C); clang-22's wording.
            self.ctx.fail("invalid application of 'sizeof' to a void type", node)
        return tast.IntConst(self.ctx.target.size_t, location(node), self.sizeof(t, node))

    def sizeof(self, t, node):
        if isinstance(t, T.EnumType):
            return 4
        if isinstance(t, T.ScalarType):
            if t.is_void:
                return 1
            return t.size
        if isinstance(t, T.VectorType):
            return t.size
        if isinstance(t, T.PointerType):
            return self.ctx.target.pointer_bits // 8
        if isinstance(t, T.ArrayType):
            if t.length is None:
                self.ctx.fail(f"invalid application of 'sizeof' to an incomplete type '{spell(t)}'", node)
            return t.length * self.sizeof(t.elem, node)
        if isinstance(t, T.StructType):
            if not t.complete:
                self.ctx.fail(f"invalid application of 'sizeof' to an incomplete type '{spell(t)}'", node)
            size, align = 0, 1
            for f in t.fields:
                fs, fa = self.sizeof(f.type, node), self.alignof(f.type, node)
                align = max(align, fa)
                if t.is_union:
                    size = max(size, fs)
                else:
                    size = (size + fa - 1) // fa * fa + fs
            return (size + align - 1) // align * align
        if t.is_coop_opaque:
            self.ctx.fail(f"invalid application of 'sizeof' to a {coop_what(t)} type", node)
        self.ctx.fail(f"invalid application of 'sizeof' to type '{spell(t)}'", node)

    def alignof(self, t, node):
        if isinstance(t, T.ArrayType):
            return self.alignof(t.elem, node)
        if isinstance(t, T.StructType):
            return max([self.alignof(f.type, node) for f in t.fields] or [1])
        return self.sizeof(t, node)

    def incdec(self, node):
        op = "++" if "++" in node.op else "--"
        prefix = not node.op.startswith("p")
        target = self.expr(node.expr)
        loc = location(node)
        self.check_assignable(target, node.expr)
        t = target.type
        if t.is_coop_matrix:
            self.ctx.fail("unsupported cooperative matrix unary operator", node)
        old = tast.OldValue(t, loc)
        if t.is_pointer:
            one = tast.IntConst(self.ctx.target.ptrdiff_t, loc, 1)
            compute = tast.PointerArith(t, loc, "+" if op == "++" else "-", old, one)
        elif is_arith_like(t) or isinstance(t, T.VectorType):
            one = tast.IntConst(T.INT, loc, 1)
            compute = self.arith_binary("+" if op == "++" else "-", old, one, node)
            compute = self.conversions.convert(compute, t, node, "assigning")
        else:
            self.ctx.fail(f"cannot increment value of type '{spell(t)}'", node)
        return tast.IncDec(t, loc, op, prefix, target, compute)

    # ---- binary
    def expr_BinaryOp(self, node, expected=None):
        op = node.op
        if op in ("&&", "||"):
            return self.logical(node)
        if op not in ("+", "-", "*", "/"):
            left = self.rvalue(self.expr(node.left))
            return self.binary(op, left, self.rvalue(self.expr(node.right)), node)
        # A matrix + - * / has its operands' type (RFC 4.6: both operands of one type, or a
        # matrix times a scalar): an operand whose type only the context gives
        # (`coop_mat_init(x) + m`) takes the other matrix operand's, else the destination's.
        matrix_context = expected if expected is not None and expected.is_coop_matrix else None
        if self.coop.takes_context_type(node.left) and not self.coop.takes_context_type(node.right):
            right = self.rvalue(self.expr(node.right, matrix_context))
            left = self.rvalue(self.expr(node.left, right.type if right.type.is_coop_matrix else matrix_context))
            return self.binary(op, left, right, node)
        left = self.rvalue(self.expr(node.left, matrix_context))
        right = self.rvalue(self.expr(node.right, left.type if left.type.is_coop_matrix else matrix_context))
        return self.binary(op, left, right, node)

    def binary(self, op, left, right, node):
        lt, rt = left.type, right.type
        if lt.is_coop_matrix or rt.is_coop_matrix:
            return self.coop.coop_binary(op, left, right, node)
        if op in ("+", "-") and (lt.is_pointer or rt.is_pointer):
            return self.pointer_arith(op, left, right, node)
        if op in ("<", ">", "<=", ">=", "==", "!=") and (lt.is_pointer or rt.is_pointer):
            return self.pointer_compare(op, left, right, node)
        if lt.is_void or rt.is_void or not (arith_or_vector(lt) and arith_or_vector(rt)):
            self.ctx.fail(f"invalid operands to binary expression ('{spell(lt)}' and '{spell(rt)}')", node)
        return self.arith_binary(op, left, right, node)

    def arith_binary(self, op, left, right, node):
        lt, rt = left.type, right.type
        loc = left.loc or location(node)
        integer_only = op in ("%", "&", "|", "^", "<<", ">>")
        if op in ("<<", ">>"):
            # C99 6.5.7: each operand promoted separately; result has the left's type.
            if isinstance(lt, T.VectorType):
                result_t = lt
            elif isinstance(rt, T.VectorType):
                # OpenCL: a scalar shifted by a vector is not allowed.
                self.ctx.fail(f"invalid operands to binary expression ('{spell(lt)}' and '{spell(rt)}')", node)
            else:
                result_t = promote(lt)
        else:
            result_t = self.conversions.common_type(lt, rt, node)
        elem = unqualified_elem(result_t)
        if integer_only and not as_arith(elem).is_integer:
            self.ctx.fail(f"invalid operands to binary expression ('{spell(lt)}' and '{spell(rt)}')", node)
        left = self.conversions.arith_convert(left, result_t)
        right = self.conversions.arith_convert(right, result_t)
        if op in ("/", "%") and as_arith(elem).is_integer and fold(right) == 0:
            # clang -Wdivision-by-zero (C99 6.5.5p5: the behaviour is undefined)
            self.ctx.warn(f"{'division' if op == '/' else 'remainder'} by zero is undefined", node)
        contract = self.ctx.fp_contract if as_arith(elem).is_float else "off"
        if op in ("<", ">", "<=", ">=", "==", "!="):
            return tast.Binary(comparison_result(result_t), loc, op, left, right, contract)
        return tast.Binary(result_t, loc, op, left, right, contract)

    def logical(self, node):
        left = self.rvalue(self.expr(node.left))
        right = self.rvalue(self.expr(node.right))
        loc = left.loc or location(node)
        if left.type.is_coop_matrix or right.type.is_coop_matrix:
            self.ctx.fail("unsupported cooperative matrix binary operator", node)
        if isinstance(left.type, T.VectorType) or isinstance(right.type, T.VectorType):
            if not (arith_or_vector(left.type) and arith_or_vector(right.type)):
                self.ctx.fail(f"invalid operands to binary expression ('{spell(left.type)}' and "
                              f"'{spell(right.type)}')", node)
            t = self.conversions.common_type(left.type, right.type, node)
            if t.elem.is_float:
                self.ctx.fail(f"invalid operands to binary expression ('{spell(left.type)}' and "
                              f"'{spell(right.type)}')", node)
            return tast.Logical(comparison_result(t), loc, node.op,
                                self.conversions.arith_convert(left, t), self.conversions.arith_convert(right, t))
        return tast.Logical(T.INT, loc, node.op, self.to_bool(left, node.left), self.to_bool(right, node.right))

    def pointer_arith(self, op, left, right, node):
        lt, rt = left.type, right.type
        loc = left.loc or location(node)
        if lt.is_pointer and rt.is_pointer:
            if op != "-":
                self.ctx.fail(f"invalid operands to binary expression ('{spell(lt)}' and '{spell(rt)}')", node)
            if strip_pointer_quals(lt) != strip_pointer_quals(rt) and lt.pointee != rt.pointee:
                self.ctx.fail(f"'{spell(lt)}' and '{spell(rt)}' are not pointers to compatible types", node)
            return tast.PointerDiff(self.ctx.target.ptrdiff_t, loc, left, right)
        if rt.is_pointer:
            if op == "-":
                self.ctx.fail(f"invalid operands to binary expression ('{spell(lt)}' and '{spell(rt)}')", node)
            left, right = right, left
            lt, rt = rt, lt
        if not is_integer_like(rt):
            self.ctx.fail(f"invalid operands to binary expression ('{spell(lt)}' and '{spell(rt)}')", node)
        if isinstance(lt.pointee, T.StructType) and not lt.pointee.complete:
            self.ctx.fail(f"arithmetic on a pointer to an incomplete type '{spell(lt.pointee)}'", node)
        offset = self.conversions.arith_convert(right, self.ctx.target.ptrdiff_t)
        return tast.PointerArith(lt, loc, op, left, offset)

    def pointer_compare(self, op, left, right, node):
        lt, rt = left.type, right.type
        loc = left.loc or location(node)
        if lt.is_pointer and rt.is_pointer and self.conversions.is_null_constant(right):     # p == NULL
            return tast.Binary(T.INT, loc, op, left, tast.ImplicitCast(lt, right.loc, "null-to-pointer", right))
        if lt.is_pointer and rt.is_pointer and self.conversions.is_null_constant(left):
            return tast.Binary(T.INT, loc, op, tast.ImplicitCast(rt, left.loc, "null-to-pointer", left), right)
        if lt.is_pointer and rt.is_pointer:
            if lt.addrspace != rt.addrspace:
                if lt.addrspace == T.GENERIC and rt.addrspace != T.CONSTANT:
                    right = self.conversions.pointer_space_cast(right, lt)
                elif rt.addrspace == T.GENERIC and lt.addrspace != T.CONSTANT:
                    left = self.conversions.pointer_space_cast(left, rt)
                else:
                    self.ctx.fail(f"comparison between ('{spell(lt)}' and '{spell(rt)}') which are pointers "
                                  f"to non-overlapping address spaces", node)
            elif lt.pointee != rt.pointee and not (lt.pointee.is_void or rt.pointee.is_void):
                self.ctx.warn(f"comparison of distinct pointer types ('{spell(lt)}' and '{spell(rt)}')", node)
            if left.type != right.type:
                right = tast.ImplicitCast(left.type, right.loc, "pointer-bitcast", right)
            return tast.Binary(T.INT, loc, op, left, right)
        ptr, other = (left, right) if lt.is_pointer else (right, left)
        if self.conversions.is_null_constant(other):
            null = tast.ImplicitCast(ptr.type, other.loc, "null-to-pointer", other)
            pair = (ptr, null) if lt.is_pointer else (null, ptr)
            return tast.Binary(T.INT, loc, op, *pair)
        self.ctx.fail(f"comparison between pointer and integer ('{spell(lt)}' and '{spell(rt)}')", node)

    # ---- assignment
    def expr_Assignment(self, node):
        target = self.expr(node.lvalue)
        self.check_assignable(target, node)       # clang points at the assignment operator
        loc = location(node)
        t = target.type
        if isinstance(t, T.AtomicType):
            self.ctx.fail("atomic variable can be assigned to a variable only in global address space",
                          self.ctx.node_location(node))
        if t == T.HALF and isinstance(target, (tast.Deref, tast.Index)):
            self.ctx.require_fp16("assigning directly to pointer to type 'half' requires cl_khr_fp16. "
                                  "Use vector data store builtin functions instead", self.ctx.node_location(node))
        if node.op == "=":
            value = self.expr(node.rvalue, expected=t)
            if isinstance(value.type, T.AtomicType):
                # clang-22's wording (and place) for an atomic object read by an assignment
                self.ctx.fail("atomic variable can be assigned to a variable only in global address space",
                              operator_location(self.ctx.diag.sources, "=", self.ctx.node_location(node.rvalue),
                                                self.ctx.node_location(node)))
            value = self.rvalue(value)
            # clang points a conversion error in an assignment at the '=' token
            # (matrix mismatches stay at the right-hand side, as this checker always reported them).
            at = node.rvalue if t.is_coop_matrix or value.type.is_coop_matrix else self.ctx.node_location(node)
            value = self.conversions.convert(value, t, at, "assigning")
            return tast.Assign(t, loc, target, value)
        op = node.op[:-1]
        # `m += coop_mat_init(x)`: the operand has the matrix's type (RFC 4.6).
        value = self.rvalue(self.expr(node.rvalue, t if t.is_coop_matrix else None))
        old = tast.OldValue(t, target.loc)
        compute = self.binary(op, old, value, node)
        if t.is_pointer:
            if not compute.type.is_pointer:
                self.ctx.fail(f"invalid operands to binary expression", node)
        compute = self.conversions.convert(compute, t, node, "assigning")
        return tast.CompoundAssign(t, loc, node.op, target, compute)

    def check_assignable(self, target, node):
        if isinstance(target, tast.Swizzle) and not target.lvalue:
            self.ctx.fail("expression is not assignable", node)
        if not target.is_lvalue:
            self.ctx.fail("expression is not assignable", node)
        if isinstance(target.type, T.ArrayType):
            self.ctx.fail(f"array type '{spell(target.type)}' is not assignable", node)
        if self.object_const(target) or (isinstance(target, tast.VarRef) and target.var.is_const):
            if isinstance(target, tast.VarRef) and id(target.var) not in self.ctx.implicitly_const:
                self.ctx.fail(f"cannot assign to variable '{target.var.name}' with const-qualified type "
                              f"'const {spell(target.type)}'", node)
            self.ctx.fail("read-only variable is not assignable", node)
        if self.object_space(target) == T.CONSTANT:
            # OpenCL C 3.0 6.7.3: __constant objects are read-only.
            self.ctx.fail("read-only variable is not assignable", node)

    # ---- other expressions
    def expr_TernaryOp(self, node, expected=None):
        cond = self.rvalue(self.expr(node.cond))
        if unqualified_elem(cond.type).is_float:
            # OpenCL C 3.0 6.5.7: the selection operand may be a scalar or vector "except float".
            self.ctx.fail(f"used type {described(cond.type)} where floating point type is not allowed",
                          operator_location(self.ctx.diag.sources, "?", node.iftrue, location(node)))
        then = self.rvalue(self.expr(node.iftrue, expected))
        other = self.rvalue(self.expr(node.iffalse, expected))
        loc = location(node)
        if isinstance(cond.type, T.VectorType):
            # OpenCL 6.3.i: component-wise select.
            if not (arith_or_vector(then.type) and arith_or_vector(other.type)):
                self.ctx.fail(f"incompatible operand types ('{spell(then.type)}' and '{spell(other.type)}')", node)
            t = self.conversions.common_type(then.type, other.type, node)
            if not isinstance(t, T.VectorType) or t.count != cond.type.count:
                self.ctx.fail("vector condition type and result type do not match", node)
            return tast.Conditional(t, loc, cond, self.conversions.arith_convert(then, t),
                                    self.conversions.arith_convert(other, t))
        cond = self.to_bool(cond, node.cond)
        tt, ot = then.type, other.type
        if tt == ot:
            return tast.Conditional(tt, loc, cond, then, other)
        if arith_or_vector(tt) and arith_or_vector(ot):
            t = self.conversions.common_type(tt, ot, node)
            return tast.Conditional(t, loc, cond, self.conversions.arith_convert(then, t),
                                    self.conversions.arith_convert(other, t))
        if tt.is_pointer or ot.is_pointer:
            if tt.is_pointer and self.conversions.is_null_constant(other):
                return tast.Conditional(tt, loc, cond, then, tast.ImplicitCast(tt, other.loc, "null-to-pointer", other))
            if ot.is_pointer and self.conversions.is_null_constant(then):
                return tast.Conditional(ot, loc, cond, tast.ImplicitCast(ot, then.loc, "null-to-pointer", then), other)
            if tt.is_pointer and ot.is_pointer:
                t = tt
                if tt.addrspace != ot.addrspace:
                    t = T.PointerType(tt.pointee, T.GENERIC, tt.const or ot.const)
                    if T.CONSTANT in (tt.addrspace, ot.addrspace):
                        self.ctx.fail("conditional operator with the second and third operands of type "
                                      f"('{spell(tt)}' and '{spell(ot)}') which are pointers to "
                                      "non-overlapping address spaces", node)
                return tast.Conditional(t, loc, cond, self.conversions.convert(then, t, node, "converting"),
                                        self.conversions.convert(other, t, node, "converting"))
        if tt.is_void and ot.is_void:
            return tast.Conditional(T.VOID, loc, cond, then, other)
        if tt.is_coop_matrix or ot.is_coop_matrix:
            self.ctx.fail("incompatible cooperative matrix types", node)
        self.ctx.fail(f"incompatible operand types ('{spell(tt)}' and '{spell(ot)}')", node)

    def expr_ExprList(self, node, expected=None):
        """The comma operator (pycparser gives an ExprList for `a, b`)."""
        items = [self.expr(e) for e in node.exprs[:-1]]
        last = self.expr(node.exprs[-1], expected)
        result = last
        for item in reversed(items):
            result = tast.Comma(self.rvalue(last).type, item.loc, item, self.rvalue(result))
        return result

    def expr_ArrayRef(self, node):
        base = self.expr(node.name)
        index = self.rvalue(self.expr(node.subscript))
        loc = location(node)
        if base.type.is_coop_matrix:
            return self.coop.coop_element(base, index, node)
        if isinstance(base.type, T.VectorType):
            return self.vector_subscript(base, index, node)
        base = self.rvalue(base)
        if is_integer_like(base.type) and index.type.is_pointer:
            base, index = index, base
        if not base.type.is_pointer:
            self.ctx.fail("subscripted value is not an array, pointer, or vector", node)
        if not is_integer_like(index.type):
            self.ctx.fail("array subscript is not an integer", node.subscript)
        if base.type.pointee.is_void:
            self.ctx.fail("subscript of pointer to incomplete type 'void'", node)
        index = self.conversions.arith_convert(index, self.ctx.target.ptrdiff_t)
        return tast.Index(base.type.pointee, loc, base, index)

    def vector_subscript(self, base, index, node):
        """`v[i]` (a clang extension OpenCL code uses) with a constant i is the swizzle `.s<i>`;
        with a variable index a VectorElement (extractelement/insertelement, as clang)."""
        if not is_integer_like(index.type):
            self.ctx.fail("array subscript is not an integer", node.subscript)
        value = fold(index)
        if not isinstance(value, int):
            index = self.conversions.arith_convert(index, promote(as_arith(index.type)))
            return tast.VectorElement(base.type.elem, location(node), base, index, base.is_lvalue)
        if not 0 <= value < base.type.count:
            self.ctx.fail(f"vector subscript {value} is out of range for '{spell(base.type)}'", node.subscript)
        return tast.Swizzle(base.type.elem, location(node), base, (value,), base.is_lvalue)

    def expr_StructRef(self, node):
        base = self.expr(node.name)
        loc = location(node)
        name = node.field.name
        if node.type == "->":
            base = self.rvalue(base)
            if not base.type.is_pointer:
                self.ctx.fail(f"member reference type '{spell(base.type)}' is not a pointer", node)
            base = tast.Deref(base.type.pointee, base.loc, base)
        t = base.type
        if isinstance(t, T.VectorType) and node.type == ".":
            return self.swizzle(base, name, node)
        if not isinstance(t, T.StructType):
            self.ctx.fail(f"member reference base type '{spell(t)}' is not a structure or union", node)
        if not t.complete:
            self.ctx.fail(f"incomplete definition of type '{spell(t)}'", node)
        path = member_path(t, name)
        if path is None:
            self.ctx.fail(f"no member named '{name}' in '{spell(t)}'", node.field)
        for i, f in path:          # through anonymous struct/union members (C11 6.7.2.1p13)
            base = tast.Member(f.type, loc, base, i, f.name or "")
        return base

    SWIZZLE_XYZW = "xyzw"
    SWIZZLE_RGBA = "rgba"

    def swizzle(self, base, name, node):
        t = base.type
        n = t.count
        loc = location(node)
        indices = self.swizzle_indices(name, t, node)
        if isinstance(base, tast.Swizzle):      # fold v.xy.x into one swizzle of v
            indices = tuple(base.indices[i] for i in indices)
            base = base.base
        count = len(indices)
        if count not in (1, 2, 3, 4, 8, 16):
            self.ctx.fail(f"vector component access has invalid length {count}", node.field)
        rt = t.elem if count == 1 else T.VectorType(t.elem, count)
        lvalue = base.is_lvalue and len(set(indices)) == count
        return tast.Swizzle(rt, loc, base, tuple(indices), lvalue)

    def swizzle_indices(self, name, vtype, node):
        """Component indexes of an OpenCL C 3.0 6.3.7 vector component name."""
        n = vtype.count

        dot = operator_location(self.ctx.diag.sources, ".", node.field, None) if isinstance(node, c_ast.StructRef) \
            else None

        def bad(offset):
            # clang (CheckExtVectorComponent): names the first illegal character, at '.' + 1 + offset
            where = SourceLocation(dot.file, dot.line, dot.column + 1 + offset) if dot else node.field
            self.ctx.fail(f"illegal vector component name '{name[offset]}'", where)

        def exceeds():
            self.ctx.fail(f"vector component access exceeds type '{spell(vtype)}'", dot or node.field)
        if name in ("lo", "hi", "even", "odd"):
            size = 4 if n == 3 else n
            if name == "lo":
                return tuple(range(size // 2))
            if name == "hi":
                return tuple(range(size // 2, size))
            if name == "even":
                return tuple(range(0, size, 2))
            return tuple(range(1, size, 2))
        if name[0] in "sS" and len(name) > 1:
            idx = []
            for offset, c in enumerate(name[1:], 1):
                if c not in "0123456789abcdefABCDEF":
                    bad(offset)
            idx = [int(c, 16) for c in name[1:]]
            if any(v >= n for v in idx):
                exceeds()
            return tuple(idx)
        alphabet = next((a for a in (self.SWIZZLE_XYZW, self.SWIZZLE_RGBA) if name[0] in a), None)
        if alphabet is None:
            bad(0)
        for offset, c in enumerate(name):
            if c not in alphabet:
                bad(offset)
        idx = tuple(alphabet.index(c) for c in name)
        if any(i >= n for i in idx):
            exceeds()
        return idx

    def expr_Cast(self, node, expected=None):
        t, _, _ = self.decl_types.full_decl_type(node.to_type)
        loc = location(node)
        if isinstance(node.expr, c_ast.ExprList) or isinstance(t, T.VectorType) and \
                isinstance(node.expr, c_ast.ExprList):
            return self.initializers.vector_literal(t, node.expr, node)
        # `(V)coop_tensor_view_create()`, `(M)coop_mat_init(x)`: the cast names the type.
        context = t if t.is_coop_matrix or t.is_coop_tensor else None
        operand = self.rvalue(self.expr(node.expr, expected=context))
        return self.conversions.explicit_cast(operand, t, node)

    # ------------------------------------------------------------------ calls
    def expr_FuncCall(self, node, expected=None):
        if not isinstance(node.name, c_ast.ID):
            self.ctx.fail("called object is not a function (OpenCL has no function pointers)", node)
        name = node.name.name
        args_nodes = node.args.exprs if node.args is not None else []
        entry = self.ctx.scope.lookup(name)
        if isinstance(entry, tast.Function) and entry.mangled is not None and name in self.ctx.overloads:
            return self.overloaded_call(name, args_nodes, node)
        if isinstance(entry, tast.Function):
            return self.user_call(entry, args_nodes, node)
        if isinstance(entry, tast.Var):
            self.ctx.fail(f"called object type '{spell(entry.type)}' is not a function or function pointer", node)
        if name in COOP_BUILTINS:
            return self.coop.coop_call(name, args_nodes, node, expected)
        if name == "printf":
            return self.builtin_calls.printf_call(args_nodes, node)
        if name in CLANG_BUILTINS:
            return self.builtin_calls.clang_builtin_call(name, args_nodes, node)
        if name in ADDRESS_SPACE_QUERIES and not self.ctx.pre_cl20:
            return self.builtin_calls.address_space_query(name, args_nodes, node)
        if name.startswith("convert_") and self.builtin_calls.convert_target(name) is not None:
            return self.builtin_calls.convert_call(name, args_nodes, node)
        if name.startswith("as_") and name[3:] in T.builtin_typedefs(self.ctx.target):
            return self.builtin_calls.as_type_call(name, args_nodes, node)
        if _builtins.is_builtin(name) and name not in self.ctx.hidden_builtins:
            return self.builtin_calls.builtin_call(name, args_nodes, node)
        # OpenCL C has no implicit function declarations; clang-22 reports the name as undeclared.
        self.ctx.fail(f"use of undeclared identifier '{name}'", node)

    def arity_message(self, fn, have):
        """clang's wording; a named single parameter is named (Sema::ConvertArgumentsForCall)."""
        want = len(fn.type.params)
        names = [p.name for p in fn.params] if fn.params else self.ctx.declared_param_names.get(id(fn), [])
        single = names[0] if want == 1 and len(names) == 1 and names[0] else None
        if have < want:
            if single:
                return f"too few arguments to function call, single argument '{single}' was not specified"
            return f"too few arguments to function call, expected {want}, have {have}"
        if single:
            return (f"too many arguments to function call, expected single argument '{single}', "
                    f"have {have} arguments")
        return f"too many arguments to function call, expected {want}, have {have}"

    def user_call(self, fn, args_nodes, node):
        params = fn.type.params
        loc = location(node)
        if len(args_nodes) != len(params):
            where = self.ctx.call_rparen_location(node) if len(args_nodes) < len(params) else args_nodes[len(params)]
            self.ctx.fail(self.arity_message(fn, len(args_nodes)), where,
                          [self.ctx.note(f"'{fn.name}' declared here", fn.loc)])
        args = []
        for a, pt in zip(args_nodes, params):
            v = self.rvalue(self.expr(a, expected=pt))
            args.append(self.conversions.convert(v, pt, a, "passing"))
        if self.ctx.fn is not None:
            self.ctx.call_edges.append((self.ctx.fn.function, fn, location(node)))
        fn._used = True
        return tast.Call(fn.type.ret, loc, fn, args)
