"""LLVM IR semantics of the interpreter on hand-written IR (LangRef rules: wrapping and
unsigned integer operations, ordered/unordered fcmp, casts, vectors, intrinsics, atomics)."""
import numpy as np
import pytest

import clcoop
from clcoop.errors import IRError

HEADER = """target datalayout = "e-i64:64-v16:16-v24:32-v32:32-v48:64-v96:128-v192:256-v256:256-v512:512-v1024:1024-G1"
target triple = "spir64-unknown-unknown"
declare spir_func i64 @_Z13get_global_idj(i32)
"""


def run_unary(in_t, out_t, body, x, out_dtype, decls=""):
    """Run `body` (computes %r : out_t from %x : in_t) for each element of x."""
    ir = HEADER + decls + f"""
define spir_kernel void @k(ptr addrspace(1) %out, ptr addrspace(1) %in) {{
entry:
  %gid = call spir_func i64 @_Z13get_global_idj(i32 0)
  %pin = getelementptr {in_t}, ptr addrspace(1) %in, i64 %gid
  %x = load {in_t}, ptr addrspace(1) %pin
{body}
  %pout = getelementptr {out_t}, ptr addrspace(1) %out, i64 %gid
  store {out_t} %r, ptr addrspace(1) %pout
  ret void
}}
"""
    out = np.zeros(len(x), out_dtype)
    clcoop.Program.from_ir(ir).k(len(x), 1, out, np.ascontiguousarray(x))
    return out


I32 = np.array([-1, 0, 7, 100, -100, 2**31 - 1, -2**31], np.int32)


@pytest.mark.parametrize("op, ref", [
    ("udiv", lambda x: (x.view(np.uint32) // 7).view(np.int32)),
    ("urem", lambda x: (x.view(np.uint32) % 7).view(np.int32)),
    ("sdiv", lambda x: np.array([int(v / 7) for v in x.astype(np.int64)], np.int32)),
    ("srem", lambda x: np.array([v - 7 * int(v / 7) for v in x.astype(np.int64)], np.int32)),
    ("lshr", lambda x: (x.view(np.uint32) >> 7).view(np.int32)),
    ("ashr", lambda x: x >> 7),
    ("shl", lambda x: (x.astype(np.int64) << 7).astype(np.int32)),
    ("mul", lambda x: (x.astype(np.int64) * 7).astype(np.int32)),
    ("add", lambda x: (x.astype(np.int64) + 7).astype(np.int32)),
])
def test_integer_binary_ops_wrap_and_respect_signedness(op, ref):
    out = run_unary("i32", "i32", f"  %r = {op} i32 %x, 7", I32, np.int32)
    np.testing.assert_array_equal(out, ref(I32))


def test_icmp_unsigned_and_zext_of_i1():
    out = run_unary("i32", "i32", "  %c = icmp ult i32 %x, 100\n  %r = zext i1 %c to i32", I32, np.int32)
    np.testing.assert_array_equal(out, (I32.view(np.uint32) < 100).astype(np.int32))


def test_sext_of_i1_and_sitofp_of_i1():
    out = run_unary("i32", "float", "  %c = icmp slt i32 %x, 0\n  %r = sitofp i1 %c to float", I32, np.float32)
    np.testing.assert_array_equal(out, np.where(I32 < 0, -1.0, 0.0))


F32 = np.array([1.0, np.nan, -2.5, 3e9, 0.0], np.float32)


@pytest.mark.parametrize("pred, ref", [
    ("one", lambda a: ~np.isnan(a) & (a != 1.0)),
    ("ueq", lambda a: np.isnan(a) | (a == 1.0)),
    ("une", lambda a: a != 1.0),
    ("olt", lambda a: a < 1.0),
    ("uge", lambda a: np.isnan(a) | (a >= 1.0)),
    ("uno", lambda a: np.isnan(a)),
])
def test_fcmp_ordered_and_unordered(pred, ref):
    body = f"  %c = fcmp {pred} float %x, 1.0\n  %r = zext i1 %c to i8"
    out = run_unary("float", "i8", body, F32, np.int8)
    np.testing.assert_array_equal(out.astype(bool), ref(F32))


def test_fptoui_and_uitofp():
    out = run_unary("float", "i32", "  %r = fptoui float %x to i32", np.array([3e9, 7.9], np.float32), np.uint32)
    np.testing.assert_array_equal(out, [3000000000, 7])
    out = run_unary("i32", "float", "  %r = uitofp i32 %x to float", np.array([-1, 5], np.int32), np.float32)
    np.testing.assert_array_equal(out, [4294967296.0, 5.0])


def test_vectors_insert_shuffle_with_poison_extract_and_bitcast():
    body = """  %v0 = insertelement <4 x i32> poison, i32 %x, i64 0
  %v1 = insertelement <4 x i32> %v0, i32 10, i64 1
  %s = shufflevector <4 x i32> %v1, <4 x i32> <i32 20, i32 30, i32 40, i32 50>, <4 x i32> <i32 1, i32 poison, i32 6, i32 0>
  %f = freeze <4 x i32> %s
  %a = extractelement <4 x i32> %f, i64 0
  %b = extractelement <4 x i32> %f, i32 2
  %c = extractelement <4 x i32> %f, i64 3
  %ab = mul i32 %a, %b
  %r = add i32 %ab, %c"""
    x = np.array([1, 2, 3], np.int32)
    np.testing.assert_array_equal(run_unary("i32", "i32", body, x, np.int32), 10 * 40 + x)
    body = "  %h = bitcast i32 %x to <2 x half>\n  %r = extractelement <2 x half> %h, i64 1"
    bits = np.array([0x3C000000, 0x40000000], np.int32)
    np.testing.assert_array_equal(run_unary("i32", "half", body, bits, np.float16), [1.0, 2.0])


@pytest.mark.parametrize("body, decl, ref", [
    ("  %r = call i32 @llvm.smax.i32(i32 %x, i32 5)", "declare i32 @llvm.smax.i32(i32, i32)",
     lambda x: np.maximum(x, 5)),
    ("  %r = call i32 @llvm.umin.i32(i32 %x, i32 5)", "declare i32 @llvm.umin.i32(i32, i32)",
     lambda x: np.minimum(x.view(np.uint32), 5).astype(np.int32)),
    ("  %r = call i32 @llvm.abs.i32(i32 %x, i1 false)", "declare i32 @llvm.abs.i32(i32, i1)",
     lambda x: np.abs(x)),
    ("  %r = call i32 @llvm.ctpop.i32(i32 %x)", "declare i32 @llvm.ctpop.i32(i32)",
     lambda x: np.array([bin(v & 0xFFFFFFFF).count("1") for v in x.tolist()], np.int32)),
    ("  %r = call i32 @llvm.ctlz.i32(i32 %x, i1 false)", "declare i32 @llvm.ctlz.i32(i32, i1)",
     lambda x: np.array([32 - (v & 0xFFFFFFFF).bit_length() for v in x.tolist()], np.int32)),
    ("  %r = call i32 @llvm.fshl.i32(i32 %x, i32 %x, i32 8)", "declare i32 @llvm.fshl.i32(i32, i32, i32)",
     lambda x: ((x.view(np.uint32) << 8) | (x.view(np.uint32) >> 24)).view(np.int32)),
    ("  %r = call i32 @llvm.bitreverse.i32(i32 %x)", "declare i32 @llvm.bitreverse.i32(i32)",
     lambda x: np.array([int(f"{v & 0xFFFFFFFF:032b}"[::-1], 2) for v in x.tolist()], np.uint32).view(np.int32)),
    ("  %r = call i32 @llvm.usub.sat.i32(i32 %x, i32 7)", "declare i32 @llvm.usub.sat.i32(i32, i32)",
     lambda x: np.where(x.view(np.uint32) > 7, x.view(np.uint32) - 7, 0).astype(np.uint32).view(np.int32)),
    ("  %s = call { i32, i1 } @llvm.umul.with.overflow.i32(i32 %x, i32 3)\n"
     "  %o = extractvalue { i32, i1 } %s, 1\n  %r = zext i1 %o to i32",
     "declare { i32, i1 } @llvm.umul.with.overflow.i32(i32, i32)",
     lambda x: (x.view(np.uint32).astype(np.uint64) * 3 > 0xFFFFFFFF).astype(np.int32)),
    ("  %v = insertelement <4 x i32> <i32 1, i32 2, i32 3, i32 4>, i32 %x, i64 2\n"
     "  %r = call i32 @llvm.vector.reduce.add.v4i32(<4 x i32> %v)",
     "declare i32 @llvm.vector.reduce.add.v4i32(<4 x i32>)", lambda x: (x.astype(np.int64) + 7).astype(np.int32)),
])
def test_integer_intrinsics(body, decl, ref):
    out = run_unary("i32", "i32", body, I32, np.int32, decls=decl + "\n")
    np.testing.assert_array_equal(out, ref(I32))


def test_float_intrinsics():
    x = np.array([1.5, -2.5, 0.5, 9.0], np.float32)
    body = """  %a = call float @llvm.fmuladd.f32(float %x, float 2.0, float 1.0)
  %b = call float @llvm.round.f32(float %x)
  %c = call float @llvm.sqrt.f32(float %a)
  %d = call float @llvm.maxnum.f32(float %b, float 0x7FF8000000000000)
  %e = fadd float %c, %d
  %r = call float @llvm.copysign.f32(float %e, float %x)"""
    decls = "\n".join(f"declare float @llvm.{n}.f32({a})" for n, a in
                      [("fmuladd", "float, float, float"), ("round", "float"), ("sqrt", "float"),
                       ("maxnum", "float, float"), ("copysign", "float, float")]) + "\n"
    out = run_unary("float", "float", body, x, np.float32, decls=decls)
    a = x * 2 + 1
    b = np.copysign(np.floor(np.abs(x) + 0.5), x)          # round half away from zero
    want = np.copysign(np.sqrt(np.abs(a)) * np.where(a >= 0, 1, np.nan) + b, x)
    np.testing.assert_allclose(out[[0, 2, 3]], want[[0, 2, 3]], rtol=1e-6)
    assert np.isnan(out[1])      # sqrt of a negative number


def test_memset_memcpy_through_private_array():
    body = """  %arr = alloca [4 x i32], align 4
  call void @llvm.memset.p0.i64(ptr %arr, i8 1, i64 16, i1 false)
  %p2 = getelementptr [4 x i32], ptr %arr, i64 0, i64 2
  store i32 %x, ptr %p2
  %copy = alloca [4 x i32], align 4
  call void @llvm.memcpy.p0.p0.i64(ptr %copy, ptr %arr, i64 16, i1 false)
  %q1 = getelementptr i32, ptr %copy, i64 1
  %q2 = getelementptr i8, ptr %copy, i64 8
  %a = load i32, ptr %q1
  %b = load i32, ptr %q2
  %r = add i32 %a, %b"""
    decls = ("declare void @llvm.memset.p0.i64(ptr, i8, i64, i1)\n"
             "declare void @llvm.memcpy.p0.p0.i64(ptr, ptr, i64, i1)\n")
    x = np.array([5, -3], np.int32)
    np.testing.assert_array_equal(run_unary("i32", "i32", body, x, np.int32, decls), 0x01010101 + x)


def test_atomicrmw_on_one_address_returns_old_values_in_lane_order():
    ir = HEADER + """
define spir_kernel void @k(ptr addrspace(1) %counter, ptr addrspace(1) %olds) {
  %gid = call spir_func i64 @_Z13get_global_idj(i32 0)
  %old = atomicrmw add ptr addrspace(1) %counter, i32 2 seq_cst, align 4
  %max = atomicrmw umax ptr addrspace(1) %counter, i32 1 monotonic, align 4
  %p = getelementptr i32, ptr addrspace(1) %olds, i64 %gid
  store i32 %old, ptr addrspace(1) %p
  ret void
}
"""
    counter = np.zeros(1, np.int32)
    olds = np.zeros(64, np.int32)
    clcoop.Program.from_ir(ir).k(64, 16, counter, olds)
    assert counter[0] == 128
    np.testing.assert_array_equal(olds, 2 * np.arange(64))


def test_switch_phi_and_divergent_loop_reconverge():
    ir = HEADER + """
define spir_kernel void @k(ptr addrspace(1) %out, ptr addrspace(1) %in) {
entry:
  %gid = call spir_func i64 @_Z13get_global_idj(i32 0)
  %pin = getelementptr i32, ptr addrspace(1) %in, i64 %gid
  %n = load i32, ptr addrspace(1) %pin
  br label %loop
loop:
  %i = phi i32 [ 0, %entry ], [ %i.next, %latch ]
  %acc = phi i32 [ 0, %entry ], [ %acc.next, %latch ]
  %t = trunc i32 %i to i8
  switch i8 %t, label %other [ i8 0, label %zero
                               i8 -1, label %zero ]
zero:
  br label %latch
other:
  %sq = mul i32 %i, %i
  br label %latch
latch:
  %add = phi i32 [ 100, %zero ], [ %sq, %other ]
  %acc.next = add i32 %acc, %add
  %i.next = add i32 %i, 1
  %done = icmp sge i32 %i.next, %n
  br i1 %done, label %exit, label %loop
exit:
  %pout = getelementptr i32, ptr addrspace(1) %out, i64 %gid
  store i32 %acc.next, ptr addrspace(1) %pout
  ret void
}
"""
    n = np.array([1, 5, 2, 9, 3, 0, 7, 4], np.int32)
    out = np.zeros(8, np.int32)
    clcoop.Program.from_ir(ir).k(8, 8, out, n)
    want = [100 + sum(i * i for i in range(1, max(int(k), 1))) for k in n]
    np.testing.assert_array_equal(out, want)


def test_vector_index_past_the_end_is_poison_not_a_crash():
    """extractelement/insertelement with a constant index past the vector give poison
    (LangRef), not an IndexError (found by scripts/fuzz_ir.py)."""
    ir = '''target triple = "spir64-unknown-unknown"
define spir_kernel void @k(ptr addrspace(1) %o) {
  %v = insertelement <4 x i32> zeroinitializer, i32 7, i64 9
  %e = extractelement <4 x i32> %v, i64 2147483647
  store i32 %e, ptr addrspace(1) %o, align 4
  ret void
}'''
    out = np.zeros(4, np.int32)
    clcoop.Program.from_ir(ir).k(1, 1, out)     # any value: poison


@pytest.mark.parametrize("engine", ["interp", "native"])
def test_intrinsic_declared_with_another_result_is_refused_not_an_abort(engine):
    """LLVM's parser rewrites a call of an intrinsic declared with another signature and,
    when the call's result is used, aborts the process (found by scripts/fuzz_ir.py): such a
    declaration is an IRError; an old-style one LLVM upgrades safely (void) still runs."""
    bad = '''target triple = "spir64-unknown-unknown"
declare float @llvm.lifetime.start.p0(<4 x float>, <4 x float>)
define spir_kernel void @k(ptr addrspace(1) %o, <4 x float> %a) {
  %c = call float @llvm.lifetime.start.p0(<4 x float> %a, <4 x float> %a)
  store float %c, ptr addrspace(1) %o
  ret void
}'''
    with pytest.raises(IRError, match="declaration of @llvm.lifetime.start.p0 does not match"):
        clcoop.Program.from_ir(bad, engine=engine)
    old = '''target triple = "spir64-unknown-unknown"
declare void @llvm.lifetime.start.p0(i64, ptr)
define spir_kernel void @k(ptr addrspace(1) %o) {
  %x = alloca i32
  call void @llvm.lifetime.start.p0(i64 4, ptr %x)
  store i32 3, ptr addrspace(1) %o
  ret void
}'''
    out = np.zeros(1, np.int32)
    clcoop.Program.from_ir(old).k(1, 1, out)
    assert out[0] == 3


def test_gep_offset_past_64_bits_wraps_instead_of_overflowing():
    """A constant GEP offset of -2**62 floats is -2**64 bytes: address arithmetic wraps at
    64 bits (LangRef), so it lands on the pointer itself (found by scripts/fuzz_ir.py: the
    interpreter raised Python's OverflowError)."""
    ir = HEADER + '''
define spir_kernel void @k(ptr addrspace(1) %o) {
  %p = getelementptr inbounds float, ptr addrspace(1) %o, i64 -4611686018427387904
  store float 2.0, ptr addrspace(1) %p, align 4
  ret void
}'''
    out = np.zeros(2, np.float32)
    clcoop.Program.from_ir(ir).k(1, 1, out)
    assert out[0] == 2.0


def test_intrinsic_called_without_a_declaration_is_refused():
    """LLVM declares an intrinsic called without a declaration from the call and rewrites
    it the same way, aborting the process (scripts/fuzz_ir.py, seed 23 case 938)."""
    ir = '''target triple = "spir64-unknown-unknown"
define spir_kernel void @k(ptr addrspace(1) %o, <4 x float> %a) {
  %c = call float @llvm.lifetime.start.p0(<4 x float> %a, <4 x float> %a)
  store float %c, ptr addrspace(1) %o
  ret void
}'''
    with pytest.raises(IRError, match="@llvm.lifetime.start.p0 is called but not declared"):
        clcoop.Program.from_ir(ir)
