// An implementation held to a budget of wall time for all its calls together (see implementation.hpp).
#include <chrono>

#include <fmt/format.h>

#include "gate/implementation.hpp"

namespace pe::gate {
namespace {

// Once the calls have taken the budget, every later call fails at once, saying so: each call
// within its deadline is no bound on a run of thousands of calls.
class time_limited final : public implementation {
 public:
  time_limited(std::unique_ptr<implementation> inner, double budget_seconds) : inner_(std::move(inner)), budget_(budget_seconds) {}
  std::string name() const override { return inner_->name(); }
  std::vector<std::string> notes() const override {
    auto n = inner_->notes();
    if (refused_ > 0) {
      n.push_back(fmt::format("the implementation's calls took {:.1f} s, past the run's time budget of {:g} s (--time-budget): {} later call{} "
                              "failed without running",
                              spent_, budget_, refused_, refused_ == 1 ? "" : "s"));
    }
    return n;
  }
  call_result run(const std::string& op, const std::string& spec, const std::vector<io_tensor>& inputs,
                  const std::vector<io_tensor>& outputs) override {
    if (spent_ >= budget_) {
      ++refused_;
      return {call_status::timed_out, fmt::format("the run's time budget of {:g} s (--time-budget) was spent by earlier calls ({:.1f} s)", budget_, spent_), {}};
    }
    const auto start = std::chrono::steady_clock::now();
    call_result r = inner_->run(op, spec, inputs, outputs);
    spent_ += std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    return r;
  }

 private:
  std::unique_ptr<implementation> inner_;
  double budget_;
  double spent_ = 0;
  long refused_ = 0;
};

}  // namespace

std::unique_ptr<implementation> within_time_budget(std::unique_ptr<implementation> inner, double budget_seconds) {
  return std::make_unique<time_limited>(std::move(inner), budget_seconds);
}

}  // namespace pe::gate
