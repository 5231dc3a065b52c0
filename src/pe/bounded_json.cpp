// JSON parsed under the depth limit (see bounded_json.hpp).
#include "pe/bounded_json.hpp"

#include <set>
#include <vector>

#include <fmt/format.h>

#include "pe/error.hpp"
#include "pe/limits.hpp"

namespace pe {

namespace {

// nlohmann's SAX interface, every value accepted and dropped; containers counted and keys tracked.
class scanner : public nlohmann::json_sax<nlohmann::json> {
 public:
  scanner(json_scan& out, std::string_view where) : out_(out), where_(where) {}

  bool null() override { return true; }
  bool boolean(bool) override { return true; }
  bool number_integer(number_integer_t) override { return true; }
  bool number_unsigned(number_unsigned_t) override { return true; }
  bool number_float(number_float_t, const string_t&) override { return true; }
  bool string(string_t&) override { return true; }
  bool binary(binary_t&) override { return true; }
  bool start_object(std::size_t) override {
    open_container();
    objects_.push_back({{}, last_key_});
    return true;
  }
  bool key(string_t& k) override {
    last_key_ = k;
    auto& open = objects_.back();
    if (!open.keys.insert(k).second && out_.repeated_key.empty()) {
      out_.repeated_key = k;
      out_.repeated_under = open.under;
    }
    return true;
  }
  bool end_object() override {
    objects_.pop_back();
    --depth_;
    return true;
  }
  bool start_array(std::size_t) override {
    open_container();
    return true;
  }
  bool end_array() override {
    --depth_;
    return true;
  }
  bool parse_error(std::size_t position, const std::string&, const nlohmann::detail::exception& e) override {
    out_.valid = false;
    out_.error_id = e.id;
    out_.error_byte = position;
    // nlohmann's what() starts "[json.exception.parse_error.101] parse error at line 1, column 2: ...":
    // the reader wants where and why, not the library's exception id.
    std::string why = e.what();
    if (why.starts_with("[json.exception.")) why.erase(0, why.find("] ") + 2);
    if (why.starts_with("parse error at ")) why.erase(0, 15);
    out_.error = why;
    return false;
  }

 private:
  void open_container() { check_limit(limit::depth, static_cast<std::uint64_t>(++depth_), fmt::format("{}: JSON nesting depth", where_)); }

  struct open_object {
    std::set<std::string> keys;
    std::string under;
  };
  json_scan& out_;
  std::string_view where_;
  std::int64_t depth_ = 0;
  std::vector<open_object> objects_;
  std::string last_key_;
};

}  // namespace

json_scan scan_json(std::string_view text, std::string_view where) {
  json_scan out;
  scanner sax(out, where);
  nlohmann::json::sax_parse(text, &sax);
  return out;
}

nlohmann::json parse_json_bounded(std::string_view text, std::string_view where) {
  const json_scan scan = scan_json(text, where);
  if (!scan.valid) throw input_error(fmt::format("{}: not valid JSON, at {}", where, scan.error));
  return nlohmann::json::parse(text);
}

std::string json_excerpt(const nlohmann::json& v) {
  // Containers are shown by their size: dumping one would walk all of it.
  if (v.is_array()) return fmt::format("an array of {}", v.size());
  if (v.is_object()) return fmt::format("an object of {} keys", v.size());
  std::string text = v.dump();
  if (text.size() > 60) text = text.substr(0, 50) + "...";
  return text;
}

}  // namespace pe
