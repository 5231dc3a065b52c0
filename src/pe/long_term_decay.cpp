// RoFormer's long-term decay bound (see long_term_decay.hpp).
#include "pe/long_term_decay.hpp"

#include <cmath>

#include <fmt/format.h>

#include "pe/error.hpp"

namespace pe {

template <class T>
T roformer_decay_bound(std::int64_t d, double base, std::int64_t r) {
  using std::cos;
  using std::pow;
  using std::sin;
  using std::sqrt;
  if (d < 2 || d % 2 != 0) throw input_error(fmt::format("the decay bound needs an even d >= 2, not {}", d));
  if (!(base > 1)) throw input_error(fmt::format("the decay bound needs a base above 1, not {}", base));
  const std::int64_t pairs = d / 2;
  T re(0), im(0), sum(0);
  for (std::int64_t k = 0; k < pairs; ++k) {
    // S_(k+1) = S_k + e^{i r theta_k}, theta_k = base^(-2k/d)
    const T angle = T(r) * pow(T(base), T(-2 * k) / T(d));
    re += cos(angle), im += sin(angle);
    sum += sqrt(re * re + im * im);
  }
  return sum / T(pairs);
}

template double roformer_decay_bound<double>(std::int64_t, double, std::int64_t);
template mp_real roformer_decay_bound<mp_real>(std::int64_t, double, std::int64_t);

}  // namespace pe
