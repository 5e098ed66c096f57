"""Lexical facts of LLVM IR text shared by the loader, the source map, the native engine and the
Vulkan target."""
import re


# A function definition's first line in LLVM's printing; group 1 is its (quoted) name.
DEFINE_RE = re.compile(r'^define [^@\n]*@("(?:[^"\\\n]|\\.)*"|[-\w.$]+)\(.*$', re.M)


def llvm_unquote(text):
    """A name or metadata string as LLVM prints it ("a\\22b" or plain) -> its text."""
    if len(text) >= 2 and text[0] == text[-1] == '"':
        body = text[1:-1]
        return re.sub(r"\\([0-9A-Fa-f]{2})", lambda m: chr(int(m.group(1), 16)), body) \
            if "\\" in body else body
    return text


OPENERS, CLOSERS = "([{<", ")]}>"


def split_top_level(text):
    """The items of an IR comma list, commas inside (), [], {} and <> kept:
    'i32 %a, { i32, i8 } %b, <2 x i32> %c' -> ['i32 %a', '{ i32, i8 } %b', '<2 x i32> %c']."""
    parts, depth, current = [], 0, ""
    for ch in text:
        if ch in OPENERS:
            depth += 1
        elif ch in CLOSERS:
            depth -= 1
        if ch == "," and depth == 0:
            parts.append(current.strip())
            current = ""
        else:
            current += ch
    if current.strip():
        parts.append(current.strip())
    return parts


def bracketed(text, start):
    """The text between the bracket at text[start] and the one that closes it."""
    depth = 0
    for at in range(start, len(text)):
        if text[at] in OPENERS:
            depth += 1
        elif text[at] in CLOSERS:
            depth -= 1
            if depth == 0:
                return text[start + 1:at]
    return text[start + 1:]
