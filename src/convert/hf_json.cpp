// Typed, key-naming reads of config.json objects.
#include "convert/hf_json.hpp"

#include <cmath>

#include <fmt/format.h>

#include "pe/bounded_json.hpp"
#include "pe/error.hpp"

namespace pe::convert {
namespace {

// Whole numbers beyond 2^53 are not exact in binary64, and no setting of a model is that large.
constexpr double whole_limit = 9007199254740992.0;

// 8192 or 8192.0 as 8192; nullopt for anything else (8.5, "8192", 2^64).
std::optional<std::int64_t> whole_of(const nlohmann::json& v) {
  if (v.is_number_unsigned()) {
    const auto x = v.get<std::uint64_t>();
    if (x <= static_cast<std::uint64_t>(whole_limit)) return static_cast<std::int64_t>(x);
    return std::nullopt;
  }
  if (v.is_number_integer()) {
    const auto x = v.get<std::int64_t>();
    if (x >= -static_cast<std::int64_t>(whole_limit) && x <= static_cast<std::int64_t>(whole_limit)) return x;
    return std::nullopt;
  }
  if (v.is_number_float()) {
    const double x = v.get<double>();
    if (std::isfinite(x) && x == std::floor(x) && std::fabs(x) <= whole_limit) return static_cast<std::int64_t>(x);
  }
  return std::nullopt;
}

}  // namespace

config_node::config_node(const nlohmann::json& j, std::string file, std::string path)
    : j_(&j), file_(std::move(file)), path_(std::move(path)) {}

const nlohmann::json* config_node::find(std::string_view key) const {
  if (!j_->is_object()) return nullptr;
  const auto it = j_->find(key);
  if (it == j_->end() || it->is_null()) return nullptr;
  return &*it;
}

std::string config_node::path_of(std::string_view key) const {
  if (key.empty()) return path_.empty() ? std::string("the config") : path_;
  return path_.empty() ? std::string(key) : fmt::format("{}.{}", path_, key);
}

void config_node::fail(std::string_view key, std::string_view why) const {
  throw input_error(fmt::format("{}: {}: {}", file_, path_of(key), why));
}

std::optional<double> config_node::real(std::string_view key) const {
  const auto* v = find(key);
  if (!v) return std::nullopt;
  if (!v->is_number()) fail(key, fmt::format("expected a number, got {}", json_excerpt(*v)));
  const double x = v->get<double>();
  if (!std::isfinite(x)) fail(key, fmt::format("expected a finite number, got {}", json_excerpt(*v)));
  return x;
}

std::optional<std::int64_t> config_node::integer(std::string_view key) const {
  const auto* v = find(key);
  if (!v) return std::nullopt;
  if (const auto x = whole_of(*v)) return x;
  fail(key, fmt::format("expected a whole number up to 2^53, got {}", json_excerpt(*v)));
}

std::optional<bool> config_node::flag(std::string_view key) const {
  const auto* v = find(key);
  if (!v) return std::nullopt;
  if (!v->is_boolean()) fail(key, fmt::format("expected true or false, got {}", json_excerpt(*v)));
  return v->get<bool>();
}

std::optional<std::string> config_node::text(std::string_view key) const {
  const auto* v = find(key);
  if (!v) return std::nullopt;
  if (!v->is_string()) fail(key, fmt::format("expected a string, got {}", json_excerpt(*v)));
  return v->get<std::string>();
}

std::optional<std::vector<double>> config_node::reals(std::string_view key) const {
  const auto* v = find(key);
  if (!v) return std::nullopt;
  if (!v->is_array()) fail(key, fmt::format("expected a list of numbers, got {}", json_excerpt(*v)));
  std::vector<double> out;
  for (const auto& x : *v) {
    if (!x.is_number() || !std::isfinite(x.get<double>())) {
      fail(key, fmt::format("entry {} is {}, not a finite number", out.size(), json_excerpt(x)));
    }
    out.push_back(x.get<double>());
  }
  return out;
}

std::optional<std::vector<std::int64_t>> config_node::integers(std::string_view key) const {
  const auto* v = find(key);
  if (!v) return std::nullopt;
  if (!v->is_array()) fail(key, fmt::format("expected a list of whole numbers, got {}", json_excerpt(*v)));
  std::vector<std::int64_t> out;
  for (const auto& x : *v) {
    const auto w = whole_of(x);
    if (!w) fail(key, fmt::format("entry {} is {}, not a whole number up to 2^53", out.size(), json_excerpt(x)));
    out.push_back(*w);
  }
  return out;
}

std::optional<config_node> config_node::child(std::string_view key) const {
  const auto* v = find(key);
  if (!v) return std::nullopt;
  if (!v->is_object()) fail(key, fmt::format("expected an object, got {}", json_excerpt(*v)));
  return config_node(*v, file_, path_of(key));
}

std::optional<std::int64_t> config_node::integer_of(std::initializer_list<std::string_view> keys) const {
  std::optional<std::int64_t> value;
  std::string_view first;
  for (const auto key : keys) {
    const auto v = integer(key);
    if (!v) continue;
    if (value && *value != *v) {
      throw input_error(fmt::format("{}: {}={} and {}={} name the same setting and disagree", file_, path_of(first), *value, path_of(key), *v));
    }
    if (!value) value = v, first = key;
  }
  return value;
}

std::int64_t config_node::required_integer_of(std::initializer_list<std::string_view> keys) const {
  const auto v = integer_of(keys);
  if (!v) fail(*keys.begin(), "missing: the config must give it");
  return *v;
}

std::string number_text(double x) { return fmt::format("{}", x); }

}  // namespace pe::convert
