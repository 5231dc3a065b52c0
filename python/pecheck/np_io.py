"""Wire tensors as NumPy arrays: f64, f32, f16, i64 and i32 (NumPy has no bfloat16: see torch_io)."""
import numpy as np

from .wire import Unsupported

# The wire is little-endian whatever the host: '<' types read and write it on any machine.
DTYPES = {"f64": np.dtype("<f8"), "f32": np.dtype("<f4"), "f16": np.dtype("<f2"), "i64": np.dtype("<i8"), "i32": np.dtype("<i4")}


class BadOutput(Exception):
    """A function returned something other than an array of the asked dtype and shape."""


def dtype_of(name):
    """The NumPy dtype of a wire dtype name; Unsupported for bf16, which NumPy cannot hold."""
    if name == "bf16":
        raise Unsupported("bf16 arrays: NumPy has no bfloat16 (serve them as torch tensors: pecheck.torch_io)")
    if name not in DTYPES:
        raise Unsupported(f"dtype {name}")
    return DTYPES[name]


def decode(t, raw):
    """Input tensor t (its wire description) from its raw bytes: a writable array of t's dtype and shape."""
    return np.frombuffer(bytearray(raw), dtype=dtype_of(t["dtype"])).reshape(t["shape"])


def encode(t, value):
    """The raw bytes of output t from value, converted to t's dtype and shape (lenient: any array-like)."""
    return np.ascontiguousarray(value, dtype=dtype_of(t["dtype"])).reshape(t["shape"]).tobytes()


def encode_exact(t, value, label):
    """The raw bytes of output t from value, which must already be an array of t's dtype and shape:
    a float64 result for an f32 output is the function's bug, not something to round away here."""
    want, shape = dtype_of(t["dtype"]), list(t["shape"])
    if not isinstance(value, np.ndarray):
        raise BadOutput(f"{label} returned {type(value).__name__}, not a NumPy array {want.name} {shape}")
    if value.dtype.newbyteorder("<") != want or list(value.shape) != shape:
        raise BadOutput(f"{label} returned {value.dtype.name} {list(value.shape)}, not {want.name} {shape} (x's dtype and shape)")
    return np.ascontiguousarray(value, dtype=want).tobytes()


# The layouts' array operations (pecheck.layouts), NumPy's.
def canaries(like, shape):
    """A new array of like's dtype and the given shape, every element NaN."""
    return np.full(shape, np.nan, dtype=like.dtype)


def swap_first_axes(a):
    return a.transpose(1, 0, 2)


def copy(a):
    return a.copy()


def changed(before, after):
    """The indices (tuples) at which after's bits differ from before's (NaN compared as bits)."""
    words = np.dtype(f"<u{before.dtype.itemsize}")
    return [tuple(int(i) for i in index) for index in np.argwhere(before.view(words) != after.view(words))]


def item(a, index):
    return a[tuple(index)].item()
