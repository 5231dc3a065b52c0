"""What scripts/engines judges: the engine releases (each an adapter built against a pinned package),
the real models whose specs they are gated on, and the bugs injected to show the gate catches them.
Every expectation the run is held to is written here, not derived from a run.
"""
import dataclasses

from . import packages


@dataclasses.dataclass(frozen=True)
class Release:
    key: str                  # a short id: file names and --only
    engine: str               # the engine, as the report's headings name it
    label: str                # the release, in words
    package: packages.Package
    adapter: str              # the adapter's C source, relative to the repository
    defines: tuple            # -D flags that pin the adapter to this release
    libraries: tuple          # the package's libraries the adapter links (file names in its lib_dir)
    max_pos: int              # the largest position the engine takes (ggml: int32)
    dtypes: tuple             # the I/O dtypes it is judged at
    declines: tuple           # (what, why): dtypes and schemes the engine cannot compute; their rows must say unsupported
    op: str = "rotate"        # the op the audit sweeps and diagnose probes
    older: str = ""           # the release whose baselines this one is gated against
    notes: tuple = ()         # what a reader of its verdicts should know, in sentences
    gguf: bool = False        # whether it is also judged on the specs GGUF metadata gives (llama.cpp's own route)
    figures: bool = False     # whether report.html shows its audits' figures (the newest release of an engine whose error moves)


GGML_ADAPTER = "examples/engines/ggml/ggml_rope_plugin.c"
GGML_DECLINES = (("bf16", "ggml ropes f32 and f16 tensors only"),)
GGML_NOTES = (
    "Each spec reaches ggml as llama.cpp's loader and converter pass a model's config: layout neox is "
    "GGML_ROPE_TYPE_NEOX and gptj NORMAL, rotary_dim is n_dims, YaRN is freq_scale = 1/factor, ext_factor = 1 and "
    "attn_factor = the spec's magnitude / (1 + 0.1 ln factor) (ggml multiplies that term in itself), Llama 3's "
    "factors are computed as convert_hf_to_gguf.py writes rope_freqs.weight, LongRoPE's short or long factors are "
    "freq_factors, and M-RoPE is ggml_rope_multi (MROPE, or IMROPE when interleaved) with the fourth position row "
    "set to t.",
    "ggml forms each token's angles as an iterated float product (theta *= base^(-2/n_dims) per pair), not a power "
    "per pair: its error grows with the position as any binary32 angle's does, within the standard tolerance's "
    "angle term (proofs/gate_tolerance.md); the audit's first positions over 10 and 100 ulps show where it grows.",
    "Positions are int32 in ggml: the gate draws up to --max-position 2^31 - 1 and the golden cases past it are left out "
    "(said in each run).",
)

RELEASES = (
    Release("ggml-3.1.1", "llama.cpp ggml", "llama.cpp b3889 (node-llama-cpp 3.1.1)", packages.NODE_LLAMA_CPP_3_1_1,
            GGML_ADAPTER, ('PINNED_GGML_VERSION=""', 'PINNED_GGML_COMMIT=""', 'RELEASE="node-llama-cpp 3.1.1, llama.cpp b3889"'),
            ("libggml.so",), 2**31 - 1, ("f32", "f16"),
            GGML_DECLINES + (("mrope", "b3889 has no ggml_rope_multi (M-RoPE entered ggml in December 2024)"),),
            notes=GGML_NOTES, gguf=True),
    Release("ggml-3.21.1", "llama.cpp ggml", "ggml 0.23.0, commit 5b4ebc5 (node-llama-cpp 3.21.1)", packages.NODE_LLAMA_CPP_3_21_1,
            GGML_ADAPTER, ('PINNED_GGML_VERSION="0.23.0"', 'PINNED_GGML_COMMIT="5b4ebc5"', 'RELEASE="node-llama-cpp 3.21.1"'),
            ("libggml-base.so", "libggml.v0.4.0.so"), 2**31 - 1, ("f32", "f16"), GGML_DECLINES, older="ggml-3.1.1",
            notes=GGML_NOTES, gguf=True, figures=True),
)

ORT_ADAPTER = "examples/engines/onnxruntime/ort_rope_plugin.c"
ORT_DECLINES = (("bf16", "ONNX Runtime's CPU provider has no bfloat16 RotaryEmbedding kernel"),)
ORT_NOTES = (
    "ONNX Runtime is handed the tables (apply_tables): x [T, H, D] as X [1, T, H D] with num_heads = H, the cos and "
    "sin tables as cos_cache and sin_cache with position_ids 0..T-1, interleaved = 1 for gptj and 0 for neox, "
    "rotary_embedding_dim = 2 pairs. The tables carry every scaling's angles, so each model's spec checks the op's "
    "layout, partial rotary and head handling, not the scaling itself.",
    "The audit sweeps apply_tables with each position's exact tables in the I/O dtype: its ulps are the op's own "
    "rounding, which does not grow with the position.",
)
ORT_RELEASES = (
    Release("ort-1.20.1-contrib", "ONNX Runtime", "ONNX Runtime 1.20.1, com.microsoft RotaryEmbedding (onnxruntime-node 1.20.1)",
            packages.ONNXRUNTIME_NODE_1_20_1, ORT_ADAPTER, ("ORT_CONTRIB=1", 'PINNED_ORT_VERSION="1.20.1"'),
            ("libonnxruntime.so.1",), 2**40, ("f32", "f16"), ORT_DECLINES, op="apply_tables", notes=ORT_NOTES),
    Release("ort-1.30.0-contrib", "ONNX Runtime", "ONNX Runtime 1.30.0, com.microsoft RotaryEmbedding (onnxruntime-node 1.30.0)",
            packages.ONNXRUNTIME_NODE_1_30_0, ORT_ADAPTER, ("ORT_CONTRIB=1", 'PINNED_ORT_VERSION="1.30.0"'),
            ("libonnxruntime.so.1",), 2**40, ("f32", "f16"), ORT_DECLINES, op="apply_tables", older="ort-1.20.1-contrib",
            notes=ORT_NOTES),
    Release("ort-1.30.0", "ONNX Runtime", "ONNX Runtime 1.30.0, ai.onnx RotaryEmbedding-23 (onnxruntime-node 1.30.0)",
            packages.ONNXRUNTIME_NODE_1_30_0, ORT_ADAPTER, ("ORT_CONTRIB=0", 'PINNED_ORT_VERSION="1.30.0"'),
            ("libonnxruntime.so.1",), 2**40, ("f32", "f16"), ORT_DECLINES, op="apply_tables", notes=ORT_NOTES),
)
RELEASES = RELEASES + ORT_RELEASES

# The real models: their Hugging Face config.json files as published (tests/convert/hf), whose
# specs `pecheck spec from-hf` writes.
MODELS = (
    ("Llama 3.1 8B", "llama3_1_8b"),
    ("Llama 3.2 1B", "llama3_2_1b"),
    ("Llama 2 7B", "llama2_7b"),
    ("Mistral 7B v0.1", "mistral_7b_v0_1"),
    ("Qwen2.5 7B Instruct (YaRN)", "qwen2_5_7b_instruct_yarn"),
    ("Qwen3 8B", "qwen3_8b"),
    ("Qwen2-VL 7B (M-RoPE)", "qwen2_vl_7b_instruct"),
    ("Qwen3-VL 8B (interleaved M-RoPE)", "qwen3_vl_8b_instruct"),
    ("Gemma 3 4B (local and global)", "gemma3_4b_it"),
    ("Phi-3 mini 128k (LongRoPE)", "phi3_mini_128k_instruct"),
    ("GPT-NeoX 20B (partial rotary)", "gpt_neox_20b"),
    ("GPT-J 6B (interleaved, partial)", "gptj_6b"),
    ("DeepSeek-V3 (rope part, YaRN)", "deepseek_v3"),
    ("Falcon 7B", "falcon_7b"),
)
MODEL_CONFIGS = "tests/convert/hf"

# The same kind of models as llama.cpp meets them: GGUF files carrying the metadata its converter
# writes (tests/convert/gguf/make_gguf.py writes them), whose specs `pecheck spec from-gguf` gives
# (Llama's layout there is gptj: the converter permutes q and k). Only the specs that differ from
# the Hugging Face ones above are added, and only RoPE's (Llama 4's temperature is no rotation).
GGUF_MODELS = (
    ("Llama 2 7B (GGUF)", "llama2_7b"),
    ("Llama 2 7B, linear x2 (GGUF)", "llama2_scale_linear"),
    ("Llama 3 8B (GGUF)", "llama3_8b"),
    ("Phi-3 mini 4k (GGUF)", "phi3_mini_4k"),
    ("Llama 4 Scout (GGUF)", "llama4_scout"),
)
GGUF_WRITER = "tests/convert/gguf/make_gguf.py"
ROTARY_SCHEMES = ("rope", "mrope")

# One extra run per release and dtype: every golden file of the rope scheme (YaRN both ways, NTK,
# linear, LongRoPE, the backward passes), through a plain spec.
GOLDEN_SPEC = "rope(dim=128, base=10000, rotary_dim=128, layout=neox, truncate_low=0)"

# The bug classes injected into the adapter (-DINJECT=n), the spec they are gated on, and the
# convention `pecheck diagnose` must name (by the op the release serves: ggml's x is read as f16,
# ONNX Runtime's tables).
# Each release's adapter names its bug 3 and the conventions diagnose finds by the op it serves.
BUGS = (
    ("layout swapped", 1, "Llama 3.1 8B", {"rotate": "layout=gptj", "apply_tables": "layout=gptj"}),
    ("positions off by one", 2, "Llama 3.1 8B", {"rotate": "positions+1", "apply_tables": "tables a row late"}),
    ("x or tables read as f16", 3, "Llama 3.1 8B", {"rotate": "x and y in f16", "apply_tables": "tables in f16"}),
)
BUG_DTYPE = "f32"

# The audit's positions: 256 log-spaced from 0 to the engine's largest.
AUDIT_POSITIONS = 256
