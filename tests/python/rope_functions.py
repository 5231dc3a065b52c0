"""Module-level functions for the package's tests to gate: a correct NumPy RoPE, wrong ones and one that declines."""
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "examples", "python"))
import numpy_rope  # noqa: E402


def rope(x, pos, spec):
    """HF's binary32 RoPE as fn(x, pos, spec) -> y."""
    return numpy_rope.rope("rotate", spec.text, {"x": x, "pos": pos})["y"]


def rope_sign_flipped(x, pos, spec):
    """Rotates the wrong way: the angle's sign flipped."""
    return rope(x, -pos, spec)


def rope_float64(x, pos, spec):
    """Right values in the wrong dtype: float64 where the gate asked for float32."""
    return rope(x, pos, spec).astype("float64")


def rope_position_0_only(x, pos, spec):
    """Right where it answers, but declines every call with a position past 0 (where RoPE is the identity)."""
    import pecheck
    if pos.any():
        raise pecheck.Unsupported("a position past 0")
    return rope(x, pos, spec)


def rope_in_place(x, pos, spec):
    """Right values, written into x and returned, as an in-place kernel (Unsloth's Triton RoPE) does:
    a failure unless served with inplace=True."""
    x[...] = rope(x, pos, spec)
    return x


def rope_assumes_contiguous(x, pos, spec):
    """Reads x as row-major [T, H, D] memory from its first element, as a C kernel handed x's data
    pointer alone does: right for contiguous inputs, wrong for every other layout."""
    import numpy as np
    strides = (x.shape[1] * x.shape[2] * x.itemsize, x.shape[2] * x.itemsize, x.itemsize)
    return rope(np.lib.stride_tricks.as_strided(x, shape=x.shape, strides=strides).copy(), pos, spec)
