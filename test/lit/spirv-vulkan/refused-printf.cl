// What has no Vulkan form is a compile error at its source line, and no module is written.
// RUN: %not %clcoop %s --emit-spirv --target-env=vulkan1.3 -o %t.spv 2>&1 | FileCheck %s
// RUN: test ! -e %t.spv
// RUN: %not %clcoop %s -DLOADED --emit-spirv --target-env=vulkan1.3 -o %t.spv 2>&1 | FileCheck %s --check-prefix=LOADED
// RUN: %not %clcoop %s --target-env=vulkan1.3 -o %t.ll 2>&1 | FileCheck %s --check-prefix=USAGE

// CHECK: refused-printf.cl:16:5: error: printf has no Vulkan equivalent
// CHECK-NEXT: printf("%d\n", 1);
// CHECK-NEXT: ^
// LOADED: refused-printf.cl:18:{{[0-9]+}}: error: a __global pointer loaded from memory cannot be used as a buffer
// USAGE: clcoop: error: --target-env needs --emit-spirv

__kernel void k(__global float * __global *pp, __global float *out)
{
#ifndef LOADED
    printf("%d\n", 1);
#else
    __global float *p = pp[0];
    out[0] = p[1];
#endif
}
