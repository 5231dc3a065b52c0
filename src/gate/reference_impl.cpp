// pecheck's own reference as an implementation under test (`pecheck gate --impl-reference`): run_op at the
// I/O dtype, in process. It is the project's own float path put through the gate, and the baseline of --bench.
#include <fmt/format.h>

#include "gate/implementation.hpp"
#include "gate/op_io.hpp"
#include "pe/error.hpp"
#include "pe/ops.hpp"
#include "pe/spec.hpp"

namespace pe::gate {
namespace {

class reference_impl final : public implementation {
 public:
  std::string name() const override { return "pecheck reference (in process)"; }
  bool in_process() const override { return true; }

  call_result run(const std::string& op, const std::string& spec_text, const std::vector<io_tensor>& inputs,
                  const std::vector<io_tensor>& outputs) override {
    call_result r;
    try {
      const spec s = parse_spec(spec_text);
      // The inputs by the op table's names; T5's table is checked but not read: the reference has its own.
      const op_inputs in = op_inputs_of(op, s, inputs);
      // The outputs' real dtype is the one to compute in (f64 when there is none: buckets).
      dtype real = dtype::f64;
      for (const auto& t : outputs)
        if (is_real(t.type)) real = t.type;
      r.outputs = outputs;
      const auto store = [&](const auto& results) {
        for (auto& o : r.outputs)
          for (const auto& res : results) {
            if (res.name != o.name) continue;
            tensor<double> values(res.value.shape);
            for (std::size_t k = 0; k < values.data.size(); ++k) values.data[k] = static_cast<double>(res.value.data[k]);
            if (is_real(o.type)) o = real_tensor(o.name, o.type, values);
            else o = integer_tensor(o.name, o.shape, [&] {
                std::vector<std::int64_t> v;
                for (const double d : values.data) v.push_back(static_cast<std::int64_t>(d));
                return v;
              }());
          }
      };
      switch (real) {
        case dtype::f32: store(run_op<float>(op, s, in)); break;
        case dtype::f16: store(run_op<fp16>(op, s, in)); break;
        case dtype::bf16: store(run_op<bf16>(op, s, in)); break;
        default: store(run_op<double>(op, s, in)); break;
      }
    } catch (const spec_error& e) {
      r.status = call_status::unsupported;
      r.message = e.what();
    } catch (const input_error& e) {
      r.status = call_status::error;
      r.message = e.what();
    }
    return r;
  }
};

}  // namespace

std::unique_ptr<implementation> reference_implementation() { return std::make_unique<reference_impl>(); }

}  // namespace pe::gate
