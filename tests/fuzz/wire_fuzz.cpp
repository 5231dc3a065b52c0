// Fuzz target: a wire answer (head line, newline, payload) decoded against a call's outputs, as the gate decodes it.
#include "fuzz_support.hpp"

#include "gate/io.hpp"
#include "gate/wire_answer.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace pecheck::fuzz;
  namespace w = pe::gate::wire;
  if (size == 0) return 0;
  // The first byte picks the call: rotate's y (f32 [2, 1, 4]) or inv_freq's two outputs.
  std::vector<pe::gate::io_tensor> outputs;
  if (data[0] % 2) {
    outputs.push_back(pe::gate::io_tensor{"inv_freq", pe::gate::dtype::f64, {4}, std::vector<unsigned char>(32)});
    outputs.push_back(pe::gate::io_tensor{"attention_factor", pe::gate::dtype::f64, {}, std::vector<unsigned char>(8)});
  } else {
    outputs.push_back(pe::gate::io_tensor{"y", pe::gate::dtype::f32, {2, 1, 4}, std::vector<unsigned char>(32)});
  }
  std::size_t limit = 0;
  for (const auto& t : outputs) limit += t.bytes.size();
  const std::string frame(text_of(data + 1, size - 1));
  const auto newline = frame.find('\n');
  if (newline == std::string::npos) return 0;  // the gate reads on until a newline (or its line limit)
  const auto head = w::read_answer_head(frame.substr(0, newline), limit);
  if (!head.problem.empty()) {
    if (head.problem.find('\n') != std::string::npos) broken("a head problem spans lines", head.problem);
    return 0;
  }
  const std::string_view payload = std::string_view(frame).substr(newline + 1, head.payload_bytes);
  if (payload.size() < head.payload_bytes) return 0;  // the gate waits for the rest (or its deadline)
  bool out_of_step = false;
  if (const auto problem = w::answer_head_problem(head.head, 1, out_of_step)) {
    if (problem->message.find('\n') != std::string::npos) broken("a head problem spans lines", problem->message);
    return 0;
  }
  const auto r = w::answer_result(head.head, payload, outputs);
  if (r.message.find('\n') != std::string::npos && r.status != pe::gate::call_status::error && r.status != pe::gate::call_status::unsupported) {
    broken("a bad-output message spans lines", r.message);
  }
  if (r.status == pe::gate::call_status::ok) {
    if (r.outputs.size() != outputs.size()) broken("an ok answer lost an output", frame);
    for (std::size_t k = 0; k < outputs.size(); ++k)
      if (r.outputs[k].bytes.size() != outputs[k].bytes.size()) broken("an ok answer resized an output", frame);
  }
  return 0;
}
