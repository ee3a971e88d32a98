#include "request.hpp"

#include <algorithm>

#include "vram/error.hpp"
#include "vram/limits.hpp"
#include "vram/params.hpp"

namespace vram::request {

ImportedModel model(const Catalog& catalog, const EstimateRequest& request) {
  if (request.model && request.config) {
    throw Error::make("invalid_value", "model", "error.model_or_config", nlohmann::json::object());
  }
  // A GGUF checkpoint carries its own config (checkpoint.hpp).
  const nlohmann::json* own =
      request.checkpoint && request.checkpoint->is_object()
          ? (request.checkpoint->contains("config") ? &request.checkpoint->at("config") : nullptr)
          : nullptr;
  if (own != nullptr && (request.model || request.config)) {
    throw Error::make("invalid_value", "checkpoint.config", "error.checkpoint_own_config",
                      nlohmann::json::object());
  }
  ImportedModel imported;
  if (own != nullptr) {
    imported = import_hf_config(*own, "checkpoint.config");
    imported.model.id = "checkpoint";
    // Names and sources in Latin names and field paths only, no English word:
    // the same text in every language (docs/i18n.md, "What stays Latin").
    imported.model.name =
        request.name.empty() ? "GGUF (" + imported.model.model_type + ")" : request.name;
    imported.model.source = "checkpoint.config";
  } else if (request.config) {
    imported = import_hf_config(*request.config, "config");
    imported.model.id = "config";
    imported.model.name =
        request.name.empty() ? "config.json (" + imported.model.model_type + ")" : request.name;
    imported.model.source = "config";
  } else {
    if (!request.model)
      throw Error::make("missing_field", "model", "error.model_missing", nlohmann::json::object());
    imported = catalog.resolve(catalog.model(*request.model, "model"));
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

namespace {

/** The engine profile `id` names, or null (find_engine names an unknown one later). */
const EngineProfile* profile_named(const Catalog& catalog, const std::string& id) {
  for (const EngineProfile& e : catalog.engines) {
    if (e.id == id) return &e;
  }
  return nullptr;
}

/** The overhead convention whose knob `knob` is (overhead_gb: the guide's flat amount). */
const EngineProfile* convention_with(const Catalog& catalog, const char* knob) {
  for (const EngineProfile& e : catalog.engines) {
    if (e.convention() && e.defaults.contains(knob)) return &e;
  }
  return nullptr;
}

}  // namespace

EngineChoice engine(const Catalog& catalog, const EstimateRequest& req) {
  EngineChoice choice;
  if (req.overhead_gb && req.overhead_pct)
    throw Error::make("invalid_value", "overhead_gb", "error.not_both",
                      obj({{"first", "overhead_gb"}, {"second", "overhead_pct"}}));
  const EngineProfile* named = profile_named(catalog, req.engine);
  const bool convention = named != nullptr && named->convention();
  if ((req.overhead_gb || req.overhead_pct) && req.engine_given && !convention) {
    throw Error::make("invalid_value", req.overhead_gb ? "overhead_gb" : "overhead_pct",
                      "error.overhead_engine", nlohmann::json::object());
  }
  // overhead_gb and overhead_pct are the conventions' knobs, given at the
  // top level: the convention that has the knob, checked by the same
  // limits, under their own names.
  std::string id = req.engine;
  nlohmann::json top = nlohmann::json::object();
  const char* knob = req.overhead_gb ? "overhead_gb" : req.overhead_pct ? "overhead_pct" : nullptr;
  if (knob != nullptr) {
    if (const EngineProfile* owner = convention_with(catalog, knob)) id = owner->id;
    top[knob] = req.overhead_gb ? *req.overhead_gb : *req.overhead_pct;
  }
  choice.profile = &find_engine(catalog.engines, id, "engine");
  choice.options = engine_options(*choice.profile, top, "");
  nlohmann::json given = engine_options(*choice.profile, req.engine_options);
  for (auto it = req.engine_options.begin(); it != req.engine_options.end(); ++it)
    choice.options[it.key()] = given.at(it.key());
  return choice;
}

}  // namespace vram::request
