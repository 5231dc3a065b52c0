// The llama.cpp architectures whose GGUF metadata pecheck reads, each with the rotation its kernel applies and where that comes from.
#pragma once
#include <string>
#include <string_view>
#include <vector>

namespace pe::convert {

// llama.cpp's position handling of an architecture (its llama_rope_type, or ALiBi).
enum class gguf_positions {
  norm,   // LLAMA_ROPE_TYPE_NORM: adjacent pairs (2i, 2i + 1); pecheck layout=gptj
  neox,   // LLAMA_ROPE_TYPE_NEOX: pairs (i, i + r/2); pecheck layout=neox
  mrope,  // LLAMA_ROPE_TYPE_MROPE: neox pairs, each reading the t, h or w position by dimension_sections
  alibi,  // LLAMA_ROPE_TYPE_NONE with ALiBi in the attention's softmax (max_alibi_bias)
};

// How an architecture's layers differ in position handling, where llama.cpp sets it in code.
enum class gguf_layering {
  uniform,  // every layer alike
  gemma3,   // sliding-window and global layers, 5 of every 6 sliding (the local ones unscaled at base 10000)
  llama4,   // RoPE layers and every fourth layer NoPE with the query temperature
};

// Frequency scaling an architecture's files keep as tensors, not metadata (this reader reads no tensors).
enum class gguf_tensor_scaling {
  none,
  llama3_rope_freqs,  // Llama 3.1 and later: rope_freqs.weight, a divisor per frequency (noted)
  longrope_factors,   // Phi-3 long-context: rope_factors_long/short.weight (refused)
};

struct gguf_arch {
  std::string_view name;  // general.architecture
  gguf_positions positions;
  gguf_layering layering = gguf_layering::uniform;
  // norm only: whether llama.cpp's converter permuted HF's q and k rows for the adjacent-pair kernel
  // (Llama) or kept them (Llama 4, whose HF model already rotates adjacent pairs).
  bool permuted = true;
  gguf_tensor_scaling tensor_scaling = gguf_tensor_scaling::none;
};

// The architecture named by general.architecture; nullptr for one pecheck does not know.
const gguf_arch* find_gguf_arch(std::string_view name);
std::vector<std::string_view> known_gguf_archs();
// The note saying which rotation llama.cpp's kernel applies and why that is the spec's layout.
std::string gguf_layout_note(const gguf_arch& arch);

}  // namespace pe::convert
