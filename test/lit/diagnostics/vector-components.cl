// Vector component and vector literal errors located like clang-22: an illegal name at its first
// bad character, 'exceeds' at the '.', too few elements at the list's '(', excess at the element.
// RUN: %not %clcoop %s -o %t 2>&1 | FileCheck %s
kernel void k(global float *o) {
  float4 v = (float4)(1.0f);
  float2 w = (float2)(1.0f);
  o[0] = v.xyq;
  o[1] = w.w;
  o[2] = v.s9;
  o[3] = v.sg;
  o[4] = v.xr;
  o[5] = v .  q;
  o[6] = w.s01z;
  float4 u = (float4)( 1.0f, 2.0f);
  float2 t = (float2)(1.0f, 2.0f, 3.0f);
}

// CHECK: {{.*}}vector-components.cl:7:14: error: illegal vector component name 'q'
// CHECK: {{.*}}vector-components.cl:8:11: error: vector component access exceeds type 'float2'
// CHECK: {{.*}}vector-components.cl:9:11: error: vector component access exceeds type 'float4'
// CHECK: {{.*}}vector-components.cl:10:13: error: illegal vector component name 'g'
// CHECK: {{.*}}vector-components.cl:11:13: error: illegal vector component name 'r'
// CHECK: {{.*}}vector-components.cl:12:13: error: illegal vector component name 'q'
// CHECK: {{.*}}vector-components.cl:13:15: error: illegal vector component name 'z'
// CHECK: {{.*}}vector-components.cl:14:22: error: too few elements in vector initialization (expected 4 elements, have 2)
// CHECK: {{.*}}vector-components.cl:15:35: error: excess elements in vector initializer
// CHECK: {{.*}}9 errors generated.
