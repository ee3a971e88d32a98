#include "tables.hpp"

#include <algorithm>
#include <cmath>
#include <utility>

#include "vram/decode.hpp"
#include "vram/engine.hpp"
#include "vram/error.hpp"
#include "vram/finetune.hpp"
#include "vram/fit.hpp"
#include "vram/requests.hpp"
#include "vram/sort.hpp"
#include "vram/speed.hpp"
#include "vram/units.hpp"

namespace vram {

using nlohmann::json;

namespace {

// option_json and its parts run for every card of every answer and grid
// cell: they set keys one by one, since the {{key, value}, ...} form first
// builds a two-element array per key.
json layout_json(const Layout& l) {
  json out = json::object();
  out["tensor_parallel"] = l.tensor_parallel;
  out["pipeline_stages"] = l.pipeline_stages;
  out["servers"] = l.servers;
  out["devices"] = l.devices;
  return out;
}

}  // namespace

json option_json(const Option& o) {
  json out = json::object();
  out["gpu"] = o.gpu->id;
  out["name"] = o.gpu->name;
  out["count"] = o.count;
  out["nodes"] = o.nodes;
  out["by_quote"] = o.by_quote;
  out["monthly_usd"] = o.by_quote || !o.priced ? json(nullptr) : json(o.monthly);
  out["list_monthly_usd"] = o.priced ? json(o.list_monthly) : json(nullptr);
  out["discount_percent"] = o.discount_percent;
  out["capacity_gb"] = bytes_to_gb(o.capacity_bytes);
  out["spare_gb"] = bytes_to_gb(o.spare_bytes);
  out["tight"] = o.tight;
  out["layout"] = layout_json(o.layout);
  return out;
}

namespace {

json fit_json(const FitAnswer& answer) {
  json excluded = json::array();
  for (const Exclusion& e : answer.excluded) {
    json row = json::object();
    row["gpu"] = e.option.gpu->id;
    row["name"] = e.option.gpu->name;
    row["count"] = e.option.count;
    row["monthly_usd"] = e.option.monthly;
    row["rule"] = e.rule;
    row["reason"] = e.reason;
    excluded.push_back(std::move(row));
  }
  json out = json::object();
  out["pick"] = answer.found ? option_json(answer.pick) : json(nullptr);
  out["excluded"] = std::move(excluded);
  return out;
}

json rules_json(const FitRules& rules) {
  return obj({{"usable_fraction", rules.usable_fraction},
              {"tight_single_gb", bytes_to_gb(rules.tight_single_bytes)},
              {"tight_per_card_gb", bytes_to_gb(rules.tight_per_card_bytes)},
              {"set_sizes", rules.set_sizes}});
}

/** The grid's memory figure for one model and method, in bytes. */
double grid_need(const Catalog& catalog, const ModelSpec& model, const std::string& method,
                 std::int64_t context, std::int64_t batch) {
  if (method == "qlora" || method == "lora" || method == "full") {
    // The estimate's defaults for the method (its schema), under the guide's
    // convention (whose adapters' activations count attention's saved scores).
    FinetuneSetup s = finetune_setup(json{{"mode", method}}.get<EstimateRequest>());
    s.model = &model;
    s.profile = FinetuneProfile::kGuide;
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

std::optional<double> stored_bits(const Catalog& catalog, const ModelPreset& preset) {
  // Only these configs are read for it: the rest are read when asked for.
  if (preset.config.find("\"quantization_config\"") == std::string_view::npos) return std::nullopt;
  return quantized_stored_bits(catalog.resolve(preset).model, catalog.formats);
}

const GpuCatalog& request_catalog(const Catalog& catalog, const std::optional<json>& replacement,
                                  std::optional<GpuCatalog>& own) {
  if (!replacement) return catalog.gpus;
  own = gpu_catalog_from_json(*replacement, "catalog");
  return *own;
}

json grid_json(const Catalog& catalog, const json& request) {
  const GridRequest req = request.get<GridRequest>();
  const std::vector<std::string>& models = req.models;
  const std::vector<std::string>& methods = req.methods;
  const std::int64_t context = req.context;
  const std::int64_t batch = req.batch;
  std::optional<GpuCatalog> own_gpus;
  const GpuCatalog& gpus = request_catalog(catalog, req.catalog, own_gpus);
  FitRules base;
  base.usable_fraction = req.usable_fraction;

  json rows = json::array();
  for (const std::string& id : models) {
    const ImportedModel imported = catalog.resolve(catalog.model(id, "models"));
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
      cells.push_back(std::move(cell));
    }
    rows.push_back(
        obj({{"model", id}, {"name", imported.model.name}, {"cells", std::move(cells)}}));
  }
  return obj({{"context", context},
              {"batch", batch},
              {"currency", gpus.currency},
              {"rules", rules_json(base)},
              {"conventions", Message{"grid.conventions"}},
              {"rows", std::move(rows)}});
}

json devices_json(const Catalog& catalog, const json& request) {
  const DevicesRequest req = request.get<DevicesRequest>();
  const std::string& id = req.model;
  const ImportedModel imported = catalog.resolve(catalog.model(id, "model"));
  std::optional<GpuCatalog> own_gpus;
  const GpuCatalog& gpus = request_catalog(catalog, req.catalog, own_gpus);
  const std::vector<std::string>& accelerators = req.accelerators;
  const std::vector<std::string>& formats = req.formats;
  const double usable = req.usable_fraction;
  const std::int64_t context = req.context;
  const std::int64_t batch = req.batch;
  const KvFormat& kv = catalog.formats.kv(req.kv, "kv");
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
      cells.push_back(obj({{"format", format.id},
                           {"format_name", format.name},
                           {"weights_gb", bytes_to_gb(weights)},
                           {"min_devices", minimum},
                           {"layout", layout_json(layout)},
                           {"kv_room_gb", bytes_to_gb(room)},
                           {"kv_room_min_devices_gb", bytes_to_gb(room_min)},
                           {"kv_cache_gb", bytes_to_gb(cache.bytes)},
                           {"kv_fits", cache.bytes <= room},
                           {"kv_fits_min_devices", cache.bytes <= room_min}}));
    }
    rows.push_back(obj({{"accelerator", gpu.id},
                        {"name", gpu.name},
                        {"vram_gb", gpu.vram_gb},
                        {"vendor", gpu.vendor},
                        {"cells", std::move(cells)}}));
  }
  json out = obj({{"model", id},
                  {"name", imported.model.name},
                  {"params_total", params.total},
                  {"params_active", params.active},
                  {"usable_fraction", usable},
                  {"context", context},
                  {"batch", batch},
                  {"kv", kv.id},
                  {"kv_bytes_per_token", cache.bytes_per_token},
                  {"placeholders", imported.model.placeholders},
                  {"rows", std::move(rows)}});
  return out;
}

json fleet_json(const Catalog& catalog, const json& request) {
  const FleetRequest req = request.get<FleetRequest>();
  std::optional<GpuCatalog> own_gpus;
  const GpuCatalog& gpus = request_catalog(catalog, req.catalog, own_gpus);
  std::optional<ImportedModel> imported;
  if (req.model) imported = catalog.resolve(catalog.model(*req.model, "model"));
  const WeightFormat* format =
      req.weights == "native" ? nullptr : &catalog.formats.weight(req.weights, "weights");
  const std::int64_t context = req.context;
  const std::int64_t batch = req.batch;

  json out = json::array();
  for (const Gpu& gpu : gpus.gpus) {
    if (!gpu.priced) continue;  // the fleet is what can be rented
    json row =
        obj({{"id", gpu.id},
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
             {"notes", gpu.notes}});
    if (imported) {
      // The model on this card alone: the cards it needs (guide convention),
      // their price, and the decode ceiling of that set.
      InferenceSetup s;
      s.model = &imported->model;
      s.weights = no_wider_than_stored(imported->model, format, catalog.formats);
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
        // The ceiling per stream, as the calculator's cheapest list shows
        // it: bandwidth over what a step reads, the weights a token uses
        // (all of a dense model's, the chosen experts' of an MoE: SPEC
        // section 5) and the stream's KV cache at the given context.
        const double ceiling_tps = ceiling.stream_tokens_per_s;
        // What the set is expected to decode, as the calculator's cheapest
        // list says it under the guide convention (no engine named: a
        // CUDA-graph server, data/speed.json "default"): the tensor group
        // reads at once, the rest of the set in stages; FP8 runs as FP8
        // where the card has it. The price per token follows it, for all
        // the streams of the batch together.
        const SpeedLayout layout{parallel, std::max(1, o.count / parallel)};
        const std::string format_id =
            format != nullptr ? format->id : imported->model.native_format;
        const DecodeSpeed expected =
            expected_decode(imported->model, plan, gpu, layout, batch, format_id,
                            format_id == "fp8" && gpu.supports("fp8"),
                            catalog.speed.profile(guide.id), catalog.speed);
        const double tokens_per_month =
            expected.expected_batch_tokens_per_s * 3600.0 * gpus.hours_per_month;
        row["fit"] = option_json(o);
        row["decode_tokens_per_s"] = ceiling_tps;
        row["decode_guide_tokens_per_s"] = ceiling.guide_tokens_per_s;
        row["decode_stream_tokens_per_s"] = ceiling.stream_tokens_per_s;
        row["decode_expected_tokens_per_s"] = expected.expected_tokens_per_s;
        row["usd_per_million_tokens"] =
            tokens_per_month > 0 ? json(o.monthly / tokens_per_month * 1e6) : json(nullptr);
      } else {
        row["fit"] = nullptr;
        row["unfit_reason"] = answer.found || answer.excluded.empty()
                                  ? Message{"fleet.beyond_node",
                                            obj({{"gpu", gpu.name}, {"node_size", gpus.node_size}})}
                                  : answer.excluded.front().reason;
      }
    }
    out.push_back(row);
  }
  return out;
}

}  // namespace vram

namespace vram {

json fit_models_json(const Catalog& catalog, const json& request) {
  const FitModelsRequest req = request.get<FitModelsRequest>();
  std::optional<GpuCatalog> own_gpus;
  const GpuCatalog& gpus = request_catalog(catalog, req.catalog, own_gpus);
  const Gpu* gpu = req.gpu ? &gpus.find(*req.gpu, "gpu") : nullptr;
  if (gpu == nullptr && !req.budget_gb) {
    throw Error::make("missing_field", "gpu", "error.gpu_or_budget", json::object());
  }
  const WeightFormat* format =
      req.weights == "native" ? nullptr : &catalog.formats.weight(req.weights, "weights");
  const KvFormat& kv = catalog.formats.kv(req.kv, "kv");
  // The guide's convention, as the grid and the fleet: weights + KV cache +
  // a flat overhead against the marketed capacity of the set, or the budget.
  const double capacity = req.budget_gb
                              ? gb_to_bytes(*req.budget_gb)
                              : gpus.card_bytes(*gpu) * static_cast<double>(req.gpu_count);
  const EngineProfile& guide = find_engine(catalog.engines, "guide", "engine");

  json rows = json::array();
  for (const ModelPreset& preset : catalog.models) {
    const ImportedModel imported = catalog.resolve(preset);
    const ModelSpec& model = imported.model;
    // Never wider than the checkpoint: a model stored narrower than the
    // asked format is sized as stored (gpt-oss in FP8 would double).
    const WeightFormat* weights = no_wider_than_stored(model, format, catalog.formats);
    const bool as_stored = weights != format;
    InferenceSetup s;
    s.model = &model;
    s.weights = weights;
    s.kv = &kv;
    s.context = req.context;
    s.batch = req.batch;
    const InferencePlan plan =
        plan_inference(s, guide, guide.defaults, nullptr, gpus, catalog.formats, false);
    const bool needs_fp8 =
        weights != nullptr ? weights->needs("fp8") : model.native_format == "fp8";
    // A budget names no card: only a card can lack FP8.
    const bool no_fp8 = gpu != nullptr && !req.budget_gb && needs_fp8 && !gpu->supports("fp8");
    rows.push_back(obj({{"id", preset.id},
                        {"name", preset.name},
                        {"group", preset.group},
                        {"total_gb", bytes_to_gb(plan.total_bytes)},
                        {"spare_gb", bytes_to_gb(capacity - plan.total_bytes)},
                        {"context_over", model.max_context > 0 && req.context > model.max_context},
                        {"no_fp8", no_fp8},
                        {"as_stored", as_stored},
                        {"fits", plan.total_bytes <= capacity && !no_fp8}}));
  }
  // Largest first: the biggest model that fits is the answer people look for.
  stable_sort_by(rows.get_ref<json::array_t&>(), [](const json& a, const json& b) {
    return a.at("total_gb").get<double>() > b.at("total_gb").get<double>();
  });
  const char* basis = req.budget_gb        ? "basis.budget"
                      : req.gpu_count == 1 ? "basis.marketed_one"
                                           : "basis.marketed";
  json out = obj({{"capacity_gb", bytes_to_gb(capacity)},
                  {"basis", Message{basis}},
                  {"gpu_count", req.budget_gb ? 1 : req.gpu_count},
                  {"weights", req.weights},
                  {"kv", kv.id},
                  {"context", req.context},
                  {"batch", req.batch},
                  {"models", std::move(rows)}});
  // A budget of one's own names no card: no "gpu" key rather than a null.
  if (gpu != nullptr) out["gpu"] = gpu->id;
  return out;
}

}  // namespace vram
