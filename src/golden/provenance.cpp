// The generator and MPFR version of a golden tree (see provenance.hpp).
#include "golden/provenance.hpp"

#include <regex>

#include <fmt/format.h>

#include "golden/case_sets.hpp"
#include "pe/error.hpp"

namespace pe::golden {

void require_generator_text(const std::string& generator, const std::string& where) {
  static const std::regex form("pecheck [0-9]+\\.[0-9]+\\.[0-9]+");
  if (!std::regex_match(generator, form)) throw input_error(fmt::format("{}: generator '{}' is not 'pecheck X.Y.Z'", where, excerpt(generator)));
}

void require_mpfr_version_text(const std::string& version, const std::string& where) {
  static const std::regex form("[0-9]+\\.[0-9]+\\.[0-9]+(-[A-Za-z0-9.]+)?");
  if (!std::regex_match(version, form)) {
    throw input_error(fmt::format("{}: mpfr_version '{}' is not an MPFR version such as 4.2.0", where, excerpt(version)));
  }
}

std::vector<std::string> provenance_notes(const manifest& m, const std::map<std::string, golden_file>& files,
                                          const std::string& manifest_where) {
  std::vector<std::string> notes;
  const std::string running = generator_name(), mpfr = mpfr_library_version();
  if (m.generator != running) {
    notes.push_back(fmt::format("note: {} was written by {}, this is {}: the values are checked by recomputation, not by the version",
                                manifest_where, m.generator, running));
  }
  if (m.mpfr != mpfr) {
    notes.push_back(fmt::format("note: {} was computed with MPFR {}, this build runs MPFR {}: MPFR rounds correctly, so the digits "
                                "must not change, and the recomputation checks that they do not",
                                manifest_where, m.mpfr, mpfr));
  }
  std::size_t others = 0;
  const std::pair<const std::string, golden_file>* first = nullptr;
  for (const auto& entry : files)
    if (entry.second.generator != running && others++ == 0) first = &entry;
  if (first) {
    notes.push_back(fmt::format("note: {} golden file{} written by another generator than this {} (the first: {} by {})", others,
                                others == 1 ? " was" : "s were", running, first->first, first->second.generator));
  }
  return notes;
}

}  // namespace pe::golden
