"""clcoop-devices, and clcoop-run --engine vulkan on a precompiled module: the module loads and
runs with NumPy and the Vulkan loader alone (llvmlite made unimportable)."""
import json
import subprocess
import sys
import textwrap
from pathlib import Path

import numpy as np
import pytest

from clcoop.cli import devices_main, run_main
from clcoop.vulkan import device, vk
from clcoop.vulkan.capabilities import DeviceDescription, load_description
from vulkan_modules import VADD, VADD_RECORD, assemble, device_or_skip

ROOT = Path(__file__).resolve().parents[3]
H200 = Path(__file__).resolve().parents[1] / "data" / "vulkan_h200.json"

# A child Python in which importing llvmlite, the C parsers, the compiler (front end, Vulkan
# target) or the native engine fails.
BLOCKED = ("llvmlite", "pycparser", "pycparserext", "pcpp", "clcoop.frontend", "clcoop.spirv.vulkan",
           "clcoop.native")
BLOCKER = textwrap.dedent(f"""
    import sys
    BLOCKED = {BLOCKED!r}
    class Blocker:
        def find_spec(self, name, path=None, target=None):
            if any(name == b or name.startswith(b + ".") or name.startswith(b + "_") for b in BLOCKED):
                raise ImportError(f"{{name}} is blocked in this test")
    sys.meta_path.insert(0, Blocker())
""")


def test_devices_lists_the_device_and_its_json_reads_back(capsys):
    description = device_or_skip()
    assert devices_main.main([]) == 0
    text = capsys.readouterr().out
    assert text.startswith(description.title()) and "usable by clcoop: yes" in text
    assert devices_main.main(["--json", "--device", str(description.index)]) == 0
    data = json.loads(capsys.readouterr().out)
    assert DeviceDescription.from_json(data[0]) == description


def test_devices_of_the_recorded_h200():
    text = devices_main.format_device(load_description(H200), [])
    assert "matrix features: cooperativeMatrix, cooperativeMatrixWorkgroupScope" in text
    assert ("  limits: work-group size 1024x1024x64 (1024 invocations), Workgroup (__local) memory 49152 bytes "
            "(8192 of them kept by the driver with workgroup-scope matrices), push constants 256 bytes") in text
    from dataclasses import replace
    reserving = replace(load_description(H200), workgroup_scope_reserved_shared_memory=1024)
    assert ("Workgroup (__local) memory 49152 bytes (1024 of them kept by the driver with workgroup-scope "
            "matrices), push constants") in devices_main.format_device(reserving, [])
    assert "  subgroup 16x16x16 bf16 x bf16 + f32 -> f32" in text
    assert "workgroup with 128 invocations: multiples of 32x16x16 f16 x f16 + f32 -> f32" in text


def test_devices_without_a_loader_is_a_clear_error(monkeypatch, capsys):
    monkeypatch.setattr(vk, "LOADER_NAMES", ("libclcoop-no-such-vulkan.so.1",))
    monkeypatch.setattr(vk, "_loader", None)
    monkeypatch.setattr(device, "_instance", None)
    assert devices_main.main([]) == 1
    assert "clcoop-devices: error: no Vulkan loader could be opened" in capsys.readouterr().err


def test_devices_names_a_bad_selection(capsys):
    device_or_skip()
    assert devices_main.main(["--device", "99"]) == 1
    assert "--device='99' names no device; the devices are:" in capsys.readouterr().err


def test_run_a_module_without_llvmlite(tmp_path):
    device_or_skip()
    module = tmp_path / "vadd.spv"
    module.write_bytes(assemble(VADD, VADD_RECORD, tmp_path))
    a, b = np.arange(100, dtype=np.float32), np.full(100, 0.5, np.float32)
    for name, value in (("a", a), ("b", b), ("c", np.zeros(128, np.float32))):
        np.save(tmp_path / f"{name}.npy", value)
    script = BLOCKER + textwrap.dedent(f"""
        from clcoop.cli.run_main import main
        status = main([{str(module)!r}, "--engine", "vulkan", "--kernel", "vadd", "--global", "128", "--local", "32",
                       "--arg", "a=a.npy", "--arg", "b=b.npy", "--arg", "c=c.npy", "--arg", "n=100", "--out", "out"])
        loaded = sorted(m for m in sys.modules if m.startswith(BLOCKED))
        print("loaded:", loaded)
        sys.exit(status)
    """)
    done = subprocess.run([sys.executable, "-c", script], cwd=tmp_path, capture_output=True, text=True,
                          env={"PYTHONPATH": str(ROOT), "PATH": "/usr/bin:/bin"}, timeout=120)
    assert done.returncode == 0, done.stderr
    assert "wrote out/c.npy" in done.stdout and "loaded: []" in done.stdout
    c = np.load(tmp_path / "out" / "c.npy")
    assert np.array_equal(c[:100], a + b) and not c[100:].any()
    assert not (tmp_path / "out" / "a.npy").exists()        # read-only buffers are not written


@pytest.mark.parametrize("module", ["llvmlite", "clcoop.spirv.vulkan_ir", "clcoop.frontend.driver"])
def test_blocker_really_blocks(module):
    done = subprocess.run([sys.executable, "-c", BLOCKER + f"import {module}"], capture_output=True, text=True,
                          env={"PYTHONPATH": str(ROOT), "PATH": "/usr/bin:/bin"})
    assert done.returncode != 0 and "is blocked in this test" in done.stderr


def test_a_module_needs_the_vulkan_engine(tmp_path, capsys):
    module = tmp_path / "k.spv"
    module.write_bytes(b"\x03\x02\x23\x07" + bytes(16))
    assert run_main.main([str(module), "--global", "1", "--arg", "x=1"]) == 1
    assert "is a SPIR-V module: it runs on --engine vulkan only" in capsys.readouterr().err
    assert run_main.main([str(module), "--engine", "vulkan", "--global", "1", "--serial-subgroups"]) == 1
    assert "--serial-subgroups do not apply to a precompiled module" in capsys.readouterr().err


def test_a_module_without_a_record_is_a_clear_error(tmp_path, capsys):
    module = tmp_path / "k.spv"
    module.write_bytes(b"\x03\x02\x23\x07" + bytes(16))
    assert run_main.main([str(module), "--engine", "vulkan", "--global", "1"]) == 1
    assert "the module has no clcoop reflection record" in capsys.readouterr().err
