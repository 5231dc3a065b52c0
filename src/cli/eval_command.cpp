// `pecheck eval OP SPEC`: evaluates the reference at binary64 or at MPFR precision and prints it.
#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <memory>

#include <fmt/format.h>

#include "cli/commands.hpp"
#include "cli/attend_input.hpp"
#include "cli/output.hpp"
#include "cli/positions.hpp"
#include "pe/error.hpp"
#include "pe/mp.hpp"
#include "pe/ops.hpp"
#include "pe/scalar.hpp"
#include "pe/spec.hpp"

namespace pecheck {
namespace {

struct eval_options {
  std::string op;
  std::string spec;
  std::string pos;
  std::string x;
  std::string rel, qpos, kpos;
  std::string input;
  std::int64_t heads = 1;
  unsigned precision = 53;
  std::string format = "table";
};

constexpr unsigned max_mp_bits = 65536;

// --x: comma-separated binary64 values (decimal or C99 hex floats), each read to the nearest double.
std::vector<double> parse_values(const std::string& text) {
  std::vector<double> out;
  size_t start = 0;
  while (start <= text.size()) {
    const size_t comma = std::min(text.find(',', start), text.size());
    const std::string item = text.substr(start, comma - start);
    const auto v = parse_finite_double(item);
    if (!v) throw pe::input_error(fmt::format("--x: '{}' is not a finite number", item));
    out.push_back(*v);
    start = comma + 1;
  }
  return out;
}

// x [T, heads, dim] from --x: either all T*heads*dim values, or one dim-vector for every token and head.
pe::tensor<double> shape_x(const std::vector<double>& values, std::int64_t tokens, std::int64_t heads, std::int64_t dim) {
  pe::tensor<double> x({tokens, heads, dim});
  const auto n = static_cast<std::int64_t>(values.size());
  if (n == tokens * heads * dim) {
    x.data = values;
  } else if (n == dim) {
    for (size_t k = 0; k < x.data.size(); ++k) x.data[k] = values[k % static_cast<size_t>(dim)];
  } else {
    throw pe::input_error(fmt::format("--x has {} values; rotate needs dim={} (one vector for all) or T*H*D={}*{}*{}={}",
                                      n, dim, tokens, heads, dim, tokens * heads * dim));
  }
  return x;
}

// --pos for schemes with several position columns: rows separated by ';', each with one value
// per column ("0,0,0;1,2,3" for mrope's t, h, w).
std::vector<std::int64_t> parse_position_rows(const std::string& text, std::int64_t axes) {
  if (axes == 1) return parse_positions(text);
  std::vector<std::int64_t> out;
  size_t start = 0;
  while (start <= text.size()) {
    const size_t semi = std::min(text.find(';', start), text.size());
    const std::string row = text.substr(start, semi - start);
    const auto values = parse_positions(row);
    if (static_cast<std::int64_t>(values.size()) != axes) {
      throw pe::input_error(fmt::format("--pos row '{}' has {} values; this scheme reads {} per token (rows split by ';')",
                                        row, values.size(), axes));
    }
    out.insert(out.end(), values.begin(), values.end());
    start = semi + 1;
  }
  return out;
}

// One label per token: its position, or its position row joined by ','.
std::vector<std::string> token_labels(const std::vector<std::int64_t>& pos, std::int64_t axes) {
  std::vector<std::string> out;
  for (size_t t = 0; t + static_cast<size_t>(axes) <= pos.size(); t += static_cast<size_t>(axes)) {
    out.push_back(fmt::format("{}", fmt::join(pos.begin() + static_cast<std::ptrdiff_t>(t),
                                              pos.begin() + static_cast<std::ptrdiff_t>(t) + axes, ",")));
  }
  return out;
}

// The most values eval prints (each becomes a decimal string of up to ~20000 characters).
constexpr std::size_t max_printed_values = std::size_t{1} << 22;

template <class T>
eval_result evaluate(const eval_options& o, const pe::spec& s, const pe::op_inputs& in) {
  eval_result r{o.op, s.text(), o.precision, {}};
  for (auto& [name, t] : pe::run_op<T>(o.op, s, in)) {
    if (t.data.size() > max_printed_values) {
      throw pe::input_error(fmt::format("eval: {} has {} values; eval prints at most {}", name, t.data.size(), max_printed_values));
    }
    text_tensor out{name, t.shape, {}, "", {}};
    out.data.reserve(t.data.size());
    for (const auto& v : t.data) out.data.push_back(pe::to_decimal(v));
    if (o.op == "encode") {
      out.row_title = "pos";
      out.row_labels = token_labels(in.pos, in.pos_axes);
    } else if (o.op == "rotate") {
      out.row_title = "pos/head";
      for (const auto& p : token_labels(in.pos, in.pos_axes))
        for (std::int64_t h = 0; h < o.heads; ++h) out.row_labels.push_back(fmt::format("{}/{}", p, h));
    } else if (o.op == "matrix") {
      out.row_title = "row";
    } else if (o.op == "attend") {
      out.row_title = "query/head";
      for (std::int64_t i = 0; i < t.shape[0]; ++i)
        for (std::int64_t h = 0; h < t.shape[1]; ++h) out.row_labels.push_back(fmt::format("{}/{}", i, h));
    } else if (o.op == "bias") {
      out.row_title = "head/q";
      for (std::int64_t h = 0; h < t.shape[0]; ++h)
        for (const auto q : in.qpos) out.row_labels.push_back(fmt::format("{}/{}", h, q));
    }
    r.outputs.push_back(std::move(out));
  }
  return r;
}

int run_eval(const eval_options& o) {
  if (o.precision != 53 && (o.precision < 64 || o.precision > max_mp_bits)) {
    throw pe::input_error(fmt::format("--precision {}: use 53 (binary64) or 64..{} (MPFR)", o.precision, max_mp_bits));
  }
  const pe::spec s = pe::parse_spec_any(o.spec);
  const auto& ops = s.info().ops;
  if (std::find(ops.begin(), ops.end(), o.op) == ops.end()) {
    throw pe::spec_error(fmt::format("{}: op '{}' is not supported (ops: {})", s.scheme(), o.op, fmt::join(ops, ", ")));
  }
  pe::op_inputs in;
  if (o.op == "attend") {
    if (o.input.empty()) throw pe::input_error("eval attend: --input FILE.json is required (q, k, v, positions; see --help)");
    in.attend = read_attend_input(o.input, pe::position_axes(s));
  } else if (o.op == "bucket") {
    if (o.rel.empty()) throw pe::input_error("eval bucket: --rel is required (e.g. --rel -300:300)");
    in.rel = parse_positions(o.rel, "--rel");
  } else if (o.op == "bias") {
    if (o.qpos.empty() || o.kpos.empty()) throw pe::input_error("eval bias: --qpos and --kpos are required (e.g. --qpos 0:4 --kpos 0:4)");
    in.qpos = parse_positions(o.qpos, "--qpos");
    in.kpos = parse_positions(o.kpos, "--kpos");
  } else if (o.op != "inv_freq") {
    if (o.pos.empty()) throw pe::input_error(fmt::format("eval {}: --pos is required (e.g. --pos 0:3)", o.op));
    in.pos_axes = pe::position_axes(s);
    in.pos = parse_position_rows(o.pos, in.pos_axes);
  }
  if (o.op == "rotate") {
    if (o.x.empty()) throw pe::input_error("eval rotate: --x is required (one dim-vector, or T*H*D values)");
    if (o.heads < 1 || o.heads > 4096) throw pe::input_error(fmt::format("--heads {}: use 1..4096", o.heads));
    const std::int64_t dim = *pe::head_dim(s);
    in.x = shape_x(parse_values(o.x), static_cast<std::int64_t>(in.pos.size()) / in.pos_axes, o.heads, dim);
  }
  // Outputs whose size is known from the inputs are checked before any work is done.
  std::size_t known = 0;
  if (o.op == "bucket") known = in.rel.size();
  if (o.op == "bias") known = static_cast<std::size_t>(pe::required_heads(s).value_or(1)) * in.qpos.size() * in.kpos.size();
  if (known > max_printed_values) {
    throw pe::input_error(fmt::format("eval: {} would have {} values; eval prints at most {}", o.op, known, max_printed_values));
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
  auto* cmd = app.add_subcommand("eval", "Evaluate the reference: OP on SPEC, e.g. encode 'sinusoidal(dim=4)' --pos 0:3");
  cmd->add_option("op", o->op, "encode, inv_freq, rotate, matrix, bucket, bias or attend")
      ->required()
      ->check(CLI::IsMember({"encode", "inv_freq", "rotate", "matrix", "bucket", "bias", "attend"}));
  cmd->add_option("spec", o->spec, "the scheme, as spec text or its JSON twin")->required();
  cmd->add_option("--pos", o->pos, "positions: 0,1,2 or a half-open range a:b (or a mix)");
  cmd->add_option("--x", o->x, "rotate's input: T*H*D values row-major, or one D-vector for every token and head");
  cmd->add_option("--heads", o->heads, "heads H of x (default 1)");
  cmd->add_option("--rel", o->rel, "bucket's relative distances key - query: a list or range like -300:300");
  cmd->add_option("--qpos", o->qpos, "bias's query positions");
  cmd->add_option("--kpos", o->kpos, "bias's key positions");
  cmd->add_option("--input", o->input,
                  "attend's inputs as JSON: {\"q\": {\"shape\": [T,H,D], \"data\": [...]}, \"k\", \"v\", \"qpos\", "
                  "\"kpos\", \"causal\"}; absolute encodings take \"x\", \"wq\", \"wk\", \"wv\", \"heads\" instead of q, k, v");
  cmd->add_option("--precision", o->precision, "bits: 53 = binary64 (default); 64 and more = MPFR");
  cmd->add_option("--format", o->format, "table (default), json or csv")->check(CLI::IsMember({"table", "json", "csv"}));
  return [o] { return run_eval(*o); };
}

}  // namespace pecheck
