// Reading attend's inputs from a JSON file, with one clear error per malformed field.
#include "cli/attend_input.hpp"

#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <fstream>
#include <sstream>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "cli/positions.hpp"
#include "pe/error.hpp"

namespace pecheck {
namespace {

double number(const nlohmann::json& v, const std::string& where) {
  if (v.is_number()) return v.get<double>();
  if (v.is_string()) {
    if (const auto d = parse_finite_double(v.get<std::string>())) return *d;
  }
  throw pe::input_error(fmt::format("{}: {} is not a finite number", where, v.dump()));
}

pe::tensor<double> read_tensor(const nlohmann::json& j, const std::string& where) {
  if (!j.is_object() || !j.contains("shape") || !j.contains("data") || !j["shape"].is_array() || !j["data"].is_array()) {
    throw pe::input_error(fmt::format("{}: needs {{\"shape\": [...], \"data\": [...]}}", where));
  }
  std::vector<std::int64_t> shape;
  for (const auto& d : j["shape"]) {
    if (!d.is_number_integer() || d.get<std::int64_t>() < 0) throw pe::input_error(fmt::format("{}: shape has {}, not a size", where, d.dump()));
    shape.push_back(d.get<std::int64_t>());
  }
  pe::tensor<double> t(shape);
  if (j["data"].size() != t.data.size()) {
    throw pe::input_error(fmt::format("{}: shape [{}] holds {} values but data has {}", where, fmt::join(shape, ", "),
                                      t.data.size(), j["data"].size()));
  }
  for (size_t k = 0; k < t.data.size(); ++k) t.data[k] = number(j["data"][k], fmt::format("{}.data[{}]", where, k));
  return t;
}

std::vector<std::int64_t> read_positions(const nlohmann::json& j, const std::string& where, std::int64_t axes) {
  if (!j.is_array()) throw pe::input_error(fmt::format("{}: needs a list of positions", where));
  std::vector<std::int64_t> out;
  for (size_t t = 0; t < j.size(); ++t) {
    const auto& row = j[t];
    const auto take = [&](const nlohmann::json& v) {
      if (!v.is_number_integer() || (v.is_number_unsigned() && v.get<std::uint64_t>() > static_cast<std::uint64_t>(std::numeric_limits<std::int64_t>::max()))) {
        throw pe::input_error(fmt::format("{}[{}]: {} is not a 64-bit integer position", where, t, v.dump()));
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

}  // namespace

pe::attend_inputs read_attend_input(const std::string& path, std::int64_t position_axes) {
  std::ifstream file(path);
  if (!file) throw pe::input_error(fmt::format("--input '{}': cannot read it: {}", path, std::strerror(errno)));
  std::stringstream text;
  text << file.rdbuf();
  nlohmann::json j;
  try {
    j = nlohmann::json::parse(text.str());
  } catch (const nlohmann::json::exception& e) {
    throw pe::input_error(fmt::format("--input '{}': invalid JSON: {}", path, e.what()));
  }
  if (!j.is_object()) throw pe::input_error(fmt::format("--input '{}': not a JSON object", path));
  const std::string where = fmt::format("--input '{}'", path);
  pe::attend_inputs in;
  for (const auto& [key, value] : j.items()) {
    const std::string field = where + ": " + key;
    if (key == "q") in.q = read_tensor(value, field);
    else if (key == "k") in.k = read_tensor(value, field);
    else if (key == "v") in.v = read_tensor(value, field);
    else if (key == "x") in.x = read_tensor(value, field);
    else if (key == "wq") in.wq = read_tensor(value, field);
    else if (key == "wk") in.wk = read_tensor(value, field);
    else if (key == "wv") in.wv = read_tensor(value, field);
    else if (key == "qpos") in.qpos = read_positions(value, field, position_axes);
    else if (key == "kpos") in.kpos = read_positions(value, field, position_axes);
    else if (key == "heads" && value.is_number_integer() && !value.is_number_unsigned()) in.heads = value.get<std::int64_t>();
    else if (key == "heads" && value.is_number_unsigned() && value.get<std::uint64_t>() <= 4096) in.heads = value.get<std::int64_t>();
    else if (key == "causal" && value.is_boolean()) in.causal = value.get<bool>();
    else throw pe::input_error(fmt::format("{}: unknown or malformed field (fields: q, k, v, x, wq, wk, wv, heads, qpos, kpos, causal)", field));
  }
  return in;
}

}  // namespace pecheck
