// GGUF metadata to model_positions: llama.cpp's keys (ARCH.rope.*, head counts, ALiBi bias) read strictly, defaults and values set in its code named in notes.
#include "convert/gguf_model.hpp"

#include <cerrno>
#include <cmath>
#include <cstring>
#include <fstream>
#include <optional>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "convert/gguf_archs.hpp"
#include "pe/bounded_file.hpp"
#include "pe/error.hpp"
#include "pe/limits.hpp"

namespace pe::convert {
namespace {

std::string_view type_name(gguf_type t) {
  switch (t) {
    case gguf_type::u8: return "uint8";
    case gguf_type::i8: return "int8";
    case gguf_type::u16: return "uint16";
    case gguf_type::i16: return "int16";
    case gguf_type::u32: return "uint32";
    case gguf_type::i32: return "int32";
    case gguf_type::f32: return "float32";
    case gguf_type::boolean: return "bool";
    case gguf_type::string: return "string";
    case gguf_type::array: return "array";
    case gguf_type::u64: return "uint64";
    case gguf_type::i64: return "int64";
    case gguf_type::f64: return "float64";
  }
  return "?";
}

bool is_integer(gguf_type t) { return t != gguf_type::f32 && t != gguf_type::f64 && t != gguf_type::boolean && t != gguf_type::string && t != gguf_type::array; }
bool is_real(gguf_type t) { return t == gguf_type::f32 || t == gguf_type::f64 || is_integer(t); }

// The metadata of one architecture: ARCH.<suffix> keys looked up and type-checked.
class arch_keys {
 public:
  arch_keys(const gguf_metadata& m, const std::string& file, std::string arch) : m_(m), file_(file), arch_(std::move(arch)) {}

  std::string key(std::string_view suffix) const { return fmt::format("{}.{}", arch_, suffix); }
  [[noreturn]] void fail(const std::string& key, const std::string& why) const { throw input_error(fmt::format("{}: {}: {}", file_, key, why)); }

  const gguf_value* find(std::string_view suffix) const {
    const auto it = m_.values.find(key(suffix));
    return it == m_.values.end() ? nullptr : &it->second;
  }

  // A non-negative integer of any integer type.
  std::optional<std::int64_t> count(std::string_view suffix) const {
    const gguf_value* v = find(suffix);
    if (!v) return std::nullopt;
    if (v->type == gguf_type::array) fail(key(suffix), fmt::format("an array of {} values (one per layer): pecheck reads one value", v->count));
    if (!is_integer(v->type)) fail(key(suffix), fmt::format("of type {}, not an integer", type_name(v->type)));
    if (v->too_big || v->integer < 0) fail(key(suffix), fmt::format("{}{}: not a count", v->too_big ? "over 2^63 " : "", v->too_big ? "" : std::to_string(v->integer)));
    return v->integer;
  }
  std::int64_t positive(std::string_view suffix, std::string_view why) const {
    const auto n = count(suffix);
    if (!n) fail(key(suffix), fmt::format("missing: {}", why));
    if (*n == 0) fail(key(suffix), "0: must be at least 1");
    return *n;
  }

  // A finite number of any numeric type.
  std::optional<double> real(std::string_view suffix) const {
    const gguf_value* v = find(suffix);
    if (!v) return std::nullopt;
    if (!is_real(v->type)) fail(key(suffix), fmt::format("of type {}, not a number", type_name(v->type)));
    const double x = is_integer(v->type) ? static_cast<double>(v->integer) : v->real;
    if (!std::isfinite(x)) fail(key(suffix), fmt::format("{}: not a finite number", x));
    return x;
  }

  std::optional<std::string> text(std::string_view suffix) const { return text_of(key(suffix)); }
  std::optional<std::string> text_of(const std::string& full) const {
    const auto it = m_.values.find(full);
    if (it == m_.values.end()) return std::nullopt;
    if (it->second.type != gguf_type::string) fail(full, fmt::format("of type {}, not a string", type_name(it->second.type)));
    return it->second.text;
  }

  const std::string& arch() const { return arch_; }
  const std::string& file() const { return file_; }

 private:
  const gguf_metadata& m_;
  const std::string& file_;
  std::string arch_;
};

std::string number(double x) { return fmt::format("{}", x); }

// ARCH.attention.max_alibi_bias: pecheck's alibi is the paper's slopes, 2^(-8h/H), max bias 8.
alibi_positions read_alibi(const arch_keys& k, std::int64_t heads, std::vector<std::string>& notes) {
  const auto bias = k.real("attention.max_alibi_bias");
  if (k.arch() == "bloom") {
    if (bias && *bias != 8) k.fail(k.key("attention.max_alibi_bias"), fmt::format("{}: llama.cpp's BLOOM uses 8 whatever the file says", number(*bias)));
    notes.emplace_back("ALiBi: llama.cpp's BLOOM sets max_alibi_bias = 8 in code, the paper's slopes, on -slope (i - j)");
    return {heads};
  }
  if (!bias) k.fail(k.key("attention.max_alibi_bias"), "missing: an MPT file gives its ALiBi bias (0 when it has none)");
  if (*bias == 0) k.fail(k.key("attention.max_alibi_bias"), "0: this model has no ALiBi (learned position embeddings, which pecheck does not model)");
  if (*bias != 8) k.fail(k.key("attention.max_alibi_bias"), fmt::format("{}: pecheck's alibi is the paper's slopes, max bias 8", number(*bias)));
  notes.emplace_back(fmt::format("ALiBi: {} = 8, the paper's slopes, on -slope (i - j)", k.key("attention.max_alibi_bias")));
  return {heads};
}

// ARCH.rope.scaling.*: none, linear or yarn. LongRoPE's factors and Llama 3's are tensors.
rotary_scaling read_scaling(const arch_keys& k, std::vector<std::string>& notes) {
  using kind = rotary_scaling::kind;
  rotary_scaling s;
  const auto type = k.text("rope.scaling.type");
  auto factor = k.real("rope.scaling.factor");
  // The older key: llama.cpp reads rope.scale_linear when rope.scaling.factor is absent.
  if (const auto old = k.real("rope.scale_linear")) {
    if (factor && *factor != *old) {
      k.fail(k.key("rope.scale_linear"), fmt::format("{} disagrees with {} = {}", number(*old), k.key("rope.scaling.factor"), number(*factor)));
    }
    factor = old;
  }
  // ggml multiplies cos and sin by attn_factor; DeepSeek's yarn_log_multiplier sets it from the
  // factor. No spec here describes either.
  if (const auto a = k.real("rope.scaling.attn_factor"); a && *a != 1) {
    k.fail(k.key("rope.scaling.attn_factor"), fmt::format("{}: ggml's attention factor on cos and sin is not mapped to a spec", number(*a)));
  }
  if (const auto m = k.real("rope.scaling.yarn_log_multiplier"); m && *m != 0) {
    k.fail(k.key("rope.scaling.yarn_log_multiplier"), fmt::format("{}: DeepSeek's YaRN magnitude is not mapped to a spec", number(*m)));
  }
  const std::string type_key = k.key("rope.scaling.type");
  if (factor && !(*factor > 0)) k.fail(k.key("rope.scaling.factor"), fmt::format("{}: must be > 0", number(*factor)));
  if (!type) {
    if (!factor || *factor == 1) return s;
    // llama.cpp's loader takes "linear" when the type is absent.
    notes.emplace_back(fmt::format("{}: not in the metadata; linear, llama.cpp's default when a factor is given", type_key));
    s.type = kind::linear;
    s.factor = factor;
    return s;
  }
  if (*type == "none") {
    if (factor && *factor != 1) k.fail(type_key, fmt::format("none, and {} = {}", k.key("rope.scaling.factor"), number(*factor)));
    return s;
  }
  if (*type == "linear") {
    if (!factor) k.fail(k.key("rope.scaling.factor"), "missing: linear scaling divides every frequency by it");
    s.type = kind::linear;
    s.factor = factor;
    return s;
  }
  if (*type == "yarn") {
    if (!factor) k.fail(k.key("rope.scaling.factor"), "missing: YaRN's factor");
    // ggml's rope_yarn equals HF's yarn (truncated correction range, cos and sin times
    // 1 + 0.1 ln(factor)) only for factor > 1.
    if (!(*factor > 1)) k.fail(k.key("rope.scaling.factor"), fmt::format("{}: ggml's YaRN with factor <= 1 is not mapped to a spec", number(*factor)));
    s.type = kind::yarn;
    s.factor = factor;
    s.original_max = k.count("rope.scaling.original_context_length");
    if (!s.original_max) {
      s.original_max = k.count("context_length");
      if (!s.original_max) k.fail(k.key("rope.scaling.original_context_length"), "missing, and so is context_length: YaRN needs the pretraining context");
      notes.emplace_back(fmt::format("{}: not in the metadata; {} = {}, as llama.cpp takes it", k.key("rope.scaling.original_context_length"),
                                     k.key("context_length"), *s.original_max));
    }
    const auto fast = k.real("rope.scaling.yarn_beta_fast"), slow = k.real("rope.scaling.yarn_beta_slow");
    s.beta_fast = fast.value_or(32);
    s.beta_slow = slow.value_or(1);
    if (!fast || !slow) notes.emplace_back("yarn: beta_fast 32 and beta_slow 1 where the metadata has none, llama.cpp's defaults");
    notes.emplace_back("yarn: ggml's rope_yarn floors and ceils the correction range and multiplies cos and sin by 1 + 0.1 ln(factor), as HF's yarn");
    return s;
  }
  if (*type == "longrope") {
    k.fail(type_key, "longrope: its factors are the tensors rope_factors_long/short.weight, and this reader reads no tensors (spec from-hf reads "
                     "them from config.json)");
  }
  k.fail(type_key, fmt::format("'{}' is not a scaling type llama.cpp defines (none, linear, yarn, longrope)", excerpt(*type)));
}

rotary_positions read_rotary(const arch_keys& k, const gguf_arch& arch, std::int64_t heads, std::vector<std::string>& notes) {
  rotary_positions r;
  // The key the head size came from, blamed when the size itself is wrong.
  std::string head_key = k.key("attention.key_length");
  if (const auto kl = k.count("attention.key_length")) {
    if (*kl < 2) k.fail(head_key, fmt::format("{}: a head needs at least 2 dims to rotate", *kl));
    r.head_dim = *kl;
  } else {
    head_key = k.key("embedding_length");
    const std::int64_t embedding = k.positive("embedding_length", "with no attention.key_length, the head size is embedding_length / head_count");
    if (embedding % heads != 0) {
      k.fail(k.key("embedding_length"), fmt::format("{} is not a multiple of {} = {}", embedding, k.key("attention.head_count"), heads));
    }
    r.head_dim = embedding / heads;
  }
  const auto rotated = k.count("rope.dimension_count");
  if (!rotated && r.head_dim % 2 != 0) {
    k.fail(head_key, fmt::format("a head of {} dims, odd, and no {}: llama.cpp would rotate the whole head in pairs", r.head_dim,
                                 k.key("rope.dimension_count")));
  }
  r.rotary_dim = rotated.value_or(r.head_dim);
  if (r.rotary_dim > r.head_dim || r.rotary_dim < 2 || r.rotary_dim % 2 != 0) {
    k.fail(k.key("rope.dimension_count"), fmt::format("{}: an even number of rotated dims from 2 to the head's {}", r.rotary_dim, r.head_dim));
  }
  if (const auto base = k.real("rope.freq_base")) {
    r.base = *base;
  } else {
    r.base = 10000;
    notes.emplace_back(fmt::format("{}: not in the metadata; 10000, llama.cpp's default", k.key("rope.freq_base")));
  }
  r.pairs = arch.positions == gguf_positions::norm ? rotary_pairs::interleaved : rotary_pairs::rotate_half;
  r.scaling = read_scaling(k, notes);
  // Phi-3's long-context files carry their LongRoPE factors as tensors, with no scaling type.
  if (arch.tensor_scaling == gguf_tensor_scaling::longrope_factors && r.scaling.type == rotary_scaling::kind::none) {
    const auto original = k.count("rope.scaling.original_context_length"), context = k.count("context_length");
    if (original && context && *original < *context) {
      k.fail(k.key("rope.scaling.original_context_length"),
             fmt::format("{} < context_length {}: a LongRoPE model, whose factors are the tensors rope_factors_long/short.weight, and this "
                         "reader reads no tensors (spec from-hf reads them from config.json)",
                         *original, *context));
    }
  }
  if (arch.positions == gguf_positions::mrope) {
    const std::string key = k.key("rope.dimension_sections");
    const gguf_value* v = k.find("rope.dimension_sections");
    if (!v) k.fail(key, "missing: multimodal RoPE's pairs per position row");
    if (v->type != gguf_type::array || !is_integer(v->element)) k.fail(key, "not an array of integers");
    if (v->items.size() != 4) k.fail(key, fmt::format("{} sections: llama.cpp reads 4 (t, h, w and a fourth, 0 for text)", v->items.size()));
    if (v->items[3].integer != 0) k.fail(key, fmt::format("a fourth section of {}: not mapped to a spec", v->items[3].integer));
    for (int i = 0; i < 3; ++i) {
      if (v->items[i].integer < 0 || v->items[i].too_big) k.fail(key, fmt::format("section {}: negative or too big", i));
      r.mrope_sections.push_back(v->items[i].integer);
    }
  }
  notes.push_back(gguf_layout_note(arch));
  if (arch.tensor_scaling == gguf_tensor_scaling::llama3_rope_freqs) {
    notes.emplace_back("rope_freqs.weight: a Llama 3.1 or later file carries its llama3 scaling as this tensor (a divisor per frequency), not as "
                       "metadata, and this reader reads no tensors: the spec is the kernel without it (spec from-hf on the config.json gives "
                       "the scaled one)");
  }
  return r;
}

std::vector<std::int64_t> layers_where(std::int64_t layers, bool (*in)(std::int64_t)) {
  std::vector<std::int64_t> out;
  for (std::int64_t i = 0; i < layers; ++i)
    if (in(i)) out.push_back(i);
  return out;
}

// Gemma 3: llama.cpp src/llama-model.cpp, load_hparams, LLM_ARCH_GEMMA3 sets in code, not from
// the file, set_swa_pattern(6) (llama_hparams::set_swa_pattern, src/llama-hparams.cpp: layer il
// slides unless il % 6 == 5) and, for the sliding layers, rope_freq_base_train_swa = 10000 and
// rope_freq_scale_train_swa = 1; the global layers keep ARCH.rope.freq_base and rope.scaling.*.
std::vector<layer_kind> gemma3_kinds(const arch_keys& k, const gguf_arch& arch, std::int64_t heads, std::int64_t layers, const std::string& source) {
  const auto window = k.count("attention.sliding_window");
  if (!window) k.fail(k.key("attention.sliding_window"), "missing: llama.cpp's Gemma 3 reads it for its sliding-window layers");
  // Later llama.cpp reads the key as optional and makes every layer global when it is 0 or absent;
  // earlier versions require it and keep the pattern: the versions disagree, so no guess.
  if (*window == 0) {
    k.fail(k.key("attention.sliding_window"), "0: llama.cpp versions differ on a Gemma 3 without sliding window (later ones make every layer "
                                              "global at rope.freq_base, earlier ones keep 5 local layers in 6): not mapped");
  }
  std::vector<std::string> global_notes;
  const rotary_positions global = read_rotary(k, arch, heads, global_notes);
  rotary_positions local = global;
  local.base = 10000;
  local.scaling = {};
  std::vector<std::string> local_notes{
      "sliding_attention: layer i slides unless i % 6 == 5, set in llama.cpp's code, not in the file (load_hparams, LLM_ARCH_GEMMA3: "
      "set_swa_pattern(6))",
      "base 10000, unscaled: llama.cpp's code, not the file (load_hparams, LLM_ARCH_GEMMA3: rope_freq_base_train_swa = 10000, "
      "rope_freq_scale_train_swa = 1)",
      gguf_layout_note(arch)};
  std::vector<layer_kind> kinds;
  kinds.push_back({"", "sliding_attention", layers_where(layers, [](std::int64_t i) { return i % 6 != 5; }), local, source, std::move(local_notes)});
  kinds.push_back({"", "full_attention", layers_where(layers, [](std::int64_t i) { return i % 6 == 5; }), global, source, std::move(global_notes)});
  return kinds;
}

// Llama 4: llama.cpp's build_llama skips the rotation on layer il when (il + 1) %
// n_no_rope_layer_step == 0, a step of 4 in code (llama_hparams' default, src/llama-hparams.h; no
// GGUF key), and multiplies those layers' queries by log(floor((pos + 1) / n_attn_temp_floor_scale)
// + 1) * f_attn_temp_scale + 1 (llm_graph_input_attn_temp::set_input, src/llama-graph.cpp), with
// floor scale 8192 and scale 0.1 in code (llama-hparams.h defaults; later versions set them in
// load_hparams, LLM_ARCH_LLAMA4). The rotated layers read ARCH.rope.* as Llama's do.
std::vector<layer_kind> llama4_kinds(const arch_keys& k, const gguf_arch& arch, std::int64_t heads, std::int64_t layers, const std::string& source) {
  // Later llama.cpp takes attention.sliding_window = 0 as a Llama 4 without NoPE layers or
  // temperature (MobileLLM); earlier versions ignore the key.
  if (const auto window = k.count("attention.sliding_window"); window && *window == 0) {
    k.fail(k.key("attention.sliding_window"), "0: llama.cpp versions differ on a Llama 4 without chunked attention (later ones rotate every "
                                              "layer with no temperature, earlier ones keep the NoPE layers): not mapped");
  }
  std::vector<std::string> rope_notes;
  const rotary_positions rope = read_rotary(k, arch, heads, rope_notes);
  std::vector<std::string> nope_notes{
      "nope: layer i is not rotated when (i + 1) % 4 == 0, set in llama.cpp's code, not in the file (build_llama: n_no_rope_layer_step, 4 by "
      "default in llama-hparams.h)",
      "temperature: floor_scale 8192 and attn_scale 0.1 are llama.cpp's code, not the file (n_attn_temp_floor_scale, f_attn_temp_scale; "
      "llm_graph_input_attn_temp scales the queries by log(floor((pos + 1) / 8192) + 1) * 0.1 + 1)"};
  std::vector<layer_kind> kinds;
  kinds.push_back({"", "rope", layers_where(layers, [](std::int64_t i) { return (i + 1) % 4 != 0; }), rope, source, std::move(rope_notes)});
  kinds.push_back({"", "nope", layers_where(layers, [](std::int64_t i) { return (i + 1) % 4 == 0; }), query_temperature{8192, 0.1}, source,
                   std::move(nope_notes)});
  return kinds;
}

}  // namespace

model_positions gguf_model(const gguf_metadata& metadata, const std::string& file) {
  const arch_keys top(metadata, file, "general");
  const auto name = top.text_of("general.architecture");
  if (!name) top.fail("general.architecture", "missing: the architecture decides the position convention");
  const gguf_arch* arch = find_gguf_arch(*name);
  if (!arch) {
    top.fail("general.architecture", fmt::format("'{}' is not an architecture whose position convention pecheck knows (known: {})",
                                                 excerpt(*name), fmt::join(known_gguf_archs(), ", ")));
  }
  const arch_keys k(metadata, file, *name);
  const std::int64_t layers = k.positive("block_count", "the number of layers");
  check_limit(limit::layers, static_cast<std::uint64_t>(layers), fmt::format("{}: {}", file, k.key("block_count")));
  const std::int64_t heads = k.positive("attention.head_count", "the number of attention heads");
  const std::string source = fmt::format("{}: {}", file, k.key(arch->positions == gguf_positions::alibi ? "attention" : "rope"));
  std::vector<layer_kind> kinds;
  if (arch->layering == gguf_layering::gemma3) {
    kinds = gemma3_kinds(k, *arch, heads, layers, source);
  } else if (arch->layering == gguf_layering::llama4) {
    kinds = llama4_kinds(k, *arch, heads, layers, source);
  } else {
    std::vector<std::string> notes;
    position_encoding encoding;
    if (arch->positions == gguf_positions::alibi) encoding = read_alibi(k, heads, notes);
    else encoding = read_rotary(k, *arch, heads, notes);
    kinds.push_back({"", "", layers_where(layers, [](std::int64_t) { return true; }), std::move(encoding), source, std::move(notes)});
  }
  // A model too shallow for a pattern has a kind with no layers.
  std::erase_if(kinds, [](const layer_kind& kind) { return kind.layers.empty(); });
  return model_positions{*name, {layer_stack{"", layers}}, std::move(kinds)};
}

model_positions read_gguf(std::istream& in, std::uint64_t size, const std::string& file) {
  return gguf_model(read_gguf_metadata(in, size, file), file);
}

model_positions read_gguf_file(const std::string& path) {
  require_regular_file(path, path);  // a FIFO would block the open below, /dev/zero never ends
  std::ifstream in(path, std::ios::binary);
  if (!in) throw input_error(fmt::format("{}: cannot read it: {}", path, std::strerror(errno)));
  in.seekg(0, std::ios::end);
  const std::streamoff size = in.tellg();
  if (size < 0) throw input_error(fmt::format("{}: cannot tell its size", path));
  in.seekg(0, std::ios::beg);
  return read_gguf(in, static_cast<std::uint64_t>(size), path);
}

}  // namespace pe::convert
