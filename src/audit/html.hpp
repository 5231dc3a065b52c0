// An audit profile as one self-contained HTML page: inline SVG plots (error against position, decade x band heatmap,
// RoFormer's long-term decay curve) and the report's tables; no scripts, no fetches.
#pragma once
#include <string>

#include "audit/profile.hpp"

namespace pe::audit {

std::string html_report(const audit_profile& p);

}  // namespace pe::audit
