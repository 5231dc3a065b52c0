"""pecheck.wire: frames read and written, and serve's answers (ok, unsupported, error, a broken request)."""
import io
import json
import struct
import types

import pytest

import numpy as np
from pecheck import LAYOUTS, Unsupported, WireError, np_io, read_frame, serve
from pecheck.layouts import Presented


def frame(head, payload=b""):
    return json.dumps(dict(head, payload_bytes=len(payload))).encode() + b"\n" + payload


def test_a_frame_and_then_the_end():
    stream = io.BytesIO(frame({"op": "x"}, b"abcd"))
    head, payload = read_frame(stream)
    assert (head["op"], payload) == ("x", b"abcd")
    assert read_frame(stream) == (None, b"")


@pytest.mark.parametrize("data, message", [
    (b"this is not a frame\n", "the request line is not JSON"),
    (b"[1, 2]\n", "not a JSON object"),
    (b'{"payload_bytes": 8}\nabcd', "announces payload_bytes 8, and the input ended after 4"),
    (b'{"payload_bytes": -1}\n', "payload_bytes -1 is not a byte count"),
    (b'{"payload_bytes": 1.5}\n', "payload_bytes 1.5 is not a byte count"),
    (b'{"payload_bytes": 2147483649}\n', "payload_bytes 2147483649 is over the 2147483648 a request may carry"),
    (b"[" * 100000 + b"]" * 100000 + b"\n", r"not JSON \(RecursionError"),
], ids=["not JSON", "not an object", "short payload", "negative payload_bytes", "real payload_bytes", "payload_bytes over the cap",
        "JSON 10^5 deep"])
def test_a_broken_request_is_named(data, message):
    with pytest.raises(WireError, match=message):
        read_frame(io.BytesIO(data))


def run_serve(monkeypatch, fn, requests):
    """The answers serve(fn) writes to the requests: [(head, payload)]."""
    out = io.BytesIO()
    monkeypatch.setattr("sys.stdin", types.SimpleNamespace(buffer=io.BytesIO(requests)))
    monkeypatch.setattr("sys.stdout", types.SimpleNamespace(buffer=out))
    serve(fn, name="doubler", ops=["rotate"])
    out.seek(0)
    answers = []
    while True:
        head, payload = read_frame(out)
        if head is None:
            return answers
        answers.append((head, payload))


def request(id, op="rotate"):
    x = struct.pack("<3f", 1.0, -2.5, 0.125)
    inputs = [{"name": "x", "dtype": "f32", "shape": [3], "offset": 0, "nbytes": 12}]
    outputs = [{"name": "y", "dtype": "f32", "shape": [3]}]
    return frame({"v": 1, "id": id, "op": op, "spec": "rope(dim=2)", "inputs": inputs, "outputs": outputs}, x)


def doubler(op, spec, inputs):
    if op == "attend":
        raise Unsupported("attend: not here")
    if op == "inv_freq":
        raise KeyError("no inv_freq")
    return {"y": inputs["x"] * 2}


def test_serve_answers_hello_ok_unsupported_and_error(monkeypatch, capsys):
    answers = run_serve(monkeypatch, doubler, frame({"v": 1, "op": "hello"}) + request(1) + request(2, "attend") + request(3, "inv_freq"))
    (hello, _), (ok, y), (unsupported, _), (error, _) = answers
    assert (hello["status"], hello["name"], hello["ops"]) == ("ok", "doubler", ["rotate"])
    assert (ok["id"], ok["status"], ok["outputs"][0]["nbytes"]) == (1, "ok", 12)
    assert y == struct.pack("<3f", 2.0, -5.0, 0.25)
    assert (unsupported["id"], unsupported["status"], unsupported["message"]) == (2, "unsupported", "attend: not here")
    assert (error["id"], error["status"], error["message"]) == (3, "error", "KeyError: 'no inv_freq'")
    assert "KeyError" in capsys.readouterr().err  # the traceback goes to the gate's log


def test_serve_stops_on_a_broken_request_with_one_line(monkeypatch, capsys):
    with pytest.raises(SystemExit) as stop:
        run_serve(monkeypatch, doubler, request(1)[:-4])
    assert stop.value.code == 2
    assert capsys.readouterr().err == "pecheck.serve: the request announces payload_bytes 12, and the input ended after 8\n"


class endless_line:
    """A stream of zero bytes that never ends and never holds a newline, counting what is read."""

    def __init__(self):
        self.read_bytes = 0

    def readline(self, limit=-1):
        assert limit > 0, "readline without a limit would never return"
        self.read_bytes += limit
        return b"\0" * limit


def test_a_line_without_end_is_refused_after_its_limit():
    stream = endless_line()
    with pytest.raises(WireError, match="runs past 16777216 bytes without a newline"):
        read_frame(stream)
    assert stream.read_bytes == (1 << 24) + 1


def test_deep_json_ends_serve_with_one_line(monkeypatch, capsys):
    with pytest.raises(SystemExit) as stop:
        run_serve(monkeypatch, doubler, b"[" * 100000 + b"\n")
    assert stop.value.code == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and err.startswith("pecheck.serve: the request line is not JSON (RecursionError")


@pytest.mark.parametrize("layout", LAYOUTS[1:])
def test_each_layout_hands_the_values_in_other_memory_and_names_a_write(layout):
    value = np.arange(24, dtype=np.float32).reshape(2, 3, 4)
    x = Presented("x", value.copy(), layout, np_io)
    assert np.array_equal(x.view, value) and not x.view.flags.c_contiguous and x.change(np_io, view_may_change=False) is None
    x.view[1, 2, 3] = -1
    assert x.change(np_io, view_may_change=False) == (f"wrote into its input x (layout {layout}): x[1, 2, 3] was 23.0, is now -1.0 "
                                                      "(a kernel that works in place is served with inplace=True, python -m pecheck --inplace: "
                                                      "its output is then read from its input)")
    assert x.change(np_io, view_may_change=True) is None  # an in-place kernel's output
    if layout != "transposed":  # the others have memory around the view, holding NaN
        x.buffer[-1, -1, -1] = 0
        assert x.change(np_io, view_may_change=True).startswith(f"wrote into the memory around its input x (layout {layout}): element [1, ")


def test_a_request_in_a_layout_is_served_and_a_written_input_is_an_error(monkeypatch):
    def in_place(op, spec, inputs):
        inputs["x"] *= 2
        return {"y": inputs["x"]}

    def seen(op, spec, inputs):
        assert inputs["x"].strides == (4, 8, 4)  # x [T, H, D] = [2, 1, 1] over a row-major [H, T, D] buffer
        return doubler(op, spec, inputs)

    x = struct.pack("<2f", 1.0, -2.5)
    head = {"v": 1, "id": 1, "op": "rotate", "spec": "rope(dim=2)", "outputs": [{"name": "y", "dtype": "f32", "shape": [2, 1, 1]}],
            "inputs": [{"name": "x", "dtype": "f32", "shape": [2, 1, 1], "offset": 0, "nbytes": 8, "layout": "transposed"}]}
    (ok, y), = run_serve(monkeypatch, seen, frame(head, x))
    assert ok["status"] == "ok" and y == struct.pack("<2f", 2.0, -5.0)
    (error, _), = run_serve(monkeypatch, in_place, request(1))
    assert (error["status"], error["message"][:38]) == ("error", "wrote into its input x: x[0] was 1.0, ")
    head["inputs"][0]["layout"] = "diagonal"
    (error, _), = run_serve(monkeypatch, doubler, frame(head, x))
    assert (error["status"], error["message"]) == ("error", "ValueError: input x: layout 'diagonal' is none of contiguous, padded_heads, transposed, packed_qkv")
