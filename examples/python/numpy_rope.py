#!/usr/bin/python3
"""A correct single-file NumPy RoPE for `pecheck gate --impl-cmd`, in binary32 the way Hugging Face
computes it: inv_freq = 1 / base^(arange(0, r, 2) / r) in float32, angles = float32(pos) * inv_freq,
cos/sin in float32, y = x cos + rotate_half(x) sin (neox) or the interleaved pairs (gptj); its
backward pass (op rotate_grad: dx = R_p^T dy, the same turn with the sine negated); q and k turned
alike in one call (op rotate_qk, k with fewer heads under grouped-query attention); the turn by
cos and sin tables it is handed (op apply_tables); and RoPE attention (op attend) in float32.

    pecheck gate --impl-cmd '/usr/bin/python3 examples/python/numpy_rope.py' --spec 'rope(dim=128, layout=neox)'
"""
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "python"))  # this tree's package first
import numpy as np  # noqa: E402

from pecheck import Unsupported, serve, spec_field  # noqa: E402


def frequencies(spec):
    """inv_freq [r/2] in float32, HF's way."""
    rotary = int(spec_field(spec, "rotary_dim"))
    base = np.float32(float(spec_field(spec, "base")))
    return np.float32(1) / base ** (np.arange(0, rotary, 2, dtype=np.float32) / np.float32(rotary))


def rotated(spec, x, pos, backward=False):
    """x [T, H, D] rotated at positions pos [T] (backward: by R_p^T), float32 throughout."""
    inv_freq = frequencies(spec)
    angles = pos.astype(np.float32)[:, None] * inv_freq[None, :]  # [T, r/2]
    sin = np.sin(angles)
    return turned(spec, x, np.cos(angles), -sin if backward else sin)  # the transpose: sin(-theta)


def turned(spec, x, cos, sin):
    """x [T, H, D] with each pair turned by the cos and sin rows [T, r/2] of its token."""
    rotary = int(spec_field(spec, "rotary_dim"))
    neox = spec_field(spec, "layout") == "neox"
    cos, sin = cos[:, None, :], sin[:, None, :]  # [T, 1, r/2]
    y = x.copy()
    if neox:
        a, b = x[..., : rotary // 2], x[..., rotary // 2 : rotary]
        y[..., : rotary // 2] = a * cos - b * sin
        y[..., rotary // 2 : rotary] = b * cos + a * sin
    else:
        a, b = x[..., 0:rotary:2], x[..., 1:rotary:2]
        y[..., 0:rotary:2] = a * cos - b * sin
        y[..., 1:rotary:2] = b * cos + a * sin
    return y


def softmax_attention(q, k, v, qpos, kpos, causal, bias=None):
    """softmax(q . k / sqrt(D) + bias + causal mask) v per head, float32, the row maximum subtracted:
    q [T, H, D], k [S, H, D], v [S, H, Dv], bias [H, T, S] -> out [T, H, Dv]."""
    scores = np.einsum("thd,shd->hts", q, k) / np.sqrt(np.float32(q.shape[2]))
    if bias is not None:
        scores = scores + bias
    if causal:
        hidden = kpos[None, :] > qpos[:, None]  # [T, S]
        scores = np.where(hidden[None, :, :], np.float32(-np.inf), scores)
    weights = np.exp(scores - scores.max(axis=2, keepdims=True))
    weights /= weights.sum(axis=2, keepdims=True)
    return np.einsum("hts,shv->thv", weights, v).astype(np.float32)


def attention(spec, inputs):
    """RoPE attention: q rotated at qpos, k at kpos, then softmax_attention."""
    q, k = rotated(spec, inputs["q"], inputs["qpos"]), rotated(spec, inputs["k"], inputs["kpos"])
    return {"out": softmax_attention(q, k, inputs["v"], inputs["qpos"], inputs["kpos"], int(inputs["causal"]))}


OPS = ("rotate", "rotate_grad", "rotate_qk", "apply_tables", "inv_freq", "attend")


def rope(op, spec, inputs):
    if op not in OPS or not spec.startswith("rope("):
        raise Unsupported(op)
    if op == "apply_tables":  # any rope spec: the tables carry the angles
        if any(t.dtype != np.float32 for t in inputs.values()):
            raise Unsupported("inputs other than float32")
        return {"y": turned(spec, inputs["x"], inputs["cos"], inputs["sin"])}
    if spec_field(spec, "scaling") or spec_field(spec, "freqs") or float(spec_field(spec, "truncate_low") or 0) != 0:
        raise Unsupported("scalings, explicit freqs and p-RoPE")
    if op == "inv_freq":  # unscaled: the attention factor is 1
        return {"inv_freq": frequencies(spec), "attention_factor": np.array(1, dtype=np.float32)}
    if any(t.dtype != np.float32 for t in inputs.values() if t.dtype.kind == "f"):
        raise Unsupported("inputs other than float32")
    if op == "attend":
        return attention(spec, inputs)
    if op == "rotate_grad":
        return {"dx": rotated(spec, inputs["dy"], inputs["pos"], backward=True)}
    if op == "rotate_qk":  # each head turned by its token's angles alone: k's head count needs nothing else
        return {"q_out": rotated(spec, inputs["q"], inputs["pos"]), "k_out": rotated(spec, inputs["k"], inputs["pos"])}
    return {"y": rotated(spec, inputs["x"], inputs["pos"])}


if __name__ == "__main__":
    serve(rope, name="example NumPy RoPE (HF-style binary32)", ops=list(OPS))
