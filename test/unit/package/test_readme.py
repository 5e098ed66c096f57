"""What the README claims, against what the code does (issue 26). The README's documented
command outputs are run and compared in test_wheel_install.py (documented_steps)."""
import re
from pathlib import Path

from clcoop.cli.compile_main import USAGE

ROOT = Path(__file__).resolve().parents[3]
# What spirv-val 2025.5 rejects in a module as --emit-spirv writes it (test_spirv_function_operands,
# test_coop_convert_use, test_tensor_kernels show each), and what clcoop does about it.
NOT_VALIDATED_AS_EMITTED = (r"coop_mat_get_coord", r"EXT use\s+conversions", r"__global")


def _paragraph_with(text, marker):
    [paragraph] = [p for p in re.split(r"\n\s*\n|\n- ", text) if marker in p]
    return paragraph


def test_emit_spirv_claim_says_what_spirv_val_rejects_as_emitted():
    readme = ROOT / "README.md"
    claim = _paragraph_with(readme.read_text(), "`clcoop --emit-spirv` produces")
    help_entry = _paragraph_with(USAGE, "--emit-spirv ")
    for text in (claim, help_entry):
        assert "complete, validated" not in text
        for pattern in NOT_VALIDATED_AS_EMITTED:
            assert re.search(pattern, text), (pattern, text)
        assert re.search(r"decode", text) and "copy" in text, text     # what is checked instead


def test_readme_test_command_text_matches_the_script():
    readme = (ROOT / "README.md").read_text()
    script = (ROOT / "scripts" / "test.sh").read_text()
    assert "bash scripts/test.sh --all" in readme and "--all" in script
    assert "slow" in readme.split("## Run the tests", 1)[1].split("\n## ", 1)[0]


def test_the_readmes_documented_fault_output_is_what_clcoop_run_prints(tmp_path):
    """The README's fault report (issue 26: it showed line 30 and `ROW_MAJOR, K);` when clcoop
    printed line 31 and `(size_t)K);`), run from the checkout; test_wheel_install.py runs it
    again from an installed wheel."""
    import os
    import shutil
    import subprocess
    import sys
    from test_wheel_install import documented_steps

    steps = documented_steps((ROOT / "README.md").read_text())
    [(command, output)] = [(text, output) for kind, text, output in steps if output]
    [make_inputs] = [text for kind, text, _ in steps if kind == "sh" and text.startswith("python3 -c")]
    shutil.copytree(ROOT / "examples", tmp_path / "examples")
    (tmp_path / "out").mkdir()
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    run_main = f"{sys.executable} -m clcoop.cli.run_main "
    subprocess.run(make_inputs.replace("python3 ", f"{sys.executable} ", 1), shell=True, cwd=tmp_path,
                   env=env, check=True)
    assert command.startswith("clcoop-run ")
    proc = subprocess.run(run_main + command[len("clcoop-run "):], shell=True, cwd=tmp_path, env=env,
                          capture_output=True, text=True, timeout=300)
    assert (proc.returncode, proc.stdout, proc.stderr) == (1, "", output)
