"""SPIR-V for fp8 (SPV_EXT_float8) after llc-22 (docs/coopmat2-semantics.md "fp8").

llc-22 writes the fp8 matrix component types (the IR's inline `OpTypeFloat 8 <encoding>`),
but neither the capabilities nor the extension, and it leaves the scalar conversions
(clcoop/float8.py's `__builtin_spirv_[Clamp]Convert<S>To<D>EXT/INTEL` calls) imported
functions. `rewrite_float8` makes each such call the extension's instruction on the fp8 type,
with OpBitcast between it and the i8 that holds the bits in the IR (as the
SPIRV-LLVM-Translator does):

    to fp8:    %t = OpFConvert / OpConvertSToF / OpConvertUToF %fp8 %x ; %r = OpBitcast %uchar %t
               (saturating: %t decorated SaturatedToLargestFloat8NormalConversionEXT)
    from fp8:  %t = OpBitcast %fp8 %x ; %r = OpFConvert / OpConvertFToS / OpConvertFToU %T %t

and declares Float8EXT, Float8CooperativeMatrixEXT (for fp8 matrices) and SPV_EXT_float8.
The i8 scalar of `coop_mat_init` is bitcast to the fp8 component before OpCompositeConstruct
(element access needs nothing: llc-22 bitcasts the element pointer to a uchar pointer).
"""
import re

from clcoop import float8
from clcoop.ir.demangle import demangle
from clcoop.spirv import binary as sb
from clcoop.spirv.rewrite import _Rewriter

OP_CONVERT_F_TO_U, OP_CONVERT_F_TO_S, OP_CONVERT_S_TO_F, OP_CONVERT_U_TO_F, OP_FCONVERT = 109, 110, 111, 112, 115


def conversion_of(name):
    """The float8.Conversion a (mangled) callee name names, or None."""
    return float8.parse_conversion(demangle(name)[0])


def _conversions(module):
    """Imported function id -> the float8.Conversion it names."""
    found = {fid: conversion_of(name) for fid, name in sb.imported_functions(module).items()}
    return {fid: conversion for fid, conversion in found.items() if conversion is not None}


def _is_fp8_token(token):
    return token in float8.BY_TOKEN


def _opcode(conversion):
    """The conversion instruction (SPIR-V 3.42.11) on the fp8 value."""
    other = conversion.source if _is_fp8_token(conversion.target) else conversion.target
    if _is_fp8_token(other) or other.startswith("FP") or other == "BF16":
        return OP_FCONVERT
    if _is_fp8_token(conversion.target):
        return OP_CONVERT_S_TO_F if other.startswith("I") else OP_CONVERT_U_TO_F
    return OP_CONVERT_F_TO_S if other.startswith("I") else OP_CONVERT_F_TO_U


class _Float8Rewriter:
    def __init__(self, module):
        self.module = module
        self.types = {}             # encoding -> OpTypeFloat id
        self.new_types = []
        self.decorations = []
        for inst in module.instructions:
            if inst.opcode == sb.OP_TYPE_FLOAT and len(inst.operands) == 3 and inst.operands[2] in float8.BY_ENCODING:
                self.types.setdefault(inst.operands[2], inst.operands[0])

    def fp8_type(self, token):
        encoding = float8.BY_TOKEN[token].encoding
        if encoding not in self.types:
            fresh = self.module.new_id()
            self.types[encoding] = fresh
            self.new_types.append(sb.Instruction(sb.OP_TYPE_FLOAT, [fresh, 8, encoding]))
        return self.types[encoding]

    def call(self, inst, conversion):
        """The instructions replacing one conversion call."""
        result_type, result, _, operand = inst.operands[:4]
        out = []
        if _is_fp8_token(conversion.source):
            bits = self.module.new_id()
            out.append(sb.Instruction(sb.OP_BITCAST, [self.fp8_type(conversion.source), bits, operand]))
            operand = bits
        if _is_fp8_token(conversion.target):
            converted = self.module.new_id()
            out.append(sb.Instruction(_opcode(conversion), [self.fp8_type(conversion.target), converted, operand]))
            out.append(sb.Instruction(sb.OP_BITCAST, [result_type, result, converted]))
            if conversion.saturate:
                self.decorations.append(sb.Instruction(sb.OP_DECORATE, [converted, float8.DECORATION_SATURATED]))
        else:
            out.append(sb.Instruction(_opcode(conversion), [result_type, result, operand]))
        return out

    def rewrite(self):
        conversions = _conversions(self.module)
        output = []
        for inst in self.module.instructions:
            if inst.opcode == sb.OP_FUNCTION_CALL and inst.operands[2] in conversions:
                output.extend(self.call(inst, conversions[inst.operands[2]]))
            else:
                output.append(inst)
        self.module.instructions = self.fp8_constituents(output)
        if conversions:
            dropper = _Rewriter(self.module)
            dropper.targets = dict.fromkeys(conversions)
            dropper.drop_imports()
        if not self.types:
            return self.module
        self.insert(self.new_types, _first_index(self.module, sb.TYPE_OPCODES))
        self.insert(self.decorations, _first_index(self.module, sb.TYPE_OPCODES | {sb.OP_FUNCTION}))
        self.declare()
        return self.module

    def fp8_constituents(self, instructions):
        """OpCompositeConstruct of an fp8 matrix from the i8 that holds the bits
        (`coop_mat_init`): the scalar is bitcast to the component type first."""
        matrices = {inst.operands[0]: inst.operands[1] for inst in instructions
                    if inst.opcode == sb.OP_TYPE_COOPERATIVE_MATRIX_KHR and inst.operands[1] in self.types.values()}
        value_types = {inst.result_id: inst.result_type for inst in instructions if inst.result_type is not None}
        output = []
        for inst in instructions:
            component = matrices.get(inst.operands[0]) if inst.opcode == sb.OP_COMPOSITE_CONSTRUCT else None
            if component is not None and value_types.get(inst.operands[2]) != component:
                bits = self.module.new_id()
                output.append(sb.Instruction(sb.OP_BITCAST, [component, bits, inst.operands[2]]))
                inst = sb.Instruction(inst.opcode, inst.operands[:2] + [bits] + inst.operands[3:])
            output.append(inst)
        return output

    def insert(self, instructions, at):
        self.module.instructions[at:at] = instructions

    def declare(self):
        """Float8EXT, Float8CooperativeMatrixEXT where an fp8 matrix type exists, SPV_EXT_float8."""
        fp8_ids = set(self.types.values())
        capabilities = [float8.CAPABILITY_FLOAT8]
        if any(inst.opcode == sb.OP_TYPE_COOPERATIVE_MATRIX_KHR and inst.operands[1] in fp8_ids
               for inst in self.module.instructions):
            capabilities.append(float8.CAPABILITY_FLOAT8_MATRIX)
        last_capability = max(i for i, inst in enumerate(self.module.instructions) if inst.opcode == sb.OP_CAPABILITY)
        self.insert([sb.Instruction(sb.OP_CAPABILITY, [c]) for c in capabilities], last_capability + 1)
        extension = sb.Instruction(sb.OP_EXTENSION, sb.encode_string(float8.EXTENSION))
        self.insert([extension], _first_index(self.module, {11, 14}))    # before OpExtInstImport / OpMemoryModel


def _first_index(module, opcodes):
    return next(i for i, inst in enumerate(module.instructions) if inst.opcode in opcodes)


def rewrite_float8(module):
    """The module with fp8 conversions as instructions and SPV_EXT_float8 declared."""
    return _Float8Rewriter(module).rewrite()


_IR_TYPE_RE = re.compile(float8.IR_TYPE_PATTERN)


def uses_float8(ir_text):
    """True when IR text has an fp8 matrix component type (llc-22 writes it without Float8EXT)."""
    return bool(_IR_TYPE_RE.search(ir_text))
