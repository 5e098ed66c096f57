"""Subgroups and work-groups that take different paths with a matrix (issue 10).

SPV_KHR_cooperative_matrix only requires every work-item of one subgroup to run a matrix
operation together; different subgroups may branch differently. The interpreter used to
hand an operation run by some subgroups the matrices of all of them (a matrix value's
cached forms were keyed without the active subgroups): raw broadcast errors, or a store
of another work-group's matrix. Each kernel is checked against NumPy, at -O0 and -O2,
run all at once and one subgroup at a time (serial_subgroups).

The random kernels of test/unit/support/divergence_gen.py then check that a result does not
depend on how work-items are batched (seeds in the test ids: replay one with
`python3 scripts/fuzz_interp.py --kinds divergence --seed 0 --first <seed> --count 1`).
"""
import numpy as np
import pytest

import clcoop
import divergence_gen as dg

PRODUCERS = {"O0": ["-O0"], "O2": ["-O2"]}
RUNS = {"together": False, "serial": True}
HEAD = """
typedef float m8 __attribute__((coop_mat(CLK_COOPERATIVE_MATRIX_SCOPE_SUBGROUP, 8, 16, CLK_COOPERATIVE_MATRIX_ACCUMULATOR)));
typedef float ma __attribute__((coop_mat(CLK_COOPERATIVE_MATRIX_SCOPE_SUBGROUP, 8, 16, CLK_COOPERATIVE_MATRIX_A)));
typedef float mb __attribute__((coop_mat(CLK_COOPERATIVE_MATRIX_SCOPE_SUBGROUP, 16, 16, CLK_COOPERATIVE_MATRIX_B)));
#define RM CLK_COOPERATIVE_MATRIX_LAYOUT_ROW_MAJOR
"""
TILE = 128
X = np.arange(256, dtype=np.float32)


def run(body, opt, serial, global_size=32, local_size=16, extra=()):
    source = HEAD + "__kernel void k(__global const float *X, __global float *Y" + \
        "".join(f", {decl}" for decl, _ in extra) + ") {\n" + body + "\n}\n"
    program = clcoop.Program(source).build(PRODUCERS[opt])
    Y = np.zeros(X.size, np.float32)
    program.k(global_size, local_size, X.copy(), Y, *[value for _, value in extra],
              subgroup_size=16, serial_subgroups=RUNS[serial])
    return Y


both = pytest.mark.parametrize("opt", PRODUCERS)
runs = pytest.mark.parametrize("serial", RUNS)


@both
@runs
def test_issue_kernel_negation_in_a_branch_on_the_group(opt, serial):
    Y = run("""
    m8 x = coop_mat_load(X + get_group_id(0) * 128, RM, 16);
    if (get_group_id(0) == 1) x = -x;
    coop_mat_store(Y + get_group_id(0) * 128, x, RM, 16);""", opt, serial)
    np.testing.assert_array_equal(Y, np.concatenate([X[:TILE], -X[TILE:]]))


@both
@runs
def test_store_inside_the_branch_stores_its_own_matrix(opt, serial):
    # Was silent: work-group 1 stored work-group 0's matrix.
    Y = run("""
    m8 x = coop_mat_load(X + get_group_id(0) * 128, RM, 16);
    if (get_group_id(0) == 1) { x = -x; coop_mat_store(Y + get_group_id(0) * 128, x, RM, 16); }
    else coop_mat_store(Y + get_group_id(0) * 128, x, RM, 16);""", opt, serial)
    np.testing.assert_array_equal(Y, np.concatenate([X[:TILE], -X[TILE:]]))


@both
@runs
def test_only_one_group_stores(opt, serial):
    Y = run("""
    m8 x = coop_mat_load(X + get_group_id(0) * 128, RM, 16);
    if (get_group_id(0) == 1) coop_mat_store(Y + get_group_id(0) * 128, x, RM, 16);""", opt, serial)
    np.testing.assert_array_equal(Y, np.concatenate([np.zeros(TILE, np.float32), X[TILE:]]))


@both
@runs
@pytest.mark.parametrize("operator, reference", [
    ("x + y", lambda x, y: x + y), ("x * y", lambda x, y: x * y), ("x - y", lambda x, y: x - y),
    ("-y", lambda x, y: -y), ("x * 3.0f", lambda x, y: x * 3)])
def test_elementwise_operator_in_a_branch(opt, serial, operator, reference):
    Y = run(f"""
    m8 x = coop_mat_load(X + get_group_id(0) * 128, RM, 16);
    m8 y = coop_mat_load(X + (1 - get_group_id(0)) * 128, RM, 16);
    if (get_group_id(0) == 0) x = {operator};
    coop_mat_store(Y + get_group_id(0) * 128, x, RM, 16);""", opt, serial)
    x0, x1 = X[:TILE], X[TILE:]
    np.testing.assert_array_equal(Y, np.concatenate([reference(x0, x1), x1]))


@both
@runs
def test_mul_add_in_a_branch_on_the_subgroup(opt, serial):
    # Two subgroups in one work-group; only subgroup 1 multiplies: A = its tile of X as 8x16,
    # B = the 16x16 identity (from the extra buffer), C = x.
    eye = np.eye(16, dtype=np.float32).reshape(-1)
    Y = run("""
    uint t = get_sub_group_id();
    m8 c = coop_mat_load(X + t * 128, RM, 16);
    ma a = coop_mat_load(X + t * 128, RM, 16);
    mb b = coop_mat_load(I, RM, 16);
    if (t == 1) c = coop_matmul_add(a, b, c, CLK_COOPERATIVE_MATRIX_OPERAND_NONE);
    coop_mat_store(Y + t * 128, c, RM, 16);""", opt, serial, global_size=32, local_size=32,
            extra=[("__global const float *I", eye)])
    np.testing.assert_array_equal(Y, np.concatenate([X[:TILE], 2 * X[TILE:]]))


@both
@runs
def test_loop_trip_count_differs_between_subgroups(opt, serial):
    # Subgroup t adds its tile to the accumulator t + 1 times, and on odd iterations
    # mul-adds it with B = identity (acc += x).
    eye = np.eye(16, dtype=np.float32).reshape(-1)
    Y = run("""
    uint t = get_group_id(0) * get_num_sub_groups() + get_sub_group_id();
    m8 x = coop_mat_load(X + t * 128, RM, 16);
    ma a = coop_mat_load(X + t * 128, RM, 16);
    mb b = coop_mat_load(I, RM, 16);
    m8 acc = coop_mat_init(0.0f);
    for (uint i = 0; i <= t; ++i) {
        acc = acc + x;
        if (i % 2) acc = coop_matmul_add(a, b, acc, CLK_COOPERATIVE_MATRIX_OPERAND_NONE);
    }
    coop_mat_store(Y + t * 128, acc, RM, 16);""", opt, serial, global_size=32, local_size=32,
            extra=[("__global const float *I", eye)])
    # t = 0: one addition; t = 1: x + x, then + x (the mul-add).
    np.testing.assert_array_equal(Y, np.concatenate([X[:TILE], 3 * X[TILE:]]))


def test_serial_subgroups_refuses_work_group_barriers():
    source = HEAD + """__kernel void k(__global float *Y) {
        Y[get_global_id(0)] = 1.0f;
        barrier(CLK_GLOBAL_MEM_FENCE);
    }"""
    program = clcoop.Program(source).build()
    Y = np.zeros(32, np.float32)
    with pytest.raises(clcoop.RuntimeFault, match="one at a time"):
        program.k(32, 32, Y, subgroup_size=16, serial_subgroups=True)
    assert not Y.any()      # a fault leaves the buffers untouched
    program.k(32, 16, Y, subgroup_size=16, serial_subgroups=True)   # one sub-group per work-group
    assert (Y == 1).all()


def test_serial_subgroups_keeps_ids_local_memory_and_subgroup_collectives():
    # The sub-groups of a work-group share its __local memory also when run one at a time:
    # the old values of a local counter are 48 consecutive numbers per work-group (whatever
    # the counter's initial value), not 16 thrice.
    source = """__kernel void k(__global int *ids, __global int *ticket, __local int *counter) {
        size_t g = get_global_id(0);
        ids[g] = get_group_id(0) * 1000 + get_sub_group_id() * 100 + get_sub_group_local_id()
                 + 10000 * sub_group_reduce_add(1) + 100000 * (int)get_num_sub_groups();
        ticket[g] = atomic_inc(counter);
    }"""
    program = clcoop.Program(source).build()
    gid = np.arange(96)
    group, local = gid // 48, gid % 48
    results = []
    for serial in (False, True):
        ids, ticket = np.zeros(96, np.int32), np.zeros(96, np.int32)
        program.k(96, 48, ids, ticket, clcoop.LocalMemory(4), subgroup_size=16, serial_subgroups=serial)
        np.testing.assert_array_equal(ids, group * 1000 + local // 16 * 100 + local % 16 + 460000)
        for g in range(2):
            tickets = np.sort(ticket[g * 48:(g + 1) * 48])
            np.testing.assert_array_equal(tickets - tickets[0], np.arange(48))
        results.append(ids)
    np.testing.assert_array_equal(results[0], results[1])


def test_partial_subgroup_fault_names_the_right_subgroup_when_serial():
    source = HEAD + """__kernel void k(__global const float *X, __global float *Y) {
        if (get_local_id(0) != 20) {
            m8 x = coop_mat_load(X, RM, 16);
            coop_mat_store(Y, x, RM, 16);
        }
    }"""
    program = clcoop.Program(source).build()
    for serial in (False, True):
        with pytest.raises(clcoop.RuntimeFault, match="sub-group 1 "):
            program.k(32, 32, X.copy(), np.zeros(256, np.float32), subgroup_size=16,
                      serial_subgroups=serial)


@pytest.mark.slow
@pytest.mark.parametrize("seed", range(250))
def test_random_divergent_kernel_does_not_depend_on_batching(seed):
    case = dg.divergence_case(np.random.default_rng(seed), seed)
    problem = dg.oracle_problem(case)
    assert problem is None, problem


def test_matrix_value_forms_give_the_selected_subgroups():
    """Every form of a MatrixValue (logical, a load's factored tiles, a mul-add's grid)
    hands out exactly the matrices of the selected subgroups, in their order."""
    from clcoop.interp import coopmat
    from clcoop.ir.layout import get_layout
    from clcoop.interp.matrix_value import MatrixValue
    layout = get_layout(4, 8, "accumulator", "float", 8)
    rng = np.random.default_rng(0)
    tiles = rng.standard_normal((3, 4, 8)).astype(np.float32)
    index = np.array([2, 0, 0, 1, 2, 1])
    pairs = rng.standard_normal((2, 4, 3, 8)).astype(np.float32)     # 2 x 3 grid: 6 matrices
    forms = [dict(logical=np.take(tiles, index, axis=0)), dict(factored=(tiles, index)),
             dict(grid=coopmat.Grid(pairs))]
    selected = np.array([1, 4, 5])
    for form in forms:
        value = MatrixValue(("key",), layout, 6, np.float32, **form)
        whole = MatrixValue(("key",), layout, 6, np.float32, **form).logical()
        np.testing.assert_array_equal(value.logical(selected), whole[selected])
        assert value.logical(selected).shape == (3, 4, 8)
    factored = MatrixValue(("key",), layout, 6, np.float32, factored=(tiles, index))
    np.testing.assert_array_equal(factored.factored(selected)[1], index[selected])
