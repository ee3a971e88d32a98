#pragma once

#include <cstddef>
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

namespace vram::json_read {

/**
 * The lexical half of json_read's reader: a cursor over a JSON text that
 * reads its tokens (space, literals, strings, numbers) as nlohmann's lexer
 * does, and fails with nlohmann's exceptions: parse_error 101 with the byte
 * offset from the text's start, out_of_range 406 for a number past a
 * double. The structure above the tokens (objects, lists, their depth) is
 * the Reader in json_read_text.cpp.
 */
class Scanner {
 public:
  /** A cursor at `at` inside `text`. */
  Scanner(std::string_view text, const char* at)
      : begin_(text.data()), p_(at), end_(text.data() + text.size()) {}

  const char* position() const { return p_; }

 protected:
  unsigned byte(std::ptrdiff_t at) const { return static_cast<unsigned char>(p_[at]); }
  static bool digit(char c) { return c >= '0' && c <= '9'; }

  void skip_space() {
    while (p_ != end_ && (*p_ == ' ' || *p_ == '\n' || *p_ == '\r' || *p_ == '\t')) ++p_;
  }

  /** `word` (true, false, null) here, and past it. */
  void literal(std::string_view word);
  /** A string's text after its opening quote, to and past its closing one. */
  std::string string();
  /** A number into `target`, as nlohmann stores it (see json_read_scan.cpp). */
  void number(nlohmann::json& target);
  /** nlohmann's parse_error 101 here, saying `what` was expected. */
  [[noreturn]] void fail(const std::string& what) const;

  const char* begin_;
  const char* p_;
  const char* end_;

 private:
  void utf8(unsigned lead);
  void escape(std::string& out);
  unsigned hex4();
};

}  // namespace vram::json_read
