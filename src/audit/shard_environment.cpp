// `--shard auto`: each scheduler's convention as a row of a table, and the one reading that maps any of them to shard i/n.
#include "audit/shard_environment.hpp"

#include <charconv>
#include <cstdint>
#include <vector>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "pe/error.hpp"

namespace pe::audit {
namespace {

// One scheduler's shard variables. Each names its jobs by ids first, first + step, ..., the count
// of them; shard i/n is the i-th id. Conventions differ only in these fields, so a new one is a
// new row, never new code.
struct shard_convention {
  std::string_view name;
  std::string_view index;  // the job's id; set means the convention is in use (GitLab sets CI_NODE_TOTAL=1 in every job)
  std::string_view count;  // how many jobs; "" where the scheduler gives no count: auto/N gives it
  std::int64_t first_id;   // the first job's id where the scheduler fixes it (0- or 1-based)
  std::string_view first;  // the variable holding the first id where it varies (Slurm's --array=1-8), else ""
  std::string_view last;   // the variable holding the last id, checked against first + (count - 1) step, else ""
  std::string_view step;   // the variable holding the ids' step, else "" (step 1; so is the variable unset)
};

// Verified against each scheduler's documentation: Slurm's job_array page and sbatch(1) (ids from
// --array, a list like 1,3,7 has no one step: refused by the last-id check), Kubernetes' Indexed
// Job (0-based, no count in the environment), GitLab's `parallel` (1-based), Buildkite's
// parallelism (0-based), CircleCI's parallelism (0 to CIRCLE_NODE_TOTAL - 1) and GoogleTest's
// sharding (0 to GTEST_TOTAL_SHARDS - 1).
constexpr shard_convention shard_conventions[] = {
    {"Slurm", "SLURM_ARRAY_TASK_ID", "SLURM_ARRAY_TASK_COUNT", 0, "SLURM_ARRAY_TASK_MIN", "SLURM_ARRAY_TASK_MAX", "SLURM_ARRAY_TASK_STEP"},
    {"Kubernetes", "JOB_COMPLETION_INDEX", "", 0, "", "", ""},
    {"GitLab", "CI_NODE_INDEX", "CI_NODE_TOTAL", 1, "", "", ""},
    {"Buildkite", "BUILDKITE_PARALLEL_JOB", "BUILDKITE_PARALLEL_JOB_COUNT", 0, "", "", ""},
    {"CircleCI", "CIRCLE_NODE_INDEX", "CIRCLE_NODE_TOTAL", 0, "", "", ""},
    {"GoogleTest", "GTEST_SHARD_INDEX", "GTEST_TOTAL_SHARDS", 0, "", "", ""},
};

bool whole_number(std::string_view text, std::int64_t& value) {
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  return !text.empty() && ec == std::errc() && end == text.data() + text.size();
}

// One convention's variables read, each value kept for the line that says where the shard came from.
struct convention_reader {
  const environment_lookup& lookup;
  std::string_view text;  // "auto" or "auto/N", as given
  const shard_convention& c;
  std::vector<std::string> read;

  std::int64_t number(std::string_view name, std::int64_t least) {
    const auto value = lookup(name);
    if (!value) throw input_error(fmt::format("--shard {}: {} is set ({}) but {} is not", text, c.index, c.name, name));
    std::int64_t v = 0;
    if (!whole_number(*value, v)) throw input_error(fmt::format("--shard {}: {}='{}' is not a whole number", text, name, excerpt(*value)));
    if (v < least) throw input_error(fmt::format("--shard {}: {}={} is below {}", text, name, v, least));
    read.push_back(fmt::format("{}={}", name, v));
    return v;
  }
};

struct convention_shard {
  shard part;
  std::string source;
};

// The shard that convention c's variables give, its count checked against N (0: not given).
convention_shard shard_of_convention(const shard_convention& c, std::string_view text, std::int64_t n, const environment_lookup& lookup) {
  convention_reader r{lookup, text, c, {}};
  const std::int64_t id = r.number(c.index, 0);
  const std::int64_t first = c.first.empty() ? c.first_id : r.number(c.first, 0);
  // A step variable left unset is read as 1 (sbatch(1) documents SLURM_ARRAY_TASK_STEP, but not
  // since which release): a stepped array then fails the last-id check below, never maps wrongly.
  const std::int64_t step = c.step.empty() || !lookup(c.step) ? 1 : r.number(c.step, 1);
  std::int64_t count = n;
  if (!c.count.empty()) {
    count = r.number(c.count, 1);
    if (n != 0 && count != n) throw input_error(fmt::format("--shard {}: {}={} ({}) says {} shards, not {}", text, c.count, count, c.name, count, n));
  } else if (n == 0) {
    throw input_error(fmt::format("--shard auto: {} ({}) gives no count of shards: give it as --shard auto/N", c.index, c.name));
  } else {
    r.read.push_back(fmt::format("count {} from --shard {}", n, text));
  }
  // In 128 bits: the largest id of a count near 2^63 with a step past 1 passes 2^63.
  const __int128 last = static_cast<__int128>(first) + static_cast<__int128>(count - 1) * step;
  if (!c.last.empty()) {
    const std::int64_t given = r.number(c.last, 0);
    if (given != last) {
      throw input_error(fmt::format("--shard {}: {}'s ids are not {} evenly spaced from {} in steps of {} ({}): they cannot be mapped to "
                                    "shards i/n exactly; give --shard i/n",
                                    text, c.name, count, first, step, fmt::join(r.read, ", ")));
    }
  }
  if (id < first || (id - first) % step != 0 || id > last) {
    throw input_error(fmt::format("--shard {}: {}={} is not one of the {} {} ids from {} in steps of {} ({})", text, c.index, id, count, c.name,
                                  first, step, fmt::join(r.read, ", ")));
  }
  shard part;
  part.index = (id - first) / step + 1, part.count = count;
  return {part, fmt::format("{} ({})", c.name, fmt::join(r.read, ", "))};
}

}  // namespace

bool is_auto_shard(std::string_view text) { return text == "auto" || text.starts_with("auto/"); }

environment_shard shard_from_environment(std::string_view text, const environment_lookup& lookup) {
  std::int64_t n = 0;  // 0: no count given
  if (text != "auto" && (!text.starts_with("auto/") || !whole_number(text.substr(5), n) || n < 1)) {
    throw input_error(fmt::format("--shard '{}': give auto, or auto/N with N >= 1 the count of shards", excerpt(text)));
  }
  std::vector<convention_shard> found;
  std::vector<std::string_view> names;
  for (const auto& c : shard_conventions) {
    names.push_back(c.index);
    if (lookup(c.index)) found.push_back(shard_of_convention(c, text, n, lookup));
  }
  if (found.empty()) {
    throw input_error(fmt::format("--shard {}: none of {} is set: no scheduler's shard to take; give --shard i/n", text, fmt::join(names, ", ")));
  }
  environment_shard result{found.front().part, found.front().source};
  for (std::size_t k = 1; k < found.size(); ++k) {
    const auto& other = found[k];
    if (other.part.index != result.part.index || other.part.count != result.part.count) {
      throw input_error(fmt::format("--shard {}: {} says shard {}/{} but {} says shard {}/{}", text, found.front().source, result.part.index,
                                    result.part.count, other.source, other.part.index, other.part.count));
    }
    result.source += " and " + other.source;
  }
  return result;
}

}  // namespace pe::audit
