// Tests of src/audit/diagnose.hpp: the reference is as asked; an implementation that rotates the window at the end of
// the head is named so, in binary64 or binary32; NaN outputs are named by where they fall; the sentence and the JSON say it.
#include "audit/diagnose.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <functional>
#include <memory>
#include <string>

#include "gate/op_io.hpp"
#include "pe/float_format.hpp"
#include "pe/ops.hpp"
#include "pe/scheme.hpp"

namespace pe::audit {
namespace {

// rope(dim=D, rotary_dim=R) that rotates the last R dims and passes the first D - R through: a
// partial-rotary kernel with its window at the wrong end. In binary64 (the reference at dim = R on
// them), or as a binary32 kernel computes it (angles, cos, sin and products in float, NeoX pairs).
class window_at_the_end final : public gate::implementation {
 public:
  explicit window_at_the_end(bool binary32 = false) : binary32_(binary32) {}
  std::string name() const override { return "window at the end"; }
  gate::call_result run(const std::string& op, const std::string& spec_text, const std::vector<gate::io_tensor>& inputs,
                        const std::vector<gate::io_tensor>& outputs) override {
    const spec s = parse_spec(spec_text);
    const op_inputs in = gate::op_inputs_of(op, s, inputs);
    const std::int64_t dim = s.integer("dim"), rotary = s.integer("rotary_dim"), heads = in.x.shape.at(1), rows = in.x.shape.at(0) * heads;
    op_inputs tail = in;
    tail.x = tensor<double>({in.x.shape.at(0), heads, rotary});
    for (std::int64_t r = 0; r < rows; ++r)
      for (std::int64_t d = 0; d < rotary; ++d) tail.x.data[r * rotary + d] = in.x.data[r * dim + dim - rotary + d];
    auto y_tail = run_op<double>("rotate", parse_spec(fmt::format("rope(dim={}, base={})", rotary, s.real("base"))), tail).at(0).value;
    if (binary32_)
      for (std::int64_t r = 0; r < rows; ++r)
        for (std::int64_t i = 0; i < rotary / 2; ++i) {
          const float w = std::pow(static_cast<float>(s.real("base")), -2.0f * static_cast<float>(i) / static_cast<float>(rotary));
          const float angle = static_cast<float>(in.pos[static_cast<std::size_t>(r / heads)]) * w, c = std::cos(angle), sn = std::sin(angle);
          const float a = static_cast<float>(tail.x.data[r * rotary + i]), b = static_cast<float>(tail.x.data[r * rotary + i + rotary / 2]);
          y_tail.data[r * rotary + i] = a * c - b * sn, y_tail.data[r * rotary + i + rotary / 2] = b * c + a * sn;
        }
    tensor<double> y = in.x;
    for (std::int64_t r = 0; r < rows; ++r)
      for (std::int64_t d = 0; d < rotary; ++d) y.data[r * dim + dim - rotary + d] = y_tail.data[r * rotary + d];
    gate::call_result result;
    result.outputs = {gate::real_tensor("y", outputs.at(0).type, y)};
    return result;
  }

 private:
  bool binary32_;
};

// The reference with NaN written where `bad(position, pair frequency)` holds, in every rotated pair.
class nan_where final : public gate::implementation {
 public:
  explicit nan_where(std::function<bool(std::int64_t, double)> bad) : bad_(std::move(bad)) {}
  std::string name() const override { return "NaN where"; }
  gate::call_result run(const std::string& op, const std::string& spec_text, const std::vector<gate::io_tensor>& inputs,
                        const std::vector<gate::io_tensor>& outputs) override {
    gate::call_result r = reference_->run(op, spec_text, inputs, outputs);
    const spec s = parse_spec(spec_text);
    const op_inputs in = gate::op_inputs_of(op, s, inputs);
    const auto plan = rotation_plan_of(s, std::nullopt);
    auto y = gate::as_doubles(r.outputs.at(0));
    const std::int64_t heads = y.shape.at(1), dim = y.shape.at(2);
    for (std::int64_t t = 0; t < y.shape.at(0); ++t)
      for (std::size_t k = 0; k < plan.pairs.size(); ++k)
        if (bad_(in.pos[static_cast<std::size_t>(t)], plan.freq.omega<double>(static_cast<int>(k))))
          for (std::int64_t h = 0; h < heads; ++h) y.data[static_cast<std::size_t>((t * heads + h) * dim + plan.pairs[k].a)] = NAN;
    r.outputs.at(0) = gate::real_tensor(r.outputs.at(0).name, r.outputs.at(0).type, y);
    return r;
  }

 private:
  std::function<bool(std::int64_t, double)> bad_;
  std::unique_ptr<gate::implementation> reference_ = gate::reference_implementation();
};

// The reference, but the last element of its first answer is NaN.
class one_nan_at_the_end final : public gate::implementation {
 public:
  std::string name() const override { return "one NaN at the end"; }
  gate::call_result run(const std::string& op, const std::string& spec_text, const std::vector<gate::io_tensor>& inputs,
                        const std::vector<gate::io_tensor>& outputs) override {
    gate::call_result r = reference_->run(op, spec_text, inputs, outputs);
    if (r.status == gate::call_status::ok && calls_++ == 0) {
      auto y = gate::as_doubles(r.outputs.at(0));
      y.data.back() = NAN;
      r.outputs.at(0) = gate::real_tensor(r.outputs.at(0).name, r.outputs.at(0).type, y);
    }
    return r;
  }

 private:
  std::unique_ptr<gate::implementation> reference_ = gate::reference_implementation();
  int calls_ = 0;
};

TEST(diagnose, the_reference_computes_what_was_asked) {
  auto reference = gate::reference_implementation();
  for (const char* spec : {"rope(dim=64, rotary_dim=16)", "rope(dim=32, scaling=yarn(factor=4, original_max=2048))", "sinusoidal(dim=32)", "alibi(heads=12)", "t5()"})
    for (const char* dtype : {"f32", "bf16"}) {
      diagnose_request q;
      q.spec = spec, q.dtype = dtype;
      const auto d = diagnose(q, *reference);
      EXPECT_TRUE(d.as_asked()) << spec << " " << dtype << ": " << d.sentence();
      EXPECT_GT(d.elements, 0);
    }
}

// In binary64 and as a binary32 kernel computes it: the variant's bound is the spec's own on the
// dims it turns (a bound taken on the asked window's dims, where the pass-through's exact copy is,
// put a binary32 kernel's residual at 1e5).
TEST(diagnose, a_window_at_the_end_of_the_head_is_named) {
  for (const bool binary32 : {false, true}) {
    window_at_the_end impl(binary32);
    diagnose_request q;
    q.spec = "rope(dim=64, rotary_dim=16)";
    const auto d = diagnose(q, impl);
    ASSERT_FALSE(d.ranked.empty());
    EXPECT_EQ(d.ranked[0].name, "rotary window at the end") << binary32;
    EXPECT_LE(d.ranked[0].residual, 1) << binary32;
    EXPECT_FALSE(d.as_asked());
    EXPECT_EQ(d.sentence().rfind("not as asked: the rotary window at the head's end (dims 48..63), not its start (residual ", 0), 0u) << d.sentence();
    const auto j = d.json();
    EXPECT_EQ(j["best"], "rotary window at the end");
    EXPECT_EQ(j["ranking"][0]["name"], "rotary window at the end");
    EXPECT_EQ(j["ranking"][0]["words"], d.ranked[0].words);
    EXPECT_NE(j["ranking"][0]["computes"].get<std::string>().find("rope(dim=64"), std::string::npos);  // the spec text stays in the JSON
  }
}

// NaN at position 0 only (a 0 / 0 in a polar form): named by where it is, the rest as asked.
TEST(diagnose, nan_at_position_0_only_is_named) {
  nan_where impl([](std::int64_t p, double) { return p == 0; });
  diagnose_request q;
  q.spec = "rope(dim=64)";
  const auto d = diagnose(q, impl);
  EXPECT_FALSE(d.as_asked());
  EXPECT_EQ(d.sentence().rfind("NaN or infinite outputs at position 0 only; elsewhere: what was asked (residual ", 0), 0u) << d.sentence();
  EXPECT_EQ(d.json()["non_finite_at"], "NaN or infinite outputs at position 0 only");
}

// Angles p w computed in f16 overflow from 65520 on: NaN in the pairs where they do.
TEST(diagnose, angles_overflowing_f16_are_named) {
  nan_where impl([](std::int64_t p, double w) { return std::isinf(round_to_format(static_cast<double>(p) * w, binary16)); });
  diagnose_request q;
  q.spec = "rope(dim=64)";
  const auto d = diagnose(q, impl);
  EXPECT_FALSE(d.as_asked());
  EXPECT_EQ(d.sentence().rfind("angles p*w overflow in f16 (past 65504): NaN or infinite outputs from position 65535 on", 0), 0u) << d.sentence();
  EXPECT_LE(d.sentence().size(), sentence_columns);
}

// One NaN among hundreds of elements is under the 99th percentile the residual reads, yet a NaN is
// never what was asked: the diagnosis says so and is not as asked (diagnose exits 1).
TEST(diagnose, a_nan_output_is_never_as_asked) {
  one_nan_at_the_end impl;
  diagnose_request q;
  q.spec = "rope(dim=64)";
  const auto d = diagnose(q, impl);
  EXPECT_EQ(d.non_finite, 1);
  EXPECT_GT(d.elements, 100);
  EXPECT_FALSE(d.as_asked()) << d.sentence();
  EXPECT_NE(d.sentence().find("1 of " + std::to_string(d.elements) + " output elements are NaN or infinite"), std::string::npos) << d.sentence();
  EXPECT_EQ(d.json()["non_finite"], 1);
}

}  // namespace
}  // namespace pe::audit
