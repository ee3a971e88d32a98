#include "vram/launch.hpp"

#include "vram/error.hpp"

namespace vram {

using nlohmann::json;

namespace {

// The plan value a flag carries, or null when the flag is not needed.
json carried(const std::string& what, const LaunchPlan& p) {
  if (what == "tensor_parallel") return p.tensor_parallel;
  if (what == "pipeline_parallel") return p.pipeline_parallel;
  if (what == "context") return p.context;
  if (what == "batch") return p.batch;
  if (what == "total_context") return p.context * p.batch;
  if (what == "gpu_layers") return p.layers + 1;
  if (what == "kv") return p.kv;
  if (what == "weights") return p.weights;
  const std::string option = "option:";
  if (what.rfind(option, 0) == 0) {
    const std::string key = what.substr(option.size());
    return p.options.contains(key) ? p.options.at(key) : json();
  }
  throw Error("internal", "engines.launch", "unknown launch value '" + what + "'");
}

std::string word(const json& v) { return v.is_string() ? v.get<std::string>() : v.dump(); }

}  // namespace

json launch_json(const EngineProfile& engine, const LaunchPlan& plan) {
  if (!engine.launch.is_object()) return nullptr;
  const json& l = engine.launch;
  json args = json::array();
  for (const json& f : l.at("flags")) {
    json value = carried(f.at("carries").get<std::string>(), plan);
    if (value.is_null()) continue;
    if (f.contains("values")) {
      // An id of ours, worded as the engine spells it; absent: the engine's default.
      const std::string key = value.is_boolean() ? value.dump() : word(value);
      if (!f.at("values").contains(key)) continue;
      value = f.at("values").at(key);
    }
    if (f.contains("default") && f.at("default") == value) continue;
    args.push_back({{"flag", f.at("flag")}, {"value", value}});
  }
  // An engine that downloads from the hub takes the preset's repository id;
  // otherwise (a GGUF file, an imported config) the engine's placeholder.
  const bool hub = l.contains("hub_repo") && l.at("hub_repo") == true;
  const std::string model =
      hub && !plan.model.empty() ? plan.model : l.at("model_placeholder").get<std::string>();
  std::string command;
  for (const json& w : l.at("program")) command += (command.empty() ? "" : " ") + word(w);
  if (l.contains("model_flag") && !l.at("model_flag").is_null()) {
    command += " " + word(l.at("model_flag"));
  }
  command += " " + model;
  for (const json& a : args) command += " " + word(a.at("flag")) + " " + word(a.at("value"));
  return {{"engine", engine.id},
          {"version", l.at("version")},
          {"source", l.at("source")},
          {"model", model},
          {"args", args},
          {"command", command}};
}

}  // namespace vram
