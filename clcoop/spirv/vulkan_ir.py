"""clcoop's LLVM IR -> LLVM IR for llc-22's Vulkan target (docs/vulkan.md "The route").

Two text passes around `opt-22 -passes=always-inline,mem2reg`:

- `before_inlining`: every kernel becomes an internal always-inline body plus a GLCompute entry
  (`"hlsl.shader"="compute"`) without parameters that reads the arguments from its push-constant
  block (addrspace(13), docs/vulkan-abi.md "Arguments"), turns device addresses into pointers
  (`inttoptr`) and passes each `__local` argument's Workgroup array; the OpenCL C built-ins
  become definitions of clcoop.spirv.vulkan_builtins (llvm.spv intrinsics) or placeholder
  imports that clcoop.spirv.vulkan_module lowers after llc.
- `after_inlining`: llc-22's Vulkan target has logical addressing only and silently drops the
  first index of a `getelementptr` whose base is not a variable (measured: docs/vulkan.md), so
  every address computation on a `__global`/`__constant` pointer becomes integer arithmetic
  (`ptrtoint`, `mul`, `add`, `inttoptr`, later PhysicalStorageBuffer64 pointers), and every
  `getelementptr` on a `__local`/private pointer is folded into one access chain rooted at its
  variable; what cannot be folded is a located error.
"""
import re
from dataclasses import dataclass, field

from clcoop import coop_names
from clcoop.errors import CompileError
from clcoop.ir.text import DEFINE_RE, llvm_unquote, split_top_level
from clcoop.ir.loader import DataLayout, IRError, Ty, TokenStream, parse_type
from clcoop.ir.source_map import read_debug_info, render_fault

PUSH_CONSTANT_SPACE = 13      # llc-22 SPIR-V: addrspace(13) is StorageClass PushConstant
PRIVATE_SPACE = 10            # StorageClass Private
GLOBAL_SPACES = (1, 2)        # __global, __constant: device addresses (PhysicalStorageBuffer)
LOCAL_SPACE = 3
GLOBAL_OFFSET = "@clcoop.vk.global_offset"
# A mangled cooperative-matrix callee (coop_names spells the prefix).
SPIRV_CALLEE = r"_Z\d+" + re.escape(coop_names.SPIRV_PREFIX) + r"\w+"
FUNCTION_TOKEN = 0x7C1C0000
# The engine passes each buffer's own device address: a VkBuffer bound at offset 0, whose
# alignment for storage use is a multiple of minStorageBufferOffsetAlignment (docs/vulkan-abi.md
# promises 16 bytes).
BUFFER_ALIGNMENT_LOG2 = 4
ALIGNMENT_TAG = 0x7A000000         # | log2(alignment): an extra memory-operand argument       # i32 stand-ins for function operands (see _Rewriter.function_operands)


class VulkanTargetError(CompileError):
    """What the Vulkan target cannot express: a compile error, located when the IR has -g."""

    def __init__(self, rendered):
        super().__init__([rendered], rendered)


@dataclass
class Argument:
    name: str             # the parameter's name in the source
    kind: str             # global, constant, local, scalar (docs/vulkan-abi.md)
    ir_type: Ty           # the parameter's IR type
    type_name: str        # kernel_arg_type, e.g. "float*"
    qualifiers: str       # kernel_arg_type_qual
    member: int = None    # push-constant member index (None for local)
    pointee: Ty = None    # local: the Workgroup array's element type
    record_size: int = 0  # a struct pointee's size (kernel_metadata.ARG_RECORD_SIZE)


@dataclass
class Kernel:
    name: str
    args: list
    local_size: tuple = None          # reqd_work_group_size
    subgroup_size: int = None         # intel_reqd_sub_group_size
    members: list = field(default_factory=list)   # push-constant member IR types, launch record last

    @property
    def block_type(self):
        return "%" + self.name + ".vk.args"


def fail(message, point=None, sources=None):
    text = f"{message} (Vulkan target)"
    raise VulkanTargetError(render_fault(text, point, sources or {}) if point is not None else f"error: {text}")


# ---------------------------------------------------------------------------- locations

class Locator:
    """file:line:col of an IR line's `!dbg` (the IR is compiled with -g for this target)."""

    def __init__(self, text):
        self.debug = read_debug_info(text) if "!DILocation(" in text else None

    def point(self, line):
        if self.debug is None:
            return None
        m = re.search(r"!dbg !(\d+)", line)
        if not m:
            return None
        point = self.debug.point(m.group(1))
        while point is not None and point.inlined_at is not None and not point.file:
            point = point.inlined_at
        return point


# ---------------------------------------------------------------------------- pass 1

_ATTR_LINE = re.compile(r"^(attributes #\d+ = \{)(.*)(\}\s*)$", re.M)


def without_noinline(text):
    """Attribute groups without optnone/noinline: everything is inlined for Vulkan (logical
    addressing cannot pass a __local or private pointer with an offset to a function)."""
    def clean(m):
        body = re.sub(r"\b(?:optnone|noinline)\b", "", m.group(2))
        return m.group(1) + re.sub(r"\s+", " ", body) + m.group(3)
    return _ATTR_LINE.sub(clean, text)


def record_sizes(text, kernel):
    """{parameter index: struct pointee size} from the kernel's clcoop.arg_record_size."""
    from clcoop.kernel_metadata import ARG_RECORD_SIZE
    define = re.search(r"^define spir_kernel [^\n]*@" + re.escape(kernel) + r"\(.*$", text, re.M)
    ref = define and re.search(r"!" + re.escape(ARG_RECORD_SIZE) + r" !(\d+)", define.group(0))
    node = ref and re.search(r"^!" + ref.group(1) + r" = !\{(.*)\}$", text, re.M)
    if not node:
        return {}
    sizes = [int(x) for x in re.findall(r"i32 (\d+)", node.group(1))]
    return {index: size for index, size in enumerate(sizes) if size}


def kernel_of(info, structs, sizes=None):
    """The Kernel description of a clcoop.ir.loader.KernelInfo."""
    sizes = sizes or {}
    args = []
    for index, (name, ty) in enumerate(info.params):
        type_name = info.arg_types[index] if index < len(info.arg_types) else str(ty)
        qual = info.arg_qualifiers[index] if index < len(info.arg_qualifiers) else ""
        if index in info.byval:
            fail(f"kernel '{info.name}' takes a struct by value (argument {index}); pass it in a "
                 "__global buffer instead")
        if ty.kind == "ptr":
            kind = {1: "global", 2: "constant", 3: "local"}.get(ty.addrspace)
            if kind is None:
                fail(f"kernel '{info.name}': argument '{name}' is a pointer in address space "
                     f"{ty.addrspace}, which a kernel argument cannot be")
        elif ty.kind in ("int", "float", "vec"):
            kind = "scalar"
        else:
            fail(f"kernel '{info.name}': argument '{name}' of type {type_name} cannot be a "
                 "push constant")
        args.append(Argument(name or f"arg{index}", kind, ty, type_name, qual, record_size=sizes.get(index, 0)))
    kernel = Kernel(info.name, args, info.reqd_work_group_size, info.reqd_sub_group_size)
    for arg in args:
        if arg.kind == "local":
            continue
        arg.member = len(kernel.members)
        kernel.members.append("i64" if arg.kind in ("global", "constant") else str(arg.ir_type))
    kernel.members.append("[3 x i32]")
    return kernel


def push_constant_layout(kernel, layout=DataLayout(8)):
    """(member offsets, block size) of a kernel's push-constant block: LLVM's natural layout,
    which is docs/vulkan-abi.md's (each member aligned to its size, a 3-vector to 4)."""
    text = "{ " + ", ".join(kernel.members) + " }"
    ty = parse_type(TokenStream(text, {}))
    return layout.struct_layout(ty)


def _entry_text(kernel):
    """The GLCompute entry of a kernel: arguments from push constants, then the body."""
    block = kernel.block_type
    lines = [f"define void @{kernel.name}() #{{entry_attrs}} {{", "vk.entry:"]
    values = []
    for index, arg in enumerate(kernel.args):
        if arg.kind == "local":
            values.append(f"ptr addrspace(3) @{kernel.name}.vk.local.{index}")
            continue
        slot = f"%vk.arg{index}.slot"
        member_type = kernel.members[arg.member]
        lines.append(f"  {slot} = getelementptr inbounds {block}, ptr addrspace(13) @{kernel.name}.vk.pc, "
                     f"i32 0, i32 {arg.member}")
        lines.append(f"  %vk.arg{index}.value = load {member_type}, ptr addrspace(13) {slot}")
        if arg.kind in ("global", "constant"):
            lines.append(f"  %vk.arg{index} = inttoptr i64 %vk.arg{index}.value to {arg.ir_type}")
            values.append(f"{arg.ir_type} %vk.arg{index}")
        else:
            values.append(f"{member_type} %vk.arg{index}.value")
    launch = len(kernel.members) - 1
    for dim in range(3):
        lines.append(f"  %vk.go{dim}.slot = getelementptr inbounds {block}, ptr addrspace(13) "
                     f"@{kernel.name}.vk.pc, i32 0, i32 {launch}, i32 {dim}")
        lines.append(f"  %vk.go{dim} = load i32, ptr addrspace(13) %vk.go{dim}.slot")
        lines.append(f"  store i32 %vk.go{dim}, ptr addrspace(10) {GLOBAL_OFFSET}.{dim}")
    lines.append(f"  call spir_func void @{kernel.name}.vk.body({', '.join(values)})")
    lines.append("  ret void")
    lines.append("}")
    return "\n".join(lines)


def _numthreads(kernel):
    size = kernel.local_size or (1, 1, 1)
    return ",".join(str(int(s)) for s in size)


def before_inlining(text, kernels, builtins):
    """Pass 1 (see the module docstring). `builtins`: clcoop.spirv.vulkan_builtins.rename
    (callee renames and the definitions to add)."""
    text = without_noinline(text)
    out, attrs, types = [], [], []
    for kernel in kernels:
        m = re.search(r"^define spir_kernel void @" + re.escape(kernel.name) + r"\(.*\{$", text, re.M)
        if m is None:
            fail(f"kernel '{kernel.name}' has no definition")
        line = m.group(0)
        open_at = line.index("(", line.index("@"))
        close = _params_end(line)
        params, rest = line[open_at + 1:close], line[close + 1:-1]
        rest = re.sub(r"!kernel_arg_\w+ !\d+|!reqd_work_group_size !\d+|!intel_reqd_sub_group_size !\d+|"
                      r"!work_group_size_hint !\d+|!vec_type_hint !\d+", "", rest)
        header = f"define internal spir_func void @{kernel.name}.vk.body({params}){_with_alwaysinline(rest)}{{"
        text = text[:m.start()] + header + text[m.end():]
        attr_id = 9000 + len(attrs)
        attrs.append(f'attributes #{attr_id} = {{ "hlsl.shader"="compute" '
                     f'"hlsl.numthreads"="{_numthreads(kernel)}" }}')
        out.append(_entry_text(kernel).replace("{entry_attrs}", str(attr_id)))
        members = ", ".join(kernel.members)
        types.append(f"{kernel.block_type} = type {{ {members} }}")
        out.append(f"@{kernel.name}.vk.pc = external hidden addrspace(13) global {kernel.block_type}")
        for index, arg in enumerate(kernel.args):
            if arg.kind == "local":
                elem = local_element_type(arg)
                out.append(f"@{kernel.name}.vk.local.{index} = internal addrspace(3) global [1 x {elem}] poison")
    text = _inline_everything(text)
    text = builtins.apply(text)
    out.extend(f"{GLOBAL_OFFSET}.{dim} = internal addrspace(10) global i32 0" for dim in range(3))
    head, triple, body = text.partition("\ntarget triple")
    body_start = body.index("\n") + 1
    text = head + triple + body[:body_start] + "\n".join(types) + "\n" + body[body_start:]
    return text + "\n" + "\n".join(out + attrs + _new_definitions(text, builtins.definitions)) + "\n"


def _new_definitions(text, definitions):
    """The helpers' definitions and declarations, each once, without the declarations of
    functions the module already declares (two helpers may call the same intrinsic)."""
    kept = []
    for definition in dict.fromkeys(definitions):
        m = re.match(r"declare [^@]*(@[-\w.$]+)\(", definition)
        if m and re.search(r"^declare [^@\n]*" + re.escape(m.group(1)) + r"\(", text, re.M):
            continue
        kept.append(definition)
    return kept


def local_element_type(arg):
    """The element type of a __local argument's Workgroup array, from its kernel_arg_type."""
    from clcoop.spirv.vulkan_types import ir_type_of_opencl
    ty = ir_type_of_opencl(arg.type_name.rstrip("*").strip())
    if ty is None:
        fail(f"__local argument '{arg.name}' of type {arg.type_name}: the Vulkan target needs a "
             "scalar or vector pointee for a Workgroup array")
    return ty


def private_constants(text, names):
    """Program-scope __constant variables (addrspace(2) with an initializer) become initialized
    Private variables (addrspace(10): a Vulkan module has no global memory of its own); each use
    is an addrspacecast back to addrspace(2), resolved after inlining (_Rewriter.retype)."""
    for name in names:
        ref = "@" + name if re.fullmatch(r"[-\w.$]+", name) else '@"' + name + '"'
        text = re.sub(r"^(" + re.escape(ref) + r" = [^=\n]*?)addrspace\(2\)", r"\1addrspace(10)", text, flags=re.M)
        # internal: an exported variable would need Linkage, which Vulkan has not
        text = re.sub(r"^(" + re.escape(ref) + r" = )(?!internal |private )", r"\1internal ", text, flags=re.M)
        text = re.sub(r"ptr addrspace\(2\) " + re.escape(ref) + r"(?![-\w.$])",
                      f"ptr addrspace(2) addrspacecast (ptr addrspace(10) {ref} to ptr addrspace(2))", text)
    return text


def _inline_everything(text):
    """`alwaysinline` on every defined non-kernel function."""
    def mark(m):
        line = m.group(0)
        if " alwaysinline" in line or " spir_kernel " in line:
            return line
        head, brace = line.rsplit("{", 1)
        close = _params_end(head)
        return head[:close + 1] + _with_alwaysinline(head[close + 1:]) + "{" + brace
    return re.sub(r"^define [^\n]*\{$", mark, text, flags=re.M)


def _with_alwaysinline(after_params):
    """The text after a define's parameters with `alwaysinline` among its function attributes
    (after unnamed_addr, which LLVM's grammar puts first)."""
    m = re.match(r"(\s*(?:local_unnamed_addr|unnamed_addr)?)(.*)$", after_params, re.S)
    return f"{m.group(1)} alwaysinline{(' ' + m.group(2).lstrip()) if m.group(2).strip() else ' '}"


def _params_end(header):
    """Index of the ')' closing the parameter list of a define line."""
    at = header.index("@")
    depth = 0
    for i in range(header.index("(", at), len(header)):
        if header[i] in "([{<":
            depth += 1
        elif header[i] in ")]}>":
            depth -= 1
            if depth == 0:
                return i
    raise VulkanTargetError("unreadable function header: " + header[:80])


# ---------------------------------------------------------------------------- pass 2

_GEP = re.compile(r"^(\s*)(%[-\w.$]+|%\"[^\"]*\") = getelementptr (?:(?:inbounds|nuw|nusw|inrange\(\S+\)) )*(.*)$")
_DBG_TAIL = re.compile(r"(,\s*!(?!\{)[\w.]+ !\d+)+\s*$")


@dataclass
class _Path:
    """Where a __local or private pointer points: its variable and one access chain."""
    root: str            # '@name' or '%name'
    root_type: Ty
    indices: list        # [(type text, operand text)] from the variable, first one 0


class _Rewriter:
    def __init__(self, text, structs, locator):
        self.structs = structs
        self.layout = DataLayout(8)
        self.locator = locator
        self.counter = 0
        self.paths = {}            # pointer value name -> _Path
        self.element_pointers = {}  # &m[i] value name -> (matrix variable, index type, index)
        self.declarations = {}     # placeholder name -> its declaration
        self.int_tz, self.ptr_tz = {}, {}   # known trailing zero bits of integers / device addresses
        self.tokens = []           # functions passed as operands, by token index
        self.token_callees = set()
        self.tagged = set()        # matrix callees given the alignment argument
        self.roots = {}            # variable name -> its type
        self.root_spaces = {}      # variable name -> its address space
        self.retyped = {}          # value name -> the address space it really has (see retype)
        for m in re.finditer(r"^(@[-\w.$]+|@\"[^\"]*\") = ([^=\n]*?)\b(?:global|constant) (.*)$", text, re.M):
            self.roots[m.group(1)] = m.group(3)       # parsed when a GEP needs it
            space = re.search(r"addrspace\((\d+)\)", m.group(2))
            self.root_spaces[m.group(1)] = int(space.group(1)) if space else 0

    def _leading_type(self, text):
        ts = TokenStream(text, self.structs)
        return parse_type(ts)

    def fresh(self):
        self.counter += 1
        return f"%vk.t{self.counter}"

    def rewrite(self, text):
        self.functions = {llvm_unquote(m.group(1)) for m in DEFINE_RE.finditer(text)}
        out, function_start = [], None
        for line in text.split("\n"):
            if line.startswith("define "):
                self.paths, self.element_pointers, self.retyped = {}, {}, {}
                function_start = len(out)
                self.int_tz = integer_trailing_zeros(text, line)
                self.ptr_tz = {f"%vk.arg{i}": BUFFER_ALIGNMENT_LOG2 for i in range(256)}
            out.extend(self.line(self.function_operands(line)))
            if line.startswith("}") and function_start is not None and self.retyped:
                # A use may come before its definition in the text (block order): retype again.
                out[function_start:] = [self.retype(l) if l.startswith("  ") else l for l in out[function_start:]]
        out = [self.declaration_with_tokens(line) for line in out]
        return "\n".join(out + list(self.declarations.values())) + "\n"

    # ---- function operands (coop_mat_reduce, coop_mat_per_element, decode functions): llc-22's
    # Vulkan target takes no SPV_INTEL_function_pointers and would pass a null; each `ptr @f`
    # argument becomes an i32 token constant that clcoop.spirv.vulkan_module maps back to f's
    # OpFunction id (the tokens are FUNCTION_TOKEN + index into self.tokens).
    def function_operands(self, line):
        if not line.startswith("  ") or " call " not in line and not line.lstrip().startswith("call "):
            return line
        m = re.search(r"@(" + SPIRV_CALLEE + r")\(", line)
        if m is None:
            return line
        def token(found):
            name = found.group(1)
            if name not in self.functions:
                return found.group(0)
            if name not in self.tokens:
                self.tokens.append(name)
            self.token_callees.add(m.group(1))
            return f"i32 {FUNCTION_TOKEN + self.tokens.index(name)}"
        return re.sub(r"ptr(?: (?:nonnull|noundef))* @([-\w.$]+)(?=[,)])", token, line)

    def declaration_with_tokens(self, line):
        m = re.match(r"^declare (.*?)@(" + SPIRV_CALLEE + r")\((.*)\)(.*)$", line)
        if m is not None and m.group(2) in self.tagged:
            return f"declare {m.group(1)}@{m.group(2)}({m.group(3)}, i32){m.group(4)}"
        if m is None or m.group(2) not in self.token_callees:
            return line
        # Function operands are the only plain `ptr` parameters of these callees (their
        # memory pointers are addrspace(1) or (3)).
        params = re.sub(r"\bptr(?= *(?:,|$))", "i32", m.group(3))
        return f"declare {m.group(1)}@{m.group(2)}({params}){m.group(4)}"

    def line(self, line):
        if not line.startswith("  "):
            return [line]
        line = self.retype(line)
        if re.search(r"call void @llvm\.lifetime\.(?:start|end)", line):
            return []                  # no meaning in SPIR-V; llc-22 gives them Function pointers
        m = re.match(r"^\s*(%[-\w.$]+|%\"[^\"]*\") = alloca (.*)$", line)
        if m:
            self.roots[m.group(1)] = m.group(2)
            return [line]
        if self.element_access(line) is not None:
            return self.element_access(line)
        pre, line = self.hoist_constant_geps(line)
        pre, line = self.element_zero(pre, line)
        pre, line = self.element_zero_arguments(pre, line)
        line = self.tag_matrix_alignment(line)
        m = _GEP.match(line)
        if m:
            return pre + self.gep(line, m)
        self.check(line)
        return pre + [line]

    # ---- program-scope __constant data lives in Private variables (addrspace(10), initialized);
    # before inlining each use became `addrspacecast (ptr addrspace(10) @g to ptr addrspace(2))`,
    # and the values derived from it are given their real address space here.
    _CAST = re.compile(r"ptr addrspace\(2\) addrspacecast \(ptr addrspace\(10\) (@[-\w.$]+) to ptr addrspace\(2\)\)")

    def retype(self, line):
        line = self._CAST.sub(r"ptr addrspace(10) \1", line)
        for name, space in self.retyped.items():
            line = re.sub(r"ptr addrspace\(\d+\) " + re.escape(name) + r"(?![-\w.$])",
                          f"ptr addrspace({space}) {name}", line)
        if self.retyped and re.search(r"= (?:phi|select) ", line) and \
                any(re.search(re.escape(n) + r"(?![-\w.$])", line) for n in self.retyped):
            fail("a __constant pointer that may point to program-scope data or to a buffer cannot "
                 "be expressed on the Vulkan target (program-scope __constant data is a Private "
                 "array there)", self.locator.point(line))
        return line

    def real_space(self, path, written):
        """(pointer type text, whether it differs from the written one) of a folded pointer."""
        space = self.root_spaces.get(path.root, 0)
        return ("ptr" if space == 0 else f"ptr addrspace({space})"), space != written

    # ---- cooperative-matrix element access: `&m[i]` (an imported __spirv_AccessChain) is
    # only loaded from or stored to; each becomes a placeholder clcoop.spirv.vulkan_module
    # lowers to OpAccessChain on the matrix variable (llc-22's Vulkan target crashes on the
    # imported call's pointer result).
    _CHAIN = re.compile(r"^\s*(%\S+) = call [^@]*@(_Z\d+" + re.escape(coop_names.ACCESS_CHAIN) + r"\w*)\(ptr(?: (?:nonnull|noundef))* (%\S+), (i\d+)(?: (?:noundef|signext|zeroext))* (\S+)\)")
    _ELEMENT_LOAD = re.compile(r"^(\s*)(%\S+) = load ([^,]+), ptr (%\S+?)(,.*)?$")
    _ELEMENT_STORE = re.compile(r"^(\s*)store (.+?) (\S+), ptr (%\S+?)(,.*)?$")

    def element_access(self, line):
        m = self._CHAIN.match(line)
        if m:
            self.element_pointers[m.group(1)] = (m.group(3), m.group(4), m.group(5))
            return []
        if not self.element_pointers:
            return None
        load = self._ELEMENT_LOAD.match(line)
        if load and load.group(4) in self.element_pointers:
            base, itype, index = self.element_pointers[load.group(4)]
            callee = self.placeholder("mat_load", load.group(3), f"{load.group(3)} (ptr, {itype})")
            return [f"{load.group(1)}{load.group(2)} = call spir_func {load.group(3)} @{callee}(ptr {base}, "
                    f"{itype} {index}){_dbg_of(line)}"]
        store = self._ELEMENT_STORE.match(line)
        if store and store.group(4) in self.element_pointers:
            base, itype, index = self.element_pointers[store.group(4)]
            callee = self.placeholder("mat_store", store.group(2), f"void (ptr, {itype}, {store.group(2)})")
            return [f"{store.group(1)}call spir_func void @{callee}(ptr {base}, {itype} {index}, "
                    f"{store.group(2)} {store.group(3)}){_dbg_of(line)}"]
        for pointer in self.element_pointers:
            if re.search(re.escape(pointer) + r"\b(?![.\w])", _DBG_TAIL.sub("", line)):
                fail("the address of a matrix element may only be loaded from or stored to on the "
                     "Vulkan target", self.locator.point(line))
        return None

    def placeholder(self, kind, type_text, signature):
        name = f"clcoop.vk.{kind}.__" + re.sub(r"[^\w]", "_", type_text)
        ret, params = signature.split(" (", 1)
        self.declarations[name] = f"declare spir_func {ret} @{name}({params}"
        return name

    _ACCESS = re.compile(r"^(\s*)(?:%\S+ = load (?P<load>[^,]+), |store (?P<store>.+?) \S+, )"
                         r"(?P<ptr>ptr(?: addrspace\((?P<space>\d+)\))?) (?P<root>[@%][-\w.$]+)(?=,|$)")

    def element_zero(self, pre, line):
        """A load/store straight through a __local/private variable of another type (opt's
        folding of `a[0]`) -> through a typed access chain to that element."""
        m = self._ACCESS.match(_DBG_TAIL.sub("", line))
        if m is None or m.group("root") not in self.roots or (m.group("space") or "0") in ("1", "2", "13"):
            return pre, line
        wanted = (m.group("load") or m.group("store")).strip()
        root = self._leading_type(self.roots[m.group("root")])
        if _same_type(root, wanted):
            return pre, line
        path = _byte_path(root, 0, wanted, self.layout)
        if path is None:
            fail(f"an access to a {root} variable as a {wanted} cannot be expressed in Vulkan's "
                 "logical addressing", self.locator.point(line))
        name = self.fresh()
        dbg = _DBG_TAIL.search(line)
        pre = pre + [f"{m.group(1)}{name} = getelementptr inbounds {root}, {m.group('ptr')} {m.group('root')}, "
                     + ", ".join(f"{t} {v}" for t, v in path) + (dbg.group(0) if dbg else "")]
        start, end = m.span("root")
        return pre, line[:start] + name + line[end:]

    def element_zero_arguments(self, pre, line):
        """A __local/private array variable passed to a call (opt's folding of `&a[0]`) -> a
        pointer to its first element (atomics and matrix loads take element pointers)."""
        if not re.match(r"^\s*(?:%\S+ = )?(?:tail )?call ", line):
            return pre, line

        def element(found):
            space, root = found.group(1) or "0", found.group(2)
            if root not in self.roots or space in ("1", "2", "13"):
                return found.group(0)
            ty = self._leading_type(self.roots[root])
            if ty.kind not in ("array", "struct"):
                return found.group(0)
            path = _byte_path(ty, 0, None, self.layout)
            name = self.fresh()
            pointer = found.group(0).rsplit(" ", 1)[0]
            indent = re.match(r"\s*", line).group(0)
            pre.append(f"{indent}{name} = getelementptr inbounds {ty}, {pointer} {root}, "
                       + ", ".join(f"{t} {v}" for t, v in path) + _dbg_of(line))
            return f"{pointer} {name}"
        pre = list(pre)
        line = re.sub(r"ptr(?: addrspace\((\d+)\))? ([@%][-\w.$]+)(?=[,)])", element, line)
        return pre, line

    # ---- the alignment of a matrix load/store's device address, passed to
    # clcoop.spirv.vulkan_module in a tagged extra memory-operand argument (ALIGNMENT_TAG):
    # `Aligned` may then say more than the component size, as much as the address proves.
    _MATRIX_ACCESS = re.compile(r"@(" + SPIRV_CALLEE + r")\((ptr addrspace\(1\)(?: \w+)* (%[-\w.$]+)), (.*)\)")

    def tag_matrix_alignment(self, line):
        m = self._MATRIX_ACCESS.search(line)
        if m is None:
            return line
        callee = coop_names.parse_callee(m.group(1))
        if callee is None or callee.base not in (coop_names.LOAD, coop_names.STORE):
            return line
        known = self.ptr_tz.get(m.group(3), 0)
        if known <= 1:
            return line
        arguments = split_top_level(m.group(4))
        expected = 2 if callee.base == coop_names.LOAD else 3     # layout, stride (store: matrix first)
        if len(arguments) != expected:
            return line                  # a memory operand given already: keep the component size
        self.tagged.add(m.group(1))
        start, end = m.span(4)
        return line[:start] + m.group(4) + f", i32 {ALIGNMENT_TAG | known}" + line[end:]

    # ---- constant-expression getelementptr (opt folds inlined constant indices into them,
    # as byte offsets `getelementptr (i8, ptr @g, i64 K)`): hoisted into typed instructions.
    def hoist_constant_geps(self, line):
        pre = []
        while True:
            start = line.find("getelementptr (", line.find(" = ") + 3 if " = getelementptr" in line else 0)
            start = _constant_gep_start(line)
            if start < 0:
                return pre, line
            open_at = line.index("(", start)
            close = _matching(line, open_at)
            inner = line[open_at + 1:close]
            name = self.fresh()
            indent = re.match(r"\s*", line).group(0)
            dbg = _DBG_TAIL.search(line)
            pre.extend(self.typed_constant_gep(indent, name, inner, line, dbg.group(0) if dbg else ""))
            line = line[:start] + name + line[close + 1:]
            space = re.search(r"ptr addrspace\((\d+)\) @", inner)
            if space:                                 # its uses may name another address space
                self.retyped[name] = int(space.group(1))
                line = self.retype(line)

    def typed_constant_gep(self, indent, name, inner, line, dbg):
        try:
            source, ptr_type, base, indices = self._gep_parts(inner)
        except IRError as error:
            fail(f"cannot read an address computation ({error})", self.locator.point(line))
        if base not in self.roots:
            fail("a constant address expression the Vulkan target cannot express", self.locator.point(line))
        if str(source) == "i8" and len(indices) == 1 and re.fullmatch(r"-?\d+", indices[0][1]):
            root = self._leading_type(self.roots[base])
            access = re.match(r"\s*%\S+ = load ([^,]+),|\s*store ([^,]+?) ", line)
            wanted = (access.group(1) or access.group(2)).strip() if access else None
            path = _byte_path(root, int(indices[0][1]), wanted, self.layout)
            if path is None:
                fail("a byte offset into a __local or private variable that is not one of its "
                     "elements cannot be expressed in Vulkan's logical addressing", self.locator.point(line))
            source, indices = root, path
            return [f"{indent}{name} = getelementptr inbounds {source}, {ptr_type} {base}, "
                    + ", ".join(f"{t} {v}" for t, v in indices) + dbg]
        return [f"{indent}{name} = getelementptr inbounds {inner}{dbg}"]

    def check(self, line):
        body = _DBG_TAIL.sub("", line)
        if re.search(r"= load ptr addrspace\([12]\),", body):
            fail("a __global pointer loaded from memory cannot be used as a buffer: the Vulkan "
                 "target passes buffers by device address in push constants", self.locator.point(line))
        if re.search(r"= (?:phi|select) .*\bptr addrspace\(3\)|= (?:phi|select) (?:i1 \S+, )?ptr[ ,]", body):
            fail("a __local or private pointer chosen at run time cannot be expressed in Vulkan's "
                 "logical addressing; index one array instead", self.locator.point(line))
        if "getelementptr (" in body and re.search(r"getelementptr \([^)]*ptr addrspace\([12]\)", body):
            fail("a constant address expression on a __global pointer", self.locator.point(line))

    # ---- getelementptr
    def _gep_parts(self, rest):
        ts = TokenStream(_DBG_TAIL.sub("", rest), self.structs)
        source = parse_type(ts)
        ts.expect(",")
        ptr_type = parse_type(ts)
        base = ts.next()
        indices = []
        while ts.accept(","):
            ity = parse_type(ts)
            value = ts.next()
            indices.append((str(ity), value))
        return source, ptr_type, base, indices

    def gep(self, line, m):
        indent, result, rest = m.groups()
        if re.search(r", ptr addrspace\(13\) @", rest):
            return [line]                        # the entry's own accesses
        try:
            source, ptr_type, base, indices = self._gep_parts(rest)
        except (IRError, StopIteration) as error:
            fail(f"cannot read an address computation ({error})", self.locator.point(line))
        tail = _DBG_TAIL.search(rest)
        dbg = tail.group(0) if tail else ""
        if ptr_type.kind != "ptr":
            fail("a vector of pointers cannot be expressed on the Vulkan target", self.locator.point(line))
        if ptr_type.addrspace in GLOBAL_SPACES and self.path_of(base) is None:
            return self.integer_address(indent, result, source, ptr_type, base, indices, dbg)
        return self.fold(line, indent, result, source, ptr_type, base, indices, dbg)

    def integer_address(self, indent, result, source, ptr_type, base, indices, dbg):
        """`getelementptr` on a device address -> ptrtoint, then i64 mul/add, then inttoptr."""
        address = self.fresh()
        lines = [f"{indent}{address} = ptrtoint {ptr_type} {base} to i64{dbg}"]
        known = [self.ptr_tz.get(base, 0)]      # trailing zero bits of each term of the sum
        ty = source
        for position, (ity, value) in enumerate(indices):
            if position and ty.kind == "struct":
                offsets, _ = self.layout.struct_layout(ty)
                offset, ty = offsets[int(value)], ty.fields[int(value)]
                address = self._add(lines, indent, address, str(offset), dbg) if offset else address
                known.append(_tz(offset))
                continue
            if position:
                ty = ty.elem
            step = self.layout.size(ty)
            if re.fullmatch(r"-?\d+", value):
                if int(value):
                    address = self._add(lines, indent, address, str(int(value) * step), dbg)
                known.append(_tz(int(value) * step))
                continue
            known.append(self.int_tz.get(value, 0) + _tz(step))
            if ity != "i64":
                widened = self.fresh()
                lines.append(f"{indent}{widened} = sext {ity} {value} to i64{dbg}")
                value = widened
            scaled = self.fresh()
            lines.append(f"{indent}{scaled} = mul i64 {value}, {step}{dbg}")
            address = self._add(lines, indent, address, scaled, dbg)
        lines.append(f"{indent}{result} = inttoptr i64 {address} to {ptr_type}{dbg}")
        self.ptr_tz[result] = min(known + [BUFFER_ALIGNMENT_LOG2])
        return lines

    def _add(self, lines, indent, address, amount, dbg):
        summed = self.fresh()
        lines.append(f"{indent}{summed} = add i64 {address}, {amount}{dbg}")
        return summed

    def fold(self, line, indent, result, source, ptr_type, base, indices, dbg):
        """`getelementptr` on a __local/private pointer -> one access chain from its variable."""
        path = self.path_of(base)
        if path is None:
            fail("this __local or private pointer is not traced to one variable, which Vulkan's "
                 "logical addressing needs", self.locator.point(line))
        pointee = self.pointee(path)
        first_type, first = indices[0]
        if str(source) == "i8" and str(pointee) != "i8" and len(indices) == 1:
            # opt's canonical byte offsets (`getelementptr i8, p, off`) back to element indices.
            pre, chain = self.byte_offset(line, indent, path, pointee, first_type, first, dbg)
        elif str(source) == str(pointee) and len(path.indices) > 1:
            # base points at an array element: add the first index to the last one.
            last_type, last = path.indices[-1]
            merged = self._sum(indent, last_type, last, first_type, first, dbg)
            chain = path.indices[:-1] + [(merged[0], merged[1])] + indices[1:]
            pre = merged[2]
        elif str(source) == str(pointee) and len(path.indices) == 1:
            if first != "0":
                root = path.root_type
                fail("pointer arithmetic past a variable cannot be expressed in Vulkan's logical "
                     f"addressing (indexing a {root} as an array)", self.locator.point(line))
            chain = path.indices + indices[1:]
            pre = []
        elif pointee.kind == "array" and str(source) == str(pointee.elem):
            # array decay: base points at the array, the GEP steps over its elements.
            chain = path.indices + indices
            pre = []
        else:
            fail(f"an access to a {pointee} through a {source} pointer (a reinterpreting cast) "
                 "cannot be expressed in Vulkan's logical addressing", self.locator.point(line))
        self.paths[result] = _Path(path.root, path.root_type, chain)
        operands = ", ".join(f"{t} {v}" for t, v in chain)
        pointer, moved = self.real_space(path, ptr_type.addrspace)
        if moved or self.root_spaces.get(path.root) == PRIVATE_SPACE:
            # its uses still name the address space the source had (__constant)
            self.retyped[result] = self.root_spaces[path.root]
        return pre + [f"{indent}{result} = getelementptr inbounds {path.root_type}, {pointer} "
                      f"{path.root}, {operands}{dbg}"]

    def byte_offset(self, line, indent, path, pointee, offset_type, offset, dbg):
        """(instructions, access chain) for `offset` bytes from where `path` points: into an
        array element (a scalar or vector), or into the arrays of a variable, each level's
        index the quotient by its element size (a shift for powers of two)."""
        pre = []
        if offset_type != "i64":
            widened = self.fresh()
            pre.append(f"{indent}{widened} = sext {offset_type} {offset} to i64{dbg}")
            offset = widened
        if len(path.indices) > 1:
            if pointee.kind in ("array", "struct"):
                fail(f"a byte offset into a {pointee} element cannot be expressed in Vulkan's logical "
                     "addressing", self.locator.point(line))
            index = self._divide(pre, indent, offset, self.layout.size(pointee), dbg)
            last_type, last = path.indices[-1]
            merged = self._sum(indent, last_type, last, "i64", index, dbg)
            return pre + merged[2], path.indices[:-1] + [(merged[0], merged[1])]
        chain, ty = list(path.indices), pointee
        while ty.kind == "array":
            size = self.layout.size(ty.elem)
            chain.append(("i64", self._divide(pre, indent, offset, size, dbg)))
            if ty.elem.kind in ("array", "struct"):
                rest = self.fresh()
                pre.append(f"{indent}{rest} = urem i64 {offset}, {size}{dbg}")
                offset = rest
            ty = ty.elem
        if ty.kind == "struct" or len(chain) == 1:
            fail(f"a byte offset into a {pointee} cannot be expressed in Vulkan's logical addressing",
                 self.locator.point(line))
        return pre, chain

    def _divide(self, pre, indent, offset, size, dbg):
        if re.fullmatch(r"-?\d+", offset):
            return str(int(offset) // size)
        quotient = self.fresh()
        if size & (size - 1) == 0:
            pre.append(f"{indent}{quotient} = ashr exact i64 {offset}, {size.bit_length() - 1}{dbg}")
        else:
            pre.append(f"{indent}{quotient} = sdiv exact i64 {offset}, {size}{dbg}")
        return quotient

    def _sum(self, indent, at, a, bt, b, dbg):
        if b == "0":
            return at, a, []
        if re.fullmatch(r"-?\d+", a) and re.fullmatch(r"-?\d+", b):
            return "i64", str(int(a) + int(b)), []
        lines = []
        if at != "i64":
            widened = self.fresh()
            lines.append(f"{indent}{widened} = sext {at} {a} to i64{dbg}")
            a = widened
        if bt != "i64":
            widened = self.fresh()
            lines.append(f"{indent}{widened} = sext {bt} {b} to i64{dbg}")
            b = widened
        summed = self.fresh()
        lines.append(f"{indent}{summed} = add i64 {a}, {b}{dbg}")
        return "i64", summed, lines

    def path_of(self, value):
        if value in self.paths:
            return self.paths[value]
        if value in self.roots:
            return _Path(value, self._leading_type(self.roots[value]), [("i64", "0")])
        return None

    def pointee(self, path):
        ty = path.root_type
        for _t, value in path.indices[1:]:
            ty = ty.fields[int(value)] if ty.kind == "struct" else ty.elem
        return ty


def _tz(value):
    """Trailing zero bits of an integer constant (64 for 0)."""
    value = int(value)
    return 64 if value == 0 else (value & -value).bit_length() - 1


_INT_DEF = re.compile(r"^\s*(%[-\w.$]+) = (add|sub|mul|shl|or|and|xor|zext|sext|trunc|select|phi)\b(.*)$")


def _operand_tz(token, facts):
    token = token.strip()
    if re.fullmatch(r"-?\d+", token):
        return _tz(token)
    return facts.get(token, 0)


def integer_trailing_zeros(text, define_line):
    """{value: known trailing zero bits} of the integer values of one function (the one whose
    header is `define_line`): constants, add/sub/or (the least), and (the most), mul (the
    sum), shl by a constant, extensions, trunc, select and phi (the least over their inputs,
    a greatest fixed point over loops: each rule keeps the property true of every value)."""
    start = text.index(define_line)
    end = text.find("\n}", start)
    defs = []
    for line in text[start:end].split("\n"):
        m = _INT_DEF.match(_DBG_TAIL.sub("", line))
        if m:
            defs.append((m.group(1), m.group(2), m.group(3)))
    facts = {name: 64 for name, _op, _rest in defs}      # optimistic start: greatest fixed point
    for _round in range(16):
        changed = False
        for name, op, rest in defs:
            value = _integer_rule(op, rest, facts)
            if value is not None and facts.get(name) != value:
                facts[name] = value
                changed = True
        if not changed:
            break
    return facts


def _integer_rule(op, rest, facts):
    rest = re.sub(r"^(?:\s*(?:nuw|nsw|disjoint|exact|nneg))*", "", rest)
    if op == "phi":
        incoming = re.findall(r"\[\s*([^,\]]+),", rest)
        return min([_operand_tz(v, facts) for v in incoming] or [0])
    if op in ("zext", "sext", "trunc"):
        m = re.match(r"\s*i(\d+) (\S+) to i(\d+)", rest)
        if not m:
            return 0
        return min(_operand_tz(m.group(2), facts), int(m.group(3)))
    if op == "select":
        m = re.match(r"\s*i1 \S+, i\d+ (\S+), i\d+ (\S+)", rest)
        return min(_operand_tz(m.group(1), facts), _operand_tz(m.group(2), facts)) if m else 0
    m = re.match(r"\s*i(\d+) (\S+), (\S+)", rest)
    if not m:
        return 0
    bits, a, b = int(m.group(1)), _operand_tz(m.group(2), facts), _operand_tz(m.group(3), facts)
    if op in ("add", "sub", "or", "xor"):
        return min(a, b, bits)
    if op == "and":
        return min(max(a, b), bits)
    if op == "mul":
        return min(a + b, bits)
    if op == "shl":
        shift = m.group(3)
        return min(a + int(shift), bits) if re.fullmatch(r"\d+", shift) else min(a, bits)
    return 0


def _dbg_of(line):
    m = re.search(r", !dbg !\d+", line)
    return m.group(0) if m else ""


def _same_type(ty, text):
    return text is not None and re.sub(r"\s", "", str(ty)) == re.sub(r"\s", "", text)


def _constant_gep_start(line):
    """Index of a constant-expression `getelementptr [flags] (` in an instruction line, or -1."""
    m = re.search(r"getelementptr (?:(?:inbounds|nuw|nusw|inrange\(\S+\)) )*\(", line)
    return m.start() if m else -1


def _matching(text, open_at):
    depth = 0
    for i in range(open_at, len(text)):
        if text[i] == "(":
            depth += 1
        elif text[i] == ")":
            depth -= 1
            if depth == 0:
                return i
    raise VulkanTargetError("unbalanced parentheses in IR: " + text[:80])


def _byte_path(root, offset, wanted, layout):
    """Typed indices [(type, value)] reaching `offset` bytes into a `root` variable: down to the
    `wanted` type (the loaded or stored one) or else the first non-aggregate; None if the offset
    is not the start of such an element."""
    path, ty = [("i64", "0")], root
    while True:
        if offset == 0 and (_same_type(ty, wanted) or (wanted is None and ty.kind not in ("array", "struct"))):
            return path
        if ty.kind == "array":
            size = layout.size(ty.elem)
            index, offset = divmod(offset, size)       # no bound: a __local argument's array is [1 x T] here
            path.append(("i64", str(index)))
            ty = ty.elem
        elif ty.kind == "struct":
            offsets, _ = layout.struct_layout(ty)
            field = max(i for i, o in enumerate(offsets) if o <= offset)
            path.append(("i32", str(field)))
            offset -= offsets[field]
            ty = ty.fields[field]
        else:
            return path if offset == 0 else None


def after_inlining(text, structs):
    """Pass 2 (see the module docstring): (IR text, [function passed as operand, by token])."""
    rewriter = _Rewriter(text, structs, Locator(text))
    return rewriter.rewrite(text), rewriter.tokens


def kernel_names(text):
    return [llvm_unquote(m.group(1)) for m in DEFINE_RE.finditer(text) if " spir_kernel " in m.group(0)]
