// Tests for src/gate/report_printers.hpp on a small synthetic report: the text lines, JSON that parses with
// the right fields, JUnit with the right counts and escapes.
#include <cmath>
#include <regex>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "gate/report_printers.hpp"

namespace pe::gate {
namespace {

check_result result_of(std::string check, std::string spec, verdict v) {
  check_result r{std::move(check), std::move(spec)};
  r.result = v;
  return r;
}

// Six checks on two specs: a pass, a fatal failure, an unsupported op, a skipped golden file, a
// law's pass with declined calls, an INCOMPLETE law; "t5()" passed nothing.
gate_report sample() {
  gate_report g;
  g.implementation = "kernel <\"A&B\">";
  g.dtype = "f32", g.working = "f32", g.tolerance = "standard";
  g.specs = {"rope(dim=8)", "t5()"};
  auto pass = result_of("conformance.rotate", "rope(dim=8)", verdict::pass);
  pass.cases = 1, pass.worst_ulps = 1.5, pass.worst_fraction = 0.25;
  auto crash = result_of("determinism", "rope(dim=8)", verdict::fail);
  crash.first_failure_fraction = INFINITY;
  crash.detail = "crashed: killed by signal 11\n    minimal case: 3";
  crash.reproduce = "pecheck gate --impl 'k.so' --spec 'rope(dim=8)'";
  auto declined = result_of("conformance.bias", "t5()", verdict::unsupported);
  declined.detail = "k answered unsupported for bias t5()";
  auto golden = result_of("golden", "t5()", verdict::skipped);
  golden.detail = "no golden file of t5";
  auto law = result_of("rope.norm_preservation", "rope(dim=8)", verdict::pass);
  law.law = true, law.cases = 7, law.unsupported = 2, law.worst_fraction = 0.5;
  auto partial = result_of("rope.linearity", "rope(dim=8)", verdict::incomplete);
  partial.law = true, partial.cases = 3, partial.planned = 100, partial.unsupported = 40;
  partial.detail = "3 of the 100 cases asked for were answered (rotate declined)";
  g.results = {pass, crash, declined, golden, law, partial};
  g.unchecked = {"t5()"};
  g.failed = true;
  g.max_pos = std::int64_t{1} << 40;
  g.incomplete = 1;
  return g;
}

TEST(gate_report_text, one_line_per_check_then_the_unchecked_specs) {
  EXPECT_EQ(text_results(sample()),
            "gate: kernel <\"A&B\"> at f32 I/O, f32 working, standard tolerance\n"
            "PASS        conformance.rotate           rope(dim=8)  (1 case; worst 1.5 ulp f32, 0.25 of its bound)\n"
            "FAIL        determinism                  rope(dim=8)\n"
            "    crashed: killed by signal 11\n"
            "    minimal case: 3\n"
            "    reproduce: pecheck gate --impl 'k.so' --spec 'rope(dim=8)'\n"
            "UNSUPPORTED conformance.bias             t5()\n"
            "    k answered unsupported for bias t5()\n"
            "SKIPPED     golden                       t5()\n"
            "    no golden file of t5\n"
            "PASS        rope.norm_preservation       rope(dim=8)  (7 cases; worst 0.5 of its bound)\n"
            "    2 calls answered unsupported: those cases were left out\n"
            "INCOMPLETE  rope.linearity               rope(dim=8)\n"
            "    40 calls answered unsupported: those cases were left out\n"
            "    3 of the 100 cases asked for were answered (rotate declined)\n"
            "NOTHING     checked                      t5()  (no check passed on a call with a position past 0)\n");
}

TEST(gate_report_text, the_summary_has_the_bench_line_and_the_verdict) {
  auto g = sample();
  EXPECT_EQ(text_summary(g), "gate: FAIL at positions up to 2^40\n");
  EXPECT_EQ(g.exit_status(), 1);
  g.failed = false;
  EXPECT_EQ(text_summary(g),
            "gate: INCOMPLETE at positions up to 2^40 (1 check INCOMPLETE, 1 spec unchecked: what was declined was not checked; "
            "--allow-partial OP[,OP] accepts an op's declined cases, --max-position N declares a narrower range of positions)\n");
  EXPECT_EQ(g.exit_status(), 1);
  g.incomplete = 0, g.unchecked.clear(), g.allow_partial = {"rotate"}, g.max_pos = 1048575;
  g.bench = bench_timing{3, 1.5};
  EXPECT_EQ(text_summary(g),
            "bench: 3.000 s for 2 spec(s) (1.500 s per spec); baseline (the in-process reference, same checks) 1.500 s; ratio 2.00\n"
            "gate: PASS at positions up to 1048575, partial accepted: rotate\n");
  EXPECT_EQ(g.exit_status(), 0);
  g.nothing_supported = true;
  EXPECT_EQ(text_summary(g).substr(text_summary(g).find("gate:")), "gate: NOTHING SUPPORTED: kernel <\"A&B\"> answered no call of any spec\n");
  EXPECT_EQ(g.exit_status(), 2);
}

// A run in layouts: each check's spec followed by its layout in the text, a layout field in the
// JSON (contiguous where the run named none); the tables' dtype on the first line where it is not
// the I/O dtype.
TEST(gate_report_text, a_layout_follows_the_spec_and_other_tables_are_said) {
  gate_report g = sample();
  g.table_dtype = "f64";
  g.layouts = {"contiguous", "transposed"};
  g.results[0].layout = "transposed";
  const std::string text = text_results(g);
  EXPECT_EQ(text.substr(0, text.find('\n', text.find('\n') + 1) + 1),
            "gate: kernel <\"A&B\"> at f32 I/O (f64 tables), f32 working, standard tolerance\n"
            "PASS        conformance.rotate           rope(dim=8) [layout transposed]  (1 case; worst 1.5 ulp f32, 0.25 of its bound)\n");
  const auto j = nlohmann::json::parse(json_report(g));
  EXPECT_EQ(j["checks"][0]["layout"], "transposed");
  EXPECT_EQ(j["checks"][1]["layout"], "contiguous");
  EXPECT_EQ(j["layouts"], nlohmann::json::array({"contiguous", "transposed"}));
  EXPECT_EQ(j["table_dtype"], "f64");
}

TEST(gate_report_json, parses_with_one_entry_per_check) {
  const auto j = nlohmann::json::parse(json_report(sample()));
  EXPECT_EQ(j["format"], "pecheck-gate/1");
  EXPECT_EQ(j["implementation"], "kernel <\"A&B\">");
  EXPECT_EQ(j["max_pos"], std::int64_t{1} << 40);
  EXPECT_EQ(j["verdict"], "FAIL");
  EXPECT_EQ(j["exit_status"], 1);
  EXPECT_EQ(j["unchecked"], nlohmann::json::array({"t5()"}));
  ASSERT_EQ(j["checks"].size(), 6u);
  EXPECT_EQ(j["checks"][5]["result"], "INCOMPLETE");
  EXPECT_EQ(j["checks"][5]["planned_cases"], 100);
  EXPECT_EQ(j["checks"][0]["result"], "PASS");
  EXPECT_EQ(j["checks"][0]["worst_ulps"], 1.5);
  EXPECT_TRUE(j["checks"][1]["first_failure_fraction_of_bound"].is_null());  // a fatal call: no margin
  EXPECT_EQ(j["checks"][1]["detail"], "crashed: killed by signal 11\n    minimal case: 3");
  EXPECT_EQ(j["checks"][4]["unsupported_calls"], 2);
}

TEST(gate_report_junit, counts_failures_and_skips_and_escapes_the_names) {
  auto g = sample();
  std::string xml = junit_report(g);
  // The INCOMPLETE law is a failure until --allow-partial accepts it; then it is skipped.
  EXPECT_NE(xml.find("<testsuite name=\"pecheck gate: kernel &lt;&quot;A&amp;B&quot;&gt;\" tests=\"6\" failures=\"2\" skipped=\"2\">"),
            std::string::npos)
      << xml;
  EXPECT_NE(xml.find("<property name=\"max_pos\" value=\"1099511627776\"/>"), std::string::npos) << xml;
  EXPECT_NE(xml.find("<failure message=\"INCOMPLETE: 3 of the 100 cases"), std::string::npos) << xml;
  g.results[5].accepted = true;
  EXPECT_NE(junit_report(g).find("tests=\"6\" failures=\"1\" skipped=\"3\">"), std::string::npos);
  g.results[5].accepted = false;
  g.results.pop_back();
  xml = junit_report(g);
  const auto count = [&](const std::string& what) {
    const std::regex re(what);
    return std::distance(std::sregex_iterator(xml.begin(), xml.end(), re), std::sregex_iterator());
  };
  EXPECT_EQ(count("<testcase "), 5);
  EXPECT_EQ(count("<failure message=\"crashed: killed by signal 11\">"), 1);  // the detail's first line
  EXPECT_EQ(count("<skipped message=\"(UNSUPPORTED|SKIPPED): "), 2);
  EXPECT_EQ(xml.substr(xml.size() - 13), "</testsuite>\n");
}

}  // namespace
}  // namespace pe::gate
