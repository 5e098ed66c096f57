"""clcoop.spirv.llc_workarounds: the IR it writes before llc-22 computes what the IR it was given
computes. Oracle: NumPy's casts and sign tests, with the rewritten IR run on the host through
llvmlite's MCJIT (LLVM's own x86 code for the plain IR, no SPIR-V involved). The SPIR-V side
(spirv-val, the instructions) is in test/lit/spirv/emit-any-all.cl, emit-ldexp-scalar-exponent.cl
and emit-zext-of-trunc.cl."""
import ctypes

import llvmlite.binding as llvm
import numpy as np
import pytest

from clcoop.spirv.llc_workarounds import define_any_all, narrow_zext_of_trunc, split_vector_ldexp

_ENGINES = []   # kept alive for the module's lifetime: freeing an MCJIT engine early crashes


def _jit(ir_text, name):
    llvm.initialize_native_target()
    llvm.initialize_native_asmprinter()
    module = llvm.parse_assembly(ir_text)
    module.verify()
    machine = llvm.Target.from_default_triple().create_target_machine()
    engine = llvm.create_mcjit_compiler(module, machine)
    engine.finalize_object()
    _ENGINES.append(engine)
    return engine.get_function_address(name)


def _ir_type(dtype, lanes):
    element = f"i{np.dtype(dtype).itemsize * 8}"
    return element if lanes == 1 else f"<{lanes} x {element}>"


def _edge_values(dtype, count=64):
    info = np.iinfo(dtype)
    rng = np.random.default_rng(7)
    edges = np.array([0, 1, -1, info.min, info.max, 255, 256, 65535, 65536], dtype=np.int64)
    edges = edges.astype(dtype)
    return np.concatenate([edges, rng.integers(info.min, info.max, count, dtype=dtype, endpoint=True)])


# (source, middle, result) with the source wider than the result: the cases llc-22 folds wrongly
NARROWING = [(np.int64, np.uint8, np.uint32), (np.int64, np.uint8, np.uint16),
             (np.int64, np.uint16, np.uint32), (np.int32, np.uint8, np.uint16),
             (np.int64, np.bool_, np.uint32)]


@pytest.mark.parametrize("lanes", [1, 4])
@pytest.mark.parametrize("source, middle, result", NARROWING)
def test_zext_of_trunc_rewrite_computes_the_casts(source, middle, result, lanes):
    src, dst = _ir_type(source, lanes), _ir_type(result, lanes)
    mid_element = "i1" if middle is np.bool_ else f"i{np.dtype(middle).itemsize * 8}"
    mid = mid_element if lanes == 1 else f"<{lanes} x {mid_element}>"
    ir = (f"define void @f(ptr %in, ptr %out) {{\n"
          f"entry:\n  %x = load {src}, ptr %in, align 1\n"
          f"  %t = trunc {src} %x to {mid}\n  br label %next\n"
          f"next:\n  %z = zext {mid} %t to {dst}\n  store {dst} %z, ptr %out, align 1\n  ret void\n}}\n")
    rewritten = narrow_zext_of_trunc(ir)
    assert "zext" not in rewritten and f"= and {dst} %__clcoop.narrow.1" in rewritten
    run = ctypes.CFUNCTYPE(None, ctypes.c_void_p, ctypes.c_void_p)(_jit(rewritten, "f"))
    values = _edge_values(source)
    mask = 1 if middle is np.bool_ else np.iinfo(middle).max
    for start in range(0, len(values) - lanes + 1, lanes):
        x = np.ascontiguousarray(values[start:start + lanes])
        out = np.zeros(lanes, dtype=result)
        run(x.ctypes.data, out.ctypes.data)
        expected = (x.astype(np.uint64) & np.uint64(mask)).astype(result)
        np.testing.assert_array_equal(out, expected, err_msg=f"x={x}")


def test_zext_of_trunc_keeps_other_extensions_and_reads_functions_apart():
    # the zext's block written before the truncation's block; `%t` in @g is a narrowing the rule
    # does not take (i16 -> i8 -> i32), `%u` a sign extension; the !dbg trailer stays on both lines
    ir = ("define i32 @f(i64 %x) {\nentry:\n  br label %late\nuse:\n"
          "  %z = zext i8 %t to i32, !dbg !7\n  ret i32 %z\nlate:\n  %t = trunc i64 %x to i8\n"
          "  br label %use\n}\n\n"
          "define i32 @g(i16 %x) {\nentry:\n  %t = trunc i16 %x to i8\n  %z = zext i8 %t to i32\n"
          "  %u = sext i8 %t to i32\n  %s = add i32 %z, %u\n  ret i32 %s\n}\n")
    rewritten = narrow_zext_of_trunc(ir)
    assert ("  %__clcoop.narrow.1 = trunc i64 %x to i32, !dbg !7\n"
            "  %z = and i32 %__clcoop.narrow.1, 255, !dbg !7\n") in rewritten
    assert rewritten.split("define i32 @g")[1] == ir.split("define i32 @g")[1]


@pytest.mark.parametrize("dtype, code", [(np.int8, "c"), (np.int16, "s"), (np.int32, "i"), (np.int64, "l")])
@pytest.mark.parametrize("op", ["any", "all"])
def test_scalar_any_all_is_the_sign_bit(dtype, code, op):
    ty = _ir_type(dtype, 1)
    ir = (f"define i32 @f({ty} %x) {{\n  %r = call spir_func i32 @_Z3{op}{code}({ty} signext %x)\n"
          f"  ret i32 %r\n}}\n\ndeclare spir_func i32 @_Z3{op}{code}({ty} signext) #1\n")
    rewritten = define_any_all(ir)
    assert "declare" not in rewritten
    ctype = np.ctypeslib.as_ctypes_type(dtype)
    run = ctypes.CFUNCTYPE(ctypes.c_int32, ctype)(_jit(rewritten, "f"))
    for x in _edge_values(dtype):
        assert run(ctype(int(x))) == int(x < 0), x


def test_vector_any_all_compare_each_lane_and_ldexp_splats_once():
    ir = ("define void @f(<4 x i16> %v, <2 x float> %a, <2 x i32> %e, i32 %k) {\n"
          "  %r = call spir_func i32 @_Z3allDv4_s(<4 x i16> %v)\n"
          "  %p = call spir_func <2 x float> @_Z5ldexpDv2_fi(<2 x float> %a, i32 %k)\n"
          "  %q = call spir_func <2 x float> @_Z5ldexpDv2_fDv2_i(<2 x float> %a, <2 x i32> %e)\n"
          "  ret void\n}\n\ndeclare spir_func i32 @_Z3allDv4_s(<4 x i16>)\n"
          "declare spir_func <2 x float> @_Z5ldexpDv2_fi(<2 x float>, i32)\n"
          "declare spir_func <2 x float> @_Z5ldexpDv2_fDv2_i(<2 x float>, <2 x i32>)\n")
    rewritten = split_vector_ldexp(define_any_all(ir))
    llvm.parse_assembly(rewritten).verify()
    assert "icmp slt <4 x i16> %x, zeroinitializer" in rewritten
    assert "call spir_func i1 @_Z11__spirv_AllDv4_b(<4 x i1> %signs)" in rewritten
    assert rewritten.count("declare spir_func <2 x float> @_Z5ldexpDv2_fDv2_i(") == 1
    assert "@_Z5ldexpDv2_fi(" not in rewritten
    assert "shufflevector <2 x i32> %k.first, <2 x i32> poison, <2 x i32> zeroinitializer" in rewritten
