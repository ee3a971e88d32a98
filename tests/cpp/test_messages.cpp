// The CLI's message renderer (vram/messages.hpp) against the shared vectors
// (tests/vectors/messages.json, also run by tests/js/web-messages.test.mjs),
// the CLDR plural rules, hostile parameters, and the shipped catalogs.

#include <doctest/doctest.h>

#include <cmath>
#include <filesystem>
#include <limits>
#include <stdexcept>
#include <string>

#include "vectors.hpp"
#include "vram/error.hpp"
#include "vram/messages.hpp"

namespace {

using nlohmann::json;

vram::RenderOptions options_of(const json& c) {
  vram::RenderOptions options;
  options.lang = c.value("lang", "en");
  const std::string digits = c.value("digits", "");
  if (digits == "latn") options.digits = vram::Digits::kLatin;
  if (digits == "native") options.digits = vram::Digits::kNative;
  if (c.value("unit", "GB") == "GiB") options.unit = vram::DisplayUnit::kGiB;
  return options;
}

const vram::MessageCatalogs& vector_catalogs() {
  static const vram::MessageCatalogs catalogs =
      vram::MessageCatalogs::from_json(vectors::load("tests/vectors/messages.json")["catalogs"]);
  return catalogs;
}

std::string en(const std::string& id, json params, vram::RenderOptions options = {}) {
  return vram::render({id, std::move(params)}, vector_catalogs(), options);
}

}  // namespace

TEST_CASE("messages: every case of tests/vectors/messages.json") {
  const json doc = vectors::load("tests/vectors/messages.json");
  REQUIRE(doc["cases"].size() > 20);
  for (const json& c : doc["cases"]) {
    CAPTURE(c.dump());
    CHECK(vram::render({c["id"], c["params"]}, vector_catalogs(), options_of(c)) ==
          c["expected"].get<std::string>());
  }
}

TEST_CASE("messages: what is missing or not a number shows as such, never as a wrong number") {
  SUBCASE("a missing parameter shows its placeholder as written") {
    CHECK(en("t.gb", {{"gib", 1}}) == "{bytes:gb} / {bytes:gb0} / 1.00 GiB");
  }
  SUBCASE("NaN, infinity, null and strings in a numeric style show a dash") {
    const double nan = std::numeric_limits<double>::quiet_NaN();
    const double inf = std::numeric_limits<double>::infinity();
    CHECK(en("t.gb", {{"bytes", nan}, {"gib", inf}}) == "\u2013 / \u2013 / \u2013");
    CHECK(en("t.plain", {{"count", nullptr}, {"share", -inf}}) == "\u2013 cards, \u2013 share");
    CHECK(en("t.money", {{"usd", "7128"}, {"pct", true}}) == "\u2013 at \u2013 off");
  }
  SUBCASE("an unknown id shows the id; params that are not an object are none") {
    CHECK(en("no.such.id", json::object()) == "no.such.id");
    CHECK(en("t.reason", json::array({1, 2})) == "{name} has no FP8 support");
  }
  SUBCASE("negative zero and what rounds to zero lose the sign; others keep it") {
    CHECK(en("t.money", {{"usd", -0.0}, {"pct", -0.004}}) == "$0 at 0% off");
    CHECK(en("t.money", {{"usd", -1490.5}, {"pct", -2.345}}) == "-$1,491 at -2.35% off");
  }
  SUBCASE("huge numbers print as a power of ten from 1e16, as the page does; below, every digit") {
    CHECK(en("t.part", {{"params", 1e23}, {"bits", 1e-7}}) == "1\u00D710^23 x 0.0");
    CHECK(en("t.part", {{"params", 9999999999999998.0}, {"bits", 1}}) ==
          "9,999,999,999,999,998 x 1.0");
    CHECK(en("t.part", {{"params", 9.9999e16}, {"bits", 1}}) == "1\u00D710^17 x 1.0");
  }
  SUBCASE("a message nested in itself deeper than the bound stops with a dash") {
    json reason = {{"id", "t.nested"}, {"params", {{"reason", "end"}}}};
    for (int i = 0; i < 40; ++i) reason = {{"id", "t.nested"}, {"params", {{"reason", reason}}}};
    const std::string text = en("t.nested", {{"reason", reason}});
    CHECK(text.find("\u2013") != std::string::npos);
    CHECK(text.find("end") == std::string::npos);
  }
  SUBCASE("lists: strings, numbers and messages; plus on a non-list is its text") {
    CHECK(en("t.names",
             {{"fields", {"a", 1.5, {{"id", "t.reason"}, {"params", {{"name", "X"}}}}}}}) ==
          "Placeholders: a, 1.5, X has no FP8 support");
    CHECK(en("t.sum", {{"parts", "one part"}, {"bytes", 0}}) == "one part = 0.00 GB");
  }
}

TEST_CASE("messages: language tags, digits and the display unit") {
  vram::RenderOptions fa;
  fa.lang = "fa-IR";
  CHECK(en("t.plain", {{"count", 2}, {"share", -1.5}}, fa) == "۲ کارت، سهم -۱٫۵");
  fa.digits = vram::Digits::kNative;
  CHECK(en("t.money", {{"usd", 10}, {"pct", 1}}, fa) == "$۱۰ با ۱٪ تخفیف");
  vram::RenderOptions de;
  de.lang = "de";
  de.digits = vram::Digits::kNative;  // no native digits for a language without a catalog
  CHECK(en("t.money", {{"usd", 1490}, {"pct", 1}}, de) == "$1,490 at 1% off");
}

TEST_CASE("messages: CLDR plural categories (en, ar, fa)") {
  // unicode.org/cldr/charts/latest/supplemental/language_plural_rules.html
  CHECK(vram::plural_category("en", 1) == "one");
  CHECK(vram::plural_category("en", -1) == "one");
  CHECK(vram::plural_category("en", 1.5) == "other");
  CHECK(vram::plural_category("en", 0) == "other");
  CHECK(vram::plural_category("fa", 0) == "one");
  CHECK(vram::plural_category("fa", 0.5) == "one");
  CHECK(vram::plural_category("fa", 1) == "one");
  CHECK(vram::plural_category("fa", 1.5) == "other");
  CHECK(vram::plural_category("fa", 2) == "other");
  const std::pair<double, const char*> arabic[] = {
      {0, "zero"},    {1, "one"},     {2, "two"},     {3, "few"},      {10, "few"},
      {103, "few"},   {11, "many"},   {99, "many"},   {111, "many"},   {100, "other"},
      {102, "other"}, {3.5, "other"}, {0.5, "other"}, {1000, "other"}, {1011, "many"}};
  for (const auto& [n, category] : arabic) {
    CAPTURE(n);
    CHECK(vram::plural_category("ar", n) == category);
  }
  // Intl.PluralRules rounds to 3 decimals first: 1.0004 is "1".
  CHECK(vram::plural_category("en", 1.0004) == "one");
  CHECK(vram::plural_category("en", std::nan("")) == "other");
  CHECK(vram::plural_category("xx", 1) == "other");
}

TEST_CASE("messages: bad catalogs are refused with what is wrong") {
  CHECK(vram::catalog_problems(json::array()).size() == 1);
  CHECK(vram::catalog_problems({{"a", "{x:bogus}"}}).size() == 1);
  CHECK(vram::catalog_problems({{"a", "{}"}}).size() == 1);
  CHECK(vram::catalog_problems({{"a", "x}"}}).size() == 1);
  CHECK(vram::catalog_problems({{"a", "{x"}}).size() == 1);
  CHECK(vram::catalog_problems({{"a", 3}}).size() == 1);
  CHECK(vram::catalog_problems({{"a", {{"plural", "n"}, {"one", "{n}"}}}}).size() == 1);
  CHECK(vram::catalog_problems({{"a", {{"one", "x"}, {"other", "y"}}}}).size() == 1);
  CHECK(vram::catalog_problems({{"a", {{"plural", "n"}, {"lots", "x"}, {"other", "y"}}}}).size() ==
        1);
  CHECK(vram::catalog_problems({{"a", {{"plural", "n"}, {"other", {{"nested", "x"}}}}}}).size() ==
        1);
  CHECK(vram::catalog_problems({{"a", "{n:d6} {m:msg}"}, {"b", {{"plural", "n"}, {"other", ""}}}})
            .empty());
  CHECK_THROWS_AS(vram::MessageCatalogs::from_json({{"en", {{"a", "{x:bogus}"}}}}),
                  std::invalid_argument);
  CHECK_THROWS_WITH_AS(vram::MessageCatalogs::from_json(json::array()),
                       "messages: the catalogs must be an object per language",
                       std::invalid_argument);
}

TEST_CASE("messages: every catalog in data/messages/ is valid and embedded") {
  namespace fs = std::filesystem;
  const fs::path folder = fs::path(VRAM_SOURCE_DIR) / "data" / "messages";
  const auto& builtin = vram::MessageCatalogs::builtin();
  int count = 0;
  for (const auto& file : fs::directory_iterator(folder)) {
    if (file.path().extension() != ".json") continue;
    ++count;
    const std::string lang = file.path().stem().string();
    CAPTURE(lang);
    const json catalog = vectors::load("data/messages/" + lang + ".json");
    for (const std::string& problem : vram::catalog_problems(catalog)) FAIL_CHECK(problem);
    // The CLI knows the language's plural rules (in every language so far 1
    // is "one"; one without, such as Japanese, needs another check here).
    CHECK(vram::plural_category(lang, 1) != "other");
    for (const auto& [id, entry] : catalog.items()) {
      const json* embedded = builtin.find(lang, id);
      CHECK_MESSAGE((embedded && *embedded == entry), id);
    }
  }
  CHECK(count >= 1);
  CHECK(builtin.languages().size() == static_cast<std::size_t>(count));
}
