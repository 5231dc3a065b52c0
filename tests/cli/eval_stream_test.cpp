// Tests for eval's streaming (src/cli/eval_stream, output_target, the writers): chunked output is the one-chunk output byte for byte, --output is whole or absent, sizes are refused first.
#include <gtest/gtest.h>

#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "support/run_pecheck.hpp"
#include "support/scratch_files.hpp"

namespace {

using pecheck_test::files_in;
using pecheck_test::fresh_dir;
using pecheck_test::read_file;
using pecheck_test::run;

struct stream_case {
  const char* args;
  int tokens;
  bool binary64;
};

// Every way a chunk boundary could show: labels of one and several position columns and heads,
// x broadcast and x in full, a table that must look up its first rows, MPFR text, and dynamic
// NTK, whose frequencies read the whole call's length (max pos + 1 = 11 > original_max = 4): a
// chunk that used its own positions would rotate by other angles.
const stream_case cases[] = {
    {"eval encode 'sinusoidal(dim=8)' --positions 0:10", 10, true},
    {"eval encode 'learned(dim=3, max_len=20)' --positions 3:13", 10, true},
    {"eval encode 'binary(dim=5)' --positions 0:6,30", 7, true},
    {"eval rotate 'rope(dim=8)' --positions 0:9 --heads 2 --x 1,2,3,4,5,6,7,8", 9, true},
    {"eval rotate 'rope(dim=8, scaling=dynamic(factor=2, original_max=4))' --positions 0:11 --x 1,2,3,4,5,6,7,8", 11, true},
    {"eval rotate 'mrope(dim=4, sections=[1, 1, 0])' --positions '0,0,0;1,2,3;4,5,6;7,8,9' --x 1,0,1,0", 4, true},
    {"eval rotate 'xpos(dim=4)' --positions 0:5 --role 1 --x 1,0.5,-2,3", 5, true},
    {"eval rotate 'rope(dim=2)' --positions 0:3 --heads 2 --x 1,2,3,4,5,6,7,8,9,10,11,12", 3, true},
    {"eval rotate 'rope(dim=4)' --positions 0:5 --x 1,2,3,4 --precision 80", 5, false},
    // Two outputs (q_out, then k_out), k filled out from one vector; npy needs a directory for two.
    {"eval rotate_qk 'xpos(dim=4)' --positions 0:5 --heads 2 --q 1,0.5,-2,3 --k 2,1,0,-1", 5, false},
};

TEST(eval_stream, chunks_print_what_one_chunk_prints) {
  for (const auto& c : cases) {
    for (const std::string format : {"table", "csv", "json", "npy"}) {
      if (format == "npy" && !c.binary64) continue;
      const std::string args = std::string(c.args) + " --format " + format;
      const auto one = run(args + " --chunk-tokens " + std::to_string(c.tokens));
      ASSERT_EQ(one.exit_code, 0) << args << "\n" << one.err;
      ASSERT_FALSE(one.out.empty()) << args;
      for (const int chunk : {1, 3}) {
        const auto chunked = run(args + " --chunk-tokens " + std::to_string(chunk));
        EXPECT_EQ(chunked.exit_code, 0) << args << " chunk " << chunk;
        EXPECT_EQ(chunked.out, one.out) << args << " chunk " << chunk;
      }
      EXPECT_EQ(run(args).out, one.out) << args << " (default chunks)";
    }
  }
}

TEST(eval_stream, output_file_holds_what_stdout_shows) {
  const std::string dir = fresh_dir("output_file");
  const std::string args = "eval rotate 'rope(dim=4)' --positions 0:50 --x 1,2,3,4 --format csv";
  const auto to_stdout = run(args);
  const auto to_file = run(args + " --output " + dir + "/y.csv");
  EXPECT_EQ(to_file.exit_code, 0) << to_file.err;
  EXPECT_EQ(to_file.out, "");
  EXPECT_EQ(read_file(dir + "/y.csv"), to_stdout.out);
  EXPECT_EQ(files_in(dir), std::vector<std::string>{"y.csv"});
  std::filesystem::remove_all(dir);
}

// A failure after some chunks were written (position 25 is past the table) leaves the old file
// as it was and no temporary; the error is the usual one line, exit 2.
TEST(eval_stream, a_failure_mid_way_leaves_the_output_file_untouched) {
  const std::string dir = fresh_dir("output_fail");
  { std::ofstream(dir + "/pe.json") << "before\n"; }
  const auto r = run("eval encode 'learned(dim=2, max_len=25)' --positions 0:30 --format json --chunk-tokens 4 --output " + dir + "/pe.json");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_EQ(r.err, "pecheck: learned: position 25 is outside the table [0, 25) (max_len=25)\n");
  EXPECT_EQ(r.out, "");
  EXPECT_EQ(read_file(dir + "/pe.json"), "before\n");
  EXPECT_EQ(files_in(dir), std::vector<std::string>{"pe.json"});
  std::filesystem::remove_all(dir);
}

// Ending a long --output by a signal (Ctrl-C's SIGINT; here SIGTERM, as a background job of sh
// ignores SIGINT) once the temporary is being written, during seconds of CSV, leaves no temporary:
// the directory stays empty (the job finishing first would leave y.csv and fail too).
TEST(eval_stream, an_interrupted_output_file_leaves_nothing) {
  const std::string dir = fresh_dir("output_interrupted");
  const auto r = run("eval rotate 'rope(dim=2)' --positions 0:10000000 --x 1,0 --format csv --output " + dir +
                     "/y.csv & pid=$!; for i in $(seq 100); do ls " + dir + "/y.csv.tmp.* > /dev/null 2>&1 && break; sleep 0.1; done; "
                     "sleep 0.2; kill -TERM $pid; wait $pid; echo $?");
  EXPECT_EQ(r.out, "143\n") << r.err;
  EXPECT_EQ(files_in(dir), std::vector<std::string>{});
  std::filesystem::remove_all(dir);
}

// On stdout a result over one 16 MiB block streams: a failure after the first block leaves
// what was written and exits non-zero (README and --help say so). 9000 x 1024 bits as "0,"/"1,"
// are ~18 MB; position -1 comes last.
TEST(eval_stream, a_failure_mid_way_on_stdout_leaves_a_partial_stream_and_fails) {
  const auto r = run("eval encode 'binary(dim=1024)' --positions 0:9000,-1 --format csv");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_EQ(r.err, "pecheck: binary: position -1 is negative; bits need p >= 0\n");
  EXPECT_GE(r.out.size(), std::size_t{16} << 20);
  EXPECT_EQ(r.out.find("\n-1,"), std::string::npos);
  // Under one block nothing is written: the same failure with fewer positions prints nothing.
  const auto small = run("eval encode 'binary(dim=1024)' --positions 0:100,-1 --format csv");
  EXPECT_EQ(small.exit_code, 2);
  EXPECT_EQ(small.out, "");
}

using pecheck_test::bad_call;

const bad_call bad_calls[] = {
    // Streamed formats go to 2^31 values, refused before any work (this one would be 4e9 values).
    {"eval encode 'none(dim=4096)' --positions 0:1000000 --format csv",
     "pecheck: eval: output pe's values: 4096000000, over the limit streamed_values=2147483648 (raise it with --limit streamed_values=N)\n"},
    {"eval rotate 'rope(dim=2)' --positions 0:1000000 --heads 2048 --x 1,0 --format npy",
     "pecheck: eval: output y's values: 4096000000, over the limit streamed_values=2147483648 (raise it with --limit streamed_values=N)\n"},
    // The table holds everything: still 2^22.
    {"eval encode 'none(dim=8)' --positions 0:600000",
     "pecheck: eval: output pe's values: 4800000, over the limit values=4194304 (raise it with --limit values=N)\n"},
    // Ops that do not split by token keep 2^22 in every format.
    {"eval bias 'alibi(heads=4)' --query-positions 0:2000 --key-positions 0:2000 --format csv",
     "pecheck: eval: output bias's values: 16000000, over the limit values=4194304 (raise it with --limit values=N)\n"},
    {"eval encode 'sinusoidal(dim=4)' --positions 0:3 --format npy --precision 80",
     "pecheck: eval --format npy: --precision 80 has no NumPy type; npy holds binary64 (--precision 53), json and csv any precision\n"},
    {"eval inv_freq 'rope(dim=8)' --format npy",
     "pecheck: eval --format npy: inv_freq has 2 outputs (inv_freq, attention_factor): give --output DIR, which gets one .npy per output\n"},
    {"eval encode 'sinusoidal(dim=4)' --positions 0:3 --output /no/such/dir/pe.csv",
     "pecheck: --output: cannot write /no/such/dir/pe.csv: No such file or directory\n"},
};

TEST(eval_stream, sizes_and_formats_refused_with_one_line) { pecheck_test::expect_one_line_errors(bad_calls); }

// A job that outlasts the progress line's quiet second on any machine: its output goes to a
// reader that starts after two seconds, so eval blocks on the full pipe (a job timed by its own
// work had finished in 0.94 s on an idle machine, and printed nothing). The progress line shows on
// a terminal (script(1) gives stderr a pty) and is erased at the end; with stderr captured, as in
// run(), nothing is printed.
const char* long_job = "eval rotate 'rope(dim=2)' --positions 0:3000000 --x 1,0 --format csv --chunk-tokens 20000";

TEST(eval_stream, progress_line_on_a_terminal_only) {
  const auto captured = run(std::string(long_job) + " > /dev/null");
  EXPECT_EQ(captured.exit_code, 0);
  EXPECT_EQ(captured.err, "");
  // pecheck's own exit status goes to a file: the pipeline's is the reader's.
  const std::string status_file = ::testing::TempDir() + "pecheck_progress_status_" + std::to_string(getpid()) + ".txt";
  FILE* pipe = popen(("script -qec \"{ " + std::string(PECHECK_BINARY) + " " + long_job + "; echo \\$? > " + status_file +
                      "; } | (sleep 2; cat > /dev/null)\" /dev/null")
                         .c_str(),
                     "r");
  std::string terminal;
  char buf[4096];
  size_t n;
  while ((n = fread(buf, 1, sizeof buf, pipe)) > 0) terminal.append(buf, n);
  EXPECT_EQ(pclose(pipe), 0);
  std::ifstream status_in(status_file);
  std::string status;
  std::getline(status_in, status);
  std::remove(status_file.c_str());
  EXPECT_EQ(status, "0") << "pecheck's exit status on the terminal";
  EXPECT_NE(terminal.find("\reval: "), std::string::npos) << terminal;
  EXPECT_NE(terminal.find("/3000000 positions)"), std::string::npos) << terminal;
  EXPECT_EQ(terminal.substr(terminal.size() - 4), "\r\033[K") << terminal;
}

}  // namespace
