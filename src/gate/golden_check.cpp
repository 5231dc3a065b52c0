// golden:FILE (see checks.hpp): each golden file of the spec's scheme, its cases run on the implementation and compared
// with the exact reference within the error model's bound.
#include <algorithm>
#include <limits>
#include <map>

#include <fmt/format.h>

#include "gate/check_support.hpp"
#include "gate/checks.hpp"
#include "gate/coverage.hpp"
#include "golden/golden_file.hpp"
#include "golden/manifest.hpp"
#include "pe/bounded_file.hpp"
#include "pe/error.hpp"
#include "properties/law_support.hpp"
#include "properties/runner.hpp"

namespace pe::gate {
namespace {

// A golden file of the tree, parsed once into `files`; nothing (and not parsed) when its head
// gives a spec of another scheme than `s`'s.
const golden::golden_file* read_golden(std::map<std::string, golden::golden_file>& files, const std::filesystem::path& dir, const std::string& path,
                                       const spec& s) {
  if (const auto found = files.find(path); found != files.end()) return &found->second;
  const std::string text = read_bounded_file((dir / path).string(), (dir / path).string());
  if (const auto head = golden::read_head(text)) {
    try {
      if (parse_spec(head->spec).scheme() != s.scheme()) return nullptr;
    } catch (const spec_error&) {  // the full parse names the problem
    }
  }
  return &files.emplace(path, golden::parse_golden(text, (dir / path).string())).first->second;
}

}  // namespace

std::vector<check_result> check_golden(implementation& impl, const gate_options& o) {
  const spec s = parse_spec(o.spec);
  // A golden file's result carries its own configuration as the spec: that is what it checked,
  // and its reproduce line runs that file alone.
  const auto result_for = [&](const std::string& check, const std::string& configuration) {
    check_result r{check, configuration};
    r.reproduce = fmt::format("{} --spec {} --golden-scope spec", o.reproduce_prefix, props::shell_quote(configuration));
    return r;
  };
  // run() refused a --golden without MANIFEST.json before the run: reading it here cannot find it missing.
  const std::string manifest_path = (o.golden_dir / "MANIFEST.json").string();
  const auto manifest = golden::parse_manifest(read_bounded_file(manifest_path, manifest_path), manifest_path);
  std::map<std::string, golden::golden_file> unshared;
  auto& files = o.golden_files ? *o.golden_files : unshared;
  // One result per golden file (one configuration of the scheme), so that one failing
  // configuration never hides what the others show.
  std::vector<check_result> out;
  bool already = false;  // some file was run for an earlier spec already
  for (const auto& entry : manifest.files) {
    const golden::golden_file* read = read_golden(files, o.golden_dir, entry.path, s);
    if (!read) continue;
    const golden::golden_file& file = *read;
    const spec fs = parse_spec(file.spec);
    const auto ops = ops_for(fs);
    if (fs.scheme() != s.scheme() || std::find(ops.begin(), ops.end(), file.op) == ops.end()) continue;
    if (o.golden_own_spec_only && fs.text() != s.text()) continue;
    if (o.golden_checked.count(entry.path)) {
      already = true;
      continue;
    }
    auto r = result_for("golden:" + entry.path, fs.text());
    // Cases past the range the implementation declared (--max-position), and past xPos's scales'
    // reach in a narrow format, where no correct kernel in it can answer, are left out, and said
    // so (tolerance.hpp, drawn_position_limit).
    const std::int64_t scales_reach = drawn_position_limit(fs, o.model, std::numeric_limits<std::int64_t>::max());
    const std::int64_t reach = std::min(scales_reach, o.declared_max_pos);
    coverage reached(o.model.io);
    int beyond = 0;
    for (const auto& c : file.cases) {
      if (o.progress) o.progress("golden", r.cases + 1, static_cast<int>(file.cases.size()));
      const op_inputs in = golden::op_inputs_of(file.op, fs, c, entry.path);
      if (largest_position(in) > reach) {
        ++beyond;
        continue;
      }
      ++r.planned;
      const outcome got = run_case(impl, file.op, fs, in, o.model);
      if (got.status == call_status::unsupported) {
        ++r.unsupported;
        r.declined_ops = {file.op};
        continue;
      }
      reached.answered(in);
      ++r.cases;
      r.worst_ulps = std::max(r.worst_ulps, got.worst_ulps);
      if (got.worst_fraction > r.worst_fraction) r.worst_fraction = got.worst_fraction, r.worst_where = "case " + c.id + ": " + got.message;
      if (!got.within) {
        r.result = verdict::fail;
        r.first_failure_fraction = got.status == call_status::ok ? got.worst_fraction : INFINITY;
        r.detail = fmt::format("case {} ({}): {}: {}", c.id, file.op, got.status == call_status::ok ? "out of bound" : status_name(got.status),
                               got.message);
        break;
      }
    }
    if (r.result != verdict::fail && beyond > 0) {
      r.detail = reach < o.declared_max_pos
                     ? fmt::format("{} of {} cases have a position beyond {}, where the scheme's scales pass the range the gate holds {} kernels to: left out",
                                   beyond, file.cases.size(), reach, dtype_format(o.model.io).name)
                     : fmt::format("{} of {} cases have a position beyond --max-position {}: left out", beyond, file.cases.size(), reach);
      if (r.cases == 0 && r.unsupported == 0) r.result = verdict::skipped;
    }
    r.top_position = reached.top_answered_position();
    if (r.result != verdict::fail && r.result != verdict::skipped && r.cases == 0) {
      r.result = verdict::unsupported;
      r.detail = fmt::format("{} supports none of the {} cases ({})", impl.name(), file.cases.size() - static_cast<std::size_t>(beyond), file.op);
    }
    hold_to_coverage(r);  // a golden case declined is a hole: every case within reach must be answered
    out.push_back(std::move(r));
  }
  if (out.empty() && !already) {
    auto r = result_for("golden", o.spec);
    r.result = verdict::skipped;
    r.detail = o.golden_own_spec_only ? fmt::format("no golden file has the configuration {} (--golden-scope spec)", o.spec)
                                      : fmt::format("no golden file of {}", s.scheme());
    out.push_back(std::move(r));
  }
  return out;
}

}  // namespace pe::gate
