#!/usr/bin/python3
"""Checks `pecheck golden export`: the .npy files load with numpy, equal the JSON export, and
sit within one ulp of the dtype of every golden value (one correct rounding of the decimal).

usage: check_export.py GOLDEN_DIR NPY_DIR JSON_DIR DTYPE
"""
import json
import os
import sys

try:
    import numpy as np
except ImportError:
    if sys.executable != "/usr/bin/python3" and os.path.exists("/usr/bin/python3"):
        os.execv("/usr/bin/python3", ["/usr/bin/python3"] + sys.argv)
    sys.stderr.write("check_export: numpy is not importable; install Debian's python3-numpy and run with /usr/bin/python3\n")
    sys.exit(2)


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
                    else:
                        exact = float.fromhex(text) if isinstance(text, str) and "x" in text else float(text)
                        ok = abs(float(flat[e]) - exact) <= float(np.spacing(real(abs(exact))))
                    if not ok:
                        print(f"{where} element {e}: exported {flat[e]!r} is not within one ulp of {text}")
                        problems += 1
                        break
    print(f"check_export: {checked} values in {len(index)} cases, {problems} problems")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
