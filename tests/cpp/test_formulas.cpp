// Every formula re-evaluated from its own params: the numbers a formula
// shows are the numbers its term is computed from, so text and value
// cannot drift. One evaluator per formula id, over every term of a few
// hundred seeded random requests (presets x modes x engines x formats x
// contexts...).

#include <algorithm>
#include <cmath>
#include <functional>
#include <map>
#include <random>
#include <set>
#include <string>
#include <vector>

#include <doctest/doctest.h>

#include "helpers.hpp"
#include "vram/error.hpp"
#include "vram/units.hpp"

using nlohmann::json;

namespace {

double num(const json& params, const char* key) { return params.at(key).get<double>(); }

double sum_of(const json& list, const std::function<double(const json&)>& eval) {
  double total = 0;
  for (const json& m : list) total += eval(m);
  return total;
}

/** The bytes a formula message stands for, from its params alone. */
double evaluate(const json& m) {
  const std::string id = m.at("id").get<std::string>();
  const json& p = m.at("params");
  static const std::map<std::string, std::function<double(const json&)>> kEvaluators = {
      {"formula.weights_part", [](const json& q) { return num(q, "params") * num(q, "bits") / 8; }},
      {"formula.weights", [](const json& q) { return sum_of(q.at("parts"), evaluate); }},
      {"formula.weights_split",
       [](const json& q) { return sum_of(q.at("parts"), evaluate) / num(q, "gpus"); }},
      {"formula.weights_moe_split",
       [](const json& q) {
         return (num(q, "rest") / num(q, "tp") + num(q, "routed") * num(q, "num") / num(q, "den")) /
                num(q, "pp");
       }},
      {"formula.model_buffer_vision",
       [](const json& q) {
         return sum_of(q.at("parts"), evaluate) - num(q, "host") - num(q, "vision");
       }},
      {"formula.model_buffer_mtp",
       [](const json& q) {
         return sum_of(q.at("parts"), evaluate) - num(q, "host") - num(q, "mtp");
       }},
      {"formula.encoder_cache",
       [](const json& q) { return num(q, "embeds") * num(q, "hidden") * num(q, "width"); }},
      {"formula.vision_peak",
       [](const json& q) {
         return std::max(
             0.0, num(q, "items") * num(q, "patches") * num(q, "per_patch") - num(q, "text"));
       }},
      {"formula.mmproj", [](const json& q) { return num(q, "params") * num(q, "width"); }},
      {"formula.mmproj_compute", [](const json& q) { return num(q, "scores") + num(q, "hidden"); }},
      {"formula.model_buffer",
       [](const json& q) { return sum_of(q.at("parts"), evaluate) - num(q, "host"); }},
      {"formula.kv_group",
       [](const json& q) {
         return num(q, "layers") * num(q, "kv_heads") * (num(q, "k_dim") + num(q, "v_dim")) *
                num(q, "bytes") * num(q, "tokens");
       }},
      {"formula.kv_group_mla",
       [](const json& q) {
         return num(q, "layers") * (num(q, "latent") + num(q, "rope")) * num(q, "bytes") *
                num(q, "tokens");
       }},
      {"formula.kv_group_state",
       [](const json& q) { return num(q, "layers") * num(q, "state_bytes"); }},
      {"formula.kv_group_state_seqs",
       [](const json& q) {
         return num(q, "layers") * num(q, "state_bytes") * num(q, "sequences");
       }},
      {"formula.kv",
       [](const json& q) { return sum_of(q.at("groups"), evaluate) * num(q, "batch"); }},
      {"formula.overhead_flat", [](const json& q) { return num(q, "bytes"); }},
      {"formula.overhead_pct",
       [](const json& q) { return (num(q, "weights") + num(q, "kv")) * num(q, "pct") / 100; }},
      {"formula.gib", [](const json& q) { return num(q, "gib") * vram::kBytesPerGiB; }},
      {"formula.vllm_activations",
       [](const json& q) {
         return std::max(num(q, "tokens") * num(q, "bytes_per_token"),
                         num(q, "seqs") * num(q, "vocab") * 10);
       }},
      {"formula.vllm_activations_pooling",
       [](const json& q) { return num(q, "tokens") * num(q, "bytes_per_token"); }},
      {"formula.compute_buffer",
       [](const json& q) {
         const double ub = num(q, "ubatch");
         return std::max(
             num(q, "cells") * ub * num(q, "heads") * 4 + 4.5 * ub * num(q, "hidden") * 4,
             ub * num(q, "vocab") * 4);
       }},
      {"formula.compute_buffer_flash",
       [](const json& q) {
         const double ub = num(q, "ubatch");
         return std::max(4.5 * ub * num(q, "hidden") * 4, ub * num(q, "vocab") * 4);
       }},
      {"formula.total", [](const json& q) { return evaluate(q.at("inner")); }},
      {"formula.layer_share",
       [](const json& q) {
         return evaluate(q.at("inner")) * num(q, "layers_here") / num(q, "layers");
       }},
      {"formula.sharded", [](const json& q) { return evaluate(q.at("inner")) / num(q, "gpus"); }},
      {"formula.ft_params",
       [](const json& q) { return num(q, "params") * num(q, "bytes_per_param"); }},
      {"formula.ft_qlora_base",
       [](const json& q) {
         return num(q, "linear") * num(q, "bytes_per_param") +
                num(q, "kept") * num(q, "kept_bytes");
       }},
      {"formula.ft_adapter",
       [](const json& q) { return num(q, "params") * num(q, "bytes_per_param"); }},
      {"formula.ft_trainable",
       [](const json& q) { return num(q, "params") * num(q, "bytes_per_param"); }},
      {"formula.ft_optimizer",
       [](const json& q) { return num(q, "params") * (num(q, "master") + num(q, "state")); }},
      {"formula.ft_offloaded", [](const json&) { return 0.0; }},
      {"formula.ft_guide_extra",
       [](const json& q) { return num(q, "states") * num(q, "pct") / 100; }},
      {"formula.ft_checkpointed", [](const json& q) { return num(q, "inputs") + num(q, "layer"); }},
      {"formula.ft_saved", [](const json& q) { return num(q, "saved") + num(q, "transient"); }},
      {"formula.ft_stored_checkpointed",
       [](const json& q) {
         return num(q, "layers") * num(q, "hidden") * num(q, "element_bytes") * num(q, "seq") *
                num(q, "batch");
       }},
      {"formula.ft_stored_saved", [](const json& q) { return num(q, "saved"); }},
      {"formula.ft_backward",
       [](const json& q) {
         const double stored = num(q, "stored"), layer = num(q, "layer"), grads = num(q, "grads");
         const double peak = std::max({stored + layer, grads + layer, grads + num(q, "step")});
         return std::max(0.0, peak - stored - num(q, "loss"));
       }},
      {"formula.ft_reserve",
       [](const json& q) {
         return num(q, "freed_share") * num(q, "freed") + num(q, "grads_share") * num(q, "grads");
       }},
      {"formula.ft_logits",
       [](const json& q) {
         return num(q, "seq") * num(q, "batch") * num(q, "vocab") * num(q, "bytes_per_logit");
       }},
      {"formula.ft_lm_head_copy",
       [](const json& q) { return num(q, "vocab") * num(q, "hidden") * num(q, "element_bytes"); }},
      {"formula.ft_overhead", [](const json& q) { return num(q, "bytes"); }},
      {"formula.ft_overhead_guide", [](const json& q) { return num(q, "bytes"); }},
      {"formula.ft_overhead_set", [](const json& q) { return num(q, "bytes"); }},
      // transformers: the widest layer's bytes per token, from its own words...
      {"formula.tf_layer_dense",
       [](const json& q) {
         return (4 * num(q, "hidden") + num(q, "ffn_tensors") * num(q, "ffn")) * num(q, "bytes") +
                8;
       }},
      {"formula.tf_layer_moe",
       [](const json& q) {
         return (5 * num(q, "hidden") +
                 num(q, "experts") * (4 * num(q, "hidden") + 3 * num(q, "expert_ffn"))) *
                    num(q, "bytes") +
                8;
       }},
      // ...which must be the per-token figure the prefill multiplies.
      {"formula.tf_prefill",
       [](const json& q) {
         const double per_token = evaluate(q.at("layer"));
         if (std::fabs(per_token - num(q, "per_token")) > 1e-9 * per_token) {
           throw std::runtime_error("tf_prefill: the layer's words disagree with per_token");
         }
         return num(q, "tokens") * per_token + num(q, "positions") * num(q, "per_position");
       }},
      {"formula.tf_layer_attention",
       [](const json& q) {
         return (3 * num(q, "hidden") + 2 * num(q, "q_width") + num(q, "kv_width")) *
                    num(q, "bytes") +
                8;
       }},
      // An EAGLE-3 head: its layer and output head split over the cards, the rest whole on each.
      {"formula.eagle_weights",
       [](const json& q) {
         return (num(q, "layer") + num(q, "head")) / num(q.at("over").at("params"), "gpus") +
                num(q, "fc") + num(q, "rest");
       }},
      {"formula.sglang_draft_pool",
       [](const json& q) { return (num(q, "pool") + num(q, "headroom")) * num(q, "per_token"); }},
      {"formula.tf_mask", [](const json& q) { return num(q, "context") * num(q, "context"); }},
      {"formula.tf_mask_sdpa",
       [](const json& q) {
         return num(q, "context") * num(q, "context") * (1 + num(q, "bytes_per_element"));
       }},
  };
  const auto it = kEvaluators.find(id);
  if (it == kEvaluators.end()) throw std::runtime_error("no evaluator for " + id);
  return it->second(p);
}

template <typename T>
const T& pick(std::mt19937& rng, const std::vector<T>& list) {
  return list[std::uniform_int_distribution<std::size_t>(0, list.size() - 1)(rng)];
}

}  // namespace

TEST_CASE("every formula's params give its term's value") {
  const vram::Catalog& catalog = testing::calculator().catalog();
  std::vector<std::string> models, weights = {"native"}, kvs, engines;
  for (const auto& m : catalog.models) models.push_back(m.id);
  for (const auto& w : catalog.formats.weights()) weights.push_back(w.id);
  for (const auto& k : catalog.formats.kv_formats()) kvs.push_back(k.id);
  for (const auto& e : catalog.engines) engines.push_back(e.id);
  const std::vector<std::string> modes = {"inference", "inference", "full", "lora", "qlora"};
  const std::vector<int> contexts = {1, 512, 8192, 32768, 131072};
  const std::vector<int> batches = {1, 4, 32};
  const std::vector<int> gpu_counts = {1, 2, 8};
  const std::vector<std::string> profiles = {"physical", "guide"};
  const std::vector<std::string> optimizers = {"adamw", "adamw-8bit", "sgd", "adafactor"};
  const std::vector<std::string> precisions = {"mixed", "bf16"};
  const std::vector<std::string> losses = {"standard", "chunked", "fused"};
  std::mt19937 rng(20261130);
  auto coin = [&rng] { return std::uniform_int_distribution<int>(0, 1)(rng) == 1; };

  int requests = 0, terms = 0;
  std::set<std::string> seen;
  for (int i = 0; i < 300; ++i) {
    json r = {{"model", pick(rng, models)}};
    const std::string mode = pick(rng, modes);
    if (mode == "inference") {
      r["weights"] = pick(rng, weights);
      r["kv"] = pick(rng, kvs);
      r["context"] = pick(rng, contexts);
      r["batch"] = pick(rng, batches);
      r["engine"] = pick(rng, engines);
      if ((r["engine"] == "vllm" || r["engine"] == "sglang") && coin())
        r["engine_options"]["tensor_parallel_size"] = pick(rng, gpu_counts);
      if (r["engine"] == "llamacpp") r["engine_options"]["flash_attn"] = coin();
      // llama.cpp's layer split, transformers' device_map: each card holds its share of the
      // layers.
      if ((r["engine"] == "llamacpp" || r["engine"] == "transformers") && coin())
        r["gpu_count"] = pick(rng, gpu_counts);
      if (r["engine"] == "vllm" && coin()) r["engine_options"]["enforce_eager"] = true;
    } else {
      r["mode"] = mode;
      r["finetune_profile"] = pick(rng, profiles);
      r["optimizer"] = pick(rng, optimizers);
      r["precision"] = pick(rng, precisions);
      r["loss"] = pick(rng, losses);
      r["checkpointing"] = coin();
      r["flash_attention"] = coin();
      r["gpu_count"] = pick(rng, gpu_counts);
      r["zero"] = std::uniform_int_distribution<int>(0, 3)(rng);
      r["offload_optimizer"] = coin();
      r["seq"] = pick(rng, contexts);
      r["micro_batch"] = pick(rng, batches);
      if (mode == "qlora") r["upcast_unquantized"] = coin();
      if (mode != "full") r["lora_rank"] = pick(rng, std::vector<int>{8, 16, 64});
    }
    json result;
    try {
      result = testing::estimate(r);
    } catch (const vram::Error& e) {
      // Setups a model cannot take (a pipeline deeper than its layers) say so; skip them.
      CHECK_MESSAGE(e.code() == "invalid_value", r.dump(), " ", e.what());
      continue;
    }
    ++requests;
    for (const json& term : result.at("terms")) {
      CAPTURE(r.dump());
      CAPTURE(term.at("id"));
      REQUIRE(term.at("formula").is_object());
      const double bytes = term.at("gb").get<double>() * vram::kBytesPerGB;
      const double from_params = evaluate(term.at("formula"));
      CHECK(std::fabs(from_params - bytes) <= 1e-9 * std::max(1.0, std::fabs(bytes)));
      const json& params = term.at("formula").at("params");
      if (params.contains("bytes")) {
        CHECK(std::fabs(params.at("bytes").get<double>() - bytes) <=
              1e-9 * std::max(1.0, std::fabs(bytes)));
      }
      seen.insert(term.at("formula").at("id").get<std::string>());
      ++terms;
    }
  }
  CHECK(requests > 250);
  CHECK(terms > 1000);
  // The random requests reach every formula (and so every evaluator is tried).
  for (const char* id :
       {"formula.weights", "formula.weights_split", "formula.kv", "formula.overhead_flat",
        "formula.overhead_pct", "formula.gib", "formula.vllm_activations", "formula.compute_buffer",
        "formula.compute_buffer_flash", "formula.total", "formula.sharded", "formula.layer_share",
        "formula.tf_prefill", "formula.tf_mask"}) {
    CHECK_MESSAGE(seen.count(id) == 1, id);
  }
}

TEST_CASE("the LoRA adapter term names the precision its bytes use") {
  for (const char* precision : {"mixed", "bf16"}) {
    const json r =
        testing::estimate({{"model", "llama-3.1-8b"}, {"mode", "lora"}, {"precision", precision}});
    for (const json& term : r.at("terms")) {
      if (term.at("id") != "adapter") continue;
      const json& inner = term.at("formula").at("params").at("inner");
      const double bpp = inner.at("params").at("bytes_per_param").get<double>();
      const std::string format =
          term.at("label").at("params").at("format").at("params").at("name").get<std::string>();
      CHECK(bpp == (std::string(precision) == "bf16" ? 2.0 : 4.0));
      CHECK(format == (bpp == 2.0 ? "BF16" : "FP32"));
    }
  }
}

TEST_CASE("an EAGLE-3 head's formulas give its terms' values") {
  std::set<std::string> seen;
  for (const char* engine : {"vllm", "sglang", "guide", "percent"}) {
    for (const int gpus : {1, 2, 4}) {
      for (const char* model : {"llama-3.1-8b", "llama-3.1-70b"}) {
        const json r = {{"model", model},          {"engine", engine},
                        {"gpu", "h200-sxm"},       {"gpu_count", gpus},
                        {"speculative", "eagle3"}, {"draft_tokens", 4},
                        {"context", 4096},         {"batch", 8}};
        CAPTURE(r.dump());
        const json result = testing::estimate(r);
        for (const json& term : result.at("terms")) {
          CAPTURE(term.at("id"));
          const double bytes = term.at("gb").get<double>() * vram::kBytesPerGB;
          CHECK(std::fabs(evaluate(term.at("formula")) - bytes) <=
                1e-9 * std::max(1.0, std::fabs(bytes)));
          seen.insert(term.at("formula").at("id").get<std::string>());
        }
      }
    }
  }
  CHECK(seen.count("formula.eagle_weights") == 1);
  CHECK(seen.count("formula.sglang_draft_pool") == 1);
}
