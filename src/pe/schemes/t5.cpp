// T5's exact bucket function and registry entry.
#include "pe/schemes/t5.hpp"

#include <algorithm>
#include <cmath>
#include <gmp.h>

#include <fmt/format.h>

#include "pe/error.hpp"
#include "pe/registry.hpp"
#include "pe/scheme.hpp"

namespace pe {
namespace {

// a^p as a GMP integer.
void power(mpz_t out, std::uint64_t a, unsigned long p) {
  mpz_set_ui(out, a);
  mpz_pow_ui(out, out, p);
}

}  // namespace

std::int64_t t5_bucket(std::int64_t rel, std::int64_t buckets, std::int64_t max_distance, bool bidirectional) {
  std::int64_t offset = 0, per_sign = buckets;
  std::uint64_t n = 0;  // |rel| as unsigned: also right for INT64_MIN
  if (bidirectional) {
    per_sign = buckets / 2;
    if (rel > 0) offset = per_sign;
    n = rel < 0 ? 0 - static_cast<std::uint64_t>(rel) : static_cast<std::uint64_t>(rel);
  } else {
    n = rel < 0 ? 0 - static_cast<std::uint64_t>(rel) : 0;
  }
  const auto exact = static_cast<std::uint64_t>(per_sign / 2);
  if (n < exact) return offset + static_cast<std::int64_t>(n);
  // From max_distance on, the log bucket is at least per_sign - exact: always the capped last one.
  if (n >= static_cast<std::uint64_t>(max_distance)) return offset + per_sign - 1;
  // Largest m with m <= (per_sign - exact) ln(n/exact) / ln(max_distance/exact), i.e.
  // max_distance^m exact^k <= n^k exact^m with k = per_sign - exact; capped at k - 1. A binary64
  // estimate picks m, and the integer comparison moves it to the exact answer.
  const auto k = static_cast<unsigned long>(per_sign - static_cast<std::int64_t>(exact));
  mpz_t lhs, rhs, t;
  mpz_inits(lhs, rhs, t, nullptr);
  const auto holds = [&](std::int64_t m) {
    const auto mu = static_cast<unsigned long>(m);
    power(lhs, static_cast<std::uint64_t>(max_distance), mu);
    power(t, exact, k);
    mpz_mul(lhs, lhs, t);
    power(rhs, n, k);
    power(t, exact, mu);
    mpz_mul(rhs, rhs, t);
    return mpz_cmp(lhs, rhs) <= 0;
  };
  const double estimate = static_cast<double>(k) * std::log(static_cast<double>(n) / static_cast<double>(exact)) /
                          std::log(static_cast<double>(max_distance) / static_cast<double>(exact));
  const auto cap = static_cast<std::int64_t>(k) - 1;
  std::int64_t m = std::clamp(static_cast<std::int64_t>(std::floor(std::min(estimate, static_cast<double>(cap)))),
                              std::int64_t{0}, cap);
  while (m > 0 && !holds(m)) --m;
  while (m < cap && holds(m + 1)) ++m;
  mpz_clears(lhs, rhs, t, nullptr);
  return offset + static_cast<std::int64_t>(exact) + m;
}

namespace {

scheme_info t5_info() {
  const param_info bidirectional = boolean_param("bidirectional", "encoder (true) or decoder (false) buckets", true,
                                                 "one-way (decoder) buckets", "two-way (encoder) buckets");
  return {"t5", "encoding",
                 "T5 relative position buckets of key - query (exact below buckets/4 per sign, log-spaced to "
                 "max_distance, capped) and a learned [buckets, heads] bias table (seeded stand-in)",
                 {integer_param("buckets", "number of buckets (T5: 32)", 32, 2, 4096),
                  integer_param("max_distance", "distance where the last bucket starts (T5: 128)", 128, 1, max_table_length),
                  bidirectional, integer_param("heads", "attention heads of the bias table", 1, 1, 4096),
                  init_std_param(0.05, "standard deviation of the table entries"), seed_param()},
                 {"bucket", "bias", "attend"},
                 [](const spec& s) {
                   const std::int64_t per_sign = s.integer("buckets") / (s.boolean("bidirectional") ? 2 : 1);
                   const std::int64_t exact = per_sign / 2;
                   if (exact < 1) {
                     throw spec_error(fmt::format("t5: buckets={} leaves no exact bucket; use buckets >= {}",
                                                  s.integer("buckets"), s.boolean("bidirectional") ? 4 : 2));
                   }
                   if (s.integer("max_distance") <= exact) {
                     throw spec_error(fmt::format("t5: max_distance={} must be > {} (the exact buckets per sign)",
                                                  s.integer("max_distance"), exact));
                   }
                 }};
}

scheme_behaviour t5_behaviour() {
  scheme_behaviour b = bias_scheme(
      []<class T>(const spec& s, std::span<const std::int64_t> q, std::span<const std::int64_t> k) { return t5_bias<T>(s, q, k); });
  b.bias_table = [](const spec& s) {  // entry (b, h) is the one t5_bias looks up
    const std::int64_t buckets = s.integer("buckets"), heads = s.integer("heads");
    tensor<double> t({buckets, heads});
    t.data = learned_entries(static_cast<std::uint64_t>(s.integer("seed")), 0, buckets * heads, s.real("init_std"));
    return t;
  };
  b.bucket = [](const spec& s, std::int64_t rel) {
    return t5_bucket(rel, s.integer("buckets"), s.integer("max_distance"), s.boolean("bidirectional"));
  };
  return b;
}

const scheme_registration t5_registered{30, t5_info(), t5_behaviour()};

}  // namespace

}  // namespace pe
