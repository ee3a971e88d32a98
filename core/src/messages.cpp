#include "vram/messages.hpp"

#include <cctype>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <optional>
#include <stdexcept>

#include "vram/units.hpp"

namespace vram {
namespace {

using nlohmann::json;

// Shown for a number that cannot be shown (NaN, infinity, null, a string
// where a number belongs): visible, and never read as a value.
constexpr std::string_view kNoValue = "\u2013";
// Nested messages come from results, but a result is input too: bound it.
constexpr int kMaxDepth = 16;

constexpr std::string_view kStyles[] = {"",    "int", "d0",  "d1",   "d2",   "d3",   "d4",
                                        "d5",  "d6",  "gb",  "gb0",  "gb2",  "gap",  "gib",
                                        "pct", "usd", "msg", "plus", "list", "rate", "code"};
constexpr std::string_view kCategories[] = {"zero", "one", "two", "few", "many", "other"};

bool name_char(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_';
}

struct Placeholder {
  std::string_view name;
  std::string_view style;
  std::size_t end;  // just past the closing brace
};

// `{name}` or `{name:style}` at text[pos] (a '{'), name [A-Za-z0-9_]+ and a
// known style; nullopt when it is anything else.
std::optional<Placeholder> parse_placeholder(std::string_view text, std::size_t pos) {
  const std::size_t close = text.find('}', pos);
  if (close == std::string_view::npos) return std::nullopt;
  const std::string_view inner = text.substr(pos + 1, close - pos - 1);
  const std::size_t colon = inner.find(':');
  const std::string_view name = inner.substr(0, colon);
  const std::string_view style =
      colon == std::string_view::npos ? std::string_view() : inner.substr(colon + 1);
  if (name.empty()) return std::nullopt;
  for (char c : name) {
    if (!name_char(c)) return std::nullopt;
  }
  if (colon != std::string_view::npos && style.empty()) return std::nullopt;
  bool known = false;
  for (std::string_view s : kStyles) known = known || s == style;
  if (!known) return std::nullopt;
  return Placeholder{name, style, close + 1};
}

// The shortest decimal that reads back as `value` (finite, >= 0), in fixed
// notation: what JavaScript and ICU print, so both renderers agree on every
// digit, 1e23 included ("100000000000000000000000", not its exact binary).
std::string shortest_decimal(double value) {
  if (value == 0) return "0";
  // Not a number a person can read (a hostile 1e308 overflowed on its way):
  // the same dash the styles show.
  if (!std::isfinite(value)) return "\u2013";
  char buffer[40];
  for (int precision = 1; precision <= 17; ++precision) {
    std::snprintf(buffer, sizeof buffer, "%.*e", precision - 1, value);
    if (std::strtod(buffer, nullptr) == value) break;
  }
  const std::string_view text(buffer);
  const std::size_t e = text.find('e');
  std::string digits(1, text[0]);
  if (e > 2) digits.append(text.substr(2, e - 2));  // after "d."
  const int exponent = std::atoi(buffer + e + 1);
  while (digits.size() > 1 && digits.back() == '0') digits.pop_back();
  const int size = static_cast<int>(digits.size());
  if (exponent < 0)
    return "0." + std::string(static_cast<std::size_t>(-exponent - 1), '0') + digits;
  if (size <= exponent + 1)
    return digits + std::string(static_cast<std::size_t>(exponent + 1 - size), '0');
  return digits.substr(0, static_cast<std::size_t>(exponent + 1)) + "." +
         digits.substr(static_cast<std::size_t>(exponent + 1));
}

// Digits and separators per docs/i18n.md.
struct NumberSystem {
  const char* digits[10];
  std::string_view group;
  std::string_view decimal;
  std::string_view percent;
};
constexpr NumberSystem kLatin = {{"0", "1", "2", "3", "4", "5", "6", "7", "8", "9"}, ",", ".", "%"};
constexpr NumberSystem kArabic = {{"\u0660", "\u0661", "\u0662", "\u0663", "\u0664", "\u0665",
                                   "\u0666", "\u0667", "\u0668", "\u0669"},
                                  "\u066C",
                                  "\u066B",
                                  "%"};
constexpr NumberSystem kPersian = {{"\u06F0", "\u06F1", "\u06F2", "\u06F3", "\u06F4", "\u06F5",
                                    "\u06F6", "\u06F7", "\u06F8", "\u06F9"},
                                   "\u066C",
                                   "\u066B",
                                   "\u066A"};

const NumberSystem& number_system(std::string_view lang, Digits digits) {
  if (digits == Digits::kLatin) return kLatin;
  if (lang == "fa") return kPersian;
  if (lang == "ar" && digits == Digits::kNative) return kArabic;
  return kLatin;
}

// "fa-IR" -> "fa": catalogs are per language.
std::string base_language(std::string_view lang) {
  std::string base(lang.substr(0, lang.find_first_of("-_")));
  for (char& c : base) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return base;
}

bool is_message(const json& value) {
  return value.is_object() && value.contains("id") && value["id"].is_string();
}

class Renderer {
 public:
  Renderer(const MessageCatalogs& catalogs, const RenderOptions& options)
      : catalogs_(catalogs),
        lang_(base_language(options.lang)),
        system_(number_system(lang_, options.digits)),
        bytes_per_unit_(options.unit == DisplayUnit::kGiB ? kBytesPerGiB : kBytesPerGB),
        unit_(options.unit == DisplayUnit::kGiB ? " GiB" : " GB") {}

  std::string message(const std::string& id, const json& params, int depth) const {
    if (depth > kMaxDepth) return std::string(kNoValue);
    std::string lang = lang_;
    const json* entry = catalogs_.find(lang, id);
    if (!entry) entry = catalogs_.find(lang = "en", id);
    if (!entry) return id;
    static const json kNoParams = json::object();
    const json& values = params.is_object() ? params : kNoParams;
    if (entry->is_string()) return expand(entry->get_ref<const std::string&>(), values, depth);
    // A plural entry: the category of its parameter, in the template's own
    // language (an English fallback takes English plurals).
    // Catalogs are checked on the way in (from_json), so plural and other
    // are there; find() keeps a bad one from being undefined behaviour.
    std::string category = "other";
    const auto plural = entry->find("plural");
    const auto count = plural != entry->end() && plural->is_string()
                           ? values.find(plural->get<std::string>())
                           : values.end();
    if (count != values.end() && count->is_number()) {
      category = plural_category(lang, count->get<double>());
    }
    auto form = entry->find(category);
    if (form == entry->end()) form = entry->find("other");
    return form != entry->end() && form->is_string()
               ? expand(form->get_ref<const std::string&>(), values, depth)
               : id;
  }

 private:
  // A template's own text, its literal numbers in the chosen digits: a digit
  // written Persian (U+06F0..) or Arabic-Indic (U+0660..), and the Arabic
  // decimal point, group separator and percent sign, are a number's; Latin
  // digits are part of names (H100, FP8, HTTP 404) and stay (docs/i18n.md).
  void literal(std::string& out, const std::string& text, std::size_t from, std::size_t to) const {
    for (std::size_t i = from; i < to; ++i) {
      const auto lead = static_cast<unsigned char>(text[i]);
      const auto next = i + 1 < to ? static_cast<unsigned char>(text[i + 1]) : 0u;
      if (lead == 0xDB && next >= 0xB0 && next <= 0xB9) {  // U+06F0..U+06F9
        out += system_.digits[next - 0xB0];
      } else if (lead == 0xD9 && next >= 0xA0 && next <= 0xA9) {  // U+0660..U+0669
        out += system_.digits[next - 0xA0];
      } else if (lead == 0xD9 && next == 0xAA) {  // U+066A ARABIC PERCENT SIGN
        out += system_.percent;
      } else if (lead == 0xD9 && next == 0xAB) {  // U+066B ARABIC DECIMAL SEPARATOR
        out += system_.decimal;
      } else if (lead == 0xD9 && next == 0xAC) {  // U+066C ARABIC THOUSANDS SEPARATOR
        out += system_.group;
      } else {
        out += text[i];
        continue;
      }
      ++i;
    }
  }

  std::string expand(const std::string& text, const json& params, int depth) const {
    std::string out;
    out.reserve(text.size() + 16);
    std::size_t pos = 0;
    while (pos < text.size()) {
      const std::size_t open = text.find('{', pos);
      if (open == std::string::npos) break;
      literal(out, text, pos, open);
      const auto placeholder = parse_placeholder(text, open);
      if (!placeholder) {
        out += '{';  // not a placeholder: shown as written
        pos = open + 1;
        continue;
      }
      const auto found = params.find(std::string(placeholder->name));
      if (found == params.end()) {
        out.append(text, open, placeholder->end - open);
      } else {
        out += styled(*found, placeholder->style, depth);
      }
      pos = placeholder->end;
    }
    literal(out, text, pos, text.size());
    return out;
  }

  std::string styled(const json& value, std::string_view style, int depth) const {
    if (style.empty() || style == "msg" || style == "list") return text_of(value, depth);
    if (style == "plus")
      return value.is_array() ? joined(value, "list.plus", depth) : text_of(value, depth);
    if (!value.is_number()) return std::string(kNoValue);
    const double x = value.get<double>();
    if (style == "int") return number(x, 0, 0);
    if (style.size() == 2 && style[0] == 'd') return number(x, style[1] - '0', style[1] - '0');
    if (style == "gb") return number(x / bytes_per_unit_, 1, 1, "", unit_);
    if (style == "gb0") return number(x / bytes_per_unit_, 0, 0, "", unit_);
    if (style == "gb2") return number(x / bytes_per_unit_, 2, 2, "", unit_);
    if (style == "gap") return gap(x / bytes_per_unit_);
    if (style == "gib") return number(x, 2, 2, "", " GiB");
    if (style == "pct") return number(x, 0, 2, "", system_.percent);
    // A speed: whole units from 10 up, one decimal below (2.3 tokens/s, not 2).
    if (style == "rate") return std::fabs(x) < 9.95 ? number(x, 1, 1) : number(x, 0, 0);
    if (style == "code") return code_number(x);
    return number(x, 0, 0, "$", "");  // usd, the last style parse_placeholder lets through
  }

  // A parameter shown without a numeric style.
  std::string text_of(const json& value, int depth) const {
    if (value.is_string()) return value.get<std::string>();
    if (value.is_number()) return number(value.get<double>(), 0, 2);
    if (is_message(value)) {
      return message(value["id"].get<std::string>(), value.value("params", json::object()),
                     depth + 1);
    }
    if (value.is_array()) return joined(value, "list.sep", depth);
    return std::string(kNoValue);
  }

  std::string joined(const json& items, const std::string& separator_id, int depth) const {
    if (depth > kMaxDepth) return std::string(kNoValue);
    const std::string separator = message(separator_id, json::object(), depth + 1);
    std::string out;
    for (std::size_t i = 0; i < items.size(); ++i) {
      if (i > 0) out += separator;
      out += text_of(items[i], depth + 1);
    }
    return out;
  }

  // Rounded for display (half away from zero), grouped, in the language's
  // digits; the sign (an ASCII hyphen-minus, as on the page) goes before the
  // prefix: "-$5". -0 and what rounds to 0 show as 0.
  // A gap or a margin in the display unit (short by, spare): one decimal, or
  // up to three while a value other than 0 would show as 0 ("0.03 GB short",
  // never "0.0 GB short").
  std::string gap(double units) const {
    int decimals = 1;
    while (decimals < 3 && units != 0 && round_display(units, decimals) == 0) ++decimals;
    return number(units, decimals, decimals, "", unit_);
  }

  std::string number(double value, int min_decimals, int max_decimals, std::string_view prefix = "",
                     std::string_view suffix = "") const {
    if (!std::isfinite(value)) return std::string(kNoValue);
    // Near the double's limit the scaled rounding overflows; such a value has
    // no fraction to round anyway.
    double rounded = round_display(value, max_decimals);
    if (!std::isfinite(rounded)) rounded = value;
    if (std::fabs(rounded) >= kCompactFrom) {
      return (rounded < 0 ? "-" : "") + std::string(prefix) + compact(std::fabs(rounded)) +
             std::string(suffix);
    }
    const std::string plain = shortest_decimal(std::fabs(rounded));
    const std::size_t point = plain.find('.');
    const std::string whole = plain.substr(0, point);
    std::string fraction = point == std::string::npos ? "" : plain.substr(point + 1);
    if (fraction.size() < static_cast<std::size_t>(min_decimals)) {
      fraction.append(static_cast<std::size_t>(min_decimals) - fraction.size(), '0');
    }
    std::string out = rounded < 0 ? "-" : "";
    out += prefix;
    for (std::size_t i = 0; i < whole.size(); ++i) {
      if (i > 0 && (whole.size() - i) % 3 == 0) out += system_.group;
      out += system_.digits[whole[i] - '0'];
    }
    if (!fraction.empty()) out += system_.decimal;
    for (char c : fraction) out += system_.digits[c - '0'];
    out += suffix;
    return out;
  }

  // A value past the digits a double holds exactly (>= 1e16, a hostile 1e308
  // among them) as its first three significant digits, rounded half up on the
  // decimal digits, times a power of ten: "1.8×10^308", never 309 digits. The
  // same in every language, in its digits (docs/i18n.md).
  static constexpr double kCompactFrom = 1e16;
  std::string compact(double value) const {
    const std::string plain = shortest_decimal(value);
    std::string digits = plain.substr(0, plain.find('.'));
    int exponent = static_cast<int>(digits.size()) - 1;
    constexpr std::size_t kSignificant = 3;
    if (digits.size() > kSignificant) {
      const bool up = digits[kSignificant] >= '5';
      digits.resize(kSignificant);
      for (std::size_t i = kSignificant; up && i-- > 0;) {
        if (digits[i] == '9') {
          digits[i] = '0';
          if (i == 0) {
            digits.insert(digits.begin(), '1');
            digits.pop_back();
            ++exponent;
          }
        } else {
          ++digits[i];
          break;
        }
      }
    }
    while (digits.size() > 1 && digits.back() == '0') digits.pop_back();
    std::string out = system_.digits[digits[0] - '0'];
    if (digits.size() > 1) out += system_.decimal;
    for (std::size_t i = 1; i < digits.size(); ++i) out += system_.digits[digits[i] - '0'];
    out += "\u00D7";  // ×
    out += system_.digits[1];
    out += system_.digits[0];
    out += '^';
    const std::string power = std::to_string(exponent);
    for (char c : power) out += system_.digits[c - '0'];
    return out;
  }

  // A number a program reads (a command's flag: `-ngl 37`): whole, rounded
  // half away from zero, in Latin digits and ungrouped in every language.
  static std::string code_number(double value) {
    if (!std::isfinite(value)) return std::string(kNoValue);
    double rounded = round_display(value, 0);
    if (!std::isfinite(rounded)) rounded = value;
    const std::string plain = shortest_decimal(std::fabs(rounded));
    return (rounded < 0 ? "-" : "") + plain.substr(0, plain.find('.'));
  }

  const MessageCatalogs& catalogs_;
  std::string lang_;
  const NumberSystem& system_;
  double bytes_per_unit_;
  std::string_view unit_;
};

void template_problems(const std::string& where, const json& text,
                       std::vector<std::string>& problems) {
  if (!text.is_string()) {
    problems.push_back(where + ": not a string");
    return;
  }
  const std::string& value = text.get_ref<const std::string&>();
  for (std::size_t pos = 0; pos < value.size(); ++pos) {
    if (value[pos] == '}') problems.push_back(where + ": '}' outside a placeholder");
    if (value[pos] != '{') continue;
    const auto placeholder = parse_placeholder(value, pos);
    if (!placeholder) {
      problems.push_back(where + ": malformed placeholder at " + std::to_string(pos));
      // One problem per placeholder: skip to its closing brace, if any.
      const std::size_t close = value.find('}', pos);
      if (close == std::string::npos) break;
      pos = close;
      continue;
    }
    pos = placeholder->end - 1;
  }
}

}  // namespace

const json* MessageCatalogs::find(std::string_view lang, std::string_view id) const {
  const auto catalog = catalogs_.find(lang);
  if (catalog == catalogs_.end()) return nullptr;
  const auto entry = catalog->second.find(std::string(id));
  return entry == catalog->second.end() ? nullptr : &*entry;
}

std::vector<std::string> MessageCatalogs::languages() const {
  std::vector<std::string> out;
  for (const auto& [lang, catalog] : catalogs_) out.push_back(lang);
  return out;
}

MessageCatalogs MessageCatalogs::from_json(const json& catalogs) {
  if (!catalogs.is_object()) {
    throw std::invalid_argument("messages: the catalogs must be an object per language");
  }
  MessageCatalogs out;
  for (const auto& [lang, catalog] : catalogs.items()) {
    const std::vector<std::string> problems = catalog_problems(catalog);
    if (!problems.empty()) {
      throw std::invalid_argument("messages." + lang + ": " + problems.front());
    }
    out.catalogs_.emplace(lang, catalog);
  }
  return out;
}

std::string english(const Message& message) {
  try {
    return render(message, MessageCatalogs::builtin(), RenderOptions{});
  } catch (...) {
    return message.id;  // an error path must not fail on its own words
  }
}

std::string render(const Message& message, const MessageCatalogs& catalogs,
                   const RenderOptions& options) {
  return Renderer(catalogs, options).message(message.id, message.params, 0);
}

std::string plural_category(std::string_view lang, double value) {
  if (!std::isfinite(value)) return "other";
  // UTS #35 operands: n the absolute value, i its integer digits, v the
  // count of visible fraction digits (after Intl's default 3-decimal cut).
  const double n = round_display(std::fabs(value), 3);
  const double i = std::floor(n);
  const bool v0 = n == i;
  // CLDR ranges such as "n % 100 = 3..10" match integers only.
  const double mod100 = v0 ? std::fmod(n, 100.0) : -1;
  // CLDR plurals.xml, cardinal rules:
  // en  one: i = 1 and v = 0
  // fa  one: i = 0 or n = 1
  // ar  zero: n = 0; one: n = 1; two: n = 2; few: n % 100 = 3..10;
  //     many: n % 100 = 11..99
  if (lang == "en") return i == 1 && v0 ? "one" : "other";
  if (lang == "fa") return i == 0 || n == 1 ? "one" : "other";
  if (lang == "ar") {
    if (n == 0) return "zero";
    if (n == 1) return "one";
    if (n == 2) return "two";
    if (mod100 >= 3 && mod100 <= 10) return "few";
    if (mod100 >= 11 && mod100 <= 99) return "many";
  }
  return "other";
}

std::vector<std::string> catalog_problems(const json& catalog) {
  std::vector<std::string> problems;
  if (!catalog.is_object()) return {"the catalog is not a JSON object"};
  for (const auto& [id, entry] : catalog.items()) {
    if (!entry.is_object()) {
      template_problems(id, entry, problems);
      continue;
    }
    const json& plural = entry.contains("plural") ? entry["plural"] : json();
    if (!plural.is_string() || !parse_placeholder("{" + plural.get<std::string>() + "}", 0)) {
      problems.push_back(id + ": a plural object needs \"plural\": the parameter's name");
    }
    if (!entry.contains("other")) problems.push_back(id + ": a plural object needs \"other\"");
    for (const auto& [key, form] : entry.items()) {
      if (key == "plural") continue;
      bool category = false;
      for (std::string_view c : kCategories) category = category || c == key;
      if (!category) problems.push_back(id + ": \"" + key + "\" is not a CLDR plural category");
      template_problems(id + "." + key, form, problems);
    }
  }
  return problems;
}

}  // namespace vram
