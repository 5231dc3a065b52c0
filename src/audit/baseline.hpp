// An audit's regression baseline: the profile as a small diffable text table (per bucket count, max, RMS, fraction), and a new run compared with it.
#pragma once
#include <string>

#include "audit/profile.hpp"
#include "gate/baseline_file.hpp"

namespace pe::audit {

// The first line of every audit baseline.
inline constexpr const char* audit_baseline_header = "# pecheck audit baseline 1";

// The baseline file's text: what was audited, the verdict, the positions covered, and one line per
// bucket that holds elements.
std::string baseline_text(const audit_profile& p);

// `now` against the baseline in file `path`. It regresses where the audit's verdict went from PASS
// to FAIL, fewer positions were covered (in all, or in a bucket), or a bucket's max error in ulps
// grew past `factor` times its baseline (both taken as at least 1 ulp: rounding noise below that
// is not a regression). Buckets whose max shrank past the factor are listed as improved.
// input_error when the file is malformed or is for another spec, op, dtype, working precision or tolerance.
gate::baseline_verdict compare_with_baseline(const audit_profile& now, const std::string& path, double factor);

}  // namespace pe::audit
