#!/usr/bin/python3
"""--input tensors and positions from NumPy files ({"npy": "FILE.npy"}): the same outputs as the
same values in JSON, files found relative to the --input file, and one-line refusals.

Usage: npy_input.py PECHECK SCRATCH_DIR"""
import json
import os
import subprocess
import sys

import numpy as np

pecheck, scratch = sys.argv[1], sys.argv[2]
os.makedirs(os.path.join(scratch, "arrays"), exist_ok=True)
failures = []


def run(spec, input_path):
    """pecheck eval attend from another directory than the input file's: (exit, stdout, stderr)."""
    r = subprocess.run([pecheck, "eval", "attend", spec, "--input", input_path, "--format", "json"], capture_output=True, text=True, cwd="/")
    return r.returncode, r.stdout, r.stderr


def write_input(name, fields):
    path = os.path.join(scratch, "arrays", name)
    with open(path, "w") as f:
        json.dump(fields, f)
    return path


def save(name, array):
    np.save(os.path.join(scratch, "arrays", name), array)
    return {"npy": name}


def as_json(array):
    return {"shape": list(array.shape), "data": [float(v) for v in array.astype(np.float64).ravel()]}


rng = np.random.default_rng(7)
T, H, D = 4, 2, 8
q = rng.standard_normal((T, H, D))
k = rng.standard_normal((T, H, D)).astype(np.float32)
v = rng.standard_normal((T, H, D)).astype(np.float16)
pos = np.array([3, 0, 9, 4], dtype=np.int32)

# rope: reals in f8, f4, f2 and positions in i4, against the same values as JSON numbers.
from_npy = write_input("rope.json", {"q": save("q.npy", q), "k": save("k.npy", k), "v": save("v.npy", v), "qpos": save("pos.npy", pos),
                                     "kpos": [0, 1, 2, 3], "causal": True})
from_json = write_input("rope_json.json", {"q": as_json(q), "k": as_json(k), "v": as_json(v), "qpos": pos.tolist(), "kpos": [0, 1, 2, 3], "causal": True})
a, b = run("rope(dim=8)", from_npy), run("rope(dim=8)", from_json)
if a[0] != 0 or a[1] != b[1] or not a[1]:
    failures.append(f"rope from .npy differs from JSON: exit {a[0]} {a[2]!r}")

# mrope: positions as [T, 3] rows of i8.
rows = np.array([[0, 0, 0], [1, 2, 3], [5, 1, 1], [2, 2, 2]], dtype=np.int64)
from_npy = write_input("mrope.json", {"q": save("q.npy", q), "k": save("k.npy", k), "v": save("v.npy", v), "qpos": save("rows.npy", rows),
                                      "kpos": save("rows.npy", rows)})
from_json = write_input("mrope_json.json", {"q": as_json(q), "k": as_json(k), "v": as_json(v), "qpos": rows.tolist(), "kpos": rows.tolist()})
spec = "mrope(dim=8, sections=[2, 1, 1])"
a, b = run(spec, from_npy), run(spec, from_json)
if a[0] != 0 or a[1] != b[1] or not a[1]:
    failures.append(f"mrope rows from .npy differ from JSON: exit {a[0]} {a[2]!r}")

# Refusals: exit 2, one line, naming the field and the file.
nan_q = q.copy()
nan_q[1, 0, 3] = np.nan
refusals = [
    ({"q": save("nan.npy", nan_q)}, "q ('nan.npy'): .npy value 19 is nan, not a finite number"),
    ({"q": save("ints.npy", np.zeros((T, H, D), dtype=np.int64))}, "q ('ints.npy'): an .npy array of <i8, not of reals"),
    ({"qpos": save("pos_f.npy", pos.astype(np.float64))}, "qpos ('pos_f.npy'): an .npy array of <f8, not of integer positions"),
    ({"qpos": save("pos_2d.npy", rows)}, "qpos ('pos_2d.npy'): .npy positions of shape (4, 3); this scheme reads [T]"),
    ({"q": save("fortran.npy", np.asfortranarray(q))}, "q ('fortran.npy'): a Fortran-order .npy array"),
    ({"q": save("big_endian.npy", q.astype(">f8"))}, "q ('big_endian.npy'): .npy header at byte"),
    ({"q": {"npy": "missing.npy"}}, "q ('missing.npy'): '" + os.path.join(scratch, "arrays", "missing.npy") + "': cannot read it: No such file or directory"),
    ({"q": {"npy": "q.npy", "shape": [1]}}, "q: needs {\"npy\": \"FILE.npy\"} and nothing else"),
    # q.npy exists: a name cut at its NUL would read it.
    ({"q": {"npy": "q.npy\u0000junk"}}, "q ('q.npy\\x00junk'): '" + os.path.join(scratch, "arrays", "q.npy\\x00junk") + "': the file name holds a NUL byte"),
]
for fields, message in refusals:
    r = run("rope(dim=8)", write_input("refused.json", fields))
    lines = r[2].splitlines()
    if r[0] != 2 or len(lines) != 1 or message not in lines[0] or r[1]:
        failures.append(f"expected exit 2 and one line with {message!r}; got exit {r[0]}: {r[2]!r}")

print("\n".join(failures) if failures else f"npy_input: 2 agreements and {len(refusals)} refusals as expected")
sys.exit(1 if failures else 0)
