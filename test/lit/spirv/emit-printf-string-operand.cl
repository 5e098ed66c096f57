// `clcoop --emit-spirv` of a printf in a function that takes a `constant char *` (pocl's
// test_convert_type_N): llc-22 alone stops with "LLVM ERROR:
// SPV_EXT_relaxed_printf_string_address_space is required" (clang-22's IR too), which clcoop
// reported as an internal error. The module now asks for that extension, and only a module that
// llc says needs it; spirv-val accepts it. (NO_STRING_PARAMETER: the same printf in a function
// without the parameter needs no extension.)
// REQUIRES: llc, spirv-tools
// RUN: %clcoop %s --emit-spirv -o %t.spv
// RUN: %spirv-val %t.spv
// RUN: %spirv-dis %t.spv | FileCheck %s
// RUN: %clcoop %s -DNO_STRING_PARAMETER --emit-spirv -o %t.plain.spv
// RUN: %spirv-val %t.plain.spv
// RUN: %spirv-dis %t.plain.spv | FileCheck %s --check-prefix=PLAIN

// CHECK: OpExtension "SPV_EXT_relaxed_printf_string_address_space"
// CHECK: OpExtInst %{{.*}} printf
// PLAIN-NOT: SPV_EXT_relaxed_printf_string_address_space
// PLAIN: OpExtInst %{{.*}} printf

#ifdef NO_STRING_PARAMETER
void report(int value)
{
    printf("%s = %d\n", "first", value);
}

kernel void k(global int *a)
{
    report(a[0]);
}
#else
void report(constant char *name, int value)
{
    printf("%s = %d\n", name, value);
}

kernel void k(global int *a)
{
    report("first", a[0]);
}
#endif
