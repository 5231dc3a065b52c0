// Building targets: random specs of a scheme, or one fixed spec, with an expectation.
#pragma once
#include <string>
#include <vector>

#include "properties/generators.hpp"
#include "properties/property.hpp"

namespace pe::props {

// Spec generators run at full size: RapidCheck scales inRange with the case's size, so without
// this the first cases would never reach dim 256 or 128 buckets.
inline target random_specs(const std::string& label, const std::string& scheme, expectation e, rc::Gen<std::string> g) {
  return {label, scheme, e, rc::gen::resize(100, std::move(g))};
}
inline target random_specs(const std::string& scheme, expectation e) { return random_specs(scheme, scheme, e, gen_spec_of(scheme)); }
// One fixed spec: its text is the label, its scheme the column.
target fixed_spec(const std::string& text, expectation e);

// Derived from the scheme registry: every scheme that places tokens (all but the plain ones)
// and takes attend, and the absolute ones.
const std::vector<std::string>& positional_schemes();
const std::vector<std::string>& absolute_schemes();

}  // namespace pe::props
