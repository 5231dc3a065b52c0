// Decoding a wire answer against the call's outputs (see wire_answer.hpp).
#include "gate/wire_answer.hpp"

#include <cstring>

#include <fmt/format.h>

#include "pe/bounded_json.hpp"
#include "pe/error.hpp"
#include "pe/limits.hpp"

namespace pe::gate::wire {
namespace {

using json = nlohmann::json;

}  // namespace

std::string excerpt(const std::string& text) {
  return json(text.substr(0, 200)).dump(-1, ' ', false, json::error_handler_t::replace) + (text.size() > 200 ? "..." : "");
}

namespace {

// What a JSON value is, for a malformed answer's report: its type, and its text when short.
std::string described(const json& v) {
  if (v.is_null()) return "null";
  const std::string text = v.dump();
  return text.size() <= 40 ? fmt::format("{} {}", v.type_name(), text) : std::string(v.type_name());
}

// The first field of an answer whose JSON type is wrong, as "malformed answer: field X is Y, not Z".
class answer_fields {
 public:
  // Checks `key` of `object` (at `where`) against a type; absent is fine unless `required`.
  answer_fields& expect(const json& object, const std::string& where, const char* key, bool (*ok)(const json&), const char* what,
                        bool required = false) {
    if (problem_) return *this;
    const std::string path = where.empty() ? key : where + "." + key;
    if (!object.contains(key)) {
      if (required) problem_ = fmt::format("malformed answer: field {} is missing", path);
    } else if (!ok(object[key])) {
      problem_ = fmt::format("malformed answer: field {} is {}, not {}", path, described(object[key]), what);
    }
    return *this;
  }
  const std::optional<std::string>& problem() const { return problem_; }

 private:
  std::optional<std::string> problem_;
};

bool is_string(const json& v) { return v.is_string(); }
bool is_integer(const json& v) { return v.is_number_integer(); }
bool is_count(const json& v) { return v.is_number_unsigned() || (v.is_number_integer() && v.get<std::int64_t>() >= 0); }
bool is_shape(const json& v) {
  if (!v.is_array()) return false;
  for (const auto& d : v)
    if (!is_count(d)) return false;
  return true;
}
bool is_array(const json& v) { return v.is_array(); }

// Every field of an answer head with the type the protocol gives it, or the first that has another.
std::optional<std::string> malformed(const json& head) {
  if (!head.is_object()) return fmt::format("malformed answer: the head is {}, not an object", described(head));
  answer_fields f;
  f.expect(head, "", "status", is_string, "a string", true)
      .expect(head, "", "id", is_integer, "an integer")
      .expect(head, "", "message", is_string, "a string")
      .expect(head, "", "payload_bytes", is_count, "a non-negative integer")
      .expect(head, "", "outputs", is_array, "an array");
  if (f.problem() || !head.contains("outputs")) return f.problem();
  for (std::size_t k = 0; k < head["outputs"].size(); ++k) {
    const json& o = head["outputs"][k];
    const std::string where = fmt::format("outputs[{}]", k);
    if (!o.is_object()) return fmt::format("malformed answer: field {} is {}, not an object", where, described(o));
    f.expect(o, where, "name", is_string, "a string", true)
        .expect(o, where, "dtype", is_string, "a string", true)
        .expect(o, where, "shape", is_shape, "an array of non-negative integers", true)
        .expect(o, where, "offset", is_count, "a non-negative integer", true)
        .expect(o, where, "nbytes", is_count, "a non-negative integer", true);
  }
  return f.problem();
}

}  // namespace

head_reading read_answer_head(const std::string& line, std::size_t payload_limit) {
  head_reading r;
  try {
    r.head = parse_json_bounded(line, "the answer's head");
  } catch (const limit_error& e) {
    r.problem = e.what();
    return r;
  } catch (const input_error&) {
    r.problem = fmt::format("the answer line is not JSON (stdout carries the protocol alone; logs go to stderr): {}", excerpt(line));
    return r;
  }
  const json none = 0;
  const json& bytes = r.head.is_object() && r.head.contains("payload_bytes") ? r.head["payload_bytes"] : none;
  if (!is_count(bytes)) {
    r.problem = fmt::format("malformed answer: field payload_bytes is {}, not a non-negative integer", described(bytes));
  } else if (bytes.get<std::uint64_t>() > payload_limit) {
    r.problem = fmt::format("the answer announces {} payload bytes, more than the {} its outputs take (refused unread)", bytes.get<std::uint64_t>(),
                            payload_limit);
  } else {
    r.payload_bytes = bytes.get<std::size_t>();
  }
  return r;
}

namespace {
call_result bad(std::string why) { return {call_status::bad_output, std::move(why), {}}; }
}  // namespace

std::optional<call_result> answer_head_problem(const json& head, std::int64_t id, bool& out_of_step) {
  out_of_step = false;
  if (const auto problem = malformed(head)) return bad(*problem);
  // Whatever its status, an answer to another request means the process is out of step (an
  // earlier answer given twice, say): its next answer would be taken for the wrong call.
  if (!head.contains("id") || head["id"] != id) {
    out_of_step = true;
    return bad(head.contains("id") ? fmt::format("answer id {} for request {}: the process is out of step (an answer given twice?)", head["id"].dump(), id)
                                   : fmt::format("answer without an id for request {}", id));
  }
  return std::nullopt;
}

call_result answer_result(const json& head, std::string_view payload, const std::vector<io_tensor>& outputs) {
  call_result r;
  const std::string status = head["status"];
  r.message = head.contains("message") ? head["message"].get<std::string>() : "";
  if (status == "unsupported") {
    r.status = call_status::unsupported;
    return r;
  }
  if (status != "ok") {
    r.status = status == "error" ? call_status::error : call_status::bad_output;
    if (status != "error") r.message = fmt::format("answer has status '{}': {}", excerpt(status), excerpt(head.dump()));
    return r;
  }
  if (!head.contains("outputs")) return bad("answer has no outputs array");
  r.outputs = outputs;
  for (auto& t : r.outputs) {
    const json* found = nullptr;
    for (const auto& o : head["outputs"])
      if (o["name"] == t.name) found = &o;
    if (!found) return bad(fmt::format("answer has no output {}", t.name));
    const auto& o = *found;
    if (o["dtype"] != dtype_name(t.type) || o["shape"] != json(t.shape)) {
      // one_line: the dtype is the process's text, and may hold a newline.
      return bad(fmt::format("output {} is {} {}, not {} {}", t.name, one_line(pe::excerpt(o["dtype"].get<std::string>())), o["shape"].dump(),
                             dtype_name(t.type), json(t.shape).dump()));
    }
    const auto offset = o["offset"].get<std::uint64_t>(), nbytes = o["nbytes"].get<std::uint64_t>();
    if (nbytes != t.bytes.size() || offset > payload.size() || nbytes > payload.size() - offset) {
      return bad(fmt::format("output {} claims {} bytes at offset {} of a {}-byte payload; it needs {} bytes", t.name, nbytes, offset, payload.size(),
                             t.bytes.size()));
    }
    std::memcpy(t.bytes.data(), payload.data() + offset, nbytes);
  }
  return r;
}

}  // namespace pe::gate::wire
