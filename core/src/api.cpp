#include "vram/api.hpp"

#include "estimate_json.hpp"
#include "json_read.hpp"
#include "tables.hpp"
#include "vram/error.hpp"

namespace vram {

using nlohmann::json;

Calculator::Calculator() : catalog_(Catalog::builtin()) {}
Calculator::Calculator(Catalog catalog) : catalog_(std::move(catalog)) {}

json Calculator::estimate(const json& request) const { return estimate_json(catalog_, request); }
json Calculator::grid(const json& request) const { return grid_json(catalog_, request); }
json Calculator::devices(const json& request) const { return devices_json(catalog_, request); }
json Calculator::fleet(const json& request) const { return fleet_json(catalog_, request); }

json Calculator::presets() const {
  json models = json::array();
  for (const ModelPreset& preset : catalog_.models) {
    models.push_back({{"id", preset.id},
                      {"name", preset.name},
                      {"group", preset.group},
                      {"family", preset.family},
                      {"aliases", preset.aliases},
                      {"source", preset.source},
                      {"placeholders", preset.placeholders}});
  }
  json engines = json::array();
  for (const EngineProfile& engine : catalog_.engines) {
    engines.push_back({{"id", engine.id},
                       {"name", engine.name},
                       {"kind", engine.kind},
                       {"source", engine.source},
                       {"defaults", engine.defaults},
                       {"option_sources", engine.option_sources}});
  }
  return json{{"models", models},
              {"weight_formats", catalog_.formats.weights()},
              {"kv_formats", catalog_.formats.kv_formats()},
              {"gpus", catalog_.gpus.gpus},
              {"engines", engines},
              {"links", catalog_.presets},
              {"data_versions", catalog_.data_versions}};
}

std::string call(const Calculator& calculator, std::string_view method,
                 std::string_view request_json) {
  auto error = [](const std::string& code, const std::string& field, const std::string& message) {
    return json{{"error", {{"code", code}, {"field", field}, {"message", message}}}}.dump();
  };
  try {
    json request = request_json.empty() ? json::object()
                                        : json::parse(request_json.begin(), request_json.end());
    if (method == "estimate") return calculator.estimate(request).dump();
    if (method == "presets") return calculator.presets().dump();
    if (method == "grid") return calculator.grid(request).dump();
    if (method == "devices") return calculator.devices(request).dump();
    if (method == "fleet") return calculator.fleet(request).dump();
    return error("unknown_method", "method", "unknown method '" + std::string(method) + "'");
  } catch (const Error& e) {
    return error(e.code(), e.field(), e.what());
  } catch (const json::parse_error& e) {
    return error("parse_error", "request",
                 std::string("the request is not valid JSON: ") + e.what());
  } catch (const std::exception& e) {
    return error("internal", "", std::string("internal error: ") + e.what());
  }
}

}  // namespace vram
