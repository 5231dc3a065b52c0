// Compiled by ctest with -DCASE=n: case 0 must compile, every other case must be rejected by the compiler.
#include <cmath>

#include "support/archetype.hpp"

using pe_test::archetype;

archetype use() {
  archetype x(1.0);
#if CASE == 0
  return sin(x) * archetype(2) + pow(x, archetype(0.5));  // the generic way: ADL and explicit T(...)
#elif CASE == 1
  double d = x;  // silent conversion to double
  return archetype(d);
#elif CASE == 2
  return x * 0.5;  // a bare double literal mixed in
#elif CASE == 3
  return archetype(std::sin(x));  // std:: math forces double
#elif CASE == 4
  archetype y = 0.5;  // implicit construction from double
  return y;
#endif
}

int main() { return use() == archetype(0) ? 1 : 0; }
