#!/usr/bin/env python3
"""Pathological inputs are refused before the work they ask for: exit 2, one line naming the
limit and the flag that raises it, in little memory and time. Usage: limits_refuse.py PECHECK TMPDIR [--sanitized]

Each case once took seconds to minutes and gigabytes before an error (or none). The bounds
checked here are loose guards, not benchmarks: a refusal measured 0.00-0.01 s and 9-16 MB here;
100 MB of peak RSS and 5 s of wall time (the issue's goal is 1 s; 5 leaves room for a loaded CI
machine) only fail when the work was done before the check. --sanitized (an ASan build) checks the
exit status and the line only: ASan's shadow memory and quarantine count in the RSS (125 MB for a
refusal there), and -O0 with checks is several times slower."""
import json
import os
import resource
import subprocess
import sys
import time

pecheck, tmp = sys.argv[1], sys.argv[2]
bounded = "--sanitized" not in sys.argv[3:]
os.makedirs(tmp, exist_ok=True)


def write(name, text):
    path = os.path.join(tmp, name)
    with open(path, "w") as f:
        f.write(text)
    return path


big_q = write("big_q.json", '{"q":{"shape":[16384,16384],"data":[]}}')
deep_input = write("deep_input.json", '{"q":' + "[" * 100000 + "]" * 100000 + "}")
row = {"shape": [1, 1, 65536], "data": [0.0] * 65536}
shaw_q = write("shaw_q.json", json.dumps({"q": row, "k": row, "v": row, "qpos": [0], "kpos": [0], "causal": False}))
deep_spec = '{"scheme":"rope","dim":8,"freqs":' + "[" * 30000 + "]" * 30000 + "}"
x8 = "1,2,3,4,5,6,7,8"

# (arguments, the limit the line must name)
cases = [
    (["eval", "rotate", "rope(dim=8)", "--positions", "0:9999999", "--heads", "2", "--x", x8], "values"),
    (["eval", "rotate", "rope(dim=8)", "--positions", "0:99999999999", "--x", x8, "--format", "npy"], "streamed_values"),
    (["eval", "rotate", "rope(dim=16384)", "--positions", "0:3", "--heads", "4096", "--x", "1"], "values"),
    (["eval", "matrix", "rope(dim=16384)", "--positions", "0"], "values"),
    (["eval", "encode", "sinusoidal(dim=8)", "--positions", "0:20000000", "--format", "npy"], "list"),
    (["--limit", "list=3", "eval", "rotate", "rope(dim=4)", "--positions", "0", "--x", "1,2,3,4"], "list"),
    (["eval", "attend", "none()", "--input", big_q], "input_values"),
    (["eval", "attend", "shaw(k=4096, dim=1048576)", "--input", big_q], "dim"),
    (["eval", "attend", "shaw(k=4096, dim=65536)", "--input", shaw_q], "table_work"),
    (["eval", "attend", "none()", "--input", deep_input], "depth"),
    (["eval", "inv_freq", deep_spec], "depth"),
    (["eval", "inv_freq", "rope(dim=945810, scaling=ntk(factor=2))"], "dim"),
    (["--limit", "dim=1000000", "eval", "inv_freq", "rope(dim=945810, scaling=ntk(factor=2))"], "frequencies"),
    (["--limit", "spec_length=10", "eval", "inv_freq", "rope(dim=8)"], "spec_length"),
    (["--limit", "file_bytes=1000", "eval", "attend", "shaw(k=4, dim=65536)", "--input", shaw_q], "file_bytes"),
]

failures = []
for args, limit in cases:
    before = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
    start = time.monotonic()
    run = subprocess.run([pecheck] + args, capture_output=True, text=True, timeout=120)
    seconds = time.monotonic() - start
    # ru_maxrss of the children so far is their maximum: it grows only when this child peaked higher.
    peak_kb = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
    line = run.stderr
    shown = " ".join(a if len(a) < 60 else a[:40] + "..." for a in args)
    problems = []
    if run.returncode != 2:
        problems.append(f"exit {run.returncode}, not 2")
    if line.count("\n") != 1 or not line.endswith("\n"):
        problems.append(f"stderr is not one line: {line[:300]!r}")
    if f"--limit {limit}=N" not in line or f"limit {limit}=" not in line:
        problems.append(f"the line does not name the limit {limit} and --limit {limit}=N: {line[:300]!r}")
    if bounded and peak_kb > before and peak_kb > 100 * 1024:
        problems.append(f"peak RSS {peak_kb / 1024:.0f} MB > 100 MB")
    if bounded and seconds > 5:
        problems.append(f"{seconds:.1f} s > 5 s")
    print(f"{'ok  ' if not problems else 'FAIL'} {seconds:5.2f} s  {shown}: {line.strip()[:160]}")
    if problems:
        failures.append(f"{shown}: {'; '.join(problems)}")

# Files that are not regular files are refused before open(): a FIFO with no writer would block
# it for ever, /dev/zero never ends (it ended in std::bad_alloc or the OOM killer). Each must be
# one line naming the file and its kind, exit 2, in well under the 5 s guard.
fifo = os.path.join(tmp, "fifo")
if not os.path.exists(fifo):
    os.mkfifo(fifo)
unread = [
    (["eval", "attend", "none()", "--input", "/dev/zero"], "/dev/zero': a character device, not a regular file"),
    (["eval", "attend", "none()", "--input", fifo], "fifo': a FIFO, not a regular file"),
    (["spec", "from-hf", fifo], "fifo: a FIFO, not a regular file"),
    (["spec", "from-hf", tmp], "limits_refuse: a directory, not a regular file"),
    (["gate", "--impl-reference", "--hf-config", "/dev/zero"], "--hf-config: a character device, not a regular file"),
    (["gate", "--impl-reference", "--spec", "rope(dim=8)", "--baseline", fifo], "fifo': a FIFO, not a regular file"),
    (["gate", "--impl-reference", "--gguf", fifo], "fifo: a FIFO, not a regular file"),
    (["audit", "merge", fifo, fifo], "fifo: a FIFO, not a regular file"),
]
for args, phrase in unread:
    start = time.monotonic()
    try:
        run = subprocess.run([pecheck] + args, capture_output=True, text=True, timeout=30)
    except subprocess.TimeoutExpired:
        failures.append(f"{' '.join(args)}: still running after 30 s (blocked on the file?)")
        continue
    seconds = time.monotonic() - start
    line = run.stderr
    problems = []
    if run.returncode != 2:
        problems.append(f"exit {run.returncode}, not 2")
    if line.count("\n") != 1 or phrase not in line:
        problems.append(f"stderr is not one line with {phrase!r}: {line[:300]!r}")
    if seconds > 5:
        problems.append(f"{seconds:.1f} s > 5 s")
    print(f"{'ok  ' if not problems else 'FAIL'} {seconds:5.2f} s  {' '.join(args)}: {line.strip()[:160]}")
    if problems:
        failures.append(f"{' '.join(args)}: {'; '.join(problems)}")

# A legitimate large job streams in bounded memory: 300000 x 128 values (307 MB of .npy, to a pipe)
# peaked at 30 MB here; holding the result would take at least its 307 MB. --sanitized checks no
# bound, so it streams a tenth (31 MB, still two 16 MiB blocks and more): the 307 MB took about
# 25 s at -O0 under ASan.
positions = 300000 if bounded else 30000
before = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
stream = subprocess.Popen([pecheck, "eval", "encode", "sinusoidal(dim=128)", "--positions", f"0:{positions}", "--format", "npy"], stdout=subprocess.PIPE)
written = 0
while chunk := stream.stdout.read(1 << 20):
    written += len(chunk)
stream.wait()
peak_kb = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
print(f"streamed {written} bytes of .npy, exit {stream.returncode}, peak RSS {peak_kb / 1024:.0f} MB")
if stream.returncode != 0 or written < positions * 128 * 8 or (bounded and peak_kb > before and peak_kb > 100 * 1024):
    failures.append(f"the streamed encode: exit {stream.returncode}, {written} bytes, peak {peak_kb / 1024:.0f} MB "
                    f"(wanted 0, >= {positions * 128 * 8}, <= 100 MB)")

if failures:
    print("\n".join(failures), file=sys.stderr)
    sys.exit(1)
print(f"all {len(cases)} refused before their work")
