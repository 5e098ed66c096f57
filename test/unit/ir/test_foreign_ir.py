"""Cooperative-matrix IR from other producers runs in the interpreter (issue 15): the
SPIRV-LLVM-Translator's KHR test forms, the clang pull request's suffixed names, and every
spelling llc-22 lowers (checked against llc-22 itself). Results against NumPy.

The IR files in kernels/foreign_ir/ are written for these tests in each producer's form
(their first lines say which); clcoop.ir.coop_spellings reads the names."""
import subprocess
from pathlib import Path

import numpy as np
import pytest

import clcoop
from clcoop.errors import ClcoopError, RuntimeFault, ToolMissing
from clcoop.ir import coop_spellings
from clcoop.ir.loader import parse_type_text
from clcoop.spirv import find_tool, llc_spirv

FOREIGN = Path(__file__).resolve().parents[1] / "kernels" / "foreign_ir"
RNG = np.random.default_rng(15)


def foreign_program(name):
    return clcoop.Program.from_ir((FOREIGN / name).read_text())


@pytest.mark.parametrize("S", [16, 8])
def test_translator_int8_gemm_12x48_by_48x12(S):
    M, K = 24, 96
    A = RNG.integers(-128, 128, (M, K)).astype(np.int8)
    B = RNG.integers(-128, 128, (K, 12)).astype(np.int8)
    C = np.zeros((M, 12), np.int32)
    length = np.zeros(2 * S, np.int32)
    foreign_program("translator_gemm_i8.ll").gemm_i8(2 * S, S, A, B, C, length, np.int64(K),
                                                    subgroup_size=S)
    # Operands 15: A, B, C and the result signed.
    np.testing.assert_array_equal(C, 7 + A.astype(np.int32) @ B.astype(np.int32))
    # 12x12 is laid out as 16x12 (docs/layout.md): 12 components at S = 16, 24 at S = 8.
    np.testing.assert_array_equal(length, 192 // S)


def test_translator_float_elementwise_opcodes():
    X = RNG.standard_normal((12, 12)).astype(np.float32)
    Y = RNG.uniform(0.5, 2, (12, 12)).astype(np.float32)
    R = np.zeros((12, 12), np.float32)
    foreign_program("translator_elementwise.ll").float_ops(16, 16, X, Y, R)
    np.testing.assert_array_equal(R, (-(X + Y) * X - X / Y) * np.float32(2.5))


def test_translator_integer_elementwise_opcodes_and_conversion():
    P = RNG.integers(-1000, 1000, (12, 12)).astype(np.int32)
    Q = (RNG.integers(1, 50, (12, 12)) * RNG.choice([-1, 1], (12, 12))).astype(np.int32)
    R = np.zeros((12, 12), np.float32)
    foreign_program("translator_elementwise.ll").int_ops(16, 16, P, Q, R)
    p, q = P.astype(np.int64), Q.astype(np.int64)
    signed_quotient = np.trunc(p / q).astype(np.int64)               # SDiv: toward zero
    unsigned_quotient = P.view(np.uint32).astype(np.int64) // Q.view(np.uint32).astype(np.int64)
    wrapped = ((-(p + q) * p - signed_quotient + unsigned_quotient) & 0xffffffff).astype(np.uint32)
    np.testing.assert_array_equal(R, wrapped.view(np.int32).astype(np.float32))


@pytest.mark.parametrize("S", [16, 8])
def test_clang_pr_float_gemm_with_operators(S):
    groups = 2
    A = RNG.integers(-4, 5, (groups * 16, 16)).astype(np.float32)
    B = RNG.integers(-4, 5, (16, 16)).astype(np.float32)
    C = RNG.integers(-4, 5, (16, 16)).astype(np.float32)
    D = np.zeros((groups * 16, 16), np.float32)
    length = np.zeros(groups * S, np.int32)
    # B is loaded column-major from its transpose.
    foreign_program("clang_pr.ll").gemm_f32(groups * S, S, A, np.ascontiguousarray(B.T), C, D,
                                           length, np.float32(0.5), subgroup_size=S)
    tiles = [-(A[g * 16:(g + 1) * 16] @ B + C) * np.float32(0.5) + C for g in range(groups)]
    np.testing.assert_array_equal(D, np.concatenate(tiles))
    np.testing.assert_array_equal(length, 256 // S)


def test_clang_pr_char_gemm_without_operands_is_unsigned():
    a = RNG.integers(-128, 128, (8, 32)).astype(np.int8)
    b = RNG.integers(-128, 128, (32, 8)).astype(np.int8)
    c = RNG.integers(-1000, 1000, (8, 8)).astype(np.int32)
    expected = a.view(np.uint8).astype(np.int64) @ b.view(np.uint8).astype(np.int64) + c
    foreign_program("clang_pr.ll").gemm_i8(16, 16, a, b, c)
    np.testing.assert_array_equal(c, expected.astype(np.int32))


# ------------------------------------------------- every spelling llc-22 lowers

F16 = 'target("spirv.CooperativeMatrixKHR", float, 3, 16, 16, {use})'
I16 = 'target("spirv.CooperativeMatrixKHR", i32, 3, 16, 16, 2)'
ACC, MAT_A, MAT_B = F16.format(use=2), F16.format(use=0), F16.format(use=1)
OWN_LOAD = "_Z32__spirv_CooperativeMatrixLoadKHRIfLi3ELi16ELi16ELi{use}EEvPU3AS1fim"
OWN_STORE = "_Z33__spirv_CooperativeMatrixStoreKHRIfLi3ELi16ELi16ELi2EEvPU3AS1fim"

# kind -> (native SPIR-V instruction, IR declaration type, body computing %r from the
# accumulator %c, A %a and B %b loaded from %in with clcoop's own names, NumPy reference)
KINDS = {
    "load": ("OpCooperativeMatrixLoadKHR", f"{ACC} (ptr addrspace(1), i32, i64)",
             "%r = call spir_func {acc} @\"{name}\"(ptr addrspace(1) %in, i32 1, i64 16)",
             lambda c, a, b: c.T),
    "store": ("OpCooperativeMatrixStoreKHR", f"void (ptr addrspace(1), {ACC}, i32, i64)",
              "call spir_func void @\"{name}\"(ptr addrspace(1) %out, {acc} %c, i32 1, i64 16)",
              lambda c, a, b: c.T),
    "muladd": ("OpCooperativeMatrixMulAddKHR", f"{ACC} ({MAT_A}, {MAT_B}, {ACC}, i32)",
               "%r = call spir_func {acc} @\"{name}\"({mat_a} %a, {mat_b} %b, {acc} %c, i32 0)",
               lambda c, a, b: a @ b + c),
    "splat": ("OpCompositeConstruct", f"{ACC} (float)",
              "%r = call spir_func {acc} @\"{name}\"(float 2.5)",
              lambda c, a, b: np.full((16, 16), 2.5, np.float32)),
    "convert": ("OpConvertFToS", f"{I16} ({ACC})",
                "%i = call spir_func {int} @\"{name}\"({acc} %c)\n"
                "  %r = call spir_func {acc} @_Z19__spirv_ConvertSToFIfLi3ELi16ELi16ELi2EiLi3ELi16ELi16ELi2EEv({int} %i)",
                lambda c, a, b: np.trunc(c)),
    "length": ("OpCooperativeMatrixLengthKHR", f"i32 ({ACC})",
               "%n = call spir_func i32 @\"{name}\"({acc} %c)\n"
               "  %nf = sitofp i32 %n to float\n"
               "  %r = call spir_func {acc} @_Z26__spirv_CompositeConstructIfLi3ELi16ELi16ELi2EEvf(float %nf)",
               lambda c, a, b: np.full((16, 16), 16.0, np.float32)),
}

# Spellings llc-22 lowers to the native instruction (measured; SPIRVBuiltins.td and
# lookupBuiltinNameHelper): the plain name, any Itanium name with that identifier
# (parameters, template arguments, a translator `_1` or a type word after it), the
# anonymous namespace, and for conversions an `_R<type>[_<rounding>]` tail.
LLC_SPELLINGS = [
    ("load", "__spirv_CooperativeMatrixLoadKHR"),
    ("load", "_Z32__spirv_CooperativeMatrixLoadKHR_1"),
    ("load", "_Z32__spirv_CooperativeMatrixLoadKHRPU3AS1fil"),
    ("load", "_Z32__spirv_CooperativeMatrixLoadKHRIfLi3ELi16ELi16ELi2EEvPU3AS1fil"),
    ("store", "__spirv_CooperativeMatrixStoreKHR"),
    ("store", "_Z33__spirv_CooperativeMatrixStoreKHR"),
    ("store", "_Z33__spirv_CooperativeMatrixStoreKHR_1"),
    ("muladd", "__spirv_CooperativeMatrixMulAddKHR"),
    ("muladd", "_Z34__spirv_CooperativeMatrixMulAddKHR"),
    ("muladd", "_ZN12_GLOBAL__N_134__spirv_CooperativeMatrixMulAddKHRE"),
    ("splat", "__spirv_CompositeConstruct"),
    ("splat", "_Z26__spirv_CompositeConstructFloat"),
    ("splat", "_Z26__spirv_CompositeConstructf"),
    ("convert", "__spirv_ConvertFToS"),
    ("convert", "_Z19__spirv_ConvertFToS"),
    ("convert", "__spirv_ConvertFToS_Rint"),
    ("convert", "__spirv_ConvertFToS_Rint_rtz"),
    ("convert", "_Z24__spirv_ConvertFToS_Rint"),
    ("length", "__spirv_CooperativeMatrixLengthKHR"),
    ("length", "_Z34__spirv_CooperativeMatrixLengthKHR"),
    ("length", "_Z34__spirv_CooperativeMatrixLengthKHR_1"),
]


def spelling_module(kind, name):
    _op, declared, body, _ref = KINDS[kind]
    ret, params = declared.split(" (", 1)
    loads = "\n".join(
        f"  %{var} = call spir_func {ty} @{OWN_LOAD.format(use=use)}(ptr addrspace(1) %in, i32 0, i64 16)"
        for var, ty, use in (("c", ACC, 2), ("a", MAT_A, 0), ("b", MAT_B, 1)))
    store = "" if kind == "store" else \
        f"  call spir_func void @{OWN_STORE}(ptr addrspace(1) %out, {ACC} %r, i32 0, i64 16)\n"
    body = body.format(name=name, acc=ACC, mat_a=MAT_A, mat_b=MAT_B, int=I16)
    declares = {f'declare spir_func {ret} @"{name}"({params}'}
    declares |= {f"declare spir_func {ty} @{OWN_LOAD.format(use=use)}(ptr addrspace(1), i32, i64)"
                 for ty, use in ((ACC, 2), (MAT_A, 0), (MAT_B, 1))}
    declares.add(f"declare spir_func void @{OWN_STORE}(ptr addrspace(1), {ACC}, i32, i64)")
    declares.add(f"declare spir_func {ACC} @_Z19__spirv_ConvertSToFIfLi3ELi16ELi16ELi2EiLi3ELi16ELi16ELi2EEv({I16})")
    declares.add(f"declare spir_func {ACC} @_Z26__spirv_CompositeConstructIfLi3ELi16ELi16ELi2EEvf(float)")
    return ('target triple = "spir64-unknown-unknown"\n'
            "define spir_kernel void @k(ptr addrspace(1) %in, ptr addrspace(1) %out) {\nentry:\n"
            f"{loads}\n  {body}\n{store}  ret void\n}}\n" + "\n".join(sorted(declares)) + "\n")


@pytest.mark.parametrize("kind, name", LLC_SPELLINGS)
def test_llc22_spelling_runs(kind, name):
    data = (RNG.integers(-16, 17, (16, 16)) / 4).astype(np.float32)   # exact products
    out = np.zeros((16, 16), np.float32)
    clcoop.Program.from_ir(spelling_module(kind, name)).k(16, 16, data, out)
    np.testing.assert_array_equal(out, KINDS[kind][3](data, data, data))


def _llc_and_dis():
    try:
        find_tool("llc")
        return find_tool("spirv-dis")
    except ToolMissing:
        return None


@pytest.mark.skipif(_llc_and_dis() is None, reason="llc-22 and spirv-dis are needed")
@pytest.mark.parametrize("kind, name", LLC_SPELLINGS)
def test_llc22_lowers_the_spelling(kind, name, tmp_path):
    """The list above is what llc-22 accepts: each spelling becomes the native instruction."""
    binary = tmp_path / "k.spv"
    binary.write_bytes(llc_spirv(spelling_module(kind, name), "spir64-unknown-unknown"))
    text = subprocess.run([_llc_and_dis(), str(binary)], capture_output=True, text=True,
                          check=True).stdout
    native = KINDS[kind][0]
    uses = [line for line in text.splitlines() if f" {native} " in f" {line} "]
    # The module's own loads (clcoop's names) are native loads too.
    baseline = 3 if kind == "load" else 0
    assert len(uses) > baseline, f"{name} is not lowered to {native} by llc-22"


@pytest.mark.parametrize("name, expected", [
    # Not lowered by llc-22, run all the same (docs/ir-conventions.md).
    ("__spirv_CooperativeMatrixLoadKHR_global_f32_sc3_16x16_u2", "LoadKHR"),
    ("_Z87__spirv_CooperativeMatrixLoadKHR_RPU3AS145__spirv_CooperativeMatrixKHR__float_3_16_16_2PU3AS1Kfili",
     "LoadKHR"),
    ("_ZN5__spv32__spirv_CooperativeMatrixLoadKHRE", "LoadKHR"),
    ("__spirv_CooperativeMatrixFAdd", "BinaryAdd"),
    ("_Z12__spirv_IMul", "BinaryMul"),
    ("__spirv_CooperativeMatrixScalarMulKHR_f32_sc3_16x16_u2", "ScalarMul"),
    ("_Z25__spirv_MatrixTimesScalar", "ScalarMul"),
    ("_Z15__spirv_SNegate", "ScalarNeg"),
    # Not cooperative-matrix operations.
    ("__spirv_CooperativeMatrixLoadKHRfoo", None),
    ("__spirv_CooperativeMatrixLoadCheckedINTEL", None),
    ("_ZN3foo32__spirv_CooperativeMatrixLoadKHRE", None),
    ("_Z12__spirv_FAddff", None),            # on scalars: no matrix in the declaration
])
def test_spellings_read_as_operations(name, expected):
    types = {"LoadKHR": (ACC, ["ptr addrspace(1)", "i32", "i64"]),
             "ScalarMul": (ACC, [ACC, "float"]), "BinaryAdd": (ACC, [ACC, ACC]),
             "BinaryMul": (ACC, [ACC, ACC]), "ScalarNeg": (ACC, [ACC])}
    ret, params = types.get(expected, ("float", ["float", "float"]))
    canonical = coop_spellings.canonical_name(name, parse_type_text(ret, {}),
                                              [parse_type_text(p, {}) for p in params])
    if expected is None:
        assert canonical is None
    else:
        assert canonical.startswith(f"_Z") and f"__spirv_CooperativeMatrix{expected}I" in canonical


def test_signedness_of_the_opcode_picks_the_component_code():
    i32 = parse_type_text(I16, {})
    assert "IjLi3" in coop_spellings.canonical_name("_Z12__spirv_UDiv", i32, [i32, i32])
    assert "IiLi3" in coop_spellings.canonical_name("_Z12__spirv_SDiv", i32, [i32, i32])


def test_pointee_of_the_stride_from_each_form():
    acc, ptr = parse_type_text(ACC, {}), parse_type_text("ptr addrspace(3)", {})
    params = [ptr, parse_type_text("i32", {}), parse_type_text("i64", {})]
    assert coop_spellings.canonical_name("_Z32__spirv_CooperativeMatrixLoadKHRPU3AS3Dv4_fil",
                                         acc, params).endswith("EvPU3AS3Dv4_fil")
    assert coop_spellings.canonical_name("__spirv_CooperativeMatrixLoadKHR_local_i8_sc3_16x16_u2",
                                         acc, params).endswith("EvPU3AS3cil")
    assert coop_spellings.canonical_name("_Z32__spirv_CooperativeMatrixLoadKHR_1",
                                         acc, params).endswith("EvPU3AS3fil")


def test_load_without_a_stride_is_a_located_fault():
    ir = ('target triple = "spir64-unknown-unknown"\n'
          f'declare spir_func {ACC} @__spirv_CooperativeMatrixLoadKHR(ptr addrspace(1), i32)\n'
          "define spir_kernel void @k(ptr addrspace(1) %in) {\nentry:\n"
          f"  %m = call spir_func {ACC} @__spirv_CooperativeMatrixLoadKHR(ptr addrspace(1) %in, i32 0)\n"
          "  ret void\n}\n")
    with pytest.raises(RuntimeFault, match="stride"):
        clcoop.Program.from_ir(ir).k(16, 16, np.zeros(256, np.float32))


def test_unknown_element_access_form_is_a_clear_error():
    # The translator's forward form names no matrix type (`P6Matrix`): a ClcoopError, not
    # a traceback.
    ir = ('target triple = "spir64-unknown-unknown"\n'
          f'declare spir_func {ACC} @_Z26__spirv_CompositeConstructf(float)\n'
          "declare ptr @_Z19__spirv_AccessChainP6Matrixii(ptr, i32)\n"
          "define spir_kernel void @k(ptr addrspace(1) %out) {\nentry:\n"
          f"  %slot = alloca {ACC}\n"
          f"  %m = call spir_func {ACC} @_Z26__spirv_CompositeConstructf(float 1.0)\n"
          f"  store {ACC} %m, ptr %slot\n"
          "  %e = call ptr @_Z19__spirv_AccessChainP6Matrixii(ptr %slot, i32 1)\n"
          "  ret void\n}\n")
    with pytest.raises(ClcoopError):
        clcoop.Program.from_ir(ir).k(16, 16, np.zeros(1, np.float32))
