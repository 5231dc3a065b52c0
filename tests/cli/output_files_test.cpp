// Tests for what a written file (--output, --json and the rest, src/cli/atomic_file) lands on: a link stays a link, a device or FIFO is written in place, a killed run's temporary is cleaned up.
#include <gtest/gtest.h>

#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "support/run_pecheck.hpp"
#include "support/scratch_files.hpp"

namespace {

namespace fs = std::filesystem;
using pecheck_test::files_in;
using pecheck_test::fresh_dir;
using pecheck_test::read_file;
using pecheck_test::run;

const std::string args = "eval rotate 'rope(dim=4)' --positions 0:50 --x 1,2,3,4 --format csv";

// A link to a regular file: the file gets the output (written beside it and renamed over it), the
// link stays a link (a rename over the link would have replaced it with a file).
TEST(output_files, a_link_to_a_file_stays_a_link) {
  const std::string dir = fresh_dir("output_link");
  { std::ofstream(dir + "/real.csv") << "before\n"; }
  fs::create_symlink("real.csv", dir + "/link.csv");
  const auto r = run(args + " --output " + dir + "/link.csv");
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_TRUE(fs::is_symlink(fs::symlink_status(dir + "/link.csv")));
  EXPECT_EQ(read_file(dir + "/real.csv"), run(args).out);
  EXPECT_EQ(files_in(dir), (std::vector<std::string>{"link.csv", "real.csv"}));
  fs::remove_all(dir);
}

// A link to a device (/dev/null) and one to the process's own stdout (/proc/self/fd/1, what
// /dev/stdout is): written in place, the links kept. (Links in a scratch folder rather than
// /dev/null and /dev/stdout themselves: run as root, a regression would replace those for the
// whole machine; here it replaces the link, which the test sees.)
TEST(output_files, a_device_is_written_in_place) {
  const std::string dir = fresh_dir("output_device");
  fs::create_symlink("/dev/null", dir + "/null.csv");
  fs::create_symlink("/proc/self/fd/1", dir + "/stdout.csv");
  const auto to_null = run(args + " --output " + dir + "/null.csv");
  EXPECT_EQ(to_null.exit_code, 0) << to_null.err;
  EXPECT_EQ(to_null.out, "");
  const auto to_stdout = run(args + " --output " + dir + "/stdout.csv");
  EXPECT_EQ(to_stdout.exit_code, 0) << to_stdout.err;
  EXPECT_EQ(to_stdout.out, run(args).out);
  for (const char* name : {"null.csv", "stdout.csv"}) EXPECT_TRUE(fs::is_symlink(fs::symlink_status(dir + "/" + name))) << name;
  EXPECT_TRUE(fs::is_character_file(fs::status("/dev/null")));
  EXPECT_EQ(files_in(dir), (std::vector<std::string>{"null.csv", "stdout.csv"}));
  fs::remove_all(dir);
}

// The process's own stdout, redirected to a file: through a link to /proc/self/fd/1 (what
// /dev/stdout is) or by the file's own name, the output goes through the inherited descriptor,
// after what was printed before and before what the shell prints after. (Renamed over, the file
// would lose the shell's later output to the replaced inode; reopened, its offset would not move
// and the shell's "after" would overwrite the output.)
TEST(output_files, the_processs_own_stdout_is_written_through_its_descriptor) {
  const std::string dir = fresh_dir("output_own_stdout");
  fs::create_symlink("/proc/self/fd/1", dir + "/stdout.csv");
  const std::string want = "before\n" + run(args).out + "after\n";
  for (const std::string& output : {dir + "/stdout.csv", dir + "/log.txt"}) {
    { std::ofstream(dir + "/run.sh") << "(echo before; " << PECHECK_BINARY << " " << args << " --output " << output << "; echo after) > " << dir << "/log.txt\n"; }
    EXPECT_EQ(std::system(("sh " + dir + "/run.sh").c_str()), 0) << output;
    fs::remove(dir + "/run.sh");
    EXPECT_EQ(read_file(dir + "/log.txt"), want) << output;
  }
  EXPECT_TRUE(fs::is_symlink(fs::symlink_status(dir + "/stdout.csv")));
  EXPECT_EQ(files_in(dir), (std::vector<std::string>{"log.txt", "stdout.csv"}));
  fs::remove_all(dir);
}

// A FIFO: written in place to the reader at its other end, and still a FIFO afterwards (the reader
// gives up after 20 s, should nothing open the FIFO to write).
TEST(output_files, a_fifo_is_written_in_place) {
  const std::string dir = fresh_dir("output_fifo");
  ASSERT_EQ(mkfifo((dir + "/pipe").c_str(), 0600), 0);
  const auto r = run("eval rotate 'rope(dim=4)' --positions 0:50 --x 1,2,3,4 --format csv --output " + dir + "/pipe & timeout 20 cat " + dir +
                     "/pipe > " + dir + "/read.csv; wait $!");
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_TRUE(fs::is_fifo(fs::symlink_status(dir + "/pipe")));
  EXPECT_EQ(read_file(dir + "/read.csv"), run(args).out);
  EXPECT_EQ(files_in(dir), (std::vector<std::string>{"pipe", "read.csv"}));
  fs::remove_all(dir);
}

// A run killed outright (SIGKILL: no handler runs) leaves PATH.tmp.PID; the next write to PATH
// removes it when that process is gone, and keeps one whose process still runs.
TEST(output_files, a_killed_runs_temporary_is_removed_by_the_next_write) {
  const std::string dir = fresh_dir("output_stale");
  const pid_t gone = fork();
  if (gone == 0) _exit(0);
  ASSERT_GT(gone, 0);
  ASSERT_EQ(waitpid(gone, nullptr, 0), gone);
  const std::string stale = "y.csv.tmp." + std::to_string(gone), live = "y.csv.tmp." + std::to_string(getpid());
  { std::ofstream(dir + "/" + stale) << "partial"; }
  { std::ofstream(dir + "/" + live) << "still being written"; }
  { std::ofstream(dir + "/z.csv.tmp." + std::to_string(gone)) << "another file's"; }
  const auto r = run(args + " --output " + dir + "/y.csv");
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(files_in(dir), (std::vector<std::string>{"y.csv", live, "z.csv.tmp." + std::to_string(gone)}));
  fs::remove_all(dir);
}

}  // namespace
