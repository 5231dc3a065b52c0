// Memory layouts of the wire protocol (see layouts.hpp).
#include "gate/layouts.hpp"

#include <algorithm>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "pe/error.hpp"

namespace pe::gate {
namespace {

// Forwards every call to `inner_`, its rank-3 inputs marked with the layout.
class presented final : public implementation {
 public:
  presented(implementation& inner, std::string layout) : inner_(inner), layout_(std::move(layout)) {}
  std::string name() const override { return inner_.name(); }
  std::vector<std::string> notes() const override { return inner_.notes(); }
  bool in_process() const override { return inner_.in_process(); }
  std::vector<std::string> layouts() const override { return inner_.layouts(); }
  call_result run(const std::string& op, const std::string& spec, const std::vector<io_tensor>& inputs,
                  const std::vector<io_tensor>& outputs) override {
    if (layout_ == "contiguous") return inner_.run(op, spec, inputs, outputs);
    std::vector<io_tensor> marked = inputs;
    for (auto& t : marked)
      if (t.shape.size() == 3) t.layout = layout_;
    return inner_.run(op, spec, marked, outputs);
  }

 private:
  implementation& inner_;
  std::string layout_;
};

}  // namespace

const std::vector<std::string>& known_layouts() {
  static const std::vector<std::string> names{"contiguous", "padded_heads", "transposed", "packed_qkv"};
  return names;
}

offered_layouts layouts_of_hello(const nlohmann::json& hello) {
  offered_layouts out;
  if (!hello.is_object() || !hello.contains("layouts")) {
    out.names = {"contiguous"};
    return out;
  }
  const auto& list = hello["layouts"];
  if (!list.is_array() || list.empty()) {
    out.problem = "hello's \"layouts\" is not a list of layout names: " + list.dump().substr(0, 200);
    return out;
  }
  for (const auto& name : list) {
    const bool known = name.is_string() && std::find(known_layouts().begin(), known_layouts().end(), name.get<std::string>()) != known_layouts().end();
    if (!known) {
      out.problem = fmt::format("hello's \"layouts\" names {}, which is no layout of the wire protocol ({})", name.dump().substr(0, 200),
                                fmt::join(known_layouts(), ", "));
      return out;
    }
    if (std::find(out.names.begin(), out.names.end(), name.get<std::string>()) == out.names.end()) out.names.push_back(name.get<std::string>());
  }
  return out;
}

std::vector<std::string> layouts_to_run(const std::vector<std::string>& asked, const implementation& impl) {
  const auto offered = impl.layouts();
  if (asked.empty()) return offered;
  for (const auto& layout : asked) {
    if (std::find(known_layouts().begin(), known_layouts().end(), layout) == known_layouts().end())
      throw input_error(fmt::format("--layouts {}: no such layout (the layouts are {})", layout, fmt::join(known_layouts(), ", ")));
    if (std::find(offered.begin(), offered.end(), layout) == offered.end())
      throw input_error(fmt::format("--layouts {}: {} offers {} only (a C plugin's inputs are contiguous; a wire process offers what its hello's "
                                    "\"layouts\" lists)",
                                    layout, impl.name(), fmt::join(offered, ", ")));
  }
  return asked;
}

std::unique_ptr<implementation> presented_in(implementation& inner, const std::string& layout) {
  return std::make_unique<presented>(inner, layout);
}

}  // namespace pe::gate
