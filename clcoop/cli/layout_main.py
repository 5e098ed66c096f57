"""clcoop-layout: print which work-item holds which element of a cooperative matrix.

    clcoop-layout --rows 4 --cols 15 --subgroup-size 16 [--use a|b|accumulator] [--type float] [--json]
    clcoop-layout --scope workgroup --local-size 64[,2[,1]] --rows 40 --cols 24 ...
    clcoop-layout --device vulkan --type half --rows 16 --cols 16 --use a   # the GPU's own layout

The table is drawn like the layout spec's (docs/layout.md): one column per work-item
(its local linear id at workgroup scope), one row per component, each cell `row,col` or
`-` for padding. Exit 0 ok, 1 user error.

--device vulkan shows the layout of the Vulkan device (CLCOOP_VULKAN_DEVICE, or vulkan:INDEX|NAME)
as a probe kernel measures it (clcoop/vulkan/probe.py), at the device's subgroup size: on a
GPU the layout is the driver's choice, and element access (`m[i]`) and coop_mat_length mean
what this table shows. The default, --device interp, is clcoop's own layout (docs/layout.md).
"""
import argparse
import json
import sys

from clcoop.cli.dependencies import missing_dependency
from clcoop.cli.output import ArgumentParser, stdout_closed
from clcoop.coopmat_spec import COMPONENTS
from clcoop.errors import ClcoopError


MAX_PRINTED_ELEMENTS = 1 << 20
# --type takes the OpenCL C component types; bf16 is a shorter spelling of __bf16.
TYPE_ALIASES = {"bf16": "__bf16"}
TYPE_NAMES = [name for name in COMPONENTS if name != "__bf16"] + ["bf16", "__bf16"]


def _parser():
    parser = ArgumentParser(prog="clcoop-layout",
                             description="Show how a cooperative matrix is spread over the "
                                         "work-items of a subgroup (or of a work-group, "
                                         "--scope workgroup).")
    parser.add_argument("--rows", type=int, required=True, help="M (rows that are not a power of two are padded, docs/layout.md)")
    parser.add_argument("--cols", type=int, required=True, help="N")
    parser.add_argument("--subgroup-size", type=int, help="S, a power of two (default 16; with --device "
                        "vulkan, the device's)")
    parser.add_argument("--use", default="accumulator", choices=["a", "b", "accumulator"],
                        help="matrix use (default accumulator)")
    parser.add_argument("--type", default="float", choices=TYPE_NAMES,
                        help="component type (default float; bf16 is __bf16); matters for "
                             "VNNI packing of matrix a and K1 of matrix b")
    parser.add_argument("--scope", default="subgroup", choices=["subgroup", "workgroup"],
                        help="matrix scope (default subgroup); workgroup needs --local-size")
    parser.add_argument("--local-size", type=_local_size, metavar="X[,Y[,Z]]",
                        help="the kernel's reqd_work_group_size (workgroup scope)")
    parser.add_argument("--json", action="store_true", help="print JSON instead of a table")
    parser.add_argument("--device", default="interp", type=_device,
                        help="interp (clcoop's layout, default) or vulkan[:INDEX|NAME] (measured on a Vulkan "
                             "device by a probe kernel)")
    return parser


def _device(text):
    """'interp' -> None; 'vulkan' -> ''; 'vulkan:NAME' -> 'NAME' (the device selector)."""
    if text == "interp":
        return None
    kind, _, selector = text.partition(":")
    if kind != "vulkan":
        raise argparse.ArgumentTypeError(f"expected interp, vulkan or vulkan:INDEX|NAME, got {text!r}")
    return selector


def _local_size(text):
    """'64' / '32,2' / '8,8,1' -> the linear work-group size X*Y*Z."""
    try:
        sizes = [int(part) for part in text.split(",")]
    except ValueError:
        sizes = []
    if not 1 <= len(sizes) <= 3 or any(size < 1 for size in sizes):
        raise argparse.ArgumentTypeError(f"expected 1 to 3 positive sizes X[,Y[,Z]], got {text!r}")
    product = 1
    for size in sizes:
        product *= size
    return product


def main(argv=None):
    try:
        return _show(argv)
    except ModuleNotFoundError as exc:      # NumPy (or another dependency) is not installed
        if not missing_dependency(exc):
            raise
        print(f"clcoop-layout: error: {missing_dependency(exc)}", file=sys.stderr)
        return 1


def _show(argv):
    args = _parser().parse_args(argv)
    args.type = TYPE_ALIASES.get(args.type, args.type)
    if args.device is not None:
        return _show_device(args)
    if args.subgroup_size is None:
        args.subgroup_size = 16
    # Imported here so that argument errors print without loading NumPy.
    from clcoop.interp.debug import format_layout_table, layout_json
    from clcoop.coopmat_spec import Scope
    from clcoop.ir.wg_layout import layout_of_matrix
    if args.scope == "workgroup" and args.local_size is None:
        print("clcoop-layout: error: --scope workgroup needs --local-size X[,Y[,Z]] (the "
              "kernel's reqd_work_group_size)", file=sys.stderr)
        return 1
    if args.scope == "subgroup" and args.local_size is not None:
        print("clcoop-layout: error: --local-size applies to --scope workgroup only",
              file=sys.stderr)
        return 1
    work_items = args.local_size if args.scope == "workgroup" else args.subgroup_size
    if args.rows * args.cols > MAX_PRINTED_ELEMENTS or work_items > MAX_PRINTED_ELEMENTS:
        print(f"clcoop-layout: error: a {args.rows}x{args.cols} matrix over {work_items} "
              f"work-items is too large to print", file=sys.stderr)
        return 1
    scope = Scope.WORKGROUP if args.scope == "workgroup" else Scope.SUBGROUP
    try:
        layout = layout_of_matrix(args.rows, args.cols, args.use, args.type, scope,
                                  args.subgroup_size, args.local_size)
    except ClcoopError as error:
        print(f"clcoop-layout: error: {error}", file=sys.stderr)
        return 1
    try:
        print(json.dumps(layout_json(layout)) if args.json else format_layout_table(layout))
        sys.stdout.flush()
    except BrokenPipeError:         # the reader stopped early (`| head -1`): not an error
        stdout_closed()
    return 0


def _show_device(args):
    """The layout measured on a Vulkan device (clcoop.vulkan.probe)."""
    from clcoop.interp.debug import format_layout_table
    from clcoop.vulkan.probe import probe_layout
    if (args.scope == "workgroup") != (args.local_size is not None):
        print("clcoop-layout: error: --local-size goes with --scope workgroup (the kernel's reqd_work_group_size), "
              "and only with it", file=sys.stderr)
        return 1
    if args.rows * args.cols > MAX_PRINTED_ELEMENTS:
        print(f"clcoop-layout: error: a {args.rows}x{args.cols} matrix is too large to print", file=sys.stderr)
        return 1
    try:
        layout = probe_layout(args.type, args.rows, args.cols, args.use, args.scope, args.local_size,
                              args.device or None)
        if args.subgroup_size is not None and args.scope == "subgroup" and args.subgroup_size != layout.group_size:
            raise ClcoopError(f"--subgroup-size {args.subgroup_size}: the device's subgroup size is "
                              f"{layout.group_size}")
    except ClcoopError as error:
        print(f"clcoop-layout: error: {error}", file=sys.stderr)
        return 1
    header = (f"# {layout.device}: {args.type} {args.rows}x{args.cols} use {args.use}, {args.scope} scope over "
              f"{layout.group_size} invocations, coop_mat_length {layout.length}" +
              (f", {layout.replicated} replicated slots" if layout.replicated else ""))
    try:
        print(json.dumps(layout.as_json()) if args.json else header + "\n" + format_layout_table(layout))
        sys.stdout.flush()
    except BrokenPipeError:
        stdout_closed()
    return 0


if __name__ == "__main__":
    sys.exit(main())
