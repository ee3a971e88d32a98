#include "request.hpp"

#include <algorithm>

#include "vram/error.hpp"
#include "vram/limits.hpp"
#include "vram/params.hpp"

namespace vram::request {

ImportedModel model(const Catalog& catalog, const EstimateRequest& request) {
  if (request.model && request.config) {
    throw Error("invalid_value", "model", "give either model (a preset id) or config, not both");
  }
  ImportedModel imported;
  if (request.config) {
    imported = import_hf_config(*request.config, "config");
    imported.model.id = "config";
    imported.model.name =
        request.name.empty() ? "config.json (" + imported.model.model_type + ")" : request.name;
    imported.model.source = "config.json supplied by the user";
  } else {
    if (!request.model)
      throw Error("missing_field", "model", "model (a preset id) or config is required");
    imported = resolve_preset(catalog.model(*request.model, "model"));
  }
  if (request.params_total) {
    // A total below the input embedding alone would leave a negative rest
    // (llama.cpp's model buffer keeps the embedding on the host).
    const double embedding = count_params(imported.model).embedding;
    const double total = *request.params_total;
    if (!(total >= std::max(1.0, embedding) && total <= limits::kMaxParams)) {
      throw Error::out_of_range("params_total", total, std::max(1.0, embedding),
                                limits::kMaxParams);
    }
    imported.model.declared_params_total = total;
  }
  if (request.params_active) imported.model.declared_params_active = *request.params_active;
  return imported;
}

}  // namespace vram::request
