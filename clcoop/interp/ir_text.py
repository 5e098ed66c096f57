"""Lexical facts of LLVM IR text shared by the loader and the source map."""
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
