#include "tables.hpp"

#include <algorithm>
#include <cmath>

#include "json_read.hpp"
#include "request.hpp"
#include "vram/decode.hpp"
#include "vram/engine.hpp"
#include "vram/error.hpp"
#include "vram/finetune.hpp"
#include "vram/fit.hpp"
#include "vram/units.hpp"

namespace vram {

using nlohmann::json;
namespace jr = json_read;

namespace {

const char* const kGuideModels[] = {"guide-7b", "guide-13b", "guide-34b", "guide-70b",
                                    "guide-405b"};
const char* const kGridMethods[] = {"bf16", "fp8", "int4", "qlora", "lora", "full"};
// The MoE planner's accelerators, in its table's order (SPEC section 6).
const char* const kPlannerAccelerators[] = {
    "h100-sxm", "h200-sxm", "b200",   "b300",   "a100-sxm", "rtx-pro-6000",  "l40s",
    "rtx-5090", "rtx-4090", "mi300x", "mi325x", "mi355x",   "apple-m3-ultra"};
const char* const kPlannerFormats[] = {"bf16", "fp8", "q4_k_m", "int4"};

std::vector<std::string> string_list(const json& req, const char* key,
                                     std::vector<std::string> fallback) {
  if (jr::find(req, key) == nullptr) return fallback;
  std::vector<std::string> list = jr::opt_strings(req, key, "");
  if (list.empty()) throw Error("invalid_value", key, std::string(key) + " must not be empty");
  return list;
}

double fraction(const json& req, double fallback) {
  const double value = jr::opt_number(req, "usable_fraction", "").value_or(fallback);
  if (!(value > 0 && value <= 1)) {
    throw Error("invalid_value", "usable_fraction", "usable_fraction must be in (0, 1]");
  }
  return value;
}

json layout_json(const Layout& l) {
  return {{"tensor_parallel", l.tensor_parallel},
          {"pipeline_stages", l.pipeline_stages},
          {"servers", l.servers},
          {"devices", l.devices}};
}

}  // namespace

json option_json(const Option& o) {
  return {{"gpu", o.gpu->id},
          {"name", o.gpu->name},
          {"count", o.count},
          {"nodes", o.nodes},
          {"by_quote", o.by_quote},
          {"monthly_usd", o.by_quote || !o.priced ? json(nullptr) : json(o.monthly)},
          {"list_monthly_usd", o.priced ? json(o.list_monthly) : json(nullptr)},
          {"discount_percent", o.discount_percent},
          {"capacity_gb", bytes_to_gb(o.capacity_bytes)},
          {"spare_gb", bytes_to_gb(o.spare_bytes)},
          {"tight", o.tight},
          {"layout", layout_json(o.layout)}};
}

namespace {

json fit_json(const FitAnswer& answer) {
  json excluded = json::array();
  for (const Exclusion& e : answer.excluded) {
    excluded.push_back({{"gpu", e.option.gpu->id},
                        {"name", e.option.gpu->name},
                        {"count", e.option.count},
                        {"monthly_usd", e.option.monthly},
                        {"rule", e.rule},
                        {"reason", e.reason}});
  }
  return {{"pick", answer.found ? option_json(answer.pick) : json(nullptr)},
          {"excluded", excluded}};
}

json rules_json(const FitRules& rules) {
  return {{"usable_fraction", rules.usable_fraction},
          {"tight_single_gb", bytes_to_gb(rules.tight_single_bytes)},
          {"tight_per_card_gb", bytes_to_gb(rules.tight_per_card_bytes)},
          {"set_sizes", rules.set_sizes}};
}

/** The grid's memory figure for one model and method, in bytes. */
double grid_need(const Catalog& catalog, const ModelSpec& model, const std::string& method,
                 std::int64_t context, std::int64_t batch) {
  if (method == "qlora" || method == "lora" || method == "full") {
    FinetuneSetup s;
    s.model = &model;
    s.method = method == "full"   ? FinetuneMethod::kFull
               : method == "lora" ? FinetuneMethod::kLora
                                  : FinetuneMethod::kQlora;
    s.profile = "guide";
    return plan_finetune(s, catalog.formats, false).total_bytes;
  }
  InferenceSetup s;
  s.model = &model;
  s.weights = &catalog.formats.weight(method, "methods");
  s.kv = &catalog.formats.kv("fp16", "kv");
  s.context = context;
  s.batch = batch;
  const EngineProfile& guide = find_engine(catalog.engines, "guide", "engine");
  return plan_inference(s, guide, guide.defaults, nullptr, catalog.gpus, catalog.formats, false)
      .total_bytes;
}

}  // namespace

GpuCatalog request_catalog(const Catalog& catalog, const json& req) {
  if (const json* replacement = jr::find(req, "catalog"))
    return gpu_catalog_from_json(*replacement, "catalog");
  return catalog.gpus;
}

json grid_json(const Catalog& catalog, const json& req) {
  jr::expect_object(req, "request");
  request::reject_unknown_keys(
      req, {"models", "methods", "context", "batch", "catalog", "usable_fraction"});
  const std::vector<std::string> models =
      string_list(req, "models", {std::begin(kGuideModels), std::end(kGuideModels)});
  const std::vector<std::string> methods =
      string_list(req, "methods", {std::begin(kGridMethods), std::end(kGridMethods)});
  for (const std::string& m : methods) {
    if (std::find(std::begin(kGridMethods), std::end(kGridMethods), m) == std::end(kGridMethods)) {
      throw Error(
          "invalid_value", "methods",
          "unknown method '" + Error::quote(m) + "' (methods: bf16, fp8, int4, qlora, lora, full)");
    }
  }
  const std::int64_t context = request::positive_int(req, "context", 8192, 100'000'000);
  const std::int64_t batch = request::positive_int(req, "batch", 1, 1'000'000);
  const GpuCatalog gpus = request_catalog(catalog, req);
  FitRules base;
  base.usable_fraction = fraction(req, 1.0);

  json rows = json::array();
  for (const std::string& id : models) {
    const ImportedModel imported = resolve_preset(catalog.model(id, "models"));
    json cells = json::array();
    for (const std::string& method : methods) {
      const double need = grid_need(catalog, imported.model, method, context, batch);
      FitRules rules = base;
      rules.needs_fp8 = method == "fp8";
      rules.needs_fast_link = method == "full";
      json cell = fit_json(fit(need, gpus, rules));
      cell["method"] = method;
      cell["vram_gb"] = bytes_to_gb(need);
      cell["needs_fast_link"] = rules.needs_fast_link;
      cells.push_back(cell);
    }
    rows.push_back({{"model", id}, {"name", imported.model.name}, {"cells", cells}});
  }
  return {
      {"context", context},
      {"batch", batch},
      {"currency", gpus.currency},
      {"rules", rules_json(base)},
      {"conventions",
       "Inference: weights + FP16 KV cache + 2 GB (the guide's convention). QLoRA/LoRA/full: the "
       "guide's fine-tuning profile (sequence 2,048, batch 1, checkpointing; full = 16 bytes per "
       "parameter + 15%). Full fine-tune sets need a switched (NVLink/NVSwitch/Infinity Fabric) "
       "interconnect."},
      {"rows", rows}};
}

json devices_json(const Catalog& catalog, const json& req) {
  jr::expect_object(req, "request");
  request::reject_unknown_keys(req, {"model", "accelerators", "formats", "usable_fraction",
                                     "context", "kv", "batch", "catalog"});
  const std::string id = jr::opt_string(req, "model", "").value_or("beam");
  const ImportedModel imported = resolve_preset(catalog.model(id, "model"));
  const GpuCatalog gpus = request_catalog(catalog, req);
  const std::vector<std::string> accelerators = string_list(
      req, "accelerators", {std::begin(kPlannerAccelerators), std::end(kPlannerAccelerators)});
  const std::vector<std::string> formats =
      string_list(req, "formats", {std::begin(kPlannerFormats), std::end(kPlannerFormats)});
  const double usable = fraction(req, 0.92);
  const std::int64_t context = request::positive_int(req, "context", 8192, 100'000'000);
  const std::int64_t batch = request::positive_int(req, "batch", 1, 1'000'000);
  const KvFormat& kv = catalog.formats.kv(jr::opt_string(req, "kv", "").value_or("fp16"), "kv");
  const ParamTotals params = param_totals(imported.model);
  const KvCacheSize cache = kv_cache(imported.model, kv, context, batch);

  json rows = json::array();
  for (const std::string& accelerator : accelerators) {
    const Gpu& gpu = gpus.find(accelerator, "accelerators");
    json cells = json::array();
    for (const std::string& format_id : formats) {
      const WeightFormat& format = catalog.formats.weight(format_id, "formats");
      const double weights = weights_uniform(params, format).bytes;
      const int minimum = min_devices(weights, gpu, usable);
      const Layout layout = deployable_layout(minimum, gpus.node_size);
      const double room_min = minimum * gpu.vram_bytes() * usable - weights;
      const double room = layout.devices * gpu.vram_bytes() * usable - weights;
      cells.push_back({{"format", format.id},
                       {"format_name", format.name},
                       {"weights_gb", bytes_to_gb(weights)},
                       {"min_devices", minimum},
                       {"layout", layout_json(layout)},
                       {"kv_room_gb", bytes_to_gb(room)},
                       {"kv_room_min_devices_gb", bytes_to_gb(room_min)},
                       {"kv_cache_gb", bytes_to_gb(cache.bytes)},
                       {"kv_fits", cache.bytes <= room},
                       {"kv_fits_min_devices", cache.bytes <= room_min}});
    }
    rows.push_back({{"accelerator", gpu.id},
                    {"name", gpu.name},
                    {"vram_gb", gpu.vram_gb},
                    {"vendor", gpu.vendor},
                    {"cells", cells}});
  }
  json out = {{"model", id},
              {"name", imported.model.name},
              {"params_total", params.total},
              {"params_active", params.active},
              {"usable_fraction", usable},
              {"context", context},
              {"batch", batch},
              {"kv", kv.id},
              {"kv_bytes_per_token", cache.bytes_per_token},
              {"placeholders", imported.model.placeholders},
              {"rows", rows}};
  return out;
}

json fleet_json(const Catalog& catalog, const json& req) {
  jr::expect_object(req, "request");
  request::reject_unknown_keys(req, {"model", "weights", "context", "batch", "catalog"});
  const GpuCatalog gpus = request_catalog(catalog, req);
  std::optional<ImportedModel> imported;
  if (auto id = jr::opt_string(req, "model", ""))
    imported = resolve_preset(catalog.model(*id, "model"));
  const std::string weights_id = jr::opt_string(req, "weights", "").value_or("native");
  const WeightFormat* format =
      weights_id == "native" ? nullptr : &catalog.formats.weight(weights_id, "weights");
  const std::int64_t context = request::positive_int(req, "context", 8192, 100'000'000);
  const std::int64_t batch = request::positive_int(req, "batch", 1, 1'000'000);

  json out = json::array();
  for (const Gpu& gpu : gpus.gpus) {
    if (!gpu.priced) continue;  // the fleet is what can be rented
    json row = {{"id", gpu.id},
                {"name", gpu.name},
                {"memory_type", gpu.memory_type},
                {"architecture", gpu.architecture},
                {"fp8", gpu.fp8},
                {"min_order", gpu.min_order},
                {"vram_gb", gpu.vram_gb},
                {"bandwidth_gbps", gpu.bandwidth_gbps},
                {"monthly_usd", gpu.monthly_usd},
                {"usd_per_gb_month", gpu.monthly_usd / gpu.vram_gb},
                {"gbps_per_usd_month",
                 gpu.monthly_usd > 0 ? json(gpu.bandwidth_gbps / gpu.monthly_usd) : json(nullptr)},
                {"usd_per_hour", gpu.monthly_usd / gpus.hours_per_month},
                {"interconnect", gpu.interconnect.kind},
                {"notes", gpu.notes}};
    if (imported) {
      // The model on this card alone: the cards it needs (guide convention),
      // their price, and the decode ceiling of that set.
      InferenceSetup s;
      s.model = &imported->model;
      s.weights = format;
      s.kv = &catalog.formats.kv("fp16", "kv");
      s.context = context;
      s.batch = batch;
      const EngineProfile& guide = find_engine(catalog.engines, "guide", "engine");
      const InferencePlan plan =
          plan_inference(s, guide, guide.defaults, nullptr, gpus, catalog.formats, false);
      GpuCatalog only = gpus;
      only.gpus = {gpu};
      FitRules rules;
      rules.needs_fp8 =
          format != nullptr ? format->needs("fp8") : imported->model.native_format == "fp8";
      const FitAnswer answer = fit(plan.total_bytes, only, rules);
      row["vram_needed_gb"] = bytes_to_gb(plan.total_bytes);
      if (answer.found && !answer.pick.by_quote) {
        const Option& o = answer.pick;
        // Tensor parallelism multiplies bandwidth; a layer split does not.
        const int parallel = o.layout.tensor_parallel;
        const DecodeCeiling ceiling =
            decode_ceiling(imported->model, plan, gpu.bandwidth_gbps * parallel, 1);
        // The ceiling: bandwidth over the weights a token reads (all of a
        // dense model's, the chosen experts' of an MoE: SPEC section 5);
        // with the KV cache read at the given context, per stream.
        const double ceiling_tps = ceiling.bandwidth_bytes_per_s / ceiling.active_weight_bytes;
        const double tokens_per_month = ceiling_tps * 3600.0 * gpus.hours_per_month;
        row["fit"] = option_json(o);
        row["decode_tokens_per_s"] = ceiling_tps;
        row["decode_guide_tokens_per_s"] = ceiling.guide_tokens_per_s;
        row["decode_stream_tokens_per_s"] = ceiling.stream_tokens_per_s;
        row["usd_per_million_tokens"] =
            tokens_per_month > 0 ? json(o.monthly / tokens_per_month * 1e6) : json(nullptr);
      } else {
        row["fit"] = nullptr;
        row["unfit_reason"] = answer.found || answer.excluded.empty()
                                  ? "needs more than one 8-card node"
                                  : answer.excluded.front().reason;
      }
    }
    out.push_back(row);
  }
  return out;
}

}  // namespace vram
