"""serve(fn): a function as a pecheck gate implementation speaking the wire protocol on stdin/stdout.

    def my_impl(op, spec, inputs):          # inputs: {name: array}, spec: canonical text
        if op != "rotate": raise Unsupported(op)
        return {"y": ...}                    # {name: array}, dtypes and shapes as asked

    serve(my_impl, name="my rope", ops=["rotate"])

Frames: one line of JSON, then exactly payload_bytes raw bytes (row-major, little-endian). Anything
written to stderr goes to the gate's log; stdout carries the protocol alone. See src/gate/README.md,
"The wire protocol". Arrays are NumPy's unless decode/encode say otherwise (pecheck.torch_io).
"""
import json
import sys
import traceback

from .layouts import LAYOUTS, InputWritten, Presented


class Unsupported(Exception):
    """Raise from fn for an op or spec it does not handle: the gate reports UNSUPPORTED, not FAIL."""


class WireError(Exception):
    """A request that is not a frame: the process cannot stay in step with the gate."""


# A payload is read in pieces of at most this many bytes: a buffered reader allocates a read's whole
# size up front, so one read of a lying payload_bytes (2^62) would end in MemoryError, not in the
# clean refusal below once the stream ends.
_READ_PIECE = 1 << 24

# The longest request line read: the gate's heads are tensor descriptions and the spec (at most 2^20
# characters under the gate's default --limit spec_length), so 16x that. A longer line (no newline
# in a stream of gigabytes) is refused before it is held.
MAX_LINE_BYTES = 1 << 24

# The largest payload a request may announce: the audit's largest call is 2^27 elements, 1 GiB at
# binary64 inputs; twice that. A count past it is refused before anything is read.
MAX_PAYLOAD_BYTES = 1 << 31


def _read_exactly(stream, size):
    """Up to size bytes from stream: fewer only where the stream ends first."""
    pieces, left = [], size
    while left > 0:
        piece = stream.read(min(left, _READ_PIECE))
        if not piece:
            break
        pieces.append(piece)
        left -= len(piece)
    return b"".join(pieces)


def read_frame(stream):
    """(head, payload) of the next frame on stream, or (None, b"") at the end of the stream."""
    line = stream.readline(MAX_LINE_BYTES + 1)
    if not line:
        return None, b""
    if len(line) > MAX_LINE_BYTES:
        raise WireError(f"the request line runs past {MAX_LINE_BYTES} bytes without a newline: {line[:80]!r}")
    try:
        head = json.loads(line)
    except (ValueError, RecursionError) as e:  # RecursionError: JSON nested deeper than Python's stack
        raise WireError(f"the request line is not JSON ({type(e).__name__}: {e}): {line[:80]!r}") from None
    if not isinstance(head, dict):
        raise WireError(f"the request line is not a JSON object: {line[:80]!r}")
    size = head.get("payload_bytes", 0)
    if not isinstance(size, int) or isinstance(size, bool) or size < 0:
        raise WireError(f"payload_bytes {size!r} is not a byte count")
    if size > MAX_PAYLOAD_BYTES:
        raise WireError(f"payload_bytes {size} is over the {MAX_PAYLOAD_BYTES} a request may carry")
    payload = _read_exactly(stream, size)
    if len(payload) != size:
        raise WireError(f"the request announces payload_bytes {size}, and the input ended after {len(payload)}")
    return head, payload


def write_frame(stream, head, payload=b""):
    """Writes head (payload_bytes set here) and payload as one frame, then flushes."""
    head["payload_bytes"] = len(payload)
    stream.write(json.dumps(head).encode() + b"\n" + payload)
    stream.flush()


def present(head, payload, decode, io):
    """Each input of the request as the function is handed it (pecheck.layouts.Presented), in order."""
    return [Presented(t["name"], decode(t, payload[t["offset"]:t["offset"] + t["nbytes"]]), t.get("layout", "contiguous"), io)
            for t in head["inputs"]]


def in_place_pairs(head, presented):
    """{output name: the input it is read from} for an in-place kernel: the k-th [T, H, D] output is
    the k-th [T, H, D] input (rotate's y is x, rotate_qk's q_out and k_out are q and k)."""
    outputs = [t["name"] for t in head["outputs"] if len(t["shape"]) == 3]
    return dict(zip(outputs, [p for p in presented if len(p.shape) == 3]))


def answer(fn, head, payload, decode, encode, io, inplace=False):
    """The answer frame (head, payload) to one request. After the call every input, and the memory
    around it, must hold what it held before: else the answer is an error naming what was written
    (an in-place kernel's outputs are read from its inputs, which it may write)."""
    reply = {"v": 1, "id": head.get("id")}
    try:
        presented = present(head, payload, decode, io)
        result = fn(head["op"], head["spec"], {p.name: p.view for p in presented})
        written = in_place_pairs(head, presented) if inplace else {}
        for p in presented:
            problem = p.change(io, view_may_change=any(p is q for q in written.values()))
            if problem:
                raise InputWritten(problem)
        if written:
            result = dict(result or {}, **{name: p.view for name, p in written.items()})
        out, body = [], b""
        for t in head["outputs"]:
            data = encode(t, result[t["name"]])
            out.append({"name": t["name"], "dtype": t["dtype"], "shape": t["shape"], "offset": len(body), "nbytes": len(data)})
            body += data
        reply.update(status="ok", outputs=out)
        return reply, body
    except Unsupported as e:
        reply.update(status="unsupported", message=str(e))
    except InputWritten as e:  # the function's answer may be right: the writing is the failure, said in words
        reply.update(status="error", message=str(e))
    except Exception as e:  # an error of the implementation: the gate reports it as that case's error
        traceback.print_exc(file=sys.stderr)
        reply.update(status="error", message=f"{type(e).__name__}: {e}")
    return reply, b""


def serve(fn, name="python implementation", ops=("rotate",), decode=None, encode=None, io=None, inplace=False):
    """Answers the gate's requests on stdin with fn(op, spec, inputs) until stdin ends.

    io: the array module (pecheck.np_io, the default, or pecheck.torch_io), whose decode(t, raw) ->
    array and encode(t, value) -> bytes convert one tensor (t: its wire description) unless decode
    or encode is given; it also presents the inputs in the gate's layouts (pecheck.layouts), all of
    which the hello offers. inplace: fn writes its [T, H, D] outputs into its [T, H, D] inputs, the
    k-th into the k-th, and they are read from there. A request that is not a frame ends the process
    with one line on stderr and status 2."""
    if io is None:
        from . import np_io  # here, not at import: `import pecheck` stays free of NumPy
        io = np_io
    decode, encode = decode or io.decode, encode or io.encode
    # sys.stdin/stdout looked up now, not at import: a caller may have replaced them.
    stdin, stdout = sys.stdin.buffer, sys.stdout.buffer
    while True:
        try:
            head, payload = read_frame(stdin)
        except WireError as e:
            print(f"pecheck.serve: {e}", file=sys.stderr)
            sys.exit(2)
        if head is None:
            return
        if head.get("op") == "hello":
            write_frame(stdout, {"v": 1, "status": "ok", "name": name, "ops": list(ops), "layouts": list(LAYOUTS)})
            continue
        write_frame(stdout, *answer(fn, head, payload, decode, encode, io, inplace))
