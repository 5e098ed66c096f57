"""The plain examples of examples/vulkan/ compiled by the Vulkan target and run on the first
Vulkan device (lavapipe in CI), against the interpreter: integer-exact data bit for bit, float
sums within the bound of their reordering (Higham, "Accuracy and Stability of Numerical
Algorithms", 4.2: a sum of n terms in any order is within (n - 1) u sum |x_i| of the exact sum,
u = 2**-24 for float; a product rounded or not (contraction into an fma) differs by at most u |p|)."""
import numpy as np
import pytest

import clcoop
from vulkan_modules import device_or_skip

OPTIONS = ["-O0"]        # (test_vulkan_engine.py: the Vulkan target takes -O0 IR today)
U = 2.0 ** -24


def _both(path, kernel, global_size, local_size, make_args, subgroup_size=None):
    """(arguments after the GPU launch, after the interpreter's), from the same inputs."""
    with open(path) as f:
        source = f.read()
    gpu_args, ref_args = make_args(), make_args()
    clcoop.Program(source).build(options=OPTIONS, engine="vulkan").run(kernel, global_size, local_size, *gpu_args)
    clcoop.Program(source).build(options=OPTIONS).run(kernel, global_size, local_size, *ref_args,
                                                      subgroup_size=subgroup_size)
    return gpu_args, ref_args


def test_vector_add_is_exact():
    device_or_skip()
    rng = np.random.default_rng(0)
    a, b = rng.standard_normal(1000).astype(np.float32), rng.standard_normal(1000).astype(np.float32)
    gpu, ref = _both("examples/vulkan/vector_add.cl", "vector_add", (1024,), (64,),
                     lambda: [a.copy(), b.copy(), np.zeros(1000, np.float32), np.int32(1000)])
    assert np.array_equal(gpu[2], ref[2]) and np.array_equal(gpu[2], a + b)


def test_stencil_within_the_rounding_of_its_products():
    device_or_skip()
    x = np.random.default_rng(1).standard_normal(1000).astype(np.float32)
    w = (np.float32(0.25), np.float32(0.5), np.float32(-0.75))
    gpu, ref = _both("examples/vulkan/stencil.cl", "stencil", (1024,), (128,),
                     lambda: [x.copy(), np.zeros(1000, np.float32), clcoop.LocalMemory((128 + 2) * 4), *w,
                              np.int32(1000)])
    padded = np.concatenate([[0], x, [0]]).astype(np.float64)
    magnitude = sum(abs(float(wi)) * np.abs(padded[k:k + 1000]) for k, wi in enumerate(w))
    assert (np.abs(gpu[1].astype(np.float64) - ref[1]) <= 2 * U * magnitude).all()


def test_local_reduce_within_the_bound_of_a_reordered_sum():
    description = device_or_skip()
    if not description.min_subgroup_size <= 32 <= description.max_subgroup_size:
        # The kernel sums its last 32 values with one sub-group reduction (it requires size 32).
        pytest.skip(f"the Vulkan device {description.name} has no sub-group size 32 "
                    f"({description.min_subgroup_size}-{description.max_subgroup_size})")
    x = np.random.default_rng(2).standard_normal(256 * 16).astype(np.float32)
    gpu, ref = _both("examples/vulkan/local_reduce.cl", "local_reduce", (4096,), (256,),
                     lambda: [x.copy(), np.zeros(16, np.float32)], subgroup_size=32)
    magnitude = np.abs(x.astype(np.float64)).reshape(16, 256).sum(axis=1)
    difference = np.abs(gpu[1].astype(np.float64) - ref[1])
    assert (difference <= 2 * 255 * U * magnitude).all()      # both sums against the exact one
    assert not np.array_equal(gpu[1], np.zeros(16, np.float32))


def test_gemm_f16_f32_on_matrix_hardware_is_exact_on_small_integers():
    description = device_or_skip()
    with open("examples/vulkan/gemm_f16_f32_16x16.cl") as f:
        gpu = clcoop.Program(f.read()).build(options=OPTIONS, engine="vulkan")
    lacks = gpu.kernel("gemm_f16_f32_16x16").fallback_reason
    if lacks is not None:
        pytest.skip(f"the Vulkan device {description.name} cannot run the f16 GEMM: " + lacks.splitlines()[1].strip())
    M = N = K = 64
    rng = np.random.default_rng(3)
    A, B = (rng.integers(-8, 9, shape).astype(np.float16) for shape in ((M, K), (K, N)))
    C = rng.integers(-100, 101, (M, N)).astype(np.float32)
    expected = A.astype(np.float64) @ B.astype(np.float64) + C     # every partial sum exact in f32
    gpu.gemm_f16_f32_16x16((N // 16 * 32, M // 16), (32, 1), A, B, C, M, N, K)
    assert np.array_equal(C, expected.astype(np.float32))
