"""Types of declarations: base types, struct/union/enum specifiers, qualifiers, declarators,
attributes (including ext_vector_type) and parameter adjustment (C99 6.7, OpenCL C 3.0 6.5-6.7)."""
from pycparser import c_ast

from clcoop.frontend import types as T
from clcoop.frontend.check_support import Abandon, location, name_location
from clcoop.frontend.coop_tensor_check import coop_what
from clcoop.frontend.conversions import spell
from clcoop.frontend.types import as_arith, unqualified_elem


def written_typedef_name(decl):
    """The typedef name a declaration is written with (`H x;` -> 'H'), else None."""
    node = getattr(decl, "type", None)
    if isinstance(node, c_ast.TypeDecl) and isinstance(node.type, c_ast.IdentifierType) \
            and len(node.type.names) == 1 and node.type.names[0] != "half":
        return node.type.names[0]
    return None


IGNORED_ATTRS = ("always_inline", "noinline", "inline", "unused", "used", "const", "pure",
                 "overloadable", "aligned", "packed", "nosvm", "opencl_unroll_hint")


def _add_attributes(found, exprlist):
    """Append the (name, args, node) entries of one attribute list (an ExprList, or a single
    expression) to `found`, nested lists flattened."""
    exprs = getattr(exprlist, "exprs", None)
    if exprs is None:
        exprs = [exprlist]
    for e in exprs:
        if isinstance(e, c_ast.FuncCall) and isinstance(e.name, c_ast.ID):
            args = e.args.exprs if e.args is not None else []
            found.append((e.name.name, list(args), e))
        elif isinstance(e, c_ast.ID):
            found.append((e.name, [], e))
        elif isinstance(e, c_ast.ExprList):
            _add_attributes(found, e)


class DeclTypes:
    """The checker's rules for the types and attributes of declarations. ctx: the checker's
    CheckContext (scopes, diagnostics); folding: the ConstantFolding part (array sizes,
    attribute values); coop, tensors: the CoopChecks and CoopTensorChecks parts (the
    coop_mat, coop_tensor_layout and coop_tensor_view attributes)."""

    def __init__(self, ctx, folding, coop, tensors):
        self.ctx = ctx
        self.folding = folding
        self.coop = coop
        self.tensors = tensors

    # ------------------------------------------------------------------ attributes
    def attributes_of(self, decl):
        """All __attribute__ entries of a declaration: (name, args list, node). Asked for
        every declaration and type name (~3,900 in pocl's test_convert_type_16.cl), most of
        them without attributes and with a few string qualifiers, whose class's name is not
        tested; no function is made per call (test_check_fast_paths)."""
        found = []
        for specs in (getattr(decl, "funcspec", None), getattr(decl, "quals", None)):
            for spec in specs or ():
                if spec.__class__ is not str and type(spec).__name__ == "AttributeSpecifier" \
                        and spec.exprlist is not None:
                    _add_attributes(found, spec.exprlist)
        node = getattr(decl, "type", None)
        while node is not None:
            attrs = getattr(node, "attributes", None)
            if attrs is not None:
                _add_attributes(found, attrs)
            for q in getattr(node, "quals", None) or ():
                if q.__class__ is not str and type(q).__name__ == "AttributeSpecifier" and q.exprlist is not None:
                    _add_attributes(found, q.exprlist)
            node = getattr(node, "type", None)
            if not isinstance(node, c_ast.Node):
                break
        return found

    # ------------------------------------------------------------------ type resolution
    def base_type(self, node):
        """Type of a type-specifier node (IdentifierType, Struct, Union, Enum)."""
        if isinstance(node, c_ast.IdentifierType):
            names = tuple(node.names)
            if names in T.C_SPELLINGS:      # most specifiers: one word, or words in this order
                return T.C_SPELLINGS[names]
            key = tuple(sorted(names, key=lambda n: ("signed", "unsigned", "short", "long", "char", "int").index(n)
                               if n in ("signed", "unsigned", "short", "long", "char", "int") else 9))
            if key in T.C_SPELLINGS:
                return T.C_SPELLINGS[key]
            if "long" in names and names.count("long") == 2:
                rest = tuple(n for n in names if n != "long") + ("long",)
                return T.ULONG if "unsigned" in rest else T.LONG
            if len(names) == 1:
                if names[0] in self.ctx.poisoned and self.ctx.scope.lookup(names[0]) is None:
                    raise Abandon()
                entry = self.ctx.scope.lookup(names[0])
                if isinstance(entry, tuple) and entry[0] == "typedef":
                    return entry[1]
                if names[0] in ("image1d_t", "image2d_t", "image3d_t", "sampler_t", "event_t",
                                "image1d_array_t", "image2d_array_t", "image1d_buffer_t"):
                    self.ctx.fail(f"type '{names[0]}' is not supported by clcoop", node)
            self.ctx.fail(f"unknown type name '{' '.join(names)}'", node)
        if isinstance(node, (c_ast.Struct, c_ast.Union)):
            return self.struct_type(node)
        if isinstance(node, c_ast.Enum):
            return self.enum_type(node)
        self.ctx.fail(f"unsupported type specifier '{type(node).__name__}'", node)

    def struct_type(self, node):
        is_union = isinstance(node, c_ast.Union)
        tag = node.name
        existing = self.ctx.scope.lookup_tag(tag) if tag else None
        if node.decls is None:
            if isinstance(existing, T.StructType):
                return existing
            st = T.StructType(tag, is_union)
            self.ctx.scope.tags[tag] = st
            return st
        if isinstance(existing, T.StructType) and tag in self.ctx.scope.tags and not existing.complete:
            st = existing
        else:
            st = T.StructType(tag, is_union)
            if tag:
                self.ctx.scope.tags[tag] = st
        fields = []
        for d in node.decls:
            if d.name is None and isinstance(d.type, (c_ast.Struct, c_ast.Union)):
                # An anonymous struct/union member (C11 6.7.2.1p13): its members are found
                # as members of the enclosing struct (member_path).
                fields.append(T.StructField(None, self.struct_type(d.type)))
                continue
            ftype, _, _ = self.full_decl_type(d)
            if ftype.is_coop_opaque:
                self.ctx.fail(f"{coop_what(ftype)} type cannot be a struct or union member", d)
            fields.append(T.StructField(d.name, ftype))
        st.fields.clear()
        st.fields.extend(fields)
        object.__setattr__(st, "complete", True)
        return st

    def enum_type(self, node):
        tag = node.name
        if node.values is None:
            existing = self.ctx.scope.lookup_tag(tag)
            if isinstance(existing, T.EnumType):
                return existing
            return T.EnumType(tag)
        et = T.EnumType(tag)
        if tag:
            self.ctx.scope.tags[tag] = et
        value = 0
        for enumerator in node.values.enumerators:
            if enumerator.value is not None:
                value = self.folding.integer_constant(enumerator.value, "enumerator value")
            self.ctx.scope.names[enumerator.name] = ("enum", value, et, location(enumerator))
            value += 1
        return et

    def quals_info(self, quals, node):
        """(addrspace or None, const, volatile, restrict) from a qualifier list."""
        aspace, const, volatile, restrict = None, False, False, False
        for q in quals or []:
            if not isinstance(q, str):
                continue
            if q in T.ADDRSPACE_BY_KEYWORD:
                if aspace is not None and aspace != T.ADDRSPACE_BY_KEYWORD[q]:
                    self.ctx.fail("multiple address spaces specified for type", node)
                aspace = T.ADDRSPACE_BY_KEYWORD[q]
            elif q == "const":
                const = True
            elif q == "volatile":
                volatile = True
            elif q in ("restrict", "__restrict", "__restrict__"):
                restrict = True
        return aspace, const, volatile, restrict

    def declarator_type(self, node, decl=None, typedef_name=None):
        """Type of a declarator: returns (type, object addrspace or None, object const)."""
        if isinstance(node, c_ast.TypeDecl):
            base = self.base_type(node.type)
            aspace, const, _, _ = self.quals_info(node.quals, node)
            if isinstance(node.type, c_ast.IdentifierType) and len(node.type.names) == 1:
                entry = self.ctx.scope.lookup(node.type.names[0])
                if isinstance(entry, tuple) and entry[0] == "typedef":
                    if aspace is None:
                        aspace = entry[2]
            return base, aspace, const
        if isinstance(node, c_ast.PtrDecl):
            pointee, p_as, p_const = self.declarator_type(node.type, decl)
            if pointee.is_coop_opaque:
                self.ctx.fail(f"pointer to {coop_what(pointee)} type is not allowed", name_location(node))
            _, _, p_vol, _ = self.quals_info(getattr(node.type, "quals", None), node)
            own_as, own_const, vol, restrict = self.quals_info(node.quals, node)
            if p_as is None:
                p_as = self.default_pointee_space()
            return T.PointerType(pointee, p_as, p_const, p_vol, restrict), own_as, own_const
        if isinstance(node, c_ast.ArrayDecl):
            elem, aspace, const = self.declarator_type(node.type, decl)
            if elem.is_coop_opaque:
                self.ctx.fail(f"array of {coop_what(elem)} type is not supported", name_location(node))
            length = None
            if node.dim is not None:
                length = self.folding.integer_constant(node.dim, "array size")
                if length <= 0:
                    self.ctx.fail("array size must be greater than zero" if length == 0
                                  else "array size is negative", node.dim)
            return T.ArrayType(elem, length), aspace, const
        if isinstance(node, c_ast.FuncDecl) or type(node).__name__ == "FuncDeclExt":
            ret, ret_space, _ = self.declarator_type(node.type, decl)
            if ret_space is not None:
                # OpenCL C 3.0 6.7: a function's return value is in no address space.
                self.ctx.fail("return type cannot be qualified with address space", decl)
            params = []
            variadic = False
            if node.args is not None:
                for p in node.args.params:
                    if isinstance(p, c_ast.EllipsisParam):
                        variadic = True
                        continue
                    pt, _, _ = self.full_decl_type(p)
                    if pt.is_void and getattr(p, "name", None) is None and len(node.args.params) == 1:
                        continue
                    params.append(self.adjust_param_type(pt))
            return T.FunctionType(ret, tuple(params), variadic), None, False
        if isinstance(node, c_ast.Typename):
            return self.declarator_type(node.type, node)
        self.ctx.fail(f"unsupported declarator '{type(node).__name__}'", node)

    def default_pointee_space(self):
        # OpenCL C 3.0 with __opencl_c_generic_address_space: an unqualified pointee is generic (6.7.1).
        return T.GENERIC

    def adjust_param_type(self, t):
        """C99 6.7.5.3: array parameters are pointers."""
        if isinstance(t, T.ArrayType):
            return T.PointerType(t.elem, self.default_pointee_space())
        return t

    def full_decl_type(self, decl, typedef_name=None):
        """(type, addrspace, const) of a Decl/Typedef/Typename including a coop_mat attribute."""
        t, aspace, const = self.declarator_type(decl.type, decl, typedef_name)
        for name, args, node in self.attributes_of(decl):
            if name in ("coop_mat", "__coop_mat__"):
                inner = decl.type
                while inner is not None and not isinstance(inner, c_ast.TypeDecl):
                    inner = getattr(inner, "type", None)
                base_node = inner.type if inner is not None else node
                if not isinstance(decl.type, c_ast.TypeDecl):     # a pointer, array or function
                    self.ctx.fail(f"'{spell(t)}' is invalid cooperative matrix element type", base_node)
                t = self.coop.coop_mat_type(t, args, node, base_node, typedef_name)
            elif name in ("ext_vector_type", "__ext_vector_type__"):
                t = self.ext_vector_type(t, args, node, decl, typedef_name)
            elif name.strip("_") in ("coop_tensor_layout", "coop_tensor_view"):
                t = self.tensors.coop_tensor_type(t, name.strip("_"), args, node, decl, typedef_name)
        if isinstance(t, T.CoopTensorBaseType) and typedef_name is None:
            self.ctx.fail(f"'{spell(t)}' needs its attribute: declare a type with "
                          f"'typedef {spell(t)} name __attribute__((coop_tensor_{t.kind}(...)))'",
                          decl)
        return t, aspace, const

    def ext_vector_type(self, elem, args, attr_node, decl, typedef_name):
        """`typedef T name __attribute__((ext_vector_type(N)))`: clang's OpenCL vector type
        (clang's AttrDocs: ext_vector_type applies to typedefs of scalar types)."""
        if typedef_name is None:
            self.ctx.fail("'ext_vector_type' attribute only applies to typedefs", attr_node)
        if len(args) != 1:
            self.ctx.fail(f"'ext_vector_type' attribute takes one argument", attr_node)
        elem = as_arith(elem) if isinstance(elem, T.EnumType) else elem
        if not isinstance(decl.type, c_ast.TypeDecl) or not isinstance(elem, T.ScalarType) \
                or elem.is_void or elem.name == "bool":
            self.ctx.fail(f"invalid vector element type '{spell(elem)}'", attr_node)
        count = self.folding.integer_constant(args[0], "'ext_vector_type' attribute")
        if count <= 0:
            self.ctx.fail("zero vector size" if count == 0 else "vector size too large", args[0])
        if count not in (1,) + T.VECTOR_SIZES:
            # clang accepts any width; OpenCL C (6.3.1) defines 2, 3, 4, 8 and 16 only.
            self.ctx.fail(f"vector of {count} elements is not supported by clcoop "
                          f"(OpenCL C vectors have 2, 3, 4, 8 or 16)", args[0])
        return T.vector_of(elem, count)

    def kernel_attributes(self, fn, decl):
        for name, args, node in self.attributes_of(decl):
            bare = name.strip("_")
            if bare in ("reqd_work_group_size", "work_group_size_hint"):
                if not fn.is_kernel:
                    self.ctx.error(f"'{bare}' attribute only applies to kernel functions", node)
                    continue
                if len(args) != 3:
                    self.ctx.error(f"'{bare}' attribute requires exactly 3 arguments", node)
                    continue
                values = tuple(self.folding.integer_constant(a, f"'{bare}' attribute") for a in args)
                for a, v in zip(args, values):
                    if v <= 0:
                        self.ctx.error(f"'{bare}' attribute must be greater than 0", a)
                setattr(fn, bare, values)
            elif bare == "intel_reqd_sub_group_size":
                if len(args) != 1:
                    self.ctx.error("'intel_reqd_sub_group_size' attribute requires exactly 1 argument", node)
                    continue
                value = self.folding.integer_constant(args[0], "'intel_reqd_sub_group_size' attribute")
                if value <= 0:
                    self.ctx.error("'intel_reqd_sub_group_size' attribute requires a positive integral "
                                   "compile time constant expression", args[0])
                fn.intel_reqd_sub_group_size = value
            elif bare == "vec_type_hint":
                self.vec_type_hint(fn, args, node)
            elif bare in IGNORED_ATTRS:
                pass
            elif bare == "coop_mat":
                self.ctx.error("'coop_mat' attribute only applies to variables and typedefs", node)
            else:
                self.ctx.warn(f"unknown attribute '{name}' ignored", node)

    def vec_type_hint(self, fn, args, node):
        """`vec_type_hint(<type>)` (OpenCL C 3.0 6.11.2): a scalar or vector of char..double;
        kept for the kernel's !vec_type_hint metadata as clang writes it."""
        if len(args) != 1 or not isinstance(args[0], c_ast.Typename):
            self.ctx.error("'vec_type_hint' attribute takes one argument", node)
            return
        t, _, _ = self.full_decl_type(args[0])
        elem = unqualified_elem(t)
        if not isinstance(t, (T.ScalarType, T.VectorType)) or elem.is_void or elem == T.BOOL:
            self.ctx.error(f"invalid attribute argument '{spell(t)}' - expecting a vector or vectorizable "
                           "scalar type", args[0])
            return
        if fn.is_kernel:
            fn.vec_type_hint = t

    # ---- where variables may live (OpenCL C 1.2 6.5/6.8, OpenCL C 3.0 6.7.1)
    def program_scope_space_rules(self, node, aspace, extern=False):
        """Program-scope (and extern) variables: __constant before CL2.0, then __global or
        __constant; clang-22's wording."""
        what = "extern variable" if extern else "program scope variable"
        if self.ctx.pre_cl20 and aspace != T.CONSTANT:
            # OpenCL C 1.2 6.5: program-scope variables are __constant (globals came in 2.0).
            self.ctx.fail(f"{what} must reside in constant address space", node)
        if aspace == T.GENERIC or (extern and aspace in (T.LOCAL, T.PRIVATE)):
            self.ctx.fail(f"{what} must reside in global or constant address space", node)

    def function_scope_space_rules(self, node, aspace, is_static, fn):
        """Function-scope variables: statics (2.0+) in __global or __constant, automatic ones in
        no generic space, __local/__constant ones only in a kernel's outermost scope."""
        if is_static and self.ctx.pre_cl20:
            # OpenCL C 1.2 6.8: no static storage class in functions (2.0 added it).
            self.ctx.fail("variables in function scope cannot be declared static", node)
        if is_static and aspace in (T.LOCAL, T.PRIVATE, T.GENERIC):
            # OpenCL C 3.0 6.7.1: static variables of functions are __global or __constant.
            self.ctx.fail("static local variable must reside in global or constant address space", node)
        if aspace == T.GENERIC and not is_static:
            self.ctx.fail("automatic variable qualified with an invalid address space", node)
        if aspace not in (T.LOCAL, T.CONSTANT) or is_static:
            return
        # OpenCL C 3.0 6.7.1/6.7.3: only in the outermost scope of a kernel (clang's words).
        space = "local" if aspace == T.LOCAL else "constant"
        if not fn.is_kernel and aspace == T.LOCAL:
            self.ctx.fail(f"non-kernel function variable cannot be declared in {space} address space", node)
        if not fn.is_kernel:      # reported; the variable is still declared, as clang does
            self.ctx.error(f"non-kernel function variable cannot be declared in {space} address space", node)
        elif self.ctx.fn.depth > 1:
            self.ctx.error(f"variables in the {space} address space can only be declared in the "
                           f"outermost scope of a kernel function", node)
