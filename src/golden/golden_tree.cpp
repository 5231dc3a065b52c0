// The golden directory as a whole (see golden_tree.hpp).
#include "golden/golden_tree.hpp"
#include "golden/figures.hpp"

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
#include "golden/tree_reader.hpp"
#include "pe/error.hpp"
#include "pe/float_format.hpp"

namespace pe::golden {
namespace fs = std::filesystem;
namespace {

// Writes every (path, bytes) to a temporary name first, then renames them all: a failure
// leaves no file half-written.
void write_all(const std::vector<std::pair<fs::path, std::string>>& files) {
  std::set<fs::path> targets;
  for (const auto& [path, bytes] : files) {
    if (!targets.insert(path).second) throw input_error(fmt::format("{}: would be written twice", path.string()));
    if (fs::exists(path) && !fs::is_regular_file(path)) throw input_error(fmt::format("{}: exists and is not a regular file", path.string()));
  }
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

}  // namespace

void require_selection(const std::regex& only, const std::string& flag_text) {
  if (std::regex_search(decay_table_path, only)) return;
  for (const auto& set : case_sets())
    if (std::regex_search(set.path, only)) return;
  throw input_error(fmt::format("{}: no golden file matches (paths look like {} or {})", flag_text, case_sets().front().path, decay_table_path));
}

std::vector<std::string> regen(const fs::path& dir, const std::optional<std::regex>& only) {
  std::vector<std::pair<fs::path, std::string>> out;
  std::vector<std::string> written;
  manifest m{generator_name(), mpfr_library_version(), 256, {}};
  manifest old;
  if (only) old = parse_manifest(read_file(dir / "MANIFEST.json"), (dir / "MANIFEST.json").string());
  for (const auto& set : case_sets()) {
    std::string text;
    if (!only || std::regex_search(set.path, *only)) {
      text = to_text(compute(set, 256));
      out.push_back({dir / set.path, text});
      written.push_back(set.path);
    } else {
      // Kept as it is, but only if it is what the old manifest vouched for: a regen of some
      // files must not bless damage in the others.
      text = read_file(dir / set.path);
      const auto entry = std::find_if(old.files.begin(), old.files.end(), [&](const manifest_entry& e) { return e.path == set.path; });
      if (entry == old.files.end() || entry->sha256 != sha256_hex(text)) {
        throw input_error(fmt::format("{}: does not match MANIFEST.json; regenerate it too (or run a full regen)", (dir / set.path).string()));
      }
    }
    m.files.push_back({set.path, sha256_hex(text), static_cast<int>(set.cases.size())});
  }
  out.push_back({dir / "MANIFEST.json", to_text(m)});
  // The figures' tables (figures.hpp), beside the cases and outside the manifest: verify recomputes them.
  if (!only || std::regex_search(decay_table_path, *only)) {
    out.push_back({dir / decay_table_path, decay_table_text()});
    written.push_back(decay_table_path);
  }
  write_all(out);
  return written;
}

diff_report diff(const fs::path& a, const fs::path& b) {
  diff_report r;
  std::vector<std::string> problems;
  const auto left = read_tree(a, problems).files, right = read_tree(b, problems).files;
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
    if (fa.spec != fb.spec || fa.op != fb.op || fa.precision_bits != fb.precision_bits) {
      r.lines.push_back(fmt::format("{}: {} {} at {} bits became {} {} at {} bits", p, fa.op, fa.spec, fa.precision_bits, fb.op, fb.spec,
                                    fb.precision_bits));
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
      // Tensors match by name; a name, dtype or shape that differs is a change of its own.
      const auto same_layout = [](const std::vector<golden_tensor>& a, const std::vector<golden_tensor>& b) {
        if (a.size() != b.size()) return false;
        for (std::size_t t = 0; t < a.size(); ++t)
          if (a[t].name != b[t].name || a[t].dtype != b[t].dtype || a[t].shape != b[t].shape) return false;
        return true;
      };
      bool changed_inputs = !same_layout(c.inputs, cb.inputs);
      for (size_t t = 0; !changed_inputs && t < c.inputs.size(); ++t) changed_inputs = c.inputs[t].data != cb.inputs[t].data;
      const bool changed_outputs = !same_layout(c.outputs, cb.outputs);
      bool any_text = false;
      for (size_t o = 0; !changed_outputs && o < c.outputs.size(); ++o)
        for (size_t e = 0; e < c.outputs[o].data.size(); ++e) {
          if (c.outputs[o].data[e] == cb.outputs[o].data[e]) continue;
          any_text = true;  // even a change of 0 (such as -0 for 0) is a change
          const double ch = relative_change(mp_real(c.outputs[o].data[e]), mp_real(cb.outputs[o].data[e]));
          if (ch >= worst) worst = ch, where = fmt::format("{} element {}", c.outputs[o].name, e);
        }
      if (changed_outputs) worst = INFINITY, where = "the output names, dtypes or shapes";
      if (any_text || changed_inputs || changed_outputs) {
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
  // OUT must not be the golden tree or inside it: an export never overwrites golden files.
  const auto inside = [](const fs::path& child, const fs::path& parent) {
    const auto c = fs::weakly_canonical(child), p = fs::weakly_canonical(parent);
    return std::mismatch(p.begin(), p.end(), c.begin(), c.end()).first == p.end();
  };
  if (inside(out, dir)) throw input_error(fmt::format("export: OUT {} is inside the golden directory {}", out.string(), dir.string()));
  std::vector<std::string> problems;
  const auto files = read_tree(dir, problems).files;
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
              if (!std::isfinite(values.back())) {
                throw input_error(fmt::format("export: {} case {} {} = {} overflows {}", path, c.id, t.name, v, dtype));
              }
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
