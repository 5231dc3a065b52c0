// Tests for src/pe/op_schema.hpp, op_tensors.hpp and op_shapes.hpp: every op described once, its tensors round-trip, its shapes are the reference's.
#include "pe/op_schema.hpp"

#include <fmt/format.h>
#include <gtest/gtest.h>

#include <fstream>
#include <map>
#include <regex>
#include <set>
#include <sstream>

#include "pe/error.hpp"
#include "pe/op_shapes.hpp"
#include "pe/op_tensors.hpp"
#include "pe/registry.hpp"
#include "pe/scheme.hpp"

namespace {

// One spec per registered scheme (checked below, so a new scheme must add its own).
const char* const sample_specs[] = {
    "integer(dim=4)", "normalized(dim=4, length=16)", "binary(dim=4)", "learned(dim=4, max_len=16)", "sinusoidal(dim=4)",
    "none(dim=4)", "rope(dim=4)", "rope_nd(axes=[2, 4])", "mrope(dim=4, sections=[1, 1, 0])", "alibi(heads=2)",
    "t5(heads=2)", "deberta(k=2, dim=2, heads=2)", "shaw(k=2, dim=2)", "txl(heads=2, dim=2, r_dim=2)",
    "kerple(heads=2, r1=[1, 2], r2=[0.5, 1])", "llama4_temperature(floor_scale=2)", "xpos(dim=4)"};

std::vector<pe::spec> samples() {
  std::vector<pe::spec> out;
  for (const char* text : sample_specs) out.push_back(pe::parse_spec(text));
  return out;
}

// Sizes for the op table's symbols that the op accepts on s: T queries, S keys, the spec's heads
// and head dims where it fixes them, d_model the width of an absolute encoding.
std::map<std::string_view, std::int64_t> sizes(const pe::spec& s) {
  const auto& ops = s.info().ops;
  const std::int64_t h = pe::required_heads(s).value_or(2), d = pe::head_dim(s).value_or(2);
  const std::int64_t dv = pe::behaviour_of(s).value_dim_is_head_dim ? d : 3;
  std::int64_t d_model = 4;
  if (std::find(ops.begin(), ops.end(), "encode") != ops.end()) {
    pe::op_inputs at_zero;
    at_zero.pos = {0};
    d_model = pe::run_op<double>("encode", s, at_zero).at(0).value.shape.at(1);
  }
  // pairs: the rotated pairs of a rotary spec (apply_tables' tables have a column each).
  const std::int64_t pairs = pe::is_rotary(s) ? static_cast<std::int64_t>(pe::rotation_plan_of(s, std::nullopt).pairs.size()) : 1;
  // rotate_qk: grouped-query attention, three query heads over one key head.
  return {{"T", 2},        {"S", 3},     {"N", 3},           {"1", 1},          {"H", h},          {"D", d},
          {"Dv", dv},      {"d_model", d_model}, {"H D", h * d}, {"H Dv", h * dv}, {"pairs", pairs}, {"Hq", 3}, {"Hk", 1}};
}

template <class... F>
struct overloaded : F... {
  using F::operator()...;
};
template <class... F>
overloaded(F...) -> overloaded<F...>;  // clang 14 does not deduce aggregates' arguments (C++20's P1816)

// Inputs for op on s built from the table alone: every call input of its rule's shape, small
// distinct values, positions r + c (so a causal query always has a key at or before it).
// with_optional adds the optional ones (attend's positions), which absolute attention refuses for keys.
pe::op_inputs sample_inputs(std::string_view op, const pe::spec& s, bool with_optional) {
  const auto size = sizes(s);
  pe::op_inputs in;
  in.pos_axes = pe::position_axes(s);
  for (const auto* t : pe::inputs_of(op, s, false)) {
    if (t->optional && !with_optional) continue;
    std::vector<std::int64_t> shape;
    for (const auto dim : t->shape.dims) shape.push_back(size.at(dim));
    std::visit(overloaded{[&](pe::tensor<double>* v) {
                            *v = pe::tensor<double>(shape);
                            for (std::size_t k = 0; k < v->data.size(); ++k) v->data[k] = 0.25 * static_cast<double>(k % 7) - 0.5;
                          },
                          [&](std::vector<std::int64_t>* v) {
                            const std::int64_t columns = t->shape.position_rows ? in.pos_axes : 1;
                            for (std::int64_t r = 0; r < shape.at(0); ++r)
                              for (std::int64_t c = 0; c < columns; ++c) v->push_back(t->shape.position_rows ? r + c : r - 1);
                          },
                          [&](std::int64_t* v) { *v = t->value_is.empty() ? 1 : size.at(t->value_is); /* a dim, or role 1 (key) */ }, [&](bool* v) { *v = true; }},
               t->field(in));
  }
  return in;
}

// op_inputs compared field by field, independently of the table.
void expect_same(const pe::op_inputs& a, const pe::op_inputs& b, const std::string& what) {
  EXPECT_EQ(a.pos, b.pos) << what;
  EXPECT_EQ(a.pos_axes, b.pos_axes) << what;
  EXPECT_EQ(a.x.shape, b.x.shape) << what;
  EXPECT_EQ(a.x.data, b.x.data) << what;
  EXPECT_EQ(a.role, b.role) << what;
  for (const auto& [x, y] : {std::pair{&a.k, &b.k}, {&a.cos, &b.cos}, {&a.sin, &b.sin}}) {
    EXPECT_EQ(x->shape, y->shape) << what;
    EXPECT_EQ(x->data, y->data) << what;
  }
  EXPECT_EQ(a.rel, b.rel) << what;
  EXPECT_EQ(a.qpos, b.qpos) << what;
  EXPECT_EQ(a.kpos, b.kpos) << what;
  const auto &p = a.attend, &q = b.attend;
  for (const auto& [x, y] : {std::pair{&p.q, &q.q}, {&p.k, &q.k}, {&p.v, &q.v}, {&p.x, &q.x}, {&p.wq, &q.wq}, {&p.wk, &q.wk}, {&p.wv, &q.wv}}) {
    EXPECT_EQ(x->shape, y->shape) << what;
    EXPECT_EQ(x->data, y->data) << what;
  }
  EXPECT_EQ(p.heads, q.heads) << what;
  EXPECT_EQ(p.qpos, q.qpos) << what;
  EXPECT_EQ(p.kpos, q.kpos) << what;
  EXPECT_EQ(p.causal, q.causal) << what;
}

TEST(op_schema, every_op_a_scheme_lists_has_an_entry_and_every_entry_is_used) {
  std::set<std::string> listed;
  for (const pe::scheme_info& info : pe::registry()) {
    if (!info.behaviour) continue;
    for (const auto& op : info.ops) {
      listed.insert(op);
      EXPECT_NE(pe::find_op_schema(op), nullptr) << info.name << " lists op " << op << ", which the op table lacks";
    }
  }
  for (const auto& op : pe::op_names()) EXPECT_TRUE(listed.count(op)) << "no scheme lists op " << op;
  EXPECT_EQ(pe::find_op_schema("teleport"), nullptr);
}

// Each op's descriptor carries what every layer asks of it: the reference's run at every scalar
// type, and a hook check that refuses a scheme without the hook (a descriptor with no hooks at
// all) while passing every registered scheme that lists the op.
TEST(op_schema, every_op_has_a_reference_run_and_a_hook_check_that_can_refuse) {
  const pe::scheme_behaviour no_hooks{};
  for (const auto& o : pe::op_schemas()) {
    EXPECT_TRUE(static_cast<bool>(o.run)) << o.op << " has no reference run";
    if (!o.needs) continue;  // any scheme serves it (attend, by its kind's hook)
    const std::string refusal = o.needs(no_hooks);
    EXPECT_NE(refusal.find(fmt::format("op '{}' needs", o.op)), std::string::npos) << o.op << ": '" << refusal << "'";
    for (const pe::scheme_info& info : pe::registry())
      if (info.behaviour && std::find(info.ops.begin(), info.ops.end(), o.op) != info.ops.end()) {
        EXPECT_EQ(o.needs(*info.behaviour), "") << info.name << " lists " << o.op;
      }
  }
}

TEST(op_schema, the_sample_specs_cover_every_registered_scheme) {
  std::set<std::string> sampled;
  for (const auto& s : samples()) sampled.insert(s.scheme());
  for (const pe::scheme_info& info : pe::registry()) {
    if (info.behaviour) {
      EXPECT_TRUE(sampled.count(info.name)) << info.name << " has no sample spec here";
    }
  }
}

TEST(op_schema, each_tensor_is_either_of_the_call_or_of_the_spec_and_names_are_unique) {
  for (const auto& o : pe::op_schemas()) {
    for (const auto& t : o.tensors) {
      if (t.role == pe::tensor_role::output) {
        EXPECT_TRUE(!t.field && !t.constant) << o.op << " " << t.name;
      } else {
        EXPECT_NE(!t.field, !t.constant) << o.op << " " << t.name << ": an input lives in op_inputs or comes from the spec";
      }
      EXPECT_TRUE(t.value_is.empty() || (t.shape.dims.empty() && t.kind == pe::element_kind::integer)) << o.op << " " << t.name;
    }
    for (const auto& s : samples()) {
      std::set<std::string_view> names;
      for (const auto* t : pe::inputs_of(o.op, s, true)) EXPECT_TRUE(names.insert(t->name).second) << o.op << " on " << s.text() << ": " << t->name;
      for (const auto* t : pe::outputs_of(o.op, s)) EXPECT_TRUE(names.insert(t->name).second) << o.op << " on " << s.text() << ": " << t->name;
    }
  }
}

// The descriptor, not the scheme's name, picks attend's inputs: absolute encodings take x and
// the projections, the others q, k, v; T5's table comes with its bias_table hook.
TEST(op_schema, attend_inputs_follow_the_descriptor) {
  const auto names = [](const char* op, const char* spec, bool constants) {
    std::vector<std::string_view> out;
    for (const auto* t : pe::inputs_of(op, pe::parse_spec(spec), constants)) out.push_back(t->name);
    return out;
  };
  using v = std::vector<std::string_view>;
  EXPECT_EQ(names("attend", "sinusoidal(dim=4)", true), (v{"x", "wq", "wk", "wv", "heads", "qpos", "kpos", "causal"}));
  EXPECT_EQ(names("attend", "rope(dim=4)", true), (v{"q", "k", "v", "qpos", "kpos", "causal"}));
  EXPECT_EQ(names("attend", "t5(heads=2)", true), (v{"q", "k", "v", "qpos", "kpos", "causal", "table"}));
  EXPECT_EQ(names("attend", "t5(heads=2)", false), (v{"q", "k", "v", "qpos", "kpos", "causal"}));
  EXPECT_EQ(names("bias", "t5(heads=2)", true), (v{"qpos", "kpos", "table"}));
  EXPECT_EQ(names("bias", "alibi(heads=2)", true), (v{"qpos", "kpos"}));
  EXPECT_EQ(names("inv_freq", "rope(dim=4)", true), v{});
  EXPECT_EQ(names("rotate", "rope(dim=4)", true), (v{"x", "pos"}));
  EXPECT_EQ(names("rotate", "xpos(dim=4)", true), (v{"x", "pos", "role"}));
}

TEST(op_tensors, op_inputs_to_named_tensors_and_back_is_the_identity) {
  int round_trips = 0;
  for (const auto& s : samples()) {
    for (const auto& op : s.info().ops) {
      const pe::op_inputs in = sample_inputs(op, s, true);
      for (const bool constants : {false, true}) {
        const std::string what = op + " on " + s.text() + (constants ? " with constants" : "");
        const auto named = pe::named_inputs(op, s, in, constants);
        const pe::op_inputs back = pe::inputs_from(op, s, named, constants);
        expect_same(in, back, what);
        const auto again = pe::named_inputs(op, s, back, constants);
        ASSERT_EQ(again.size(), named.size()) << what;
        for (std::size_t k = 0; k < named.size(); ++k) {
          EXPECT_EQ(again[k].name, named[k].name) << what;
          EXPECT_EQ(again[k].shape, named[k].shape) << what;
          EXPECT_EQ(again[k].values, named[k].values) << what;
        }
        ++round_trips;
      }
    }
  }
  EXPECT_GE(round_trips, 2 * 30);
}

TEST(op_tensors, named_inputs_give_rows_for_several_position_columns_and_leave_absent_positions_out) {
  const pe::spec mrope = pe::parse_spec("mrope(dim=4, sections=[1, 1, 0])");
  pe::op_inputs in;
  in.pos = {0, 1, 2, 3, 4, 5};
  in.pos_axes = 3;
  in.x = pe::tensor<double>({2, 1, 4});
  const auto named = pe::named_inputs("rotate", mrope, in, false);
  ASSERT_EQ(named.size(), 2u);
  EXPECT_EQ(named[0].name, "x");
  EXPECT_EQ(named[1].name, "pos");
  EXPECT_EQ(named[1].shape, (std::vector<std::int64_t>{2, 3}));
  pe::op_inputs attend;
  attend.attend.q = attend.attend.k = attend.attend.v = pe::tensor<double>({1, 1, 2});
  std::vector<std::string> names;
  for (const auto& t : pe::named_inputs("attend", pe::parse_spec("none()"), attend, false)) names.push_back(t.name);
  EXPECT_EQ(names, (std::vector<std::string>{"q", "k", "v", "causal"}));
}

// The message each malformed tensor gives (golden verify prefixes the file and case).
TEST(op_tensors, a_tensor_missing_unknown_or_malformed_is_named_with_its_op) {
  const pe::spec rope = pe::parse_spec("rope(dim=4)");
  const auto named = pe::named_inputs("rotate", rope, sample_inputs("rotate", rope, true), false);
  const auto error_of = [](std::string_view op, const pe::spec& s, const std::vector<pe::op_tensor>& tensors, bool constants = false) {
    try {
      pe::inputs_from(op, s, tensors, constants);
    } catch (const pe::input_error& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  const auto without = [&](std::string_view name) {
    auto out = named;
    std::erase_if(out, [&](const pe::op_tensor& t) { return t.name == name; });
    return out;
  };
  EXPECT_EQ(error_of("rotate", rope, without("x")), "op rotate needs input x");
  EXPECT_EQ(error_of("rotate", rope, without("pos")), "op rotate needs input pos");
  auto unknown = named;
  unknown.push_back({"zz", {1}, std::vector<std::int64_t>{1}});
  EXPECT_EQ(error_of("rotate", rope, unknown), "input zz is not read by op rotate");
  auto real_positions = without("pos");
  real_positions.push_back({"pos", {2}, std::vector<double>{0, 1}});
  EXPECT_EQ(error_of("rotate", rope, real_positions), "input pos is f64, not i64");
  auto flat_x = without("x");
  flat_x.push_back({"x", {8}, std::vector<double>(8)});
  EXPECT_EQ(error_of("rotate", rope, flat_x), "input x has shape [8], which op rotate of rope does not read");
  auto rows = without("pos");
  rows.push_back({"pos", {2, 1}, std::vector<std::int64_t>{0, 1}});
  EXPECT_EQ(error_of("rotate", rope, rows), "input pos has shape [2, 1], which op rotate of rope does not read");
  auto tokens = without("pos");
  tokens.push_back({"pos", {3}, std::vector<std::int64_t>{0, 1, 2}});
  EXPECT_EQ(error_of("rotate", rope, tokens), "x and pos have different token counts");

  const pe::spec t5 = pe::parse_spec("t5(heads=2)");
  auto attend = pe::named_inputs("attend", t5, sample_inputs("attend", t5, true), true);
  EXPECT_EQ(error_of("attend", t5, attend), "input table is not read by op attend");  // golden files do not hold it
  EXPECT_EQ(error_of("attend", t5, attend, true), "no error");                          // the gate's I/O does
  for (auto& t : attend)
    if (t.name == "causal") t.values = std::vector<std::int64_t>{2};
  EXPECT_EQ(error_of("attend", t5, attend, true), "input causal is 2, not 0 or 1");
  const pe::spec sinusoidal = pe::parse_spec("sinusoidal(dim=4)");
  EXPECT_EQ(error_of("attend", sinusoidal, pe::named_inputs("attend", t5, sample_inputs("attend", t5, true), false)),
            "input q is not read by op attend");
}

TEST(op_shapes, bound_output_shapes_are_the_references) {
  int bound = 0;
  for (const auto& s : samples()) {
    for (const auto& op : s.info().ops) {
      const std::string what = op + " on " + s.text();
      const pe::op_inputs in = sample_inputs(op, s, !pe::is_absolute(s));
      const auto outputs = pe::outputs_of(op, s);
      const auto shapes = pe::output_shapes(op, s, in);
      const auto reference = pe::run_op<double>(op, s, in);
      ASSERT_EQ(reference.size(), outputs.size()) << what;
      ASSERT_EQ(shapes.size(), outputs.size()) << what;
      for (std::size_t o = 0; o < outputs.size(); ++o) {
        EXPECT_EQ(reference[o].name, outputs[o]->name) << what;
        // Shapes the inputs and the spec give are found (matrix's D is the spec's head dim);
        // encode's dim and inv_freq's pairs only the op knows.
        const std::string_view out = outputs[o]->name;
        EXPECT_EQ(shapes[o].has_value(), out != "pe" && out != "inv_freq") << what << ": " << out;
        if (!shapes[o]) continue;
        EXPECT_EQ(*shapes[o], reference[o].value.shape) << what << ": " << out;
        ++bound;
      }
    }
  }
  EXPECT_GE(bound, 20);
}

TEST(op_shapes, heads_bind_only_when_positive) {
  const pe::spec s = pe::parse_spec("sinusoidal(dim=4)");
  pe::op_inputs in = sample_inputs("attend", s, false);
  EXPECT_EQ(pe::output_shapes("attend", s, in).at(0), (std::vector<std::int64_t>{2, 2, 3}));
  in.attend.heads = 0;
  EXPECT_FALSE(pe::output_shapes("attend", s, in).at(0).has_value());
}

// golden/README.md's op table says what the op table holds: each op's inputs (call and spec
// constants alike, by name) and outputs, each with the shape its rule renders and "(optional)"
// where it may be absent.
TEST(op_schema, golden_readme_op_table_matches) {
  std::ifstream file(std::string(PECHECK_SOURCE_DIR) + "/golden/README.md");
  ASSERT_TRUE(file) << "cannot read golden/README.md";
  std::stringstream text;
  text << file.rdbuf();
  const std::string readme = text.str();
  const std::regex row(R"(\n\| `(\w+)` \| ([^|\n]*) \| ([^|\n]*) \|)");
  const std::regex name(R"(`(\w+)`)");
  const std::regex shape(R"(^ (\[[^\]]*\](?: or \[[^\]]*\])?)( \(optional\))?)");
  std::set<std::string> documented;
  for (auto m = std::sregex_iterator(readme.begin(), readme.end(), row); m != std::sregex_iterator(); ++m) {
    const std::string op = (*m)[1];
    const pe::op_schema* schema = pe::find_op_schema(op);
    ASSERT_NE(schema, nullptr) << "README documents op " << op;
    documented.insert(op);
    for (const auto role : {pe::tensor_role::input, pe::tensor_role::output}) {
      const std::string cell = (*m)[role == pe::tensor_role::input ? 2 : 3];
      std::set<std::string> in_readme, in_table;
      std::vector<std::string> pending;  // "`wq`, `wk` [d_model, H D]": a run of names shares the shape after it
      for (auto n = std::sregex_iterator(cell.begin(), cell.end(), name); n != std::sregex_iterator(); ++n) {
        const std::string tensor = (*n)[1];
        in_readme.insert(tensor);
        pending.push_back(tensor);
        const std::string rest = cell.substr(static_cast<std::size_t>(n->position() + n->length()));
        std::smatch sh;
        if (!std::regex_search(rest, sh, shape)) {
          if (rest.rfind(", `", 0) != 0) pending.clear();
          continue;
        }
        for (const auto& p : pending) {
          const auto t = std::find_if(schema->tensors.begin(), schema->tensors.end(), [&](const pe::tensor_schema& e) { return e.name == p && e.role == role; });
          ASSERT_NE(t, schema->tensors.end()) << op << ": README names " << p;
          EXPECT_EQ(pe::shape_text(t->shape), sh[1].str()) << op << " " << p;
          EXPECT_EQ(t->optional, sh[2].matched) << op << " " << p;
        }
        pending.clear();
      }
      for (const auto& t : schema->tensors)
        if (t.role == role && !t.constant) in_table.insert(std::string(t.name));
      // The spec's constants are written out below the table, with their shapes.
      for (const auto& t : schema->tensors)
        if (t.role == role && t.constant) {
          EXPECT_NE(readme.find(fmt::format("`{}` {}", t.name, pe::shape_text(t.shape))), std::string::npos) << op << " " << t.name;
        }
      EXPECT_EQ(in_readme, in_table) << op;
    }
  }
  for (const auto& op : pe::op_names()) EXPECT_TRUE(documented.count(op)) << "README's op table lacks " << op;
}

}  // namespace
