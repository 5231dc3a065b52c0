#!/usr/bin/env python3
"""check_fixture.py's checks for `pecheck spec from-gguf`: DIR/NAME.gguf (written by make_gguf.py) against DIR/NAME.expected.

    check_gguf.py PECHECK DIR NAME"""
import os
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
import check_fixture  # noqa: E402


def run(pecheck, directory, *args):
    """check_fixture's run with from-gguf and NAME.gguf for NAME.json."""
    args = [a[:-len(".json")] + ".gguf" if a.endswith(".json") else a for a in args]
    return subprocess.run([pecheck, "spec", "from-gguf", *args], cwd=directory, capture_output=True, text=True)


if __name__ == "__main__":
    check_fixture.run = run
    pecheck, directory, name = os.path.abspath(sys.argv[1]), sys.argv[2], sys.argv[3]
    sys.exit(0 if check_fixture.check(pecheck, directory, name) else 1)
