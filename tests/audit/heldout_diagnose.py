#!/usr/bin/python3
"""Runs `pecheck diagnose` on every held-out injected bug (tests/audit/heldout_bugs.py) and prints the
rate at which its sentence names the bug in words, beside how often the top-ranked variant fits
within the bound. A sentence names the bug when the bug's words are in it before its runner-up, and
it claims what it names: the top variant fits within the bound, or the outputs have NaN or infinite
elements (what the sentence then names). A "nearest" that fits nothing names no bug. Exits 1 when
the rate is below --min-rate.

usage: heldout_diagnose.py PECHECK [--min-rate PERCENT] [--jobs N] [--only FUNCTION ...]
"""
import argparse
import concurrent.futures
import json
import os
import re
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
SERVER = os.path.join(HERE, "..", "..", "examples", "python", "torch_rope.py")


def diagnose(pecheck, bug):
    """(sentence, top variant, its residual, non-finite elements, exit status) of one diagnose run."""
    with tempfile.NamedTemporaryFile(suffix=".json", delete=False) as f:
        path = f.name
    try:
        command = [pecheck, "diagnose", "--impl-cmd", f"/usr/bin/python3 {SERVER} --device cpu {HERE}/heldout_bugs.py:{bug.function}",
                   "--spec", bug.spec, "--json", path]
        run = subprocess.run(command, capture_output=True, text=True, timeout=300)
        try:
            d = json.load(open(path))
        except ValueError:
            return (run.stdout.strip().splitlines() or ["(no output)"])[-1], "none", float("inf"), 0, run.returncode
        top = d["ranking"][0] if d["ranking"] else {"name": "none", "residual": "inf"}
        return d["sentence"], top["name"], float(top["residual"]), d["non_finite"], run.returncode
    finally:
        os.unlink(path)


def main():
    p = argparse.ArgumentParser()
    p.add_argument("pecheck")
    p.add_argument("--min-rate", type=float, default=0.0, help="fail below this percentage")
    p.add_argument("--jobs", type=int, default=2)
    p.add_argument("--only", nargs="*", help="only these functions")
    args = p.parse_args()
    try:
        from heldout_bugs import BUGS
    except ImportError as e:
        print(f"torch does not import ({e}): skipped")
        return 77
    bugs = [b for b in BUGS if not args.only or b.function in args.only]
    with concurrent.futures.ThreadPoolExecutor(max_workers=args.jobs) as pool:
        results = list(pool.map(lambda b: diagnose(args.pecheck, b), bugs))
    named = fitted = 0
    for bug, (sentence, top, residual, non_finite, status) in zip(bugs, results):
        claimed = sentence.split("; runner-up:")[0]
        hit = status == 1 and (residual <= 1 or non_finite > 0) and re.search(bug.words, claimed, re.IGNORECASE) is not None
        named += hit
        fitted += residual <= 1
        print(f"{'named' if hit else 'MISSED':6} {bug.function} ({bug.bug}; top {top}, residual {residual:.3g}): {sentence}")
    rate = 100.0 * named / len(bugs)
    print(f"held-out injected bugs named in words: {named} of {len(bugs)} ({rate:.1f} %); "
          f"top-ranked variant within the bound: {fitted} of {len(bugs)}")
    return 0 if rate >= args.min_rate else 1


if __name__ == "__main__":
    sys.exit(main())
