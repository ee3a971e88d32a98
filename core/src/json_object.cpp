#include "vram/json_object.hpp"

#include <charconv>
#include <cmath>
#include <utility>

namespace vram {

nlohmann::json obj(std::initializer_list<JsonField> fields) {
  nlohmann::json out = nlohmann::json::object();
  auto& members = out.get_ref<nlohmann::json::object_t&>();
  for (const JsonField& field : fields) members.emplace(field.key, std::move(field.value));
  return out;
}

namespace {

using nlohmann::json;

/** Plain printable ASCII with nothing to escape: copied as it is. */
bool plain(const std::string& text) {
  for (const char c : text) {
    const auto byte = static_cast<unsigned char>(c);
    if (byte < 0x20 || byte >= 0x80 || c == '"' || c == '\\') return false;
  }
  return true;
}

void write_string(const std::string& text, std::string& out) {
  if (plain(text)) {
    out += '"';
    out += text;
    out += '"';
  } else {
    out += json(text).dump(-1, ' ', false, json::error_handler_t::replace);
  }
}

template <typename Integer>
void write_integer(Integer value, std::string& out) {
  char buffer[24];
  const char* end = std::to_chars(buffer, buffer + sizeof buffer, value).ptr;
  out.append(buffer, static_cast<std::size_t>(end - buffer));
}

void write(const json& value, std::string& out) {
  switch (value.type()) {
    case json::value_t::null:
      out += "null";
      return;
    case json::value_t::boolean:
      out += value.get_ref<const json::boolean_t&>() ? "true" : "false";
      return;
    case json::value_t::number_integer:
      write_integer(value.get_ref<const json::number_integer_t&>(), out);
      return;
    case json::value_t::number_unsigned:
      write_integer(value.get_ref<const json::number_unsigned_t&>(), out);
      return;
    case json::value_t::number_float: {
      // nlohmann's dump_float: null for NaN and infinities, else its Grisu2.
      const double x = value.get_ref<const json::number_float_t&>();
      if (!std::isfinite(x)) {
        out += "null";
        return;
      }
      char buffer[64];
      const char* end = nlohmann::detail::to_chars(buffer, buffer + sizeof buffer, x);
      out.append(buffer, static_cast<std::size_t>(end - buffer));
      return;
    }
    case json::value_t::string:
      write_string(value.get_ref<const json::string_t&>(), out);
      return;
    case json::value_t::array: {
      out += '[';
      bool first = true;
      for (const json& item : value.get_ref<const json::array_t&>()) {
        if (!first) out += ',';
        first = false;
        write(item, out);
      }
      out += ']';
      return;
    }
    case json::value_t::object: {
      out += '{';
      bool first = true;
      for (const auto& [key, item] : value.get_ref<const json::object_t&>()) {
        if (!first) out += ',';
        first = false;
        write_string(key, out);
        out += ':';
        write(item, out);
      }
      out += '}';
      return;
    }
    case json::value_t::binary:
    case json::value_t::discarded:
      break;
  }
  // Never in an answer; nlohmann's own text, whatever it is.
  out += value.dump(-1, ' ', false, json::error_handler_t::replace);
}

}  // namespace

std::string dump_json(const json& value) {
  std::string out;
  out.reserve(4096);
  write(value, out);
  return out;
}

}  // namespace vram
