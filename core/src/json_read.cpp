#include "json_read.hpp"

#include <cmath>
#include <cstdint>
#include <cstdio>

#include "vram/error.hpp"

namespace vram::json_read {

const char* type_name(const json& value) {
  switch (value.type()) {
    case json::value_t::null:
      return "null";
    case json::value_t::object:
      return "an object";
    case json::value_t::array:
      return "an array";
    case json::value_t::string:
      return "a string";
    case json::value_t::boolean:
      return "a boolean";
    case json::value_t::number_integer:
    case json::value_t::number_unsigned:
    case json::value_t::number_float:
      return "a number";
    default:
      return "an unsupported value";
  }
}

namespace {

// nlohmann's own DOM builder, with the depth counted as each object or list
// opens. Its handlers are found by name (the parser is a template on the
// handler), so these hide the base's without virtual calls.
class DepthLimitedBuilder : public nlohmann::detail::json_sax_dom_parser<json> {
 public:
  DepthLimitedBuilder(json& target, std::size_t max_depth, const std::string& field)
      : json_sax_dom_parser(target, true), max_depth_(max_depth), field_(field) {}
  bool start_object(std::size_t size) {
    open();
    return json_sax_dom_parser::start_object(size);
  }
  bool end_object() {
    --depth_;
    return json_sax_dom_parser::end_object();
  }
  bool start_array(std::size_t size) {
    open();
    return json_sax_dom_parser::start_array(size);
  }
  bool end_array() {
    --depth_;
    return json_sax_dom_parser::end_array();
  }

 private:
  void open() {
    if (depth_ >= max_depth_) throw Error::too_deep(field_, max_depth_);
    ++depth_;
  }
  std::size_t max_depth_;
  const std::string& field_;
  std::size_t depth_ = 0;
};

}  // namespace

json parse_text(std::string_view text, std::size_t max_depth, const std::string& field) {
  using Input = nlohmann::detail::iterator_input_adapter<const char*>;
  json result;
  DepthLimitedBuilder builder(result, max_depth, field);
  nlohmann::detail::parser<json, Input>(Input(text.data(), text.data() + text.size()))
      .sax_parse(&builder, true);
  return result;
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
  auto it = object.find(std::string(key));
  if (it == object.end() || it->is_null()) return nullptr;
  return &*it;
}

void expect_object(const json& value, std::string_view field) {
  if (!value.is_object()) wrong_type(value, field, "an object");
}

std::int64_t as_int(const json& value, std::string_view field) {
  if (value.is_number_integer()) return value.get<std::int64_t>();
  if (value.is_number_unsigned()) {
    const auto u = value.get<std::uint64_t>();
    if (u > static_cast<std::uint64_t>(INT64_MAX)) {
      throw Error::out_of_range(std::string(field), value, INT64_MIN, INT64_MAX);
    }
    return static_cast<std::int64_t>(u);
  }
  if (value.is_number_float()) {
    const double v = value.get<double>();
    // Configs sometimes write integers as 4096.0; anything else is an error.
    if (std::isfinite(v) && std::floor(v) == v && std::fabs(v) < 9.0e15) {
      return static_cast<std::int64_t>(v);
    }
    throw Error::not_whole(std::string(field));
  }
  wrong_type(value, field, "a whole number");
}

double as_number(const json& value, std::string_view field) {
  if (!value.is_number()) wrong_type(value, field, "a number");
  const double v = value.get<double>();
  if (!std::isfinite(v)) throw Error::not_finite(std::string(field));
  return v;
}

std::int64_t get_int(const json& object, std::string_view key, std::string_view prefix) {
  const json* value = find(object, key);
  if (value == nullptr) missing(field_path(prefix, key));
  return as_int(*value, field_path(prefix, key));
}

std::optional<std::int64_t> opt_int(const json& object, std::string_view key,
                                    std::string_view prefix) {
  const json* value = find(object, key);
  if (value == nullptr) return std::nullopt;
  return as_int(*value, field_path(prefix, key));
}

double get_number(const json& object, std::string_view key, std::string_view prefix) {
  const json* value = find(object, key);
  if (value == nullptr) missing(field_path(prefix, key));
  return as_number(*value, field_path(prefix, key));
}

std::optional<double> opt_number(const json& object, std::string_view key,
                                 std::string_view prefix) {
  const json* value = find(object, key);
  if (value == nullptr) return std::nullopt;
  return as_number(*value, field_path(prefix, key));
}

std::string get_string(const json& object, std::string_view key, std::string_view prefix) {
  const json* value = find(object, key);
  if (value == nullptr) missing(field_path(prefix, key));
  if (!value->is_string()) wrong_type(*value, field_path(prefix, key), "a string");
  return value->get<std::string>();
}

std::optional<std::string> opt_string(const json& object, std::string_view key,
                                      std::string_view prefix) {
  const json* value = find(object, key);
  if (value == nullptr) return std::nullopt;
  if (!value->is_string()) wrong_type(*value, field_path(prefix, key), "a string");
  return value->get<std::string>();
}

std::optional<bool> opt_bool(const json& object, std::string_view key, std::string_view prefix) {
  const json* value = find(object, key);
  if (value == nullptr) return std::nullopt;
  if (!value->is_boolean()) {
    wrong_type(*value, field_path(prefix, key), "true or false");
  }
  return value->get<bool>();
}

std::vector<std::string> opt_strings(const json& object, std::string_view key,
                                     std::string_view prefix) {
  std::vector<std::string> out;
  const json* value = find(object, key);
  if (value == nullptr) return out;
  const std::string field = field_path(prefix, key);
  if (!value->is_array()) wrong_type(*value, field, "a list of strings");
  for (const json& item : *value) {
    if (!item.is_string()) wrong_type(item, field, "a list of strings");
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
