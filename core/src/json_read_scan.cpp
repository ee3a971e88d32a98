#include "json_read_scan.hpp"

#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <string>

namespace vram::json_read {

using nlohmann::json;

void Scanner::literal(std::string_view word) {
  if (static_cast<std::size_t>(end_ - p_) < word.size() ||
      std::string_view(p_, word.size()) != word) {
    fail("invalid literal");
  }
  p_ += static_cast<std::ptrdiff_t>(word.size());
}

/** A string's text after its opening quote, to and past its closing one. */
std::string Scanner::string() {
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
void Scanner::utf8(unsigned lead) {
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

void Scanner::escape(std::string& out) {
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

unsigned Scanner::hex4() {
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
void Scanner::number(json& target) {
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
  if (whole &&
      (count <= 19 || (count == 20 && !negative && std::string_view(digits, 20) <= kMaxUnsigned))) {
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

void Scanner::fail(const std::string& what) const {
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

}  // namespace vram::json_read
