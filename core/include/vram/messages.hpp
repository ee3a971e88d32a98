#pragma once

// The CLI's message renderer: a Message {id, params} and a language in, plain
// text out, from the catalogs in data/messages/. The page's renderer
// (web/src/messages.js) follows the same rules; tests/vectors/messages.json
// holds both to the same cases.

#include <map>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "vram/message.hpp"

namespace vram {

/** Which digits numbers are shown in (docs/i18n.md, "Digits and separators"). */
enum class Digits {
  kDefault,  // the language's own: Latin for en and ar, Persian for fa
  kLatin,    // "latn": 0-9 with `,` and `.`
  kNative,   // "native": Arabic-Indic for ar, Persian for fa; Latin for en
};

/** The unit the `gb`, `gb0` and `gb2` styles show bytes in. */
enum class DisplayUnit {
  kGB,   // decimal, 10^9 bytes (the default)
  kGiB,  // binary, 2^30 bytes
};

struct RenderOptions {
  std::string lang = "en";  // "fa" or "fa-IR"; a language with no catalog renders English
  Digits digits = Digits::kDefault;
  DisplayUnit unit = DisplayUnit::kGB;
};

/** The message catalogs, one per language: {"en": {id: template}, ...}. */
class MessageCatalogs {
 public:
  MessageCatalogs() = default;

  /** Every data/messages/<lang>.json embedded at build time. */
  static const MessageCatalogs& builtin();

  /**
   * `{"en": {...}, "fa": {...}}`, each catalog checked with
   * `catalog_problems`. Throws std::invalid_argument ("messages.<lang>:
   * <problem>") on the first problem. Catalogs are the project's own data
   * (data/messages/, the test vectors), never a request's, so this is not
   * a vram::Error: the renderer sits below Error, whose English it writes.
   */
  static MessageCatalogs from_json(const nlohmann::json& catalogs);

  /** The entry for `id` in `lang`'s catalog, or nullptr. */
  const nlohmann::json* find(std::string_view lang, std::string_view id) const;
  /** The languages that have a catalog, sorted. */
  std::vector<std::string> languages() const;

 private:
  std::map<std::string, nlohmann::json, std::less<>> catalogs_;
};

/**
 * `message` as plain text in `options.lang` (docs/i18n.md). The entry comes
 * from the language's catalog, else English's, else the id itself is shown.
 * Placeholders `{name}` / `{name:style}` take `message.params[name]`; a
 * missing parameter shows the placeholder as written, a number that is not
 * finite (or null, JSON's NaN) shows `–`. Numbers are rounded for display
 * only, half away from zero (round_display). Never throws on any params.
 */
std::string render(const Message& message, const MessageCatalogs& catalogs,
                   const RenderOptions& options = {});

/**
 * The message in English (render over the builtin catalogs), for the English
 * `message` of errors (vram::Error::make); answers carry plain messages. An
 * id the catalog lacks renders as the id. Never throws.
 */
std::string english(const Message& message);

/**
 * The CLDR plural category ("zero", "one", "two", "few", "many", "other")
 * of `value` in `lang` (en, ar, fa; "other" for any other language), from
 * the CLDR plural rules (unicode.org/cldr/charts/latest/supplemental/
 * language_plural_rules.html, UTS #35 part 3 section 5.1 for the operands).
 * The operands are taken after rounding to 3 decimals, as
 * Intl.PluralRules does by default.
 */
std::string plural_category(std::string_view lang, double value);

/**
 * What is wrong with one catalog, one line per problem ("<id>: ..."), empty
 * when it is valid: a flat object whose values are templates or plural
 * objects (`plural` naming a parameter, `other` required, only CLDR
 * categories), every placeholder well formed with a known style.
 */
std::vector<std::string> catalog_problems(const nlohmann::json& catalog);

}  // namespace vram
