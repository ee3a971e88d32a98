#pragma once

#include <cstdint>
#include <stdexcept>
#include <string>

namespace vram {

/**
 * An input the calculator cannot use. Thrown by the core, caught at the
 * boundary (CLI, wasm binding) and reported as data:
 * `{ "error": { "code": ..., "field": ..., "message": ... } }`.
 *
 * `code` is stable and machine-readable ("missing_field", "wrong_type",
 * "invalid_value", "unknown_model", ...); `field` names the input the way a
 * user wrote it ("context", "config.num_key_value_heads"); `message` is a
 * sentence for people.
 */
class Error : public std::runtime_error {
 public:
  Error(std::string code, std::string field, const std::string& message)
      : std::runtime_error(message), code_(std::move(code)), field_(std::move(field)) {}

  const std::string& code() const noexcept { return code_; }
  const std::string& field() const noexcept { return field_; }

 private:
  std::string code_;
  std::string field_;
};

}  // namespace vram

namespace vram {

/**
 * A file header read from a prefix that ends too soon: code "truncated",
 * with the smallest prefix length (bytes from the start of the file) that
 * could get further. The caller reads at least that much and tries again.
 */
class TruncatedError : public Error {
 public:
  TruncatedError(std::string field, std::uint64_t needed_bytes, const std::string& message)
      : Error("truncated", std::move(field), message), needed_bytes_(needed_bytes) {}

  std::uint64_t needed_bytes() const noexcept { return needed_bytes_; }

 private:
  std::uint64_t needed_bytes_;
};

}  // namespace vram
