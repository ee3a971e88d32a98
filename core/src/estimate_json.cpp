#include "estimate_json.hpp"

#include <algorithm>
#include <optional>

#include "json_read.hpp"
#include "model_json.hpp"
#include "request.hpp"
#include "tables.hpp"
#include "vram/checkpoint.hpp"
#include "vram/decode.hpp"
#include "vram/error.hpp"
#include "vram/finetune.hpp"
#include "vram/fit.hpp"
#include "vram/inverse.hpp"
#include "vram/text.hpp"
#include "vram/units.hpp"

namespace vram {

using nlohmann::json;
namespace jr = json_read;

namespace {

constexpr std::int64_t kMaxContext = 100'000'000;
constexpr std::int64_t kMaxBatch = 1'000'000;

json terms_json(const std::vector<Term>& terms) {
  json out = json::array();
  for (const Term& term : terms) {
    out.push_back({{"id", term.id},
                   {"label", term.label},
                   {"gb", bytes_to_gb(term.bytes)},
                   {"formula", term.formula},
                   {"inputs", term.inputs}});
  }
  return out;
}

json kv_groups_json(const KvCacheSize& cache) {
  json groups = json::array();
  for (const KvGroup& group : cache.groups) {
    groups.push_back({{"attention", to_string(group.attention)},
                      {"layers", group.layers},
                      {"bytes_per_token_per_layer", group.bytes_per_token},
                      {"tokens_held", group.tokens_held},
                      {"state_bytes_per_layer", group.state_bytes},
                      {"gb", bytes_to_gb(group.bytes)}});
  }
  return groups;
}

/** Which engine profile and options a request selects. */
struct EngineChoice {
  const EngineProfile* profile = nullptr;
  json options = json::object();
};

EngineChoice choose_engine(const Catalog& catalog, const json& req) {
  EngineChoice choice;
  const auto gb = jr::opt_number(req, "overhead_gb", "");
  const auto pct = jr::opt_number(req, "overhead_pct", "");
  const auto id = jr::opt_string(req, "engine", "");
  if (gb && pct)
    throw Error("invalid_value", "overhead_gb", "give overhead_gb or overhead_pct, not both");
  if ((gb || pct) && id && *id != "guide" && *id != "percent") {
    throw Error("invalid_value", gb ? "overhead_gb" : "overhead_pct",
                "overhead_gb and overhead_pct replace the engine's own overhead model; drop them "
                "or the engine");
  }
  std::string engine = id.value_or("guide");
  if (gb) {
    jr::require_positive(*gb, "overhead_gb", true);
    engine = "guide";
    choice.options["overhead_gb"] = *gb;
  } else if (pct) {
    if (*pct < 0 || *pct > 1000) {
      throw Error("invalid_value", "overhead_pct", "overhead_pct must be between 0 and 1000");
    }
    engine = "percent";
    choice.options["overhead_pct"] = *pct;
  }
  choice.profile = &find_engine(catalog.engines, engine, "engine");
  if (const json* options = jr::find(req, "engine_options")) {
    jr::expect_object(*options, "engine_options");
    for (auto it = options->begin(); it != options->end(); ++it) choice.options[it.key()] = *it;
  }
  choice.options = engine_options(*choice.profile, choice.options);
  return choice;
}

json budget_json(const EngineBudget& b) {
  return {{"usable_gb", bytes_to_gb(b.usable_bytes)},
          {"usable_gib", b.usable_bytes / kBytesPerGiB},
          {"usable_estimated", b.usable_estimated},
          {"reserved_gb", bytes_to_gb(b.reserved_bytes)},
          {"kv_budget_gb", bytes_to_gb(b.kv_budget_bytes)},
          {"kv_budget_gib", b.kv_budget_bytes / kBytesPerGiB},
          {"kv_bytes_per_token", b.kv_bytes_per_token},
          {"kv_blocks", b.kv_blocks},
          {"kv_tokens", b.kv_tokens},
          {"max_concurrency", b.max_concurrency},
          {"fits", b.fits}};
}

json decode_json(const DecodeCeiling& c) {
  return {{"bandwidth_gbps", c.bandwidth_bytes_per_s / 1e9},
          {"guide_tokens_per_s", c.guide_tokens_per_s},
          {"active_weight_gb", bytes_to_gb(c.active_weight_bytes)},
          {"kv_read_gb", bytes_to_gb(c.kv_read_bytes)},
          {"step_gb", bytes_to_gb(c.step_bytes)},
          {"experts_touched", c.experts_touched},
          {"stream_tokens_per_s", c.stream_tokens_per_s},
          {"batch_tokens_per_s", c.batch_tokens_per_s}};
}

json inverse_json(const InverseAnswers& a) {
  json formats = json::array();
  for (const FormatFit& fit : a.formats) {
    formats.push_back({{"format", fit.format->id},
                       {"total_gb", bytes_to_gb(fit.total_bytes)},
                       {"fits", fit.fits},
                       {"supported", fit.supported}});
  }
  return {{"budget_gb", bytes_to_gb(a.budget_bytes)},
          {"max_context", a.max_context},
          {"context_limited_by_model", a.context_limited_by_model},
          {"max_batch", a.max_batch},
          {"best_format", a.best_format ? json(a.best_format->id) : json(nullptr)},
          {"formats", formats}};
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

FinetuneMethod parse_method(const std::string& mode) {
  if (mode == "full") return FinetuneMethod::kFull;
  if (mode == "lora") return FinetuneMethod::kLora;
  if (mode == "qlora") return FinetuneMethod::kQlora;
  throw Error("invalid_value", "mode",
              "mode must be inference, full, lora or qlora, not '" + Error::quote(mode) + "'");
}

Optimizer parse_optimizer(const std::string& name) {
  if (name == "adamw") return Optimizer::kAdamW;
  if (name == "adamw-8bit") return Optimizer::kAdamW8bit;
  if (name == "sgd") return Optimizer::kSgd;
  if (name == "adafactor") return Optimizer::kAdafactor;
  throw Error(
      "invalid_value", "optimizer",
      "optimizer must be adamw, adamw-8bit, sgd or adafactor, not '" + Error::quote(name) + "'");
}

/** A fine-tuning estimate: the same request shape with training keys. */
json finetune_json(const Catalog& catalog, const json& req, const ImportedModel& imported) {
  const ModelSpec& model = imported.model;
  FinetuneSetup s;
  s.model = &model;
  s.method = parse_method(jr::get_string(req, "mode", ""));
  s.profile = jr::opt_string(req, "finetune_profile", "").value_or("physical");
  s.precision = jr::opt_string(req, "precision", "").value_or("mixed");
  s.loss = jr::opt_string(req, "loss", "").value_or("standard");
  s.upcast_unquantized = jr::opt_bool(req, "upcast_unquantized", "").value_or(true);
  const auto seq = jr::opt_int(req, "seq", "").value_or(2048);
  const auto micro = jr::opt_int(req, "micro_batch", "").value_or(1);
  if (seq < 1 || seq > 10'000'000)
    throw Error("invalid_value", "seq", "seq must be between 1 and 10,000,000");
  if (micro < 1 || micro > 100'000) {
    throw Error("invalid_value", "micro_batch", "micro_batch must be between 1 and 100,000");
  }
  s.seq = seq;
  s.micro_batch = micro;
  s.optimizer = parse_optimizer(jr::opt_string(req, "optimizer", "").value_or("adamw"));
  const auto rank = jr::opt_int(req, "lora_rank", "").value_or(16);
  if (rank < 1 || rank > 65536)
    throw Error("invalid_value", "lora_rank", "lora_rank must be between 1 and 65536");
  s.lora_rank = rank;
  if (jr::find(req, "lora_targets") != nullptr) {
    s.lora_targets = jr::opt_strings(req, "lora_targets", "");
    if (s.lora_targets.empty())
      throw Error("invalid_value", "lora_targets", "lora_targets must name at least one module");
  }
  s.checkpointing = jr::opt_bool(req, "checkpointing", "").value_or(true);
  s.flash_attention = jr::opt_bool(req, "flash_attention", "").value_or(false);
  s.gpus = static_cast<int>(request::positive_int(req, "gpu_count", 1, 1024));
  const auto zero = jr::opt_int(req, "zero", "").value_or(0);
  if (zero < 0 || zero > 3) throw Error("invalid_value", "zero", "zero must be 0, 1, 2 or 3");
  s.zero = static_cast<int>(zero);
  s.offload_optimizer = jr::opt_bool(req, "offload_optimizer", "").value_or(false);
  if (auto gb = jr::opt_number(req, "overhead_gb", "")) {
    jr::require_positive(*gb, "overhead_gb", true);
    s.overhead_bytes = gb_to_bytes(*gb);
    s.overhead_set = true;
  }
  if (jr::find(req, "overhead_pct") != nullptr || jr::find(req, "engine") != nullptr) {
    throw Error("invalid_value", jr::find(req, "engine") ? "engine" : "overhead_pct",
                "fine-tuning uses overhead_gb; engines and percentages apply to inference");
  }
  if (auto w = jr::opt_string(req, "weights", "")) {
    if (*w != "native") s.base_format = &catalog.formats.weight(*w, "weights");
  }

  const FinetunePlan plan = plan_finetune(s, catalog.formats);
  json assumptions = json::array();
  for (const std::string& text : plan.assumptions)
    assumptions.push_back({{"id", "finetune"}, {"text", text}});
  if (plan.params.total_declared) {
    assumptions.push_back(
        {{"id", "params_declared"},
         {"text", "Parameter count as the source states it (" + text::grouped(plan.params.total) +
                      "); widths for activations and adapters from the architecture."}});
  }
  assumptions.push_back(
      {{"id", "units"}, {"text", "GB are decimal (10^9 bytes); figures are per GPU."}});
  json warnings = json::array();  // the importer's as {"id", "params", "text"}
  for (const Message& w : imported.warnings) warnings.push_back(with_english(w));
  if (s.zero > 0 && s.gpus == 1)
    warnings.push_back("ZeRO shards over several GPUs; with gpu_count 1 it changes nothing.");
  if (model.max_context > 0 && s.seq > model.max_context) {
    warnings.push_back("seq exceeds the model's max_position_embeddings (" +
                       text::grouped(static_cast<double>(model.max_context)) + ").");
  }

  json out = {{"mode", to_string(s.method)},
              {"finetune_profile", s.profile},
              {"model", model_summary(model, plan.params)},
              {"params_total", plan.params.total},
              {"params_active", plan.params.active},
              {"trainable_params", plan.trainable_params},
              {"adapter_params", plan.adapter_params},
              {"seq", s.seq},
              {"micro_batch", s.micro_batch},
              {"optimizer", to_string(s.optimizer)},
              {"precision", s.precision},
              {"loss", s.loss},
              {"zero", s.zero},
              {"gpu_count", s.gpus},
              {"weights_gb", bytes_to_gb(plan.weights_bytes + plan.adapter_bytes)},
              {"gradients_gb", bytes_to_gb(plan.gradients_bytes)},
              {"optimizer_gb", bytes_to_gb(plan.optimizer_bytes)},
              {"activations_gb", bytes_to_gb(plan.activations.total_bytes)},
              {"kv_cache_gb", 0.0},
              {"overhead_gb", bytes_to_gb(plan.overhead_bytes)},
              {"host_ram_gb", bytes_to_gb(plan.host_bytes)},
              {"total_gb", bytes_to_gb(plan.total_bytes)},
              {"terms", terms_json(plan.terms)},
              {"assumptions", assumptions},
              {"warnings", warnings}};

  const GpuCatalog gpus = request_catalog(catalog, req);
  FitRules rules;
  rules.needs_fast_link =
      s.method == FinetuneMethod::kFull && s.gpus == 1;  // a set must all-reduce
  json options = json::array();
  for (const Option& option : options_by_card(plan.total_bytes, gpus, rules)) {
    options.push_back(option_json(option));
  }
  out["fits"] = std::move(options);
  const Gpu* gpu = nullptr;
  if (auto id = jr::opt_string(req, "gpu", "")) gpu = &gpus.find(*id, "gpu");
  double capacity = 0;
  if (auto budget = jr::opt_number(req, "budget_gb", "")) {
    jr::require_positive(*budget, "budget_gb");
    capacity = gb_to_bytes(*budget);
  } else if (gpu != nullptr) {
    capacity = gpu->vram_bytes();
  }
  if (gpu != nullptr) out["gpu"] = *gpu;
  if (capacity > 0) {
    out["fit"] = {
        {"capacity_gb", bytes_to_gb(capacity)},
        {"basis", gpu != nullptr ? "marketed capacity of one GPU (decimal GB)" : "budget_gb"},
        {"spare_gb", bytes_to_gb(capacity - plan.total_bytes)},
        {"fits", plan.total_bytes <= capacity}};
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
    out["inverse"] = {
        {"budget_gb", bytes_to_gb(capacity)}, {"max_seq", max_seq}, {"max_micro_batch", max_micro}};
  }
  return out;
}

}  // namespace

json estimate_json(const Catalog& catalog, const json& req) {
  jr::expect_object(req, "request");
  request::reject_unknown_keys(req, {"model",
                                     "config",
                                     "name",
                                     "params_total",
                                     "params_active",
                                     "weights",
                                     "kv",
                                     "context",
                                     "batch",
                                     "overhead_gb",
                                     "overhead_pct",
                                     "engine",
                                     "engine_options",
                                     "gpu",
                                     "gpu_count",
                                     "budget_gb",
                                     "mode",
                                     "finetune_profile",
                                     "seq",
                                     "micro_batch",
                                     "optimizer",
                                     "lora_rank",
                                     "lora_targets",
                                     "checkpointing",
                                     "flash_attention",
                                     "zero",
                                     "offload_optimizer",
                                     "precision",
                                     "loss",
                                     "upcast_unquantized",
                                     "catalog",
                                     "checkpoint"});
  const std::string mode = jr::opt_string(req, "mode", "").value_or("inference");
  if (mode != "inference") {
    for (const char* key : {"kv", "context", "batch", "engine_options"}) {
      if (jr::find(req, key) != nullptr) {
        throw Error(
            "invalid_value", key,
            std::string(key) + " applies to inference; fine-tuning takes seq and micro_batch");
      }
    }
    // Checked like any input; fine-tuning sizes its weights from the format.
    if (const json* files = jr::find(req, "checkpoint")) checkpoint_from_json(*files, "checkpoint");
    return finetune_json(catalog, req, request::model(catalog, req));
  }
  for (const char* key : {"finetune_profile", "seq", "micro_batch", "optimizer", "lora_rank",
                          "lora_targets", "checkpointing", "flash_attention", "zero",
                          "offload_optimizer", "precision", "loss", "upcast_unquantized"}) {
    if (jr::find(req, key) != nullptr) {
      throw Error("invalid_value", key,
                  std::string(key) + " applies to fine-tuning: set mode to full, lora or qlora");
    }
  }
  const ImportedModel imported = request::model(catalog, req);
  const ModelSpec& model = imported.model;
  InferenceSetup setup;
  setup.model = &model;
  std::optional<CheckpointWeights> checkpoint;
  if (const json* files = jr::find(req, "checkpoint")) {
    checkpoint = checkpoint_from_json(*files, "checkpoint");
    setup.checkpoint = &*checkpoint;
  }
  setup.context = request::positive_int(req, "context", 8192, kMaxContext);
  setup.batch = request::positive_int(req, "batch", 1, kMaxBatch);
  const std::string weights_id = jr::opt_string(req, "weights", "").value_or("native");
  if (weights_id != "native") setup.weights = &catalog.formats.weight(weights_id, "weights");
  setup.kv = &catalog.formats.kv(jr::opt_string(req, "kv", "").value_or("fp16"), "kv");
  const EngineChoice engine = choose_engine(catalog, req);
  const GpuCatalog gpus = request_catalog(catalog, req);
  const Gpu* gpu = nullptr;
  if (auto id = jr::opt_string(req, "gpu", "")) gpu = &gpus.find(*id, "gpu");
  const std::int64_t gpu_count = request::positive_int(req, "gpu_count", 1, 1024);
  const auto budget_gb = jr::opt_number(req, "budget_gb", "");
  if (budget_gb) jr::require_positive(*budget_gb, "budget_gb");

  const InferencePlan plan =
      plan_inference(setup, *engine.profile, engine.options, gpu, gpus, catalog.formats);

  // Assumptions and warnings: the model's, the format's, the engine's.
  json assumptions = json::array();
  auto assume = [&assumptions](const char* id, const std::string& text) {
    assumptions.push_back({{"id", id}, {"text", text}});
  };
  json warnings = json::array();  // the importer's as {"id", "params", "text"}
  for (const Message& w : imported.warnings) warnings.push_back(with_english(w));
  if (setup.weights == nullptr && checkpoint) {
    assume("weights_checkpoint",
           "Weights are the checkpoint's own tensors, byte for byte from its " +
               checkpoint->format + " header" + (checkpoint->files > 1 ? "s" : "") +
               "; choose a weight format to override.");
  } else if (setup.weights == nullptr) {
    assume(
        "weights_native",
        "Weights sized in the checkpoint's own storage (" + model.native_format +
            (model.native_expert_format.empty() ? "" : ", experts " + model.native_expert_format) +
            "); choose a weight format to override.");
    if (!model.native_format_note.empty()) assume("weights_storage", model.native_format_note);
  }
  if (plan.params.total_declared) {
    assume("params_declared", "Parameter count as the source states it (" +
                                  text::grouped(plan.params.total) +
                                  "); the architecture alone gives " +
                                  text::grouped(plan.params.computed.total()) + ".");
  }
  assume("kv_format", "KV cache stored as " + setup.kv->name + " (" +
                          text::fixed(setup.kv->bits_per_element, 1) + " bits per element).");
  if (std::any_of(model.layers.begin(), model.layers.end(),
                  [](const LayerSpec& l) { return l.attention == LayerAttention::kState; })) {
    assume("ssm_state",
           "State-space layers hold a fixed state per sequence: d_inner x (d_conv + d_state) "
           "elements at 16 bits, whatever the context.");
  }
  assume("engine", engine.profile->name + ": " + engine.profile->source);
  for (const std::string& text : plan.assumptions) assume("engine_option", text);
  assume("units", "GB are decimal (10^9 bytes), as cards are marketed; GiB = 2^30 bytes.");
  for (const std::string& w : plan.warnings) warnings.push_back(w);
  if (!model.placeholders.empty()) {
    std::string fields;
    for (const std::string& field : model.placeholders)
      fields += (fields.empty() ? "" : ", ") + field;
    warnings.push_back("Placeholder values (not published by the vendor): " + fields +
                       ". The KV cache is an estimate until real values are known.");
  }
  if (model.max_context > 0 && setup.context > model.max_context) {
    warnings.push_back("The context (" + text::grouped(static_cast<double>(setup.context)) +
                       ") exceeds the model's max_position_embeddings (" +
                       text::grouped(static_cast<double>(model.max_context)) + ").");
  }
  if (gpu != nullptr && setup.weights != nullptr && setup.weights->needs("fp8") &&
      !gpu->supports("fp8")) {
    warnings.push_back(gpu->name + " has no FP8 support (" + gpu->architecture +
                       "): FP8 weights need Ada, Hopper, Blackwell or CDNA 3.");
  }

  const ParamCount& c = plan.params.computed;
  json out = {
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
      {"engine",
       {{"id", engine.profile->id},
        {"name", engine.profile->name},
        {"kind", engine.profile->kind},
        {"options", plan.options}}},
      {"tensor_parallel", plan.tensor_parallel},
      {"weights_gb", bytes_to_gb(plan.weights.bytes)},
      {"kv_cache_gb", bytes_to_gb(plan.kv.bytes)},
      {"kv_bytes_per_token", plan.kv.bytes_per_token},
      {"kv_groups", kv_groups_json(plan.kv)},
      {"total_gb", bytes_to_gb(plan.total_bytes)},
      {"terms", terms_json(plan.terms)},
      {"assumptions", assumptions},
      {"warnings", warnings},
  };
  // The overhead of the conventions, or everything but weights and KV cache.
  double overhead = 0;
  for (const Term& term : plan.terms) {
    if (term.id != "weights" && term.id != "kv_cache") overhead += term.bytes;
  }
  out["overhead_gb"] = bytes_to_gb(overhead);
  if (checkpoint) out["checkpoint"] = checkpoint_summary(*checkpoint);
  if (plan.host_bytes > 0) out["host_gb"] = bytes_to_gb(plan.host_bytes);
  if (plan.budget.present) {
    out["budget"] = budget_json(plan.budget);
    out["kv_budget_gb"] = bytes_to_gb(plan.budget.kv_budget_bytes);
    out["kv_blocks"] = plan.budget.kv_blocks;
    out["max_concurrency"] = plan.budget.max_concurrency;
  }

  // Against a card: capacity, spare, decode ceilings, inverse answers.
  double capacity = budget_gb ? gb_to_bytes(*budget_gb) : 0.0;
  std::string capacity_basis = "budget_gb";
  if (gpu != nullptr) {
    bool estimated = false;
    const double usable = gpus.usable_bytes(*gpu, &estimated);
    const bool paged_or_runtime =
        engine.profile->kind != "flat" && engine.profile->kind != "percent";
    // Conventions compare with the marketed decimal capacity (the guide's
    // tables); engines with what the runtime can allocate.
    if (!budget_gb) {
      capacity = (paged_or_runtime ? usable : gpu->vram_bytes()) * static_cast<double>(gpu_count);
      capacity_basis =
          paged_or_runtime ? "usable memory CUDA reports" : "marketed capacity (decimal GB)";
    }
    json g = *gpu;
    g["usable_gib"] = usable / kBytesPerGiB;
    g["usable_estimated"] = estimated;
    out["gpu"] = g;
    out["gpu_count"] = gpu_count;
    const int group = std::max<int>(plan.tensor_parallel, static_cast<int>(gpu_count));
    out["decode"] =
        decode_json(decode_ceiling(model, plan, gpu->bandwidth_gbps * group, setup.batch));
    out["decode"]["gpus"] = group;
  }
  if (engine.profile->kind == "flat" || engine.profile->kind == "percent") {
    // The cheapest way to hold it on each card of the catalog, and how fast
    // that set decodes (tensor parallel where the link allows).
    FitRules rules;
    rules.needs_fp8 =
        setup.weights != nullptr ? setup.weights->needs("fp8") : model.native_format == "fp8";
    json fits = json::array();
    for (const Option& option : options_by_card(plan.total_bytes, gpus, rules)) {
      json row = option_json(option);
      const DecodeCeiling ceiling = decode_ceiling(
          model, plan, option.gpu->bandwidth_gbps * option.layout.tensor_parallel, setup.batch);
      row["decode_tokens_per_s"] = ceiling.stream_tokens_per_s;
      fits.push_back(std::move(row));
    }
    out["fits"] = std::move(fits);
  }
  if (capacity > 0) {
    const double need = plan.total_bytes;
    out["fit"] = {{"capacity_gb", bytes_to_gb(capacity)},
                  {"basis", capacity_basis},
                  {"spare_gb", bytes_to_gb(capacity - need)},
                  {"fits", plan.budget.present ? plan.budget.fits : need <= capacity}};
    out["inverse"] = inverse_json(inverse_answers(setup, *engine.profile, engine.options, gpu, gpus,
                                                  catalog.formats, capacity));
  }
  return out;
}

}  // namespace vram
