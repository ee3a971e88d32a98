#include "vram/schema.hpp"

#include <algorithm>
#include <cmath>
#include <iterator>

#include "json_read.hpp"
#include "vram/catalog.hpp"
#include "vram/error.hpp"
#include "vram/finetune.hpp"
#include "vram/hf_config.hpp"
#include "vram/limits.hpp"

namespace vram {

using nlohmann::json;
namespace jr = json_read;

namespace {

// --- building the tables ------------------------------------------------------

FieldSpec field(std::string name, FieldType type, json fallback, unsigned modes = kAnyMode) {
  FieldSpec f;
  f.help = "help." + name;
  f.name = std::move(name);
  f.type = type;
  f.default_value = std::move(fallback);
  f.modes = modes;
  return f;
}

FieldSpec ranged(std::string name, FieldType type, json fallback, double min, double max,
                 std::string unit, unsigned modes = kAnyMode) {
  FieldSpec f = field(std::move(name), type, std::move(fallback), modes);
  f.min = min;
  f.max = max;
  f.unit = std::move(unit);
  return f;
}

template <std::size_t N>
std::vector<std::string> names(const char* const (&list)[N]) {
  return {std::begin(list), std::end(list)};
}

FieldSpec choice(std::string name, json fallback, std::vector<std::string> choices,
                 ChoiceSource source, unsigned modes = kAnyMode) {
  FieldSpec f = field(std::move(name), FieldType::kEnum, std::move(fallback), modes);
  f.choices = std::move(choices);
  f.source = source;
  return f;
}

FieldSpec list(std::string name, json fallback, std::vector<std::string> choices,
               ChoiceSource source, unsigned modes = kAnyMode) {
  FieldSpec f = field(std::move(name), FieldType::kList, std::move(fallback), modes);
  f.choices = std::move(choices);
  f.source = source;
  return f;
}

/** `f`, applying only while the field `when` holds one of `values`. */
FieldSpec only_when(FieldSpec f, std::string when, std::vector<std::string> values) {
  f.when = std::move(when);
  f.when_values = std::move(values);
  return f;
}

// Shared by several requests: one definition each.
FieldSpec context_field(unsigned modes = kAnyMode) {
  return ranged("context", FieldType::kInt, 8192, 1,
                static_cast<double>(limits::kMaxRequestContext), "tokens", modes);
}
FieldSpec batch_field(unsigned modes = kAnyMode) {
  return ranged("batch", FieldType::kInt, 1, 1, static_cast<double>(limits::kMaxRequestBatch),
                "sequences", modes);
}
FieldSpec catalog_field() { return field("catalog", FieldType::kObject, nullptr); }
FieldSpec gpu_count_field() { return ranged("gpu_count", FieldType::kInt, 1, 1, 1024, "GPUs"); }
FieldSpec budget_field() {
  FieldSpec f = ranged("budget_gb", FieldType::kNumber, nullptr, 0, 1e9, "GB");
  f.min_exclusive = true;
  return f;
}
FieldSpec usable_fraction_field(double fallback) {
  FieldSpec f = ranged("usable_fraction", FieldType::kNumber, fallback, 0, 1, "");
  f.min_exclusive = true;
  return f;
}

const char* const kGuideModels[] = {"guide-7b", "guide-13b", "guide-34b", "guide-70b",
                                    "guide-405b"};
const char* const kGridMethods[] = {"bf16", "fp8", "int4", "qlora", "lora", "full"};
// The MoE planner's accelerators, in its table's order (SPEC section 6).
const char* const kPlannerAccelerators[] = {
    "h100-sxm", "h200-sxm", "b200",   "b300",   "a100-sxm", "rtx-pro-6000",  "l40s",
    "rtx-5090", "rtx-4090", "mi300x", "mi325x", "mi355x",   "apple-m3-ultra"};
const char* const kPlannerFormats[] = {"bf16", "fp8", "q4_k_m", "int4"};

std::vector<FieldSpec> make_estimate_fields() {
  constexpr unsigned kInf = kInferenceMode;
  constexpr unsigned kFt = kFinetuneMode;
  FieldSpec model = choice("model", nullptr, {}, ChoiceSource::kModels);
  FieldSpec params_total =
      ranged("params_total", FieldType::kNumber, nullptr, 0, limits::kMaxParams, "params");
  params_total.min_exclusive = true;
  FieldSpec params_active = params_total;
  params_active.name = "params_active";
  params_active.help = "help.params_active";
  FieldSpec overhead_gb = field("overhead_gb", FieldType::kNumber, nullptr);
  overhead_gb.unit = "GB";
  overhead_gb.range_from = "guide.overhead_gb";
  FieldSpec overhead_pct = field("overhead_pct", FieldType::kNumber, nullptr, kInf);
  overhead_pct.unit = "%";
  overhead_pct.range_from = "percent.overhead_pct";
  std::vector<std::string> targets = names(kLoraModules);
  // torch.optim.SGD's momentum: 0 by default, and then no state at all.
  FieldSpec momentum = ranged("momentum", FieldType::kNumber, 0, 0, 1, "", kFt);
  momentum.max_exclusive = true;
  momentum = only_when(std::move(momentum), "optimizer", {"sgd"});
  // LoRA's adapters: LoRA and QLoRA; the upcast of what QLoRA leaves unquantized: QLoRA.
  const std::vector<std::string> adapters = {"lora", "qlora"};
  // One push at a time, not one initializer list: each temporary is moved
  // in and gone before the next is built, so the module carries no
  // clean-up for 35 of them at once and no copy of each (2 KB of wasm).
  std::vector<FieldSpec> fields;
  fields.reserve(42);
  fields.push_back(std::move(model));
  fields.push_back(field("config", FieldType::kObject, nullptr));
  fields.push_back(field("name", FieldType::kString, nullptr));
  fields.push_back(std::move(params_total));
  fields.push_back(std::move(params_active));
  fields.push_back(choice("mode", "inference", names(kModeNames), ChoiceSource::kNone));
  fields.push_back(choice("weights", "native", {"native"}, ChoiceSource::kWeightFormats));
  fields.push_back(choice("kv", "fp16", {}, ChoiceSource::kKvFormats, kInf));
  fields.push_back(context_field(kInf));
  fields.push_back(batch_field(kInf));
  fields.push_back(
      ranged("min_tokens_per_s", FieldType::kNumber, 10, 0, 100'000, "tokens/s", kInf));
  fields.push_back(std::move(overhead_gb));
  fields.push_back(std::move(overhead_pct));
  fields.push_back(choice("engine", "guide", {}, ChoiceSource::kEngines, kInf));
  fields.push_back(field("engine_options", FieldType::kObject, nullptr, kInf));
  // Speculative decoding: a smaller model of the catalog drafts tokens the model checks.
  fields.push_back(choice("draft_model", nullptr, {}, ChoiceSource::kModels, kInf));
  fields.push_back(ranged("draft_tokens", FieldType::kInt, 5, 1, 32, "tokens", kInf));
  // Who drafts: the draft model, when draft_model names one, the model's own
  // multi-token-prediction layers (DeepSeek V3, GLM-4.5: num_nextn_predict_layers), or an
  // EAGLE-3 head published for the model (data/models.json "eagle3").
  FieldSpec speculative =
      choice("speculative", "draft", {"draft", "mtp", "eagle3"}, ChoiceSource::kNone, kInf);
  speculative.choice_needs = {{"mtp", "mtp"}, {"eagle3", "eagle3"}};
  fields.push_back(std::move(speculative));
  // Images in each request: a vision model's tower turns each into tokens of the context.
  FieldSpec images = ranged("images", FieldType::kInt, 0, 0,
                            static_cast<double>(limits::kMaxImagesPerRequest), "images", kInf);
  images.needs = "vision";
  fields.push_back(std::move(images));
  // Pixels a side of each (square) image, for a tower that takes any resolution (Qwen3-VL's,
  // in Qwen3.5): smart_resize makes its tokens of it. 1024: an assumption the answer states.
  // From one 32-pixel token a side (Qwen3-VL's factor) to the processor's largest square,
  // 4096 a side (its size.longest_edge, 16,777,216 pixels).
  FieldSpec image_size = ranged("image_size", FieldType::kInt, 1024, 32,
                                static_cast<double>(limits::kMaxImageSide), "pixels", kInf);
  image_size.needs = "dynamic_vision";
  fields.push_back(std::move(image_size));
  fields.push_back(choice("gpu", nullptr, {}, ChoiceSource::kGpus));
  fields.push_back(gpu_count_field());
  // Unequal cards under a layer-splitting engine (llama.cpp's --tensor-split),
  // in the order CUDA numbers them; instead of gpu and gpu_count.
  fields.push_back(list("split_gpus", nullptr, {}, ChoiceSource::kGpus, kInf));
  fields.push_back(budget_field());
  // What nvidia-smi shows in use before the engine starts (a desktop, another model).
  fields.push_back(ranged("gpu_used_gb", FieldType::kNumber, 0, 0, 1e6, "GB", kInf));
  // A second model served on the same card (an embedding or reranker model beside the LLM).
  fields.push_back(choice("companion_model", nullptr, {}, ChoiceSource::kModels, kInf));
  fields.push_back(ranged("companion_context", FieldType::kInt, 512, 1,
                          static_cast<double>(limits::kMaxRequestContext), "tokens", kInf));
  fields.push_back(catalog_field());
  fields.push_back(field("checkpoint", FieldType::kObject, nullptr));
  fields.push_back(choice("finetune_profile", "physical", names(kFinetuneProfileNames),
                          ChoiceSource::kNone, kFt));
  fields.push_back(ranged("seq", FieldType::kInt, 2048, 1, 10'000'000, "tokens", kFt));
  fields.push_back(ranged("micro_batch", FieldType::kInt, 1, 1, 100'000, "sequences", kFt));
  fields.push_back(choice("optimizer", "adamw", names(kOptimizerNames), ChoiceSource::kNone, kFt));
  fields.push_back(std::move(momentum));
  fields.push_back(choice("precision", "mixed", names(kPrecisionNames), ChoiceSource::kNone, kFt));
  fields.push_back(choice("loss", "standard", names(kLossNames), ChoiceSource::kNone, kFt));
  fields.push_back(
      only_when(ranged("lora_rank", FieldType::kInt, 16, 1, 65536, "", kFt), "mode", adapters));
  fields.push_back(only_when(list("lora_targets", json{"q_proj", "k_proj", "v_proj", "o_proj"},
                                  targets, ChoiceSource::kNone, kFt),
                             "mode", adapters));
  fields.push_back(field("checkpointing", FieldType::kBool, true, kFt));
  fields.push_back(field("flash_attention", FieldType::kBool, true, kFt));
  fields.push_back(ranged("zero", FieldType::kInt, 0, 0, 3, "", kFt));
  fields.push_back(field("offload_optimizer", FieldType::kBool, false, kFt));
  fields.push_back(
      only_when(field("upcast_unquantized", FieldType::kBool, true, kFt), "mode", {"qlora"}));
  return fields;
}

}  // namespace

const std::vector<FieldSpec>& estimate_fields() {
  static const std::vector<FieldSpec> fields = make_estimate_fields();
  return fields;
}

const std::vector<FieldSpec>& grid_fields() {
  static const std::vector<FieldSpec> fields = [] {
    std::vector<FieldSpec> f;
    f.reserve(6);
    f.push_back(list("models", names(kGuideModels), {}, ChoiceSource::kModels));
    f.push_back(list("methods", names(kGridMethods), names(kGridMethods), ChoiceSource::kNone));
    f.push_back(context_field());
    f.push_back(batch_field());
    f.push_back(catalog_field());
    f.push_back(usable_fraction_field(1.0));
    return f;
  }();
  return fields;
}

const std::vector<FieldSpec>& devices_fields() {
  static const std::vector<FieldSpec> fields = [] {
    std::vector<FieldSpec> f;
    f.reserve(8);
    f.push_back(choice("model", "beam", {}, ChoiceSource::kModels));
    f.push_back(list("accelerators", names(kPlannerAccelerators), {}, ChoiceSource::kGpus));
    f.push_back(list("formats", names(kPlannerFormats), {}, ChoiceSource::kWeightFormats));
    f.push_back(usable_fraction_field(0.92));
    f.push_back(context_field());
    f.push_back(batch_field());
    f.push_back(choice("kv", "fp16", {}, ChoiceSource::kKvFormats));
    f.push_back(catalog_field());
    return f;
  }();
  return fields;
}

const std::vector<FieldSpec>& fleet_fields() {
  static const std::vector<FieldSpec> fields = [] {
    std::vector<FieldSpec> f;
    f.reserve(5);
    f.push_back(choice("model", nullptr, {}, ChoiceSource::kModels));
    f.push_back(choice("weights", "native", {"native"}, ChoiceSource::kWeightFormats));
    f.push_back(context_field());
    f.push_back(batch_field());
    f.push_back(catalog_field());
    return f;
  }();
  return fields;
}

const std::vector<FieldSpec>& fit_models_fields() {
  static const std::vector<FieldSpec> fields = [] {
    std::vector<FieldSpec> f;
    f.reserve(8);
    f.push_back(choice("gpu", nullptr, {}, ChoiceSource::kGpus));
    f.push_back(gpu_count_field());
    f.push_back(budget_field());
    f.push_back(choice("weights", "native", {"native"}, ChoiceSource::kWeightFormats));
    f.push_back(choice("kv", "fp16", {}, ChoiceSource::kKvFormats));
    f.push_back(context_field());
    f.push_back(batch_field());
    f.push_back(catalog_field());
    return f;
  }();
  return fields;
}

const std::vector<FieldSpec>& log_fields() {
  static const std::vector<FieldSpec> fields = [] {
    std::vector<FieldSpec> f;
    f.reserve(5);
    // The log's text, required; read_engine_log bounds it (kMaxLogBytes).
    f.push_back(field("log", FieldType::kString, nullptr));
    // Which preset the log's model is, when its name does not say (a local path).
    f.push_back(choice("model", nullptr, {}, ChoiceSource::kModels));
    // The card it ran on: its bandwidth and features; its memory is the log's when logged.
    f.push_back(choice("gpu", nullptr, {}, ChoiceSource::kGpus));
    // How the weights are stored, when the log does not say (an excerpt without its file type).
    f.push_back(choice("weights", nullptr, {}, ChoiceSource::kWeightFormats));
    f.push_back(catalog_field());
    return f;
  }();
  return fields;
}

const std::vector<FieldSpec>& config_fields() {
  // The bounds the importer checks (hf_config.cpp), from vram/limits.hpp.
  static const std::vector<FieldSpec> fields = [] {
    auto key = [](const char* name, double min, double max) {
      FieldSpec f = ranged(name, FieldType::kInt, nullptr, min, max, "");
      f.help = std::string("help.config.") + name;
      return f;
    };
    std::vector<FieldSpec> f;
    f.reserve(7);
    f.push_back(key("hidden_size", 1, static_cast<double>(limits::kMaxHidden)));
    f.push_back(key("num_hidden_layers", 1, static_cast<double>(limits::kMaxLayers)));
    f.push_back(key("num_attention_heads", 1, static_cast<double>(limits::kMaxHeads)));
    // And at most num_attention_heads (a rule between two keys).
    f.push_back(key("num_key_value_heads", 1, static_cast<double>(limits::kMaxHeads)));
    f.back().max_field = "num_attention_heads";
    f.push_back(key("head_dim", 1, static_cast<double>(limits::kMaxHeadDim)));
    // 0 only where every layer is MoE; a dense layer needs one.
    f.push_back(key("intermediate_size", 1, static_cast<double>(limits::kMaxIntermediate)));
    f.push_back(key("vocab_size", 1, static_cast<double>(limits::kMaxVocab)));
    return f;
  }();
  return fields;
}

bool is_finetune_mode(std::string_view mode) { return mode != "inference"; }

namespace {

/** The "mode" values a field of `modes` applies under (inference; full, lora, qlora). */
std::vector<std::string> mode_values(unsigned modes) {
  std::vector<std::string> out;
  for (const char* mode : kModeNames) {
    if ((modes & (is_finetune_mode(mode) ? kFinetuneMode : kInferenceMode)) != 0) {
      out.emplace_back(mode);
    }
  }
  return out;
}

bool holds(const json& values, const std::string& key, const std::vector<std::string>& allowed) {
  auto it = values.find(key);
  if (it == values.end() || !it->is_string()) return false;
  return std::find(allowed.begin(), allowed.end(), it->get<std::string>()) != allowed.end();
}

}  // namespace

bool applies(const FieldSpec& f, const json& values) {
  const bool by_mode = f.modes != kAnyMode && values.contains("mode");
  if (by_mode && !holds(values, "mode", mode_values(f.modes))) return false;
  return f.when.empty() || holds(values, f.when, f.when_values);
}

json read_fields(const json& request, const std::vector<FieldSpec>& fields,
                 const std::string& prefix) {
  jr::expect_object(request, prefix.empty() ? "request" : prefix);
  for (auto it = request.begin(); it != request.end(); ++it) {
    if (find_field(fields, it.key()) != nullptr) continue;
    json known = json::array();
    for (const FieldSpec& f : fields) known.push_back(f.name);
    const std::string path = jr::field_path(prefix, it.key());
    throw Error::make("unknown_field", path, "error.unknown_key",
                      obj({{"field", Error::quote(path)}, {"known", known}}));
  }
  json out = json::object();
  for (const FieldSpec& f : fields) {
    const std::string path = jr::field_path(prefix, f.name);
    auto it = request.find(f.name);
    if (it == request.end()) {
      if (!f.default_value.is_null()) out[f.name] = f.default_value;
      continue;
    }
    check_value(f, *it, path);
    out[f.name] = f.type == FieldType::kInt ? json(jr::as_int(*it, path)) : *it;
  }
  // A key the request does not take (the other mode's, lora_rank with mode
  // full, momentum without SGD) is an error, not silently ignored.
  for (const FieldSpec& f : fields) {
    if (!request.contains(f.name) || applies(f, out)) continue;
    const bool by_mode = f.when.empty() || (f.modes != kAnyMode && out.contains("mode") &&
                                            !holds(out, "mode", mode_values(f.modes)));
    const std::string when = by_mode ? "mode" : f.when;
    const std::vector<std::string> allowed = by_mode ? mode_values(f.modes) : f.when_values;
    std::string list;
    for (const std::string& v : allowed) list += (list.empty() ? "" : ", ") + v;
    const std::string path = jr::field_path(prefix, f.name);
    throw Error::make("not_applicable", path, "error.not_applicable",
                      obj({{"field", path},
                           {"when", when},
                           {"values", list},
                           {"value", out.value(when, json(nullptr))}}));
  }
  return out;
}

json field_json(const FieldSpec& f, const Catalog& catalog) {
  json out = obj({{"name", f.name}, {"type", to_string(f.type)}, {"help", f.help}});
  if (!f.default_value.is_null()) out["default"] = f.default_value;
  FieldSpec range = f;
  if (!f.range_from.empty()) {
    // A top-level key that sets an engine's knob shares the knob's range.
    const std::size_t dot = f.range_from.find('.');
    const EngineProfile& engine =
        find_engine(catalog.engines, f.range_from.substr(0, dot), "schema");
    if (const FieldSpec* knob = find_field(engine.knobs, f.range_from.substr(dot + 1))) {
      range.min = knob->min;
      range.max = knob->max;
      range.min_exclusive = knob->min_exclusive;
      range.max_exclusive = knob->max_exclusive;
    }
  }
  if (range.min) out["min"] = *range.min;
  if (range.max) out["max"] = *range.max;
  if (range.min_exclusive) out["min_exclusive"] = true;
  if (range.max_exclusive) out["max_exclusive"] = true;
  if (!f.unit.empty()) out["unit"] = f.unit;
  // A number that also takes a word ("auto"): the words, beside its range.
  if ((f.type == FieldType::kInt || f.type == FieldType::kNumber) && !f.choices.empty()) {
    out["choices"] = f.choices;
  }
  if (f.type == FieldType::kEnum || f.type == FieldType::kList) {
    json choices = f.choices;
    switch (f.source) {
      case ChoiceSource::kNone:
        break;
      case ChoiceSource::kModels:
        for (const ModelPreset& m : catalog.models) choices.push_back(m.id);
        break;
      case ChoiceSource::kWeightFormats:
        for (const WeightFormat& w : catalog.formats.weights()) choices.push_back(w.id);
        break;
      case ChoiceSource::kKvFormats:
        for (const KvFormat& k : catalog.formats.kv_formats()) choices.push_back(k.id);
        break;
      case ChoiceSource::kGpus:
        for (const Gpu& g : catalog.gpus.gpus) choices.push_back(g.id);
        break;
      case ChoiceSource::kEngines:
        for (const EngineProfile& e : catalog.engines) choices.push_back(e.id);
        break;
    }
    out["choices"] = choices;
    // The request's own "catalog" may replace the GPUs: say where choices come from.
    if (f.source == ChoiceSource::kGpus) out["choices_from"] = "catalog";
  }
  json modes = json::array();
  if ((f.modes & kInferenceMode) != 0) modes.push_back("inference");
  if ((f.modes & kFinetuneMode) != 0) modes.push_back("finetune");
  out["modes"] = modes;
  if (!f.when.empty()) out["applies_when"] = obj({{f.when.c_str(), f.when_values}});
  if (!f.max_field.empty()) out["max_field"] = f.max_field;
  if (!f.needs.empty()) out["needs"] = f.needs;
  if (!f.applies.empty()) out["applies"] = f.applies;
  if (!f.choice_needs.empty()) {
    json needs = json::object();
    for (const auto& [value, need] : f.choice_needs) needs[value] = need;
    out["choice_needs"] = std::move(needs);
  }
  return out;
}

json schema_json(const Catalog& catalog) {
  auto table = [&](const std::vector<FieldSpec>& fields) {
    json out = json::array();
    for (const FieldSpec& f : fields) out.push_back(field_json(f, catalog));
    return out;
  };
  json engines = json::object();
  for (const EngineProfile& e : catalog.engines) engines[e.id] = table(e.knobs);
  return obj({{"requests", obj({{"estimate", table(estimate_fields())},
                                {"grid", table(grid_fields())},
                                {"devices", table(devices_fields())},
                                {"fleet", table(fleet_fields())},
                                {"fit_models", table(fit_models_fields())},
                                {"log", table(log_fields())}})},
              {"engines", engines},
              // The bounds on a checkpoint's files, which the page checks before reading one.
              {"limits", obj({{"checkpoint", obj({{"header_bytes", limits::kMaxHeaderBytes},
                                                  {"tensors", limits::kMaxTensors},
                                                  {"metadata_bytes", limits::kMaxMetadataBytes},
                                                  {"name_bytes", limits::kMaxNameBytes},
                                                  {"entry_bytes", limits::kMaxEntryBytes},
                                                  {"shards", limits::kMaxShards},
                                                  {"index_bytes", limits::kMaxIndexBytes},
                                                  {"listed_tensors", limits::kMaxListedTensors}})},
                              // The most unequal cards a split takes (split_gpus).
                              {"split_gpus", obj({{"max_items", limits::kMaxSplitCards}})}})},
              {"config", table(config_fields())},
              // What a pasted config must hold for the fields whose "needs" it meets.
              {"config_needs", config_needs()}});
}

}  // namespace vram
