// The scheme registry: every scheme with its parameters (type, default, doc, checks) and its ops.
#pragma once
#include <cstdint>
#include <deque>
#include <functional>
#include <limits>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

namespace pe {

class spec;
struct scheme_behaviour;

// A resolved parameter value.
using real_list = std::vector<double>;
using value = std::variant<std::int64_t, double, bool, std::string, real_list, std::shared_ptr<const spec>>;

enum class param_kind { integer, real, boolean, choice, real_list, scheme };

struct param_info {
  std::string name;
  param_kind kind;
  std::string doc;
  std::optional<value> default_value;  // filled in when absent
  bool optional = false;               // may stay absent (no default)
  std::vector<std::string> choices;    // kind == choice
  // What each value means, in words, for a diagnosis that finds the other one computed: kind ==
  // choice, one per choice in order ("GPT-J's interleaved pairs"); kind == boolean, false's then
  // true's. Empty: the value's own text stands for it.
  std::vector<std::string> value_words;
  std::string family;                  // kind == scheme: which family the nested scheme is from
  // Returns "" when the value is acceptable, else the reason ("must be > 1").
  std::function<std::string(const value&)> check;
};

struct scheme_info {
  std::string name;
  std::string family;  // "encoding" for top-level schemes
  std::string doc;
  std::vector<param_info> params;
  std::vector<std::string> ops;
  // Checks across fields, run after every parameter is resolved; throws spec_error.
  std::function<void(const spec&)> validate;
  // Fills defaults that depend on other fields (rope's rotary_dim = dim), before validate.
  std::function<void(std::vector<std::pair<std::string, value>>&)> complete;
  // What the scheme does (pe/scheme.hpp); null for nested schemes such as RoPE's scalings.
  std::shared_ptr<const scheme_behaviour> behaviour;
};

// All registered schemes, in the order `pecheck list` shows them. They are stored in a deque,
// so a spec's pointer to its scheme stays valid when schemes are added.
// Ordered by kind (absolute, plain, rotary, bias, score terms), then nested schemes, each in
// registration order.
const std::vector<std::reference_wrapper<const scheme_info>>& registry();
const scheme_info* find_scheme(std::string_view name);

// Adds a scheme. Each schemes/X.cpp registers its own at start-up (pe/scheme.hpp's
// scheme_registration); tests add nested and list parameters that no built-in scheme takes yet.
// registry() lists the schemes by kind, then by `order`, then by name: the same on every build,
// whatever order the linker (or a unity batch) runs the registrations in.
// Throws std::logic_error on a duplicate name.
void register_scheme(scheme_info info, int order = 0);

// Builders for the common parameter shapes.
param_info integer_param(std::string name, std::string doc, std::optional<std::int64_t> def, std::int64_t min,
                         std::int64_t max = std::numeric_limits<std::int64_t>::max());

// The largest vector length any scheme accepts (real models stay below 2^16); it keeps every
// index such as p * dim + j far from int64 overflow.
inline constexpr std::int64_t max_dim = std::int64_t{1} << 20;
// "" when d is within limit::dim (--limit dim=N, default 2^16), else the reason: the soft bound
// below max_dim that keeps a typo from minutes of work.
std::string dim_over_limit(std::int64_t d);
// The largest table or sequence length (positions are otherwise any int64).
inline constexpr std::int64_t max_table_length = std::int64_t{1} << 40;
param_info real_param(std::string name, std::string doc, std::optional<double> def,
                      std::function<std::string(double)> check = {});
param_info choice_param(std::string name, std::string doc, std::string def, std::vector<std::string> choices,
                        std::vector<std::string> value_words = {});
// A boolean parameter with its default and what false and true mean in words (param_info::value_words).
param_info boolean_param(std::string name, std::string doc, bool def, std::string false_words, std::string true_words);
// The two parameters of every seeded stand-in for trained weights (learned, t5, shaw, txl).
param_info init_std_param(double def, std::string doc);
param_info seed_param();

// The value in canonical spec text: integers plainly, reals as the shortest text that reads
// back to the same binary64, lists in brackets, nested specs in full.
std::string value_text(const value& v);

}  // namespace pe
