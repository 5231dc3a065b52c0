// Random specs and inputs for the laws (see generators.hpp).
#include "properties/generators.hpp"

#include <algorithm>
#include <functional>
#include <map>
#include <stdexcept>
#include <numeric>

#include <fmt/format.h>

#include "pe/scheme.hpp"

namespace pe::props {
namespace {

using rc::gen::element;
using rc::gen::inRange;
using rc::gen::weightedOneOf;

// An even number in [lo, hi].
rc::Gen<std::int64_t> even(std::int64_t lo, std::int64_t hi) {
  return rc::gen::map(inRange<std::int64_t>(lo / 2, hi / 2 + 1), [](std::int64_t h) { return 2 * h; });
}

// Bases 10 .. 10^6: the shipped ones (10^4, 5 10^5, 10^6) weighted in.
rc::Gen<std::int64_t> gen_base() {
  return weightedOneOf<std::int64_t>({{3, element<std::int64_t>(10000, 500000, 1000000, 10)},
                                      {2, inRange<std::int64_t>(10, 1000001)}});
}

// A factor in [1, 64] in quarter steps (dyadic: exact in the spec text).
rc::Gen<double> gen_factor() {
  return rc::gen::map(inRange<int>(4, 257), [](int q) { return q / 4.0; });
}

std::string list_text(const std::vector<double>& v) { return fmt::format("[{}]", fmt::join(v, ", ")); }

}  // namespace

rc::Gen<std::string> gen_dim_spec(const std::string& scheme) {
  return rc::gen::map(inRange<std::int64_t>(1, 17), [scheme](std::int64_t dim) { return fmt::format("{}(dim={})", scheme, dim); });
}

// Lengths and tables of at least 8: attention laws place up to 7 tokens at 0, 1, ...
rc::Gen<std::string> gen_normalized_spec() {
  return rc::gen::exec([] {
    const auto dim = *inRange<std::int64_t>(1, 17);
    return fmt::format("normalized(dim={}, length={})", dim, *inRange<std::int64_t>(8, 1 << 20));
  });
}

rc::Gen<std::string> gen_binary_spec() {
  return rc::gen::map(inRange<std::int64_t>(1, 41), [](std::int64_t dim) { return fmt::format("binary(dim={})", dim); });
}

rc::Gen<std::string> gen_learned_spec() {
  return rc::gen::exec([] {
    const auto dim = *inRange<std::int64_t>(1, 17);
    return fmt::format("learned(dim={}, max_len={}, seed={})", dim, *inRange<std::int64_t>(8, 65), *inRange<std::int64_t>(0, 1000));
  });
}

rc::Gen<std::string> gen_none_spec() {
  return rc::gen::map(inRange<std::int64_t>(0, 17), [](std::int64_t d) { return fmt::format("none(dim={})", d); });
}

rc::Gen<std::string> gen_sinusoidal_spec() {
  return rc::gen::exec([] {
    const auto layout = *element<std::string>("interleaved", "concat", "fairseq");
    // Half the draws at d_model <= 16. Attention's inputs grow with d_model, and wide ones make
    // logits that saturate the softmax (equal outputs): attention.position_breaks_symmetry found
    // its counterexample only after 35 cases and spent 4.9 s (of check's 13) shrinking it, to
    // d_model 46. With small widths drawn too it fails at once and shrinks to d_model 2.
    const std::int64_t lo = layout == "fairseq" ? 4 : 2;
    const auto dim = *weightedOneOf<std::int64_t>({{1, even(lo, 16)}, {1, even(lo, 256)}});
    return fmt::format("sinusoidal(dim={}, base={}, layout={})", dim, *gen_base(), layout);
  });
}

namespace {

// One scaling's parameters after the drawn factor and original_max, for rotary_dim r.
using scaling_body = std::function<std::string(const std::string& kind, double factor, std::int64_t original, std::int64_t rotary)>;
struct scaling_generator {
  scaling_body body;
  std::int64_t min_rotary = 2;  // NTK and dynamic NTK raise the base to r/(r-2): r >= 4
};

const std::map<std::string, scaling_generator>& scaling_generators() {
  static const std::map<std::string, scaling_generator> all = {
      {"linear", {[](const std::string& kind, double factor, std::int64_t, std::int64_t) { return fmt::format("{}(factor={})", kind, factor); }}},
      {"ntk", {[](const std::string& kind, double factor, std::int64_t, std::int64_t) { return fmt::format("{}(factor={})", kind, factor); }, 4}},
      {"dynamic",
       {[](const std::string&, double factor, std::int64_t original, std::int64_t) {
          return fmt::format("dynamic(factor={}, original_max={}, seq_len={})", factor, original, *inRange<std::int64_t>(1, 4 * original));
        },
        4}},
      {"yarn", {[](const std::string&, double factor, std::int64_t original, std::int64_t) {
         const auto fast = *element<double>(32, 16, 64);
         const auto slow = *element<double>(1, 2, 0.5);
         const auto magnitude = *element<std::string>("hf", "ggml");
         const bool truncate = magnitude == "ggml" ? true : *rc::gen::arbitrary<bool>();
         return fmt::format("yarn(factor={}, original_max={}, beta_fast={}, beta_slow={}, truncate={}, magnitude={})", factor, original,
                            fast, slow, truncate, magnitude);
       }}},
      {"llama3", {[](const std::string&, double factor, std::int64_t original, std::int64_t) {
         const auto low = *element<double>(1, 0.5, 2);
         // high > low: with equal factors (Llama 4 Scout) the map jumps at the band edge, and the
         // continuity law (properties/scaling.cpp) holds only where there is a band to blend over.
         const auto high = low * *element<double>(4, 2, 8);
         return fmt::format("llama3(factor={}, low_freq_factor={}, high_freq_factor={}, original_max={})", factor, low, high, original);
       }}},
      // longrope: per-pair factors 1 .. 64 in quarter steps; Phi-3 style max_pos = factor * original.
      {"longrope", {[](const std::string&, double, std::int64_t original, std::int64_t rotary) {
         std::vector<double> short_f, long_f;
         for (std::int64_t i = 0; i < rotary / 2; ++i) short_f.push_back(*gen_factor()), long_f.push_back(*gen_factor());
         const auto max_pos = original * *inRange<std::int64_t>(2, 33);
         return fmt::format("longrope(short_factor={}, long_factor={}, original_max={}, max_pos={}, seq_len={})", list_text(short_f),
                            list_text(long_f), original, max_pos, *inRange<std::int64_t>(1, max_pos + 1));
       }}}};
  return all;
}

}  // namespace

rc::Gen<std::string> gen_scaling(const std::string& kind, std::int64_t rotary) {
  const auto& g = scaling_generators().at(kind);
  return rc::gen::exec([kind, rotary, body = g.body] {
    const double factor = *gen_factor().as("factor");
    const auto original = *element<std::int64_t>(2048, 4096, 8192, 512, 32768);
    return body(kind, factor, original, rotary);
  });
}

rc::Gen<std::string> gen_rope_spec() { return gen_rope_spec(rope_options{}); }

rc::Gen<std::string> gen_rope_spec(const rope_options& o) {
  return rc::gen::exec([o] {
    const auto dim = *even(o.partial ? 4 : 2, 256);
    // Partial rotary one time in four (GPT-NeoX: 25%, Phi-2: 40%), else the whole head.
    const auto rotary = o.partial ? *even(2, dim - 2) : *weightedOneOf<std::int64_t>({{3, rc::gen::just(dim)}, {1, even(2, dim)}});
    const auto layout = *element<std::string>("neox", "gptj");
    const auto base = std::max(o.min_base, *gen_base());
    std::string text = fmt::format("rope(dim={}, rotary_dim={}, base={}, layout={}", dim, rotary, base, layout);
    if (o.truncate_low && *inRange(0, 8) == 0) text += fmt::format(", truncate_low={}", *element<double>(0.25, 0.5, 0.125));
    const auto kind = o.scaling == "any" ? *element<std::string>("none", "linear", "ntk", "dynamic", "yarn", "llama3", "longrope")
                                         : o.scaling;
    const auto scaling_kind = scaling_generators().find(kind);  // "none": no entry, no scaling
    if (scaling_kind != scaling_generators().end() && rotary >= scaling_kind->second.min_rotary) {
      std::string scaling = *gen_scaling(kind, rotary);
      if (o.integer_factor) {  // replace the drawn factor by an integer one
        const auto at = scaling.find("factor=") + 7;
        scaling = scaling.substr(0, at) + std::to_string(*inRange(1, 17)) + scaling.substr(scaling.find_first_of(",)", at));
      }
      text += ", scaling=" + scaling;
    }
    return text + ")";
  });
}

rc::Gen<std::string> gen_rope_nd_spec() {
  return rc::gen::exec([] {
    std::vector<double> axes;
    const auto n = *inRange(1, 4);
    for (int a = 0; a < n; ++a) axes.push_back(static_cast<double>(*even(2, 64)));
    return fmt::format("rope_nd(axes={}, base={}, layout={})", list_text(axes), *gen_base(),
                       *element<std::string>("gptj", "neox"));
  });
}

rc::Gen<std::string> gen_mrope_spec() {
  return rc::gen::exec([] {
    const auto t = *inRange<std::int64_t>(0, 33), h = *inRange<std::int64_t>(0, 33), w = *inRange<std::int64_t>(0, 33);
    const auto pairs = std::max<std::int64_t>(t + h + w, 1);
    const auto tt = t + h + w == 0 ? 1 : t;
    return fmt::format("mrope(dim={}, sections=[{}, {}, {}], base={}, interleaved={})", 2 * pairs, tt, h, w, *gen_base(),
                       *rc::gen::arbitrary<bool>());
  });
}

rc::Gen<std::string> gen_alibi_spec(bool causal) {
  return rc::gen::map(weightedOneOf<std::int64_t>({{2, element<std::int64_t>(1, 6, 8, 12, 16, 32, 40, 64)}, {1, inRange<std::int64_t>(1, 97)}}),
                      [causal](std::int64_t h) { return fmt::format("alibi(heads={}, causal={})", h, causal); });
}

rc::Gen<std::string> gen_alibi_spec() {
  return rc::gen::mapcat(rc::gen::arbitrary<bool>(), [](bool c) { return gen_alibi_spec(c); });
}

rc::Gen<std::string> gen_t5_spec() {
  return rc::gen::exec([] {
    const bool bidirectional = *rc::gen::arbitrary<bool>().as("bidirectional");
    const auto buckets = *weightedOneOf<std::int64_t>({{2, rc::gen::just(std::int64_t{32})}, {1, inRange<std::int64_t>(4, 129)}});
    const auto exact = bidirectional ? buckets / 4 : buckets / 2;
    const auto max_distance = *weightedOneOf<std::int64_t>({{2, rc::gen::just(std::max<std::int64_t>(128, exact + 1))},
                                                           {1, inRange<std::int64_t>(exact + 1, 4096)}});
    return fmt::format("t5(buckets={}, max_distance={}, bidirectional={}, heads={}, seed={})", buckets, max_distance,
                       bidirectional, *inRange<std::int64_t>(1, 5), *inRange<std::int64_t>(0, 100));
  });
}

rc::Gen<std::string> gen_shaw_spec() {
  return rc::gen::exec([] {
    return fmt::format("shaw(k={}, dim={}, seed={})", *inRange<std::int64_t>(1, 17), *inRange<std::int64_t>(1, 17),
                       *inRange<std::int64_t>(0, 100));
  });
}

rc::Gen<std::string> gen_txl_spec() {
  return rc::gen::exec([] {
    return fmt::format("txl(heads={}, dim={}, r_dim={}, seed={})", *inRange<std::int64_t>(1, 4), *inRange<std::int64_t>(1, 17),
                       *even(2, 32), *inRange<std::int64_t>(0, 100));
  });
}

rc::Gen<std::string> gen_deberta_spec() {
  return rc::gen::exec([] {
    const auto k = *inRange<std::int64_t>(1, 65);
    const bool log_buckets = *rc::gen::arbitrary<bool>().as("log_buckets");
    const auto buckets = log_buckets ? *inRange<std::int64_t>(4, 65) : 0;
    const auto max_position = log_buckets ? *inRange<std::int64_t>(buckets / 2 + 2, 1024) : 512;
    return fmt::format("deberta(k={}, buckets={}, max_position={}, heads={}, dim={}, seed={})", k, buckets, max_position,
                       *inRange<std::int64_t>(1, 4), *inRange<std::int64_t>(1, 17), *inRange<std::int64_t>(0, 100));
  });
}

namespace {

std::map<std::string, std::function<rc::Gen<std::string>()>>& generators() {
  static std::map<std::string, std::function<rc::Gen<std::string>()>> all;
  return all;
}

}  // namespace

spec_generator_registration::spec_generator_registration(std::string scheme, std::function<rc::Gen<std::string>()> make) {
  if (!generators().emplace(scheme, std::move(make)).second) throw std::logic_error("two spec generators for scheme " + scheme);
}

bool has_spec_generator(const std::string& scheme) { return generators().count(scheme) > 0; }

rc::Gen<std::string> gen_spec_of(const std::string& scheme) {
  const auto it = generators().find(scheme);
  if (it == generators().end()) throw std::logic_error("gen_spec_of: no generator for scheme " + scheme);
  return it->second().as("spec");
}

rc::Gen<std::string> gen_spec_of(const std::string& scheme, bool causal) {
  return rc::gen::suchThat(gen_spec_of(scheme), [causal](const std::string& text) { return causal || !needs_causal_mask(parse_spec(text)); }).as("spec");
}

rc::Gen<std::int64_t> gen_position(std::int64_t max) {
  std::vector<std::int64_t> hard;
  for (const std::int64_t p : {std::int64_t{255}, std::int64_t{256}, std::int64_t{257}, (std::int64_t{1} << 24) - 2,
                               (std::int64_t{1} << 24) - 1, std::int64_t{1} << 24, (std::int64_t{1} << 24) + 1,
                               (std::int64_t{1} << 24) + 2, (std::int64_t{1} << 31) - 2, (std::int64_t{1} << 31) - 1,
                               std::int64_t{1} << 31, std::int64_t{1} << 40})
    if (p <= max) hard.push_back(p);
  auto small = inRange<std::int64_t>(0, std::min<std::int64_t>(max, 64) + 1);
  auto anywhere = inRange<std::int64_t>(0, max == INT64_MAX ? max : max + 1);
  // Log-uniform: 2^e scaled by a random fraction, so every octave up to max gets cases.
  auto octave = rc::gen::exec([max] {
    const int top = 63 - __builtin_clzll(static_cast<unsigned long long>(std::max<std::int64_t>(max, 1)));
    const int e = *inRange(0, top + 1);
    const std::int64_t lo = std::int64_t{1} << e;
    return std::min(max, lo + *inRange<std::int64_t>(0, lo));
  });
  // Named, so that a counterexample says "position = 257" (a draw site may name it better).
  if (hard.empty()) return weightedOneOf<std::int64_t>({{3, small}, {3, anywhere}, {2, octave}}).as("position");
  return weightedOneOf<std::int64_t>({{3, small}, {2, rc::gen::elementOf(hard)}, {3, anywhere}, {2, octave}}).as("position");
}

rc::Gen<std::vector<double>> gen_vector(std::int64_t n) {
  return rc::gen::exec([n] {
    const int e = *inRange(12, 29);  // |values| < 2^(20-e): 2^8 down to 2^-8
    std::vector<double> v(static_cast<size_t>(n));
    // Magnitude and sign drawn apart, so shrinking goes to 0, not to the most negative value.
    for (auto& x : v) x = std::ldexp(static_cast<double>(*inRange<std::int64_t>(0, 1 << 20) * *element<std::int64_t>(1, -1)), -e);
    return v;
  }).as("values");
}

rc::Gen<std::vector<std::int64_t>> gen_permutation(std::int64_t n) {
  std::vector<std::int64_t> order(static_cast<size_t>(n));
  std::iota(order.begin(), order.end(), std::int64_t{0});
  return rc::gen::map(rc::gen::container<std::vector<std::int64_t>>(static_cast<size_t>(n), inRange<std::int64_t>(0, 1 << 30)),
                      [order](const std::vector<std::int64_t>& keys) {
                        auto out = order;
                        std::stable_sort(out.begin(), out.end(), [&](std::int64_t a, std::int64_t b) { return keys[a] < keys[b]; });
                        return out;
                      })
      .as("permutation");
}

std::string position_class(std::int64_t p) {
  if (p >= (std::int64_t{1} << 31)) return "p>=2^31";
  if (p >= (std::int64_t{1} << 24)) return "p>=2^24";
  if (p >= 256) return "p>=256";
  return "p<256";
}

}  // namespace pe::props
