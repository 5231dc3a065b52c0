#!/usr/bin/env python3
"""Tamper evidence of `pecheck golden verify`: one change to a copy of golden/, and what verify must say.

Usage: tamper_test.py PECHECK GOLDEN_DIR KIND   (tamper_test.py --list prints the kinds)

Each kind makes one change to a scratch copy of the tree, most of them with MANIFEST.json's SHA-256
brought up to date by hashlib (so that only the deeper checks can catch the change), runs
`pecheck golden verify --golden COPY` and checks the exit status (1: the tree fails, 2: unusable
input, 0: passes, with a note where one is due) and the lines that name the file and case. The
expected lines are written here by hand, never taken from pecheck.
"""
import hashlib
import json
import os
import shutil
import subprocess
import sys
import tempfile

FILE = "rope/llama2_7b.json"  # 10 cases p0, p1, p255, p256, p257, ... of rotate


def dump(value):
    """The layout regen writes (nlohmann's dump(1)); checked against the untouched files below."""
    return json.dumps(value, indent=1) + "\n"


class Tree:
    def __init__(self, root):
        self.root = root

    def path(self, rel):
        return os.path.join(self.root, rel)

    def read(self, rel):
        with open(self.path(rel), "rb") as f:
            return f.read()

    def write(self, rel, data):
        with open(self.path(rel), "wb") as f:
            f.write(data if isinstance(data, bytes) else data.encode())

    def load(self, rel):
        text = self.read(rel).decode()
        value = json.loads(text)
        # Structural edits below rewrite a file with dump(): it must be regen's layout, or every
        # test would also see a formatting note it did not ask for.
        assert dump(value) == text, f"{rel}: python's json.dumps(indent=1) no longer writes regen's layout"
        return value

    def manifest(self):
        return self.load("MANIFEST.json")

    def entry(self, manifest, rel):
        return next(e for e in manifest["files"] if e["path"] == rel)

    def rehash(self, rel, cases=None):
        """MANIFEST.json's hash (and count) of `rel` made to match the file as it now is."""
        m = self.manifest()
        e = self.entry(m, rel)
        e["sha256"] = hashlib.sha256(self.read(rel)).hexdigest()
        if cases is not None:
            e["cases"] = cases
        self.write("MANIFEST.json", dump(m))

    def edit_cases(self, rel, change):
        f = self.load(rel)
        change(f["cases"])
        self.write(rel, dump(f))
        self.rehash(rel, len(f["cases"]))

    def replace(self, rel, old, new, rehash=True):
        data = self.read(rel)
        assert data.count(old) >= 1, f"{rel}: {old!r} not found"
        self.write(rel, data.replace(old, new, 1))
        if rehash:
            self.rehash(rel)


def case(f, case_id):
    return next(c for c in f["cases"] if c["id"] == case_id)


def bump_last_digit(decimal):
    """The 46th significant digit of a stored output changed by one (1e-45 relative)."""
    mantissa, exponent = decimal.split("e")
    last = mantissa[-1]
    return mantissa[:-1] + ("8" if last == "9" else str(int(last) + 1)) + "e" + exponent


def output_value(t, rehash=True):
    f = t.load(FILE)
    y = case(f, "p256")["outputs"]["y"]["data"]
    y[0] = bump_last_digit(y[0])
    t.write(FILE, dump(f))
    if rehash:
        t.rehash(FILE)
    return 1, [f"{t.path(FILE)}: case p256: output y element 0: "]


def output_value_unhashed(t):
    code, lines = output_value(t, rehash=False)
    return code, lines + [f"{t.path(FILE)}: SHA-256 "]


def input_value(t):
    f = t.load(FILE)
    x = case(f, "p257")["inputs"]["x"]["data"]
    x[0] = "0x1p-1" if x[0] != "0x1p-1" else "0x1p-2"
    t.write(FILE, dump(f))
    t.rehash(FILE)
    return 1, [f"{t.path(FILE)}: case p257: input x element 0 is {x[0]}, the definition's is "]


def input_position(t):
    f = t.load(FILE)
    case(f, "p2147483647")["inputs"]["pos"]["data"][0] = 2147483646
    t.write(FILE, dump(f))
    t.rehash(FILE)
    return 1, [f"{t.path(FILE)}: case p2147483647: input pos element 0 is 2147483646, the definition's is 2147483647"]


def case_id(t):
    t.edit_cases(FILE, lambda cases: cases[3].update(id="p256b"))
    return 1, [f"{t.path(FILE)}: case p256 of the definitions is missing (case p256b is in its place)"]


def case_removed(t):
    t.edit_cases(FILE, lambda cases: cases.pop(3))
    return 1, [f"{t.path(FILE)}: case p256 of the definitions is missing (case p257 is in its place)"]


def case_added(t):
    def add(cases):
        extra = json.loads(json.dumps(cases[-1]))
        extra["id"] = "p_extra"
        cases.append(extra)
    t.edit_cases(FILE, add)
    return 1, [f"{t.path(FILE)}: case p_extra is not in the case definitions (11 cases, the definitions have 10)"]


def case_duplicated(t):
    t.edit_cases(FILE, lambda cases: cases.append(json.loads(json.dumps(cases[0]))))
    return 1, [f"{t.path(FILE)}: case id 'p0' appears twice"]


def case_reordered(t):
    t.edit_cases(FILE, lambda cases: cases.insert(0, cases.pop(1)))
    return 1, [f"{t.path(FILE)}: case p1 is out of order (the definitions have case p0 there)"]


def manifest_count(t):
    m = t.manifest()
    t.entry(m, FILE)["cases"] = 11
    t.write("MANIFEST.json", dump(m))
    return 1, [f"{t.path(FILE)}: 10 cases, MANIFEST.json says 11"]


def manifest_count_wraps(t):
    # 2^32 + 10: a 32-bit read would see the file's 10.
    m = t.manifest()
    t.entry(m, FILE)["cases"] = 4294967306
    t.write("MANIFEST.json", dump(m))
    return 2, [f"pecheck: {t.path('MANIFEST.json')}: files entry 'rope/llama2_7b.json': cases 4294967306 is not an integer from 0 to 2147483647"]


def file_added_unlisted(t):
    shutil.copy(t.path(FILE), t.path("rope/llama2_7b_copy.json"))
    return 1, [f"{t.path('rope/llama2_7b_copy.json')}: not in MANIFEST.json"]


def file_added_not_json(t):
    t.write("rope/notes.txt", "not a golden file\n")
    return 1, [f"{t.path('rope/notes.txt')}: not in MANIFEST.json"]


def file_added_listed(t):
    shutil.copy(t.path(FILE), t.path("rope/llama2_7b_copy.json"))
    m = t.manifest()
    m["files"].append({"path": "rope/llama2_7b_copy.json", "sha256": t.entry(m, FILE)["sha256"], "cases": 10})
    t.write("MANIFEST.json", dump(m))
    return 1, [f"{t.path('rope/llama2_7b_copy.json')}: no case set defines this file"]


def file_removed(t):
    os.remove(t.path(FILE))
    return 1, [f"{t.path(FILE)}: listed in MANIFEST.json, and missing"]


def file_removed_and_unlisted(t):
    os.remove(t.path(FILE))
    m = t.manifest()
    m["files"].remove(t.entry(m, FILE))
    t.write("MANIFEST.json", dump(m))
    return 1, [f"{t.path(FILE)}: no such file in MANIFEST.json"]


def file_renamed(t):
    os.rename(t.path(FILE), t.path("rope/llama2.json"))
    m = t.manifest()
    t.entry(m, FILE)["path"] = "rope/llama2.json"
    t.write("MANIFEST.json", dump(m))
    return 1, [f"{t.path('rope/llama2.json')}: no case set defines this file", f"{t.path(FILE)}: no such file in MANIFEST.json"]


def file_renamed_unlisted(t):
    os.rename(t.path(FILE), t.path("rope/llama2.json"))
    return 1, [f"{t.path(FILE)}: listed in MANIFEST.json, and missing", f"{t.path('rope/llama2.json')}: not in MANIFEST.json"]


def files_swapped(t):
    other = "rope/mistral_7b.json"
    a, b = t.read(FILE), t.read(other)
    t.write(FILE, b)
    t.write(other, a)
    t.rehash(FILE, 10)
    t.rehash(other, len(json.loads(a)["cases"]))
    return 1, [f"{t.path(FILE)}: op rotate spec ", f"{t.path(other)}: op rotate spec "]


def file_symlinked(t):
    # The same bytes through a link: its target could change without the tree's names changing.
    target = t.path("../elsewhere.json")
    shutil.move(t.path(FILE), target)
    os.symlink(target, t.path(FILE))
    return 1, [f"{t.path(FILE)}: a symbolic link: golden files are plain files, as regen writes them"]


def folder_symlinked(t):
    # The scheme's folder moved out of the tree and linked back: every listed file of it is named.
    target = t.path("../elsewhere")
    shutil.move(t.path("rope"), target)
    os.symlink(target, t.path("rope"))
    return 1, [f"{t.path(FILE)}: reached through the symbolic link {t.path('rope')}: golden folders are plain folders",
               f"{t.path('rope')}: a symbolic link, not in MANIFEST.json"]


def byte_order_mark(t):
    t.write(FILE, b"\xef\xbb\xbf" + t.read(FILE))
    t.rehash(FILE)
    return 1, [f"{t.path(FILE)}: starts with a UTF-8 byte order mark (byte 0)"]


def manifest_byte_order_mark(t):
    t.write("MANIFEST.json", b"\xef\xbb\xbf" + t.read("MANIFEST.json"))
    return 2, [f"pecheck: {t.path('MANIFEST.json')}: starts with a UTF-8 byte order mark (byte 0)"]


def nul_and_garbage(t):
    size = len(t.read(FILE))
    t.write(FILE, t.read(FILE) + b"\0{\"cases\": []}")
    t.rehash(FILE)
    return 1, [f"{t.path(FILE)}: has a NUL byte at byte {size}"]


def manifest_nul_and_garbage(t):
    size = len(t.read("MANIFEST.json"))
    t.write("MANIFEST.json", t.read("MANIFEST.json") + b"\0garbage")
    return 2, [f"pecheck: {t.path('MANIFEST.json')}: has a NUL byte at byte {size}"]


def comment_changed(t):
    f = t.load(FILE)
    f["comment"] = f["comment"] + " (checked)"
    t.write(FILE, dump(f))
    t.rehash(FILE)
    return 1, [f"{t.path(FILE)}: comment differs from the case definition's"]


def manifest_mpfr_differs(t):
    m = t.manifest()
    m["mpfr_version"] = "3.1.6"
    t.write("MANIFEST.json", dump(m))
    return 0, [f"note: {t.path('MANIFEST.json')} was computed with MPFR 3.1.6, this build runs MPFR "]


def manifest_mpfr_malformed(t):
    m = t.manifest()
    m["mpfr_version"] = "latest"
    t.write("MANIFEST.json", dump(m))
    return 2, [f"pecheck: {t.path('MANIFEST.json')}: mpfr_version 'latest' is not an MPFR version such as 4.2.0"]


def manifest_hash_spelling(t):
    m = t.manifest()
    t.entry(m, FILE)["sha256"] = t.entry(m, FILE)["sha256"].upper()
    t.write("MANIFEST.json", dump(m))
    return 2, [f"pecheck: {t.path('MANIFEST.json')}: files entry 'rope/llama2_7b.json': sha256 '"]


def reformatted(t):
    t.write(FILE, json.dumps(t.load(FILE), indent=4))
    t.rehash(FILE)
    return 0, [f"note: formatting differs from regen's output in {t.path(FILE)}; values identical"]


def keys_reordered(t):
    f = t.load(FILE)
    t.write(FILE, dump(dict(reversed(list(f.items())))))
    t.rehash(FILE)
    return 0, [f"note: formatting differs from regen's output in {t.path(FILE)}; values identical"]


def reformatted_unhashed(t):
    t.write(FILE, json.dumps(t.load(FILE), indent=4))
    return 1, [f"{t.path(FILE)}: SHA-256 "]


def manifest_reformatted(t):
    t.write("MANIFEST.json", json.dumps(t.manifest(), indent=2))
    return 0, [f"note: formatting differs from regen's output in {t.path('MANIFEST.json')}; entries identical"]


def replacing(rel, old, new, rehash, code, *lines):
    """A tamper that replaces the first `old` in `rel` by `new`; {T}, {F} and {M} in the lines stand
    for the copy's root and its paths of FILE and MANIFEST.json."""
    def tamper(t):
        t.replace(rel, old, new, rehash)
        return code, [line.format(T=t.root, F=t.path(FILE), M=t.path("MANIFEST.json")) for line in lines]
    return tamper


M, GEN = "MANIFEST.json", b'"generator": "pecheck 0.1.0"'
REPLACING = {
    "output_renamed": replacing(FILE, b'"outputs": {\n    "y": {', b'"outputs": {\n    "z": {', True, 1,
                                "{F}: case p0: output z [1, 2, 128] does not match the op's y [1, 2, 128]"),
    "figure_changed": replacing("figures/roformer_decay.txt", b"\n0 ", b"\n0  ", False, 1, "{T}/figures/roformer_decay.txt: differs from its recomputation"),
    # 2^32 + 256: a 32-bit read sees 256, the manifest's precision.
    "precision_bits_wraps": replacing(FILE, b'"precision_bits": 256', b'"precision_bits": 4294967552', True, 1,
                                      "{F}: precision_bits 4294967552 is not an integer from 53 to 65536"),
    "precision_bits_float": replacing(FILE, b'"precision_bits": 256', b'"precision_bits": 256.0', True, 1,
                                      "{F}: precision_bits 256.0 is not an integer from 53 to 65536"),
    "manifest_precision_bits_wraps": replacing(M, b'"precision_bits": 256', b'"precision_bits": 4294967552', False, 2,
                                               "pecheck: {M}: precision_bits 4294967552 is not an integer from 53 to 65536"),
    # nlohmann keeps the last "op": a reader that keeps the first sees another op.
    "repeated_key": replacing(FILE, b'"op": "rotate",', b'"op": "matrix", "op": "rotate",', True, 1, "{F}: key 'op' appears twice in one object"),
    "unknown_key": replacing(FILE, b'"op": "rotate",', b'"signed_off_by": "x", "op": "rotate",', True, 1, "{F}: unknown key 'signed_off_by'"),
    "file_generator_differs": replacing(FILE, GEN, b'"generator": "pecheck 0.0.9"', True, 0,
                                        "note: 1 golden file was written by another generator than this pecheck ",
                                        f"(the first: {FILE} by pecheck 0.0.9)"),
    "file_generator_malformed": replacing(FILE, GEN, b'"generator": "pecheck 0.1.0 (patched)"', True, 1,
                                          "{F}: generator 'pecheck 0.1.0 (patched)' is not 'pecheck X.Y.Z'"),
    "manifest_generator_differs": replacing(M, GEN, b'"generator": "pecheck 0.0.9"', False, 0, "note: {M} was written by pecheck 0.0.9, this is pecheck "),
    "manifest_generator_malformed": replacing(M, GEN, b'"generator": "pecheck"', False, 2, "pecheck: {M}: generator 'pecheck' is not 'pecheck X.Y.Z'"),
}


ORDER = """output_value output_value_unhashed output_renamed input_value input_position case_id case_removed case_added
case_duplicated case_reordered manifest_count manifest_count_wraps file_added_unlisted file_added_not_json
file_added_listed file_removed file_removed_and_unlisted file_renamed file_renamed_unlisted files_swapped
file_symlinked folder_symlinked figure_changed precision_bits_wraps precision_bits_float manifest_precision_bits_wraps byte_order_mark
manifest_byte_order_mark nul_and_garbage manifest_nul_and_garbage repeated_key unknown_key comment_changed
file_generator_differs file_generator_malformed manifest_generator_differs manifest_generator_malformed
manifest_mpfr_differs manifest_mpfr_malformed manifest_hash_spelling reformatted keys_reordered reformatted_unhashed
manifest_reformatted""".split()
TAMPERS = {kind: REPLACING.get(kind) or globals()[kind] for kind in ORDER}


def main():
    if sys.argv[1:] == ["--list"]:
        print("\n".join(TAMPERS))
        return 0
    pecheck, golden, kind = sys.argv[1:]
    with tempfile.TemporaryDirectory(prefix="pecheck_tamper_") as scratch:
        tree = Tree(os.path.join(scratch, "golden"))
        shutil.copytree(golden, tree.root, symlinks=True)
        code, expected = TAMPERS[kind](tree)
        run = subprocess.run([pecheck, "golden", "verify", "--golden", tree.root], capture_output=True, text=True)
        lines = (run.stdout + run.stderr).splitlines()
        failures = []
        if run.returncode != code:
            failures.append(f"exit status {run.returncode}, expected {code}")
        for want in expected:
            if not any(want in line for line in lines):
                failures.append(f"no line contains {want!r}")
        # Every line is a whole message: a file's, a note, the summary, or the one error line.
        for line in lines:
            if not line.startswith((tree.root, "note: ", "golden verify: ", "pecheck: ")):
                failures.append(f"line {line!r} is not a message of its own")
        if len(set(lines)) != len(lines):
            failures.append("a line is said twice")
        if code == 2 and run.stdout:
            failures.append("unusable input, but stdout is not empty")
        if code == 0 and not any(line.startswith("golden verify: every value") for line in lines):
            failures.append("no summary line that the tree verifies")
        if failures:
            print(f"tamper {kind}:\n  " + "\n  ".join(failures) + "\nverify said:\n" + run.stdout + run.stderr)
            return 1
        print(f"tamper {kind}: verify said what it must (exit {code}):\n" + run.stdout + run.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
