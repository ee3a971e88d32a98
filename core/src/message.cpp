#include <cmath>
#include <cstdio>

#include "embedded_data.hpp"
#include "vram/message.hpp"
#include "vram/text.hpp"

namespace vram {

using nlohmann::json;

namespace {

const json& english_catalog() {
  // Parsed once; the embedded text never changes. A broken catalog reads as
  // empty, so ids render as themselves rather than failing an error path.
  static const json catalog = [] {
    const std::string_view text = embedded::file("en");
    json parsed = json::parse(text.begin(), text.end(), nullptr, false);
    return parsed.is_object() ? parsed : json::object();
  }();
  return catalog;
}

std::string render(const Message& message, int depth);

std::string value_text(const json& value, std::string_view style, int depth) {
  if (value.is_string()) return value.get<std::string>();
  if (value.is_number()) {
    const double v = value.get<double>();
    if (style == "int") return text::grouped(v);
    if (value.is_number_integer()) return std::to_string(value.get<std::int64_t>());
    if (value.is_number_unsigned()) return std::to_string(value.get<std::uint64_t>());
    char buffer[32];
    std::snprintf(buffer, sizeof buffer, "%.15g", v);
    return buffer;
  }
  if (value.is_object() && value.contains("id") && value["id"].is_string() && depth < 8) {
    return render({value["id"].get<std::string>(), value.value("params", json::object())},
                  depth + 1);
  }
  return value.dump(-1, ' ', false, json::error_handler_t::replace);
}

std::string render(const Message& message, int depth) {
  const json& catalog = english_catalog();
  auto entry = catalog.find(message.id);
  if (entry == catalog.end() || !entry->is_string()) return message.id;
  const std::string& tmpl = entry->get_ref<const std::string&>();
  std::string out;
  for (std::size_t i = 0; i < tmpl.size(); ++i) {
    const std::size_t close = tmpl[i] == '{' ? tmpl.find('}', i) : std::string::npos;
    if (close == std::string::npos) {
      out += tmpl[i];
      continue;
    }
    const std::string spec = tmpl.substr(i + 1, close - i - 1);
    const std::size_t colon = spec.find(':');
    const std::string name = spec.substr(0, colon);
    const std::string style = colon == std::string::npos ? "" : spec.substr(colon + 1);
    auto param = message.params.is_object() ? message.params.find(name) : message.params.end();
    out += param == message.params.end() ? "{" + spec + "}" : value_text(*param, style, depth);
    i = close;
  }
  return out;
}

}  // namespace

std::string english(const Message& message) {
  try {
    return render(message, 0);
  } catch (...) {
    return message.id;
  }
}

json with_english(const Message& message) {
  return json{{"id", message.id}, {"params", message.params}, {"text", english(message)}};
}

}  // namespace vram
