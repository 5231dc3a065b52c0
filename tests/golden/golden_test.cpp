// Tests for src/golden: the repository's golden tree verifies, regen is a no-op, any changed digit or corrupt file is
// named, and the double, float, bf16 and fp16 references sit within their ulp bounds of every golden value.
#include <filesystem>
#include <fstream>
#include <sstream>

#include <fmt/format.h>
#include <gtest/gtest.h>

#include "golden/case_sets.hpp"
#include "golden/golden_file.hpp"
#include "golden/golden_tree.hpp"
#include "golden/manifest.hpp"
#include "pe/error.hpp"
#include "pe/ulp.hpp"

namespace pe::golden {
namespace {
namespace fs = std::filesystem;

const fs::path repo_golden = fs::path(PECHECK_SOURCE_DIR) / "golden";

std::string read(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}
void write(const fs::path& p, const std::string& text) {
  std::ofstream out(p, std::ios::binary | std::ios::trunc);
  out << text;
}

// A scratch copy of the repository's golden tree.
fs::path scratch_copy(const std::string& name) {
  const fs::path dir = fs::path(::testing::TempDir()) / ("pecheck_golden_" + name + "_" + std::to_string(getpid()));
  fs::remove_all(dir);
  fs::copy(repo_golden, dir, fs::copy_options::recursive);
  return dir;
}

// Rewrites MANIFEST.json's hash of `path` so that only the value check can catch a change.
void rehash(const fs::path& dir, const std::string& path) {
  auto m = parse_manifest(read(dir / "MANIFEST.json"), "MANIFEST.json");
  for (auto& f : m.files)
    if (f.path == path) f.sha256 = sha256_hex(read(dir / path));
  write(dir / "MANIFEST.json", to_text(m));
}

std::string joined(const std::vector<std::string>& lines) {
  std::string out;
  for (const auto& l : lines) out += l + "\n";
  return out;
}

// ... and is regen's layout byte for byte: no formatting note (provenance notes depend on the MPFR installed).
TEST(golden_tree, the_repository_tree_verifies) {
  const auto report = verify(repo_golden);
  EXPECT_TRUE(report.problems.empty()) << joined(report.problems);
  EXPECT_EQ(joined(report.notes).find("formatting"), std::string::npos) << joined(report.notes);
}

TEST(golden_tree, has_several_hundred_cases_under_a_few_megabytes) {
  std::size_t cases = 0, bytes = 0;
  for (const auto& s : case_sets()) {
    cases += s.cases.size();
    bytes += fs::file_size(repo_golden / s.path);
  }
  EXPECT_GE(cases, 300u);
  EXPECT_LT(bytes, 5u << 20);
  std::cout << cases << " cases in " << case_sets().size() << " files, " << bytes << " bytes\n";
}

// Regenerating with no change in the code writes the same bytes (into an empty directory, so a
// regen that wrote nothing could not pass).
TEST(golden_tree, regen_is_a_no_op_without_a_code_change) {
  const fs::path dir = fs::path(::testing::TempDir()) / ("pecheck_golden_fresh_" + std::to_string(getpid()));
  fs::remove_all(dir);
  regen(dir, std::nullopt);
  for (const auto& s : case_sets()) EXPECT_EQ(read(dir / s.path), read(repo_golden / s.path)) << s.path;
  EXPECT_EQ(read(dir / "MANIFEST.json"), read(repo_golden / "MANIFEST.json"));
  fs::remove_all(dir);
}

// One digit changed in any file (and the hash updated to match) is caught by the value check,
// with the file, case, output and element named; without the rehash, by the manifest.
TEST(golden_tree, one_changed_digit_in_any_file_is_named) {
  const fs::path dir = scratch_copy("digit");
  for (const auto& s : case_sets()) {
    const std::string original = read(dir / s.path);
    const auto f = parse_golden(original, s.path);
    // The last case's first output, element in the middle: change its last significant digit
    // (the 46th: 1e-45 relative, below the 1e-35 drift allowance, still caught as text).
    const auto& c = f.cases.back();
    const auto& t = c.outputs.front();
    const size_t e = t.data.size() / 2;
    const std::string old_value = t.data[e];
    std::string new_value = old_value;
    size_t digit = 0, seen = 0;
    for (size_t k = 0; k < new_value.size() && seen < 46; ++k)
      if (std::isdigit(static_cast<unsigned char>(new_value[k]))) digit = k, ++seen;
    if (new_value == "0" || new_value == "-0") new_value = "1e-20";
    else new_value[digit] = new_value[digit] == '9' ? '8' : static_cast<char>(new_value[digit] + 1);
    std::string changed = original;
    const std::string needle = "\"" + old_value + "\"";
    size_t at = 0;
    for (size_t n = 0, k = 0; (k = changed.find(needle, k)) != std::string::npos; ++k) at = k, ++n;  // the last occurrence
    changed.replace(at, needle.size(), "\"" + new_value + "\"");
    write(dir / s.path, changed);
    const std::regex just_this("^" + s.path + "$");
    const auto hash_problems = verify(dir, just_this).problems;
    ASSERT_FALSE(hash_problems.empty()) << s.path;
    EXPECT_NE(joined(hash_problems).find("does not match MANIFEST.json"), std::string::npos) << s.path;
    rehash(dir, s.path);
    const std::string problems = joined(verify(dir, just_this).problems);
    EXPECT_NE(problems.find((dir / s.path).string() + ": case "), std::string::npos) << s.path << "\n" << problems;
    EXPECT_NE(problems.find("differs from the recomputed"), std::string::npos) << s.path << "\n" << problems;
    EXPECT_NE(problems.find("at 256 bits"), std::string::npos) << s.path << "\n" << problems;
    write(dir / s.path, original);
    rehash(dir, s.path);
  }
  // Every file and the manifest restored byte for byte (what a full verify would confirm, without
  // recomputing every case a second time).
  for (const auto& s : case_sets()) EXPECT_EQ(read(dir / s.path), read(repo_golden / s.path)) << s.path;
  EXPECT_EQ(read(dir / "MANIFEST.json"), read(repo_golden / "MANIFEST.json"));
  fs::remove_all(dir);
}

struct corruption {
  const char* what;
  std::string (*apply)(const std::string&);
  const char* message;  // must appear in verify's report
};

TEST(golden_tree, corrupt_files_are_named_with_their_case) {
  const std::string target = "rope/llama2_7b.json";
  const std::vector<corruption> corruptions = {
      {"truncated JSON", [](const std::string& s) { return s.substr(0, s.size() / 2); }, "rope/llama2_7b.json: is not valid JSON"},
      {"a non-numeric output", [](const std::string& s) {
         std::string t = s;
         const auto at = t.find("\"outputs\"");
         const auto q = t.find('"', t.find("\"data\"", at) + 7);
         return t.replace(q, t.find('"', q + 1) - q + 1, "\"abc\"");
       }, "rope/llama2_7b.json: case p0 outputs y element 0: 'abc' is not a decimal number"},
      {"a shape that does not match the data", [](const std::string& s) {
         std::string t = s;
         const auto at = t.find("\"shape\"", t.find("\"outputs\""));
         const auto n = t.find("128", at);
         return t.replace(n, 3, "127");
       }, "rope/llama2_7b.json: case p0 outputs y: shape [1, 2, 127] holds 254 values but data has 256"},
      {"a hex input that is not hex", [](const std::string& s) {
         std::string t = s;
         const auto q = t.find("\"0x", t.find("\"x\""));
         return t.replace(q, 3, "\"1x");
       }, "is not a C99 hex float"},
      // Files that still hash right but no longer say what the definitions say, or reach outside the tree.
      {"a case dropped", [](const std::string& s) {
         std::string t = s;
         const auto last = t.rfind("  {\n   \"id\"");
         const auto before = t.rfind("},", last);
         return t.substr(0, before + 1) + "\n ]\n}\n";
       }, "rope/llama2_7b.json: 9 cases, MANIFEST.json says 10"},
      {"a position changed", [](const std::string& s) {
         std::string t = s;
         const std::string from = "\"data\": [\n      256\n", to = "\"data\": [\n      258\n";
         return t.replace(t.find(from), from.size(), to);
       }, "rope/llama2_7b.json: case p256: input pos element 0 is 258, the definition's is 256"},
      {"a case id that climbs out", [](const std::string& s) {
         std::string t = s;
         const std::string from = "\"id\": \"p0\"";
         return t.replace(t.find(from), from.size(), "\"id\": \"../x\"");
       }, "case id '../x' is not made of letters, digits"},
  };
  for (const auto& c : corruptions) {
    const fs::path dir = scratch_copy("corrupt");
    write(dir / target, c.apply(read(dir / target)));
    rehash(dir, target);
    const std::string problems = joined(verify(dir).problems);
    EXPECT_NE(problems.find(c.message), std::string::npos) << c.what << "\n" << problems;
    fs::remove_all(dir);
  }
  {  // a manifest path outside the tree, and a stray file
    const fs::path dir = scratch_copy("paths");
    auto m = parse_manifest(read(dir / "MANIFEST.json"), "MANIFEST.json");
    m.files[0].path = "../../etc/passwd.json";
    write(dir / "MANIFEST.json", to_text(m));
    write(dir / "rope" / "stray.json", "{}");
    const std::string problems = joined(verify(dir).problems);
    EXPECT_NE(problems.find("path '../../etc/passwd.json' is not a .json file inside the tree"), std::string::npos) << problems;
    EXPECT_NE(problems.find("rope/stray.json: not in MANIFEST.json"), std::string::npos) << problems;
    fs::remove_all(dir);
  }
  {  // regen --only refuses to bless a damaged file it does not regenerate
    const fs::path dir = scratch_copy("only");
    write(dir / target, read(dir / target) + " ");
    EXPECT_THROW(regen(dir, std::regex("^seeds/")), input_error);
    fs::remove_all(dir);
  }
  // A wrong hash alone.
  const fs::path dir = scratch_copy("hash");
  auto m = parse_manifest(read(dir / "MANIFEST.json"), "MANIFEST.json");
  m.files[3].sha256 = std::string(64, '0');
  write(dir / "MANIFEST.json", to_text(m));
  const std::string problems = joined(verify(dir).problems);
  EXPECT_NE(problems.find((dir / m.files[3].path).string() + ": SHA-256"), std::string::npos) << problems;
  fs::remove_all(dir);
}

// ---- The strict reader: what the parse sees is all the bytes say ----

const std::string small_file = "seeds/seed004_rope_trace.json";

// The message of the input_error that reading `text` as a golden file (or the manifest) throws; "" when it reads.
template <class Reader>
std::string error_of(Reader reader, const std::string& text) {
  try {
    reader(text);
  } catch (const input_error& e) {
    return e.what();
  }
  return "";
}
std::string golden_error(const std::string& text) {
  return error_of([](const std::string& t) { parse_golden(t, "F"); }, text);
}
std::string manifest_error(const std::string& text) {
  return error_of([](const std::string& t) { parse_manifest(t, "M"); }, text);
}
std::string replaced(std::string text, const std::string& from, const std::string& to) {
  const auto at = text.find(from);
  EXPECT_NE(at, std::string::npos) << from;
  return at == std::string::npos ? text : text.replace(at, from.size(), to);
}

TEST(golden_reader, precision_bits_is_an_integer_from_53_to_65536) {
  const std::string file = read(repo_golden / small_file), manifest_text = read(repo_golden / "MANIFEST.json");
  const std::string field = "\"precision_bits\": 256";
  for (const std::string ok : {"53", "256", "65536"}) {
    EXPECT_EQ(golden_error(replaced(file, field, "\"precision_bits\": " + ok)), "") << ok;
    EXPECT_EQ(manifest_error(replaced(manifest_text, field, "\"precision_bits\": " + ok)), "") << ok;
  }
  // 4294967552 = 2^32 + 256, which a 32-bit read cuts to 256; 2^64 + 256 is beyond every integer type.
  for (const std::string bad : {"52", "65537", "4294967552", "18446744073709551872", "-256", "256.0", "2.56e2", "\"256\"", "true", "null"}) {
    EXPECT_EQ(golden_error(replaced(file, field, "\"precision_bits\": " + bad)).rfind("F: precision_bits ", 0), 0u) << bad;
    EXPECT_EQ(manifest_error(replaced(manifest_text, field, "\"precision_bits\": " + bad)).rfind("M: precision_bits ", 0), 0u) << bad;
  }
  EXPECT_EQ(golden_error(replaced(file, field, "\"precision_bits\": 4294967552")), "F: precision_bits 4294967552 is not an integer from 53 to 65536");
  EXPECT_EQ(golden_error(replaced(file, field + ",", "")), "F: has no precision_bits");
}

TEST(golden_reader, refuses_a_byte_order_mark_a_nul_and_a_repeated_key) {
  const std::string file = read(repo_golden / small_file), manifest_text = read(repo_golden / "MANIFEST.json");
  EXPECT_EQ(golden_error(file), "");
  EXPECT_EQ(golden_error("\xEF\xBB\xBF" + file), "F: starts with a UTF-8 byte order mark (byte 0)");
  EXPECT_EQ(manifest_error("\xEF\xBB\xBF" + manifest_text), "M: starts with a UTF-8 byte order mark (byte 0)");
  // nlohmann's lexer takes a NUL for the end of the text: what follows would never be read.
  EXPECT_EQ(golden_error(file + std::string(1, '\0') + "{\"garbage\": 1}"), fmt::format("F: has a NUL byte at byte {}", file.size()));
  EXPECT_EQ(manifest_error(manifest_text + std::string(1, '\0') + "x"), fmt::format("M: has a NUL byte at byte {}", manifest_text.size()));
  EXPECT_EQ(golden_error(std::string(1, '\0') + file), "F: has a NUL byte at byte 0");
  // The last of two keys is what nlohmann keeps: the first would be bytes no check reads.
  EXPECT_EQ(golden_error(replaced(file, "\"shape\": [\n      2\n     ],", "\"shape\": [\n      2\n     ], \"shape\": [2],")),
            "F: key 'shape' appears twice in one object (in 'pos')");
  EXPECT_EQ(golden_error(replaced(file, "\"op\": \"rotate\",", "\"op\": \"encode\", \"op\": \"rotate\",")), "F: key 'op' appears twice in one object");
  EXPECT_EQ(manifest_error(replaced(manifest_text, "\"cases\": 1\n", "\"cases\": 1, \"cases\": 1\n")),
            "M: key 'cases' appears twice in one object (in 'files')");
  // The same key in two objects is no repeat.
  EXPECT_EQ(golden_error(replaced(file, "\"comment\"", "\"comment\": \"x\", \"c2\": {\"id\": 1}, \"c3\"")), "F: unknown key 'c2'");
}

// Found by the golden fuzz target: a number past binary64's range ('3e0801') made nlohmann throw
// out_of_range, not parse_error, and the reader let it escape as an internal error. Deep nesting
// is refused as it is read (the depth limit), before the document is built.
TEST(golden_reader, refuses_numbers_past_binary64_and_deep_nesting) {
  const std::string file = read(repo_golden / small_file);
  EXPECT_EQ(golden_error(replaced(file, "\"precision_bits\": 256", "\"precision_bits\": 3e0801")).rfind("F: is not valid JSON: ", 0), 0u);
  EXPECT_EQ(manifest_error("{\"x\": 1e999}").rfind("M: is not valid JSON: ", 0), 0u);
  EXPECT_EQ(golden_error(std::string(100000, '[') + std::string(100000, ']')),
            "F: JSON nesting depth: 33, over the limit depth=32 (raise it with --limit depth=N)");
}

TEST(golden_reader, refuses_keys_regen_never_writes) {
  const std::string file = read(repo_golden / small_file), manifest_text = read(repo_golden / "MANIFEST.json");
  EXPECT_EQ(golden_error(replaced(file, "\"op\":", "\"extra\": 1, \"op\":")), "F: unknown key 'extra'");
  EXPECT_EQ(golden_error(replaced(file, "\"inputs\":", "\"note\": \"\", \"inputs\":")), "F: case m3_n1: unknown key 'note'");
  EXPECT_EQ(golden_error(replaced(file, "\"dtype\": \"i64\",", "\"dtype\": \"i64\", \"unit\": 1,")), "F: case m3_n1 inputs pos: unknown key 'unit'");
  EXPECT_EQ(golden_error(replaced(file, "\"y\": {", "\"y\": {\"dtype\": \"f64\",")), "F: case m3_n1 outputs y: unknown key 'dtype'");
  EXPECT_EQ(golden_error(replaced(file, "\"comment\": \"seed 004: d = 2, theta = pi/4 (binary64), q = k = [1, 0] at m = 3, n = 1\"", "\"comment\": 4")), "F: comment is not a string");
  EXPECT_EQ(manifest_error(replaced(manifest_text, "\"files\":", "\"signed\": true, \"files\":")), "M: unknown key 'signed'");
  EXPECT_EQ(manifest_error(replaced(manifest_text, "\"cases\": 1\n", "\"cases\": 1, \"size\": 1003\n")),
            "M: files entry 'seeds/seed004_rope_trace.json': unknown key 'size'");
}

TEST(golden_reader, manifest_counts_and_hashes_read_without_truncation) {
  const std::string manifest_text = read(repo_golden / "MANIFEST.json");
  const std::string entry = "M: files entry 'seeds/seed004_rope_trace.json': ";
  // 2^32 + 1: get<int> would make it 1, the file's count.
  EXPECT_EQ(manifest_error(replaced(manifest_text, "\"cases\": 1\n", "\"cases\": 4294967297\n")),
            entry + "cases 4294967297 is not an integer from 0 to 2147483647");
  EXPECT_EQ(manifest_error(replaced(manifest_text, "\"cases\": 1\n", "\"cases\": -1\n")), entry + "cases -1 is not an integer from 0 to 2147483647");
  EXPECT_EQ(manifest_error(replaced(manifest_text, "\"cases\": 1\n", "\"cases\": 1.0\n")), entry + "cases 1.0 is not an integer from 0 to 2147483647");
  EXPECT_EQ(manifest_error(replaced(manifest_text, "5ca2f41fb939", "5CA2F41FB939")).rfind(entry + "sha256 '5CA2F41FB939", 0), 0u);
  EXPECT_EQ(manifest_error(replaced(manifest_text, "5ca2f41fb939", "5ca2f41fb93")).rfind(entry + "sha256 '5ca2f41fb93", 0), 0u);
}

TEST(golden_reader, generator_and_mpfr_version_have_their_forms) {
  const std::string file = read(repo_golden / small_file), manifest_text = read(repo_golden / "MANIFEST.json");
  const std::string gen = "\"generator\": \"pecheck 0.1.0\"", mpfr = "\"mpfr_version\": \"4.2.0\"";
  for (const std::string ok : {"pecheck 0.0.9", "pecheck 12.345.6789"}) {
    EXPECT_EQ(golden_error(replaced(file, gen, "\"generator\": \"" + ok + "\"")), "") << ok;
    EXPECT_EQ(manifest_error(replaced(manifest_text, gen, "\"generator\": \"" + ok + "\"")), "") << ok;
  }
  for (const std::string bad : {"", "pecheck", "pecheck 0.1", "pecheck 0.1.0 ", "pecheck 0.1.0-dirty", "mycheck 0.1.0", "pecheck v0.1.0"}) {
    EXPECT_EQ(golden_error(replaced(file, gen, "\"generator\": \"" + bad + "\"")), "F: generator '" + bad + "' is not 'pecheck X.Y.Z'") << bad;
    EXPECT_EQ(manifest_error(replaced(manifest_text, gen, "\"generator\": \"" + bad + "\"")), "M: generator '" + bad + "' is not 'pecheck X.Y.Z'") << bad;
  }
  for (const std::string ok : {"4.2.0", "4.2.1-p3", "4.3.0-dev", "10.0.0"})
    EXPECT_EQ(manifest_error(replaced(manifest_text, mpfr, "\"mpfr_version\": \"" + ok + "\"")), "") << ok;
  for (const std::string bad : {"", "4.2", "4.2.0 ", "v4.2.0", "4.2.0-", "GNU MPFR 4.2.0"}) {
    EXPECT_EQ(manifest_error(replaced(manifest_text, mpfr, "\"mpfr_version\": \"" + bad + "\"")),
              "M: mpfr_version '" + bad + "' is not an MPFR version such as 4.2.0")
        << bad;
  }
}

// diff names the changed case and its largest relative change; an identical tree has none.
TEST(golden_tree, diff_names_what_changed) {
  EXPECT_FALSE(diff(repo_golden, repo_golden).differs);
  const fs::path dir = scratch_copy("diff");
  const std::string path = "alibi/heads_8.json";
  std::string text = read(dir / path);
  const auto at = text.find("\"-1.25", text.find("\"offset255\""));  // a bias of -1.25 (slope 2^-2 times 5)
  ASSERT_NE(at, std::string::npos);
  text.replace(at, 6, "\"-1.30");
  write(dir / path, text);
  rehash(dir, path);
  const auto r = diff(repo_golden, dir);
  EXPECT_TRUE(r.differs);
  ASSERT_EQ(r.lines.size(), 2u);
  EXPECT_EQ(r.lines[0].rfind("alibi/heads_8.json: case offset255: largest relative change 0.0385 at bias element", 0), 0u) << r.lines[0];
  EXPECT_EQ(r.lines[1], "largest relative change: 0.0385");
  fs::remove_all(dir);
}

// ---- The references against every golden value ----

template <class T>
double value_of(const T& v) {
  return static_cast<double>(v);
}

// The largest error in ulps of format `fmt` of run_op<T> over every golden value (outputs that
// overflow the format must come back as the same infinity).
template <class T>
double worst_ulps(const float_format& fmt, std::string& where, bool skip_attend) {
  double worst = 0;
  for (const auto& s : case_sets()) {
    if (skip_attend && s.op == "attend") continue;
    const auto f = parse_golden(read(repo_golden / s.path), s.path);
    const spec sp = parse_spec(f.spec);
    for (const auto& c : f.cases) {
      const auto outs = run_op<T>(f.op, sp, op_inputs_of(f.op, sp, c, s.path));
      for (size_t o = 0; o < outs.size(); ++o)
        for (size_t e = 0; e < outs[o].value.data.size(); ++e) {
          mp_precision scope(320);
          const mp_real exact(c.outputs[o].data[e]);
          const double got = value_of(outs[o].value.data[e]);
          const double expected_rounded = round_to_format(exact, fmt);
          double err = 0;
          if (std::isinf(expected_rounded)) err = got == expected_rounded ? 0 : INFINITY;
          else err = error_in_ulps(got, exact, fmt);
          if (err > worst) worst = err, where = fmt::format("{} case {} {}[{}]", s.path, c.id, outs[o].name, e);
        }
    }
  }
  return worst;
}

// binary64: every output within 2 ulps (the phase bound of proofs/precision.phase_reduction.md;
// rotate, attend and the tables round once from 128+ bits, within half an ulp and a little).
// The gate's head read gives every file's op and spec as the full parse does, wherever the keys are.
TEST(golden_head, matches_the_full_parse_for_every_file) {
  const auto m = parse_manifest(read(repo_golden / "MANIFEST.json"), "MANIFEST.json");
  ASSERT_GT(m.files.size(), 10u);
  for (const auto& f : m.files) {
    const std::string text = read(repo_golden / f.path);
    const auto head = read_head(text);
    const auto full = parse_golden(text, f.path);
    ASSERT_TRUE(head) << f.path;
    EXPECT_EQ(head->op, full.op) << f.path;
    EXPECT_EQ(head->spec, full.spec) << f.path;
  }
}

TEST(golden_head, reads_keys_after_the_cases_and_ignores_nested_ones) {
  const auto head = read_head(R"j({"cases": [{"op": "no", "spec": "no", "inputs": {}}], "spec": "rope(dim=8)", "format": "x", "op": "rotate"})j");
  ASSERT_TRUE(head);
  EXPECT_EQ(head->op, "rotate");
  EXPECT_EQ(head->spec, "rope(dim=8)");
  EXPECT_FALSE(read_head(R"j({"op": "rotate", "spec": 3})j"));
  EXPECT_FALSE(read_head(R"j({"op": "rotate", "cases": [{"spec": "rope(dim=8)"}]})j"));
  EXPECT_FALSE(read_head("not json"));
  EXPECT_FALSE(read_head(""));
}

TEST(golden_references, binary64_within_2_ulps_of_every_golden_value) {
  std::string where;
  const double worst = worst_ulps<double>(binary64, where, false);
  std::cout << "binary64 worst " << worst << " ulp at " << where << "\n";
  EXPECT_LE(worst, 2.0) << where;
}

// binary32: computed in binary64 with the exact phase, then rounded once: within 1 ulp of binary32.
TEST(golden_references, binary32_within_1_ulp_of_every_golden_value) {
  std::string where;
  const double worst = worst_ulps<float>(binary32, where, false);
  std::cout << "binary32 worst " << worst << " ulp at " << where << "\n";
  EXPECT_LE(worst, 1.0) << where;
}

// bf16 and fp16 storage: one rounding from binary64 (or MPFR), within 1 ulp of their format
// (attend stores f64, f32 or MPFR only, so its cases are left out).
TEST(golden_references, bf16_and_fp16_within_1_ulp_of_every_golden_value) {
  std::string where;
  const double bf = worst_ulps<bf16>(bfloat16, where, true);
  std::cout << "bf16 worst " << bf << " ulp at " << where << "\n";
  EXPECT_LE(bf, 1.0) << where;
  const double hf = worst_ulps<fp16>(binary16, where, true);
  std::cout << "fp16 worst " << hf << " ulp at " << where << "\n";
  EXPECT_LE(hf, 1.0) << where;
}

}  // namespace
}  // namespace pe::golden
