// The plugin's bias calls: ALiBi (its slopes from pecheck's reference) and table-lookup biases such as T5 (their bucket steps from the reference's bucket hook).
#include <algorithm>

#include "kernels/backend.hpp"
#include "kernels/bias_tables.hpp"
#include "kernels/serve.hpp"
#include "pe/scheme.hpp"

namespace pe::kernels {

namespace {

// bias [H, T, S] for queries qpos [T] and keys kpos [S].
struct bias_call {
  std::span<const std::int64_t> qpos, kpos;
  std::int64_t heads;
  pe_tensor* out;

  bias_call(const pe::spec& s, const call& c)
      : qpos(positions(c, "bias", "qpos")), kpos(positions(c, "bias", "kpos")), heads(pe::behaviour_of(s).heads(s)) {
    out = &only_output(c, "bias", {heads, static_cast<std::int64_t>(qpos.size()), static_cast<std::int64_t>(kpos.size())});
  }
  std::int64_t queries() const { return static_cast<std::int64_t>(qpos.size()); }
  std::int64_t keys() const { return static_cast<std::int64_t>(kpos.size()); }
};

void serve_alibi(const pe::spec& s, const call& c) {
  const bias_call b(s, c);
  const std::vector<double> slopes = alibi_slope_table(s);
  const alibi_args a{b.out->data, b.qpos.data(), b.kpos.data(), slopes.data(), b.heads, b.queries(), b.keys(), s.boolean("causal"), io_of(b.out->dtype)};
  if (const std::string error = run_bias(a); !error.empty()) throw failure{error};
}

// table[bucket(kpos - qpos), h] with the table the gate hands over (input `table`, in the I/O
// dtype, as the reference's own bias_table rounded to it).
void serve_table_bias(const pe::spec& s, const call& c) {
  const bias_call b(s, c);
  const pe_tensor* table = find_input(c, "table");
  if (table == nullptr || table->rank != 2 || table->shape[1] != b.heads || table->dtype != b.out->dtype)
    throw failure{"bias needs table [buckets, H] in the output's dtype"};
  const bucket_tables steps = bucket_tables::of(s);
  if (std::any_of(steps.buckets.begin(), steps.buckets.end(), [&](std::int64_t k) { return k < 0 || k >= table->shape[0]; }))
    throw failure{fmt::format("the spec's buckets do not fit table's {} rows", table->shape[0])};
  const t5_args a{b.out->data, table->data, b.qpos.data(), b.kpos.data(), steps.starts.data(), steps.buckets.data(), steps.before_count,
                  steps.after_count, table->shape[0], b.heads, b.queries(), b.keys(), io_of(b.out->dtype)};
  if (const std::string error = run_bias(a); !error.empty()) throw failure{error};
}

}  // namespace

// Table-lookup biases are recognised by their descriptor (a bias table and a bucket hook: T5).
// ALiBi by its name: no descriptor says "slope times distance", and its slopes are its own law.
void serve_bias(const pe::spec& s, const call& c) {
  const auto& behaviour = pe::behaviour_of(s);
  if (behaviour.kind != pe::scheme_kind::bias) throw unsupported{};
  if (behaviour.bias_table && behaviour.bucket) return serve_table_bias(s, c);
  if (s.scheme() == "alibi") return serve_alibi(s, c);
  throw unsupported{};
}

}  // namespace pe::kernels
