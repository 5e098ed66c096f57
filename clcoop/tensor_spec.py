"""Tensor layout and view types (SPV_NV_tensor_addressing), pure: their parameters, their
LLVM IR encoding, and how callee names spell them (docs/ir-conventions.md "Tensor
layouts and views").

A type is `target("spirv.Type", <integral constants>..., <opcode>, 0, 0)`, the inline
SPIR-V type llc-22 turns into OpTypeTensorLayoutNV (5370) / OpTypeTensorViewNV (5371)
with the constants as operands:

    layout  target("spirv.Type", target("spirv.IntegralConstant", i32, D),
                   target("spirv.IntegralConstant", i32, ClampMode), 5370, 0, 0)
    view    target("spirv.Type", target("spirv.IntegralConstant", i32, D),
                   target("spirv.IntegralConstant", i1, HasDimensions),
                   target("spirv.IntegralConstant", i32, p0), ..., 5371, 0, 0)

A made-up `target("spirv.TensorLayoutNV")` makes llc-22 abort.
"""
import re

from clcoop.coopmat_spec import ClampMode, tensor_type_problem
from clcoop.records import record

OP_TYPE_TENSOR_LAYOUT = 5370
OP_TYPE_TENSOR_VIEW = 5371
INLINE_TYPE = "spirv.Type"
INTEGRAL_CONSTANT = "spirv.IntegralConstant"
LAYOUT, VIEW = "layout", "view"
_KIND_BY_OPCODE = {OP_TYPE_TENSOR_LAYOUT: LAYOUT, OP_TYPE_TENSOR_VIEW: VIEW}

# `target("spirv.IntegralConstant", i32, 2)` -> (i32, 2)
_CONSTANT_RE = re.compile(r'target\s*\(\s*"spirv\.IntegralConstant"\s*,\s*(i1|i32)\s*,\s*(-?\d+)\s*\)')
_OPCODE_RE = re.compile(r",\s*(\d+)\s*,\s*\d+\s*,\s*\d+\s*\)\s*$")


@record(frozen=True)
class TensorType:
    """tensorLayoutNV<dims, clamp_mode> or tensorViewNV<dims, has_dimensions, p...>."""
    kind: str                    # LAYOUT or VIEW
    dims: int
    clamp_mode: int = 0          # layouts
    has_dimensions: bool = False  # views
    permutation: tuple = ()       # views

    @classmethod
    def layout(cls, dims, clamp_mode):
        return cls(LAYOUT, int(dims), int(clamp_mode))

    @classmethod
    def view(cls, dims, has_dimensions, permutation):
        return cls(VIEW, int(dims), 0, bool(has_dimensions), tuple(int(p) for p in permutation))

    @property
    def is_layout(self):
        return self.kind == LAYOUT

    def problem(self):
        """coopmat_spec's rule: 1..5 dimensions, a clamp mode, a permutation."""
        if self.is_layout:
            return tensor_type_problem(self.dims, self.clamp_mode)
        return tensor_type_problem(self.dims, permutation=self.permutation)

    def constants(self):
        """The operands of the SPIR-V type after its result id, as (IR type, value)."""
        if self.is_layout:
            return (("i32", self.dims), ("i32", self.clamp_mode))
        return (("i32", self.dims), ("i1", int(self.has_dimensions))) + \
            tuple(("i32", p) for p in self.permutation)

    @property
    def opcode(self):
        return OP_TYPE_TENSOR_LAYOUT if self.is_layout else OP_TYPE_TENSOR_VIEW

    def ir_text(self):
        params = ", ".join(f'target("{INTEGRAL_CONSTANT}", {t}, {v})' for t, v in self.constants())
        return f'target("{INLINE_TYPE}", {params}, {self.opcode}, 0, 0)'

    @classmethod
    def parse(cls, text):
        """The TensorType of IR type text, None when it is not one."""
        if INLINE_TYPE not in text:
            return None
        opcode = _OPCODE_RE.search(text)
        kind = _KIND_BY_OPCODE.get(int(opcode.group(1))) if opcode else None
        values = [int(v) for _, v in _CONSTANT_RE.findall(text)]
        if kind is None or len(values) < 2:
            return None
        if kind == LAYOUT:
            return cls.layout(values[0], values[1]) if len(values) == 2 else None
        return cls.view(values[0], values[1], values[2:])

    @classmethod
    def from_constants(cls, opcode, values):
        """From the loader: the opcode and the integral constants' values, in order."""
        kind = _KIND_BY_OPCODE.get(opcode)
        if kind == LAYOUT and len(values) == 2:
            return cls.layout(*values)
        if kind == VIEW and len(values) >= 2:
            return cls.view(values[0], values[1], values[2:])
        return None

    def mangled(self):
        """An Itanium vendor-extended type naming this type in callee names, so that every
        signature has its own callee (llc-22 trusts a callee's declared types):
        `u17TensorLayoutNV_2_1` (dims, clamp mode), `u17TensorViewNV_2_1_10` (dims,
        has dimensions, permutation digits)."""
        if self.is_layout:
            name = f"TensorLayoutNV_{self.dims}_{self.clamp_mode}"
        else:
            name = f"TensorViewNV_{self.dims}_{int(self.has_dimensions)}_" + \
                "".join(map(str, self.permutation))
        return f"u{len(name)}{name}"

    def spelling(self):
        """As the attribute is written (diagnostics)."""
        if self.is_layout:
            mode = ClampMode(self.clamp_mode).opencl if self.clamp_mode in ClampMode._value2member_map_ \
                else str(self.clamp_mode)
            return f"coop_tensor_layout_t __attribute__((coop_tensor_layout({self.dims}, {mode})))"
        args = ", ".join([str(self.dims), "true" if self.has_dimensions else "false"]
                         + [str(p) for p in self.permutation])
        return f"coop_tensor_view_t __attribute__((coop_tensor_view({args})))"

    @property
    def field_count(self):
        """How many int64 values the interpreter keeps for a value of this type (its
        state, clcoop.interp.tensor_calls): a layout's dimension, stride, offset, span and
        block size per dimension and its clamp value; a view's dimension and stride per
        dimension and its clip."""
        return 5 * self.dims + 1 if self.is_layout else 2 * self.dims + 4
