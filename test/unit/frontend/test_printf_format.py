"""One printf grammar (clcoop/printf_format.py, OpenCL C 3.0 6.15.14.2): what the compiler
warns about is exactly what the interpreter refuses to print, with the same words."""
import pytest

import clcoop
from clcoop import printf_format
from clcoop.errors import RuntimeFault
from clcoop.frontend.driver import compile_source


def compile_printf(fmt, arg):
    source = f'kernel void k(void) {{ printf("{fmt}\\n"{", " + arg if arg else ""}); }}'
    result = compile_source(source)
    warnings = [d.message for d in result.diagnostics if d.severity == "warning"]
    return result.ir, warnings


# C's L, j, z, t, ll and q are not OpenCL C length modifiers; clang-22 accepts them (its C
# grammar), the interpreter faults on them, so the compiler warns.
@pytest.mark.parametrize("fmt, arg", [
    ("%Lf", "1.0f"), ("%jd", "1L"), ("%zd", "(size_t)1"), ("%td", "(ptrdiff_t)1"),
    ("%lld", "1L"), ("%qd", "1L"), ("%y", "1"), ("%hlf", "1.0f"), ("%v5d", "1"),
    ("%v2s", "(int2)(1)"), ("%ls", '"s"'),
])
def test_compiler_warns_with_the_words_the_interpreter_faults_with(fmt, arg):
    ir, warnings = compile_printf(fmt, arg)
    assert len(warnings) == 1 and warnings[0].startswith("invalid printf format: "), warnings
    with pytest.raises(RuntimeFault) as info:
        clcoop.Program.from_ir(ir).k(1, 1)
    assert warnings[0].removeprefix("invalid printf format: ") in str(info.value)


@pytest.mark.parametrize("fmt, arg, printed", [
    ("%ld", "5L", "5"), ("%hhd", "257", "1"), ("%v2hlf", "(float2)(1.5f, 2)", "1.500000,2.000000"),
    ("%5.1f%%", "2.25f", "  2.2%"), ("%*d", "3, 7", "  7"),
])
def test_valid_formats_compile_silently_and_print(fmt, arg, printed, capfd):
    ir, warnings = compile_printf(fmt, arg)
    assert warnings == []
    clcoop.Program.from_ir(ir).k(1, 1)
    assert capfd.readouterr().out == printed + "\n"


@pytest.mark.parametrize("fmt", ["%d %Lf", "%%", "50%", "%v4hld", "%-+ #08.3lx", "%hhs", "%.*e", "%j"])
def test_scan_and_parse_format_agree(fmt):
    errors = [c.error for c in printf_format.scan(fmt) if c.error]
    if errors:
        with pytest.raises(printf_format.PrintfError, match=errors[0].replace("(", r"\(").replace(")", r"\)")):
            printf_format.parse_format(fmt.encode())
    else:
        assert printf_format.parse_format(fmt.encode())
