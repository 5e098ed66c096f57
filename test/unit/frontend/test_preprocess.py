"""The preprocessor stage: located diagnostics, columns kept, the default header."""
import re

import pytest

from clcoop.diagnostics import DiagnosticEngine, SourceLocation
from clcoop.frontend.preprocess import decode_source, preprocess


def run(source, filename="k.cl", include_dirs=(), defines=None):
    diag = DiagnosticEngine()
    text = preprocess(source, filename, list(include_dirs), defines or {}, diag)
    return text, diag


def main_lines(text, filename="k.cl"):
    """{line number: text} of the output lines that belong to `filename`, by #line markers."""
    result, current_file, line = {}, None, 0
    for out in text.splitlines():
        marker = re.match(r'#line (\d+) "(.*)"$', out)
        if marker:
            line, current_file = int(marker.group(1)), marker.group(2)
            continue
        if current_file == filename and out.strip():
            result[line] = out
        line += 1
    return result


def errors(diag):
    return [(str(d.location), d.message) for d in diag.diagnostics if d.severity == "error"]


def test_original_columns_survive_macro_expansion():
    text, diag = run("#define N 16\nint a[N]; int b = N + 1;  int c;\n")
    assert diag.error_count == 0
    lines = text.splitlines()
    # The last token of line 2 is on a line mapped to line 2, at its original column.
    for i in range(len(lines) - 1, -1, -1):
        if "int c;" in lines[i]:
            assert lines[i].index("int c;") == "int a[N]; int b = N + 1;  int c;".index("int c;")
            marker = next(l for l in reversed(lines[:i]) if l.startswith("#line"))
            assert marker.startswith("#line 2 ")
            break
    else:
        pytest.fail("int c; missing from the output")


def test_lines_are_kept_with_comments_and_blank_lines():
    source = "/* a\n comment\n*/\n\n\nint x;\n// end\nint y;\n"
    text, diag = run(source)
    lines = main_lines(text)
    assert lines[6].strip() == "int x;"
    assert lines[8].strip() == "int y;"


def test_default_header_is_force_included():
    text, diag = run("int a = CLK_COOPERATIVE_MATRIX_LAYOUT_COLUMN_MAJOR;\n"
                     "#if __opencl_c_ext_cooperative_matrix && cl_khr_cooperative_matrix\nint ok;\n#endif\n")
    assert diag.error_count == 0
    assert "CLK_COOPERATIVE_MATRIX_SCOPE_SUBGROUP = 3" in text
    assert "int ok;" in text


def test_defines_and_none_means_one():
    text, _ = run("int a = A; int b = B;\n", defines={"A": "5", "B": None})
    assert re.search(r"int a = 5\s*;", text) and re.search(r"int b = 1\s*;", text)


def test_quoted_include_relative_to_including_file(tmp_path):
    (tmp_path / "inc").mkdir()
    (tmp_path / "inc" / "a.h").write_text('#include "b.h"\n')
    (tmp_path / "inc" / "b.h").write_text("int from_b;\n")
    main = tmp_path / "k.cl"
    text, diag = run('#include "a.h"\n', filename=str(main), include_dirs=[tmp_path / "inc"])
    assert diag.error_count == 0
    assert "int from_b;" in text


def test_missing_include_is_located_at_the_file_name():
    _, diag = run('int x;\n  #include "nope.h"\n')
    assert errors(diag) == [("k.cl:2:12", "'nope.h' file not found")]


def test_error_directive_and_warning():
    _, diag = run("#warning careful\n#error stop here\n")
    assert [(d.severity, str(d.location), d.message) for d in diag.diagnostics] == [
        ("warning", "k.cl:1:2", "careful"), ("error", "k.cl:2:2", "stop here")]


def test_unterminated_if():
    _, diag = run("int x;\n#if 1\nint y;\n")
    assert errors(diag) == [("k.cl:2:2", "unterminated conditional directive")]


def test_unterminated_comment_and_string():
    _, diag = run("int x; /* open\nint y;\n")
    assert errors(diag) == [("k.cl:1:8", "unterminated /* comment")]
    _, diag = run("int x;\nchar *s = \"open;\n")
    assert errors(diag) == [("k.cl:2:11", "missing terminating '\"' character")]


def test_skipped_block_may_hold_anything():
    _, diag = run("#if 0\n\"unterminated /* @ `\n#error not seen\n#endif\nint x;\n")
    assert diag.error_count == 0


def test_invalid_utf8_reports_the_first_bad_byte():
    diag = DiagnosticEngine()
    assert decode_source(b"int x;\nint \xe9y;\n", "k.cl", diag) is None
    assert errors(diag) == [("k.cl:2:5", "source file is not valid UTF-8")]
    assert decode_source("already text", "k.cl", diag) == "already text"
    assert decode_source(b"\xef\xbb\xbfint x;", "k.cl", DiagnosticEngine()) == "int x;"


def test_empty_file_warns_like_clang_pedantic():
    for source in ("", "\n\n", "// only a comment\n", "#define X 1\n"):
        text, diag = run(source)
        assert diag.error_count == 0
        assert [(d.severity, d.location) for d in diag.diagnostics] == [
            ("warning", SourceLocation("k.cl", 1, 1))]


def test_extension_pragmas_pass_through_and_others_are_dropped():
    text, diag = run("#pragma OPENCL EXTENSION cl_khr_fp16 : enable\n#pragma unroll 4\nint x;\n")
    assert diag.error_count == 0
    lines = main_lines(text)
    assert lines[1].strip() == "#pragma OPENCL EXTENSION cl_khr_fp16 : enable"
    assert "unroll" not in text
    assert lines[3].strip() == "int x;"


def test_unknown_directive_is_an_error():
    _, diag = run("#frobnicate\nint x;\n")
    assert errors(diag) == [("k.cl:1:2", "invalid preprocessing directive")]


def test_self_include_terminates(tmp_path):
    header = tmp_path / "self.h"
    header.write_text('#include "self.h"\nint x;\n')
    main = tmp_path / "k.cl"
    _, diag = run('#include "self.h"\n', filename=str(main))
    assert diag.error_count >= 1
    assert all(d.location is not None for d in diag.diagnostics)


def test_command_line_macros():
    text, diag = run("int a = TWICE(3);\n", defines={"TWICE(x)": "((x) * 2)"})
    assert diag.error_count == 0
    assert re.search(r"int a = \(\s*\(\s*3\s*\)\s*\*\s*2\s*\)", text)
    _, diag = run("int a;\n", defines={"1X": "2"})
    assert errors(diag) == [("<command line>:1:1", "macro name must be an identifier")]


def test_ifdef_and_define_without_a_name():
    _, diag = run("#ifdef\nint a;\n#endif\n#define\n#if 0\n#define\n#endif\nint b;\n")
    assert errors(diag) == [("k.cl:1:2", "macro name missing"), ("k.cl:4:2", "macro name missing")]


def test_file_with_only_an_include_is_not_empty(tmp_path):
    (tmp_path / "decls.h").write_text("int from_header;\n")
    _, diag = run('#include "decls.h"\n', filename=str(tmp_path / "k.cl"))
    assert diag.diagnostics == []
    _, diag = run("#define DECL int x;\nDECL\n")
    assert diag.diagnostics == []


def test_file_and_line_macros_name_the_file_as_given(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "inc").mkdir()
    (tmp_path / "inc" / "h.h").write_text("const char *h = __FILE__;\n")
    text, diag = run('#include "inc/h.h"\nconst char *f = __FILE__; int l = __LINE__;\n')
    assert diag.error_count == 0
    assert 'const char *h = "inc/h.h"' in text
    assert re.search(r'const char \*f = "k.cl"\s*; int l = 2\s*;', text)
