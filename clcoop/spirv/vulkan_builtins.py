"""OpenCL C built-in calls for the Vulkan target (docs/vulkan.md "What maps to what").

Work-item functions become small always-inline definitions over llc-22's `llvm.spv.*`
intrinsics (which give the Vulkan built-in variables), with the launch's global offset from the
Private copy the entry makes of the push constants. Barriers, fences, sub-group collectives and
math become imported placeholders `clcoop.vk.<what>` that clcoop.spirv.vulkan_module lowers
after llc, so that scopes, memory semantics and GLSL.std.450 instructions are exactly ours (llc
would use OpenCL.std and SequentiallyConsistent, which Vulkan rejects).
"""
import re
import struct

from clcoop import coop_names, float8
from clcoop.coopmat_spec import Use
from clcoop.ir.demangle import demangle
from clcoop.ir.text import split_top_level
from clcoop.spirv import vulkan_math
from clcoop.spirv.vulkan_ir import GLOBAL_OFFSET, fail

PLACEHOLDER = "clcoop.vk."

# Work-item functions: per dimension, the i32 value (lines using %d0, %d1, %d2 inputs).
_DIMENSIONS = {
    "get_local_id": ("call i32 @llvm.spv.thread.id.in.group.i32(i32 {k})", 0),
    "get_group_id": ("call i32 @llvm.spv.group.id.i32(i32 {k})", 0),
    "get_num_groups": ("call i32 @llvm.spv.num.workgroups.i32(i32 {k})", 1),
    "get_local_size": ("call i32 @llvm.spv.workgroup.size.i32(i32 {k})", 1),
    "get_enqueued_local_size": ("call i32 @llvm.spv.workgroup.size.i32(i32 {k})", 1),
}
_INTRINSIC_DECLS = [
    "declare i32 @llvm.spv.thread.id.i32(i32)",
    "declare i32 @llvm.spv.thread.id.in.group.i32(i32)",
    "declare i32 @llvm.spv.group.id.i32(i32)",
    "declare i32 @llvm.spv.num.workgroups.i32(i32)",
    "declare i32 @llvm.spv.workgroup.size.i32(i32)",
    "declare i32 @llvm.spv.flattened.thread.id.in.group()",
    "declare i32 @llvm.spv.subgroup.size()",
    "declare i32 @llvm.spv.num.subgroups()",
    "declare i32 @llvm.spv.subgroup.id()",
    "declare i32 @llvm.spv.subgroup.local.invocation.id()",
]
_SCALAR_QUERIES = {
    "get_sub_group_size": "call i32 @llvm.spv.subgroup.size()",
    # Vulkan's SubgroupSize is the size of every full subgroup (VK_EXT_subgroup_size_control
    # requires full subgroups), which is the maximum.
    "get_max_sub_group_size": "call i32 @llvm.spv.subgroup.size()",
    "get_num_sub_groups": "call i32 @llvm.spv.num.subgroups()",
    "get_enqueued_num_sub_groups": "call i32 @llvm.spv.num.subgroups()",
    "get_sub_group_id": "call i32 @llvm.spv.subgroup.id()",
    "get_sub_group_local_id": "call i32 @llvm.spv.subgroup.local.invocation.id()",
    "get_local_linear_id": "call i32 @llvm.spv.flattened.thread.id.in.group()",
}

# GLSL.std.450 instruction numbers (GLSL.std.450 specification, table of instructions).
GLSL = {"Round": 1, "RoundEven": 2, "Trunc": 3, "FAbs": 4, "SAbs": 5, "FSign": 6, "Floor": 8,
        "Ceil": 9, "Fract": 10, "Radians": 11, "Degrees": 12, "Sin": 13, "Cos": 14, "Tan": 15,
        "Asin": 16, "Acos": 17, "Atan": 18, "Sinh": 19, "Cosh": 20, "Tanh": 21, "Asinh": 22,
        "Acosh": 23, "Atanh": 24, "Atan2": 25, "Pow": 26, "Exp": 27, "Log": 28, "Exp2": 29,
        "Log2": 30, "Sqrt": 31, "InverseSqrt": 32, "UMin": 38, "SMin": 39, "UMax": 41, "SMax": 42,
        "UClamp": 44, "SClamp": 45, "FMix": 46, "Step": 48, "SmoothStep": 49, "Fma": 50,
        "Length": 66, "Distance": 67, "Cross": 68, "Normalize": 69, "NMin": 79, "NMax": 80,
        "NClamp": 81}
# OpenCL C math built-in -> GLSL.std.450 instruction, for half and float (docs/vulkan.md lists
# the precision of each against OpenCL C's; GLSL's transcendental functions take 16- and
# 32-bit floats only).
FLOAT_MATH = {
    "fabs": "FAbs", "floor": "Floor", "ceil": "Ceil", "trunc": "Trunc", "rint": "RoundEven",
    "sin": "Sin", "cos": "Cos", "tan": "Tan", "asin": "Asin", "acos": "Acos", "atan": "Atan",
    "sinh": "Sinh", "cosh": "Cosh", "tanh": "Tanh", "asinh": "Asinh", "acosh": "Acosh",
    "atanh": "Atanh", "atan2": "Atan2", "pow": "Pow", "powr": "Pow", "exp": "Exp", "log": "Log",
    "exp2": "Exp2", "log2": "Log2", "sqrt": "Sqrt", "rsqrt": "InverseSqrt", "fmin": "NMin",
    "fmax": "NMax", "mix": "FMix", "step": "Step", "smoothstep": "SmoothStep", "sign": "FSign",
    "degrees": "Degrees", "radians": "Radians", "length": "Length", "distance": "Distance",
    "cross": "Cross", "normalize": "Normalize", "fma": "Fma",
}
# GLSL.std.450 instructions that also take 64-bit floats.
DOUBLE_OK = {"FAbs", "Floor", "Ceil", "Trunc", "RoundEven", "Sqrt", "InverseSqrt", "NMin", "NMax",
             "FMix", "Step", "SmoothStep", "FSign", "Fma", "Length", "Distance", "Cross", "Normalize",
             "NClamp"}
NATIVE_PREFIXES = ("native_", "half_")
INTEGER_MATH = {"min": ("SMin", "UMin"), "max": ("SMax", "UMax"), "clamp": ("SClamp", "UClamp"),
                "abs": ("SAbs", None)}

# Sub-group collectives -> placeholder kinds (clcoop.spirv.vulkan_module.SUBGROUP_OPS).
_GROUP_ARITH = re.compile(r"sub_group_(?:non_uniform_)?(reduce|scan_inclusive|scan_exclusive)_(add|min|max|mul|and|or|xor)")
_SUBGROUP_SIMPLE = {
    "sub_group_broadcast": "broadcast", "sub_group_non_uniform_broadcast": "broadcast",
    "sub_group_broadcast_first": "broadcast_first", "sub_group_any": "any", "sub_group_all": "all",
    "sub_group_non_uniform_any": "any", "sub_group_non_uniform_all": "all",
    "sub_group_elect": "elect", "sub_group_shuffle": "shuffle", "sub_group_shuffle_xor": "shuffle_xor",
    "sub_group_shuffle_up": "shuffle_up", "sub_group_shuffle_down": "shuffle_down",
}
_LEGACY_ATOMIC = re.compile(r"atomi?c?_(?P<op>add|sub|xchg|inc|dec|cmpxchg|min|max|and|or|xor)")
_C11_ATOMIC = re.compile(r"atomic_(?:fetch_)?(?P<op>add|sub|min|max|and|or|xor|load|store|exchange)(?:_explicit)?")
# OpenCL names -> placeholder operation names (clcoop.spirv.vulkan_module.ATOMIC_OPCODES).
_ATOMIC_OPS = {"xchg": "exchange"}
_DIVISIONS = ("native_divide", "native_recip", "half_divide", "half_recip")
_COMPARE_EXCHANGE = re.compile(r"atomic_compare_exchange_(?:strong|weak)(?:_explicit)?")
_WORK_GROUP_ARITHMETIC = re.compile(r"work_group_(reduce|scan_inclusive|scan_exclusive)_(add|min|max)")
# (operation, s/u/f) -> the IR that combines two values (a format for intrinsics' type suffix).
_COMBINE = {("add", "s"): "add", ("add", "u"): "add", ("add", "f"): "fadd",
            ("min", "s"): "call {t} @llvm.smin.{s}", ("min", "u"): "call {t} @llvm.umin.{s}",
            ("min", "f"): "call {t} @llvm.minnum.{s}", ("max", "s"): "call {t} @llvm.smax.{s}",
            ("max", "u"): "call {t} @llvm.umax.{s}", ("max", "f"): "call {t} @llvm.maxnum.{s}"}
_REFUSED = {
    "printf": "printf has no Vulkan equivalent (no debug-printf in a compute module clcoop emits); "
              "run the kernel in the interpreter to print",
    "get_work_dim": "get_work_dim is not part of the Vulkan launch record (docs/vulkan-abi.md)",
}

_DECLARE = re.compile(r"^declare (?:[\w()]+ )*?(?P<ret>[^@]*?) @(?P<name>[-\w.$]+|\"[^\"]*\")\((?P<params>.*)\)[^(\n]*$",
                      re.M)


_FDIV = re.compile(r"^(?P<lead>\s*%[-\w.$\"]+ = )fdiv (?P<flags>(?:(?:nnan|ninf|nsz|arcp|contract|afn|reassoc|fast) )*)"
                   r"(?P<type>half|float|<\d+ x (?:half|float)>) (?P<rest>.*)$", re.M)


def _divisor_in_range(operand):
    """Whether a divisor is a scalar constant with |y| in [2^-126, 2^126] (Vulkan's OpFDiv
    bound holds there)."""
    text = operand.strip()
    try:
        if text.startswith("0xH"):
            value = struct.unpack(">e", bytes.fromhex(text[3:]))[0]
        elif text.startswith("0x"):
            value = struct.unpack(">d", bytes.fromhex(text[2:]))[0]
        else:
            value = float(text)
    except ValueError:
        return False
    return 2.0 ** -126 <= abs(value) <= 2.0 ** 126


def _is_signed(param):
    if param[0] == "vec":
        param = param[2]
    return param[0] == "int" and param[2]


class Builtins:
    """The renames and definitions of one module's built-in calls."""

    def __init__(self, text, locator):
        self.text = text
        self.locator = locator
        self.renames = {}            # old callee name -> new name
        self.definitions = list(_INTRINSIC_DECLS)
        self.drop = set()            # declarations replaced by a definition
        for m in _DECLARE.finditer(text):
            self.declaration(m)

    def first_call(self, name):
        m = re.search(r"^.*@" + re.escape(name) + r"\(.*$", self.text.split("\ndeclare", 1)[0], re.M)
        return self.locator.point(m.group(0)) if m else None

    def refuse(self, name, message):
        fail(message, self.first_call(name))

    def declaration(self, m):
        name, params_text = m.group("name"), m.group("params")
        if coop_names.names_spirv_operation(name):
            problem = ext_problem(name) or float8_matrix_problem(name)
            if problem:
                self.refuse(name, problem)
        ret = re.sub(r"^(?:(?:spir_func|dso_local|noundef|signext|zeroext|hidden)\s+)*", "", m.group("ret").strip())
        if name.startswith("llvm.") or coop_names.names_spirv_operation(name) or name.startswith(PLACEHOLDER):
            return
        base, params = demangle(name)
        if base in _REFUSED:
            self.refuse(name, _REFUSED[base])
        conversion = float8.parse_conversion(base)
        if conversion is not None:
            self.renames[name] = self.float8_conversion(name, conversion, ret, _split_params(params_text))
            return
        if params is None:
            self.refuse(name, f"'{base}' is not a function the Vulkan target can call (only kernels, "
                              "functions defined in the program and OpenCL C built-ins it maps)")
        param_types = _split_params(params_text)
        new = (self.work_item(base, ret, param_types) or self.helper(name, base, ret, param_types)
               or self.integer_builtin(name, base, ret, params)
               or self.compare_exchange(name, base, ret, params, param_types)
               or self.atomic_flag(name, base, ret, param_types)
               or self.async_copy(name, base, ret, params, param_types)
               or self.work_group(name, base, ret, params, param_types)
               or self.synchronization(base, params)
               or self.subgroup(base, params) or self.atomic(name, base, params) or self.math(name, base, params, ret))
        if new is None:
            self.refuse(name, f"the OpenCL C built-in '{base}' is not available on the Vulkan target")
        # One placeholder per original callee: two built-ins may share a kind with other types.
        self.renames[name] = new if not new.startswith(PLACEHOLDER) or self._is_defined(new) else f"{new}.__{name}"

    def _is_defined(self, name):
        return any(d.startswith("define") and f"@{name}(" in d for d in self.definitions)

    # ---- work-item functions: definitions
    def work_item(self, base, ret, params):
        helper = f"{PLACEHOLDER}{base}"
        if base in _SCALAR_QUERIES:
            body = [f"  %v = {_SCALAR_QUERIES[base]}", *self._ret_i32(ret, "%v")]
            self._define(helper, ret, params, body)
            return helper
        per_dim = {
            "get_global_id": self._global_id,
            "get_global_size": self._global_size,
            "get_global_offset": self._offset,
        }
        if base in _DIMENSIONS or base in per_dim:
            lines = []
            for k in range(3):
                if base in _DIMENSIONS:
                    lines.append(f"  %v{k} = " + _DIMENSIONS[base][0].format(k=k))
                else:
                    lines.extend(per_dim[base](k))
            default = 1 if (base in _DIMENSIONS and _DIMENSIONS[base][1]) or base == "get_global_size" else 0
            lines += [f"  %is0 = icmp eq i32 %d, 0", f"  %is1 = icmp eq i32 %d, 1", f"  %is2 = icmp eq i32 %d, 2",
                      f"  %s2 = select i1 %is2, i32 %v2, i32 {default}",
                      "  %s1 = select i1 %is1, i32 %v1, i32 %s2", "  %s0 = select i1 %is0, i32 %v0, i32 %s1",
                      *self._ret_i32(ret, "%s0")]
            self._define(helper, ret, ["i32 %d"], lines)
            return helper
        if base == "get_global_linear_id":
            lines = [f"  %t{k} = call i32 @llvm.spv.thread.id.i32(i32 {k})" for k in range(3)]
            lines += [l for k in (0, 1) for l in self._global_size(k)]
            lines += ["  %a = mul i32 %t2, %v1", "  %b = add i32 %a, %t1", "  %c = mul i32 %b, %v0",
                      "  %l = add i32 %c, %t0", *self._ret_i32(ret, "%l")]
            self._define(helper, ret, [], lines)
            return helper
        return None

    @staticmethod
    def _global_id(k):
        return [f"  %t{k} = call i32 @llvm.spv.thread.id.i32(i32 {k})",
                f"  %o{k} = load i32, ptr addrspace(10) {GLOBAL_OFFSET}.{k}",
                f"  %v{k} = add i32 %t{k}, %o{k}"]

    @staticmethod
    def _global_size(k):
        return [f"  %n{k} = call i32 @llvm.spv.num.workgroups.i32(i32 {k})",
                f"  %w{k} = call i32 @llvm.spv.workgroup.size.i32(i32 {k})",
                f"  %v{k} = mul i32 %n{k}, %w{k}"]

    @staticmethod
    def _offset(k):
        return [f"  %v{k} = load i32, ptr addrspace(10) {GLOBAL_OFFSET}.{k}"]

    @staticmethod
    def _ret_i32(ret, value):
        if ret == "i32":
            return [f"  ret i32 {value}"]
        return [f"  %r = zext i32 {value} to {ret}", f"  ret {ret} %r"]

    def _define(self, name, ret, params, body):
        self.definitions.append(f"define internal spir_func {ret} @{name}({', '.join(params)}) alwaysinline {{\n"
                                + "\n".join(body) + "\n}")

    # ---- built-ins written in IR (inlined, so their pointers are traced like the caller's)
    def helper(self, name, base, ret, params):
        """vloadN/vstoreN as element loads/stores (OpenCL C 6.15.11: element alignment only),
        copysign on the bits, round as trunc plus a half-away-from-zero step (exact)."""
        helper = f"{PLACEHOLDER}{base}.__{name}"
        m = re.fullmatch(r"vload(\d+)", base)
        if m and len(params) == 2:
            count, vector = int(m.group(1)), ret
            element = re.fullmatch(r"<\d+ x (\w+)>", vector).group(1)
            lines, value = ["  %base = mul i64 %i, " + str(count)], "poison"
            for k in range(count):
                lines += [f"  %i{k} = add i64 %base, {k}",
                          f"  %p{k} = getelementptr inbounds {element}, {params[1]} %p, i64 %i{k}",
                          f"  %e{k} = load {element}, {params[1]} %p{k}",
                          f"  %v{k} = insertelement {vector} {value}, {element} %e{k}, i32 {k}"]
                value = f"%v{k}"
            self._define(helper, vector, [f"{params[0]} %i", f"{params[1]} %p"], lines + [f"  ret {vector} {value}"])
            return helper
        m = re.fullmatch(r"vstore(\d+)", base)
        if m and len(params) == 3:
            count, vector = int(m.group(1)), params[0]
            element = re.fullmatch(r"<\d+ x (\w+)>", vector).group(1)
            lines = ["  %base = mul i64 %i, " + str(count)]
            for k in range(count):
                lines += [f"  %i{k} = add i64 %base, {k}",
                          f"  %p{k} = getelementptr inbounds {element}, {params[2]} %p, i64 %i{k}",
                          f"  %e{k} = extractelement {vector} %v, i32 {k}",
                          f"  store {element} %e{k}, {params[2]} %p{k}"]
            self._define(helper, "void", [f"{vector} %v", f"{params[1]} %i", f"{params[2]} %p"], lines + ["  ret void"])
            return helper
        # half_* (OpenCL C 7.4: 8192 ulp) take the sequences too: GLSL's bounds do not meet that
        # for half_sin/cos/tan outside [-pi, pi] or half_log* near 1 (docs/vulkan.md "Math")
        plain = base[len("half_"):] if base.startswith("half_") else base
        if plain in vulkan_math.EXACT_FUNCTIONS and vulkan_math.supports(plain, _scalar_of(ret)):
            return self._exact_math(plain, helper, ret, params[1] if plain in vulkan_math.INT_OPERAND else None)
        if base == "sincos" and len(params) == 2 and _scalar_of(ret) in ("half", "float"):
            # sin returned, cos stored through the pointer (OpenCL C 7.5.1)
            self._exact_math("sin", f"{helper}.sin", ret)
            self._exact_math("cos", f"{helper}.cos", ret)
            self._define(helper, ret, [f"{ret} %x", f"{params[1]} %p"], [
                f"  %s = call spir_func {ret} @{helper}.sin({ret} %x)",
                f"  %c = call spir_func {ret} @{helper}.cos({ret} %x)",
                f"  store {ret} %c, {params[1]} %p", f"  ret {ret} %s"])
            return helper
        if base in _DIVISIONS and _scalar_of(ret) in ("half", "float"):
            return self._division(base, helper, ret)
        if base == "sqrt" and len(params) == 1 and _scalar_of(ret) in ("half", "float"):
            return self._exact_sqrt(helper, ret)
        if base == "fma" and len(params) == 3 and _scalar_of(ret) in ("half", "float"):
            return self._exact_fma(helper, ret)
        if base == "copysign" and len(params) == 2:
            # |x| negated when y's sign bit is set (exact; NaNs and signed zeros included). A
            # bitcast back to float after integer operations crashed llc-22's pre-legalizer.
            bits, suffix = _int_type_of(ret), _intrinsic_suffix(ret)
            self.definitions.append(f"declare {ret} @llvm.fabs.{suffix}({ret})")
            self._define(helper, ret, [f"{ret} %x", f"{ret} %y"], [
                f"  %yb = bitcast {ret} %y to {bits}", f"  %neg = icmp slt {bits} %yb, {_splat(bits, '0')}",
                f"  %mag = call {ret} @llvm.fabs.{suffix}({ret} %x)", f"  %minus = fneg {ret} %mag",
                f"  %r = select {_bool_type(ret)} %neg, {ret} %minus, {ret} %mag", f"  ret {ret} %r"])
            return helper
        if base == "select" and len(params) == 3:
            # OpenCL C 6.15.6: a scalar c selects b when nonzero; a vector's components when
            # their most significant bit is set
            vector = params[2].startswith("<")
            test = f"icmp slt {params[2]} %c, zeroinitializer" if vector else f"icmp ne {params[2]} %c, 0"
            self._define(helper, ret, [f"{params[0]} %a", f"{params[1]} %b", f"{params[2]} %c"], [
                f"  %m = {test}", f"  %r = select {_bool_type(ret)} %m, {ret} %b, {ret} %a", f"  ret {ret} %r"])
            return helper
        if base == "bitselect" and len(params) == 3:
            # (a & ~c) | (b & c), on the bits of float operands
            bits = _int_type_of(ret) if _scalar_of(ret) in ("half", "float", "double") else ret
            lines = []
            for v in "abc":
                lines.append(f"  %{v}i = bitcast {ret} %{v} to {bits}" if bits != ret else f"  %{v}i = or {bits} %{v}, zeroinitializer")
            lines += [f"  %nc = xor {bits} %ci, {_splat(bits, '-1')}", f"  %keep = and {bits} %ai, %nc",
                      f"  %take = and {bits} %bi, %ci", f"  %ri = or {bits} %keep, %take"]
            lines += [f"  %r = bitcast {bits} %ri to {ret}" if bits != ret else f"  %r = or {bits} %ri, zeroinitializer",
                      f"  ret {ret} %r"]
            self._define(helper, ret, [f"{ret} %a", f"{ret} %b", f"{ret} %c"], lines)
            return helper
        if base == "round" and len(params) == 1:
            scalar = re.sub(r"<\d+ x (\w+)>", r"\1", ret)
            suffix = _intrinsic_suffix(ret)
            half = _splat(ret, _float_literal(scalar, 0.5))
            bits = _int_type_of(ret)
            self.definitions += [f"declare {ret} @llvm.trunc.{suffix}({ret})", f"declare {ret} @llvm.fabs.{suffix}({ret})"]
            # On |x|: |x| - trunc(|x|) is exact, a fraction >= 0.5 adds 1 (away from zero, OpenCL C
            # round); then x's sign. (A select between two float constants crashed llc-22.)
            flag = _bool_type(ret)
            self._define(helper, ret, [f"{ret} %x"], [
                f"  %a = call {ret} @llvm.fabs.{suffix}({ret} %x)", f"  %t = call {ret} @llvm.trunc.{suffix}({ret} %a)",
                f"  %d = fsub {ret} %a, %t", f"  %far = fcmp oge {ret} %d, {half}",
                f"  %step = uitofp {flag} %far to {ret}", f"  %r = fadd {ret} %t, %step",
                f"  %xb = bitcast {ret} %x to {bits}", f"  %neg = icmp slt {bits} %xb, {_splat(bits, '0')}",
                f"  %minus = fneg {ret} %r",
                f"  %signed = select {flag} %neg, {ret} %minus, {ret} %r", f"  ret {ret} %signed"])
            return helper
        return None

    def float8_conversion(self, name, conversion, ret, params):
        """A scalar fp8 conversion as integer and double code (vulkan_math.float8_conversion):
        it needs no float8 support of the device, so it runs where fp8 matrices cannot."""
        helper = f"{PLACEHOLDER}fp8.__{name}"
        made = vulkan_math.float8_conversion(helper, conversion, ret, params[0]) if len(params) == 1 else None
        if made is None:
            self.refuse(name, f"the fp8 conversion {conversion.source} -> {conversion.target} (bf16 or a "
                              "vector) is not available on the Vulkan target")
        text, declarations = made
        self.definitions += declarations + [text]
        return helper

    def _exact_math(self, kind, helper, ret, second=None):
        """A clcoop.spirv.vulkan_math sequence (`kind` one of its EXACT_FUNCTIONS or DIVISION):
        OpenCL C's bounds where GLSL.std.450's are looser, or a function GLSL lacks."""
        text, declarations = vulkan_math.definition(kind, helper, ret, second)
        self.definitions += declarations + [text]
        return helper

    def _division(self, base, helper, ret):
        """native_divide/native_recip: OpFDiv (their precision is the implementation's);
        half_divide/half_recip: vulkan_math's division (OpFDiv is unbounded outside
        [2^-126, 2^126])."""
        exact = base.startswith("half_")
        divide = f"{helper}.divide"
        if exact:
            self._exact_math(vulkan_math.DIVISION, divide, ret)
        else:
            self._define(divide, ret, [f"{ret} %x", f"{ret} %y"], [f"  %r = fdiv {ret} %x, %y", f"  ret {ret} %r"])
        if base.endswith("divide"):
            return divide
        one = _splat(ret, _float_literal(_scalar_of(ret), 1.0))
        self._define(helper, ret, [f"{ret} %x"], [f"  %r = call spir_func {ret} @{divide}({ret} {one}, {ret} %x)",
                                                  f"  ret {ret} %r"])
        return helper

    def divisions(self, text):
        """Every half/float `fdiv` as vulkan_math's division (OpenCL C's 2.5 ulp for every
        divisor; Vulkan's OpFDiv holds it for |y| in [2^-126, 2^126] only), except relaxed ones
        (arcp/fast: -cl-fast-relaxed-math, -cl-unsafe-math-optimizations) and divisions by a
        constant in that range."""
        def replace(m):
            flags, type_text = m.group("flags").split(), m.group("type")
            operands = split_top_level(m.group("rest"))
            if {"arcp", "fast"} & set(flags) or len(operands) < 2 or _divisor_in_range(operands[1]):
                return m.group(0)
            helper = f"{PLACEHOLDER}fdiv.{_word(type_text)}"
            if not self._is_defined(helper):
                self._exact_math(vulkan_math.DIVISION, helper, type_text)
            dbg = "".join(f", {o}" for o in operands[2:] if o.startswith("!dbg"))
            return (f"{m.group('lead')}call spir_func {type_text} @{helper}({type_text} {operands[0]}, "
                    f"{type_text} {operands[1]}){dbg}")
        return _FDIV.sub(replace, text)

    def _exact_sqrt(self, helper, ret):
        """sqrt to OpenCL C's 3 ulp (Vulkan's Sqrt is only "inherited from 1/inversesqrt"): the
        double square root (relative error ~2^-50) rounded once to the type."""
        wide = _with_scalar(ret, "double")
        self.definitions.append(f"declare {wide} @llvm.sqrt.{_intrinsic_suffix(wide)}({wide})")
        self._define(helper, ret, [f"{ret} %x"], [
            f"  %d = fpext {ret} %x to {wide}", f"  %s = call {wide} @llvm.sqrt.{_intrinsic_suffix(wide)}({wide} %d)",
            f"  %r = fptrunc {wide} %s to {ret}", f"  ret {ret} %r"])
        return helper

    def _exact_fma(self, helper, ret):
        """fma rounded once (OpenCL C; Vulkan's Fma may round twice): in double the product of
        two half/float values is exact, the sum is rounded to odd (TwoSum gives its error; an
        inexact sum with an even last bit steps one unit toward the exact value), and one
        conversion rounds it to the type: 53 >= 24 + 2 bits make that a single rounding."""
        wide, bits = _with_scalar(ret, "double"), _with_scalar(ret, "i64")
        flag = _bool_type(ret)
        zero = _splat(wide, _float_literal("double", 0.0))
        lines = [f"  %a = fpext {ret} %x to {wide}", f"  %b = fpext {ret} %y to {wide}", f"  %c = fpext {ret} %z to {wide}",
                 f"  %p = fmul {wide} %a, %b", f"  %s = fadd {wide} %p, %c", f"  %bb = fsub {wide} %s, %p",
                 f"  %t = fsub {wide} %s, %bb", f"  %e1 = fsub {wide} %p, %t", f"  %e2 = fsub {wide} %c, %bb",
                 f"  %e = fadd {wide} %e1, %e2", f"  %sb = bitcast {wide} %s to {bits}",
                 f"  %lsb = and {bits} %sb, {_splat(bits, '1')}", f"  %even = icmp eq {bits} %lsb, {_splat(bits, '0')}",
                 f"  %inexact = fcmp one {wide} %e, {zero}", f"  %fix = and {flag} %even, %inexact",
                 f"  %sneg = fcmp olt {wide} %s, {zero}", f"  %eneg = fcmp olt {wide} %e, {zero}",
                 f"  %same = icmp eq {flag} %sneg, %eneg",
                 f"  %step = select {flag} %same, {bits} {_splat(bits, '1')}, {bits} {_splat(bits, '-1')}",
                 f"  %adj = add {bits} %sb, %step", f"  %rb = select {flag} %fix, {bits} %adj, {bits} %sb",
                 f"  %odd = bitcast {bits} %rb to {wide}", f"  %r = fptrunc {wide} %odd to {ret}", f"  ret {ret} %r"]
        self._define(helper, ret, [f"{ret} %x", f"{ret} %y", f"{ret} %z"], lines)
        return helper

    # ---- integer built-ins (OpenCL C 6.15.3) in IR: llc-22's Vulkan target cannot select
    # llvm.ctlz/cttz and SPIR-V has no 128-bit integers, so the sequences are spelled out.
    def integer_builtin(self, name, base, ret, params):
        if base not in INTEGER_BUILTINS or not params:
            return None
        vector = params[0][0] == "vec" and params[0][2][0] == "int"
        element = params[0][2] if vector else params[0]
        if element[0] != "int" or not re.fullmatch(r"i\d+|<\d+ x i\d+>", ret):
            return None
        bits, signed = element[1], element[2]
        helper = f"{PLACEHOLDER}{base}.__{name}"
        t = f"i{bits}"
        count = {"popcount": 1, "clz": 1, "ctz": 1, "mad_hi": 3, "mad_sat": 3}.get(base, 2)
        scalar = f"{helper}.scalar" if vector else helper
        body = IntegerSequences(self, t, bits, signed).body(base)
        self._define(scalar, t, [f"{t} %a", f"{t} %b", f"{t} %c"][:count], body + [f"  ret {t} %r"])
        if vector:                     # component by component (OpenCL C 6.15.3: gentype)
            names = [f"%{v}" for v in "abc"[:count]]
            self._define(helper, ret, [f"{ret} {v}" for v in names],
                         vulkan_math.componentwise(scalar, ret, t, [(ret, v) for v in names]))
        return helper

    # ---- work-group collectives (OpenCL C 6.15.16): a sub-group operation, one value per
    # sub-group in a Workgroup scratch array, a barrier, then every invocation combines the
    # sub-groups' values in sub-group order; a barrier after it frees the scratch for the next.
    def work_group(self, name, base, ret, params, param_types):
        helper = f"{PLACEHOLDER}{base}.__{name}"
        if base in ("work_group_any", "work_group_all"):
            return self._work_group_vote(helper, base[len("work_group_"):])
        if base == "work_group_broadcast":
            return self._work_group_broadcast(helper, ret, param_types)
        m = _WORK_GROUP_ARITHMETIC.fullmatch(base)
        if m is None or not params or params[0][0] not in ("int", "float"):
            return None
        value = params[0]
        sign = "f" if value[0] == "float" else ("s" if value[2] else "u")
        scan = None if m.group(1) == "reduce" else m.group(1)
        return self._work_group_arithmetic(helper, ret, m.group(2), scan, sign)

    def _scratch(self, ret):
        scratch = "@clcoop.vk.wg.scratch." + _word(ret)
        # one slot per sub-group: 1024 invocations in sub-groups of at least 8
        self.definitions.append(f"{scratch} = internal addrspace(3) global [128 x {ret}] poison")
        return scratch

    # ---- C11 compare-exchange (OpenCL C 6.15.12.7): OpAtomicCompareExchange, and the value
    # found written to *expected when it is not the expected one
    def compare_exchange(self, name, base, ret, params, param_types):
        m = _COMPARE_EXCHANGE.fullmatch(base)
        if m is None or len(params) < 3 or params[0][0] != "ptr":
            return None
        value = params[0][2]
        if value[0] != "int":
            self.refuse(name, f"'{base}' on {value[0]} values: OpAtomicCompareExchange compares "
                              "integers on the Vulkan target; compare the bits through an atomic_int "
                              "or atomic_long (as_int, as_long)")
        helper = f"{PLACEHOLDER}{base}.__{name}"
        t = param_types[2]
        sign = "s" if value[2] else "u"
        # success order and scope; the failure order is the instruction's Unequal semantics,
        # which clcoop.spirv.vulkan_module writes relaxed (never stronger than Equal)
        orders = [f"i32 %order{k}" for k in range(len(param_types) - 3)]
        passed = orders[:1] + orders[2:3]
        placeholder = f"{PLACEHOLDER}atomic.cmpxchg.{sign}.c11.__{name}"
        self.definitions.append(f"declare spir_func {t} @{placeholder}({param_types[0]}, {t}, {t}"
                                + "".join(", i32" for _ in passed) + ")")
        self._define(helper, ret, [f"{param_types[0]} %object", f"{param_types[1]} %expected", f"{t} %desired"] + orders, [
            "entry:", f"  %want = load {t}, {param_types[1]} %expected",
            f"  %old = call spir_func {t} @{placeholder}({param_types[0]} %object, {t} %want, {t} %desired"
            + "".join(f", {o}" for o in passed) + ")",
            f"  %same = icmp eq {t} %old, %want", "  br i1 %same, label %done, label %differ",
            "differ:", f"  store {t} %old, {param_types[1]} %expected", "  br label %done",
            "done:", *self._ret_bool(ret, "%same")])
        return helper

    def atomic_flag(self, name, base, ret, param_types):
        """atomic_flag_test_and_set[_explicit] (an exchange with 1: was the flag set?) and
        atomic_flag_clear[_explicit] (a store of 0), with the given order and scope (OpenCL C
        6.15.12.8; atomic_flag is an atomic_int)."""
        m = re.fullmatch(r"atomic_flag_(test_and_set|clear)(?:_explicit)?", base)
        if m is None or not param_types or not param_types[0].startswith("ptr"):
            return None
        helper = f"{PLACEHOLDER}{base}.__{name}"
        extra = [f"i32 %arg{k}" for k in range(1, len(param_types))]
        passed = "".join(f", {e}" for e in extra)
        op = "exchange" if m.group(1) == "test_and_set" else "store"
        placeholder = f"{PLACEHOLDER}atomic.{op}.s.c11.__{name}"
        result = "i32" if op == "exchange" else "void"
        self.definitions.append(f"declare spir_func {result} @{placeholder}({param_types[0]}, i32"
                                + "".join(", i32" for _ in extra) + ")")
        if op == "store":
            body = [f"  call spir_func void @{placeholder}({param_types[0]} %object, i32 0{passed})", "  ret void"]
        else:
            body = [f"  %old = call spir_func i32 @{placeholder}({param_types[0]} %object, i32 1{passed})",
                    "  %set = icmp ne i32 %old, 0", *self._ret_bool(ret, "%set")]
        self._define(helper, ret, [f"{param_types[0]} %object"] + extra, body)
        return helper

    @staticmethod
    def _ret_bool(ret, value):
        if ret == "i1":
            return [f"  ret i1 {value}"]
        return [f"  %r = zext i1 {value} to {ret}", f"  ret {ret} %r"]

    # ---- async copies (OpenCL C 6.15.13): the work-group copies cooperatively, each work-item
    # taking every local-size-th element from its local linear id; wait_group_events is a
    # work-group barrier over __local and __global memory, after which the copy is complete
    # and visible (as clspv does). Events carry nothing.
    def async_copy(self, name, base, ret, params, param_types):
        helper = f"{PLACEHOLDER}{base}.__{name}"
        if base == "wait_group_events":
            callee = f"{PLACEHOLDER}barrier.workgroup.1.__wait_group_events"
            self.definitions.append(f"declare spir_func void @{callee}(i32) convergent")
            self._define(helper, ret, [f"{t} %arg{k}" for k, t in enumerate(param_types)],
                         [f"  call spir_func void @{callee}(i32 3)", "  ret void"])
            return helper
        if base == "prefetch":                  # a hint (OpenCL C 6.15.13): nothing to do
            self._define(helper, ret, [f"{t} %arg{k}" for k, t in enumerate(param_types)], ["  ret void"])
            return helper
        if base not in ("async_work_group_copy", "async_work_group_strided_copy"):
            return None
        if base == "async_work_group_copy" and len(param_types) != 4 or \
                base == "async_work_group_strided_copy" and len(param_types) != 5:
            return None
        element = _ir_type_of(params[0][2]) if params[0][0] == "ptr" else None
        if element is None:
            self.refuse(name, f"'{base}' of this element type is not available on the Vulkan target")
        strided = base.endswith("strided_copy")
        into_local = params[0][1] == 3
        names = ["%dst", "%src", "%n"] + (["%stride"] if strided else []) + ["%event"]
        arguments = [f"{t} {n}" for t, n in zip(param_types, names)]
        size = param_types[2]
        # the strided side is the __global one (src when copying into __local, dst otherwise)
        src_index, dst_index = ("%i", "%i")
        if strided:
            src_index, dst_index = ("%far", "%i") if into_local else ("%i", "%far")
        lines = ["entry:", "  %lid = call i32 @llvm.spv.flattened.thread.id.in.group()",
                 *[f"  %s{k} = call i32 @llvm.spv.workgroup.size.i32(i32 {k})" for k in range(3)],
                 "  %s01 = mul i32 %s0, %s1", "  %count = mul i32 %s01, %s2",
                 f"  %start = zext i32 %lid to {size}", f"  %step = zext i32 %count to {size}",
                 "  br label %loop",
                 "loop:", f"  %i = phi {size} [ %start, %entry ], [ %next, %body ]",
                 f"  %more = icmp ult {size} %i, %n", "  br i1 %more, label %body, label %done",
                 "body:", *([f"  %far = mul {size} %i, %stride"] if strided else []),
                 f"  %from = getelementptr inbounds {element}, {param_types[1]} %src, {size} {src_index}",
                 f"  %v = load {element}, {param_types[1]} %from",
                 f"  %to = getelementptr inbounds {element}, {param_types[0]} %dst, {size} {dst_index}",
                 f"  store {element} %v, {param_types[0]} %to",
                 f"  %next = add {size} %i, %step", "  br label %loop",
                 "done:", f"  ret {ret} %event"]
        self._define(helper, ret, arguments, lines)
        return helper

    def _wg_barrier(self):
        callee = f"{PLACEHOLDER}barrier.workgroup.1.__work_group_collectives"
        self.definitions.append(f"declare spir_func void @{callee}(i32) convergent")
        return f"  call spir_func void @{callee}(i32 1)"

    def _sub_group_call(self, kind, ret, value, sign="s"):
        callee = f"{PLACEHOLDER}sg.{kind}.{sign}.__wg_" + _word(ret)
        self.definitions.append(f"declare spir_func {ret} @{callee}({ret}) convergent")
        return f"call spir_func {ret} @{callee}({ret} {value})"

    def _work_group_arithmetic(self, helper, ret, op, scan, sign):
        scratch = self._scratch(ret)
        combine = _COMBINE[(op, sign)]
        identity = _identity(op, sign, ret)
        kind = f"{'reduce' if scan is None else scan}.{op}"
        lines = [f"  %sid = call i32 @llvm.spv.subgroup.id()",
                 f"  %slid = call i32 @llvm.spv.subgroup.local.invocation.id()",
                 f"  %nsg = call i32 @llvm.spv.num.subgroups()",
                 f"  %part = {self._sub_group_call(f'reduce.{op}', ret, '%x', sign)}",
                 f"  %mine = {self._sub_group_call(kind, ret, '%x', sign)}" if scan else "",
                 f"  %first = icmp eq i32 %slid, 0",
                 f"  br i1 %first, label %publish, label %wait",
                 "publish:",
                 f"  %slot = getelementptr inbounds [128 x {ret}], ptr addrspace(3) {scratch}, i32 0, i32 %sid",
                 f"  store {ret} %part, ptr addrspace(3) %slot",
                 "  br label %wait",
                 "wait:", self._wg_barrier(),
                 # combine sub-groups [0, end): all of them for a reduction, those before mine for a scan
                 f"  %end = {'add i32 %nsg, 0' if scan is None else 'add i32 %sid, 0'}",
                 "  br label %loop",
                 "loop:",
                 "  %j = phi i32 [ 0, %wait ], [ %next, %body ]",
                 f"  %acc = phi {ret} [ {identity}, %wait ], [ %combined, %body ]",
                 "  %more = icmp ult i32 %j, %end",
                 "  br i1 %more, label %body, label %done",
                 "body:",
                 f"  %at = getelementptr inbounds [128 x {ret}], ptr addrspace(3) {scratch}, i32 0, i32 %j",
                 f"  %v = load {ret}, ptr addrspace(3) %at",
                 f"  %combined = {combine} {ret} %acc, %v" if not combine.startswith("call") else
                 f"  %combined = {combine.format(t=ret, s=_intrinsic_suffix(ret) if sign == 'f' else 'i' + str(_int_bits(ret)))}({ret} %acc, {ret} %v)",
                 "  %next = add i32 %j, 1",
                 "  br label %loop",
                 "done:", self._wg_barrier()]
        if scan:
            lines += [f"  %r = {combine} {ret} %acc, %mine" if not combine.startswith("call") else
                      f"  %r = {combine.format(t=ret, s=_intrinsic_suffix(ret) if sign == 'f' else 'i' + str(_int_bits(ret)))}({ret} %acc, {ret} %mine)",
                      f"  ret {ret} %r"]
        else:
            lines.append(f"  ret {ret} %acc")
        if combine.startswith("call"):
            intrinsic = combine.format(t=ret, s=_intrinsic_suffix(ret) if sign == "f" else "i" + str(_int_bits(ret)))
            callee = intrinsic.split("@", 1)[1]
            self.definitions.append(f"declare {ret} @{callee}({ret}, {ret})")
        self._define(helper, ret, [f"{ret} %x"], ["entry:"] + [l for l in lines if l])
        return helper

    def _work_group_broadcast(self, helper, ret, params):
        scratch = self._scratch(ret)
        ids = [f"{t} %id{k}" for k, t in enumerate(params[1:])]
        # the local linear id of the chosen work-item (OpenCL C: the id arguments are local ids)
        lines = ["entry:", "  %lx = call i32 @llvm.spv.thread.id.in.group.i32(i32 0)",
                 "  %ly = call i32 @llvm.spv.thread.id.in.group.i32(i32 1)",
                 "  %lz = call i32 @llvm.spv.thread.id.in.group.i32(i32 2)",
                 "  %sx = call i32 @llvm.spv.workgroup.size.i32(i32 0)",
                 "  %sy = call i32 @llvm.spv.workgroup.size.i32(i32 1)"]
        wanted = [f"%w{k}" for k in range(len(ids))]
        for k, t in enumerate(params[1:]):
            lines.append(f"  %w{k} = trunc {t} %id{k} to i32" if t != "i32" else f"  %w{k} = add i32 %id{k}, 0")
        mine = ["%lx", "%ly", "%lz"]
        lines += [f"  %hit{k} = icmp eq i32 {mine[k]}, {wanted[k]}" for k in range(len(ids))]
        condition = "%hit0"
        for k in range(1, len(ids)):
            lines.append(f"  %all{k} = and i1 {condition}, %hit{k}")
            condition = f"%all{k}"
        lines += [f"  br i1 {condition}, label %publish, label %wait", "publish:",
                  f"  store {ret} %x, ptr addrspace(3) {scratch}", "  br label %wait", "wait:", self._wg_barrier(),
                  f"  %r = load {ret}, ptr addrspace(3) {scratch}", self._wg_barrier(), f"  ret {ret} %r"]
        self._define(helper, ret, [f"{ret} %x"] + ids, lines)
        return helper

    def _work_group_vote(self, helper, kind):
        scratch = self._scratch("i32")
        lines = ["entry:", "  %p = icmp ne i32 %x, 0", "  %b = zext i1 %p to i32",
                 f"  %v = call spir_func i32 @{PLACEHOLDER}wg.vote.{kind}(i32 %b)", "  ret i32 %v"]
        # any/all as a reduction of 0/1 values: max for any, min for all
        self._work_group_arithmetic(f"{PLACEHOLDER}wg.vote.{kind}", "i32", "max" if kind == "any" else "min", None, "u")
        self._define(helper, "i32", ["i32 %x"], lines)
        return helper

    # ---- placeholders lowered after llc (clcoop.spirv.vulkan_module)
    def _placeholder(self, kind, suffix=""):
        return f"{PLACEHOLDER}{kind}{suffix}"

    def synchronization(self, base, params):
        if base in ("barrier", "work_group_barrier"):
            return self._placeholder("barrier.workgroup", f".{len(params)}")
        if base == "sub_group_barrier":
            return self._placeholder("barrier.subgroup", f".{len(params)}")
        if base in ("mem_fence", "read_mem_fence", "write_mem_fence"):
            return self._placeholder("fence")
        return None

    def atomic(self, name, base, params):
        """OpenCL 1.x atomics (relaxed; the pointer's address space gives the scope) and the
        C11-style atomic_fetch_<op>/load/store/exchange[_explicit] (OpenCL C 6.15.12)."""
        m = _LEGACY_ATOMIC.fullmatch(base) or _C11_ATOMIC.fullmatch(base)
        if m is None:
            return None
        op = m.group("op")
        value = params[0][2] if params and params[0][0] == "ptr" else None
        if value is None or value[0] not in ("int", "float"):
            return None
        if value[0] == "float" and op not in ("xchg", "exchange", "load", "store"):
            self.refuse(name, f"'{base}' on floating point needs SPV_EXT_shader_atomic_float_add, which "
                              "the Vulkan target does not emit; use atomic_cmpxchg on the bits")
        form = "legacy" if m.re is _LEGACY_ATOMIC else "c11"
        sign = "f" if value[0] == "float" else ("s" if value[2] else "u")
        return self._placeholder(f"atomic.{_ATOMIC_OPS.get(op, op)}.{sign}.{form}")

    def subgroup(self, base, params):
        m = _GROUP_ARITH.fullmatch(base)
        if m:
            sign = "s" if params and _is_signed(params[0]) else "u"
            return self._placeholder(f"sg.{m.group(1)}.{m.group(2)}.{sign}")
        if base in _SUBGROUP_SIMPLE:
            return self._placeholder(f"sg.{_SUBGROUP_SIMPLE[base]}")
        return None

    def math(self, name, base, params, ret):
        plain = base
        for prefix in NATIVE_PREFIXES:
            if base.startswith(prefix):
                plain = base[len(prefix):]
        if plain in FLOAT_MATH and params and _float_bits(params[0]):
            op = FLOAT_MATH[plain]
            if _float_bits(params[0]) == 64 and op not in DOUBLE_OK:
                self.refuse(name, f"'{base}' on double is not available on the Vulkan target: GLSL.std.450 "
                                  "takes 16- and 32-bit floats for it and the target has no double sequence "
                                  "(docs/vulkan.md \"Math\"); compute it in float")
            return self._placeholder(f"glsl.{GLSL[op]}")
        if plain in ("clamp", "fmin", "fmax", "min", "max") and params and _float_bits(params[0]):
            op = {"clamp": "NClamp", "min": "NMin", "max": "NMax", "fmin": "NMin", "fmax": "NMax"}[plain]
            return self._placeholder(f"glsl.{GLSL[op]}")
        if plain in INTEGER_MATH and params and params[0][0] in ("int", "vec"):
            signed, unsigned = INTEGER_MATH[plain]
            op = signed if _is_signed(params[0]) or unsigned is None else unsigned
            if plain == "abs" and not _is_signed(params[0]):
                return self._placeholder("copy")
            return self._placeholder(f"glsl.{GLSL[op]}")
        if plain == "mad":
            return self._placeholder("mad")
        if plain == "dot" and params and _float_bits(params[0]):
            return self._placeholder("dot" if params[0][0] == "vec" else "mul")
        return None

    def apply(self, text):
        """The module text with calls renamed, placeholder declarations kept, helpers defined."""
        for old, new in self.renames.items():
            text = text.replace(f"@{old}(", f"@{new}(")
        text = self.divisions(text)
        defined = {re.search(r"@([-\w.$]+)\(", d).group(1) for d in self.definitions if d.startswith("define")}
        lines = []
        for line in text.split("\n"):
            m = _DECLARE.match(line)
            if m and m.group("name") in defined:
                continue
            lines.append(line)
        return "\n".join(lines)


# What the one Vulkan GPU measured for clcoop offers (../shared/notes/gpu-vulkan.md,
# test/unit/data/vulkan_h200.json; test_vulkan_fp8 checks the record still says so).
FLOAT8_MATRIX_REFUSAL = (
    "fp8 matrices (__fp8_e4m3, __fp8_e5m2) are not available on the Vulkan target: they need "
    "SPV_EXT_float8 on a device with VK_EXT_shader_float8 (shaderFloat8CooperativeMatrix), and the "
    "Vulkan GPU measured for clcoop (NVIDIA H200, driver 580.159.04, test/unit/data/vulkan_h200.json) "
    "has neither the extension nor an fp8 matrix configuration (its matrix inputs are f16, bf16, s8 "
    "and u8). The Vulkan target takes scalar fp8 conversions (as integer code), not fp8 matrices: "
    "run those in the interpreter or the native engine")


def float8_matrix_problem(name):
    """The refusal of a matrix operation on an fp8 component type, or None."""
    callee = coop_names.parse_callee(name)
    if callee is not None and any(m.code in float8.BY_ITANIUM for m in callee.matrices):
        return FLOAT8_MATRIX_REFUSAL
    return None


def ext_problem(name):
    """Why a SPV_EXT_cooperative_matrix_maintenance1 construct cannot be emitted for Vulkan:
    spirv-val 2025.5 does not know it, and the target writes only modules it validates as
    written (docs/vulkan.md). None for everything else."""
    callee = coop_names.parse_callee(name)
    if callee is None:
        return None
    why = ("the Vulkan target writes only modules spirv-val --target-env vulkan1.3 accepts as "
           "written, and SPIRV-Tools 2025.5 does not know")
    if callee.base == coop_names.GET_COORDINATE:
        return f"coop_mat_get_coord: {why} OpCooperativeMatrixGetCoordinateEXT"
    matrices = callee.matrices
    if len(matrices) == 2:
        result, source = matrices
        changes_to_accumulator = result.use == Use.ACCUMULATOR and source.use != Use.ACCUMULATOR
        if (callee.base in coop_names.CONVERSIONS or callee.base == coop_names.CONVERT_USE) and changes_to_accumulator:
            return (f"a conversion of a use A or B matrix to an accumulator: {why} "
                    "SPV_EXT_cooperative_matrix_maintenance1's OpCooperativeMatrixConvertUseEXT")
        if callee.base == coop_names.TRANSPOSE and result.use == Use.A:
            return (f"a transpose into a use A matrix: {why} SPV_EXT_cooperative_matrix_maintenance1's "
                    "transposing conversion")
    return None


def _ir_type_of(param):
    """The IR type of a demangled scalar or vector parameter type, or None."""
    if param[0] == "vec":
        inner = _ir_type_of(param[2])
        return f"<{param[1]} x {inner}>" if inner else None
    if param[0] == "int":
        return f"i{param[1]}"
    if param[0] == "float":
        return {16: "half", 32: "float", 64: "double"}.get(param[1])
    return None


def _scalar_bits(type_text):
    scalar = re.sub(r"<\d+ x (\w+)>", r"\1", type_text)
    return {"half": 16, "float": 32, "double": 64, "bfloat": 16}[scalar]


INTEGER_BUILTINS = ("popcount", "clz", "ctz", "rotate", "hadd", "rhadd", "abs_diff", "add_sat", "sub_sat",
                    "mul_hi", "mad_hi", "mad_sat")


class IntegerSequences:
    """The IR of one integer built-in on iN (%a, %b, %c in; %r out)."""

    def __init__(self, builtins, t, bits, signed):
        self.builtins, self.t, self.bits, self.signed = builtins, t, bits, signed
        self.counter = 0
        self.lines = []

    def fresh(self):
        self.counter += 1
        return f"%v{self.counter}"

    def emit(self, text):
        name = self.fresh()
        self.lines.append(f"  {name} = {text}")
        return name

    def glsl(self, number, value):
        callee = f"{PLACEHOLDER}glsl.{number}.__int_builtins"
        self.builtins.definitions.append(f"declare spir_func i32 @{callee}(i32)")
        return self.emit(f"call spir_func i32 @{callee}(i32 {value})")

    def limits(self):
        if self.signed:
            return str(-(1 << (self.bits - 1))), str((1 << (self.bits - 1)) - 1)
        return "0", "-1"

    def body(self, base):
        result = getattr(self, base)()
        self.lines.append(f"  %r = add {self.t} {result}, 0")
        return self.lines

    # 32-bit pieces
    def clz32(self, v):
        msb = self.glsl(75, v)                                         # FindUMsb: -1 for 0
        return self.emit(f"sub i32 31, {msb}")                         # 32 for 0

    def ctz32(self, v):
        lsb = self.glsl(73, v)                                         # FindILsb: -1 for 0
        zero = self.emit(f"icmp eq i32 {v}, 0")
        return self.emit(f"select i1 {zero}, i32 32, i32 {lsb}")

    def halves(self, v):
        lo = self.emit(f"trunc i64 {v} to i32")
        shifted = self.emit(f"lshr i64 {v}, 32")
        return lo, self.emit(f"trunc i64 {shifted} to i32")

    def from32(self, v):
        if self.bits == 32:
            return v
        op = "zext" if self.bits > 32 else "trunc"
        return self.emit(f"{op} i32 {v} to {self.t}")

    def popcount(self):
        declare = "declare i32 @llvm.ctpop.i32(i32)"
        self.builtins.definitions.append(declare)
        if self.bits == 64:
            lo, hi = self.halves("%a")
            a = self.emit(f"call i32 @llvm.ctpop.i32(i32 {lo})")
            b = self.emit(f"call i32 @llvm.ctpop.i32(i32 {hi})")
            return self.from32(self.emit(f"add i32 {a}, {b}"))
        wide = "%a" if self.bits == 32 else self.emit(f"zext {self.t} %a to i32")
        return self.from32(self.emit(f"call i32 @llvm.ctpop.i32(i32 {wide})"))

    def clz(self):
        if self.bits == 64:
            lo, hi = self.halves("%a")
            empty = self.emit(f"icmp eq i32 {hi}, 0")
            low = self.emit(f"add i32 {self.clz32(lo)}, 32")
            return self.from32(self.emit(f"select i1 {empty}, i32 {low}, i32 {self.clz32(hi)}"))
        wide = "%a" if self.bits == 32 else self.emit(f"zext {self.t} %a to i32")
        return self.from32(self.emit(f"sub i32 {self.clz32(wide)}, {32 - self.bits}"))

    def ctz(self):
        if self.bits == 64:
            lo, hi = self.halves("%a")
            empty = self.emit(f"icmp eq i32 {lo}, 0")
            high = self.emit(f"add i32 {self.ctz32(hi)}, 32")
            return self.from32(self.emit(f"select i1 {empty}, i32 {high}, i32 {self.ctz32(lo)}"))
        wide = "%a" if self.bits == 32 else self.emit(f"zext {self.t} %a to i32")
        if self.bits < 32:
            wide = self.emit(f"or i32 {wide}, {1 << self.bits}")      # ctz(0) = the width
        return self.from32(self.ctz32(wide))

    def rotate(self):
        t, n = self.t, self.bits
        s = self.emit(f"and {t} %b, {n - 1}")
        left = self.emit(f"shl {t} %a, {s}")
        back = self.emit(f"sub {t} {n}, {s}")
        right = self.emit(f"lshr {t} %a, {back}")
        both = self.emit(f"or {t} {left}, {right}")
        none = self.emit(f"icmp eq {t} {s}, 0")
        return self.emit(f"select i1 {none}, {t} %a, {t} {both}")

    def _halving(self, carry_op):
        t, shift = self.t, "ashr" if self.signed else "lshr"
        a = self.emit(f"{shift} {t} %a, 1")
        b = self.emit(f"{shift} {t} %b, 1")
        low = self.emit(f"{carry_op} {t} %a, %b")
        carry = self.emit(f"and {t} {low}, 1")
        return self.emit(f"add {t} {self.emit(f'add {t} {a}, {b}')}, {carry}")

    def hadd(self):
        return self._halving("and")

    def rhadd(self):
        return self._halving("or")

    def abs_diff(self):
        t = self.t
        greater = self.emit(f"icmp {'sgt' if self.signed else 'ugt'} {t} %a, %b")
        up, down = self.emit(f"sub {t} %a, %b"), self.emit(f"sub {t} %b, %a")
        return self.emit(f"select i1 {greater}, {t} {up}, {t} {down}")

    def add_sat(self):
        t, (low, high) = self.t, self.limits()
        total = self.emit(f"add {t} %a, %b")
        if not self.signed:
            wrapped = self.emit(f"icmp ult {t} {total}, %a")
            return self.emit(f"select i1 {wrapped}, {t} -1, {t} {total}")
        return self._signed_overflow(total, "%a", "%b", same_signs=True)

    def sub_sat(self):
        t = self.t
        total = self.emit(f"sub {t} %a, %b")
        if not self.signed:
            below = self.emit(f"icmp ult {t} %a, %b")
            return self.emit(f"select i1 {below}, {t} 0, {t} {total}")
        return self._signed_overflow(total, "%a", "%b", same_signs=False)

    def _signed_overflow(self, total, a, b, same_signs):
        """a + b (same_signs) or a - b overflowed when the operands' signs say it cannot have
        the result's sign; then the bound on a's side."""
        t, (low, high) = self.t, self.limits()
        a_neg = self.emit(f"icmp slt {t} {a}, 0")
        b_neg = self.emit(f"icmp slt {t} {b}, 0")
        r_neg = self.emit(f"icmp slt {t} {total}, 0")
        operands_agree = self.emit(f"icmp {'eq' if same_signs else 'ne'} i1 {a_neg}, {b_neg}")
        flipped = self.emit(f"icmp ne i1 {a_neg}, {r_neg}")
        overflow = self.emit(f"and i1 {operands_agree}, {flipped}")
        bound = self.emit(f"select i1 {a_neg}, {t} {low}, {t} {high}")
        return self.emit(f"select i1 {overflow}, {t} {bound}, {t} {total}")

    def _mul_hi_64(self):
        """The high 64 bits of a 64 x 64-bit product from 32-bit halves (unsigned), corrected
        for signed operands: hi_s = hi_u - (a < 0 ? b : 0) - (b < 0 ? a : 0)."""
        mask = "4294967295"
        al, ah = self.emit("and i64 %a, " + mask), self.emit("lshr i64 %a, 32")
        bl, bh = self.emit("and i64 %b, " + mask), self.emit("lshr i64 %b, 32")
        ll, lh = self.emit(f"mul i64 {al}, {bl}"), self.emit(f"mul i64 {al}, {bh}")
        hl, hh = self.emit(f"mul i64 {ah}, {bl}"), self.emit(f"mul i64 {ah}, {bh}")
        mid = self.emit(f"add i64 {self.emit(f'lshr i64 {ll}, 32')}, {self.emit(f'and i64 {lh}, {mask}')}")
        mid = self.emit(f"add i64 {mid}, {self.emit(f'and i64 {hl}, {mask}')}")
        high = self.emit(f"add i64 {hh}, {self.emit(f'lshr i64 {lh}, 32')}")
        high = self.emit(f"add i64 {high}, {self.emit(f'lshr i64 {hl}, 32')}")
        high = self.emit(f"add i64 {high}, {self.emit(f'lshr i64 {mid}, 32')}")
        if not self.signed:
            return high
        a_neg, b_neg = self.emit("icmp slt i64 %a, 0"), self.emit("icmp slt i64 %b, 0")
        high = self.emit(f"sub i64 {high}, {self.emit(f'select i1 {a_neg}, i64 %b, i64 0')}")
        return self.emit(f"sub i64 {high}, {self.emit(f'select i1 {b_neg}, i64 %a, i64 0')}")

    def mul_hi(self):
        if self.bits == 64:
            return self._mul_hi_64()
        t, ext, wide = self.t, "sext" if self.signed else "zext", f"i{2 * self.bits}"
        product = self.emit(f"mul {wide} {self.emit(f'{ext} {t} %a to {wide}')}, {self.emit(f'{ext} {t} %b to {wide}')}")
        high = self.emit(f"{'ashr' if self.signed else 'lshr'} {wide} {product}, {self.bits}")
        return self.emit(f"trunc {wide} {high} to {t}")

    def mad_hi(self):
        return self.emit(f"add {self.t} {self.mul_hi()}, %c")

    def mad_sat(self):
        t, (low, high) = self.t, self.limits()
        if self.bits < 64:
            ext = "sext" if self.signed else "zext"
            wide = [self.emit(f"{ext} {t} %{v} to i64") for v in "abc"]
            total = self.emit(f"add i64 {self.emit(f'mul i64 {wide[0]}, {wide[1]}')}, {wide[2]}")
            if self.signed:
                low64, high64 = low, high
                under = self.emit(f"icmp slt i64 {total}, {low64}")
                over = self.emit(f"icmp sgt i64 {total}, {high64}")
            else:
                under = self.emit("icmp ult i64 0, 0")
                over = self.emit(f"icmp ugt i64 {total}, {(1 << self.bits) - 1}")
            clamped = self.emit(f"select i1 {over}, i64 {high if self.signed else (1 << self.bits) - 1}, i64 {total}")
            clamped = self.emit(f"select i1 {under}, i64 {low}, i64 {clamped}")
            return self.emit(f"trunc i64 {clamped} to {t}")
        hi = self._mul_hi_64()
        lo = self.emit("mul i64 %a, %b")
        total = self.emit(f"add i64 {lo}, %c")
        carry = self.emit(f"zext i1 {self.emit(f'icmp ult i64 {total}, {lo}')} to i64")
        if not self.signed:
            overflow = self.emit(f"or i1 {self.emit(f'icmp ne i64 {hi}, 0')}, {self.emit(f'icmp ne i64 {carry}, 0')}")
            return self.emit(f"select i1 {overflow}, i64 -1, i64 {total}")
        c_high = self.emit("ashr i64 %c, 63")
        top = self.emit(f"add i64 {self.emit(f'add i64 {hi}, {c_high}')}, {carry}")
        fits = self.emit(f"icmp eq i64 {top}, {self.emit(f'ashr i64 {total}, 63')}")
        negative = self.emit(f"icmp slt i64 {top}, 0")
        bound = self.emit(f"select i1 {negative}, i64 {low}, i64 {high}")
        return self.emit(f"select i1 {fits}, i64 {total}, i64 {bound}")


def _word(type_text):
    """A type's text as part of a name."""
    return re.sub(r"[^\w]", "_", type_text)


def _int_bits(type_text):
    return int(type_text[1:])


def _identity(op, sign, ret):
    """The identity of a work-group operation (OpenCL C 6.15.16: the exclusive scan's first
    value)."""
    if sign == "f":
        value = {"add": 0.0, "min": float("inf"), "max": float("-inf")}[op]
        return _float_literal(ret, value)
    bits = _int_bits(ret)
    if op == "add":
        return "0"
    if op == "min":
        return str((1 << (bits - 1)) - 1) if sign == "s" else "-1"
    return str(-(1 << (bits - 1))) if sign == "s" else "0"


def _scalar_of(type_text):
    return re.sub(r"<\d+ x (\w+)>", r"\1", type_text)


def _with_scalar(type_text, scalar):
    m = re.fullmatch(r"<(\d+) x \w+>", type_text)
    return f"<{m.group(1)} x {scalar}>" if m else scalar


def _int_type_of(type_text):
    bits = f"i{_scalar_bits(type_text)}"
    m = re.fullmatch(r"<(\d+) x \w+>", type_text)
    return f"<{m.group(1)} x {bits}>" if m else bits


def _splat(type_text, scalar_literal):
    """An IR constant of `type_text`'s shape (a vector splat or the scalar itself)."""
    m = re.fullmatch(r"<(\d+) x (\w+)>", type_text)
    if not m:
        return scalar_literal
    element = m.group(2)
    return "<" + ", ".join([f"{element} {scalar_literal}"] * int(m.group(1))) + ">"


def _float_literal(scalar, value):
    if scalar == "half":
        return "0xH" + struct.pack(">e", value).hex().upper()
    return "0x" + struct.pack(">d", value).hex().upper()


def _intrinsic_suffix(type_text):
    m = re.fullmatch(r"<(\d+) x (\w+)>", type_text)
    scalar = m.group(2) if m else type_text
    short = {"half": "f16", "float": "f32", "double": "f64"}[scalar]
    return f"v{m.group(1)}{short}" if m else short


def _bool_type(type_text):
    m = re.fullmatch(r"<(\d+) x \w+>", type_text)
    return f"<{m.group(1)} x i1>" if m else "i1"


def _float_bits(param):
    if param[0] == "vec":
        param = param[2]
    return param[1] if param[0] == "float" else None


def _split_params(text):
    return [re.sub(r"\s+(?:noundef|signext|zeroext)\b", "", p) for p in split_top_level(text)]


