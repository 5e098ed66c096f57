"""Debug line information for `-g`: the metadata clang-22 emits with -gline-tables-only.

One DICompileUnit (language DW_LANG_OpenCL, as clang-22 emits it for OpenCL C), a DIFile
per source file, a distinct DISubprogram per defined function (`!dbg` on the function) and
a DILocation on every instruction the builder creates from a located statement or
expression. The module flags "Dwarf Version" 5 and "Debug Info Version" 3 are clang's.
Variables and types are not described (emissionKind: LineTablesOnly): the lines are what
the interpreter needs to report a fault at the source, and what llc-22 carries along.
"""
import os

from llvmlite import ir

from clcoop.frontend.lower_print import module_text

I32 = ir.IntType(32)
DWARF_VERSION = 5
DEBUG_INFO_VERSION = 3      # llvm::DEBUG_METADATA_VERSION
# Module flag behaviours (LangRef "Module Flags Metadata"): clang's choices.
FLAG_WARNING, FLAG_MAX = 2, 7


class DebugInfo:
    """Builds the debug metadata of one llvmlite module."""

    def __init__(self, module, main_file, optimized, producer, directory=None):
        self.module = module
        self.directory = os.getcwd() if directory is None else directory
        self.optimized = optimized
        self.files = {}
        self.locations = {}        # (line, column, scope) -> Location
        self.location_lines = []   # their `!DILocation(...)` text, in creation order
        self.first_location_id = None
        self.scopes = {}           # (subprogram name, file) -> scope for code of that file
        self.subroutine_types = {}
        self.unit = module.add_debug_info("DICompileUnit", {
            "language": ir.DIToken("DW_LANG_OpenCL"),
            "file": self.file(main_file),
            "producer": producer,
            "isOptimized": optimized,
            "runtimeVersion": 0,
            "emissionKind": ir.DIToken("LineTablesOnly"),
            "nameTableKind": ir.DIToken("None"),
        }, is_distinct=True)
        module.add_named_metadata("llvm.dbg.cu", self.unit)
        for behaviour, name, value in ((FLAG_MAX, "Dwarf Version", DWARF_VERSION),
                                       (FLAG_WARNING, "Debug Info Version", DEBUG_INFO_VERSION)):
            module.add_named_metadata("llvm.module.flags", module.add_metadata(
                [ir.Constant(I32, behaviour), ir.MetaDataString(module, name), ir.Constant(I32, value)]))

    def file(self, filename):
        di = self.files.get(filename)
        if di is None:
            di = self.module.add_debug_info("DIFile", {"filename": filename,
                                                       "directory": self.directory})
            self.files[filename] = di
        return di

    def subprogram(self, name, loc, kernel, linkage_name=None):
        """The distinct DISubprogram of a function defined at `loc`."""
        file = self.file(loc.file)
        operands = {
            "name": name, "scope": file, "file": file, "line": loc.line,
            "type": self._subroutine_type(kernel), "scopeLine": loc.line,
            "flags": ir.DIToken("DIFlagPrototyped"),
            "spFlags": ir.DIToken("DISPFlagDefinition | DISPFlagOptimized" if self.optimized
                                  else "DISPFlagDefinition"),
            "unit": self.unit,
        }
        if linkage_name:
            operands["linkageName"] = linkage_name
        return Subprogram(self.module.add_debug_info("DISubprogram", operands, is_distinct=True),
                          loc.file)

    def _subroutine_type(self, kernel):
        di = self.subroutine_types.get(kernel)
        if di is None:
            # clang-22 marks kernels with the device-kernel calling convention.
            operands = {"types": self.module.add_metadata([])}
            if kernel:
                operands["cc"] = ir.DIToken("DW_CC_LLVM_DeviceKernel")
            di = self.module.add_debug_info("DISubroutineType", operands)
            self.subroutine_types[kernel] = di
        return di

    def location(self, loc, subprogram):
        """The DILocation of a source location inside `subprogram` (None without a line).

        Code from another file than the function's (an #include inside a body) is scoped
        by a DILexicalBlockFile, as clang does."""
        if loc is None or not loc.line:
            return None
        scope = subprogram.node if loc.file == subprogram.file else self._file_scope(subprogram, loc.file)
        key = (loc.line, loc.column, scope.name)
        location = self.locations.get(key)
        if location is None:
            location = Location(self, len(self.location_lines))
            # DILocation has 16 bits of column; LLVM makes a larger one 0, "unknown"
            # (DILocation's adjustColumn); long macro-expanded lines reach it (pocl test_rotate).
            column = loc.column if loc.column < 1 << 16 else 0
            self.location_lines.append(f"!DILocation(line: {loc.line}, column: {column}, "
                                       f"scope: {scope.get_reference()})")
            self.locations[key] = location
        return location

    def module_text(self):
        """The module's text with the DILocation nodes appended. They are numbered after
        llvmlite's metadata and written here: llvmlite's add_debug_info costs ~40 us per
        node, a third of the lowering time of a large kernel with -g."""
        self.first_location_id = len(self.module.metadata)
        text = module_text(self.module)
        first = self.first_location_id
        return text + "\n".join(f"!{first + k} = {line}" for k, line in enumerate(self.location_lines)) + "\n"

    def _file_scope(self, subprogram, filename):
        key = (subprogram.node.name, filename)
        di = self.scopes.get(key)
        if di is None:
            di = self.module.add_debug_info("DILexicalBlockFile", {
                "scope": subprogram.node, "file": self.file(filename), "discriminator": 0})
            self.scopes[key] = di
        return di


class Location:
    """An instruction's `!dbg` attachment (llvmlite prints `get_reference()`)."""
    __slots__ = ("owner", "index")

    def __init__(self, owner, index):
        self.owner, self.index = owner, index

    def get_reference(self):
        return f"!{self.owner.first_location_id + self.index}"


class Subprogram:
    __slots__ = ("node", "file")

    def __init__(self, node, file):
        self.node, self.file = node, file
