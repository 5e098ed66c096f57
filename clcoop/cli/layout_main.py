"""clcoop-layout: print which work-item holds which element of a cooperative matrix.

    clcoop-layout --rows 4 --cols 15 --subgroup-size 16 [--use a|b|accumulator] [--type float] [--json]

The table is drawn like the layout spec's (docs/layout.md): one column per work-item,
one row per component, each cell `row,col` or `-` for padding. Exit 0 ok, 1 user error.
"""
import argparse
import json
import sys

from clcoop.cli.output import stdout_closed

from clcoop.errors import ClcoopError


MAX_PRINTED_ELEMENTS = 1 << 20


class _ArgumentParser(argparse.ArgumentParser):
    def error(self, message):
        self.print_usage(sys.stderr)
        print(f"clcoop-layout: error: {message}", file=sys.stderr)
        sys.exit(1)


def _parser():
    parser = _ArgumentParser(prog="clcoop-layout",
                             description="Show how a cooperative matrix is spread over the "
                                         "work-items of a subgroup.")
    parser.add_argument("--rows", type=int, required=True, help="M (rows that are not a power of two are padded, docs/layout.md)")
    parser.add_argument("--cols", type=int, required=True, help="N")
    parser.add_argument("--subgroup-size", type=int, default=16, help="S, a power of two (default 16)")
    parser.add_argument("--use", default="accumulator", choices=["a", "b", "accumulator"],
                        help="matrix use (default accumulator)")
    parser.add_argument("--type", default="float",
                        choices=["char", "uchar", "short", "ushort", "int", "uint", "long",
                                 "ulong", "half", "float", "double"],
                        help="component type (default float); matters for VNNI packing of "
                             "matrix a and K1 of matrix b")
    parser.add_argument("--json", action="store_true", help="print JSON instead of a table")
    return parser


def main(argv=None):
    args = _parser().parse_args(argv)
    # Imported here so that argument errors print without loading NumPy.
    from clcoop.interp.debug import format_layout_table, layout_json
    from clcoop.interp.layout import get_layout
    if args.rows * args.cols > MAX_PRINTED_ELEMENTS or args.subgroup_size > MAX_PRINTED_ELEMENTS:
        print(f"clcoop-layout: error: a {args.rows}x{args.cols} matrix over {args.subgroup_size} "
              f"work-items is too large to print", file=sys.stderr)
        return 1
    try:
        layout = get_layout(args.rows, args.cols, args.use, args.type, args.subgroup_size)
    except ClcoopError as error:
        print(f"clcoop-layout: error: {error}", file=sys.stderr)
        return 1
    try:
        print(json.dumps(layout_json(layout)) if args.json else format_layout_table(layout))
        sys.stdout.flush()
    except BrokenPipeError:         # the reader stopped early (`| head -1`): not an error
        stdout_closed()
    return 0


if __name__ == "__main__":
    sys.exit(main())
