// A GGUF file's header and metadata key/values, read strictly and bounded; the tensor infos and data are never read.
#pragma once
#include <cstdint>
#include <istream>
#include <map>
#include <string>
#include <vector>

namespace pe::convert {

// GGUF's value types (ggml docs/gguf.md, gguf_metadata_value_type), little-endian on disk.
enum class gguf_type : std::uint32_t {
  u8 = 0, i8 = 1, u16 = 2, i16 = 3, u32 = 4, i32 = 5, f32 = 6, boolean = 7, string = 8, array = 9, u64 = 10, i64 = 11, f64 = 12,
};

// One metadata value as far as pecheck keeps it. Numbers and booleans are kept for every key;
// strings and arrays only for the keys a reader asks for (gguf_keep), since real files hold
// tokenizer vocabularies of 10^5 strings that no position setting needs: the others are skipped
// over, their type kept so that a reader asking for them can say what it found.
struct gguf_value {
  gguf_type type = gguf_type::u8;
  bool is_signed = false;    // integers: whether `integer` came from a signed type
  std::int64_t integer = 0;  // u8..i64 and bool (u64 above INT64_MAX: `too_big`)
  bool too_big = false;
  double real = 0;           // f32, f64
  std::string text;          // string (kept keys only)
  gguf_type element = gguf_type::u8;  // array: its elements' type
  std::uint64_t count = 0;            // array: its length
  std::vector<gguf_value> items;      // array of numbers (kept keys only)
  std::uint64_t offset = 0;           // byte offset of the value in the file, for messages
};

struct gguf_metadata {
  std::uint32_t version = 0;
  std::uint64_t tensor_count = 0;
  std::map<std::string, gguf_value> values;
};

// Whether the key's string or array value is kept (the architecture, scaling type and mrope
// sections); every other string and array is skipped over.
bool gguf_keep(const std::string& key);

// Reads `size` bytes' worth of header and metadata from `in` (positioned at the file's start).
// Every error is one input_error "<file>: byte <offset>: <what is wrong>": a bad magic, a version
// other than 2 or 3, a count or length past the bytes left, nesting past --limit depth, an unknown
// value type, a bool other than 0 or 1, a key given twice. Reads only as far as the last key/value.
gguf_metadata read_gguf_metadata(std::istream& in, std::uint64_t size, const std::string& file);

}  // namespace pe::convert
