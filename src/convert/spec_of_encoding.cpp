// Position encodings as JSON twins of specs: rope (and its scalings), mrope, alibi, t5, deberta, llama4_temperature, none.
#include "convert/spec_of_encoding.hpp"

#include <fmt/format.h>

#include "pe/error.hpp"

namespace pe::convert {
namespace {

using json = nlohmann::ordered_json;

template <class T>
void put(json& j, const char* key, const std::optional<T>& v) {
  if (v) j[key] = *v;
}

json scaling_json(const rotary_scaling& s) {
  using kind = rotary_scaling::kind;
  json j;
  switch (s.type) {
    case kind::none: return j;
    case kind::linear: j["scheme"] = "linear"; break;
    case kind::ntk: j["scheme"] = "ntk"; break;
    case kind::dynamic: j["scheme"] = "dynamic"; break;
    case kind::yarn: j["scheme"] = "yarn"; break;
    case kind::llama3: j["scheme"] = "llama3"; break;
    case kind::longrope: j["scheme"] = "longrope"; break;
  }
  if (s.type == kind::longrope) {
    j["short_factor"] = s.short_factor;
    j["long_factor"] = s.long_factor;
  }
  put(j, "factor", s.factor);
  put(j, "original_max", s.original_max);
  put(j, "max_pos", s.extended_max);
  put(j, "low_freq_factor", s.low_freq_factor);
  put(j, "high_freq_factor", s.high_freq_factor);
  put(j, "beta_fast", s.beta_fast);
  put(j, "beta_slow", s.beta_slow);
  put(j, "truncate", s.truncate);
  put(j, "attention_factor", s.attention_factor);
  put(j, "mscale", s.mscale);
  put(j, "mscale_all_dim", s.mscale_all_dim);
  return j;
}

json rotary_json(const rotary_positions& r, const std::string& source) {
  if (r.mrope_sections.empty()) {
    json j{{"scheme", "rope"}, {"dim", r.head_dim}, {"base", r.base}, {"rotary_dim", r.rotary_dim},
           {"layout", r.pairs == rotary_pairs::rotate_half ? "neox" : "gptj"}};
    if (r.scaling.type != rotary_scaling::kind::none) j["scaling"] = scaling_json(r.scaling);
    return j;
  }
  // pecheck's mrope rotates the whole head in rotate_half pairs with unscaled frequencies.
  if (r.scaling.type != rotary_scaling::kind::none) {
    throw input_error(fmt::format("{}: multimodal RoPE (mrope_section) with a long-context scaling: no pecheck scheme computes both", source));
  }
  if (r.rotary_dim != r.head_dim) {
    throw input_error(fmt::format("{}: multimodal RoPE (mrope_section) on {} of {} dims: pecheck's mrope rotates the whole head", source,
                                  r.rotary_dim, r.head_dim));
  }
  if (r.pairs != rotary_pairs::rotate_half) {
    throw input_error(fmt::format("{}: multimodal RoPE (mrope_section) in interleaved pairs: pecheck's mrope pairs (i, i + d/2)", source));
  }
  return json{{"scheme", "mrope"}, {"dim", r.head_dim}, {"sections", r.mrope_sections}, {"base", r.base}, {"interleaved", r.mrope_interleaved}};
}

}  // namespace

nlohmann::ordered_json spec_json_of(const position_encoding& encoding, const std::string& source) {
  struct {
    const std::string& source;
    json operator()(const no_position&) const { return json{{"scheme", "none"}}; }
    json operator()(const rotary_positions& r) const { return rotary_json(r, source); }
    // Every ALiBi model read here is a decoder: the causal form -slope (i - j).
    json operator()(const alibi_positions& a) const { return json{{"scheme", "alibi"}, {"heads", a.heads}, {"causal", true}}; }
    json operator()(const t5_positions& t) const {
      return json{{"scheme", "t5"}, {"buckets", t.buckets}, {"max_distance", t.max_distance}, {"bidirectional", t.bidirectional}, {"heads", t.heads}};
    }
    // HF's DebertaV2 passes max_relative_positions both as the span and as the log buckets' max_position.
    json operator()(const deberta_positions& d) const {
      return json{{"scheme", "deberta"}, {"k", d.max_relative}, {"buckets", d.buckets}, {"max_position", d.max_relative},
                  {"heads", d.heads}, {"dim", d.head_dim}};
    }
    json operator()(const query_temperature& t) const {
      return json{{"scheme", "llama4_temperature"}, {"floor_scale", t.floor_scale}, {"attn_scale", t.attn_scale}};
    }
  } visit{source};
  return std::visit(visit, encoding);
}

}  // namespace pe::convert
