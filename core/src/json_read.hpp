#pragma once

// Typed reads from JSON objects that fail with a vram::Error naming the
// field ("config.num_key_value_heads"), never with a bare nlohmann
// exception or a silent default.

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

namespace vram::json_read {

using nlohmann::json;

/** "number", "string", "null"...: what a value is, as error.type's `value.*` id says it. */
const char* type_name(const json& value);

/** A number as an error message quotes it: 8192, 0.9, 1e+20. */
std::string number_text(double value);

/**
 * `text` as one JSON value, strictly (nothing after it), failing as
 * json::parse does (nlohmann's parse_error, out_of_range for 1e400); an
 * object or list opened inside `max_depth` others fails with
 * Error::too_deep(field, max_depth) before it is built. Every parse in the
 * core goes through here: the core's own reader (json_read.cpp), which
 * reads what nlohmann's parser reads, value for value and number type for
 * number type (tests/cpp/test_json_read.cpp holds them to each other), in
 * a third of its instructions, and leaves nlohmann's lexer and parser out
 * of the page's wasm.
 */
json parse_text(std::string_view text, std::size_t max_depth = SIZE_MAX,
                const std::string& field = {});

/**
 * A JSON object read one member at a time, as parse_text reads it (the same
 * errors), so a large object is never held whole: enter() opens an object
 * (the outermost first, then a member's value that is one), next() gives
 * each key until the object ends, value() parses the member's value alone.
 * After the outermost object ends, nothing but space may follow. Repeated
 * keys are given as they come: the caller decides.
 */
class ObjectStream {
 public:
  ObjectStream(std::string_view text, std::size_t max_depth, std::string field = {});
  /**
   * Keys longer than `max` bytes as written are refused before they are
   * copied: Error "too_large", message error.checkpoint_name, naming `field`.
   */
  void limit_keys(std::size_t max, std::string field) {
    max_key_ = max;
    key_field_ = std::move(field);
  }
  void enter();
  bool next(std::string& key);
  json value();
  /** The last key as written (escapes undone only in `key`), within the text. */
  std::string_view raw_key() const { return raw_key_; }
  /** The text of the value value() read last, within the text. */
  std::string_view value_text() const;
  /** Bytes read so far. */
  std::size_t offset() const { return static_cast<std::size_t>(p_ - text_.data()); }

 private:
  std::string_view text_;
  const char* p_;
  const char* value_begin_ = nullptr;
  std::size_t max_depth_;
  std::size_t depth_ = 0;
  std::string field_;
  std::string_view raw_key_;
  std::vector<bool> first_;
  std::size_t max_key_ = SIZE_MAX;
  std::string key_field_;
};

/**
 * A JSON list as a vector of T, each item by T's from_json, failing as
 * `get<std::vector<T>>()` does (type_error 302 for a value that is not a
 * list). One loop of push_back: nlohmann's own conversion inserts through a
 * std::inserter, which compiles vector::insert for each T (about 0.9 KB of
 * the page's wasm each).
 */
template <class T>
std::vector<T> list_of(const json& list) {
  if (!list.is_array()) {
    throw nlohmann::detail::type_error::create(
        302, std::string("type must be array, but is ") + list.type_name(), &list);
  }
  std::vector<T> out;
  out.reserve(list.size());
  for (const json& item : list) out.push_back(item.get<T>());
  return out;
}

/** "prefix.key", or "key" when prefix is empty. */
std::string field_path(std::string_view prefix, std::string_view key);

/** The member, or nullptr when absent or JSON null. */
const json* find(const json& object, std::string_view key);

/** Throws "wrong_type" unless `value` is a JSON object. */
void expect_object(const json& value, std::string_view field);

std::int64_t get_int(const json& object, std::string_view key, std::string_view prefix);
std::optional<std::int64_t> opt_int(const json& object, std::string_view key,
                                    std::string_view prefix);
double get_number(const json& object, std::string_view key, std::string_view prefix);
std::optional<double> opt_number(const json& object, std::string_view key, std::string_view prefix);
std::string get_string(const json& object, std::string_view key, std::string_view prefix);
std::optional<std::string> opt_string(const json& object, std::string_view key,
                                      std::string_view prefix);
std::optional<bool> opt_bool(const json& object, std::string_view key, std::string_view prefix);
std::vector<std::string> opt_strings(const json& object, std::string_view key,
                                     std::string_view prefix);

/** Reads a value already found; `field` is its full name. */
std::int64_t as_int(const json& value, std::string_view field);
double as_number(const json& value, std::string_view field);

/** Throws "invalid_value" unless value > 0 (or >= 0 when allow_zero). */
void require_positive(double value, std::string_view field, bool allow_zero = false);

/** `value` when min <= value <= max; else Error::out_of_range naming `field`. */
std::int64_t require_range(std::int64_t value, std::int64_t min, std::int64_t max,
                           std::string_view field);
/** The same for a number; NaN is out of every range. */
double require_range(double value, double min, double max, std::string_view field);

/** get_int / opt_int with the range checked (vram/limits.hpp holds the bounds). */
std::int64_t get_int_in(const json& object, std::string_view key, std::string_view prefix,
                        std::int64_t min, std::int64_t max);
std::optional<std::int64_t> opt_int_in(const json& object, std::string_view key,
                                       std::string_view prefix, std::int64_t min, std::int64_t max);

/** `value` when it has at most `max` bytes; else Error::too_long. */
std::string short_string(std::string value, std::size_t max, std::string_view field);

}  // namespace vram::json_read
