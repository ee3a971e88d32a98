#pragma once

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
