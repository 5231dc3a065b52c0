"""A correct PyTorch RoPE written as Hugging Face transformers writes it: fn(x, pos, spec) for
`python -m pecheck --arrays torch`, pecheck.gate(..., arrays="torch") or torch_rope.py.

    pecheck gate --impl-cmd '/usr/bin/python3 examples/python/torch_rope.py examples/python/hf_style_rope.py:rope' \\
        --spec 'rope(dim=96, rotary_dim=24, layout=gptj)' --dtype bf16

inv_freq in float32 (the default rope init), angles and cos/sin in float32 with autocast off, then
cos/sin cast to x's dtype (LlamaRotaryEmbedding.forward), so the rotation's products round to x's
dtype, as a bf16 or fp16 model computes them. neox pairs (i, i + r/2) with rotate_half (Llama,
GPT-NeoX); gptj pairs (2i, 2i + 1) with repeat_interleave and rotate_every_two (GPT-J, Cohere).
Dims past rotary_dim pass through, as GPT-NeoX's partial rotary does. Only the unscaled default:
scalings, explicit freqs and p-RoPE are Unsupported.
"""
import torch

from pecheck import Unsupported


def default_inv_freq(spec, device):
    """HF's _compute_default_rope_parameters: 1 / base^(arange(0, r, 2) / r) in float32, [r/2]."""
    r = spec.rotary_dim
    return 1.0 / (spec.base ** (torch.arange(0, r, 2, dtype=torch.int64).to(device=device, dtype=torch.float) / r))


def angles(spec, pos):
    """p * inv_freq in float32, [T, r/2]: HF's matmul of inv_freq [r/2, 1] by positions [1, T] (one product each)."""
    inv_freq = default_inv_freq(spec, pos.device)
    with torch.autocast(device_type=pos.device.type, enabled=False):  # HF forces float32 here
        return (inv_freq[:, None].float() @ pos[None, :].float()).transpose(0, 1)


def rotate_half(x):
    """neox: (x1, x2) -> (-x2, x1) over the two halves."""
    x1, x2 = x[..., : x.shape[-1] // 2], x[..., x.shape[-1] // 2 :]
    return torch.cat((-x2, x1), dim=-1)


def rotate_every_two(x):
    """gptj: (x[2i], x[2i+1]) -> (-x[2i+1], x[2i])."""
    return torch.stack((-x[..., 1::2], x[..., 0::2]), dim=-1).flatten(-2)


def rope(x, pos, spec):
    """x [T, H, D] rotated at positions pos [T], in x's dtype."""
    require_default(spec)
    return rotated(x, spec, angles(spec, pos))


def require_default(spec):
    """Unsupported unless spec is the unscaled default RoPE on a layout handled here."""
    if spec.scaling or spec.freqs or spec.truncate_low != 0:
        raise Unsupported("scalings, explicit freqs and p-RoPE: this is HF's default RoPE only")
    if spec.layout not in ("neox", "gptj"):
        raise Unsupported(f"layout {spec.layout}")


def rotated(x, spec, freqs):
    """x rotated by the angles freqs [T, r/2] on spec's layout, cos/sin cast to x's dtype first."""
    if spec.layout == "neox":
        emb, rotate = torch.cat((freqs, freqs), dim=-1), rotate_half
    else:
        emb, rotate = torch.repeat_interleave(freqs, 2, dim=-1), rotate_every_two
    cos, sin = emb.cos().to(x.dtype)[:, None, :], emb.sin().to(x.dtype)[:, None, :]  # [T, 1, r]
    x_rot, x_pass = x[..., : spec.rotary_dim], x[..., spec.rotary_dim :]
    return torch.cat(((x_rot * cos) + (rotate(x_rot) * sin), x_pass), dim=-1)
