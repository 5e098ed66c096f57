"""docs/design.md lists every module of the package (a new module must be described there)."""
from pathlib import Path

ROOT = Path(__file__).resolve().parents[3]


def test_every_module_under_clcoop_is_in_design_md():
    text = (ROOT / "docs" / "design.md").read_text()
    modules = sorted(p.relative_to(ROOT).as_posix() for p in (ROOT / "clcoop").rglob("*.py")
                     if "__pycache__" not in p.parts and "include" not in p.parts)
    assert len(modules) > 20
    missing = [m for m in modules if f"| {m} |" not in text]
    assert not missing, f"docs/design.md has no row for: {', '.join(missing)}"


def test_design_md_has_one_row_per_module():
    text = (ROOT / "docs" / "design.md").read_text()
    rows = [line.split("|")[1].strip() for line in text.splitlines()
            if line.startswith("| clcoop/") and line.split("|")[1].strip().endswith(".py")]
    repeated = sorted({row for row in rows if rows.count(row) > 1})
    assert not repeated, f"docs/design.md has more than one row for: {', '.join(repeated)}"


def test_docs_cite_no_path_outside_the_repository():
    for doc in [ROOT / "README.md", *(ROOT / "docs").glob("*.md")]:
        text = doc.read_text()
        assert "/work/" not in text and "/shared/spec" not in text, doc.name


def test_performance_md_is_method_and_figures_not_a_run_log():
    import re
    text = (ROOT / "docs" / "performance.md").read_text()
    assert not re.search(r"\bissue \d", text, re.IGNORECASE)
    assert "## Method" in text and "<!-- bench:begin" in text and "<!-- bench:end -->" in text
