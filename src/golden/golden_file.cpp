// The golden file format and its strict reader (see golden_file.hpp).
#include "golden/golden_file.hpp"

#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <algorithm>
#include <cctype>
#include <climits>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "golden/provenance.hpp"
#include "golden/strict_json.hpp"
#include "pe/error.hpp"
#include "pe/op_tensors.hpp"

namespace pe::golden {
namespace {

json tensor_json(const golden_tensor& t, bool input) {
  json j;
  if (input) j["dtype"] = t.dtype;
  j["shape"] = t.shape;
  json data = json::array();
  for (const auto& v : t.data) {
    if (t.dtype == "i64") data.push_back(std::stoll(v));
    else data.push_back(v);
  }
  j["data"] = std::move(data);
  return j;
}

[[noreturn]] void fail(const std::string& where, const std::string& what) { throw input_error(fmt::format("{}: {}", where, what)); }

std::int64_t element_count(const std::vector<std::int64_t>& shape, const std::string& where) {
  std::int64_t n = 1;
  for (const auto d : shape) {
    if (d < 0 || (d > 0 && n > (std::int64_t{1} << 40) / d)) fail(where, fmt::format("shape [{}] is not a valid shape", fmt::join(shape, ", ")));
    n *= d;
  }
  return n;
}

golden_tensor read_tensor(const std::string& name, const json& j, bool input, const std::string& where) {
  const std::string here = fmt::format("{} {}", where, name);
  if (!j.is_object()) fail(here, "is not an object");
  if (input) require_known_keys(j, {"dtype", "shape", "data"}, here);
  else require_known_keys(j, {"shape", "data"}, here);
  golden_tensor t;
  t.name = name;
  if (input) {
    if (!j.contains("dtype") || !j["dtype"].is_string()) fail(here, "has no dtype");
    t.dtype = j["dtype"].get<std::string>();
    if (t.dtype != "i64" && t.dtype != "f64") fail(here, fmt::format("dtype '{}' is not i64 or f64", t.dtype));
  } else {
    t.dtype = "decimal";
  }
  if (!j.contains("shape") || !j["shape"].is_array()) fail(here, "has no shape");
  for (const auto& d : j["shape"]) {
    if (!d.is_number_integer()) fail(here, "shape has a non-integer entry");
    t.shape.push_back(d.get<std::int64_t>());
  }
  if (!j.contains("data") || !j["data"].is_array()) fail(here, "has no data");
  const auto n = element_count(t.shape, here);
  if (static_cast<std::int64_t>(j["data"].size()) != n) {
    fail(here, fmt::format("shape [{}] holds {} values but data has {}", fmt::join(t.shape, ", "), n, j["data"].size()));
  }
  // Exactness of hex inputs is checked at 256 bits in one MPFR number for the whole tensor.
  mp_working_bits wide(256);
  mp_real exact;
  std::int64_t e = -1;
  for (const auto& v : j["data"]) {
    ++e;
    // Named only when an element fails: formatting it for every element cost more than reading it.
    const auto at = [&] { return fmt::format("{} element {}", here, e); };
    if (t.dtype == "i64") {
      if (!v.is_number_integer() || (v.is_number_unsigned() && v.get<std::uint64_t>() > static_cast<std::uint64_t>(INT64_MAX))) {
        fail(at(), "is not an integer in int64");
      }
      t.data.push_back(std::to_string(v.get<std::int64_t>()));
      continue;
    }
    if (!v.is_string()) fail(at(), "is not a string");
    const std::string text = v.get<std::string>();
    if (t.dtype == "f64") {
      if (text.rfind("0x", 0) != 0 && text.rfind("-0x", 0) != 0) fail(at(), fmt::format("'{}' is not a C99 hex float", text));
      char* end = nullptr;
      errno = 0;
      const double x = std::strtod(text.c_str(), &end);
      if (end != text.c_str() + text.size() || !std::isfinite(x)) fail(at(), fmt::format("'{}' is not a finite hex float", text));
      // Exactly a binary64: read at 256 bits, it must equal the double (no silent rounding).
      if (mpfr_set_str(exact.backend().data(), text.c_str(), 0, MPFR_RNDN) != 0 || mpfr_cmp_d(exact.backend().data(), x) != 0) {
        fail(at(), fmt::format("'{}' is not exactly a binary64 value", text));
      }
    } else {
      // A decimal number: sign, digits, one point, exponent; nothing else.
      size_t k = 0;
      if (k < text.size() && (text[k] == '-' || text[k] == '+')) ++k;
      size_t digits = 0;
      while (k < text.size() && std::isdigit(static_cast<unsigned char>(text[k]))) ++k, ++digits;
      if (k < text.size() && text[k] == '.') {
        ++k;
        while (k < text.size() && std::isdigit(static_cast<unsigned char>(text[k]))) ++k, ++digits;
      }
      if (digits > 0 && k < text.size() && (text[k] == 'e' || text[k] == 'E')) {
        ++k;
        if (k < text.size() && (text[k] == '-' || text[k] == '+')) ++k;
        size_t exp_digits = 0;
        while (k < text.size() && std::isdigit(static_cast<unsigned char>(text[k]))) ++k, ++exp_digits;
        if (exp_digits == 0) digits = 0;
      }
      if (digits == 0 || k != text.size()) fail(at(), fmt::format("'{}' is not a decimal number", text));
    }
    t.data.push_back(text);
  }
  return t;
}

std::vector<golden_tensor> read_tensors(const json& j, const char* key, bool input, const std::string& where) {
  if (!j.contains(key) || !j[key].is_object()) fail(where, fmt::format("has no {} object", key));
  std::vector<golden_tensor> out;
  for (const auto& [name, value] : j[key].items()) out.push_back(read_tensor(name, value, input, fmt::format("{} {}", where, key)));
  return out;
}

// A golden input as the op table's named tensor, and back: i64 integers or f64 reals in hex.
op_tensor as_op_tensor(const golden_tensor& t) {
  if (t.dtype == "i64") {
    std::vector<std::int64_t> values;
    for (const auto& v : t.data) values.push_back(std::stoll(v));
    return {t.name, t.shape, std::move(values)};
  }
  std::vector<double> values;
  for (const auto& v : t.data) values.push_back(std::strtod(v.c_str(), nullptr));
  return {t.name, t.shape, std::move(values)};
}

golden_tensor as_golden_tensor(const op_tensor& t) {
  golden_tensor out{t.name, storage_name(t), t.shape, {}};
  if (const auto* reals = std::get_if<std::vector<double>>(&t.values)) {
    for (const auto x : *reals) out.data.push_back(hex_text(x));
  } else {
    for (const auto v : std::get<std::vector<std::int64_t>>(t.values)) out.data.push_back(std::to_string(v));
  }
  return out;
}

}  // namespace

std::string hex_text(double x) { return fmt::format("{:a}", x); }

double relative_change(const mp_real& a, const mp_real& b) {
  const mp_real scale = std::max(abs(a), abs(b));
  if (scale == 0) return 0;
  return mp_real(abs(a - b) / scale).convert_to<double>();
}

std::string decimal_text(const mp_real& x) {
  if (x == 0) return std::signbit(x.convert_to<double>()) ? "-0" : "0";
  return x.str(output_digits, std::ios_base::scientific);
}

std::string to_text(const golden_file& f) {
  json j;
  j["format"] = format_name;
  j["op"] = f.op;
  j["spec"] = f.spec;
  j["precision_bits"] = f.precision_bits;
  j["generator"] = f.generator;
  if (!f.comment.empty()) j["comment"] = f.comment;
  j["cases"] = json::array();
  for (const auto& c : f.cases) {
    json cj;
    cj["id"] = c.id;
    cj["inputs"] = json::object();
    for (const auto& t : c.inputs) cj["inputs"][t.name] = tensor_json(t, true);
    cj["outputs"] = json::object();
    for (const auto& t : c.outputs) cj["outputs"][t.name] = tensor_json(t, false);
    j["cases"].push_back(std::move(cj));
  }
  return j.dump(1) + "\n";
}

namespace {

// SAX events up to the point where the top level's "op" and "spec" strings are both known.
class head_reader : public nlohmann::json_sax<json> {
 public:
  golden_head head;
  bool has_op = false, has_spec = false;

  bool key(string_t& k) override {
    if (depth_ == 1) wanted_ = k == "op" ? &head.op : k == "spec" ? &head.spec : nullptr;
    return true;
  }
  bool string(string_t& v) override {
    if (depth_ == 1 && wanted_) {
      *wanted_ = v;
      (wanted_ == &head.op ? has_op : has_spec) = true;
    }
    wanted_ = nullptr;
    return !(has_op && has_spec);  // false stops the parse: the rest is not needed
  }
  bool start_object(std::size_t) override { return ++depth_, wanted_ = nullptr, true; }
  bool end_object() override { return --depth_, true; }
  bool start_array(std::size_t) override { return ++depth_, wanted_ = nullptr, true; }
  bool end_array() override { return --depth_, true; }
  bool null() override { return wanted_ = nullptr, true; }
  bool boolean(bool) override { return wanted_ = nullptr, true; }
  bool number_integer(number_integer_t) override { return wanted_ = nullptr, true; }
  bool number_unsigned(number_unsigned_t) override { return wanted_ = nullptr, true; }
  bool number_float(number_float_t, const string_t&) override { return wanted_ = nullptr, true; }
  bool binary(binary_t&) override { return wanted_ = nullptr, true; }
  bool parse_error(std::size_t, const std::string&, const nlohmann::detail::exception&) override { return false; }

 private:
  int depth_ = 0;
  std::string* wanted_ = nullptr;
};

}  // namespace

std::optional<golden_head> read_head(const std::string& text) {
  head_reader reader;
  json::sax_parse(text, &reader, json::input_format_t::json, false);
  if (!reader.has_op || !reader.has_spec) return std::nullopt;
  return reader.head;
}

golden_file parse_golden(const std::string& text, const std::string& where) {
  const json j = parse_strict_json(text, where);
  if (!j.is_object()) fail(where, "is not a JSON object");
  if (!j.contains("format") || j["format"] != format_name) fail(where, fmt::format("format is not {}", format_name));
  require_known_keys(j, {"format", "op", "spec", "precision_bits", "generator", "comment", "cases"}, where);
  golden_file f;
  for (const char* key : {"op", "spec", "generator"}) {
    if (!j.contains(key) || !j[key].is_string()) fail(where, fmt::format("has no {} string", key));
  }
  f.op = j["op"].get<std::string>();
  f.spec = j["spec"].get<std::string>();
  f.generator = j["generator"].get<std::string>();
  require_generator_text(f.generator, where);
  if (j.contains("comment")) {
    if (!j["comment"].is_string()) fail(where, "comment is not a string");
    f.comment = j["comment"].get<std::string>();
  }
  f.precision_bits = static_cast<unsigned>(bounded_integer(j, "precision_bits", min_precision_bits, max_precision_bits, where));
  try {
    parse_spec(f.spec);
  } catch (const spec_error& e) {
    fail(where, fmt::format("spec does not parse: {}", e.what()));
  }
  if (!j.contains("cases") || !j["cases"].is_array()) fail(where, "has no cases array");
  for (const auto& cj : j["cases"]) {
    if (!cj.is_object() || !cj.contains("id") || !cj["id"].is_string()) fail(where, "a case has no id");
    golden_case c;
    c.id = cj["id"].get<std::string>();
    // Ids name export paths: letters, digits, '_', '-', '.', and never "." or "..".
    const bool plain = !c.id.empty() && c.id != "." && c.id != ".." &&
                       std::all_of(c.id.begin(), c.id.end(), [](char ch) { return std::isalnum(static_cast<unsigned char>(ch)) || ch == '_' || ch == '-' || ch == '.'; });
    if (!plain) fail(where, fmt::format("case id '{}' is not made of letters, digits, '_', '-' and '.'", c.id));
    for (const auto& other : f.cases)
      if (other.id == c.id) fail(where, fmt::format("case id '{}' appears twice", c.id));
    const std::string here = fmt::format("{}: case {}", where, c.id);
    require_known_keys(cj, {"id", "inputs", "outputs"}, here);
    c.inputs = read_tensors(cj, "inputs", true, here);
    c.outputs = read_tensors(cj, "outputs", false, here);
    f.cases.push_back(std::move(c));
  }
  return f;
}

// Golden files hold the inputs of the call only: the spec's constants (T5's table) follow from the spec.
std::vector<golden_tensor> input_tensors(std::string_view op, const spec& s, const op_inputs& in) {
  std::vector<golden_tensor> out;
  for (const auto& t : named_inputs(op, s, in, false)) out.push_back(as_golden_tensor(t));
  return out;
}

op_inputs op_inputs_of(std::string_view op, const spec& s, const golden_case& c, const std::string& where) {
  std::vector<op_tensor> named;
  for (const auto& t : c.inputs) named.push_back(as_op_tensor(t));
  try {
    return inputs_from(op, s, named, false);
  } catch (const input_error& e) {
    fail(fmt::format("{}: case {}", where, c.id), e.what());
  }
}

}  // namespace pe::golden
