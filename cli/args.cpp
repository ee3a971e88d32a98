#include "args.hpp"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <fstream>
#include <sstream>

#include "vram/api.hpp"
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

long long parse_int(const std::string& text, const std::string& flag) {
  long long value = 0;
  const char* end = text.data() + text.size();
  auto [ptr, ec] = std::from_chars(text.data(), end, value);
  if (ec != std::errc() || ptr != end) {
    throw UsageError("usage.whole_number", {{"flag", flag}, {"value", text}});
  }
  return value;
}

double parse_number(const std::string& text, const std::string& flag) {
  std::istringstream in(text);
  in.imbue(std::locale::classic());
  double value = 0;
  in >> value;
  if (in.fail() || !in.eof() || !std::isfinite(value)) {
    throw UsageError("usage.number", {{"flag", flag}, {"value", text}});
  }
  return value;
}

}  // namespace

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
        parsed.request[spec->key] = parse_int(value, flag);
        break;
      case FlagKind::kNumber:
        parsed.request[spec->key] = parse_number(value, flag);
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
        } else if (text == vram::kAuto) {
          target[key] = text;  // a knob the plan picks; the core says which knobs take it
        } else {
          target[key] = parse_number(text, flag + " " + key);
        }
        break;
      }
      case FlagKind::kEngineInt: {
        const json words = spec->field.value("choices", json::array());
        const bool word = std::find(words.begin(), words.end(), json(value)) != words.end();
        parsed.request["engine_options"][spec->key] =
            word ? json(value) : json(parse_int(value, flag));
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
