#!/usr/bin/env python3
"""Corpus kernels on the native engine (issue 16): clcoop's IR of each kernel runs in the
interpreter and with engine="auto" (natively where the engine takes it), on the inputs and
NDRange of scripts/corpus_run.py, and every buffer and the printf output are compared
byte for byte.

    python3 scripts/corpus_native.py FILE.cl...

One source per subprocess, so a crash of native code is a finding ("crash rc=..."), not
the end of the run. Prints the outcomes counted by (engine, path, outcome), then every
kernel that does not agree.
"""
import json
import os
import re
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "scripts"))
import corpus_run as cr  # noqa: E402

def one(path):
    """The outcomes of one source's kernels."""
    import warnings
    import clcoop.api as api
    from clcoop.errors import ClcoopError
    source = open(path, errors="replace").read()
    if re.search(r"\b(?:read|write)_image|\bimage[123]d\w*_t\b|\bsampler_t\b", source):
        return []
    include = os.path.dirname(path)
    clang_ir = cr.compile_clang("clang-22", source, include)
    if clang_ir is None:
        return []
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            interp = api.Program(source).build(["-cl-std=CL3.0", "-ffp-contract=off", "-I", include])
            nat = api.Program(source).build(["-cl-std=CL3.0", "-ffp-contract=off", "-I", include], engine="auto")
        except ClcoopError:
            return []
    out = []
    for name, params in sorted(cr.kernel_params(clang_ir).items()):
        if name not in interp.kernel_names:
            continue
        try:
            args = cr.make_arguments(name, params, 4096, 16)
        except ValueError:
            continue
        glob, local = cr.launch_shape(source, interp.kernel(name).info.reqd_work_group_size, 16)
        k = nat.kernel(name)
        f1, o1 = cr.run_kernel(interp, name, args, glob, local)
        fast_before = nat._native.fast_launches.get(name, 0)
        f2, o2 = cr.run_kernel(nat, name, args, glob, local)
        # The path the launch took (a kernel with a fast path may still run per work-item:
        # a launch outside its condition, or a fault rerun).
        mode = None if k.engine != "native" else \
            "subgroup" if nat._native.fast_launches.get(name, 0) > fast_before else "work-item"
        res = cr.compare_runs((f2, o2), (f1, o1))
        out.append({"file": path, "kernel": name, "engine": k.engine, "mode": mode, **res})
    return out

def main(argv):
    if argv and argv[0] == "--one":
        print(json.dumps(one(argv[1])))
        return 0
    files = sorted(argv)
    results = []
    for f in files:
        try:
            done = subprocess.run([sys.executable, __file__, "--one", f], capture_output=True, text=True,
                                  timeout=120, env={**os.environ, "PYTHONPATH": str(ROOT)})
        except subprocess.TimeoutExpired:
            results.append({"file": f, "outcome": "timeout"})
            continue
        if done.returncode != 0:
            results.append({"file": f, "outcome": f"crash rc={done.returncode}", "err": done.stderr[-300:]})
            continue
        lines = done.stdout.strip().splitlines()
        results += json.loads(lines[-1]) if lines else [{"file": f, "outcome": "no output"}]
    from collections import Counter
    print(Counter((r.get("engine"), r.get("mode"), r.get("outcome")) for r in results))
    for r in results:
        if r.get("outcome") not in ("agree", "both fault", "skipped"):
            print(r)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
