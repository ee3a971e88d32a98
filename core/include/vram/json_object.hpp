#pragma once

#include <initializer_list>

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

}  // namespace vram
