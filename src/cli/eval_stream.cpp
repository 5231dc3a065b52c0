// The chunked and the whole runs of eval (see eval_stream.hpp), with each output's row labels.
#include "cli/eval_stream.hpp"

#include <algorithm>
#include <iterator>
#include <limits>

#include <fmt/format.h>

#include "cli/progress.hpp"
#include "pe/error.hpp"
#include "pe/mp.hpp"
#include "pe/op_chunks.hpp"
#include "pe/op_schema.hpp"
#include "pe/op_shapes.hpp"

namespace pecheck {
namespace {

// A result held whole (the table, which aligns every value to the widest, and ops that do not
// split by token, which compute their output in one piece) is bounded by limit::values; a
// streamed one holds a chunk at a time and is bounded by limit::streamed_values, which only
// refuses at once what no one means to write (a typo in --positions or --heads usually lands far beyond).
// A chunk's values and their text, roughly: chunk_bytes / bytes_per_value values.
constexpr std::size_t chunk_bytes = std::size_t{16} << 20;

void refuse_beyond(std::string_view name, std::size_t n, pe::limit limit) {
  pe::check_limit(limit, n, fmt::format("eval: output {}'s values", name));
}

// Memory per value while a chunk is alive: the value (an MPFR number: bits/8 bytes of limbs and
// its struct) and its decimal text (bits * log10(2) < bits/3 digits, plus sign, point, exponent
// and separators). bits/2 + 64 bounds both together.
std::size_t bytes_per_value(unsigned bits) { return bits / 2 + 64; }

// Whether output `name` of op holds integers (bucket): printed as exact integers, never as reals.
bool integer_output(std::string_view op, const pe::spec& s, std::string_view name) {
  return pe::output_kind(op, s, name) == pe::element_kind::integer;
}

value_block block_of(pe::tensor<double>&& t, bool) { return {std::move(t.data), {}}; }
// Integer outputs come from run_integer_outputs' 64-bit MPFR run, where every int64 is exact.
value_block block_of(pe::tensor<pe::mp_real>&& t, bool integers) {
  value_block b;
  b.decimals.reserve(t.data.size());
  for (const auto& v : t.data) b.decimals.push_back(integers ? std::to_string(v.convert_to<long long>()) : pe::to_decimal(v));
  return b;
}

// The printers' view of output `name` of shape `shape`: its row title and row labels (the op's).
output_head head_of(const eval_call& c, const std::string& name, const std::vector<std::int64_t>& shape) {
  output_head h{name, shape, "", {}};
  const pe::op_schema* o = pe::find_op_schema(c.op);
  if (!o) return h;
  h.row_title = o->rows.title;
  if (o->rows.append) {
    h.append_label = [&in = c.in, shape, &append = o->rows.append](std::string& out, std::int64_t r) { append(out, in, shape, r); };
  }
  return h;
}

// Tokens [first, first + count) of the call, x expanded where --x gave one vector.
pe::op_inputs part_of(const eval_call& c, std::int64_t first, std::int64_t count) {
  auto part = pe::token_range(c.in, first, count);
  if (!c.x_row.empty()) part.x = broadcast_x(c.x_row, count, c.in.x.shape.at(1));
  return part;
}

template <class T>
void run_whole(const eval_call& c, const pe::spec& s, pe::limit limit, result_writer& w) {
  auto outputs = c.x_row.empty() ? pe::run_op<T>(c.op, s, c.in) : pe::run_op<T>(c.op, s, part_of(c, 0, pe::token_count(c.in)));
  for (const auto& [name, t] : outputs) refuse_beyond(name, t.data.size(), limit);
  for (auto& [name, t] : outputs) {
    w.begin_output(head_of(c, name, t.shape));
    w.write_rows(0, block_of(std::move(t), integer_output(c.op, s, name)));
    w.end_output();
  }
}

// Each output in turn, chunk by chunk: an op with several outputs (rotate_qk's q_out and k_out)
// runs once per output, so that one output's rows are written whole before the next begins.
template <class T>
void run_chunked(const eval_call& c, const pe::spec& s, pe::limit limit, std::int64_t chunk_tokens, unsigned bits, result_writer& w) {
  const std::int64_t tokens = pe::token_count(c.in), seq_len = pe::call_seq_len(c.in.pos);
  const auto n_outputs = static_cast<std::int64_t>(pe::outputs_of(c.op, s).size());
  progress_line progress("eval", tokens * n_outputs, "positions");
  for (std::int64_t o = 0; o < n_outputs; ++o) {
    // Without chunk_tokens the first chunk is one token: its width sizes the chunks (and checks an
    // output whose shape only the op knows) before the rest is computed.
    std::int64_t step = chunk_tokens > 0 ? chunk_tokens : 1, rows_per_token = 0;
    output_head head;
    bool integers = false;  // the output's kind, decided with its head on the first chunk
    for (std::int64_t first = 0; first < tokens;) {
      const std::int64_t count = std::min(step, tokens - first);
      auto outputs = pe::run_op_tokens<T>(c.op, s, part_of(c, first, count), seq_len);
      auto& [name, t] = outputs.at(static_cast<std::size_t>(o));
      if (first == 0) {
        const std::int64_t per_token = static_cast<std::int64_t>(t.data.size()) / count;
        std::vector<std::int64_t> shape = t.shape;
        shape.at(0) = tokens;
        refuse_beyond(name, pe::saturating_product(shape), limit);
        head = head_of(c, name, shape);
        integers = integer_output(c.op, s, name);
        rows_per_token = columns(head) > 0 ? per_token / columns(head) : 0;
        if (chunk_tokens <= 0) {
          step = std::max<std::int64_t>(1, static_cast<std::int64_t>(chunk_bytes / bytes_per_value(bits)) / std::max<std::int64_t>(per_token, 1));
        }
        w.begin_output(head);
      }
      w.write_rows(first * rows_per_token, block_of(std::move(t), integers));
      first += count;
      progress.update(o * tokens + first);
    }
    w.end_output();
  }
}

}  // namespace

pe::tensor<double> broadcast_x(const std::vector<double>& x_row, std::int64_t tokens, std::int64_t heads) {
  pe::tensor<double> x({tokens, heads, static_cast<std::int64_t>(x_row.size())});
  for (std::size_t k = 0; k < x.data.size(); ++k) x.data[k] = x_row[k % x_row.size()];
  return x;
}

bool integer_outputs_only(std::string_view op, const pe::spec& s) {
  const auto outputs = pe::outputs_of(op, s);
  return !outputs.empty() && std::all_of(outputs.begin(), outputs.end(), [](const pe::tensor_schema* t) { return t->kind == pe::element_kind::integer; });
}

pe::limit value_limit(const std::string& format, std::string_view op) {
  return format_streams(format) && pe::splits_by_token(op) ? pe::limit::streamed_values : pe::limit::values;
}

namespace {
void check_shapes(std::string_view op, const pe::spec& s, const std::vector<std::optional<std::vector<std::int64_t>>>& shapes, pe::limit limit) {
  const auto outputs = pe::outputs_of(op, s);
  for (std::size_t k = 0; k < shapes.size(); ++k)
    if (shapes[k]) refuse_beyond(outputs[k]->name, pe::saturating_product(*shapes[k]), limit);
}
}  // namespace

void check_sizes(const eval_call& c, const pe::spec& s, pe::limit limit) { check_shapes(c.op, s, pe::output_shapes(c.op, s, c.in), limit); }

void check_sizes(std::string_view op, const pe::spec& s, const pe::shape_bindings& sizes, pe::limit limit) {
  check_shapes(op, s, pe::output_shapes(op, s, sizes), limit);
}

template <class T>
void stream_eval(const eval_call& c, const pe::spec& s, pe::limit limit, std::int64_t chunk_tokens, unsigned precision_bits,
                 result_writer& w) {
  if (pe::splits_by_token(c.op) && pe::token_count(c.in) > 0) run_chunked<T>(c, s, limit, chunk_tokens, precision_bits, w);
  else run_whole<T>(c, s, limit, w);
  w.finish();
}

template void stream_eval<double>(const eval_call&, const pe::spec&, pe::limit, std::int64_t, unsigned, result_writer&);
template void stream_eval<pe::mp_real>(const eval_call&, const pe::spec&, pe::limit, std::int64_t, unsigned, result_writer&);

}  // namespace pecheck
