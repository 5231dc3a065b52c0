// golden verify: the tree against MANIFEST.json, the case definitions and a recomputation of every value (see golden_tree.hpp).
#include <algorithm>

#include <fmt/format.h>

#include "golden/case_sets.hpp"
#include "golden/figures.hpp"
#include "golden/golden_tree.hpp"
#include "golden/provenance.hpp"
#include "golden/tree_reader.hpp"
#include "pe/error.hpp"
#include "pe/float_format.hpp"

namespace pe::golden {
namespace fs = std::filesystem;
namespace {

const case_set* find_set(const std::string& path) {
  for (const auto& s : case_sets())
    if (s.path == path) return &s;
  return nullptr;
}

bool has_id(const std::vector<golden_case>& cases, const std::string& id) {
  return std::any_of(cases.begin(), cases.end(), [&](const golden_case& c) { return c.id == id; });
}

// The first case whose id or inputs are not the definitions', named; and any count that differs.
void check_cases(const golden_file& f, const case_set& set, const spec& s, const std::string& where, std::vector<std::string>& problems) {
  std::vector<golden_case> defined;
  for (const auto& d : set.cases) defined.push_back({d.id, input_tensors(set.op, s, d.in), {}});
  const std::size_t common = std::min(f.cases.size(), defined.size());
  std::size_t k = 0;
  for (; k < common; ++k) {
    const auto &got = f.cases[k], &want = defined[k];
    if (got.id != want.id) {
      problems.push_back(!has_id(f.cases, want.id)   ? fmt::format("{}: case {} of the definitions is missing (case {} is in its place)", where, want.id, got.id)
                         : !has_id(defined, got.id) ? fmt::format("{}: case {} is not in the case definitions (they have case {} there)", where, got.id, want.id)
                                                    : fmt::format("{}: case {} is out of order (the definitions have case {} there)", where, got.id, want.id));
      break;
    }
    if (got.inputs.size() != want.inputs.size()) {
      problems.push_back(fmt::format("{}: case {}: {} inputs, the definition has {}", where, got.id, got.inputs.size(), want.inputs.size()));
      continue;
    }
    for (std::size_t t = 0; t < got.inputs.size(); ++t) {
      const auto &a = got.inputs[t], &b = want.inputs[t];
      if (a.name != b.name || a.dtype != b.dtype || a.shape != b.shape) {
        problems.push_back(fmt::format("{}: case {}: input {} {} [{}] is not the definition's {} {} [{}]", where, got.id, a.name, a.dtype,
                                       fmt::join(a.shape, ", "), b.name, b.dtype, fmt::join(b.shape, ", ")));
        continue;
      }
      const auto e = std::mismatch(a.data.begin(), a.data.end(), b.data.begin()).first - a.data.begin();
      if (e < static_cast<std::ptrdiff_t>(a.data.size())) {
        problems.push_back(fmt::format("{}: case {}: input {} element {} is {}, the definition's is {}", where, got.id, a.name, e, a.data[e], b.data[e]));
      }
    }
  }
  if (k == common && f.cases.size() > defined.size()) {
    problems.push_back(fmt::format("{}: case {} is not in the case definitions ({} cases, the definitions have {})", where, f.cases[common].id,
                                   f.cases.size(), defined.size()));
  } else if (k == common && f.cases.size() < defined.size()) {
    problems.push_back(fmt::format("{}: case {} of the definitions is missing ({} cases, the definitions have {})", where, defined[common].id,
                                   f.cases.size(), defined.size()));
  }
}

// Every output of every case against the op run at the stored precision (the same text to the
// last digit: regen is deterministic) and at 64 bits more (within the drift allowance).
void recompute(const golden_file& f, const spec& s, const std::string& where, std::vector<std::string>& problems) {
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
            if (bits == f.precision_bits)  // the same at every precision: said once
              problems.push_back(fmt::format("{}: case {}: output {} [{}] does not match the op's {} [{}]", where, c.id, stored.name,
                                           fmt::join(stored.shape, ", "), outs[o].name, fmt::join(outs[o].value.shape, ", ")));
            continue;
          }
          std::size_t bad = 0, first = 0;
          std::string first_text;
          for (size_t e = 0; e < stored.data.size(); ++e) {
            const bool ok = bits == f.precision_bits ? stored.data[e] == decimal_text(round_to_bits(outs[o].value.data[e], bits))
                                                     : relative_change(mp_real(stored.data[e]), outs[o].value.data[e]) <= verify_relative_tolerance;
            if (ok) continue;
            if (bad++ == 0) {
              first = e;
              first_text = fmt::format("{} differs from the recomputed {} ({:.3g} relative)", stored.data[e], decimal_text(outs[o].value.data[e]),
                                       relative_change(mp_real(stored.data[e]), outs[o].value.data[e]));
            }
          }
          if (bad > 0) {
            problems.push_back(fmt::format("{}: case {}: output {} element {}: {} at {} bits{}", where, c.id, stored.name, first, first_text, bits,
                                           bad > 1 ? fmt::format(" (and {} more elements)", bad - 1) : ""));
          }
        }
      }
    } catch (const std::exception& e) {  // a malformed case must not end the run: name it and go on
      const std::string what = e.what();
      problems.push_back(what.rfind(where, 0) == 0 ? what : fmt::format("{}: case {}: {}", where, c.id, what));
    }
  }
}

}  // namespace

verify_report verify(const fs::path& dir, const std::optional<std::regex>& only) {
  verify_report r;
  auto& problems = r.problems;
  const tree_contents tree = read_tree(dir, problems);
  if (!only || std::regex_search(decay_table_path, *only)) {
    std::string text;
    try {
      text = read_file(dir / decay_table_path);
    } catch (const input_error& e) {
      problems.push_back(e.what());
    }
    if (!text.empty() && text != decay_table_text()) {
      problems.push_back(fmt::format("{}: differs from its recomputation (run pecheck golden regen)", (dir / decay_table_path).string()));
    }
  }
  for (const auto& set : case_sets())
    if (!tree.files.count(set.path) && !tree.flawed.count(set.path))
      problems.push_back(fmt::format("{}: no such file in MANIFEST.json (run pecheck golden regen)", (dir / set.path).string()));
  for (const auto& [path, f] : tree.files) {
    const std::string where = (dir / path).string();
    const case_set* set = find_set(path);
    if (!set) {  // named whatever --only selects: the set of files is checked whole, like the hashes
      problems.push_back(fmt::format("{}: no case set defines this file", where));
      continue;
    }
    if (only && !std::regex_search(path, *only)) continue;
    const std::size_t before = problems.size();
    if (set->spec != f.spec || set->op != f.op) {
      problems.push_back(fmt::format("{}: op {} spec {} differ from the case definition ({} {}); run pecheck golden regen", where, f.op, f.spec,
                                     set->op, set->spec));
      continue;
    }
    if (f.comment != set->comment) problems.push_back(fmt::format("{}: comment differs from the case definition's; run pecheck golden regen", where));
    const spec s = parse_spec(f.spec);
    check_cases(f, *set, s, where, problems);
    recompute(f, s, where, problems);
    // Only a file that passed every check holds regen's values, whatever its layout.
    if (problems.size() == before && !tree.flawed.count(path) && tree.reformatted.count(path)) {
      r.notes.push_back(fmt::format("note: formatting differs from regen's output in {}; values identical (pecheck golden regen rewrites it)", where));
    }
  }
  const std::string manifest_where = (dir / "MANIFEST.json").string();
  if (tree.manifest_reformatted) {
    r.notes.push_back(fmt::format("note: formatting differs from regen's output in {}; entries identical (pecheck golden regen rewrites it)", manifest_where));
  }
  for (auto& note : provenance_notes(tree.listed, tree.files, manifest_where)) r.notes.push_back(std::move(note));
  return r;
}

}  // namespace pe::golden
