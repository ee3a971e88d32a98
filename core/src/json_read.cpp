#include "json_read.hpp"

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "vram/error.hpp"
#include "vram/json_object.hpp"

namespace vram::json_read {

const char* type_name(const json& value) {
  switch (value.type()) {
    case json::value_t::null:
      return "null";
    case json::value_t::object:
      return "object";
    case json::value_t::array:
      return "array";
    case json::value_t::string:
      return "string";
    case json::value_t::boolean:
      return "boolean";
    case json::value_t::number_integer:
    case json::value_t::number_unsigned:
    case json::value_t::number_float:
      return "number";
    default:
      return "other";
  }
}

namespace {

// A JSON text read byte by byte into nlohmann's DOM, as nlohmann's parser
// reads it (RFC 8259: the same values and number types, a leading UTF-8
// byte-order mark skipped, ill-formed UTF-8, raw control characters and
// lone surrogates refused, nothing after the value), and failing with its
// exceptions. Without recursion: the containers still open are a stack,
// so a deep text cannot exhaust the call stack, and the depth is counted
// as each one opens. Its own reader, not nlohmann's lexer: a third of the
// instructions for the core's catalog at start-up (README, speed).
class Reader {
 public:
  Reader(std::string_view text, std::size_t max_depth, const std::string& field)
      : begin_(text.data()),
        p_(text.data()),
        end_(text.data() + text.size()),
        max_depth_(max_depth),
        field_(field) {}

  /** A reader at `at` inside `text` (errors count bytes from text's start), `depth` deep. */
  Reader(std::string_view text, const char* at, std::size_t max_depth, std::size_t depth,
         const std::string& field)
      : begin_(text.data()),
        p_(at),
        end_(text.data() + text.size()),
        max_depth_(max_depth),
        field_(field),
        depth_(depth) {}

  const char* position() const { return p_; }

  /** One whole value from here, and nothing after it read. */
  json one() {
    json result;
    json* target = &result;
    for (;;) {
      const bool opened = value(*target);
      if (!next(opened, target)) break;
    }
    return result;
  }

  // --- one object's members, for ObjectStream -------------------------------

  /** Past '{' (counting its depth). */
  void open_object() {
    skip_space();
    if (p_ == end_ || *p_ != '{') fail("expected '{'");
    open();
  }

  /**
   * Past the separator before the next member and its key; false (past
   * '}') at the object's end. `first` is true before the first member.
   */
  bool member(bool first, std::string& key, std::string_view& raw_key, std::size_t max_key,
              const std::string& key_field) {
    skip_space();
    if (p_ == end_) fail("unexpected end of input; expected '}'");
    if (*p_ == '}') {
      ++p_;
      --depth_;
      return false;
    }
    if (!first) {
      if (*p_ != ',') fail("expected ',' or '}'");
      ++p_;
      skip_space();
    }
    if (p_ == end_ || *p_ != '"') fail("expected a string for the object key");
    ++p_;
    const char* start = p_;
    if (max_key != SIZE_MAX) {
      // The key's extent before a byte of it is copied.
      const char* q = p_;
      while (q != end_ && *q != '"') q += (*q == '\\' && end_ - q > 1) ? 2 : 1;
      const auto size = static_cast<std::size_t>(q - p_);
      if (size > max_key) {
        throw Error::make("too_large", key_field, "error.checkpoint_name",
                          obj({{"field", key_field}, {"size", size}, {"limit", max_key}}));
      }
    }
    key = string();
    raw_key = std::string_view(start, static_cast<std::size_t>(p_ - 1 - start));
    skip_space();
    if (p_ == end_ || *p_ != ':') fail("expected ':' after the object key");
    ++p_;
    skip_space();
    return true;
  }

  std::size_t depth() const { return depth_; }

  /** Only space (or a NUL) after the outermost value. */
  void finish() {
    skip_space();
    if (p_ != end_ && *p_ != '\0') fail("expected end of input");
  }

  json read() {
    json result;
    if (end_ - p_ >= 3 && byte(0) == 0xEF && byte(1) == 0xBB && byte(2) == 0xBF) p_ += 3;
    json* target = &result;
    for (;;) {
      const bool opened = value(*target);
      if (!next(opened, target)) break;
    }
    skip_space();
    // A NUL byte where a token would start ends the text, as it does for
    // nlohmann's lexer (inside a string it is a control character).
    if (p_ != end_ && *p_ != '\0') fail("expected end of input");
    return result;
  }

 private:
  unsigned byte(std::ptrdiff_t at) const { return static_cast<unsigned char>(p_[at]); }
  static bool digit(char c) { return c >= '0' && c <= '9'; }

  void skip_space() {
    while (p_ != end_ && (*p_ == ' ' || *p_ == '\n' || *p_ == '\r' || *p_ == '\t')) ++p_;
  }

  /** One value into `target`; true when it opened an object or a list. */
  bool value(json& target) {
    skip_space();
    if (p_ == end_) fail("unexpected end of input; expected '[', '{', or a literal");
    switch (*p_) {
      case '{':
        open();
        target = json::object();
        open_.push_back(&target);
        return true;
      case '[':
        open();
        target = json::array();
        open_.push_back(&target);
        return true;
      case '"':
        ++p_;
        target = string();
        return false;
      case 't':
        literal("true");
        target = true;
        return false;
      case 'f':
        literal("false");
        target = false;
        return false;
      case 'n':
        literal("null");
        target = nullptr;
        return false;
      default:
        if (*p_ == '-' || digit(*p_)) {
          number(target);
          return false;
        }
        fail("unexpected character; expected '[', '{', or a literal");
    }
  }

  /**
   * After a value (or an object or list just opened): closes what ends
   * here and points `target` at the next value's place; false when the
   * outermost value is complete.
   */
  bool next(bool opened, json*& target) {
    for (;;) {
      if (open_.empty()) return false;
      json& container = *open_.back();
      const bool object = container.is_object();
      skip_space();
      if (p_ == end_)
        fail(object ? "unexpected end of input; expected '}'"
                    : "unexpected end of input; expected ']'");
      if (*p_ == (object ? '}' : ']')) {
        ++p_;
        --depth_;
        open_.pop_back();
        opened = false;
        continue;
      }
      if (!opened) {
        if (*p_ != ',') fail(object ? "expected ',' or '}'" : "expected ',' or ']'");
        ++p_;
      }
      if (object) {
        skip_space();
        if (p_ == end_ || *p_ != '"') fail("expected a string for the object key");
        ++p_;
        std::string key = string();
        skip_space();
        if (p_ == end_ || *p_ != ':') fail("expected ':' after the object key");
        ++p_;
        // A repeated key keeps its last value, as nlohmann's parser does.
        target = &container.get_ref<json::object_t&>()[std::move(key)];
      } else {
        json::array_t& list = container.get_ref<json::array_t&>();
        list.emplace_back();
        // Stable while it is filled: its list grows only after it is closed.
        target = &list.back();
      }
      return true;
    }
  }

  void open() {
    if (depth_ >= max_depth_) throw Error::too_deep(field_, max_depth_);
    ++depth_;
    ++p_;
  }

  void literal(std::string_view word) {
    if (static_cast<std::size_t>(end_ - p_) < word.size() ||
        std::string_view(p_, word.size()) != word) {
      fail("invalid literal");
    }
    p_ += static_cast<std::ptrdiff_t>(word.size());
  }

  /** A string's text after its opening quote, to and past its closing one. */
  std::string string() {
    std::string out;
    const char* run = p_;
    for (;;) {
      if (p_ == end_) fail("invalid string: missing closing quote");
      const unsigned c = byte(0);
      if (c == '"') break;
      if (c == '\\') {
        out.append(run, p_);
        ++p_;
        escape(out);
        run = p_;
      } else if (c < 0x20) {
        fail("invalid string: control character must be escaped");
      } else if (c < 0x80) {
        ++p_;
      } else {
        utf8(c);
      }
    }
    out.append(run, p_);
    ++p_;
    return out;
  }

  /** One well-formed UTF-8 sequence starting with `lead` (Unicode's table 3-7). */
  void utf8(unsigned lead) {
    unsigned low = 0x80, high = 0xBF;
    std::ptrdiff_t length = 0;
    if (lead >= 0xC2 && lead <= 0xDF) {
      length = 2;
    } else if (lead >= 0xE0 && lead <= 0xEF) {
      length = 3;
      if (lead == 0xE0) low = 0xA0;
      if (lead == 0xED) high = 0x9F;
    } else if (lead >= 0xF0 && lead <= 0xF4) {
      length = 4;
      if (lead == 0xF0) low = 0x90;
      if (lead == 0xF4) high = 0x8F;
    } else {
      fail("invalid string: ill-formed UTF-8 byte");
    }
    if (end_ - p_ < length) fail("invalid string: ill-formed UTF-8 byte");
    for (std::ptrdiff_t i = 1; i < length; ++i) {
      const unsigned b = byte(i);
      if (b < (i == 1 ? low : 0x80) || b > (i == 1 ? high : 0xBF)) {
        fail("invalid string: ill-formed UTF-8 byte");
      }
    }
    p_ += length;
  }

  void escape(std::string& out) {
    if (p_ == end_) fail("invalid string: missing closing quote");
    const char c = *p_++;
    switch (c) {
      case '"':
      case '\\':
      case '/':
        out += c;
        return;
      case 'b':
        out += '\b';
        return;
      case 'f':
        out += '\f';
        return;
      case 'n':
        out += '\n';
        return;
      case 'r':
        out += '\r';
        return;
      case 't':
        out += '\t';
        return;
      case 'u':
        break;
      default:
        fail("invalid string: forbidden character after backslash");
    }
    unsigned code = hex4();
    if (code >= 0xDC00 && code <= 0xDFFF) {
      fail("invalid string: surrogate U+DC00..U+DFFF must follow U+D800..U+DBFF");
    }
    if (code >= 0xD800 && code <= 0xDBFF) {
      if (end_ - p_ < 2 || p_[0] != '\\' || p_[1] != 'u') {
        fail("invalid string: surrogate U+D800..U+DBFF must be followed by U+DC00..U+DFFF");
      }
      p_ += 2;
      const unsigned low = hex4();
      if (low < 0xDC00 || low > 0xDFFF) {
        fail("invalid string: surrogate U+D800..U+DBFF must be followed by U+DC00..U+DFFF");
      }
      code = 0x10000 + ((code - 0xD800) << 10) + (low - 0xDC00);
    }
    const auto put = [&out](unsigned bits) { out += static_cast<char>(bits); };
    if (code < 0x80) {
      put(code);
    } else if (code < 0x800) {
      put(0xC0 | (code >> 6));
      put(0x80 | (code & 0x3F));
    } else if (code < 0x10000) {
      put(0xE0 | (code >> 12));
      put(0x80 | ((code >> 6) & 0x3F));
      put(0x80 | (code & 0x3F));
    } else {
      put(0xF0 | (code >> 18));
      put(0x80 | ((code >> 12) & 0x3F));
      put(0x80 | ((code >> 6) & 0x3F));
      put(0x80 | (code & 0x3F));
    }
  }

  unsigned hex4() {
    unsigned code = 0;
    for (int i = 0; i < 4; ++i, ++p_) {
      if (p_ == end_) fail("invalid string: '\\u' must be followed by 4 hex digits");
      const char c = *p_;
      unsigned d = 0;
      if (digit(c)) {
        d = static_cast<unsigned>(c - '0');
      } else if (c >= 'a' && c <= 'f') {
        d = static_cast<unsigned>(c - 'a' + 10);
      } else if (c >= 'A' && c <= 'F') {
        d = static_cast<unsigned>(c - 'A' + 10);
      } else {
        fail("invalid string: '\\u' must be followed by 4 hex digits");
      }
      code = code * 16 + d;
    }
    return code;
  }

  /**
   * A number: a whole one without fraction or exponent as nlohmann stores
   * it (unsigned when positive, signed when negative, a double when it
   * overflows 64 bits), any other by strtod; one that overflows a double
   * fails as nlohmann's out_of_range 406.
   */
  void number(json& target) {
    const char* start = p_;
    const bool negative = *p_ == '-';
    if (negative) ++p_;
    if (p_ == end_ || !digit(*p_)) fail("invalid number; expected digit after '-'");
    bool whole = true;
    if (*p_ == '0') {
      ++p_;
    } else {
      while (p_ != end_ && digit(*p_)) ++p_;
    }
    if (p_ != end_ && *p_ == '.') {
      ++p_;
      whole = false;
      if (p_ == end_ || !digit(*p_)) fail("invalid number; expected digit after '.'");
      while (p_ != end_ && digit(*p_)) ++p_;
    }
    if (p_ != end_ && (*p_ == 'e' || *p_ == 'E')) {
      ++p_;
      whole = false;
      if (p_ != end_ && (*p_ == '+' || *p_ == '-')) ++p_;
      if (p_ == end_ || !digit(*p_)) fail("invalid number; expected digit after exponent sign");
      while (p_ != end_ && digit(*p_)) ++p_;
    }
    const char* digits = start + (negative ? 1 : 0);
    const std::ptrdiff_t count = p_ - digits;
    // Up to 19 digits fit a uint64 as they are; 20 when they are at most
    // its largest (the same length, so compared as text).
    constexpr std::string_view kMaxUnsigned = "18446744073709551615";
    if (whole && (count <= 19 ||
                  (count == 20 && !negative && std::string_view(digits, 20) <= kMaxUnsigned))) {
      std::uint64_t magnitude = 0;
      for (const char* d = digits; d != p_; ++d) {
        magnitude = magnitude * 10 + static_cast<std::uint64_t>(*d - '0');
      }
      constexpr auto kMinMagnitude = static_cast<std::uint64_t>(INT64_MAX) + 1;
      if (!negative) {
        target = magnitude;
        return;
      }
      if (magnitude <= kMinMagnitude) {
        target = magnitude == kMinMagnitude ? INT64_MIN : -static_cast<std::int64_t>(magnitude);
        return;
      }
    }
    const std::string token(start, p_);
    const double value = std::strtod(token.c_str(), nullptr);
    if (!std::isfinite(value)) {
      throw json::out_of_range::create(406, "number overflow parsing '" + token + "'", nullptr);
    }
    target = value;
  }

  [[noreturn]] void fail(const std::string& what) const {
    nlohmann::detail::position_t at;
    at.chars_read_total = static_cast<std::size_t>(p_ - begin_) + 1;
    const char* line = begin_;
    for (const char* c = begin_; c != p_; ++c) {
      if (*c == '\n') {
        ++at.lines_read;
        line = c + 1;
      }
    }
    at.chars_read_current_line = static_cast<std::size_t>(p_ - line) + 1;
    std::string message = "syntax error - " + what;
    if (p_ != end_) {
      const unsigned c = byte(0);
      message += c >= 0x20 && c < 0x7F ? std::string("; last read: '") + *p_ + "'"
                                       : "; last read: byte " + std::to_string(c);
    }
    throw json::parse_error::create(101, at, message, nullptr);
  }

  const char* begin_;
  const char* p_;
  const char* end_;
  std::size_t max_depth_;
  const std::string& field_;
  std::size_t depth_ = 0;
  // The objects and lists open, innermost last.
  std::vector<json*> open_;
};

}  // namespace

json parse_text(std::string_view text, std::size_t max_depth, const std::string& field) {
  return Reader(text, max_depth, field).read();
}

ObjectStream::ObjectStream(std::string_view text, std::size_t max_depth, std::string field)
    : text_(text), max_depth_(max_depth), field_(std::move(field)) {
  p_ = text.data();
  if (text.size() >= 3 && static_cast<unsigned char>(text[0]) == 0xEF &&
      static_cast<unsigned char>(text[1]) == 0xBB && static_cast<unsigned char>(text[2]) == 0xBF) {
    p_ += 3;
  }
}

void ObjectStream::enter() {
  Reader r(text_, p_, max_depth_, depth_, field_);
  r.open_object();
  p_ = r.position();
  depth_ = r.depth();
  first_.push_back(true);
}

bool ObjectStream::next(std::string& key) {
  Reader r(text_, p_, max_depth_, depth_, field_);
  const bool more = r.member(first_.back(), key, raw_key_, max_key_, key_field_);
  p_ = r.position();
  depth_ = r.depth();
  if (!more) {
    first_.pop_back();
    if (first_.empty()) Reader(text_, p_, max_depth_, depth_, field_).finish();
    return false;
  }
  first_.back() = false;
  return true;
}

json ObjectStream::value() {
  Reader r(text_, p_, max_depth_, depth_, field_);
  value_begin_ = p_;
  json out = r.one();
  p_ = r.position();
  return out;
}

std::string_view ObjectStream::value_text() const {
  return std::string_view(value_begin_, static_cast<std::size_t>(p_ - value_begin_));
}

std::string number_text(double value) {
  char buffer[32];
  std::snprintf(buffer, sizeof buffer, "%.15g", value);
  return buffer;
}

namespace {

[[noreturn]] void wrong_type(const json& value, std::string_view field, std::string_view wanted) {
  throw Error::wrong_type(std::string(field), std::string(wanted), type_name(value));
}

[[noreturn]] void missing(std::string_view field) { throw Error::missing(std::string(field)); }

}  // namespace

std::string field_path(std::string_view prefix, std::string_view key) {
  if (prefix.empty()) return std::string(key);
  std::string path(prefix);
  path += '.';
  path += key;
  return path;
}

const json* find(const json& object, std::string_view key) {
  if (!object.is_object()) return nullptr;
  // By the view: the object's comparator is transparent, so no key is copied.
  auto it = object.find(key);
  if (it == object.end() || it->is_null()) return nullptr;
  return &*it;
}

void expect_object(const json& value, std::string_view field) {
  if (!value.is_object()) wrong_type(value, field, "object");
}

std::int64_t as_int(const json& value, std::string_view field) {
  // Unsigned first: nlohmann's is_number_integer() is true for both kinds,
  // and get<int64_t>() would wrap 2^64 - 1 to -1.
  if (value.is_number_unsigned()) {
    const auto u = value.get<std::uint64_t>();
    if (u > static_cast<std::uint64_t>(INT64_MAX)) {
      throw Error::out_of_range(std::string(field), value, INT64_MIN, INT64_MAX);
    }
    return static_cast<std::int64_t>(u);
  }
  if (value.is_number_integer()) return value.get<std::int64_t>();
  if (value.is_number_float()) {
    const double v = value.get<double>();
    // Configs sometimes write integers as 4096.0; anything else is an error.
    if (std::isfinite(v) && std::floor(v) == v && std::fabs(v) < 9.0e15) {
      return static_cast<std::int64_t>(v);
    }
    throw Error::not_whole(std::string(field));
  }
  wrong_type(value, field, "whole");
}

double as_number(const json& value, std::string_view field) {
  if (!value.is_number()) wrong_type(value, field, "number");
  const double v = value.get<double>();
  if (!std::isfinite(v)) throw Error::not_finite(std::string(field));
  return v;
}

namespace {

// The field's path is built only for an error: a catalog's reads are many,
// and a path is a string the heap holds.
std::int64_t int_at(const json& value, std::string_view key, std::string_view prefix) {
  if (value.is_number_unsigned()) {
    const auto u = value.get<std::uint64_t>();
    if (u <= static_cast<std::uint64_t>(INT64_MAX)) return static_cast<std::int64_t>(u);
  } else if (value.is_number_integer()) {
    return value.get<std::int64_t>();
  }
  return as_int(value, field_path(prefix, key));
}

double number_at(const json& value, std::string_view key, std::string_view prefix) {
  if (value.is_number()) {
    const double v = value.get<double>();
    if (std::isfinite(v)) return v;
  }
  return as_number(value, field_path(prefix, key));
}

}  // namespace

std::int64_t get_int(const json& object, std::string_view key, std::string_view prefix) {
  const json* value = find(object, key);
  if (value == nullptr) missing(field_path(prefix, key));
  return int_at(*value, key, prefix);
}

std::optional<std::int64_t> opt_int(const json& object, std::string_view key,
                                    std::string_view prefix) {
  const json* value = find(object, key);
  if (value == nullptr) return std::nullopt;
  return int_at(*value, key, prefix);
}

double get_number(const json& object, std::string_view key, std::string_view prefix) {
  const json* value = find(object, key);
  if (value == nullptr) missing(field_path(prefix, key));
  return number_at(*value, key, prefix);
}

std::optional<double> opt_number(const json& object, std::string_view key,
                                 std::string_view prefix) {
  const json* value = find(object, key);
  if (value == nullptr) return std::nullopt;
  return number_at(*value, key, prefix);
}

std::string get_string(const json& object, std::string_view key, std::string_view prefix) {
  const json* value = find(object, key);
  if (value == nullptr) missing(field_path(prefix, key));
  if (!value->is_string()) wrong_type(*value, field_path(prefix, key), "string");
  return value->get<std::string>();
}

std::optional<std::string> opt_string(const json& object, std::string_view key,
                                      std::string_view prefix) {
  const json* value = find(object, key);
  if (value == nullptr) return std::nullopt;
  if (!value->is_string()) wrong_type(*value, field_path(prefix, key), "string");
  return value->get<std::string>();
}

std::optional<bool> opt_bool(const json& object, std::string_view key, std::string_view prefix) {
  const json* value = find(object, key);
  if (value == nullptr) return std::nullopt;
  if (!value->is_boolean()) {
    wrong_type(*value, field_path(prefix, key), "bool");
  }
  return value->get<bool>();
}

std::vector<std::string> opt_strings(const json& object, std::string_view key,
                                     std::string_view prefix) {
  std::vector<std::string> out;
  const json* value = find(object, key);
  if (value == nullptr) return out;
  const std::string field = field_path(prefix, key);
  if (!value->is_array()) wrong_type(*value, field, "strings");
  for (const json& item : *value) {
    if (!item.is_string()) wrong_type(item, field, "strings");
    out.push_back(item.get<std::string>());
  }
  return out;
}

void require_positive(double value, std::string_view field, bool allow_zero) {
  if (value > 0 || (allow_zero && value == 0)) return;
  throw Error::not_positive(std::string(field), allow_zero);
}

std::int64_t require_range(std::int64_t value, std::int64_t min, std::int64_t max,
                           std::string_view field) {
  if (value < min || value > max) throw Error::out_of_range(std::string(field), value, min, max);
  return value;
}

double require_range(double value, double min, double max, std::string_view field) {
  // Written so that NaN fails too.
  if (!(value >= min && value <= max)) {
    throw Error::out_of_range(std::string(field), value, min, max);
  }
  return value;
}

std::int64_t get_int_in(const json& object, std::string_view key, std::string_view prefix,
                        std::int64_t min, std::int64_t max) {
  return require_range(get_int(object, key, prefix), min, max, field_path(prefix, key));
}

std::optional<std::int64_t> opt_int_in(const json& object, std::string_view key,
                                       std::string_view prefix, std::int64_t min,
                                       std::int64_t max) {
  const auto value = opt_int(object, key, prefix);
  if (value) require_range(*value, min, max, field_path(prefix, key));
  return value;
}

std::string short_string(std::string value, std::size_t max, std::string_view field) {
  if (value.size() > max) throw Error::too_long(std::string(field), value.size(), max);
  return value;
}

}  // namespace vram::json_read
