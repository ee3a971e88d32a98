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

// One launch section (the engine's own, or one of its "also" entries) filled
// with the plan's values.
json section_json(const std::string& id, const json& l, const LaunchPlan& plan) {
  json args = json::array();
  std::string env;  // variables set before the program (Ollama's server settings)
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
    const bool is_env = f.contains("env") && f.at("env") == true;
    if (is_env) env += word(f.at("flag")) + "=" + word(value) + " ";
    args.push_back({{"flag", f.at("flag")}, {"value", value}, {"env", is_env}});
  }
  // An engine that downloads from the hub takes the preset's repository id;
  // otherwise (a GGUF file, an imported config) the engine's placeholder; a
  // server that names its model per request (Ollama) takes none.
  const bool hub = l.contains("hub_repo") && l.at("hub_repo") == true;
  const json& placeholder = l.at("model_placeholder");
  const json model = hub && !plan.model.empty() ? json(plan.model) : placeholder;
  std::string command = env;
  for (std::size_t i = 0; i < l.at("program").size(); ++i) {
    command += (i == 0 ? "" : " ") + word(l.at("program").at(i));
  }
  if (l.contains("model_flag") && !l.at("model_flag").is_null()) {
    command += " " + word(l.at("model_flag"));
  }
  if (!model.is_null()) command += " " + word(model);
  for (const json& a : args) {
    if (a.at("env") == false) command += " " + word(a.at("flag")) + " " + word(a.at("value"));
  }
  return {
      {"engine", id}, {"version", l.at("version")}, {"source", l.at("source")}, {"model", model},
      {"args", args}, {"command", command}};
}

}  // namespace

json launch_json(const EngineProfile& engine, const LaunchPlan& plan) {
  if (!engine.launch.is_object()) return nullptr;
  json out = section_json(engine.id, engine.launch, plan);
  // Other programs that run the same plan (Ollama over llama.cpp).
  if (engine.launch.contains("also")) {
    json also = json::array();
    for (const json& a : engine.launch.at("also")) {
      also.push_back(section_json(a.at("id").get<std::string>(), a, plan));
      also.back()["name"] = a.at("name");
    }
    out["also"] = also;
  }
  return out;
}

}  // namespace vram
