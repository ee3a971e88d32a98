#include "vram/api.hpp"

#include "estimate_json.hpp"
#include "json_read.hpp"
#include "tables.hpp"
#include "vram/checkpoint.hpp"
#include "vram/engine_log.hpp"
#include "vram/engine_rules.hpp"
#include "vram/error.hpp"
#include "vram/inference.hpp"
#include "vram/inverse.hpp"
#include "vram/json_object.hpp"
#include "vram/limits.hpp"
#include "vram/schema.hpp"

namespace vram {

using nlohmann::json;

Calculator::Calculator() : catalog_(Catalog::builtin()) {}
Calculator::Calculator(Catalog catalog) : catalog_(std::move(catalog)) {}

json Calculator::estimate(const json& request) const { return estimate_json(catalog_, request); }
json Calculator::grid(const json& request) const { return grid_json(catalog_, request); }
json Calculator::devices(const json& request) const { return devices_json(catalog_, request); }
json Calculator::fleet(const json& request) const { return fleet_json(catalog_, request); }
json Calculator::curve(const json& request) const { return curve_json(catalog_, request); }
json Calculator::log(const json& request) const { return log_answer(catalog_, request); }
json Calculator::fit_models(const json& request) const {
  return fit_models_json(catalog_, request);
}

json Calculator::presets() const {
  json models = json::array();
  for (const ModelPreset& preset : catalog_.models) {
    json entry = obj({{"id", preset.id},
                      {"name", preset.name},
                      {"group", preset.group},
                      {"task", preset.task.empty() ? "generate" : preset.task},
                      {"family", preset.family},
                      {"aliases", preset.aliases},
                      {"source", preset.source},
                      {"repo", preset.repo},
                      {"placeholders", preset.placeholders}});
    // A checkpoint stored quantized: its own bits per parameter, and the
    // formats every answer sizes it as stored in, as wider than that
    // (inference.hpp no_wider_than_stored), for the page's weights picker.
    if (const std::optional<double> bits = stored_bits(catalog_, preset)) {
      entry["native_bits"] = *bits;
      const ImportedModel imported = catalog_.resolve(preset);
      json wider = json::array();
      for (const WeightFormat& format : catalog_.formats.weights()) {
        if (no_wider_than_stored(imported.model, &format, catalog_.formats) == nullptr)
          wider.push_back(format.id);
      }
      entry["as_stored_for"] = std::move(wider);
    }
    // A vision tower whose image tokens the config gives: the page offers images.
    const ModelSpec resolved = catalog_.resolve(preset).model;
    if (resolved.vision.present() && resolved.vision.tokens_per_image > 0) {
      entry["image_tokens"] = resolved.vision.tokens_per_image;
    }
    // A tower that takes any resolution: the page offers images and their size (image_size).
    if (resolved.vision.present() && resolved.vision.dynamic) entry["image_dynamic"] = true;
    // Multi-token-prediction layers of its own: the page offers them as the drafter.
    if (resolved.mtp_layers > 0) entry["mtp_layers"] = resolved.mtp_layers;
    // An EAGLE-3 head published for it: the page offers it as the drafter.
    if (preset.eagle3.present()) entry["eagle3"] = preset.eagle3.repo;
    models.push_back(std::move(entry));
  }
  json engines = json::array();
  for (const EngineProfile& engine : catalog_.engines) {
    // The weight formats the engine loads (engine_runs): the page moves the
    // weights to one of them when the engine changes.
    json loads = json::array();
    for (const WeightFormat& format : catalog_.formats.weights()) {
      if (engine_runs(engine, format)) loads.push_back(format.id);
    }
    engines.push_back(obj(
        {{"id", engine.id},
         {"name", engine.name},
         {"label", engine.label()},
         {"kind", engine.kind()},
         {"source", engine.source},
         {"defaults", engine.defaults},
         {"option_sources", engine.option_sources},
         {"loads", std::move(loads)},
         // Takes unequal cards ("split_gpus"): a layer split that offloads.
         {"split_gpus", std::string(engine.rules->split) == "layer" && engine.rules->offloads}}));
  }
  return obj({{"models", models},
              {"weight_formats", catalog_.formats.weights()},
              {"kv_formats", catalog_.formats.kv_formats()},
              {"gpus", catalog_.gpus.gpus},
              {"engines", engines},
              {"links", catalog_.presets},
              {"data_versions", catalog_.data_versions}});
}

json Calculator::schema() const { return schema_json(catalog_); }

json parse_json(std::string_view text, const std::string& field) {
  if (text.size() > limits::kMaxRequestBytes) {
    throw Error::too_large(field, text.size(), limits::kMaxRequestBytes);
  }
  // Depth is checked as each object or list opens, so nothing deeper than
  // the limit is ever built (nlohmann's parser itself does not recurse).
  try {
    return json_read::parse_text(text, limits::kMaxJsonDepth, field);
  } catch (const Error&) {
    throw;
  } catch (const json::parse_error& e) {
    // Where the text stops being JSON, as a byte offset: words in every language.
    throw Error::make("parse_error", field, "error.parse",
                      obj({{"field", field}, {"byte", e.byte}}));
  } catch (const json::exception&) {
    // out_of_range, for numbers such as 1e400.
    throw Error::make("parse_error", field, "error.json_number", obj({{"field", field}}));
  }
}

namespace {

std::string dump(const json& value) {
  // Replacement characters for any invalid UTF-8 that came in: never a throw.
  return dump_json(value);
}

std::string dispatch(const Calculator& calculator, std::string_view method,
                     std::string_view request_json) {
  const json request = request_json.empty() ? json::object() : parse_json(request_json, "request");
  if (method == "estimate") return dump(calculator.estimate(request));
  if (method == "presets") return dump(calculator.presets());
  if (method == "schema") return dump(calculator.schema());
  if (method == "grid") return dump(calculator.grid(request));
  if (method == "devices") return dump(calculator.devices(request));
  if (method == "fleet") return dump(calculator.fleet(request));
  if (method == "fit_models") return dump(calculator.fit_models(request));
  if (method == "log") return dump(calculator.log(request));
  if (method == "curve") return dump(calculator.curve(request));
  // A checkpoint's files, checked and summed as estimate would take them.
  if (method == "checkpoint") return dump(checkpoint_summary(checkpoint_from_json(request)));
  throw Error::make("unknown_method", "method", "error.unknown_method",
                    obj({{"method", Error::quote(method)}}));
}

}  // namespace

std::string call(const Calculator& calculator, std::string_view method,
                 std::string_view request_json) noexcept {
  return guarded("request", [&] { return dispatch(calculator, method, request_json); });
}

}  // namespace vram
