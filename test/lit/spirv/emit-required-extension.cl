// `clcoop --emit-spirv` of a kernel clock built-in (pocl's test_kernel_clock): llc-22 stops with
// "LLVM ERROR: clock_read_device: the builtin requires the following SPIR-V extension:
// SPV_KHR_shader_clock", which clcoop reported as an internal error. llc is now asked again with
// each extension it names (one retry per extension), so the module declares exactly the ones it
// needs: SPV_KHR_shader_clock here; with BOTH, also the printf one of
// emit-printf-string-operand.cl (two retries in one module); none for a kernel without clocks.
// REQUIRES: llc, spirv-tools
// RUN: %clcoop %s --emit-spirv -o %t.spv
// RUN: %spirv-val %t.spv
// RUN: %spirv-dis %t.spv | FileCheck %s
// RUN: %clcoop %s -DBOTH --emit-spirv -o %t.both.spv
// RUN: %spirv-val %t.both.spv
// RUN: %spirv-dis %t.both.spv | FileCheck %s --check-prefix=BOTH
// RUN: %clcoop %s -DNO_CLOCK --emit-spirv -o %t.plain.spv
// RUN: %spirv-val %t.plain.spv
// RUN: %spirv-dis %t.plain.spv | FileCheck %s --check-prefix=PLAIN

// CHECK-NOT: SPV_EXT_relaxed_printf_string_address_space
// CHECK: OpExtension "SPV_KHR_shader_clock"
// CHECK-NOT: SPV_EXT_relaxed_printf_string_address_space
// CHECK: OpReadClockKHR %ulong %uint_1
// CHECK: OpReadClockKHR %ulong %uint_2
// CHECK: OpReadClockKHR %v2uint %uint_3
// BOTH-DAG: OpExtension "SPV_KHR_shader_clock"
// BOTH-DAG: OpExtension "SPV_EXT_relaxed_printf_string_address_space"
// BOTH: OpReadClockKHR
// PLAIN-NOT: SPV_KHR_shader_clock
// PLAIN-NOT: OpReadClockKHR

#ifdef BOTH
void report(constant char *name, ulong value)
{
    printf("%s = %lu\n", name, value);
}
#endif

kernel void k(global ulong *out)
{
#ifndef NO_CLOCK
    out[0] = clock_read_device();
    out[1] = clock_read_work_group();
    uint2 hilo = clock_read_hilo_sub_group();
    out[2] = ((ulong)hilo.y << 32) | hilo.x;
#else
    out[0] = 0;
#endif
#ifdef BOTH
    report("device", out[0]);
#endif
}
