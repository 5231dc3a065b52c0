// Decoding a wire answer (its head line and payload) against the call's outputs: no I/O, so the fuzz target runs it alone.
#pragma once
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "gate/implementation.hpp"

namespace pe::gate::wire {

// Text a process wrote, for a one-line message: its first 200 bytes as a JSON string (quoted,
// control bytes escaped, invalid UTF-8 replaced), so no newline or terminal escape gets through.
std::string excerpt(const std::string& text);

// An answer's head line: parsed under the depth limit, with payload_bytes a count no larger than
// payload_limit (the bytes the call's outputs take), so a payload is refused before it is read.
// problem is empty when the head is usable.
struct head_reading {
  nlohmann::json head;
  std::size_t payload_bytes = 0;
  std::string problem;
};
head_reading read_answer_head(const std::string& line, std::size_t payload_limit);

// What is wrong with a parsed head as an answer to request `id`: a field of the wrong JSON type
// (every count a non-negative integer, so no float reaches an integer conversion), or another
// request's id (out_of_step set: the caller restarts the process). nullopt when it is well formed.
std::optional<call_result> answer_head_problem(const nlohmann::json& head, std::int64_t id, bool& out_of_step);

// The call's result from a well-formed head and its payload: the status, the message, and each
// expected output copied from the payload where the head places it (name, dtype, shape, offset
// and nbytes checked against the output and the payload's size).
call_result answer_result(const nlohmann::json& head, std::string_view payload, const std::vector<io_tensor>& outputs);

}  // namespace pe::gate::wire
