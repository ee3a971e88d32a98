#include "args.hpp"

#include <algorithm>
#include <cmath>
#include <fstream>
#include <sstream>

#include "vram/api.hpp"
#include "vram/engine_log.hpp"
#include "vram/error.hpp"
#include "vram/schema.hpp"

namespace vramcli {

using nlohmann::json;

namespace {

std::string flag_name(const std::string& key) {
  std::string flag = "--" + key;
  for (char& c : flag) c = c == '_' ? '-' : c;
  return flag;
}

const FlagSpec* find_spec(const std::vector<FlagSpec>& specs, const std::string& flag) {
  for (const FlagSpec& spec : specs) {
    if (flag == spec.flag) return &spec;
  }
  return nullptr;
}

// Longer text is not a number anyone typed (numbers.js MAX_LENGTH).
constexpr std::size_t kMaxTypedLength = 40;

bool is_digit(char c) { return c >= '0' && c <= '9'; }

/**
 * `text` with Arabic-Indic and Persian digits as Latin ones, the Arabic
 * decimal and thousands separators as '.' and ',', and the spaces people put
 * between digit groups (no-break, thin, narrow no-break) as ' ' (UTF-8).
 */
std::string latin_digits(const std::string& text) {
  std::string out;
  for (std::size_t i = 0; i < text.size(); ++i) {
    const auto b0 = static_cast<unsigned char>(text[i]);
    const auto b1 = i + 1 < text.size() ? static_cast<unsigned char>(text[i + 1]) : 0;
    const auto b2 = i + 2 < text.size() ? static_cast<unsigned char>(text[i + 2]) : 0;
    if (b0 == 0xd9 && b1 >= 0xa0 && b1 <= 0xa9) {  // U+0660..0669
      out += static_cast<char>('0' + (b1 - 0xa0));
      ++i;
    } else if (b0 == 0xdb && b1 >= 0xb0 && b1 <= 0xb9) {  // U+06F0..06F9
      out += static_cast<char>('0' + (b1 - 0xb0));
      ++i;
    } else if (b0 == 0xd9 && (b1 == 0xab || b1 == 0xac)) {  // U+066B, U+066C
      out += b1 == 0xab ? '.' : ',';
      ++i;
    } else if (b0 == 0xc2 && b1 == 0xa0) {  // U+00A0
      out += ' ';
      ++i;
    } else if (b0 == 0xe2 && b1 == 0x80 && (b2 == 0x89 || b2 == 0xaf)) {  // U+2009, U+202F
      out += ' ';
      i += 2;
    } else {
      out += text[i];
    }
  }
  return out;
}

/** "32,768" or "32 768" (groups of three after the first) without its separators, or "" if it is
 * not so grouped. */
std::string ungrouped(const std::string& text) {
  std::string digits;
  std::size_t i = 0;
  std::size_t first = 0;
  while (i < text.size() && is_digit(text[i])) digits += text[i++], ++first;
  if (first < 1 || first > 3) return "";
  std::size_t groups = 0;
  while (i < text.size() && (text[i] == ',' || text[i] == ' ')) {
    ++i;
    for (int k = 0; k < 3; ++k, ++i) {
      if (i >= text.size() || !is_digit(text[i])) return "";
      digits += text[i];
    }
    ++groups;
  }
  if (groups == 0) return "";
  if (i < text.size()) {
    if (text[i] != '.' || i + 1 >= text.size()) return "";
    digits += text[i++];
    for (; i < text.size(); ++i) {
      if (!is_digit(text[i])) return "";
      digits += text[i];
    }
  }
  return digits;
}

/** Plain decimal or scientific notation: 8192, 8192.0, .5, 3.2e4, 1E5 (at most three exponent
 * digits). */
bool plain_number(const std::string& text) {
  std::size_t i = 0;
  std::size_t before = 0;
  std::size_t after = 0;
  while (i < text.size() && is_digit(text[i])) ++i, ++before;
  if (i < text.size() && text[i] == '.') {
    ++i;
    while (i < text.size() && is_digit(text[i])) ++i, ++after;
  }
  if (before == 0 && after == 0) return false;
  if (i < text.size() && (text[i] == 'e' || text[i] == 'E')) {
    ++i;
    if (i < text.size() && (text[i] == '+' || text[i] == '-')) ++i;
    std::size_t exponent = 0;
    while (i < text.size() && is_digit(text[i])) ++i, ++exponent;
    if (exponent == 0 || exponent > 3) return false;
  }
  return i == text.size();
}

std::string trimmed(const std::string& text) {
  const auto first = text.find_first_not_of(" \t\r\n");
  if (first == std::string::npos) return "";
  return text.substr(first, text.find_last_not_of(" \t\r\n") - first + 1);
}

/**
 * A flag's number: read as typed (read_typed_number), with a leading minus
 * passed on as a negative number, so that the core names the field's range
 * ("context must be between 1 and 100,000,000, not -5") as it does for a
 * request. `id` is the usage message for what does not read.
 */
double parse_flag_number(const std::string& text, const std::string& flag, Suffixes suffixes,
                         bool integer, const char* id) {
  const bool negative = !text.empty() && text[0] == '-';
  const TypedNumber read = read_typed_number(negative ? text.substr(1) : text, suffixes, integer);
  if (!read.error.empty()) throw UsageError(id, {{"flag", flag}, {"value", text}});
  return negative ? -read.value : read.value;
}

/** A whole-number flag: k and M as the field counts them (tokens: 1,024), or none (an engine knob).
 */
long long parse_int(const std::string& text, const std::string& flag, Suffixes suffixes) {
  const double value = parse_flag_number(text, flag, suffixes, true, "usage.whole_number");
  // Past what a request can hold (2^63) is not a count either.
  if (std::fabs(value) >= 9.2e18)
    throw UsageError("usage.whole_number", {{"flag", flag}, {"value", text}});
  return static_cast<long long>(value);
}

double parse_number(const std::string& text, const std::string& flag, Suffixes suffixes) {
  return parse_flag_number(text, flag, suffixes, false, "usage.number");
}

/** How a field's numbers read: k as 1,024 where the schema counts it in tokens. */
Suffixes suffixes_of(const json& field) {
  return field.value("unit", "") == "tokens" ? Suffixes::kTokens : Suffixes::kCount;
}

/** A knob's word: a lowercase letter, then lowercase letters, digits and '_' ("auto", "marlin"). */
bool word_value(const std::string& text) {
  if (text.empty() || text.size() > 64 || text[0] < 'a' || text[0] > 'z') return false;
  return std::all_of(text.begin(), text.end(), [](char c) {
    return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_';
  });
}

}  // namespace

TypedNumber read_typed_number(const std::string& text, Suffixes suffixes, bool integer) {
  if (text.size() > kMaxTypedLength) return {0, "notNumber"};
  std::string s = trimmed(latin_digits(text));
  if (s.empty()) return {0, "empty"};
  double multiplier = 1;
  const char last = s.back();
  if (last == 'k' || last == 'K' || last == 'm' || last == 'M') {
    if (suffixes == Suffixes::kNone) return {0, "notNumber"};
    const bool kilo = last == 'k' || last == 'K';
    if (suffixes == Suffixes::kTokens) {
      multiplier = kilo ? 1024.0 : 1048576.0;
    } else {
      multiplier = kilo ? 1e3 : 1e6;
    }
    s = trimmed(s.substr(0, s.size() - 1));
  }
  if (s.find_first_of(", ") != std::string::npos) {
    s = ungrouped(s);
    if (s.empty()) return {0, "notNumber"};
  }
  if (!plain_number(s)) return {0, "notNumber"};
  std::istringstream in(s);
  in.imbue(std::locale::classic());
  double value = 0;
  in >> value;
  if (in.fail()) return {0, "notNumber"};
  value *= multiplier;
  if (!std::isfinite(value)) return {0, "notNumber"};
  // 1.1k tokens is 1126.4: not a whole count; 0.1 x 1000 is 100 up to the product's rounding error.
  const double nearest = std::round(value);
  if (multiplier != 1 && std::fabs(value - nearest) <= 1e-9 * std::max(1.0, std::fabs(value))) {
    value = nearest;
  }
  if (integer && value != std::floor(value)) return {0, "notWhole"};
  return {value, ""};
}

std::string read_file(const std::string& path, const std::string& flag) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw UsageError("usage.cannot_read", {{"flag", flag}, {"path", path}});
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

std::vector<FlagSpec> flags_from_schema(const json& fields) {
  std::vector<FlagSpec> specs;
  for (const json& field : fields) {
    const std::string key = field.at("name").get<std::string>();
    const std::string type = field.at("type").get<std::string>();
    FlagSpec spec{flag_name(key), key, FlagKind::kString, field};
    if (type == "int") {
      spec.kind = FlagKind::kInt;
    } else if (type == "number") {
      spec.kind = FlagKind::kNumber;
    } else if (type == "list") {
      spec.kind = FlagKind::kList;
    } else if (type == "bool") {
      spec.kind = FlagKind::kTrue;
      specs.push_back(spec);
      spec.flag = flag_name("no_" + key);
      spec.kind = FlagKind::kFalse;
    } else if (type == "object") {
      // Objects come from files or KEY=VALUE pairs; their flags are the CLI's own.
      if (key == "engine_options") {
        spec.flag = "--engine-opt";
        spec.kind = FlagKind::kKeyValue;
      } else {
        spec.kind = FlagKind::kJsonFile;
      }
    }
    specs.push_back(spec);
    // Documented short forms (docs/cli.md).
    if (key == "gpu_count") specs.push_back({"--gpus", key, FlagKind::kInt, field});
    if (key == "upcast_unquantized") specs.push_back({"--no-upcast", key, FlagKind::kFalse, field});
  }
  return specs;
}

Parsed parse_flags(const std::vector<std::string>& args, const std::vector<FlagSpec>& specs) {
  Parsed parsed;
  for (std::size_t i = 0; i < args.size(); ++i) {
    std::string flag = args[i];
    std::string value;
    bool inline_value = false;
    if (const auto eq = flag.find('='); flag.rfind("--", 0) == 0 && eq != std::string::npos) {
      value = flag.substr(eq + 1);
      flag = flag.substr(0, eq);
      inline_value = true;
    }
    if (flag == "--json") {
      parsed.json_output = true;
      continue;
    }
    if (flag == "--emit") {
      parsed.emit = true;
      continue;
    }
    const FlagSpec* spec = find_spec(specs, flag);
    if (spec == nullptr) {
      throw UsageError(flag.rfind("-", 0) == 0 ? "usage.unknown_flag" : "usage.unexpected",
                       {{"flag", flag}});
    }
    if (spec->kind == FlagKind::kTrue || spec->kind == FlagKind::kFalse) {
      if (inline_value) throw UsageError("usage.no_value", {{"flag", flag}});
      parsed.request[spec->key] = spec->kind == FlagKind::kTrue;
      continue;
    }
    if (!inline_value) {
      if (i + 1 >= args.size()) throw UsageError("usage.needs_value", {{"flag", flag}});
      value = args[++i];
    }
    switch (spec->kind) {
      case FlagKind::kString:
        parsed.request[spec->key] = value;
        break;
      case FlagKind::kInt:
        parsed.request[spec->key] = parse_int(value, flag, suffixes_of(spec->field));
        break;
      case FlagKind::kNumber:
        parsed.request[spec->key] = parse_number(value, flag, suffixes_of(spec->field));
        break;
      case FlagKind::kList: {
        json list = json::array();
        std::stringstream items(value);
        std::string item;
        while (std::getline(items, item, ',')) {
          if (!item.empty()) list.push_back(item);
        }
        if (list.empty()) throw UsageError("usage.list", {{"flag", flag}});
        parsed.request[spec->key] = list;
        break;
      }
      case FlagKind::kJsonFile: {
        const std::string text = read_file(value, flag);
        json doc;
        try {
          doc = vram::parse_json(text, spec->key);  // size and depth limits, as in wasm
        } catch (const vram::Error& e) {
          if (e.code() == "parse_error") {
            throw UsageError("usage.not_json", {{"flag", flag}, {"path", value}});
          }
          // The core's reason (too large, too deep), as a message in the language asked for.
          throw UsageError("usage.bad_file",
                           {{"flag", flag}, {"path", value}, {"reason", json(e.message())}});
        }
        parsed.request[spec->key] = std::move(doc);
        break;
      }
      case FlagKind::kTextFile: {
        // Read no more than the core takes, and one byte over so that it names the limit.
        std::ifstream in(value, std::ios::binary);
        if (!in) throw UsageError("usage.cannot_read", {{"flag", flag}, {"path", value}});
        std::string text(vram::kMaxLogBytes + 1, '\0');
        in.read(text.data(), static_cast<std::streamsize>(text.size()));
        text.resize(static_cast<std::size_t>(in.gcount()));
        parsed.request[spec->key] = std::move(text);
        break;
      }
      case FlagKind::kKeyValue: {
        const auto eq = value.find('=');
        if (eq == std::string::npos || eq == 0) {
          throw UsageError("usage.key_value", {{"flag", flag}, {"value", value}});
        }
        const std::string key = value.substr(0, eq);
        const std::string text = value.substr(eq + 1);
        json& target = parsed.request[spec->key];
        if (text == "true" || text == "false") {
          target[key] = text == "true";
        } else if (word_value(text)) {
          // A word: "auto" (a knob the plan picks) or one of a knob's choices (vLLM's
          // mxfp4_backend=marlin); the core says which knobs take which words.
          target[key] = text;
        } else {
          target[key] = parse_number(text, flag + " " + key, Suffixes::kNone);
        }
        break;
      }
      case FlagKind::kEngineInt: {
        const json words = spec->field.value("choices", json::array());
        const bool word = std::find(words.begin(), words.end(), json(value)) != words.end();
        parsed.request["engine_options"][spec->key] =
            word ? json(value) : json(parse_int(value, flag, Suffixes::kNone));
        break;
      }
      case FlagKind::kCli:
        if (spec->key == "lang") parsed.lang = value;
        break;
      case FlagKind::kTrue:
      case FlagKind::kFalse:
        break;
    }
  }
  return parsed;
}

std::string flag_for_field(const std::vector<FlagSpec>& specs, const std::string& field) {
  const std::string head = field.substr(0, field.find_first_of(".["));
  // A documented short form of the same kind (--gpus for --gpu-count) follows
  // its long form and is the name the docs and the help use.
  const FlagSpec* named = nullptr;
  for (const FlagSpec& spec : specs) {
    if (spec.kind == FlagKind::kCli || head != spec.key) continue;
    if (named == nullptr || spec.kind == named->kind) named = &spec;
  }
  return named != nullptr ? named->flag : "";
}

}  // namespace vramcli
