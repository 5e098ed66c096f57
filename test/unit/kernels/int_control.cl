// Integer arithmetic and control flow: loops with break/continue, switch, helper
// functions, a __constant table, divergent if/else, signed and unsigned division.
__constant int weights[8] = {3, -1, 4, -1, 5, -9, 2, 6};

int collatz_steps(int x) {
  int steps = 0;
  while (x != 1) {
    if (steps > 200)
      break;
    x = (x & 1) ? 3 * x + 1 : x / 2;
    steps++;
  }
  return steps;
}

uint mix_bits(uint v) {
  v ^= v >> 7;
  v *= 0x9E3779B1u;
  v ^= v << 3;
  return v;
}

__kernel void int_control(__global const int *in, __global int *out,
                          __global uint *hashes) {
  int i = get_global_id(0);
  int x = in[i];
  int acc = 0;
  for (int k = 0; k < 8; ++k) {
    if (k == 5)
      continue;
    if (acc > 1000)
      break;
    acc += weights[(k + i) & 7] * x;
  }
  switch (i % 4) {
  case 0: acc += 100; break;
  case 1: acc -= 7;   /* fall through */
  case 2: acc *= 2;   break;
  default: acc = -acc; break;
  }
  if (x > 0)
    acc += collatz_steps(x);
  else
    acc -= x / 3 + x % 5;
  out[i] = acc;
  hashes[i] = mix_bits((uint)x) / 7u + mix_bits((uint)i) % 13u;
}
