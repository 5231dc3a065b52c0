// What the gate's checks share (see check_support.hpp): a scheme's ops, and one case run and compared with the exact reference (MPFR).
#include "gate/check_support.hpp"

#include <algorithm>
#include <cmath>

#include <fmt/format.h>

#include "gate/gate_ops.hpp"
#include "gate/op_io.hpp"
#include "pe/mp.hpp"
#include "pe/op_schema.hpp"
#include "pe/scheme.hpp"
#include "pe/ulp.hpp"

namespace pe::gate {

std::vector<std::string> ops_for(const spec& s) {
  const auto& gaps = behaviour_of(s).gate_gaps;
  std::vector<std::string> out;
  for (const auto& op : s.info().ops) {
    const bool gap = std::any_of(gaps.begin(), gaps.end(), [&](const auto& g) { return g.first == op; });
    const op_schema* schema = find_op_schema(op);
    if (schema && !schema->reference_only && !gap) out.push_back(op);
  }
  const auto leading = std::find_if(out.begin(), out.end(), [](const std::string& op) { return gate_op_of(op).leads; });
  if (leading != out.end()) std::rotate(out.begin(), leading, leading + 1);
  return out;
}

outcome run_case(implementation& impl, const std::string& op, const spec& s, const op_inputs& drawn, const error_model& m) {
  outcome r;
  const op_inputs in = rounded_inputs(op, s, drawn, m.io, m.tables);
  // The implementation first: the exact reference (MPFR) is the expensive part, and an
  // unsupported or failed call does not need it.
  const call_result got = impl.run(op, s.text(), io_inputs(op, s, in, m.io, m.tables), output_templates(op, s, in, m.io));
  r.status = got.status;
  r.process_replaced = got.process_replaced;
  r.message = got.message;
  if (got.status != call_status::ok) {
    r.within = false;
    return r;
  }
  std::vector<named_tensor<mp_real>> exact;
  {
    mp_precision scope(160);
    exact = run_op<mp_real>(op, s, in);
  }
  std::vector<named_tensor<double>> exact_d;
  for (const auto& e : exact) {
    tensor<double> t(e.value.shape);
    for (std::size_t k = 0; k < t.data.size(); ++k) t.data[k] = e.value.data[k].convert_to<double>();
    exact_d.push_back({e.name, std::move(t)});
  }
  const auto bounds = output_bounds(m, op, s, in, exact_d);
  for (std::size_t o = 0; o < exact.size(); ++o) {
    // Integer outputs (bucket) come back as int64: exact in binary64.
    const float_format& fmt = output_kind(op, s, exact[o].name) == element_kind::real ? dtype_format(m.io) : binary64;
    // Errors in ulps of the output's scale (its largest exact value): a rotation can cancel an
    // element far below its inputs, where ulps at the element itself mean nothing.
    double scale = 0;
    for (const auto& x : exact_d[o].value.data) scale = std::max(scale, std::abs(x));
    const double ulp_of_scale = scale > 0 ? ulp_in_format(scale, fmt) : ulp_in_format(std::ldexp(1.0, fmt.emin), fmt);
    for (std::int64_t e = 0; e < got.outputs[o].elements(); ++e) {
      const double v = got.outputs[o].at(e);
      const mp_real& x = exact[o].value.data[static_cast<std::size_t>(e)];
      const std::string where = fmt::format("{}[{}]", exact[o].name, e);
      // Where the exact value overflows the I/O dtype (an ALiBi bias of 5e5 in fp16), the
      // correctly rounded answer is that infinity, and only it.
      const double exact_in_dtype = round_to_format(exact_d[o].value.data[static_cast<std::size_t>(e)], fmt);
      if (!std::isfinite(exact_in_dtype) || !std::isfinite(v)) {
        if (v == exact_in_dtype) continue;
        r.within = false;
        r.status = call_status::bad_output;
        r.message = fmt::format("{} = {} where the exact value {} is {} in {}", where, v, x.convert_to<double>(), exact_in_dtype, fmt.name);
        return r;
      }
      mp_precision scope(160);
      const double err = mp_real(abs(mp_real(v) - x)).convert_to<double>();
      const double bound = bounds[o][static_cast<std::size_t>(e)];
      const double fraction = bound > 0 ? err / bound : (err > 0 ? INFINITY : 0);
      const double ulps = err / ulp_of_scale;
      if (fraction > r.worst_fraction) {
        r.worst_fraction = fraction, r.where = where;
        r.message = fmt::format("{} = {:.9g}, exact {:.17g}: error {:.3g} ({:.3g} ulp of the output's scale), bound {:.3g}", where, v, x.convert_to<double>(),
                                err, ulps, bound);
      }
      r.worst_ulps = std::max(r.worst_ulps, ulps);
      if (!(fraction <= 1)) r.within = false;
    }
  }
  return r;
}

}  // namespace pe::gate
