#include "estimate_json.hpp"

#include <algorithm>
#include <cmath>
#include <optional>

#include "model_json.hpp"
#include "request.hpp"
#include "tables.hpp"
#include "vram/checkpoint.hpp"
#include "vram/decode.hpp"
#include "vram/error.hpp"
#include "vram/finetune.hpp"
#include "vram/fit.hpp"
#include "vram/inverse.hpp"
#include "vram/launch.hpp"
#include "vram/message.hpp"
#include "vram/offload.hpp"
#include "vram/requests.hpp"
#include "vram/serving.hpp"
#include "vram/sort.hpp"
#include "vram/speed.hpp"
#include "vram/units.hpp"

namespace vram {

using nlohmann::json;

namespace {

json terms_json(const std::vector<Term>& terms) {
  json out = json::array();
  for (const Term& term : terms) {
    out.push_back(obj({{"id", term.id},
                       {"label", term.label},
                       {"gb", bytes_to_gb(term.bytes)},
                       {"formula", term.formula.id.empty() ? json(nullptr) : json(term.formula)},
                       {"inputs", term.inputs}}));
  }
  return out;
}

json kv_groups_json(const KvCacheSize& cache) {
  json groups = json::array();
  for (const KvGroup& group : cache.groups) {
    groups.push_back(obj({{"attention", to_string(group.attention)},
                          {"layers", group.layers},
                          {"bytes_per_token_per_layer", group.bytes_per_token},
                          {"tokens_held", group.tokens_held},
                          {"state_bytes_per_layer", group.state_bytes},
                          {"gb", bytes_to_gb(group.bytes)}}));
  }
  return groups;
}

/** Which engine profile and options a request selects. */
struct EngineChoice {
  const EngineProfile* profile = nullptr;
  json options = json::object();
};

EngineChoice choose_engine(const Catalog& catalog, const EstimateRequest& req) {
  EngineChoice choice;
  if (req.overhead_gb && req.overhead_pct)
    throw Error("invalid_value", "overhead_gb", "give overhead_gb or overhead_pct, not both");
  const bool convention = req.engine == "guide" || req.engine == "percent";
  if ((req.overhead_gb || req.overhead_pct) && req.engine_given && !convention) {
    throw Error("invalid_value", req.overhead_gb ? "overhead_gb" : "overhead_pct",
                "overhead_gb and overhead_pct replace the engine's own overhead model; drop them "
                "or the engine");
  }
  // overhead_gb and overhead_pct are the conventions' knobs, given at the
  // top level: checked by the same limits, under their own names.
  std::string engine = req.engine;
  json top = json::object();
  if (req.overhead_gb) {
    engine = "guide";
    top["overhead_gb"] = *req.overhead_gb;
  } else if (req.overhead_pct) {
    engine = "percent";
    top["overhead_pct"] = *req.overhead_pct;
  }
  choice.profile = &find_engine(catalog.engines, engine, "engine");
  choice.options = engine_options(*choice.profile, top, "");
  json given = engine_options(*choice.profile, req.engine_options);
  for (auto it = req.engine_options.begin(); it != req.engine_options.end(); ++it)
    choice.options[it.key()] = given.at(it.key());
  return choice;
}

/** What the importer noticed, as messages. */
json import_warnings(const ImportedModel& imported) {
  json out = json::array();
  for (const Message& w : imported.warnings) out.push_back(w);
  return out;
}

/**
 * The answer against a capacity: spare, whether it fits, and whether that
 * fit is tight (SPEC section 3, fit.hpp is_tight) over `cards` cards.
 */
json fit_json(double capacity, double need, bool fits, const Message& basis, std::int64_t cards) {
  const double spare = capacity - need;
  return obj({{"capacity_gb", bytes_to_gb(capacity)},
              {"basis", basis},
              {"spare_gb", bytes_to_gb(spare)},
              {"fits", fits},
              {"tight", fits && is_tight(spare, static_cast<int>(cards), FitRules{})}});
}

json budget_json(const EngineBudget& b) {
  return obj({{"usable_gb", bytes_to_gb(b.usable_bytes)},
              {"usable_gib", b.usable_bytes / kBytesPerGiB},
              {"usable_estimated", b.usable_estimated},
              {"reserved_gb", bytes_to_gb(b.reserved_bytes)},
              {"kv_budget_gb", bytes_to_gb(b.kv_budget_bytes)},
              {"kv_budget_gib", b.kv_budget_bytes / kBytesPerGiB},
              {"kv_bytes_per_token", b.kv_bytes_per_token},
              {"kv_blocks", b.kv_blocks},
              {"kv_tokens", b.kv_tokens},
              {"max_concurrency", b.max_concurrency},
              {"fits", b.fits}});
}

json decode_json(const DecodeCeiling& c) {
  return obj({{"bandwidth_gbps", c.bandwidth_bytes_per_s / 1e9},
              {"guide_tokens_per_s", c.guide_tokens_per_s},
              {"active_weight_gb", bytes_to_gb(c.active_weight_bytes)},
              {"kv_read_gb", bytes_to_gb(c.kv_read_bytes)},
              {"step_gb", bytes_to_gb(c.step_bytes)},
              {"experts_touched", c.experts_touched},
              {"stream_tokens_per_s", c.stream_tokens_per_s},
              {"batch_tokens_per_s", c.batch_tokens_per_s}});
}

/** The expected figures beside the ceiling: per user, for the batch, and the step's parts. */
void add_expected(json& out, const DecodeSpeed& d, double floor) {
  out["ceiling_tokens_per_s"] = d.ceiling_tokens_per_s;
  out["expected_tokens_per_s"] = d.expected_tokens_per_s;
  out["expected_batch_tokens_per_s"] = d.expected_batch_tokens_per_s;
  out["efficiency"] = d.efficiency;
  out["step_ms"] = obj({{"memory", d.memory_s * 1e3},
                        {"compute", d.compute_known ? json(d.compute_s * 1e3) : json(nullptr)},
                        {"fixed", d.fixed_s * 1e3},
                        {"allreduce", d.allreduce_s * 1e3},
                        {"alltoall", d.alltoall_s * 1e3},
                        {"hops", d.hops_s * 1e3},
                        {"total", d.step_s * 1e3}});
  out["compute_bound"] = d.compute_bound;
  out["min_tokens_per_s"] = floor;
  out["meets_floor"] = d.expected_tokens_per_s >= floor;
}

/** A placement knob's value: nullopt for "auto" (the plan picks). */
std::optional<int> placement_knob(const json& options, const char* key) {
  const auto it = options.find(key);
  if (it == options.end() || !it->is_number()) return std::nullopt;
  return static_cast<int>(it->get<std::int64_t>());
}

/** The flag llama-server takes for a plan value (data/engines.json's launch flags). */
std::string launch_flag(const EngineProfile& engine, const char* carries) {
  if (engine.launch.is_object()) {
    for (const json& f : engine.launch.at("flags")) {
      if (f.at("carries") == carries) return f.at("flag").get<std::string>();
    }
  }
  throw Error("internal", "engines.launch", std::string("no launch flag carries ") + carries);
}

/** "-ngl N", with "--n-cpu-moe K" when it is given: a placement as the command writes it. */
Message placement_flags(const OffloadPlan& o, const EngineProfile& engine) {
  const std::string ngl = launch_flag(engine, "gpu_layers");
  return o.n_cpu_moe > 0
             ? Message{"offload.flags_experts", obj({{"ngl_flag", ngl},
                                                     {"ngl", o.ngl},
                                                     {"moe_flag", launch_flag(engine, "n_cpu_moe")},
                                                     {"n_cpu_moe", o.n_cpu_moe}})}
             : Message{"offload.flags_layers", obj({{"ngl_flag", ngl}, {"ngl", o.ngl}})};
}

/** The plan's own pick beside a user's placement that does not fit: what the user may take. */
json suggestion(const OffloadPlan* s) {
  if (s == nullptr || s->kind == OffloadPlan::Kind::kNone) return nullptr;
  return obj({{"ngl", s->ngl},
              {"n_cpu_moe", s->n_cpu_moe},
              {"per_gpu_gb", bytes_to_gb(s->per_gpu_bytes)},
              {"host_gb", bytes_to_gb(s->host_bytes)}});
}

/** A partial offload (offload.hpp) with its speed: what sits where, and the headline. Speed only
 * for a placement that fits. */
json offload_json(const OffloadPlan& o, const DecodeSpeed& d, double host_bandwidth_gbps,
                  double host_efficiency, double floor, int cards, const std::string& gpu,
                  const EngineProfile& engine) {
  const bool experts = o.kind == OffloadPlan::Kind::kExperts;
  json out = obj({{"kind", experts                                ? "experts"
                           : o.kind == OffloadPlan::Kind::kLayers ? "layers"
                                                                  : "none"},
                  {"placement", o.user ? "user" : "auto"},
                  {"fits", o.fits},
                  {"layers", o.layers},
                  {"gpu_layers", o.gpu_layers},
                  {"ngl", o.ngl},
                  {"n_cpu_moe", o.n_cpu_moe},
                  {"per_gpu_gb", bytes_to_gb(o.per_gpu_bytes)},
                  {"capacity_per_gpu_gb", bytes_to_gb(o.capacity_bytes)},
                  {"gpu_weights_gb", bytes_to_gb(o.gpu_weights_bytes)},
                  {"host_weights_gb", bytes_to_gb(o.host_weights_bytes)},
                  {"host_kv_gb", bytes_to_gb(o.host_kv_bytes)},
                  {"host_compute_gb", bytes_to_gb(o.host_compute_bytes)},
                  {"host_gb", bytes_to_gb(o.host_bytes)},
                  {"host_read_gb", bytes_to_gb(o.host_read_bytes)},
                  {"host_handoffs", o.host_handoffs},
                  {"host_bandwidth_gbps", host_bandwidth_gbps},
                  {"host_efficiency", host_efficiency},
                  {"suggested", suggestion(o.suggested.get())},
                  {"flags", placement_flags(o, engine)}});
  if (!o.fits) {
    const OffloadPlan* s = o.suggested.get();
    out["decode"] = nullptr;
    out["headline"] = Message{
        "offload.short",
        obj({{"placement", placement_flags(o, engine)},
             {"need", o.per_gpu_bytes},
             {"capacity", o.capacity_bytes},
             {"gpu", gpu},
             {"suggestion", s == nullptr || s->kind == OffloadPlan::Kind::kNone
                                ? Message{"offload.suggest_none"}
                                : Message{"offload.suggest",
                                          obj({{"placement", placement_flags(*s, engine)}})}}})};
    return out;
  }
  out["decode"] = obj({{"ceiling_tokens_per_s", d.ceiling_tokens_per_s},
                       {"expected_tokens_per_s", d.expected_tokens_per_s},
                       {"expected_batch_tokens_per_s", d.expected_batch_tokens_per_s},
                       {"step_ms", obj({{"gpu", d.memory_s * 1e3},
                                        {"host", d.host_s * 1e3},
                                        {"handoffs", d.handoff_s * 1e3},
                                        {"fixed", d.fixed_s * 1e3},
                                        {"hops", d.hops_s * 1e3},
                                        {"total", d.step_s * 1e3}})},
                       {"min_tokens_per_s", floor},
                       {"meets_floor", d.expected_tokens_per_s >= floor}});
  out["headline"] = Message{experts                                ? "offload.experts"
                            : o.kind == OffloadPlan::Kind::kLayers ? "offload.layers"
                                                                   : "offload.all",
                            obj({{"gpu_layers", o.gpu_layers},
                                 {"layers", o.layers},
                                 {"n_cpu_moe", o.n_cpu_moe},
                                 {"cards", cards},
                                 {"host", o.host_bytes},
                                 {"tokens", d.expected_tokens_per_s}})};
  return out;
}

json prefill_json(const PrefillSpeed& p, std::int64_t prompt) {
  return obj({{"prompt_tokens", prompt},
              {"known", p.known},
              {"tflops", p.tflops > 0 ? json(p.tflops) : json(nullptr)},
              {"fp8", p.fp8},
              {"utilisation", p.utilisation},
              {"tflop", p.flops / 1e12},
              {"ttft_s", p.known ? json(p.seconds) : json(nullptr)},
              {"tokens_per_s", p.known ? json(p.tokens_per_s) : json(nullptr)}});
}

/**
 * FP8 tensor cores run the step when the weights are FP8 on a card that has
 * them, under vLLM, SGLang or a convention; llama.cpp runs its own kernels.
 */
bool fp8_compute(const EngineProfile& engine, const WeightFormat* weights, const ModelSpec& model,
                 const Gpu& gpu) {
  if (engine.kind == EngineKind::kLlamacpp) return false;
  const std::string& id = weights != nullptr ? weights->id : model.native_format;
  return id == "fp8" && gpu.supports("fp8");
}

/**
 * An MoE model's layout under vLLM/SGLang, or null: its name, the cards one
 * MoE layer spans, the experts on the fullest card (whole under expert
 * parallelism, else every expert split over the group).
 */
json moe_layout_json(const ModelSpec& model, const ServingLayout& layout) {
  if (layout.moe_layout.empty()) return nullptr;
  const int group = layout.moe_group();
  return obj({{"id", layout.moe_layout},
              {"label",
               Message{"moe_layout." + layout.moe_layout,
                       obj({{"tp", layout.tensor_parallel},
                            {"dp", layout.data_parallel},
                            {"ep", layout.expert_parallel_size()},
                            {"group", group},
                            {"experts", model.moe.num_experts},
                            {"per_gpu", experts_per_gpu(model, layout.expert_parallel_size())}})}},
              {"attention_tensor_parallel", layout.tensor_parallel},
              {"data_parallel", layout.data_parallel},
              {"expert_parallel_size", layout.expert_parallel_size()},
              {"moe_group", group},
              {"experts", model.moe.num_experts},
              {"experts_per_gpu", layout.expert_parallel
                                      ? json(experts_per_gpu(model, layout.expert_parallel_size()))
                                      : json(nullptr)}});
}

/** How a plan's cards run a step: tensor groups at once, stages (or llama.cpp's layers) in turn. */
SpeedLayout speed_layout(const EngineProfile& engine, int tensor_parallel, int pipeline,
                         int cards) {
  SpeedLayout l;
  if (engine.kind == EngineKind::kLlamacpp) {
    l.stages = std::max(1, cards);
    return l;
  }
  l.tensor_parallel = std::max(1, tensor_parallel);
  l.stages = std::max(1, pipeline);
  return l;
}

json inverse_json(const InverseAnswers& a) {
  json formats = json::array();
  for (const FormatFit& fit : a.formats) {
    formats.push_back(obj({{"format", fit.format->id},
                           {"total_gb", bytes_to_gb(fit.total_bytes)},
                           {"fits", fit.fits},
                           {"supported", fit.supported}}));
  }
  return obj({{"budget_gb", bytes_to_gb(a.budget_bytes)},
              {"max_context", a.max_context},
              {"context_limited_by_model", a.context_limited_by_model},
              {"max_batch", a.max_batch},
              {"best_format", a.best_format ? json(a.best_format->id) : json(nullptr)},
              {"formats", std::move(formats)}});
}

/** The largest n in [1, hi] for which fits(n) holds, or 0. */
template <typename Fits>
std::int64_t largest_fitting(std::int64_t hi, Fits fits) {
  if (!fits(1)) return 0;
  std::int64_t lo = 1;
  if (fits(hi)) return hi;
  while (hi - lo > 1) {
    const std::int64_t mid = lo + (hi - lo) / 2;
    (fits(mid) ? lo : hi) = mid;
  }
  return lo;
}

/** A fine-tuning estimate: the same request shape with training keys. */
/**
 * The measured error of answers of this kind (data/accuracy.json, the
 * validation table): {category, low_pct, high_pct, cases, measurements,
 * note}; null where the set has none.
 */
json measured_error(const Catalog& catalog, const char* category, const char* note) {
  if (!catalog.accuracy.contains(category)) return nullptr;
  const json& c = catalog.accuracy.at(category);
  json out = c;
  out["category"] = category;
  out["note"] = Message{note, obj({{"low", c.at("low_pct")},
                                   {"high", c.at("high_pct")},
                                   {"cases", c.at("cases")},
                                   {"measurements", c.at("measurements")}})};
  return out;
}

json finetune_json(const Catalog& catalog, const EstimateRequest& req,
                   const ImportedModel& imported) {
  const ModelSpec& model = imported.model;
  FinetuneSetup s = finetune_setup(req);
  s.model = &model;
  // The CUDA context with cuBLAS, as the transformers profile measured it.
  s.context_bytes = kBytesPerGiB * find_engine(catalog.engines, "transformers", "engine")
                                       .defaults.at("non_torch_gib")
                                       .get<double>();
  if (req.overhead_gb) {
    // The flat convention's knob, with its range.
    const EngineProfile& guide = find_engine(catalog.engines, "guide", "engine");
    engine_options(guide, obj({{"overhead_gb", *req.overhead_gb}}), "");
    s.overhead_bytes = gb_to_bytes(*req.overhead_gb);
    s.overhead_set = true;
  }
  if (req.weights != "native") s.base_format = &catalog.formats.weight(req.weights, "weights");

  const FinetunePlan plan = plan_finetune(s, catalog.formats);
  json assumptions = plan.assumptions;
  if (plan.params.total_declared) {
    assumptions.push_back(
        Message{"assumption.params_declared_finetune", obj({{"params", plan.params.total}})});
  }
  assumptions.push_back(Message{"assumption.units_finetune"});
  json warnings = import_warnings(imported);
  if (s.zero > 0 && s.gpus == 1) warnings.push_back(Message{"warning.zero_single"});
  if (model.max_context > 0 && s.seq > model.max_context) {
    warnings.push_back(Message{"warning.seq_over", obj({{"max", model.max_context}})});
  }

  json out =
      obj({{"mode", to_string(s.method)},
           {"finetune_profile", to_string(s.profile)},
           {"model", model_summary(model, plan.params)},
           {"params_total", plan.params.total},
           {"params_active", plan.params.active},
           {"trainable_params", plan.trainable_params},
           {"adapter_params", plan.adapter_params},
           {"seq", s.seq},
           {"micro_batch", s.micro_batch},
           {"optimizer", to_string(s.optimizer)},
           {"precision", to_string(s.precision)},
           {"loss", to_string(s.loss)},
           {"zero", s.zero},
           {"gpu_count", s.gpus},
           {"weights_gb", bytes_to_gb(plan.weights_bytes + plan.adapter_bytes)},
           {"gradients_gb", bytes_to_gb(plan.gradients_bytes)},
           {"optimizer_gb", bytes_to_gb(plan.optimizer_bytes)},
           {"activations_gb", bytes_to_gb(plan.activations.total_bytes)},
           {"kv_cache_gb", 0.0},
           {"overhead_gb", bytes_to_gb(plan.overhead_bytes)},
           {"allocator_peak_gb", bytes_to_gb(plan.allocator_peak_bytes)},
           {"allocator_reserve_gb", bytes_to_gb(plan.reserve_bytes)},
           {"allocator_reserved_gb", bytes_to_gb(plan.allocator_peak_bytes + plan.reserve_bytes)},
           {"total_basis", s.profile == FinetuneProfile::kGuide ? "guide" : "device"},
           {"host_ram_gb", bytes_to_gb(plan.host_bytes)},
           {"total_gb", bytes_to_gb(plan.total_bytes)},
           {"terms", terms_json(plan.terms)},
           {"assumptions", assumptions},
           {"warnings", warnings}});

  std::optional<GpuCatalog> own_gpus;
  const GpuCatalog& gpus = request_catalog(catalog, req.catalog, own_gpus);
  FitRules rules;
  rules.needs_fast_link =
      s.method == FinetuneMethod::kFull && s.gpus == 1;  // a set must all-reduce
  json options = json::array();
  for (const Option& option : options_by_card(plan.total_bytes, gpus, rules)) {
    options.push_back(option_json(option));
  }
  out["fits"] = std::move(options);
  // The calls that set this plan up under transformers, PEFT and TRL.
  out["launch"] = training_launch_json(catalog.training_launch, s);
  // The total is what the device holds during the step: the fine-tuning
  // runs measured on the device are its kind.
  out["measured_error"] =
      measured_error(catalog, "finetune-device", "note.measured_error_finetune");
  const Gpu* gpu = req.gpu ? &gpus.find(*req.gpu, "gpu") : nullptr;
  double capacity = 0;
  if (req.budget_gb) {
    capacity = gb_to_bytes(*req.budget_gb);
  } else if (gpu != nullptr) {
    capacity = gpu->vram_bytes();
  }
  if (gpu != nullptr) out["gpu"] = *gpu;
  if (capacity > 0) {
    out["fit"] = fit_json(capacity, plan.total_bytes, plan.total_bytes <= capacity,
                          Message{gpu != nullptr ? "basis.marketed_one" : "basis.budget"}, 1);
    auto fits = [&](FinetuneSetup trial) {
      return plan_finetune(trial, catalog.formats, false).total_bytes <= capacity;
    };
    const std::int64_t max_seq =
        largest_fitting(model.max_context > 0 ? model.max_context : 1'000'000, [&](std::int64_t v) {
          FinetuneSetup t = s;
          t.seq = v;
          return fits(t);
        });
    const std::int64_t max_micro = largest_fitting(4096, [&](std::int64_t v) {
      FinetuneSetup t = s;
      t.micro_batch = v;
      return fits(t);
    });
    out["inverse"] = obj({{"budget_gb", bytes_to_gb(capacity)},
                          {"max_seq", max_seq},
                          {"max_micro_batch", max_micro}});
  }
  return out;
}

}  // namespace

json estimate_json(const Catalog& catalog, const json& request) {
  const EstimateRequest req = request.get<EstimateRequest>();
  if (req.mode != Mode::kInference) {
    // Checked like any input; fine-tuning sizes its weights from the format.
    if (req.checkpoint) checkpoint_from_json(*req.checkpoint, "checkpoint");
    return finetune_json(catalog, req, request::model(catalog, req));
  }
  const ImportedModel imported = request::model(catalog, req);
  const ModelSpec& model = imported.model;
  InferenceSetup setup;
  setup.model = &model;
  std::optional<CheckpointWeights> checkpoint;
  if (req.checkpoint) {
    checkpoint = checkpoint_from_json(*req.checkpoint, "checkpoint");
    setup.checkpoint = &*checkpoint;
  }
  setup.context = req.context;
  setup.batch = req.batch;
  // Never wider than the checkpoint (inference.hpp): FP8 asked of gpt-oss is sized as stored.
  const WeightFormat* asked =
      req.weights != "native" ? &catalog.formats.weight(req.weights, "weights") : nullptr;
  setup.weights = no_wider_than_stored(model, asked, catalog.formats);
  const std::string weights_id = setup.weights != nullptr ? setup.weights->id : "native";
  setup.kv = &catalog.formats.kv(req.kv, "kv");
  EngineChoice engine = choose_engine(catalog, req);
  const SpeedProfile& speed = catalog.speed.profile(engine.profile->id);
  const std::string format_id = setup.weights != nullptr ? setup.weights->id : model.native_format;
  std::optional<GpuCatalog> own_gpus;
  const GpuCatalog& gpus = request_catalog(catalog, req.catalog, own_gpus);
  const Gpu* gpu = req.gpu ? &gpus.find(*req.gpu, "gpu") : nullptr;
  // gpu_count cards serve one model: the engine's layout over them (serving.hpp).
  const ServingLayout layout =
      resolve_layout(model, *engine.profile, engine.options, req.engine_options, req.gpu_count,
                     req.gpu_count_given, gpus.node_size);
  setup.gpus = layout.gpus;
  const std::int64_t gpu_count = layout.gpus;
  const std::optional<double>& budget_gb = req.budget_gb;

  const InferencePlan plan =
      plan_inference(setup, *engine.profile, engine.options, gpu, gpus, catalog.formats);

  // Assumptions and warnings: the model's, the format's, the engine's.
  json assumptions = json::array();
  json warnings = import_warnings(imported);
  if (setup.weights == nullptr && checkpoint) {
    assumptions.push_back(
        Message{"assumption.weights_checkpoint",
                obj({{"format", checkpoint->format}, {"files", checkpoint->files}})});
  } else if (setup.weights != asked) {
    assumptions.push_back(Message{"assumption.weights_as_stored", obj({{"asked", asked->name}})});
  } else if (setup.weights == nullptr) {
    // The formats by name (BF16, MXFP4), as every other answer names them.
    auto format_name = [&](const std::string& id) {
      const WeightFormat* f = catalog.formats.find_weight(id);
      return f != nullptr ? f->name : id;
    };
    assumptions.push_back(
        model.native_expert_format.empty()
            ? Message{"assumption.weights_native",
                      obj({{"format", format_name(model.native_format)}})}
            : Message{"assumption.weights_native_experts",
                      obj({{"format", format_name(model.native_format)},
                           {"experts", format_name(model.native_expert_format)}})});
    if (!model.native_format_note.empty()) {
      assumptions.push_back(Message{"note.text", obj({{"text", model.native_format_note}})});
    }
  }
  if (plan.params.total_declared) {
    assumptions.push_back(
        Message{"assumption.params_declared",
                obj({{"params", plan.params.total}, {"computed", plan.params.computed.total()}})});
  }
  assumptions.push_back(
      Message{"assumption.kv_format",
              obj({{"format", setup.kv->name}, {"bits", setup.kv->bits_per_element}})});
  if (std::any_of(model.layers.begin(), model.layers.end(),
                  [](const LayerSpec& l) { return l.attention == LayerAttention::kState; })) {
    assumptions.push_back(Message{"assumption.ssm_state"});
  }
  assumptions.push_back(Message{
      "assumption.engine",
      obj({{"engine", engine.profile->label()}, {"source", quotation(engine.profile->source)}})});
  for (const Message& m : plan.assumptions) assumptions.push_back(m);
  assumptions.push_back(Message{"assumption.units"});
  for (const Message& m : plan.warnings) warnings.push_back(m);
  if (!model.placeholders.empty()) {
    warnings.push_back(Message{"warning.placeholders", obj({{"fields", model.placeholders}})});
  }
  if (model.max_context > 0 && setup.context > model.max_context) {
    warnings.push_back(Message{"warning.context_over",
                               obj({{"context", setup.context}, {"max", model.max_context}})});
  }
  // llama.cpp loads GGUF files, vLLM, SGLang and transformers safetensors
  // checkpoints: a format the engine does not load is sized as asked, and said.
  if (!engine.profile->convention() && !checkpoint) {
    const WeightFormat* f =
        setup.weights != nullptr ? setup.weights : catalog.formats.find_weight(model.native_format);
    if (f != nullptr && !engine_runs(*engine.profile, *f)) {
      warnings.push_back(
          engine.profile->kind == EngineKind::kLlamacpp
              ? Message{"warning.llamacpp_format", obj({{"format", f->name}})}
              : Message{"warning.gguf_format",
                        obj({{"format", f->name}, {"engine", engine.profile->label()}})});
    }
  }
  if (gpu != nullptr && setup.weights != nullptr && setup.weights->needs("fp8") &&
      !gpu->supports("fp8")) {
    warnings.push_back(
        Message{"warning.no_fp8", obj({{"gpu", gpu->name}, {"architecture", gpu->architecture}})});
  }

  const ParamCount& c = plan.params.computed;
  json out = obj({
      {"model", model_summary(model, plan.params)},
      {"params_total", plan.params.total},
      {"params_active", plan.params.active},
      {"params_active_excluding_embedding",
       plan.params.active_declared || plan.params.total_declared
           ? plan.params.active
           : c.active() - (model.tied_embeddings ? 0.0 : c.embedding)},
      {"weights", weights_id},
      {"weights_storage", storage_json(plan.weights)},
      {"kv", setup.kv->id},
      {"context", setup.context},
      {"batch", setup.batch},
      {"engine", obj({{"id", engine.profile->id},
                      {"name", engine.profile->name},
                      {"label", engine.profile->label()},
                      {"kind", to_string(engine.profile->kind)},
                      {"options", plan.options}})},
      {"tensor_parallel", plan.tensor_parallel},
      {"weights_gb", bytes_to_gb(plan.weights.bytes)},
      {"kv_cache_gb", bytes_to_gb(plan.kv.bytes)},
      {"kv_bytes_per_token", plan.kv.bytes_per_token},
      {"kv_groups", kv_groups_json(plan.kv)},
      {"total_gb", bytes_to_gb(plan.total_bytes)},
      {"terms", terms_json(plan.terms)},
      {"assumptions", std::move(assumptions)},
      {"warnings", warnings},
  });
  // The overhead of the conventions, or everything but weights and KV cache.
  double overhead = 0;
  for (const Term& term : plan.terms) {
    if (term.id != "weights" && term.id != "kv_cache") overhead += term.bytes;
  }
  out["overhead_gb"] = bytes_to_gb(overhead);
  out["measured_error"] = measured_error(catalog, "inference", "note.measured_error_inference");
  // llama.cpp on cards that cannot hold it all: the most that fits on them,
  // the rest in host memory (offload.hpp).
  // The user's own placement (knobs gpu_layers, n_cpu_moe) is used as given.
  std::optional<OffloadPlan> offload;
  const bool llamacpp = engine.profile->kind == EngineKind::kLlamacpp;
  const std::optional<int> user_ngl =
      llamacpp ? placement_knob(plan.options, "gpu_layers") : std::nullopt;
  const std::optional<int> user_moe =
      llamacpp ? placement_knob(plan.options, "n_cpu_moe") : std::nullopt;
  const bool placed = user_ngl || user_moe;
  if (gpu != nullptr && llamacpp) {
    const bool fits_whole =
        serving_fit(plan, *engine.profile, *gpu, gpus, setup.context, setup.batch).fits;
    if (placed) {
      const OffloadPlan o =
          place_offload(offload_parts(setup, plan, plan.options), user_ngl, user_moe,
                        gpus.usable_bytes(*gpu), static_cast<int>(gpu_count));
      // All on the GPU and held: the plan itself, nothing to add.
      if (o.kind != OffloadPlan::Kind::kNone || !o.fits || !fits_whole) offload = o;
    } else if (!fits_whole) {
      const OffloadPlan o = plan_offload(offload_parts(setup, plan, plan.options),
                                         gpus.usable_bytes(*gpu), static_cast<int>(gpu_count));
      if (o.kind != OffloadPlan::Kind::kNone) offload = o;
    }
  } else if (placed) {
    // Without a card there is nothing to place against.
    warnings.push_back(Message{"warning.placement_no_gpu"});
    out["warnings"] = warnings;
  }
  // The command that runs this plan under its engine (none for the conventions).
  if (!engine.profile->launch.is_null()) {
    LaunchPlan lp;
    lp.tensor_parallel = layout.tensor_parallel;
    lp.pipeline_parallel = layout.pipeline_parallel;
    lp.data_parallel = layout.data_parallel;
    lp.expert_parallel = layout.expert_parallel;
    lp.context = setup.context;
    lp.batch = setup.batch;
    lp.layers = model.num_layers();
    // A format the checkpoint already stores needs no quantization on load.
    lp.weights = setup.weights != nullptr && setup.weights->id == model.native_format
                     ? std::string("native")
                     : weights_id;
    lp.kv = setup.kv->id;
    lp.options = plan.options;
    lp.model = model.repo;
    if (offload) {
      lp.gpu_layers = offload->ngl;
      lp.n_cpu_moe = offload->n_cpu_moe;
    } else if (placed) {
      // The numbers the user typed are the numbers the command carries.
      if (user_ngl) lp.gpu_layers = *user_ngl;
      if (user_moe) lp.n_cpu_moe = *user_moe;
    }
    out["launch"] = launch_json(*engine.profile, lp);
  }
  if (checkpoint) out["checkpoint"] = checkpoint_summary(*checkpoint);
  if (plan.host_bytes > 0) out["host_gb"] = bytes_to_gb(plan.host_bytes);
  if (plan.budget.present) {
    out["budget"] = budget_json(plan.budget);
    out["kv_budget_gb"] = bytes_to_gb(plan.budget.kv_budget_bytes);
    out["kv_blocks"] = plan.budget.kv_blocks;
    out["max_concurrency"] = plan.budget.max_concurrency;
  }

  // Against a card: capacity, spare, the serving plan, decode ceilings, inverse answers.
  double capacity = budget_gb ? gb_to_bytes(*budget_gb) : 0.0;
  double need = plan.total_bytes;
  bool holds = plan.budget.present ? plan.budget.fits : need <= capacity;
  Message capacity_basis{"basis.budget"};
  if (gpu != nullptr) {
    bool estimated = false;
    const double usable = gpus.usable_bytes(*gpu, &estimated);
    const ServingFit sf =
        serving_fit(plan, *engine.profile, *gpu, gpus, setup.context, setup.batch);
    const double cards = static_cast<double>(gpu_count);
    // Conventions compare with the marketed decimal capacity (the guide's
    // tables); vLLM and SGLang with their share of what the runtime reports,
    // llama.cpp with all of it. Per card, then times the cards: the need
    // and the capacity are counted over the same cards.
    if (!budget_gb) {
      capacity = sf.per_gpu_capacity_bytes * cards;
      need = sf.per_gpu_need_bytes * cards;
      holds = sf.fits;
      capacity_basis = {engine.profile->convention() ? "basis.marketed"
                        : plan.budget.present        ? "basis.engine_share"
                                                     : "basis.usable"};
    }
    json g = *gpu;
    g["usable_gib"] = usable / kBytesPerGiB;
    g["usable_estimated"] = estimated;
    out["gpu"] = g;
    out["gpu_count"] = gpu_count;
    const int needed =
        cards_needed(setup, *engine.profile, engine.options, *gpu, gpus, catalog.formats);
    out["serving"] =
        obj({{"gpus", layout.gpus},
             {"tensor_parallel", layout.tensor_parallel},
             {"pipeline_parallel", layout.pipeline_parallel},
             {"nodes", layout.nodes},
             {"split", layout.split},
             {"layout", Message{"split." + layout.split, obj({{"tp", layout.tensor_parallel},
                                                              {"pp", layout.pipeline_parallel},
                                                              {"dp", layout.data_parallel},
                                                              {"gpus", layout.gpus}})}},
             {"kv_heads_replicated", layout.kv_heads_replicated},
             {"data_parallel", layout.data_parallel},
             {"expert_parallel_size", layout.expert_parallel_size()},
             {"moe_layout", moe_layout_json(model, layout)},
             {"per_gpu_gb", bytes_to_gb(sf.per_gpu_need_bytes)},
             {"total_gb", bytes_to_gb(sf.per_gpu_need_bytes * cards)},
             {"capacity_per_gpu_gb", bytes_to_gb(sf.per_gpu_capacity_bytes)},
             {"capacity_gb", bytes_to_gb(sf.per_gpu_capacity_bytes * cards)},
             {"kv_budget_gb", bytes_to_gb(sf.kv_budget_bytes)},
             {"kv_budget_total_gb", bytes_to_gb(sf.kv_budget_bytes * cards)},
             {"kv_tokens", sf.kv_tokens},
             {"max_concurrency", sf.max_concurrency},
             {"users", setup.batch},
             {"max_users", static_cast<std::int64_t>(std::floor(sf.max_concurrency))},
             {"fits", sf.fits},
             {"cards_needed", needed > 0 ? json(needed) : json(nullptr)},
             {"cards_searched", serving_counts(gpus.node_size).back()}});
    if (offload) {
      // Its speed: the cards' layers in turn, then what the host reads.
      const double host_bw = plan.options.at("host_bandwidth_gbps").get<double>();
      const DecodeSpeed ds = expected_offload_decode(
          model, plan, *gpu, speed_layout(*engine.profile, 1, 1, static_cast<int>(gpu_count)),
          setup.batch, format_id, speed, catalog.speed, offload->host_read_bytes, host_bw,
          offload->host_handoffs);
      out["serving"]["offload"] =
          offload_json(*offload, ds, host_bw, speed.host_efficiency, req.min_tokens_per_s,
                       static_cast<int>(gpu_count), gpu->name, *engine.profile);
      out["assumptions"].push_back(
          Message{"assumption.offload", obj({{"compute", offload->host_compute_bytes},
                                             {"bandwidth", host_bw},
                                             {"efficiency", speed.host_efficiency * 100},
                                             {"source", quotation(speed.host_source)}})});
      if (offload->host_handoffs > 0 && speed.host_handoff_s > 0) {
        out["assumptions"].push_back(Message{
            "assumption.offload_handoff", obj({{"count", offload->host_handoffs},
                                               {"us", speed.host_handoff_s * 1e6},
                                               {"source", quotation(speed.host_handoff_source)}})});
      }
    }
    if (!sf.fits) {
      warnings.push_back(
          needed > 0
              ? Message{"warning.cards_needed",
                        obj({{"gpu", gpu->name}, {"count", needed}, {"now", gpu_count}})}
              : Message{"warning.no_count_holds",
                        obj({{"gpu", gpu->name}, {"max", serving_counts(gpus.node_size).back()}})});
      out["warnings"] = warnings;
    }
    // Decode speed only for a setup that holds the answer. Tensor
    // parallelism reads each card's share at once; pipeline stages and
    // llama.cpp's layer split read theirs one after another.
    if (holds) {
      const int cards_now = static_cast<int>(gpu_count);
      const int group = plan.budget.present ? plan.tensor_parallel
                        : engine.profile->convention()
                            ? layout_for(*gpu, cards_now, gpus.node_size, false).tensor_parallel
                            : 1;
      SpeedLayout sl = speed_layout(
          *engine.profile, group,
          plan.budget.present ? plan.pipeline_parallel : std::max(1, cards_now / group), cards_now);
      if (plan.budget.present) {
        sl.data_parallel = plan.data_parallel;
        sl.expert_parallel = plan.expert_parallel;
      }
      const bool fp8 = fp8_compute(*engine.profile, setup.weights, model, *gpu);
      const DecodeSpeed ds =
          expected_decode(model, plan, *gpu, sl, setup.batch, format_id, fp8, speed, catalog.speed);
      out["decode"] = decode_json(decode_ceiling(
          model, plan, step_bandwidth_gbps(model, plan, *gpu, sl, setup.batch), setup.batch));
      out["decode"]["gpus"] = group * sl.data_parallel;
      out["decode"]["stages"] = sl.stages;
      add_expected(out["decode"], ds, req.min_tokens_per_s);
      out["prefill"] = prefill_json(
          expected_prefill(model, plan, *gpu, sl, setup.context, fp8, speed), setup.context);
      json& notes = out["assumptions"];
      notes.push_back(Message{"assumption.speed", obj({{"engine", engine.profile->label()},
                                                       {"efficiency", ds.efficiency * 100},
                                                       {"per_layer_us", speed.per_layer_s * 1e6},
                                                       {"source", quotation(speed.source)}})});
      if (sl.tensor_parallel > 1) {
        notes.push_back(
            Message{"assumption.speed_allreduce",
                    obj({{"gpu", gpu->name},
                         {"tp", sl.tensor_parallel},
                         {"link", Message{"link." + gpu->interconnect.kind}},
                         {"gbps", gpu->interconnect.gbps},
                         {"latency_us", catalog.speed.latency(gpu->interconnect.topology) * 1e6},
                         {"sync_us", speed.allreduce_sync_s * 1e6}})});
      }
      if (sl.stages > 1) {
        notes.push_back(Message{"assumption.speed_stages", obj({{"stages", sl.stages}})});
      }
      if (sl.data_parallel > 1) {
        notes.push_back(Message{
            sl.expert_parallel ? "assumption.speed_alltoall_ep" : "assumption.speed_alltoall",
            obj({{"dp", sl.data_parallel},
                 {"group", sl.tensor_parallel * sl.data_parallel},
                 {"experts", model.moe.experts_per_token},
                 {"gpu", gpu->name},
                 {"gbps", gpu->interconnect.gbps},
                 {"sync_us", speed.allreduce_sync_s * 1e6}})});
      }
      if (!ds.compute_known) {
        notes.push_back(Message{"assumption.speed_no_tflops", obj({{"gpu", gpu->name}})});
      }
      if (ds.expected_tokens_per_s < req.min_tokens_per_s) {
        warnings.push_back(
            Message{"warning.below_floor", obj({{"expected", ds.expected_tokens_per_s},
                                                {"floor", req.min_tokens_per_s},
                                                {"users", setup.batch}})});
        out["warnings"] = warnings;
      }
    }
  }
  // A priced option with its speed: among the fits when each user gets the
  // floor, else apart with the reason.
  auto add_row = [&](const Option& option, const DecodeSpeed& ds, const PrefillSpeed& ps,
                     json& fits, json& below) {
    json row = option_json(option);
    row["decode_tokens_per_s"] = ds.ceiling_tokens_per_s;
    row["decode_expected_tokens_per_s"] = ds.expected_tokens_per_s;
    row["ttft_s"] = ps.known ? json(ps.seconds) : json(nullptr);
    if (ds.expected_tokens_per_s >= req.min_tokens_per_s) {
      fits.push_back(std::move(row));
      return;
    }
    row["reason"] = Message{"floor.below", obj({{"gpu", option.gpu->name},
                                                {"count", option.count},
                                                {"expected", ds.expected_tokens_per_s},
                                                {"floor", req.min_tokens_per_s},
                                                {"users", setup.batch}})};
    below.push_back(std::move(row));
  };
  if (engine.profile->convention()) {
    // The cheapest way to hold it on each card of the catalog, and how fast
    // that set decodes (tensor parallel where the link allows).
    FitRules rules;
    rules.needs_fp8 =
        setup.weights != nullptr ? setup.weights->needs("fp8") : model.native_format == "fp8";
    json fits = json::array();
    json below = json::array();
    for (const Option& option : options_by_card(plan.total_bytes, gpus, rules)) {
      const int tp = option.layout.tensor_parallel;
      const SpeedLayout sl =
          speed_layout(*engine.profile, tp, std::max(1, option.count / tp), option.count);
      const bool fp8 = fp8_compute(*engine.profile, setup.weights, model, *option.gpu);
      const DecodeSpeed ds = expected_decode(model, plan, *option.gpu, sl, setup.batch, format_id,
                                             fp8, speed, catalog.speed);
      const PrefillSpeed ps =
          expected_prefill(model, plan, *option.gpu, sl, setup.context, fp8, speed);
      add_row(option, ds, ps, fits, below);
    }
    out["fits"] = std::move(fits);
    out["below_floor"] = std::move(below);
  } else {
    // Under an engine: each priced card's fewest count in one node (1, 2,
    // 4, 8; minimum orders and stock kept) whose serving plan holds the
    // context x users, cheapest first.
    const WeightFormat* format =
        setup.weights != nullptr ? setup.weights : catalog.formats.find_weight(model.native_format);
    struct Found {
      Option option;
      DecodeSpeed decode;
      PrefillSpeed prefill;
      double host_bytes = -1;  ///< llama.cpp with part of it in host RAM (partial offload)
      json offload;            ///< that offload's placement, with its words
    };
    const bool llamacpp_fits = engine.profile->kind == EngineKind::kLlamacpp;
    // n of `card` at the catalog's price with its discount, and what each holds.
    auto rented = [&](const Gpu& card, int n, double per_gpu_capacity, double per_gpu_need) {
      Option o;
      o.gpu = &card;
      o.count = n;
      o.priced = true;
      o.list_monthly = card.monthly_usd * n;
      o.discount_percent = gpus.discount_percent(n);
      o.monthly = o.list_monthly * (1.0 - o.discount_percent / 100.0);
      o.capacity_bytes = per_gpu_capacity * n;
      o.spare_bytes = (per_gpu_capacity - per_gpu_need) * n;
      o.tight = is_tight(o.spare_bytes, n, FitRules{});
      return o;
    };
    std::vector<Found> found;
    for (const Gpu& card : gpus.gpus) {
      if (!card.priced || (format != nullptr && !card_runs(&card, *format))) continue;
      // The fewest cards that hold it and meet the floor; failing the
      // floor, the fewest that hold it, listed apart.
      std::optional<Found> slow;
      int held = 0;   // the smallest count of this card that holds the whole model
      int first = 0;  // the smallest count this card is rented in
      const int dp = data_parallel_of(engine.options);
      for (int n : serving_counts(gpus.node_size)) {
        if (n > gpus.node_size || (card.stock > 0 && n > card.stock)) break;
        if (n < card.min_order || n % dp != 0) continue;
        if (first == 0) first = n;
        ServingLayout l;
        try {
          l = choose_layout(model, *engine.profile, n, gpus.node_size, dp,
                            expert_parallel_of(engine.options));
        } catch (const Error&) {
          continue;  // too few layers or experts for n cards, or experts that do not divide
        }
        InferenceSetup s = setup;
        s.gpus = n;
        const InferencePlan p = plan_inference(
            s, *engine.profile, options_for_layout(*engine.profile, engine.options, l), &card, gpus,
            catalog.formats, false);
        const ServingFit sf = serving_fit(p, *engine.profile, card, gpus, s.context, s.batch);
        if (!sf.fits) continue;
        if (held == 0) held = n;
        Option o = rented(card, n, sf.per_gpu_capacity_bytes, sf.per_gpu_need_bytes);
        o.layout = {l.tensor_parallel, l.pipeline_parallel, l.nodes, n};
        SpeedLayout sl = speed_layout(*engine.profile, p.budget.present ? p.tensor_parallel : 1,
                                      p.budget.present ? p.pipeline_parallel : 1, n);
        sl.data_parallel = p.data_parallel;
        sl.expert_parallel = p.expert_parallel;
        const bool fp8 = fp8_compute(*engine.profile, setup.weights, model, card);
        Found f{o,
                expected_decode(model, p, card, sl, s.batch, format_id, fp8, speed, catalog.speed),
                expected_prefill(model, p, card, sl, s.context, fp8, speed), -1, nullptr};
        if (f.decode.expected_tokens_per_s >= req.min_tokens_per_s) {
          slow.reset();
          found.push_back(std::move(f));
          break;
        }
        if (!slow) slow = std::move(f);
      }
      if (slow) found.push_back(std::move(*slow));
      // llama.cpp on a card too small at its smallest count: that count with
      // the rest in host memory. Offered when it meets the floor (for an MoE
      // with its experts on the host it can be the cheapest usable set);
      // under it, listed apart when no count holds it whole, so a user sees
      // why that cheaper card is not offered.
      if (llamacpp_fits && first > 0 && held != first) {
        InferenceSetup s = setup;
        s.gpus = first;
        const InferencePlan p =
            plan_inference(s, *engine.profile, engine.options, &card, gpus, catalog.formats, false);
        const OffloadPlan o =
            plan_offload(offload_parts(s, p, p.options), gpus.usable_bytes(card), first);
        if (o.kind == OffloadPlan::Kind::kNone || !o.fits) continue;
        const DecodeSpeed ds = expected_offload_decode(
            model, p, card, speed_layout(*engine.profile, 1, 1, first), s.batch, format_id, speed,
            catalog.speed, o.host_read_bytes, p.options.at("host_bandwidth_gbps").get<double>(),
            o.host_handoffs);
        if (held != 0 && ds.expected_tokens_per_s < req.min_tokens_per_s) continue;
        Option opt = rented(card, first, o.capacity_bytes, o.per_gpu_bytes);
        opt.layout = {1, 1, 1, first};
        found.push_back(
            Found{opt, ds, PrefillSpeed{}, o.host_bytes,
                  obj({{"ngl", o.ngl},
                       {"n_cpu_moe", o.n_cpu_moe},
                       {"flags", placement_flags(o, *engine.profile)},
                       {"label", Message{"fits.offload", obj({{"host", o.host_bytes}})}}})});
      }
    }
    stable_sort_by(
        found, [](const Found& a, const Found& b) { return a.option.monthly < b.option.monthly; });
    json fits = json::array();
    json below = json::array();
    for (const Found& f : found) {
      if (f.host_bytes < 0) {
        add_row(f.option, f.decode, f.prefill, fits, below);
        continue;
      }
      json row = option_json(f.option);
      row["decode_tokens_per_s"] = f.decode.ceiling_tokens_per_s;
      row["decode_expected_tokens_per_s"] = f.decode.expected_tokens_per_s;
      row["ttft_s"] = nullptr;
      row["host_gb"] = bytes_to_gb(f.host_bytes);
      row["offload"] = f.offload;
      if (f.decode.expected_tokens_per_s >= req.min_tokens_per_s) {
        fits.push_back(std::move(row));
        continue;
      }
      row["reason"] = Message{"floor.offload", obj({{"gpu", f.option.gpu->name},
                                                    {"count", f.option.count},
                                                    {"host", f.host_bytes},
                                                    {"expected", f.decode.expected_tokens_per_s},
                                                    {"floor", req.min_tokens_per_s}})};
      below.push_back(std::move(row));
    }
    out["fits"] = std::move(fits);
    out["below_floor"] = std::move(below);
  }
  if (capacity > 0) {
    out["fit"] = fit_json(capacity, need, holds, capacity_basis,
                          gpu != nullptr && !budget_gb ? gpu_count : 1);
    out["inverse"] = inverse_json(inverse_answers(setup, *engine.profile, engine.options, gpu, gpus,
                                                  catalog.formats, capacity));
  }
  return out;
}

}  // namespace vram
