"""Wrong PyTorch RoPE functions for torch_rope.py, one per function, for the gate's own test of it."""
import dataclasses
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "examples", "python"))
import hf_style_rope as hf  # noqa: E402


def angles_in_io_dtype(x, pos, spec):
    """inv_freq and positions cast to x's dtype before the product (a model.to(bfloat16) that
    converts the inv_freq buffer too): in bf16 position 257 is 256. Correct at f32."""
    hf.require_default(spec)
    inv_freq = hf.default_inv_freq(spec, x.device).to(x.dtype)
    return hf.rotated(x, spec, pos.to(x.dtype)[:, None] * inv_freq[None, :])


def layout_swapped(x, pos, spec):
    """gptj's pairs for a neox spec and neox's for gptj."""
    other = dataclasses.replace(spec, layout="gptj" if spec.layout == "neox" else "neox")
    return hf.rope(x, pos, other)


def returns_float32(x, pos, spec):
    """Computed in float32 and never cast back, as HF's GPT-J, whose float32 sin/cos promote the
    products: right at f32, the wrong dtype at bf16 and f16."""
    return hf.rope(x.float(), pos, spec)


def writes_its_input(x, pos, spec):
    """Right values, written into x and returned, as Unsloth's Triton RoPE did (its inputs silently
    changed under gradient checkpointing): a failure unless the kernel is declared in place."""
    x.copy_(hf.rope(x, pos, spec))
    return x


def assumes_contiguous(x, pos, spec):
    """Reads x as row-major [T, H, D] memory from its first element, as a kernel handed x's data
    pointer and not its strides does: right on contiguous inputs, wrong in every other layout."""
    tokens, heads, dim = x.shape
    return hf.rope(x.as_strided(x.shape, (heads * dim, dim, 1)), pos, spec)
