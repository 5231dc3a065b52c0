// Reading .npy files (see npy_reader.hpp; the format: numpy.lib.format's documentation): magic,
// version, header length, a Python dict literal as NumPy writes it, then the raw data.
#include "golden/npy_reader.hpp"

#include <cctype>
#include <cstring>
#include <fstream>
#include <optional>

#include <fmt/format.h>

#include "pe/bounded_file.hpp"
#include "pe/error.hpp"
#include "pe/half.hpp"
#include "pe/limits.hpp"

namespace pe::golden {
namespace {

constexpr std::string_view magic = "\x93NUMPY";
// NumPy itself refuses headers past 10000 bytes unless told they are trusted; a few KiB hold a
// 32-dimensional shape. The cap bounds what a version 2 file's 32-bit length could ask for.
constexpr std::size_t header_limit = 65536;
// NumPy's most dimensions (NPY_MAXDIMS, 32 before NumPy 2).
constexpr std::size_t max_dims = 32;

struct dtype_info {
  std::string_view descr;
  std::size_t size;
};
constexpr dtype_info dtypes[] = {{"<f8", 8}, {"<f4", 4}, {"<f2", 2}, {"<i8", 8}, {"<i4", 4}};

struct header {
  const dtype_info* dtype = nullptr;
  std::vector<std::int64_t> shape;
  std::size_t data_offset = 0;  // the data's first byte in the file
  std::uint64_t values = 0;     // the shape's element count (checked against the limit)
};

// A cursor over the dict literal: each error names the byte offset in the file.
class dict_reader {
 public:
  dict_reader(std::string_view text, std::size_t offset, const std::string& where) : text_(text), offset_(offset), where_(where) {}

  [[noreturn]] void fail(const std::string& what) const {
    throw input_error(fmt::format("{}: .npy header at byte {}: {}", where_, offset_ + at_, what));
  }
  void skip_spaces() {
    while (at_ < text_.size() && (text_[at_] == ' ' || text_[at_] == '\t' || text_[at_] == '\n')) ++at_;
  }
  bool take(char c) {
    skip_spaces();
    if (at_ < text_.size() && text_[at_] == c) return ++at_, true;
    return false;
  }
  void expect(char c) {
    if (!take(c)) fail(fmt::format("expected '{}'{}", c, at_ < text_.size() ? fmt::format(", found '{}'", excerpt(text_.substr(at_, 1))) : ", found the end"));
  }
  std::string string_literal() {
    skip_spaces();
    if (at_ >= text_.size() || (text_[at_] != '\'' && text_[at_] != '"')) fail("expected a quoted string");
    const char quote = text_[at_++];
    const auto end = text_.find(quote, at_);
    if (end == std::string_view::npos) fail("a string without its closing quote");
    std::string s(text_.substr(at_, end - at_));
    at_ = end + 1;
    return s;
  }
  bool boolean() {
    skip_spaces();
    for (const auto& [word, value] : {std::pair<std::string_view, bool>{"False", false}, {"True", true}}) {
      if (text_.substr(at_, word.size()) == word) return at_ += word.size(), value;
    }
    fail("expected True or False");
  }
  std::vector<std::int64_t> shape() {
    expect('(');
    std::vector<std::int64_t> dims;
    while (!take(')')) {
      if (!dims.empty()) expect(',');
      if (take(')')) break;  // (5,)
      skip_spaces();
      std::int64_t d = 0;
      const std::size_t start = at_;
      while (at_ < text_.size() && std::isdigit(static_cast<unsigned char>(text_[at_]))) {
        const int digit = text_[at_++] - '0';
        if (d > (INT64_MAX - digit) / 10) fail("a dimension past 2^63 - 1");
        d = d * 10 + digit;
      }
      if (at_ == start) fail("expected a dimension (a non-negative integer)");
      if (dims.size() == max_dims) fail(fmt::format("more than {} dimensions", max_dims));
      dims.push_back(d);
    }
    return dims;
  }
  bool at_end() {
    skip_spaces();
    return at_ == text_.size();
  }

 private:
  std::string_view text_;
  std::size_t offset_, at_ = 0;
  const std::string& where_;
};

// The preamble's header length, and the offset where the header starts; `bytes` holds at least the preamble.
std::pair<std::size_t, std::size_t> header_extent(std::string_view bytes, const std::string& where) {
  if (bytes.size() < magic.size() + 2 || bytes.substr(0, magic.size()) != magic) {
    throw input_error(fmt::format("{}: not a .npy file (it does not start with \\x93NUMPY)", where));
  }
  const auto major = static_cast<unsigned char>(bytes[6]), minor = static_cast<unsigned char>(bytes[7]);
  if (minor != 0 || major < 1 || major > 3) throw input_error(fmt::format("{}: .npy format version {}.{}, not 1.0, 2.0 or 3.0", where, major, minor));
  const std::size_t width = major == 1 ? 2 : 4;
  if (bytes.size() < 8 + width) throw input_error(fmt::format("{}: the .npy file ends inside its header length", where));
  std::size_t length = 0;
  for (std::size_t k = 0; k < width; ++k) length |= static_cast<std::size_t>(static_cast<unsigned char>(bytes[8 + k])) << (8 * k);
  if (length > header_limit) throw input_error(fmt::format("{}: .npy header of {} bytes, more than {}", where, length, header_limit));
  return {length, 8 + width};
}

// The preamble and dict of `bytes` (which hold at least the whole header), checked.
header read_header(std::string_view bytes, const std::string& where) {
  const auto [length, start] = header_extent(bytes, where);
  if (bytes.size() < start + length) throw input_error(fmt::format("{}: the .npy file ends inside its {}-byte header", where, length));
  const std::string_view text = bytes.substr(start, length);
  for (std::size_t k = 0; k < text.size(); ++k) {
    const auto c = static_cast<unsigned char>(text[k]);
    if (c >= 0x7f || (c < 0x20 && c != '\n' && c != '\t')) {
      throw input_error(fmt::format("{}: .npy header at byte {}: the byte 0x{:02x}, not printable ASCII", where, start + k, c));
    }
  }
  dict_reader r(text, start, where);
  header h;
  std::optional<bool> fortran;
  bool have_shape = false;
  r.expect('{');
  while (!r.take('}')) {
    const std::string key = r.string_literal();
    r.expect(':');
    const auto repeated = [&](bool seen) {
      if (seen) r.fail(fmt::format("the key '{}' twice", key));
    };
    if (key == "descr") {
      repeated(h.dtype != nullptr);
      const std::string descr = r.string_literal();
      for (const auto& d : dtypes)
        if (d.descr == descr) h.dtype = &d;
      if (!h.dtype) r.fail(fmt::format("dtype '{}' is not read: pecheck reads <f8, <f4, <f2, <i8 and <i4 (little-endian reals and integers)", excerpt(descr)));
    } else if (key == "fortran_order") {
      repeated(fortran.has_value());
      fortran = r.boolean();
    } else if (key == "shape") {
      repeated(have_shape);
      h.shape = r.shape();
      have_shape = true;
    } else {
      r.fail(fmt::format("unknown key '{}' (NumPy writes descr, fortran_order and shape)", excerpt(key)));
    }
    if (!r.take(',')) {
      r.expect('}');
      break;
    }
  }
  if (!r.at_end()) r.fail("more after the dict than spaces and its newline");
  if (!h.dtype || !fortran || !have_shape) throw input_error(fmt::format("{}: .npy header lacks {}", where, !h.dtype ? "descr" : !fortran ? "fortran_order" : "shape"));
  if (*fortran) throw input_error(fmt::format("{}: a Fortran-order .npy array: save it in C order (np.ascontiguousarray)", where));
  h.data_offset = start + length;
  h.values = saturating_product(h.shape);
  check_limit(limit::input_values, h.values, fmt::format("{}: .npy shape ({}) holds", where, fmt::join(h.shape, ", ")));
  return h;
}

template <class V>
V load(const char* p) {
  V v;
  std::memcpy(&v, p, sizeof v);  // little-endian, as on every target pecheck builds for
  return v;
}

// The data must be exactly the shape's: a short file is truncated, a longer one is not this array.
void check_data_bytes(const header& h, std::size_t bytes, const std::string& where) {
  if (bytes != h.values * h.dtype->size) {
    throw input_error(fmt::format("{}: .npy shape ({}) of {} holds {} bytes of data, the file has {}", where, fmt::join(h.shape, ", "),
                                  h.dtype->descr, h.values * h.dtype->size, bytes));
  }
}

npy_array read_data(const header& h, std::string_view data, const std::string& where) {
  const std::size_t size = h.dtype->size;
  check_data_bytes(h, data.size(), where);
  npy_array a{std::string(h.dtype->descr), h.shape, {}, {}};
  const char kind = h.dtype->descr[1];
  if (kind == 'f') a.reals.resize(h.values);
  else a.integers.resize(h.values);
  for (std::size_t k = 0; k < h.values; ++k) {
    const char* p = data.data() + k * size;
    if (kind == 'i') a.integers[k] = size == 8 ? load<std::int64_t>(p) : load<std::int32_t>(p);
    else if (size == 8) a.reals[k] = load<double>(p);
    else if (size == 4) a.reals[k] = load<float>(p);
    else a.reals[k] = static_cast<double>(fp16::from_bits(load<std::uint16_t>(p)));
  }
  return a;
}

}  // namespace

npy_array read_npy(std::string_view bytes, const std::string& where) {
  const header h = read_header(bytes, where);
  return read_data(h, bytes.substr(h.data_offset), where);
}

npy_array read_npy_file(const std::string& path, const std::string& where) {
  require_regular_file(path, fmt::format("{}: '{}'", where, excerpt(path)));  // a FIFO would block the open below
  std::ifstream file(path, std::ios::binary);
  if (!file) throw input_error(fmt::format("{}: cannot open '{}'", where, excerpt(path)));
  file.seekg(0, std::ios::end);
  const auto size = static_cast<std::size_t>(file.tellg());
  file.seekg(0);
  // The header first (its length is in the first 12 bytes): the limit is checked before the data is read.
  std::string head(std::min<std::size_t>(size, 12), '\0');
  file.read(head.data(), static_cast<std::streamsize>(head.size()));
  const auto [length, start] = header_extent(head, where);
  const std::size_t read = head.size();
  head.resize(std::min(size, start + length));
  if (head.size() > read) file.read(head.data() + read, static_cast<std::streamsize>(head.size() - read));
  const header h = read_header(head, where);
  check_data_bytes(h, size - h.data_offset, where);
  std::string data(size - h.data_offset, '\0');
  file.seekg(static_cast<std::streamoff>(h.data_offset));
  file.read(data.data(), static_cast<std::streamsize>(data.size()));
  if (!file) throw input_error(fmt::format("{}: cannot read '{}'", where, excerpt(path)));
  return read_data(h, data, where);
}

}  // namespace pe::golden
