#include "vram/launch.hpp"

#include <algorithm>

#include "vram/error.hpp"
#include "vram/message.hpp"

namespace vram {

using nlohmann::json;

namespace {

// The plan value a flag carries, or null when the flag is not needed.
json carried(const std::string& what, const LaunchPlan& p) {
  if (what == "tensor_parallel") return p.tensor_parallel;
  if (what == "pipeline_parallel") return p.pipeline_parallel;
  if (what == "data_parallel") return p.data_parallel;
  if (what == "expert_parallel") return p.expert_parallel;
  // SGLang's --tp counts every card of a stage; attention runs on --tp / --dp of them.
  if (what == "moe_group") return p.tensor_parallel * p.data_parallel;
  if (what == "expert_parallel_size") {
    return p.expert_parallel ? p.tensor_parallel * p.data_parallel : 1;
  }
  if (what == "dp_attention") return p.data_parallel > 1;
  if (what == "context") return p.context;
  if (what == "batch") return p.batch;
  // SGLang gives each attention data-parallel rank max_running_requests // dp: the users a rank
  // serves, rounded up, times the ranks.
  if (what == "running_requests") {
    const std::int64_t dp = std::max(1, p.data_parallel);
    return (p.batch + dp - 1) / dp * dp;
  }
  if (what == "total_context") return p.context * p.batch;
  if (what == "gpu_layers") return p.gpu_layers >= 0 ? p.gpu_layers : p.layers + 1;
  if (what == "n_cpu_moe") return p.n_cpu_moe;
  if (what == "tensor_split") return p.tensor_split.empty() ? json() : json(p.tensor_split);
  if (what == "devices") return p.devices.empty() ? json() : json(p.devices);
  if (what == "kv") return p.kv;
  // Speculative decoding: whether there is a draft model, its repository (or the EAGLE-3
  // head's), who drafts (a draft model, the model's MTP layers or an EAGLE-3 head: SGLang's
  // algorithm), and vLLM's JSON for it.
  if (what == "draft") return p.draft;
  const bool speculating = p.draft || p.mtp || p.eagle;
  if (what == "speculative") return speculating;
  if (what == "speculative_algorithm") {
    return p.draft ? json("STANDALONE") : p.mtp ? json("EAGLE") : p.eagle ? json("EAGLE3") : json();
  }
  if (what == "draft_repo") return p.draft || p.eagle ? json(p.draft_repo) : json();
  if (what == "draft_tokens") return speculating ? json(p.draft_tokens) : json();
  if (what == "speculative_config") {
    if (!speculating) return json();
    const json config =
        p.mtp     ? obj({{"method", "mtp"}, {"num_speculative_tokens", p.draft_tokens}})
        : p.eagle ? obj({{"method", "eagle3"},
                         {"model", p.draft_repo},
                         {"num_speculative_tokens", p.draft_tokens}})
                  : obj({{"model", p.draft_repo}, {"num_speculative_tokens", p.draft_tokens}});
    return "'" + config.dump() + "'";
  }
  // A vision model's images: whether there are any, and vLLM's per-prompt limit as JSON.
  if (what == "images") return p.images > 0;
  if (what == "limit_mm_per_prompt") {
    if (p.images <= 0) return json();
    return "'" + obj({{"image", p.images}}).dump() + "'";
  }
  // A tower of any resolution: the processor's pixel bounds, as vLLM's --mm-processor-kwargs.
  if (what == "mm_processor_kwargs") {
    if (p.images <= 0 || p.image_max_pixels <= 0) return json();
    return "'" +
           obj({{"max_pixels", p.image_max_pixels}, {"min_pixels", p.image_min_pixels}}).dump() +
           "'";
  }
  if (what == "weights") return p.weights;
  if (what == "share") return p.share > 0 ? json(p.share) : json();
  // Whether a knob is on: a switch, or a count above 0 (LoRA's max_loras).
  const std::string on = "option_on:";
  if (what.rfind(on, 0) == 0) {
    const std::string key = what.substr(on.size());
    if (!p.options.contains(key)) return false;
    const json& v = p.options.at(key);
    return v.is_boolean() ? v.get<bool>() : v.is_number() && v.get<double>() > 0;
  }
  // A knob the request set itself (a number, not "auto"): the engine picks the rest.
  const std::string asked = "asked:";
  if (what.rfind(asked, 0) == 0) {
    const std::string key = what.substr(asked.size());
    return p.asked.contains(key) && p.asked.at(key).is_number() ? p.asked.at(key) : json();
  }
  const std::string option = "option:";
  if (what.rfind(option, 0) == 0) {
    const std::string key = what.substr(option.size());
    return p.options.contains(key) ? p.options.at(key) : json();
  }
  throw Error::make("internal", "engines.launch", "error.launch_value", obj({{"value", what}}));
}

std::string word(const json& v) { return v.is_string() ? v.get<std::string>() : v.dump(); }

// A flag the model itself needs (its preset's "launch" for this engine, data/models.json).
json model_arg(const json& f) {
  const json& v = f.contains("value") ? f.at("value") : json(true);
  json value = v.is_structured() ? json("'" + v.dump() + "'") : v;
  json arg = obj({{"flag", f.at("flag")}, {"value", value}, {"env", false}, {"model", true}});
  if (f.value("switch", false)) arg["switch"] = true;
  return arg;
}

// One launch section (the engine's own, its companion's, or one of its "also" entries) filled
// with the plan's values, after the model's own flags.
json section_json(const std::string& id, const json& l, const LaunchPlan& plan,
                  const json& model_flags = json::array()) {
  json args = json::array();
  std::string env;  // variables set before the program (Ollama's server settings)
  // The model's own flags come first; one the engine's section also writes is the model's
  // ("omit": the model runs without it).
  auto model_has = [&model_flags](const json& flag) {
    for (const json& f : model_flags) {
      if (f.at("flag") == flag) return true;
    }
    return false;
  };
  for (const json& f : model_flags) {
    if (!f.value("omit", false)) args.push_back(model_arg(f));
  }
  for (const json& f : l.at("flags")) {
    if (model_has(f.at("flag"))) continue;
    // A flag that belongs to a feature ("when") is written only with it on.
    if (f.contains("when") && carried(f.at("when").get<std::string>(), plan) != true) continue;
    // A fixed value ("value"), or the plan's.
    json value =
        f.contains("value") ? f.at("value") : carried(f.at("carries").get<std::string>(), plan);
    if (value.is_null()) continue;
    if (f.contains("values")) {
      // An id of ours, worded as the engine spells it; absent: the engine's default.
      const std::string key = value.is_boolean() ? value.dump() : word(value);
      if (!f.at("values").contains(key)) continue;
      value = f.at("values").at(key);
    }
    if (f.contains("default") && f.at("default") == value) continue;
    // A switch is written alone, and only when on.
    const bool is_switch = f.value("switch", false);
    if (is_switch && value != true) continue;
    const bool is_env = f.contains("env") && f.at("env") == true;
    if (is_env) env += word(f.at("flag")) + "=" + word(value) + " ";
    args.push_back(obj({{"flag", f.at("flag")}, {"value", value}, {"env", is_env}}));
    if (is_switch) args.back()["switch"] = true;
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
    if (a.at("env") == true) continue;
    command += " " + word(a.at("flag"));
    if (!a.contains("switch")) command += " " + word(a.at("value"));
  }
  json out = obj({{"engine", id},
                  {"version", l.at("version")},
                  {"source", l.at("source")},
                  {"args", args},
                  {"command", command}});
  if (!model.is_null()) out["model"] = model;  // Ollama's server names none
  // A program with no server setting for a partial offload says how to get it.
  if (plan.gpu_layers >= 0 && l.contains("offload")) {
    const json& offload = l.at("offload");
    out["notes"] = json::array(
        {Message{plan.n_cpu_moe > 0 ? "launch.note_offload_experts" : "launch.note_offload_layers",
                 obj({{"name", l.at("name")},
                      {"option", Message{"quote.text", obj({{"text", offload.at("option")}})}},
                      {"layers", plan.gpu_layers},
                      {"n_cpu_moe", plan.n_cpu_moe}})}});
  }
  return out;
}

}  // namespace

json launch_json(const EngineProfile& engine, const LaunchPlan& plan) {
  if (!engine.launch.is_object()) return nullptr;
  json out = section_json(engine.id, engine.launch, plan, plan.model_flags);
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

json companion_launch_json(const EngineProfile& engine, const LaunchPlan& plan) {
  if (!engine.launch.is_object() || !engine.launch.contains("companion")) return nullptr;
  json section = engine.launch;
  for (const auto& [key, value] : engine.launch.at("companion").items()) section[key] = value;
  section.erase("companion");
  section.erase("also");
  section.erase("offload");
  return section_json(engine.id, section, plan, plan.model_flags);
}

namespace {

// A JSON value written as Python source: {"expr": "..."} as written, strings
// quoted, True/False/None, lists and dicts.
std::string python(const json& v) {
  if (v.is_object() && v.size() == 1 && v.contains("expr")) return v.at("expr").get<std::string>();
  if (v.is_boolean()) return v.get<bool>() ? "True" : "False";
  if (v.is_null()) return "None";
  if (v.is_string()) return v.dump();  // JSON's escapes are Python's for these strings
  std::string out;
  if (v.is_array()) {
    for (const json& item : v) out += (out.empty() ? "" : ", ") + python(item);
    return "[" + out + "]";
  }
  if (v.is_object()) {
    for (const auto& [key, item] : v.items()) {
      out += (out.empty() ? "" : ", ") + json(key).dump() + ": " + python(item);
    }
    return "{" + out + "}";
  }
  return v.dump();
}

json training_value(const json& f, const FinetuneSetup& s) {
  const std::string what = f.at("carries").get<std::string>();
  if (what == "constant") return f.at("value");
  if (what == "model_dtype") {
    // FP32 weights for a full fine-tune in mixed precision; a frozen base is BF16.
    return s.method == FinetuneMethod::kFull && s.precision == Precision::kMixed ? "float32"
                                                                                 : "bfloat16";
  }
  if (what == "flash_attention") return s.flash_attention;
  if (what == "mode") return to_string(s.method);
  if (what == "checkpointing") return s.checkpointing;
  if (what == "lora_rank") return s.lora_rank;
  if (what == "lora_targets") return s.lora_targets;
  if (what == "micro_batch") return s.micro_batch;
  if (what == "seq") return s.seq;
  if (what == "optimizer") return to_string(s.optimizer);
  if (what == "loss") return to_string(s.loss);
  if (what == "zero") {
    if (s.zero == 0 && !s.offload_optimizer) return nullptr;
    json zero = obj({{"stage", s.zero}});
    if (s.offload_optimizer) zero["offload_optimizer"] = obj({{"device", "cpu"}});
    return obj({{"zero_optimization", zero}});
  }
  throw Error::make("internal", "engines.training_launch", "error.launch_training_value",
                    obj({{"value", what}}));
}

bool applies(const json& call, const FinetuneSetup& s) {
  if (!call.contains("when")) return true;
  const std::string when = call.at("when").get<std::string>();
  const bool adapter = s.method != FinetuneMethod::kFull;
  if (when == "adapter") return adapter;
  if (when == "upcast") return s.method == FinetuneMethod::kQlora && s.upcast_unquantized;
  if (when == "adapter_bf16") return adapter && s.precision == Precision::kBf16;
  throw Error::make("internal", "engines.training_launch", "error.launch_condition",
                    obj({{"condition", when}}));
}

}  // namespace

json training_launch_json(const json& section, const FinetuneSetup& plan) {
  json args = json::array();
  std::string command;
  std::string model;
  for (const json& call : section.at("calls")) {
    if (!applies(call, plan)) continue;
    std::vector<std::string> parts;
    if (call.value("model_arg", false)) {
      model = plan.model->repo.empty() ? call.at("model_placeholder").get<std::string>()
                                       : plan.model->repo;
      parts.push_back(json(model).dump());
    }
    if (call.contains("positional")) parts.push_back(call.at("positional").get<std::string>());
    for (const json& f : call.at("flags")) {
      json value = training_value(f, plan);
      if (value.is_null()) continue;
      if (f.contains("values")) {
        // An id of ours, spelled as the library spells it; absent: the library's default.
        const std::string key = value.is_boolean() ? value.dump() : word(value);
        if (!f.at("values").contains(key)) continue;
        value = f.at("values").at(key);
      }
      args.push_back(obj({{"call", call.at("call")}, {"flag", f.at("flag")}, {"value", value}}));
      parts.push_back(f.at("flag").get<std::string>() + "=" + python(value));
    }
    std::string line =
        call.at("target").get<std::string>() + " = " + call.at("call").get<std::string>() + "(";
    for (std::size_t i = 0; i < parts.size(); ++i) line += (i == 0 ? "" : ", ") + parts[i];
    command += (command.empty() ? "" : "\n") + line + ")";
  }
  json out = obj({{"engine", section.at("id")},
                  {"name", section.at("name")},
                  {"version", section.at("version")},
                  {"source", section.at("source")},
                  {"model", model},
                  {"args", args},
                  {"command", command}});
  // What the calls cannot say: the Trainer's "sgd" has no momentum, and
  // TRL has no chunked loss (torchtune's CEWithChunkedOutputLoss has).
  json notes = json::array();
  if (plan.optimizer == Optimizer::kSgd && plan.momentum > 0) {
    const std::string sgd = "optimizers=(torch.optim.SGD(model.parameters(), lr=..., momentum=" +
                            json(plan.momentum).dump() + "), None)";
    notes.push_back(
        Message{"launch.note_sgd_momentum",
                obj({{"momentum", plan.momentum},
                     {"option", Message{"quote.text", obj({{"text", "optim=\"sgd\""}})}},
                     {"code", Message{"quote.text", obj({{"text", sgd}})}}})});
  }
  if (plan.loss == Loss::kChunked) {
    notes.push_back(Message{
        "launch.note_chunked_loss",
        obj({{"name", Message{"quote.text", obj({{"text", "CEWithChunkedOutputLoss"}})}}})});
  }
  out["notes"] = notes;
  if (plan.gpus > 1) {
    const json& l = section.at("launcher");
    std::string launcher;
    for (const json& w : l.at("program")) launcher += word(w) + " ";
    launcher += word(l.at("flag")) + " " + std::to_string(plan.gpus) + " " + word(l.at("script"));
    out["launcher"] = launcher;
    out["launcher_gpus"] = plan.gpus;
  }
  return out;
}

}  // namespace vram
