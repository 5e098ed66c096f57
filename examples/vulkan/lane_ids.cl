// A kernel whose result depends on the matrix layout: every invocation writes, into each element
// it holds (element access, SPV_KHR_cooperative_matrix "OpAccessChain"), 100 * its sub-group
// local id + the element's index, then the matrix is stored row-major. The output therefore
// shows which invocation holds which element: in the interpreter the tinytc layout
// (docs/layout.md), on a GPU the driver's (clcoop-layout --device vulkan). scripts/gpu_check.py
// compares the two through the layouts, not element by element.
// NDRange: global (32), local (32); subgroup size 32.
#pragma OPENCL EXTENSION cl_khr_cooperative_matrix : enable

typedef float mat_c __attribute__((coop_mat(CLK_COOPERATIVE_MATRIX_SCOPE_SUBGROUP, 16, 16, CLK_COOPERATIVE_MATRIX_ACCUMULATOR)));

__kernel void lane_ids(__global float *out)
{
    mat_c m = coop_mat_init(0.0f);
    const int lane = (int)get_sub_group_local_id();
    for (int i = 0; i < coop_mat_length(m); i++)
        m[i] = (float)(100 * lane + i);
    coop_mat_store(out, m, CLK_COOPERATIVE_MATRIX_LAYOUT_ROW_MAJOR, (size_t)16);
}
