"""serve(fn): turns a function into a pecheck gate implementation speaking the wire protocol.

    def my_rope(op, spec, inputs):          # inputs: {name: numpy array}, spec: canonical text
        if op != "rotate": raise Unsupported(op)
        return {"y": ...}                    # {name: numpy array}, dtypes and shapes as asked

    serve(my_rope, name="my rope", ops=["rotate"])

Frames on stdin/stdout: one line of JSON, then exactly payload_bytes raw bytes (row-major,
little-endian). Anything written to stderr goes to the gate's log. See README, "The wire protocol".
serve(fn, decode=..., encode=...) swaps the NumPy conversions for others (torch_rope.py passes torch
tensors, bf16 included, which NumPy cannot hold).
"""
import json
import re
import sys
import traceback

import numpy as np

DTYPES = {"f64": np.float64, "f32": np.float32, "f16": np.float16, "i64": np.int64, "i32": np.int32}


class Unsupported(Exception):
    """Raise from fn for an op or spec it does not handle: the gate reports UNSUPPORTED."""


def spec_field(spec, key):
    """The text after key= in a canonical spec ("rope(dim=128, base=10000, ...)"), or None."""
    m = re.search(r"(?:^|[( ])" + re.escape(key) + r"=([^,()]+)", spec)
    return m.group(1) if m else None


def _read_frame(stream):
    line = stream.readline()
    if not line:
        return None, b""
    head = json.loads(line)
    payload = stream.read(int(head.get("payload_bytes", 0)))
    return head, payload


def _write_frame(stream, head, payload=b""):
    head["payload_bytes"] = len(payload)
    stream.write(json.dumps(head).encode() + b"\n" + payload)
    stream.flush()


def numpy_decode(t, raw):
    """The input tensor t (its wire description) from its raw bytes, as a NumPy array."""
    if t["dtype"] == "bf16":
        raise Unsupported("bf16 arrays: numpy has no bfloat16")
    return np.frombuffer(raw, dtype=DTYPES[t["dtype"]]).reshape(t["shape"])


def numpy_encode(t, value):
    """The raw bytes of output t from fn's value, converted to t's dtype and shape."""
    array = np.ascontiguousarray(value, dtype=DTYPES[t["dtype"]]).reshape(t["shape"])
    return array.astype(array.dtype.newbyteorder("<"), copy=False).tobytes()


def serve(fn, name="python implementation", ops=("rotate",), decode=numpy_decode, encode=numpy_encode):
    stdin, stdout = sys.stdin.buffer, sys.stdout.buffer
    while True:
        head, payload = _read_frame(stdin)
        if head is None:
            return
        if head.get("op") == "hello":
            _write_frame(stdout, {"v": 1, "status": "ok", "name": name, "ops": list(ops)})
            continue
        answer = {"v": 1, "id": head.get("id")}
        try:
            inputs = {}
            for t in head["inputs"]:
                inputs[t["name"]] = decode(t, payload[t["offset"]:t["offset"] + t["nbytes"]])
            result = fn(head["op"], head["spec"], inputs)
            out, body = [], b""
            for t in head["outputs"]:
                data = encode(t, result[t["name"]])
                out.append({"name": t["name"], "dtype": t["dtype"], "shape": t["shape"], "offset": len(body), "nbytes": len(data)})
                body += data
            answer.update(status="ok", outputs=out)
            _write_frame(stdout, answer, body)
        except Unsupported as e:
            answer.update(status="unsupported", message=str(e))
            _write_frame(stdout, answer)
        except Exception as e:  # an error of the implementation, reported as the case's error
            traceback.print_exc(file=sys.stderr)
            answer.update(status="error", message=f"{type(e).__name__}: {e}")
            _write_frame(stdout, answer)
