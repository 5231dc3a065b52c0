// GGUF header and metadata key/values: every count and length checked against the bytes left before it is used; skipped values are sought over.
#include "convert/gguf_metadata.hpp"

#include <array>
#include <cstring>

#include <fmt/format.h>

#include "pe/error.hpp"
#include "pe/limits.hpp"

namespace pe::convert {
namespace {

// gguf.md: "keys ... must be at most 2^16 - 1 bytes long".
constexpr std::uint64_t max_key_bytes = 65535;
// A kept string is an architecture or scaling type name (a few bytes): one of 4 KiB is not one,
// and keeping it would only cost memory.
constexpr std::uint64_t max_kept_string = 4096;
// A kept array of numbers is rope.dimension_sections, which llama.cpp reads as 4 values: 64 is far
// above it, and past it a corrupt length would cost a value record (~100 bytes) per element.
constexpr std::uint64_t max_kept_array = 64;
// Real files carry tens of keys (the tokenizer's vocabulary is one array key); each key is kept
// with its value's record, so a count far past real ones is refused before any is read.
constexpr std::uint64_t max_keys = 1 << 16;
// Skipped strings longer than this are sought over rather than read through the stream's buffer.
constexpr std::uint64_t seek_threshold = 1 << 16;

// The smallest number of bytes one element of the type takes on disk (a string: its length; an
// array: its type and length); 0 for a type number that is not GGUF's.
std::uint64_t min_size(std::uint32_t type) {
  switch (static_cast<gguf_type>(type)) {
    case gguf_type::u8: case gguf_type::i8: case gguf_type::boolean: return 1;
    case gguf_type::u16: case gguf_type::i16: return 2;
    case gguf_type::u32: case gguf_type::i32: case gguf_type::f32: return 4;
    case gguf_type::u64: case gguf_type::i64: case gguf_type::f64: case gguf_type::string: return 8;
    case gguf_type::array: return 12;
  }
  return 0;
}

bool fixed_size(gguf_type t) { return t != gguf_type::string && t != gguf_type::array; }

class reader {
 public:
  reader(std::istream& in, std::uint64_t size, const std::string& file) : in_(in), size_(size), file_(file) {}

  [[noreturn]] void fail(std::uint64_t at, const std::string& what) const { throw input_error(fmt::format("{}: byte {}: {}", file_, at, what)); }

  std::uint64_t offset() const { return offset_; }
  std::uint64_t left() const { return size_ - offset_; }

  // n more bytes must lie inside the file.
  void need(std::uint64_t n, std::string_view what) const {
    if (n > left()) fail(offset_, fmt::format("{}: {} bytes needed, {} left (the file is truncated or the length is corrupt)", what, n, left()));
  }

  template <std::size_t N>
  std::array<unsigned char, N> bytes(std::string_view what) {
    need(N, what);
    std::array<unsigned char, N> b{};
    if (!in_.read(reinterpret_cast<char*>(b.data()), N)) fail(offset_, fmt::format("{}: the read failed", what));
    offset_ += N;
    return b;
  }

  template <class T>
  T little(std::string_view what) {
    const auto b = bytes<sizeof(T)>(what);
    std::uint64_t v = 0;
    for (std::size_t i = sizeof(T); i-- > 0;) v = (v << 8) | b[i];
    T out;
    if constexpr (sizeof(T) == 8) {
      std::memcpy(&out, &v, 8);
    } else {
      const auto narrow = static_cast<std::uint32_t>(v);
      if constexpr (sizeof(T) == 4) std::memcpy(&out, &narrow, 4);
      else if constexpr (sizeof(T) == 2) { const auto n16 = static_cast<std::uint16_t>(v); std::memcpy(&out, &n16, 2); }
      else { const auto n8 = static_cast<std::uint8_t>(v); std::memcpy(&out, &n8, 1); }
    }
    return out;
  }

  void skip(std::uint64_t n, std::string_view what) {
    need(n, what);
    if (n > seek_threshold) in_.seekg(static_cast<std::streamoff>(n), std::ios::cur);
    else in_.ignore(static_cast<std::streamsize>(n));
    if (!in_) fail(offset_, fmt::format("{}: the read failed", what));
    offset_ += n;
  }

  // A string's u64 length and bytes: kept (at most `keep_max` bytes) or skipped.
  std::string string(std::string_view what, bool keep, std::uint64_t keep_max) {
    const std::uint64_t at = offset_;
    const auto length = little<std::uint64_t>(fmt::format("{}'s length", what));
    need(length, fmt::format("{} of {} bytes", what, length));
    if (!keep) {
      skip(length, what);
      return {};
    }
    if (length > keep_max) fail(at, fmt::format("{} of {} bytes: at most {} are read", what, length, keep_max));
    std::string text(static_cast<std::size_t>(length), '\0');
    if (!in_.read(text.data(), static_cast<std::streamsize>(length))) fail(offset_, fmt::format("{}: the read failed", what));
    offset_ += length;
    return text;
  }

  std::uint32_t type(std::string_view what) {
    const std::uint64_t at = offset_;
    const auto t = little<std::uint32_t>(what);
    if (min_size(t) == 0) fail(at, fmt::format("{} {} is not a GGUF value type (0 to 12)", what, t));
    return t;
  }

  gguf_value value(gguf_type t, bool keep, int depth, const std::string& key) {
    gguf_value v;
    v.type = t;
    v.offset = offset_;
    switch (t) {
      case gguf_type::u8: v.integer = little<std::uint8_t>(key); break;
      case gguf_type::i8: v.integer = little<std::int8_t>(key), v.is_signed = true; break;
      case gguf_type::u16: v.integer = little<std::uint16_t>(key); break;
      case gguf_type::i16: v.integer = little<std::int16_t>(key), v.is_signed = true; break;
      case gguf_type::u32: v.integer = little<std::uint32_t>(key); break;
      case gguf_type::i32: v.integer = little<std::int32_t>(key), v.is_signed = true; break;
      case gguf_type::u64: {
        const auto u = little<std::uint64_t>(key);
        v.too_big = u > static_cast<std::uint64_t>(INT64_MAX);
        v.integer = v.too_big ? INT64_MAX : static_cast<std::int64_t>(u);
        break;
      }
      case gguf_type::i64: v.integer = little<std::int64_t>(key), v.is_signed = true; break;
      case gguf_type::f32: v.real = little<float>(key); break;
      case gguf_type::f64: v.real = little<double>(key); break;
      case gguf_type::boolean: {
        const auto b = little<std::uint8_t>(key);
        if (b > 1) fail(v.offset, fmt::format("{}: a bool of {} (0 or 1)", key, b));
        v.integer = b;
        break;
      }
      case gguf_type::string: v.text = string(key, keep, max_kept_string); break;
      case gguf_type::array: array(v, keep, depth, key); break;
    }
    return v;
  }

 private:
  void array(gguf_value& v, bool keep, int depth, const std::string& key) {
    check_limit(limit::depth, static_cast<std::uint64_t>(depth), fmt::format("{}: byte {}: {}: arrays nested", file_, offset_, key));
    v.element = static_cast<gguf_type>(type(fmt::format("{}: array element type", key)));
    const std::uint64_t at = offset_;
    v.count = little<std::uint64_t>(fmt::format("{}: array length", key));
    const std::uint64_t each = min_size(static_cast<std::uint32_t>(v.element));
    if (v.count > left() / each) {
      fail(at, fmt::format("{}: an array of {} elements of at least {} bytes each, and {} bytes are left", key, v.count, each, left()));
    }
    const bool numbers = fixed_size(v.element) && v.element != gguf_type::boolean;
    if (keep && numbers) {
      if (v.count > max_kept_array) fail(at, fmt::format("{}: an array of {} numbers: at most {} are read (dimension_sections has 4)", key, v.count, max_kept_array));
      for (std::uint64_t i = 0; i < v.count; ++i) v.items.push_back(value(v.element, true, depth + 1, key));
    } else if (fixed_size(v.element) && v.element != gguf_type::boolean) {
      skip(v.count * each, key);
    } else {
      // Strings, bools (each checked to be 0 or 1) and nested arrays: element by element.
      for (std::uint64_t i = 0; i < v.count; ++i) (void)value(v.element, false, depth + 1, key);
    }
  }

  std::istream& in_;
  std::uint64_t size_;
  const std::string& file_;
  std::uint64_t offset_ = 0;
};

}  // namespace

bool gguf_keep(const std::string& key) {
  const auto ends = [&](std::string_view s) { return key.ends_with(s); };
  return key == "general.architecture" || ends(".rope.scaling.type") || ends(".rope.dimension_sections");
}

gguf_metadata read_gguf_metadata(std::istream& in, std::uint64_t size, const std::string& file) {
  reader r(in, size, file);
  if (size < 4) r.fail(0, fmt::format("not a GGUF file: {} bytes, fewer than its 4-byte magic", size));
  const auto magic = r.bytes<4>("magic");
  if (std::memcmp(magic.data(), "GGUF", 4) != 0) {
    r.fail(0, fmt::format("not a GGUF file: it starts with '{}' ({:02x} {:02x} {:02x} {:02x}), not 'GGUF'",
                          std::string(reinterpret_cast<const char*>(magic.data()), 4), magic[0], magic[1], magic[2], magic[3]));
  }
  gguf_metadata out;
  out.version = r.little<std::uint32_t>("version");
  if (out.version == 1) r.fail(4, "GGUF version 1 (32-bit lengths) is not read: versions 2 and 3 are");
  if (out.version == 0x02000000 || out.version == 0x03000000) r.fail(4, "a big-endian GGUF file: pecheck reads little-endian ones");
  if (out.version != 2 && out.version != 3) r.fail(4, fmt::format("GGUF version {} is not one pecheck reads (2 and 3)", out.version));
  out.tensor_count = r.little<std::uint64_t>("tensor_count");
  const std::uint64_t kv_at = r.offset();
  const auto kv_count = r.little<std::uint64_t>("metadata_kv_count");
  // A key/value takes at least 13 bytes: the key's length, the type and a one-byte value.
  if (kv_count > r.left() / 13) {
    r.fail(kv_at, fmt::format("metadata_kv_count {}: more key/values than the {} bytes left can hold", kv_count, r.left()));
  }
  if (kv_count > max_keys) r.fail(kv_at, fmt::format("metadata_kv_count {}: at most {} key/values are read (real files carry tens)", kv_count, max_keys));
  for (std::uint64_t i = 0; i < kv_count; ++i) {
    const std::uint64_t key_at = r.offset();
    std::string key = r.string(fmt::format("key {}", i), true, max_key_bytes);
    const auto type = static_cast<gguf_type>(r.type(fmt::format("{}: value type", excerpt(key))));
    gguf_value v = r.value(type, gguf_keep(key), 1, excerpt(key));
    if (!out.values.emplace(key, std::move(v)).second) r.fail(key_at, fmt::format("key '{}' appears twice", excerpt(key)));
  }
  return out;
}

}  // namespace pe::convert
