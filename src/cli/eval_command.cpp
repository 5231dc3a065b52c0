// `pecheck eval OP SPEC`: evaluates the reference at binary64 or at MPFR precision and prints it.
#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <memory>

#include <fmt/format.h>

#include "cli/commands.hpp"
#include "cli/input_file.hpp"
#include "cli/output.hpp"
#include "cli/positions.hpp"
#include "pe/error.hpp"
#include "pe/mp.hpp"
#include "pe/op_schema.hpp"
#include "pe/op_shapes.hpp"
#include "pe/op_tensors.hpp"
#include "pe/ops.hpp"
#include "pe/scheme.hpp"
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
  std::string role;
  std::string input;
  std::int64_t heads = 1;
  unsigned precision = 53;
  std::string format = "table";
};

constexpr unsigned max_mp_bits = 65536;
// The most values eval prints (each becomes a decimal string of up to ~20000 characters).
constexpr std::size_t max_printed_values = std::size_t{1} << 22;

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
pe::tensor<double> shape_x(const std::string& op, const std::vector<double>& values, std::int64_t tokens, std::int64_t heads, std::int64_t dim) {
  pe::tensor<double> x({tokens, heads, dim});
  const auto n = static_cast<std::int64_t>(values.size());
  if (n == tokens * heads * dim) {
    x.data = values;
  } else if (n == dim) {
    for (size_t k = 0; k < x.data.size(); ++k) x.data[k] = values[k % static_cast<size_t>(dim)];
  } else {
    throw pe::input_error(fmt::format("--x has {} values; {} needs dim={} (one vector for all) or T*H*D={}*{}*{}={}",
                                      n, op, dim, tokens, heads, dim, tokens * heads * dim));
  }
  return x;
}

// Positions for schemes with several position columns: rows separated by ';', each with one
// value per column ("0,0,0;1,2,3" for mrope's t, h, w).
std::vector<std::int64_t> parse_position_rows(const std::string& text, std::int64_t axes, const std::string& flag) {
  if (axes == 1) return parse_positions(text, flag);
  std::vector<std::int64_t> out;
  size_t start = 0;
  while (start <= text.size()) {
    const size_t semi = std::min(text.find(';', start), text.size());
    const std::string row = text.substr(start, semi - start);
    const auto values = parse_positions(row, flag);
    if (static_cast<std::int64_t>(values.size()) != axes) {
      throw pe::input_error(fmt::format("{} row '{}' has {} values; this scheme reads {} per token (rows split by ';')",
                                        flag, row, values.size(), axes));
    }
    out.insert(out.end(), values.begin(), values.end());
    start = semi + 1;
  }
  return out;
}

// The command-line option of each op input that has one (the CLI's spelling of the op table's
// names), and what to say when it is missing. Inputs without one (attend's) come from --input.
struct input_option {
  std::string_view name;
  std::string eval_options::*text;
  const char* needed;
};
const input_option input_options[] = {
    {"pos", &eval_options::pos, "--pos is required (e.g. --pos 0:3)"},
    {"rel", &eval_options::rel, "--rel is required (e.g. --rel -300:300)"},
    {"qpos", &eval_options::qpos, "--qpos and --kpos are required (e.g. --qpos 0:4 --kpos 0:4)"},
    {"kpos", &eval_options::kpos, "--qpos and --kpos are required (e.g. --qpos 0:4 --kpos 0:4)"},
    {"x", &eval_options::x, "--x is required (one dim-vector, or T*H*D values)"},
    {"role", &eval_options::role, "--role is required: 0 (query) or 1 (key)"},
};

const input_option* option_of(std::string_view name) {
  for (const auto& o : input_options)
    if (o.name == name) return &o;
  return nullptr;
}

// One input from its option: integers as a list (rows for positions), or the reals of --x as
// [T, H, D] with T the positions' rows, H from --heads and D the spec's head dim.
pe::op_tensor read_option(const eval_options& o, const pe::spec& s, const pe::tensor_schema& t, const pe::op_inputs& in) {
  const std::string& text = o.*(option_of(t.name)->text);
  if (t.kind != pe::element_kind::real) {
    auto values = parse_position_rows(text, t.shape.position_rows ? in.pos_axes : 1, "--" + std::string(t.name));
    if (t.shape.dims.empty()) {  // a scalar (role): one value
      if (values.size() != 1) throw pe::input_error(fmt::format("--{}: give one value, not {}", t.name, values.size()));
      return {std::string(t.name), {}, std::move(values)};
    }
    return {std::string(t.name), {static_cast<std::int64_t>(values.size())}, std::move(values)};
  }
  if (o.heads < 1 || o.heads > 4096) throw pe::input_error(fmt::format("--heads {}: use 1..4096", o.heads));
  auto x = shape_x(o.op, parse_values(text), static_cast<std::int64_t>(in.pos.size()) / in.pos_axes, o.heads, *pe::head_dim(s));
  return {std::string(t.name), std::move(x.shape), std::move(x.data)};
}

// The op's inputs on s: each from its option, integers before reals (x's tokens are --pos's
// rows), each group all present before any is parsed; or all from --input where some input has
// no option.
pe::op_inputs read_inputs(const eval_options& o, const pe::spec& s) {
  const auto inputs = pe::inputs_of(o.op, s, false);
  // An option the op does not read is a mistake (--role on rope, --x on encode), not something to
  // ignore; so is an option beside --input, which gives every input.
  for (const auto& opt : input_options) {
    if ((o.*(opt.text)).empty()) continue;
    if (!o.input.empty()) throw pe::input_error(fmt::format("eval {}: give the inputs in --input or as options, not both (--{})", o.op, opt.name));
    if (std::none_of(inputs.begin(), inputs.end(), [&](const pe::tensor_schema* t) { return t->name == opt.name; }))
      throw pe::input_error(fmt::format("eval {}: --{} is not an input of {} on {}", o.op, opt.name, o.op, s.scheme()));
  }
  if (!o.input.empty() || std::any_of(inputs.begin(), inputs.end(), [](const pe::tensor_schema* t) { return !option_of(t->name); })) {
    if (o.input.empty()) throw pe::input_error(fmt::format("eval {}: --input FILE.json is required (q, k, v, positions; see --help)", o.op));
    return read_input_file(o.input, o.op, s);
  }
  pe::op_inputs in;
  in.pos_axes = pe::position_axes(s);
  for (const bool reals : {false, true}) {
    std::vector<const pe::tensor_schema*> group;
    for (const auto* t : inputs)
      if ((t->kind == pe::element_kind::real) == reals) group.push_back(t);
    for (const auto* t : group)
      if ((o.*(option_of(t->name)->text)).empty()) throw pe::input_error(fmt::format("eval {}: {}", o.op, option_of(t->name)->needed));
    for (const auto* t : group) pe::store_input(*t, read_option(o, s, *t, in), in);
  }
  return in;
}

// Outputs whose size the inputs give are checked before any work is done.
void check_printable(const std::string& op, const pe::spec& s, const pe::op_inputs& in) {
  const auto outputs = pe::outputs_of(op, s);
  const auto shapes = pe::output_shapes(op, s, in);
  for (std::size_t k = 0; k < shapes.size(); ++k) {
    if (!shapes[k]) continue;
    std::size_t n = 1;
    for (const auto d : *shapes[k]) n *= static_cast<std::size_t>(d);
    if (n > max_printed_values) {
      throw pe::input_error(fmt::format("eval: {} would have {} values; eval prints at most {}", outputs[k]->name, n, max_printed_values));
    }
  }
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
  const pe::op_inputs in = read_inputs(o, s);
  check_printable(o.op, s, in);
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
  const auto ops = pe::op_names();
  cmd->add_option("op", o->op, fmt::format("{} or {}", fmt::join(ops.begin(), ops.end() - 1, ", "), ops.back()))
      ->required()
      ->check(CLI::IsMember(ops));
  cmd->add_option("spec", o->spec, "the scheme, as spec text or its JSON twin")->required();
  cmd->add_option("--pos", o->pos, "positions: 0,1,2 or a half-open range a:b (or a mix)");
  cmd->add_option("--x", o->x, "rotate's input: T*H*D values row-major, or one D-vector for every token and head");
  cmd->add_option("--heads", o->heads, "heads H of x (default 1)");
  cmd->add_option("--role", o->role, "rotate's role where the scheme scales queries and keys apart (xpos): 0 query, 1 key");
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
