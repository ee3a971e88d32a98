#include "vram/field.hpp"

#include <algorithm>

#include "json_read.hpp"
#include "vram/error.hpp"

namespace vram {

using nlohmann::json;
namespace jr = json_read;

namespace {

json message(const char* id, json params = json::object()) {
  return obj({{"id", id}, {"params", std::move(params)}});
}

/** "between 1 and 100000000", "greater than 0 and at most 1": a message (range.*). */
json range_text(const FieldSpec& f) {
  if (f.min && f.max && !f.min_exclusive && !f.max_exclusive) {
    return message("range.between", obj({{"min", *f.min}, {"max", *f.max}}));
  }
  json low;
  json high;
  if (f.min) {
    low = message(f.min_exclusive ? "range.above" : "range.at_least", obj({{"min", *f.min}}));
  }
  if (f.max) {
    high = message(f.max_exclusive ? "range.below" : "range.at_most", obj({{"max", *f.max}}));
  }
  if (low.is_null()) return high;
  if (high.is_null()) return low;
  return message("range.both", obj({{"low", low}, {"high", high}}));
}

const char* wanted(FieldType type) {
  switch (type) {
    case FieldType::kInt:
      return "whole";
    case FieldType::kNumber:
      return "number";
    case FieldType::kBool:
      return "bool";
    case FieldType::kString:
    case FieldType::kEnum:
      return "string";
    case FieldType::kList:
      return "strings";
    case FieldType::kObject:
      return "object";
  }
  return "value";
}

[[noreturn]] void wrong_type(const std::string& path, FieldType type, const json& value) {
  throw Error::wrong_type(path, wanted(type), jr::type_name(value));
}

void check_choice(const FieldSpec& f, const std::string& item, const std::string& path) {
  // Catalog choices are checked where the id is resolved (unknown_model...).
  if (f.source != ChoiceSource::kNone || f.choices.empty()) return;
  if (std::find(f.choices.begin(), f.choices.end(), item) != f.choices.end()) return;
  throw Error::make("invalid_value", path, "error.choice",
                    obj({{"field", path}, {"choices", f.choices}, {"value", Error::quote(item)}}));
}

}  // namespace

const char* to_string(FieldType type) {
  switch (type) {
    case FieldType::kInt:
      return "int";
    case FieldType::kNumber:
      return "number";
    case FieldType::kBool:
      return "bool";
    case FieldType::kString:
      return "string";
    case FieldType::kEnum:
      return "enum";
    case FieldType::kList:
      return "list";
    case FieldType::kObject:
      return "object";
  }
  return "string";
}

const FieldSpec* find_field(const std::vector<FieldSpec>& fields, std::string_view name) {
  for (const FieldSpec& f : fields) {
    if (f.name == name) return &f;
  }
  return nullptr;
}

void check_value(const FieldSpec& f, const json& value, const std::string& path) {
  if (value.is_null()) wrong_type(path, f.type, value);
  double number = 0;
  // A number that may also be a word ("auto"): the word, or a number in range.
  const bool numeric = f.type == FieldType::kInt || f.type == FieldType::kNumber;
  if (numeric && !f.choices.empty() && value.is_string()) {
    const std::string item = value.get<std::string>();
    if (std::find(f.choices.begin(), f.choices.end(), item) != f.choices.end()) return;
    throw Error::make("invalid_value", path, "error.number_or_word",
                      obj({{"field", path},
                           {"expected", message((std::string("value.") + wanted(f.type)).c_str())},
                           {"range", range_text(f)},
                           {"word", f.choices.front()},
                           {"value", Error::quote(item)}}));
  }
  switch (f.type) {
    case FieldType::kInt:
      if (!value.is_number()) wrong_type(path, f.type, value);
      number = static_cast<double>(jr::as_int(value, path));
      break;
    case FieldType::kNumber:
      if (!value.is_number()) wrong_type(path, f.type, value);
      number = jr::as_number(value, path);
      break;
    case FieldType::kBool:
      if (!value.is_boolean()) wrong_type(path, f.type, value);
      return;
    case FieldType::kString:
      if (!value.is_string()) wrong_type(path, f.type, value);
      return;
    case FieldType::kEnum:
      if (!value.is_string()) wrong_type(path, f.type, value);
      check_choice(f, value.get<std::string>(), path);
      return;
    case FieldType::kList:
      if (!value.is_array()) wrong_type(path, f.type, value);
      if (value.empty()) {
        throw Error::make("invalid_value", path, "error.empty", obj({{"field", path}}));
      }
      for (const json& item : value) {
        if (!item.is_string()) wrong_type(path, f.type, value);
        check_choice(f, item.get<std::string>(), path);
      }
      return;
    case FieldType::kObject:
      if (!value.is_object()) wrong_type(path, f.type, value);
      return;
  }
  const bool low = f.min && (f.min_exclusive ? number <= *f.min : number < *f.min);
  const bool high = f.max && (f.max_exclusive ? number >= *f.max : number > *f.max);
  if (!low && !high) return;
  if (f.min && f.max && !f.min_exclusive && !f.max_exclusive) {
    throw Error::out_of_range(path, value, *f.min, *f.max);
  }
  throw Error::make("invalid_value", path, "error.range_open",
                    obj({{"field", path}, {"range", range_text(f)}, {"value", number}}));
}

}  // namespace vram
