"""GNU inline assembly (`call ... asm [sideeffect] "template", "constraints"(args)`, as
clang-22 lowers `__asm__`) (the engines' shared reading).

The template is device code (a GPU ISA): no CPU engine can run it. What the interpreter
does run is the form kernels use as an optimization barrier, `__asm__ volatile("" :
"+rw"(x))`: an empty template, whose only effect is that each output holds the value of
the input tied to it (constraint "0", "1", ... : GCC's "+" operands) and memory is
unchanged (a "memory" clobber, or an indirect "=*m" output, changes nothing). Everything
else is refused when the module is loaded (Program.build / from_ir), with the reason:
- a non-empty template (device instructions);
- an output not tied to an input: its value would be whatever the register held.
The native engine does not compile inline assembly (a kernel with it runs here).
"""
import re

from clcoop.errors import IRError

# `asm [sideeffect] [alignstack] [inteldialect] [unwind] "template", "constraints"` (LangRef
# "Inline Assembler Expressions"), strings with \XX escapes.
_ASM = re.compile(r'\basm\s+((?:(?:sideeffect|alignstack|inteldialect|unwind)\s+)*)"((?:[^"\\]|\\.)*)",\s*'
                  r'"((?:[^"\\]|\\.)*)"')


def _unescape(text):
    return re.sub(r"\\([0-9A-Fa-f]{2})", lambda m: chr(int(m.group(1), 16)), text)


def parse(callee_text):
    """(template, [constraint, ...]) of an inline-asm callee's text."""
    m = _ASM.search(callee_text)
    if m is None:
        raise IRError(f"unreadable inline assembly: {callee_text}")
    return _unescape(m.group(2)), [c for c in _unescape(m.group(3)).split(",") if c]


def plan(callee_text):
    """For each direct output, the index (among the call's arguments) of the input tied to
    it; IRError with the reason when the statement is not one the interpreter runs."""
    template, constraints = parse(callee_text)
    if template.strip():
        raise IRError(f"inline assembly \"{template}\" is device code: the interpreter cannot run it "
                      f"(only an empty template, an optimization barrier, runs on the CPU)")
    # Outputs come first in the constraints; a tied input names its output by position.
    # The arguments: the indirect outputs' pointers ("=*m"), then the inputs.
    direct = [p for p, c in enumerate(constraints) if c.startswith("=") and not c.startswith("=*")]
    indirect = sum(1 for c in constraints if c.startswith("=*"))
    inputs = [c for c in constraints if not c.startswith(("=", "~"))]
    tied = {int(c): indirect + k for k, c in enumerate(inputs) if c.isdigit()}
    for p in direct:
        if p not in tied:
            raise IRError(f"output {p} ('{constraints[p]}') of an empty inline assembly statement is "
                          f"not tied to an input: its value would be whatever the register held")
    return [tied[p] for p in direct]


# A call of inline assembly in a module's text: the callee from `asm` to its constraints.
_CALL = re.compile(r"^\s*(?:%[^=]+=\s*)?(?:tail\s+|musttail\s+|notail\s+)?call\b[^\n]*?" + _ASM.pattern, re.M)


def check_module(module_text):
    """IRError for the first inline assembly statement the interpreter cannot run."""
    for m in _CALL.finditer(module_text):
        plan(m.group(0)[m.group(0).index("asm"):])
