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

#include "pe/attention.hpp"
#include "pe/error.hpp"
#include "pe/schemes/rope_nd.hpp"

namespace pe::golden {
namespace {

using json = nlohmann::ordered_json;

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
  std::int64_t e = 0;
  for (const auto& v : j["data"]) {
    const std::string at = fmt::format("{} element {}", here, e++);
    if (t.dtype == "i64") {
      if (!v.is_number_integer() || (v.is_number_unsigned() && v.get<std::uint64_t>() > static_cast<std::uint64_t>(INT64_MAX))) {
        fail(at, "is not an integer in int64");
      }
      t.data.push_back(std::to_string(v.get<std::int64_t>()));
      continue;
    }
    if (!v.is_string()) fail(at, "is not a string");
    const std::string text = v.get<std::string>();
    if (t.dtype == "f64") {
      if (text.rfind("0x", 0) != 0 && text.rfind("-0x", 0) != 0) fail(at, fmt::format("'{}' is not a C99 hex float", text));
      char* end = nullptr;
      errno = 0;
      const double x = std::strtod(text.c_str(), &end);
      if (end != text.c_str() + text.size() || !std::isfinite(x)) fail(at, fmt::format("'{}' is not a finite hex float", text));
      // Exactly a binary64: read at 256 bits, it must equal the double (no silent rounding).
      mp_working_bits wide(256);
      mp_real exact;
      if (mpfr_set_str(exact.backend().data(), text.c_str(), 0, MPFR_RNDN) != 0 || exact != mp_real(x)) {
        fail(at, fmt::format("'{}' is not exactly a binary64 value", text));
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
      if (digits == 0 || k != text.size()) fail(at, fmt::format("'{}' is not a decimal number", text));
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

golden_tensor ints(std::string name, std::vector<std::int64_t> shape, const std::vector<std::int64_t>& values) {
  golden_tensor t{std::move(name), "i64", std::move(shape), {}};
  for (const auto v : values) t.data.push_back(std::to_string(v));
  return t;
}

golden_tensor reals(std::string name, const tensor<double>& v) {
  golden_tensor t{std::move(name), "f64", v.shape, {}};
  for (const auto x : v.data) t.data.push_back(hex_text(x));
  return t;
}

const golden_tensor* find(const golden_case& c, const char* name) {
  for (const auto& t : c.inputs)
    if (t.name == name) return &t;
  return nullptr;
}

std::vector<std::int64_t> int_values(const golden_tensor& t) {
  std::vector<std::int64_t> out;
  for (const auto& v : t.data) out.push_back(std::stoll(v));
  return out;
}

tensor<double> real_values(const golden_tensor& t) {
  tensor<double> out(t.shape);
  for (size_t e = 0; e < t.data.size(); ++e) out.data[e] = std::strtod(t.data[e].c_str(), nullptr);
  return out;
}

}  // namespace

std::string hex_text(double x) { return fmt::format("{:a}", x); }

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

golden_file parse_golden(const std::string& text, const std::string& where) {
  json j;
  try {
    j = json::parse(text);
  } catch (const json::parse_error& e) {
    fail(where, fmt::format("is not valid JSON (byte {})", e.byte));
  }
  if (!j.is_object()) fail(where, "is not a JSON object");
  if (!j.contains("format") || j["format"] != format_name) fail(where, fmt::format("format is not {}", format_name));
  golden_file f;
  for (const char* key : {"op", "spec", "generator"}) {
    if (!j.contains(key) || !j[key].is_string()) fail(where, fmt::format("has no {} string", key));
  }
  f.op = j["op"].get<std::string>();
  f.spec = j["spec"].get<std::string>();
  f.generator = j["generator"].get<std::string>();
  if (j.contains("comment") && j["comment"].is_string()) f.comment = j["comment"].get<std::string>();
  if (!j.contains("precision_bits") || !j["precision_bits"].is_number_unsigned() || j["precision_bits"].get<unsigned>() < 53) {
    fail(where, "precision_bits is not an integer >= 53");
  }
  f.precision_bits = j["precision_bits"].get<unsigned>();
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
    c.inputs = read_tensors(cj, "inputs", true, here);
    c.outputs = read_tensors(cj, "outputs", false, here);
    f.cases.push_back(std::move(c));
  }
  return f;
}

std::vector<golden_tensor> input_tensors(std::string_view op, const spec& s, const op_inputs& in) {
  const std::int64_t axes = position_axes(s);
  const auto rows = [&](const std::vector<std::int64_t>& p) {
    const auto n = static_cast<std::int64_t>(p.size()) / axes;
    return axes == 1 ? std::vector<std::int64_t>{n} : std::vector<std::int64_t>{n, axes};
  };
  if (op == "encode" || op == "matrix") return {ints("pos", rows(in.pos), in.pos)};
  if (op == "rotate") return {reals("x", in.x), ints("pos", rows(in.pos), in.pos)};
  if (op == "bucket") return {ints("rel", {static_cast<std::int64_t>(in.rel.size())}, in.rel)};
  if (op == "bias") {
    return {ints("qpos", {static_cast<std::int64_t>(in.qpos.size())}, in.qpos),
            ints("kpos", {static_cast<std::int64_t>(in.kpos.size())}, in.kpos)};
  }
  if (op == "attend") {
    const auto& a = in.attend;
    std::vector<golden_tensor> out;
    if (is_absolute(s)) {
      out = {reals("x", a.x), reals("wq", a.wq), reals("wk", a.wk), reals("wv", a.wv), ints("heads", {}, {a.heads})};
    } else {
      out = {reals("q", a.q), reals("k", a.k), reals("v", a.v)};
    }
    if (!a.qpos.empty()) out.push_back(ints("qpos", rows(a.qpos), a.qpos));
    if (!a.kpos.empty()) out.push_back(ints("kpos", rows(a.kpos), a.kpos));
    out.push_back(ints("causal", {}, {a.causal ? 1 : 0}));
    return out;
  }
  return {};  // inv_freq takes no inputs
}

op_inputs op_inputs_of(std::string_view op, const spec& s, const golden_case& c, const std::string& where) {
  const std::string here = fmt::format("{}: case {}", where, c.id);
  // An input by name and dtype, with the rank the op reads (-1: a position rows tensor, [T] or [T, A]).
  const auto need = [&](const char* name, const char* dtype, int rank) -> const golden_tensor& {
    const golden_tensor* t = find(c, name);
    if (!t) fail(here, fmt::format("op {} needs input {}", op, name));
    if (t->dtype != dtype) fail(here, fmt::format("input {} is {}, not {}", name, t->dtype, dtype));
    const std::int64_t axes = position_axes(s);
    const bool ok = rank >= 0 ? static_cast<int>(t->shape.size()) == rank
                              : (axes == 1 ? t->shape.size() == 1 : t->shape.size() == 2 && t->shape[1] == axes);
    if (!ok) fail(here, fmt::format("input {} has shape [{}], which op {} of {} does not read", name, fmt::join(t->shape, ", "), op, s.scheme()));
    return *t;
  };
  const auto expected = input_tensors(op, s, [&] {  // the names this op reads
    op_inputs probe;
    probe.attend.heads = 1;
    return probe;
  }());
  for (const auto& t : c.inputs) {
    const bool known = std::any_of(expected.begin(), expected.end(), [&](const golden_tensor& e) { return e.name == t.name; }) ||
                       (op == "attend" && (t.name == "qpos" || t.name == "kpos"));
    if (!known) fail(here, fmt::format("input {} is not read by op {}", t.name, op));
  }
  op_inputs in;
  in.pos_axes = position_axes(s);
  if (op == "encode" || op == "matrix" || op == "rotate") in.pos = int_values(need("pos", "i64", -1));
  if (op == "rotate") {
    in.x = real_values(need("x", "f64", 3));
    if (in.x.shape[0] * in.pos_axes != static_cast<std::int64_t>(in.pos.size())) fail(here, "x and pos have different token counts");
  }
  if (op == "bucket") in.rel = int_values(need("rel", "i64", 1));
  if (op == "bias") in.qpos = int_values(need("qpos", "i64", 1)), in.kpos = int_values(need("kpos", "i64", 1));
  if (op == "attend") {
    auto& a = in.attend;
    if (is_absolute(s)) {
      a.x = real_values(need("x", "f64", 2));
      a.wq = real_values(need("wq", "f64", 2));
      a.wk = real_values(need("wk", "f64", 2));
      a.wv = real_values(need("wv", "f64", 2));
      a.heads = int_values(need("heads", "i64", 0)).at(0);
    } else {
      a.q = real_values(need("q", "f64", 3));
      a.k = real_values(need("k", "f64", 3));
      a.v = real_values(need("v", "f64", 3));
    }
    if (find(c, "qpos")) a.qpos = int_values(need("qpos", "i64", -1));
    if (find(c, "kpos")) a.kpos = int_values(need("kpos", "i64", -1));
    const auto causal = int_values(need("causal", "i64", 0)).at(0);
    if (causal != 0 && causal != 1) fail(here, fmt::format("input causal is {}, not 0 or 1", causal));
    a.causal = causal != 0;
  }
  return in;
}

}  // namespace pe::golden
