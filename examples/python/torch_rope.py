#!/usr/bin/python3
"""Puts a user's PyTorch RoPE function through `pecheck gate --impl-cmd` (the wire protocol).

    pecheck gate --impl-cmd '/usr/bin/python3 examples/python/torch_rope.py examples/python/hf_style_rope.py:rope' \\
        --spec 'rope(dim=128, layout=neox)' --dtype bf16

usage: torch_rope.py [--device cpu|cuda] MODULE:FUNCTION | PATH/TO/FILE.py:FUNCTION
The function is called once per case, under torch.no_grad(), as fn(x, pos, spec) -> y:
  x     a torch tensor [T, H, D] of the gate's --dtype (float32, float16 or bfloat16, never upcast)
  pos   an int64 tensor [T], the tokens' positions; both on the device
  spec  a RopeSpec: text, dim, base, rotary_dim, layout ("neox" or "gptj"), truncate_low, and
        scaling and freqs (their canonical text, or None); fields has every field's text
y must be a tensor of x's dtype and shape, on any device; anything else is that call's error.
Raise pecheck_serve.Unsupported for a spec the function does not handle: the gate reports it
UNSUPPORTED, never FAIL. The device is cuda when torch.cuda.is_available(), else cpu; --device or
PECHECK_TORCH_DEVICE forces one. Only rope(...) specs' rotate is served.
"""
import dataclasses
import importlib
import importlib.util
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from pecheck_serve import Unsupported, serve  # noqa: E402

PROG = "torch_rope.py"


def die(message):
    """Bad usage: one line on stderr and exit 2. It comes before hello, so the gate stops there."""
    print(f"{PROG}: {message}", file=sys.stderr)
    sys.exit(2)


try:
    import torch
except ImportError as e:
    die(f"cannot import torch ({e}); on Debian: apt-get install python3-torch")

# The wire's element types; bf16 arrives as raw 16-bit words, which torch reads as bfloat16 directly.
TORCH_DTYPES = {"f64": torch.float64, "f32": torch.float32, "f16": torch.float16, "bf16": torch.bfloat16,
                "i64": torch.int64, "i32": torch.int32}


class BadOutput(Exception):
    """fn returned something other than a tensor of the asked dtype and shape."""


@dataclasses.dataclass(frozen=True)
class RopeSpec:
    text: str
    dim: int
    base: float
    rotary_dim: int
    layout: str
    truncate_low: float
    scaling: str | None
    freqs: str | None
    fields: dict


def spec_fields(text):
    """{key: value text} of a canonical spec's own fields; nested specs and lists stay whole."""
    inner = text[text.index("(") + 1:text.rindex(")")]
    fields, depth, start = {}, 0, 0
    for i, c in enumerate(inner + ","):
        depth += (c in "([") - (c in ")]")
        if c == "," and depth == 0:
            key, _, value = inner[start:i].strip().partition("=")
            if key:
                fields[key] = value
            start = i + 1
    return fields


def rope_spec(text):
    f = spec_fields(text)
    return RopeSpec(text=text, dim=int(f["dim"]), base=float(f["base"]), rotary_dim=int(f["rotary_dim"]), layout=f["layout"],
                    truncate_low=float(f.get("truncate_low", 0)), scaling=f.get("scaling"), freqs=f.get("freqs"), fields=f)


def load(target):
    """The function named by MODULE:FUNCTION or PATH/TO/FILE.py:FUNCTION."""
    where, _, name = target.rpartition(":")
    if not where or not name:
        die(f"name the function as MODULE:FUNCTION or PATH/TO/FILE.py:FUNCTION, not '{target}'")
    try:
        if where.endswith(".py") or os.sep in where:
            if not os.path.isfile(where):
                die(f"no file {where}")
            sys.path.insert(0, os.path.dirname(os.path.abspath(where)))  # so the file imports its neighbours
            spec = importlib.util.spec_from_file_location(os.path.splitext(os.path.basename(where))[0], where)
            module = importlib.util.module_from_spec(spec)
            spec.loader.exec_module(module)
        else:
            sys.path.insert(0, os.getcwd())  # a script's sys.path starts at its own directory, not the caller's
            module = importlib.import_module(where)
    except Exception as e:  # the user's module failed to import: say why in one line
        die(f"cannot import {where}: {type(e).__name__}: {e}")
    fn = getattr(module, name, None)
    if not callable(fn):
        die(f"{where} has no function {name}")
    return fn


def device_from(args):
    """--device DEV or PECHECK_TORCH_DEVICE, else cuda when available; the rest of args."""
    device = os.environ.get("PECHECK_TORCH_DEVICE")
    if len(args) >= 2 and args[0] == "--device":
        device, args = args[1], args[2:]
    if device is None:
        device = "cuda" if torch.cuda.is_available() else "cpu"
    if device not in ("cpu", "cuda"):
        die(f"device '{device}': use cpu or cuda")
    if device == "cuda" and not torch.cuda.is_available():
        die("device cuda, but torch.cuda.is_available() is false")
    return device, args


def serve_rope(fn, label, device):
    """Serves fn(x, pos, spec) -> y as the gate's rotate, tensors on device."""

    def decode(t, raw):
        # frombuffer reads the host's byte order, and the wire's is little-endian; bytearray: a
        # writable copy, so fn may work in place.
        values = torch.frombuffer(bytearray(raw), dtype=TORCH_DTYPES[t["dtype"]]) if raw else torch.empty(0, dtype=TORCH_DTYPES[t["dtype"]])
        return values.reshape(t["shape"]).to(device)

    def encode(t, y):
        want, shape = TORCH_DTYPES[t["dtype"]], list(t["shape"])
        if not isinstance(y, torch.Tensor):
            raise BadOutput(f"{label} returned {type(y).__name__}, not a tensor {want} {shape}")
        if y.dtype != want or list(y.shape) != shape:
            raise BadOutput(f"{label} returned {y.dtype} {list(y.shape)}, not {want} {shape} (x's dtype and shape)")
        # Bytes as uint8 words: NumPy, which tobytes goes through, has no bfloat16.
        return y.detach().cpu().contiguous().reshape(-1).view(torch.uint8).numpy().tobytes()

    def rotate(op, text, inputs):
        if op != "rotate" or not text.startswith("rope("):
            raise Unsupported(f"{op} of {text.partition('(')[0]}: {PROG} serves rotate of rope(...) only")
        if set(inputs) != {"x", "pos"}:
            raise Unsupported(f"inputs {sorted(inputs)}: {PROG} passes x and pos only")
        with torch.no_grad():
            return {"y": fn(inputs["x"], inputs["pos"], rope_spec(text))}

    serve(rotate, name=f"{label} (PyTorch {torch.__version__} on {device})", ops=["rotate"], decode=decode, encode=encode)


def main(args):
    if sys.byteorder != "little":
        die("the wire's tensors are little-endian and torch.frombuffer reads this host's order, which is not")
    device, args = device_from(args)
    if len(args) != 1:
        die("usage: torch_rope.py [--device cpu|cuda] MODULE:FUNCTION | PATH/TO/FILE.py:FUNCTION")
    serve_rope(load(args[0]), os.path.basename(args[0]), device)


if __name__ == "__main__":
    main(sys.argv[1:])
