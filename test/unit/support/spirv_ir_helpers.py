"""Hand-written IR following docs/ir-conventions.md, for the SPIR-V tests (shared by test_spirv_*.py)."""

LLVM_TYPE = {"c": "i8", "h": "i8", "s": "i16", "t": "i16", "i": "i32", "j": "i32", "l": "i64", "m": "i64",
             "Dh": "half", "f": "float", "d": "double"}
DATALAYOUT = {
    "spir64-unknown-unknown": "e-i64:64-v16:16-v24:32-v32:32-v48:64-v96:128-v192:256-v256:256-v512:512-v1024:1024-n8:16:32:64-G1",
    "spir-unknown-unknown": "e-p:32:32-i64:64-v16:16-v24:32-v32:32-v48:64-v96:128-v192:256-v256:256-v512:512-v1024:1024-G1",
}


def matrix_type(code, use=2, rows=8, cols=16):
    return f'target("spirv.CooperativeMatrixKHR", {LLVM_TYPE[code]}, 3, {rows}, {cols}, {use})'


def template_arg(code, use=2, rows=8, cols=16):
    return f"{code}Li3ELi{rows}ELi{cols}ELi{use}E"


class IRBuilder:
    """Collects declarations and one kernel body; `text()` gives the module."""

    def __init__(self, triple="spir64-unknown-unknown"):
        self.triple = triple
        self.size_t, self.size_code = ("i64", "m") if triple.startswith("spir64") else ("i32", "j")
        self.declarations = {}
        self.body = []
        self.counter = 0

    def call(self, ret, name, args):
        """args: list of (llvm type, value); returns the result name (None for void)."""
        params = ", ".join(t for t, _ in args)
        self.declarations[name] = f"declare spir_func {ret} @{name}({params})"
        operands = ", ".join(f"{t} {v}" for t, v in args)
        if ret == "void":
            self.body.append(f"  call spir_func void @{name}({operands})")
            return None
        self.counter += 1
        result = f"%v{self.counter}"
        self.body.append(f"  {result} = call spir_func {ret} @{name}({operands})")
        return result

    def load(self, code, pointer, layout=0, stride=16, use=2, rows=8, cols=16):
        name = (f"_Z32__spirv_CooperativeMatrixLoadKHRI{template_arg(code, use, rows, cols)}"
                f"EvPU3AS1{code}i{self.size_code}")
        return self.call(matrix_type(code, use, rows, cols), name,
                         [("ptr addrspace(1)", pointer), ("i32", str(layout)), (self.size_t, str(stride))])

    def store(self, code, pointer, value, layout=0, stride=16):
        name = f"_Z33__spirv_CooperativeMatrixStoreKHRI{template_arg(code)}EvPU3AS1{code}i{self.size_code}"
        self.call("void", name, [("ptr addrspace(1)", pointer), (matrix_type(code), value),
                                 ("i32", str(layout)), (self.size_t, str(stride))])

    def text(self, params):
        lines = [f'target datalayout = "{DATALAYOUT[self.triple]}"', f'target triple = "{self.triple}"', ""]
        lines += sorted(self.declarations.values())
        lines += ["", f"define spir_kernel void @k({params}) {{", "entry:"] + self.body + ["  ret void", "}"]
        return "\n".join(lines) + "\n"


BINARY = {"add": "Add", "sub": "Sub", "mul": "Mul", "div": "Div"}


def elementwise_kernel(code, operation, triple="spir64-unknown-unknown"):
    """A kernel applying one operator (add/sub/mul/div/neg/scalar_mul) to loaded matrices of `code`."""
    builder = IRBuilder(triple)
    m = matrix_type(code)
    arg = template_arg(code)
    x = builder.load(code, "%X")
    if operation in BINARY:
        y = builder.load(code, "%X", layout=1)
        name = f"_Z34__spirv_CooperativeMatrixBinary{BINARY[operation]}I{arg * 3}Ev"
        result = builder.call(m, name, [(m, x), (m, y)])
    elif operation == "neg":
        result = builder.call(m, f"_Z34__spirv_CooperativeMatrixScalarNegI{arg * 2}Ev", [(m, x)])
    elif operation == "scalar_mul":
        result = builder.call(m, f"_Z34__spirv_CooperativeMatrixScalarMulI{arg * 2}Ev{code}",
                              [(m, x), (LLVM_TYPE[code], "%s")])
    else:
        raise ValueError(operation)
    builder.store(code, "%X", result)
    return builder.text(f"ptr addrspace(1) %X, {LLVM_TYPE[code]} %s")


def access_kernel(code, triple="spir64-unknown-unknown"):
    """m[i] = m[i] * m[j] through __spirv_AccessChain on the matrix's private slot (read and write)."""
    builder = IRBuilder(triple)
    m = matrix_type(code)
    llvm = LLVM_TYPE[code]
    x = builder.load(code, "%X")
    builder.body.append(f"  %m.addr = alloca {m}")
    builder.body.append(f"  store {m} {x}, ptr %m.addr")
    chain = f"_Z19__spirv_AccessChainI{template_arg(code)}EvP{code}{builder.size_code}"
    p = builder.call("ptr", chain, [("ptr", "%m.addr"), (builder.size_t, "%i")])
    q = builder.call("ptr", chain, [("ptr", "%m.addr"), (builder.size_t, "%j")])
    mul = "fmul" if llvm in ("half", "float", "double") else "mul"
    builder.body += [f"  %a = load {llvm}, ptr {p}", f"  %b = load {llvm}, ptr {q}",
                     f"  %c = {mul} {llvm} %a, %b", f"  store {llvm} %c, ptr {p}",
                     f"  %r = load {m}, ptr %m.addr"]
    builder.store(code, "%X", "%r")
    return builder.text(f"ptr addrspace(1) %X, {builder.size_t} %i, {builder.size_t} %j")
