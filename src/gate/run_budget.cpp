// An implementation held to budgets for all its calls together: wall time and stderr (see implementation.hpp).
#include <chrono>

#include <fmt/format.h>

#include "gate/implementation.hpp"
#include "gate/stderr_relay.hpp"

namespace pe::gate {
namespace {

// Once the calls have taken a budget, every later call fails at once, saying so: each call within
// its deadline is no bound on a run of thousands of calls, and the relay's cap on what is shown is
// no verdict. The call during which stderr passed its budget fails too, so that a run whose last
// call floods is no PASS.
class budgeted final : public implementation {
 public:
  budgeted(std::unique_ptr<implementation> inner, double seconds, std::uint64_t stderr_bytes)
      : inner_(std::move(inner)), seconds_(seconds), stderr_bytes_(stderr_bytes) {}
  std::string name() const override { return inner_->name(); }
  std::vector<std::string> layouts() const override { return inner_->layouts(); }
  std::vector<std::string> notes() const override {
    auto n = inner_->notes();
    const auto later = [](long count) { return fmt::format("{} later call{} failed without running", count, count == 1 ? "" : "s"); };
    if (time_refused_ > 0)
      n.push_back(fmt::format("the implementation's calls took {:.1f} s, past the run's time budget of {:g} s (--time-budget): {}", spent_, seconds_,
                              later(time_refused_)));
    if (stderr_over())
      n.push_back(fmt::format("the implementation wrote {} bytes to stderr, past the run's budget of {} (--stderr-budget-mib): the call "
                              "during which it passed it failed, and {}",
                              stderr_relay::bytes_written(), stderr_bytes_, later(stderr_refused_)));
    return n;
  }
  call_result run(const std::string& op, const std::string& spec, const std::vector<io_tensor>& inputs,
                  const std::vector<io_tensor>& outputs) override {
    if (spent_ >= seconds_) {
      ++time_refused_;
      return {call_status::timed_out, fmt::format("the run's time budget of {:g} s (--time-budget) was spent by earlier calls ({:.1f} s)", seconds_, spent_), {}};
    }
    if (stderr_over()) {
      ++stderr_refused_;
      return {call_status::error, fmt::format("earlier calls wrote past the run's stderr budget of {} bytes (--stderr-budget-mib)", stderr_bytes_), {}};
    }
    const auto start = std::chrono::steady_clock::now();
    call_result r = inner_->run(op, spec, inputs, outputs);
    spent_ += std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    stderr_relay::settle();
    if (stderr_over())
      return {call_status::error, fmt::format("the implementation's stderr passed the run's budget of {} bytes (--stderr-budget-mib) during this call",
                                              stderr_bytes_), {}};
    return r;
  }

 private:
  bool stderr_over() const { return stderr_relay::bytes_written() > stderr_bytes_; }
  std::unique_ptr<implementation> inner_;
  double seconds_;
  std::uint64_t stderr_bytes_;
  double spent_ = 0;
  long time_refused_ = 0, stderr_refused_ = 0;
};

}  // namespace

std::unique_ptr<implementation> within_run_budget(std::unique_ptr<implementation> inner, double seconds, std::uint64_t stderr_bytes) {
  return std::make_unique<budgeted>(std::move(inner), seconds, stderr_bytes);
}

}  // namespace pe::gate
