// golden/MANIFEST.json (see manifest.hpp); SHA-256 from OpenSSL's libcrypto.
#include "golden/manifest.hpp"

#include <algorithm>
#include <cstdint>

#include <mpfr.h>
#include <openssl/evp.h>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "golden/golden_file.hpp"
#include "golden/provenance.hpp"
#include "golden/strict_json.hpp"
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
  const json j = parse_strict_json(text, where);
  const auto bad = [&](const std::string& what) { return input_error(fmt::format("{}: {}", where, what)); };
  if (!j.is_object() || !j.contains("format") || j["format"] != manifest_format) throw bad(fmt::format("format is not {}", manifest_format));
  require_known_keys(j, {"format", "generator", "mpfr_version", "precision_bits", "files"}, where);
  manifest m;
  for (const char* key : {"generator", "mpfr_version"})
    if (!j.contains(key) || !j[key].is_string()) throw bad(fmt::format("has no {} string", key));
  m.generator = j["generator"].get<std::string>();
  require_generator_text(m.generator, where);
  m.mpfr = j["mpfr_version"].get<std::string>();
  require_mpfr_version_text(m.mpfr, where);
  m.precision_bits = static_cast<unsigned>(bounded_integer(j, "precision_bits", min_precision_bits, max_precision_bits, where));
  if (!j.contains("files") || !j["files"].is_array()) throw bad("has no files array");
  for (const auto& f : j["files"]) {
    if (!f.is_object() || !f.contains("path") || !f["path"].is_string() || !f.contains("sha256") || !f["sha256"].is_string() ||
        !f.contains("cases")) {
      throw bad("a files entry needs path, sha256 and cases");
    }
    const std::string path = f["path"].get<std::string>(), sha = f["sha256"].get<std::string>();
    const std::string entry = fmt::format("{}: files entry '{}'", where, excerpt(path));
    require_known_keys(f, {"path", "sha256", "cases"}, entry);
    // What sha256_hex writes: a hash in another spelling would only ever fail to match.
    if (sha.size() != 64 || !std::all_of(sha.begin(), sha.end(), [](char c) { return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f'); })) {
      throw input_error(fmt::format("{}: sha256 '{}' is not 64 lowercase hex digits", entry, excerpt(sha)));
    }
    m.files.push_back({path, sha, static_cast<int>(bounded_integer(f, "cases", 0, INT32_MAX, entry))});
  }
  return m;
}

}  // namespace pe::golden
