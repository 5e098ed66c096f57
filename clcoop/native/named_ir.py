"""The one parse of a loaded module for the native engine (issue 27: "the IR is parsed and
named once"): the code generator (codegen.py) emits from it and the range proof
(ranges.py) reads the same functions, so the proof is made on the code that runs, by the
same names.

The text is prepared before the parse: optnone/noinline dropped (LLVM's pass manager skips
an optnone function, so the instruction namer and the inliner would leave it as it was),
__local variables reached per thread (local_memory.py). After the parse, functions that
wait at a barrier are marked alwaysinline (only a kernel's own body becomes a coroutine),
LLVM's always-inliner runs and every value and block gets a name (loader.name_values).
"""
import re

from clcoop.ir import cfg
from clcoop.ir.demangle import demangle
from clcoop.ir.loader import name_values, read_structs, value_kind
from clcoop.native import local_memory
from clcoop.native.context import SUSPENDING_CALLS

_DROPPED_ATTRIBUTES = ("optnone", "noinline")
# LLVM refuses an empty attribute group; a string attribute nothing reads keeps it valid.
_EMPTY_GROUP_FILLER = '"clcoop-attributes-dropped"'


class NamedModule:
    """The llvmlite module the native engine compiles and proves, with what its preparation
    decided (plain data)."""

    def __init__(self, mod, structs, allocas, inlined, local_per_thread):
        self.mod = mod                            # llvmlite module: inlined, every value named
        self.structs = structs                    # its named struct types (read_structs)
        self.allocas = allocas                    # function -> its allocas' names before inlining
        self.inlined = inlined                    # functions inlined into their callers (barriers)
        self.local_per_thread = local_per_thread  # __local globals reached per thread

    def defined(self):
        """Names of the functions the module defines."""
        return {f.name for f in self.mod.functions if not f.is_declaration}


def without_optnone(ir):
    """`ir` with optnone and noinline dropped from its attribute groups (a group left empty
    keeps a filler: `attributes #0 = { noinline optnone }` is valid IR)."""
    for attr in _DROPPED_ATTRIBUTES:
        ir = re.sub(r"(?m)^(attributes #\d+ = \{.*?)\b" + attr + r"\b", r"\1", ir)
    return re.sub(r"(?m)^(attributes #\d+ = \{)\s*\}", r"\1 " + _EMPTY_GROUP_FILLER + " }", ir)


def parse(module):
    """NamedModule of the loaded `module` (its text already checked by loader.load_module).
    The checks are inserted before any optimization, so dropping optnone is safe."""
    import llvmlite.binding as llvm
    from clcoop.native.jit import ensure_llvm, host_target_machine
    ensure_llvm()
    ir = without_optnone(module.ir)
    threaded = local_memory.per_thread(ir)
    mod = llvm.parse_assembly(threaded if threaded is not None else ir)
    inlined = barrier_callers(mod)
    for f in inlined:
        f.add_function_attribute("alwaysinline")
    # The private variables of each function before inlining, so that a fault names an
    # inlined one as the interpreter does, in the function it was declared in.
    allocas = {f.name: {i.name for b in f.blocks for i in b.instructions if i.opcode == "alloca"}
               for f in mod.functions if not f.is_declaration}
    name_values(mod, host_target_machine(), inline=True)
    return NamedModule(mod, read_structs(mod), allocas, [f.name for f in inlined], threaded is not None)


def barrier_callers(mod):
    """Defined non-kernel functions that reach a work-group barrier or a vote (the calls at
    which a work-item's coroutine suspends: context.SUSPENDING_CALLS)."""
    funcs = {f.name: f for f in mod.functions}
    calls = {f.name: [c.name for b in f.blocks for ins in b.instructions if ins.opcode == "call"
                      for c in list(ins.operands)[-1:] if value_kind(c) == "function"]
             for f in mod.functions if not f.is_declaration}
    barriers = {c for cs in calls.values() for c in cs if demangle(c)[0] in SUSPENDING_CALLS}
    return [funcs[n] for n in cfg.reaching(calls, barriers)
            if n in calls and " spir_kernel " not in str(funcs[n]).split("{", 1)[0]]
