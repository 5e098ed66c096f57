"""Random cooperative-matrix kernels whose subgroups take different paths (issue 10), and the
metamorphic oracle they are checked with: a kernel's results must not change when its
subgroups run one at a time (`serial_subgroups=True`) instead of all at once.

SPV_KHR_cooperative_matrix only requires the work-items of one subgroup to run a matrix
operation together; different subgroups and work-groups may branch differently. So every
branch condition, loop trip count and `break` here depends on get_group_id,
get_sub_group_id or a per-subgroup value read from a buffer: uniform within a subgroup,
different between subgroups. The statements load, store (also inside branches), mul-add
(with operand flags on integers), add, subtract, multiply, negate, scale, init, read and
write elements (per work-item values), and call a helper function.

Each subgroup owns its output tiles, so no two subgroups write the same element: both
runs must agree bit for bit. Float data are small integers so that every A x B dot
product is exact whatever the summation order (which SPV_KHR leaves open and which the
interpreter's batched and one-subgroup paths may order differently).

    case = divergence_case(np.random.default_rng(seed)); problem = oracle_problem(case)
"""
from dataclasses import dataclass, field

import numpy as np

SCOPE = "CLK_COOPERATIVE_MATRIX_SCOPE_SUBGROUP"
LAYOUT = {"row": "CLK_COOPERATIVE_MATRIX_LAYOUT_ROW_MAJOR",
          "col": "CLK_COOPERATIVE_MATRIX_LAYOUT_COLUMN_MAJOR"}
# (A/B component, C component): float x float + float, char x char + int.
KINDS = {"float": ("float", "float"), "int": ("char", "int")}
DTYPES = {"float": np.float32, "char": np.int8, "int": np.int32}
INT_FLAGS = ("0", "CLK_COOPERATIVE_MATRIX_OPERAND_MATRIX_A_SIGNED | CLK_COOPERATIVE_MATRIX_OPERAND_MATRIX_B_SIGNED",
             "CLK_COOPERATIVE_MATRIX_OPERAND_MATRIX_A_SIGNED | CLK_COOPERATIVE_MATRIX_OPERAND_MATRIX_B_SIGNED | "
             "CLK_COOPERATIVE_MATRIX_OPERAND_MATRIX_C_SIGNED | CLK_COOPERATIVE_MATRIX_OPERAND_MATRIX_RESULT_SIGNED",
             "CLK_COOPERATIVE_MATRIX_OPERAND_MATRIX_A_SIGNED | CLK_COOPERATIVE_MATRIX_OPERAND_MATRIX_B_SIGNED | "
             "CLK_COOPERATIVE_MATRIX_OPERAND_MATRIX_C_SIGNED | CLK_COOPERATIVE_MATRIX_OPERAND_MATRIX_RESULT_SIGNED | "
             "CLK_COOPERATIVE_MATRIX_OPERAND_SATURATING_ACCUMULATION")
TILES_IN_BUFFERS = 5          # distinct A, B and C tiles the kernels read
ACC_VARS = ("acc", "tmp")     # accumulator variables (C's type); a, b are A's and B's
PRODUCERS = ("clcoop", "clcoop-O2")


@dataclass
class DivergenceCase:
    seed: int
    kind: str
    rows: int
    inner: int
    cols: int
    subgroup_size: int
    global_size: tuple
    local_size: tuple
    slots: int                 # output tiles per subgroup
    source: str
    inputs: dict = field(default_factory=dict)

    @property
    def subgroups(self):
        groups = int(np.prod(self.global_size)) // int(np.prod(self.local_size))
        return groups * (int(np.prod(self.local_size)) // self.subgroup_size)

    def describe(self):
        return (f"seed {self.seed}: {self.kind} {self.rows}x{self.inner}x{self.cols}, global "
                f"{self.global_size} local {self.local_size} S={self.subgroup_size}")


class _Writer:
    """Random statements over the kernel's matrices; `depth` bounds nesting."""

    def __init__(self, rng, case_kind, rows, inner, cols):
        self.rng = rng
        self.kind = case_kind
        self.ab, self.c = KINDS[case_kind]
        self.rows, self.inner, self.cols = rows, inner, cols
        self.slot = 0           # next output slot (each store statement has its own)
        self.loops = 0          # loop variables in use

    def choice(self, options):
        return options[int(self.rng.integers(len(options)))]

    # Uniform within a subgroup, different between subgroups and work-groups.
    def condition(self):
        value = int(self.rng.integers(0, 4))
        return self.choice([
            f"wg == {value % 3}", f"wg % 2 == {value % 2}", f"sg == {value % 3}", f"sg < {value % 3}",
            f"p > {value}", f"(p & 1) == {value % 2}", f"(wg + sg) % 3 == {value % 3}",
            f"tile % 2 == {value % 2}", f"P[(tile + {value}) % NTILES] % 3 == 0",
        ] + ([f"i{self.loops - 1} == {value % 3}"] if self.loops else []))

    def trip_count(self):
        return self.choice(["p % 4", "sg + 1", "wg", "tile % 3 + 1", "2", "(p + wg) % 3",
                            "P[(tile + 1) % NTILES] % 3"])

    def scalar(self):
        """A uniform scalar of C's component type."""
        expression = self.choice(["(p % 3) - 1", "sg + 1", "wg - 1", "2", "-1", "tile % 4"])
        return f"({self.c})({expression})"

    def tile_index(self):
        loop = f" + i{self.loops - 1}" if self.loops else ""
        return self.choice([f"(tile{loop}) % TILES", f"(p{loop}) % TILES", f"(wg + 2 * sg{loop}) % TILES"])

    def load(self, name, buffer, rows, cols):
        layout = self.choice(["row", "col"])
        stride = cols if layout == "row" else rows
        return (f"{name} = coop_mat_load({buffer} + {self.tile_index()} * {rows * cols}, "
                f"{LAYOUT[layout]}, {stride});")

    def matrix_statement(self):
        target, other = self.choice([ACC_VARS, ACC_VARS[::-1]])
        options = [
            lambda: f"{target} = {target} + {other};",
            lambda: f"{target} = {target} - {other};",
            lambda: f"{target} = {target} * {other};",
            lambda: f"{target} = -{target};",
            lambda: f"{target} = {target} * {self.scalar()};",
            lambda: f"{target} = coop_mat_init({self.scalar()});",
            lambda: self.load(target, "C", self.rows, self.cols),
            lambda: self.load("a", "A", self.rows, self.inner),
            lambda: self.load("b", "B", self.inner, self.cols),
            self.mul_add,
            self.mul_add,
            lambda: f"{target} = scaled({target}, {self.choice(['p', 'sg', 'wg', 'tile'])});",
            self.element_access,
            self.store,
        ]
        return self.choice(options)()

    def mul_add(self):
        target = self.choice(ACC_VARS)
        if self.kind == "int":
            return f"{target} = coop_matmul_add(a, b, {target}, {self.choice(INT_FLAGS)});"
        return self.choice([f"{target} = coop_matmul_add(a, b, {target}, CLK_COOPERATIVE_MATRIX_OPERAND_NONE);",
                            f"{target} = coop_mat_mulAdd(a, b, {target});"])

    def element_access(self):
        target = self.choice(ACC_VARS)
        value = self.choice([f"{target}[e] * ({self.c})2", f"{target}[e] + ({self.c})e",
                             f"{target}[e] - ({self.c})get_sub_group_local_id()",
                             f"({self.c})(get_sub_group_local_id() + e)"])
        return (f"for (uint e = 0; e < coop_mat_length({target}); ++e) "
                f"{target}[e] = {value};")

    def store(self):
        slot = self.slot
        self.slot += 1
        return (f"coop_mat_store(out + (tile * SLOTS + {slot}) * TILE, {self.choice(ACC_VARS)}, "
                f"{LAYOUT['row']}, {self.cols});")

    def block(self, depth, count):
        lines = []
        for _ in range(count):
            lines.extend(self.statement(depth))
        return lines

    def statement(self, depth):
        roll = self.rng.random()
        if depth > 0 and roll < 0.25:
            lines = [f"if ({self.condition()}) {{"] + _indent(self.block(depth - 1, self._count()))
            if self.rng.random() < 0.5:
                lines += ["} else {"] + _indent(self.block(depth - 1, self._count()))
            return lines + ["}"]
        if depth > 0 and roll < 0.45:
            var = f"i{self.loops}"
            head = f"for (int {var} = 0; {var} < {self.trip_count()}; ++{var}) {{"
            self.loops += 1
            body = self.block(depth - 1, self._count())
            if self.rng.random() < 0.3:
                body.insert(int(self.rng.integers(len(body) + 1)),
                            f"if ({self.condition()}) {self.choice(['break', 'continue'])};")
            self.loops -= 1
            return [head] + _indent(body) + ["}"]
        return [self.matrix_statement()]

    def _count(self):
        return int(self.rng.integers(1, 4))


def _indent(lines):
    return ["    " + line for line in lines]


def _source(writer, body, slots):
    rows, inner, cols = writer.rows, writer.inner, writer.cols
    ab, c = writer.ab, writer.c
    lines = [
        f"#define TILES {TILES_IN_BUFFERS}",
        f"#define TILE {rows * cols}",
        f"#define SLOTS {slots}",
        f"typedef {ab} ma __attribute__((coop_mat({SCOPE}, {rows}, {inner}, CLK_COOPERATIVE_MATRIX_A)));",
        f"typedef {ab} mb __attribute__((coop_mat({SCOPE}, {inner}, {cols}, CLK_COOPERATIVE_MATRIX_B)));",
        f"typedef {c} mc __attribute__((coop_mat({SCOPE}, {rows}, {cols}, CLK_COOPERATIVE_MATRIX_ACCUMULATOR)));",
        "",
        "static mc scaled(mc m, int s) {",
        "    if (s % 2) m = m + m;",
        f"    for (int k = 0; k < s % 3; ++k) m = m * ({c})(k - 1);",
        "    return m;",
        "}",
        "",
        f"__kernel void fuzz(__global const {ab} *A, __global const {ab} *B, __global const {c} *C,",
        f"                   __global const int *P, __global {c} *out) {{",
        "    const uint wg = get_group_id(1) * get_num_groups(0) + get_group_id(0);",
        "    const uint sg = get_sub_group_id();",
        "    const uint tile = wg * get_num_sub_groups() + sg;",
        "    const uint NTILES = get_num_groups(0) * get_num_groups(1) * get_num_sub_groups();",
        "    const int p = P[tile];",
        f"    mc acc = coop_mat_load(C + tile % TILES * TILE, {LAYOUT['row']}, {cols});",
        f"    mc tmp = coop_mat_init(({c})1);",
        f"    ma a = coop_mat_load(A + p % TILES * {rows * inner}, {LAYOUT['row']}, {inner});",
        f"    mb b = coop_mat_load(B + sg % TILES * {inner * cols}, {LAYOUT['row']}, {cols});",
    ]
    lines += _indent(body)
    lines += [f"    coop_mat_store(out + (tile * SLOTS + {slots - 2}) * TILE, acc, {LAYOUT['row']}, {cols});",
              f"    coop_mat_store(out + (tile * SLOTS + {slots - 1}) * TILE, tmp, {LAYOUT['row']}, {cols});",
              "}"]
    return "\n".join(lines) + "\n"


def divergence_case(rng, seed=None):
    kind = ["float", "int"][int(rng.integers(2))]
    S = [8, 16][int(rng.integers(2))]
    rows = [2, 4, 8][int(rng.integers(3))]
    inner = [8, 16][int(rng.integers(2))]
    cols = [8, 16][int(rng.integers(2))]
    subgroups_per_group = int(rng.integers(1, 4))
    local = S * subgroups_per_group
    groups = (int(rng.integers(1, 4)), int(rng.integers(1, 3)) if rng.random() < 0.3 else 1)
    writer = _Writer(rng, kind, rows, inner, cols)
    body = writer.block(depth=3, count=int(rng.integers(2, 6)))
    slots = writer.slot + 2
    global_size = (groups[0] * local, groups[1]) if groups[1] > 1 else (groups[0] * local,)
    local_size = (local, 1) if groups[1] > 1 else (local,)
    case = DivergenceCase(seed, kind, rows, inner, cols, S, global_size, local_size, slots,
                          _source(writer, body, slots))
    ab, c = KINDS[kind]
    case.inputs = {
        "A": _data(rng, ab, TILES_IN_BUFFERS * rows * inner),
        "B": _data(rng, ab, TILES_IN_BUFFERS * inner * cols),
        "C": _data(rng, c, TILES_IN_BUFFERS * rows * cols),
        "P": rng.integers(0, 8, case.subgroups).astype(np.int32),
    }
    return case


def _data(rng, component, n):
    if component == "float":
        # Small integers: products and their sums stay exact (see the module docstring).
        return rng.integers(-4, 5, n).astype(np.float32)
    info = np.iinfo(DTYPES[component])
    return rng.integers(info.min, info.max, n, endpoint=True).astype(DTYPES[component])


def run_case(case, program, serial):
    """The output buffer of one run of a built program (fresh copies of the inputs)."""
    out = np.full(case.subgroups * case.slots * case.rows * case.cols, 0x5B,
                  DTYPES[KINDS[case.kind][1]])
    args = [case.inputs[name].copy() for name in ("A", "B", "C", "P")] + [out]
    program.run("fuzz", case.global_size, case.local_size, *args,
                subgroup_size=case.subgroup_size, serial_subgroups=serial)
    return out


def oracle_problem(case, producers=PRODUCERS):
    """None when all-at-once and one-subgroup-at-a-time runs agree bit for bit at every
    optimization level, else a description (with the source) of the first difference."""
    import kernel_gen as kg
    for producer in producers:
        program = kg.build_program(case.source, producer)
        together = run_case(case, program, serial=False)
        alone = run_case(case, program, serial=True)
        bits = f"u{together.dtype.itemsize}"
        same = together.view(bits) == alone.view(bits)
        if not same.all():
            first = int(np.flatnonzero(~same)[0])
            tile_elems = case.rows * case.cols
            subgroup, slot = divmod(first // tile_elems, case.slots)
            return (f"{producer}: {int((~same).sum())} elements differ; first at {first} (subgroup "
                    f"{subgroup}, slot {slot}): all at once {together[first]!r}, one subgroup at a "
                    f"time {alone[first]!r}; {case.describe()}\n{case.source}")
    return None
