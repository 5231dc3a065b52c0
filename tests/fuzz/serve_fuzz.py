#!/usr/bin/python3
"""The implementation's side of the wire fuzzed: mutated request streams fed to pecheck.serve's frame
reader and answer (python/pecheck/wire.py), in process, with a fixed seed.

Usage: serve_fuzz.py [ITERATIONS] [SEED]

Properties: read_frame returns frames or raises WireError (the one clean refusal: serve then exits 2
with one line), never another exception and never MemoryError for a lying payload_bytes; answer()
always returns a JSON-serialisable reply head and bytes, whatever the head holds. Streams are read
through io.BufferedReader, which (like a pipe's reader) would allocate a read's whole size up front.
Mutations: byte flips, inserts, deletes, truncation, duplicated frames, and JSON fields replaced by
values of other types or out of range (payload_bytes 2^62, offsets past the payload, shapes that
do not match, unknown dtypes and layouts), lines with no newline past the line limit (lowered here to 4 KiB so
that a stream crosses it in microseconds) and JSON nested up to 10^5 deep."""
import io
import json
import os
import random
import struct
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "python"))
from pecheck import np_io  # noqa: E402
from pecheck import wire  # noqa: E402
from pecheck.layouts import LAYOUTS  # noqa: E402
from pecheck.wire import WireError, answer, read_frame  # noqa: E402

wire.MAX_LINE_BYTES = 4096

iterations = int(sys.argv[1]) if len(sys.argv) > 1 else 20000
rng = random.Random(int(sys.argv[2]) if len(sys.argv) > 2 else 20261203)


def frame(head, payload=b""):
    head = dict(head, payload_bytes=len(payload))
    return json.dumps(head).encode() + b"\n" + payload


def valid_stream():
    """hello, then one rotate request as the gate sends it: x [T, 1, 4] f32 in one of the layouts, and pos [T] i64."""
    t = rng.randint(0, 3)
    x = struct.pack(f"<{4 * t}f", *[rng.uniform(-2, 2) for _ in range(4 * t)])
    pos = struct.pack(f"<{t}q", *range(t))
    rotate = {"v": 1, "id": rng.randint(1, 9), "op": "rotate", "spec": "rope(dim=4)",
              "inputs": [{"name": "x", "dtype": "f32", "shape": [t, 1, 4], "offset": 0, "nbytes": len(x), "layout": rng.choice(LAYOUTS)},
                         {"name": "pos", "dtype": "i64", "shape": [t], "offset": len(x), "nbytes": len(pos)}],
              "outputs": [{"name": "y", "dtype": "f32", "shape": [t, 1, 4]}]}
    return [{"v": 1, "op": "hello"}, (rotate, x + pos)]


ODD_VALUES = [None, True, -1, 1.5, 2 ** 62, -(2 ** 63), "x", [], {}, [1, -2], "f64", "bf16", "i8", 1e300, "transposed", "packed_qkv"]


def mutate_head(head):
    head = json.loads(json.dumps(head))
    targets = [head] + head.get("inputs", []) + head.get("outputs", [])
    target = rng.choice(targets)
    key = rng.choice(list(target) + ["payload_bytes", "shape", "offset", "nbytes", "dtype", "inputs", "outputs", "op", "layout"])
    if rng.random() < 0.2:
        target.pop(key, None)
    else:
        target[key] = rng.choice(ODD_VALUES)
    return head


def stream_bytes():
    parts = []
    for item in valid_stream():
        head, payload = item if isinstance(item, tuple) else (item, b"")
        if rng.random() < 0.5:
            head = mutate_head(head)
        data = frame(head, payload)
        if "payload_bytes" in head and rng.random() < 0.3:  # the head's own (lying) count
            data = json.dumps(head).encode() + b"\n" + payload
        parts.append(data)
    odd = rng.random()
    if odd < 0.03:  # a line that never ends, or ends past the limit
        parts.insert(rng.randrange(len(parts) + 1), (rng.choice([b"[", b"{", b" ", b"a0"]) * 9000)[:rng.randint(4000, 9000)])
    elif odd < 0.06:  # nesting past Python's recursion limit, or just under it
        depth = rng.choice([900, 1100, 100000])
        parts.insert(rng.randrange(len(parts) + 1), rng.choice([b"[", b'{"a":']) * depth + b"\n")
    data = bytearray(b"".join(parts * rng.randint(1, 2)))
    for _ in range(rng.randint(0, 4)):
        kind = rng.random()
        at = rng.randrange(len(data) + 1)
        if kind < 0.4 and data:
            data[min(at, len(data) - 1)] = rng.randrange(256)
        elif kind < 0.6:
            data[at:at] = bytes(rng.randrange(256) for _ in range(rng.randint(1, 8)))
        elif kind < 0.8:
            del data[at:at + rng.randint(1, 8)]
        else:
            del data[at:]
    return bytes(data)


def implementation(op, spec, inputs):
    """A stand-in that answers rotate with x itself (the values do not matter here)."""
    return {"y": inputs["x"]}


class bounded_lines(io.BufferedReader):
    """The reader, holding read_frame to its line limit: a readline without one is a finding."""

    def readline(self, limit=-1):
        if limit < 0 or limit > wire.MAX_LINE_BYTES + 1:
            raise AssertionError(f"readline({limit}): a line read without the {wire.MAX_LINE_BYTES}-byte limit")
        return super().readline(limit)


def check(data):
    stream = bounded_lines(io.BytesIO(data))
    for _ in range(16):
        try:
            head, payload = read_frame(stream)
        except WireError as e:
            if "\n" in str(e):
                raise AssertionError(f"WireError message spans lines: {e!r}")
            return
        if head is None:
            return
        reply, body = answer(implementation, head, payload, np_io.decode, np_io.encode, np_io)
        json.dumps(reply)
        assert isinstance(body, bytes)


def main():
    stderr = sys.stderr
    sys.stderr = io.StringIO()  # answer() logs the implementation's tracebacks: noise here
    try:
        for n in range(iterations):
            data = stream_bytes()
            try:
                check(data)
            except Exception as e:  # noqa: BLE001: any other exception is a finding
                sys.stderr = stderr
                print(f"serve_fuzz: finding at iteration {n}: {type(e).__name__}: {e}\ninput: {data[:400]!r}")
                return 1
            sys.stderr.seek(0)
            sys.stderr.truncate()
    finally:
        sys.stderr = stderr
    print(f"serve_fuzz: {iterations} streams, no finding")
    return 0


sys.exit(main())
