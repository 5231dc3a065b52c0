// An audit profile as text: the summary, the worst element in full, tables by position decade and frequency band, and the thresholds.
#pragma once
#include <string>

#include "audit/profile.hpp"

namespace pe::audit {

std::string text_report(const audit_profile& p);

// "pairs 0-7", "components 16-23", "unrotated": band b's label.
std::string band_label(const audit_setup& s, std::int64_t band);

// The first non-negative integer position that dtype d cannot hold: 2^precision + 1 (257 in bf16,
// 2049 in fp16, 16777217 in binary32): from there a kernel that keeps positions in d merges neighbours.
std::int64_t first_merged_position(const std::string& dtype);

}  // namespace pe::audit
