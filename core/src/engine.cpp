#include "vram/engine.hpp"

#include <algorithm>
#include <cmath>
#include <iterator>

#include "json_read.hpp"
#include "vram/checkpoint.hpp"
#include "vram/error.hpp"
#include "vram/units.hpp"

namespace vram {

using nlohmann::json;
namespace jr = json_read;

const char* to_string(EngineKind kind) { return kEngineKindNames[static_cast<int>(kind)]; }

namespace {

EngineKind parse_kind(const std::string& kind, const std::string& field) {
  for (std::size_t i = 0; i < std::size(kEngineKindNames); ++i) {
    if (kind == kEngineKindNames[i]) return static_cast<EngineKind>(i);
  }
  throw Error("internal", field, field + ": unknown engine kind '" + kind + "'");
}

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
  } else {
    throw Error("internal", where + ".type", where + ".type must be bool, int or number");
  }
  knob.min = jr::opt_number(limits, "min", where);
  knob.max = jr::opt_number(limits, "max", where);
  knob.min_exclusive = jr::opt_bool(limits, "min_exclusive", where).value_or(false);
  knob.max_exclusive = jr::opt_bool(limits, "max_exclusive", where).value_or(false);
  knob.unit = jr::opt_string(limits, "unit", where).value_or("");
  // "auto": the plan picks the value (llama.cpp's placement); the knob takes the word or a number.
  if (jr::opt_bool(limits, "auto", where).value_or(false)) {
    if (knob.type == FieldType::kBool) {
      throw Error("internal", where + ".auto", where + ".auto needs a number type");
    }
    knob.choices = {kAuto};
  }
  knob.modes = kInferenceMode;
  knob.help = "help.engine_options." + key;
  if (knob.type != FieldType::kBool && (!knob.min || !knob.max)) {
    throw Error("internal", where, where + " needs min and max: every number has a range");
  }
  check_value(knob, fallback, "defaults." + key);  // the defaults obey their own limits
  return knob;
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
    profile.kind = parse_kind(jr::get_string(e, "kind", at), at + ".kind");
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
        throw Error("internal", limits_at, limits_at + " has no entry for knob '" + it.key() + "'");
      }
      profile.knobs.push_back(knob_from_json(it.key(), limits->at(it.key()), *it, limits_at));
    }
    if (limits != nullptr && limits->size() != profile.knobs.size()) {
      throw Error("internal", limits_at, limits_at + " lists a knob without a default");
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
  std::string known;
  for (const EngineProfile& engine : engines) known += (known.empty() ? "" : ", ") + engine.id;
  throw Error("unknown_engine", field,
              "unknown engine '" + Error::quote(id) + "' (known: " + known + ")");
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

namespace {

double d(std::int64_t v) { return static_cast<double>(v); }

}  // namespace

json engine_options(const EngineProfile& engine, const json& options, const std::string& prefix) {
  json merged = engine.defaults;
  jr::expect_object(options, prefix.empty() ? "request" : prefix);
  for (auto it = options.begin(); it != options.end(); ++it) {
    const std::string field = jr::field_path(prefix, it.key());
    const FieldSpec* knob = find_field(engine.knobs, it.key());
    if (knob == nullptr) {
      std::string known;
      for (const FieldSpec& k : engine.knobs) known += (known.empty() ? "" : ", ") + k.name;
      throw Error(
          "unknown_field", field,
          "engine '" + engine.id + "' has no option '" + it.key() + "' (options: " + known + ")");
    }
    check_value(*knob, *it, field);
    // Whole numbers stay whole (4.0 arrives as 4), so answers print them so.
    merged[it.key()] = knob->type == FieldType::kInt && it->is_number()
                           ? json(static_cast<std::int64_t>(it->get<double>()))
                           : *it;
  }
  return merged;
}

namespace {

/** Each part: {params} params x {bits} bits / 8 ({format}). */
json weight_parts(const WeightsSize& weights) {
  json parts = json::array();
  for (const WeightPart& part : weights.parts) {
    parts.push_back(Message{"formula.weights_part", obj({{"params", part.params},
                                                         {"bits", part.format->bits_per_weight},
                                                         {"format", part.format->name}})});
  }
  return parts;
}

Message weights_formula(const WeightsSize& weights, int shards) {
  return {
      shards > 1 ? "formula.weights_split" : "formula.weights",
      obj({{"parts", weight_parts(weights)}, {"gpus", shards}, {"bytes", weights.bytes / shards}})};
}

Message attention_word(LayerAttention kind) {
  return {std::string("attention.") + to_string(kind), json::object()};
}

/** Each group of layers' cache per sequence, then x batch. */
Message kv_formula(const ModelSpec& model, const KvFormat& kv, const KvCacheSize& cache,
                   std::int64_t batch) {
  json groups = json::array();
  for (const KvGroup& group : cache.groups) {
    switch (group.attention) {
      case LayerAttention::kGlobal:
      case LayerAttention::kSliding:
        groups.push_back(
            Message{"formula.kv_group", obj({{"layers", group.layers},
                                             {"attention", attention_word(group.attention)},
                                             {"kv_heads", model.num_kv_heads},
                                             {"k_dim", model.head_dim},
                                             {"v_dim", model.v_head_dim},
                                             {"bytes", kv.bytes_per_element()},
                                             {"tokens", group.tokens_held}})});
        break;
      case LayerAttention::kMla:
        groups.push_back(Message{"formula.kv_group_mla", obj({{"layers", group.layers},
                                                              {"latent", model.mla.kv_lora_rank},
                                                              {"rope", model.mla.qk_rope_head_dim},
                                                              {"bytes", kv.bytes_per_element()},
                                                              {"tokens", group.tokens_held}})});
        break;
      case LayerAttention::kState:
        groups.push_back(
            Message{"formula.kv_group_state",
                    obj({{"layers", group.layers}, {"state_bytes", group.state_bytes}})});
        break;
    }
  }
  return {"formula.kv", obj({{"groups", groups}, {"batch", batch}, {"bytes", cache.bytes}})};
}

Term weights_term(const WeightsSize& weights, const ParamTotals& params, int shards, bool explain) {
  if (!explain) return {"weights", {"term.weights"}, weights.bytes / shards, {}, {}};
  return {"weights",
          {"term.weights"},
          weights.bytes / shards,
          weights_formula(weights, shards),
          obj({{"params", params.total}, {"storage", storage_json(weights)}, {"gpus", shards}})};
}

/** `batch` is the one the cache was computed with (llama.cpp: 1, over context x batch cells). */
Term kv_term(const ModelSpec& model, const KvFormat& kv, const KvCacheSize& cache,
             std::int64_t batch, const InferenceSetup& setup, bool explain) {
  if (!explain) return {"kv_cache", {"term.kv_cache"}, cache.bytes, {}, {}};
  return {"kv_cache",
          {"term.kv_cache"},
          cache.bytes,
          kv_formula(model, kv, cache, batch),
          obj({{"context", setup.context},
               {"batch", setup.batch},
               {"kv_format", kv.id},
               {"bytes_per_element", kv.bytes_per_element()},
               {"kv_bytes_per_token", cache.bytes_per_token}})};
}

/** One data-parallel rank's cache: `users` of the request's users (all of them when dp is 1). */
Term rank_kv_term(const ModelSpec& model, const KvFormat& kv, const KvCacheSize& cache,
                  std::int64_t users, const InferenceSetup& setup, std::int64_t dp, bool explain) {
  Term term = kv_term(model, kv, cache, users, setup, explain);
  if (explain && dp > 1) {
    term.inputs["data_parallel"] = dp;
    term.inputs["users_per_rank"] = users;
  }
  return term;
}

/** A fixed amount in GiB, and why it is there (`why.<reason>`). */
Term gib_term(const char* id, double gib, const char* why, bool explain) {
  const Message label{std::string("term.") + id};
  if (!explain) return {id, label, gib * kBytesPerGiB, {}, {}};
  return {id, label, gib * kBytesPerGiB,
          Message{"formula.gib", obj({{"gib", gib},
                                      {"bytes", gib * kBytesPerGiB},
                                      {"why", Message{std::string("why.") + why}}})},
          obj({{"gib", gib}})};
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
 * hidden-wide outputs before they are summed. 2 bytes per element. The
 * experts' width is split by `expert_split`: the MoE group (TP x DP) without
 * expert parallelism, 1 with it (whole experts; every chosen one counted).
 */
double vllm_forward_bytes_per_token(const ModelSpec& m, int tp, int expert_split) {
  const double t = tp;
  const double e = std::max(1, expert_split);
  const double h = d(m.hidden_size);
  const double qkv = d((m.num_heads + 2 * m.num_kv_heads) * m.head_dim) / t;
  double widest = 0;
  for (const LayerSpec& layer : m.layers) {
    double elements = 2.0 * h + qkv;
    if (layer.mlp == LayerMlp::kDense) {
      elements += 3.0 * d(m.intermediate_size) / t;
    } else {
      const double k = d(m.moe.experts_per_token);
      elements += k * (3.0 * d(m.moe.expert_intermediate) / e + h) +
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

/**
 * The weights on one card of a vLLM/SGLang plan: tensor parallelism splits
 * everything by TP; with attention data parallelism or expert parallelism
 * the routed experts are split over the MoE group (TP x DP), or placed whole
 * (the fullest card holds ceil(experts / EP) of them), while the rest is
 * split by TP only, a copy per DP rank. Pipeline stages divide the result.
 */
Term paged_weights_term(const InferencePlan& plan, const ModelSpec& m, int pp, bool explain) {
  const int tp = plan.tensor_parallel;
  const int group = tp * plan.data_parallel;
  if (!m.is_moe() || (plan.data_parallel == 1 && !plan.expert_parallel)) {
    return weights_term(plan.weights, plan.params, tp * pp, explain);
  }
  const double routed = routed_expert_bytes(plan.weights, plan.params);
  const double rest = plan.weights.bytes - routed;
  const std::int64_t num = plan.expert_parallel ? experts_per_gpu(m, group) : 1;
  const std::int64_t den = plan.expert_parallel ? m.moe.num_experts : group;
  const double bytes = (rest / tp + routed * d(num) / d(den)) / pp;
  Term term{"weights", {"term.weights"}, bytes, {}, {}};
  if (!explain) return term;
  term.formula = {"formula.weights_moe_split", obj({{"rest", rest},
                                                    {"tp", tp},
                                                    {"routed", routed},
                                                    {"num", num},
                                                    {"den", den},
                                                    {"pp", pp},
                                                    {"bytes", bytes}})};
  term.inputs = obj({{"params", plan.params.total},
                     {"storage", storage_json(plan.weights)},
                     {"gpus", group * pp},
                     {"routed_experts_gb", bytes_to_gb(routed)},
                     {"experts_per_gpu", plan.expert_parallel ? json(num) : json(nullptr)}});
  return term;
}

void budget_card(EngineBudget& budget, const Gpu* gpu, const GpuCatalog& gpus, double share) {
  if (gpu == nullptr) return;
  budget.present = true;
  budget.usable_bytes = gpus.usable_bytes(*gpu, &budget.usable_estimated);
  budget.reserved_bytes = budget.usable_bytes * share;
}

// A paged engine's first pipeline stage (the fullest: ceil(layers / pp)),
// shared by vLLM and SGLang: its weights and the KV cache of one
// data-parallel rank, which serves its share of the users from its own
// cache; both terms pushed onto the plan.
struct PagedStage {
  ModelSpec local;
  KvCacheSize cache;
  double weights_bytes = 0;
};

PagedStage paged_stage(const InferenceSetup& setup, int pp, bool explain, InferencePlan& plan) {
  const ModelSpec& m = *setup.model;
  if (pp > m.num_layers()) {
    throw Error("invalid_value", "engine_options.pipeline_parallel_size",
                "pipeline_parallel_size exceeds the model's layers");
  }
  PagedStage stage{shard(m, plan.tensor_parallel), {}, 0};
  stage.local.layers.resize(static_cast<std::size_t>((m.num_layers() + pp - 1) / pp));
  const std::int64_t dp = plan.data_parallel;
  const std::int64_t users = (setup.batch + dp - 1) / dp;
  stage.cache = kv_cache(stage.local, *setup.kv, setup.context, users);
  const Term weights = paged_weights_term(plan, m, pp, explain);
  stage.weights_bytes = weights.bytes;
  plan.terms.push_back(weights);
  plan.terms.push_back(
      rank_kv_term(stage.local, *setup.kv, stage.cache, users, setup, dp, explain));
  return stage;
}

void plan_vllm(const InferenceSetup& setup, const json& o, const Gpu* gpu, const GpuCatalog& gpus,
               bool explain, InferencePlan& plan) {
  const ModelSpec& m = *setup.model;
  const int pp = static_cast<int>(o.at("pipeline_parallel_size").get<double>());
  const PagedStage stage = paged_stage(setup, pp, explain, plan);
  const ModelSpec& local = stage.local;
  const KvCacheSize& cache = stage.cache;
  const double weights_bytes = stage.weights_bytes;
  const std::int64_t dp = plan.data_parallel;

  // NCCL and vLLM's custom all-reduce keep buffers per peer over NVLink;
  // over PCIe the custom all-reduce is off and little is added.
  const bool nvlink = gpu == nullptr || gpu->interconnect.switched();
  double non_torch = o.at("non_torch_gib").get<double>();
  if (plan.gpus > 1) {
    non_torch += nvlink ? o.at("nccl_gib_per_peer").get<double>() * (plan.gpus - 1)
                        : o.at("pcie_multi_gpu_gib").get<double>();
  }
  plan.terms.push_back(gib_term(
      "non_torch", non_torch,
      plan.gpus > 1 ? (nvlink ? "nccl_nvlink" : "nccl_pcie") : "cuda_workspaces", explain));

  const double tokens = o.at("max_num_batched_tokens").get<double>();
  const double seqs = o.at("max_num_seqs").get<double>();
  const double per_token = vllm_forward_bytes_per_token(
      m, plan.tensor_parallel,
      plan.expert_parallel ? 1 : plan.tensor_parallel * plan.data_parallel);
  const double forward = tokens * per_token;
  // The sampler's warm-up over max_num_seqs rows of the vocabulary. V1
  // skips top-k and top-p: fp32 logits and probabilities, 8 bytes an
  // element. V0's profile samples with top-k and top-p (vllm/worker/
  // model_runner.py profile_run, "to reflect the accurate memory usage"),
  // and the sort is the peak, 38 bytes an element: the 16-bit logits the
  // runner holds (2) and their fp32 copy (4); torch.sort's values (4) and
  // int64 indices (8), the int64 indices it starts from (8) and cub's
  // alternate key and value buffers (4 + 8) (aten/src/ATen/native/cuda/
  // SortStable.cu, segmented_sort_pairs); the forward's output, tokens x
  // hidden x 2 bytes, is still held.
  const bool top_k = o.at("profile_top_k").get<bool>();
  const double sampler = top_k ? seqs * d(m.vocab_size) * 38.0 + tokens * d(m.hidden_size) * 2.0
                               : seqs * d(m.vocab_size) * 4.0 * 2.0;
  // The forward pass frees its activations before the sampler runs.
  const double activations = std::max(forward, sampler);
  Term act{"activations", {"term.vllm_activations"}, activations, {}, {}};
  if (explain) {
    act.formula = {top_k ? "formula.vllm_activations_top_k" : "formula.vllm_activations",
                   obj({{"tokens", tokens},
                        {"bytes_per_token", per_token},
                        {"seqs", seqs},
                        {"vocab", m.vocab_size},
                        {"hidden", m.hidden_size},
                        {"bytes", activations}})};
    act.inputs = obj({{"max_num_batched_tokens", tokens},
                      {"bytes_per_token", per_token},
                      {"max_num_seqs", seqs},
                      {"forward_gb", bytes_to_gb(forward)},
                      {"sampler_gb", bytes_to_gb(sampler)}});
  }
  plan.terms.push_back(std::move(act));
  const bool eager = o.at("enforce_eager").get<bool>();
  const double graphs = eager ? 0.0 : o.at("cuda_graph_gib").get<double>();
  plan.terms.push_back(gib_term("cuda_graph", graphs, eager ? "eager" : "cuda_graphs", explain));

  EngineBudget& b = plan.budget;
  b.kv_bytes_per_token = paged_bytes_per_token(local, *setup.kv);
  budget_card(b, gpu, gpus, o.at("gpu_memory_utilization").get<double>());
  if (!b.present) return;
  b.kv_budget_bytes = b.reserved_bytes - weights_bytes - non_torch * kBytesPerGiB - activations -
                      graphs * kBytesPerGiB;
  const double block = o.at("block_size").get<double>();
  std::int64_t rank_tokens = 0;  // one data-parallel rank's cache
  if (b.kv_budget_bytes > 0 && b.kv_bytes_per_token > 0) {
    const auto rank_blocks =
        static_cast<std::int64_t>(std::floor(b.kv_budget_bytes / (block * b.kv_bytes_per_token)));
    rank_tokens = rank_blocks * static_cast<std::int64_t>(block);
    b.kv_blocks = rank_blocks * dp;
    b.kv_tokens = rank_tokens * dp;
    b.max_concurrency = d(b.kv_tokens) / d(setup.context);
  }
  b.data_parallel = static_cast<int>(dp);
  b.fits = b.kv_budget_bytes > 0 && d(rank_tokens) >= d(setup.context) &&
           cache.bytes <= std::max(0.0, b.kv_budget_bytes);
  if (!b.fits && explain) {
    plan.warnings.push_back(
        b.kv_budget_bytes <= 0
            ? Message{"warning.vllm_no_start"}
            : Message{"warning.vllm_short",
                      obj({{"tokens", b.kv_tokens}, {"requested", setup.context * setup.batch}})});
  }
}

void plan_sglang(const InferenceSetup& setup, const json& o, const Gpu* gpu, const GpuCatalog& gpus,
                 bool explain, InferencePlan& plan) {
  const PagedStage stage = paged_stage(setup, plan.pipeline_parallel, explain, plan);
  const KvCacheSize& cache = stage.cache;
  const double weights_bytes = stage.weights_bytes;
  const std::int64_t dp = plan.data_parallel;
  const double non_torch = o.at("non_torch_gib").get<double>();
  plan.terms.push_back(gib_term("non_torch", non_torch, "before_kv_pool", explain));
  EngineBudget& b = plan.budget;
  b.kv_bytes_per_token = cache.bytes_per_token;
  budget_card(b, gpu, gpus, o.at("mem_fraction_static").get<double>());
  if (!b.present) return;
  b.kv_budget_bytes = b.reserved_bytes - weights_bytes - non_torch * kBytesPerGiB;
  if (b.kv_budget_bytes > 0 && b.kv_bytes_per_token > 0) {
    const auto rank_tokens =
        static_cast<std::int64_t>(std::floor(b.kv_budget_bytes / b.kv_bytes_per_token));
    b.kv_tokens = rank_tokens * dp;
    b.kv_blocks = b.kv_tokens;  // SGLang pages one token at a time
    b.max_concurrency = d(b.kv_tokens) / d(setup.context);
  }
  b.data_parallel = static_cast<int>(dp);
  b.fits = b.kv_budget_bytes > 0 && cache.bytes <= b.kv_budget_bytes;
  if (!b.fits && explain) {
    plan.warnings.push_back(
        Message{"warning.sglang_short", obj({{"pool", std::max(0.0, b.kv_budget_bytes)}})});
  }
}

/** A term of the whole model as the fullest of `cards` holds it: `here` of its `layers`. */
void layer_share(Term& term, std::int64_t cards, std::int64_t here, std::int64_t layers,
                 bool explain) {
  if (cards == 1) return;
  term.bytes = term.bytes * d(here) / d(layers);
  if (!explain) return;
  if (!term.formula.id.empty()) {
    term.formula = {"formula.layer_share", obj({{"inner", term.formula},
                                                {"layers_here", here},
                                                {"layers", layers},
                                                {"bytes", term.bytes}})};
  }
  term.inputs["layers_on_card"] = here;
}

}  // namespace

ModelSpec llamacpp_cache_model(const ModelSpec& model, const json& options) {
  // Sliding layers keep their window plus one ubatch, or everything with --swa-full.
  ModelSpec local = model;
  if (options.at("kv_full_swa").get<bool>()) {
    for (LayerSpec& layer : local.layers) {
      if (layer.attention == LayerAttention::kSliding) layer.attention = LayerAttention::kGlobal;
    }
  } else if (model.sliding_window > 0) {
    local.sliding_window =
        model.sliding_window + static_cast<std::int64_t>(options.at("n_ubatch").get<double>());
  }
  return local;
}

namespace {

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
  weights.label = {"term.model_buffer"};
  weights.bytes = plan.weights.bytes - host;
  if (explain) {
    if (host > 0) {
      weights.formula = {
          "formula.model_buffer",
          obj({{"parts", weight_parts(plan.weights)}, {"host", host}, {"bytes", weights.bytes}})};
    }
    weights.inputs["host_gb"] = bytes_to_gb(host);
  }
  // --split-mode layer (the default) over N cards: each holds a run of
  // layers and their cache; the fullest holds ceil(layers / N).
  const std::int64_t cards = std::max(1, setup.gpus);
  const std::int64_t layers = std::max<std::int64_t>(1, m.num_layers());
  const std::int64_t here = (layers + cards - 1) / cards;
  auto on_card = [&](Term& term) { layer_share(term, cards, here, layers, explain); };
  on_card(weights);
  plan.terms.push_back(std::move(weights));

  // n_ctx cells are shared by all parallel sequences.
  const std::int64_t cells = setup.context * setup.batch;
  const double ubatch = o.at("n_ubatch").get<double>();
  const ModelSpec local = llamacpp_cache_model(m, o);
  const KvCacheSize cache = kv_cache(local, *setup.kv, cells, 1);
  Term kv = kv_term(local, *setup.kv, cache, 1, setup, explain);
  kv.label = {"term.kv_buffer"};
  if (explain) kv.inputs["cells"] = cells;
  on_card(kv);
  plan.terms.push_back(std::move(kv));

  const bool flash = o.at("flash_attn").get<bool>();
  if (!flash && setup.kv->bits_per_element < 16 && explain) {
    // llama.cpp refuses to start with a quantized V cache and flash attention off.
    plan.warnings.push_back({"warning.llamacpp_quantized_v", obj({{"kv", setup.kv->name}})});
  }
  const double hidden = ubatch * d(m.hidden_size) * 4.0 * 4.5;
  const double scores = flash ? 0.0 : d(cells) * ubatch * d(m.num_heads) * 4.0;
  const double logits = ubatch * d(m.vocab_size) * 4.0;
  const double compute = std::max(scores + hidden, logits);
  Term buffer{"compute_buffer", {"term.compute_buffer"}, compute, {}, {}};
  if (explain) {
    buffer.formula = {flash ? "formula.compute_buffer_flash" : "formula.compute_buffer",
                      obj({{"cells", cells},
                           {"ubatch", ubatch},
                           {"heads", m.num_heads},
                           {"hidden", m.hidden_size},
                           {"vocab", m.vocab_size},
                           {"bytes", compute}})};
    buffer.inputs = obj({{"n_ubatch", ubatch},
                         {"flash_attn", flash},
                         {"scores_bytes", scores},
                         {"logits_bytes", logits}});
  }
  plan.terms.push_back(std::move(buffer));
  plan.terms.push_back(
      gib_term("cuda_context", o.at("cuda_context_gib").get<double>(), "outside_ggml", explain));
}

/** What one token keeps alive at the widest point of a layer under transformers (bytes). */
struct TransformersLayerPeak {
  double per_token = 0;  ///< bytes per token of batch x context
  Message layer;         ///< how they add up
};

/**
 * The widest point of transformers' prefill: the last layer's feed-forward
 * block, when the cache is complete. Alive there, at `a` bytes per element:
 * the embedding output, the layer's input, the residual after attention
 * and the normalised input (4 hidden-wide), and the block's own tensors: a
 * gated MLP's activation, up projection and product (3 FFN-wide; a fused
 * gate_up_proj 4, an ungated MLP 2); an MoE block's accumulator (1
 * hidden-wide) and per chosen expert, grouped_mm's gathered, sorted,
 * weighted and re-ordered inputs (4 hidden-wide) with its gate/up output and
 * product (3 expert-wide). 8 bytes of int64 token id per token.
 */
TransformersLayerPeak transformers_layer_peak(const ModelSpec& m, const EngineProfile& engine,
                                              double a, bool explain) {
  constexpr double kTokenId = 8;
  const double h = d(m.hidden_size);
  const bool fused = engine.architecture_has("fused_gate_up", m.model_type);
  const std::int64_t ffn_tensors = !m.gated_mlp ? 2 : fused ? 4 : 3;
  TransformersLayerPeak peak;
  bool moe_widest = false;
  for (const LayerSpec& layer : m.layers) {
    double elements = 0;
    if (layer.mlp == LayerMlp::kMoe && m.is_moe()) {
      elements =
          5.0 * h + d(m.moe.experts_per_token) * (4.0 * h + 3.0 * d(m.moe.expert_intermediate));
    } else {
      elements = 4.0 * h + d(ffn_tensors) * d(m.intermediate_size);
    }
    const double bytes = elements * a + kTokenId;
    if (bytes > peak.per_token) {
      peak.per_token = bytes;
      moe_widest = layer.mlp == LayerMlp::kMoe && m.is_moe();
    }
  }
  if (!explain) return peak;
  peak.layer = moe_widest
                   ? Message{"formula.tf_layer_moe", obj({{"hidden", m.hidden_size},
                                                          {"experts", m.moe.experts_per_token},
                                                          {"expert_ffn", m.moe.expert_intermediate},
                                                          {"bytes", a}})}
                   : Message{"formula.tf_layer_dense", obj({{"hidden", m.hidden_size},
                                                            {"ffn_tensors", ffn_tensors},
                                                            {"ffn", m.intermediate_size},
                                                            {"bytes", a}})};
  return peak;
}

/** The model with every sliding-window layer holding the whole context. */
ModelSpec every_token_cached(const ModelSpec& m) {
  ModelSpec local = m;
  for (LayerSpec& layer : local.layers) {
    if (layer.attention == LayerAttention::kSliding) layer.attention = LayerAttention::kGlobal;
  }
  return local;
}

void plan_transformers(const InferenceSetup& setup, const EngineProfile& engine, const json& o,
                       bool explain, InferencePlan& plan) {
  const ModelSpec& m = *setup.model;
  // device_map="auto" over N cards: each holds a run of layers and their
  // cache; every card runs the whole batch's hidden states.
  const std::int64_t cards = std::max(1, setup.gpus);
  const std::int64_t layers = std::max<std::int64_t>(1, m.num_layers());
  const std::int64_t here = (layers + cards - 1) / cards;

  Term weights = weights_term(plan.weights, plan.params, 1, explain);
  layer_share(weights, cards, here, layers, explain);
  plan.terms.push_back(std::move(weights));

  // DynamicCache after a prefill: sliding layers keep a view of the whole
  // concatenation, so every layer holds every token.
  const ModelSpec cached = every_token_cached(m);
  plan.kv = kv_cache(cached, *setup.kv, setup.context, setup.batch);
  Term kv = kv_term(cached, *setup.kv, plan.kv, setup.batch, setup, explain);
  layer_share(kv, cards, here, layers, explain);
  plan.terms.push_back(std::move(kv));

  // Activations in the compute dtype: FP32 for FP32 weights, else 16 bits.
  const std::string format = setup.weights != nullptr ? setup.weights->id : m.native_format;
  const double a = format == "fp32" ? 4.0 : 2.0;
  TransformersLayerPeak layer = transformers_layer_peak(m, engine, a, explain);
  const double tokens = d(setup.context) * d(setup.batch);
  // Per position, shared by the batch: cos and sin (two pairs with local
  // and global rotary tables) and the int64 cache position.
  bool mla = false, sliding = false;
  for (const LayerSpec& l : m.layers) {
    mla = mla || l.attention == LayerAttention::kMla;
    sliding = sliding || l.attention == LayerAttention::kSliding;
  }
  const double rope_dim = d(mla ? m.mla.qk_rope_head_dim : m.head_dim);
  const double tables = engine.architecture_has("local_and_global_rope", m.model_type) ? 2.0 : 1.0;
  const double per_position = tables * 2.0 * rope_dim * a + 8.0;
  const double positions = d(setup.context);
  Term mask_term;
  // SDPA runs without a mask unless a window shorter than the sequence
  // needs one: then a boolean context x context mask, shared by the batch,
  // alive through every layer. At a sliding layer's SDPA call PyTorch turns
  // it into an additive mask in the compute dtype; there the layer holds
  // the embedding output, its input and normalised input, q and the
  // output (query-wide), k and v. The larger of that and the MLP is the peak.
  double mask = 0;
  if (sliding && m.sliding_window > 0 && setup.context >= m.sliding_window) {
    const double cells = d(setup.context) * d(setup.context);
    const double q_width = d(m.num_heads * m.head_dim);
    const double kv_width = d(m.num_kv_heads * (m.head_dim + m.v_head_dim));
    const double attention_token = (3.0 * d(m.hidden_size) + 2.0 * q_width + kv_width) * a + 8.0;
    const bool sdpa_widest =
        tokens * attention_token + (1.0 + a) * cells > tokens * layer.per_token + cells;
    mask = sdpa_widest ? (1.0 + a) * cells : cells;
    if (sdpa_widest) {
      layer.per_token = attention_token;
      if (explain) {
        layer.layer = {"formula.tf_layer_attention",
                       obj({{"hidden", m.hidden_size},
                            {"q_width", m.num_heads * m.head_dim},
                            {"kv_width", m.num_kv_heads * (m.head_dim + m.v_head_dim)},
                            {"bytes", a}})};
      }
    }
    Term term{"attention_mask", {"term.attention_mask"}, mask, {}, {}};
    if (explain) {
      term.formula = sdpa_widest
                         ? Message{"formula.tf_mask_sdpa", obj({{"context", setup.context},
                                                                {"window", m.sliding_window},
                                                                {"bytes_per_element", a},
                                                                {"bytes", mask}})}
                         : Message{"formula.tf_mask", obj({{"context", setup.context},
                                                           {"window", m.sliding_window},
                                                           {"bytes", mask}})};
      term.inputs = obj({{"context", setup.context}, {"sliding_window", m.sliding_window}});
    }
    mask_term = std::move(term);
  }
  const double activations = tokens * layer.per_token + positions * per_position;
  Term act{"prefill_activations", {"term.prefill_activations"}, activations, {}, {}};
  if (explain) {
    act.formula = {"formula.tf_prefill", obj({{"tokens", tokens},
                                              {"per_token", layer.per_token},
                                              {"layer", layer.layer},
                                              {"positions", positions},
                                              {"per_position", per_position},
                                              {"bytes", activations}})};
    act.inputs = obj({{"context", setup.context},
                      {"batch", setup.batch},
                      {"bytes_per_token", layer.per_token},
                      {"bytes_per_position", per_position}});
  }
  plan.terms.push_back(std::move(act));
  if (mask > 0) plan.terms.push_back(std::move(mask_term));

  const double workspace_gib = o.at("blas_workspace_mib").get<double>() / 1024.0;
  plan.terms.push_back(gib_term("blas_workspace", workspace_gib, "blas_workspaces", explain));
  plan.terms.push_back(
      gib_term("non_torch", o.at("non_torch_gib").get<double>(), "cuda_context_cublas", explain));
  if (!explain) return;
  bool state = false;
  for (const LayerSpec& l : m.layers) state = state || l.attention == LayerAttention::kState;
  if (state) plan.assumptions.push_back({"assumption.tf_state_layers"});
}

}  // namespace

InferencePlan plan_inference(const InferenceSetup& setup, const EngineProfile& engine,
                             const json& options, const Gpu* gpu, const GpuCatalog& gpus,
                             const FormatCatalog& formats, bool explain) {
  InferencePlan plan;
  plan.terms.reserve(8);  // room for every engine's terms (6 at most): the searches make many plans
  plan.options = options;
  const json& o = plan.options;
  plan.params = setup.params != nullptr ? *setup.params : param_totals(*setup.model);
  plan.weights = setup_weights(setup, plan.params, formats);
  plan.kv = kv_cache(*setup.model, *setup.kv, setup.context, setup.batch);
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
  plan.gpus = engine.kind == EngineKind::kVllm || engine.kind == EngineKind::kSglang
                  ? plan.tensor_parallel * plan.pipeline_parallel * plan.data_parallel
                  : std::max(1, setup.gpus);

  if (engine.convention()) {
    plan.terms.push_back(weights_term(plan.weights, plan.params, 1, explain));
    plan.terms.push_back(kv_term(*setup.model, *setup.kv, plan.kv, setup.batch, setup, explain));
    Overhead overhead;
    if (engine.kind == EngineKind::kFlat) {
      overhead.kind = Overhead::Kind::kFlat;
      overhead.flat_bytes = gb_to_bytes(o.at("overhead_gb").get<double>());
    } else {
      overhead.kind = Overhead::Kind::kPercent;
      overhead.percent = o.at("overhead_pct").get<double>();
    }
    const double bytes = overhead_bytes(overhead, plan.weights.bytes, plan.kv.bytes);
    Term term{"overhead", {"term.overhead"}, bytes, {}, {}};
    if (explain) {
      term.formula = overhead.kind == Overhead::Kind::kFlat
                         ? Message{"formula.overhead_flat",
                                   obj({{"bytes", bytes}, {"engine", engine.label()}})}
                         : Message{"formula.overhead_pct", obj({{"pct", overhead.percent},
                                                                {"weights", plan.weights.bytes},
                                                                {"kv", plan.kv.bytes},
                                                                {"bytes", bytes}})};
      term.inputs = obj({{"kind", to_string(engine.kind)}, {"overhead_gb", bytes_to_gb(bytes)}});
    }
    plan.terms.push_back(std::move(term));
  } else if (engine.kind == EngineKind::kVllm) {
    plan_vllm(setup, o, gpu, gpus, explain, plan);
  } else if (engine.kind == EngineKind::kSglang) {
    plan_sglang(setup, o, gpu, gpus, explain, plan);
  } else if (engine.kind == EngineKind::kTransformers) {
    plan_transformers(setup, engine, o, explain, plan);
  } else {
    plan_llamacpp(setup, o, explain, plan);
  }
  for (const Term& term : plan.terms) plan.total_bytes += term.bytes;

  if (!explain) return plan;
  // Each knob with its value and where its default comes from (data/engines.json).
  for (auto it = o.begin(); it != o.end(); ++it) {
    const std::string why = engine.option_sources.value(it.key(), "");
    plan.assumptions.push_back(
        {why.empty() ? "assumption.engine_option" : "assumption.engine_option_why",
         obj({{"engine", engine.label()},
              {"key", it.key()},
              // A switch reads on or off in the reader's language.
              {"value",
               it->is_boolean() ? json(Message{it->get<bool>() ? "word.on" : "word.off"}) : *it},
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
