// Tests of src/audit/diagnose.hpp: the reference is as asked; an implementation that rotates the window at the end of
// the head is named so; the sentence and the JSON say it.
#include "audit/diagnose.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <memory>
#include <string>

#include "gate/op_io.hpp"
#include "pe/ops.hpp"

namespace pe::audit {
namespace {

// rope(dim=D, rotary_dim=R) that rotates the last R dims (the reference at dim = R on them) and
// passes the first D - R through: a partial-rotary kernel with its window at the wrong end.
class window_at_the_end final : public gate::implementation {
 public:
  std::string name() const override { return "window at the end"; }
  gate::call_result run(const std::string& op, const std::string& spec_text, const std::vector<gate::io_tensor>& inputs,
                        const std::vector<gate::io_tensor>& outputs) override {
    const spec s = parse_spec(spec_text);
    const op_inputs in = gate::op_inputs_of(op, s, inputs);
    const std::int64_t dim = s.integer("dim"), rotary = s.integer("rotary_dim"), rows = in.x.shape.at(0) * in.x.shape.at(1);
    op_inputs tail = in;
    tail.x = tensor<double>({in.x.shape.at(0), in.x.shape.at(1), rotary});
    for (std::int64_t r = 0; r < rows; ++r)
      for (std::int64_t d = 0; d < rotary; ++d) tail.x.data[r * rotary + d] = in.x.data[r * dim + dim - rotary + d];
    const auto y_tail = run_op<double>("rotate", parse_spec(fmt::format("rope(dim={}, base={})", rotary, s.real("base"))), tail).at(0).value;
    tensor<double> y = in.x;
    for (std::int64_t r = 0; r < rows; ++r)
      for (std::int64_t d = 0; d < rotary; ++d) y.data[r * dim + dim - rotary + d] = y_tail.data[r * rotary + d];
    gate::call_result result;
    result.outputs = {gate::real_tensor("y", outputs.at(0).type, y)};
    return result;
  }
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

TEST(diagnose, a_window_at_the_end_of_the_head_is_named) {
  window_at_the_end impl;
  diagnose_request q;
  q.spec = "rope(dim=64, rotary_dim=16)";
  const auto d = diagnose(q, impl);
  ASSERT_FALSE(d.ranked.empty());
  EXPECT_EQ(d.ranked[0].name, "rotary window at the end");
  EXPECT_LE(d.ranked[0].residual, 1);
  EXPECT_FALSE(d.as_asked());
  EXPECT_NE(d.sentence().find("rotating dims 48..63 (the window at the end) although rope(dim=64"), std::string::npos) << d.sentence();
  const auto j = d.json();
  EXPECT_EQ(j["best"], "rotary window at the end");
  EXPECT_EQ(j["ranking"][0]["name"], "rotary window at the end");
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
