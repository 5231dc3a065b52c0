// A drawn case as a person reads it: each value by name, long ones shortened, in lines of at most 120 columns.
#pragma once
#include <cstddef>
#include <string>
#include <utility>
#include <vector>

namespace pe::props {

// (name, value) per drawn value, in drawing order: RapidCheck's counterexample, its draws named
// with Gen::as ("tokens", "x"), or the inputs an implementation was handed ("x [1, 1, 64]").
using drawn_case = std::vector<std::pair<std::string, std::string>>;

// `value` in at most `limit` characters: a list keeps its first elements and says how many there
// are ("[0.5, -1, ... 128 values]"), or, mostly zeros, where the others are ("[64 values, 0 but
// [61] = 0.000244141]"); other text is cut with "...". A value that fits is returned as it is.
std::string short_value(const std::string& value, std::size_t limit);

// "name = value" for each draw, joined by "; " and wrapped: the first line continues after
// `lead` characters already printed, the others start with `indent` spaces; no line passes `width`.
std::string case_lines(const drawn_case& drawn, std::size_t lead, std::size_t indent, std::size_t width = 120);

}  // namespace pe::props
