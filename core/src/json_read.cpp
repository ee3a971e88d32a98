#include "json_read.hpp"

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "vram/error.hpp"
#include "vram/json_object.hpp"

namespace vram::json_read {

const char* type_name(const json& value) {
  switch (value.type()) {
    case json::value_t::null:
      return "null";
    case json::value_t::object:
      return "object";
    case json::value_t::array:
      return "array";
    case json::value_t::string:
      return "string";
    case json::value_t::boolean:
      return "boolean";
    case json::value_t::number_integer:
    case json::value_t::number_unsigned:
    case json::value_t::number_float:
      return "number";
    default:
      return "other";
  }
}

std::string number_text(double value) {
  char buffer[32];
  std::snprintf(buffer, sizeof buffer, "%.15g", value);
  return buffer;
}

namespace {

[[noreturn]] void wrong_type(const json& value, std::string_view field, std::string_view wanted) {
  throw Error::wrong_type(std::string(field), std::string(wanted), type_name(value));
}

[[noreturn]] void missing(std::string_view field) { throw Error::missing(std::string(field)); }

}  // namespace

std::string field_path(std::string_view prefix, std::string_view key) {
  if (prefix.empty()) return std::string(key);
  std::string path(prefix);
  path += '.';
  path += key;
  return path;
}

const json* find(const json& object, std::string_view key) {
  if (!object.is_object()) return nullptr;
  // By the view: the object's comparator is transparent, so no key is copied.
  auto it = object.find(key);
  if (it == object.end() || it->is_null()) return nullptr;
  return &*it;
}

void expect_object(const json& value, std::string_view field) {
  if (!value.is_object()) wrong_type(value, field, "object");
}

std::int64_t as_int(const json& value, std::string_view field) {
  // Unsigned first: nlohmann's is_number_integer() is true for both kinds,
  // and get<int64_t>() would wrap 2^64 - 1 to -1.
  if (value.is_number_unsigned()) {
    const auto u = value.get<std::uint64_t>();
    if (u > static_cast<std::uint64_t>(INT64_MAX)) {
      throw Error::out_of_range(std::string(field), value, INT64_MIN, INT64_MAX);
    }
    return static_cast<std::int64_t>(u);
  }
  if (value.is_number_integer()) return value.get<std::int64_t>();
  if (value.is_number_float()) {
    const double v = value.get<double>();
    // Configs sometimes write integers as 4096.0; anything else is an error.
    if (std::isfinite(v) && std::floor(v) == v && std::fabs(v) < 9.0e15) {
      return static_cast<std::int64_t>(v);
    }
    throw Error::not_whole(std::string(field));
  }
  wrong_type(value, field, "whole");
}

double as_number(const json& value, std::string_view field) {
  if (!value.is_number()) wrong_type(value, field, "number");
  const double v = value.get<double>();
  if (!std::isfinite(v)) throw Error::not_finite(std::string(field));
  return v;
}

namespace {

// The field's path is built only for an error: a catalog's reads are many,
// and a path is a string the heap holds.
std::int64_t int_at(const json& value, std::string_view key, std::string_view prefix) {
  if (value.is_number_unsigned()) {
    const auto u = value.get<std::uint64_t>();
    if (u <= static_cast<std::uint64_t>(INT64_MAX)) return static_cast<std::int64_t>(u);
  } else if (value.is_number_integer()) {
    return value.get<std::int64_t>();
  }
  return as_int(value, field_path(prefix, key));
}

double number_at(const json& value, std::string_view key, std::string_view prefix) {
  if (value.is_number()) {
    const double v = value.get<double>();
    if (std::isfinite(v)) return v;
  }
  return as_number(value, field_path(prefix, key));
}

}  // namespace

std::int64_t get_int(const json& object, std::string_view key, std::string_view prefix) {
  const json* value = find(object, key);
  if (value == nullptr) missing(field_path(prefix, key));
  return int_at(*value, key, prefix);
}

std::optional<std::int64_t> opt_int(const json& object, std::string_view key,
                                    std::string_view prefix) {
  const json* value = find(object, key);
  if (value == nullptr) return std::nullopt;
  return int_at(*value, key, prefix);
}

double get_number(const json& object, std::string_view key, std::string_view prefix) {
  const json* value = find(object, key);
  if (value == nullptr) missing(field_path(prefix, key));
  return number_at(*value, key, prefix);
}

std::optional<double> opt_number(const json& object, std::string_view key,
                                 std::string_view prefix) {
  const json* value = find(object, key);
  if (value == nullptr) return std::nullopt;
  return number_at(*value, key, prefix);
}

std::string get_string(const json& object, std::string_view key, std::string_view prefix) {
  const json* value = find(object, key);
  if (value == nullptr) missing(field_path(prefix, key));
  if (!value->is_string()) wrong_type(*value, field_path(prefix, key), "string");
  return value->get<std::string>();
}

std::optional<std::string> opt_string(const json& object, std::string_view key,
                                      std::string_view prefix) {
  const json* value = find(object, key);
  if (value == nullptr) return std::nullopt;
  if (!value->is_string()) wrong_type(*value, field_path(prefix, key), "string");
  return value->get<std::string>();
}

std::optional<bool> opt_bool(const json& object, std::string_view key, std::string_view prefix) {
  const json* value = find(object, key);
  if (value == nullptr) return std::nullopt;
  if (!value->is_boolean()) {
    wrong_type(*value, field_path(prefix, key), "bool");
  }
  return value->get<bool>();
}

std::vector<std::string> opt_strings(const json& object, std::string_view key,
                                     std::string_view prefix) {
  std::vector<std::string> out;
  const json* value = find(object, key);
  if (value == nullptr) return out;
  const std::string field = field_path(prefix, key);
  if (!value->is_array()) wrong_type(*value, field, "strings");
  for (const json& item : *value) {
    if (!item.is_string()) wrong_type(item, field, "strings");
    out.push_back(item.get<std::string>());
  }
  return out;
}

void require_positive(double value, std::string_view field, bool allow_zero) {
  if (value > 0 || (allow_zero && value == 0)) return;
  throw Error::not_positive(std::string(field), allow_zero);
}

std::int64_t require_range(std::int64_t value, std::int64_t min, std::int64_t max,
                           std::string_view field) {
  if (value < min || value > max) throw Error::out_of_range(std::string(field), value, min, max);
  return value;
}

double require_range(double value, double min, double max, std::string_view field) {
  // Written so that NaN fails too.
  if (!(value >= min && value <= max)) {
    throw Error::out_of_range(std::string(field), value, min, max);
  }
  return value;
}

std::int64_t get_int_in(const json& object, std::string_view key, std::string_view prefix,
                        std::int64_t min, std::int64_t max) {
  return require_range(get_int(object, key, prefix), min, max, field_path(prefix, key));
}

std::optional<std::int64_t> opt_int_in(const json& object, std::string_view key,
                                       std::string_view prefix, std::int64_t min,
                                       std::int64_t max) {
  const auto value = opt_int(object, key, prefix);
  if (value) require_range(*value, min, max, field_path(prefix, key));
  return value;
}

std::string short_string(std::string value, std::size_t max, std::string_view field) {
  if (value.size() > max) throw Error::too_long(std::string(field), value.size(), max);
  return value;
}

}  // namespace vram::json_read
