#!/usr/bin/python3
"""Wrong implementations over the wire protocol, one per mode (argv[1]), for the gate's own test:
sign_flipped (a numerical bug), exits (dies mid-call), hangs, garbage (an answer that is not a
frame), wrong_shape (an output of the wrong shape), no_hello (never answers hello), attend_unscaled
(attention scores not divided by sqrt(D); every other mode answers rotate only), declines_one_token
(sign flipped, and unsupported on one-token calls: declining some cases must not hide a failure
on the others), unknown_layout (a hello offering a layout the protocol does not name)."""
import os
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "examples", "python"))
import numpy_rope  # noqa: E402
import numpy as np  # noqa: E402
from pecheck_serve import Unsupported, _read_frame, _write_frame, serve  # noqa: E402

mode = sys.argv[1]
if mode == "garbage":  # each start, for the test that counts them (gate.wire_protocol_break_ends_its_check)
    print("wire mutant garbage: started", file=sys.stderr, flush=True)


def mutant(op, spec, inputs):
    if mode == "attend_unscaled" and op == "attend":  # scores not divided by sqrt(D)
        scaled = dict(inputs, q=inputs["q"] * np.float32(np.sqrt(inputs["q"].shape[2])))
        return numpy_rope.rope(op, spec, scaled)
    if op != "rotate":
        raise Unsupported(op)
    if mode == "declines_one_token" and inputs["x"].shape[0] == 1:  # RapidCheck's first, smallest cases
        raise Unsupported("one token")
    if mode == "exits" and int(inputs["pos"].max()) > 1000:
        os._exit(3)
    if mode == "hangs" and 257 in inputs["pos"]:
        time.sleep(3600)
    if mode == "garbage":
        sys.stdout.buffer.write(b"this is not a frame\n")
        sys.stdout.buffer.flush()
    result = numpy_rope.rope(op, spec, inputs)
    if mode in ("sign_flipped", "declines_one_token"):
        flipped = dict(inputs, pos=-inputs["pos"])
        result = numpy_rope.rope(op, spec, flipped)
    return result


def wrong_shape():
    """Answers every request by hand with a y of shape [1] (serve() itself would refuse to)."""
    while True:
        head, _ = _read_frame(sys.stdin.buffer)
        if head is None:
            return
        if head.get("op") == "hello":
            _write_frame(sys.stdout.buffer, {"v": 1, "status": "ok", "name": "wire mutant wrong_shape", "ops": ["rotate"]})
            continue
        out = [{"name": "y", "dtype": "f32", "shape": [1], "offset": 0, "nbytes": 4}]
        _write_frame(sys.stdout.buffer, {"v": 1, "id": head["id"], "status": "ok", "outputs": out}, b"\0\0\0\0")


if mode == "no_hello":
    sys.exit(0)
if mode == "unknown_layout":  # a hello offering a layout the wire protocol does not name
    _read_frame(sys.stdin.buffer)
    _write_frame(sys.stdout.buffer, {"v": 1, "status": "ok", "name": "wire mutant unknown_layout", "ops": ["rotate"],
                                     "layouts": ["contiguous", "diagonal"]})
    sys.exit(0)
if mode == "wrong_shape":
    wrong_shape()
    sys.exit(0)
serve(mutant, name=f"wire mutant {mode}", ops=["rotate", "attend"] if mode == "attend_unscaled" else ["rotate"])
