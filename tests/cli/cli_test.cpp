// Tests for src/cli: runs the pecheck binary and checks its output, exit codes and one-line errors word for word.
#include <gtest/gtest.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <string>
#include <unistd.h>

#include <nlohmann/json.hpp>

#include "golden/npy_reader.hpp"
#include "support/run_pecheck.hpp"

namespace {

using pecheck_test::run;

TEST(cli_eval, the_cat_sat_table_as_json_to_full_double_precision) {
  const auto r = run("eval encode 'sinusoidal(dim=4)' --positions 0:3 --format json");
  EXPECT_EQ(r.exit_code, 0) << r.err;
  // 17 significant digits of the binary64 nearest each true value (mpmath, printed with %.17g).
  const std::string want =
            R"j({"op":"encode","spec":"sinusoidal(dim=4, base=10000, layout=interleaved)","precision":53,)j"
            R"j("outputs":{"pe":{"shape":[3,4],"data":["0","1","0","1","0.8414709848078965","0.54030230586813977",)j"
            R"j("0.0099998333341666645","0.99995000041666526","0.90929742682568171","-0.41614683654714241",)j"
            R"j("0.01999866669333308","0.99980000666657776"]}}})j"
            "\n";
  EXPECT_EQ(r.out, want);
  EXPECT_EQ(r.err, "");
}

TEST(cli_eval, precision_256_prints_sin_1_to_more_than_70_digits) {
  const auto r = run("eval encode 'sinusoidal(dim=4)' --positions 0:3 --format json --precision 256");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const auto j = nlohmann::json::parse(r.out);
  EXPECT_EQ(j["precision"], 256);
  const std::string sin1 = j["outputs"]["pe"]["data"][4];
  // mpmath: sin(1) = 0.84147098480789650665250232163029899962256306079837106567275170999191040439123967...
  const std::string truth = "0.841470984807896506652502321630298999622563060798371065672751709991910404391";
  ASSERT_GE(sin1.size(), 72u);
  EXPECT_EQ(sin1.substr(0, 72), truth.substr(0, 72));  // "0." and 70 correct digits
}

TEST(cli_eval, table_and_csv_formats) {
  const auto t = run("eval encode 'sinusoidal(dim=2)' --positions 0,1");
  EXPECT_EQ(t.exit_code, 0);
  EXPECT_EQ(t.out,
            "encode sinusoidal(dim=2, base=10000, layout=interleaved)  [53 bits]\n"
            "pe [2, 2]\n"
            "pos |               pe[0]               pe[1]\n"
            "  0 |                   0                   1\n"
            "  1 |  0.8414709848078965 0.54030230586813977\n");
  const auto c = run("eval encode 'integer(dim=2)' --positions 5:7 --format csv");
  EXPECT_EQ(c.out, "pos,pe[0],pe[1]\n5,5,5\n6,6,6\n");
}

// The RoPE done-when line: the exact rotation of the binary64 frequency nearest pi/4, to 70+
// digits (mpmath at 100 digits: cos(3 theta) = -0.70710678118654745945414014444285017179562195999396793629406779627571157266951767).
TEST(cli_eval, rotate_at_256_bits) {
  const auto r = run("eval rotate 'rope(dim=2, freqs=[0.78539816339744830962])' --positions 3 --x 1,0 --precision 256 --format json");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const auto j = nlohmann::json::parse(r.out);
  EXPECT_EQ(j["outputs"]["y"]["shape"], nlohmann::json::parse("[1, 1, 2]"));
  const std::string y0 = j["outputs"]["y"]["data"][0], y1 = j["outputs"]["y"]["data"][1];
  const std::string want0 = "-0.7071067811865474594541401444428501717956219599939679362940677962757115", want1 = "0.7071067811865475893475485797668419415160422656580495484380542605128218";  // "0." and 70 digits
  EXPECT_EQ(y0.substr(0, want0.size()), want0);
  EXPECT_EQ(y1.substr(0, want1.size()), want1);
}

TEST(cli_eval, inv_freq_and_rotate_tables) {
  const auto inv = run("eval inv_freq 'rope(dim=8)' --format json");
  EXPECT_EQ(inv.exit_code, 0) << inv.err;
  const std::string want =
      R"j({"op":"inv_freq","spec":"rope(dim=8, base=10000, rotary_dim=8, layout=neox, truncate_low=0)","precision":53,)j"
      R"j("outputs":{"inv_freq":{"shape":[4],"data":["1","0.10000000000000001","0.01","0.001"]},)j"
      R"j("attention_factor":{"shape":[],"data":["1"]}}})j"
      "\n";
  EXPECT_EQ(inv.out, want);
  const auto rot = run("eval rotate 'rope(dim=2)' --positions 0,1 --heads 2 --x 1,0 --format csv");
  EXPECT_EQ(rot.out, "pos/head,y[0],y[1]\n0/0,1,0\n0/1,1,0\n1/0,0.54030230586813977,0.8414709848078965\n"
                     "1/1,0.54030230586813977,0.8414709848078965\n");
}

TEST(cli_eval, position_rows_for_multimodal_rope) {
  // Equal t/h/w rows rotate like plain rope at that position.
  const auto m = run("eval rotate 'mrope(dim=4, sections=[1, 1, 0])' --positions '0,0,0;1,1,1' --x 1,0,1,0 --format csv");
  EXPECT_EQ(m.exit_code, 0) << m.err;
  // neox pairs (0, 2) at omega 1 and (1, 3) at 0.01; x = [1, 0, 1, 0] turns into
  // [cos 1 - sin 1, 0, sin 1 + cos 1, 0] (mpmath, nearest doubles).
  EXPECT_EQ(m.out, "pos/head,y[0],y[1],y[2],y[3]\n0,0,0/0,1,0,1,0\n1,1,1/0,-0.3011686789397568,0,1.3817732906760363,0\n");
  const auto bad = run("eval rotate 'mrope(dim=4, sections=[1, 1, 0])' --positions '0,0;1,1,1' --x 1,0,1,0");
  EXPECT_EQ(bad.exit_code, 2);
  EXPECT_EQ(bad.err, "pecheck: --positions row '0,0' has 2 values; this scheme reads 3 per token (rows split by ';')\n");
  const auto inv = run("eval inv_freq 'rope_nd(axes=[2, 2])' --format csv");
  EXPECT_EQ(inv.out, "row,inv_freq[0],inv_freq[1]\n0,1,1\nrow,attention_factor\n0,1\n");
}

// One position column (rope_nd with one axis, rope) reads rows split by ';' as a plain list does.
TEST(cli_eval, one_column_positions_as_rows) {
  for (const char* spec : {"rope_nd(axes=[4])", "rope(dim=4)"}) {
    const auto rows = run(std::string("eval rotate '") + spec + "' --positions '1;2' --x 1,0,0,1 --format csv");
    const auto list = run(std::string("eval rotate '") + spec + "' --positions 1,2 --x 1,0,0,1 --format csv");
    EXPECT_EQ(rows.exit_code, 0) << spec << rows.err;
    EXPECT_EQ(rows.out, list.out) << spec;
    EXPECT_EQ(rows.out.substr(0, 29), "pos/head,y[0],y[1],y[2],y[3]\n") << spec;
  }
  const auto bad = run("eval rotate 'rope_nd(axes=[4])' --positions '1;2,3' --x 1,0,0,1");
  EXPECT_EQ(bad.exit_code, 2);
  EXPECT_EQ(bad.err, "pecheck: --positions row '2,3' has 2 values; this scheme reads 1 per token (rows split by ';')\n");
}

// A 1-D output prints in the table as a column of index and value; a scalar and 2-D outputs as before.
TEST(cli_eval, one_dimensional_outputs_print_as_a_column) {
  const auto inv = run("eval inv_freq 'rope(dim=8)'");
  ASSERT_EQ(inv.exit_code, 0) << inv.err;
  EXPECT_EQ(inv.out,
            "inv_freq rope(dim=8, base=10000, rotary_dim=8, layout=neox, truncate_low=0)  [53 bits]\n"
            "inv_freq [4]\n"
            "i |            inv_freq\n"
            "0 |                   1\n"
            "1 | 0.10000000000000001\n"
            "2 |                0.01\n"
            "3 |               0.001\n"
            "attention_factor []\n"
            "  | attention_factor\n"
            "0 | 1\n");
  // Eleven values: the index column widens to two digits. T5's bidirectional buckets: rel -5 is 5,
  // rel +5 is 16 + 5 (exact below 8 per sign).
  const auto b = run("eval bucket 't5()' --rel -5:6");
  EXPECT_NE(b.out.find("\n i | bucket\n 0 |      5\n"), std::string::npos) << b.out;
  EXPECT_NE(b.out.find("\n10 |     21\n"), std::string::npos) << b.out;
}

// --format npy writes one .npy per output into the --output directory for ops with several outputs
// (and for one output when --output is a directory); nothing is left when it refuses.
TEST(cli_eval, npy_writes_a_file_per_output_into_a_directory) {
  const std::string dir = ::testing::TempDir() + "pecheck_npy_dir_" + std::to_string(getpid());
  std::filesystem::remove_all(dir);
  const auto r = run("eval inv_freq 'rope(dim=4)' --format npy --output " + dir);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out, "");
  // inv_freq of rope(dim=4): 1 and 10000^(-1/2) = 0.01, both exact in binary64; attention_factor 1.
  EXPECT_EQ(pe::golden::read_npy_file(dir + "/inv_freq.npy", "inv_freq").reals, (std::vector<double>{1, 0.01}));
  const auto factor = pe::golden::read_npy_file(dir + "/attention_factor.npy", "attention_factor");
  EXPECT_TRUE(factor.shape.empty());
  EXPECT_EQ(factor.reals, std::vector<double>{1});
  const auto pe_file = run("eval encode 'sinusoidal(dim=2)' --positions 0 --format npy --output " + dir);
  ASSERT_EQ(pe_file.exit_code, 0) << pe_file.err;
  EXPECT_EQ(pe::golden::read_npy_file(dir + "/pe.npy", "pe").reals, (std::vector<double>{0, 1}));  // sin 0, cos 0
  std::filesystem::remove_all(dir);
  const auto no_dir = run("eval inv_freq 'rope(dim=4)' --format npy");
  EXPECT_EQ(no_dir.exit_code, 2);
  EXPECT_EQ(no_dir.err, "pecheck: eval --format npy: inv_freq has 2 outputs (inv_freq, attention_factor): give --output DIR, which gets one .npy per output\n");
  const auto mp = run("eval inv_freq 'rope(dim=4)' --format npy --precision 64 --output " + dir);
  EXPECT_EQ(mp.exit_code, 2);
  EXPECT_FALSE(std::filesystem::exists(dir));
}

// The relative-scheme done-when lines.
TEST(cli_eval, buckets_and_biases) {
  const auto b = run("eval bucket 't5(buckets=32, max_distance=128, bidirectional=true)' --rel -300:300 --format json");
  ASSERT_EQ(b.exit_code, 0) << b.err;
  const auto jb = nlohmann::json::parse(b.out);
  ASSERT_EQ(jb["outputs"]["bucket"]["shape"], nlohmann::json::parse("[600]"));
  EXPECT_EQ(jb["outputs"]["bucket"]["data"][300], "0");   // rel 0
  EXPECT_EQ(jb["outputs"]["bucket"]["data"][316], "26");  // rel +16: the exact log boundary
  EXPECT_EQ(jb["outputs"]["bucket"]["data"][0], "15");    // rel -300
  const auto d = run("eval bucket 'deberta(k=256, buckets=256, max_position=512, dim=64)' --rel 0,129,511,-1000 --format csv");
  EXPECT_EQ(d.out, "row,bucket[0],bucket[1],bucket[2],bucket[3]\n0,0,129,255,-317\n");
  const auto a = run("eval bias 'alibi(heads=12)' --query-positions 0:4 --key-positions 0:4 --format json");
  ASSERT_EQ(a.exit_code, 0) << a.err;
  const auto ja = nlohmann::json::parse(a.out);
  EXPECT_EQ(ja["outputs"]["bias"]["shape"], nlohmann::json::parse("[12, 4, 4]"));
  EXPECT_EQ(ja["outputs"]["bias"]["data"][4], "-0.5");  // head 0 (slope 1/2), query 1, key 0
}

// attend reads q, k, v and positions from a JSON file, for every scheme that supports it.
TEST(cli_eval, attend_from_an_input_file) {
  const std::string path = ::testing::TempDir() + "pecheck_attend_input.json";
  {
    std::ofstream f(path);
    f << R"j({"q": {"shape": [2, 1, 2], "data": [1, 0, 0, 1]}, "k": {"shape": [2, 1, 2], "data": [1, 0, 0, 1]},
             "v": {"shape": [2, 1, 1], "data": [1, "0x1p1"]}, "qpos": [0, 1], "kpos": [0, 1], "causal": true})j";
  }
  // none(): query 1 sees scores 0 and 1/sqrt 2, so out = (1 + 2 e^(1/sqrt 2)) / (1 + e^(1/sqrt 2)):
  // mpmath 1.669761549326656886..., whose nearest double prints as 1.6697615493266569.
  const auto plain = run("eval attend 'none()' --input " + path + " --format csv");
  EXPECT_EQ(plain.exit_code, 0) << plain.err;
  EXPECT_EQ(plain.out, "query/head,out[0]\n0/0,1\n1/0,1.6697615493266569\n");
  for (const char* spec : {"rope(dim=2)", "alibi(heads=1)", "t5(heads=1)", "shaw(k=1, dim=2)", "txl(heads=1, dim=2, r_dim=2)", "deberta(k=2, dim=2)", "mrope(dim=2, sections=[1, 0, 0])"}) {
    const bool mrope = std::string(spec).rfind("mrope", 0) == 0, shaw = std::string(spec).rfind("shaw", 0) == 0;
    const std::string file = mrope ? path + ".rows" : shaw ? path + ".shaw" : path;
    if (mrope) {
      std::ofstream f(file);
      f << R"j({"q": {"shape": [2, 1, 2], "data": [1, 0, 0, 1]}, "k": {"shape": [2, 1, 2], "data": [1, 0, 0, 1]},
               "v": {"shape": [2, 1, 1], "data": [1, 2]}, "qpos": [[0, 0, 0], [1, 1, 1]], "kpos": [[0, 0, 0], [1, 1, 1]]})j";
    }
    if (shaw) {  // Shaw adds a^V to the values: v needs the same head dim as q and k
      std::ofstream f(file);
      f << R"j({"q": {"shape": [2, 1, 2], "data": [1, 0, 0, 1]}, "k": {"shape": [2, 1, 2], "data": [1, 0, 0, 1]},
               "v": {"shape": [2, 1, 2], "data": [1, 0, 2, 0]}, "qpos": [0, 1], "kpos": [0, 1]})j";
    }
    const auto r = run(std::string("eval attend '") + spec + "' --input " + file);
    EXPECT_EQ(r.exit_code, 0) << spec << ": " << r.err;
  }
  {
    std::ofstream f(path);
    f << R"j({"q": {"shape": [2, 1, 2], "data": [1, 0, 0]}})j";
  }
  const auto bad = run("eval attend 'none()' --input " + path);
  EXPECT_EQ(bad.exit_code, 2);
  EXPECT_EQ(bad.err, "pecheck: --input '" + path + "': q: shape [2, 1, 2] holds 4 values but data has 3\n");
  {
    std::ofstream f(path);
    f << R"j({"qpos": [18446744073709551615]})j";
  }
  EXPECT_EQ(run("eval attend 'none()' --input " + path).err,
            "pecheck: --input '" + path + "': qpos[0]: 18446744073709551615 is not a 64-bit integer position\n");
}

TEST(cli_eval, accepts_the_json_twin_of_a_spec) {
  const auto r = run(R"(eval encode '{"scheme":"binary","dim":3}' --positions 5 --format csv)");
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out, "pos,pe[0],pe[1],pe[2]\n5,1,0,1\n");
}

using pecheck_test::bad_call;

// Bad input: one line on stderr naming what and where, exit 2, and nothing on stdout.
const bad_call bad_calls[] = {
    {"golden export --format npz out", "pecheck: --format: npz not in {npy,json}\n"},
    {"golden frobnicate", "pecheck golden: unknown command 'frobnicate' (commands: regen, verify, diff, export)\n"},
    {"golden", "pecheck golden: a command is required (commands: regen, verify, diff, export)\n"},
    // A pattern that selects no file would verify (or regenerate) nothing and call that a pass.
    {"golden verify --only 'no_such_file'",
     "pecheck: --only 'no_such_file': no golden file matches (paths look like seeds/seed004_rope_trace.json or figures/roformer_decay.txt)\n"},
    {"golden regen --only 'no_such_file'",
     "pecheck: --only 'no_such_file': no golden file matches (paths look like seeds/seed004_rope_trace.json or figures/roformer_decay.txt)\n"},
    {"check --property '('", "pecheck: --property '(' is not a regular expression: Mismatched '(' and ')' in regular expression\n"},
    {"check --property 'no-such-law'", "pecheck: no target matches --property 'no-such-law' --scheme '.*'\n"},
    {"check --cases 0", "pecheck: --cases: Value 0 not in range 1 to 1000000\n"},
    {"check --property binary --json /no/such/dir/out.json", "pecheck: --json: cannot write /no/such/dir/out.json: No such file or directory\n"},
    // Integers past 64 bits, or negative for a count, are refused as written (CLI11 alone reads
    // them as the largest integer, or -1 as 2^64 - 1).
    {"check --property binary --seed 18446744073709551616", "pecheck: --seed: 18446744073709551616 is not in 0 to 2^64 - 1\n"},
    {"check --property binary --seed -1", "pecheck: --seed: -1 is not in 0 to 2^64 - 1\n"},
    {"audit --impl-reference --spec 'rope(dim=8)' --positions 0:64 --tokens-per-call 99999999999999999999",
     "pecheck: --tokens-per-call: 99999999999999999999 is not in -2^63 to 2^63 - 1\n"},
    {"gate --impl-reference --spec 'rope(dim=8)' --seed 0x10000000000000000", "pecheck: --seed: 0x10000000000000000 is not in 0 to 2^64 - 1\n"},
    // Outputs are opened before the work: nothing on stdout means nothing was run first.
    {"gate --impl-reference --spec 'rope(dim=8)' --cases 3 --golden-scope none --json /no/such/dir/g.json",
     "pecheck: --json: cannot write /no/such/dir/g.json: No such file or directory\n"},
    {"gate --impl-reference --spec 'rope(dim=8)' --cases 3 --golden-scope none --save-baseline /no/such/dir/b.txt",
     "pecheck: --save-baseline: cannot write /no/such/dir/b.txt: No such file or directory\n"},
    {"gate --impl-reference --spec 'rope(dim=8)' --cases 3 --golden-scope none --json /tmp/pecheck_both.xml --junit /tmp/pecheck_both.xml",
     "pecheck: --json and --junit both name /tmp/pecheck_both.xml: give each output a file of its own\n"},
    {"audit --impl-reference --spec 'rope(dim=8)' --positions 0:64 --html /no/such/dir/a.html",
     "pecheck: --html: cannot write /no/such/dir/a.html: No such file or directory\n"},
    {"audit merge /no/such/part.json --json /no/such/dir/m.json", "pecheck: --json: cannot write /no/such/dir/m.json: No such file or directory\n"},
    {"diagnose --impl-reference --spec 'rope(dim=8)' --json /no/such/dir/d.json",
     "pecheck: --json: cannot write /no/such/dir/d.json: No such file or directory\n"},
    {"eval encode 'sinusoidal(dim=5)' --positions 0", "pecheck: sinusoidal: dim=5 is odd; sin/cos pairs need an even dim\n"},
    {"eval encode 'learned(dim=2, max_len=4)' --positions 2:5",
     "pecheck: learned: position 4 is outside the table [0, 4) (max_len=4)\n"},
    {"eval encode 'sinusoidal(dim=4)' --positions 3:1", "pecheck: --positions '3:1': range 3:1 is empty (a:b means a <= p < b)\n"},
    {"eval encode 'sinusoidal(dim=4)' --positions 1,x", "pecheck: --positions '1,x': 'x' is not a 64-bit integer\n"},
    {"eval encode 'sinusoidal(dim=4)' --positions 0:100000000000", "pecheck: --positions: positions: 100000000000, over the limit list=10000000 (raise it with --limit list=N)\n"},
    {"eval encode 'sinusoidal(dim=4)'", "pecheck: eval encode: --positions is required (e.g. --positions 0:3)\n"},
    {"eval encode 'sinusoidal(dim=4)' --positions=-1:9223372036854775807",
     "pecheck: --positions: positions: 9223372036854775808, over the limit list=10000000 (raise it with --limit list=N)\n"},
    // encode's width is known after its first token: the rest is refused before it is computed.
    {"eval encode 'none(dim=1048576)' --positions 0:1000",
     "pecheck: none: dim=1048576 is over the limit dim=65536 (raise it with --limit dim=N)\n"},
    {"eval matrix 'rope(dim=4096)' --positions 1 --precision 4096",
     "pecheck: eval: output R's values: 16777216, over the limit values=4194304 (raise it with --limit values=N)\n"},
    // Within the values limit, but past what 4096-bit values may take in memory.
    {"eval matrix 'rope(dim=2000)' --positions 1 --precision 4096",
     "pecheck: an output of shape [2000, 2000] is larger than the limit of 3834792 values at this precision\n"},
    {"eval encode 'none(dim=1048576)' --positions 0:5",
     "pecheck: none: dim=1048576 is over the limit dim=65536 (raise it with --limit dim=N)\n"},
    // y's shape follows from x (the op table's rule), so it is refused before any rotation is done.
    {"eval rotate 'rope(dim=4)' --positions 0:1048577 --x 1,2,3,4",
     "pecheck: eval: output y's values: 4194308, over the limit values=4194304 (raise it with --limit values=N)\n"},
    {"eval encode 'sinusoidal(dim=4)' --positions 0 --precision 24", "pecheck: --precision 24: use 53 (binary64) or 64..65536 (MPFR)\n"},
    {"eval encode 'sinusoidal(dim=4)' --positions 0 --format xml",
     "pecheck: --format: xml not in {table,json,csv,npy}\n"},
    {"eval encode 'sinusoidal(dim=4)' --positions 0 --bogus", "pecheck eval: unknown option '--bogus' (pecheck eval --help lists them)\n"},
    {"eval rotate 'sinusoidal(dim=4)' --positions 0", "pecheck: sinusoidal: op 'rotate' is not supported (ops: encode, attend)\n"},
    {"eval bucket 'sinusoidal(dim=4)' --positions 0", "pecheck: sinusoidal: op 'bucket' is not supported (ops: encode, attend)\n"},
    {"eval attend2 'sinusoidal(dim=4)' --positions 0", "pecheck: op: attend2 not in {encode,inv_freq,rotate,rotate_grad,rotate_qk,apply_tables,matrix,scale,bucket,bias,attend}\n"},
    {"eval bucket 't5()'", "pecheck: eval bucket: --rel is required (e.g. --rel -300:300)\n"},
    {"eval rotate 'xpos(dim=4)' --positions 0 --x 1,0,0,1", "pecheck: eval rotate: --role is required: 0 (query) or 1 (key)\n"},
    {"eval rotate 'xpos(dim=4)' --positions 0 --x 1,0,0,1 --role 2", "pecheck: rotate: role is 2; give 0 (query) or 1 (key)\n"},
    {"eval rotate 'xpos(dim=4)' --positions 0 --x 1,0,0,1 --role 0,1", "pecheck: --role: give one value, not 2\n"},
    {"eval rotate 'rope(dim=4)' --positions 0 --x 1,0,0,1 --role 1", "pecheck: eval rotate: --role is not an input of rotate on rope\n"},
    {"eval rotate 'xpos(dim=2)' --positions 400000000000 --x 0,0 --role 1", "pecheck: rotate: position 400000000000 is beyond this scale's range: |p| <= 152088504360\n"},
    {"eval encode 'sinusoidal(dim=4)' --positions 0 --x 1", "pecheck: eval encode: --x is not an input of encode on sinusoidal\n"},
    {"eval attend 'none()' --input /nonexistent.json --positions 0", "pecheck: eval attend: give the inputs in --input or as options, not both (--positions)\n"},
    {"eval attend 'none()'", "pecheck: eval attend: --input FILE.json is required (q, k, v, qpos, kpos, causal; see --help)\n"},
    {"eval attend 'none()' --input /nonexistent.json", "pecheck: --input '/nonexistent.json': cannot read it: No such file or directory\n"},
    {"eval bias 'alibi(heads=4)' --query-positions 0:2", "pecheck: eval bias: --query-positions and --key-positions are required (e.g. --query-positions 0:4 --key-positions 0:4)\n"},
    {"eval bias 'alibi(heads=4)' --query-positions 0:2 --key-positions x", "pecheck: --key-positions 'x': 'x' is not a 64-bit integer\n"},
    {"eval rotate 'rope(dim=4)' --positions 0", "pecheck: eval rotate: --x is required (one dim-vector, or T*H*D values)\n"},
    {"eval rotate 'rope(dim=4)' --positions 0,1 --x 1,2,3",
     "pecheck: --x has 3 values; rotate needs dim=4 (one vector for all) or T*H*D=2*1*4=8\n"},
    {"eval rotate 'rope(dim=4)' --positions 0 --x 1,2,nan,4", "pecheck: --x: 'nan' is not a finite number\n"},
    {"eval matrix 'rope(dim=4)' --positions 0,1", "pecheck: rope: op 'matrix' takes one position, not 2\n"},
    {"gate --impl-reference --spec 'alibi(heads=2)' --tolerance tight",
     "pecheck: --tolerance 'tight' is not strict, standard, loose or a number C >= 1 (the angle coefficient)\n"},
    {"gate --impl-reference --spec 'alibi(heads=2)' --tolerance 0.5",
     "pecheck: --tolerance '0.5' is not strict, standard, loose or a number C >= 1 (the angle coefficient)\n"},
    {"gate --impl-reference --spec 'alibi(heads=2)' --tolerance 8x",
     "pecheck: --tolerance '8x' is not strict, standard, loose or a number C >= 1 (the angle coefficient)\n"},
    {"", "pecheck: a command is required (commands: list, eval, check, golden, gate, audit, diagnose, spec)\n"},
    {"frobnicate", "pecheck: unknown command 'frobnicate' (commands: list, eval, check, golden, gate, audit, diagnose, spec)\n"},
};

TEST(cli_errors, one_line_exit_2_nothing_on_stdout) { pecheck_test::expect_one_line_errors(bad_calls); }

// --tolerance takes the angle coefficient C itself, and the report says which was used.
TEST(cli_gate, an_explicit_tolerance_coefficient) {
  const std::string json_file = ::testing::TempDir() + "pecheck_gate_" + std::to_string(getpid()) + ".json";
  const auto r = run("gate --impl-reference --spec 'alibi(heads=2)' --tolerance 8 --cases 5 --golden " + std::string(PECHECK_SOURCE_DIR) +
                     "/golden --json " + json_file);
  EXPECT_EQ(r.exit_code, 0) << r.out << r.err;
  EXPECT_NE(r.out.find("gate: pecheck reference (in process) at f32 I/O, f32 working, 8 tolerance\n"), std::string::npos) << r.out;
  std::ifstream in(json_file);
  const auto j = nlohmann::json::parse(in);
  std::remove(json_file.c_str());
  EXPECT_EQ(j["tolerance"], "8");
  ASSERT_FALSE(j["checks"].empty());
  EXPECT_NE(j["checks"][0]["reproduce"].get<std::string>().find("--tolerance 8 "), std::string::npos) << j.dump();
}

TEST(cli_errors, a_failed_write_is_an_error) {
  const auto r = run("list > /dev/full");
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_EQ(r.err, "pecheck: cannot write the output: No space left on device\n");
}

// pecheck check: the matrix on stdout, the JSON report, exit 0 when every expectation is met.
TEST(cli_check, matrix_and_json_for_the_selected_laws) {
  const std::string json_file = ::testing::TempDir() + "pecheck_check_" + std::to_string(getpid()) + ".json";
  const auto r = run("check --property '^(binary|attention)\\.' --scheme '^(none|binary)$' --cases 20 --json " + json_file);
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.err, "");
  EXPECT_NE(r.out.find("\nattention\n  permutation_equivariance   ok  (x)\n"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("\nbinary\n  jumpiness                   .   ok\n"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("7 of 7 expectations met"), std::string::npos) << r.out;
  std::ifstream in(json_file);
  const auto j = nlohmann::json::parse(in);
  std::remove(json_file.c_str());
  ASSERT_EQ(j["properties"].size(), 4u);
  const auto& first = j["properties"][0];
  EXPECT_EQ(first["id"], "attention.permutation_equivariance");
  ASSERT_EQ(first["results"].size(), 2u);
  EXPECT_EQ(first["results"][0]["spec"], "none");
  EXPECT_EQ(first["results"][0]["expected"], "holds");
  EXPECT_EQ(first["results"][0]["observed"], "holds");
  EXPECT_EQ(first["results"][0]["met"], true);
  EXPECT_EQ(first["results"][0]["cases"], 20);
  EXPECT_TRUE(first["results"][0]["counterexample"].is_null());
  EXPECT_EQ(first["results"][1]["spec"], "binary");
  EXPECT_EQ(first["results"][1]["expected"], "fails");
  EXPECT_EQ(first["results"][1]["met"], true);
  EXPECT_NE(first["results"][1]["counterexample"].get<std::string>().find("binary(dim="), std::string::npos);
}

// pecheck golden: verify the repository's tree; diff names what changed; bad trees exit non-zero.
TEST(cli_golden, verify_and_diff) {
  const std::string golden = std::string(PECHECK_SOURCE_DIR) + "/golden";
  const auto ok = run("golden verify --only '^seeds/' --golden " + golden);
  EXPECT_EQ(ok.exit_code, 0) << ok.out << ok.err;
  EXPECT_EQ(ok.out, "golden verify: every value in " + golden + " is its recomputation to the last digit, and within 1e-35 relative at 64 bits more\n");
  const auto same = run("golden diff " + golden + " " + golden);
  EXPECT_EQ(same.exit_code, 0);
  EXPECT_EQ(same.out, "no differences\n");
  const auto missing = run("golden verify --golden /no/such/tree");
  EXPECT_EQ(missing.exit_code, 2);
  EXPECT_EQ(missing.out, "");
  EXPECT_EQ(missing.err, "pecheck: /no/such/tree/MANIFEST.json: cannot read it: No such file or directory\n");
}

TEST(cli_list, shows_every_scheme_with_its_parameters) {
  const auto r = run("list");
  EXPECT_EQ(r.exit_code, 0);
  for (const char* needle : {"sinusoidal  [ops: encode, attend]", "integer  [ops: encode, attend]", "normalized  [ops: encode, attend]",
                             "binary  [ops: encode, attend]", "learned  [ops: encode, attend]", "none  [ops: encode, attend]",
                             "rope  [ops: inv_freq, rotate, rotate_grad, rotate_qk, apply_tables, matrix, attend]", "rope_scaling schemes", "\nyarn\n",
                             "    base             real      = 10000 ", "    layout           choice    = interleaved ",
                             "    max_len          integer   (required) ", "    init_std         real      = 0.02 ",
                             "    magnitude        choice    = hf "}) {
    EXPECT_NE(r.out.find(needle), std::string::npos) << needle;
  }
  const auto j = nlohmann::json::parse(run("list --format json").out);
  ASSERT_TRUE(j.is_array());
  EXPECT_EQ(j[0]["scheme"], "integer");
}

TEST(cli_help, help_exits_zero) {
  for (const char* args : {"--help", "eval --help", "list --help"}) {
    const auto r = run(args);
    EXPECT_EQ(r.exit_code, 0) << args;
    EXPECT_NE(r.out.find("Usage"), std::string::npos) << args;
  }
}

}  // namespace
