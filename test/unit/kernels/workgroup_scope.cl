// Every KHR cooperative-matrix operation on workgroup-scope matrices (test_workgroup_scope.py).
// Built with -DM=.. -DN=.. -DK=.. -DLX=.. -DLY=.. (reqd_work_group_size(LX, LY, 1)), -DAB=<A/B
// component type> -DACC=<accumulator component type>. Work-group g works on its own matrices:
// A at a + g*M*K (row-major), B at b + g*K*N (column-major), C at c + g*M*N (row-major).
#pragma OPENCL EXTENSION cl_khr_cooperative_matrix : enable
#pragma OPENCL EXTENSION cl_khr_fp16 : enable

#define WG CLK_COOPERATIVE_MATRIX_SCOPE_WORKGROUP
#define ROW_MAJOR CLK_COOPERATIVE_MATRIX_LAYOUT_ROW_MAJOR
#define COL_MAJOR CLK_COOPERATIVE_MATRIX_LAYOUT_COLUMN_MAJOR
#define W (LX * LY)

typedef AB mat_a __attribute__((coop_mat(WG, M, K, CLK_COOPERATIVE_MATRIX_A)));
typedef AB mat_b __attribute__((coop_mat(memory_scope_work_group, K, N, CLK_COOPERATIVE_MATRIX_B)));
typedef ACC mat_c __attribute__((coop_mat(WG, M, N, CLK_COOPERATIVE_MATRIX_ACCUMULATOR)));
typedef float mat_f __attribute__((coop_mat(WG, M, N, CLK_COOPERATIVE_MATRIX_ACCUMULATOR)));
typedef int mat_i __attribute__((coop_mat(WG, M, N, CLK_COOPERATIVE_MATRIX_ACCUMULATOR)));

static size_t group(void) { return get_group_id(0) + get_num_groups(0) * get_group_id(1); }

// out = A*B + C (mul-add with the signedness of the types).
__attribute__((reqd_work_group_size(LX, LY, 1)))
kernel void mul_add(global const AB *a, global const AB *b, global const ACC *c, global ACC *out)
{
    size_t g = group();
    mat_a x = coop_mat_load(a + g * M * K, ROW_MAJOR, (size_t)K);
    mat_b y = coop_mat_load(b + g * K * N, COL_MAJOR, (size_t)K);
    mat_c z = coop_mat_load(c + g * M * N, ROW_MAJOR, (size_t)N);
    coop_mat_store(out + g * M * N, coop_mat_mulAdd(x, y, z), ROW_MAJOR, (size_t)N);
}

// Every work-group multiplies the same A and B (so the interpreter reads them once and
// keeps the product's grid form between the two mul-adds) into its own C.
__attribute__((reqd_work_group_size(LX, LY, 1)))
kernel void shared_mul_add(global const AB *a, global const AB *b, global const ACC *c, global ACC *out)
{
    size_t g = group();
    mat_a x = coop_mat_load(a, ROW_MAJOR, (size_t)K);
    mat_b y = coop_mat_load(b, COL_MAJOR, (size_t)K);
    mat_c z = coop_mat_load(c + g * M * N, ROW_MAJOR, (size_t)N);
    z = coop_mat_mulAdd(x, y, z);
    z = coop_mat_mulAdd(x, y, z);
    coop_mat_store(out + g * M * N, z, ROW_MAJOR, (size_t)N);
}

static mat_f twice_plus_one(mat_f m)
{
    for (uint i = 0; i < coop_mat_length(m); ++i)
        m[i] = 2.0f * m[i] + 1.0f;
    return m;
}

// Element-wise operators, init, element access and conversions on float X and Y (M x N,
// row-major): out holds 9 M x N results per work-group (see OPERATIONS in the test),
// out_int (int)X, out_col X stored column-major.
__attribute__((reqd_work_group_size(LX, LY, 1)))
kernel void elementwise(global const float *X, global const float *Y, float alpha,
                        global float *out, global int *out_int, global float *out_col)
{
    size_t g = group();
    mat_f x = coop_mat_load(X + g * M * N, ROW_MAJOR, (size_t)N);
    mat_f y = coop_mat_load(Y + g * M * N, ROW_MAJOR, (size_t)N);
    global float *o = out + g * 9 * M * N;
    coop_mat_store(o + 0 * M * N, x + y, ROW_MAJOR, (size_t)N);
    coop_mat_store(o + 1 * M * N, x - y, ROW_MAJOR, (size_t)N);
    coop_mat_store(o + 2 * M * N, x * y, ROW_MAJOR, (size_t)N);
    coop_mat_store(o + 3 * M * N, x / y, ROW_MAJOR, (size_t)N);
    coop_mat_store(o + 4 * M * N, -x, ROW_MAJOR, (size_t)N);
    coop_mat_store(o + 5 * M * N, x * alpha, ROW_MAJOR, (size_t)N);
    coop_mat_store(o + 6 * M * N, twice_plus_one(x), ROW_MAJOR, (size_t)N);
    mat_f three = coop_mat_init(3.0f);
    coop_mat_store(o + 7 * M * N, three, ROW_MAJOR, (size_t)N);
    mat_i xi = (mat_i)x;
    coop_mat_store(out_int + g * M * N, xi, ROW_MAJOR, (size_t)N);
    coop_mat_store(o + 8 * M * N, (mat_f)xi, ROW_MAJOR, (size_t)N);
    coop_mat_store(out_col + g * M * N, x, COL_MAJOR, (size_t)M);
}

// Which element each work-item holds: elems[(g*W + local linear id)*V + i] = x[i] for the
// matrix x whose element (r, c) is r*N + c + 1 (padding reads 0); length[...] = V.
__attribute__((reqd_work_group_size(LX, LY, 1)))
kernel void elements(global const float *X, global float *elems, global uint *length)
{
    size_t g = group();
    size_t w = g * W + get_local_linear_id();
    mat_f x = coop_mat_load(X, ROW_MAJOR, (size_t)N);
    uint V = coop_mat_length(x);
    length[w] = V;
    for (uint i = 0; i < V; ++i)
        elems[w * V + i] = x[i];
}

// A workgroup operation reached by only part of the work-group: a fault.
__attribute__((reqd_work_group_size(LX, LY, 1)))
kernel void divergent(global const float *X, global float *out, uint limit)
{
    if (get_local_linear_id() < limit) {
        mat_f x = coop_mat_load(X, ROW_MAJOR, (size_t)N);
        coop_mat_store(out, x, ROW_MAJOR, (size_t)N);
    }
}

// Branches that are uniform in each work-group but differ between work-groups are fine.
__attribute__((reqd_work_group_size(LX, LY, 1)))
kernel void per_group_branch(global const float *X, global float *out)
{
    size_t g = group();
    mat_f x = coop_mat_load(X + g * M * N, ROW_MAJOR, (size_t)N);
    if (g % 2)
        x = x * 2.0f;
    else
        x = -x;
    coop_mat_store(out + g * M * N, x, ROW_MAJOR, (size_t)N);
}

// A pointer that differs between the work-items of a work-group: a fault.
__attribute__((reqd_work_group_size(LX, LY, 1)))
kernel void nonuniform_pointer(global const float *X, global float *out)
{
    mat_f x = coop_mat_load(X + (get_local_linear_id() == W - 1), ROW_MAJOR, (size_t)N);
    coop_mat_store(out, x, ROW_MAJOR, (size_t)N);
}

// The cooperative-matrix2 operations at workgroup scope (issue 13): row sums by
// coop_mat_reduce, a per-element function that records which work-item runs it (the one
// holding the element), and coop_mat_get_coord.
static float add(float a, float b) { return a + b; }

static float affine(uint row, uint col, float x, float scale, global int *owner)
{
    owner[row * N + col] = (int)get_local_linear_id();
    return x * scale + (float)(row * 1000 + col);
}

__attribute__((reqd_work_group_size(LX, LY, 1)))
kernel void matrix2_ops(global const float *X, global float *sums, global float *affined,
                        global int *owner, global uint *coords)
{
    size_t g = group();
    mat_f x = coop_mat_load(X + g * M * N, ROW_MAJOR, (size_t)N);
    mat_f s = coop_mat_reduce(x, CLK_COOPERATIVE_MATRIX_REDUCE_ROW, add);
    coop_mat_store(sums + g * M * N, s, ROW_MAJOR, (size_t)N);
    mat_f a = coop_mat_per_element(x, affine, 2.0f, owner + g * M * N);
    coop_mat_store(affined + g * M * N, a, ROW_MAJOR, (size_t)N);
    size_t w = g * W + get_local_linear_id();
    uint V = coop_mat_length(x);
    for (uint i = 0; i < V; ++i) {
        uint2 rc = coop_mat_get_coord(x, i);
        coords[(w * V + i) * 2] = rc.x;
        coords[(w * V + i) * 2 + 1] = rc.y;
    }
}
