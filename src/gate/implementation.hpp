// An implementation under test as the gate sees it: ops by name over dtype tensors, every call isolated.
#pragma once
#include <memory>
#include <string>
#include <vector>

#include "gate/io.hpp"

namespace pe::gate {

// What one call came back with. Everything but ok and unsupported is a failure of the case.
enum class call_status { ok, unsupported, error, crashed, timed_out, out_of_bounds, bad_output };
std::string_view status_name(call_status s);

struct call_result {
  call_status status = call_status::ok;
  std::string message;
  std::vector<io_tensor> outputs;  // the filled outputs (status ok)
};

class implementation {
 public:
  virtual ~implementation() = default;
  virtual std::string name() const = 0;
  // Runs op on spec text; `outputs` says the names, dtypes and shapes the gate expects.
  virtual call_result run(const std::string& op, const std::string& spec, const std::vector<io_tensor>& inputs,
                          const std::vector<io_tensor>& outputs) = 0;
};

// A C ABI plugin (pecheck/impl.h). Throws input_error (exit 2: unusable implementation) when
// it will not load, lacks a symbol or has another ABI version. Each call runs in a forked
// child with `timeout_ms`; outputs live in shared memory between guard bytes.
std::unique_ptr<implementation> load_plugin(const std::string& path, int timeout_ms);

// A process speaking the wire protocol (README: "The wire protocol"), started with /bin/sh -c
// COMMAND. Throws input_error (exit 2) when it does not answer hello. A call that hangs or dies
// fails its case, and the process is started again for the next.
std::unique_ptr<implementation> start_wire(const std::string& command, int timeout_ms);

// pecheck's own reference at the run's dtype, called in process (no isolation): the project's
// float path put through the gate, and the baseline of `pecheck gate --bench`.
std::unique_ptr<implementation> reference_implementation();

}  // namespace pe::gate
