#include "vram/api.hpp"

#include <algorithm>

#include "json_read.hpp"
#include "model_json.hpp"
#include "request.hpp"
#include "vram/error.hpp"
#include "vram/inference.hpp"
#include "vram/kv_cache.hpp"
#include "vram/text.hpp"
#include "vram/units.hpp"

namespace vram {

using nlohmann::json;
namespace jr = json_read;

namespace {

constexpr std::int64_t kMaxContext = 100'000'000;
constexpr std::int64_t kMaxBatch = 1'000'000;

json term(const char* id, const char* label, double bytes, std::string formula, json inputs) {
  return json{{"id", id},
              {"label", label},
              {"gb", bytes_to_gb(bytes)},
              {"formula", std::move(formula)},
              {"inputs", std::move(inputs)}};
}

json weights_json(const WeightsSize& weights) {
  json parts = json::array();
  for (const WeightPart& part : weights.parts) {
    parts.push_back({{"component", part.component},
                     {"params", part.params},
                     {"format", part.format->id},
                     {"bits_per_weight", part.format->bits_per_weight},
                     {"gb", bytes_to_gb(part.bytes)}});
  }
  return parts;
}

std::string weights_formula(const WeightsSize& weights) {
  std::string formula;
  for (const WeightPart& part : weights.parts) {
    if (!formula.empty()) formula += " + ";
    formula += text::grouped(part.params) + " params x " +
               text::fixed(part.format->bits_per_weight, 3) + " bits / 8 (" + part.format->name +
               ")";
  }
  return formula + " = " + text::gb(weights.bytes);
}

std::string kv_formula(const ModelSpec& model, const KvFormat& kv, const KvCacheSize& cache,
                       std::int64_t batch) {
  std::string formula;
  for (const KvGroup& group : cache.groups) {
    if (!formula.empty()) formula += " + ";
    const std::string layers =
        std::to_string(group.layers) + " " + to_string(group.attention) + " layers";
    switch (group.attention) {
      case LayerAttention::kGlobal:
      case LayerAttention::kSliding:
        formula += "2 x " + layers + " x " + std::to_string(model.num_kv_heads) + " KV heads x " +
                   std::to_string(model.head_dim) + " head dim x " +
                   text::fixed(kv.bytes_per_element(), 3) + " bytes x " +
                   text::grouped(static_cast<double>(group.tokens_held)) + " tokens";
        break;
      case LayerAttention::kMla:
        formula += layers + " x (" + std::to_string(model.mla.kv_lora_rank) + " latent + " +
                   std::to_string(model.mla.qk_rope_head_dim) + " rope) x " +
                   text::fixed(kv.bytes_per_element(), 3) + " bytes x " +
                   text::grouped(static_cast<double>(group.tokens_held)) + " tokens";
        break;
      case LayerAttention::kState:
        formula += layers + " x " + text::grouped(group.state_bytes) + " bytes of state";
        break;
    }
  }
  return formula + " x batch " + std::to_string(batch) + " = " + text::gb(cache.bytes);
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

}  // namespace

Calculator::Calculator() : catalog_(Catalog::builtin()) {}
Calculator::Calculator(Catalog catalog) : catalog_(std::move(catalog)) {}

json Calculator::estimate(const json& req) const {
  jr::expect_object(req, "request");
  request::reject_unknown_keys(
      req, {"model", "config", "name", "params_total", "params_active", "weights", "kv", "context",
            "batch", "overhead_gb", "overhead_pct"});
  ImportedModel imported = request::model(catalog_, req);
  const ModelSpec& model = imported.model;
  const std::int64_t context = request::positive_int(req, "context", 8192, kMaxContext);
  const std::int64_t batch = request::positive_int(req, "batch", 1, kMaxBatch);
  const std::string weights_id = jr::opt_string(req, "weights", "").value_or("native");
  const KvFormat& kv = catalog_.formats.kv(jr::opt_string(req, "kv", "").value_or("fp16"), "kv");
  const Overhead overhead = request::overhead(req);

  const ParamTotals params = param_totals(model);
  const WeightsSize weights =
      weights_id == "native"
          ? weights_native(model, params, catalog_.formats)
          : weights_uniform(params, catalog_.formats.weight(weights_id, "weights"));
  const KvCacheSize cache = kv_cache(model, kv, context, batch);
  const double overhead_b = overhead_bytes(overhead, weights.bytes, cache.bytes);
  const double total = weights.bytes + cache.bytes + overhead_b;

  json assumptions = json::array();
  std::vector<std::string> warnings = imported.warnings;
  if (weights.native) {
    assumptions.push_back(
        {{"id", "weights_native"},
         {"text",
          "Weights sized in the checkpoint's own storage (" + model.native_format +
              (model.native_expert_format.empty() ? ""
                                                  : ", experts " + model.native_expert_format) +
              "); pick a format to override."}});
    if (!model.native_format_note.empty()) {
      assumptions.push_back({{"id", "weights_storage"}, {"text", model.native_format_note}});
    }
  }
  if (params.total_declared) {
    assumptions.push_back(
        {{"id", "params_declared"},
         {"text", "Parameter count as the source states it (" + text::grouped(params.total) +
                      "); the architecture alone gives " + text::grouped(params.computed.total()) +
                      "."}});
  }
  assumptions.push_back(
      {{"id", "kv_format"},
       {"text", "KV cache stored as " + kv.name + " (" + text::fixed(kv.bits_per_element, 1) +
                    " bits per element)."}});
  assumptions.push_back(
      {{"id", "units"}, {"text", "GB are decimal (10^9 bytes), as cards are marketed."}});
  if (!model.placeholders.empty()) {
    std::string fields;
    for (const std::string& field : model.placeholders)
      fields += (fields.empty() ? "" : ", ") + field;
    warnings.push_back("Placeholder values (not published by the vendor): " + fields +
                       ". The KV cache is an estimate until real values are known.");
  }

  json terms = json::array();
  terms.push_back(term("weights", "Weights", weights.bytes, weights_formula(weights),
                       {{"params", params.total}, {"storage", weights_json(weights)}}));
  terms.push_back(term("kv_cache", "KV cache", cache.bytes, kv_formula(model, kv, cache, batch),
                       {{"context", context},
                        {"batch", batch},
                        {"kv_format", kv.id},
                        {"bytes_per_element", kv.bytes_per_element()},
                        {"kv_bytes_per_token", cache.bytes_per_token}}));
  const std::string overhead_formula =
      overhead.kind == Overhead::Kind::kFlat
          ? "flat " + text::gb(overhead.flat_bytes) + " per process (the guide's convention)"
          : text::fixed(overhead.percent, 1) + "% of weights + KV cache = " + text::gb(overhead_b);
  terms.push_back(term("overhead", "Runtime overhead", overhead_b, overhead_formula,
                       {{"kind", overhead.kind == Overhead::Kind::kFlat ? "flat" : "percent"},
                        {"flat_gb", bytes_to_gb(overhead.flat_bytes)},
                        {"percent", overhead.percent}}));

  json out = {
      {"model", model_summary(model, params)},
      {"params_total", params.total},
      {"params_active", params.active},
      {"weights", weights_id},
      {"weights_storage", weights_json(weights)},
      {"kv", kv.id},
      {"context", context},
      {"batch", batch},
      {"weights_gb", bytes_to_gb(weights.bytes)},
      {"kv_cache_gb", bytes_to_gb(cache.bytes)},
      {"kv_bytes_per_token", cache.bytes_per_token},
      {"kv_groups", kv_groups_json(cache)},
      {"overhead_gb", bytes_to_gb(overhead_b)},
      {"total_gb", bytes_to_gb(total)},
      {"terms", terms},
      {"assumptions", assumptions},
      {"warnings", warnings},
  };
  return out;
}

json Calculator::presets() const {
  json models = json::array();
  for (const ModelPreset& preset : catalog_.models) {
    models.push_back({{"id", preset.id},
                      {"name", preset.name},
                      {"group", preset.group},
                      {"source", preset.source},
                      {"placeholders", preset.placeholders}});
  }
  return json{{"models", models},
              {"weight_formats", catalog_.formats.weights()},
              {"kv_formats", catalog_.formats.kv_formats()},
              {"gpus", catalog_.gpus.gpus},
              {"links", catalog_.presets}};
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
