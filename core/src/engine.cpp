#include "vram/engine.hpp"

#include <algorithm>
#include <cmath>

#include "json_read.hpp"
#include "vram/checkpoint.hpp"
#include "vram/error.hpp"
#include "vram/text.hpp"
#include "vram/units.hpp"

namespace vram {

using nlohmann::json;
namespace jr = json_read;

std::vector<EngineProfile> engine_profiles_from_json(const json& engines) {
  std::vector<EngineProfile> out;
  for (std::size_t i = 0; i < engines.size(); ++i) {
    const json& e = engines[i];
    const std::string at = "engines[" + std::to_string(i) + "]";
    EngineProfile profile;
    profile.id = jr::get_string(e, "id", at);
    profile.name = jr::get_string(e, "name", at);
    profile.kind = jr::get_string(e, "kind", at);
    profile.source = jr::get_string(e, "source", at);
    if (const json* d = jr::find(e, "defaults")) profile.defaults = *d;
    if (const json* s = jr::find(e, "option_sources")) profile.option_sources = *s;
    out.push_back(std::move(profile));
  }
  return out;
}

const EngineProfile& find_engine(const std::vector<EngineProfile>& engines, const std::string& id,
                                 const std::string& field) {
  for (const EngineProfile& engine : engines) {
    if (engine.id == id) return engine;
  }
  std::string known;
  for (const EngineProfile& engine : engines) known += (known.empty() ? "" : ", ") + engine.id;
  throw Error("unknown_engine", field,
              "unknown engine '" + Error::quote(id) + "' (known: " + known + ")");
}

json storage_json(const WeightsSize& weights) {
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

WeightsSize setup_weights(const InferenceSetup& setup, const ParamTotals& params,
                          const FormatCatalog& formats) {
  if (setup.weights != nullptr) return weights_uniform(params, *setup.weights);
  if (setup.checkpoint != nullptr) return checkpoint_weights(*setup.checkpoint);
  return weights_native(*setup.model, params, formats);
}

namespace {

double d(std::int64_t v) { return static_cast<double>(v); }

}  // namespace

json engine_options(const EngineProfile& engine, const json& options) {
  json merged = engine.defaults;
  if (options.is_null()) return merged;
  jr::expect_object(options, "engine_options");
  for (auto it = options.begin(); it != options.end(); ++it) {
    const std::string field = "engine_options." + it.key();
    if (!engine.defaults.contains(it.key())) {
      std::string known;
      for (auto k = engine.defaults.begin(); k != engine.defaults.end(); ++k) {
        known += (known.empty() ? "" : ", ") + k.key();
      }
      throw Error("unknown_field", field,
                  "engine '" + engine.id + "' has no option '" + Error::quote(it.key()) +
                      "' (options: " + known + ")");
    }
    const json& fallback = engine.defaults.at(it.key());
    if (fallback.is_boolean()) {
      if (!it->is_boolean()) throw Error("wrong_type", field, field + " must be true or false");
    } else {
      const double value = jr::as_number(*it, field);
      // Sizes in GiB and the conventions' own overhead may be zero, as at the
      // top level (overhead_gb: 0); every other knob must be positive.
      const bool zero_ok = it.key().find("gib") != std::string::npos || it.key() == "overhead_gb" ||
                           it.key() == "overhead_pct";
      jr::require_positive(value, field, zero_ok);
      static const char* const kWhole[] = {
          "block_size",           "max_num_batched_tokens", "max_num_seqs",
          "tensor_parallel_size", "pipeline_parallel_size", "n_ubatch"};
      const bool whole = std::any_of(std::begin(kWhole), std::end(kWhole),
                                     [&](const char* key) { return it.key() == key; });
      if (whole && std::floor(value) != value) {
        throw Error("invalid_value", field, field + " must be a whole number");
      }
      const bool fraction =
          it.key() == "gpu_memory_utilization" || it.key() == "mem_fraction_static";
      if (fraction && value > 1) throw Error("invalid_value", field, field + " must be at most 1");
      if (value > 1e9) throw Error("invalid_value", field, field + " is too large");
    }
    merged[it.key()] = *it;
  }
  return merged;
}

namespace {

std::string weights_formula(const WeightsSize& weights, int shards) {
  std::string formula;
  for (const WeightPart& part : weights.parts) {
    if (!formula.empty()) formula += " + ";
    formula += text::grouped(part.params) + " params x " +
               text::fixed(part.format->bits_per_weight, 3) + " bits / 8 (" + part.format->name +
               ")";
  }
  if (shards > 1) {
    formula = "(" + formula + ") / " + std::to_string(shards) + " GPUs";
  }
  return formula + " = " + text::gb(weights.bytes / shards);
}

std::string kv_formula(const ModelSpec& model, const KvFormat& kv, const KvCacheSize& cache,
                       std::int64_t batch) {
  std::string formula;
  for (const KvGroup& group : cache.groups) {
    if (!formula.empty()) formula += " + ";
    const std::string layers =
        std::to_string(group.layers) + " " + to_string(group.attention) + " layers";
    const std::string tokens = text::grouped(d(group.tokens_held)) + " tokens";
    const std::string bytes = text::fixed(kv.bytes_per_element(), 3) + " bytes";
    switch (group.attention) {
      case LayerAttention::kGlobal:
      case LayerAttention::kSliding:
        formula += "2 x " + layers + " x " + std::to_string(model.num_kv_heads) + " KV heads x " +
                   std::to_string(model.head_dim) + " head dim x " + bytes + " x " + tokens;
        break;
      case LayerAttention::kMla:
        formula += layers + " x (" + std::to_string(model.mla.kv_lora_rank) + " latent + " +
                   std::to_string(model.mla.qk_rope_head_dim) + " rope) x " + bytes + " x " +
                   tokens;
        break;
      case LayerAttention::kState:
        formula += layers + " x " + text::grouped(group.state_bytes) + " bytes of state";
        break;
    }
  }
  return formula + " x batch " + std::to_string(batch) + " = " + text::gb(cache.bytes);
}

Term weights_term(const WeightsSize& weights, const ParamTotals& params, int shards, bool explain) {
  if (!explain) return {"weights", "Weights", weights.bytes / shards, {}, {}};
  return {"weights", "Weights", weights.bytes / shards, weights_formula(weights, shards),
          json{{"params", params.total}, {"storage", storage_json(weights)}, {"gpus", shards}}};
}

Term kv_term(const ModelSpec& model, const KvFormat& kv, const KvCacheSize& cache,
             const InferenceSetup& setup, bool explain) {
  if (!explain) return {"kv_cache", "KV cache", cache.bytes, {}, {}};
  return {"kv_cache", "KV cache", cache.bytes, kv_formula(model, kv, cache, setup.batch),
          json{{"context", setup.context},
               {"batch", setup.batch},
               {"kv_format", kv.id},
               {"bytes_per_element", kv.bytes_per_element()},
               {"kv_bytes_per_token", cache.bytes_per_token}}};
}

Term gib_term(const char* id, const char* label, double gib, const char* why, bool explain) {
  if (!explain) return {id, label, gib * kBytesPerGiB, {}, {}};
  return {id, label, gib * kBytesPerGiB,
          text::fixed(gib, 2) + " GiB (" + text::gb(gib * kBytesPerGiB) + "): " + std::string(why),
          json{{"gib", gib}}};
}

/** The model as one GPU of a tensor-parallel group holds it: KV heads split, latents not. */
ModelSpec shard(const ModelSpec& model, int tp) {
  ModelSpec local = model;
  const std::int64_t t = tp;
  local.num_kv_heads = std::max<std::int64_t>(1, (model.num_kv_heads + t - 1) / t);
  local.num_heads = std::max<std::int64_t>(1, model.num_heads / t);
  return local;
}

/**
 * Bytes per token alive at the widest point of vLLM's profiling forward
 * pass, on one GPU of a tensor-parallel group: the MLP's gate/up output and
 * activated product (3 x FFN width / TP), the residual and hidden state
 * (2 x hidden) and the q/k/v projections; in MoE layers, the fused-MoE
 * caches of the k chosen experts (3 x expert width / TP each) and their k
 * hidden-wide outputs before they are summed. 2 bytes per element.
 */
double vllm_forward_bytes_per_token(const ModelSpec& m, int tp) {
  const double t = tp;
  const double h = d(m.hidden_size);
  const double qkv = d((m.num_heads + 2 * m.num_kv_heads) * m.head_dim) / t;
  double widest = 0;
  for (const LayerSpec& layer : m.layers) {
    double elements = 2.0 * h + qkv;
    if (layer.mlp == LayerMlp::kDense) {
      elements += 3.0 * d(m.intermediate_size) / t;
    } else {
      const double k = d(m.moe.experts_per_token);
      elements += k * (3.0 * d(m.moe.expert_intermediate) / t + h) +
                  3.0 * d(m.moe.shared_experts * m.moe.shared_intermediate) / t;
    }
    widest = std::max(widest, elements);
  }
  return widest * 2.0;
}

/**
 * Bytes per token as a paged engine allocates them. Layers of one kind
 * share pages; vLLM's hybrid allocator pads global and sliding layers to
 * groups of equal size (the smaller count), so each group costs as much.
 */
double paged_bytes_per_token(const ModelSpec& local, const KvFormat& kv) {
  std::int64_t global = 0, sliding = 0, mla = 0;
  for (const LayerSpec& layer : local.layers) {
    global += layer.attention == LayerAttention::kGlobal;
    sliding += layer.attention == LayerAttention::kSliding;
    mla += layer.attention == LayerAttention::kMla;
  }
  const double attention = kv_bytes_per_token(local, LayerAttention::kGlobal, kv);
  const double latent = kv_bytes_per_token(local, LayerAttention::kMla, kv);
  if (global > 0 && sliding > 0) {
    const std::int64_t group = std::min(global, sliding);
    const std::int64_t groups = (global + group - 1) / group + (sliding + group - 1) / group;
    return d(groups * group) * attention + d(mla) * latent;
  }
  return d(global + sliding) * attention + d(mla) * latent;
}

void budget_card(EngineBudget& budget, const Gpu* gpu, const GpuCatalog& gpus, double share) {
  if (gpu == nullptr) return;
  budget.present = true;
  budget.usable_bytes = gpus.usable_bytes(*gpu, &budget.usable_estimated);
  budget.reserved_bytes = budget.usable_bytes * share;
}

void plan_vllm(const InferenceSetup& setup, const json& o, const Gpu* gpu, const GpuCatalog& gpus,
               bool explain, InferencePlan& plan) {
  const ModelSpec& m = *setup.model;
  const int pp = static_cast<int>(o.at("pipeline_parallel_size").get<double>());
  if (pp > m.num_layers()) {
    throw Error("invalid_value", "engine_options.pipeline_parallel_size",
                "pipeline_parallel_size exceeds the model's layers");
  }
  // The first pipeline stage holds the most layers: ceil(layers / pp).
  const int shards = plan.tensor_parallel * pp;  // GPUs that split the weights
  ModelSpec local = shard(m, plan.tensor_parallel);
  local.layers.resize(static_cast<std::size_t>((m.num_layers() + pp - 1) / pp));
  const KvCacheSize cache = kv_cache(local, *setup.kv, setup.context, setup.batch);
  plan.terms.push_back(weights_term(plan.weights, plan.params, shards, explain));
  plan.terms.push_back(kv_term(local, *setup.kv, cache, setup, explain));

  // NCCL and vLLM's custom all-reduce keep buffers per peer over NVLink;
  // over PCIe the custom all-reduce is off and little is added.
  const bool nvlink = gpu == nullptr || gpu->interconnect.switched();
  double non_torch = o.at("non_torch_gib").get<double>();
  if (shards > 1) {
    non_torch += nvlink ? o.at("nccl_gib_per_peer").get<double>() * (shards - 1)
                        : o.at("pcie_multi_gpu_gib").get<double>();
  }
  plan.terms.push_back(gib_term(
      "non_torch", "CUDA context and non-torch memory", non_torch,
      shards > 1 ? (nvlink ? "CUDA context, NCCL and custom all-reduce buffers per NVLink peer"
                           : "CUDA context and NCCL over PCIe")
                 : "CUDA context and library workspaces",
      explain));

  const double tokens = o.at("max_num_batched_tokens").get<double>();
  const double seqs = o.at("max_num_seqs").get<double>();
  const double per_token = vllm_forward_bytes_per_token(m, plan.tensor_parallel);
  const double forward = tokens * per_token;
  const double sampler = seqs * d(m.vocab_size) * 4.0 * 2.0;
  // The forward pass frees its activations before the sampler runs.
  const double activations = std::max(forward, sampler);
  Term act{"activations", "Activation peak (profiling pass)", activations, {}, {}};
  if (explain) {
    act.formula = "max(forward " + text::grouped(tokens) + " tokens x " + text::grouped(per_token) +
                  " bytes, sampler " + text::grouped(seqs) + " seqs x " +
                  text::grouped(d(m.vocab_size)) + " vocab x 8 bytes) = " + text::gb(activations);
    act.inputs = {{"max_num_batched_tokens", tokens},
                  {"bytes_per_token", per_token},
                  {"max_num_seqs", seqs},
                  {"forward_gb", bytes_to_gb(forward)},
                  {"sampler_gb", bytes_to_gb(sampler)}};
  }
  plan.terms.push_back(std::move(act));
  const bool eager = o.at("enforce_eager").get<bool>();
  const double graphs = eager ? 0.0 : o.at("cuda_graph_gib").get<double>();
  plan.terms.push_back(gib_term("cuda_graph", "CUDA graphs", graphs,
                                eager ? "none with enforce_eager" : "captured decode graphs",
                                explain));

  EngineBudget& b = plan.budget;
  b.kv_bytes_per_token = paged_bytes_per_token(local, *setup.kv);
  budget_card(b, gpu, gpus, o.at("gpu_memory_utilization").get<double>());
  if (!b.present) return;
  b.kv_budget_bytes = b.reserved_bytes - plan.weights.bytes / shards - non_torch * kBytesPerGiB -
                      activations - graphs * kBytesPerGiB;
  const double block = o.at("block_size").get<double>();
  if (b.kv_budget_bytes > 0 && b.kv_bytes_per_token > 0) {
    b.kv_blocks =
        static_cast<std::int64_t>(std::floor(b.kv_budget_bytes / (block * b.kv_bytes_per_token)));
    b.kv_tokens = b.kv_blocks * static_cast<std::int64_t>(block);
    b.max_concurrency = d(b.kv_tokens) / d(setup.context);
  }
  b.fits = b.kv_budget_bytes > 0 && d(b.kv_tokens) >= d(setup.context) &&
           cache.bytes <= std::max(0.0, b.kv_budget_bytes);
  if (!b.fits && explain) {
    plan.warnings.push_back(b.kv_budget_bytes <= 0
                                ? "vLLM would not start: weights and overheads exceed "
                                  "gpu_memory_utilization x the card."
                                : "vLLM's KV budget holds " + text::grouped(d(b.kv_tokens)) +
                                      " tokens, fewer than " +
                                      text::grouped(d(setup.context * setup.batch)) +
                                      " requested: lower the context or batch, or add GPUs.");
  }
}

void plan_sglang(const InferenceSetup& setup, const json& o, const Gpu* gpu, const GpuCatalog& gpus,
                 bool explain, InferencePlan& plan) {
  const int tp = plan.tensor_parallel;
  const ModelSpec local = shard(*setup.model, tp);
  const KvCacheSize cache = kv_cache(local, *setup.kv, setup.context, setup.batch);
  plan.terms.push_back(weights_term(plan.weights, plan.params, tp, explain));
  plan.terms.push_back(kv_term(local, *setup.kv, cache, setup, explain));
  const double non_torch = o.at("non_torch_gib").get<double>();
  plan.terms.push_back(gib_term("non_torch", "CUDA context and graphs", non_torch,
                                "taken before the KV pool is sized", explain));
  EngineBudget& b = plan.budget;
  b.kv_bytes_per_token = cache.bytes_per_token;
  budget_card(b, gpu, gpus, o.at("mem_fraction_static").get<double>());
  if (!b.present) return;
  b.kv_budget_bytes = b.reserved_bytes - plan.weights.bytes / tp - non_torch * kBytesPerGiB;
  if (b.kv_budget_bytes > 0 && b.kv_bytes_per_token > 0) {
    b.kv_tokens = static_cast<std::int64_t>(std::floor(b.kv_budget_bytes / b.kv_bytes_per_token));
    b.kv_blocks = b.kv_tokens;  // SGLang pages one token at a time
    b.max_concurrency = d(b.kv_tokens) / d(setup.context);
  }
  b.fits = b.kv_budget_bytes > 0 && cache.bytes <= b.kv_budget_bytes;
  if (!b.fits && explain) {
    plan.warnings.push_back("SGLang's KV pool (" + text::gb(std::max(0.0, b.kv_budget_bytes)) +
                            ") cannot hold the requested context x batch.");
  }
}

void plan_llamacpp(const InferenceSetup& setup, const json& o, bool explain, InferencePlan& plan) {
  const ModelSpec& m = *setup.model;
  // llama.cpp keeps token_embd in host memory and runs only the lookup there;
  // a tied model also needs it as the output matrix, so a copy goes on the GPU.
  const double per_param = plan.weights.bytes / plan.params.total;
  double embedding = plan.params.computed.embedding * per_param;
  // From a checkpoint's files, token_embd's own bytes.
  if (setup.weights == nullptr && setup.checkpoint != nullptr) {
    const auto it = setup.checkpoint->by_component.find("embeddings");
    embedding = it == setup.checkpoint->by_component.end() ? 0.0 : it->second.bytes;
  }
  const double host = m.tied_embeddings ? 0.0 : embedding;
  plan.host_bytes = embedding;
  Term weights = weights_term(plan.weights, plan.params, 1, explain);
  weights.label = "Model buffer";
  weights.bytes = plan.weights.bytes - host;
  if (explain) {
    if (host > 0)
      weights.formula += ", minus token_embd kept in host memory (" + text::gb(host) + ")";
    weights.inputs["host_gb"] = bytes_to_gb(host);
  }
  plan.terms.push_back(std::move(weights));

  // n_ctx cells are shared by all parallel sequences.
  const std::int64_t cells = setup.context * setup.batch;
  const double ubatch = o.at("n_ubatch").get<double>();
  // Sliding layers keep their window plus one ubatch, or everything with --swa-full.
  ModelSpec local = m;
  if (o.at("kv_full_swa").get<bool>()) {
    for (LayerSpec& layer : local.layers) {
      if (layer.attention == LayerAttention::kSliding) layer.attention = LayerAttention::kGlobal;
    }
  } else if (m.sliding_window > 0) {
    local.sliding_window = m.sliding_window + static_cast<std::int64_t>(ubatch);
  }
  const KvCacheSize cache = kv_cache(local, *setup.kv, cells, 1);
  Term kv = kv_term(local, *setup.kv, cache, setup, explain);
  kv.label = "KV buffer";
  if (explain) kv.inputs["cells"] = cells;
  plan.terms.push_back(std::move(kv));

  const bool flash = o.at("flash_attn").get<bool>();
  const double hidden = ubatch * d(m.hidden_size) * 4.0 * 4.5;
  const double scores = flash ? 0.0 : d(cells) * ubatch * d(m.num_heads) * 4.0;
  const double logits = ubatch * d(m.vocab_size) * 4.0;
  const double compute = std::max(scores + hidden, logits);
  Term buffer{"compute_buffer", "Compute buffer", compute, {}, {}};
  if (explain) {
    const std::string ub = text::fixed(ubatch, 0);
    buffer.formula = "max(" +
                     (flash ? std::string("flash attention: ")
                            : text::grouped(d(cells)) + " cells x " + ub + " ubatch x " +
                                  std::to_string(m.num_heads) + " heads x 4 bytes + ") +
                     "4.5 x " + ub + " x " + std::to_string(m.hidden_size) + " x 4 bytes, logits " +
                     ub + " x " + text::grouped(d(m.vocab_size)) +
                     " x 4 bytes) = " + text::gb(compute);
    buffer.inputs = {{"n_ubatch", ubatch},
                     {"flash_attn", flash},
                     {"scores_bytes", scores},
                     {"logits_bytes", logits}};
  }
  plan.terms.push_back(std::move(buffer));
  plan.terms.push_back(gib_term("cuda_context", "CUDA context",
                                o.at("cuda_context_gib").get<double>(), "outside ggml's buffers",
                                explain));
}

}  // namespace

InferencePlan plan_inference(const InferenceSetup& setup, const EngineProfile& engine,
                             const json& options, const Gpu* gpu, const GpuCatalog& gpus,
                             const FormatCatalog& formats, bool explain) {
  InferencePlan plan;
  plan.options = options;
  const json& o = plan.options;
  plan.params = setup.params != nullptr ? *setup.params : param_totals(*setup.model);
  plan.weights = setup_weights(setup, plan.params, formats);
  plan.kv = kv_cache(*setup.model, *setup.kv, setup.context, setup.batch);
  if (o.contains("tensor_parallel_size")) {
    const double tp = o.at("tensor_parallel_size").get<double>();
    if (tp > 64)
      throw Error("invalid_value", "engine_options.tensor_parallel_size",
                  "tensor_parallel_size must be at most 64");
    plan.tensor_parallel = static_cast<int>(tp);
  }

  if (engine.kind == "flat" || engine.kind == "percent") {
    plan.terms.push_back(weights_term(plan.weights, plan.params, 1, explain));
    plan.terms.push_back(kv_term(*setup.model, *setup.kv, plan.kv, setup, explain));
    Overhead overhead;
    if (engine.kind == "flat") {
      overhead.kind = Overhead::Kind::kFlat;
      overhead.flat_bytes = gb_to_bytes(o.at("overhead_gb").get<double>());
    } else {
      overhead.kind = Overhead::Kind::kPercent;
      overhead.percent = o.at("overhead_pct").get<double>();
    }
    const double bytes = overhead_bytes(overhead, plan.weights.bytes, plan.kv.bytes);
    Term term{"overhead", "Runtime overhead", bytes, {}, {}};
    if (explain) {
      term.formula =
          overhead.kind == Overhead::Kind::kFlat
              ? "flat " + text::gb(bytes) + " per process (" + engine.name + ")"
              : text::fixed(overhead.percent, 1) + "% of weights + KV cache = " + text::gb(bytes);
      term.inputs = {{"kind", engine.kind}, {"overhead_gb", bytes_to_gb(bytes)}};
    }
    plan.terms.push_back(std::move(term));
  } else if (engine.kind == "vllm") {
    plan_vllm(setup, o, gpu, gpus, explain, plan);
  } else if (engine.kind == "sglang") {
    plan_sglang(setup, o, gpu, gpus, explain, plan);
  } else if (engine.kind == "llamacpp") {
    plan_llamacpp(setup, o, explain, plan);
  } else {
    throw Error("internal", "engine",
                "engine '" + engine.id + "' has unknown kind '" + engine.kind + "'");
  }
  for (const Term& term : plan.terms) plan.total_bytes += term.bytes;

  if (!explain) return plan;
  for (auto it = o.begin(); it != o.end(); ++it) {
    const std::string value = it->is_boolean()
                                  ? (it->get<bool>() ? "true" : "false")
                                  : text::fixed(it->get<double>(), it->is_number_integer() ? 0 : 2);
    std::string why;
    if (engine.option_sources.contains(it.key()))
      why = ": " + engine.option_sources.at(it.key()).get<std::string>();
    plan.assumptions.push_back(engine.name + " " + it.key() + " = " + value + why);
  }
  for (auto it = engine.option_sources.begin(); it != engine.option_sources.end(); ++it) {
    if (!o.contains(it.key()))
      plan.assumptions.push_back(engine.name + " " + it.key() + ": " + it->get<std::string>());
  }
  if (plan.budget.present && plan.budget.usable_estimated) {
    plan.warnings.push_back("The usable memory of " + (gpu ? gpu->name : std::string("this card")) +
                            " is estimated from its marketed size (" + gpus.usable_default_source +
                            ")");
  }
  return plan;
}

}  // namespace vram
