"""`python3 -m clcoop.spirv kernel.ll -o kernel.spv [--triple spir-unknown-unknown] [-O2] [--raw]`.

Runs the SPIR-V pipeline on an LLVM IR file (tests use it on hand-written IR; `clcoop --emit-spirv` is the
user-facing way). `--raw` writes llc's output without the rewrite and without validation.
"""

import argparse
import os
import re
import sys

from clcoop.errors import ClcoopError
from clcoop.spirv import ir_to_spirv, llc_spirv


def _triple_of(ir_text):
    found = re.search(r'^target triple\s*=\s*"([^"]+)"', ir_text, re.MULTILINE)
    return found.group(1) if found else "spir64-unknown-unknown"


def main(argv=None):
    parser = argparse.ArgumentParser(prog="python3 -m clcoop.spirv", description=__doc__.splitlines()[0])
    parser.add_argument("input", help="LLVM IR (.ll)")
    parser.add_argument("-o", dest="output", required=True, help="output .spv")
    parser.add_argument("--triple", help="spir64-unknown-unknown (default: the IR's) or spir-unknown-unknown")
    parser.add_argument("-O", dest="opt_level", type=int, default=0, choices=(0, 1, 2, 3))
    parser.add_argument("--raw", action="store_true", help="llc's output only (no rewrite, no spirv-val)")
    args = parser.parse_args(argv)
    try:
        with open(args.input, encoding="utf-8") as handle:
            ir_text = handle.read()
        triple = args.triple or _triple_of(ir_text)
        if args.raw:
            data = llc_spirv(ir_text, triple, args.opt_level)
        else:
            data = ir_to_spirv(ir_text, triple, args.opt_level)
    except OSError as exc:
        print(f"clcoop: error: {exc}", file=sys.stderr)
        return 1
    except ClcoopError as exc:
        print(f"clcoop: error: {exc}", file=sys.stderr)
        return 1
    partial = args.output + ".tmp"
    with open(partial, "wb") as handle:
        handle.write(data)
    os.replace(partial, args.output)
    return 0


if __name__ == "__main__":
    sys.exit(main())
