// clcoop-run end to end: buffers in, updated buffers out; a fault writes nothing.
// RUN: rm -rf %t && mkdir -p %t
// RUN: %python -c "import numpy as np; np.save('%t/a.npy', np.arange(8, dtype=np.float32)); np.save('%t/c.npy', np.zeros(8, np.float32))"
// RUN: %clcoop-run %s --kernel scale --global 8 --local 4 --arg a=%t/a.npy --arg c=%t/c.npy --arg k=3 --out %t/out | FileCheck %s --check-prefix=OK
// RUN: %python -c "import numpy as np; print(np.load('%t/out/c.npy').tolist())" | FileCheck %s --check-prefix=VALUES
// RUN: %not %clcoop-run %s --kernel scale --global 8 --local 4 --arg a=%t/a.npy --arg c=%t/c.npy --arg k=300 --out %t/bad 2>&1 | FileCheck %s --check-prefix=FAULT
// RUN: test ! -e %t/bad

// OK: wrote {{.*}}out/c.npy
// VALUES: [0.0, 3.0, 6.0, 9.0, 12.0, 15.0, 18.0, 21.0]
// A fault names the source line (clcoop-run always compiles with -g), the work-item, and
// the buffer argument with the element offset.
// FAULT: vector_add.cl:21:10: error: kernel 'scale': out-of-bounds read of float32 at element 300 of buffer 'a' (8 elements)
// FAULT-NEXT: {{^}}  c[i] = a[i + (k > 100 ? k : 0)] * k;
// FAULT-NEXT: {{^         \^$}}
// FAULT-NEXT: in work-item global id (0) (local id (0), group (0))
// FAULT-NEXT: buffer: a

__kernel void scale(__global const float *a, __global float *c, int k) {
  int i = get_global_id(0);
  c[i] = a[i + (k > 100 ? k : 0)] * k;
}
