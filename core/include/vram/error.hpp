#pragma once

#include <cstddef>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

#include "vram/message.hpp"

namespace vram {

/**
 * An input the calculator cannot use. Thrown by the core, caught at the
 * boundary (CLI, wasm binding) and reported as data:
 * `{ "error": { "code", "field", "message", "message_id", "params" } }`.
 *
 * `code` is stable and machine-readable ("missing_field", "wrong_type",
 * "invalid_value", "unknown_model", ...); `field` names the input the way a
 * user wrote it ("context", "config.num_key_value_heads"); `message` is an
 * English sentence for people; `message_id` and `params` are the same
 * sentence for translation (docs/i18n.md; templates in
 * data/messages/en.json). Every error is made from its message id
 * (`make`, or a factory below for the common shapes), so its English is the
 * catalog's template and no English sentence reaches another language.
 */
class Error : public std::runtime_error {
 public:
  /** `message` is the English of `translatable` (make fills it from the catalog). */
  Error(std::string code, std::string field, const std::string& message, Message translatable);

  /** An error whose English is its message's template in data/messages/en.json. */
  static Error make(const std::string& code, const std::string& field, const std::string& id,
                    nlohmann::json params);

  /** `error.range`: "{field} must be between {min} and {max}, not {value}" (invalid_value). */
  static Error out_of_range(const std::string& field, const nlohmann::json& value,
                            const nlohmann::json& min, const nlohmann::json& max);
  /** `error.missing`: "{field} is required" (missing_field). */
  static Error missing(const std::string& field);
  /**
   * `error.type`: "{field} must be {expected}, not {actual}" (wrong_type). `expected` and
   * `actual` are kinds of value, each the message `value.<kind>` ("whole": "a whole
   * number"; json_read::type_name names a JSON value's kind).
   */
  static Error wrong_type(const std::string& field, const std::string& expected,
                          const std::string& actual);
  /** `error.whole`: "{field} must be a whole number" (invalid_value). */
  static Error not_whole(const std::string& field);
  /** `error.finite`: "{field} must be finite" (invalid_value). */
  static Error not_finite(const std::string& field);
  /** `error.positive` / `error.non_negative` (invalid_value). */
  static Error not_positive(const std::string& field, bool allow_zero);
  /** `error.too_deep`: nesting over `limit` levels (code too_deep). */
  static Error too_deep(const std::string& field, std::size_t limit);
  /** `error.too_large`: `size` bytes over `limit` (code too_large). */
  static Error too_large(const std::string& field, std::size_t size, std::size_t limit);
  /** `error.too_long`: a list or string of `length` items over `limit` (invalid_value). */
  static Error too_long(const std::string& field, std::size_t length, std::size_t limit);

  const std::string& code() const noexcept { return code_; }
  const std::string& field() const noexcept { return field_; }
  const Message& message() const noexcept { return message_; }

  /** The error as {"code", "field", "message", "message_id", "params"}. */
  nlohmann::json to_json() const;

  /**
   * Text that came from the user, fit to quote in a message: at most
   * kQuoteChars bytes (cut on a UTF-8 boundary, ended with an ellipsis, "…", that says so in every
   * language).
   */
  static std::string quote(std::string_view input);
  static constexpr std::size_t kQuoteChars = 200;

 private:
  std::string code_;
  std::string field_;
  Message message_;
};

}  // namespace vram

namespace vram {

/**
 * A file header read from a prefix that ends too soon: code "truncated",
 * with the smallest prefix length (bytes from the start of the file) that
 * could get further. The caller reads at least that much and tries again.
 * Its words are `error.truncated`: {field, read (the bytes given), needed}.
 */
class TruncatedError : public Error {
 public:
  TruncatedError(const std::string& field, std::uint64_t read_bytes, std::uint64_t needed_bytes)
      : Error(make("truncated", field, "error.truncated",
                   obj({{"field", field}, {"read", read_bytes}, {"needed", needed_bytes}}))),
        needed_bytes_(needed_bytes) {}

  std::uint64_t needed_bytes() const noexcept { return needed_bytes_; }

 private:
  std::uint64_t needed_bytes_;
};

}  // namespace vram
