// `pecheck diagnose`: which convention an implementation computes (src/audit/diagnose.hpp), as a sentence and in JSON.
#include <fmt/format.h>

#include "audit/diagnose.hpp"
#include "cli/command_support.hpp"
#include "cli/commands.hpp"

namespace pecheck {

std::function<int()> add_diagnose_command(CLI::App& app) {
  struct diagnose_cli {
    pe::audit::diagnose_request request;
    std::string json;
    int shown = 5;
  };
  auto o = std::make_shared<diagnose_cli>();
  auto& q = o->request;
  auto* cmd = app.add_subcommand("diagnose", "name the convention an implementation really computes: the spec's neighbourhood searched for its best fit");
  add_implementation_flags(*cmd, q.implementation);
  cmd->add_option("--spec", q.spec, "the spec it was asked to implement")->required();
  // gate and audit read a model's config; diagnose judges one spec, so these say where to find it.
  // (No structured binding here: clang 14 cannot capture one in a lambda.)
  for (const auto& flag_and_command : {std::pair{"--hf-config", "from-hf"}, std::pair{"--gguf", "from-gguf"}})
    cmd->add_option_function<std::string>(flag_and_command.first, [flag = flag_and_command.first, command = flag_and_command.second](const std::string& file) {
         throw CLI::ValidationError(fmt::format("diagnose: {} {}: diagnose judges one spec; `pecheck spec {} {}` prints those it gives, pass one with --spec",
                                                flag, file, command, file));
       })->group("");
  cmd->add_option("--op", q.op, "the op to diagnose (default: rotate for the RoPE family, else the spec's first it can probe; rotate_grad: the backward pass)");
  cmd->add_option("--dtype", q.dtype, "I/O dtype: f32, f64, f16, bf16 (default f32)");
  cmd->add_option("--working", q.working, "the implementation's working precision: f32 or f64");
  cmd->add_option("--tolerance", q.tolerance, "the gate's bound the residuals are measured against");
  cmd->add_option("--seed", q.seed, "seed of the calls' x");
  cmd->add_option("--show", o->shown, "how many of the ranked conventions to list (default 5)")->check(CLI::Range(1, 1000));
  cmd->add_option("--json", o->json, "write the diagnosis and the whole ranking as JSON to FILE");
  return [o] {
    output_files files;
    files.open(o->json, "--json");
    const auto d = pe::audit::diagnose(o->request);
    fmt::print("diagnose: {}\n  {} on {}, I/O {}: {} calls, {} elements\n", d.implementation, d.op, d.asked, d.dtype, d.calls, d.elements);
    for (const auto& f : d.failed) fmt::print("  failed {}\n", f);
    // No element answered: every convention's residual would read 0 over nothing, so none is listed.
    if (d.elements > 0) {
      fmt::print("  {:>10}  {:>10}  convention\n", "residual", "worst");
      for (std::size_t k = 0; k < d.ranked.size() && static_cast<int>(k) < o->shown; ++k)
        fmt::print("  {:>10.3g}  {:>10.3g}  {}\n", d.ranked[k].residual, d.ranked[k].worst, d.ranked[k].name);
    }
    fmt::print("{}{}\n", pe::gate::sandbox::report_lines(d.sandbox), d.sentence());
    files.finish("--json", d.json().dump(1) + "\n");
    // 0: it computes what was asked; 1: something else (or nothing explains it).
    return d.as_asked() ? 0 : 1;
  };
}

}  // namespace pecheck
