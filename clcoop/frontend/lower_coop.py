"""Lowering of cooperative-matrix operations to calls of the callees coop_names builds
(docs/ir-conventions.md "Callee names")."""
from llvmlite import ir

from clcoop import coop_names
from clcoop.frontend import fp8
from clcoop.frontend import types as T
from clcoop.frontend.llvm_types import I32, coop_mangled_pointer, is_float_type, ptr_type

# What CoopLowering uses of the Lowerer (lower.Lowerer), and nothing else (test_lower_parts
# checks it): the builder, callee declarations, types and the size_t code.
LOWERER_USES = ("builder", "builtin_function", "call_target", "size_code", "value_type")


class CoopLowering:
    """The Lowerer's part for cooperative-matrix expressions (its ex_ methods, the element
    address of m[i], and the calls tensor operations share: lower_tensor.py): lw is the
    Lowerer it emits through (LOWERER_USES), expressions the ExpressionLowering (operands'
    rvalue and address, ARITH_NAMES)."""

    def __init__(self, lw, expressions):
        self.lw, self.expressions = lw, expressions

    # ------------------------------------------------------------ cooperative matrices
    def coop_call(self, operation, matrices, other_codes, ret, args, name):
        """Call the callee coop_names names for `operation` (docs/ir-conventions.md)."""
        callee = coop_names.operation_callee(operation, matrices, other_codes)
        return self.call_coop_callee(callee, ret, args, name)

    def call_coop_callee(self, callee, ret, args, name):
        irf = self.lw.builtin_function(callee, ret, [a.type for a in args], convergent=True)
        return self.lw.builder.call(irf, args, name=name, cconv="spir_func")

    def ex_CoopLoad(self, e):
        ptr = self.expressions.rvalue(e.pointer)
        stride = self.expressions.rvalue(e.stride)
        return self.coop_call("load", [e.type],
                              [coop_mangled_pointer(e.pointer.type), "i", self.lw.size_code],
                              self.lw.value_type(e.type), [ptr, ir.Constant(I32, e.layout), stride], "call")

    def ex_CoopStore(self, e):
        ptr = self.expressions.rvalue(e.pointer)
        m = self.expressions.rvalue(e.matrix)
        stride = self.expressions.rvalue(e.stride)
        self.coop_call("store", [e.matrix.type],
                       [coop_mangled_pointer(e.pointer.type), "i", self.lw.size_code],
                       ir.VoidType(), [ptr, m, ir.Constant(I32, e.layout), stride], "")
        return None

    def ex_CoopMulAdd(self, e):
        a, bm, c = self.expressions.rvalue(e.a), self.expressions.rvalue(e.b), self.expressions.rvalue(e.c)
        return self.coop_call("mul_add", [e.type, e.a.type, e.b.type, e.c.type],
                              ["i"], self.lw.value_type(e.type), [a, bm, c, ir.Constant(I32, e.operands)], "call")

    def ex_CoopLength(self, e):
        m = self.expressions.rvalue(e.matrix)
        return self.coop_call("length", [e.matrix.type], [], I32, [m], "call")

    def ex_CoopInit(self, e):
        s = self.expressions.rvalue(e.scalar)
        return self.coop_call("construct", [e.type], [e.type.elem.itanium()],
                              self.lw.value_type(e.type), [s], "call")

    def ex_CoopBinary(self, e):
        a, bm = self.expressions.rvalue(e.a), self.expressions.rvalue(e.b)
        return self.coop_call(e.op, [e.type, e.a.type, e.b.type], [], self.lw.value_type(e.type), [a, bm],
                              self.expressions.ARITH_NAMES[e.op])

    def ex_CoopNeg(self, e):
        a = self.expressions.rvalue(e.a)
        return self.coop_call("neg", [e.type, e.a.type], [],
                              self.lw.value_type(e.type), [a], "fneg" if is_float_type(e.type.elem) else "sub")

    def ex_CoopScalarMul(self, e):
        m = self.expressions.rvalue(e.matrix)
        s = self.expressions.rvalue(e.scalar)
        return self.coop_call("scalar_mul", [e.type, e.matrix.type],
                              [e.type.elem.itanium()], self.lw.value_type(e.type), [m, s], "mul")

    def ex_CoopConvert(self, e):
        m = self.expressions.rvalue(e.matrix)
        src, dst = e.matrix.type.elem, e.type.elem
        # fp8 scalars are i8 like char, but their matrix components differ (clcoop/float8.py).
        if src.llvm_name == dst.llvm_name and (src == dst or not fp8.involves_fp8(src, dst)):
            if e.type.use == e.matrix.type.use:
                return m    # same SPIR-V type: no conversion (ir-conventions.md)
            # Only the use changes (int <-> uint of one width too: EXT ConvertUseEXT).
            return self.coop_call("convert_use", [e.type, e.matrix.type], [], self.lw.value_type(e.type),
                                  [m], "conv")
        callee = coop_names.conversion_callee(src.kind in ("float", "fp8"), src.signed,
                                              dst.kind in ("float", "fp8"), dst.signed,
                                              [e.type, e.matrix.type])
        return self.call_coop_callee(callee, self.lw.value_type(e.type), [m], "conv")

    def ex_CoopTranspose(self, e):
        m = self.expressions.rvalue(e.matrix)
        return self.coop_call("transpose", [e.type, e.matrix.type], [], self.lw.value_type(e.type),
                              [m], "transpose")

    def coop_element_address(self, e):
        ptr = self.expressions.address(e.matrix)
        index = self.expressions.rvalue(e.index)
        mt = e.matrix.type
        return self.coop_call("access_chain", [mt], ["P" + "v", self.lw.size_code], ptr_type(0),
                              [ptr, index], "arrayidx")

    # ------------------------------------------------------------ function operands (coop_function_ops.py)
    def function_operand(self, ref):
        """(`ptr @f`, its parameter code) for a tast.FunctionRef: the function is declared
        or defined by its own lowering; the call only refers to it (docs/ir-conventions.md)."""
        irf = self.lw.call_target(ref.function)
        ftype = ref.function.type
        code = coop_names.function_operand_code(T.mangle_type(ftype.ret), [T.mangle_type(p) for p in ftype.params])
        return ir.FormattedConstant(ptr_type(0), irf.get_reference()), code

    def ex_CoopReduce(self, e):
        m = self.expressions.rvalue(e.matrix)
        combine, code = self.function_operand(e.combine)
        return self.coop_call("reduce", [e.type, e.matrix.type], ["i", code], self.lw.value_type(e.type),
                              [m, ir.Constant(I32, e.mode), combine], "call")

    def ex_CoopPerElement(self, e):
        m = self.expressions.rvalue(e.matrix)
        function, code = self.function_operand(e.function)
        extras = [self.expressions.rvalue(x) for x in e.extras]
        matrices = [e.type, e.matrix.type] + [x.type for x in e.extras if x.type.is_coop_matrix]
        codes = [code] + [T.mangle_type(x.type) for x in e.extras if not x.type.is_coop_matrix]
        return self.coop_call("per_element", matrices, codes, self.lw.value_type(e.type), [m, function] + extras,
                              "call")

    def ex_CoopGetCoord(self, e):
        m = self.expressions.rvalue(e.matrix)
        index = self.expressions.rvalue(e.index)
        return self.coop_call("get_coordinate", [e.matrix.type], ["j"], self.lw.value_type(e.type), [m, index], "coord")
