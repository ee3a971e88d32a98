#pragma once

#include <initializer_list>
#include <string>

#include <nlohmann/json.hpp>

namespace vram {

/** One member of an answer's object: its key (a literal) and its value. */
struct JsonField {
  const char* key;
  // mutable: obj() moves the value out of the initializer list's const array.
  mutable nlohmann::json value;
};

/**
 * An object from its members, as nlohmann's `json{{"key", value}, ...}` builds
 * it (the first of two equal keys wins), but out of line: nlohmann's nested
 * initializer lists make each key a two-element array built in place, about
 * 240 bytes of wasm a key at -Oz against about 40 here (issue 12, the page's
 * weight). Every object the core answers with is built this way.
 */
nlohmann::json obj(std::initializer_list<JsonField> fields);

/**
 * The compact text of `value`, byte for byte what nlohmann's
 * `dump(-1, ' ', false, error_handler_t::replace)` writes (invalid UTF-8
 * becomes U+FFFD, never a throw), but written straight into one string:
 * nlohmann's serializer decodes every character of every string through its
 * UTF-8 state machine and writes it through a virtual adapter, a fifth of an
 * estimate's time in wasm. A string that is not plain printable ASCII without
 * quotes or backslashes goes through nlohmann's own escaping.
 */
std::string dump_json(const nlohmann::json& value);

}  // namespace vram
