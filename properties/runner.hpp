// Runs a property on a target with RapidCheck (cases, seed, shrinking) and reports what it observed; the exactness ladder.
#pragma once
#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include <rapidcheck.h>

#include "properties/case_text.hpp"
#include "properties/property.hpp"
#include "properties/rapidcheck_run.hpp"

namespace pe::props {

struct target_result {
  std::string property_id, statement, label, scheme;
  expectation expected;
  std::string observed;        // "holds", "holds_within", "fails", "gave up", "error"
  bool met = false;
  int cases = 0;               // cases that passed before the verdict (all of them when it holds)
  std::string counterexample;  // the shrunk case, one "name = value" per drawn value, in drawing order, whole
  drawn_case drawn;            // the same, as pairs (case_text.hpp prints them short)
  std::string failure;         // the failing case's residual and bound, or the error
  std::string bound;           // what the law reports: "K* = 67", a profile, or the worst fraction of the bound
  double worst_fraction = 0;   // largest residual / bound over the passing cases
  double first_failure_fraction = 0;  // residual / bound of the first failing case (0: none failed)
  bool shrink_stopped = false;  // the counterexample is the smallest found within run_options::shrink_budget
  std::map<std::string, int> classes;  // RC_CLASSIFY tags -> cases
  std::string reproduce;       // a pecheck command that replays this target
};

target_result run_target(const property& p, const target& t, const run_options& options, const backend<double>& impl);

// s as one single-quoted shell word (reproduce lines are pasted into a shell).
std::string shell_quote(const std::string& s);

// One rung of the exactness ladder: the largest residual / scale over the cases at `bits`.
struct ladder_rung {
  unsigned bits;
  double relative_residual;
};
struct ladder_result {
  std::string property_id, label;
  bool held_to_ladder;  // identities on holds targets: relative residual <= 2^(slack - bits) at every rung
  bool met;
  std::vector<ladder_rung> rungs;
  std::string error;
};
inline constexpr unsigned ladder_bits[] = {53, 113, 256, 512};
// Residuals may sit this many bits above 2^-p: sums of up to a few hundred terms, each a few
// roundings (gamma_n for n <= 512 is below 2^10 u), with room to spare.
inline constexpr int ladder_slack_bits = 16;

ladder_result run_ladder(const property& p, const target& t, const run_options& options);

}  // namespace pe::props
