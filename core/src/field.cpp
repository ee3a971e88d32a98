#include "vram/field.hpp"

#include <algorithm>

#include "json_read.hpp"
#include "vram/error.hpp"

namespace vram {

using nlohmann::json;
namespace jr = json_read;

namespace {

[[noreturn]] void invalid(const std::string& path, const std::string& message) {
  throw Error("invalid_value", path, path + " " + message);
}

/** "between 1 and 100000000", "greater than 0 and at most 1". */
std::string range_text(const FieldSpec& f) {
  std::string out;
  if (f.min && f.max && !f.min_exclusive && !f.max_exclusive) {
    return "between " + jr::number_text(*f.min) + " and " + jr::number_text(*f.max);
  }
  if (f.min) out += (f.min_exclusive ? "greater than " : "at least ") + jr::number_text(*f.min);
  if (f.max) {
    out += out.empty() ? "" : " and ";
    out += (f.max_exclusive ? "less than " : "at most ") + jr::number_text(*f.max);
  }
  return out;
}

const char* wanted(FieldType type) {
  switch (type) {
    case FieldType::kInt:
      return "a whole number";
    case FieldType::kNumber:
      return "a number";
    case FieldType::kBool:
      return "true or false";
    case FieldType::kString:
    case FieldType::kEnum:
      return "a string";
    case FieldType::kList:
      return "a list of strings";
    case FieldType::kObject:
      return "an object";
  }
  return "a value";
}

[[noreturn]] void wrong_type(const std::string& path, FieldType type, const json& value) {
  throw Error::wrong_type(path, wanted(type), jr::type_name(value));
}

void check_choice(const FieldSpec& f, const std::string& item, const std::string& path) {
  // Catalog choices are checked where the id is resolved (unknown_model...).
  if (f.source != ChoiceSource::kNone || f.choices.empty()) return;
  if (std::find(f.choices.begin(), f.choices.end(), item) != f.choices.end()) return;
  std::string known;
  for (const std::string& c : f.choices) known += (known.empty() ? "" : ", ") + c;
  invalid(path, "must be one of " + known + ", not '" + Error::quote(item) + "'");
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
    invalid(path, std::string("must be ") + wanted(f.type) + " " + range_text(f) + " or '" +
                      f.choices.front() + "', not '" + Error::quote(item) + "'");
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
      if (value.empty()) invalid(path, "must not be empty");
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
  invalid(path, "must be " + range_text(f) + ", not " + jr::number_text(number));
}

}  // namespace vram
