// `pecheck eval OP SPEC`: evaluates the reference at binary64 or at MPFR precision and prints it.
#include <memory>

#include <fmt/format.h>

#include "cli/commands.hpp"
#include "cli/output.hpp"
#include "cli/positions.hpp"
#include "pe/encode.hpp"
#include "pe/error.hpp"
#include "pe/mp.hpp"
#include "pe/scalar.hpp"
#include "pe/spec.hpp"

namespace pecheck {
namespace {

struct eval_options {
  std::string op;
  std::string spec;
  std::string pos;
  unsigned precision = 53;
  std::string format = "table";
};

constexpr unsigned max_mp_bits = 65536;

template <class T>
eval_result evaluate(const eval_options& o, const pe::spec& s, const pe::op_inputs& in) {
  eval_result r{o.op, s.text(), o.precision, in.pos, {}};
  for (auto& [name, t] : pe::run_op<T>(o.op, s, in)) {
    text_tensor out{name, t.shape, {}};
    out.data.reserve(t.data.size());
    for (const auto& v : t.data) out.data.push_back(pe::to_decimal(v));
    r.outputs.push_back(std::move(out));
  }
  return r;
}

int run_eval(const eval_options& o) {
  if (o.precision != 53 && (o.precision < 64 || o.precision > max_mp_bits)) {
    throw pe::input_error(fmt::format("--precision {}: use 53 (binary64) or 64..{} (MPFR)", o.precision, max_mp_bits));
  }
  const pe::spec s = pe::parse_spec_any(o.spec);
  pe::op_inputs in;
  if (o.op == "encode") {
    if (o.pos.empty()) throw pe::input_error("eval encode: --pos is required (e.g. --pos 0:3)");
    in.pos = parse_positions(o.pos);
  }
  eval_result r;
  if (o.precision == 53) {
    r = evaluate<double>(o, s, in);
  } else {
    pe::mp_precision scope(o.precision);
    r = evaluate<pe::mp_real>(o, s, in);
  }
  // The whole output is formed before anything is printed: an error never leaves half a table.
  const std::string text = o.format == "json" ? format_json(r) : o.format == "csv" ? format_csv(r) : format_table(r);
  fmt::print("{}", text);
  return 0;
}

}  // namespace

std::function<int()> add_eval_command(CLI::App& app) {
  auto o = std::make_shared<eval_options>();
  auto* cmd = app.add_subcommand("eval", "Evaluate the reference: OP (encode) on SPEC, e.g. 'sinusoidal(dim=4)'");
  cmd->add_option("op", o->op, "the op: encode")->required()->check(CLI::IsMember({"encode"}));
  cmd->add_option("spec", o->spec, "the scheme, as spec text or its JSON twin")->required();
  cmd->add_option("--pos", o->pos, "positions: 0,1,2 or a half-open range a:b (or a mix)");
  cmd->add_option("--precision", o->precision, "bits: 53 = binary64 (default); 64 and more = MPFR");
  cmd->add_option("--format", o->format, "table (default), json or csv")->check(CLI::IsMember({"table", "json", "csv"}));
  return [o] { return run_eval(*o); };
}

}  // namespace pecheck
