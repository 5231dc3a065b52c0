// Llama 4's attention temperature: registry entry, the scale op and attend's scaled queries.
#include "pe/schemes/llama4_temperature.hpp"

#include "pe/registry.hpp"
#include "pe/scheme.hpp"

namespace pe {
namespace {

scheme_info llama4_temperature_info() {
  return {"llama4_temperature", "encoding",
          "Llama 4's attention temperature for its NoPE layers: queries at cache position p multiplied by "
          "ln(floor((p + 1)/floor_scale) + 1) * attn_scale + 1 (exactly 1 while p + 1 < floor_scale); no rotation",
          {integer_param("floor_scale", "positions per temperature block (HF: floor_scale)", 8192, 1, max_table_length),
           real_param("attn_scale", "the logarithm's weight (HF: attn_scale)", 0.1,
                      [](double a) { return a >= 0 && std::isfinite(a) ? std::string() : std::string("must be a finite value >= 0"); })},
          {"scale", "attend"},
          {}};
}

scheme_behaviour llama4_temperature_behaviour() {
  scheme_behaviour b;
  b.kind = scheme_kind::input_side;
  b.scale = typed_hook<encode_signature>::of(
      []<class T>(const spec& s, std::span<const std::int64_t> p) { return llama4_temperature_scale<T>(s, p); });
  // Queries row by row times tau(qpos) (HF: query_states * attn_scales); keys unchanged.
  b.input_side = [](const spec& s, const tensor<double>& x, std::span<const std::int64_t> pos, bool query) {
    tensor<mp_real> out(x.shape);
    const std::size_t row = x.shape.empty() || x.shape[0] == 0 ? 1 : x.data.size() / static_cast<std::size_t>(x.shape[0]);
    mp_real tau(1);
    for (std::size_t e = 0; e < x.data.size(); ++e) {
      if (query && e % row == 0) tau = llama4_temperature_tau<mp_real>(s, pos[e / row]);  // once per token, unrounded: attend rounds once at the end
      out.data[e] = query ? mp_real(x.data[e]) * tau : mp_real(x.data[e]);
    }
    return out;
  };
  b.sees_key_positions = false;
  // The first positions of the first two blocks and their neighbours: p + 1 = F and 2F.
  b.boundary_positions = [](const spec& s) {
    const std::int64_t f = s.integer("floor_scale");
    std::vector<std::int64_t> out;
    for (const std::int64_t edge : {f - 1, 2 * f - 1})
      for (const std::int64_t p : {edge - 1, edge, edge + 1})
        if (p >= 0) out.push_back(p);
    return out;
  };
  return b;
}

const scheme_registration llama4_temperature_registered{10, llama4_temperature_info(), llama4_temperature_behaviour()};

}  // namespace
}  // namespace pe
