// A model's position handling, layer kind by layer kind: what a config reader fills (HF JSON, GGUF metadata) and layer_specs turns into specs.
#pragma once
#include <cstdint>
#include <optional>
#include <string>
#include <variant>
#include <vector>

namespace pe::convert {

// This header is the one meeting point of the config readers and pecheck's spec grammar. A reader
// (hf_config.hpp for config.json; a GGUF reader for `*.rope.*` metadata) knows its format's keys
// and its model families' conventions; it writes what it found here, in the model's own terms
// (HF's names in the comments), and never spells a pecheck scheme name. layer_specs.hpp is the
// one place that turns this description into pe::spec values through the registry, so both
// readers print the same spec for the same model.
//
// Every value here is the model's value, not a pecheck default: a reader that takes a documented
// default (HF's LlamaConfig rope_theta = 10000 when the key is absent) says so in layer_kind::notes.

// Which dims of a head rotate together.
enum class rotary_pairs {
  rotate_half,  // (i, i + r/2): HF's rotate_half (Llama, Qwen, Mistral, Gemma, Phi-3, GPT-NeoX); pecheck layout=neox
  interleaved,  // (2i, 2i + 1): GPT-J's rotate_every_two, Meta's complex view (Llama 4); pecheck layout=gptj
};

// A long-context scaling of the rotary frequencies, as HF's modeling_rope_utils.py defines each
// rope_type. Fields a type does not read stay empty.
struct rotary_scaling {
  enum class kind {
    none,      // rope_type "default"
    linear,    // every frequency / factor
    ntk,       // static NTK: base * factor^(r/(r-2))
    dynamic,   // dynamic NTK from original_max (HF reads max_position_embeddings) on
    yarn,      // YaRN ramp over beta_fast..beta_slow rotations, attention factor
    llama3,    // Llama 3.1 bands between original_max/high_freq_factor and original_max/low_freq_factor
    longrope,  // LongRoPE (Phi-3): per-pair short/long factors
  };
  kind type = kind::none;
  std::optional<double> factor;
  std::optional<std::int64_t> original_max;  // the pretraining context (dynamic, yarn, llama3, longrope)
  std::optional<std::int64_t> extended_max;  // longrope: the extended context (HF max_position_embeddings)
  std::optional<double> low_freq_factor, high_freq_factor;            // llama3
  std::optional<double> beta_fast, beta_slow, mscale, mscale_all_dim;  // yarn
  std::optional<bool> truncate;                                        // yarn
  std::optional<double> attention_factor;                              // yarn, longrope: explicit
  std::vector<double> short_factor, long_factor;                       // longrope, rotary_dim/2 each
};

// RoPE on the first rotary_dim dims of each head of q and k (the rest pass through).
struct rotary_positions {
  std::int64_t head_dim = 0;    // dims per head that the rotation sees (DeepSeek: only the rope part)
  std::int64_t rotary_dim = 0;  // leading dims rotated: head_dim unless partial
  double base = 10000;          // theta: omega_i = base^(-2i/rotary_dim)
  rotary_pairs pairs = rotary_pairs::rotate_half;
  rotary_scaling scaling;
  // Multimodal RoPE (Qwen2-VL, Qwen3-VL): pairs reading the [t, h, w] position rows; empty for
  // one position per token.
  std::vector<std::int64_t> mrope_sections;
  bool mrope_interleaved = false;  // Qwen3-VL: h and w every third pair instead of contiguous blocks
};

// ALiBi's linear bias on the scores, the paper's slopes for `heads` heads (BLOOM, MPT, Falcon).
struct alibi_positions {
  std::int64_t heads = 0;
};

// T5's bucketed relative bias: a learned [buckets, heads] table (T5, mT5).
struct t5_positions {
  std::int64_t buckets = 32, max_distance = 128, heads = 0;
  bool bidirectional = true;  // encoder self-attention; a decoder's is unidirectional
};

// DeBERTa-v2/v3's disentangled attention with log buckets.
struct deberta_positions {
  std::int64_t max_relative = 0;  // max_relative_positions after HF's "< 1 means max_position_embeddings"
  std::int64_t buckets = 0;       // position_buckets (0: none)
  std::int64_t heads = 0, head_dim = 0;
};

// Llama 4's query temperature on its NoPE layers: no rotation, queries scaled by position.
struct query_temperature {
  std::int64_t floor_scale = 8192;
  double attn_scale = 0.1;
};

// A layer kind that sees no position at all (NoPE layers, T5's cross-attention).
struct no_position {};

using position_encoding =
    std::variant<no_position, rotary_positions, alibi_positions, t5_positions, deberta_positions, query_temperature>;

// Layers of one stack that share one position encoding.
struct layer_kind {
  std::string stack;  // "" for a decoder-only model; "encoder" / "decoder" in an encoder-decoder
  std::string name;   // the config's name for the kind ("sliding_attention", "nope", "self-attention"); "" when all layers are alike
  std::vector<std::int64_t> layers;  // indices within the stack, ascending
  position_encoding encoding;
  // Where the encoding's parameters were read ("text_config.rope_scaling"), for error messages.
  std::string source;
  // Values that are not the config's own and why (a documented default), and the family's
  // convention (why rotate_half); printed as comments beside the spec.
  std::vector<std::string> notes;
};

// One stack of layers (a decoder-only model has one, named "").
struct layer_stack {
  std::string name;
  std::int64_t layers = 0;
};

struct model_positions {
  std::string family;  // the reader's name for the model family ("llama", "t5")
  std::vector<layer_stack> stacks;
  std::vector<layer_kind> kinds;  // every layer of every stack in exactly one kind
};

}  // namespace pe::convert
