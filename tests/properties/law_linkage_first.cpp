// One of two translation units with a law of the same name in an anonymous namespace (law_linkage_test.cpp).
#include "properties/property.hpp"

namespace pe::props {
namespace {

template <class T>
struct same_name {
  static measure run(const backend<T>&, const spec&) { return {1, 0, 1}; }
};

}  // namespace

property first_same_name() { return make_property<same_name>("first.same_name", "returns 1", law_kind::identity, {}); }

}  // namespace pe::props
