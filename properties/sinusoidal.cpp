// Laws of the sinusoidal encoding: the linear offset relation, offset-only dot products, bounds, uniqueness, and proximity up to K*.
#include <map>

#include "properties/law_support.hpp"
#include "properties/property.hpp"
#include "properties/targets.hpp"

namespace pe::props {
namespace {

// Where pair i's sin and cos sit: (2i, 2i+1) interleaved, (i, i + dim/2) for concat and fairseq.
std::pair<std::int64_t, std::int64_t> sin_cos_slots(const spec& s, std::int64_t i) {
  if (s.choice("layout") == "interleaved") return {2 * i, 2 * i + 1};
  return {i, i + s.integer("dim") / 2};
}

// Every stored sin/cos is within 2 ulps of its exact value (proofs/precision.phase_reduction.md),
// so within e = 2u absolutely, as |value| <= 1.
template <class T>
double entry_error() {
  return 2 * unit_roundoff<T>();
}

// Error of a computed dot product of two encodings (|entries| <= 1, ||PE||^2 = dim/2):
// e (||a||_1 + ||b||_1) + gamma_dim sum |a_c b_c| <= 2 sqrt(2) e dim/2 ... (proof: sinusoidal.dot_depends_on_offset).
template <class T>
double dot_error(std::int64_t dim) {
  const double u = unit_roundoff<T>(), e = entry_error<T>(), n = static_cast<double>(dim);
  return 1.01 * (e * std::sqrt(2.0) * n + gamma(n, u) * n / 2 + n * e * e);
}

template <class T>
T dot_rows(const tensor<T>& pe, std::int64_t r1, std::int64_t r2) {
  T acc(0);
  for (std::int64_t c = 0; c < pe.shape[1]; ++c) acc += pe(r1, c) * pe(r2, c);
  return acc;
}

// PE(p + k) = M_k PE(p), M_k the block rotation built from PE(k) alone (so independent of p),
// and orthogonal: sin^2 + cos^2 = 1 in each block.
template <class T>
struct linear_offset {
  static measure run(const backend<T>& b, const spec& s) {
    const auto p = *gen_position().as("p"), k = *gen_position().as("k");
    RC_CLASSIFY(p + k >= (std::int64_t{1} << 24), "p+k>=2^24");
    const auto pe = encoded(b, s, {p, k, p + k});
    double residual = 0;
    for (std::int64_t i = 0; i < s.integer("dim") / 2; ++i) {
      const auto [si, ci] = sin_cos_slots(s, i);
      const T sp = pe(0, si), cp = pe(0, ci), sk = pe(1, si), ck = pe(1, ci);
      residual = std::max({residual, std::abs(as_double(T(sp * ck + cp * sk - pe(2, si)))),
                           std::abs(as_double(T(cp * ck - sp * sk - pe(2, ci)))),
                           std::abs(as_double(T(sk * sk + ck * ck - T(1))))});
    }
    // (4 sqrt 2 + 4) u < 12 u: entry errors through two products, their rounding, and the target's error.
    return {residual, 12 * unit_roundoff<T>(), 1};
  }
};

// PE(p) . PE(p + k) = sum_i cos(k w_i) depends on k only: compare it at two positions.
template <class T>
struct dot_depends_on_offset {
  static measure run(const backend<T>& b, const spec& s) {
    const auto p = *gen_position().as("p"), q = *gen_position().as("q"), k = *gen_position(std::int64_t{1} << 30).as("k");
    const auto pe = encoded(b, s, {p, p + k, q, q + k});
    const T here = dot_rows(pe, 0, 1), there = dot_rows(pe, 2, 3);
    return {std::abs(as_double(T(here - there))), 2 * dot_error<T>(s.integer("dim")), static_cast<double>(s.integer("dim"))};
  }
};

// Every component is in [-1, 1] and ||PE(p)||^2 = dim/2 for every p.
template <class T>
struct bounded {
  static measure run(const backend<T>& b, const spec& s) {
    const auto p = *gen_position().as("p");
    const auto pe = encoded(b, s, {p});
    using std::abs;
    for (const auto& v : pe.data)  // compared in T: at MPFR precision 1 + 2^-100 must not pass as 1
      if (abs(v) > T(1)) return {INFINITY, 0, 1};
    const T norm2 = dot_rows(pe, 0, 0);
    const T half = T(s.integer("dim")) / T(2);
    return {as_double(T(abs(T(norm2 - half)))), dot_error<T>(s.integer("dim")), as_double(half)};
  }
};

// Offsets near a multiple of 2 pi (numerators of the convergents of 2 pi up to 2^40, computed
// with mpmath): the fastest pair (w_0 = 1) nearly repeats there, the hardest places for uniqueness.
const std::vector<std::int64_t>& near_repeats() {
  static const std::vector<std::int64_t> d = {6,        19,        25,         44,         333,         710,        103993,
                                              312689,   1980127,   2292816,    4272943,    10838702,    80143857,   411557987,
                                              2137933792, 2549491779, 12335900908, 14885392687, 42106686282};
  return d;
}

// Distinct positions get distinct codes, by more than the evaluation error (2e = 4u): the
// fastest pair alone separates them by 2 |sin((p - q)/2)| > 0. Separation law.
template <class T>
struct unique_codes {
  static measure run(const backend<T>& b, const spec& s) {
    const auto p = *gen_position().as("p");
    const auto delta = *rc::gen::weightedOneOf<std::int64_t>(
        {{2, rc::gen::inRange<std::int64_t>(1, 1000)}, {2, rc::gen::elementOf(near_repeats())}, {1, gen_position()}}).as("delta");
    RC_PRE(delta > 0);
    RC_CLASSIFY(std::find(near_repeats().begin(), near_repeats().end(), delta) != near_repeats().end(), "near-repeat offset");
    const auto pe = encoded(b, s, {p, p + delta});
    return {2 * entry_error<T>() * 1.01, max_abs_diff(pe, 0, pe, s.integer("dim"), s.integer("dim")), 1};
  }
};

// Proximity phi(k) = PE(p) . PE(p + k) falls strictly for 0 <= k <= K*, where K* is the last
// offset before the first step that does not fall by more than four dot errors (the seed's
// "monotonicity" holds only that far). The law reports K* and checks random p, k1 < k2 <= K*.
template <class T>
struct monotonic_proximity {
  static constexpr std::int64_t scan_limit = 1 << 14;

  // K* of one spec, scanned in growing chunks (the scan stops at the first non-falling step)
  // and kept per spec text, as every case of a fixed target asks again.
  static std::int64_t k_star(const backend<T>& b, const spec& s) {
    static std::map<std::string, std::int64_t> known;
    const std::string key = fmt::format("{}|{}|{}|{}", static_cast<const void*>(&b), b.name(), s.text(), unit_roundoff<T>());
    if (const auto it = known.find(key); it != known.end()) return it->second;
    // Each step must fall by more than 4 dot errors: 2 so that the exact phi falls, 2 more so that
    // phi evaluated at any other p (within one dot error of it) falls too.
    const double step = 4 * dot_error<T>(s.integer("dim"));
    std::int64_t found = scan_limit;
    T last(0);
    for (std::int64_t from = 0, width = 16; from < scan_limit && found == scan_limit; from += width, width *= 2) {
      std::vector<std::int64_t> pos = {0};
      for (std::int64_t q = from; q < from + width; ++q) pos.push_back(q);
      const auto pe = encoded(b, s, pos);
      for (std::int64_t r = 1; r < static_cast<std::int64_t>(pos.size()); ++r) {
        const std::int64_t k = pos[static_cast<size_t>(r)];
        const T phi = dot_rows(pe, 0, r);
        if (k > 0 && !(as_double(T(last - phi)) > step)) {
          found = k - 1;
          break;
        }
        last = phi;
      }
    }
    return known[key] = found;
  }

  static measure run(const backend<T>& b, const spec& s) {
    const std::int64_t ks = k_star(b, s);
    const auto p = *gen_position().as("p");
    const auto k2 = *rc::gen::inRange<std::int64_t>(1, ks + 1).as("k2");
    const auto k1 = *rc::gen::inRange<std::int64_t>(0, k2).as("k1");
    const auto pe = encoded(b, s, {p, p + k1, p + k2});
    const double rise = as_double(T(dot_rows(pe, 0, 2) - dot_rows(pe, 0, 1)));  // must be < 0
    measure m{std::max(rise, 0.0), 0, 1};
    m.note = ks >= scan_limit ? fmt::format("K* >= {}", scan_limit) : fmt::format("K* = {}", ks);
    return m;
  }
};

}  // namespace

void add_sinusoidal_properties(std::vector<property>& out) {
  const auto random = [] { return std::vector<target>{random_specs("sinusoidal", expectation::holds)}; };
  out.push_back(make_property<linear_offset>(
      "sinusoidal.linear_offset",
      "PE(p+k) = M_k PE(p) with M_k block-diagonal rotations built from PE(k) alone: orthogonal and independent of p",
      law_kind::identity, random()));
  out.push_back(make_property<dot_depends_on_offset>(
      "sinusoidal.dot_depends_on_offset", "PE(p) . PE(p+k) = sum_i cos(k w_i): the same at every p for a given k",
      law_kind::identity, random()));
  out.push_back(make_property<bounded>("sinusoidal.bounded", "every component lies in [-1, 1] and ||PE(p)||^2 = dim/2",
                                       law_kind::identity, random()));
  out.push_back(make_property<unique_codes>(
      "sinusoidal.unique", "distinct positions get distinct codes, by more than the evaluation error, up to 2^40",
      law_kind::inequality, random()));
  out.push_back(make_property<monotonic_proximity>(
      "sinusoidal.monotonic_proximity",
      "PE(p) . PE(p+k) falls strictly with k only up to a distance K* (reported); beyond it, it rises again",
      law_kind::inequality,
      {random_specs("sinusoidal", "sinusoidal", expectation::holds_within, gen_sinusoidal_spec()),
       fixed_spec("sinusoidal(dim=512)", expectation::holds_within)}));
}


namespace {

const family_registration sinusoidal_registration{20, add_sinusoidal_properties};
const spec_generator_registration sinusoidal_generator{"sinusoidal", [] { return gen_sinusoidal_spec(); }};

}  // namespace

}  // namespace pe::props
