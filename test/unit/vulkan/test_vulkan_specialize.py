"""Specialized scalar arguments (docs/vulkan-abi.md, "Specialized scalar arguments"): each
32/64-bit integer or 32-bit float scalar argument of a Vulkan module is OpSelect(flag, value,
push constant) with two specialization constants; a launch with specialize= makes a pipeline
with the flag set and the argument's value, checked here on the first Vulkan device (lavapipe
in CI) against NumPy, and against the interpreter and the native engine, which take the
option and run the kernel unchanged."""
import re
import subprocess
import sys

import numpy as np
import pytest

import clcoop
from clcoop.errors import ArgumentError
from clcoop.spirv.reflection import read_reflection
from clcoop.spirv.vulkan_types import scalar_spec_ids
from clcoop.vulkan import arguments
from test_vulkan_target import compile_vulkan, disassemble, spirv_val
from vulkan_modules import device_or_skip

SOURCE = r"""
kernel void window(global float *out, global const float *in, uint n, float factor, ulong shift, char c,
                   int2 pair) {
    size_t i = get_global_id(0);
    float acc = 0.0f;
    for (uint k = 0; k < n; ++k) acc += in[(i + k) % 64];
    out[i] = acc * factor + (float)(shift >> 32) + c + pair.x - pair.y;
}
"""
IN = np.arange(64, dtype=np.float32)


def expected(n, factor, shift, c):
    sums = np.array([sum(IN[(i + k) % 64] for k in range(n)) for i in range(64)], np.float32)
    return sums * np.float32(factor) + np.float32(shift >> 32) + np.float32(c)


@pytest.fixture(scope="module")
def gpu():
    device_or_skip()
    return clcoop.Program(SOURCE).build(engine="vulkan")


def run(program, n, factor=1.5, shift=7 << 32, c=3, **options):
    out = np.zeros(64, np.float32)
    program.window(64, 16, out, IN, n, factor, np.uint64(shift), c, (5, 5), **options)
    return out


# ---------------------------------------------------------------- the module

def test_gemm_sizes_are_specialization_constants_selected_over_the_push_constants(tmp_path):
    data = compile_vulkan("examples/vulkan/gemm_wg_f16.cl")
    assert spirv_val(data, tmp_path).returncode == 0
    record = read_reflection(data)["gemm_wg_f16"]
    by_name = {arg["name"]: arg for arg in record["args"]}
    assert [by_name[n]["spec_ids"] for n in "MNK"] == [list(scalar_spec_ids(i)) for i in (3, 4, 5)]
    assert all("spec_ids" not in by_name[n] for n in "ABC")
    text = disassemble(data, tmp_path)
    ids = {int(spec): name for name, spec in re.findall(r"OpDecorate (%\S+) SpecId (\d+)", text)}
    for index in (3, 4, 5):
        flag, value = (ids[s] for s in scalar_spec_ids(index))
        assert re.search(rf"{flag} = OpSpecConstantFalse %bool", text)
        assert re.search(rf"{value} = OpSpecConstant %uint 0", text)
        # The argument is the select of the flag: its value when specialized, else the push constant.
        select = re.search(rf"(%\S+) = OpSelect %uint {flag} {value} (%\S+)", text)
        assert select and re.search(rf"{select.group(2)} = OpLoad %uint %\S+ Aligned 4", text)
    # The tensor layouts' dimensions are those selects (the driver folds them when specialized).
    selects = set(re.findall(r"(%\S+) = OpSelect %uint", text))
    dims = re.findall(r"OpTensorLayoutSetDimensionNV %\S+ %\S+ (%\S+) (%\S+)", text)
    assert dims and all(d in selects for pair in dims for d in pair)


def test_only_32_and_64_bit_integers_and_floats_are_specializable(tmp_path):
    from clcoop.spirv.vulkan import ir_to_vulkan_spirv
    from clcoop.frontend import driver
    result = driver.compile_source(SOURCE, driver.CompileOptions(filename="window.cl"))
    data = ir_to_vulkan_spirv(result.ir)
    assert spirv_val(data, tmp_path).returncode == 0
    args = {a["name"]: a for a in read_reflection(data)["window"]["args"]}
    assert args["n"]["spec_ids"] == list(scalar_spec_ids(2))
    assert args["factor"]["spec_ids"] == list(scalar_spec_ids(3))
    assert args["shift"]["spec_ids"] == list(scalar_spec_ids(4))
    assert "spec_ids" not in args["c"]                 # an 8-bit constant needs the Int8 capability
    assert "spec_ids" not in args["pair"]              # a vector
    text = disassemble(data, tmp_path)
    assert re.search(r"OpSpecConstant %ulong 0 0\b|OpSpecConstant %ulong 0\b", text)   # two literal words
    assert re.search(r"OpSpecConstant %float 0\b", text)
    # The module's scalar specialization constants are exactly those the record lists.
    in_module = {int(n) for n in re.findall(r"OpDecorate %\S+ SpecId (\d+)", text) if int(n) >= 200}
    assert in_module == {n for a in args.values() for n in a.get("spec_ids", ())}


# ---------------------------------------------------------------- launches

@pytest.mark.parametrize("n", [1, 5, 9])
def test_specialized_launches_match_numpy(gpu, n):
    assert np.array_equal(run(gpu, n, specialize=("n",)), expected(n, 1.5, 7 << 32, 3))
    assert np.array_equal(run(gpu, n, specialize=("n", "factor", "shift")), expected(n, 1.5, 7 << 32, 3))
    assert np.array_equal(run(gpu, n, 0.25, 3 << 40, -2, specialize=["shift", "factor"]),
                          expected(n, 0.25, 3 << 40, -2))


def test_a_pipeline_per_specialized_value_and_none_without(gpu):
    pipelines = gpu._preferred().program.pipelines.pipelines
    run(gpu, 4)
    before = len(pipelines)
    run(gpu, 6)                                      # not specialized: the same pipeline
    assert len(pipelines) == before
    run(gpu, 11, specialize=("n",))
    run(gpu, 12, specialize=("n",))
    assert len(pipelines) == before + 2
    run(gpu, 11, specialize=("n",))                  # seen before: kept
    assert len(pipelines) == before + 2
    specialized = [dict(key[2]) for key in pipelines if dict(key[2]).get(scalar_spec_ids(2)[0]) == 1]
    values = [constants[scalar_spec_ids(2)[1]] for constants in specialized]
    assert values.count(11) == values.count(12) == 1


def test_the_kernel_computes_with_the_specialization_constant(gpu, monkeypatch):
    """Specialized with a value other than the push constant (only possible by changing the
    marshalling), the kernel sees the constant: the select is taken, not folded away."""
    real = arguments.specialization

    def one_more(name, entry, data):
        constants = real(name, entry, data)
        flag, value = entry["spec_ids"]
        constants[value] += 1
        return constants
    monkeypatch.setattr(arguments, "specialization", one_more)
    assert np.array_equal(run(gpu, 7, specialize=("n",)), expected(8, 1.5, 7 << 32, 3))


@pytest.mark.parametrize("names, message", [
    (("c",), "argument 'c' (char) cannot be specialized"),
    (("pair",), "argument 'pair' (int2) cannot be specialized"),
    (("out",), "specialize names 'out', which is not one of its scalar arguments (n, factor, shift, c, pair)"),
    (("nope",), "specialize names 'nope'"),
    (5, "specialize must be a sequence of argument names, got 5"),
])
def test_what_cannot_be_specialized_is_refused(gpu, names, message):
    with pytest.raises(ArgumentError, match=re.escape(message)):
        run(gpu, 3, specialize=names)


def test_statistics_refuse_a_specialization_of_no_argument(gpu):
    kernel = gpu._preferred().program.kernel("window")
    with pytest.raises(ArgumentError, match="specialize names 'm'"):
        kernel.statistics((16, 1, 1), specialize={"m": 3})
    with pytest.raises(ArgumentError, match=r"specialize\['n'\] = -1 is not a uint32"):
        kernel.statistics((16, 1, 1), specialize={"n": -1})


@pytest.mark.parametrize("engine", ["interp", "native"])
def test_the_cpu_engines_take_the_option_and_run_unchanged(engine):
    program = clcoop.Program(SOURCE).build(engine=engine)
    assert np.array_equal(run(program, 5, specialize=("n", "shift")), expected(5, 1.5, 7 << 32, 3))
    with pytest.raises(ArgumentError, match="specialize names 'in'"):
        run(program, 5, specialize=("in",))


def test_clcoop_run_specialize(tmp_path, gpu):
    np.save(tmp_path / "x.npy", np.arange(8, dtype=np.float32))
    np.save(tmp_path / "y.npy", np.ones(8, np.float32))
    (tmp_path / "axpy.cl").write_text("kernel void axpy(global float *y, global const float *x, float a, uint n) {\n"
                                      "    size_t i = get_global_id(0);\n    if (i < n) y[i] += a * x[i];\n}\n")
    command = [sys.executable, "-m", "clcoop.cli.run_main", str(tmp_path / "axpy.cl"), "--engine", "vulkan",
               "--global", "8", "--local", "8", "--arg", f"y={tmp_path / 'y.npy'}", "--arg", f"x={tmp_path / 'x.npy'}",
               "--arg", "a=2", "--arg", "n=6", "--out", str(tmp_path / "out")]
    done = subprocess.run(command + ["--specialize", "n,a"], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    assert np.array_equal(np.load(tmp_path / "out" / "y.npy"), [1, 3, 5, 7, 9, 11, 1, 1])
    done = subprocess.run(command + ["--specialize", "q"], capture_output=True, text=True)
    assert done.returncode == 1
    assert "clcoop-run: error: kernel 'axpy': specialize names 'q', which is not one of its scalar arguments (a, n)" \
        in done.stderr and "Traceback" not in done.stderr
