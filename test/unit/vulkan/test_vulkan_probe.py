"""The layout probe (clcoop/vulkan/probe.py): its modules, assembled in Python, pass
spirv-val for every component type, use and scope; its readings, digit by digit, give back a
known layout; on a device with cooperative matrices it measures the real one."""
import subprocess

import numpy as np
import pytest

from clcoop.coopmat_spec import VK_COMPONENTS
from clcoop.errors import DeviceError, ToolMissing, UnsupportedOnDevice
from clcoop.interp.debug import format_layout_table
from clcoop.spirv.reflection import read_reflection
from clcoop.spirv.tools import find_tool
from clcoop.vulkan import probe
from clcoop.cli import layout_main
from vulkan_modules import device_or_skip


def _validate(data, tmp_path):
    try:
        spirv_val = find_tool("spirv-val")
    except ToolMissing as missing:
        pytest.skip(str(missing))
    path = tmp_path / "probe.spv"
    path.write_bytes(data)
    done = subprocess.run([spirv_val, "--target-env", "vulkan1.3", str(path)], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr + done.stdout


@pytest.mark.parametrize("type_name", sorted(VK_COMPONENTS))
@pytest.mark.parametrize("use, scope, invocations", [("a", "subgroup", 32), ("b", "subgroup", 16),
                                                     ("accumulator", "workgroup", 128)])
def test_probe_modules_are_valid_vulkan(type_name, use, scope, invocations, tmp_path):
    data = probe.probe_module(type_name, 16, 8, use, scope, invocations)
    _validate(data, tmp_path)
    record = read_reflection(data)[probe.KERNEL]
    assert record["matrices"] == [{"scope": scope, "rows": 16, "cols": 8, "use": use,
                                   "component": probe.component(type_name).vk}]
    assert record["local_size"] == [invocations, 1, 1]
    assert record["subgroup_size"] == (invocations if scope == "subgroup" else None)
    assert ("VK_NV_cooperative_matrix2" in record["device_extensions"]) == (scope == "workgroup")


def test_digits_cover_the_largest_value():
    assert probe.digits(11, 31) == [(0, 2047)]
    assert probe.digits(7, 255) == [(0, 127), (7, 127)]
    assert probe.digits(8, 256) == [(0, 255), (8, 255)]
    assert probe.digits(8, 0) == [(0, 255)]


def _device_storing(type_name, positions, rows, cols, invocations, length):
    """A launch(channel, shift, mask) standing in for the device: the stored matrix of the
    probe when invocation p holds element v at positions[(p, v)]."""
    c = probe.component(type_name)
    lengths = np.full(invocations, length, np.uint32)

    def launch(channel, shift, mask):
        values = np.zeros((rows, cols), np.int64)
        for (p, v), (r, col) in positions.items():
            values[r, col] = ((p if channel == probe.CHANNEL_ID else v) >> shift) & mask
        if c.dtype == "bfloat16":
            return (values.astype(np.float32).view(np.uint32) >> 16).astype(np.uint16)
        return values.astype(c.dtype)
    return launch, lengths


@pytest.mark.parametrize("type_name", ["half", "__bf16", "char", "uchar", "float", "int"])
def test_readings_give_back_a_scrambled_layout(type_name):
    rows, cols, invocations = 16, 32, 32
    length = rows * cols // invocations
    rng = np.random.default_rng(5)
    slots = [(p, v) for p in range(invocations) for v in range(length)]
    cells = [(r, c) for r in range(rows) for c in range(cols)]
    order = rng.permutation(len(cells))
    positions = {slot: cells[i] for slot, i in zip(slots, order)}
    launch, lengths = _device_storing(type_name, positions, rows, cols, invocations, length)
    readings = probe.read_channels(launch, type_name, rows, cols, invocations)
    assert probe.assemble_layout(readings, lengths, rows, cols, invocations) == positions
    layout = probe.ProbedLayout(rows, cols, "a", type_name, "subgroup", invocations, invocations, length, "d", positions)
    invocation, element = layout.owners()
    assert all(invocation[rc] == p and element[rc] == v for (p, v), rc in positions.items())


def test_replicated_slots_are_counted_and_drawn_as_padding():
    positions = {(0, 0): (0, 0), (1, 0): (0, 1), (0, 1): (1, 0), (1, 1): (1, 1)}
    layout = probe.ProbedLayout(2, 2, "a", "half", "subgroup", 4, 4, 2, "test device", positions)
    assert layout.replicated == 4
    table = format_layout_table(layout)
    assert table.splitlines()[1].split() == [".x", "0,0", "0,1", "-", "-"]
    data = layout.as_json()
    assert data["work_items"][2] == [None, None] and data["length"] == 2 and data["device"] == "test device"


def test_inconsistent_readings_are_a_device_error():
    readings = {probe.CHANNEL_ID: np.array([[0, 0]]), probe.CHANNEL_INDEX: np.array([[0, 0]])}
    with pytest.raises(DeviceError, match="element access and store disagree"):
        probe.assemble_layout(readings, np.array([2]), 1, 2, 1)


def test_layout_on_a_device_without_matrices_says_what_it_lacks(capsys):
    description = device_or_skip()
    if "VK_KHR_cooperative_matrix" in description.extensions:
        pytest.skip(f"{description.name} has cooperative matrices (this test wants a device without)")
    with pytest.raises(UnsupportedOnDevice, match="the device lacks VK_KHR_cooperative_matrix"):
        probe.probe_layout("half", 16, 16, "a")
    assert layout_main.main(["--device", "vulkan", "--type", "half", "--rows", "16", "--cols", "16", "--use", "a"]) == 1
    err = capsys.readouterr().err
    assert "clcoop-layout: error: kernel 'clcoop_layout_probe' cannot run on" in err
    assert "matrix type subgroup 16x16 f16 use a is not supported" in err and "the device supports:" in err


def test_layout_device_option_is_checked(capsys):
    with pytest.raises(SystemExit):
        layout_main.main(["--device", "cuda", "--rows", "4", "--cols", "4"])
    assert "expected interp, vulkan or vulkan:INDEX|NAME" in capsys.readouterr().err
    assert layout_main.main(["--rows", "4", "--cols", "4", "--subgroup-size", "4"]) == 0   # interp as before
    assert capsys.readouterr().out.splitlines()[1].split() == [".x", "0,0", "1,0", "2,0", "3,0"]


def _matrix_device_or_skip():
    description = device_or_skip()
    if "VK_KHR_cooperative_matrix" not in description.extensions:
        pytest.skip(f"the Vulkan device {description.name} lacks VK_KHR_cooperative_matrix "
                    f"(the probe runs on matrix hardware)")
    return description


@pytest.mark.parametrize("type_name, use", [("half", "a"), ("half", "b"), ("float", "accumulator")])
def test_probe_measures_a_complete_layout(type_name, use, capsys):
    description = _matrix_device_or_skip()
    layout = probe.probe_layout(type_name, 16, 16, use)
    assert layout.group_size == description.subgroup_size
    assert sorted(layout.positions.values()) == [(r, c) for r in range(16) for c in range(16)]
    assert layout.length * layout.group_size == 256 + layout.replicated
    assert layout_main.main(["--device", "vulkan", "--type", type_name, "--rows", "16", "--cols", "16",
                             "--use", use]) == 0
    out = capsys.readouterr().out
    assert out.startswith(f"# {description.title()}: {type_name} 16x16 use {use}")
