"""Lowering of tensor layouts, views and tensor loads/stores (docs/ir-conventions.md
"Tensor layouts and views"): the types are clcoop.tensor_spec's `target("spirv.Type", ...)`
encoding, the operations calls of the callees coop_names.tensor_callee names, with the
operands of the SPIR-V instructions in order."""
from llvmlite import ir

from clcoop import coop_names
from clcoop.frontend.llvm_types import I32, coop_mangled_pointer, ptr_type

# SPV_NV_cooperative_matrix2 "Tensor Addressing Operands".
ADDRESSING_TENSOR_VIEW = 0x1
ADDRESSING_DECODE_FUNC = 0x2
MEMORY_OPERAND_NONE = 0


# What TensorLowering uses of the Lowerer (lower.Lowerer), and nothing else
# (test_lower_parts checks it): the module (decode wrappers), callee declarations, types
# and sizes.
LOWERER_USES = ("call_target", "declared", "module", "size_of", "value_type")


class TensorLowering:
    """The Lowerer's part for tensor layout/view operations and tensor loads/stores (its ex_
    methods): lw is the Lowerer it emits through (LOWERER_USES), expressions the
    ExpressionLowering (operands' rvalue), coop the CoopLowering (coop_call,
    call_coop_callee, function_operand)."""

    def __init__(self, lw, expressions, coop):
        self.lw, self.expressions, self.coop = lw, expressions, coop

    def ex_TensorOp(self, e):
        ret = self.lw.value_type(e.type)
        args, codes = [], []
        if e.operand is None:
            codes.append(e.type.spec.mangled())     # create: the result type names the callee
        else:
            args.append(self.expressions.rvalue(e.operand))
            codes.append(e.operand.type.spec.mangled())
        for value in e.values:
            args.append(self.expressions.rvalue(value))
            codes.append(value.type.itanium())
        callee = coop_names.tensor_callee(e.op, [], codes)
        return self.coop.call_coop_callee(callee, ret, args, "tensor")

    def tensor_addressing(self, e, args, codes):
        """Memory operand, Tensor Addressing Operands and their ids (view, decode)."""
        mask = 0
        extra, extra_codes = [], []
        if e.view is not None:
            mask |= ADDRESSING_TENSOR_VIEW
            extra.append(self.expressions.rvalue(e.view))
            extra_codes.append(e.view.type.spec.mangled())
        decode = getattr(e, "decode", None)
        if decode is not None:
            mask |= ADDRESSING_DECODE_FUNC
            _function, code = self.coop.function_operand(decode)
            extra.append(ir.FormattedConstant(ptr_type(0), self.decode_wrapper(decode, e.layout.type.spec.dims)
                                              .get_reference()))
            # The interpreter needs sizeof(block) (the decode's pointer is index * sizeof):
            # a vendor code after the function's, e.g. u15TensorBlockNV_18.
            block = f"TensorBlockNV_{self.lw.size_of(decode.function.type.params[0].pointee)}"
            extra_codes += [code, f"u{len(block)}{block}"]
        args += [ir.Constant(I32, MEMORY_OPERAND_NONE), ir.Constant(I32, mask)] + extra
        codes += ["i", "i"] + extra_codes

    def decode_wrapper(self, ref, dims):
        """`T <f>.decode(S *block, [D x i32] block_coord, [D x i32] coord_in_block)`, the
        decode operand: SPV_NV_cooperative_matrix2 passes the coordinates as arrays of D
        32-bit integers by value, where OpenCL C's `const uint block_coord[D]` parameter is
        a pointer; the wrapper stores them in private arrays and calls the user's function."""
        user = self.lw.call_target(ref.function)
        name = f"{user.name}.decode"
        wrapper = self.lw.declared.get(name)
        if wrapper is not None:
            return wrapper
        array = ir.ArrayType(I32, dims)
        fty = ir.FunctionType(user.function_type.return_type, [user.function_type.args[0], array, array])
        wrapper = ir.Function(self.lw.module, fty, name)
        wrapper.calling_convention = "spir_func"
        wrapper.linkage = "internal"
        wrapper.attributes.add("nounwind")
        self.lw.declared[name] = wrapper
        builder = ir.IRBuilder(wrapper.append_basic_block("entry"))
        block, *coordinates = wrapper.args
        for arg, arg_name in zip(wrapper.args, ("block", "block_coord", "coord_in_block")):
            arg.name = arg_name
        pointers = []
        for value, param_type in zip(coordinates, user.function_type.args[1:]):
            slot = builder.alloca(array, name=value.name + ".addr")
            builder.store(value, slot)
            first = builder.gep(slot, [ir.Constant(I32, 0), ir.Constant(I32, 0)], inbounds=True)
            if param_type.addrspace != 0:
                first = builder.addrspacecast(first, param_type)
            pointers.append(first)
        result = builder.call(user, [block] + pointers, cconv="spir_func")
        builder.ret(result)
        return wrapper

    def zero_matrix(self, mtype):
        """The Object operand of a load without a keep matrix: a splat of 0 (what
        coop_mat_init(0) emits), not `zeroinitializer`, of which llc-22 -O2 writes an
        OpConstantNull with extra operands that spirv-val rejects."""
        elem = self.lw.value_type(mtype.elem)
        zero = ir.Constant(elem, 0.0 if mtype.elem.is_float else 0)
        return self.coop.coop_call("construct", [mtype], [mtype.elem.itanium()], self.lw.value_type(mtype), [zero],
                                   "zero")

    def ex_CoopLoadTensor(self, e):
        pointer = self.expressions.rvalue(e.pointer)
        keep = self.expressions.rvalue(e.keep) if e.keep is not None else self.zero_matrix(e.type)
        layout = self.expressions.rvalue(e.layout)
        args = [pointer, keep, layout]
        codes = [coop_mangled_pointer(e.pointer.type), e.layout.type.spec.mangled()]
        self.tensor_addressing(e, args, codes)
        callee = coop_names.tensor_callee("coop_mat_load_tensor", [e.type, e.type], codes)
        return self.coop.call_coop_callee(callee, self.lw.value_type(e.type), args, "call")

    def ex_CoopStoreTensor(self, e):
        pointer = self.expressions.rvalue(e.pointer)
        matrix = self.expressions.rvalue(e.matrix)
        layout = self.expressions.rvalue(e.layout)
        args = [pointer, matrix, layout]
        codes = [coop_mangled_pointer(e.pointer.type), e.layout.type.spec.mangled()]
        self.tensor_addressing(e, args, codes)
        callee = coop_names.tensor_callee("coop_mat_store_tensor", [e.matrix.type], codes)
        self.coop.call_coop_callee(callee, ir.VoidType(), args, "")
        return None

