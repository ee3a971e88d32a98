// The structural half of json_read's reader (objects, lists, their depth,
// nlohmann's DOM) over the tokens json_read_scan.cpp reads, and its two front
// ends: parse_text (a whole text) and ObjectStream (one object's members
// in turn).
#include <cstdint>
#include <string>
#include <vector>

#include "json_read.hpp"
#include "json_read_scan.hpp"
#include "vram/error.hpp"
#include "vram/json_object.hpp"

namespace vram::json_read {

namespace {

// A JSON text read byte by byte into nlohmann's DOM, as nlohmann's parser
// reads it (RFC 8259: the same values and number types, a leading UTF-8
// byte-order mark skipped, ill-formed UTF-8, raw control characters and
// lone surrogates refused, nothing after the value), and failing with its
// exceptions. Without recursion: the containers still open are a stack,
// so a deep text cannot exhaust the call stack, and the depth is counted
// as each one opens. Its own reader, not nlohmann's lexer: a third of the
// instructions for the core's catalog at start-up (README, speed).
class Reader : public Scanner {
 public:
  Reader(std::string_view text, std::size_t max_depth, const std::string& field)
      : Scanner(text, text.data()), max_depth_(max_depth), field_(field) {}

  /** A reader at `at` inside `text` (errors count bytes from text's start), `depth` deep. */
  Reader(std::string_view text, const char* at, std::size_t max_depth, std::size_t depth,
         const std::string& field)
      : Scanner(text, at), max_depth_(max_depth), field_(field), depth_(depth) {}

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

}  // namespace vram::json_read
