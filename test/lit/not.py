"""`not` for lit: succeed only when the command exits with a non-zero status (and was not killed).

`--status N` requires exactly N. Used as `%not clcoop bad.cl` in RUN lines.
"""
import subprocess
import sys

args = sys.argv[1:]
want = None
if args[:1] == ["--status"]:
    want, args = int(args[1]), args[2:]
code = subprocess.call(args)
if want is not None:
    sys.exit(0 if code == want else 1)
sys.exit(0 if 0 < code < 128 else 1)
