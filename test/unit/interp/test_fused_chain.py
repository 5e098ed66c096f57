"""clcoop/interp/fused_chain.py, the reference order of a float mul-add's products (docs/
design.md, "Float mul-add summation order"), against exact rationals: each step
fma(a, b, acc) is the exact a*b + acc rounded once to the work type, whatever the host's
BLAS, for float32 and float64 factors, exact-product (half, bf16) factors, and the lanes
outside the emulated FMA's range (huge factors, tiny products, overflow, infinities)."""
from fractions import Fraction

import ml_dtypes
import numpy as np
import pytest

from clcoop.interp import coopmat, fused, fused_chain

RNG = np.random.default_rng(2029)


def rounded(exact, work):
    """The exact rational rounded to nearest-even in `work` (float32 or float64)."""
    if exact == 0:
        return work.type(0.0)
    try:
        nearest64 = exact.numerator / exact.denominator        # correctly rounded double
    except OverflowError:
        return work.type(np.inf if exact > 0 else -np.inf)
    if work == np.float64:
        return np.float64(nearest64)
    with np.errstate(over="ignore"):
        guess = np.float32(nearest64)
    if not np.isfinite(guess):
        return guess
    candidates = [np.nextafter(guess, np.float32(-np.inf)), guess, np.nextafter(guess, np.float32(np.inf))]
    return min(candidates, key=lambda y: (abs(Fraction(float(y)) - exact), int(y.view(np.uint32)) & 1))


def exact_chain(a, b, work):
    """Element by element: acc = +0; acc = round(a*b + acc) with exact rationals (finite
    values only)."""
    work = np.dtype(work)
    M, K = a.shape
    out = np.zeros((M, b.shape[1]), work)
    for i in range(M):
        for j in range(b.shape[1]):
            acc = work.type(0.0)
            for k in range(K):
                if not np.isfinite(acc):
                    acc = work.type(float(acc) + float(a[i, k]) * float(b[k, j]))
                    continue
                acc = rounded(Fraction(float(a[i, k])) * Fraction(float(b[k, j])) + Fraction(float(acc)), work)
            out[i, j] = acc
    return out


def unfused_chain(a, b, work):
    acc = np.zeros((a.shape[0], b.shape[1]), work)
    with np.errstate(all="ignore"):
        for k in range(a.shape[1]):
            acc = acc + np.outer(a[:, k], b[k, :]).astype(work)
    return acc


def bits(x):
    return x.view(f"u{x.dtype.itemsize}")


def spread(shape, dtype, low=-30, high=30):
    return (RNG.standard_normal(shape) * np.exp2(RNG.integers(low, high, shape))).astype(dtype)


@pytest.mark.parametrize("work", [np.float32, np.float64])
def test_chain_is_the_exactly_rounded_fma_chain(work):
    a, b = spread((5, 9), work), spread((9, 6), work)
    got = fused_chain.tile_chain(a[None], b[None], work)[0]
    want = exact_chain(a, b, work)
    np.testing.assert_array_equal(bits(got), bits(want))
    # The data tells a fused step from an unfused one (the test would catch a plain sum).
    assert not np.array_equal(bits(got), bits(unfused_chain(a, b, work)))


def test_float32_ties_after_rounding_to_double_round_correctly():
    """acc = 1, product 2^-24 + 2^-60: the double sum 1 + 2^-24 is a float32 midpoint
    (nearest-even would give 1), the exact sum lies above it: 1 + 2^-23."""
    a = np.array([[1.0, 2.0 ** -12 + 2.0 ** -36]], np.float32)
    b = np.array([[1.0], [2.0 ** -12 + 2.0 ** -35]], np.float32)
    # The second product: 2^-24 + 2^-47 + 2^-48 + 2^-71, above the midpoint 2^-24.
    got = fused_chain.tile_chain(a[None], b[None], np.float32)[0, 0, 0]
    assert got == np.float32(1 + 2.0 ** -23)
    assert got == exact_chain(a, b, np.float32)[0, 0]


def test_double_lanes_outside_the_emulated_fmas_range():
    """Factors beyond 2^995 (the split overflows), products below 2^-968 (the error term
    underflows) or overflowing, a product cancelled exactly (+0), and infinities."""
    a = np.array([[2.0 ** 1000, 3.0], [2.0 ** -500 * 1.1, 5.0], [2.0 ** 600 * 1.3, -1.0],
                  [7.0, 3.0], [1.5, np.inf]], np.float64)
    b = np.array([[2.0 ** 20 * 1.0000001, 2.0 ** -600], [2.0 ** -490 * 1.3, 1.0]], np.float64)
    got = fused_chain.tile_chain(a[None], b[None], np.float64)[0]
    finite = np.isfinite(a).all(axis=1)
    want = exact_chain(a[finite], b, np.float64)
    np.testing.assert_array_equal(bits(got[finite]), bits(want))
    # Row 4: 1.5 * b[0] + inf * b[1]: +inf for a positive b[1], as IEEE.
    assert np.isposinf(got[4, 0]) and np.isposinf(got[4, 1])


def test_a_finite_product_meets_an_infinite_accumulator():
    """fma(a, b, -inf) is -inf for finite a*b even where a*b rounds to +inf."""
    got = fused.fma(np.array([2.0 ** 600]), np.array([2.0 ** 600]), np.array([-np.inf]))
    assert np.isneginf(got[0])


def test_zero_products_keep_fmas_signs():
    """fma(-0 product, +0) = +0, fma(-0, -0) = -0: from +0, a row of -0 products is +0."""
    a = np.array([[-0.0, 0.0]], np.float32)
    b = np.array([[5.0], [-3.0]], np.float32)
    got = fused_chain.tile_chain(a[None], b[None], np.float32)[0, 0, 0]
    assert got == 0 and not np.signbit(got)
    assert np.signbit(fused.fma(np.array([-0.0]), np.array([1.0]), np.array([-0.0]))[0])


def test_bf16_products_outside_float32s_range_take_the_fused_path():
    """bf16 factors of 2^-70: their products leave float32's normal range, so the chain is
    not a rounded addition of float32 products there (fused_chain._narrow_significands)."""
    a = np.array([[2.0 ** -70, 1.0]], np.float32).astype(ml_dtypes.bfloat16).astype(np.float32)
    b = np.array([[2.0 ** -70 * 1.5], [2.0 ** -140]], np.float32).astype(ml_dtypes.bfloat16).astype(np.float32)
    assert not fused_chain._narrow_significands(a)
    got = fused_chain.tile_chain(a[None], b[None], np.float32)[0]
    np.testing.assert_array_equal(bits(got), bits(exact_chain(a, b, np.float32)))


@pytest.mark.parametrize("dtype", [np.float16, ml_dtypes.bfloat16])
def test_exact_products_are_summed_in_order(dtype):
    a = spread((6, 16), np.float32, -6, 6).astype(dtype).astype(np.float32)
    b = spread((16, 7), np.float32, -6, 6).astype(dtype).astype(np.float32)
    assert fused_chain._narrow_significands(a) and fused_chain._narrow_significands(b)
    got = fused_chain.tile_chain(a[None], b[None], np.float32)[0]
    np.testing.assert_array_equal(bits(got), bits(exact_chain(a, b, np.float32)))


@pytest.mark.parametrize("work", [np.float32, np.float64])
def test_pairwise_chain_is_the_tile_chain_of_each_pair(work):
    a_tiles, b_tiles = spread((3, 4, 8), work), spread((2, 8, 5), work)
    grid = fused_chain.pairwise_chain(a_tiles, b_tiles, work)
    for i in range(3):
        for j in range(2):
            want = fused_chain.tile_chain(a_tiles[i][None], b_tiles[j][None], work)[0]
            np.testing.assert_array_equal(bits(grid[i, :, j, :]), bits(want))


@pytest.mark.parametrize("shape", [(8, 16, 16), (16, 16, 16), (16, 8, 32), (8, 4, 40), (1, 16, 16)])
@pytest.mark.parametrize("work", [np.float32, np.float64])
def test_tile_products_are_the_chains_whether_or_not_blas_is_used(work, shape):
    """The BLAS fast path is taken only where it gives the chain's bits (on this host: the
    assertion holds either way, which is the point)."""
    M, N, K = shape
    a, b = spread((3, M, K), work, -8, 9), spread((3, K, N), work, -8, 9)
    np.testing.assert_array_equal(bits(coopmat.tile_products(a, b, np.dtype(work))),
                                  bits(fused_chain.tile_chain(a, b, work)))


def test_a_blas_order_other_than_the_chain_is_not_used(monkeypatch):
    """With a matmul that sums in another order (two interleaved chains, AVX2 OpenBLAS's
    for short tiles), the probe refuses it and the emulation runs."""
    def two_chains(a, b):
        even = fused_chain.tile_chain(a[..., 0::2], b[..., 0::2, :], a.dtype)
        odd = fused_chain.tile_chain(a[..., 1::2], b[..., 1::2, :], a.dtype)
        return even + odd
    monkeypatch.setattr(coopmat.np, "matmul", two_chains)
    coopmat._blas_sums_in_chain_order.cache_clear()
    try:
        assert not coopmat._blas_sums_in_chain_order(np.dtype(np.float32), 8, 16, 16)
        a, b = spread((1, 8, 16), np.float32, -8, 9), spread((1, 16, 16), np.float32, -8, 9)
        np.testing.assert_array_equal(bits(coopmat.tile_products(a, b, np.dtype(np.float32))),
                                      bits(exact_chain(a[0], b[0], np.float32)[None]))
    finally:
        coopmat._blas_sums_in_chain_order.cache_clear()
