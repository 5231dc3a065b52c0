// The property registry under GoogleTest: every law on every target meets its expectation, every id has a proof,
// K* and the ladder are right, and a deliberately broken reference is caught.
#include <cmath>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <regex>
#include <set>

#include <gtest/gtest.h>

#include "pe/scheme.hpp"
#include "properties/runner.hpp"
#include "properties/targets.hpp"

namespace pe::props {
namespace {

struct target_ref {
  const property* p;
  const target* t;
};

// How ctest lists a case: the law and its target, not sixteen bytes.
void PrintTo(const target_ref& r, std::ostream* os) { *os << r.p->id << " on " << r.t->label; }

std::vector<target_ref> every_target() {
  std::vector<target_ref> out;
  for (const auto& p : properties())
    for (const auto& t : p.targets) out.push_back({&p, &t});
  return out;
}

std::string test_name(const testing::TestParamInfo<target_ref>& info) {
  std::string name = info.param.p->id + "__" + info.param.t->label + "_" + std::to_string(info.index);
  for (auto& c : name)
    if (!std::isalnum(static_cast<unsigned char>(c))) c = '_';
  return name;
}

class every_law : public testing::TestWithParam<target_ref> {};

// The same registration `pecheck check` runs: 100 cases at the fixed default seed.
TEST_P(every_law, meets_its_expectation) {
  const auto& [p, t] = GetParam();
  const reference_backend<double> reference;
  const auto r = run_target(*p, *t, run_options{}, reference);
  EXPECT_TRUE(r.met) << p->id << " on " << t->label << ": expected " << expectation_name(t->expected) << ", observed "
                     << r.observed << "\n" << r.failure << "\n" << r.counterexample << "reproduce: " << r.reproduce;
  if (t->expected != expectation::fails) {
    EXPECT_EQ(r.cases, 100) << "every case ran (none discarded past the limit)";
  } else {
    EXPECT_FALSE(r.counterexample.empty()) << "a fails target shows its counterexample";
  }
}

INSTANTIATE_TEST_SUITE_P(registry, every_law, testing::ValuesIn(every_target()), test_name);

// The ids the properties issue fixes: each must be registered.
TEST(property_registry, has_every_required_id) {
  const std::vector<std::string> required = {
      "attention.permutation_equivariance", "attention.position_breaks_symmetry", "attention.causal_prefix_invariance",
      "absolute.four_term_expansion", "sinusoidal.linear_offset", "sinusoidal.dot_depends_on_offset", "sinusoidal.bounded",
      "sinusoidal.unique", "sinusoidal.monotonic_proximity", "integer.unbounded_norm", "normalized.length_dependence",
      "binary.jumpiness", "rope.norm_preservation", "rope.relative_inner_product", "rope.shift_invariance",
      "rope.composition", "rope.orthogonality", "rope.linearity", "rope.layout_permutation",
      "rope.matrix_equals_elementwise", "rope.long_term_decay", "rope.kv_offset_consistency", "rope.partial_passthrough",
      "rope.rotation_direction", "rope.frequency_law",
      "rope_nd.axis_separability", "mrope.text_reduces_to_rope", "scaling.linear_is_position_interpolation",
      "scaling.ntk_endpoints", "scaling.yarn_ramp", "scaling.llama3_continuity", "scaling.dynamic_reduces_below_original",
      "alibi.translation_invariance", "alibi.slopes_geometric", "t5.bucket_monotonic", "t5.translation_invariance",
      "txl.relative_only", "deberta.score_decomposition", "shaw.translation_invariance", "xpos.relative_inner_product",
      "xpos.centring_invariance", "xpos.long_term_decay"};
  std::set<std::string> ids;
  for (const auto& p : properties()) {
    EXPECT_TRUE(ids.insert(p.id).second) << "duplicate id " << p.id;
    EXPECT_FALSE(p.targets.empty()) << p.id;
  }
  for (const auto& id : required) EXPECT_TRUE(ids.count(id)) << id << " is not registered";
}

// Every property has proofs/<id>.md, and every proof of a law (not the precision.* notes)
// names a registered property.
TEST(property_registry, every_property_has_a_proof_and_every_proof_a_property) {
  const std::filesystem::path proofs = std::filesystem::path(PECHECK_SOURCE_DIR) / "proofs";
  std::set<std::string> ids;
  for (const auto& p : properties()) {
    ids.insert(p.id);
    EXPECT_TRUE(std::filesystem::exists(proofs / (p.id + ".md"))) << "no proofs/" << p.id << ".md";
  }
  for (const auto& entry : std::filesystem::directory_iterator(proofs)) {
    const std::string stem = entry.path().stem().string();
    // precision.* notes and the gate_* notes (its error model, its laws) are derivations of their own, not laws;
    // README is the folder's page (precision, and the index of the proofs).
    if (entry.path().extension() != ".md" || stem == "README" || stem.rfind("precision.", 0) == 0 || stem.rfind("gate_", 0) == 0) continue;
    EXPECT_TRUE(ids.count(stem)) << "proofs/" << stem << ".md names no registered property";
  }
}

// The README's count of law ids is the registry's (it said 37 while 48 were registered).
TEST(property_registry, the_readme_counts_every_law) {
  std::ifstream in(std::filesystem::path(PECHECK_SOURCE_DIR) / "README.md");
  const std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  std::smatch m;
  ASSERT_TRUE(std::regex_search(text, m, std::regex(R"(Every law in `properties/` \((\d+) ids)"))) << "README.md: no '(N ids' after 'Every law in `properties/`'";
  EXPECT_EQ(std::stoul(m[1].str()), properties().size()) << "README.md's count of law ids";
}

const property& find(const std::string& id) {
  for (const auto& p : properties())
    if (p.id == id) return p;
  throw std::logic_error("no property " + id);
}

// K* of the seed's d_model = 512 (base 10^4): phi(k) = sum_i cos(k 10000^(-2i/512)) falls for
// k = 0 .. 43 and rises from 43 to 44. Computed independently with mpmath at 40 digits:
// phi(43) = 134.75870026612541169..., phi(44) = 134.77035138939039052...
TEST(sinusoidal_monotonic_proximity, reports_k_star_43_for_d_model_512) {
  const auto& p = find("sinusoidal.monotonic_proximity");
  const reference_backend<double> reference;
  for (const auto& t : p.targets) {
    if (t.label.rfind("sinusoidal(dim=512", 0) != 0) continue;
    const auto r = run_target(p, t, run_options{.cases = 20}, reference);
    EXPECT_TRUE(r.met);
    EXPECT_EQ(r.bound, "K* = 43");
    return;
  }
  FAIL() << "no fixed d_model = 512 target";
}

// RoFormer's relative upper bound for rope(dim=128): its mean over each octave of distance
// falls through 2^13 (measured: 31.5 at distance 1 down to 4.46 at 2^13).
TEST(rope_long_term_decay, mean_bound_falls_through_octave_13_for_dim_128) {
  const auto& p = find("rope.long_term_decay");
  const reference_backend<double> reference;
  for (const auto& t : p.targets) {
    if (t.label.rfind("rope(dim=128", 0) != 0) continue;
    const auto r = run_target(p, t, run_options{.cases = 5}, reference);
    EXPECT_TRUE(r.met);
    EXPECT_NE(r.bound.find("falls through octave 2^13"), std::string::npos) << r.bound;
    EXPECT_EQ(r.bound.find("31.5 27.3 21 17.7"), r.bound.find(':') + 2) << r.bound;
    return;
  }
  FAIL() << "no fixed rope(dim=128) target";
}

// The ladder: an exact identity's relative residual falls like 2^-p from 53 to 512 bits.
TEST(exactness_ladder, identities_fall_like_two_to_the_minus_p) {
  for (const char* id : {"sinusoidal.linear_offset", "rope.composition", "rope.relative_inner_product", "alibi.slopes_geometric"}) {
    const auto& p = find(id);
    const auto l = run_ladder(p, p.targets.front(), run_options{.cases = 10});
    EXPECT_TRUE(l.held_to_ladder) << id;
    EXPECT_TRUE(l.met) << id << ": " << l.error;
    ASSERT_EQ(l.rungs.size(), 4u) << id;
    for (const auto& rung : l.rungs) EXPECT_LE(rung.relative_residual, std::ldexp(1.0, ladder_slack_bits - static_cast<int>(rung.bits))) << id;
    // Some residual is nonzero at 53 bits, so the ladder measures something.
    if (std::string(id) != "alibi.slopes_geometric") {
      EXPECT_GT(l.rungs[0].relative_residual, 0) << id;
    }
  }
}

// A near miss does not pass the ladder: a law whose residual is 2^-300 at every precision
// (an identity that is off by a tiny constant) fails at 512 bits.
template <class T>
struct off_by_a_constant {
  static measure run(const backend<T>&, const spec&) { return {std::ldexp(1.0, -300), 1, 1}; }
};
TEST(exactness_ladder, catches_a_near_miss) {
  const auto p = make_property<off_by_a_constant>("test.near_miss", "off by 2^-300", law_kind::identity,
                                                  {fixed_spec("none(dim=1)", expectation::holds)});
  const auto l = run_ladder(p, p.targets.front(), run_options{.cases = 3});
  EXPECT_FALSE(l.met);
  ASSERT_EQ(l.rungs.size(), 4u);
  EXPECT_EQ(l.rungs[3].relative_residual, std::ldexp(1.0, -300));
}

// Every law's MPFR body, judged by its own bound at 113 bits, holds where the binary64 run
// holds: the same body serves every precision (the ladder alone would not notice, it records).
TEST(exactness_ladder, every_law_holds_in_mpfr_by_its_own_bound) {
  const reference_backend<mp_real> reference;
  for (const auto& p : properties())
    for (const auto& t : p.targets) {
      if (t.expected == expectation::fails) continue;
      mp_precision scope(113);
      std::string failure;
      const auto result = run_rapidcheck(run_options{.cases = 10}, [&] {
        const measure m = p.in_mp(reference, parse_spec(*t.specs));
        if (!m.holds()) {
          failure = fmt::format("residual {} > bound {}", m.residual, m.bound);
          fail(failure);
        }
      });
      EXPECT_EQ(result.verdict, run_verdict::passed) << p.id << " on " << t.label << ": " << failure;
    }
}

// ---- A deliberately broken reference: one sign flipped ----

// The reference with the positions of some ops negated: a rotation by -p there, a sign flipped
// in sin.
class negated_positions : public reference_backend<double> {
 public:
  explicit negated_positions(std::set<std::string> ops) : ops_(std::move(ops)) {}
  std::vector<named_tensor<double>> run(std::string_view op, const spec& s, const op_inputs& in) const override {
    if (!ops_.count(std::string(op))) return reference_backend<double>::run(op, s, in);
    op_inputs flipped = in;
    for (auto& p : flipped.pos) p = -p;
    return reference_backend<double>::run(op, s, flipped);
  }

 private:
  std::set<std::string> ops_;
};

// encode with the sign of every cos flipped (sinusoidal).
class flipped_cos : public reference_backend<double> {
 public:
  std::vector<named_tensor<double>> run(std::string_view op, const spec& s, const op_inputs& in) const override {
    auto out = reference_backend<double>::run(op, s, in);
    if (op == "encode" && s.scheme() == "sinusoidal") {
      auto& pe = out[0].value;
      const auto dim = s.integer("dim");
      for (std::int64_t r = 0; r < pe.shape[0]; ++r)
        for (std::int64_t i = 0; i < dim / 2; ++i) {
          const auto c = s.choice("layout") == "interleaved" ? 2 * i + 1 : i + dim / 2;
          pe(r, c) = -pe(r, c);
        }
    }
    return out;
  }
};

std::set<std::string> caught_by(const backend<double>& broken, const std::string& scheme) {
  std::set<std::string> caught;
  for (const auto& p : properties())
    for (const auto& t : p.targets) {
      if (t.scheme != scheme || t.expected != expectation::holds) continue;
      // Caught means a counterexample found by the law, not an error on the way.
      if (run_target(p, t, run_options{.cases = 30}, broken).observed == "fails") caught.insert(p.id);
    }
  return caught;
}

TEST(broken_reference, a_flipped_sin_in_rotate_is_caught) {
  const auto caught = caught_by(negated_positions({"rotate"}), "rope");  // matrix left correct
  EXPECT_TRUE(caught.count("rope.matrix_equals_elementwise")) << "caught by " << caught.size() << " laws";
  // Norms, relative products and shifts survive a rotation by -p: those laws alone cannot see it.
  EXPECT_FALSE(caught.count("rope.norm_preservation"));
}

// The sign flipped everywhere (rotate and matrix both turn by -p): only the sign anchor sees it.
TEST(broken_reference, a_rotation_by_minus_p_everywhere_is_caught_by_the_sign_anchor) {
  const auto caught = caught_by(negated_positions({"rotate", "matrix"}), "rope");
  EXPECT_TRUE(caught.count("rope.rotation_direction"));
  EXPECT_FALSE(caught.count("rope.relative_inner_product"));  // blind to the convention, as derived
}

// A wrong base (rope_theta ignored: every frequency from base 10^4).
class ignores_the_base : public reference_backend<double> {
 public:
  std::vector<named_tensor<double>> run(std::string_view op, const spec& s, const op_inputs& in) const override {
    if (s.scheme() != "rope") return reference_backend<double>::run(op, s, in);
    auto j = s.json();
    j["base"] = 10000;
    return reference_backend<double>::run(op, parse_spec_json(j), in);
  }
};
TEST(broken_reference, an_ignored_base_is_caught_by_the_frequency_law) {
  const auto& p = find("rope.frequency_law");
  const auto r = run_target(p, p.targets.front(), run_options{.cases = 50}, ignores_the_base{});
  EXPECT_EQ(r.observed, "fails");
}

TEST(broken_reference, a_flipped_cos_in_sinusoidal_is_caught) {
  const auto caught = caught_by(flipped_cos{}, "sinusoidal");
  EXPECT_TRUE(caught.count("sinusoidal.linear_offset"));
}

// xPos with the roles swapped: queries scaled by zeta^(-p/sb), keys by zeta^(p/sb).
class xpos_roles_swapped : public reference_backend<double> {
 public:
  std::vector<named_tensor<double>> run(std::string_view op, const spec& s, const op_inputs& in) const override {
    op_inputs swapped = in;
    if (op == "rotate" && in.role >= 0) swapped.role = 1 - in.role;
    return reference_backend<double>::run(op, s, swapped);
  }
};
TEST(broken_reference, xpos_roles_swapped_are_caught_by_the_decay_alone) {
  const auto caught = caught_by(xpos_roles_swapped{}, "xpos");
  EXPECT_TRUE(caught.count("xpos.long_term_decay"));
  EXPECT_FALSE(caught.count("xpos.relative_inner_product"));  // the scales still meet as a function of m - n, as derived
}

// xPos's per-pair scales concatenated [z_0 .. z_(P-1), z_0 .. z_(P-1)] over interleaved pairs
// (rotary-embedding-torch before its PR #34): dim d gets pair (d mod P)'s scale, not pair d/2's.
class xpos_scales_concatenated : public reference_backend<double> {
 public:
  std::vector<named_tensor<double>> run(std::string_view op, const spec& s, const op_inputs& in) const override {
    auto out = reference_backend<double>::run(op, s, in);
    if (op != "rotate" || s.choice("layout") != "gptj") return out;
    const auto plan = rotation_plan_of(s, std::nullopt);
    const auto& g = *plan.magnitude;
    const std::int64_t dim = s.integer("dim"), pairs = dim / 2, rows = in.x.shape[0] * in.x.shape[1];
    const double sign = in.role == 0 ? 1 : -1;
    for (std::int64_t r = 0; r < rows; ++r) {
      const double p = static_cast<double>(in.pos[static_cast<std::size_t>(r / in.x.shape[1])]);
      for (std::int64_t d = 0; d < dim; ++d) {
        const int wrong = static_cast<int>(d % pairs), right = static_cast<int>(d / 2);
        out[0].value.data[static_cast<std::size_t>(r * dim + d)] *= std::exp(sign * p / g.scale_base * (g.log_zeta<double>(wrong) - g.log_zeta<double>(right)));
      }
    }
    return out;
  }
};
TEST(broken_reference, xpos_scales_concatenated_over_interleaved_pairs_are_caught) {
  const auto caught = caught_by(xpos_scales_concatenated{}, "xpos");
  EXPECT_TRUE(caught.count("xpos.relative_inner_product"));
  EXPECT_TRUE(caught.count("xpos.centring_invariance"));
}

// An implementation that throws is an error, never a counterexample: a fails target is not met by it.
class throws_on_attend : public reference_backend<double> {
 public:
  std::vector<named_tensor<double>> run(std::string_view op, const spec& s, const op_inputs& in) const override {
    if (op == "attend") throw std::out_of_range("attend fell over\non two lines");
    return reference_backend<double>::run(op, s, in);
  }
};
TEST(runner, an_exception_is_an_error_not_a_counterexample) {
  const auto& p = find("attention.permutation_equivariance");
  for (const auto& t : p.targets) {
    if (t.expected != expectation::fails) continue;
    const auto r = run_target(p, t, run_options{.cases = 5}, throws_on_attend{});
    EXPECT_EQ(r.observed, "error") << t.label;
    EXPECT_FALSE(r.met) << t.label;
    EXPECT_EQ(r.failure, "error: attend fell over;on two lines") << t.label;
    break;
  }
}

// Runs repeat: the same seed gives the same verdict and the same counterexample.
TEST(runner, is_deterministic_for_a_seed) {
  const auto& p = find("attention.permutation_equivariance");
  const reference_backend<double> reference;
  const auto& t = p.targets.at(1);
  const auto a = run_target(p, t, run_options{.cases = 50, .seed = 7}, reference);
  const auto b = run_target(p, t, run_options{.cases = 50, .seed = 7}, reference);
  EXPECT_EQ(a.observed, "fails");
  EXPECT_EQ(a.counterexample, b.counterexample);
  EXPECT_NE(a.reproduce.find("--seed 7"), std::string::npos);
}

}  // namespace
}  // namespace pe::props
