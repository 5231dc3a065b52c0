#!/usr/bin/env python3
"""Runs `pecheck spec from-hf` on config fixtures and compares with their hand-written expected output.

    check_fixture.py PECHECK DIR NAME      one fixture: DIR/NAME.json against DIR/NAME.expected
    check_fixture.py PECHECK DIR --count N  at least N real-model fixtures (names not starting with error_)

An expected file whose first line starts with "pecheck: " is an error: exit status 2, nothing on
stdout, that one line on stderr. Otherwise exit status 0, nothing on stderr, stdout equal to the
file; and --format json must carry the same entries (comments, notes, scheme names). The command
runs in DIR with the file's bare name, so messages name it as the expected files do."""
import difflib
import json
import os
import subprocess
import sys


def run(pecheck, directory, *args):
    return subprocess.run([pecheck, "spec", "from-hf", *args], cwd=directory, capture_output=True, text=True)


def text_entries(text):
    """(comment, notes, scheme) per blank-line separated block of the text output."""
    entries = []
    for block in text.strip("\n").split("\n\n"):
        lines = block.split("\n")
        notes = [l[len("#   "):] for l in lines if l.startswith("#   ")]
        entries.append((lines[0][len("# "):], notes, lines[-1].split("(")[0]))
    return entries


def check(pecheck, directory, name):
    expected = open(os.path.join(directory, name + ".expected")).read()
    got = run(pecheck, directory, name + ".json")
    problems = []
    if expected.startswith("pecheck: "):
        if got.returncode != 2:
            problems.append(f"exit status {got.returncode}, expected 2")
        if got.stdout:
            problems.append(f"stdout not empty: {got.stdout[:200]!r}")
        actual = got.stderr
    else:
        if got.returncode != 0:
            problems.append(f"exit status {got.returncode}, expected 0; stderr: {got.stderr.strip()}")
        if got.stderr:
            problems.append(f"stderr not empty: {got.stderr[:200]!r}")
        actual = got.stdout
        as_json = run(pecheck, directory, name + ".json", "--format", "json")
        try:
            entries = [(e["comment"], e["notes"], e["spec"]["scheme"]) for e in json.loads(as_json.stdout)]
            if entries != text_entries(expected):
                problems.append(f"--format json entries {entries} differ from the text's {text_entries(expected)}")
        except (ValueError, KeyError, TypeError) as e:
            problems.append(f"--format json is not the expected array: {e}: {as_json.stdout[:200]!r}")
    if actual != expected:
        diff = difflib.unified_diff(expected.splitlines(), actual.splitlines(), "expected", "pecheck", lineterm="")
        problems.append("output differs:\n" + "\n".join(diff))
    for p in problems:
        print(f"{name}: {p}")
    if not problems:
        print(f"{name}: as expected")
    return not problems


def main():
    pecheck, directory, what = os.path.abspath(sys.argv[1]), sys.argv[2], sys.argv[3]
    if what == "--count":
        real = sorted(f[:-len(".json")] for f in os.listdir(directory) if f.endswith(".json") and not f.startswith("error_"))
        missing = [n for n in real if not os.path.exists(os.path.join(directory, n + ".expected"))]
        print(f"{len(real)} real-model fixtures: {', '.join(real)}")
        if missing:
            print(f"without an expected file: {', '.join(missing)}")
        sys.exit(0 if len(real) >= int(sys.argv[4]) and not missing else 1)
    sys.exit(0 if check(pecheck, directory, what) else 1)


if __name__ == "__main__":
    main()
