#include "vram/error.hpp"

#include "vram/messages.hpp"

namespace vram {

using nlohmann::json;

// The English message is the catalog's template filled in: one source.
Error Error::make(const std::string& code, const std::string& field, const std::string& id,
                  json params) {
  Message message{id, std::move(params)};
  const std::string text = english(message);
  return Error(code, field, text, std::move(message));
}

Error::Error(std::string code, std::string field, const std::string& message, Message translatable)
    : std::runtime_error(message),
      code_(std::move(code)),
      field_(std::move(field)),
      message_(std::move(translatable)) {}

Error Error::out_of_range(const std::string& field, const json& value, const json& min,
                          const json& max) {
  return make("invalid_value", field, "error.range",
              obj({{"field", field}, {"value", value}, {"min", min}, {"max", max}}));
}

Error Error::missing(const std::string& field) {
  return make("missing_field", field, "error.missing", obj({{"field", field}}));
}

Error Error::wrong_type(const std::string& field, const std::string& expected,
                        const std::string& actual) {
  // Each kind is a message of its own (value.whole: "a whole number"), worded per language.
  const auto kind = [](const std::string& k) {
    return obj({{"id", "value." + k}, {"params", json::object()}});
  };
  return make("wrong_type", field, "error.type",
              obj({{"field", field}, {"expected", kind(expected)}, {"actual", kind(actual)}}));
}

Error Error::not_whole(const std::string& field) {
  return make("invalid_value", field, "error.whole", obj({{"field", field}}));
}

Error Error::not_finite(const std::string& field) {
  return make("invalid_value", field, "error.finite", obj({{"field", field}}));
}

Error Error::not_positive(const std::string& field, bool allow_zero) {
  return make("invalid_value", field, allow_zero ? "error.non_negative" : "error.positive",
              obj({{"field", field}}));
}

Error Error::too_deep(const std::string& field, std::size_t limit) {
  return make("too_deep", field, "error.too_deep", obj({{"field", field}, {"limit", limit}}));
}

Error Error::too_large(const std::string& field, std::size_t size, std::size_t limit) {
  return make("too_large", field, "error.too_large",
              obj({{"field", field}, {"size", size}, {"limit", limit}}));
}

Error Error::too_long(const std::string& field, std::size_t length, std::size_t limit) {
  return make("invalid_value", field, "error.too_long",
              obj({{"field", field}, {"length", length}, {"limit", limit}}));
}

json Error::to_json() const {
  return obj({{"code", code_},
              {"field", field_},
              {"message", what()},
              {"message_id", message_.id},
              {"params", message_.params}});
}

std::string Error::quote(std::string_view input) {
  if (input.size() <= kQuoteChars) return std::string(input);
  std::size_t end = kQuoteChars;
  // Back up to the start of a UTF-8 sequence (continuation bytes are 10xxxxxx).
  while (end > 0 && (static_cast<unsigned char>(input[end]) & 0xC0) == 0x80) --end;
  // An ellipsis says "cut" in every language (docs/i18n.md).
  return std::string(input.substr(0, end)) + "\u2026";
}

}  // namespace vram
