// Who wrote a golden tree: the form of its generator and MPFR version strings, and verify's notes where they are not this build's.
#pragma once
#include <map>
#include <string>
#include <vector>

#include "golden/golden_file.hpp"
#include "golden/manifest.hpp"

namespace pe::golden {

// input_error "WHERE: generator 'G' is not 'pecheck X.Y.Z'" unless `generator` is what
// generator_name() writes: a program name and a three-part version.
void require_generator_text(const std::string& generator, const std::string& where);
// input_error unless `version` reads like mpfr_get_version(): "4.2.0", or with a suffix such as
// "4.2.1-p3" or "4.3.0-dev".
void require_mpfr_version_text(const std::string& version, const std::string& where);

// "note: ..." lines, one for each of: MANIFEST.json's generator, its MPFR, and the files' generators
// (one line for all) that differ from this build's. Notes, not problems: verify recomputes every
// value, and that, not the version that wrote it, is what vouches for a file. MPFR rounds every
// function correctly, so a newer MPFR must give the same digits, and a newer pecheck whose
// definitions changed fails the definition check; the note says why a failure may follow.
std::vector<std::string> provenance_notes(const manifest& m, const std::map<std::string, golden_file>& files,
                                          const std::string& manifest_where);

}  // namespace pe::golden
