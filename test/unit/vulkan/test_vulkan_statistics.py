"""The driver's pipeline statistics (VK_KHR_pipeline_executable_properties): clcoop/vulkan/statistics.py,
VulkanKernel.statistics(), `clcoop-run --pipeline-statistics` and `gpu_check.py stats`.

Mesa's lavapipe here (22.3) does not offer the extension, so the queries are driven by a
driver written in Python from the extension's text (FakeDriver: ctypes callbacks with the
functions' C signatures, filling the C structures the same way a driver does, two calls, the
four value formats, VK_INCOMPLETE), on a real pipeline of lavapipe where a pipeline is needed;
the test of a real driver's statistics runs on a device that offers the extension (the H200).
"""
import ctypes
import json
from dataclasses import replace
from pathlib import Path
from types import SimpleNamespace

import numpy as np
import pytest

from clcoop.errors import ArgumentError, DeviceError, UnsupportedOnDevice
from clcoop.prepare import LocalMemory
from clcoop.vulkan import VulkanProgram, statistics, vk
from clcoop.vulkan.capabilities import DeviceDescription, load_description
from clcoop.vulkan.device import KHR_PIPELINE_EXECUTABLE_PROPERTIES, WANTED_EXTENSIONS
from clcoop.vulkan.pipeline import Pipelines
from vulkan_modules import LOCAL_SUM, LOCAL_SUM_RECORD, VADD, VADD_RECORD, assemble, device_or_skip
from script_modules import load_script

ROOT = Path(__file__).resolve().parents[3]

# sizeof / offsetof from vulkan_core.h 1.3.239 (Debian's libvulkan-dev), x86-64, clang-22
HEADER_LAYOUT = {
    "VkPhysicalDevicePipelineExecutablePropertiesFeaturesKHR": (24, {"pipelineExecutableInfo": 16}),
    "VkPipelineInfoKHR": (24, {"pipeline": 16}),
    "VkPipelineExecutablePropertiesKHR": (536, {"stages": 16, "name": 20, "description": 276, "subgroupSize": 532}),
    "VkPipelineExecutableInfoKHR": (32, {"pipeline": 16, "executableIndex": 24}),
    "VkPipelineExecutableStatisticValueKHR": (8, {}),
    "VkPipelineExecutableStatisticKHR": (544, {"name": 16, "description": 272, "format": 528, "value": 536}),
    "VkPipelineExecutableInternalRepresentationKHR": (552, {"name": 16, "description": 272, "isText": 528,
                                                            "dataSize": 536, "pData": 544}),
}


@pytest.mark.skipif(ctypes.sizeof(ctypes.c_void_p) != 8, reason="the layouts were measured on a 64-bit target")
@pytest.mark.parametrize("name", sorted(HEADER_LAYOUT))
def test_structures_match_the_c_header(name):
    size, offsets = HEADER_LAYOUT[name]
    struct = getattr(vk, name)
    assert ctypes.sizeof(struct) == size
    assert {member: getattr(struct, member).offset for member in offsets} == offsets


# ------------------------------------------------------------------------ a driver in Python

PROTOTYPE = ctypes.CFUNCTYPE(vk.I32, vk.VP, vk.VP, vk.PU32, vk.VP)


class FakeDriver:
    """vkGetPipelineExecutable{Properties,Statistics,InternalRepresentations}KHR as the
    extension specifies them, over `executables`: [{name, description, subgroup, statistics:
    [(name, description, format, value)], representations: [(name, description, is_text,
    bytes)]}]. `grow`: how many statistics fill calls find one more item than the count call
    said (a count that changes between the two calls)."""

    def __init__(self, executables, grow=0):
        self.executables = executables
        self.grow = grow
        self.pipelines = []        # the pipeline handle of each properties call
        self.calls = []
        self.functions = {"vkGetPipelineExecutablePropertiesKHR": PROTOTYPE(self._guard(self._properties)),
                          "vkGetPipelineExecutableStatisticsKHR": PROTOTYPE(self._guard(self._statistics)),
                          "vkGetPipelineExecutableInternalRepresentationsKHR":
                              PROTOTYPE(self._guard(self._representations))}

    @staticmethod
    def _guard(function):
        """A failed check inside the driver answers VK_ERROR_UNKNOWN (the caller's DeviceError):
        ctypes would only print an exception raised in a callback, and return 0."""
        def guarded(*args):
            try:
                return function(*args)
            except Exception as error:       # noqa: BLE001 (reported through the VkResult)
                print(f"fake driver: {type(error).__name__}: {error}")
                return vk.ERROR_UNKNOWN
        return guarded

    def device_function(self, handle, name):
        return self.functions.get(name)

    @staticmethod
    def _fill(count, array, struct, stype, items, write):
        """The two-call idiom (Vulkan 1.3, 3.10): NULL -> the count; else at most *count written,
        VK_INCOMPLETE when that is fewer than there are."""
        if not array:
            count[0] = len(items)
            return vk.SUCCESS
        structs = (struct * count[0]).from_address(array)
        written = min(count[0], len(items))
        for target, item in zip(structs, items[:written]):
            assert target.sType == stype, "the caller must set sType"
            write(target, item)
        count[0] = written
        return vk.INCOMPLETE if written < len(items) else vk.SUCCESS

    def _items(self, items, array):
        if array and self.grow:        # one more than the count call said
            self.grow -= 1
            return items + items[-1:]
        return items

    def _properties(self, device, info, count, array):
        info = vk.VkPipelineInfoKHR.from_address(info)
        assert info.sType == vk.ST_PIPELINE_INFO_KHR
        self.pipelines.append(info.pipeline)
        self.calls.append("properties")

        def write(target, item):
            target.stages = vk.SHADER_STAGE_COMPUTE_BIT
            target.name, target.description = item["name"].encode(), item["description"].encode()
            target.subgroupSize = item["subgroup"]
        return self._fill(count, array, vk.VkPipelineExecutablePropertiesKHR, vk.ST_PIPELINE_EXECUTABLE_PROPERTIES_KHR,
                          self.executables, write)

    def _executable(self, info):
        info = vk.VkPipelineExecutableInfoKHR.from_address(info)
        assert info.sType == vk.ST_PIPELINE_EXECUTABLE_INFO_KHR
        return self.executables[info.executableIndex]

    def _statistics(self, device, info, count, array):
        self.calls.append("statistics")

        def write(target, item):
            name, description, form, value = item
            target.name, target.description, target.format = name.encode(), description.encode(), form
            setattr(target.value, {0: "b32", 1: "i64", 2: "u64", 3: "f64"}.get(form, "u64"), value)
        return self._fill(count, array, vk.VkPipelineExecutableStatisticKHR, vk.ST_PIPELINE_EXECUTABLE_STATISTIC_KHR,
                          self._items(self._executable(info)["statistics"], array), write)

    def _representations(self, device, info, count, array):
        self.calls.append("representations")
        incomplete = []

        def write(target, item):
            name, description, is_text, data = item
            target.name, target.description, target.isText = name.encode(), description.encode(), is_text
            size = len(data) + (1 if is_text else 0)          # text: with its terminating null
            if not target.pData:
                target.dataSize = size
                return
            written = min(size, target.dataSize)
            ctypes.memmove(target.pData, data + b"\0" if is_text else data, written)
            target.dataSize = written
            if written < size:
                incomplete.append(name)
        result = self._fill(count, array, vk.VkPipelineExecutableInternalRepresentationKHR,
                            vk.ST_PIPELINE_EXECUTABLE_INTERNAL_REPRESENTATION_KHR,
                            self._executable(info)["representations"], write)
        return vk.INCOMPLETE if incomplete else result


EXECUTABLES = [
    {"name": "Compute Shader", "description": "the kernel as the GPU runs it", "subgroup": 32,
     "statistics": [("Register Count", "registers per invocation", vk.STATISTIC_FORMAT_UINT64, 168),
                    ("Spills", "spilled values (may be negative here only to test int64)",
                     vk.STATISTIC_FORMAT_INT64, -3),
                    ("Uses shared memory", "whether Workgroup memory is used", vk.STATISTIC_FORMAT_BOOL32, 1),
                    ("Occupancy", "warps per SM over the maximum", vk.STATISTIC_FORMAT_FLOAT64, 0.375),
                    ("Spills", "a name the driver repeats", vk.STATISTIC_FORMAT_UINT64, 7)],
     "representations": [("SASS", "the machine code", 1, b"HMMA.16816.F32 R0, R4, R8, R0 ;\nEXIT ;"),
                         ("cubin", "the binary", 0, bytes(range(5)))]},
    {"name": "Second", "description": "another executable", "subgroup": 16,
     "statistics": [("Big", "a uint64 past int64", vk.STATISTIC_FORMAT_UINT64, 2 ** 63 + 5)],
     "representations": []},
]


def fake_device(driver, extensions=(KHR_PIPELINE_EXECUTABLE_PROPERTIES,), enabled=True):
    description = DeviceDescription(name="Fake GPU", device_type="discrete GPU", extensions=tuple(extensions))
    return SimpleNamespace(description=description, pipeline_statistics=enabled, handle=None,
                           vk=SimpleNamespace(device_function=driver.device_function),
                           check=lambda result, what: vk.check(result, what))


def test_executables_read_names_descriptions_and_the_four_value_formats():
    driver = FakeDriver(EXECUTABLES)
    found = statistics.executables(fake_device(driver), 0x1234)
    assert driver.pipelines == [0x1234, 0x1234]            # count, then fill, of the pipeline given
    assert [(e["name"], e["description"], e["stages"], e["subgroup_size"]) for e in found] == [
        ("Compute Shader", "the kernel as the GPU runs it", ["compute"], 32),
        ("Second", "another executable", ["compute"], 16)]
    first = found[0]["statistics"]
    assert first["Register Count"] == (168, "registers per invocation")
    assert first["Spills"][0] == -3 and type(first["Spills"][0]) is int
    assert first["Uses shared memory"] == (True, "whether Workgroup memory is used")
    assert first["Occupancy"] == (0.375, "warps per SM over the maximum")
    assert first["Spills (2)"] == (7, "a name the driver repeats")           # repeated names are both kept
    assert found[1]["statistics"]["Big"][0] == 2 ** 63 + 5                   # uint64 read unsigned
    assert [type(v) for v, _ in first.values()] == [int, int, bool, float, int]
    assert "representations" not in found[0] and "representations" not in driver.calls


def test_representations_come_as_text_or_bytes_when_asked():
    found = statistics.executables(fake_device(FakeDriver(EXECUTABLES)), 7, representations=True)
    text, binary = found[0]["representations"]
    assert text == {"name": "SASS", "description": "the machine code",
                    "text": "HMMA.16816.F32 R0, R4, R8, R0 ;\nEXIT ;"}
    assert binary == {"name": "cubin", "description": "the binary", "data": bytes(range(5))}
    assert found[1]["representations"] == []
    data = statistics.as_json(found)
    json.dumps(data)
    assert data[0]["representations"][1]["data"] == "5 bytes of binary data"
    assert data[0]["statistics"]["Occupancy"] == {"value": 0.375, "description": "warps per SM over the maximum"}


def test_a_count_that_grows_between_the_calls_is_asked_again():
    driver = FakeDriver(EXECUTABLES, grow=1)
    found = statistics.executables(fake_device(driver), 1)
    assert len(found[0]["statistics"]) == 5
    assert driver.calls.count("statistics") == 2 * 2 + 2      # the first executable's fill was incomplete
    with pytest.raises(DeviceError, match="kept changing"):
        statistics.executables(fake_device(FakeDriver(EXECUTABLES, grow=100)), 1)


def test_an_unknown_format_or_a_missing_function_is_a_device_error():
    odd = [dict(EXECUTABLES[1], statistics=[("Odd", "format 9", 9, 1)])]
    with pytest.raises(DeviceError, match="'Odd' has format 9"):
        statistics.executables(fake_device(FakeDriver(odd)), 1)
    driver = FakeDriver(EXECUTABLES)
    del driver.functions["vkGetPipelineExecutableStatisticsKHR"]
    with pytest.raises(DeviceError, match="has no vkGetPipelineExecutableStatisticsKHR"):
        statistics.executables(fake_device(driver), 1)


def test_a_device_without_the_extension_or_its_feature_says_so():
    driver = FakeDriver(EXECUTABLES)
    with pytest.raises(UnsupportedOnDevice, match=r"kernel 'k': no pipeline statistics: \[0\] Fake GPU .* does not "
                                                  r"offer VK_KHR_pipeline_executable_properties"):
        statistics.executables(fake_device(driver, extensions=(), enabled=False), 1, what="kernel 'k'")
    with pytest.raises(UnsupportedOnDevice, match="offers VK_KHR_pipeline_executable_properties but not its feature "
                                                  "pipelineExecutableInfo"):
        statistics.executables(fake_device(driver, enabled=False), 1)
    assert driver.calls == []
    h200 = load_description(ROOT / "test" / "unit" / "data" / "vulkan_h200.json")
    assert statistics.unsupported_reason(SimpleNamespace(description=h200, pipeline_statistics=True)) is None


def test_the_text_lists_each_statistic():
    found = statistics.executables(fake_device(FakeDriver(EXECUTABLES)), 1, representations=True)
    text = statistics.format_executables(found, representations=True)
    assert "executable 0: Compute Shader (compute, subgroup size 32): the kernel as the GPU runs it" in text
    assert any(line.split() == ["Register", "Count", "168", "registers", "per", "invocation"]
               for line in text.splitlines())
    assert "Uses shared memory" in text and " yes " in text and "0.375" in text
    assert "  HMMA.16816.F32 R0, R4, R8, R0 ;" in text and "(5 bytes of binary data)" in text
    assert "SASS" not in statistics.format_executables(found)


# ------------------------------------------------------------- pipelines and the device

def test_the_extension_is_wanted_and_pipelines_capture_only_where_enabled():
    assert KHR_PIPELINE_EXECUTABLE_PROPERTIES in WANTED_EXTENSIONS
    pipelines = Pipelines.__new__(Pipelines)
    pipelines.device = SimpleNamespace(pipeline_statistics=False)
    assert pipelines._flags(False) == pipelines._flags(True) == 0
    pipelines.device.pipeline_statistics = True
    assert pipelines._flags(False) == vk.PIPELINE_CREATE_CAPTURE_STATISTICS_BIT_KHR == 0x40
    assert pipelines._flags(True) == 0x40 | vk.PIPELINE_CREATE_CAPTURE_INTERNAL_REPRESENTATIONS_BIT_KHR == 0xC0


def _module(tmp_path, text, record, name):
    """DIR/<name>.spv assembled from `text` with its record."""
    (tmp_path / name).mkdir()
    path = tmp_path / f"{name}.spv"
    path.write_bytes(assemble(text, record, tmp_path / name))
    return path


@pytest.fixture()
def programs(tmp_path):
    device_or_skip()
    made = [VulkanProgram(_module(tmp_path, VADD, VADD_RECORD, "vadd").read_bytes()),
            VulkanProgram(_module(tmp_path, LOCAL_SUM, LOCAL_SUM_RECORD, "local_sum").read_bytes())]
    yield made
    for program in made:
        program.close()


@pytest.fixture()
def python_driver(monkeypatch, programs):
    """The Python driver behind the real device (whose pipelines stay created without the
    capture flags: pipeline_statistics stays as the device has it)."""
    driver = FakeDriver(EXECUTABLES)
    monkeypatch.setattr(statistics, "unsupported_reason", lambda device: None)
    monkeypatch.setattr(programs[0].device.vk, "device_function", driver.device_function)
    return driver


def test_statistics_describe_the_pipeline_a_launch_uses(programs, python_driver):
    vadd = programs[0].kernel("vadd")
    a, b, c = np.arange(100, dtype=np.float32), np.ones(100, np.float32), np.zeros(100, np.float32)
    vadd((128,), (32,), a, b, c, 100)
    assert np.array_equal(c, a + 1)
    launched = {p.value for p in programs[0].pipelines.pipelines.values()}
    found = vadd.statistics((32,))
    assert len(launched) == 1 and {p.value for p in programs[0].pipelines.pipelines.values()} == launched
    assert python_driver.pipelines[0] in launched            # the launch's own pipeline, no new one
    assert found[0]["statistics"]["Register Count"] == (168, "registers per invocation")
    vadd.statistics(64)                      # another local size: another specialization, its own pipeline
    assert python_driver.pipelines[-1] not in launched
    assert len(programs[0].pipelines.pipelines) == 2
    vadd.statistics(64, representations=True)
    assert "representations" in python_driver.calls
    # A pipeline of its own captures the representations, where the device allows the flag.
    assert len(programs[0].pipelines.pipelines) == 2 + programs[0].device.pipeline_statistics


def test_statistics_arguments_are_checked(programs, python_driver):
    vadd, local_sum = programs[0].kernel("vadd"), programs[1].kernel("local_sum")
    with pytest.raises(ArgumentError, match="no reqd_work_group_size.*give local_size="):
        vadd.statistics()
    for bad in (0, (32, 0), (1, 2, 3, 4), 2.5, True):
        with pytest.raises(ArgumentError, match="local_size must be"):
            vadd.statistics(bad)
    with pytest.raises(ArgumentError, match="maximum work-group size"):
        vadd.statistics(1 << 20)
    with pytest.raises(ArgumentError, match=r"bytes of each __local argument \(tmp\); missing: tmp"):
        local_sum.statistics(64)
    with pytest.raises(ArgumentError, match="not one: nope"):
        local_sum.statistics(64, {"tmp": 256, "nope": 4})
    with pytest.raises(ArgumentError, match=r"local_memory\['tmp'\] must be"):
        local_sum.statistics(64, {"tmp": -4})
    assert local_sum.statistics(64, {"tmp": LocalMemory(256)})[0]["name"] == "Compute Shader"
    assert local_sum.statistics(64, {"tmp": np.int64(256)})        # the same specialization
    assert len(programs[1].pipelines.pipelines) == 1
    assert python_driver.calls.count("properties") == 4


def test_a_device_without_the_extension_refuses_clearly(programs):
    if programs[0].device.pipeline_statistics:
        pytest.skip(f"{programs[0].description.title()} offers the statistics")
    with pytest.raises(UnsupportedOnDevice, match="kernel 'vadd': no pipeline statistics: .* does not offer "
                                                  "VK_KHR_pipeline_executable_properties|but not its feature"):
        programs[0].kernel("vadd").statistics(32)
    assert not programs[0].pipelines.pipelines         # refused before any pipeline was made
    offered = programs[0].description.has(KHR_PIPELINE_EXECUTABLE_PROPERTIES)
    assert (KHR_PIPELINE_EXECUTABLE_PROPERTIES in programs[0].device.enabled_extensions) == offered


def test_a_real_driver_reports_typed_named_statistics(programs):
    """On a device that offers the extension (NVIDIA's driver, newer Mesa)."""
    device = programs[0].device
    if not device.pipeline_statistics:
        pytest.skip(f"{device.description.title()} does not offer {KHR_PIPELINE_EXECUTABLE_PROPERTIES}")
    assert KHR_PIPELINE_EXECUTABLE_PROPERTIES in device.enabled_extensions
    found = programs[0].kernel("vadd").statistics(32)
    assert found and all(e["name"] and e["subgroup_size"] >= 1 for e in found)
    values = [v for e in found for v in e["statistics"].values()]
    assert values and all(name for e in found for name in e["statistics"])
    assert all(type(value) in (bool, int, float) and isinstance(text, str) for value, text in values)
    with_ir = programs[0].kernel("vadd").statistics(32, representations=True)
    assert all(isinstance(r.get("text", r.get("data")), (str, bytes)) for e in with_ir for r in e["representations"])


# -------------------------------------------------------------------------- the commands

def test_clcoop_run_prints_the_statistics_instead_of_launching(tmp_path, monkeypatch, capsys):
    from clcoop.cli import run_main
    device_or_skip()
    module = _module(tmp_path, LOCAL_SUM, LOCAL_SUM_RECORD, "local_sum")
    driver = FakeDriver(EXECUTABLES)
    monkeypatch.setattr(statistics, "unsupported_reason", lambda device: None)
    from clcoop.vulkan import device as devices
    monkeypatch.setattr(devices.instance().vk, "device_function", driver.device_function)
    code = run_main.main(["--engine", "vulkan", str(module), "--local", "64", "--pipeline-statistics",
                          "--arg", "tmp=local:256", "--arg", "out=unused.npy", "--internal-representations"])
    out, err = capsys.readouterr()
    assert code == 0, err
    assert out.startswith("kernel local_sum, local size 64, on [")
    assert "Register Count" in out and "HMMA.16816.F32" in out
    assert not list(tmp_path.glob("*.npy"))
    # OpenCL C built for the Vulkan engine on the spot: the same statistics of its pipeline
    source = str(ROOT / "examples" / "vulkan" / "vector_add.cl")
    assert run_main.main(["--engine", "vulkan", source, "--local", "32", "--pipeline-statistics"]) == 0
    out = capsys.readouterr().out
    assert out.startswith("kernel vector_add, local size 32, on [") and "Register Count" in out


def test_clcoop_run_statistics_errors(tmp_path, capsys):
    from clcoop.cli import run_main
    device_or_skip()
    module = _module(tmp_path, VADD, VADD_RECORD, "vadd")
    assert run_main.main([str(module), "--local", "32", "--pipeline-statistics"]) == 1
    assert "--pipeline-statistics needs --engine vulkan" in capsys.readouterr().err
    assert run_main.main(["--engine", "vulkan", str(module), "--local", "32", "--internal-representations",
                          "--global", "32"]) == 1
    assert "--internal-representations goes with --pipeline-statistics" in capsys.readouterr().err
    assert run_main.main(["--engine", "vulkan", str(module), "--local", "32"]) == 1
    assert "required: --global" in capsys.readouterr().err
    assert run_main.main(["--engine", "vulkan", str(module), "--pipeline-statistics"]) == 1
    assert "no reqd_work_group_size" in capsys.readouterr().err


def test_clcoop_run_on_a_device_without_the_extension(tmp_path, capsys):
    from clcoop.cli import run_main
    description = device_or_skip()
    if description.has(KHR_PIPELINE_EXECUTABLE_PROPERTIES):
        pytest.skip(f"{description.title()} offers the statistics")
    module = _module(tmp_path, VADD, VADD_RECORD, "vadd")
    assert run_main.main(["--engine", "vulkan", str(module), "--local", "32", "--pipeline-statistics"]) == 1
    err = capsys.readouterr().err
    assert err.startswith("clcoop-run: error: kernel 'vadd': no pipeline statistics:")
    assert "does not offer VK_KHR_pipeline_executable_properties" in err and "Traceback" not in err


def _gpu_check():
    return load_script("gpu_check.py", "gpu_check_for_statistics")


def test_gpu_check_stats_records_each_module(tmp_path, monkeypatch, capsys):
    device_or_skip()
    gpu_check = _gpu_check()
    _module(tmp_path, VADD, VADD_RECORD, "small")
    kernels = [gpu_check.PerfKernel("small", "(hand-assembled)", "vadd", ("-DX=1",), (1, 32), 32),
               gpu_check.PerfKernel("absent", "examples/vulkan/nope.cl", "nope", (), (1, 32), 32)]
    driver = FakeDriver(EXECUTABLES)
    monkeypatch.setattr(statistics, "unsupported_reason", lambda device: None)
    from clcoop.vulkan import device as devices
    monkeypatch.setattr(devices.instance().vk, "device_function", driver.device_function)
    described = devices.descriptions()
    monkeypatch.setattr(devices, "descriptions", lambda: [
        replace(d, extensions=d.extensions + (KHR_PIPELINE_EXECUTABLE_PROPERTIES,)) for d in described])
    report = tmp_path / "stats.json"
    perf = tmp_path / "run.json"
    perf.write_text(json.dumps({"performance": {"gemm": [{"name": "small", "tflops": 153.46}]}}))
    assert gpu_check.statistics_command(tmp_path, report, representations=True, kernels=kernels, perf_report=perf) == 1
    data = json.loads(report.read_text())
    small, absent = data["modules"]
    assert small["local_size"] == [32, 1, 1] and small["options"] == ["-DX=1"]
    executable = small["executables"][0]
    assert executable["statistics"]["Register Count"] == {"value": 168, "description": "registers per invocation"}
    assert executable["statistics"]["Uses shared memory"]["value"] is True
    sass = executable["representations"][0]
    assert sass["file"] == "small.0.SASS.txt" and "text" not in sass
    assert (tmp_path / "small.0.SASS.txt").read_text().startswith("HMMA")
    assert (tmp_path / "small.0.cubin.bin").read_bytes() == bytes(range(5))
    assert absent["error"].startswith("not compiled:")
    out = capsys.readouterr().out
    assert "| kernel | TFLOP/s | executable | subgroup | Register Count | Spills | Uses shared memory |" in out
    assert "| small | 153.5 | Compute Shader | 32 | 168 | -3 | yes | 0.375 | 7 |" in out
    assert "| absent |  | not compiled:" in out
    assert "no statistics for 1 of 2 modules: absent" in out


def test_gpu_check_stats_without_the_extension_says_why(tmp_path, monkeypatch, capsys):
    device_or_skip()
    gpu_check = _gpu_check()
    _module(tmp_path, VADD, VADD_RECORD, "small")
    kernels = [gpu_check.PerfKernel("small", "(hand-assembled)", "vadd", (), (1, 32), 32)]
    from clcoop.vulkan import device as devices
    described = devices.descriptions()
    # No device offers the extension: nothing is compiled or loaded, the report says why.
    monkeypatch.setattr(devices, "descriptions", lambda: [
        replace(d, extensions=tuple(e for e in d.extensions if e != KHR_PIPELINE_EXECUTABLE_PROPERTIES))
        for d in described])
    assert gpu_check.statistics_command(tmp_path, tmp_path / "r.json", kernels=kernels) == 1
    data = json.loads((tmp_path / "r.json").read_text())
    assert data["modules"] == [] and data["error"].startswith("no device offers VK_KHR_pipeline_executable_properties")
    assert capsys.readouterr().out.startswith("stats: no device offers")
    # A device that lists the extension without the feature: each module records why.
    monkeypatch.setattr(devices, "descriptions", lambda: [
        replace(d, extensions=d.extensions + (KHR_PIPELINE_EXECUTABLE_PROPERTIES,)) for d in described])
    monkeypatch.setattr(statistics, "unsupported_reason", lambda device: "the feature is off (a test's device)")
    assert gpu_check.statistics_command(tmp_path, tmp_path / "r.json", kernels=kernels) == 1
    row = json.loads((tmp_path / "r.json").read_text())["modules"][0]
    assert row["error"] == ("UnsupportedOnDevice: kernel 'vadd': no pipeline statistics: "
                            "the feature is off (a test's device)")
    assert "| small | UnsupportedOnDevice" in capsys.readouterr().out
