"""serve_function: serves a user's function over the wire in one of two shapes, with NumPy or torch arrays.

interface "rope": fn(x, pos, spec) -> y, the gate's rotate of rope(...) specs. x [T, H, D] in the
run's --dtype (never upcast), pos int64 [T], spec a pecheck.RopeSpec; y must have x's dtype and
shape, else the call is an error naming what came back.
interface "ops": fn(op, spec_text, {name: array}) -> {name: array}, any op the gate asks for among
ops (see pecheck.serve); outputs are converted to the asked dtype and shape.
inplace=True: fn writes its outputs into its inputs and returns nothing (see serve_function).
With torch arrays the calls run under torch.no_grad() on device: cuda when torch.cuda.is_available(),
else cpu, unless device or PECHECK_TORCH_DEVICE names one.
"""
import contextlib
import functools
import os

from .spec import rope_spec
from .wire import Unsupported, serve

INTERFACES = ("rope", "ops")
ARRAYS = ("auto", "numpy", "torch")


def arrays_of(fn):
    """The arrays fn works in, for arrays="auto": read from the modules fn's own module binds
    (fn.__globals__), since a torch function handed NumPy arrays fails every call. "torch" where
    the module binds torch and not NumPy, or both and fn's own code names torch; else "numpy"."""
    bound = {getattr(v, "__name__", None) for v in getattr(fn, "__globals__", {}).values() if type(v).__name__ == "module"}
    code = getattr(getattr(fn, "__code__", None), "co_names", ())
    if "torch" in bound and ("numpy" not in bound or "torch" in code):
        return "torch"
    return "numpy"


def torch_device(device=None):
    """device, else PECHECK_TORCH_DEVICE, else cuda when available; ValueError for one that cannot be used."""
    try:
        import torch
    except ImportError as e:
        raise ValueError(f"cannot import torch ({e}); on Debian: apt-get install python3-torch") from None

    device = device or os.environ.get("PECHECK_TORCH_DEVICE") or ("cuda" if torch.cuda.is_available() else "cpu")
    if device not in ("cpu", "cuda"):
        raise ValueError(f"device '{device}': use cpu or cuda")
    if device == "cuda" and not torch.cuda.is_available():
        raise ValueError("device cuda, but torch.cuda.is_available() is false")
    return device


def warm_up(device):
    """Runs a matrix product, sin and cos on device once, before hello. On cuda that makes the
    context and loads cuBLAS and the first kernels, whose host memory (hundreds of MiB) is then the
    process's from its start instead of being charged to the first call: the gate counts each
    call's growth against --memory-limit-mib. On the CPU it is the same few lines, for nothing."""
    import torch

    a = torch.ones(2, 2, device=device)
    (a @ a).sin().cos().sum().item()


def array_io(arrays, device):
    """(io module, decode, encode_exact, calls context, library description) for arrays."""
    if arrays == "numpy":
        import numpy

        from . import np_io
        return np_io, np_io.decode, np_io.encode_exact, contextlib.nullcontext, f"NumPy {numpy.__version__}"
    import torch

    from . import torch_io
    decode = functools.partial(torch_io.decode, device=device)
    return torch_io, decode, torch_io.encode_exact, torch.no_grad, f"PyTorch {torch.__version__} on {device}"


def serve_function(fn, interface="rope", arrays="auto", device=None, label="python function", ops=("rotate",), inplace=False):
    """Serves fn over stdin/stdout until the gate closes them (see the module's text). inplace: fn
    writes its [T, H, D] outputs into its [T, H, D] inputs (rotate's y into x) and they are read
    from there; a fn that writes into an input undeclared fails its call (pecheck.layouts)."""
    if interface not in INTERFACES:
        raise ValueError(f"interface '{interface}': use one of {', '.join(INTERFACES)}")
    if arrays not in ARRAYS:
        raise ValueError(f"arrays '{arrays}': use one of {', '.join(ARRAYS)}")
    if arrays == "auto":
        arrays = arrays_of(fn)
    if arrays == "numpy" and device is not None:
        raise ValueError("a device is for torch arrays; NumPy's are on the CPU")
    device = torch_device(device) if arrays == "torch" else None
    if device is not None:
        warm_up(device)
    io, decode, encode_exact, context, library = array_io(arrays, device)
    name = f"{label} ({library}{', in place' if inplace else ''})"
    if interface == "ops":
        def call(op, spec, inputs):
            with context():
                return fn(op, spec, inputs)
        serve(call, name=name, ops=list(ops), decode=decode, io=io, inplace=inplace)
        return

    def rotate(op, text, inputs):
        if op != "rotate" or not text.startswith("rope("):
            raise Unsupported(f"{op} of {text.partition('(')[0]}: a rope function serves rotate of rope(...) only")
        if set(inputs) != {"x", "pos"}:
            raise Unsupported(f"inputs {sorted(inputs)}: a rope function takes x and pos only")
        with context():
            return {"y": fn(inputs["x"], inputs["pos"], rope_spec(text))}

    serve(rotate, name=name, ops=["rotate"], decode=decode, encode=lambda t, y: encode_exact(t, y, label), io=io, inplace=inplace)
