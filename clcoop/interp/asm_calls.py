"""The interpreter's handler of an inline assembly call (clcoop/ir/inline_asm.py says which
statements run: an empty template, each output its tied input's value)."""
from clcoop.ir.inline_asm import plan


def handler(callee_text):
    """The call's handler: each output is its tied input's value."""
    sources = plan(callee_text)

    def h(ex, args, bmask, full, ins):
        values = [args[k] for k in sources]
        if not values:
            return None
        return values[0] if len(values) == 1 else tuple(values)
    return h
