// Tests that diagnose names every variant of its neighbourhood (src/audit/candidates.hpp) in words: each variant's words
// are short, list-free and unique, a diagnosis whose best fit it is says them in at most 120 columns, and an
// implementation that computes it is diagnosed so.
#include <gtest/gtest.h>

#include <cctype>
#include <set>
#include <string>
#include <vector>

#include "audit/candidates.hpp"
#include "audit/diagnose.hpp"
#include "gate/io.hpp"
#include "gate/op_io.hpp"
#include "pe/spec.hpp"

namespace pe::audit {
namespace {

// Specs and ops that together reach every entry of the table: each parameter kind, scaling and
// op kind the entries apply to.
struct probe {
  const char* spec;
  const char* op;
};
const std::vector<probe>& probes() {
  static const std::vector<probe> all{
      {"rope(dim=64, rotary_dim=16)", "rotate"},  // the window, the head-dim denominator and products
      {"rope(dim=64, rotary_dim=32, scaling=yarn(factor=4, original_max=2048))", "rotate"},  // attention factor, ramp
      {"rope(dim=128, base=500000, scaling=llama3(factor=8, original_max=8192))", "rotate"},  // bands
      {"rope(dim=64, scaling=dynamic(factor=4, original_max=2048))", "rotate"},                // the call's length
      {"rope(dim=16, scaling=longrope(short_factor=[1, 1.5, 2, 2.5, 3, 3.5, 4, 4.5], long_factor=[1, 2, 4, 8, 16, 32, 48, 64], "
       "original_max=4096, max_pos=131072))",
       "rotate"},
      {"rope(dim=64, scaling=linear(factor=8))", "rotate"},
      {"rope(dim=64, layout=gptj)", "rotate_grad"},
      {"rope(dim=64)", "apply_tables"},
      {"rope(dim=64)", "rotate_qk"},
      {"mrope(dim=64, sections=[8, 12, 12])", "rotate"},
      {"rope_nd(axes=[16, 24, 24])", "rotate"},
      {"xpos(dim=64)", "rotate"},
      {"sinusoidal(dim=32, layout=fairseq)", "encode"},
      {"alibi(heads=12)", "bias"},
      {"t5(bidirectional=false)", "bucket"},
      {"kerple(heads=2, variant=log, r1=[1, 0.5], r2=[1, 2])", "bias"},
      {"llama4_temperature()", "scale"},
  };
  return all;
}

// A variant's name with its numbers as N: one entry of the table ("positions capped at N").
std::string entry_of(const std::string& name) {
  std::string out;
  for (std::size_t k = 0; k < name.size(); ++k)
    if (std::isdigit(static_cast<unsigned char>(name[k]))) {
      if (out.empty() || out.back() != 'N') out += 'N';
    } else {
      out += name[k];
    }
  return out;
}

// A diagnosis whose best fit is `best` and runner-up `second`, over finite outputs.
diagnosis fitted(const variant& best, double residual, const variant& second) {
  diagnosis d;
  d.asked = "rope(dim=64)", d.calls = 6, d.elements = 3072;
  d.ranked = {{best.name, best.label, best.words, residual, residual}, {second.name, second.label, second.words, 3.5e5, 1e6}};
  return d;
}

TEST(variant_words, are_short_plain_and_unique_in_every_neighbourhood) {
  for (const auto& p : probes()) {
    const auto variants = neighbourhood(parse_spec(p.spec), p.op);
    std::set<std::string> seen;
    for (const auto& v : variants) {
      SCOPED_TRACE(std::string(p.spec) + " " + p.op + ": " + v.name);
      EXPECT_FALSE(v.words.empty());
      EXPECT_LE(v.words.size(), variant_words_columns) << v.words;
      EXPECT_EQ(v.words.find('['), std::string::npos) << v.words;  // no list
      EXPECT_EQ(v.words.find('='), std::string::npos) << v.words;  // no spec text
      EXPECT_TRUE(seen.insert(v.words).second) << "words shared by two variants: " << v.words;
    }
  }
}

TEST(variant_words, every_entry_of_the_table_is_reached) {
  std::set<std::string> reached;
  for (const auto& p : probes())
    for (const auto& v : neighbourhood(parse_spec(p.spec), p.op)) reached.insert(entry_of(v.name));
  // The table, one name per entry (numbers as N): a new entry fails here until a probe reaches it.
  const std::set<std::string> table{
      "as asked", "forward, not transposed", "no gradient", "layout=gptj", "layout=neox", "scaling.truncate=false",
      "scaling.magnitude=ggml", "interleaved=true", "layout=concat", "layout=interleaved", "bidirectional=true", "causal=false",
      "variant=power", "rN<->rN", "base=N", "base=Ne+N", "positions+N", "positions-N", "positions negated", "positions minus first", "first+t",
      "N..T-N", "positions in bfN", "positions in fN", "positions capped at N", "inv_freq in bfN", "inv_freq in fN",
      "scaling bands swapped", "scaling weight at Nk", "denominator head dim", "rotary_dim=dim", "rotary window at the end",
      "attention factor missing", "attention factor twice", "attention factor on pass-through", "no scaling",
      "scaling.original_max x factor", "scaling.short factors always", "scaled at every length", "call length+N", "call length-N",
      "x of head N", "x in fN", "x and y in fN", "x in bfN", "x and y in bfN", "roles swapped", "tables by head",
      "sin for cos in the first output", "tables a row late", "tables a row early", "tables in fN", "tables in bfN",
      "q and k cross-wired", "k with q's head count", "key heads off by one", "slopes N^(-N(h+N)/heads)",
      "slopes of the next power of two", "last bucket not clamped", "angles in bfN", "angles in fN", "cos/sin in bfN",
      "cos/sin in fN", "iterated products over the rotary dim", "iterated products over the head dim", "sin sign in one output"};
  for (const auto& e : table) EXPECT_TRUE(reached.count(e)) << "no probe reaches " << e;
  for (const auto& e : reached) EXPECT_TRUE(table.count(e)) << "an entry the test does not list: " << e;
}

TEST(variant_words, a_diagnosis_names_its_best_fit_in_words_within_120_columns) {
  for (const auto& p : probes()) {
    const auto variants = neighbourhood(parse_spec(p.spec), p.op);
    for (std::size_t k = 1; k < variants.size(); ++k) {
      const auto& v = variants[k];
      SCOPED_TRACE(std::string(p.spec) + " " + p.op + ": " + v.name);
      for (const double residual : {0.0312, 2.43e5}) {  // within the bound, and the nearest of none within it
        const auto sentence = fitted(v, residual, variants[0]).sentence();
        EXPECT_NE(sentence.find(v.words), std::string::npos) << sentence;
        EXPECT_LE(sentence.size(), sentence_columns) << sentence;
        EXPECT_EQ(sentence.find('['), std::string::npos) << sentence;
        EXPECT_EQ(sentence.find(p.spec), std::string::npos) << sentence;  // the asked spec is on the line above
      }
    }
  }
}

TEST(variant_words, the_as_asked_sentence_fits_and_names_no_variant) {
  const auto variants = neighbourhood(parse_spec(probes()[1].spec), "rotate");
  const auto sentence = fitted(variants[0], 0.0312, variants[1]).sentence();
  EXPECT_EQ(sentence.rfind("this implementation computes what was asked; residual 0.0312 of the bound", 0), 0u) << sentence;
  EXPECT_LE(sentence.size(), sentence_columns);
}

// An implementation computing variant v of the spec it is asked (in binary64, its outputs rounded to their dtype).
class computes_the_variant final : public gate::implementation {
 public:
  explicit computes_the_variant(variant v) : v_(std::move(v)) {}
  std::string name() const override { return v_.name; }
  gate::call_result run(const std::string& op, const std::string& spec_text, const std::vector<gate::io_tensor>& inputs,
                        const std::vector<gate::io_tensor>& outputs) override {
    gate::call_result r;
    expected e;
    try {
      e = expected_output(v_, op, gate::op_inputs_of(op, parse_spec(spec_text), inputs));
    } catch (const std::exception& error) {  // a variant that cannot take these inputs (a negative position)
      r.status = gate::call_status::error, r.message = error.what();
      return r;
    }
    std::vector<double> all(e.output.data.size());
    for (std::size_t k = 0; k < all.size(); ++k) all[e.at.empty() ? k : e.at[k]] = e.output.data[k];
    std::size_t from = 0;
    for (const auto& o : outputs) {
      tensor<double> part(o.shape);
      std::copy_n(all.begin() + static_cast<std::ptrdiff_t>(from), part.data.size(), part.data.begin());
      from += part.data.size();
      if (gate::is_real(o.type)) {
        r.outputs.push_back(gate::real_tensor(o.name, o.type, part));
      } else {  // bucket indices
        std::vector<std::int64_t> whole(part.data.begin(), part.data.end());
        r.outputs.push_back(gate::integer_tensor(o.name, o.shape, whole));
      }
    }
    return r;
  }

 private:
  variant v_;
};

// End to end: each variant computed is diagnosed as itself, or as an earlier entry that computes the
// same on the diagnosis's calls (the table prefers the earliest that fits), and the sentence says
// the winner's words, or where its NaN outputs are. Those earlier entries are listed: any other is
// a diagnosis that misnames.
TEST(variant_words, an_implementation_computing_a_variant_is_named_by_its_words) {
  // (entry computed, entry diagnosed): the same outputs on these calls.
  const std::set<std::pair<std::string, std::string>> same_on_the_calls{
      {"iterated products over the rotary dim", "as asked"},    // binary32 products within the bound
      {"iterated products over the rotary dim", "no scaling"},  // the products are of base^(-2/n): unscaled
      {"iterated products over the head dim", "denominator head dim"},
      {"scaling.magnitude=ggml", "as asked"},             // at factor 4 ggml's 1 + 0.1 ln 4 is HF's factor
      {"positions negated", "forward, not transposed"},  // rotate_grad: the transpose turned forward
      {"base=N", "as asked"},                            // apply_tables reads its tables, not the base
      {"base=Ne+N", "as asked"},
      {"interleaved=true", "as asked"},       // mrope's probe gives every axis one position
      {"positions capped at N", "as asked"},  // xpos's positions stay within its scale's reach
      {"positions capped at N", "N..T-N"},    // llama4_temperature: 1 at every position below its floor_scale 8192
  };
  int named = 0, total = 0, uncomputable = 0;
  for (const auto& p : probes()) {
    const auto variants = neighbourhood(parse_spec(p.spec), p.op);
    for (std::size_t k = 1; k < variants.size(); ++k) {
      SCOPED_TRACE(std::string(p.spec) + " " + p.op + ": " + variants[k].name);
      computes_the_variant impl(variants[k]);
      diagnose_request q;
      q.spec = p.spec, q.op = p.op;
      const auto d = diagnose(q, impl);
      const auto sentence = d.sentence();
      if (!d.failed.empty()) {  // a model some call cannot take computes nothing to diagnose there
        ++uncomputable;
        continue;
      }
      ++total;
      ASSERT_FALSE(d.ranked.empty());
      const auto& best = d.ranked[0];
      EXPECT_LE(best.residual, 1) << sentence;
      EXPECT_TRUE(best.name == variants[k].name || same_on_the_calls.count({entry_of(variants[k].name), entry_of(best.name)}))
          << "diagnosed as " << best.name << ": " << sentence;
      // A model whose angles overflow (f16) computes NaN: the sentence names where they are first.
      if (d.non_finite > 0) EXPECT_EQ(sentence.rfind(d.non_finite_at, 0), 0u) << sentence;
      else EXPECT_NE(sentence.find(best.words), std::string::npos) << sentence;
      EXPECT_LE(sentence.size(), sentence_columns) << sentence;
      named += best.name == variants[k].name;
    }
  }
  std::printf("%d of %d variants computed were diagnosed as themselves, the rest as an entry computing the same; %d fail some call\n", named,
              total, uncomputable);
  EXPECT_EQ(uncomputable, 1);  // llama4_temperature's negated positions: it takes none below 0
}

}  // namespace
}  // namespace pe::audit
