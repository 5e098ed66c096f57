"""OpenCL C printf in the interpreter (OpenCL C 3.0, 6.15.14): clang-22's variadic calls,
C99 formatting (compared with the C library's snprintf through ctypes), vectors, work-item
order, divergence, the return value, and clear faults for malformed formats."""
import ctypes
import random
import re

import numpy as np
import pytest

import clcoop
from clcoop.cli.run_main import main as run_main
from clcoop.errors import RuntimeFault
from clcoop.interp.printf import format_values, parse_format
from interp_helpers import clang_ir_text

_LIBC = ctypes.CDLL(None)


def c_printf(fmt, *args):
    """What C's snprintf prints (bytes decoded as UTF-8); args are ctypes values."""
    buf = ctypes.create_string_buffer(4096)
    n = _LIBC.snprintf(buf, len(buf), fmt.encode(), *args)
    return buf.raw[:n].decode()


def c_vector(fmt, values, ctype):
    """An OpenCL %vN conversion: each component printed with the scalar fmt, joined by ','."""
    return ",".join(c_printf(fmt, ctype(v)) for v in values)


def run(source, global_size, local_size, *args, opt=0, **kwargs):
    prog = clcoop.Program.from_ir(clang_ir_text(source, opt))
    prog.k(global_size, local_size, *args, **kwargs)


# ----------------------------------------------------------------------------- formatting

INT_FORMAT = ("%hhd %hhu %hhx %#hhX %hho|%hd %hu %hx %#ho|%d %i %u %x %#X %o %+d|"
              "%ld %lu %lx %+ld|%hhd %hd|%.3d %-6d| %05x|%.0d|\\n")


@pytest.mark.parametrize("opt", [0, 2])
def test_integers_of_each_width_match_c(opt, capsys):
    src = f"""kernel void k(global const char *c, global const short *s, global const int *n,
                        global const long *l) {{
      int i = get_global_id(0);
      printf("{INT_FORMAT}", c[i], c[i], c[i], c[i], c[i], s[i], s[i], s[i], s[i],
             n[i], n[i], n[i], n[i], n[i], n[i], n[i], l[i], l[i], l[i], l[i], n[i], n[i],
             n[i], n[i], n[i], n[i]);
    }}"""
    c = np.array([-128, -1, 0, 127, 5], np.int8)
    s = np.array([-32768, -1, 0, 32767, 300], np.int16)
    n = np.array([-2**31, -1, 0, 2**31 - 1, 70000], np.int32)
    lg = np.array([-2**63, -1, 0, 2**63 - 1, 2**40], np.int64)
    run(src, 5, 5, c, s, n, lg, opt=opt)
    fmt = INT_FORMAT.replace("\\n", "\n")
    I, L = ctypes.c_int, ctypes.c_long
    want = "".join(c_printf(fmt, *[I(c[i])] * 5, *[I(s[i])] * 4, *[I(n[i])] * 7, *[L(lg[i])] * 4,
                            *[I(n[i])] * 6)
                   for i in range(5))
    assert "ffffffff" not in want.split("|")[0]
    assert capsys.readouterr().out == want


FLOAT_FORMAT = "%f|%8.3f|%-10.2e|%+g|%G|%a|%A|%.2a|%05.1f|%#.0f|%E|%.10g|%F|% .3e|%010.4f\\n"


@pytest.mark.parametrize("opt", [0, 2])
def test_floats_with_precision_and_width_match_c(opt, capsys):
    src = f"""kernel void k(global const float *f) {{
      float x = f[get_global_id(0)];
      printf("{FLOAT_FORMAT}", {", ".join(["x"] * 15)});
    }}"""
    f = np.array([0.0, -0.0, 1.5, 3.14159, -1e-7, 1e30, np.inf, -np.inf, np.nan, 1e-40, 0.1,
                  123456.789, -2.5], np.float32)
    run(src, f.size, 1, f, opt=opt)
    fmt = FLOAT_FORMAT.replace("\\n", "\n")
    want = "".join(c_printf(fmt, *[ctypes.c_double(float(x))] * 15) for x in f)
    assert "0x1.8p+0" in want
    assert capsys.readouterr().out == want


def test_strings_chars_percent_and_pointers(capsys):
    src = r"""kernel void k(global int *o) {
      global int *null = 0;
      printf("%s|%-6s|%6s|%.2s|%c|%-3c|%c|%%|%p|%p|%s\n", "abc", "xy", "xy", "hello", 'A', 'b',
             256 + 'z', o, null, "");
    }"""
    run(src, 1, 1, np.zeros(4, np.int32))
    out = capsys.readouterr().out
    m = re.fullmatch(r"abc\|xy    \|    xy\|he\|A\|b  \|z\|%\|0x([0-9a-f]+)\|\(nil\)\|\n", out)
    assert m, out
    assert int(m.group(1), 16) != 0


@pytest.mark.parametrize("opt", [0, 2])
def test_vectors(opt, capsys):
    src = r"""kernel void k(global const float *f) {
      float4 v = vload4(0, f);
      printf("%v4hlf|%v2d|%#v4hhx|%v2ld|%.1v3hlf|%v2hd|%+v2hla|%v4hu|%5.2v2hlf|%v16hhu|%v8hx\n",
             v, (int2)(-7, 70000), (char4)(-6, 0, 15, 127), (long2)(-1, 1L << 40), v.xyz,
             (short2)(-3, 300), v.xy, (ushort4)(0, 1, 65535, 2), v.zw,
             (uchar16)(250), (short8)(-1));
    }"""
    f = np.array([1.0, -2.25, 3.5e10, 0.1], np.float32)
    run(src, 1, 1, f, opt=opt)
    d = [float(x) for x in f]
    C, S, I, L, D = ctypes.c_int8, ctypes.c_int16, ctypes.c_int, ctypes.c_long, ctypes.c_double
    want = "|".join([
        c_vector("%f", d, D), c_vector("%d", [-7, 70000], I), c_vector("%#hhx", [-6, 0, 15, 127], C),
        c_vector("%ld", [-1, 1 << 40], L), c_vector("%.1f", d[:3], D), c_vector("%hd", [-3, 300], S),
        c_vector("%+a", d[:2], D), c_vector("%hu", [0, 1, 65535, 2], I), c_vector("%5.2f", d[2:], D),
        c_vector("%hhu", [250] * 16, I), c_vector("%hx", [-1] * 8, I)]) + "\n"
    assert "0xfa,0,0xf,0x7f" in want and "ffff,ffff" in want
    assert capsys.readouterr().out == want


# ----------------------------------------------------------------------------- SIMT semantics

@pytest.mark.parametrize("max_lanes", [4, 1024])
def test_work_items_print_in_order(max_lanes, capsys):
    src = r"""kernel void k(global const float *f) {
      int i = get_global_id(0);
      printf("wi %d (group %d, local %d): [%*d] [%-*.*f]\n", i, (int)get_group_id(0),
             (int)get_local_id(0), i + 1, i, 8, i % 4, f[i]);
    }"""
    f = (np.arange(8) * 1.25).astype(np.float32)
    run(src, 8, 4, f, max_lanes=max_lanes)
    want = "".join(c_printf("wi %d (group %d, local %d): [%*d] [%-*.*f]\n", *map(ctypes.c_int, (
        i, i // 4, i % 4, i + 1, i, 8, i % 4)), ctypes.c_double(f[i])) for i in range(8))
    assert capsys.readouterr().out == want


@pytest.mark.parametrize("opt", [0, 2])
def test_divergent_branch_only_active_lanes_print(opt, capsys):
    src = r"""kernel void k(global int *o) {
      int i = get_global_id(0);
      if (i % 3 == 1)
        printf("lane %d: %hhx\n", i, i - 3);
      o[i] = i;
    }"""
    o = np.zeros(8, np.int32)
    run(src, 8, 8, o, opt=opt)
    assert capsys.readouterr().out == "lane 1: fe\nlane 4: 1\nlane 7: 4\n"
    np.testing.assert_array_equal(o, np.arange(8))


def test_printf_returns_zero(capsys):
    src = r"""kernel void k(global int *o) {
      int i = get_global_id(0);
      if (i < 3) o[i] = printf("%hd|", 70000 + i);
    }"""
    o = np.full(4, 7, np.int32)
    run(src, 4, 4, o)
    assert capsys.readouterr().out == "4464|4465|4466|"
    np.testing.assert_array_equal(o, [0, 0, 0, 7])


# ----------------------------------------------------------------------------- faults

@pytest.mark.parametrize("call, message", [
    (r'printf("%d %y\n", 1, 2)', "unknown conversion specifier 'y' in '%y'"),
    (r'printf("%d %d\n", 1)', "too few arguments: no argument for '%d' (the call passes 1"),
    (r'printf("%lld\n", 1L)', "length modifier 'll' in '%lld' is not supported by OpenCL C printf"),
    (r'printf("%hlf\n", 1.0f)', "length modifier 'hl' in '%hlf' is only valid with a vector specifier"),
    (r'printf("%v4hlf\n", (float2)(1.0f))', "'%v4hlf' expects a vector of 4 components, but "
                                            "argument 1 is <2 x float>"),
    (r'printf("%d\n", 1.0f)', "'%d' expects an integer argument, but argument 1 is double"),
    (r'printf("%v5d\n", 1)', "invalid vector specifier in '%v5d'"),
    (r'printf("%v2s\n", (int2)(1))', "a vector specifier cannot be used with %s"),
    (r'printf("50%")', "incomplete conversion specification '%' at the end of the format string"),
])
def test_malformed_format_is_a_clear_fault(call, message, capsys):
    src = f"kernel void k(global int *o) {{ printf(\"before\\n\"); if (get_global_id(0) == 2) {call}; }}"
    with pytest.raises(RuntimeFault) as info:
        run(src, 4, 4, np.zeros(1, np.int32))
    text = str(info.value)
    assert text.startswith("kernel 'k': printf format \""), text
    assert message in text
    assert info.value.work_item == (2,)
    assert "@printf" in info.value.instruction
    assert capsys.readouterr().out == "before\n" * 4      # the faulting call prints nothing


HEADER = """target datalayout = "e-i64:64-v16:16-v24:32-v32:32-v48:64-v96:128-v192:256-v256:256-v512:512-v1024:1024-G1"
target triple = "spir64-unknown-unknown"
declare i32 @printf(ptr addrspace(2), ...)
@fmt = private unnamed_addr addrspace(2) constant [20 x i8] c"%hhu %hd %s %v2hhd\\0A\\00"
@bad = private unnamed_addr addrspace(2) constant [4 x i8] c"%s\\0A\\00"
"""


def test_hand_written_ir_unpromoted_arguments_and_strings_in_buffers(capsys):
    ir = HEADER + """
define spir_kernel void @k(ptr addrspace(1) %text) {
  %r = call i32 (ptr addrspace(2), ...) @printf(ptr addrspace(2) @fmt, i8 -1, i16 -2,
                                               ptr addrspace(1) %text, <2 x i8> <i8 -1, i8 2>)
  ret void
}
"""
    clcoop.Program.from_ir(ir).k(2, 2, np.frombuffer(b"buf\0junk", np.uint8).copy())
    assert capsys.readouterr().out == "255 -2 buf -1,2\n" * 2


@pytest.mark.parametrize("arg, message", [
    ("ptr addrspace(1) %text", "the %s argument has no terminating NUL before the end of buffer 'text'"),
    ("ptr addrspace(1) inttoptr (i64 64 to ptr addrspace(1))",
     "the %s argument is not a valid pointer (0x40: no buffer there)"),
])
def test_bad_string_argument_is_a_fault(arg, message):
    ir = HEADER + f"""
define spir_kernel void @k(ptr addrspace(1) %text) {{
  %r = call i32 (ptr addrspace(2), ...) @printf(ptr addrspace(2) @bad, {arg})
  ret void
}}
"""
    with pytest.raises(RuntimeFault) as info:
        clcoop.Program.from_ir(ir).k(1, 1, np.frombuffer(b"no nul", np.uint8).copy())
    assert message in str(info.value)


# ----------------------------------------------------------------------------- clcoop-run

def test_clcoop_run_prints_kernel_output_before_results(tmp_path, capsys):
    ll = tmp_path / "k.ll"
    ll.write_text(clang_ir_text(r"""kernel void k(global int *o) {
      int i = get_global_id(0);
      printf("a%d %hhx\n", i, -i);
      printf("b%d;", i);
      o[i] = i;
    }"""))
    np.save(tmp_path / "o.npy", np.zeros(3, np.int32))
    rc = run_main([str(ll), "--global", "3", "--arg", f"o={tmp_path / 'o.npy'}", "--out", str(tmp_path)])
    assert rc == 0
    assert capsys.readouterr().out == f"a0 0\na1 ff\na2 fe\nb0;b1;b2;\nwrote {tmp_path / 'o.npy'}\n"


def test_clcoop_run_reports_a_malformed_format_without_traceback(tmp_path, capsys):
    ll = tmp_path / "k.ll"
    ll.write_text(clang_ir_text(r'kernel void k(global int *o) { printf("%d %d\n", 1); }'))
    np.save(tmp_path / "o.npy", np.zeros(1, np.int32))
    rc = run_main([str(ll), "--global", "1", "--arg", f"o={tmp_path / 'o.npy'}", "--out", str(tmp_path / "x")])
    out, err = capsys.readouterr()
    assert rc == 1 and out == ""
    assert err.startswith("clcoop-run: error: kernel 'k': printf format \"%d %d\\n\": too few arguments")
    assert "Traceback" not in err and "internal error" not in err
    assert not (tmp_path / "x").exists()


# ----------------------------------------------------------------------------- against libc

def _random_case(rng):
    """(format, value, kind, ctypes value) of one random scalar conversion."""
    conv = rng.choice("diouxXcfFeEgGaAsp")
    flags = "".join(rng.choice("-+ #0") for _ in range(rng.randint(0, 3)))
    width = rng.choice(["", str(rng.randint(0, 25))])
    precision = rng.choice(["", ".", f".{rng.randint(0, 20)}"]) if conv not in "cp" else ""
    if conv in "diouxXc":
        length = rng.choice(["", "hh", "h", "l"]) if conv != "c" else ""
        bits = 64 if length == "l" else 32
        v = rng.choice([0, 1, -1, 127, -128, 255, 256, 65535, -32769, 2**31 - 1, -2**31, 2**63 - 1,
                        rng.randint(-2**63, 2**63 - 1), rng.randint(-999, 999)])
        v = (v + (1 << (bits - 1))) % (1 << bits) - (1 << (bits - 1))
        cval, kind = (ctypes.c_long(v) if bits == 64 else ctypes.c_int(v)), ("int", bits)
    elif conv in "sp":
        length = ""
        v = rng.choice([0, 255, 2**32 + 17]) if conv == "p" else 4096
        cval = ctypes.c_void_p(v) if conv == "p" else ctypes.c_char_p(b"string!")
        kind = ("ptr", 64)
    else:
        length = rng.choice(["", "l"])
        v = rng.choice([0.0, -0.0, 1.5, 2.5, 0.1, 1e-310, 5e-324, float("inf"), -float("inf"),
                        float("nan"), -3.14159, 1e300, 9.9999999, 2.0**-1022, rng.uniform(-1e6, 1e6),
                        np.frombuffer(rng.randbytes(8), np.float64)[0]])
        cval, kind = ctypes.c_double(v), ("float", 64)
    return "%" + flags + width + precision + length + conv, v, kind, cval


def test_scalar_conversions_match_libc_snprintf():
    rng = random.Random(20260)
    for _ in range(4000):
        fmt, value, kind, cval = _random_case(rng)
        buf = ctypes.create_string_buffer(512)
        n = _LIBC.snprintf(buf, 512, fmt.encode(), cval)
        got = format_values(parse_format(fmt.encode()), [value], [kind], lambda addr: b"string!")
        assert got == buf.raw[:n], (fmt, value)
