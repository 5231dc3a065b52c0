#!/usr/bin/env python3
"""Errors stay one line when the input has newlines or control bytes: a spec, a JSON spec, a file
name. Each must exit 2 with exactly one line on stderr that shows the newline as \\n.
Usage: one_line_errors.py PECHECK TMPDIR"""
import os
import subprocess
import sys

pecheck, tmp = sys.argv[1], sys.argv[2]
os.makedirs(tmp, exist_ok=True)
odd_name = os.path.join(tmp, "in\nput\x07.json")
with open(odd_name, "w") as f:
    f.write("{not json")

# (arguments, text the line must contain)
cases = [
    (["eval", "inv_freq", "rope(dim=8,\n base=3"], "rope(dim=8,\\n base=3"),
    (["eval", "inv_freq", '{"scheme":"rope",\n"dim":"x"\n'], '\\n"dim"'),
    (["eval", "attend", "none()", "--input", odd_name], "in\\nput\\x07.json"),
    (["eval", "encode", "sinusoidal(dim=4)", "--positions", "1,\n2"], "1,\\n2"),
]
failures = []
for args, shown in cases:
    run = subprocess.run([pecheck] + args, capture_output=True, text=True)
    ok = run.returncode == 2 and run.stderr.count("\n") == 1 and run.stderr.endswith("\n") and shown in run.stderr
    print(f"{'ok  ' if ok else 'FAIL'} {args!r}: {run.stderr!r}")
    if not ok:
        failures.append(repr(args))
sys.exit(1 if failures else 0)
