// The exact turn reduction of p * omega (proofs/precision.phase_reduction.md), inline so that loops over pairs overlap its latency.
#pragma once
// Plain integer and binary64 arithmetic, no MPFR: sin_cos_dd.cpp's rows call it once per pair,
// and a call it cannot see into had cost a third of binary64 encode's time.
#include <array>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <utility>

namespace pe {

// 192-bit fraction frac(omega / 2pi), most significant word first.
using turn_fraction = std::array<std::uint64_t, 3>;

// 2pi * frac(p * f) reduced by quarter turns: the angle hi + lo in [-pi/4, pi/4], the number of
// quarter turns (0..3) to add back, and whether p was negative (sin changes sign).
struct reduced_angle {
  double hi, lo;
  int quarter;
  bool negative;
};

// sin and cos of r + quarter * pi/2 from those of r, the sine negated for a negative position: a
// swap on odd quarters and exact sign changes (+-1 times a value), without branches: a random
// quarter mispredicts most of the time. A double-double takes it on its heads and tails alike.
// (GCC had compiled `swap ? c : s` into a branch; the mask below leaves it none.)
inline std::pair<double, double> undo_quarter_turns(double s, double c, const reduced_angle& a) {
  constexpr double sin_sign[4] = {1, 1, -1, -1}, cos_sign[4] = {1, -1, -1, 1};
  const std::uint64_t swap = 0 - static_cast<std::uint64_t>(a.quarter & 1);  // all ones on odd quarters
  std::uint64_t s_bits, c_bits;
  std::memcpy(&s_bits, &s, sizeof s);
  std::memcpy(&c_bits, &c, sizeof c);
  const std::uint64_t first_bits = (s_bits & ~swap) | (c_bits & swap), second_bits = (c_bits & ~swap) | (s_bits & swap);
  double first, second;
  std::memcpy(&first, &first_bits, sizeof first);
  std::memcpy(&second, &second_bits, sizeof second);
  const double negated = 1.0 - 2.0 * static_cast<double>(a.negative);  // -1 or +1
  return {sin_sign[a.quarter] * negated * first, cos_sign[a.quarter] * second};
}

// RN(w), as static_cast<double>(w) gives it, without its branch on the top bit (the baseline ISA
// converts only signed words; a random bottom word mispredicted half the time): both halves convert
// exactly and their sum rounds once.
inline double word_to_double(std::uint64_t w) {
  return static_cast<double>(static_cast<std::int64_t>(w >> 32)) * 0x1p32 + static_cast<double>(static_cast<std::int64_t>(w & 0xffffffffu));
}

// rest * 2^-128 as a double-double for |rest| <= 2^125 (reduce_turns' angle in turns): hi is
// RN(rest * 2^-128), and hi + lo is within (1 + 2^-10) 2^-106 |hi| of it.
// Without the library's 128-bit conversions (__floattidf and __fixunsdfti, with scalbn, had taken
// a quarter of binary64 rotate's time): normalise, round the top word once with a sticky bit for
// the bits below it, and add what the rounding left.
inline std::pair<double, double> turns_as_dd(__int128 rest) {
  using u128 = unsigned __int128;
  if (rest == 0) return {0.0, 0.0};
  // |rest| and its sign without a branch: the centred fraction's sign is random, and the two
  // branches on it mispredicted half the time. sign_mask is all ones for a negative rest.
  const auto sign_mask = static_cast<u128>(rest >> 127);
  const u128 n = (static_cast<u128>(rest) ^ sign_mask) - sign_mask;
  const auto n_top = static_cast<std::uint64_t>(n >> 64);
  const int shift = n_top != 0 ? __builtin_clzll(n_top) : 64 + __builtin_clzll(static_cast<std::uint64_t>(n));
  const u128 m = n << shift;  // bit 127 set: m = n 2^shift
  const auto top = static_cast<std::uint64_t>(m >> 64);
  const auto bottom = static_cast<std::uint64_t>(m);
  // RN(m / 2^64): the 11 bits the conversion drops decide, and a set lowest bit stands for any
  // nonzero bottom word, which turns an exact tie into "above" and leaves every other case alone.
  const double head = word_to_double(top | static_cast<std::uint64_t>(bottom != 0));
  // head - top is within 2^10 (head may be 2^64, which wraps to 0 here: top - 2^64 = top - 0 mod 2^64).
  const std::uint64_t head_word = head >= 0x1p64 ? 0 : static_cast<std::uint64_t>(head);
  const auto remainder_top = static_cast<std::int64_t>(top - head_word);
  // (m / 2^64 - head) in binary64: the bottom word's rounding is below 2^-53 and the sum's
  // rounding below 2^-43, against head >= 2^63: hi + lo within (1 + 2^-10) 2^-106 |hi| of m / 2^64.
  const double tail = static_cast<double>(remainder_top) + word_to_double(bottom) * 0x1p-64;
  // Back to turns: m / 2^64 * 2^(64 - shift) * 2^-128, a power of two between 2^-191 and 2^-66.
  const std::uint64_t scale_bits = static_cast<std::uint64_t>(1023 + 64 - shift - 128) << 52;
  double scale;
  std::memcpy(&scale, &scale_bits, sizeof scale);
  const auto sign = static_cast<double>(static_cast<std::int64_t>(sign_mask) | 1);  // -1 or +1
  return {sign * head * scale, sign * tail * scale};
}

inline reduced_angle reduce_turns(std::int64_t p, const turn_fraction& f) {
  using u128 = unsigned __int128;
  // |p| as unsigned (also for INT64_MIN); sin(-x) = -sin(x) and cos(-x) = cos(x) give the sign
  // at the end, so the two signs are exactly symmetric.
  const std::uint64_t a = p < 0 ? 0 - static_cast<std::uint64_t>(p) : static_cast<std::uint64_t>(p);
  // frac(a * f) on 192 bits: word weights 2^-64, 2^-128, 2^-192; integer parts drop out.
  const u128 t0 = static_cast<u128>(a) * f[0];
  const u128 t1 = static_cast<u128>(a) * f[1];
  const u128 t2 = static_cast<u128>(a) * f[2];
  const u128 mid = static_cast<u128>(static_cast<std::uint64_t>(t1)) + static_cast<std::uint64_t>(t2 >> 64);
  const std::uint64_t w1 = static_cast<std::uint64_t>(mid);
  const std::uint64_t w0 = static_cast<std::uint64_t>(t0) + static_cast<std::uint64_t>(t1 >> 64) +
                           static_cast<std::uint64_t>(mid >> 64);
  // The top 128 bits, read as a signed number, are the fraction centred in [-1/2, 1/2); the
  // dropped low half of a * f[2] is below 2^-128 turns.
  const u128 turns = (static_cast<u128>(w0) << 64) | w1;
  // Quarter-turn reduction, exact on the integer: q = round(4 t), t' = t - q/4 in [-1/8, 1/8].
  // sin and cos are then evaluated at |r| <= pi/4, so a result near zero comes from a small r
  // held to full relative precision, never from cancellation between sin(h) and cos(h) l.
  const auto centred = static_cast<__int128>(turns);
  const int q = static_cast<int>(centred >> 126) + static_cast<int>((turns >> 125) & 1);  // -2 .. 2
  const auto rest = static_cast<__int128>(turns - static_cast<u128>(static_cast<__int128>(q)) * (u128{1} << 126));
  const auto [turn_hi, turn_lo] = turns_as_dd(rest);
  // 2pi as a double-double: 6.283185307179586 + 2.4492935982947064e-16.
  constexpr double two_pi_hi = 6.283185307179586232;
  constexpr double two_pi_lo = 2.4492935982947064e-16;
  const double r_hi0 = turn_hi * two_pi_hi;
  // turn_hi * two_pi_hi - r_hi0 exactly, by Dekker's product of Veltkamp's halves (at the
  // baseline ISA std::fma is a library call); exact here, nothing underflows for |turn_hi| >= 2^-128.
  constexpr double veltkamp = 134217729.0;  // 2^27 + 1
  constexpr double pi_high = veltkamp * two_pi_hi - (veltkamp * two_pi_hi - two_pi_hi), pi_low = two_pi_hi - pi_high;
  const double turn_split = veltkamp * turn_hi, turn_high = turn_split - (turn_split - turn_hi), turn_low = turn_hi - turn_high;
  const double r_err = ((turn_high * pi_high - r_hi0) + turn_high * pi_low + turn_low * pi_high) + turn_low * pi_low;
  const double r_lo0 = r_err + (turn_hi * two_pi_lo + turn_lo * two_pi_hi);
  const double r_hi = r_hi0 + r_lo0;
  return {r_hi, r_lo0 - (r_hi - r_hi0), (q + 4) % 4, p < 0};
}

}  // namespace pe
