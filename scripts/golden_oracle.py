#!/usr/bin/python3
"""Independent oracle for pecheck's golden values.

Written from golden/README.md's definitions and the papers / model code it cites, not from
pecheck's C++ sources. Every output of every case is recomputed with mpmath at high precision
and compared with the stored 45-digit decimal.

    python3 scripts/golden_oracle.py [--dir golden] [--tolerance 1e-30]

Exit status: 0 every value agrees; 1 some value disagrees (or an unknown op / scheme);
2 usage error, or unreadable / malformed input.
"""

import os
import sys

_MPMATH_MISSING = ("golden_oracle: mpmath is not importable; install Debian's python3-mpmath "
                   "(apt-get install python3-mpmath) and run with /usr/bin/python3")
_REEXEC_GUARD = "GOLDEN_ORACLE_REEXEC"

try:
    import mpmath
except ImportError:
    # `python3` on PATH may be a pyenv interpreter without Debian's dist-packages: retry once
    # with Debian's own interpreter, which sees python3-mpmath.
    _debian = "/usr/bin/python3"
    _here = os.path.realpath(sys.executable) if sys.executable else ""
    if (not os.environ.get(_REEXEC_GUARD) and os.path.exists(_debian)
            and os.path.realpath(_debian) != _here):
        os.environ[_REEXEC_GUARD] = "1"
        try:
            os.execv(_debian, [_debian, os.path.abspath(__file__)] + sys.argv[1:])
        except OSError:
            pass
    sys.stderr.write(_MPMATH_MISSING + "\n")
    sys.exit(2)

import argparse
import json
import re
from fractions import Fraction

from mpmath import mp, mpf
from mpmath.libmp import to_float

mp.prec = 512  # positions reach 2^40, so p * w needs well over 256 bits for 1e-30 in sin/cos

MASK64 = (1 << 64) - 1


class Malformed(Exception):
    """Unreadable or malformed input (exit 2)."""


class Unsupported(Exception):
    """Unknown op, scheme or parameter combination (exit 1)."""


# --------------------------------------------------------------------------------------------
# Spec text parser: name(key=value, ...), values are numbers, identifiers, true/false, lists
# [a, b, ...] and nested specs.
# --------------------------------------------------------------------------------------------

class Spec:
    def __init__(self, name, params):
        self.name = name
        self.params = params

    def get(self, key, default=None):
        return self.params.get(key, default)

    def req(self, key):
        if key not in self.params:
            raise Malformed("spec %s lacks parameter %r" % (self.name, key))
        return self.params[key]

    def __repr__(self):
        return "%s(%s)" % (self.name, ", ".join("%s=%r" % kv for kv in self.params.items()))


_TOKEN = re.compile(r"\s*(?:([A-Za-z_][A-Za-z0-9_]*)|([-+]?(?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?"
                    r"|[-+]?inf|nan)|([()\[\],=]))")


def _tokenize(text):
    pos, out = 0, []
    text = text.strip()
    while pos < len(text):
        m = _TOKEN.match(text, pos)
        if not m or m.end() == pos:
            raise Malformed("cannot parse spec text at %r" % text[pos:pos + 20])
        ident, num, punct = m.groups()
        if num is not None:
            out.append(("num", num))
        elif ident is not None:
            out.append(("id", ident))
        else:
            out.append(("p", punct))
        pos = m.end()
    return out


def parse_spec(text):
    toks = _tokenize(text)
    i = [0]

    def peek():
        return toks[i[0]] if i[0] < len(toks) else ("end", None)

    def take(kind=None, val=None):
        t = peek()
        if (kind and t[0] != kind) or (val and t[1] != val):
            raise Malformed("spec %r: expected %s, got %r" % (text, val or kind, t[1]))
        i[0] += 1
        return t

    def value():
        kind, v = peek()
        if kind == "num":
            take()
            if re.fullmatch(r"[-+]?\d+", v):
                return int(v)
            return float(v)  # spec numbers are binary64
        if kind == "p" and v == "[":
            take()
            items = []
            if peek() != ("p", "]"):
                items.append(value())
                while peek() == ("p", ","):
                    take()
                    items.append(value())
            take("p", "]")
            return items
        if kind == "id":
            take()
            if peek() == ("p", "("):
                return spec_body(v)
            if v == "true":
                return True
            if v == "false":
                return False
            return v
        raise Malformed("spec %r: unexpected %r" % (text, v))

    def spec_body(name):
        take("p", "(")
        params = {}
        if peek() != ("p", ")"):
            while True:
                key = take("id")[1]
                take("p", "=")
                if key in params:
                    raise Malformed("spec %r: repeated parameter %r" % (text, key))
                params[key] = value()
                if peek() == ("p", ","):
                    take()
                    continue
                break
        take("p", ")")
        return Spec(name, params)

    name = take("id")[1]
    s = spec_body(name)
    if peek()[0] != "end":
        raise Malformed("spec %r: trailing text" % text)
    return s


def R(v):
    """Spec number (binary64 or integer) as an exact mpf."""
    if isinstance(v, bool) or not isinstance(v, (int, float)):
        raise Malformed("expected a number, got %r" % (v,))
    return mpf(v)


def Q(v):
    """Spec number as an exact rational."""
    if isinstance(v, bool) or not isinstance(v, (int, float)):
        raise Malformed("expected a number, got %r" % (v,))
    return Fraction(v)


def I(v):
    if isinstance(v, float) and v.is_integer():
        v = int(v)
    if isinstance(v, bool) or not isinstance(v, int):
        raise Malformed("expected an integer, got %r" % (v,))
    return v


# --------------------------------------------------------------------------------------------
# Seeded stand-in for trained weights (golden/README.md, "The seeded stand-in"): splitmix64
# (Steele, Lea & Flood 2014 / Vigna's reference C) driving a Box-Muller normal.
# --------------------------------------------------------------------------------------------

def splitmix64(x):
    x = (x + 0x9E3779B97F4A7C15) & MASK64
    x = ((x ^ (x >> 30)) * 0xBF58476D1CE4E5B9) & MASK64
    x = ((x ^ (x >> 27)) * 0x94D049BB133111EB) & MASK64
    return x ^ (x >> 31)


def round_to_double(x):
    """Round an mpf to the nearest binary64 (explicit round-to-nearest-even)."""
    return mpf(to_float(x._mpf_, rnd="n"))


_ENTRY_CACHE = {}


def entry(seed, e, sd):
    key = (seed, e, sd)
    hit = _ENTRY_CACHE.get(key)
    if hit is not None:
        return hit
    s = splitmix64(seed & MASK64)
    h1 = splitmix64((s + 2 * e) & MASK64)
    h2 = splitmix64((s + 2 * e + 1) & MASK64)
    u1 = mpf((h1 >> 11) + 1) / mpf(2) ** 53
    u2 = mpf(h2 >> 11) / mpf(2) ** 53
    z = mp.sqrt(-2 * mp.log(u1)) * mp.cos(2 * mp.pi * u2)
    val = round_to_double(R(sd) * z)
    _ENTRY_CACHE[key] = val
    return val


def entries(spec, start, count):
    seed = I(spec.req("seed"))
    sd = spec.req("init_std")
    return [entry(seed, start + e, sd) for e in range(count)]


# --------------------------------------------------------------------------------------------
# Absolute encodings (encode).
# --------------------------------------------------------------------------------------------

def pe_integer(spec, p):
    # "every component is p"
    return [mpf(p)] * I(spec.req("dim"))


def pe_normalized(spec, p):
    # p / length
    return [mpf(p) / R(spec.req("length"))] * I(spec.req("dim"))


def pe_binary(spec, p):
    # bit j of p, least significant first
    if p < 0:
        raise Malformed("binary encoding of negative position %d" % p)
    return [mpf((p >> j) & 1) for j in range(I(spec.req("dim")))]


def pe_learned(spec, p):
    # row p of a [max_len, dim] table of seeded N(0, init_std^2) entries (GPT-2 style wpe)
    dim = I(spec.req("dim"))
    if not 0 <= p < I(spec.req("max_len")):
        raise Malformed("learned position %d outside [0, max_len)" % p)
    return entries(spec, p * dim, dim)


def pe_none(spec, p):
    return [mpf(0)] * I(spec.req("dim"))


_SIN_FREQ_CACHE = {}


def sinusoid_freqs(dim, base, layout):
    """Vaswani et al. 2017, sec. 3.5: w_i = base^(-2i/dim); fairseq / tensor2tensor
    (get_timing_signal_1d, SinusoidalPositionalEmbedding): w_i = base^(-i/(dim/2 - 1))."""
    key = (dim, base, layout)
    if key not in _SIN_FREQ_CACHE:
        half = dim // 2
        if layout == "fairseq":
            ws = [R(base) ** (-mpf(i) / (half - 1)) for i in range(half)]
        elif layout in ("interleaved", "concat"):
            ws = [R(base) ** (-mpf(2 * i) / dim) for i in range(half)]
        else:
            raise Unsupported("sinusoidal layout %r" % layout)
        _SIN_FREQ_CACHE[key] = ws
    return _SIN_FREQ_CACHE[key]


def sinusoid_vector(dim, base, layout, p):
    if dim % 2:
        raise Malformed("sinusoidal dim %d is odd" % dim)
    ws = sinusoid_freqs(dim, base, layout)
    half = dim // 2
    out = [None] * dim
    for i, w in enumerate(ws):
        a = mpf(p) * w
        s, c = mp.sin(a), mp.cos(a)
        if layout == "interleaved":
            out[2 * i], out[2 * i + 1] = s, c
        else:  # concat, fairseq: [sin | cos]
            out[i], out[i + half] = s, c
    return out


def pe_sinusoidal(spec, p):
    return sinusoid_vector(I(spec.req("dim")), spec.req("base"), spec.req("layout"), p)


ABSOLUTE = {
    "integer": pe_integer,
    "normalized": pe_normalized,
    "binary": pe_binary,
    "learned": pe_learned,
    "none": pe_none,
    "sinusoidal": pe_sinusoidal,
}


# --------------------------------------------------------------------------------------------
# RoPE frequencies (Su et al. 2021, RoFormer) and the scalings of HF transformers'
# modeling_rope_utils.py (+ ggml's rope_yarn for YaRN's ggml magnitude).
# --------------------------------------------------------------------------------------------

def rope_plain(spec, r):
    freqs = spec.get("freqs")
    if freqs is not None:
        if len(freqs) != r // 2:
            raise Malformed("rope freqs has %d entries, expected %d" % (len(freqs), r // 2))
        return [R(f) for f in freqs]
    base = R(spec.req("base"))
    return [base ** (-mpf(2 * i) / r) for i in range(r // 2)]


def scale_linear(spec, sc, w, r, seq_len):
    # _compute_linear_scaling_rope_parameters: inv_freq / factor (Chen et al. 2023, PI)
    s = R(sc.req("factor"))
    return [x / s for x in w], mpf(1)


def _ntk_freqs(base, r):
    return [base ** (-mpf(2 * i) / r) for i in range(r // 2)]


def scale_ntk(spec, sc, w, r, seq_len):
    # static NTK-aware: base * s^(r/(r-2)) (bloc97's NTK-aware scaled RoPE)
    s = R(sc.req("factor"))
    base = R(spec.req("base")) * s ** (mpf(r) / (r - 2))
    return _ntk_freqs(base, r), mpf(1)


def scale_dynamic(spec, sc, w, r, seq_len):
    # _compute_dynamic_ntk_parameters: base * (s * seq_len / L - (s - 1))^(r/(r-2)) if seq_len > L
    s, L = R(sc.req("factor")), R(sc.req("original_max"))
    if seq_len is None:
        raise Malformed("dynamic scaling needs seq_len (spec or positions)")
    if mpf(seq_len) > L:
        base = R(spec.req("base")) * (s * seq_len / L - (s - 1)) ** (mpf(r) / (r - 2))
        return _ntk_freqs(base, r), mpf(1)
    return w, mpf(1)


def scale_llama3(spec, sc, w, r, seq_len):
    # _compute_llama3_parameters (Llama 3.1 reference / HF)
    s, lo = R(sc.req("factor")), R(sc.req("low_freq_factor"))
    hi, L = R(sc.req("high_freq_factor")), R(sc.req("original_max"))
    low_wavelen, high_wavelen = L / lo, L / hi
    out = []
    for x in w:
        if x == 0:
            out.append(x / s)  # infinite wavelength: the low-frequency branch
            continue
        lam = 2 * mp.pi / x
        if lam > low_wavelen:
            out.append(x / s)
        elif lam < high_wavelen:
            out.append(x)
        else:
            t = (L / lam - lo) / (hi - lo)
            out.append((1 - t) * x / s + t * x)
    return out, mpf(1)


def scale_yarn(spec, sc, w, r, seq_len):
    # Peng et al. 2023 (YaRN); HF _compute_yarn_parameters (find_correction_range,
    # linear_ramp_factor, get_mscale) and ggml's ggml_rope_yarn_corr_dims / rope_yarn.
    s, L = R(sc.req("factor")), R(sc.req("original_max"))
    base = R(spec.req("base"))
    magnitude = sc.get("magnitude", "hf")
    if magnitude not in ("hf", "ggml"):
        raise Unsupported("yarn magnitude %r" % magnitude)

    def corr(beta):
        return r * mp.log(L / (2 * mp.pi * R(beta))) / (2 * mp.log(base))

    low, high = corr(sc.req("beta_fast")), corr(sc.req("beta_slow"))
    if sc.get("truncate", True) is True or magnitude == "ggml":
        low, high = mp.floor(low), mp.ceil(high)
    low = max(low, mpf(0))
    high = min(high, mpf(r - 1))
    span = high - low
    if magnitude == "hf":
        if low == high:
            span = mpf(1) / 1000
    else:
        span = max(span, mpf(1) / 1000)
    out = []
    for i, x in enumerate(w):
        ramp = min(max((i - low) / span, mpf(0)), mpf(1))
        out.append(x / s * ramp + x * (1 - ramp))

    def m(v):
        return mpf(1) if s <= 1 else mpf(1) / 10 * v * mp.log(s) + 1

    af = sc.get("attention_factor")
    if magnitude == "hf":
        ms, msa = sc.get("mscale"), sc.get("mscale_all_dim")
        if af is not None:
            A = R(af)
        elif ms is not None and msa is not None and ms != 0 and msa != 0:
            A = m(R(ms)) / m(R(msa))
        else:
            A = m(mpf(1))
    else:
        A = (R(af) if af is not None else mpf(1)) * (1 + mpf(1) / 10 * mp.log(s))
    return out, A


def scale_longrope(spec, sc, w, r, seq_len):
    # Phi-3 LongRoPE (Ding et al. 2024); HF _compute_longrope_parameters
    L = R(sc.req("original_max"))
    if seq_len is None:
        raise Malformed("longrope scaling needs seq_len (spec or positions)")
    factors = sc.req("long_factor") if mpf(seq_len) > L else sc.req("short_factor")
    if len(factors) != len(w):
        raise Malformed("longrope factor list has %d entries, expected %d" % (len(factors), len(w)))
    out = [x / R(f) for x, f in zip(w, factors)]
    af = sc.get("attention_factor")
    if af is not None:
        A = R(af)
    else:
        f = sc.get("factor")
        s = R(f) if f is not None else R(sc.req("max_pos")) / L
        A = mpf(1) if s <= 1 else mp.sqrt(1 + mp.log(s) / mp.log(L))
    return out, A


SCALINGS = {
    "linear": scale_linear,
    "ntk": scale_ntk,
    "dynamic": scale_dynamic,
    "llama3": scale_llama3,
    "yarn": scale_yarn,
    "longrope": scale_longrope,
}

_ROPE_CACHE = {}


def rope_freqs(spec_text, spec, call_seq_len):
    """w_i (i < r/2) and the attention factor A of a rope(...) spec."""
    r = I(spec.get("rotary_dim", spec.req("dim")))
    sc = spec.get("scaling")
    if sc is not None and sc != "none" and not isinstance(sc, Spec):
        raise Malformed("rope scaling %r is not a spec" % (sc,))
    if isinstance(sc, Spec) and sc.get("seq_len") is not None:
        seq_len = I(sc.get("seq_len"))
    else:
        seq_len = call_seq_len  # README: defaults to max(pos) + 1 of the call
    key = (spec_text, seq_len)
    if key in _ROPE_CACHE:
        return _ROPE_CACHE[key]
    if r % 2 or r > I(spec.req("dim")):
        raise Malformed("rope rotary_dim %d invalid" % r)
    w = rope_plain(spec, r)
    A = mpf(1)
    if isinstance(sc, Spec):
        fn = SCALINGS.get(sc.name)
        if fn is None:
            raise Unsupported("unknown rope scaling %r" % sc.name)
        w, A = fn(spec, sc, w, r, seq_len)
    # truncate_low = f: the last floor(f * r/2) frequencies are 0 (p-RoPE, Barbero et al. 2024)
    f = spec.get("truncate_low", 0)
    nzero = int((Q(f) * (r // 2)) // 1)
    if nzero > 0:
        w = w[:len(w) - nzero] + [mpf(0)] * nzero
    _ROPE_CACHE[key] = (w, A)
    return w, A


def rotation_plan(spec_text, spec, call_seq_len):
    """(D, [(dim_a, dim_b, w, position column)], A) for rope / rope_nd / mrope."""
    if spec.name == "rope":
        D = I(spec.req("dim"))
        r = I(spec.get("rotary_dim", D))
        w, A = rope_freqs(spec_text, spec, call_seq_len)
        layout = spec.req("layout")
        if layout == "neox":      # HF rotate_half: (i, i + r/2)
            pairs = [(i, i + r // 2, w[i], 0) for i in range(r // 2)]
        elif layout == "gptj":    # GPT-J rotate_every_two: (2i, 2i + 1)
            pairs = [(2 * i, 2 * i + 1, w[i], 0) for i in range(r // 2)]
        else:
            raise Unsupported("rope layout %r" % layout)
        return D, pairs, A
    if spec.name == "rope_nd":
        # axial RoPE (Flux EmbedND / Heo et al. 2024): axis a rotates its own dims by column a
        axes = [I(a) for a in spec.req("axes")]
        base, layout = R(spec.req("base")), spec.req("layout")
        pairs, o = [], 0
        for a, d in enumerate(axes):
            if d % 2:
                raise Malformed("rope_nd axis size %d is odd" % d)
            for i in range(d // 2):
                w = base ** (-mpf(2 * i) / d)
                if layout == "gptj":
                    pairs.append((o + 2 * i, o + 2 * i + 1, w, a))
                elif layout == "neox":
                    pairs.append((o + i, o + i + d // 2, w, a))
                else:
                    raise Unsupported("rope_nd layout %r" % layout)
            o += d
        return o, pairs, mpf(1)
    if spec.name == "mrope":
        # Qwen2-VL M-RoPE (contiguous sections) / Qwen3-VL apply_interleaved_mrope
        dim = I(spec.req("dim"))
        st, sh, sw = [I(x) for x in spec.req("sections")]
        base = R(spec.req("base"))
        inter = spec.req("interleaved")
        layout = spec.req("layout")
        if layout not in ("neox", "gptj"):
            raise Unsupported("mrope layout %r" % layout)
        half = dim // 2
        if st + sh + sw != half:
            raise Malformed("mrope sections %r do not sum to dim/2" % ([st, sh, sw],))
        pairs = []
        for j in range(half):
            if inter is True:
                if j % 3 == 1 and j < 3 * sh:
                    col = 1
                elif j % 3 == 2 and j < 3 * sw:
                    col = 2
                else:
                    col = 0
            elif inter is False:
                col = 0 if j < st else (1 if j < st + sh else 2)
            else:
                raise Malformed("mrope interleaved must be true/false")
            a, b = (j, j + half) if layout == "neox" else (2 * j, 2 * j + 1)  # GLM-4.1V: gptj pairs
            pairs.append((a, b, base ** (-mpf(2 * j) / dim), col))
        return dim, pairs, mpf(1)
    raise Unsupported("scheme %r has no rotation" % spec.name)


ROTARY = ("rope", "rope_nd", "mrope")


def rotate_vec(x, prow, pairs, A, trig_cache):
    """y_a = A (cos x_a - sin x_b), y_b = A (sin x_a + cos x_b); pass-through dims unchanged."""
    y = list(x)
    for k, (a, b, w, col) in enumerate(pairs):
        key = (prow[col], k)
        cs = trig_cache.get(key)
        if cs is None:
            ang = mpf(prow[col]) * w
            cs = trig_cache[key] = (mp.cos(ang), mp.sin(ang))
        c, s = cs
        y[a] = A * (c * x[a] - s * x[b])
        y[b] = A * (s * x[a] + c * x[b])
    return y


def pos_rows(t):
    """Position tensor [T] or [T, A] -> list of rows."""
    shape, data = t["shape"], t["data"]
    if len(shape) == 1:
        return [[p] for p in data]
    if len(shape) == 2:
        return [data[i * shape[1]:(i + 1) * shape[1]] for i in range(shape[0])]
    raise Malformed("position tensor of shape %r" % (shape,))


def seq_len_of(rows):
    return max(r[0] for r in rows) + 1 if rows else None


# --------------------------------------------------------------------------------------------
# ALiBi (Press et al. 2022; slopes as in the authors' get_slopes / BLOOM build_alibi_tensor).
# --------------------------------------------------------------------------------------------

def alibi_slopes(n):
    m = 1
    while m * 2 <= n:
        m *= 2
    slopes = [mpf(2) ** (-mpf(8 * h) / m) for h in range(1, m + 1)]
    slopes += [mpf(2) ** (-mpf(4 * (2 * j + 1)) / m) for j in range(n - m)]
    return slopes


def alibi_bias(spec, H, qpos, kpos):
    n = I(spec.req("heads"))
    causal = spec.req("causal")
    slopes = alibi_slopes(n)
    if H is not None and H != n:
        raise Malformed("alibi heads %d but attention has %d" % (n, H))
    out = {}
    for h in range(n):
        for i, qi in enumerate(qpos):
            for j, kj in enumerate(kpos):
                d = qi - kj
                out[h, i, j] = -slopes[h] * (d if causal is True else abs(d))
    return n, out


# --------------------------------------------------------------------------------------------
# T5 buckets (Raffel et al. 2020; HF T5Attention._relative_position_bucket), floor decided
# exactly: floor(c ln(n/e) / ln(M/e)) = largest k >= 0 with (M/e)^k <= (n/e)^c.
# --------------------------------------------------------------------------------------------

def _exact_floor_log_ratio(c, x, y):
    """floor(c ln x / ln y) for rationals x >= 1, y > 1, integer c >= 0."""
    lhs = x ** c
    k = int(mp.floor(c * mp.log(mpf(x.numerator) / x.denominator)
                     / mp.log(mpf(y.numerator) / y.denominator)))
    k = max(k, 0)
    while y ** k > lhs:
        k -= 1
    while y ** (k + 1) <= lhs:
        k += 1
    return k


def _exact_ceil_log_ratio(c, x, y):
    """ceil(c ln x / ln y) for rationals x >= 1, y > 1, integer c >= 0."""
    lhs = x ** c
    k = int(mp.ceil(c * mp.log(mpf(x.numerator) / x.denominator)
                    / mp.log(mpf(y.numerator) / y.denominator)))
    k = max(k, 0)
    while y ** k < lhs:
        k += 1
    while k > 0 and y ** (k - 1) >= lhs:
        k -= 1
    return k


def t5_bucket(spec, rel):
    B = I(spec.req("buckets"))
    M = Q(spec.req("max_distance"))
    if spec.req("bidirectional") is True:
        per = B // 2
        offset = per if rel > 0 else 0
        n = abs(rel)
    else:
        per, offset, n = B, 0, max(-rel, 0)
    exact = per // 2
    if n < exact:
        return offset + n
    if n >= M:
        return offset + per - 1
    if M <= exact:
        raise Malformed("t5 max_distance must exceed buckets/4 (or /2)")
    k = _exact_floor_log_ratio(per - exact, Fraction(n, exact), M / exact)
    return offset + exact + min(k, per - exact - 1)


def t5_bias(spec, H, qpos, kpos):
    heads = I(spec.req("heads"))
    if H is not None and H != heads:
        raise Malformed("t5 heads %d but attention has %d" % (heads, H))
    out = {}
    for i, qi in enumerate(qpos):
        for j, kj in enumerate(kpos):
            b = t5_bucket(spec, kj - qi)  # rel = key - query
            for h in range(heads):
                out[h, i, j] = entry(I(spec.req("seed")), b * heads + h, spec.req("init_std"))
    return heads, out


# --------------------------------------------------------------------------------------------
# DeBERTa buckets (He et al. 2021; HF make_log_bucket_position), ceil decided exactly.
# --------------------------------------------------------------------------------------------

def deberta_bucket(spec, rel):
    buckets = I(spec.req("buckets"))
    if buckets <= 0:
        return rel
    mid = buckets // 2
    a = abs(rel)
    if a <= mid:
        return rel
    P = Q(spec.req("max_position"))
    y = (P - 1) / mid
    if y <= 1:
        raise Malformed("deberta max_position too small for its buckets")
    k = _exact_ceil_log_ratio(mid - 1, Fraction(a, mid), y)
    return (1 if rel > 0 else -1) * (mid + k)


# --------------------------------------------------------------------------------------------
# KERPLE (Chi, Fan, Ramadge & Rudnicky 2022): the CPD kernels of the paper's two variants, per
# head, of the distance |i - j| (chijames/KERPLE, ParallelKerpleLog / ParallelKerplePower).
# --------------------------------------------------------------------------------------------

def kerple_params(spec):
    n = I(spec.req("heads"))
    variant = spec.req("variant")
    if variant not in ("log", "power"):
        raise Unsupported("kerple variant %r" % (variant,))
    r1, r2 = spec.req("r1"), spec.req("r2")
    if not isinstance(r1, list) or not isinstance(r2, list) or len(r1) != n or len(r2) != n:
        raise Malformed("kerple r1 and r2 must list one value per head (%d)" % n)
    r1, r2 = [R(v) for v in r1], [R(v) for v in r2]
    if any(v <= 0 for v in r1 + r2):
        raise Malformed("kerple r1 and r2 must be positive")
    if variant == "power" and any(v > 2 for v in r2):
        raise Malformed("kerple power exponent r2 must be <= 2 (CPD only for 0 < r2 <= 2)")
    return n, variant, r1, r2


def kerple_bias(spec, H, qpos, kpos):
    n, variant, r1, r2 = kerple_params(spec)
    if H is not None and H != n:
        raise Malformed("kerple heads %d but attention has %d" % (n, H))
    out = {}
    for i, qi in enumerate(qpos):
        for j, kj in enumerate(kpos):
            d = mpf(abs(qi - kj))
            for h in range(n):
                if variant == "log":    # -r1 ln(1 + r2 |i - j|)
                    out[h, i, j] = -r1[h] * mp.log1p(r2[h] * d)
                else:                   # -r1 |i - j|^r2, 0^r2 = 0 for r2 > 0
                    out[h, i, j] = -r1[h] * (d ** r2[h] if d != 0 else mpf(0))
    return n, out


BUCKETS = {"t5": t5_bucket, "deberta": deberta_bucket}
BIASES = {"alibi": alibi_bias, "t5": t5_bias, "kerple": kerple_bias}


# --------------------------------------------------------------------------------------------
# xPos (Sun et al. 2022, "A Length-Extrapolatable Transformer"; torchscale's XPOS): RoPE whose
# pair i is also scaled by zeta_i^(p / scale_base) for queries and zeta_i^(-p / scale_base) for
# keys, zeta_i = (2i/D + gamma) / (1 + gamma). Positions are used as given (no centring).
# --------------------------------------------------------------------------------------------

_XPOS_CACHE = {}


def xpos_plan(spec_text, spec):
    """(D, [(dim_a, dim_b, w_i, ln zeta_i)], scale_base) of an xpos(...) spec."""
    hit = _XPOS_CACHE.get(spec_text)
    if hit is not None:
        return hit
    D = I(spec.req("dim"))
    base, gamma, sb = R(spec.req("base")), R(spec.req("gamma")), R(spec.req("scale_base"))
    layout = spec.req("layout")
    if D <= 0 or D % 2:
        raise Malformed("xpos dim %d must be even and positive" % D)
    if base <= 0 or gamma <= 0 or sb <= 0:
        raise Malformed("xpos base, gamma and scale_base must be positive")
    half = D // 2
    pairs = []
    for i in range(half):
        w = base ** (-mpf(2 * i) / D)
        zeta = (mpf(2 * i) / D + gamma) / (1 + gamma)
        if layout == "gptj":      # torchscale rotate_every_two: (2i, 2i + 1)
            a, b = 2 * i, 2 * i + 1
        elif layout == "neox":    # rotate_half: (i, i + D/2)
            a, b = i, i + half
        else:
            raise Unsupported("xpos layout %r" % layout)
        pairs.append((a, b, w, mp.log(zeta)))
    plan = (D, pairs, sb)
    _XPOS_CACHE[spec_text] = plan
    return plan


def xpos_rotate_vec(x, p, plan, sign, cache):
    """y_pair = zeta_i^(sign p / sb) R(p w_i) x_pair; sign +1 for queries, -1 for keys."""
    _D, pairs, sb = plan
    y = list(x)
    for k, (a, b, w, lnz) in enumerate(pairs):
        key = (p, sign, k)
        t = cache.get(key)
        if t is None:
            ang = mpf(p) * w
            s = mp.exp(sign * mpf(p) / sb * lnz)
            t = cache[key] = (s * mp.cos(ang), s * mp.sin(ang))
        c, s_ = t
        y[a] = c * x[a] - s_ * x[b]
        y[b] = s_ * x[a] + c * x[b]
    return y


def xpos_role_sign(inputs):
    if "role" not in inputs:
        raise Malformed("xpos rotate needs input 'role' (0 = query, 1 = key)")
    role = scalar(inputs["role"])
    if isinstance(role, bool) or not isinstance(role, int) or role not in (0, 1):
        raise Malformed("xpos role must be an i64 scalar 0 (query) or 1 (key), got %r" % (role,))
    return 1 if role == 0 else -1


# --------------------------------------------------------------------------------------------
# Llama 4 attention temperature tuning (HF transformers modeling_llama4.py, NoPE layers):
# tau(p) = ln(floor((p + 1) / floor_scale) + 1) * attn_scale + 1, the floor taken exactly.
# --------------------------------------------------------------------------------------------

def llama4_tau(spec, p):
    fs = Q(spec.req("floor_scale"))
    a = R(spec.req("attn_scale"))
    if fs <= 0:
        raise Malformed("llama4_temperature floor_scale must be positive")
    if p < 0:
        raise Malformed("llama4_temperature position %d is negative" % p)
    k = (Fraction(p + 1) / fs).__floor__()
    return mp.log1p(mpf(k)) * a + 1


# --------------------------------------------------------------------------------------------
# Tensors
# --------------------------------------------------------------------------------------------

def nelem(shape):
    n = 1
    for s in shape:
        n *= s
    return n


def decode_input(name, t):
    if not isinstance(t, dict) or "dtype" not in t or "shape" not in t or "data" not in t:
        raise Malformed("input %r is not {dtype, shape, data}" % name)
    shape, data = t["shape"], t["data"]
    if not isinstance(shape, list) or not all(isinstance(s, int) and s >= 0 for s in shape):
        raise Malformed("input %r has a bad shape" % name)
    if not isinstance(data, list) or len(data) != nelem(shape):
        raise Malformed("input %r: %s elements for shape %r"
                        % (name, len(data) if isinstance(data, list) else "?", shape))
    if t["dtype"] == "f64":
        try:
            vals = [mpf(float.fromhex(v)) for v in data]
        except (TypeError, ValueError):
            raise Malformed("input %r: bad C99 hex float" % name)
    elif t["dtype"] == "i64":
        if not all(isinstance(v, int) and not isinstance(v, bool) for v in data):
            raise Malformed("input %r: i64 data must be JSON integers" % name)
        vals = list(data)
    else:
        raise Malformed("input %r: unknown dtype %r" % (name, t["dtype"]))
    return {"shape": shape, "data": vals}


def need(inputs, *names):
    for n in names:
        if n not in inputs:
            raise Malformed("missing input %r" % n)
    return [inputs[n] for n in names]


def scalar(t):
    if nelem(t["shape"]) != 1:
        raise Malformed("expected a scalar input")
    return t["data"][0]


def split3(t):
    """[N, H, D] tensor -> nested lists [n][h] -> list of D values, and (N, H, D)."""
    if len(t["shape"]) != 3:
        raise Malformed("expected a rank-3 tensor, got %r" % (t["shape"],))
    N, H, D = t["shape"]
    d = t["data"]
    return [[d[(n * H + h) * D:(n * H + h + 1) * D] for h in range(H)] for n in range(N)], (N, H, D)


def dot(a, b):
    return mp.fsum(x * y for x, y in zip(a, b))


# --------------------------------------------------------------------------------------------
# Ops
# --------------------------------------------------------------------------------------------

def op_encode(spec_text, spec, inputs):
    fn = ABSOLUTE.get(spec.name)
    if fn is None:
        raise Unsupported("op encode: unknown scheme %r" % spec.name)
    (pos,) = need(inputs, "pos")
    if len(pos["shape"]) != 1:
        raise Malformed("encode pos must be [T]")
    rows = [fn(spec, p) for p in pos["data"]]
    dim = len(rows[0]) if rows else I(spec.req("dim"))
    return {"pe": ([len(rows), dim], [v for r in rows for v in r])}


def op_inv_freq(spec_text, spec, inputs):
    if spec.name != "rope":
        raise Unsupported("op inv_freq: unsupported scheme %r" % spec.name)
    w, A = rope_freqs(spec_text, spec, None)
    return {"inv_freq": ([len(w)], list(w)), "attention_factor": ([], [A])}


def token_rows(op, inputs, name):
    """The op's real input `name` [T, H, D] as nested rows, its shape, and its T position rows."""
    values, pos = need(inputs, name, "pos")
    vs, shape = split3(values)
    rows = pos_rows(pos)
    if len(rows) != shape[0]:
        raise Malformed("%s: %d positions for %d tokens" % (op, len(rows), shape[0]))
    return vs, shape, rows


def op_rotate(spec_text, spec, inputs):
    if spec.name == "xpos":
        return rotate_xpos(spec_text, spec, inputs)
    if spec.name not in ROTARY:
        raise Unsupported("op rotate: unknown scheme %r" % spec.name)
    if "role" in inputs:
        raise Malformed("rotate: input 'role' is for xpos only")
    xs, (T, H, D), rows = token_rows("rotate", inputs, "x")
    Dp, pairs, A = rotation_plan(spec_text, spec, seq_len_of(rows))
    if Dp != D:
        raise Malformed("rotate: x has D = %d, spec %d" % (D, Dp))
    trig = {}
    out = []
    for t in range(T):
        for h in range(H):
            out.extend(rotate_vec(xs[t][h], rows[t], pairs, A, trig))
    return {"y": ([T, H, D], out)}


def rotate_xpos(spec_text, spec, inputs):
    x, pos = need(inputs, "x", "pos")
    sign = xpos_role_sign(inputs)
    xs, (T, H, D) = split3(x)
    if len(pos["shape"]) != 1 or pos["shape"][0] != T:
        raise Malformed("xpos rotate: pos must be [T] with T = %d" % T)
    plan = xpos_plan(spec_text, spec)
    if plan[0] != D:
        raise Malformed("xpos rotate: x has D = %d, spec %d" % (D, plan[0]))
    cache = {}
    out = []
    for t in range(T):
        for h in range(H):
            out.extend(xpos_rotate_vec(xs[t][h], pos["data"][t], plan, sign, cache))
    return {"y": ([T, H, D], out)}


def op_rotate_grad(spec_text, spec, inputs):
    """The backward pass dx = J^T dy of rotate: each pair turned back, dx_a = m (c dy_a + s dy_b),
    dx_b = m (-s dy_a + c dy_b), m the attention factor (xPos: times the role's scale, which the
    transpose keeps); pass-through dims copied."""
    if spec.name != "xpos" and spec.name not in ROTARY:
        raise Unsupported("op rotate_grad: unknown scheme %r" % spec.name)
    if spec.name != "xpos" and "role" in inputs:
        raise Malformed("rotate_grad: input 'role' is for xpos only")
    ys, (T, H, D), rows = token_rows("rotate_grad", inputs, "dy")
    if spec.name == "xpos":
        sign = xpos_role_sign(inputs)
        Dp, xpairs, sb = xpos_plan(spec_text, spec)
        # (a, b, w, column, magnitude factor as a function of the position)
        pairs = [(a, b, w, 0, lambda p, lnz=lnz: mp.exp(sign * mpf(p) / sb * lnz)) for (a, b, w, lnz) in xpairs]
    else:
        Dp, rpairs, A = rotation_plan(spec_text, spec, seq_len_of(rows))
        pairs = [(a, b, w, col, lambda p, A=A: A) for (a, b, w, col) in rpairs]
    if Dp != D:
        raise Malformed("rotate_grad: dy has D = %d, spec %d" % (D, Dp))
    out = []
    for t in range(T):
        for h in range(H):
            v = ys[t][h]
            g = list(v)
            for (a, b, w, col, magnitude) in pairs:
                p = rows[t][col]
                ang = mpf(p) * w
                c, s_ = mp.cos(ang), mp.sin(ang)
                m = magnitude(p)
                g[a] = m * (c * v[a] + s_ * v[b])
                g[b] = m * (-s_ * v[a] + c * v[b])
            out.extend(g)
    return {"dx": ([T, H, D], out)}


def op_rotate_qk(spec_text, spec, inputs):
    """q [T, Hq, D] and k [T, Hk, D] (Hq a multiple of Hk) each turned as rotate turns x at the same
    positions; xPos scales q as queries (role 0) and k as keys (role 1)."""
    q, k, pos = need(inputs, "q", "k", "pos")
    if "role" in inputs:
        raise Malformed("rotate_qk takes no input 'role'")
    if len(q["shape"]) != 3 or len(k["shape"]) != 3 or k["shape"][1] < 1 or q["shape"][1] % k["shape"][1]:
        raise Malformed("rotate_qk: q [T, Hq, D] and k [T, Hk, D] with Hq a multiple of Hk, got %r and %r" % (q["shape"], k["shape"]))
    out = {}
    for name, x, role in (("q_out", q, 0), ("k_out", k, 1)):
        one = {"x": x, "pos": pos}
        if spec.name == "xpos":
            one["role"] = {"dtype": "i64", "shape": [], "data": [role]}
        out[name] = op_rotate(spec_text, spec, one)["y"]
    return out


def op_apply_tables(spec_text, spec, inputs):
    """x [T, H, D] turned by the given tables: y_a = c x_a - s x_b, y_b = s x_a + c x_b with c, s the
    cos and sin rows [T, pairs] of the token, column k for the spec's pair k; pass-through copied."""
    if spec.name not in ROTARY:
        raise Unsupported("op apply_tables: unknown scheme %r" % spec.name)
    x, c, s_ = need(inputs, "x", "cos", "sin")
    xs, (T, H, D) = split3(x)
    Dp, pairs, _A = rotation_plan(spec_text, spec, 1)  # only the pairs: the tables carry the angles
    if Dp != D:
        raise Malformed("apply_tables: x has D = %d, spec %d" % (D, Dp))
    for name, t in (("cos", c), ("sin", s_)):
        if t["shape"] != [T, len(pairs)]:
            raise Malformed("apply_tables: %s has shape %r, not [%d, %d]" % (name, t["shape"], T, len(pairs)))
    P = len(pairs)
    out = []
    for t in range(T):
        for h in range(H):
            v = xs[t][h]
            y = list(v)
            for k, (a, b, _w, _col) in enumerate(pairs):
                ck, sk = c["data"][t * P + k], s_["data"][t * P + k]
                y[a] = ck * v[a] - sk * v[b]
                y[b] = sk * v[a] + ck * v[b]
            out.extend(y)
    return {"y": ([T, H, D], out)}


def op_scale(spec_text, spec, inputs):
    if spec.name != "llama4_temperature":
        raise Unsupported("op scale: unknown scheme %r" % spec.name)
    (pos,) = need(inputs, "pos")
    if len(pos["shape"]) != 1:
        raise Malformed("scale pos must be [T]")
    return {"scale": ([pos["shape"][0]], [llama4_tau(spec, p) for p in pos["data"]])}


def op_matrix(spec_text, spec, inputs):
    if spec.name not in ROTARY:
        raise Unsupported("op matrix: unknown scheme %r" % spec.name)
    (pos,) = need(inputs, "pos")
    rows = pos_rows(pos)
    if len(rows) != 1:
        raise Malformed("matrix takes one position")
    D, pairs, _A = rotation_plan(spec_text, spec, seq_len_of(rows))
    Rm = [[mpf(1) if i == j else mpf(0) for j in range(D)] for i in range(D)]
    for a, b, w, col in pairs:
        ang = mpf(rows[0][col]) * w
        c, s = mp.cos(ang), mp.sin(ang)
        Rm[a][a], Rm[a][b], Rm[b][a], Rm[b][b] = c, -s, s, c
    return {"R": ([D, D], [v for r in Rm for v in r])}


def op_bias(spec_text, spec, inputs):
    fn = BIASES.get(spec.name)
    if fn is None:
        raise Unsupported("op bias: unknown scheme %r" % spec.name)
    qpos, kpos = need(inputs, "qpos", "kpos")
    q, k = qpos["data"], kpos["data"]
    H, b = fn(spec, None, q, k)
    data = [b[h, i, j] for h in range(H) for i in range(len(q)) for j in range(len(k))]
    return {"bias": ([H, len(q), len(k)], data)}


def op_bucket(spec_text, spec, inputs):
    fn = BUCKETS.get(spec.name)
    if fn is None:
        raise Unsupported("op bucket: unknown scheme %r" % spec.name)
    (rel,) = need(inputs, "rel")
    return {"bucket": ([len(rel["data"])], [mpf(fn(spec, r)) for r in rel["data"]])}


# ---- attention ------------------------------------------------------------------------------

def softmax_attend(z, vals, allowed):
    """sum_j softmax_j(z_j) vals_j over the allowed j; vals_j are vectors."""
    js = [j for j in range(len(z)) if allowed[j]]
    if not js:
        raise Malformed("attention row with no allowed key")
    zmax = max(z[j] for j in js)
    ws = {j: mp.exp(z[j] - zmax) for j in js}
    tot = mp.fsum(ws.values())
    dv = len(vals[js[0]])
    return [mp.fsum(ws[j] * vals[j][c] for j in js) / tot for c in range(dv)]


def _mask(causal, qrows, krows):
    return [[(not causal) or krows[j][0] <= qrows[i][0] for j in range(len(krows))]
            for i in range(len(qrows))]


def attend_absolute(spec_text, spec, inputs):
    # x + PE(pos), then the projections (Vaswani et al. 2017); positions 0 .. T-1
    pe = ABSOLUTE[spec.name]
    x, wq, wk, wv, heads, causal = need(inputs, "x", "wq", "wk", "wv", "heads", "causal")
    T, dm = x["shape"]
    H = scalar(heads)
    pos = inputs["qpos"]["data"] if "qpos" in inputs else list(range(T))
    xin = []
    for t in range(T):
        p = pe(spec, pos[t])
        if len(p) != dm:
            raise Malformed("encoding dim %d but d_model %d" % (len(p), dm))
        xin.append([x["data"][t * dm + c] + p[c] for c in range(dm)])

    def project(w):
        if w["shape"][0] != dm or w["shape"][1] % H:
            raise Malformed("projection of shape %r" % (w["shape"],))
        cols = w["shape"][1]
        m = [[mp.fsum(xin[t][r] * w["data"][r * cols + c] for r in range(dm)) for c in range(cols)]
             for t in range(T)]
        d = cols // H
        return [[m[t][h * d:(h + 1) * d] for h in range(H)] for t in range(T)], d

    q, D = project(wq)
    k, _ = project(wk)
    v, Dv = project(wv)
    rows = [[p] for p in pos]
    mask = _mask(scalar(causal) != 0, rows, rows)
    scale = mp.sqrt(D)
    out = []
    for i in range(T):
        for h in range(H):
            z = [dot(q[i][h], k[j][h]) / scale for j in range(T)]
            out.extend(softmax_attend(z, [k_[h] for k_ in v], mask[i]))
    return {"out": ([T, H, Dv], out)}


def attend_qkv(spec_text, spec, inputs):
    q_t, k_t, v_t, causal = need(inputs, "q", "k", "v", "causal")
    q, (T, H, D) = split3(q_t)
    k, (S, Hk, Dk) = split3(k_t)
    v, (Sv, Hv, Dv) = split3(v_t)
    if (Hk, Dk) != (H, D) or (Sv, Hv) != (S, H):
        raise Malformed("attend: q, k, v shapes disagree")
    qrows = pos_rows(inputs["qpos"]) if "qpos" in inputs else [[i] for i in range(T)]
    krows = pos_rows(inputs["kpos"]) if "kpos" in inputs else [[j] for j in range(S)]
    if len(qrows) != T or len(krows) != S:
        raise Malformed("attend: position counts disagree with q / k")
    qp = [r[0] for r in qrows]
    kp = [r[0] for r in krows]
    mask = _mask(scalar(causal) != 0, qrows, krows)
    name = spec.name
    scale = mp.sqrt(D)

    # score(i, j, h) -> z_ij; value(i, j, h) -> the vector weighted by softmax_j
    value = None
    if name == "none":
        def score(i, j, h):
            return dot(q[i][h], k[j][h]) / scale
    elif name in ROTARY:
        # RoFormer: rotate q at qpos and k at kpos (attention factor included); v unchanged
        Dp, pairs, A = rotation_plan(spec_text, spec, max(seq_len_of(qrows), seq_len_of(krows)))
        if Dp != D:
            raise Malformed("attend: head dim %d, rotation dim %d" % (D, Dp))
        trig = {}
        q = [[rotate_vec(q[i][h], qrows[i], pairs, A, trig) for h in range(H)] for i in range(T)]
        k = [[rotate_vec(k[j][h], krows[j], pairs, A, trig) for h in range(H)] for j in range(S)]

        def score(i, j, h):
            return dot(q[i][h], k[j][h]) / scale
    elif name == "xpos":
        # Sun et al. 2022: q rotated and scaled as a query at qpos, k as a key at kpos
        if any(len(inputs[n]["shape"]) != 1 for n in ("qpos", "kpos") if n in inputs):
            raise Malformed("attend: xpos positions must be [T] / [S]")
        plan = xpos_plan(spec_text, spec)
        if plan[0] != D:
            raise Malformed("attend: head dim %d, xpos dim %d" % (D, plan[0]))
        cache = {}
        q = [[xpos_rotate_vec(q[i][h], qp[i], plan, 1, cache) for h in range(H)] for i in range(T)]
        k = [[xpos_rotate_vec(k[j][h], kp[j], plan, -1, cache) for h in range(H)] for j in range(S)]

        def score(i, j, h):
            return dot(q[i][h], k[j][h]) / scale
    elif name == "llama4_temperature":
        # HF Llama4TextAttention (NoPE layers): query_states *= tau(cache_position); k unchanged
        taus = [llama4_tau(spec, p) for p in qp]
        q = [[[taus[i] * c for c in q[i][h]] for h in range(H)] for i in range(T)]

        def score(i, j, h):
            return dot(q[i][h], k[j][h]) / scale
    elif name in BIASES:
        _, bias = BIASES[name](spec, H, qp, kp)

        def score(i, j, h):
            return dot(q[i][h], k[j][h]) / scale + bias[h, i, j]
    elif name == "shaw":
        # Shaw, Uszkoreit & Vaswani 2018, eqs. (3)-(5): e_ij = q_i (k_j + a^K_ij) / sqrt(d_z),
        # z_i = sum_j alpha_ij (v_j + a^V_ij); a_ij = w_clip(j - i, k), shared across heads
        kk, dim = I(spec.req("k")), I(spec.req("dim"))
        if dim != D or Dv != D:
            raise Malformed("shaw dim %d but head dims %d / %d" % (dim, D, Dv))
        n = (2 * kk + 1) * dim
        aK = entries(spec, 0, n)
        aV = entries(spec, n, n)

        def row(i, j):
            return min(max(kp[j] - qp[i], -kk), kk) + kk

        def score(i, j, h):
            r = row(i, j)
            return dot(q[i][h], [k[j][h][c] + aK[r * dim + c] for c in range(dim)]) / scale

        def value(i, j, h):
            r = row(i, j)
            return [v[j][h][c] + aV[r * dim + c] for c in range(dim)]
    elif name == "txl":
        # Dai et al. 2019, sec. 3.3: terms (a) q.k, (b) q.W_R R_{i-j}, (c) u.k, (d) v.W_R R_{i-j};
        # R is Transformer-XL's PositionalEmbedding ([sin | cos], base 10000)
        heads, dim, rd = I(spec.req("heads")), I(spec.req("dim")), I(spec.req("r_dim"))
        if heads != H or dim != D:
            raise Malformed("txl heads/dim disagree with q")
        HD = H * D
        WR = entries(spec, 0, rd * HD)
        u = entries(spec, rd * HD, HD)
        vb = entries(spec, rd * HD + HD, HD)
        wcache = {}

        def wrel(d):
            if d not in wcache:
                Rv = sinusoid_vector(rd, 10000, "concat", d)
                wcache[d] = [mp.fsum(Rv[r] * WR[r * HD + c] for r in range(rd)) for c in range(HD)]
            return wcache[d]

        def score(i, j, h):
            w = wrel(qp[i] - kp[j])[h * D:(h + 1) * D]
            uh, vh = u[h * D:(h + 1) * D], vb[h * D:(h + 1) * D]
            return (dot(q[i][h], k[j][h]) + dot(q[i][h], w) + dot(uh, k[j][h]) + dot(vh, w)) / scale
    elif name == "deberta":
        # He et al. 2021 (DeBERTa) disentangled attention, HF DisentangledSelfAttention:
        # c2c + c2p (q_i . K_r[row]) + p2c (k_j . Q_r[row]), scaled by sqrt(3 D)
        heads, dim = I(spec.req("heads")), I(spec.req("dim"))
        if heads != H or dim != D:
            raise Malformed("deberta heads/dim disagree with q")
        buckets = I(spec.req("buckets"))
        span = buckets if buckets > 0 else I(spec.req("k"))
        HD = H * D
        Kr = entries(spec, 0, 2 * span * HD)
        Qr = entries(spec, 2 * span * HD, 2 * span * HD)
        scale3 = mp.sqrt(3 * D)

        def score(i, j, h):
            r = min(max(deberta_bucket(spec, qp[i] - kp[j]) + span, 0), 2 * span - 1)
            kr = Kr[r * HD + h * D:r * HD + (h + 1) * D]
            qr = Qr[r * HD + h * D:r * HD + (h + 1) * D]
            return (dot(q[i][h], k[j][h]) + dot(q[i][h], kr) + dot(k[j][h], qr)) / scale3
    else:
        raise Unsupported("op attend: unknown scheme %r" % name)

    if value is None:
        def value(i, j, h):
            return v[j][h]

    out = []
    for i in range(T):
        for h in range(H):
            z = [score(i, j, h) if mask[i][j] else None for j in range(S)]
            vals = [value(i, j, h) if mask[i][j] else None for j in range(S)]
            out.extend(softmax_attend(z, vals, mask[i]))
    return {"out": ([T, H, Dv], out)}


def op_attend(spec_text, spec, inputs):
    if "x" in inputs:
        if spec.name not in ABSOLUTE:
            raise Unsupported("op attend with x: %r is not an absolute encoding" % spec.name)
        return attend_absolute(spec_text, spec, inputs)
    if spec.name in ABSOLUTE and spec.name != "none":
        raise Malformed("attend with absolute encoding %r needs x, wq, wk, wv" % spec.name)
    return attend_qkv(spec_text, spec, inputs)


OPS = {
    "encode": op_encode,
    "inv_freq": op_inv_freq,
    "rotate": op_rotate,
    "rotate_grad": op_rotate_grad,
    "rotate_qk": op_rotate_qk,
    "apply_tables": op_apply_tables,
    "matrix": op_matrix,
    "bias": op_bias,
    "bucket": op_bucket,
    "scale": op_scale,
    "attend": op_attend,
}


# --------------------------------------------------------------------------------------------
# Driver
# --------------------------------------------------------------------------------------------

def parse_stored(s):
    if not isinstance(s, str) or not re.fullmatch(r"[-+]?(\d+\.?\d*|\.\d+)([eE][-+]?\d+)?", s):
        raise Malformed("output value %r is not a decimal string" % (s,))
    return mpf(s)


def multi_index(flat, shape):
    idx = []
    for s in reversed(shape):
        idx.append(flat % s if s else 0)
        flat = flat // s if s else 0
    return "[" + ",".join(str(i) for i in reversed(idx)) + "]"


def fmt(x):
    return mp.nstr(x, 46, min_fixed=1, max_fixed=0) if x != 0 else "0"


class FileResult:
    def __init__(self):
        self.values = 0
        self.bad = 0
        self.printed = 0


MAX_PRINT = 10


def check_file(path, rel, tol, expect_cases):
    try:
        with open(path) as f:
            doc = json.load(f)
    except (OSError, ValueError) as e:
        raise Malformed("cannot read %s: %s" % (rel, e))
    if not isinstance(doc, dict) or doc.get("format") != "pecheck-golden/1":
        raise Malformed("%s: format is not pecheck-golden/1" % rel)
    for key in ("op", "spec", "cases"):
        if key not in doc:
            raise Malformed("%s: missing %r" % (rel, key))
    cases = doc["cases"]
    if not isinstance(cases, list):
        raise Malformed("%s: cases is not a list" % rel)
    if expect_cases is not None and len(cases) != expect_cases:
        raise Malformed("%s: %d cases, MANIFEST.json says %d" % (rel, len(cases), expect_cases))
    op = OPS.get(doc["op"])
    if op is None:
        raise Unsupported("unknown op %r" % doc["op"])
    spec_text = doc["spec"]
    spec = parse_spec(spec_text)
    res = FileResult()
    seen = set()
    for case in cases:
        cid = case.get("id") if isinstance(case, dict) else None
        if not isinstance(cid, str) or cid in seen:
            raise Malformed("%s: case without a unique id" % rel)
        seen.add(cid)
        ins, outs = case.get("inputs"), case.get("outputs")
        if not isinstance(ins, dict) or not isinstance(outs, dict):
            raise Malformed("%s case %s: inputs/outputs missing" % (rel, cid))
        inputs = {n: decode_input(n, t) for n, t in ins.items()}
        try:
            mine = op(spec_text, spec, inputs)
        except Malformed as e:
            raise Malformed("%s case %s: %s" % (rel, cid, e))
        if set(mine) != set(outs):
            raise Malformed("%s case %s: outputs %s, expected %s"
                            % (rel, cid, sorted(outs), sorted(mine)))
        for name, (shape, vals) in mine.items():
            st = outs[name]
            if not isinstance(st, dict) or st.get("shape") != shape:
                raise Malformed("%s case %s: output %s has shape %r, expected %r"
                                % (rel, cid, name, st.get("shape") if isinstance(st, dict) else None,
                                   shape))
            data = st.get("data")
            if not isinstance(data, list) or len(data) != len(vals):
                raise Malformed("%s case %s: output %s has the wrong element count"
                                % (rel, cid, name))
            for e, (s, o) in enumerate(zip(data, vals)):
                sv = parse_stored(s)
                res.values += 1
                diff = abs(sv - o)
                scale = max(abs(sv), abs(o))
                if diff <= tol * scale:
                    continue
                res.bad += 1
                if res.printed < MAX_PRINT:
                    res.printed += 1
                    reld = diff / scale
                    print("DIFF  %s  case=%s  output=%s%s  stored=%s  oracle=%s  rel=%s"
                          % (rel, cid, name, multi_index(e, shape), s, fmt(o),
                             mp.nstr(reld, 3)))
    return res


def roformer_decay_bound(d, base, r):
    """RoFormer's long-term decay bound (1/(d/2)) sum_(j=1..d/2) |S_j|, S_j = sum_(k<j) e^(i r theta_k),
    theta_k = base^(-2k/d), written from the paper's section 3.4.3."""
    re = im = total = mpf(0)
    for k in range(d // 2):
        angle = r * mpf(base) ** (-mpf(2 * k) / d)
        re += mp.cos(angle)
        im += mp.sin(angle)
        total += mp.sqrt(re * re + im * im)
    return total / (d // 2)


def check_decay_table(path, tol):
    """Each 'distance value' line of figures/roformer_decay.txt (d = 128, base = 10^4) against the
    bound recomputed here: (values checked, values that disagree)."""
    values = bad = 0
    with open(path) as f:
        for line in f:
            if line.startswith("#") or not line.strip():
                continue
            r, stored = line.split()
            oracle = roformer_decay_bound(128, 10000, int(r))
            values += 1
            if abs(mpf(stored) - oracle) > tol * abs(oracle):
                bad += 1
                print("DIFF  %s  distance=%s  stored=%s  oracle=%s" % (path, r, stored, mp.nstr(oracle, 45)))
    return values, bad


def main(argv):
    here = os.path.dirname(os.path.abspath(__file__))
    ap = argparse.ArgumentParser(description="Recompute pecheck's golden values with mpmath.")
    ap.add_argument("--dir", default=None,
                    help="golden directory (default: ./golden, else the repository's golden/)")
    ap.add_argument("--tolerance", type=float, default=1e-30,
                    help="relative tolerance (default 1e-30)")
    args = ap.parse_args(argv)
    if not (args.tolerance >= 0):
        ap.error("--tolerance must be >= 0")
    gdir = args.dir
    if gdir is None:
        gdir = "golden" if os.path.isdir("golden") else os.path.join(os.path.dirname(here), "golden")
    tol = mpf(args.tolerance)

    try:
        with open(os.path.join(gdir, "MANIFEST.json")) as f:
            manifest = json.load(f)
        files = manifest["files"]
        if not isinstance(files, list) or not files:
            raise ValueError("no files listed")
        listed = [(ent["path"], ent.get("cases")) for ent in files]
    except (OSError, ValueError, KeyError, TypeError) as e:
        print("golden_oracle: cannot read %s: %s" % (os.path.join(gdir, "MANIFEST.json"), e),
              file=sys.stderr)
        return 2

    status = 0
    nfiles = nvalues = nbad = ncases = 0
    for relpath, expect in listed:
        shown = os.path.join(gdir, relpath)
        try:
            res = check_file(shown, shown, tol, expect)
        except Malformed as e:
            print("ERROR  %s  malformed: %s" % (shown, e))
            status = 2
            continue
        except Unsupported as e:
            print("ERROR  %s  %s" % (shown, e))
            status = max(status, 1)
            continue
        nfiles += 1
        ncases += expect or 0
        nvalues += res.values
        nbad += res.bad
        if res.bad:
            print("FAIL  %s  %d of %d values disagree%s" % (
                shown, res.bad, res.values,
                " (first %d shown)" % MAX_PRINT if res.bad > MAX_PRINT else ""))
            status = max(status, 1)
        else:
            print("ok  %s  %d values" % (shown, res.values))
    decay = os.path.join(gdir, "figures", "roformer_decay.txt")
    try:
        values, bad = check_decay_table(decay, tol)
        nvalues += values
        nbad += bad
        print("%s  %s  %d values" % ("FAIL" if bad else "ok", decay, values))
        if bad or values == 0:
            status = max(status, 1)
    except (OSError, ValueError) as e:
        print("ERROR  %s  %s" % (decay, e))
        status = 2
    errors = len(listed) - nfiles
    print("golden_oracle: %d of %d files checked, %d values, %d disagree, %d file errors "
          "(tolerance %g, %d-bit mpmath) -> %s"
          % (nfiles, len(listed), nvalues, nbad, errors, args.tolerance, mp.prec,
             "OK" if status == 0 else "FAILED"))
    return status


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
