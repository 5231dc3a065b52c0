// The property registry: every law with its stable id, statement, targets and expectations.
#pragma once
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <rapidcheck.h>

#include "pe/mp.hpp"
#include "pe/spec.hpp"
#include "properties/backend.hpp"

namespace pe::props {

// What a target expects of a law: it holds on every case; it is known to break and a
// counterexample must be found (e.g. any positional scheme breaks permutation
// equivariance); or it holds up to a bound the law reports (K* for sinusoidal proximity).
enum class expectation { holds, fails, holds_within };
std::string_view expectation_name(expectation e);

// One evaluation of a law on one drawn case: it holds iff residual <= bound. residual and
// bound are in the law's own units (absolute or relative, stated in its proof), so the
// ladder can compare residual / scale across precisions.
struct measure {
  double residual = 0;
  double bound = 0;
  double scale = 1;           // magnitude the residual is relative to (ladder: residual / scale)
  std::string note;           // what the law reports for holds_within targets (K* = ...), else ""
  bool holds() const { return residual <= bound; }
};

// A law body: draws its inputs with RapidCheck (`*gen`) and evaluates them through the
// backend, at binary64 or at the MPFR precision in force.
template <class T>
using law_fn = std::function<measure(const backend<T>&, const spec&)>;

// Where a law is run: a label (a scheme name for random specs of that scheme, or a fixed
// spec's text), the spec generator, and the expectation there.
struct target {
  std::string label;
  std::string scheme;  // the matrix column
  expectation expected;
  rc::Gen<std::string> specs;  // spec texts
};

enum class law_kind { identity, inequality };  // the ladder holds only identities to 2^-p

struct property {
  std::string id;         // <family>.<law>
  std::string statement;  // one line
  law_kind kind;
  std::vector<target> targets;
  law_fn<double> in_double;
  law_fn<mp_real> in_mp;
  // The gate also runs it on implementations under test: it needs no reference, draws inputs
  // through backend::stored and positions up to max_position(), and its bound takes
  // backend::output_error (proofs/gate_laws.md).
  bool on_implementations = false;
  // It compares calls whose largest positions differ, so it holds only where the frequencies do
  // not read the call's length (dynamic and longrope scaling without seq_len do; the generators pin it).
  bool compares_call_lengths = false;
};

// Marks a law the gate runs on implementations; `lengths`: it compares calls of different lengths.
enum class call_lengths { same, differ };
inline property on_implementations(property p, call_lengths lengths = call_lengths::same) {
  p.on_implementations = true;
  p.compares_call_lengths = lengths == call_lengths::differ;
  return p;
}

// Every property, in the order `pecheck check` shows them.
const std::vector<property>& properties();

// Registration helper: one templated law body, instantiated for binary64 and MPFR.
// Law_in_double is not for callers: a law is a class template in its family's anonymous
// namespace, and GCC does not give an instantiation internal linkage for a template template
// argument alone (GCC PR 70413), so two families' laws of the same name would share one body
// at link time. A type argument from the anonymous namespace does give it internal linkage
// (tests/properties/law_linkage_test.cpp).
template <template <class> class Law, class Law_in_double = Law<double>>
property make_property(std::string id, std::string statement, law_kind kind, std::vector<target> targets) {
  return property{std::move(id), std::move(statement), kind, std::move(targets),
                  [](const backend<double>& b, const spec& s) { return Law<double>::run(b, s); },
                  [](const backend<mp_real>& b, const spec& s) { return Law<mp_real>::run(b, s); }};
}

// Each family file registers the function that adds its properties, with its place in the
// order `pecheck check` shows the families (attention first, then by scheme kind).
struct family_registration {
  family_registration(int order, void (*add)(std::vector<property>&));
};

}  // namespace pe::props
