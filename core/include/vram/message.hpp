#pragma once

#include <string>

#include <nlohmann/json.hpp>

#include "vram/json_object.hpp"

namespace vram {

/**
 * Words at the edge: every piece of text in an answer is a message id with
 * its parameters, rendered by the page or the CLI from the catalogs in
 * data/messages/ (en.json, ar.json, fa.json). Parameters are the very
 * numbers (unrounded) and ids the value was computed from; the template
 * says how each is shown. docs/i18n.md documents the template syntax.
 *
 * JSON form: {"id": "formula.weights", "params": {"params": 7e10, ...}}.
 */
struct Message {
  std::string id;
  nlohmann::json params = nlohmann::json::object();
};

inline void to_json(nlohmann::json& j, const Message& m) {
  j = obj({{"id", m.id}, {"params", m.params}});
}

/**
 * Text a source is cited by, as written (data/engines.json, data/gpus.json):
 * an English quotation, shown as such in every language (docs/i18n.md).
 */
inline Message quotation(const std::string& text) { return {"quote.text", obj({{"text", text}})}; }

}  // namespace vram
