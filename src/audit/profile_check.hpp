// What an audit profile read from a file claims, checked against what its own setup says the sweep must have measured.
#pragma once
#include <string>

#include "audit/profile.hpp"

namespace pe::audit {

// Re-derives what a profile file could only have forged and refuses (input_error naming `where`
// and the claim) any that disagree:
// - the setup: the spec parses, its swept op, unit and bands are the ones the sweep derives, heads
//   is 1 where the op takes no x, the position set's canonical text and size are the ones given;
// - the ranges: every covered index is assigned;
// - the counts: each bucket holds exactly (covered positions in its decade) x (rows per position)
//   x (indices of its band) elements and each octave (its covered positions) x rows x width, so a
//   part that claims coverage has measured it; nonfinite <= count; the histogram sums to the count;
// - the worst: a bucket with elements has both worst records, each at a covered position of its
//   decade, a head and an index of its band, and its maxima are those records' values; the top
//   histogram bin is the maximum's; the sum of squares is within count x the maximum's square;
// - first_over: a threshold is crossed (some maximum above it) exactly when a first position is
//   given, and that position is covered; the MPFR sample is no larger than the covered positions.
// What cannot be re-derived without the implementation (the errors themselves) is taken as written.
void check_profile_claims(const audit_profile& p, const std::string& where);

}  // namespace pe::audit
