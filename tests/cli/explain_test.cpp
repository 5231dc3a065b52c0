// Tests that pecheck explains itself: --version, a misspelled option answered with the nearest one, old spellings kept with a deprecation line, and check's matrix.
#include <gtest/gtest.h>

#include <cstdio>
#include <algorithm>
#include <fstream>
#include <unistd.h>
#include <regex>
#include <sstream>
#include <string>

#include <nlohmann/json.hpp>

#include "support/run_pecheck.hpp"

namespace {

using pecheck_test::run;

// The version CMakeLists.txt's project() declares, read from the file, not from pecheck.
std::string project_version() {
  std::ifstream in(std::string(PECHECK_SOURCE_DIR) + "/CMakeLists.txt");
  std::stringstream text;
  text << in.rdbuf();
  std::smatch m;
  const std::string s = text.str();
  return std::regex_search(s, m, std::regex(R"(project\(pecheck VERSION ([0-9.]+))")) ? m[1].str() : "";
}

TEST(cli_version, says_the_projects_version) {
  const auto r = run("--version");
  EXPECT_EQ(r.exit_code, 0);
  ASSERT_FALSE(project_version().empty());
  EXPECT_EQ(r.out, "pecheck " + project_version() + "\n");
}

TEST(cli_unknown_option, the_nearest_option_is_suggested) {
  const auto r = run("eval encode 'sinusoidal(dim=4)' --postions 0:3");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_EQ(r.out, "");
  EXPECT_EQ(r.err, "pecheck eval: unknown option '--postions'; did you mean '--positions'? (pecheck eval --help lists them)\n");
  // A nested command names itself whole; an option of value=form is read up to its '='.
  const auto nested = run("golden verify --goldn=x");
  EXPECT_EQ(nested.exit_code, 2);
  EXPECT_EQ(nested.err, "pecheck golden verify: unknown option '--goldn'; did you mean '--golden'? (pecheck golden verify --help lists them)\n");
  // Nothing near: no guess.
  const auto far = run("gate --impl-reference --spec 'rope(dim=8)' --xyzzy");
  EXPECT_EQ(far.exit_code, 2);
  EXPECT_EQ(far.err, "pecheck gate: unknown option '--xyzzy' (pecheck gate --help lists them)\n");
  const auto word = run("eval encode 'sinusoidal(dim=4)' extra");
  EXPECT_EQ(word.exit_code, 2);
  EXPECT_EQ(word.err, "pecheck eval: unexpected argument 'extra' (pecheck eval --help says what it takes)\n");
}

// Each old spelling still works, says once that it is deprecated, and gives what the new one gives.
TEST(cli_vocabulary, old_spellings_work_with_a_deprecation_line) {
  struct renamed {
    std::string old_args, new_args, line;
  };
  const renamed cases[] = {
      {"eval encode 'sinusoidal(dim=4)' --pos 0:3", "eval encode 'sinusoidal(dim=4)' --positions 0:3", "pecheck: --pos is deprecated; use --positions\n"},
      {"eval bias 't5()' --qpos 0:2 --kpos 0:3", "eval bias 't5()' --query-positions 0:2 --key-positions 0:3",
       "pecheck: --qpos is deprecated; use --query-positions\npecheck: --kpos is deprecated; use --key-positions\n"},
      {"check --property '^binary' --spec binary --cases 3", "check --property '^binary' --scheme binary --cases 3",
       "pecheck: --spec is deprecated; use --scheme\n"},
      {"golden verify --only '^seeds/seed000' --dir " + std::string(PECHECK_SOURCE_DIR) + "/golden",
       "golden verify --only '^seeds/seed000' --golden " + std::string(PECHECK_SOURCE_DIR) + "/golden", "pecheck: --dir is deprecated; use --golden\n"},
  };
  for (const auto& c : cases) {
    const auto old_run = run(c.old_args), new_run = run(c.new_args);
    EXPECT_EQ(old_run.exit_code, 0) << c.old_args << ": " << old_run.err;
    EXPECT_EQ(new_run.exit_code, 0) << c.new_args << ": " << new_run.err;
    EXPECT_EQ(old_run.err, c.line) << c.old_args;
    EXPECT_EQ(new_run.err, "") << c.new_args;
    EXPECT_EQ(old_run.out, new_run.out) << c.old_args;
  }
  // The gate's --max-pos keeps its range check under the old name.
  const auto too_far = run("gate --impl-reference --spec 'rope(dim=8)' --max-pos 0");
  EXPECT_EQ(too_far.exit_code, 2);
  EXPECT_EQ(too_far.err, "pecheck: --max-pos: Value 0 not in range 1 to 1099511627776\n");
}

// The matrix: lines up to the first blank one.
std::vector<std::string> matrix_lines(const std::string& out) {
  std::vector<std::string> lines;
  std::istringstream in(out);
  for (std::string line; std::getline(in, line) && !line.empty();) lines.push_back(line);
  return lines;
}

TEST(cli_check, the_whole_matrix_fits_120_columns) {
  const auto r = run("check --cases 2");
  const auto lines = matrix_lines(r.out);
  ASSERT_GT(lines.size(), 50u) << r.out;  // every law of the registry has a row
  for (const auto& line : lines) EXPECT_LE(line.size(), 120u) << line;
  EXPECT_NE(r.out.find("\nattention\n  permutation_equivariance "), std::string::npos) << r.out;
}

// An expected failure reads "(x)" and replays with its reproduce line; a surprise reads "!.." and
// fails the run.
TEST(cli_check, expected_failures_read_apart_from_surprises) {
  const auto expected = run("check --property '^attention\\.permutation' --scheme '^(none|binary)$' --cases 20");
  EXPECT_EQ(expected.exit_code, 0) << expected.err;
  EXPECT_NE(expected.out.find("\n  permutation_equivariance   ok  (x)\n"), std::string::npos) << expected.out;
  EXPECT_NE(expected.out.find("    reproduce: pecheck check --property '^attention\\.permutation_equivariance$' --scheme '^binary$' --seed "),
            std::string::npos)
      << expected.out;
  // One case cannot find binary's known counterexample: the expectation is not met.
  const auto surprise = run("check --property '^attention\\.permutation' --scheme '^binary$' --cases 1");
  EXPECT_EQ(surprise.exit_code, 1);
  EXPECT_NE(surprise.out.find("\n  permutation_equivariance  !ok\n"), std::string::npos) << surprise.out;
  EXPECT_NE(surprise.out.find("0 of 1 expectations met"), std::string::npos) << surprise.out;
}

// What `args` writes to a terminal (script(1) gives it a pty), progress lines shown at once.
std::string on_a_terminal(const std::string& args) {
  FILE* pipe = popen(("script -qec \"PECHECK_PROGRESS_AFTER_MS=0 " + std::string(PECHECK_BINARY) + " " + args + " > /dev/null\" /dev/null").c_str(), "r");
  std::string terminal;
  char buf[4096];
  for (std::size_t n; (n = fread(buf, 1, sizeof buf, pipe)) > 0;) terminal.append(buf, n);
  pclose(pipe);
  return terminal;
}

// Every command that can run for long says on a terminal what it is doing, labelled by its name,
// and erases the line at the end; with stderr captured it prints nothing of it.
TEST(cli_progress, long_commands_show_progress_on_a_terminal) {
  const std::string check = "check --property '^binary' --cases 5";
  EXPECT_EQ(run(check).err, "");
  const auto c = on_a_terminal(check);
  EXPECT_NE(c.find("\rcheck: "), std::string::npos) << c;
  EXPECT_NE(c.find(" targets)"), std::string::npos) << c;
  const std::string audit = "audit --impl-reference --spec 'rope(dim=8)' --positions 0:64";
  EXPECT_EQ(run(audit).err, "");
  const auto a = on_a_terminal(audit);
  EXPECT_NE(a.find("\raudit: "), std::string::npos) << a;
  EXPECT_EQ(a.find("eval: "), std::string::npos) << a;
  const std::string gate = "gate --impl-reference --spec 'rope(dim=8)' --cases 3 --golden-scope none";
  EXPECT_EQ(run(gate).err, "");
  const auto g = on_a_terminal(gate);
  EXPECT_NE(g.find("gate: starting --impl-reference"), std::string::npos) << g;
  EXPECT_NE(g.find("gate: conformance."), std::string::npos) << g;
}

// Mistakes a newcomer makes get a line that says what to do.
TEST(cli_errors, lines_that_say_what_to_do) {
  const auto odd = run("eval rotate 'rope(dim=127)' --positions 0 --x 1");
  EXPECT_EQ(odd.exit_code, 2);
  EXPECT_EQ(odd.err, "pecheck: rope: dim=127 is odd; RoPE rotates pairs, so the rotated dims (rotary_dim, default dim) must be even\n");
  const auto config = run("diagnose --impl-reference --hf-config llama.json");
  EXPECT_EQ(config.exit_code, 2);
  EXPECT_EQ(config.err,
            "pecheck: diagnose: --hf-config llama.json: diagnose judges one spec; `pecheck spec from-hf llama.json` prints those it gives, "
            "pass one with --spec\n");
  const std::string not_json = ::testing::TempDir() + "pecheck_not_json_" + std::to_string(getpid()) + ".json";
  std::ofstream(not_json) << "{\"rope_theta\": 10000,\n \"oops\"}\n";
  const auto bad = run("spec from-hf " + not_json);
  std::remove(not_json.c_str());
  EXPECT_EQ(bad.exit_code, 2);
  EXPECT_EQ(bad.err, "pecheck: " + not_json + ": not valid JSON, at line 2, column 8: syntax error while parsing object separator - unexpected '}'; expected ':'\n");
}

// The lines of `text` from the one that starts with `head` to the one before the next check's.
std::vector<std::string> block_of(const std::string& text, const std::string& head) {
  std::vector<std::string> out;
  std::istringstream in(text);
  bool inside = false;
  for (std::string line; std::getline(in, line);) {
    if (line.rfind(head, 0) == 0) inside = true;
    else if (inside && !line.starts_with("    ")) break;
    if (inside) out.push_back(line);
  }
  return out;
}

// A gate FAIL shows its minimal case by name, in lines of at most 120 columns, with the whole case
// in --json; a conformance FAIL ends with the pecheck diagnose command, which names the bug.
TEST(cli_gate, a_fail_shows_its_case_by_name_and_the_diagnose_command) {
  const std::string json_file = ::testing::TempDir() + "pecheck_fail_case_" + std::to_string(getpid()) + ".json";
  const auto r = run(std::string("gate --impl ") + OFF_BY_ONE_MUTANT + " --spec 'rope(dim=64)' --golden-scope none --cases 30 --json " + json_file);
  EXPECT_EQ(r.exit_code, 1) << r.err;
  const auto rotate = block_of(r.out, "FAIL        conformance.rotate ");
  ASSERT_GE(rotate.size(), 4u) << r.out;
  // Its inputs as handed to the implementation: x [tokens, heads, dim] in short, the positions.
  EXPECT_TRUE(rotate[2].starts_with("    minimal case: x [1, 1, 64] = [64 values, 0 but [")) << rotate[2];
  EXPECT_NE(rotate[2].find("; pos [1] = [1]"), std::string::npos) << rotate[2];
  const std::string diagnose_line = rotate.back();
  ASSERT_TRUE(diagnose_line.starts_with("    diagnose:  pecheck diagnose --impl '")) << diagnose_line;
  EXPECT_TRUE(diagnose_line.ends_with(" --dtype f32 --working f32 --tolerance standard --spec 'rope(dim=64, base=10000, rotary_dim=64, layout=neox, "
                                      "truncate_low=0)' --op rotate"))
      << diagnose_line;
  // A law's case: each drawn value by its name, no C++ type names.
  const auto law = block_of(r.out, "FAIL        rope.tables_match_rotate ");
  ASSERT_GE(law.size(), 3u) << r.out;
  std::string law_case;
  for (const auto& line : law) {
    if (line.rfind("    reproduce:", 0) == 0) break;
    if (!law_case.empty() || line.rfind("    minimal case: ", 0) == 0) law_case += line + "\n";
    if (!law_case.empty()) EXPECT_LE(line.size(), 120u) << line;
  }
  EXPECT_TRUE(law_case.starts_with("    minimal case: spec = \"rope(dim=64")) << law_case;
  EXPECT_NE(law_case.find("; tokens = "), std::string::npos) << law_case;
  EXPECT_EQ(law_case.find("std::"), std::string::npos) << law_case;
  EXPECT_EQ(law_case.find("long ="), std::string::npos) << law_case;
  // The command the diagnose line gives runs as printed and names the bug.
  const auto diagnosis = run(diagnose_line.substr(std::string("    diagnose:  pecheck ").size()));
  EXPECT_EQ(diagnosis.exit_code, 1) << diagnosis.err;
  EXPECT_NE(diagnosis.out.find("positions+1"), std::string::npos) << diagnosis.out;
  // --json holds the whole case: every value of x, by name.
  std::ifstream in(json_file);
  const auto j = nlohmann::json::parse(in);
  std::remove(json_file.c_str());
  bool seen = false;
  for (const auto& c : j["checks"]) {
    if (c["check"] != "conformance.rotate") continue;
    seen = true;
    EXPECT_EQ(c["diagnose"], diagnose_line.substr(std::string("    diagnose:  ").size()));
    ASSERT_EQ(c["minimal_case"].size(), 2u) << c.dump();
    EXPECT_EQ(c["minimal_case"][0]["name"], "x [1, 1, 64]");
    const std::string values = c["minimal_case"][0]["value"];
    EXPECT_EQ(std::count(values.begin(), values.end(), ','), 63) << values;
    EXPECT_EQ(c["minimal_case"][1]["name"], "pos [1]");
  }
  EXPECT_TRUE(seen) << j.dump();
}

// check's minimal case: each drawn value by name, within 120 columns.
TEST(cli_check, a_counterexample_shows_each_value_by_name) {
  const auto r = run("check --property '^attention\\.permutation' --scheme '^(alibi|rope)$' --cases 30");
  EXPECT_EQ(r.exit_code, 0) << r.err;
  std::istringstream in(r.out);
  int cases = 0;
  bool in_case = false;
  for (std::string line; std::getline(in, line);) {
    if (line.rfind("    minimal case: spec = ", 0) == 0) ++cases, in_case = true;
    else if (!line.starts_with("      ")) in_case = false;
    if (!in_case) continue;
    EXPECT_LE(line.size(), 120u) << line;
    EXPECT_EQ(line.find("std::"), std::string::npos) << line;
    EXPECT_EQ(line.find("long ="), std::string::npos) << line;
  }
  EXPECT_EQ(cases, 2) << r.out;
  EXPECT_NE(r.out.find("; tokens = "), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("; q = ["), std::string::npos) << r.out;
}

}  // namespace
