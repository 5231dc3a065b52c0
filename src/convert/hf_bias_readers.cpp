// Bias and relative families: ALiBi (BLOOM, MPT, Falcon), T5's buckets (encoder and decoder stacks), DeBERTa-v2/v3.
#include <algorithm>

#include <fmt/format.h>

#include "convert/hf_layers.hpp"
#include "convert/hf_readers.hpp"
#include "convert/hf_rope.hpp"
#include "pe/error.hpp"

namespace pe::convert {
namespace {

std::vector<std::int64_t> first_layers(std::int64_t n) {
  std::vector<std::int64_t> out;
  for (std::int64_t i = 0; i < n; ++i) out.push_back(i);
  return out;
}

std::string source_of(const config_node& node) { return fmt::format("{}: {}", node.file(), node.path_of("")); }

std::int64_t positive(const config_node& cfg, std::initializer_list<std::string_view> keys) {
  const auto v = cfg.required_integer_of(keys);
  if (v <= 0) cfg.fail(*keys.begin(), fmt::format("{} must be > 0", v));
  return v;
}

// A setting HF's config class defaults when absent: the value, with a note saying so.
std::int64_t integer_or(const config_node& cfg, std::string_view key, std::int64_t fallback, std::string_view whose, std::vector<std::string>& notes) {
  if (const auto v = cfg.integer(key)) return *v;
  notes.push_back(fmt::format("{}: not in the config; {}, HF's {} default", cfg.path_of(key), fallback, whose));
  return fallback;
}

}  // namespace

model_positions read_alibi(const config_node& cfg, const hf_family& family, std::string why) {
  const std::int64_t layers = layer_count_of(cfg);
  const std::int64_t heads = positive(cfg, {"num_attention_heads", "n_head", "n_heads"});
  layer_kind kind{"", "", first_layers(layers), alibi_positions{heads}, source_of(cfg), {std::move(why)}};
  return model_positions{std::string(family.model_type), {layer_stack{"", layers}}, {std::move(kind)}};
}

model_positions read_mpt(const config_node& cfg, const hf_family& family) {
  const auto attn = cfg.child("attn_config");
  if (!attn) cfg.fail("attn_config", "missing: MPT's position encoding is its attn_config.alibi");
  const auto alibi = attn->flag("alibi");
  if (!alibi) attn->fail("alibi", "missing: pecheck reads MPT's ALiBi and takes no default for it");
  if (!*alibi) attn->fail("alibi", "false: HF's MPT has no position encoding pecheck reads besides ALiBi");
  // MPT's slopes are 2^(-alibi_bias_max h / n); pecheck's alibi has the paper's 2^(-8h/n).
  if (const auto max = attn->real("alibi_bias_max"); max && *max != 8) {
    attn->fail("alibi_bias_max", fmt::format("{}: pecheck's alibi slopes are the paper's 2^(-8h/n), MPT's with 8", number_text(*max)));
  }
  auto model = read_alibi(cfg, family,
                          "MPT's slopes 2^(-8h/n) (alibi_bias_max 8); it adds slope x (key position - last position): the scores differ "
                          "from -slope (i - j) by a constant per query row, which softmax ignores");
  model.kinds.front().source = source_of(*attn);
  return model;
}

model_positions read_t5(const config_node& cfg, const hf_family& family) {
  std::vector<std::string> notes{
      "HF's T5 computes the bias in each stack's first layer (has_relative_attention_bias) and adds it in every layer of the stack"};
  t5_positions t;
  t.heads = positive(cfg, {"num_heads", "num_attention_heads"});
  t.buckets = integer_or(cfg, "relative_attention_num_buckets", 32, "T5Config", notes);
  t.max_distance = integer_or(cfg, "relative_attention_max_distance", 128, "T5Config", notes);
  const std::int64_t encoder_layers = layer_count_of(cfg, {"num_layers", "num_hidden_layers"});
  const auto source = source_of(cfg);
  if (!cfg.flag("is_encoder_decoder").value_or(true)) {
    // One stack: HF's T5Stack buckets bidirectionally unless is_decoder.
    t.bidirectional = !cfg.flag("is_decoder").value_or(false);
    layer_kind kind{"", "self-attention", first_layers(encoder_layers), t, source, notes};
    return model_positions{std::string(family.model_type), {layer_stack{"", encoder_layers}}, {std::move(kind)}};
  }
  std::vector<std::string> decoder_notes = notes;
  const std::int64_t decoder_layers = cfg.has("num_decoder_layers") ? layer_count_of(cfg, {"num_decoder_layers"}) : encoder_layers;
  if (!cfg.has("num_decoder_layers")) decoder_notes.push_back(fmt::format("num_decoder_layers: not in the config; num_layers={}, as HF fills it", encoder_layers));
  t5_positions decoder = t;
  decoder.bidirectional = false;  // the decoder stack (is_decoder): keys after the query are masked
  std::vector<layer_kind> kinds{
      {"encoder", "self-attention", first_layers(encoder_layers), t, source, notes},
      {"decoder", "self-attention", first_layers(decoder_layers), decoder, source, decoder_notes},
      {"decoder", "cross-attention", first_layers(decoder_layers), no_position{}, source, {"HF's T5 cross-attention adds no position bias"}},
  };
  return model_positions{std::string(family.model_type), {layer_stack{"encoder", encoder_layers}, layer_stack{"decoder", decoder_layers}},
                         std::move(kinds)};
}

model_positions read_deberta(const config_node& cfg, const hf_family& family) {
  const std::int64_t layers = layer_count_of(cfg);
  std::vector<std::string> notes;
  if (!cfg.flag("relative_attention").value_or(false)) {
    cfg.fail("relative_attention", "false or absent: the model then has only learned absolute positions, which pecheck does not read from a config");
  }
  // HF's DebertaV2Config: position_biased_input defaults to true, adding learned absolute
  // embeddings beside the relative terms.
  if (cfg.flag("position_biased_input").value_or(true)) {
    cfg.fail("position_biased_input", "true or absent: learned absolute embeddings beside the relative attention; one spec cannot hold both");
  }
  // pos_att_type: ["p2c", "c2p"] or v3's "p2c|c2p"; pecheck's deberta has both terms.
  std::vector<std::string> terms;
  if (const auto* p = cfg.find("pos_att_type")) {
    if (p->is_string()) {
      const auto s = p->get<std::string>();
      for (std::size_t a = 0; a <= s.size();) {
        const auto b = std::min(s.find('|', a), s.size());
        terms.push_back(s.substr(a, b - a));
        a = b + 1;
      }
    } else if (p->is_array()) {
      for (const auto& x : *p)
        if (x.is_string()) terms.push_back(x.get<std::string>());
    }
  }
  std::sort(terms.begin(), terms.end());
  if (terms != std::vector<std::string>{"c2p", "p2c"}) {
    cfg.fail("pos_att_type", "pecheck's deberta has both disentangled terms: give c2p and p2c (\"p2c|c2p\")");
  }
  deberta_positions d;
  d.heads = positive(cfg, {"num_attention_heads"});
  d.head_dim = head_dim_of(cfg);
  d.buckets = std::max<std::int64_t>(0, cfg.integer("position_buckets").value_or(-1));
  const auto max_relative = cfg.integer("max_relative_positions").value_or(-1);
  d.max_relative = max_relative;
  if (max_relative < 1) {
    const auto m = max_positions_of(cfg);
    if (!m) cfg.fail("max_position_embeddings", "missing: max_relative_positions < 1 stands for it");
    d.max_relative = *m;
    notes.push_back(fmt::format("max_relative_positions={}: HF reads max_position_embeddings={} instead", max_relative, *m));
  }
  layer_kind kind{"", "", first_layers(layers), d, source_of(cfg), std::move(notes)};
  return model_positions{std::string(family.model_type), {layer_stack{"", layers}}, {std::move(kind)}};
}

}  // namespace pe::convert
