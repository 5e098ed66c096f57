"""The parser's declaration rules without the base's descent where a declaration is common
(throughput, issue 26).

pycparser's rules take a declaration through a dozen calls a token: the specifiers one
`_add_declaration_specifier` call each, and a declarator through a scan of its name (a mark,
the tokens up to the name, a reset), then the pointer, direct-declarator, suffix, array,
asm-label and attribute rules, each peeking at the next token through the stream's calls.
`DeclarationRules` parses the same grammar (C99 6.7) reading the token buffer in place:

- declaration specifiers and specifier-qualifier lists (C99 6.7, 6.7.2.1) in one loop, a
  keyword, qualifier or typedef name taken in place; struct, union and enum specifiers,
  `_Alignas`, `_Atomic(...)` and attributes through the base's rules for them;
- a declarator (C99 6.7.5) that is `*`s with their qualifiers, then a name, then array
  suffixes `[ ]` or `[ expression ]`, followed by what ends a declarator (`=`, `,`, `;`,
  `:`, `)`), without the scan. Anything else (a parenthesized or function declarator, a
  typedef name redeclared, `[*]`, `[static 4]`, attributes, an asm label, an abstract
  declarator) goes to the base's rules from the declarator's first token, nothing kept of
  what was read: the base parses it as it would have.

The nodes are the base's, made in the same order relative to the lexer (a Coord takes the
lexer's current file, which a #line marker after the token would change): a declarator's
pointer coordinates once its name is lexed, as after the base's scan, its name's before the
token after it is lexed. test_parse_fast_paths compares both, node by node.
"""
from pycparser import c_ast
from pycparser.c_parser import (_FUNCTION_SPEC, _STARTS_EXPRESSION, _STORAGE_CLASS, _TYPE_QUALIFIER,
                                _TYPE_SPEC_SIMPLE, Coord)
from pycparserext.ext_c_parser import (_ATTRIBUTE_TOKENS, _OCL_FUNCTION_SPECS, _OCL_TYPE_QUALIFIERS,
                                       AttributeSpecifier, FuncDeclExt, StructExt)

# What a specifier token is, in the order OpenCLCParser._parse_declaration_specifiers tests
# them (the first category that has a token wins); `_Atomic (` is a specifier, not the
# qualifier, and `_Alignas`, struct, union and enum specifiers and attributes have rules.
_SPECIFIER_KINDS = {}
for _kinds, _category in reversed([(_TYPE_QUALIFIER, "qual"), (_OCL_TYPE_QUALIFIERS, "qual"),
                                   (_STORAGE_CLASS, "storage"), (_FUNCTION_SPEC, "function"),
                                   (_OCL_FUNCTION_SPECS, "function"), (_TYPE_SPEC_SIMPLE, "type"),
                                   ({"TYPEID"}, "type"), ({"STRUCT", "UNION", "ENUM"}, "tagged"),
                                   (_ATTRIBUTE_TOKENS, "attribute"), ({"_ALIGNAS"}, "alignment")]):
    _SPECIFIER_KINDS.update(dict.fromkeys(_kinds, _category))
# Not in a specifier-qualifier list (C99 6.7.2.1): it ends there.
_DECLARATION_ONLY = frozenset({"storage", "function", "attribute"})
# What starts a declarator (the base's _starts_declarator).
_DECLARATOR_START = frozenset({"TIMES", "LPAREN", "ID", "TYPEID"})
# What starts a designation in an initializer list (C99 6.7.8).
_DESIGNATOR_START = frozenset({"LBRACKET", "PERIOD"})
# What a struct member declaration starts with where _parse_struct_declaration takes it.
_MEMBER_SPECIFIER_START = frozenset({"qual", "type", "tagged", "alignment"})
# What starts a struct declarator (the base's _starts_declarator, or a bit-field's `:`).
_STRUCT_DECLARATOR_START = _DECLARATOR_START | {"COLON"}

# The qualifiers after a declarator's `*` (OpenCLCParser._parse_type_qualifier_list).
_POINTER_QUALIFIERS = frozenset(_TYPE_QUALIFIER | _OCL_TYPE_QUALIFIERS)
# What may follow a declarator taken here: an initializer's `=`, the next declarator, the
# declaration's end, a bit-field's width, a parameter list's `)` (C99 6.7, 6.7.2.1, 6.7.5.3).
_DECLARATOR_END = frozenset({"EQUALS", "COMMA", "SEMI", "COLON", "RPAREN"})
# An array size taken here: an expression that `*` does not start (`[*]`, C99 6.7.5.2, and
# the base's rule reads `[*p]` so too), or none.
_ARRAY_SIZE_START = frozenset(_STARTS_EXPRESSION - {"TIMES"})


class DeclarationRules:
    """The declaration rules of pycparser's CParser and pycparserext's OpenCLCParser, for a
    parser class that also derives from them and from parse_expr.ExpressionRules (its
    _more_after_commas); the token stream's buffer is read in place as ClcoopParser._peek
    does."""

    def _parse_declaration_specifiers(self, allow_no_type=False):
        """declaration-specifiers (C99 6.7): (spec, saw_type, first_coord) as the base's."""
        spec, saw_type, _, first_coord = self._specifiers(True)
        if spec is None:
            self._parse_error("Invalid declaration", self.clex.filename)
        if not saw_type and not allow_no_type:
            self._parse_error("Missing type in declaration", first_coord)
        return spec, saw_type, first_coord

    def _parse_specifier_qualifier_list(self):
        """specifier-qualifier-list (C99 6.7.2.1): the base's spec."""
        spec, saw_type, saw_alignment, first_coord = self._specifiers(False)
        if spec is None:
            self._parse_error("Invalid specifier list", self.clex.filename)
        if not saw_type and not saw_alignment:
            self._parse_error("Missing type in declaration", first_coord)
        return spec

    def _specifiers(self, declaration):
        """The specifiers from the next token on: (spec, saw_type, saw_alignment,
        first_coord), spec None when there is none; storage classes, function specifiers
        and attributes only in a `declaration`'s."""
        tokens = self._tokens
        buffer = tokens._buffer
        spec = None
        saw_type = saw_alignment = False
        first_coord = None
        while True:
            index = tokens._index
            tok = buffer[index] if index < len(buffer) else self._peek()
            if tok is None:
                break
            kind = tok.type
            category = _SPECIFIER_KINDS.get(kind)
            if category is None or not declaration and category in _DECLARATION_ONLY:
                break
            if kind == "_ATOMIC" and self._peek_type(2) == "LPAREN":
                category = "atomic"
            elif kind == "TYPEID" and saw_type:
                break
            if first_coord is None:
                first_coord = Coord(self.clex._filename, tok.lineno, tok.column)
            if spec is None:
                spec = dict(qual=[], storage=[], type=[], function=[], alignment=[])
            if category == "type":
                tokens._index = index + 1
                self._last_token = tok
                spec["type"].append(c_ast.IdentifierType([tok.value],
                                                         coord=Coord(self.clex._filename, tok.lineno, tok.column)))
                saw_type = True
            elif category in ("qual", "storage", "function"):
                tokens._index = index + 1
                self._last_token = tok
                spec[category].append(tok.value)
            elif category == "tagged":
                spec["type"].append(self._parse_enum_specifier() if kind == "ENUM"
                                    else self._parse_struct_or_union_specifier())
                saw_type = True
            elif category == "atomic":
                spec["type"].append(self._parse_atomic_specifier())
                saw_type = True
            elif category == "attribute":
                spec["function"].append(AttributeSpecifier(self._parse_attribute_decl()))
            else:
                spec["alignment"].append(self._parse_alignment_specifier())
                saw_alignment = True
        return spec, saw_type, saw_alignment, first_coord

    def _parse_decl_body(self):
        """declaration-specifiers init-declarator-list (C99 6.7), without the `;`: the base's
        rule, a declarator that starts after a type taken at once."""
        spec, saw_type, _ = self._parse_declaration_specifiers(allow_no_type=True)
        tokens = self._tokens
        index = tokens._index
        tok = tokens._buffer[index] if index < len(tokens._buffer) else self._peek()
        if saw_type and tok is not None and tok.type in _DECLARATOR_START:
            return self._build_declarations(spec=spec, decls=self._parse_init_declarator_list(),
                                            typedef_namespace=True)
        return self._parse_decl_body_with_spec(spec, saw_type)

    def _parse_init_declarator_list(self, first=None, id_only=False):
        """init-declarator-list (C99 6.7): the base's decl infos."""
        parse_item = self._parse_init_declarator if not id_only else lambda: self._parse_init_declarator(True)
        return self._more_after_commas([first if first is not None else parse_item()], parse_item)

    def _parse_init_declarator(self, id_only=False):
        """init-declarator (C99 6.7): a declarator and its initializer, the base's decl info."""
        decl = self._parse_id_declarator() if id_only else self._parse_declarator()
        tokens = self._tokens
        index = tokens._index
        tok = tokens._buffer[index] if index < len(tokens._buffer) else self._peek()
        init = None
        if tok is not None and tok.type == "EQUALS":
            tokens._index = index + 1
            self._last_token = tok
            init = self._parse_initializer()
        return {"decl": decl, "init": init, "bitsize": None}

    def _parse_initializer(self):
        """initializer (C99 6.7.8): an assignment expression at once, a braced list by the
        base's rule."""
        tokens = self._tokens
        index = tokens._index
        tok = tokens._buffer[index] if index < len(tokens._buffer) else self._peek()
        if tok is not None and tok.type != "LBRACE":
            return self._parse_assignment_expression()
        return super()._parse_initializer()

    def _parse_initializer_list(self):
        """initializer-list (C99 6.7.8), a trailing `,` consumed: the base's InitList; an
        item without a designation is an initializer at once (a table of constants)."""
        tokens = self._tokens
        buffer = tokens._buffer
        items = []
        while True:
            index = tokens._index
            tok = buffer[index] if index < len(buffer) else self._peek()
            if tok is not None and tok.type not in _DESIGNATOR_START:
                items.append(self._parse_initializer())
            else:
                items.append(self._parse_initializer_item())
            index = tokens._index
            tok = buffer[index] if index < len(buffer) else self._peek()
            if tok is None or tok.type != "COMMA":
                break
            tokens._index = index + 1
            self._last_token = tok
            index += 1
            after = buffer[index] if index < len(buffer) else self._peek()
            if after is not None and after.type == "RBRACE":
                break
        return c_ast.InitList(items, items[0].coord)

    def _parse_parameter_list(self):
        """parameter-list (C99 6.7.5): the base's ParamList, an `, ...` left for the caller."""
        first = self._parse_parameter_declaration()
        params = c_ast.ParamList([first], first.coord)
        self._more_after_commas(params.params, self._parse_parameter_declaration, "ELLIPSIS")
        return params

    def _parse_parameter_declaration(self):
        """parameter-declaration (C99 6.7.5): the base's rule, a declarator _simple_declarator
        takes without the declarator rules."""
        spec, _, spec_coord = self._parse_declaration_specifiers(allow_no_type=True)
        if not spec["type"]:
            spec["type"] = [c_ast.IdentifierType(["int"], coord=spec_coord)]
        decl = self._simple_declarator()
        if decl is not None:
            return self._build_declarations(spec=spec, decls=[{"decl": decl, "init": None, "bitsize": None}])[0]
        # The base's rule from here on: another declarator, or an abstract one.
        if self._starts_declarator():
            decl, is_named = super()._parse_any_declarator(allow_abstract=True, typeid_paren_as_abstract=True)
            if is_named:
                return self._build_declarations(spec=spec, decls=[{"decl": decl, "init": None, "bitsize": None}])[0]
            return self._build_parameter_declaration(spec, decl, spec_coord)
        decl = self._parse_abstract_declarator_opt()
        return self._build_parameter_declaration(spec, decl, spec_coord)

    def _parse_struct_declaration(self):
        """struct-declaration (C99 6.7.2.1) that starts with a specifier or qualifier and
        whose declarators end at `;`: pycparserext's rule (its leading attributes, none
        here, and its trailing ones, none before the `;`), the declarators as its
        struct-declarator rule takes them (`x`, `x : 3`, `: 3`). Anything else (a `;`, a
        pragma, attributes, no declarator: an anonymous member) from the start or after
        the specifiers, through its rule's own steps."""
        tokens = self._tokens
        buffer = tokens._buffer
        index = tokens._index
        tok = buffer[index] if index < len(buffer) else self._peek()
        if tok is None or _SPECIFIER_KINDS.get(tok.type) not in _MEMBER_SPECIFIER_START:
            return super()._parse_struct_declaration()
        spec = self._parse_specifier_qualifier_list()
        index = tokens._index
        tok = buffer[index] if index < len(buffer) else self._peek()
        if tok is None or tok.type not in _STRUCT_DECLARATOR_START:
            return self._struct_declaration_rest(spec, None)
        decls = self._more_after_commas([self._parse_struct_declarator()], self._parse_struct_declarator)
        index = tokens._index
        tok = buffer[index] if index < len(buffer) else self._peek()
        if tok is None or tok.type in _ATTRIBUTE_TOKENS:
            return self._struct_declaration_rest(spec, decls)
        self._expect("SEMI")
        return self._build_declarations(spec=spec, decls=decls)

    def _struct_declaration_rest(self, spec, decls):
        """pycparserext's struct-declaration rule after the specifiers and the declarators
        (`decls`, None without any): trailing attributes, the `;`, the declarations."""
        trailing_attrs = self._parse_attributes_opt()
        if decls is not None:
            self._expect("SEMI")
            result = self._build_declarations(spec=spec, decls=decls)
            if trailing_attrs.exprs:
                for decl in result:
                    if isinstance(getattr(decl, "type", None), c_ast.Struct):
                        st = decl.type
                        if not isinstance(st, StructExt):
                            st = StructExt.from_pycparser(st)
                            decl.type = st
                        st.attrib = AttributeSpecifier(trailing_attrs)
            return result
        if len(spec["type"]) == 1:
            node = spec["type"][0]
            if isinstance(node, c_ast.Node):
                decl_type = node
                if trailing_attrs.exprs and isinstance(node, c_ast.Struct):
                    if not isinstance(node, StructExt):
                        node = StructExt.from_pycparser(node)
                        spec["type"][0] = node
                    node.attrib = AttributeSpecifier(trailing_attrs)
                    decl_type = node
            else:
                decl_type = c_ast.IdentifierType(node)
            self._expect("SEMI")
            return self._build_declarations(spec=spec, decls=[{"decl": decl_type, "init": None, "bitsize": None}])
        self._expect("SEMI")
        return self._build_declarations(spec=spec, decls=[{"decl": None, "init": None, "bitsize": None}])

    def _parse_struct_declarator(self):
        """struct-declarator (C99 6.7.2.1): `declarator`, `declarator : width`, `: width`;
        the base's decl info, the declarator by _parse_declarator's fast path."""
        if self._accept("COLON"):
            return {"decl": c_ast.TypeDecl(None, None, None, None), "init": None,
                    "bitsize": self._parse_constant_expression()}
        decl = self._parse_declarator()
        bitsize = self._parse_constant_expression() if self._accept("COLON") else None
        return {"decl": decl, "init": None, "bitsize": bitsize}

    def _parse_declarator(self):
        """declarator (C99 6.7.5): the common ones here, the rest by the base's rules."""
        decl = self._simple_declarator()
        if decl is None:
            decl, _ = super()._parse_any_declarator(allow_abstract=False, typeid_paren_as_abstract=False)
        return decl

    def _parse_id_declarator(self):
        """A declarator whose name is an identifier (the base's id_declarator)."""
        decl = self._simple_declarator()
        return decl if decl is not None else super()._parse_id_declarator()

    def _parse_any_declarator(self, allow_abstract=False, typeid_paren_as_abstract=False):
        """A declarator, named or (where allowed) abstract: (decl, is_named) as the base's."""
        decl = self._simple_declarator()
        if decl is not None:
            return decl, True
        return super()._parse_any_declarator(allow_abstract, typeid_paren_as_abstract)

    def _peek_declarator_name_info(self):
        """(the type of the declarator's name token, whether a `(` comes before it), the
        declarator not consumed: a name that is the next token at once, else the base's scan."""
        tokens = self._tokens
        index = tokens._index
        tok = tokens._buffer[index] if index < len(tokens._buffer) else self._peek()
        if tok is not None and tok.type == "ID":
            return "ID", False
        return super()._peek_declarator_name_info()

    def _simple_declarator(self):
        """`*`s with their qualifiers, a name, array suffixes, followed by a token of
        _DECLARATOR_END: the declarator the base's rules make of it; else None with
        nothing consumed."""
        tokens = self._tokens
        buffer = tokens._buffer
        start = tokens._index
        tok = buffer[start] if start < len(buffer) else self._peek()
        if tok is None:
            return None
        last = self._last_token
        stars = []
        while tok.type == "TIMES":
            star = tok
            tokens._index += 1
            quals = []
            while True:
                index = tokens._index
                tok = buffer[index] if index < len(buffer) else self._peek()
                if tok is None:
                    tokens._index = start
                    return None
                if tok.type not in _POINTER_QUALIFIERS:
                    break
                quals.append(tok.value)
                tokens._index = index + 1
            stars.append((star, quals))
        if tok.type != "ID":
            tokens._index = start
            return None
        name = tok
        index = tokens._index
        filename = self.clex._filename
        pointers = None
        if stars:
            pointers = [(quals, Coord(filename, star.lineno, star.column)) for star, quals in stars]
        coord = Coord(filename, name.lineno, name.column)
        after = buffer[index + 1] if index + 1 < len(buffer) else self._peek(2)
        if after is None or after.type not in _DECLARATOR_END and after.type != "LBRACKET":
            tokens._index = start
            return None
        tokens._index = index + 1
        self._last_token = name
        decl = c_ast.TypeDecl(name.value, None, None, None, coord)
        if after.type == "LBRACKET":
            decl = self._array_suffixes(decl)
            if decl is None:
                tokens._index = start
                self._last_token = last
                return None
        if not pointers:
            return decl
        ptr = None
        for quals, star_coord in pointers:
            ptr = c_ast.PtrDecl(quals=quals, type=ptr, coord=star_coord)
        return self._type_modify_decl(decl, ptr)

    def _array_suffixes(self, decl):
        """`[ ]` or `[ assignment-expression ]`, one or more (C99 6.7.5.2), after the
        declarator `decl`, up to a token of _DECLARATOR_END: the ArrayDecls the base's
        rules make (each with `decl`'s Coord), else None (something else follows)."""
        tokens = self._tokens
        buffer = tokens._buffer
        coord = decl.coord
        dims = []
        while True:
            index = tokens._index
            tok = buffer[index] if index < len(buffer) else self._peek()
            if tok is None:
                return None
            if tok.type != "LBRACKET":
                if tok.type not in _DECLARATOR_END:
                    return None
                break
            size = buffer[index + 1] if index + 1 < len(buffer) else self._peek(2)
            if size is None:
                return None
            if size.type == "RBRACKET":
                tokens._index = index + 2
                self._last_token = size
                dims.append(None)
            elif size.type in _ARRAY_SIZE_START:
                tokens._index = index + 1
                self._last_token = tok
                dims.append(self._parse_assignment_expression())
                self._expect("RBRACKET")
            else:
                return None
        for dim in reversed(dims):
            decl = c_ast.ArrayDecl(type=decl, dim=dim, dim_quals=[], coord=coord)
        return decl

    def _build_declarations(self, spec, decls, typedef_namespace=False):
        """The base's Decl or Typedef for each declarator sharing `spec` (C99 6.7), where
        each is named (none of the base's repairs of a typedef name read as the type) and
        the type is keywords and typedef names or one struct, union or enum: the base's
        nodes without its repairs and its _Atomic fix-up, which changes nothing without an
        `_Atomic(type)` specifier (ast_transforms.fix_atomic_specifiers). Else the base's."""
        types = spec["type"]
        if not _plain_types(types) or not _all_named(decls):
            return super()._build_declarations(spec, decls, typedef_namespace)
        tag = types[0] if not isinstance(types[0], c_ast.IdentifierType) else None
        is_typedef = "typedef" in spec["storage"]
        declarations = []
        for info in decls:
            decl = info["decl"]
            if is_typedef:
                declaration = c_ast.Typedef(name=None, quals=spec["qual"], storage=spec["storage"],
                                            type=decl, coord=decl.coord)
            else:
                declaration = c_ast.Decl(name=None, quals=spec["qual"], align=spec["alignment"],
                                         storage=spec["storage"], funcspec=spec["function"], type=decl,
                                         init=info.get("init"), bitsize=None, coord=decl.coord)
            typ = decl
            while typ.__class__ is not c_ast.TypeDecl:
                typ = typ.type
            declaration.name = typ.declname
            typ.quals = declaration.quals[:]
            if tag is not None:
                typ.type = tag
            elif len(types) == 1:
                typ.type = c_ast.IdentifierType(types[0].names[:], coord=types[0].coord)
            else:
                typ.type = c_ast.IdentifierType([name for node in types for name in node.names],
                                                coord=types[0].coord)
            if typedef_namespace:
                if is_typedef:
                    self._add_typedef_name(declaration.name, declaration.coord)
                else:
                    self._add_identifier(declaration.name, declaration.coord)
            declarations.append(declaration)
        return declarations


# The declarators _build_declarations takes: a chain of these to a c_ast.TypeDecl (exactly:
# TypeDeclExt carries attributes, which the base's walk treats alike, but is left to it).
_DECLARATOR_NODES = (c_ast.PtrDecl, c_ast.ArrayDecl, c_ast.FuncDecl, FuncDeclExt)


def _plain_types(types):
    """Whether a spec's types are keywords and typedef names (IdentifierTypes), or one struct,
    union or enum: no `_Atomic(type)` (a Typename) and nothing the base reports."""
    if not types:
        return False
    if len(types) == 1:
        return isinstance(types[0], (c_ast.IdentifierType, c_ast.Struct, c_ast.Union, c_ast.Enum))
    return all(node.__class__ is c_ast.IdentifierType for node in types)


def _all_named(decls):
    """Whether each declarator (the base's decl infos) is a chain of declarator nodes to a
    named c_ast.TypeDecl, without a bit-field width."""
    for info in decls:
        if info.get("bitsize") is not None:
            return False
        decl = info["decl"]
        while decl.__class__ in _DECLARATOR_NODES:
            decl = decl.type
        if decl.__class__ is not c_ast.TypeDecl or decl.declname is None:
            return False
    return True
