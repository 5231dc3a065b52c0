// Laws of the RoPE family: rotations preserve norms, see only relative positions, compose, and agree across ops and layouts.
#include <complex>
#include <map>

#include "properties/law_support.hpp"
#include "properties/property.hpp"
#include "properties/targets.hpp"

namespace pe::props {
namespace {

// One drawn rotate call: x [T, H, D] and T position rows of the spec's axes.
struct rotate_case {
  std::int64_t tokens, heads, dim, axes;
  std::vector<double> x;
  std::vector<std::int64_t> pos;
};

std::vector<std::int64_t> draw_row(std::int64_t axes, std::int64_t max = std::int64_t{1} << 40) {
  std::vector<std::int64_t> row;
  for (std::int64_t a = 0; a < axes; ++a) row.push_back(*gen_position(max));
  return row;
}

// Every rotated block as (offset, width, neox pairs?), from the scheme's own rotation plan:
// rope's one block of rotary_dim, rope_nd's axis blocks, mrope's single neox block over dim.
std::vector<rotated_block> rotated_blocks_of(const spec& s) { return rotation_plan_of(s, std::nullopt).blocks; }

// x as the backend stores it, positions up to its max_position().
template <class T>
rotate_case draw_rotate(const backend<T>& b, const spec& s, std::int64_t max_tokens = 3) {
  rotate_case c;
  c.tokens = *rc::gen::inRange<std::int64_t>(1, max_tokens + 1).as("tokens");
  c.heads = *rc::gen::inRange<std::int64_t>(1, 3).as("heads");
  c.dim = rope_head_dim(s);
  c.axes = position_axes(s);
  c.x = b.stored(*gen_vector(c.tokens * c.heads * c.dim).as("x"));
  for (std::int64_t t = 0; t < c.tokens; ++t)
    for (const auto p : draw_row(c.axes, b.max_position())) c.pos.push_back(p);
  RC_CLASSIFY(*std::max_element(c.pos.begin(), c.pos.end()) >= (std::int64_t{1} << 24), "p>=2^24");
  return c;
}

template <class T>
tensor<T> rotated_case(const backend<T>& b, const spec& s, const rotate_case& c) {
  return b.output("rotate", s, rotate_inputs(c.x, c.tokens, c.heads, c.dim, c.pos, c.axes), "y");
}

// Dot product of rows a and b (length n, offsets in elements) and the sum of |products|.
template <class T>
std::pair<T, double> dot_with_magnitude(const tensor<T>& ta, std::int64_t a, const tensor<T>& tb, std::int64_t b, std::int64_t n) {
  T acc(0);
  double mag = 0;
  for (std::int64_t e = 0; e < n; ++e) {
    const T prod = ta.data[static_cast<size_t>(a + e)] * tb.data[static_cast<size_t>(b + e)];
    acc += prod;
    mag += std::abs(as_double(prod));
  }
  return {acc, mag};
}

// y_a^2 + y_b^2 = af^2 (x_a^2 + x_b^2) for every rotated pair; the pass-through dims come back unchanged.
template <class T>
struct norm_preservation {
  static measure run(const backend<T>& b, const spec& s) {
    const auto c = draw_rotate(b, s);
    const auto y = b.output_with_error("rotate", s, rotate_inputs(c.x, c.tokens, c.heads, c.dim, c.pos, c.axes), "y");
    const T af = attention_factor(b, s);
    const double u = unit_roundoff<T>();
    // Relative, per pair: y rounded (2u), its two squares summed (gamma_2), af^2 (3u), x's squares
    // summed (gamma_2), the product (u).
    const double base = 1.01 * (6 * u + 2 * gamma(2, u));
    worst_part worst(base);
    const auto groups = rotation_groups(s);
    for (std::int64_t row = 0; row < c.tokens * c.heads; ++row)
      for (const auto& [a, d] : groups) {
        const auto at = [&](std::int64_t dim) { return static_cast<size_t>(row * c.dim + dim); };
        if (d < 0) {  // pass-through: a copy, exact for the reference
          worst.add(abs_difference(y.value.data[at(a)], T(c.x[at(a)])), y.error[at(a)]);
          continue;
        }
        T ny(0), nx(0);
        double slack = 0;  // |y_a^2 + y_b^2 - (exact)| from the output errors: sum 2 |y| e + 3 e^2
        for (const auto dim : {a, d}) {
          const T yv = y.value.data[at(dim)], xv(c.x[at(dim)]);
          const double e = y.error[at(dim)];
          ny += yv * yv, nx += xv * xv, slack += 2 * std::abs(as_double(yv)) * e + 3 * e * e;
        }
        const T expected = af * af * nx;
        const double magnitude = as_double(expected);
        if (magnitude > 0) worst.add(abs_difference(ny, expected) / magnitude, base + slack / magnitude);
        else worst.add(std::abs(as_double(ny)), slack);  // a zero pair stays zero
      }
    return worst.result(1);
  }
};

// The error of comparing two dot products of rotated vectors: each within (2u + gamma_D) of
// its sum of |products| (each factor rounded once, then the sum).
template <class T>
double two_dots_error(double mag1, double mag2, std::int64_t dim) {
  const double u = unit_roundoff<T>();
  return 1.01 * (2 * u + gamma(static_cast<double>(dim), u)) * (mag1 + mag2);
}

// <R_m q, R_n k> and <R_(m-c) q, R_(n-c) k> against each other (y1, y2: q at row 0, k at row
// dim), pair by pair: each pair's share (y_q,a y_k,a + y_q,b y_k,b) and each pass-through dim's
// product is separately invariant. Each share is within 1.01 (2u + gamma_n) of its |products|
// (each factor rounded once, then the sum of n <= 2), plus the outputs' errors: with y = y exact
// + delta, |delta| <= e, y_q y_k moves by at most |y_q| e_k + |y_k| e_q + e_q e_k.
template <class T>
measure same_score(const typename backend<T>::bounded& y1, const typename backend<T>::bounded& y2, const spec& s, std::int64_t dim) {
  const double u = unit_roundoff<T>();
  std::vector<std::pair<double, double>> parts;  // residual, bound
  double all1 = 0, all2 = 0;
  for (const auto& [a, d] : rotation_groups(s)) {
    T share[2] = {T(0), T(0)};  // this group's share of each call's dot
    double mag[2] = {0, 0}, moved = 0, n = 0;
    for (const auto dim_at : {a, d}) {
      if (dim_at < 0) continue;
      n += 1;
      const auto qi = static_cast<size_t>(dim_at), ki = static_cast<size_t>(dim + dim_at);
      for (int call = 0; call < 2; ++call) {
        const auto& y = call == 0 ? y1 : y2;
        const T prod = y.value.data[qi] * y.value.data[ki];
        share[call] += prod;
        mag[call] += std::abs(as_double(prod));
        moved += std::abs(as_double(y.value.data[qi])) * y.error[ki] + std::abs(as_double(y.value.data[ki])) * y.error[qi] + y.error[qi] * y.error[ki];
      }
    }
    parts.push_back({abs_difference(share[0], share[1]), 1.01 * (2 * u + gamma(n, u)) * (mag[0] + mag[1]) + moved});
    all1 += mag[0], all2 += mag[1];
  }
  worst_part worst(two_dots_error<T>(all1, all2, dim));  // the whole dot's bound: the ladder reads residual / scale
  for (const auto& [residual, bound] : parts) worst.add(residual, bound);
  return worst.result(std::max({all1, all2, 1e-300}));
}

// <R_m q, R_n k> = <R_(m-c) q, R_(n-c) k> with c = min(m, n): the score sees only n - m (per axis
// for the axial forms). One of the two sits at 0, so no position is negative.
template <class T>
struct relative_inner_product {
  static measure run(const backend<T>& b, const spec& s) {
    const std::int64_t axes = position_axes(s), dim = rope_head_dim(s);
    const auto m = draw_row(axes, b.max_position()), n = draw_row(axes, b.max_position());
    auto x = b.stored(*gen_vector(dim).as("x"));
    const auto k = b.stored(*gen_vector(dim).as("k"));
    x.insert(x.end(), k.begin(), k.end());
    std::vector<std::int64_t> absolute = m, relative;
    absolute.insert(absolute.end(), n.begin(), n.end());
    for (std::int64_t a = 0; a < axes; ++a) relative.push_back(m[a] - std::min(m[a], n[a]));
    for (std::int64_t a = 0; a < axes; ++a) relative.push_back(n[a] - std::min(m[a], n[a]));
    return same_score<T>(rotated_with_error(b, s, x, 2, 1, absolute), rotated_with_error(b, s, x, 2, 1, relative), s, dim);
  }
};

// <R_(m+t) q, R_(n+t) k> = <R_m q, R_n k> for every shift t.
template <class T>
struct shift_invariance {
  static measure run(const backend<T>& b, const spec& s) {
    const std::int64_t axes = position_axes(s), dim = rope_head_dim(s), top = b.max_position();
    const auto m = draw_row(axes, top), n = draw_row(axes, top);
    std::vector<std::int64_t> t;  // the shift keeps every position within max_position()
    for (std::int64_t a = 0; a < axes; ++a) t.push_back(*gen_position(top - std::max(m[a], n[a])));
    auto x = b.stored(*gen_vector(dim).as("x"));
    const auto k = b.stored(*gen_vector(dim).as("k"));
    x.insert(x.end(), k.begin(), k.end());
    std::vector<std::int64_t> plain = m, shifted;
    plain.insert(plain.end(), n.begin(), n.end());
    for (std::int64_t e = 0; e < 2 * axes; ++e) shifted.push_back(plain[e] + t[e % axes]);
    return same_score<T>(rotated_with_error(b, s, x, 2, 1, plain), rotated_with_error(b, s, x, 2, 1, shifted), s, dim);
  }
};

// Sparse product of two D x D rotation matrices (each row and column has at most two nonzeros;
// exact zeros are skipped, so every entry is a sum of at most two products).
template <class T>
tensor<T> product(const tensor<T>& a, const tensor<T>& b, bool transpose_a) {
  const std::int64_t n = a.shape[0];
  tensor<T> c({n, n});
  for (auto& v : c.data) v = T(0);
  for (std::int64_t i = 0; i < n; ++i)
    for (std::int64_t k = 0; k < n; ++k) {
      const T& aik = transpose_a ? a(k, i) : a(i, k);
      if (aik == 0) continue;
      for (std::int64_t j = 0; j < n; ++j)
        if (b(k, j) != 0) c(i, j) += aik * b(k, j);
    }
  return c;
}

// Matrix entries are within 2 ulps (2u, as |entry| <= 1) of cos and sin: a sum of two products
// of them is within (4 sqrt 2 + 4) u < 12 u of the exact entry, including the target's error.
template <class T>
double entry_bound() {
  return 12 * unit_roundoff<T>();
}

// R_m^T R_n = R_(n-m), R_m R_n = R_(m+n), R_0 = I.
template <class T>
struct composition {
  static measure run(const backend<T>& b, const spec& s) {
    const std::int64_t axes = position_axes(s);
    const auto m = draw_row(axes, std::int64_t{1} << 39), n = draw_row(axes, std::int64_t{1} << 39);
    std::vector<std::int64_t> diff, sum, zero(static_cast<size_t>(axes), 0);
    for (std::int64_t a = 0; a < axes; ++a) diff.push_back(n[a] - m[a]), sum.push_back(m[a] + n[a]);
    const auto rm = matrix_at(b, s, m), rn = matrix_at(b, s, n), r0 = matrix_at(b, s, zero);
    double residual = max_abs_diff(product(rm, rn, true), matrix_at(b, s, diff));
    residual = std::max(residual, max_abs_diff(product(rm, rn, false), matrix_at(b, s, sum)));
    tensor<T> identity(r0.shape);
    for (std::int64_t i = 0; i < r0.shape[0]; ++i)
      for (std::int64_t j = 0; j < r0.shape[0]; ++j) identity(i, j) = T(i == j ? 1 : 0);
    residual = std::max(residual, max_abs_diff(r0, identity));
    return {residual, entry_bound<T>(), 1};
  }
};

// R^T R = I and det R = 1. The determinant is the product of the 2 x 2 (and 1 x 1) blocks the
// nonzero pattern forms; a pattern that is not made of such blocks fails.
template <class T>
struct orthogonality {
  static measure run(const backend<T>& b, const spec& s) {
    const auto r = matrix_at(b, s, draw_row(position_axes(s)));
    const std::int64_t n = r.shape[0];
    const auto rtr = product(r, r, true);
    double residual = 0;
    for (std::int64_t i = 0; i < n; ++i)
      for (std::int64_t j = 0; j < n; ++j) residual = std::max(residual, std::abs(as_double(T(rtr(i, j) - T(i == j ? 1 : 0)))));
    std::vector<bool> seen(static_cast<size_t>(n), false);
    T det(1);
    std::int64_t blocks = 0;
    for (std::int64_t i = 0; i < n; ++i) {
      if (seen[i]) continue;
      std::vector<std::int64_t> partners;
      for (std::int64_t j = 0; j < n; ++j)
        if (j != i && (r(i, j) != 0 || r(j, i) != 0)) partners.push_back(j);
      if (partners.size() > 1 || (partners.size() == 1 && seen[partners[0]])) return {INFINITY, 0, 1};
      seen[i] = true;
      ++blocks;
      if (partners.empty()) {
        det *= r(i, i);
      } else {
        const auto j = partners[0];
        seen[j] = true;
        det *= r(i, i) * r(j, j) - r(i, j) * r(j, i);
      }
    }
    const double u = unit_roundoff<T>();
    // Each block's determinant is within (4 sqrt 2 + 2) u of 1; the product of `blocks` of them adds gamma_blocks.
    const double det_bound = 1.01 * (static_cast<double>(blocks) * 8 * u + gamma(static_cast<double>(blocks), u));
    const double det_error = std::abs(as_double(T(det - T(1))));
    // One measure for both: scale the determinant's error to the entry bound.
    return {std::max(residual, det_error * entry_bound<T>() / det_bound), entry_bound<T>(), 1};
  }
};

// rotate(a x + b y) = a rotate(x) + b rotate(y), with a, b small integers so a x + b y is exact.
template <class T>
struct linearity {
  static measure run(const backend<T>& b, const spec& s) {
    const std::int64_t dim = rope_head_dim(s), axes = position_axes(s);
    const auto alpha = *rc::gen::inRange(-4, 5).as("alpha"), beta = *rc::gen::inRange(-4, 5).as("beta");
    const auto x = b.stored(*gen_vector(dim).as("x")), y = b.stored(*gen_vector(dim).as("y"));
    std::vector<double> exact_z(static_cast<size_t>(dim));  // exact in binary64: <= 24-bit values times |a| <= 4, one exponent apart by <= 16
    for (size_t e = 0; e < exact_z.size(); ++e) exact_z[e] = alpha * x[e] + beta * y[e];
    const auto z = b.stored(exact_z);  // an implementation sees z rounded to its dtype: z = a x + b y + delta
    double delta = 0;
    for (size_t e = 0; e < z.size(); ++e) delta = std::max(delta, std::abs(z[e] - exact_z[e]));
    const auto pos = draw_row(axes, b.max_position());
    const auto rx = rotated_with_error(b, s, x, 1, 1, pos), ry = rotated_with_error(b, s, y, 1, 1, pos), rz = rotated_with_error(b, s, z, 1, 1, pos);
    const double u = unit_roundoff<T>();
    const double mags = std::abs(alpha) * max_abs(rx.value) + std::abs(beta) * max_abs(ry.value);
    const double base = 1.01 * (u * max_abs(rz.value) + (u + gamma(2, u)) * mags);
    // rotate(delta) moves each element by at most max(|af|, 1) (|delta_a| + |delta_b|): pass-through dims are copied unscaled.
    const double moved = delta > 0 ? 2 * std::max(1.0, std::abs(as_double(attention_factor(b, s)))) * delta : 0;
    worst_part worst(base);
    for (size_t e = 0; e < z.size(); ++e)
      worst.add(std::abs(as_double(T(T(alpha) * rx.value.data[e] + T(beta) * ry.value.data[e] - rz.value.data[e]))),
                base + moved + std::abs(alpha) * rx.error[e] + std::abs(beta) * ry.error[e] + rz.error[e]);
    return worst.result(std::max({max_abs(rz.value), mags, 1e-300}));
  }
};

spec with_field(const spec& s, const std::string& key, nlohmann::json value) {
  auto j = s.json();
  j[key] = std::move(value);
  return parse_spec_json(j);
}

// gptj's rotation is neox's with the dims permuted: rotate_gptj(x) = P rotate_neox(P^-1 x), P
// taking neox's pair (o+i, o+i+w/2) to gptj's (o+2i, o+2i+1) in every block.
template <class T>
struct layout_permutation {
  static measure run(const backend<T>& b, const spec& s) {
    const spec gptj = with_field(s, "layout", "gptj"), neox = with_field(s, "layout", "neox");
    const auto c = draw_rotate(b, s);
    std::vector<std::int64_t> to_gptj(static_cast<size_t>(c.dim));  // neox dim -> gptj dim
    for (std::int64_t d = 0; d < c.dim; ++d) to_gptj[d] = d;
    for (const auto& block : rotated_blocks_of(s)) {
      const std::int64_t o = block.offset, w = block.width;
      for (std::int64_t i = 0; i < w / 2; ++i) to_gptj[o + i] = o + 2 * i, to_gptj[o + i + w / 2] = o + 2 * i + 1;
    }
    std::vector<double> x_neox(c.x.size());
    for (std::int64_t row = 0; row < c.tokens * c.heads; ++row)
      for (std::int64_t d = 0; d < c.dim; ++d) x_neox[row * c.dim + d] = c.x[row * c.dim + to_gptj[d]];
    const auto yg = rotated(b, gptj, c.x, c.tokens, c.heads, c.pos), yn = rotated(b, neox, x_neox, c.tokens, c.heads, c.pos);
    double residual = 0;
    for (std::int64_t row = 0; row < c.tokens * c.heads; ++row)
      for (std::int64_t d = 0; d < c.dim; ++d)
        residual = std::max(residual, std::abs(as_double(T(yn.data[row * c.dim + d] - yg.data[row * c.dim + to_gptj[d]]))));
    return {residual, 2 * unit_roundoff<T>() * std::max(max_abs(yg), max_abs(yn)), std::max(max_abs(yg), 1e-300)};
  }
};

// rotate(x, p) = af R_p x with R_p from op matrix, for every head.
template <class T>
struct matrix_equals_elementwise {
  static measure run(const backend<T>& b, const spec& s) {
    const std::int64_t dim = rope_head_dim(s), heads = *rc::gen::inRange<std::int64_t>(1, 3).as("heads");
    const auto row = draw_row(position_axes(s));
    const auto x = *gen_vector(heads * dim).as("x");
    const auto y = rotated(b, s, x, 1, heads, row);
    const auto r = matrix_at(b, s, row);
    const T af = attention_factor(b, s);
    const std::int64_t rot = rope_rotated_dims(s);
    double residual = 0, xmax = 0;
    for (std::int64_t h = 0; h < heads; ++h)
      for (std::int64_t i = 0; i < dim; ++i) {
        T acc(0);
        for (std::int64_t j = 0; j < dim; ++j)
          if (r(i, j) != 0) acc += r(i, j) * T(x[h * dim + j]);
        const T mine = i < rot ? T(af * acc) : acc;  // pass-through dims are not scaled
        residual = std::max(residual, std::abs(as_double(T(mine - y.data[h * dim + i]))));
        xmax = std::max(xmax, std::abs(x[h * dim + i]));
      }
    const double u = unit_roundoff<T>();
    // Two matrix entries within 2u each times |x| <= xmax, two products and a sum, the factor (u), y's rounding (u |y|).
    const double bound = 1.01 * (std::max(1.0, std::abs(as_double(af))) * (4 * u + gamma(2, u) + u) * 2 * xmax + u * max_abs(y));
    return {residual, bound, std::max(max_abs(y), 1e-300)};
  }
};

// RoFormer 3.4.3: with h_i = z_q,i conj(z_k,i) per rotated pair and S_j = sum_(i<j) e^(i r w_i),
// |<R_m q, R_n k>| <= max_i |h_(i+1) - h_i| sum_(j=1..P) |S_j| (Abel summation, h_P = 0), for
// every q, k, r = m - n. The law also reports how the mean bound (1/P) sum |S_j| falls with r.
template <class T>
struct long_term_decay {
  using C = std::complex<double>;

  // Pairs (a, b) of the layout over the rotated dims.
  static std::vector<std::pair<std::int64_t, std::int64_t>> pairs(const spec& s) {
    const std::int64_t r = s.integer("rotary_dim");
    std::vector<std::pair<std::int64_t, std::int64_t>> out;
    for (std::int64_t i = 0; i < r / 2; ++i)
      out.push_back(s.choice("layout") == "neox" ? std::pair{i, i + r / 2} : std::pair{2 * i, 2 * i + 1});
    return out;
  }

  // "mean bound by octave of r": (1/P) sum_j |S_j(r)| averaged over r in [2^a, 2^(a+1)), from op inv_freq.
  static std::string octave_profile(const backend<T>& b, const spec& s) {
    static std::map<std::string, std::string> known;
    const std::string key = fmt::format("{}|{}|{}", static_cast<const void*>(&b), b.name(), s.text());
    if (const auto it = known.find(key); it != known.end()) return it->second;
    const auto inv = frequencies(b, s);
    std::vector<double> means;
    for (int a = 0; a < 18; ++a) {
      double total = 0;
      const std::int64_t lo = std::int64_t{1} << a, count = std::min<std::int64_t>(lo, 64);
      for (std::int64_t q = 0; q < count; ++q) {
        const double r = static_cast<double>(lo + q * lo / count);
        C partial = 0;
        double sum = 0;
        for (const auto& w : inv) sum += std::abs(partial += std::polar(1.0, r * as_double(w)));
        total += sum / static_cast<double>(inv.size());
      }
      means.push_back(total / static_cast<double>(count));
    }
    int falls = 0;
    while (falls + 1 < static_cast<int>(means.size()) && means[falls + 1] < means[falls]) ++falls;
    std::string text = fmt::format("mean bound (1/P) sum|S_j| by octave of |m-n|: {:.3g}; falls through octave 2^{}",
                                   fmt::join(means, " "), falls);
    return known[key] = text;
  }

  static measure run(const backend<T>& b, const spec& s) {
    const std::int64_t dim = s.integer("dim");
    const auto ps = pairs(s);
    const auto m = *gen_position(std::int64_t{1} << 30).as("m"), n = *gen_position(std::int64_t{1} << 30).as("n");
    auto q = *gen_vector(dim).as("q"), k = *gen_vector(dim).as("k");
    for (std::int64_t d = s.integer("rotary_dim"); d < dim; ++d) q[d] = k[d] = 0;  // pass-through dims do not decay
    std::vector<double> x = q;
    x.insert(x.end(), k.begin(), k.end());
    const auto y = rotated(b, s, x, 2, 1, {m, n});
    const T af = attention_factor(b, s);
    const auto [score_af2, mag] = dot_with_magnitude(y, 0, y, dim, dim);
    const double score = as_double(score_af2) / as_double(T(af * af));
    const auto rm = matrix_at(b, s, {m - n});
    double hmax = 0, ssum = 0;
    C partial = 0, previous_h = 0;
    for (size_t i = 0; i <= ps.size(); ++i) {
      const C h = i < ps.size() ? C(q[ps[i].first], q[ps[i].second]) * std::conj(C(k[ps[i].first], k[ps[i].second])) : C(0);
      if (i > 0) hmax = std::max(hmax, std::abs(h - previous_h));
      previous_h = h;
      if (i < ps.size()) {
        partial += C(as_double(rm(ps[i].first, ps[i].first)), as_double(rm(ps[i].second, ps[i].first)));
        ssum += std::abs(partial);
      }
    }
    const double bound = hmax * ssum;
    const double u = unit_roundoff<T>(), p = static_cast<double>(ps.size());
    // The score's error (2u + gamma_D) |products| / af^2, and the bound's own (entries 2u, P partial sums in binary64).
    // The matrix entries' rounding moves S_j by up to (u + 2^-53) j absolutely, so B by up to
    // that times H P (P + 1) / 2 with H the largest step of h (proof: rope.long_term_decay.md).
    const double slack = 1.01 * ((2 * u + gamma(static_cast<double>(dim), u) + 3 * u) * mag / as_double(T(af * af)) +
                                 (2 * u + gamma(2 * p + 4, 0x1p-53)) * bound + (u + 0x1p-53) * hmax * p * (p + 1) / 2);
    measure out{std::abs(score), bound + slack, std::max(bound, 1e-300)};
    if constexpr (std::is_same_v<T, double>) out.note = octave_profile(b, s);
    return out;
  }
};

// Elements [from, from + n) of a against all n of b, each within the two outputs' errors: both are
// the same exact value (exactly equal for the reference).
template <class T>
measure same_elements(const typename backend<T>::bounded& a, std::int64_t from, const typename backend<T>::bounded& b, std::int64_t n) {
  worst_part worst(0);
  for (std::int64_t e = 0; e < n; ++e) {
    const auto i = static_cast<size_t>(from + e), j = static_cast<size_t>(e);
    worst.add(abs_difference(a.value.data[i], b.value.data[j]), a.error[i] + b.error[j]);
  }
  return worst.result(std::max(max_abs(a.value), 1e-300));
}

// Rotating a chunk of tokens at its own positions equals the slice of rotating the whole
// sequence (KV-cache decoding): exactly, as every token's rotation reads only its position.
template <class T>
struct kv_offset_consistency {
  static measure run(const backend<T>& b, const spec& s) {
    const std::int64_t axes = position_axes(s), dim = rope_head_dim(s);
    // At most max_position + 1 tokens, so that every position o + t stays within it.
    const auto tokens = *rc::gen::inRange<std::int64_t>(2, std::min<std::int64_t>(9, b.max_position() + 2)).as("tokens");
    const auto heads = *rc::gen::inRange<std::int64_t>(1, 3).as("heads");
    const auto offset = *gen_position(b.max_position() - tokens + 1).as("offset");
    const auto from = *rc::gen::inRange<std::int64_t>(0, tokens).as("from"), to = from + *rc::gen::inRange<std::int64_t>(1, tokens - from + 1);
    const auto x = b.stored(*gen_vector(tokens * heads * dim).as("x"));
    std::vector<std::int64_t> pos;
    for (std::int64_t t = 0; t < tokens; ++t)
      for (std::int64_t a = 0; a < axes; ++a) pos.push_back(offset + t);
    const auto whole = rotated_with_error(b, s, x, tokens, heads, pos);
    const std::int64_t row = heads * dim;
    const auto chunk = rotated_with_error(b, s, std::vector<double>(x.begin() + from * row, x.begin() + to * row), to - from, heads,
                                          std::vector<std::int64_t>(pos.begin() + from * axes, pos.begin() + to * axes));
    return same_elements<T>(whole, from * row, chunk, (to - from) * row);
  }
};

// Heads are independent: rotating all heads in one call equals rotating each head alone (a head
// stride that reads another head's dims, or a position indexed by head, breaks it).
template <class T>
struct head_independence {
  static measure run(const backend<T>& b, const spec& s) {
    const std::int64_t axes = position_axes(s), dim = rope_head_dim(s);
    const auto tokens = *rc::gen::inRange<std::int64_t>(1, 4).as("tokens"), heads = *rc::gen::inRange<std::int64_t>(2, 5).as("heads");
    const auto x = b.stored(*gen_vector(tokens * heads * dim).as("x"));
    std::vector<std::int64_t> pos;
    for (std::int64_t t = 0; t < tokens; ++t)
      for (const auto p : draw_row(axes, b.max_position())) pos.push_back(p);
    const auto all = rotated_with_error(b, s, x, tokens, heads, pos);
    worst_part worst(0);
    for (std::int64_t h = 0; h < heads; ++h) {
      std::vector<double> alone;  // head h of every token: [tokens, 1, dim]
      for (std::int64_t t = 0; t < tokens; ++t) alone.insert(alone.end(), x.begin() + (t * heads + h) * dim, x.begin() + (t * heads + h + 1) * dim);
      const auto one = rotated_with_error(b, s, alone, tokens, 1, pos);
      for (std::int64_t t = 0; t < tokens; ++t)
        for (std::int64_t d = 0; d < dim; ++d) {
          const auto i = static_cast<size_t>((t * heads + h) * dim + d), j = static_cast<size_t>(t * dim + d);
          worst.add(abs_difference(all.value.data[i], one.value.data[j]), all.error[i] + one.error[j]);
        }
    }
    return worst.result(std::max(max_abs(all.value), 1e-300));
  }
};

// Partial rotary: dims past rotary_dim come back bit for bit, and the rotated dims are exactly
// rope(dim = rotary_dim) of them (frequencies from rotary_dim, not from the head dim).
template <class T>
struct partial_passthrough {
  static measure run(const backend<T>& b, const spec& s) {
    const std::int64_t r = s.integer("rotary_dim");
    const spec sub = with_field(with_field(s, "dim", r), "rotary_dim", r);
    const auto c = draw_rotate(b, s);
    const auto y = rotated_case(b, s, c);
    std::vector<double> front;
    for (std::int64_t row = 0; row < c.tokens * c.heads; ++row)
      front.insert(front.end(), c.x.begin() + row * c.dim, c.x.begin() + row * c.dim + r);
    const auto y_sub = rotated(b, sub, front, c.tokens, c.heads, c.pos);
    double residual = 0;
    for (std::int64_t row = 0; row < c.tokens * c.heads; ++row) {
      residual = std::max(residual, max_abs_diff(y, row * c.dim, y_sub, row * r, r));
      for (std::int64_t d = r; d < c.dim; ++d)
        residual = std::max(residual, std::abs(as_double(T(y.data[row * c.dim + d] - T(c.x[row * c.dim + d])))));
    }
    return {residual, 0, std::max(max_abs(y), 1e-300)};
  }
};

// The sign convention: R_p turns each pair counter-clockwise by p w (the a axis towards the b
// axis, HF's x * cos + rotate_half(x) * sin): R_p[b][a] = sin(p w) > 0 and R_p[a][b] = -sin(p w)
// whenever 0 < p w < pi. A rotation by -p keeps every other law of this family; this one sees it.
template <class T>
struct rotation_direction {
  static measure run(const backend<T>& b, const spec& s) {
    const std::int64_t axes = position_axes(s);
    const auto p = *rc::gen::inRange<std::int64_t>(1, 4).as("p");
    const auto r = matrix_at(b, s, std::vector<std::int64_t>(static_cast<std::size_t>(axes), p));
    const auto w = frequencies(b, s);
    const auto blocks = rotated_blocks_of(s);
    double residual = 0;
    std::size_t k = 0;
    for (const auto& [o, width, neox] : blocks)
      for (std::int64_t i = 0; i < width / 2; ++i, ++k) {
        const double angle = static_cast<double>(p) * as_double(w[k]);
        if (!(angle > 0 && angle < M_PI * (1 - 1e-9))) continue;
        const std::int64_t a = neox ? o + i : o + 2 * i, c = neox ? o + i + width / 2 : o + 2 * i + 1;
        // A wrong sign is a miss by 2 sin(p w) > 0; the bound is the entries' own rounding.
        residual = std::max({residual, std::max(0.0, -as_double(r(c, a))), std::max(0.0, as_double(r(a, c))),
                             std::abs(as_double(T(r(c, a) + r(a, c))))});
      }
    return {residual, 4 * unit_roundoff<T>(), 1};
  }
};

// Unscaled frequencies follow base^(-2i/r): w_0 = 1 and w_(i+1) / w_i = base^(-2/r) in every
// rotated block (rope_nd: per axis with its own d_a; mrope: r = dim). A wrong base or a
// denominator from another width breaks the ratio.
template <class T>
struct frequency_law {
  static measure run(const backend<T>& b, const spec& s) {
    using std::abs;
    using std::pow;
    const auto w = frequencies(b, s);
    double residual = 0;
    std::size_t k = 0;
    for (const auto& [o, width, neox] : rotated_blocks_of(s)) {
      (void)o, (void)neox;
      // The step base^(-2/r) evaluated 64 bits wider than T and rounded once: formed in T, the
      // rounding of -2/r alone would be amplified by ln(base) (up to 14u for r = 2, base 10^6).
      const T step = [&, width = width] {  // a copy: clang 14 cannot capture a structured binding
        mp_working_bits wide(static_cast<unsigned>(-std::log2(unit_roundoff<T>())) + 64);
        const mp_real exact = pow(mp_real(s.real("base")), mp_real(-2) / mp_real(width));
        if constexpr (std::is_same_v<T, mp_real>) return round_to_bits(exact, mp_output_bits());
        else return T(exact.template convert_to<double>());
      }();
      residual = std::max(residual, as_double(T(abs(T(w[k] - T(1))))));
      for (std::int64_t i = 0; i + 1 < width / 2; ++i, ++k) {
        if (w[k + 1] == 0) continue;  // p-RoPE's zeroed pairs
        residual = std::max(residual, as_double(T(abs(T(w[k + 1] / w[k] - step)) / step)));
      }
      ++k;
    }
    // Two stored frequencies (u each), their quotient (u), the step's one rounding (u): 4u; 5u bound.
    return {residual, 1.01 * 5 * unit_roundoff<T>(), 1};
  }
};

std::vector<target> rope_family(bool axial) {
  std::vector<target> t = {random_specs("rope", expectation::holds)};
  if (axial) t.push_back(random_specs("rope_nd", expectation::holds)), t.push_back(random_specs("mrope", expectation::holds));
  return t;
}

}  // namespace

void add_rope_properties(std::vector<property>& out) {
  out.push_back(on_implementations(make_property<norm_preservation>(
      "rope.norm_preservation", "rotation keeps lengths: each pair has y_a^2 + y_b^2 = attention_factor^2 (x_a^2 + x_b^2), pass-through dims unchanged",
      law_kind::identity, rope_family(true))));
  out.push_back(on_implementations(make_property<relative_inner_product>(
      "rope.relative_inner_product", "<R_m q, R_n k> = <R_(m-c) q, R_(n-c) k> with c = min(m, n): the score depends on positions only through n - m",
      law_kind::identity, rope_family(true)), call_lengths::differ));
  out.push_back(on_implementations(make_property<shift_invariance>("rope.shift_invariance",
                                                "<R_(m+t) q, R_(n+t) k> = <R_m q, R_n k> for every shift t",
                                                law_kind::identity, rope_family(true)), call_lengths::differ));
  out.push_back(make_property<composition>("rope.composition", "R_m^T R_n = R_(n-m), R_m R_n = R_(m+n) and R_0 = I",
                                           law_kind::identity, rope_family(true)));
  out.push_back(make_property<orthogonality>("rope.orthogonality",
                                             "R_p^T R_p = I and det R_p = 1: a product of plane rotations",
                                             law_kind::identity, rope_family(true)));
  out.push_back(on_implementations(make_property<linearity>("rope.linearity", "rotate(a x + b y) = a rotate(x) + b rotate(y)",
                                         law_kind::identity, rope_family(true))));
  out.push_back(make_property<layout_permutation>(
      "rope.layout_permutation",
      "gptj (2i, 2i+1) pairs are neox (i, i+r/2) pairs with the dims permuted: rotate_gptj(x) = P rotate_neox(P^-1 x)",
      law_kind::identity, {random_specs("rope", expectation::holds), random_specs("rope_nd", expectation::holds)}));
  out.push_back(make_property<matrix_equals_elementwise>(
      "rope.matrix_equals_elementwise", "the elementwise rotation equals attention_factor times the block-diagonal matrix R_p applied to x",
      law_kind::identity, rope_family(true)));
  out.push_back(make_property<long_term_decay>(
      "rope.long_term_decay",
      "RoFormer 3.4.3: |<R_m q, R_n k>| <= max_i |h_(i+1) - h_i| sum_j |S_j(m-n)| for every q, k; the mean bound falls with distance",
      law_kind::inequality, {random_specs("rope", expectation::holds), fixed_spec("rope(dim=128)", expectation::holds)}));
  out.push_back(on_implementations(make_property<kv_offset_consistency>(
      "rope.kv_offset_consistency", "rotating a chunk of tokens at offset o equals the same slice of rotating the whole sequence",
      law_kind::identity, rope_family(true)), call_lengths::differ));
  out.push_back(on_implementations(make_property<head_independence>(
      "rope.head_independence", "rotating all heads in one call equals rotating each head alone", law_kind::identity,
      rope_family(true))));
  out.push_back(make_property<rotation_direction>(
      "rope.rotation_direction",
      "R_p turns each pair counter-clockwise: R_p[b][a] = sin(p w) > 0 = -R_p[a][b] while 0 < p w < pi",
      law_kind::inequality, rope_family(true)));
  out.push_back(make_property<frequency_law>(
      "rope.frequency_law", "unscaled frequencies are base^(-2i/r): w_0 = 1 and each step divides by base^(2/r)",
      law_kind::identity,
      {random_specs("rope", "rope", expectation::holds, gen_rope_spec(rope_options{.scaling = "none"})),
       random_specs("rope_nd", expectation::holds), random_specs("mrope", expectation::holds)}));
  out.push_back(make_property<partial_passthrough>(
      "rope.partial_passthrough",
      "with rotary_dim < dim the tail passes through bit for bit and the head is rope(dim=rotary_dim) of it",
      law_kind::identity,
      {random_specs("rope", "rope", expectation::holds, gen_rope_spec(rope_options{.partial = true}))}));
}


namespace {

const family_registration rope_registration{30, add_rope_properties};
const spec_generator_registration rope_generator{"rope", [] { return gen_rope_spec(); }};

}  // namespace

}  // namespace pe::props
