// Reading an op's inputs from a JSON file by the op table, with one clear error per malformed field.
#include "cli/input_file.hpp"

#include "cli/command_support.hpp"

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <fstream>
#include <optional>
#include <sstream>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "cli/positions.hpp"
#include "golden/npy_reader.hpp"
#include "pe/bounded_json.hpp"
#include "pe/error.hpp"
#include "pe/limits.hpp"
#include "pe/op_schema.hpp"
#include "pe/op_tensors.hpp"
#include "pe/scheme.hpp"

namespace pecheck {
namespace {

double number(const nlohmann::json& v, const std::string& where) {
  if (v.is_number()) return v.get<double>();
  if (v.is_string()) {
    if (const auto d = parse_finite_double(v.get<std::string>())) return *d;
  }
  throw pe::input_error(fmt::format("{}: {} is not a finite number", where, pe::json_excerpt(v)));
}

pe::tensor<double> read_tensor(const nlohmann::json& j, const std::string& where) {
  if (!j.is_object() || !j.contains("shape") || !j.contains("data") || !j["shape"].is_array() || !j["data"].is_array()) {
    throw pe::input_error(fmt::format("{}: needs {{\"shape\": [...], \"data\": [...]}}", where));
  }
  std::vector<std::int64_t> shape;
  for (const auto& d : j["shape"]) {
    if (!d.is_number_integer() || d.get<std::int64_t>() < 0) throw pe::input_error(fmt::format("{}: shape has {}, not a size", where, pe::json_excerpt(d)));
    shape.push_back(d.get<std::int64_t>());
  }
  const std::uint64_t values = pe::saturating_product(shape);
  // Both before the tensor is allocated: a 40-byte file must not ask for gigabytes.
  pe::check_limit(pe::limit::input_values, values, fmt::format("{}: shape [{}] holds", where, fmt::join(shape, ", ")));
  if (j["data"].size() != values) {
    throw pe::input_error(fmt::format("{}: shape [{}] holds {} values but data has {}", where, fmt::join(shape, ", "), values, j["data"].size()));
  }
  pe::tensor<double> t(shape);
  for (size_t k = 0; k < t.data.size(); ++k) t.data[k] = number(j["data"][k], fmt::format("{}.data[{}]", where, k));
  return t;
}

std::vector<std::int64_t> read_positions(const nlohmann::json& j, const std::string& where, std::int64_t axes) {
  if (!j.is_array()) throw pe::input_error(fmt::format("{}: needs a list of positions", where));
  pe::check_limit(pe::limit::list, j.size(), fmt::format("{}: positions", where));
  std::vector<std::int64_t> out;
  for (size_t t = 0; t < j.size(); ++t) {
    const auto& row = j[t];
    const auto take = [&](const nlohmann::json& v) {
      if (!v.is_number_integer() || (v.is_number_unsigned() && v.get<std::uint64_t>() > static_cast<std::uint64_t>(std::numeric_limits<std::int64_t>::max()))) {
        throw pe::input_error(fmt::format("{}[{}]: {} is not a 64-bit integer position", where, t, pe::json_excerpt(v)));
      }
      out.push_back(v.get<std::int64_t>());
    };
    if (row.is_array()) {
      if (static_cast<std::int64_t>(row.size()) != axes) {
        throw pe::input_error(fmt::format("{}[{}]: a row of {} positions; this scheme reads {}", where, t, row.size(), axes));
      }
      for (const auto& v : row) take(v);
    } else {
      take(row);
    }
  }
  return out;
}

// {"npy": "FILE.npy"}: the file named, relative to the --input file's directory `base` (empty when
// the text came from no file: refused), read as its shape says; `where` gets the file's name.
std::optional<pe::golden::npy_array> npy_of(const nlohmann::json& v, std::string& where, const std::string& base) {
  if (!v.is_object() || !v.contains("npy")) return std::nullopt;
  if (v.size() != 1 || !v["npy"].is_string()) throw pe::input_error(fmt::format("{}: needs {{\"npy\": \"FILE.npy\"}} and nothing else", where));
  if (base.empty()) throw pe::input_error(fmt::format("{}: .npy files are read only from an --input file", where));
  const std::string name = v["npy"].get<std::string>();
  const std::string path = !name.empty() && name[0] == '/' ? name : base + "/" + name;
  where = fmt::format("{} ('{}')", where, pe::excerpt(name));
  return pe::golden::read_npy_file(path, where);
}

// An .npy array of reals, each finite (as JSON's numbers must be).
pe::op_tensor reals_of(std::string name, pe::golden::npy_array a, const std::string& where) {
  if (!a.is_real()) throw pe::input_error(fmt::format("{}: an .npy array of {}, not of reals (<f8, <f4, <f2)", where, a.descr));
  for (std::size_t k = 0; k < a.reals.size(); ++k) {
    if (!std::isfinite(a.reals[k])) throw pe::input_error(fmt::format("{}: .npy value {} is {}, not a finite number", where, k, a.reals[k]));
  }
  return pe::op_tensor{std::move(name), std::move(a.shape), std::move(a.reals)};
}

// An .npy array of integer positions: [T], or [T, axes] for schemes with several position columns.
pe::op_tensor positions_of(std::string name, pe::golden::npy_array a, const std::string& where, std::int64_t axes) {
  if (a.is_real()) throw pe::input_error(fmt::format("{}: an .npy array of {}, not of integer positions (<i8, <i4)", where, a.descr));
  const bool rows = a.shape.size() == 2 && a.shape[1] == axes;
  if (!(a.shape.size() == 1 && axes == 1) && !rows) {
    throw pe::input_error(fmt::format("{}: .npy positions of shape ({}); this scheme reads {}", where, fmt::join(a.shape, ", "),
                                      axes == 1 ? std::string("[T]") : fmt::format("[T, {}]", axes)));
  }
  pe::check_limit(pe::limit::list, static_cast<std::uint64_t>(a.shape[0]), fmt::format("{}: positions", where));
  const auto n = static_cast<std::int64_t>(a.integers.size());
  return pe::op_tensor{std::move(name), {n}, std::move(a.integers)};
}

// One field read as its input's kind: nullopt where the JSON value is not of that kind.
std::optional<pe::op_tensor> read_field(const pe::tensor_schema& t, const nlohmann::json& v, const std::string& where, std::int64_t axes,
                                        const std::string& base) {
  const std::string name(t.name);
  const bool positions = t.kind != pe::element_kind::real && t.kind != pe::element_kind::flag && (t.shape.position_rows || !t.shape.dims.empty());
  std::string file = where;
  if (auto a = (t.kind == pe::element_kind::real || positions) ? npy_of(v, file, base) : std::nullopt) {
    return positions ? positions_of(name, std::move(*a), file, axes) : reals_of(name, std::move(*a), file);
  }
  if (t.kind == pe::element_kind::real) {
    auto values = read_tensor(v, where);
    return pe::op_tensor{name, std::move(values.shape), std::move(values.data)};
  }
  if (t.kind == pe::element_kind::flag) {
    if (!v.is_boolean()) return std::nullopt;
    return pe::op_tensor{name, {}, std::vector<std::int64_t>{v.get<bool>() ? 1 : 0}};
  }
  if (positions) {
    auto values = read_positions(v, where, t.shape.position_rows ? axes : 1);
    return pe::op_tensor{name, {static_cast<std::int64_t>(values.size())}, std::move(values)};
  }
  // An integer scalar (heads): any negative one (the op says why it is wrong), or up to max_heads.
  if (v.is_number_integer() && !v.is_number_unsigned()) return pe::op_tensor{name, {}, std::vector<std::int64_t>{v.get<std::int64_t>()}};
  if (v.is_number_unsigned() && v.get<std::uint64_t>() <= static_cast<std::uint64_t>(max_heads)) return pe::op_tensor{name, {}, std::vector<std::int64_t>{v.get<std::int64_t>()}};
  return std::nullopt;
}

}  // namespace

pe::op_inputs read_input_file(const std::string& path, std::string_view op, const pe::spec& s) {
  const std::string label = fmt::format("--input '{}'", path);
  const auto slash = path.rfind('/');
  const std::string base = slash == std::string::npos ? "." : slash == 0 ? "/" : path.substr(0, slash);
  return read_input_text(read_text_file(path, label), label, op, s, base);
}

pe::op_inputs read_input_text(std::string_view text, const std::string& label, std::string_view op, const pe::spec& s, const std::string& base) {
  const nlohmann::json j = pe::parse_json_bounded(text, label);
  const std::string& where = label;
  if (!j.is_object()) throw pe::input_error(fmt::format("{}: not a JSON object", where));
  // Any input of the call the op has on some scheme: the op itself says which its scheme reads.
  std::vector<const pe::tensor_schema*> fields;
  std::vector<std::string_view> names;
  if (const pe::op_schema* schema = pe::find_op_schema(op))
    for (const auto& t : schema->tensors)
      if (t.role == pe::tensor_role::input && t.field) fields.push_back(&t), names.push_back(t.name);
  pe::op_inputs in;
  in.pos_axes = pe::position_axes(s);
  for (const auto& item : j.items()) {
    const std::string& key = item.key();
    const std::string field = where + ": " + key;
    const auto t = std::find_if(fields.begin(), fields.end(), [&](const pe::tensor_schema* f) { return f->name == key; });
    auto read = t == fields.end() ? std::nullopt : read_field(**t, item.value(), field, in.pos_axes, base);
    if (!read) throw pe::input_error(fmt::format("{}: unknown or malformed field (fields: {})", field, fmt::join(names, ", ")));
    pe::store_input(**t, std::move(*read), in);
  }
  return in;
}

}  // namespace pecheck
