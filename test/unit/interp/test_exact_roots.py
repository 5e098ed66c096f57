"""The interpreter's double cube root (clcoop/interp/exact_roots.py) is the correctly rounded
one, the same bits on every host, against an exact oracle: the double whose neighbouring
midpoints' cubes (exact rationals) bracket x. np.cbrt is not (glibc's is up to 3 ulp off,
SVML's on AVX-512 hosts 1 ulp on about 0.6% of doubles), so these tests fail with it."""
from fractions import Fraction

import numpy as np
import pytest

from clcoop.interp import exact_roots


def nearest_cube_root(x):
    """The double nearest to cbrt(x), from exact rational arithmetic alone: start anywhere
    (Python's float power, two Newton steps) and step one double at a time while a
    midpoint's cube says so."""
    if x == 0 or not np.isfinite(x):
        return x
    target = Fraction(abs(x))
    y = abs(x) ** (1 / 3)
    for _ in range(2):
        y -= (y - abs(x) / (y * y)) / 3
    while True:
        up, down = float(np.nextafter(y, np.inf)), float(np.nextafter(y, 0))
        if ((Fraction(y) + Fraction(up)) / 2) ** 3 < target:
            y = up
        elif ((Fraction(y) + Fraction(down)) / 2) ** 3 > target:
            y = down
        else:
            return float(np.copysign(y, x))


def assert_nearest(x):
    got = exact_roots.cbrt(x)
    want = np.array([nearest_cube_root(float(v)) for v in x])
    same = ((got == want) & (np.signbit(got) == np.signbit(want))) | (np.isnan(got) & np.isnan(want))
    bad = np.nonzero(~same)[0]
    assert bad.size == 0, f"{bad.size} wrong, e.g. " + "; ".join(
        f"cbrt({x[i]!r}) = {got[i]!r}, want {want[i]!r}" for i in bad[:5])


def random_doubles(count, seed):
    """Doubles of every exponent, subnormals included, both signs."""
    rng = np.random.default_rng(seed)
    return np.ldexp(rng.uniform(0.5, 1, count), rng.integers(-1074, 1025, count)) * rng.choice([-1.0, 1.0], count)


def near_midpoints(count, seed):
    """Doubles f in [1, 8) nearest to the cube of a midpoint between two doubles in [1, 2],
    and their neighbours: cbrt(f) is then within about 2^-52 relative of that midpoint."""
    rng = np.random.default_rng(seed)
    values = []
    for y in rng.integers(1 << 52, 1 << 53, count):
        cube = float(Fraction(2 * int(y) + 1, 1 << 53) ** 3)
        values += [cube, float(np.nextafter(cube, 0)), float(np.nextafter(cube, 16))]
    return np.array([v for v in values if 1 <= v < 8])


SPECIAL = np.array([0.0, -0.0, np.inf, -np.inf, np.nan, 1.0, -1.0, 8.0, -27.0, 2.0 ** -1074, -2.0 ** -1074,
                    2.0 ** -1022, np.finfo(np.float64).max, -np.finfo(np.float64).max,
                    float(np.nextafter(8.0, 0)), float(np.nextafter(1.0, 2)), 3.0 ** 99, 7.0 ** 3 * 2.0 ** -900])


def test_random_doubles_of_every_size_are_the_nearest():
    assert_nearest(random_doubles(4000, 1))


def test_special_values_and_exact_cubes():
    cubes = np.arange(1, 1000, dtype=np.float64) ** 3
    assert_nearest(np.concatenate([SPECIAL, cubes, -cubes * 2.0 ** -999, cubes * 2.0 ** 600]))


def test_arguments_next_to_a_midpoints_cube():
    assert_nearest(near_midpoints(1500, 2))


def test_the_exact_walk_alone(monkeypatch):
    """With the floating-point filter off, every lane is settled by the exact integer tests,
    from np.cbrt's estimate (moving up and down)."""
    monkeypatch.setattr(exact_roots, "_FILTER_ROUNDS", 0)
    assert_nearest(np.concatenate([random_doubles(1500, 3), near_midpoints(300, 4)]))


def test_the_integer_comparison_against_python_ints():
    """_cube_below(m, F) is m^3 < F 2^107 over the whole range it is used on, most cases
    within one unit of F's boundary."""
    rng = np.random.default_rng(5)
    m = rng.integers(1 << 53, (1 << 54) + 2, 20000) | 1
    f = rng.integers(1 << 52, 1 << 55, 20000)
    f[:15000] = [min((int(a) ** 3 >> 107) + int(d), (1 << 55) - 1) for a, d in zip(m[:15000], rng.integers(-1, 2, 15000))]
    want = np.array([int(a) ** 3 < int(b) << 107 for a, b in zip(m, f)])
    assert np.array_equal(exact_roots._cube_below(m, f), want)


@pytest.mark.parametrize("shape", [(), (5,), (3, 4)])
def test_shape_and_dtype(shape):
    x = np.full(shape, -64.0, np.float32)
    got = exact_roots.cbrt(x)
    assert got.shape == shape and got.dtype == np.float64 and np.all(got == -4.0)
