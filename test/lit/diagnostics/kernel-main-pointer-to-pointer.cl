// No function or kernel may be called `main` (OpenCL C 3.0 6.11), and before OpenCL C 2.0
// a kernel parameter cannot be a pointer to a pointer (1.2 6.9.a). clang-22's wording.
// RUN: not %clcoop %s -fsyntax-only -cl-std=CL1.2 2>&1 | FileCheck %s --check-prefixes=CHECK,CL12
// RUN: not %clcoop %s -fsyntax-only -cl-std=CL3.0 2>&1 | FileCheck %s --check-prefixes=CHECK,CL30
// RUN: not %clcoop %s -fsyntax-only -DFUNCTION 2>&1 | FileCheck %s --check-prefix=FUNCTION

// CL12: kernel-main-pointer-to-pointer.cl:8:52: error: kernel parameter cannot be declared as a pointer to a pointer
kernel void pointer_to_pointer(global int *global *p) { }
#ifdef FUNCTION
// FUNCTION: kernel-main-pointer-to-pointer.cl:11:5: error: function cannot be called 'main'
int main(void) { return 0; }
#else
// CHECK: kernel-main-pointer-to-pointer.cl:14:13: error: kernel cannot be called 'main'
kernel void main(void) { }
#endif
// CL12: 2 errors generated.
// CL30: 1 error generated.
