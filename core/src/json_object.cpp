#include "vram/json_object.hpp"

#include <utility>

namespace vram {

nlohmann::json obj(std::initializer_list<JsonField> fields) {
  nlohmann::json out = nlohmann::json::object();
  auto& members = out.get_ref<nlohmann::json::object_t&>();
  for (const JsonField& field : fields) members.emplace(field.key, std::move(field.value));
  return out;
}

}  // namespace vram
