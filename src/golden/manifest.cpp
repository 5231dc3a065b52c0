// golden/MANIFEST.json (see manifest.hpp); SHA-256 from OpenSSL's libcrypto.
#include "golden/manifest.hpp"

#include <mpfr.h>
#include <openssl/evp.h>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "pe/error.hpp"

namespace pe::golden {

std::string sha256_hex(const std::string& bytes) {
  unsigned char digest[EVP_MAX_MD_SIZE];
  unsigned int length = 0;
  if (EVP_Digest(bytes.data(), bytes.size(), digest, &length, EVP_sha256(), nullptr) != 1) {
    throw std::runtime_error("SHA-256 failed in OpenSSL");
  }
  std::string out;
  for (unsigned i = 0; i < length; ++i) out += fmt::format("{:02x}", digest[i]);
  return out;
}

std::string mpfr_library_version() { return mpfr_get_version(); }

std::string to_text(const manifest& m) {
  nlohmann::ordered_json j;
  j["format"] = manifest_format;
  j["generator"] = m.generator;
  j["mpfr_version"] = m.mpfr;
  j["precision_bits"] = m.precision_bits;
  j["files"] = nlohmann::ordered_json::array();
  for (const auto& f : m.files) j["files"].push_back({{"path", f.path}, {"sha256", f.sha256}, {"cases", f.cases}});
  return j.dump(1) + "\n";
}

manifest parse_manifest(const std::string& text, const std::string& where) {
  nlohmann::json j;
  try {
    j = nlohmann::json::parse(text);
  } catch (const nlohmann::json::parse_error& e) {
    throw input_error(fmt::format("{}: is not valid JSON (byte {})", where, e.byte));
  }
  const auto bad = [&](const std::string& what) { return input_error(fmt::format("{}: {}", where, what)); };
  if (!j.is_object() || !j.contains("format") || j["format"] != manifest_format) throw bad(fmt::format("format is not {}", manifest_format));
  manifest m;
  for (const char* key : {"generator", "mpfr_version"})
    if (!j.contains(key) || !j[key].is_string()) throw bad(fmt::format("has no {} string", key));
  m.generator = j["generator"].get<std::string>();
  m.mpfr = j["mpfr_version"].get<std::string>();
  if (!j.contains("precision_bits") || !j["precision_bits"].is_number_unsigned()) throw bad("has no precision_bits");
  m.precision_bits = j["precision_bits"].get<unsigned>();
  if (!j.contains("files") || !j["files"].is_array()) throw bad("has no files array");
  for (const auto& f : j["files"]) {
    if (!f.is_object() || !f.contains("path") || !f["path"].is_string() || !f.contains("sha256") || !f["sha256"].is_string() ||
        !f.contains("cases") || !f["cases"].is_number_integer()) {
      throw bad("a files entry needs path, sha256 and cases");
    }
    m.files.push_back({f["path"].get<std::string>(), f["sha256"].get<std::string>(), f["cases"].get<int>()});
  }
  return m;
}

}  // namespace pe::golden
