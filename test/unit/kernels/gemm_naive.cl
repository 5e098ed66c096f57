// C = A * B, row-major, one work-item per element of C (2-D NDRange).
__kernel void gemm_naive(__global const float *A, __global const float *B,
                         __global float *C, int M, int N, int K) {
  int col = get_global_id(0);
  int row = get_global_id(1);
  if (row >= M || col >= N)
    return;
  float acc = 0.0f;
  for (int k = 0; k < K; ++k)
    acc += A[row * K + k] * B[k * N + col];
  C[row * N + col] = acc;
}
