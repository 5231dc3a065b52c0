// Typed reads of a config.json object whose every error names the file and the key path ("config.json: rope_scaling.factor: ...").
#pragma once
#include <cstdint>
#include <initializer_list>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

namespace pe::convert {

// One JSON object of a config (the root, text_config, rope_scaling ...). A key that is absent or
// null is absent: HF writes null for "not set" (rope_scaling: null). A present key of the wrong
// type or out of range is an input_error "<file>: <path.key>: <why>", never a guess.
class config_node {
 public:
  config_node(const nlohmann::json& j, std::string file, std::string path);

  bool has(std::string_view key) const { return find(key) != nullptr; }
  const nlohmann::json* find(std::string_view key) const;
  // "text_config.rope_scaling.factor"; the object's own path for key "".
  std::string path_of(std::string_view key) const;
  // "<file>: <path.key>: <why>" as an input_error.
  [[noreturn]] void fail(std::string_view key, std::string_view why) const;
  // "<file>: " for messages that name several keys.
  const std::string& file() const { return file_; }

  std::optional<double> real(std::string_view key) const;          // any finite number
  std::optional<std::int64_t> integer(std::string_view key) const;  // a whole number (8192 or 8192.0)
  std::optional<bool> flag(std::string_view key) const;
  std::optional<std::string> text(std::string_view key) const;
  std::optional<std::vector<double>> reals(std::string_view key) const;
  std::optional<std::vector<std::int64_t>> integers(std::string_view key) const;
  std::optional<config_node> child(std::string_view key) const;  // a JSON object

  // The value of the first present of several names for one setting (HF's attribute_map:
  // num_attention_heads, n_head, n_heads): input_error naming both when two present differ.
  std::optional<std::int64_t> integer_of(std::initializer_list<std::string_view> keys) const;
  // The same, required: input_error naming the first key when none is present.
  std::int64_t required_integer_of(std::initializer_list<std::string_view> keys) const;

  const nlohmann::json& json() const { return *j_; }

 private:
  const nlohmann::json* j_;
  std::string file_, path_;
};

// A number as an error message shows it: integers plainly, other reals in their shortest form.
std::string number_text(double x);

}  // namespace pe::convert
