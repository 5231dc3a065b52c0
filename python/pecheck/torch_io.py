"""Wire tensors as torch tensors: every wire dtype, bf16 included (NumPy cannot hold it)."""
import sys

import torch

from .np_io import BadOutput
from .wire import Unsupported

# bf16 travels as raw 16-bit words, which torch reads as bfloat16 directly.
DTYPES = {"f64": torch.float64, "f32": torch.float32, "f16": torch.float16, "bf16": torch.bfloat16, "i64": torch.int64, "i32": torch.int32}


def dtype_of(name):
    """The torch dtype of a wire dtype name."""
    if name not in DTYPES:
        raise Unsupported(f"dtype {name}")
    return DTYPES[name]


def require_little_endian():
    """torch.frombuffer reads the host's byte order, and the wire's is little-endian."""
    if sys.byteorder != "little":
        raise RuntimeError("the wire's tensors are little-endian and torch.frombuffer reads this host's order, which is not")


def decode(t, raw, device="cpu"):
    """Input tensor t from its raw bytes: a writable tensor (a copy) of t's dtype and shape on device."""
    require_little_endian()
    dtype = dtype_of(t["dtype"])
    values = torch.frombuffer(bytearray(raw), dtype=dtype) if raw else torch.empty(0, dtype=dtype)
    return values.reshape(t["shape"]).to(device)


def to_bytes(value):
    """The raw little-endian bytes of a tensor on any device (as uint8 words: NumPy, which tobytes
    goes through, has no bfloat16)."""
    require_little_endian()
    return value.detach().cpu().contiguous().reshape(-1).view(torch.uint8).numpy().tobytes()


def encode(t, value):
    """The raw bytes of output t from value, converted to t's dtype and shape (lenient)."""
    return to_bytes(torch.as_tensor(value).to(dtype_of(t["dtype"])).reshape(t["shape"]))


def encode_exact(t, value, label):
    """The raw bytes of output t from value, which must already be a tensor of t's dtype and shape:
    a float32 result for a bf16 output is the function's bug (HF's GPT-J promotes that way)."""
    want, shape = dtype_of(t["dtype"]), list(t["shape"])
    if not isinstance(value, torch.Tensor):
        raise BadOutput(f"{label} returned {type(value).__name__}, not a tensor {want} {shape}")
    if value.dtype != want or list(value.shape) != shape:
        raise BadOutput(f"{label} returned {value.dtype} {list(value.shape)}, not {want} {shape} (x's dtype and shape)")
    return to_bytes(value)


# The layouts' array operations (pecheck.layouts), torch's, on the tensors' own device.
_WORDS = {1: torch.uint8, 2: torch.int16, 4: torch.int32, 8: torch.int64}


def canaries(like, shape):
    """A new tensor of like's dtype and device and the given shape, every element NaN."""
    return torch.full(shape, float("nan"), dtype=like.dtype, device=like.device)


def swap_first_axes(a):
    return a.transpose(0, 1)


def copy(a):
    return a.clone()


def changed(before, after):
    """The indices (tuples) at which after's bits differ from before's (NaN compared as bits)."""
    words = _WORDS[before.element_size()]
    return [tuple(index) for index in (before.view(words) != after.view(words)).nonzero().tolist()]


def item(a, index):
    return a[tuple(index)].item()
