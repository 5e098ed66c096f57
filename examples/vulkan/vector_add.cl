// The smallest Vulkan-target kernel: c = a + b over n elements (the global size may exceed n).
// A global offset shifts the indices (get_global_id includes it, as in OpenCL).
__kernel void vector_add(__global const float *a, __global const float *b, __global float *c, int n)
{
    const size_t i = get_global_id(0);
    if (i < (size_t)n)
        c[i] = a[i] + b[i];
}
