// `pecheck eval OP SPEC`: evaluates the reference at binary64 or at MPFR precision and prints it (or writes it to --output).
#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <limits>
#include <memory>

#include <sys/stat.h>

#include <fmt/format.h>

#include "cli/commands.hpp"
#include "cli/command_support.hpp"
#include "cli/vocabulary.hpp"
#include "cli/eval_stream.hpp"
#include "cli/input_file.hpp"
#include "cli/output.hpp"
#include "cli/output_target.hpp"
#include "cli/positions.hpp"
#include "pe/error.hpp"
#include "pe/limits.hpp"
#include "pe/mp.hpp"
#include "pe/op_shapes.hpp"
#include "pe/op_schema.hpp"
#include "pe/op_tensors.hpp"
#include "pe/ops.hpp"
#include "pe/scheme.hpp"
#include "pe/spec.hpp"

namespace pecheck {
namespace {

struct eval_options {
  std::string op;
  std::string spec;
  std::string pos;
  std::string x, dy, q, k;
  std::string rel, qpos, kpos;
  std::string role;
  std::string input;
  std::int64_t heads = 1;
  std::int64_t kv_heads = 1;  // rotate_qk's k heads (grouped-query attention: fewer than q's)
  unsigned precision = 53;
  std::string format = "table";
  std::string output;
  std::int64_t chunk_tokens = 0;
};

constexpr unsigned max_mp_bits = 65536;

// --x or --dy (flag): comma-separated binary64 values (decimal or C99 hex floats), each read to the nearest double.
std::vector<double> parse_values(const std::string& text, const std::string& flag) {
  const auto count = static_cast<std::uint64_t>(std::count(text.begin(), text.end(), ',')) + 1;
  pe::check_limit(pe::limit::list, count, flag + ": values");
  std::vector<double> out;
  out.reserve(count);
  size_t start = 0;
  while (start <= text.size()) {
    const size_t comma = std::min(text.find(',', start), text.size());
    const std::string item = text.substr(start, comma - start);
    const auto v = parse_finite_double(item);
    if (!v) throw pe::input_error(fmt::format("{}: '{}' is not a finite number", flag, pe::excerpt(item)));
    out.push_back(*v);
    start = comma + 1;
  }
  return out;
}

// Rows [T, heads, dim] (rotate's x, rotate_grad's dy, rotate_qk's q and k) from their option:
// either all T*heads*dim values, or one dim-vector for every token and head. For the input held in
// op_inputs::x that vector stays one row (into c.x_row; eval_call says why) with the shape in c.in;
// another (rotate_qk's k) is filled out.
void read_x(const std::string& op, std::vector<double> values, std::int64_t tokens, std::int64_t heads, std::int64_t dim,
            const pe::tensor_schema& t, eval_call& c) {
  const auto n = static_cast<std::int64_t>(values.size());
  if (n != tokens * heads * dim && n != dim) {
    throw pe::input_error(fmt::format("--{} has {} values; {} needs dim={} (one vector for all) or T*H*D={}*{}*{}={}",
                                      t.name, n, op, dim, tokens, heads, dim, tokens * heads * dim));
  }
  std::vector<double> full;
  pe::op_inputs probe;
  const auto field = t.field(probe);
  const bool held_in_x = std::holds_alternative<pe::tensor<double>*>(field) && std::get<pe::tensor<double>*>(field) == &probe.x;
  if (n == tokens * heads * dim) full = std::move(values);
  else if (held_in_x) c.x_row = std::move(values);
  else full = broadcast_x(values, tokens, heads).data;
  pe::store_input(t, {std::string(t.name), {tokens, heads, dim}, std::move(full)}, c.in);
}

// Positions as rows separated by ';', each with one value per position column ("0,0,0;1,2,3" for
// mrope's t, h, w). With one column (rope, and rope_nd with one axis), rows ("1;2") or a plain list
// ("1,2", "0:8") alike.
bool rows_in(const std::string& text, std::int64_t axes) { return axes > 1 || text.find(';') != std::string::npos; }

std::vector<std::int64_t> parse_position_rows(const std::string& text, std::int64_t axes, const std::string& flag) {
  if (!rows_in(text, axes)) return parse_positions(text, flag);
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
  std::string_view name;  // the input's name in the op table
  std::string_view flag;  // the option that gives it
  std::string eval_options::*text;
  const char* needed;
};
const input_option input_options[] = {
    {"pos", "--positions", &eval_options::pos, "--positions is required (e.g. --positions 0:3)"},
    {"rel", "--rel", &eval_options::rel, "--rel is required (e.g. --rel -300:300)"},
    {"qpos", "--query-positions", &eval_options::qpos, "--query-positions and --key-positions are required (e.g. --query-positions 0:4 --key-positions 0:4)"},
    {"kpos", "--key-positions", &eval_options::kpos, "--query-positions and --key-positions are required (e.g. --query-positions 0:4 --key-positions 0:4)"},
    {"x", "--x", &eval_options::x, "--x is required (one dim-vector, or T*H*D values)"},
    {"dy", "--dy", &eval_options::dy, "--dy is required (one dim-vector, or T*H*D values)"},
    {"q", "--q", &eval_options::q, "--q and --k are required (each one dim-vector, or T*H*D values)"},
    {"k", "--k", &eval_options::k, "--q and --k are required (each one dim-vector, or T*H*D values)"},
    {"role", "--role", &eval_options::role, "--role is required: 0 (query) or 1 (key)"},
};

const input_option* option_of(std::string_view name) {
  for (const auto& o : input_options)
    if (o.name == name) return &o;
  return nullptr;
}

// The heads of rows [T, H, D] and the option that gives them: --kv-heads for rotate_qk's k (its
// shape's "Hk"), --heads for every other (H, or rotate_qk's Hq).
std::pair<std::int64_t, const char*> heads_of(const eval_options& o, const pe::tensor_schema& t) {
  if (t.shape.dims.size() == 3 && t.shape.dims[1] == "Hk") return {o.kv_heads, "--kv-heads"};
  return {o.heads, "--heads"};
}

// One input from its option into c.in: integers as a list (rows for positions), or the reals of
// --x as [T, H, D] with T the positions' rows, H from --heads and D the spec's head dim.
void read_option(const eval_options& o, const pe::spec& s, const pe::tensor_schema& t, eval_call& c) {
  const auto* opt = option_of(t.name);
  const std::string& text = o.*(opt->text);
  const std::string flag_name(opt->flag);
  if (t.kind != pe::element_kind::real) {
    auto values = parse_position_rows(text, t.shape.position_rows ? c.in.pos_axes : 1, flag_name);
    if (t.shape.dims.empty()) {  // a scalar (role): one value
      if (values.size() != 1) throw pe::input_error(fmt::format("{}: give one value, not {}", flag_name, values.size()));
      return pe::store_input(t, {std::string(t.name), {}, std::move(values)}, c.in);
    }
    const auto n = static_cast<std::int64_t>(values.size());
    return pe::store_input(t, {std::string(t.name), {n}, std::move(values)}, c.in);
  }
  const auto [heads, flag] = heads_of(o, t);
  if (heads < 1 || heads > max_heads) throw pe::input_error(fmt::format("{} {}: use 1..{}", flag, heads, max_heads));
  read_x(o.op, parse_values(text, flag_name), static_cast<std::int64_t>(c.in.pos.size()) / c.in.pos_axes, heads, *pe::head_dim(s), t, c);
}

// The sizes the options' text gives, counted without reading a value: each integer input's rows
// under the first symbol of its shape (T for --positions, N for --rel, S for --key-positions), and H from
// --heads where the op reads x. Enough for pe::output_shapes to size rotate's y or bias's table
// before a position is stored.
pe::shape_bindings counted_sizes(const eval_options& o, const pe::spec& s) {
  pe::shape_bindings b;
  const std::int64_t axes = pe::position_axes(s);
  for (const auto* t : pe::inputs_of(o.op, s, false)) {
    const auto* opt = option_of(t->name);
    if (!opt || t->shape.dims.empty()) continue;
    const std::string& text = o.*(opt->text);
    if (t->kind == pe::element_kind::real) {
      if (const auto heads = heads_of(o, *t).first; t->shape.dims.size() == 3 && heads >= 1 && heads <= max_heads)
        b.emplace(std::string(t->shape.dims[1]), heads);
      continue;
    }
    if (text.empty()) continue;
    const std::uint64_t rows = t->shape.position_rows && rows_in(text, axes) ? static_cast<std::uint64_t>(std::count(text.begin(), text.end(), ';')) + 1
                                                                  : count_positions(text, std::string(opt->flag));
    b.emplace(std::string(t->shape.dims[0]), static_cast<std::int64_t>(std::min<std::uint64_t>(rows, std::numeric_limits<std::int64_t>::max())));
  }
  return b;
}

// The op's inputs on s: each from its option, integers before reals (x's tokens are --positions's
// rows), each group all present before any is parsed; or all from --input where some input has
// no option.
eval_call read_inputs(const eval_options& o, const pe::spec& s) {
  const auto inputs = pe::inputs_of(o.op, s, false);
  // An option the op does not read is a mistake (--role on rope, --x on encode), not something to
  // ignore; so is an option beside --input, which gives every input.
  for (const auto& opt : input_options) {
    if ((o.*(opt.text)).empty()) continue;
    if (!o.input.empty()) throw pe::input_error(fmt::format("eval {}: give the inputs in --input or as options, not both ({})", o.op, opt.flag));
    if (std::none_of(inputs.begin(), inputs.end(), [&](const pe::tensor_schema* t) { return t->name == opt.name; }))
      throw pe::input_error(fmt::format("eval {}: {} is not an input of {} on {}", o.op, opt.flag, o.op, s.scheme()));
  }
  if (!o.input.empty() || std::any_of(inputs.begin(), inputs.end(), [](const pe::tensor_schema* t) { return !option_of(t->name); })) {
    if (o.input.empty()) {
      std::vector<std::string> names;
      for (const auto* t : inputs) names.emplace_back(t->name);
      throw pe::input_error(fmt::format("eval {}: --input FILE.json is required ({}; see --help)", o.op, fmt::join(names, ", ")));
    }
    return {o.op, read_input_file(o.input, o.op, s), {}};
  }
  eval_call c{o.op, {}, {}};
  c.in.pos_axes = pe::position_axes(s);
  for (const bool reals : {false, true}) {
    std::vector<const pe::tensor_schema*> group;
    for (const auto* t : inputs)
      if ((t->kind == pe::element_kind::real) == reals) group.push_back(t);
    for (const auto* t : group)
      if ((o.*(option_of(t->name)->text)).empty()) throw pe::input_error(fmt::format("eval {}: {}", o.op, option_of(t->name)->needed));
    for (const auto* t : group) read_option(o, s, *t, c);
  }
  return c;
}

// .npy holds binary64 values ('<f8'): refused before any work for MPFR precisions, whose digits no
// NumPy type keeps (rounding them to f8 would hide the precision asked for). An op with several
// outputs (inv_freq and attention_factor) writes one file per output into the directory --output
// names; so does one output when --output is an existing directory.
bool npy_directory(const eval_options& o, const pe::spec& s) {
  if (o.format != "npy") return false;
  if (o.precision != 53) {
    throw pe::input_error(fmt::format("eval --format npy: --precision {} has no NumPy type; npy holds binary64 (--precision 53), json and csv any precision",
                                      o.precision));
  }
  std::vector<std::string_view> names;
  for (const auto* t : pe::outputs_of(o.op, s)) names.push_back(t->name);
  struct stat st {};
  if (names.size() == 1) return !o.output.empty() && stat(o.output.c_str(), &st) == 0 && S_ISDIR(st.st_mode);
  if (o.output.empty()) {
    throw pe::input_error(fmt::format("eval --format npy: {} has {} outputs ({}): give --output DIR, which gets one .npy per output",
                                      o.op, names.size(), fmt::join(names, ", ")));
  }
  return true;
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
  const bool npy_files = npy_directory(o, s);
  const pe::limit limit = value_limit(o.format, o.op);
  if (o.input.empty()) check_sizes(o.op, s, counted_sizes(o, s), limit);
  const eval_call c = read_inputs(o, s);
  check_sizes(c, s, limit);
  // Opened before the work, so that an unwritable --output fails at once.
  output_target target(npy_files ? std::string() : o.output);
  const auto writer = npy_files ? make_npy_directory_writer(o.output) : make_writer(o.format, {o.op, s.text(), o.precision}, target);
  const bool integers = integer_outputs_only(o.op, s);
  if (o.precision == 53 && !integers) {
    stream_eval<double>(c, s, limit, o.chunk_tokens, o.precision, *writer);
  } else {
    pe::mp_precision scope(integers ? std::max(64u, o.precision) : o.precision);
    stream_eval<pe::mp_real>(c, s, limit, o.chunk_tokens, o.precision, *writer);
  }
  target.commit();
  return 0;
}

// The size rules and what a failure leaves, for --help (src/cli/README.md's eval section says the same).
constexpr const char* eval_footer =
    "Sizes: the table, and ops other than encode and rotate, hold the whole result and print at most 4194304 (2^22) "
    "values (--limit values=N). csv, json and npy stream encode and rotate: computed, written and freed in chunks of about 16 MiB, so "
    "memory stays bounded (about 100 MB for 1M positions x 128 values) up to 2147483648 (2^31) values (--limit streamed_values=N). Sizes the "
    "inputs give are refused before any work. On stdout a result over 16 MiB is written as it is computed: an error "
    "mid-way leaves a partial stream and a non-zero exit; --output FILE appears only when complete. npy writes one "
    "binary64 array ('<f8') per output: to --output FILE (or stdout), or DIR/NAME.npy for each output when --output is a "
    "directory (required for ops with several outputs, e.g. inv_freq). On a terminal, a progress line shows on stderr after a second.";

}  // namespace

std::function<int()> add_eval_command(CLI::App& app) {
  auto o = std::make_shared<eval_options>();
  auto* cmd = app.add_subcommand("eval", "Evaluate the reference: OP on SPEC, e.g. encode 'sinusoidal(dim=4)' --positions 0:3");
  const auto ops = pe::op_names();
  cmd->add_option("op", o->op, fmt::format("{} or {}", fmt::join(ops.begin(), ops.end() - 1, ", "), ops.back()))
      ->required()
      ->check(CLI::IsMember(ops));
  cmd->add_option("spec", o->spec, "the scheme, as spec text or its JSON twin")->required();
  cmd->add_option("--positions", o->pos, "positions: 0,1,2 or a half-open range a:b (or a mix)");
  cmd->add_option("--x", o->x, "rotate's input: T*H*D values row-major, or one D-vector for every token and head");
  cmd->add_option("--dy", o->dy, "rotate_grad's input, the gradient of rotate's y: as --x");
  cmd->add_option("--q", o->q, "rotate_qk's queries: as --x, with --heads heads");
  cmd->add_option("--k", o->k, "rotate_qk's keys: as --x, with --kv-heads heads");
  cmd->add_option("--heads", o->heads, "heads H of x or dy, or of rotate_qk's q (default 1)");
  cmd->add_option("--kv-heads", o->kv_heads, "heads of rotate_qk's k, a divisor of --heads (grouped-query attention; default 1)");
  cmd->add_option("--role", o->role, "rotate's and rotate_grad's role where the scheme scales queries and keys apart (xpos): 0 query, 1 key");
  cmd->add_option("--rel", o->rel, "bucket's relative distances key - query: a list or range like -300:300");
  cmd->add_option("--query-positions", o->qpos, "bias's query positions");
  cmd->add_option("--key-positions", o->kpos, "bias's key positions");
  add_deprecated_spelling(*cmd, "--pos", "--positions", o->pos);
  add_deprecated_spelling(*cmd, "--qpos", "--query-positions", o->qpos);
  add_deprecated_spelling(*cmd, "--kpos", "--key-positions", o->kpos);
  cmd->add_option("--input", o->input,
                  "attend's inputs as JSON: {\"q\": {\"shape\": [T,H,D], \"data\": [...]}, \"k\", \"v\", \"qpos\", "
                  "\"kpos\", \"causal\"}; absolute encodings take \"x\", \"wq\", \"wk\", \"wv\", \"heads\" instead of q, k, v");
  cmd->add_option("--precision", o->precision, "bits: 53 = binary64 (default); 64 and more = MPFR");
  cmd->add_option("--format", o->format, "table (default), json, csv or npy (NumPy .npy, binary64; see Sizes below)")
      ->check(CLI::IsMember({"table", "json", "csv", "npy"}));
  cmd->add_option("--output", o->output, "write to FILE (whole or not at all: a temporary file beside it, renamed when done; a device or FIFO is written in place)");
  // Tests compare chunked with one-chunk output; not for users, so not in --help.
  cmd->add_option("--chunk-tokens", o->chunk_tokens, "tokens per chunk for encode and rotate")->group("");
  cmd->footer(eval_footer);
  return [o] { return run_eval(*o); };
}

}  // namespace pecheck
