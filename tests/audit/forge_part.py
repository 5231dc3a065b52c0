#!/usr/bin/env python3
"""Rewrites an audit part's --json as a forger would: forge_part.py PART KIND.

    no_buckets     every bucket dropped, the coverage kept ("0 elements checked ... PASS")
    null_worst     the first bucket's worst_fraction made null under a max_fraction of 5
    huge_count     the first bucket's count made 2^64 - 1"""
import json
import sys

path, kind = sys.argv[1], sys.argv[2]
with open(path) as f:
    part = json.load(f)
if kind == "no_buckets":
    part["buckets"] = []
elif kind == "null_worst":
    part["buckets"][0]["worst_fraction"], part["buckets"][0]["max_fraction"] = None, 5
elif kind == "huge_count":
    part["buckets"][0]["count"] = 2**64 - 1
else:
    sys.exit(f"forge_part.py: unknown kind {kind}")
with open(path, "w") as f:
    json.dump(part, f)
