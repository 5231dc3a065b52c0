#!/usr/bin/python3
"""A correct binary32 attention (op attend) over the wire protocol, for the gate's own test of its attend
error model on schemes other than RoPE: none, alibi, kerple, t5 (the table comes in as an input),
sinusoidal (added to x before the projections), llama4_temperature (queries scaled) and xpos (queries
and keys rotated and scaled, torchscale's arithmetic). Everything is float32 the way a framework computes it; T5's
buckets are decided exactly in Python integers."""
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "examples", "python"))
import numpy as np  # noqa: E402
from numpy_rope import softmax_attention  # noqa: E402
from pecheck_serve import Unsupported, serve, spec_field  # noqa: E402

F = np.float32


def alibi_bias(spec, qpos, kpos):
    heads = int(spec_field(spec, "heads"))
    m = 1 << (heads.bit_length() - 1)  # the largest power of two <= heads
    slopes = [2.0 ** (-8.0 * (h + 1) / m) if h < m else 2.0 ** (-4.0 * (2 * (h - m) + 1) / m) for h in range(heads)]
    distance = (qpos[:, None] - kpos[None, :]).astype(F)  # int64 difference, then float32
    if spec_field(spec, "causal") != "true":
        distance = np.abs(distance)
    return -np.array(slopes, dtype=F)[:, None, None] * distance[None, :, :]


def spec_list(spec, key):
    text = spec[spec.index(key + "=[") + len(key) + 2:]
    return [float(v) for v in text[: text.index("]")].split(",")]


def kerple_bias(spec, qpos, kpos):
    """KERPLE as the paper's code computes it: the integer distance, then float32 log(1 + r2 d) or d^r2."""
    r1 = np.array(spec_list(spec, "r1"), dtype=F)[:, None, None]
    r2 = np.array(spec_list(spec, "r2"), dtype=F)[:, None, None]
    distance = np.abs(qpos[:, None] - kpos[None, :]).astype(F)[None, :, :]
    if spec_field(spec, "variant") == "power":
        return -r1 * np.power(distance, r2)
    return -r1 * np.log(F(1) + r2 * distance)


def t5_bucket(rel, buckets, max_distance, bidirectional):
    """T5's bucket of key - query; the log boundary decided exactly: the largest m with
    exact * (max_distance / exact)^(m / (per - exact)) <= n, in integers."""
    per, offset = buckets, 0
    if bidirectional:
        per //= 2
        offset = per if rel > 0 else 0
        n = abs(rel)
    else:
        n = -rel if rel < 0 else 0
    exact = per // 2
    if n < exact:
        return offset + n
    steps = per - exact
    m = 0
    while m + 1 < steps and n**steps * exact ** (m + 1) >= exact**steps * max_distance ** (m + 1):
        m += 1
    return offset + exact + m


def t5_bias(spec, qpos, kpos, table):
    buckets, max_distance = int(spec_field(spec, "buckets")), int(spec_field(spec, "max_distance"))
    bidirectional = spec_field(spec, "bidirectional") == "true"
    rows = np.array([[t5_bucket(int(k) - int(q), buckets, max_distance, bidirectional) for k in kpos] for q in qpos])
    return np.transpose(table[rows], (2, 0, 1))  # [H, T, S]


def sinusoidal_pe(spec, pos):
    dim, base = int(spec_field(spec, "dim")), F(float(spec_field(spec, "base")))
    layout = spec_field(spec, "layout")
    if layout not in ("interleaved", "concat"):
        raise Unsupported(f"layout {layout}")
    w = F(1) / base ** (np.arange(0, dim, 2, dtype=F) / F(dim))
    angles = pos.astype(F)[:, None] * w[None, :]
    pe = np.empty((len(pos), dim), dtype=F)
    if layout == "interleaved":
        pe[:, 0::2], pe[:, 1::2] = np.sin(angles), np.cos(angles)
    else:
        pe[:, : dim // 2], pe[:, dim // 2 :] = np.sin(angles), np.cos(angles)
    return pe


def xpos_rotate(spec, x, pos, sign):
    """torchscale's XPOS in float32 at the given positions (no centring): zeta_i^(sign p / scale_base) R(p w_i) x."""
    dim, base = int(spec_field(spec, "dim")), F(float(spec_field(spec, "base")))
    gamma, scale_base = F(float(spec_field(spec, "gamma"))), F(float(spec_field(spec, "scale_base")))
    i = np.arange(0, dim, 2, dtype=F)
    zeta = (i + gamma * F(dim)) / ((F(1) + gamma) * F(dim))
    p = pos.astype(F)[:, None]
    angles = p * (F(1) / base ** (i / F(dim)))[None, :]
    scale = zeta[None, :] ** (F(sign) * p / scale_base)
    c, s = (np.cos(angles) * scale)[:, None, :], (np.sin(angles) * scale)[:, None, :]
    if spec_field(spec, "layout") == "neox":
        xa, xb = x[..., : dim // 2], x[..., dim // 2 :]
        return np.concatenate([c * xa - s * xb, s * xa + c * xb], axis=-1)
    y = np.empty_like(x)
    xa, xb = x[..., 0::2], x[..., 1::2]
    y[..., 0::2], y[..., 1::2] = c * xa - s * xb, s * xa + c * xb
    return y


def attend(op, spec, inputs):
    scheme = spec[: spec.index("(")]
    if op != "attend" or scheme not in ("none", "alibi", "kerple", "t5", "sinusoidal", "llama4_temperature", "xpos"):
        raise Unsupported(f"{op} on {scheme}")
    if any(t.dtype != F for t in inputs.values() if t.dtype.kind == "f"):
        raise Unsupported("inputs other than float32")
    if scheme == "sinusoidal":
        heads = int(inputs["heads"])
        qpos = inputs["qpos"] if "qpos" in inputs else np.arange(inputs["x"].shape[0])
        x = inputs["x"] + sinusoidal_pe(spec, qpos)
        q, k, v = ((x @ inputs[w]).reshape(len(x), heads, -1) for w in ("wq", "wk", "wv"))
        kpos = qpos
    else:
        q, k, v = inputs["q"], inputs["k"], inputs["v"]
        qpos = inputs["qpos"] if "qpos" in inputs else np.arange(q.shape[0])
        kpos = inputs["kpos"] if "kpos" in inputs else np.arange(k.shape[0])
    if scheme == "llama4_temperature":  # HF: query_states * (log1p(floor((p + 1) / F)) * a + 1), the floor in integers
        block = (qpos.astype(np.int64) + 1) // int(spec_field(spec, "floor_scale"))
        q = q * (np.log1p(block.astype(F)) * F(float(spec_field(spec, "attn_scale"))) + F(1))[:, None, None]
    if scheme == "xpos":
        q, k = xpos_rotate(spec, q, qpos, 1), xpos_rotate(spec, k, kpos, -1)
    biases = {"alibi": lambda: alibi_bias(spec, qpos, kpos), "kerple": lambda: kerple_bias(spec, qpos, kpos),
              "t5": lambda: t5_bias(spec, qpos, kpos, inputs["table"])}
    bias = biases[scheme]() if scheme in biases else None
    return {"out": softmax_attention(q, k, v, qpos, kpos, int(inputs["causal"]), bias)}


if __name__ == "__main__":
    serve(attend, name="test NumPy attention (binary32)", ops=["attend"])
