// A frequency source of one pair for the phase tests: omega = base^(-2i/dim), sinusoidal's law.
#pragma once
#include <cstdint>

#include "pe/schemes/sinusoidal.hpp"

namespace pe::test {

struct one_frequency {
  std::int64_t dim;
  double base;
  int i;
  template <class U>
  U omega(int) const {
    return pe::sinusoidal_frequencies{dim, base, false}.omega<U>(i);
  }
};

}  // namespace pe::test
