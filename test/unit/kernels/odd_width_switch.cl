// Trimmed from pocl's test_convert_type kernels: at -O2 LLVM turns the test of
// `char_values[i] < 0` over this 6-entry table into `switch i3 (trunc i)`.
typedef constant char *string;
constant char char_values[6] = { 0, 1, CHAR_MIN, CHAR_MAX, CHAR_MIN / 2, CHAR_MAX / 2 };

void compare(string name, size_t sample, const uchar *expected, const uchar *actual,
             global uint *fails) {
  if (expected[0] != actual[0]) {
    printf("FAIL: %s - sample#: %u expected: %#.2hhx actual: %#.2hhx\n",
           name, (uint)sample, expected[0], actual[0]);
    fails[sample] += 1;
  }
}

kernel void saturate_table(global uchar *out, global uint *fails) {
  for (size_t i = 0; i < 6; ++i) {
    union { uchar value; uchar raw[1]; } expected, actual;
    expected.value = (uchar)char_values[i];
    actual.value = convert_uchar((char)char_values[i]);
    compare("convert_uchar(char)", i, expected.raw, actual.raw, fails);
    if (char_values[i] < 0)
      expected.value = 0;
    actual.value = convert_uchar_sat((char)char_values[i]);
    compare("convert_uchar_sat(char)", i, expected.raw, actual.raw, fails);
    out[i] = expected.value;
  }
}
