"""pcpp's methods that the preprocess stage replaces with faster ones of the same results
(issue 26: pocl's macro-heavy tests spent most of their preprocessing in them), each tested
against pcpp's own in test_preprocess_fast_paths: token copies, macro expansion and its
rescans, the expansion of a macro's arguments, and the lexer's grouping of lines with a
matcher that tries only the rules that can start with a token's first character.
preprocess.py puts them on its pcpp Preprocessor subclass."""
import copy
import re

from clcoop.frontend.plain_runs import PlainRuns, with_tokens

try:
    from re import _parser as _re_parser      # the parse of a pattern (_FirstCharMatcher)
except ImportError:         # Python 3.10: the same module under its old name
    import sre_parse as _re_parser


def copy_token(tok):
    """copy.copy of a pcpp token, as copy.copy makes it without a __copy__ (a new instance
    of the class, the same attributes: copy._reconstruct of __reduce_ex__(4)), without that
    generic path's ten calls. pcpp copies every token of a macro's body and of its arguments
    at each expansion: ~100,000 copies in pocl's test_mad_sat.cl, a quarter of the
    preprocessing time (issue 26, throughput; test_preprocess_fast_paths)."""
    new = object.__new__(tok.__class__)
    # A copy of the attributes' dict put in place: ~40% faster than updating the new
    # instance's empty one, the same attributes in the same order.
    new.__dict__ = tok.__dict__.copy()
    return new


class TokenCopies:
    """Stands for the `copy` module inside pcpp.preprocessor, whose only use of it is
    copy.copy of a token or of a list of tokens: a token is copied by copy_token directly,
    without copy.copy's dispatch (type lookups, a getattr for __copy__) at each of the
    ~100,000 copies of a macro-heavy file; anything else goes to copy.copy
    (test_preprocess_fast_paths)."""

    def __init__(self, token_class):
        self.token_class = token_class

    def copy(self, value):
        if value.__class__ is self.token_class:      # copy_token's two lines, without its call
            new = object.__new__(value.__class__)
            new.__dict__ = value.__dict__.copy()
            return new
        return copy.copy(value)


def expand_macros(self, tokens, expanding_from=[]):    # noqa: B006 (pcpp's signature, never mutated)
    """pcpp 1.30's Preprocessor.expand_macros with the same steps, its per-token bookkeeping
    done only where it shows: a token that is no macro name (nearly all of them: every token
    of an expansion is scanned again at each level of its nesting, C99 6.10.3.4) is passed by
    with the line macro and its depth counter untouched (pcpp raises and lowers the counter
    around every token, which nets to nothing, and sets the line macro before and clears it
    after, read by nothing in between) and the table and type in locals. A macro name, __LINE__ and __COUNTER__
    take pcpp's own code (_expand_one). The same tokens as pcpp's (test_preprocess_fast_paths;
    issue 26: throughput). A text's plain lines (plain_runs.PlainRun) are lexed first."""
    if not expanding_from:
        tokens = with_tokens(tokens)
    for tok in tokens:
        if not hasattr(tok, "expanded_from"):
            tok.expanded_from = []
    macros = self.macros
    t_id = self.t_ID
    i = 0
    while True:
        # The next macro name from i (a for over a range: a third of the while loop's time).
        for i in range(i, len(tokens)):
            t = tokens[i]
            if t.type == t_id and (t.value in macros or t.value in ("__LINE__", "__COUNTER__")):
                break
        else:
            break
        if self.linemacrodepth == 0:
            self.linemacro = t.lineno       # what __LINE__ expands to inside this expansion
        self.linemacrodepth = self.linemacrodepth + 1
        i, stop = _expand_one(self, tokens, i, t, expanding_from)
        if stop:
            return tokens
    # pcpp sets the line macro before and clears it after every other token at depth 0
    # (read by nothing in between): what that leaves is a cleared one.
    if tokens and self.linemacrodepth == 0:
        self.linemacro = 0
    return tokens


def _expanded_at(t, expansion):
    """An expansion's tokens placed at the macro name `t` and marked as expanded from it
    (pcpp 1.30's expand_macros does this for object- and function-like macros alike).

    A token's copies share its list of macro names (copy_token is shallow, as copy.copy is),
    so pcpp appends the name once per copy in the expansion: 48 uses of an argument, 48
    appends to one list, at every level of nesting (lists of 108 names in pocl's
    test_bitselect.cl). Here a name is not appended again right after itself. What reads the
    lists sees the same: whether a name is in one (_expand_one, _record_expansion's
    __FILE__), its last name, and its names deduplicated from the end (_chain_defined);
    test_preprocess_fast_paths compares them with pcpp's."""
    source, lineno, name = t.source, t.lineno, t.value
    for e in expansion:
        e.source = source
        e.lineno = lineno
        try:
            names = e.expanded_from
        except AttributeError:      # (expand_macros gives every token one: not met)
            e.expanded_from = [name]
            continue
        if not names or names[-1] != name:
            names.append(name)
    return expansion


def _expand_one(self, tokens, i, t, expanding_from):
    """One step of pcpp 1.30's expand_macros loop at a macro name, __LINE__ or __COUNTER__
    (its code, linemacrodepth already raised): (the next index, whether pcpp breaks out)."""
    if t.value in self.macros and t.value not in t.expanded_from and t.value not in expanding_from:
        m = self.macros[t.value]
        unscanned = self.unscanned_expansions
        if m.arglist is None:
            rep = [copy_token(x) for x in m.value]
            ex = _expanded_at(t, self.expand_macros(rep, expanding_from + [t.value]))
            tokens[i:i + 1] = ex
            if self.unscanned_expansions == unscanned:
                i += _rescan_start(self, ex)
        else:
            j = i + 1
            while j < len(tokens) and (tokens[j].type in self.t_WS or tokens[j].type in self.t_COMMENT):
                j += 1
            if j == len(tokens) or tokens[j].value != "(":
                i = j
            else:
                tokcount, args, positions = self.collect_args(tokens[j:], True)
                if tokcount == 0:
                    self.unscanned_expansions += 1      # the rest of `tokens` is not scanned
                    return i, True      # pcpp breaks out here, the counter left raised
                if (not m.variadic and (args != [[]] or len(m.arglist) > 1)
                        and len(args) != len(m.arglist)):
                    self.on_error(t.source, t.lineno, "Macro %s requires %d arguments but was passed %d"
                                  % (t.value, len(m.arglist), len(args)))
                    self.unscanned_expansions += 1      # a rescan reports it again
                    i = j + tokcount
                elif m.variadic and len(args) < len(m.arglist) - 1:
                    if len(m.arglist) > 2:
                        self.on_error(t.source, t.lineno, "Macro %s must have at least %d arguments"
                                      % (t.value, len(m.arglist) - 1))
                    else:
                        self.on_error(t.source, t.lineno, "Macro %s must have at least %d argument"
                                      % (t.value, len(m.arglist) - 1))
                    self.unscanned_expansions += 1
                    i = j + tokcount
                else:
                    if m.variadic:
                        if len(args) == len(m.arglist) - 1:
                            args.append([])
                        else:
                            args[len(m.arglist) - 1] = tokens[j + positions[len(m.arglist) - 1]:j + tokcount - 1]
                            del args[len(m.arglist):]
                    else:
                        while len(args) < len(m.arglist):
                            args.append([])
                    rep = self.macro_expand_args(m, args)
                    ex = _expanded_at(t, self.expand_macros(rep, expanding_from + [t.value]))
                    # GCC's and clang's space between an expansion and a following identifier.
                    if len(tokens) > j + tokcount and tokens[j + tokcount].type in self.t_ID:
                        newtok = copy_token(tokens[j + tokcount])
                        newtok.type = self.t_SPACE
                        newtok.value = " "
                        ex.append(newtok)
                    tokens[i:j + tokcount] = ex
                    if self.unscanned_expansions == unscanned:
                        i += _rescan_start(self, ex)
        self.linemacrodepth = self.linemacrodepth - 1
        if self.linemacrodepth == 0:
            self.linemacro = 0
        return i, False
    if self.expand_linemacro and t.value == "__LINE__":
        t.type = self.t_INTEGER
        t.value = self.t_INTEGER_TYPE(self.linemacro)
    elif self.expand_countermacro and t.value == "__COUNTER__":
        t.type = self.t_INTEGER
        t.value = self.t_INTEGER_TYPE(self.countermacro)
        self.countermacro += 1
    i += 1
    self.linemacrodepth = self.linemacrodepth - 1
    if self.linemacrodepth == 0:
        self.linemacro = 0
    return i, False


def macro_expand_args(self, macro, args):
    """pcpp 1.30's Preprocessor.macro_expand_args (a function-like macro's replacement list
    with its arguments in place, C99 6.10.3.1-3) with the same steps, but: the body's copies
    made in the loop (pcpp called copy.copy per token: ~115,000 copies in test_as_type.cl),
    and the pass that pastes the tokens around `##` made only where there is one: in the body
    (looked for once per macro) or in an argument put in (pcpp scanned every replacement for
    one). The same tokens as pcpp's (test_preprocess_fast_paths; issue 26: throughput)."""
    new = object.__new__
    rep = []
    for x in macro.value:
        copied = new(x.__class__)
        copied.__dict__ = x.__dict__.copy()
        rep.append(copied)

    # Make string expansion patches.  These do not alter the length of the replacement sequence
    str_expansion = {}
    for argnum, i in macro.str_patch:
        if argnum not in str_expansion:
            str_expansion[argnum] = stringized(self, args[argnum])
        rep[i] = copy_token(rep[i])
        rep[i].value = str_expansion[argnum]

    # The variadic macro comma patch: an empty variadic argument removes it
    comma_patch = False
    if macro.variadic and not args[-1]:
        for i in macro.var_comma_patch:
            rep[i] = None
            comma_patch = True

    # The other patches, in reverse order of their places (macro_prescan sorted them)
    t_dpound = self.t_DPOUND
    pastes = _body_pastes(macro, t_dpound)
    pastes = put_arguments(rep, macro, args, self.expand_macros, t_dpound, pastes)

    # Get rid of removed comma if necessary
    if comma_patch:
        rep = [_i for _i in rep if _i]
    if not pastes:      # no `##` anywhere in rep: pcpp's pass below changes nothing
        return rep

    # A token concatenation pass, stitching any tokens separated by ## into a single token
    while len(rep) and rep[0].type == t_dpound:
        del rep[0]
    while len(rep) and rep[-1].type == t_dpound:
        del rep[-1]
    rep, stitched = _stitch(rep, t_dpound)
    if stitched:
        _lex_stitched(self, rep, stitched)
    return rep


def put_arguments(rep, macro, args, expand, t_dpound, pastes):
    """pcpp 1.30's argument patches of macro_expand_args (in reverse order of their places,
    as macro_prescan sorted them): an argument next to `##` as it is, any other expanded
    (`expand`, once per argument, C99 6.10.3.1). Returns whether `rep` may hold a `##` now:
    `pastes`, or one in an argument put in (looked for once per argument and patch type)."""
    looked_at = set()       # (patch type, argument) whose tokens were looked at for `##`
    expanded = {}
    for ptype, argnum, i in macro.patch:
        if ptype == 't':        # concatenation: the argument is left unexpanded
            put = args[argnum]
        elif ptype == 'e':      # the argument macro-expanded first
            if argnum not in expanded:
                expanded[argnum] = expand(list(args[argnum]))
            put = expanded[argnum]
        else:
            continue
        rep[i:i + 1] = put
        if not pastes and (ptype, argnum) not in looked_at:
            looked_at.add((ptype, argnum))
            pastes = any(tok.type == t_dpound for tok in put)
    return pastes


def stringized(self, arg):
    """pcpp 1.30's `#` of an argument (C99 6.10.3.2): its whitespace tokens made one space
    each (pcpp changes the argument's own whitespace tokens, as here), runs of them one,
    quotes and backslashes escaped."""
    tokens = list(arg)
    for tok in tokens:
        if tok.type in self.t_WS and tok.type != self.t_LINECONT:
            tok.value = ' '
    j = 0
    while j < len(tokens) - 1:
        if tokens[j].type in self.t_WS and tokens[j + 1].type in self.t_WS:
            del tokens[j + 1]
        else:
            j += 1
    text = "".join([x.value for x in tokens])
    text = text.replace("\\", "\\\\").replace('"', '\\"')
    return '"' + text + '"'


def _stitch(rep, t_dpound, copy=copy_token):
    """pcpp 1.30's `##` pass of macro_expand_args over `rep` (no `##` at either end): each
    token before a run of `##` is replaced by a copy with the text of the token after the
    run appended and no type, and the run and that token are removed. Returns the new list
    and the indices in it of the stitched tokens (`copy`: the tokens' shallow copy). pcpp walked the list a token at a time and
    deleted each pasted token from it (a delete moves the rest of the list: 40 pastes in a
    1,000-token body of pocl's common_hadd.cl); here the stretches between pastes are copied
    whole (test_preprocess_fast_paths: pcpp's macro_expand_args is the oracle)."""
    marks = [k for k, tok in enumerate(rep) if tok.type == t_dpound]
    out = []
    stitched = []
    k = 0
    for mark in marks:
        if mark < k:            # inside a run of `##` already pasted
            continue
        out += rep[k:mark]
        j = mark + 1
        while rep[j].type == t_dpound:
            j += 1
        joined = copy(out[-1])
        joined.type = None
        joined.value += rep[j].value
        out[-1] = joined
        if not stitched or stitched[-1] != len(out) - 1:
            stitched.append(len(out) - 1)
        k = j + 1
    out += rep[k:]
    return out, stitched


def _lex_stitched(self, rep, stitched, copy=copy_token):
    """pcpp 1.30's lexing of each stitched token of `rep` (at the indices `stitched`, in
    order) after the `##` pass: its type is the one token its text lexes as, or it is split
    into the tokens it lexes as."""
    lex = self.lexer.clone()
    inserted = 0
    for index in stitched:
        i = index + inserted
        lex.input(rep[i].value)
        toks = []
        while True:
            tok = lex.token()
            if not tok:
                break
            toks.append(tok)
        if len(toks) != 1:
            # Split it once again
            inserted += len(toks) - 1
            while len(toks) > 1:
                rep.insert(i + 1, copy(rep[i]))
                rep[i + 1].value = toks[-1].value
                rep[i + 1].type = toks[-1].type
                toks.pop()
            rep[i].value = toks[0].value
            rep[i].type = toks[0].type
        else:
            rep[i].type = toks[0].type


def _body_pastes(macro, t_dpound):
    """Whether a macro's replacement list holds a `##` (kept on the Macro: pcpp changes its
    value only when it is defined)."""
    pastes = macro.__dict__.get("clcoop_pastes")
    if pastes is None:
        pastes = macro.clcoop_pastes = any(tok.type == t_dpound for tok in macro.value)
    return pastes


def _rescan_start(self, ex):
    """Where pcpp's rescan of a macro's expansion `ex` (C99 6.10.3.4) can first expand
    something, from the start of `ex`: at its last token that is not whitespace or a comment.
    pcpp rescans the whole of `ex` with the tokens after it; but `ex` was scanned as a whole
    already (expand_macros of the replacement list) and each of its tokens then marked as
    expanded from the macro (_expanded_at), so a name that was not expanded there is not here
    either, but for a function-like macro's name with only whitespace after it in `ex`, whose
    `(` may follow `ex`. _expand_one rescans from the start where the scan of `ex` stopped
    short or reported an argument error (unscanned_expansions), which a rescan reports
    again. Every token of an expansion was rescanned at each level of nesting: ~270,000 in
    test_as_type.cl (test_preprocess_fast_paths: pcpp's expand_macros is the oracle)."""
    t_ws, t_comment = self.t_WS, self.t_COMMENT
    for k in range(len(ex) - 1, -1, -1):
        kind = ex[k].type
        if kind not in t_ws and kind not in t_comment:
            return k
    return len(ex)


def group_lines(self, input, abssource):     # noqa: A002 (pcpp's signature)
    """pcpp 1.30's Preprocessor.group_lines (a file's tokens, line by line) with ply's
    Lexer.token inline: the same master pattern, rules and token attributes, without a call
    and ply's set-up per token, and pcpp's whitespace rule (a third of the tokens) done in
    place. A position the pattern does not match (a literal or an error) and a lexer other
    than pcpp's one-pattern lexer take ply's own code (test_preprocess_fast_paths; issue 26:
    throughput: ~45% of a plain 4,750-line file's preprocessing was this lexing). A run of
    plain lines of a file the diagnostics know comes as one line of one PlainRun, not lexed
    (plain_runs; `plain_lines` False: never)."""
    lex = self.lexer.clone()
    if not self.fast_group_lines or len(lex.lexre) != 1 or lex.lexignore or not lex.lexoptimize:
        yield from self.pcpp_group_lines(input, abssource)
        return
    # A file the diagnostics know, whose text pcpp lexes as they know it (no trigraph
    # replaced, so the same positions), may have plain lines; its lines are joined already.
    entry = self.files.get(abssource) if self.plain_lines else None
    if entry is not None and entry.text == input:
        input = entry.joined    # noqa: A001
    else:
        entry = None
        lines = [x.rstrip() for x in input.splitlines()]
        input = "\n".join(lines)    # noqa: A001
    lex.input(input)
    lex.lineno = 1
    master, index_funcs = lex.lexre[0]
    matchers = _FirstCharMatcher.for_text(master, index_funcs, len(input)).by_char

    def lex_lines(pos, end, lineno, plain=None):
        return _lex_lines(self, lex, matchers, input, pos, end, lineno, abssource, plain)

    plain = None if entry is None else PlainRuns(self, abssource, input, lex_lines, self.uncomment)
    current_line = yield from lex_lines(0, len(input), 1, plain)
    if current_line:
        nltok = copy.copy(current_line[-1])
        nltok.type = self.t_NEWLINE
        nltok.value = "\n"
        current_line.append(nltok)
        yield current_line


def _lex_lines(self, lex, matchers, input, pos, end, lineno, abssource, plain):     # noqa: A002
    """group_lines's lexing of input[pos:end] (from line `lineno`): yields each line's tokens
    (or, at a line's start, [a PlainRun] of the plain lines from there, if `plain` finds
    some); returns the tokens after the last newline."""
    whitespace_rule = self.whitespace_rule
    token_class = self.token_class
    t_ws = self.t_WS
    current_line = []
    while pos < end:
        if plain is not None and not current_line and (pos == 0 or input[pos - 1] == "\n"):
            run = plain.take(pos, lineno)
            if run is not None:
                yield [run]
                lineno += input.count("\n", pos, run.stop)
                pos = run.stop
                continue
        # The master pattern's alternatives that may start with this character (below).
        found = matchers[input[pos]]
        m = found[0].match(input, pos)
        if m is None:
            lex.lexpos, lex.lineno = pos, lineno
            tok = lex.token()
            pos, lineno = lex.lexpos, lex.lineno
            if tok is None:
                break
        else:
            func, tok_type = found[1][m.lastindex]
            tok = token_class()
            tok.value = m.group()
            tok.lineno = lineno
            tok.lexpos = pos
            tok.type = tok_type
            pos = m.end()
            if func is None:
                if not tok_type:
                    continue
            else:
                tok.lexer = lex
                if func is whitespace_rule:      # t_CPP_WS: counts the newlines
                    lineno += tok.value.count("\n")
                else:
                    lex.lexmatch, lex.lexpos, lex.lineno = m, pos, lineno
                    tok = func(tok)
                    pos, lineno = lex.lexpos, lex.lineno
                    if not tok:
                        continue
        tok.source = abssource
        current_line.append(tok)
        if tok.type in t_ws and tok.value == "\n":
            yield current_line
            current_line = []
    return current_line


def uncomment(self, tokens):
    """pcpp 1.30's parsegen on a text line's comments, which it does before the line joins
    the text to expand: each made a blank (a block comment one space, a line comment a
    newline) unless on_comment keeps it."""
    for tok in tokens:
        if tok.type in self.t_COMMENT:
            if not self.on_comment(tok):
                if tok.type == self.t_COMMENT1:
                    tok.value = ' '
                elif tok.type == self.t_COMMENT2:
                    tok.value = '\n'
                tok.type = 'CPP_WS'
    return tokens


class _FirstCharMatcher:
    """ply's master pattern (one alternative per token rule, the first that matches wins)
    split by the character a match starts with: for each character, a pattern of only the
    alternatives that can start with it, in their order, so it matches what the master
    matches with the rule the master would take. The regular-expression engine tries the
    master's 59 alternatives one after another at each token: half of the lexing time of a
    plain file (test_convert_type_4.cl, 70,341 tokens). `by_char[c]`: (pattern, the master's
    index_funcs entry for each of its groups), made when c is first met; a pattern that never
    matches where no alternative can start with c. An alternative whose first characters
    are not worked out here (an unknown construct) is kept for every character, and a
    master that does not split as ply writes it (`(?P<rule>...)|...`) is used whole
    (test_preprocess_fast_paths: every position of a text against the master)."""

    _made = {}      # (pattern text, flags, index_funcs) -> _FirstCharMatcher

    def __init__(self, master, index_funcs, split=True):
        self.master, self.index_funcs = master, index_funcs
        # [(text, first-character test)], or None: the master for every character
        self.alternatives = _rule_alternatives(master) if split else None
        self.by_char = _CharTable(self._for_char)
        self.by_alternatives = {}   # the alternatives' indices -> (pattern, index_funcs)

    @classmethod
    def for_text(cls, master, index_funcs, length):
        """The process's matcher of this master, made for a text of at least
        _FIRST_CHAR_MIN_TEXT characters; for a shorter one before that, the master whole.
        Making it (splitting the master, a pattern for each set of alternatives met) costs
        ~5-10 ms, more than lexing a small kernel gains: ~1-2 us a token."""
        key = (master.pattern, master.flags, tuple(index_funcs))
        made = cls._made.get(key)
        if made is None:
            if length < _FIRST_CHAR_MIN_TEXT:
                return cls(master, index_funcs, split=False)
            made = cls._made[key] = cls(master, index_funcs)
        return made

    def _for_char(self, char):
        if self.alternatives is None:
            return self.master, self.index_funcs
        taken = tuple(index for index, (_, starts) in enumerate(self.alternatives)
                      if starts is None or starts(char))
        made = self.by_alternatives.get(taken)      # one pattern for all letters, all digits, ...
        if made is None:
            texts = [self.alternatives[index][0] for index in taken]
            pattern = re.compile("|".join(texts) if texts else "(?!)", self.master.flags)
            funcs = [None] * (pattern.groups + 1)
            for name, index in pattern.groupindex.items():
                funcs[index] = self.index_funcs[self.master.groupindex[name]]
            made = self.by_alternatives[taken] = (pattern, funcs)
        return made


class _CharTable(dict):
    """A dict that makes a character's entry with `make` when it is first asked for."""

    def __init__(self, make):
        super().__init__()
        self.make = make

    def __missing__(self, char):
        made = self[char] = self.make(char)
        return made


# A text this long (~5,000 tokens) pays for making the first-character patterns.
_FIRST_CHAR_MIN_TEXT = 30_000


def _rule_alternatives(master):
    """[(alternative text, a test of its first character or None: any)] of ply's master
    pattern, or None where it does not split into named groups that join back to it (or
    its flags make a literal match more than itself)."""
    texts = _top_level_alternatives(master.pattern)
    if "|".join(texts) != master.pattern or master.flags & (re.IGNORECASE | re.LOCALE):
        return None
    alternatives = []
    try:
        for text in texts:
            parsed = _re_parser.parse(text, master.flags)
            if len(parsed.data) != 1 or parsed.data[0][0] is not _re_parser.SUBPATTERN \
                    or parsed.data[0][1][0] is None:
                return None     # not one named group
            chars, may_be_empty = _first_chars(parsed.data, master.flags)
            alternatives.append((text, None if chars is None or may_be_empty else chars))
    except (re.error, TypeError, ValueError, IndexError, AttributeError):
        return None
    return alternatives


def _top_level_alternatives(pattern):
    """The pattern's text split at each `|` outside groups and character classes."""
    parts, depth, start, in_class, i = [], 0, 0, False, 0
    while i < len(pattern):
        char = pattern[i]
        if char == "\\":
            i += 2
            continue
        if in_class:
            in_class = char != "]"
        elif char == "[":
            in_class = True
            if pattern.startswith("]", i + 1) or pattern.startswith("^]", i + 1):
                i += 1 + (pattern[i + 1] == "^")      # a leading ] is a member
        elif char == "(":
            depth += 1
        elif char == ")":
            depth -= 1
        elif char == "|" and depth == 0:
            parts.append(pattern[start:i])
            start = i + 1
        i += 1
    return parts + [pattern[start:]]


# The parser's character classes, as the pattern's flags make them (\d: Unicode digits).
_CATEGORY_CLASSES = {_re_parser.CATEGORY_DIGIT: r"[\d]", _re_parser.CATEGORY_NOT_DIGIT: r"[\D]",
                     _re_parser.CATEGORY_SPACE: r"[\s]", _re_parser.CATEGORY_NOT_SPACE: r"[\S]",
                     _re_parser.CATEGORY_WORD: r"[\w]", _re_parser.CATEGORY_NOT_WORD: r"[\W]"}


def _first_chars(items, flags):
    """(a test of the characters a match of the parsed items can start with, or None: not
    worked out; whether the items can match the empty string). Literals, sets and ranges,
    groups, alternations and repeats are followed; anything else answers None."""
    tests = []
    for op, arg in items:
        if op is _re_parser.LITERAL:
            tests.append(chr(arg).__eq__)
            return _any_of(tests), False
        if op is _re_parser.IN:
            for kind, value in arg:
                if kind is _re_parser.LITERAL:
                    tests.append(chr(value).__eq__)
                elif kind is _re_parser.RANGE:
                    tests.append(lambda c, low=chr(value[0]), high=chr(value[1]): low <= c <= high)
                elif kind is _re_parser.CATEGORY and value in _CATEGORY_CLASSES:
                    tests.append(re.compile(_CATEGORY_CLASSES[value], flags).fullmatch)
                else:
                    return None, True
            return _any_of(tests), False
        if op is _re_parser.SUBPATTERN and not arg[1] & re.IGNORECASE:
            test, may_be_empty = _first_chars(arg[3], flags)
        elif op is _re_parser.BRANCH:
            branches = [_first_chars(branch, flags) for branch in arg[1]]
            if any(test is None for test, _ in branches):
                return None, True
            test, may_be_empty = _any_of([test for test, _ in branches]), any(empty for _, empty in branches)
        elif op in (_re_parser.MAX_REPEAT, _re_parser.MIN_REPEAT):
            test, may_be_empty = _first_chars(arg[2], flags)
            may_be_empty = may_be_empty or arg[0] == 0
        else:
            return None, True
        if test is None:
            return None, True
        tests.append(test)
        if not may_be_empty:
            return _any_of(tests), False
    return _any_of(tests), True


def _any_of(tests):
    return lambda char: any(test(char) for test in tests)
