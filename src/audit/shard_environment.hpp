// `--shard auto`: the shard index and count read from the variables a scheduler sets (Slurm arrays, Kubernetes Indexed Jobs, CI parallel jobs).
#pragma once
#include <functional>
#include <optional>
#include <string>
#include <string_view>

#include "audit/position_set.hpp"

namespace pe::audit {

// A variable's value, or nullopt where it is unset: the process environment in pecheck, a table in tests.
using environment_lookup = std::function<std::optional<std::string>(std::string_view name)>;

// True for "auto" and "auto/N", the --shard values resolved here rather than by shard::parse.
bool is_auto_shard(std::string_view text);

struct environment_shard {
  shard part;
  std::string source;  // "Slurm (SLURM_ARRAY_TASK_ID=2, ...)": the convention(s) and the values read
};

// The shard of "auto" or "auto/N" from the environment: each convention whose index variable is
// set gives a shard; they must agree with each other and with N where N is given. input_error
// (one line, naming the variables and values) when none is set, when two disagree, when a value is
// malformed or out of range, or when a convention's ids cannot be mapped to i/n exactly.
environment_shard shard_from_environment(std::string_view text, const environment_lookup& lookup);

}  // namespace pe::audit
