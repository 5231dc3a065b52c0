#!/usr/bin/env python3
"""Checks a `pecheck eval --format npy` file against the CSV of the same call: NumPy loads it as
little-endian float64 in C order with the expected shape, its header is padded to 64 bytes, and
every value equals the CSV's decimal read back (17 significant digits round-trip binary64).

usage: npy_matches_csv.py FILE.npy FILE.csv SHAPE   (SHAPE like 300,3,8)"""
import csv
import struct
import sys

import numpy as np


def main():
    npy_path, csv_path, shape_text = sys.argv[1:4]
    shape = tuple(int(d) for d in shape_text.split(","))
    a = np.load(npy_path)
    assert a.dtype == np.dtype("<f8"), a.dtype
    assert a.shape == shape, (a.shape, shape)
    with open(npy_path, "rb") as f:
        magic = f.read(10)
    assert magic[:8] == b"\x93NUMPY\x01\x00", magic
    (header_len,) = struct.unpack("<H", magic[8:10])
    assert (10 + header_len) % 64 == 0, header_len
    with open(csv_path, newline="") as f:
        rows = list(csv.reader(f))[1:]
    # The label column may itself hold commas (several position columns): the values are the last D fields.
    width = shape[-1]
    values = [float(v) for row in rows for v in row[-width:]]
    assert len(values) == a.size, (len(values), a.size)
    flat = a.reshape(-1)
    bad = [(k, flat[k], values[k]) for k in range(a.size) if flat[k] != values[k]]
    assert not bad, bad[:5]
    print(f"{npy_path}: {a.size} values match")


if __name__ == "__main__":
    main()
