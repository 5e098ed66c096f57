"""Lowering of cooperative-matrix operations to calls of the callees coop_names builds
(docs/ir-conventions.md "Callee names")."""
from llvmlite import ir

from clcoop import coop_names
from clcoop.frontend import fp8
from clcoop.frontend import types as T
from clcoop.frontend.llvm_types import I32, coop_mangled_pointer, is_float_type, ptr_type
from clcoop.frontend.lower_tensor import TensorLowering


class CoopLowering(TensorLowering):
    """Lowerer methods for cooperative-matrix expressions (tensor layouts, views and
    tensor loads/stores: the TensorLowering base, lower_tensor.py)."""

    # ------------------------------------------------------------ cooperative matrices
    def coop_call(self, operation, matrices, other_codes, ret, args, name):
        """Call the callee coop_names names for `operation` (docs/ir-conventions.md)."""
        callee = coop_names.operation_callee(operation, matrices, other_codes)
        return self.call_coop_callee(callee, ret, args, name)

    def call_coop_callee(self, callee, ret, args, name):
        irf = self.builtin_function(callee, ret, [a.type for a in args], convergent=True)
        return self.builder.call(irf, args, name=name, cconv="spir_func")

    def ex_CoopLoad(self, e):
        ptr = self.rvalue(e.pointer)
        stride = self.rvalue(e.stride)
        return self.coop_call("load", [e.type],
                              [coop_mangled_pointer(e.pointer.type), "i", self.size_code],
                              self.value_type(e.type), [ptr, ir.Constant(I32, e.layout), stride], "call")

    def ex_CoopStore(self, e):
        ptr = self.rvalue(e.pointer)
        m = self.rvalue(e.matrix)
        stride = self.rvalue(e.stride)
        self.coop_call("store", [e.matrix.type],
                       [coop_mangled_pointer(e.pointer.type), "i", self.size_code],
                       ir.VoidType(), [ptr, m, ir.Constant(I32, e.layout), stride], "")
        return None

    def ex_CoopMulAdd(self, e):
        a, bm, c = self.rvalue(e.a), self.rvalue(e.b), self.rvalue(e.c)
        return self.coop_call("mul_add", [e.type, e.a.type, e.b.type, e.c.type],
                              ["i"], self.value_type(e.type), [a, bm, c, ir.Constant(I32, e.operands)], "call")

    def ex_CoopLength(self, e):
        m = self.rvalue(e.matrix)
        return self.coop_call("length", [e.matrix.type], [], I32, [m], "call")

    def ex_CoopInit(self, e):
        s = self.rvalue(e.scalar)
        return self.coop_call("construct", [e.type], [e.type.elem.itanium()],
                              self.value_type(e.type), [s], "call")

    def ex_CoopBinary(self, e):
        a, bm = self.rvalue(e.a), self.rvalue(e.b)
        return self.coop_call(e.op, [e.type, e.a.type, e.b.type], [], self.value_type(e.type), [a, bm],
                              self.ARITH_NAMES[e.op])

    def ex_CoopNeg(self, e):
        a = self.rvalue(e.a)
        return self.coop_call("neg", [e.type, e.a.type], [],
                              self.value_type(e.type), [a], "fneg" if is_float_type(e.type.elem) else "sub")

    def ex_CoopScalarMul(self, e):
        m = self.rvalue(e.matrix)
        s = self.rvalue(e.scalar)
        return self.coop_call("scalar_mul", [e.type, e.matrix.type],
                              [e.type.elem.itanium()], self.value_type(e.type), [m, s], "mul")

    def ex_CoopConvert(self, e):
        m = self.rvalue(e.matrix)
        src, dst = e.matrix.type.elem, e.type.elem
        # fp8 scalars are i8 like char, but their matrix components differ (clcoop/float8.py).
        if src.llvm_name == dst.llvm_name and (src == dst or not fp8.involves_fp8(src, dst)):
            if e.type.use == e.matrix.type.use:
                return m    # same SPIR-V type: no conversion (ir-conventions.md)
            # Only the use changes (int <-> uint of one width too: EXT ConvertUseEXT).
            return self.coop_call("convert_use", [e.type, e.matrix.type], [], self.value_type(e.type),
                                  [m], "conv")
        callee = coop_names.conversion_callee(src.kind in ("float", "fp8"), src.signed,
                                              dst.kind in ("float", "fp8"), dst.signed,
                                              [e.type, e.matrix.type])
        return self.call_coop_callee(callee, self.value_type(e.type), [m], "conv")

    def ex_CoopTranspose(self, e):
        m = self.rvalue(e.matrix)
        return self.coop_call("transpose", [e.type, e.matrix.type], [], self.value_type(e.type),
                              [m], "transpose")

    def coop_element_address(self, e):
        ptr = self.address(e.matrix)
        index = self.rvalue(e.index)
        mt = e.matrix.type
        return self.coop_call("access_chain", [mt], ["P" + "v", self.size_code], ptr_type(0),
                              [ptr, index], "arrayidx")

    # ------------------------------------------------------------ function operands (coop_function_ops.py)
    def function_operand(self, ref):
        """(`ptr @f`, its parameter code) for a tast.FunctionRef: the function is declared
        or defined by its own lowering; the call only refers to it (docs/ir-conventions.md)."""
        irf = self.call_target(ref.function)
        ftype = ref.function.type
        code = coop_names.function_operand_code(T.mangle_type(ftype.ret), [T.mangle_type(p) for p in ftype.params])
        return ir.FormattedConstant(ptr_type(0), irf.get_reference()), code

    def ex_CoopReduce(self, e):
        m = self.rvalue(e.matrix)
        combine, code = self.function_operand(e.combine)
        return self.coop_call("reduce", [e.type, e.matrix.type], ["i", code], self.value_type(e.type),
                              [m, ir.Constant(I32, e.mode), combine], "call")

    def ex_CoopPerElement(self, e):
        m = self.rvalue(e.matrix)
        function, code = self.function_operand(e.function)
        extras = [self.rvalue(x) for x in e.extras]
        matrices = [e.type, e.matrix.type] + [x.type for x in e.extras if x.type.is_coop_matrix]
        codes = [code] + [T.mangle_type(x.type) for x in e.extras if not x.type.is_coop_matrix]
        return self.coop_call("per_element", matrices, codes, self.value_type(e.type), [m, function] + extras, "call")

    def ex_CoopGetCoord(self, e):
        m = self.rvalue(e.matrix)
        index = self.rvalue(e.index)
        return self.coop_call("get_coordinate", [e.matrix.type], ["j"], self.value_type(e.type), [m, index], "coord")
