"""Held-out injected bugs for `pecheck diagnose`: RoPE code written the way Hugging Face transformers
(RotaryEmbedding + apply_rotary_pos_emb) and vLLM (rotary_embedding's cos_sin_cache) write it, each
with one bug, served as fn(x, pos, spec) through examples/python/torch_rope.py. BUGS lists each with
the spec it is diagnosed on and the words (a regular expression, case-insensitive) a sentence that
names the bug must contain. The set was written before the sentence's wording was (issue 41,
section 4) and is not tuned to it: tests/audit/heldout_diagnose.py measures the rate.
"""
import dataclasses
import math
import os
import sys

import torch

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "python"))
from pecheck import Unsupported, spec_fields  # noqa: E402


@dataclasses.dataclass(frozen=True)
class Bug:
    function: str  # the function below
    style: str     # "hf" or "vllm"
    bug: str       # the bug class, in a few words
    spec: str      # what diagnose asks it for
    words: str     # a sentence naming the bug matches this (re.IGNORECASE)


# The words, by bug class: any reasonable plain-English naming of the bug contains one of these.
LAYOUT_GPTJ = r"interleav|gpt-?j|\(2i, ?2i ?\+ ?1\)"
LAYOUT_NEOX = r"neox|halves|rotate.half|\(i, ?i ?\+"
PLUS_ONE = r"\+ ?1\b|one more|one later|off by one|shifted"
BASE_10000 = r"base\D{0,20}10000\b|\b10000\b\D{0,20}base"
INV_FREQ_BF16 = r"(inv_freq|frequenc).{0,40}bf16"
INV_FREQ_F16 = r"(inv_freq|frequenc).{0,40}(?<!b)f16"
COS_SIN_F16 = r"(cos|sin).{0,40}(?<!b)f16"
COS_SIN_BF16 = r"(cos|sin).{0,40}bf16"
HEAD_DIM = r"head dim"
WINDOW_END = r"(window|dims?).{0,40}(end|last)|last \d* ?dims"
PARTIAL_FORGOTTEN = r"(all|every)\b.{0,30}dims?\b.{0,20}rotat|rotary.dim.{0,30}(ignored|forgotten)|partial rotary.{0,20}(ignored|forgotten|missing)"
FACTOR_TWICE = r"attention factor.{0,30}twice|twice.{0,30}attention factor|attention factor.{0,20}squared"
FACTOR_MISSING = r"(without|missing|no|dropped|not applied).{0,30}attention factor|attention factor.{0,30}(missing|dropped|not applied|omitted)"
RAMP_2I = r"(ramp|weight|blend).{0,40}(2i|2k|2 ?[*x·] ?[ik]|dim index|dimension index)"
BANDS_SWAPPED = r"band.{0,30}(swap|exchang)|(swap|exchang).{0,30}band"
SCALING_IGNORED = r"(ntk|scaling).{0,40}(not applied|ignored|missing|dropped|omitted)|(without|no) (the )?(ntk|scaling)|unscaled"
SCALING_TWICE = r"(factor|linear|scaling|interpolat).{0,40}(twice|squared|again|double)"
NAN_AT_ZERO = r"(nan|non-finite|infinite).{0,40}position 0|position 0.{0,40}(nan|non-finite|infinite)"
F16_OVERFLOW = r"overflow.{0,40}(?<!b)f16|(?<!b)f16.{0,40}overflow"
SIN_SIGN = r"sign|negat|other way|opposite direction|clockwise"

YARN = "rope(dim=64, scaling=yarn(factor=8, original_max=4096))"
LLAMA3 = "rope(dim=128, base=500000, scaling=llama3(factor=8, original_max=8192))"

BUGS = (
    Bug("hf_interleaved_for_neox", "hf", "layout swap", "rope(dim=128, layout=neox)", LAYOUT_GPTJ),
    Bug("hf_position_ids_plus_one", "hf", "off-by-one positions", "rope(dim=128)", PLUS_ONE),
    Bug("hf_rope_theta_dropped", "hf", "wrong base", "rope(dim=128, base=500000)", BASE_10000),
    Bug("hf_inv_freq_buffer_bf16", "hf", "bf16 inv_freq", "rope(dim=128)", INV_FREQ_BF16),
    Bug("hf_cos_sin_fp16", "hf", "fp16 cos/sin", "rope(dim=128)", COS_SIN_F16),
    Bug("hf_partial_head_dim_denominator", "hf", "head-dim denominator", "rope(dim=80, rotary_dim=32)", HEAD_DIM),
    Bug("hf_partial_window_at_end", "hf", "rotary window at the wrong end", "rope(dim=96, rotary_dim=24)", WINDOW_END),
    Bug("hf_partial_rotary_forgotten", "hf", "partial rotary forgotten", "rope(dim=80, rotary_dim=40)", PARTIAL_FORGOTTEN),
    Bug("hf_yarn_attention_factor_twice", "hf", "YaRN magnitude twice", YARN, FACTOR_TWICE),
    Bug("hf_yarn_attention_factor_missing", "hf", "YaRN magnitude missing", YARN, FACTOR_MISSING),
    Bug("hf_yarn_ramp_over_dims", "hf", "YaRN ramp at 2i", YARN, RAMP_2I),
    Bug("hf_llama3_comparisons_flipped", "hf", "Llama 3 bands swapped", LLAMA3, BANDS_SWAPPED),
    Bug("hf_ntk_base_not_rescaled", "hf", "NTK base not rescaled", "rope(dim=64, scaling=ntk(factor=4))", SCALING_IGNORED),
    Bug("hf_linear_scaling_twice", "hf", "linear scaling applied twice", "rope(dim=64, scaling=linear(factor=4))", SCALING_TWICE),
    Bug("hf_polar_nan_at_zero", "hf", "NaN at position 0", "rope(dim=64)", NAN_AT_ZERO),
    Bug("hf_angles_in_half", "hf", "fp16 angle overflow", "rope(dim=64)", F16_OVERFLOW),
    Bug("hf_rotate_half_sign", "hf", "sign flip of sin", "rope(dim=64)", SIN_SIGN),
    Bug("vllm_gptj_style_for_neox", "vllm", "layout swap", "rope(dim=64, layout=neox)", LAYOUT_GPTJ),
    Bug("vllm_neox_style_for_gptj", "vllm", "layout swap", "rope(dim=64, layout=gptj)", LAYOUT_NEOX),
    Bug("vllm_positions_plus_one", "vllm", "off-by-one positions", "rope(dim=128)", PLUS_ONE),
    Bug("vllm_rope_theta_default", "vllm", "wrong base", "rope(dim=128, base=1000000)", BASE_10000),
    Bug("vllm_inv_freq_fp16", "vllm", "fp16 inv_freq", "rope(dim=128)", INV_FREQ_F16),
    Bug("vllm_cache_fp16", "vllm", "fp16 cos/sin", "rope(dim=64)", COS_SIN_F16),
    Bug("vllm_cache_bf16", "vllm", "bf16 cos/sin", "rope(dim=128)", COS_SIN_BF16),
    Bug("vllm_head_size_denominator", "vllm", "head-dim denominator", "rope(dim=128, rotary_dim=64)", HEAD_DIM),
    Bug("vllm_rotary_window_at_end", "vllm", "rotary window at the wrong end", "rope(dim=64, rotary_dim=32, layout=gptj)", WINDOW_END),
    Bug("vllm_yarn_mscale_twice", "vllm", "YaRN magnitude twice", YARN, FACTOR_TWICE),
    Bug("vllm_yarn_mscale_missing", "vllm", "YaRN magnitude missing", YARN, FACTOR_MISSING),
    Bug("vllm_llama3_bands_swapped", "vllm", "Llama 3 bands swapped", LLAMA3, BANDS_SWAPPED),
    Bug("vllm_cache_angles_half", "vllm", "fp16 angle overflow", "rope(dim=64)", F16_OVERFLOW),
    Bug("vllm_sin_sign_flipped", "vllm", "sign flip of sin", "rope(dim=64)", SIN_SIGN),
)


# ---- Hugging Face transformers style: inv_freq buffer, cos/sin from inv_freq @ position_ids, rotate_half.

def hf_default_inv_freq(base, dim, denominator=None):
    """_compute_default_rope_parameters: 1 / base^(arange(0, dim, 2) / dim), float32."""
    return 1.0 / (base ** (torch.arange(0, dim, 2, dtype=torch.int64).float() / (denominator or dim)))


def hf_yarn_inv_freq(base, dim, scaling, ramp_positions=None):
    """_compute_yarn_parameters: (inv_freq, attention_factor); ramp_positions: where the ramp is read."""
    factor, original = float(scaling["factor"]), int(scaling["original_max"])
    beta_fast, beta_slow = float(scaling.get("beta_fast", 32)), float(scaling.get("beta_slow", 1))
    truncate = scaling.get("truncate", "true") == "true"
    attention_factor = 0.1 * math.log(factor) + 1.0 if factor > 1 else 1.0

    def find_correction_dim(num_rotations):
        return (dim * math.log(original / (num_rotations * 2 * math.pi))) / (2 * math.log(base))

    low, high = find_correction_dim(beta_fast), find_correction_dim(beta_slow)
    if truncate:
        low, high = math.floor(low), math.ceil(high)
    low, high = max(low, 0), min(high, dim - 1)
    if low == high:
        high += 0.001
    at = torch.arange(dim // 2, dtype=torch.float32) if ramp_positions is None else ramp_positions
    ramp = torch.clamp((at - low) / (high - low), 0, 1)
    pos_freqs = base ** (torch.arange(0, dim, 2).float() / dim)
    extrapolation, interpolation = 1.0 / pos_freqs, 1.0 / (factor * pos_freqs)
    extrapolation_factor = 1 - ramp
    return interpolation * (1 - extrapolation_factor) + extrapolation * extrapolation_factor, attention_factor


def hf_llama3_inv_freq(base, dim, scaling, flipped=False):
    """_compute_llama3_parameters; flipped: the band comparisons written the other way round."""
    inv_freq = hf_default_inv_freq(base, dim)
    factor, old_context_len = float(scaling["factor"]), int(scaling["original_max"])
    low_freq_factor, high_freq_factor = float(scaling.get("low_freq_factor", 1)), float(scaling.get("high_freq_factor", 4))
    low_freq_wavelen, high_freq_wavelen = old_context_len / low_freq_factor, old_context_len / high_freq_factor
    wavelen = 2 * math.pi / inv_freq
    long_waves = wavelen < high_freq_wavelen if flipped else wavelen > low_freq_wavelen
    inv_freq_llama = torch.where(long_waves, inv_freq / factor, inv_freq)
    smooth_factor = (old_context_len / wavelen - low_freq_factor) / (high_freq_factor - low_freq_factor)
    smoothed_inv_freq = (1 - smooth_factor) * inv_freq_llama / factor + smooth_factor * inv_freq_llama
    is_medium_freq = ~(wavelen < high_freq_wavelen) * ~(wavelen > low_freq_wavelen)
    return torch.where(is_medium_freq, smoothed_inv_freq, inv_freq_llama)


def hf_rotate_half(x):
    x1, x2 = x[..., : x.shape[-1] // 2], x[..., x.shape[-1] // 2:]
    return torch.cat((-x2, x1), dim=-1)


def hf_rotate_every_two(x):
    return torch.stack((-x[..., 1::2], x[..., 0::2]), dim=-1).flatten(-2)


def hf_cos_sin(inv_freq, position_ids, dtype, attention_scaling=1.0, interleaved=False, angle_dtype=torch.float32):
    """RotaryEmbedding.forward: freqs = inv_freq @ position_ids (autocast off), emb = cat(freqs, freqs).
    The [r/2, 1] @ [1, T] matmul is one product per element: written as the broadcast product, which
    torch's CPU backend also has in float16 (its half matmul is missing)."""
    inv_freq_expanded = inv_freq[:, None].to(angle_dtype)
    position_ids_expanded = position_ids[None, :].to(angle_dtype)
    freqs = (inv_freq_expanded * position_ids_expanded).transpose(0, 1).float()  # the product's dtype kept, cos in float32
    emb = torch.repeat_interleave(freqs, 2, dim=-1) if interleaved else torch.cat((freqs, freqs), dim=-1)
    cos, sin = emb.cos() * attention_scaling, emb.sin() * attention_scaling
    return cos.to(dtype), sin.to(dtype)


def hf_apply(x, cos, sin, rotate=hf_rotate_half):
    """apply_rotary_pos_emb with unsqueeze_dim=1 on x [T, H, D]; dims past cos's width pass through."""
    r = cos.shape[-1]
    x_rot, x_pass = x[..., :r], x[..., r:]
    return torch.cat((x_rot * cos[:, None, :] + rotate(x_rot) * sin[:, None, :], x_pass), dim=-1)


def scaling_fields(spec, kind):
    """The spec's scaling fields when it is `kind`, else Unsupported."""
    if not spec.scaling or not spec.scaling.startswith(kind + "("):
        raise Unsupported(f"this function serves {kind} scaling only")
    return spec_fields(spec.scaling)


def hf_interleaved_for_neox(x, pos, spec):
    """The checkpoint is NeoX-ordered, but the port uses GPT-J's repeat_interleave + rotate_every_two."""
    cos, sin = hf_cos_sin(hf_default_inv_freq(spec.base, spec.rotary_dim), pos, x.dtype, interleaved=True)
    return hf_apply(x, cos, sin, hf_rotate_every_two)


def hf_position_ids_plus_one(x, pos, spec):
    """position_ids built from cache_position + 1 (1-based), as a past_key_values_length slip does."""
    cos, sin = hf_cos_sin(hf_default_inv_freq(spec.base, spec.rotary_dim), pos + 1, x.dtype)
    return hf_apply(x, cos, sin)


def hf_rope_theta_dropped(x, pos, spec):
    """config.rope_theta not read: the default base 10000."""
    cos, sin = hf_cos_sin(hf_default_inv_freq(10000.0, spec.rotary_dim), pos, x.dtype)
    return hf_apply(x, cos, sin)


def hf_inv_freq_buffer_bf16(x, pos, spec):
    """model.to(torch.bfloat16) converted the non-persistent inv_freq buffer; forward upcasts it again."""
    inv_freq = hf_default_inv_freq(spec.base, spec.rotary_dim).to(torch.bfloat16)
    cos, sin = hf_cos_sin(inv_freq.float(), pos, x.dtype)
    return hf_apply(x, cos, sin)


def hf_cos_sin_fp16(x, pos, spec):
    """cos and sin cached in float16 (a half-precision cache) and used with float32 q and k."""
    cos, sin = hf_cos_sin(hf_default_inv_freq(spec.base, spec.rotary_dim), pos, torch.float16)
    return hf_apply(x, cos.to(x.dtype), sin.to(x.dtype))


def hf_partial_head_dim_denominator(x, pos, spec):
    """partial_rotary_factor applied to the slice but not to inv_freq's exponent: arange(0, r, 2) / head_dim."""
    cos, sin = hf_cos_sin(hf_default_inv_freq(spec.base, spec.rotary_dim, denominator=spec.dim), pos, x.dtype)
    return hf_apply(x, cos, sin)


def hf_partial_window_at_end(x, pos, spec):
    """q_pass, q_rot = q[..., :-r], q[..., -r:]: the rotated slice taken from the end of the head."""
    r = spec.rotary_dim
    cos, sin = hf_cos_sin(hf_default_inv_freq(spec.base, r), pos, x.dtype)
    x_pass, x_rot = x[..., : spec.dim - r], x[..., spec.dim - r:]
    return torch.cat((x_pass, x_rot * cos[:, None, :] + hf_rotate_half(x_rot) * sin[:, None, :]), dim=-1)


def hf_partial_rotary_forgotten(x, pos, spec):
    """partial_rotary_factor ignored: inv_freq over the head dim, and every dim rotated."""
    cos, sin = hf_cos_sin(hf_default_inv_freq(spec.base, spec.dim), pos, x.dtype)
    return hf_apply(x, cos, sin)


def hf_yarn_attention_factor_twice(x, pos, spec):
    """attention_scaling folded into cos and sin, and the attention's q scaled by it again."""
    inv_freq, attention_factor = hf_yarn_inv_freq(spec.base, spec.rotary_dim, scaling_fields(spec, "yarn"))
    cos, sin = hf_cos_sin(inv_freq, pos, x.dtype, attention_scaling=attention_factor)
    return hf_apply(x, cos, sin) * attention_factor


def hf_yarn_attention_factor_missing(x, pos, spec):
    """YaRN's frequencies, but attention_scaling left at 1 (the rope_init_fn's second value dropped)."""
    inv_freq, _ = hf_yarn_inv_freq(spec.base, spec.rotary_dim, scaling_fields(spec, "yarn"))
    cos, sin = hf_cos_sin(inv_freq, pos, x.dtype)
    return hf_apply(x, cos, sin)


def hf_yarn_ramp_over_dims(x, pos, spec):
    """The linear ramp evaluated on arange(0, dim, 2) (the exponent's indices) instead of arange(dim // 2)."""
    fields = scaling_fields(spec, "yarn")
    inv_freq, attention_factor = hf_yarn_inv_freq(spec.base, spec.rotary_dim, fields,
                                                  ramp_positions=torch.arange(0, spec.rotary_dim, 2, dtype=torch.float32))
    cos, sin = hf_cos_sin(inv_freq, pos, x.dtype, attention_scaling=attention_factor)
    return hf_apply(x, cos, sin)


def hf_llama3_comparisons_flipped(x, pos, spec):
    """Llama 3's band test written wavelen < high_freq_wavelen: the short waves divided, the long kept."""
    cos, sin = hf_cos_sin(hf_llama3_inv_freq(spec.base, spec.rotary_dim, scaling_fields(spec, "llama3"), flipped=True), pos, x.dtype)
    return hf_apply(x, cos, sin)


def hf_ntk_base_not_rescaled(x, pos, spec):
    """rope_type "ntk" mapped to the default init: base * factor^(r/(r-2)) never computed."""
    scaling_fields(spec, "ntk")
    cos, sin = hf_cos_sin(hf_default_inv_freq(spec.base, spec.rotary_dim), pos, x.dtype)
    return hf_apply(x, cos, sin)


def hf_linear_scaling_twice(x, pos, spec):
    """inv_freq /= factor in the init, and position_ids / factor again in forward."""
    factor = float(scaling_fields(spec, "linear")["factor"])
    inv_freq = hf_default_inv_freq(spec.base, spec.rotary_dim) / factor
    cos, sin = hf_cos_sin(inv_freq, pos.float() / factor, x.dtype)
    return hf_apply(x, cos, sin)


def hf_polar_nan_at_zero(x, pos, spec):
    """cos and sin from a polar normalisation of the angle, freqs / |freqs|: 0 / 0 at position 0."""
    inv_freq = hf_default_inv_freq(spec.base, spec.rotary_dim)
    freqs = pos[:, None].float() * inv_freq[None, :]
    magnitude = freqs.abs()
    emb = torch.cat((freqs, freqs), dim=-1)
    unit = torch.cat((freqs / magnitude, freqs / magnitude), dim=-1)
    cos, sin = emb.cos(), emb.abs().sin() * unit
    return hf_apply(x, cos.to(x.dtype), sin.to(x.dtype))


def hf_angles_in_half(x, pos, spec):
    """The rotary embedding's matmul run in float16 (autocast left on): inv_freq @ position_ids in half."""
    cos, sin = hf_cos_sin(hf_default_inv_freq(spec.base, spec.rotary_dim), pos, x.dtype, angle_dtype=torch.float16)
    return hf_apply(x, cos, sin)


def hf_rotate_half_sign(x, pos, spec):
    """rotate_half returning (x2, -x1): the rotation turns the other way."""
    cos, sin = hf_cos_sin(hf_default_inv_freq(spec.base, spec.rotary_dim), pos, x.dtype)
    flipped = lambda t: torch.cat((t[..., t.shape[-1] // 2:], -t[..., : t.shape[-1] // 2]), dim=-1)  # noqa: E731
    return hf_apply(x, cos, sin, flipped)


# ---- vLLM style: RotaryEmbedding._compute_inv_freq / _compute_cos_sin_cache, forward_native.
# The cache's rows are computed for the call's positions only (t = positions), not arange(max_position):
# the diagnosis's positions reach 8e6, a cache that long would take gigabytes.

def vllm_inv_freq(base, rotary_dim, denominator=None, dtype=torch.float):
    return 1.0 / (base ** (torch.arange(0, rotary_dim, 2, dtype=dtype) / (denominator or rotary_dim)))


def vllm_cache(inv_freq, positions, mscale=1.0, cache_dtype=torch.float32, angle_dtype=torch.float32):
    """_compute_cos_sin_cache: freqs = einsum(t, inv_freq), cache = cat(cos, sin) [N, r]."""
    t = positions.to(torch.float)
    freqs = torch.einsum("i,j -> ij", t, inv_freq.float()).to(angle_dtype).float()  # rounded to angle_dtype
    cache = torch.cat((freqs.cos() * mscale, freqs.sin() * mscale), dim=-1)
    return cache.to(cache_dtype)


def vllm_apply_rotary_emb(x, cos, sin, is_neox_style):
    """_apply_rotary_emb_torch: neox halves by chunk, gptj pairs by ::2 strides."""
    cos, sin = cos.unsqueeze(-2).to(x.dtype), sin.unsqueeze(-2).to(x.dtype)
    if is_neox_style:
        x1, x2 = torch.chunk(x, 2, dim=-1)
    else:
        x1, x2 = x[..., ::2], x[..., 1::2]
    o1, o2 = x1 * cos - x2 * sin, x2 * cos + x1 * sin
    return torch.cat((o1, o2), dim=-1) if is_neox_style else torch.stack((o1, o2), dim=-1).flatten(-2)


def vllm_forward(x, spec, cache, is_neox_style=None, window_at_end=False, sin_sign=1.0):
    """forward_native: cos, sin = cache.chunk(2); rotate query[..., :rotary_dim], pass the rest."""
    neox = spec.layout == "neox" if is_neox_style is None else is_neox_style
    cos, sin = cache.chunk(2, dim=-1)
    r = spec.rotary_dim
    if window_at_end:
        x_pass, x_rot = x[..., : spec.dim - r], x[..., spec.dim - r:]
        return torch.cat((x_pass, vllm_apply_rotary_emb(x_rot, cos, sin_sign * sin, neox)), dim=-1)
    x_rot, x_pass = x[..., :r], x[..., r:]
    return torch.cat((vllm_apply_rotary_emb(x_rot, cos, sin_sign * sin, neox), x_pass), dim=-1)


def require_plain(spec):
    if spec.scaling or spec.freqs or spec.truncate_low != 0:
        raise Unsupported("the plain RotaryEmbedding only")


def vllm_plain(x, pos, spec, inv_freq=None, cache=None, **forward):
    """The plain RotaryEmbedding (inv_freq: its own unless given), cache options and forward options as given."""
    require_plain(spec)
    inv_freq = vllm_inv_freq(spec.base, spec.rotary_dim) if inv_freq is None else inv_freq
    return vllm_forward(x, spec, vllm_cache(inv_freq, pos, **(cache or {})), **forward)


def vllm_gptj_style_for_neox(x, pos, spec):
    """is_neox_style=False passed for a NeoX-ordered model."""
    return vllm_plain(x, pos, spec, is_neox_style=False)


def vllm_neox_style_for_gptj(x, pos, spec):
    """is_neox_style left at its default True for a GPT-J-ordered model."""
    return vllm_plain(x, pos, spec, is_neox_style=True)


def vllm_positions_plus_one(x, pos, spec):
    """positions taken from the slot after each token's (an offset of one in the model runner)."""
    return vllm_plain(x, pos + 1, spec)


def vllm_rope_theta_default(x, pos, spec):
    """get_rope(..., base=10000): the config's rope_theta not passed through."""
    return vllm_plain(x, pos, spec, inv_freq=vllm_inv_freq(10000.0, spec.rotary_dim))


def vllm_inv_freq_fp16(x, pos, spec):
    """_compute_inv_freq in the model's float16: base ** (arange / r) and its reciprocal in half."""
    exponent = (torch.arange(0, spec.rotary_dim, 2, dtype=torch.float) / spec.rotary_dim).half()
    return vllm_plain(x, pos, spec, inv_freq=1.0 / (torch.tensor(spec.base, dtype=torch.half) ** exponent))


def vllm_cache_fp16(x, pos, spec):
    """cos_sin_cache.to(torch.float16) (the model's dtype) while q and k stay float32."""
    return vllm_plain(x, pos, spec, cache={"cache_dtype": torch.float16})


def vllm_cache_bf16(x, pos, spec):
    """cos_sin_cache.to(torch.bfloat16) while q and k stay float32."""
    return vllm_plain(x, pos, spec, cache={"cache_dtype": torch.bfloat16})


def vllm_head_size_denominator(x, pos, spec):
    """_compute_inv_freq dividing by head_size where rotary_dim < head_size."""
    return vllm_plain(x, pos, spec, inv_freq=vllm_inv_freq(spec.base, spec.rotary_dim, denominator=spec.dim))


def vllm_rotary_window_at_end(x, pos, spec):
    """query_rot taken as query[..., -rotary_dim:] and query_pass as the front."""
    return vllm_plain(x, pos, spec, window_at_end=True)


def vllm_yarn(spec):
    """YaRNScalingRotaryEmbedding's inv_freq and mscale (yarn_get_mscale(factor) * attn_factor)."""
    fields = scaling_fields(spec, "yarn")
    return hf_yarn_inv_freq(spec.base, spec.rotary_dim, fields)


def vllm_yarn_mscale_twice(x, pos, spec):
    """mscale in the cache, and the query multiplied by mscale again in the attention wrapper."""
    inv_freq, mscale = vllm_yarn(spec)
    return vllm_forward(x, spec, vllm_cache(inv_freq, pos, mscale=mscale)) * mscale


def vllm_yarn_mscale_missing(x, pos, spec):
    """The cache built by the base class's _compute_cos_sin_cache: YaRN's inv_freq, no mscale."""
    inv_freq, _ = vllm_yarn(spec)
    return vllm_forward(x, spec, vllm_cache(inv_freq, pos))


def vllm_llama3_bands_swapped(x, pos, spec):
    """Llama3RotaryEmbedding with low_freq_wavelen and high_freq_wavelen exchanged in the band test."""
    fields = scaling_fields(spec, "llama3")
    inv_freq = vllm_inv_freq(spec.base, spec.rotary_dim)
    factor, old = float(fields["factor"]), int(fields["original_max"])
    low_ff, high_ff = float(fields.get("low_freq_factor", 1)), float(fields.get("high_freq_factor", 4))
    low_freq_wavelen, high_freq_wavelen = old / low_ff, old / high_ff
    wave_len = 2 * math.pi / inv_freq
    smooth = (old / wave_len - low_ff) / (high_ff - low_ff)
    new_freqs = torch.where(wave_len > low_freq_wavelen, inv_freq,
                            torch.where(wave_len < high_freq_wavelen, inv_freq / factor, (1 - smooth) * inv_freq / factor + smooth * inv_freq))
    return vllm_forward(x, spec, vllm_cache(new_freqs, pos))


def vllm_cache_angles_half(x, pos, spec):
    """freqs = einsum(t, inv_freq).half() before cos and sin: angles past 65504 become inf."""
    return vllm_plain(x, pos, spec, cache={"angle_dtype": torch.float16})


def vllm_sin_sign_flipped(x, pos, spec):
    """o1 = x1 cos + x2 sin, o2 = x2 cos - x1 sin: sin's sign flipped."""
    return vllm_plain(x, pos, spec, sin_sign=-1.0)
