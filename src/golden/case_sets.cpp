// The golden case definitions (see case_sets.hpp). Each set says which model or seed it mirrors.
#include "golden/case_sets.hpp"

#include <algorithm>
#include <tuple>

#include <fmt/format.h>

#include "pe/attention.hpp"
#include "pe/op_schema.hpp"
#include "pe/schemes/absolute.hpp"
#include "pe/schemes/rope_nd.hpp"

namespace pe::golden {
namespace {

constexpr std::int64_t two_24 = std::int64_t{1} << 24;

// Deterministic binary64 inputs: the Gaussian stream of learned() with its own seed (the same
// on every machine), so no input is a hand-picked value.
tensor<double> gaussian(std::vector<std::int64_t> shape, std::uint64_t seed) {
  tensor<double> t(std::move(shape));
  t.data = learned_entries(seed, 0, static_cast<std::int64_t>(t.data.size()), 1.0);
  return t;
}

op_inputs positions(std::vector<std::int64_t> pos, std::int64_t axes = 1) {
  op_inputs in;
  in.pos = std::move(pos);
  in.pos_axes = axes;
  return in;
}

// One case per hard position (rows of `axes` equal columns unless `row` builds them).
std::vector<case_def> per_position(const std::string& op, std::int64_t dim, std::int64_t heads, std::uint64_t seed,
                                   const std::vector<std::vector<std::int64_t>>& rows) {
  // An op that takes rows [T, H, D] (its schema says: rotate's x, rotate_grad's dy, both held in
  // op_inputs::x) gets one token of random values at each position.
  const op_schema* o = find_op_schema(op);
  const bool takes_x = o && std::any_of(o->tensors.begin(), o->tensors.end(), [](const tensor_schema& t) {
    return t.role == tensor_role::input && t.kind == element_kind::real && t.shape.dims == std::vector<std::string_view>{"T", "H", "D"};
  });
  std::vector<case_def> out;
  for (size_t r = 0; r < rows.size(); ++r) {
    op_inputs in = positions(rows[r], static_cast<std::int64_t>(rows[r].size()));
    if (takes_x) in.x = gaussian({1, heads, dim}, seed + r);
    std::string id = fmt::format("p{}", fmt::join(rows[r], "_"));
    out.push_back({std::move(id), std::move(in)});
  }
  return out;
}

// Position rows at the hard positions: p itself, or for three axes (t, h, w) = (p, p / 2, p mod 1000),
// so the axes differ (equal axes would reduce M-RoPE to plain RoPE).
std::vector<std::vector<std::int64_t>> hard_rows(std::int64_t axes) {
  std::vector<std::vector<std::int64_t>> rows;
  for (const auto p : hard_positions()) {
    if (axes == 1) rows.push_back({p});
    else rows.push_back({p, p / 2, p % 1000});
  }
  return rows;
}

case_set set(std::string path, std::string comment, std::string op, const std::string& spec_text, std::vector<case_def> cases) {
  return {std::move(path), std::move(comment), std::move(op), parse_spec(spec_text).text(), std::move(cases)};
}

std::string ramp_list(int n, double from, double to) {
  std::vector<std::string> v;
  for (int i = 0; i < n; ++i) v.push_back(fmt::format("{}", from + (to - from) * i / (n - 1)));
  return fmt::format("[{}]", fmt::join(v, ", "));
}

std::vector<case_set> rope_sets() {
  std::vector<case_set> out;
  // rotate's cases (two heads), or with op rotate_grad the backward pass's (one head: the golden
  // tree's size budget, golden_test.cpp; the gate's draws cover heads).
  const auto rotate_set = [&](std::string path, std::string comment, const std::string& spec_text, std::uint64_t seed,
                              const std::string& op = "rotate", std::int64_t heads = 2) {
    const spec s = parse_spec(spec_text);
    const auto dim = *head_dim(s);
    out.push_back(set(path, comment, op, spec_text, per_position(op, dim, heads, seed, hard_rows(position_axes(s)))));
  };
  const auto inv_freq_set = [&](std::string path, std::string comment, const std::string& spec_text) {
    out.push_back(set(path, comment, "inv_freq", spec_text, {{"frequencies", op_inputs{}}}));
  };
  rotate_set("rope/llama2_7b.json", "Llama 2 7B: head dim 128, rope_theta 10^4, HF rotate_half (neox) layout", "rope(dim=128)", 100);
  const std::string llama3 = "rope(dim=128, base=500000, scaling=llama3(factor=8, low_freq_factor=1, high_freq_factor=4, original_max=8192))";
  rotate_set("rope/llama3_8b.json", "Llama 3.1 8B: rope_theta 5e5, llama3 scaling factor 8 over 8192 tokens", llama3, 200);
  inv_freq_set("rope/llama3_8b_inv_freq.json", "Llama 3.1 8B: its 64 scaled frequencies", llama3);
  rotate_set("rope/mistral_7b.json", "Mistral 7B v0.2: head dim 128, rope_theta 10^6", "rope(dim=128, base=1000000)", 300);
  const std::string qwen2 = "rope(dim=128, base=1000000, scaling=yarn(factor=4, original_max=32768))";
  rotate_set("rope/qwen2_7b_yarn.json", "Qwen2 7B long-context recipe: rope_theta 10^6, YaRN factor 4 over 32768", qwen2, 400);
  inv_freq_set("rope/qwen2_7b_yarn_inv_freq.json", "Qwen2 7B YaRN: scaled frequencies and attention factor 0.1 ln 4 + 1", qwen2);
  const std::string phi3 = fmt::format(
      "rope(dim=96, scaling=longrope(short_factor={}, long_factor={}, original_max=4096, max_pos=131072, seq_len=8192))",
      ramp_list(48, 1, 1.5), ramp_list(48, 1, 48));
  rotate_set("rope/phi3_mini_128k_longrope.json",
             "Phi-3-mini-128k shape: head dim 96, LongRoPE 4096 -> 131072, long factors in use (seq_len 8192); the 48 "
             "per-pair factors are smooth ramps, not Microsoft's trained values",
             phi3, 500);
  inv_freq_set("rope/phi3_mini_128k_longrope_inv_freq.json", "Phi-3-mini-128k shape: long-factor frequencies, attention factor sqrt(1 + ln 32 / ln 4096)", phi3);
  rotate_set("rope/gpt_neox_20b_partial.json", "GPT-NeoX-20B: head dim 96, rotary_pct 0.25 (24 rotated dims), neox layout",
             "rope(dim=96, rotary_dim=24)", 600);
  rotate_set("rope/gptj_6b.json", "GPT-J 6B: head dim 256, rotary_dim 64, interleaved (gptj) pairs", "rope(dim=256, rotary_dim=64, layout=gptj)", 700);
  // apply_tables: one token at each hard position, its tables the exact cos and sin of the spec's
  // angles there (rounded to binary64), one head, small dims (the tree's size budget).
  const auto tables_set = [&](std::string path, std::string comment, const std::string& spec_text, std::uint64_t seed) {
    const spec s = parse_spec(spec_text);
    auto cases = per_position("apply_tables", *head_dim(s), 1, seed, hard_rows(position_axes(s)));
    for (auto& c : cases) std::tie(c.in.cos, c.in.sin) = angle_tables(s, c.in);
    out.push_back(set(path, comment, "apply_tables", spec_text, std::move(cases)));
  };
  tables_set("rope/tables_neox.json", "apply_tables: x turned by given cos and sin tables [T, pairs], neox pairs, head dim 8", "rope(dim=8)", 2500);
  tables_set("rope/tables_gptj_partial.json", "apply_tables: gptj pairs, rotary_dim 6 of 8 (the rest copied)",
             "rope(dim=8, rotary_dim=6, layout=gptj)", 2600);
  // rotate_qk: queries and keys of grouped-query attention (two query heads over one key head,
  // each with its own values) at a few hard positions; head dim 4 (the tree's size budget).
  const auto qk_set = [&](std::string path, std::string comment, const std::string& spec_text, std::uint64_t seed,
                          const std::vector<std::int64_t>& at) {
    const spec s = parse_spec(spec_text);
    std::vector<case_def> cases;
    for (const auto p : at) {
      op_inputs in = positions({p});
      in.x = gaussian({1, 2, *head_dim(s)}, seed++);
      in.k = gaussian({1, 1, *head_dim(s)}, seed++);
      cases.push_back({fmt::format("p{}", p), std::move(in)});
    }
    out.push_back(set(path, comment, "rotate_qk", spec_text, std::move(cases)));
  };
  qk_set("rope/qk_gqa.json", "rotate_qk: q [T, 2, 4] and k [T, 1, 4] turned alike, neox pairs", "rope(dim=4)", 2700,
         {0, 1, 257, (std::int64_t{1} << 24) + 1, (std::int64_t{1} << 31) - 1, std::int64_t{1} << 40});
  // The backward pass: R_p^T dy, in both layouts (a backward written for one layout's pairs
  // fails the other's), with partial rotary, and with an attention factor (YaRN scales dx too).
  rotate_set("rope/grad_neox.json", "the backward pass dx = R_p^T dy: head dim 16, neox pairs", "rope(dim=16)", 2000, "rotate_grad", 1);
  rotate_set("rope/grad_gptj_partial.json", "the backward pass: gptj pairs, rotary_dim 32 of 64 (the rest copied)",
             "rope(dim=64, rotary_dim=32, layout=gptj)", 2100, "rotate_grad", 1);
  rotate_set("rope/grad_yarn.json", "the backward pass under YaRN: dx = A R_p^T dy with A = 0.1 ln 4 + 1, head dim 32",
             "rope(dim=32, base=1000000, scaling=yarn(factor=4, original_max=32768))", 2200, "rotate_grad", 1);
  rotate_set("rope/dynamic_ntk.json", "HF dynamic NTK, factor 2 over 2048, at seq_len 4096", "rope(dim=64, scaling=dynamic(factor=2, original_max=2048, seq_len=4096))", 800);
  rotate_set("rope/ntk.json", "static NTK-aware scaling, factor 4", "rope(dim=64, scaling=ntk(factor=4))", 900);
  rotate_set("rope/linear.json", "linear position interpolation, factor 4 (Chen et al. 2023)", "rope(dim=64, scaling=linear(factor=4))", 1000);
  rotate_set("rope/yarn_ggml.json", "YaRN with ggml's magnitude (rope_yarn multiplies 1 + 0.1 ln s itself)",
             "rope(dim=64, scaling=yarn(factor=8, original_max=4096, magnitude=ggml))", 1100);
  rotate_set("rope/p_rope.json", "p-RoPE: the lowest quarter of the frequencies set to 0", "rope(dim=64, truncate_low=0.25)", 1200);
  out.push_back(set("rope/matrix_d8.json", "the 8 x 8 block rotation R_p at the hard positions", "matrix", "rope(dim=8)",
                    per_position("matrix", 8, 1, 0, hard_rows(1))));
  rotate_set("rope_nd/flux.json", "Flux-like axial RoPE: axes [16, 56, 56], gptj pairs, positions (t, h, w)",
             "rope_nd(axes=[16, 56, 56], base=10000)", 1300);
  rotate_set("mrope/qwen2_vl.json", "Qwen2-VL M-RoPE: head dim 128, sections [16, 24, 24], rope_theta 10^6",
             "mrope(dim=128, sections=[16, 24, 24], base=1000000)", 1400);
  rotate_set("mrope/grad.json", "M-RoPE's backward pass: each pair turned back by its own axis's position, head dim 32",
             "mrope(dim=32, sections=[4, 6, 6], base=1000000)", 2300, "rotate_grad", 1);
  rotate_set("mrope/qwen3_vl_interleaved.json", "Qwen3-VL interleaved M-RoPE: sections [24, 20, 20]",
             "mrope(dim=128, sections=[24, 20, 20], base=5000000, interleaved=true)", 1500);
  // xPos: queries (role 0) and keys (role 1) at the same positions, negative ones included
  // (torchscale's centred positions), up to where a key's scale times |x| still fits binary32
  // (2^(p log2((1 + gamma)/gamma)/scale_base) < 2^125), so that every file exports to f32.
  const auto xpos_set = [&](std::string path, std::string comment, const std::string& spec_text, std::uint64_t seed,
                            std::int64_t largest, const std::string& op = "rotate", std::int64_t heads = 2) {
    const spec s = parse_spec(spec_text);
    std::vector<case_def> cases;
    for (const std::int64_t role : {0, 1})
      for (const std::int64_t p : {std::int64_t{-4096}, std::int64_t{-257}, std::int64_t{-1}, std::int64_t{0}, std::int64_t{1}, std::int64_t{255},
                                   std::int64_t{256}, std::int64_t{257}, std::int64_t{511}, std::int64_t{512}, std::int64_t{513},
                                   std::int64_t{4096}, std::int64_t{8192}, largest}) {
        op_inputs in = positions({p});
        in.x = gaussian({1, heads, *head_dim(s)}, seed++);
        in.role = role;
        cases.push_back({fmt::format("{}_p{}", role == 0 ? "query" : "key", p), std::move(in)});
      }
    out.push_back(set(path, comment, op, spec_text, std::move(cases)));
  };
  xpos_set("xpos/torchscale.json", "xPos at torchscale's settings: head dim 128, gamma 0.4, scale_base 512, gptj pairs", "xpos(dim=128)", 1600,
           32768);
  xpos_set("xpos/neox_gamma_0.25.json", "xPos in neox pairs, head dim 64, gamma 0.25, scale_base 256", "xpos(dim=64, gamma=0.25, scale_base=256, layout=neox)",
           1700, 12288);
  qk_set("xpos/qk.json", "xPos's rotate_qk: q scaled as queries, k as keys, with no role input; head dim 4", "xpos(dim=4)", 2800,
         {-257, 0, 1, 512, 4096});
  xpos_set("xpos/grad.json", "xPos's backward pass: dx = zeta^(+-p/scale_base) R_p^T dy by role, head dim 8, gamma 0.4, scale_base 512",
           "xpos(dim=8)", 2400, 32768, "rotate_grad", 1);
  return out;
}

std::vector<case_set> encode_sets() {
  std::vector<case_set> out;
  const auto encode_set = [&](std::string path, std::string comment, const std::string& spec_text, std::vector<std::int64_t> pos) {
    std::vector<std::vector<std::int64_t>> rows;
    for (const auto p : pos) rows.push_back({p});
    out.push_back(set(path, comment, "encode", spec_text, per_position("encode", 0, 0, 0, rows)));
  };
  encode_set("seeds/seed000_the_cat_sat.json", "seed 000's table: \"The cat sat\" at d_model = 4, positions 0, 1, 2", "sinusoidal(dim=4)", {0, 1, 2});
  encode_set("sinusoidal/interleaved_d64.json", "Vaswani et al.: sin at 2i, cos at 2i+1", "sinusoidal(dim=64)", hard_positions());
  encode_set("sinusoidal/concat_d16.json", "[sin | cos] halves with the paper's frequencies", "sinusoidal(dim=16, layout=concat)", hard_positions());
  encode_set("sinusoidal/fairseq_d16.json", "fairseq / tensor2tensor: exponent over dim/2 - 1", "sinusoidal(dim=16, layout=fairseq)", hard_positions());
  encode_set("absolute/integer_d4.json", "seed 000 option 1: counting", "integer(dim=4)", hard_positions());
  encode_set("absolute/normalized_d2.json", "seed 000 option 2: p / length", "normalized(dim=2, length=1099511627777)", hard_positions());
  encode_set("absolute/binary_d12.json", "binary codes; p and p + 2^12 share a code", "binary(dim=12)", {0, 1, 255, 256, 257, 4095, 4096, 4097});
  encode_set("absolute/learned_d8.json", "seeded N(0, 0.02^2) table (GPT-2 init scale)", "learned(dim=8, max_len=300)", {0, 1, 255, 256, 257, 299});
  encode_set("absolute/none_d4.json", "NoPE: zero vectors", "none(dim=4)", {0, 1, 257});
  return out;
}

std::vector<case_set> relative_sets() {
  std::vector<case_set> out;
  const auto bias_set = [&](std::string path, std::string comment, const std::string& spec_text) {
    std::vector<case_def> cases;
    for (const std::int64_t offset : {std::int64_t{0}, std::int64_t{255}, two_24 - 1, std::int64_t{1} << 40}) {
      op_inputs in;
      for (std::int64_t t = 0; t < 6; ++t) in.qpos.push_back(offset + t), in.kpos.push_back(offset + t);
      cases.push_back({fmt::format("offset{}", offset), std::move(in)});
    }
    out.push_back(set(path, comment, "bias", spec_text, std::move(cases)));
  };
  const auto bucket_set = [&](std::string path, std::string comment, const std::string& spec_text, std::vector<std::int64_t> rel) {
    std::vector<case_def> cases;
    for (const auto r : rel) {
      op_inputs in;
      in.rel = {r};
      cases.push_back({fmt::format("rel{}", r), std::move(in)});
    }
    out.push_back(set(path, comment, "bucket", spec_text, std::move(cases)));
  };
  bias_set("alibi/heads_8.json", "ALiBi, 8 heads: slopes 2^-1 .. 2^-8", "alibi(heads=8)");
  bias_set("alibi/heads_12.json", "ALiBi, 12 heads (BLOOM-style non-power of two): 2^-1..2^-8 then 2^-0.5, 2^-1.5, 2^-2.5, 2^-3.5", "alibi(heads=12)");
  bias_set("alibi/heads_12_symmetric.json", "ALiBi's encoder form -slope |i - j|", "alibi(heads=12, causal=false)");
  bias_set("kerple/log_heads_3.json", "KERPLE's log kernel -r1 ln(1 + r2 |i - j|), 3 heads over trained-like parameters",
           "kerple(heads=3, variant=log, r1=[1, 0.25, 8], r2=[0.01, 1, 16])");
  bias_set("kerple/log_tiny_r2.json",
           "KERPLE's log kernel where r2 |i - j| is far below any epsilon: -r1 ln(1 + r2 |i - j|) needs log1p, since 1 + r2 |i - j| rounds to 1",
           "kerple(heads=3, variant=log, r1=[1, 0.5, 2], r2=[1e-50, 1e-100, 1e-300])");
  bias_set("kerple/power_heads_2.json", "KERPLE's power kernel -r1 |i - j|^r2, 2 heads up to the CPD limit r2 = 2",
           "kerple(heads=2, variant=power, r1=[1, 0.03125], r2=[0.01, 2])");
  {
    // Llama 4's temperature at HF's defaults: the unit block, each side of the first two block
    // starts (p + 1 = 8192, 16384), binary32's 2^24 and int32's limit.
    op_inputs in;
    in.pos = {0, 1, 8190, 8191, 8192, 16382, 16383, two_24 - 1, two_24, two_24 + 1, (std::int64_t{1} << 31) - 1, std::int64_t{1} << 40};
    out.push_back(set("llama4_temperature/hf_defaults.json", "Llama 4's attention temperature, floor_scale 8192, attn_scale 0.1 (HF defaults)",
                      "scale", "llama4_temperature()", {{"hard_positions", std::move(in)}}));
  }
  bias_set("t5/bias_bidirectional.json", "T5 encoder bias: 32 buckets up to 128, 2 heads of a seeded table", "t5(heads=2)");
  std::vector<std::int64_t> rel;
  for (const std::int64_t r : {0, 1, 7, 8, 9, 15, 16, 17, 31, 32, 63, 64, 100, 127, 128, 129, 1000, 1 << 20})
    rel.push_back(r), rel.push_back(-r);
  rel.erase(rel.begin() + 1);  // one 0
  bucket_set("t5/buckets_bidirectional.json", "T5 encoder buckets (32, max_distance 128)", "t5()", rel);
  bucket_set("t5/buckets_decoder.json", "T5 decoder buckets (32, max_distance 128)", "t5(bidirectional=false)", rel);
  bucket_set("deberta/buckets_v3.json", "DeBERTa-v3 log buckets: position_buckets 256, max_position 512", "deberta(k=256, buckets=256, max_position=512, dim=64)", rel);
  return out;
}

std::vector<case_set> attend_sets() {
  std::vector<case_set> out;
  const auto qkv = [](std::int64_t tokens, std::int64_t heads, std::int64_t d, std::uint64_t seed, bool causal) {
    op_inputs in;
    in.attend.q = gaussian({tokens, heads, d}, seed);
    in.attend.k = gaussian({tokens, heads, d}, seed + 1);
    in.attend.v = gaussian({tokens, heads, d}, seed + 2);
    for (std::int64_t t = 0; t < tokens; ++t) in.attend.qpos.push_back(t), in.attend.kpos.push_back(t);
    in.attend.causal = causal;
    return in;
  };
  const auto attend_set = [&](std::string path, std::string comment, const std::string& spec_text, std::int64_t heads, std::int64_t d,
                              bool causal) {
    std::vector<case_def> cases;
    for (std::uint64_t k = 0; k < 3; ++k) cases.push_back({fmt::format("draw{}", k), qkv(4, heads, d, 2000 + 10 * k, causal)});
    out.push_back(set(path, comment, "attend", spec_text, std::move(cases)));
  };
  attend_set("attention/none.json", "plain attention (NoPE), causal", "none()", 2, 4, true);
  attend_set("attention/rope.json", "RoPE attention, head dim 8, causal", "rope(dim=8)", 2, 8, true);
  attend_set("attention/alibi.json", "ALiBi attention, 2 heads, causal", "alibi(heads=2)", 2, 4, true);
  attend_set("attention/llama4_temperature.json", "Llama 4's temperature on a NoPE layer, floor_scale 2 so the queries are scaled",
             "llama4_temperature(floor_scale=2)", 2, 4, true);
  attend_set("attention/xpos.json", "xPos attention, head dim 8, causal (queries scaled down with position, keys up)", "xpos(dim=8)", 2, 8, true);
  attend_set("attention/kerple.json", "KERPLE attention, 2 heads, log kernel, causal", "kerple(heads=2, r1=[1, 0.5], r2=[1, 2])", 2, 4, true);
  attend_set("attention/t5.json", "T5 attention, 2 heads, encoder (no mask)", "t5(heads=2)", 2, 4, false);
  attend_set("attention/shaw.json", "Shaw et al. relative keys and values, k = 2", "shaw(k=2, dim=4)", 2, 4, false);
  attend_set("attention/txl.json", "Transformer-XL terms (a)-(d), r_dim 8", "txl(heads=2, dim=4, r_dim=8)", 2, 4, true);
  attend_set("attention/deberta.json", "DeBERTa c2c + c2p + p2c, k = 2", "deberta(k=2, heads=2, dim=4)", 2, 4, false);
  std::vector<case_def> absolute;
  for (std::uint64_t k = 0; k < 3; ++k) {
    op_inputs in;
    in.attend.x = gaussian({4, 8}, 3000 + 10 * k);
    in.attend.wq = gaussian({8, 8}, 3001 + 10 * k);
    in.attend.wk = gaussian({8, 8}, 3002 + 10 * k);
    in.attend.wv = gaussian({8, 8}, 3003 + 10 * k);
    in.attend.heads = 2;
    absolute.push_back({fmt::format("draw{}", k), std::move(in)});
  }
  out.push_back(set("attention/sinusoidal.json", "x + PE then projections (the four-term expansion), d_model 8, 2 heads",
                    "attend", "sinusoidal(dim=8)", std::move(absolute)));
  return out;
}

std::vector<case_set> seed_sets() {
  std::vector<case_set> out;
  // Seed 004's trace: d = 2, theta = pi/4 (the binary64 nearest, so the outputs are not exactly
  // +-sqrt(2)/2), q = k = [1, 0] at m = 3 and n = 1.
  op_inputs trace = positions({3, 1});
  trace.x = tensor<double>({2, 1, 2});
  trace.x.data = {1, 0, 1, 0};
  out.push_back(set("seeds/seed004_rope_trace.json", "seed 004: d = 2, theta = pi/4 (binary64), q = k = [1, 0] at m = 3, n = 1",
                    "rotate", "rope(dim=2, freqs=[0.7853981633974483])", {{"m3_n1", std::move(trace)}}));
  out.push_back(set("seeds/seed004_wavelengths_d768.json",
                    "seed 004: the 384 frequencies of d_model = 768 (wavelength 2 pi / w_i: 6.28 at i = 0, 61342.74 at i = 383)",
                    "inv_freq", "rope(dim=768)", {{"frequencies", op_inputs{}}}));
  return out;
}

}  // namespace

const std::vector<std::int64_t>& hard_positions() {
  static const std::vector<std::int64_t> p = {0, 1, 255, 256, 257, two_24 - 1, two_24, two_24 + 1, (std::int64_t{1} << 31) - 1,
                                              std::int64_t{1} << 40};
  return p;
}

const std::vector<case_set>& case_sets() {
  static const std::vector<case_set> all = [] {
    std::vector<case_set> out;
    for (auto part : {seed_sets(), encode_sets(), rope_sets(), relative_sets(), attend_sets()})
      for (auto& s : part) out.push_back(std::move(s));
    return out;
  }();
  return all;
}

std::string generator_name() { return fmt::format("pecheck {}", PECHECK_VERSION); }

golden_file compute(const case_set& set, unsigned bits) {
  mp_precision scope(bits);
  golden_file f;
  f.op = set.op;
  f.spec = set.spec;
  f.precision_bits = bits;
  f.generator = generator_name();
  f.comment = set.comment;
  const spec s = parse_spec(set.spec);
  for (const auto& c : set.cases) {
    golden_case gc;
    gc.id = c.id;
    gc.inputs = input_tensors(set.op, s, c.in);
    for (const auto& out : run_op<mp_real>(set.op, s, c.in)) {
      golden_tensor t{out.name, "decimal", out.value.shape, {}};
      for (const auto& v : out.value.data) t.data.push_back(decimal_text(v));
      gc.outputs.push_back(std::move(t));
    }
    f.cases.push_back(std::move(gc));
  }
  return f;
}

}  // namespace pe::golden
