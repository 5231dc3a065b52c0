#!/usr/bin/python3
"""Checks `pecheck golden export`: the .npy files load with numpy, equal the JSON export, cover
every golden file, case and tensor, and hold each golden value correctly rounded to the dtype
(decided exactly with fractions).

usage: check_export.py GOLDEN_DIR NPY_DIR JSON_DIR DTYPE
"""
import json
import os
import sys
from fractions import Fraction

try:
    import numpy as np
except ImportError:
    if sys.executable != "/usr/bin/python3" and os.path.exists("/usr/bin/python3"):
        os.execv("/usr/bin/python3", ["/usr/bin/python3"] + sys.argv)
    sys.stderr.write("check_export: numpy is not importable; install Debian's python3-numpy and run with /usr/bin/python3\n")
    sys.exit(2)


def correctly_rounded(text, real):
    """The dtype value nearest the exact decimal (ties to even), decided with fractions."""
    exact = Fraction(text)
    guess = real(float(exact))
    candidates = [np.nextafter(guess, real(-np.inf)), guess, np.nextafter(guess, real(np.inf))]
    def key(c):
        distance = abs(Fraction(float(c)) - exact) if np.isfinite(c) else Fraction(10) ** 400
        even = int(np.frombuffer(real(c).tobytes(), dtype=np.uint32 if real is np.float32 else np.uint64)[0]) & 1
        return (distance, even)
    return min(candidates, key=key)


def main():
    if len(sys.argv) != 5 or sys.argv[4] not in ("f32", "f64"):
        sys.stderr.write("usage: check_export.py GOLDEN_DIR NPY_DIR JSON_DIR f32|f64\n")
        return 2
    golden, npy_dir, json_dir, dtype = sys.argv[1:]
    real = np.float32 if dtype == "f32" else np.float64
    with open(os.path.join(npy_dir, "index.json")) as f:
        index = json.load(f)
    exported = {}
    problems = 0
    checked = 0
    for entry in index:
        path = entry["file"]
        if path not in exported:
            with open(os.path.join(json_dir, path)) as f:
                exported[path] = {c["id"]: c for c in json.load(f)["cases"]}
            with open(os.path.join(golden, path)) as f:
                exported[path + "#golden"] = {c["id"]: c for c in json.load(f)["cases"]}
        as_json = exported[path][entry["case"]]
        as_golden = exported[path + "#golden"][entry["case"]]
        for key in ("inputs", "outputs"):
            for name, meta in entry.get(key, {}).items():
                where = f"{path} case {entry['case']} {key} {name}"
                array = np.load(os.path.join(npy_dir, meta["path"]))
                want_dtype = np.int64 if meta["dtype"] == "i64" else real
                if array.dtype != want_dtype or list(array.shape) != meta["shape"]:
                    print(f"{where}: npy is {array.dtype} {list(array.shape)}, index says {meta['dtype']} {meta['shape']}")
                    problems += 1
                    continue
                from_json = np.array(as_json[key][name]["data"], dtype=want_dtype).reshape(array.shape)
                if not np.array_equal(array, from_json):
                    print(f"{where}: the npy and JSON exports differ")
                    problems += 1
                stored = as_golden[key][name]["data"]
                flat = array.reshape(-1)
                for e, text in enumerate(stored):
                    checked += 1
                    if meta["dtype"] == "i64":
                        ok = int(flat[e]) == int(text)
                    elif isinstance(text, str) and "x" in text:  # an exact binary64 input: one conversion
                        ok = flat[e] == real(float.fromhex(text))
                    else:
                        ok = flat[e] == correctly_rounded(text, real)
                    if not ok:
                        print(f"{where} element {e}: exported {flat[e]!r} is not {text} correctly rounded to {dtype}")
                        problems += 1
                        break
    # Coverage: every file of the manifest, every case, every tensor.
    with open(os.path.join(golden, "MANIFEST.json")) as f:
        manifest = json.load(f)
    indexed = {(e["file"], e["case"], key, name) for e in index for key in ("inputs", "outputs") for name in e.get(key, {})}
    for entry in manifest["files"]:
        with open(os.path.join(golden, entry["path"])) as f:
            for case in json.load(f)["cases"]:
                for key in ("inputs", "outputs"):
                    for name in case[key]:
                        if (entry["path"], case["id"], key, name) not in indexed:
                            print(f"{entry['path']} case {case['id']} {key} {name}: not in the export's index")
                            problems += 1
    print(f"check_export: {checked} values in {len(index)} cases, {problems} problems")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
