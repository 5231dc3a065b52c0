// Builds the registry from each scheme family and provides the parameter builders.
#include "pe/registry.hpp"

#include "pe/limits.hpp"

#include <algorithm>
#include <map>
#include <string_view>
#include <tuple>
#include <stdexcept>

#include <fmt/format.h>

#include "pe/scheme.hpp"
#include "pe/spec.hpp"

namespace pe {

namespace {

std::deque<scheme_info>& storage() {
  static std::deque<scheme_info> all;
  return all;
}

std::vector<std::reference_wrapper<const scheme_info>>& ordered() {
  static std::vector<std::reference_wrapper<const scheme_info>> all;
  return all;
}

int rank(const scheme_info& s) { return s.behaviour ? static_cast<int>(s.behaviour->kind) : 100; }

// Each scheme's order, by name (register_scheme's).
std::map<std::string, int, std::less<>>& orders() {
  static std::map<std::string, int, std::less<>> all;
  return all;
}

bool listed_before(const scheme_info& a, const scheme_info& b) {
  const auto key = [](const scheme_info& s) { return std::tuple(rank(s), orders().find(s.name)->second, std::string_view(s.name)); };
  return key(a) < key(b);
}

}  // namespace

const std::vector<std::reference_wrapper<const scheme_info>>& registry() { return ordered(); }

void register_scheme(scheme_info info, int order) {
  if (find_scheme(info.name)) throw std::logic_error(fmt::format("scheme '{}' is registered twice", info.name));
  orders()[info.name] = order;
  storage().push_back(std::move(info));
  const scheme_info& added = storage().back();
  auto& listed = ordered();
  listed.insert(std::upper_bound(listed.begin(), listed.end(), std::cref(added), listed_before), std::cref(added));
}

const scheme_info* find_scheme(std::string_view name) {
  for (const scheme_info& s : registry())
    if (s.name == name) return &s;
  return nullptr;
}

std::string dim_over_limit(std::int64_t d) {
  const std::int64_t l = limit_value(limit::dim);
  return d > l ? fmt::format("is over the limit dim={} (raise it with --limit dim=N)", l) : std::string();
}

param_info integer_param(std::string name, std::string doc, std::optional<std::int64_t> def, std::int64_t min,
                         std::int64_t max) {
  param_info p{std::move(name), param_kind::integer, std::move(doc)};
  if (def) p.default_value = *def;
  p.check = [min, max](const value& v) {
    const auto x = std::get<std::int64_t>(v);
    if (x < min) return fmt::format("must be >= {}", min);
    if (x > max) return fmt::format("must be <= {}", max);
    // A vector length (every scheme bounds its dims by max_dim) is bounded by limit::dim too.
    if (max == max_dim) return dim_over_limit(x);
    return std::string();
  };
  return p;
}

param_info real_param(std::string name, std::string doc, std::optional<double> def,
                      std::function<std::string(double)> check) {
  param_info p{std::move(name), param_kind::real, std::move(doc)};
  if (def) p.default_value = *def;
  if (check) p.check = [check](const value& v) { return check(std::get<double>(v)); };
  return p;
}

param_info choice_param(std::string name, std::string doc, std::string def, std::vector<std::string> choices,
                        std::vector<std::string> value_words) {
  if (!value_words.empty() && value_words.size() != choices.size())
    throw std::logic_error(fmt::format("choice parameter {}: {} words for {} choices", name, value_words.size(), choices.size()));
  param_info p{std::move(name), param_kind::choice, std::move(doc)};
  p.default_value = std::move(def);
  p.choices = std::move(choices);
  p.value_words = std::move(value_words);
  return p;
}

param_info boolean_param(std::string name, std::string doc, bool def, std::string false_words, std::string true_words) {
  param_info p{std::move(name), param_kind::boolean, std::move(doc)};
  p.default_value = def;
  p.value_words = {std::move(false_words), std::move(true_words)};
  return p;
}

param_info init_std_param(double def, std::string doc) {
  return real_param("init_std", std::move(doc), def,
                    [](double x) { return x > 0 ? std::string() : std::string("must be > 0"); });
}

param_info seed_param() {
  return integer_param("seed", "generator seed; the same seed gives the same weights everywhere", 0, 0);
}

std::string value_text(const value& v) {
  struct {
    std::string operator()(std::int64_t x) const { return fmt::format("{}", x); }
    std::string operator()(double x) const { return fmt::format("{}", x); }
    std::string operator()(bool x) const { return x ? "true" : "false"; }
    std::string operator()(const std::string& x) const { return x; }
    std::string operator()(const real_list& x) const { return fmt::format("[{}]", fmt::join(x, ", ")); }
    std::string operator()(const std::shared_ptr<const spec>& x) const { return x->text(); }
  } visit;
  return std::visit(visit, v);
}

}  // namespace pe
