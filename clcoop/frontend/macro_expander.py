"""Macro replacement (C99 6.10.3) of a run of text lines, on lightweight tokens, with the
results of pcpp 1.30's expand_macros as clcoop runs it (pcpp_methods.expand_macros, which
test_preprocess_fast_paths holds to pcpp's own): the same tokens, values, positions and
chains of macro names ("expanded from" notes), token for token.

What pcpp does per token and per level of nesting, and this expander does not (issue 26,
throughput: pocl's macro-heavy tests spent about half their preprocessing there):
- copies: a token of a macro's body is made from a tuple kept per Macro (Token, a class
  with slots), not by copying a LexToken's attribute dict and adding a list to it;
- places: pcpp places every token of an expansion at the macro's name and appends the
  macro to its chain at each level of nesting, and only the outermost placing is ever
  read (an error's location aside: an error hands the run back to pcpp, below); here an
  outermost expansion is kept whole as an Expansion (its tokens, the place, the macro,
  the Macros it expanded: one origin for all its tokens), which the preprocess stage
  writes and records without a step per token for them (Expansion.pcpp_tokens makes
  pcpp's tokens where they are wanted: an #include's operands);
- the text's own tokens (pcpp's LexTokens) are not changed: a token that takes part in an
  expansion (a macro's name, an argument) is taken as a Token first.

pcpp's semantics are kept where they differ from C99's: the chains are pcpp's lists of
macro names, shared by a token's copies and by every use of an argument (a token of an
argument is one object at each of its uses), a macro is not expanded again inside its own
expansion or where its name is in the token's chain (the hide set, 6.10.3.4's "painted
blue"), an argument is expanded with no macro hidden, `__LINE__` is the line of the
outermost macro's name, and an expansion is rescanned only from its last token that is not
whitespace (pcpp_methods._rescan_start).

Anything unusual hands the whole run to pcpp_methods.expand_macros before anything is
reported or changed: an argument count error, an invocation left open (both reported by
pcpp, at each rescan), `__COUNTER__`, a text token that already has a chain, and nesting
too deep for Python's stack."""
from clcoop.frontend.pcpp_methods import _body_pastes, _lex_stitched, _stitch, put_arguments, stringized
from clcoop.frontend.pcpp_methods import expand_macros as pcpp_expand_macros
from clcoop.frontend.plain_runs import PlainRun, with_items_replaced


class Token:
    """A token of an expansion: a LexToken's attributes and its chain of macro names
    (`expanded_from`, innermost first: pcpp's list). In an Expansion, its source and line
    are the Expansion's and its chain lacks the outermost macro (Expansion.pcpp_tokens)."""
    __slots__ = ("type", "value", "lineno", "lexpos", "source", "expanded_from")

    def __repr__(self):
        return f"Token({self.type}, {self.value!r}, {self.lineno}, {self.lexpos})"


class _HandBack(Exception):
    """The run is expanded by pcpp_methods.expand_macros instead (the module's docstring)."""


_new = object.__new__


def _token(kind, value, lineno, lexpos, source, chain):
    tok = _new(Token)
    tok.type, tok.value, tok.lineno, tok.lexpos, tok.source = kind, value, lineno, lexpos, source
    tok.expanded_from = chain
    return tok


def _taken(tok):
    """A text token (a LexToken) as a Token with an empty chain (pcpp gives each token of the
    text an empty list when it expands the text); one with a chain already goes to pcpp."""
    if tok.__class__ is Token:
        return tok
    if "expanded_from" in tok.__dict__:
        raise _HandBack
    return _token(tok.type, tok.value, tok.lineno, getattr(tok, "lexpos", None),
                  getattr(tok, "source", None), [])


def _copy(tok):
    """copy.copy of a Token: the same attributes, the chain list shared (shallow)."""
    new = _new(Token)
    new.type, new.value, new.lineno, new.lexpos, new.source = tok.type, tok.value, tok.lineno, tok.lexpos, tok.source
    new.expanded_from = tok.expanded_from
    return new


def _template(macro):
    """The (type, value, lineno, lexpos, source) of each token of a macro's replacement list,
    kept on the Macro (pcpp makes a new Macro at each #define and changes its value only
    then, in macro_prescan)."""
    template = macro.__dict__.get("clcoop_template")
    if template is None:
        template = macro.clcoop_template = tuple(
            (x.type, x.value, x.lineno, getattr(x, "lexpos", None), getattr(x, "source", None))
            for x in macro.value)
    return template


def _body(macro, fresh_chains=True):
    """Copies of a macro's replacement list, each with a new empty chain (pcpp gives one to
    each copy when it scans the list) or, with fresh_chains False, none yet (None). (_token's
    steps inline: ~100,000 copies in a macro-heavy file.)"""
    new = _new
    copies = []
    append = copies.append
    for kind, value, lineno, lexpos, source in _template(macro):
        tok = new(Token)
        tok.type, tok.value, tok.lineno, tok.lexpos, tok.source = kind, value, lineno, lexpos, source
        tok.expanded_from = [] if fresh_chains else None
        append(tok)
    return copies


def expand_text(pp, tokens):
    """The tokens of a run of text lines (pcpp's `chunk`) with their macros expanded: a new
    list of the text's LexTokens (those no expansion took part in), Tokens (a __LINE__) and
    an Expansion for each outermost expansion. Any of the module docstring's unusual cases:
    pcpp_methods.expand_macros's result instead, with pcpp's state as it was before the run."""
    counter = pp.countermacro
    try:
        return _Expander(pp).text(tokens)
    except (_HandBack, RecursionError):
        pp.countermacro = counter
        pp.pcpp_expansions += 1
        try:
            return pcpp_expand_macros(pp, tokens)
        finally:
            pp.pcpp_expansions -= 1


class _Expander:
    """One run's expansion: pcpp_methods.expand_macros, _expand_one and macro_expand_args on
    Tokens (their docstrings say what each step does)."""

    def __init__(self, pp):
        self.pp = pp
        self.macros = pp.macros
        self.t_id = pp.t_ID
        self.t_ws = pp.t_WS
        self.t_comment = pp.t_COMMENT
        self.t_dpound = pp.t_DPOUND
        self.line = 0           # __LINE__: the line of the outermost macro's name
        self.used = None        # the outermost expansion's macros: name -> Macro

    # --- the text: the outermost level ----------------------------------------------
    def text(self, tokens):
        tokens = _pcpp_tokens(tokens)
        macros, t_id = self.macros, self.t_id
        expansions = []
        i = _next_name(tokens, 0, t_id, macros)
        while i >= 0:
            i = _next_name(tokens, self._outermost(tokens, i, tokens[i], expansions), t_id, macros)
        return _with_expansions(tokens, expansions)

    def _outermost(self, tokens, i, t, expansions):
        """An expansion at the text's level, as an Expansion: its tokens are not placed and
        marked one by one (Expansion.pcpp_tokens). A name at the end of the last Expansion
        (the rescan, C99 6.10.3.4) has that Expansion's place and its macro in its chain."""
        name = t.value
        last = expansions[-1] if expansions else None
        if last is not None and i < last.end:
            source, lineno = last.source, last.lineno
            hidden = name == last.name or name in t.expanded_from
        else:
            last = None
            source, lineno = t.source, t.lineno
            hidden = t.__class__ is Token and name in t.expanded_from
        # pcpp takes __LINE__'s line at a name at its outermost level, which it no longer
        # finds after it stopped at an invocation left open (its level count stays raised).
        self.line = lineno if self.pp.linemacrodepth == 0 else self.pp.linemacro
        if name in self.macros and not hidden:
            self.used = used = {}
            found = self._replacement(tokens, i, t, ())
            if found is None:
                return self._after_name(tokens, i)
            ex, end, space = found
            if last is not None:
                last.end = i        # its tail from the name on is this invocation's
            expansions.append(Expansion(i, i + len(ex), len(ex) - space, source, lineno, name, used))
            return self._splice(tokens, i, end, ex)
        if name == "__LINE__" and self.pp.expand_linemacro:
            tok = tokens[i] = _taken(t)
            tok.type = self.pp.t_INTEGER
            tok.value = self.pp.t_INTEGER_TYPE(self.line)
        elif name == "__COUNTER__" and self.pp.expand_countermacro:
            raise _HandBack
        return i + 1

    def _after_name(self, tokens, i):
        """Where the scan goes on after a function-like macro's name with no `(`: the next
        token that is not whitespace or a comment (pcpp skips them too)."""
        j = i + 1
        t_ws, t_comment = self.t_ws, self.t_comment
        while j < len(tokens) and (tokens[j].type in t_ws or tokens[j].type in t_comment):
            j += 1
        return j

    def _splice(self, tokens, i, end, ex):
        """`ex` in place of tokens[i:end]; the rescan's start (pcpp_methods._rescan_start)."""
        tokens[i:end] = ex
        t_ws, t_comment = self.t_ws, self.t_comment
        for k in range(len(ex) - 1, -1, -1):
            kind = ex[k].type
            if kind not in t_ws and kind not in t_comment:
                return i + k
        return i + len(ex)

    # --- nested levels ---------------------------------------------------------------
    def expand(self, tokens, expanding_from):
        """pcpp_methods.expand_macros below the text's level: `tokens` (Tokens, changed in
        place) with their macros expanded; `expanding_from`: the macros being expanded."""
        macros, t_id = self.macros, self.t_id
        i = 0
        while True:
            i = _next_name(tokens, i, t_id, macros)
            if i < 0:
                return tokens
            t = tokens[i]
            name = t.value
            if name in macros and name not in t.expanded_from and name not in expanding_from:
                found = self._replacement(tokens, i, t, expanding_from)
                if found is None:
                    i = self._after_name(tokens, i)
                    continue
                ex, end, space = found
                # (pcpp marks the expansion before it adds the space after it)
                for e in (ex[:-1] if space else ex):
                    names = e.expanded_from
                    if not names or names[-1] != name:
                        names.append(name)
                i = self._splice(tokens, i, end, ex)
                continue
            if name == "__LINE__" and self.pp.expand_linemacro:
                t.type = self.pp.t_INTEGER
                t.value = self.pp.t_INTEGER_TYPE(self.line)
            elif name == "__COUNTER__" and self.pp.expand_countermacro:
                raise _HandBack
            i += 1

    def _replacement(self, tokens, i, t, expanding_from):
        """(the expansion of the macro named by tokens[i] = t, not yet marked, the end of its
        invocation in `tokens`, 1 if a space ends it (pcpp marks it not), else 0), or None for
        a function-like macro without `(`."""
        name = t.value
        m = self.macros[name]
        if self.used is not None:
            self.used[name] = m
        inner = expanding_from + (name,)
        if m.arglist is None:
            return self.expand(_body(m), inner), i + 1, 0
        j = self._after_name(tokens, i)
        if j == len(tokens) or tokens[j].value != "(":
            return None
        count, args, positions = self._arguments(tokens, j)
        arity = len(m.arglist)
        if not m.variadic:
            if (args != [[]] or arity > 1) and len(args) != arity:
                raise _HandBack     # pcpp reports the count (at each rescan)
            while len(args) < arity:
                args.append([])
        else:
            if len(args) < arity - 1:
                raise _HandBack
            if len(args) == arity - 1:
                args.append([])
            else:
                args[arity - 1] = tokens[j + positions[arity - 1]:j + count - 1]
                del args[arity:]
        ex = self.expand(self._substituted(m, args), inner)
        end = j + count
        # GCC's and clang's space between an expansion and a following identifier; its copy
        # shares that identifier's chain (pcpp's shallow copy).
        if end < len(tokens) and tokens[end].type in self.t_id:
            following = tokens[end]
            if following.__class__ is not Token:
                # A text token: pcpp's space shares its (empty) list, which no expansion
                # reaches after this (the space is placed after the marking, at the text's level).
                space = _taken(following)
            else:
                space = _copy(following)
            space.type = self.pp.t_SPACE
            space.value = " "
            ex.append(space)
            return ex, end, 1
        return ex, end, 0

    def _arguments(self, tokens, j):
        """pcpp's collect_args of tokens[j:] (tokens[j] is the `(`), without copying the
        tail; the text's tokens taken as Tokens (their chains are read and appended to). A
        PlainRun met is lexed in its place and the scan made again (plain_runs: rare)."""
        found = self._collect_arguments(tokens, j)
        while found is None:
            found = self._collect_arguments(tokens, j)
        return found

    def _collect_arguments(self, tokens, j):
        """_arguments's scan, or None after putting a PlainRun's tokens in its place."""
        args, positions, current = [], [1], []
        nesting = 1
        tokenstrip = self.pp.tokenstrip
        for k in range(j + 1, len(tokens)):
            t = tokens[k]
            if t.__class__ is not Token:
                if t.__class__ is PlainRun:
                    tokens[k:k + 1] = t.tokens()
                    return None
                t = tokens[k] = _taken(t)
            value = t.value
            if value == "(":
                current.append(t)
                nesting += 1
            elif value == ")":
                nesting -= 1
                if nesting == 0:
                    args.append(tokenstrip(current))
                    positions.append(k - j)
                    return k + 1 - j, args, positions
                current.append(t)
            elif value == "," and nesting == 1:
                args.append(tokenstrip(current))
                positions.append(k + 1 - j)
                current = []
            else:
                current.append(t)
        raise _HandBack      # an invocation left open: pcpp stops the scan there

    def _substituted(self, macro, args):
        """pcpp_methods.macro_expand_args on Tokens: the replacement list with the arguments
        in place (C99 6.10.3.1-3): `#` (6.10.3.2), the variadic comma, each argument
        expanded once where it is not next to `##`, then the `##` pastes (6.10.3.3)."""
        pp = self.pp
        t_dpound = self.t_dpound
        body_pastes = pastes = _body_pastes(macro, t_dpound)
        # Copies without chains where a paste may copy them (pcpp gives a copy its list
        # only when it scans it: a pasted token's pieces then each get their own).
        body = _body(macro, fresh_chains=not pastes)
        rep = list(body)
        str_expansion = {}
        for argnum, i in macro.str_patch:
            if argnum not in str_expansion:
                str_expansion[argnum] = stringized(pp, args[argnum])
            rep[i].value = str_expansion[argnum]      # (pcpp's copy of a copy no one else holds)
        comma_patch = False
        if macro.variadic and not args[-1]:
            for i in macro.var_comma_patch:
                rep[i] = None
                comma_patch = True
        pastes = put_arguments(rep, macro, args, self._expand_argument, t_dpound, pastes)
        if comma_patch:
            rep = [tok for tok in rep if tok]
        if pastes:
            if not body_pastes:     # a `##` of an argument: the body's copies as pcpp's, without chains
                for tok in body:
                    tok.expanded_from = None
            while rep and rep[0].type == t_dpound:
                del rep[0]
            while rep and rep[-1].type == t_dpound:
                del rep[-1]
            rep = self._pasted(rep)
            for tok in rep:
                if tok.expanded_from is None:
                    tok.expanded_from = []
        return rep

    def _expand_argument(self, tokens):
        """An argument expanded before it is put in (with no macro hidden, as pcpp does)."""
        return self.expand(tokens, ())

    def _pasted(self, rep):
        """pcpp_methods._stitch and _lex_stitched on Tokens."""
        rep, stitched = _stitch(rep, self.t_dpound, _copy)
        if stitched:
            _lex_stitched(self.pp, rep, stitched, _copy)
        return rep


def _next_name(tokens, i, t_id, macros):
    """The index of the next token from i that names a macro, __LINE__ or __COUNTER__, or -1
    (a for over a range: pcpp_methods.expand_macros's scan)."""
    for i in range(i, len(tokens)):
        t = tokens[i]
        if t.type == t_id and (t.value in macros or t.value in ("__LINE__", "__COUNTER__")):
            return i
    return -1


class Expansion:
    """An outermost expansion (macro_expander.expand_text's result holds it in place of its
    tokens): its `tokens`, the `source` and line (`lineno`) of the macro's name where pcpp
    places each of them, the macro's `name`, which pcpp appends to each token's chain (not
    to the space after, the first `marked` tokens), and its `macros`: name -> the Macro
    expanded, for every macro in the tokens' chains (the table's entries when the run was
    expanded, which are the table's while its tokens are written). `start`, `end`: its
    place in the run while the run is expanded."""
    __slots__ = ("start", "end", "marked", "source", "lineno", "name", "macros", "tokens")
    type = "CLCOOP_EXPANSION"       # no pcpp token type (pcpp's parser yields it)
    value = None

    def __init__(self, start, end, marked, source, lineno, name, macros):
        self.start, self.end, self.marked = start, end, marked
        self.source, self.lineno, self.name, self.macros = source, lineno, name, macros
        self.tokens = None

    def pcpp_tokens(self):
        """The tokens as pcpp leaves them: each placed at the macro's name and its chain
        ending in the macro (once: pcpp_methods._expanded_at)."""
        source, lineno, name = self.source, self.lineno, self.name
        for e in self.tokens[:self.marked]:
            e.source = source
            e.lineno = lineno
            names = e.expanded_from
            if not names or names[-1] != name:
                names.append(name)
        return self.tokens

    def chain(self, tok):
        """A token's chain as pcpp_tokens leaves it, without changing the token."""
        names = tok.expanded_from
        return names if names and names[-1] == self.name else names + [self.name]


def _pcpp_tokens(tokens):
    """A list of the tokens, an Expansion's as pcpp leaves them (an #include's operands are
    expanded twice)."""
    flat = with_items_replaced(tokens, Expansion, Expansion.pcpp_tokens)
    return list(tokens) if flat is None else flat


def _with_expansions(tokens, expansions):
    """The run's tokens with each Expansion in place of its tokens."""
    if not expansions:
        return tokens
    out = []
    k = 0
    for expansion in expansions:
        out += tokens[k:expansion.start]
        if expansion.end > expansion.start:
            expansion.tokens = tokens[expansion.start:expansion.end]
            expansion.marked = min(expansion.marked, len(expansion.tokens))
            out.append(expansion)
        k = max(k, expansion.end)
    out += tokens[k:]
    return out
