"""pecheck.np_io and pecheck.torch_io: wire bytes to arrays and back, expected bytes written by struct."""
import struct

import numpy as np
import pytest

from pecheck import Unsupported, np_io


def t(dtype, shape):
    return {"name": "y", "dtype": dtype, "shape": shape}


@pytest.mark.parametrize("dtype, code, numpy_type", [("f64", "d", np.float64), ("f32", "f", np.float32), ("f16", "e", np.float16),
                                                      ("i64", "q", np.int64), ("i32", "i", np.int32)])
def test_numpy_reads_and_writes_each_dtype(dtype, code, numpy_type):
    values = [1, -2, 3, 1024] if dtype[0] == "i" else [1.5, -2.0, 0.25, 1024.0]  # exact in every type
    array = np_io.decode(t(dtype, [2, 2]), struct.pack("<4" + code, *values))
    assert array.dtype == numpy_type and array.shape == (2, 2) and array.reshape(-1).tolist() == values
    array[0, 0] = 7  # writable: a function may work in place
    assert np_io.encode(t(dtype, [2, 2]), array) == struct.pack("<4" + code, 7, *values[1:])


def test_numpy_encode_converts_and_encode_exact_refuses():
    assert np_io.encode(t("f32", [2]), np.array([0.1, 2.0])) == struct.pack("<2f", 0.1, 2.0)
    with pytest.raises(np_io.BadOutput, match=r"^f returned float64 \[2\], not float32 \[2\] \(x's dtype and shape\)$"):
        np_io.encode_exact(t("f32", [2]), np.array([0.1, 2.0]), "f")
    with pytest.raises(np_io.BadOutput, match=r"^f returned list, not a NumPy array float32 \[2\]$"):
        np_io.encode_exact(t("f32", [2]), [0.1, 2.0], "f")
    assert np_io.encode_exact(t("f32", [2]), np.array([0.5, 2.0], dtype=">f4"), "f") == struct.pack("<2f", 0.5, 2.0)


def test_numpy_has_no_bf16():
    with pytest.raises(Unsupported, match="NumPy has no bfloat16"):
        np_io.decode(t("bf16", [1]), b"\0\0")


def test_torch_reads_and_writes_bf16():
    torch = pytest.importorskip("torch")
    from pecheck import torch_io

    raw = bytes([0xC0, 0x3F, 0x00, 0xC0])  # bf16 1.5 (0x3FC0) and -2 (0xC000), little-endian
    y = torch_io.decode(t("bf16", [2]), raw)
    assert y.dtype == torch.bfloat16 and y.tolist() == [1.5, -2.0]
    assert torch_io.encode_exact(t("bf16", [2]), y * 2, "f") == bytes([0x40, 0x40, 0x80, 0xC0])  # 3 and -4
    assert torch_io.encode(t("f32", [2]), y) == struct.pack("<2f", 1.5, -2.0)
    with pytest.raises(np_io.BadOutput, match=r"^f returned torch.float32 \[2\], not torch.bfloat16 \[2\] \(x's dtype and shape\)$"):
        torch_io.encode_exact(t("bf16", [2]), y.float(), "f")
