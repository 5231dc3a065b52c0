// The golden directory as a whole (see golden_tree.hpp).
#include "golden/golden_tree.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <map>
#include <set>
#include <sstream>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "golden/case_sets.hpp"
#include "golden/golden_file.hpp"
#include "golden/manifest.hpp"
#include "golden/npy.hpp"
#include "pe/error.hpp"
#include "pe/float_format.hpp"

namespace pe::golden {
namespace fs = std::filesystem;
namespace {

std::string read_file(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  if (!in) throw input_error(fmt::format("{}: cannot be read", p.string()));
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

// Writes every (path, bytes) to a temporary name first, then renames them all: a failure
// leaves no file half-written.
void write_all(const std::vector<std::pair<fs::path, std::string>>& files) {
  std::vector<fs::path> temps;
  const auto cleanup = [&] {
    for (const auto& t : temps) fs::remove(t);
  };
  for (const auto& [path, bytes] : files) {
    std::error_code ec;
    fs::create_directories(path.parent_path(), ec);
    const fs::path temp = path.string() + ".tmp";
    std::ofstream out(temp, std::ios::binary | std::ios::trunc);
    temps.push_back(temp);
    out << bytes;
    out.flush();
    if (!out) {
      cleanup();
      throw input_error(fmt::format("{}: cannot be written", path.string()));
    }
  }
  for (size_t k = 0; k < files.size(); ++k) {
    std::error_code ec;
    fs::rename(temps[k], files[k].first, ec);
    if (ec) {
      cleanup();
      throw input_error(fmt::format("{}: cannot be written: {}", files[k].first.string(), ec.message()));
    }
  }
}

const case_set* find_set(const std::string& path) {
  for (const auto& s : case_sets())
    if (s.path == path) return &s;
  return nullptr;
}

mp_real parse_decimal(const std::string& text) { return mp_real(text); }

double relative_change(const mp_real& a, const mp_real& b) {
  const mp_real scale = std::max(abs(a), abs(b));
  if (scale == 0) return 0;
  return mp_real(abs(a - b) / scale).convert_to<double>();
}

std::map<std::string, golden_file> read_tree(const fs::path& dir, std::vector<std::string>& problems) {
  std::map<std::string, golden_file> files;
  const auto m = parse_manifest(read_file(dir / "MANIFEST.json"), (dir / "MANIFEST.json").string());
  for (const auto& e : m.files) {
    const fs::path p = dir / e.path;
    try {
      const std::string bytes = read_file(p);
      if (sha256_hex(bytes) != e.sha256) {
        problems.push_back(fmt::format("{}: SHA-256 {} does not match MANIFEST.json ({})", p.string(), sha256_hex(bytes), e.sha256));
      }
      files.emplace(e.path, parse_golden(bytes, p.string()));
    } catch (const input_error& err) {
      problems.push_back(err.what());
    }
  }
  return files;
}

}  // namespace

std::vector<std::string> regen(const fs::path& dir, const std::optional<std::regex>& only) {
  std::vector<std::pair<fs::path, std::string>> out;
  std::vector<std::string> written;
  manifest m{generator_name(), mpfr_library_version(), 256, {}};
  for (const auto& set : case_sets()) {
    std::string text;
    if (!only || std::regex_search(set.path, *only)) {
      text = to_text(compute(set, 256));
      out.push_back({dir / set.path, text});
      written.push_back(set.path);
    } else {
      text = read_file(dir / set.path);  // kept as it is; its hash goes into the new manifest
    }
    m.files.push_back({set.path, sha256_hex(text), static_cast<int>(set.cases.size())});
  }
  out.push_back({dir / "MANIFEST.json", to_text(m)});
  write_all(out);
  return written;
}

std::vector<std::string> verify(const fs::path& dir, const std::optional<std::regex>& only) {
  std::vector<std::string> problems;
  std::map<std::string, golden_file> files;
  try {
    files = read_tree(dir, problems);
  } catch (const input_error& e) {
    return {e.what()};
  }
  for (const auto& set : case_sets())
    if (!files.count(set.path) && std::none_of(problems.begin(), problems.end(), [&](const std::string& p) { return p.find(set.path) != std::string::npos; }))
      problems.push_back(fmt::format("{}: no such file in MANIFEST.json (run pecheck golden regen)", (dir / set.path).string()));
  for (const auto& [path, f] : files) {
    if (only && !std::regex_search(path, *only)) continue;
    const std::string where = (dir / path).string();
    const case_set* set = find_set(path);
    if (!set) {
      problems.push_back(fmt::format("{}: no case set defines this file", where));
      continue;
    }
    if (set->spec != f.spec || set->op != f.op) {
      problems.push_back(fmt::format("{}: op {} spec {} differ from the case definition ({} {}); run pecheck golden regen", where,
                                     f.op, f.spec, set->op, set->spec));
      continue;
    }
    const spec s = parse_spec(f.spec);
    for (const auto& c : f.cases) {
      try {
        const op_inputs in = op_inputs_of(f.op, s, c, where);
        for (const unsigned bits : {f.precision_bits, f.precision_bits + 64}) {
          mp_precision scope(bits);
          const auto outs = run_op<mp_real>(f.op, s, in);
          if (outs.size() != c.outputs.size()) {
            problems.push_back(fmt::format("{}: case {}: {} outputs, the op gives {}", where, c.id, c.outputs.size(), outs.size()));
            break;
          }
          for (size_t o = 0; o < outs.size(); ++o) {
            const auto& stored = c.outputs[o];
            if (stored.name != outs[o].name || stored.shape != outs[o].value.shape) {
              problems.push_back(fmt::format("{}: case {}: output {} [{}] does not match the op's {} [{}]", where, c.id, stored.name,
                                             fmt::join(stored.shape, ", "), outs[o].name, fmt::join(outs[o].value.shape, ", ")));
              continue;
            }
            for (size_t e = 0; e < stored.data.size(); ++e) {
              const double change = relative_change(parse_decimal(stored.data[e]), outs[o].value.data[e]);
              if (!(change <= verify_relative_tolerance)) {
                problems.push_back(fmt::format("{}: case {}: output {} element {}: {} differs from the recomputed {} by {:.3g} relative at {} bits",
                                               where, c.id, stored.name, e, stored.data[e], decimal_text(outs[o].value.data[e]), change, bits));
              }
            }
          }
        }
      } catch (const input_error& e) {
        problems.push_back(fmt::format("{}: case {}: {}", where, c.id, e.what()));
      } catch (const spec_error& e) {
        problems.push_back(fmt::format("{}: case {}: {}", where, c.id, e.what()));
      }
    }
  }
  return problems;
}

diff_report diff(const fs::path& a, const fs::path& b) {
  diff_report r;
  std::vector<std::string> problems;
  const auto left = read_tree(a, problems), right = read_tree(b, problems);
  if (!problems.empty()) throw input_error(problems.front());
  std::set<std::string> paths;
  for (const auto& [p, f] : left) paths.insert(p);
  for (const auto& [p, f] : right) paths.insert(p);
  mp_precision scope(320);
  double largest = 0;
  for (const auto& p : paths) {
    if (!left.count(p) || !right.count(p)) {
      r.lines.push_back(fmt::format("{}: only in {}", p, left.count(p) ? a.string() : b.string()));
      r.differs = true;
      continue;
    }
    const auto &fa = left.at(p), &fb = right.at(p);
    if (fa.spec != fb.spec || fa.op != fb.op) {
      r.lines.push_back(fmt::format("{}: {} {} became {} {}", p, fa.op, fa.spec, fb.op, fb.spec));
      r.differs = true;
    }
    std::map<std::string, const golden_case*> cases_b;
    for (const auto& c : fb.cases) cases_b[c.id] = &c;
    std::set<std::string> seen;
    for (const auto& c : fa.cases) {
      seen.insert(c.id);
      if (!cases_b.count(c.id)) {
        r.lines.push_back(fmt::format("{}: case {}: only in {}", p, c.id, a.string()));
        r.differs = true;
        continue;
      }
      const auto& cb = *cases_b[c.id];
      double worst = 0;
      std::string where;
      bool changed_inputs = false;
      for (size_t t = 0; t < c.inputs.size() && t < cb.inputs.size(); ++t) changed_inputs |= c.inputs[t].data != cb.inputs[t].data;
      changed_inputs |= c.inputs.size() != cb.inputs.size();
      for (size_t o = 0; o < c.outputs.size() && o < cb.outputs.size(); ++o) {
        if (c.outputs[o].data.size() != cb.outputs[o].data.size()) {
          worst = INFINITY, where = c.outputs[o].name + " (shape)";
          continue;
        }
        for (size_t e = 0; e < c.outputs[o].data.size(); ++e) {
          if (c.outputs[o].data[e] == cb.outputs[o].data[e]) continue;
          const double ch = relative_change(parse_decimal(c.outputs[o].data[e]), parse_decimal(cb.outputs[o].data[e]));
          if (ch >= worst) worst = ch, where = fmt::format("{} element {}", c.outputs[o].name, e);
        }
      }
      if (worst > 0 || changed_inputs) {
        r.lines.push_back(fmt::format("{}: case {}: {}largest relative change {:.3g} at {}", p, c.id, changed_inputs ? "inputs changed; " : "",
                                      worst, where.empty() ? "-" : where));
        r.differs = true;
        largest = std::max(largest, worst);
      }
    }
    for (const auto& c : fb.cases)
      if (!seen.count(c.id)) {
        r.lines.push_back(fmt::format("{}: case {}: only in {}", p, c.id, b.string()));
        r.differs = true;
      }
  }
  r.lines.push_back(r.differs ? fmt::format("largest relative change: {:.3g}", largest) : "no differences");
  return r;
}

int export_tree(const fs::path& dir, const std::string& format, const std::string& dtype, const fs::path& out) {
  if (format != "npy" && format != "json") throw input_error(fmt::format("--format '{}' is not npy or json", format));
  if (dtype != "f32" && dtype != "f64") throw input_error(fmt::format("--dtype '{}' is not f32 or f64", dtype));
  std::vector<std::string> problems;
  const auto files = read_tree(dir, problems);
  if (!problems.empty()) throw input_error(problems.front());
  const bool f32 = dtype == "f32";
  mp_precision scope(320);
  // The value of a stored element rounded once to the dtype (decimal -> MPFR at 320 bits -> format).
  const auto rounded = [&](const std::string& text) {
    return f32 ? static_cast<double>(static_cast<float>(round_to_format(mp_real(text), binary32)))
               : round_to_format(mp_real(text), binary64);
  };
  std::vector<std::pair<fs::path, std::string>> written;
  nlohmann::ordered_json index = nlohmann::ordered_json::array();
  int tensors = 0;
  for (const auto& [path, f] : files) {
    const std::string stem = path.substr(0, path.size() - 5);  // without .json
    nlohmann::ordered_json file_json = {{"op", f.op}, {"spec", f.spec}, {"dtype", dtype}, {"cases", nlohmann::ordered_json::array()}};
    for (const auto& c : f.cases) {
      nlohmann::ordered_json entry = {{"file", path}, {"op", f.op}, {"spec", f.spec}, {"case", c.id}};
      nlohmann::ordered_json case_json = {{"id", c.id}};
      for (const bool is_input : {true, false}) {
        const char* key = is_input ? "inputs" : "outputs";
        for (const auto& t : is_input ? c.inputs : c.outputs) {
          const bool integer = t.dtype == "i64";
          std::vector<double> values;
          std::vector<std::int64_t> ints;
          for (const auto& v : t.data) {
            if (integer) ints.push_back(std::stoll(v));
            else if (t.dtype == "f64") {  // an exact binary64 input: f64 as is, f32 by one correct conversion
              const double x = std::strtod(v.c_str(), nullptr);
              values.push_back(f32 ? static_cast<double>(static_cast<float>(x)) : x);
            } else {
              values.push_back(rounded(v));
            }
          }
          const std::string rel = fmt::format("{}/{}/{}.npy", stem, c.id, t.name);
          const std::string npy_dtype = integer ? "i64" : dtype;
          if (format == "npy") {
            written.push_back({out / rel, integer ? npy_bytes(ints, t.shape) : npy_bytes(values, t.shape, f32)});
            entry[key][t.name] = {{"path", rel}, {"dtype", npy_dtype}, {"shape", t.shape}};
          } else {
            nlohmann::ordered_json data = nlohmann::ordered_json::array();
            if (integer) for (const auto v : ints) data.push_back(v);
            else for (const auto v : values) data.push_back(f32 ? nlohmann::ordered_json(static_cast<float>(v)) : nlohmann::ordered_json(v));
            case_json[key][t.name] = {{"dtype", npy_dtype}, {"shape", t.shape}, {"data", std::move(data)}};
          }
          ++tensors;
        }
      }
      index.push_back(std::move(entry));
      file_json["cases"].push_back(std::move(case_json));
    }
    if (format == "json") written.push_back({out / path, file_json.dump(1) + "\n"});
  }
  if (format == "npy") written.push_back({out / "index.json", index.dump(1) + "\n"});
  write_all(written);
  return tensors;
}

}  // namespace pe::golden
