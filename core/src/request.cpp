#include "request.hpp"

#include <algorithm>

#include "json_read.hpp"
#include "vram/error.hpp"
#include "vram/limits.hpp"
#include "vram/params.hpp"

namespace vram::request {

namespace jr = json_read;

void reject_unknown_keys(const json& request, std::initializer_list<const char*> allowed,
                         const std::string& prefix) {
  for (auto it = request.begin(); it != request.end(); ++it) {
    const bool known = std::any_of(allowed.begin(), allowed.end(),
                                   [&](const char* key) { return it.key() == key; });
    if (!known) {
      std::string list;
      for (const char* key : allowed) list += (list.empty() ? "" : ", ") + std::string(key);
      const std::string field = jr::field_path(prefix, it.key());
      throw Error("unknown_field", field,
                  "unknown field '" + Error::quote(field) + "' (expected one of: " + list + ")");
    }
    // JSON null (what JSON.stringify makes of NaN and Infinity) is no value:
    // never a silent fall back to the default.
    if (it->is_null()) throw Error::wrong_type(jr::field_path(prefix, it.key()), "a value", "null");
  }
}

ImportedModel model(const Catalog& catalog, const json& request) {
  const json* id = jr::find(request, "model");
  const json* config = jr::find(request, "config");
  if (id != nullptr && config != nullptr) {
    throw Error("invalid_value", "model", "give either model (a preset id) or config, not both");
  }
  // A GGUF checkpoint carries its own config (checkpoint.hpp).
  const json* checkpoint = jr::find(request, "checkpoint");
  const json* own =
      checkpoint != nullptr && checkpoint->is_object() ? jr::find(*checkpoint, "config") : nullptr;
  if (own != nullptr && (id != nullptr || config != nullptr)) {
    throw Error("invalid_value", "checkpoint.config",
                "the checkpoint carries its own config: drop model and config");
  }
  ImportedModel imported;
  if (own != nullptr) {
    imported = import_hf_config(*own, "checkpoint.config");
    const std::string name = jr::opt_string(request, "name", "").value_or("");
    imported.model.id = "checkpoint";
    imported.model.name = name.empty() ? "checkpoint (" + imported.model.model_type + ")" : name;
    imported.model.source = "the checkpoint's own header, supplied by the user";
  } else if (config != nullptr) {
    imported = import_hf_config(*config, "config");
    const std::string name = jr::opt_string(request, "name", "").value_or("");
    imported.model.id = "config";
    imported.model.name = name.empty() ? "config.json (" + imported.model.model_type + ")" : name;
    imported.model.source = "config.json supplied by the user";
  } else {
    if (id == nullptr)
      throw Error("missing_field", "model", "model (a preset id) or config is required");
    if (!id->is_string()) throw Error("wrong_type", "model", "model must be a preset id string");
    imported = resolve_preset(catalog.model(id->get<std::string>(), "model"));
  }
  if (auto total = jr::opt_number(request, "params_total", "")) {
    jr::require_positive(*total, "params_total");
    // A total below the input embedding alone would leave a negative rest
    // (llama.cpp's model buffer keeps the embedding on the host).
    const double embedding = count_params(imported.model).embedding;
    jr::require_range(*total, std::max(1.0, embedding), limits::kMaxParams, "params_total");
    imported.model.declared_params_total = *total;
  }
  if (auto active = jr::opt_number(request, "params_active", "")) {
    jr::require_positive(*active, "params_active");
    jr::require_range(*active, 1.0, limits::kMaxParams, "params_active");
    imported.model.declared_params_active = *active;
  }
  return imported;
}

std::int64_t positive_int(const json& request, const char* key, std::int64_t fallback,
                          std::int64_t max) {
  const auto value = jr::opt_int(request, key, "").value_or(fallback);
  if (value < 1) {
    throw Error("invalid_value", key,
                std::string(key) + " must be at least 1, not " + std::to_string(value));
  }
  if (value > max) {
    throw Error("invalid_value", key,
                std::string(key) + " must be at most " + std::to_string(max) + ", not " +
                    std::to_string(value));
  }
  return value;
}

}  // namespace vram::request
