"""clcoop-devices: the Vulkan devices the GPU engine can use, and their cooperative-matrix
configurations (thin; the work is in clcoop.vulkan).

    clcoop-devices [--json] [--device INDEX|NAME]

For each device: its name, type, Vulkan version and driver, whether the engine can use it,
the matrix features, the limits a launch is checked against, the subgroup sizes, then every KHR configuration and NV2 flexible
dimension it supports (what a kernel's matrices must match). --json prints the descriptions
as the engine records them (a file of it is what test/unit/data/vulkan_h200.json holds).
Exit 0 ok, 1 no Vulkan loader or device.
"""
import json
import sys

from clcoop.cli.output import ArgumentParser, stdout_closed
from clcoop.errors import ClcoopError

MATRIX_FEATURES = ("cooperativeMatrix", "cooperativeMatrixWorkgroupScope", "cooperativeMatrixFlexibleDimensions",
                   "cooperativeMatrixReductions", "cooperativeMatrixConversions",
                   "cooperativeMatrixPerElementOperations", "cooperativeMatrixTensorAddressing",
                   "cooperativeMatrixBlockLoads", "shaderBFloat16CooperativeMatrix")


def _parser():
    parser = ArgumentParser(prog="clcoop-devices",
                             description="List the Vulkan devices and the cooperative-matrix configurations "
                                         "they support (docs/gpu.md).")
    parser.add_argument("--json", action="store_true", help="print the device descriptions as JSON")
    parser.add_argument("--device", help="only this device: an index or a name substring (as CLCOOP_VULKAN_DEVICE)")
    return parser


def format_device(description, usable_problems):
    from clcoop.vulkan.capabilities import supported_text
    lines = [description.title()]
    lines.append("  usable by clcoop: " + ("yes" if not usable_problems else "no (" + ", ".join(usable_problems) + ")"))
    present = [name for name in MATRIX_FEATURES if description.features.get(name)]
    lines.append("  matrix features: " + (", ".join(present) or "none"))
    lines.append(f"  limits: work-group size {'x'.join(map(str, description.max_workgroup_size))} "
                 f"({description.max_workgroup_invocations} invocations), Workgroup (__local) memory "
                 f"{description.max_shared_memory} bytes"
                 + (f" ({description.workgroup_scope_reserved_shared_memory} of them kept by the driver with "
                    f"workgroup-scope matrices)" if description.workgroup_scope_reserved_shared_memory else "")
                 + f", push constants {description.max_push_constants_size} bytes")
    lines += ["  " + line for line in supported_text(description).splitlines()]
    return "\n".join(lines)


def main(argv=None):
    args = _parser().parse_args(argv)
    try:
        from clcoop.vulkan import device
        found = device.descriptions()
        if args.device is not None:
            found = [found[device.choose(found, selector=args.device, what="--device")]]
        if args.json:
            text = json.dumps([d.to_json() for d in found], indent=1)
        else:
            text = "\n\n".join(format_device(d, device.base_problems(d)) for d in found) or "no Vulkan device found"
    except ClcoopError as error:
        print(f"clcoop-devices: error: {error}", file=sys.stderr)
        return 1
    try:
        print(text)
        sys.stdout.flush()
    except BrokenPipeError:
        stdout_closed()
    return 0


if __name__ == "__main__":
    sys.exit(main())
