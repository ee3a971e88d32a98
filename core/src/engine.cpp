#include "vram/engine.hpp"

#include <algorithm>

#include "json_read.hpp"
#include "vram/checkpoint.hpp"
#include "vram/error.hpp"
#include "vram/units.hpp"

namespace vram {

using nlohmann::json;
namespace jr = json_read;

namespace {

/** The rules of an engine's "kind" (engine_rules.hpp, core/src/engines/). */
const EngineRules* parse_kind(const std::string& kind, const std::string& field) {
  const EngineRules* rules = find_engine_rules(kind);
  if (rules == nullptr) {
    throw Error::make("internal", field, "error.engine_kind",
                      obj({{"field", field}, {"kind", kind}}));
  }
  return rules;
}

/**
 * The conditions a knob's "applies" may name, each the test the engine's
 * plan makes before it reads the knob (knob_applies below).
 */
constexpr const char* kKnobConditions[] = {"moe",          "state_layers", "layer_kinds",
                                           "sliding",      "loras",        "graphs",
                                           "nvlink_cards", "pcie_cards",   "mxfp4_experts"};

/** A knob's type and range from the file's "limits" entry. */
FieldSpec knob_from_json(const std::string& key, const json& limits, const json& fallback,
                         const std::string& at) {
  const std::string where = jr::field_path(at, key);
  jr::expect_object(limits, where);
  FieldSpec knob;
  knob.name = key;
  knob.default_value = fallback;
  const std::string type = jr::get_string(limits, "type", where);
  if (type == "bool") {
    knob.type = FieldType::kBool;
  } else if (type == "int") {
    knob.type = FieldType::kInt;
  } else if (type == "number") {
    knob.type = FieldType::kNumber;
  } else if (type == "enum") {
    // A knob of words (vLLM's mxfp4_backend): one of its "choices", no range.
    knob.type = FieldType::kEnum;
    knob.choices = jr::opt_strings(limits, "choices", where);
    if (knob.choices.empty()) {
      throw Error::make("internal", where + ".choices", "error.knob_choices",
                        obj({{"field", where + ".choices"}}));
    }
  } else {
    throw Error::make("internal", where + ".type", "error.knob_type",
                      obj({{"field", where + ".type"}}));
  }
  knob.min = jr::opt_number(limits, "min", where);
  knob.max = jr::opt_number(limits, "max", where);
  knob.min_exclusive = jr::opt_bool(limits, "min_exclusive", where).value_or(false);
  knob.max_exclusive = jr::opt_bool(limits, "max_exclusive", where).value_or(false);
  knob.unit = jr::opt_string(limits, "unit", where).value_or("");
  // "auto": the plan picks the value (llama.cpp's placement); the knob takes the word or a number.
  if (jr::opt_bool(limits, "auto", where).value_or(false)) {
    if (knob.type == FieldType::kBool || knob.type == FieldType::kEnum) {
      throw Error::make("internal", where + ".auto", "error.knob_auto",
                        obj({{"field", where + ".auto"}}));
    }
    knob.choices = {kAuto};
  }
  knob.modes = kInferenceMode;
  knob.help = "help.engine_options." + key;
  knob.applies = jr::opt_string(limits, "applies", where).value_or("");
  if (!knob.applies.empty() && std::find(std::begin(kKnobConditions), std::end(kKnobConditions),
                                         knob.applies) == std::end(kKnobConditions)) {
    throw Error::make("internal", where + ".applies", "error.knob_applies",
                      obj({{"field", where + ".applies"}, {"condition", knob.applies}}));
  }
  const bool ranged = knob.type == FieldType::kInt || knob.type == FieldType::kNumber;
  if (ranged && (!knob.min || !knob.max)) {
    throw Error::make("internal", where, "error.knob_range", obj({{"field", where}}));
  }
  check_value(knob, fallback, "defaults." + key);  // the defaults obey their own limits
  return knob;
}

/**
 * Whether the plan reads a knob of condition `when` (FieldSpec::applies):
 * the tests vllm.cpp, sglang.cpp and llamacpp.cpp make before reading it.
 */
bool knob_applies(const std::string& when, const InferenceSetup& setup, const InferencePlan& plan,
                  const Gpu* gpu) {
  const ModelSpec& m = *setup.model;
  const json& o = plan.options;
  if (when == "moe") return m.is_moe();
  if (when == "state_layers") return m.has_layers(LayerAttention::kState);
  if (when == "layer_kinds") return m.mixed_layers();  // vLLM's hybrid pool (vllm.cpp hybrid_pool)
  if (when == "sliding") return m.sliding_window > 0 && m.has_layers(LayerAttention::kSliding);
  if (when == "mxfp4_experts") return m.is_moe() && plan.weights.mxfp4_experts();
  if (when == "loras") return o.contains("max_loras") && o.at("max_loras").get<double>() > 0;
  if (when == "graphs") return !(o.contains("enforce_eager") && o.at("enforce_eager").get<bool>());
  // vllm.cpp: several cards keep NCCL's buffers per NVLink peer, or a flat share over PCIe.
  const bool nvlink = gpu == nullptr || gpu->interconnect.switched();
  if (when == "nvlink_cards") return plan.gpus > 1 && nvlink;
  if (when == "pcie_cards") return plan.gpus > 1 && !nvlink;
  return true;
}

}  // namespace

json EngineProfile::label() const {
  if (!convention()) return name;
  json params = json::object();
  if (defaults.contains("overhead_gb")) {
    params["size"] = Message{"size.gbPlain", obj({{"gb", defaults.at("overhead_gb")}})};
  }
  if (defaults.contains("overhead_pct")) params["pct"] = defaults.at("overhead_pct");
  return Message{"engine." + id, params};
}

bool EngineProfile::architecture_has(const std::string& rule, const std::string& model_type) const {
  const auto it = architecture.find(rule);
  if (it == architecture.end() || !it->is_object()) return false;
  const auto types = it->find("model_types");
  if (types == it->end() || !types->is_array()) return false;
  return std::find(types->begin(), types->end(), json(model_type)) != types->end();
}

std::vector<EngineProfile> engine_profiles_from_json(const json& engines) {
  std::vector<EngineProfile> out;
  for (std::size_t i = 0; i < engines.size(); ++i) {
    const json& e = engines[i];
    const std::string at = "engines[" + std::to_string(i) + "]";
    EngineProfile profile;
    profile.id = jr::get_string(e, "id", at);
    profile.name = jr::get_string(e, "name", at);
    profile.rules = parse_kind(jr::get_string(e, "kind", at), at + ".kind");
    profile.source = jr::get_string(e, "source", at);
    if (const json* d = jr::find(e, "defaults")) profile.defaults = *d;
    if (const json* s = jr::find(e, "option_sources")) profile.option_sources = *s;
    if (const json* l = jr::find(e, "launch")) profile.launch = *l;
    if (const json* a = jr::find(e, "architecture")) {
      jr::expect_object(*a, at + ".architecture");
      profile.architecture = *a;
    }
    const json* limits = jr::find(e, "limits");
    const std::string limits_at = at + ".limits";
    for (auto it = profile.defaults.begin(); it != profile.defaults.end(); ++it) {
      if (limits == nullptr || !limits->contains(it.key())) {
        throw Error::make("internal", limits_at, "error.knob_limits",
                          obj({{"field", limits_at}, {"knob", it.key()}}));
      }
      profile.knobs.push_back(knob_from_json(it.key(), limits->at(it.key()), *it, limits_at));
    }
    if (limits != nullptr && limits->size() != profile.knobs.size()) {
      throw Error::make("internal", limits_at, "error.knob_default", obj({{"field", limits_at}}));
    }
    out.push_back(std::move(profile));
  }
  return out;
}

const EngineProfile& find_engine(const std::vector<EngineProfile>& engines, const std::string& id,
                                 const std::string& field) {
  for (const EngineProfile& engine : engines) {
    if (engine.id == id) return engine;
  }
  json known = json::array();
  for (const EngineProfile& engine : engines) known.push_back(engine.id);
  throw Error::make("unknown_engine", field, "error.unknown_engine_id",
                    obj({{"engine", Error::quote(id)}, {"known", known}}));
}

json storage_json(const WeightsSize& weights) {
  json parts = json::array();
  for (const WeightPart& part : weights.parts) {
    parts.push_back(obj({{"component", part.component},
                         {"params", part.params},
                         {"format", part.format->id},
                         {"bits_per_weight", part.format->bits_per_weight},
                         {"gb", bytes_to_gb(part.bytes)}}));
  }
  return parts;
}

double routed_expert_bytes(const WeightsSize& weights, const ParamTotals& params) {
  const double routed = params.computed.experts_routed;
  if (routed <= 0 || params.total <= 0 || weights.bytes <= 0) return 0;
  double per_param = weights.bytes / params.total;
  for (const WeightPart& part : weights.parts) {
    if ((part.component == "experts" || part.component == "linear") && part.params > 0) {
      per_param = part.bytes / part.params;
    }
  }
  return std::min(weights.bytes, routed * per_param);
}

WeightsSize setup_weights(const InferenceSetup& setup, const ParamTotals& params,
                          const FormatCatalog& formats) {
  if (setup.weights != nullptr) {
    return weights_in_format(*setup.model, params, *setup.weights, formats);
  }
  if (setup.checkpoint != nullptr) return checkpoint_weights(*setup.checkpoint);
  return weights_native(*setup.model, params, formats);
}

json engine_options(const EngineProfile& engine, const json& options, const std::string& prefix) {
  json merged = engine.defaults;
  jr::expect_object(options, prefix.empty() ? "request" : prefix);
  for (auto it = options.begin(); it != options.end(); ++it) {
    const std::string field = jr::field_path(prefix, it.key());
    const FieldSpec* knob = find_field(engine.knobs, it.key());
    if (knob == nullptr) {
      json known = json::array();
      for (const FieldSpec& k : engine.knobs) known.push_back(k.name);
      throw Error::make("unknown_field", field, "error.unknown_engine_option",
                        obj({{"engine", engine.id}, {"option", it.key()}, {"known", known}}));
    }
    check_value(*knob, *it, field);
    // Whole numbers stay whole (4.0 arrives as 4), so answers print them so.
    merged[it.key()] = knob->type == FieldType::kInt && it->is_number()
                           ? json(static_cast<std::int64_t>(it->get<double>()))
                           : *it;
  }
  return merged;
}

InferencePlan plan_inference(const InferenceSetup& setup, const EngineProfile& engine,
                             const json& options, const Gpu* gpu, const GpuCatalog& gpus,
                             const FormatCatalog& formats, bool explain) {
  InferencePlan plan;
  plan.terms.reserve(8);  // room for every engine's terms (6 at most): the searches make many plans
  plan.options = options;
  const json& o = plan.options;
  plan.params = setup.params != nullptr ? *setup.params : param_totals(*setup.model);
  plan.weights = setup_weights(setup, plan.params, formats);
  if (engine.rules->state_storage != nullptr) plan.state = engine.rules->state_storage(setup.batch);
  plan.kv = kv_cache(*setup.model, *setup.kv, setup.context, setup.batch, plan.state);
  if (o.contains("tensor_parallel_size")) {
    // Its range (at most 64) is the knob's, checked by engine_options.
    plan.tensor_parallel = static_cast<int>(o.at("tensor_parallel_size").get<double>());
  }
  if (o.contains("pipeline_parallel_size")) {
    plan.pipeline_parallel = static_cast<int>(o.at("pipeline_parallel_size").get<double>());
  }
  if (o.contains("data_parallel_size")) {
    plan.data_parallel = static_cast<int>(o.at("data_parallel_size").get<double>());
  }
  plan.expert_parallel = o.contains("expert_parallel") && o.at("expert_parallel").get<bool>();
  plan.gpus = engine.rules->paged
                  ? plan.tensor_parallel * plan.pipeline_parallel * plan.data_parallel
                  : std::max(1, setup.gpus);

  engine.rules->plan({setup, engine, o, gpu, gpus, explain}, plan);
  for (const Term& term : plan.terms) plan.total_bytes += term.bytes;

  if (!explain) return plan;
  if (setup.images > 0) {
    // A vision model's images are tokens of the context the KV cache holds.
    plan.assumptions.push_back(
        {"assumption.image_tokens", obj({{"images", setup.images},
                                         {"per_image", setup.image_tokens},
                                         {"tokens", setup.images * setup.image_tokens},
                                         {"context", setup.context}})});
    if (setup.image_grid.tokens > 0) {
      // A tower of any resolution: the request's image size, an assumption, and what the
      // processor's smart_resize makes of it (model.hpp resized_image).
      plan.assumptions.push_back(
          {"assumption.image_resized", obj({{"size", setup.image_size},
                                            {"height", setup.image_grid.height},
                                            {"width", setup.image_grid.width},
                                            {"tokens", setup.image_tokens}})});
    }
  }
  // Each knob the plan read, with its value and where its default comes
  // from (data/engines.json); one it did not read is left out, and said to
  // change nothing where the request set it.
  for (auto it = o.begin(); it != o.end(); ++it) {
    // A switch reads on or off in the reader's language.
    json value = it->is_boolean() ? json(Message{it->get<bool>() ? "word.on" : "word.off"}) : *it;
    const FieldSpec* knob = find_field(engine.knobs, it.key());
    if (knob != nullptr && !knob->applies.empty() &&
        !knob_applies(knob->applies, setup, plan, gpu)) {
      if (*it != engine.defaults.at(it.key())) {
        plan.warnings.push_back({"warning.knob_not_applicable",
                                 obj({{"engine", engine.label()},
                                      {"key", it.key()},
                                      {"value", std::move(value)},
                                      {"condition", Message{"applies." + knob->applies}}})});
      }
      continue;
    }
    const std::string why = engine.option_sources.value(it.key(), "");
    plan.assumptions.push_back(
        {why.empty() ? "assumption.engine_option" : "assumption.engine_option_why",
         obj({{"engine", engine.label()},
              {"key", it.key()},
              {"value", std::move(value)},
              {"why", quotation(why)}})});
  }
  for (auto it = engine.option_sources.begin(); it != engine.option_sources.end(); ++it) {
    if (!o.contains(it.key())) {
      plan.assumptions.push_back(
          {"assumption.engine_note",
           obj({{"engine", engine.label()}, {"key", it.key()}, {"why", quotation(*it)}})});
    }
  }
  if (plan.budget.present && plan.budget.usable_estimated && gpu != nullptr) {
    plan.warnings.push_back(
        {"warning.usable_estimated",
         obj({{"gpu", gpu->name}, {"source", quotation(gpus.usable_default_source)}})});
  }
  return plan;
}

}  // namespace vram
