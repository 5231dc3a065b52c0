// A GGUF file's metadata as pecheck's description of the model's position handling (model_positions.hpp).
#pragma once
#include <cstdint>
#include <istream>
#include <string>

#include "convert/gguf_metadata.hpp"
#include "convert/model_positions.hpp"

namespace pe::convert {

// The model of metadata already read: general.architecture picks llama.cpp's convention
// (gguf_archs.hpp), then ARCH.block_count, ARCH.attention.head_count, key_length or
// embedding_length, ARCH.rope.* and ARCH.attention.max_alibi_bias. Every error is one input_error
// line "<file>: <key>: <why>": a missing key, an unknown architecture or scaling type, a setting
// that lives in tensors (LongRoPE's factors) or that no spec describes.
model_positions gguf_model(const gguf_metadata& metadata, const std::string& file);

// Reads the header and metadata of `size` bytes from `in`, then gguf_model.
model_positions read_gguf(std::istream& in, std::uint64_t size, const std::string& file);
// The same for a file on disk, named `path` in errors; only its header and metadata are read.
model_positions read_gguf_file(const std::string& path);

}  // namespace pe::convert
