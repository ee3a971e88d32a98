// vLLM: a paged KV cache in what gpu_memory_utilization leaves after the
// weights, the profiling forward pass (or the sampler's warm-up), the
// non-torch memory and the CUDA graphs.

#include <algorithm>
#include <cctype>
#include <cmath>
#include <iterator>
#include <string>

#include "common.hpp"
#include "vram/units.hpp"

namespace vram::engines {

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

namespace {

/**
 * `vllm serve`'s batch defaults (vllm/engine/arg_utils.py): on a "large"
 * card, 70 GiB or more as CUDA reports it, 8192 batched tokens and 1024
 * sequences; on any other, 2048 and 256.
 */
constexpr double kVllmLargeCardGiB = 70;
constexpr std::int64_t kVllmLargeTokens = 8192;
constexpr std::int64_t kVllmLargeSeqs = 1024;
constexpr std::int64_t kVllmSmallTokens = 2048;
constexpr std::int64_t kVllmSmallSeqs = 256;

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

std::int64_t ceil_div(std::int64_t a, std::int64_t b) { return (a + b - 1) / b; }

}  // namespace

HybridPool hybrid_pool(const ModelSpec& local, const ModelSpec* draft, const KvFormat& kv,
                       const StateStorage& state, std::int64_t asked_block) {
  HybridPool pool;
  for (const LayerSpec& layer : local.layers) {
    const auto k = static_cast<std::size_t>(layer.attention);
    if (k < std::size(pool.layers)) ++pool.layers[k];
  }
  std::int64_t& full = pool.layers[static_cast<std::size_t>(LayerAttention::kGlobal)];
  const std::int64_t mla = pool.layers[static_cast<std::size_t>(LayerAttention::kMla)];
  const std::int64_t states = pool.layers[static_cast<std::size_t>(LayerAttention::kState)];
  // One kind of layer is one group (a state-only model is not sized here).
  if (!local.mixed_layers()) return pool;
  pool.present = true;
  pool.token_bytes =
      kv_bytes_per_token(local, mla > 0 ? LayerAttention::kMla : LayerAttention::kGlobal, kv);
  if (draft != nullptr) {
    const double draft_token = paged_bytes_per_token(*draft, kv);
    if (draft_token > 0 && pool.token_bytes > 0) {
      full += static_cast<std::int64_t>(std::ceil(draft_token / pool.token_bytes));
    }
  }
  for (const KvGroup& g : kv_cache(local, kv, 1, 1, state).groups) {
    if (g.attention == LayerAttention::kState) pool.state_bytes = g.state_bytes;
  }
  const double align = mla > 0 ? 64.0 : 16.0;
  const auto least = static_cast<std::int64_t>(
      align * std::ceil(pool.state_bytes / (align * std::max(1.0, pool.token_bytes))));
  pool.block = std::max(asked_block, least);
  pool.page_bytes = d(pool.block) * pool.token_bytes;
  std::int64_t fewest = 0, most = 0;
  for (std::int64_t n : pool.layers) {
    if (n == 0) continue;
    fewest = fewest == 0 ? n : std::min(fewest, n);
    most = std::max(most, n);
  }
  pool.group_size = d(most) < 1.5 * d(fewest) ? most : fewest;
  for (std::int64_t n : pool.layers) pool.groups += n > 0 ? ceil_div(n, pool.group_size) : 0;
  pool.state_groups = ceil_div(states, pool.group_size);
  return pool;
}

std::int64_t hybrid_request_blocks(const HybridPool& pool, const ModelSpec& m, std::int64_t context,
                                   std::int64_t batched, std::int64_t state_pages) {
  std::int64_t blocks = 0;
  for (std::size_t k = 0; k < std::size(pool.layers); ++k) {
    const std::int64_t n = pool.layers[k];
    if (n == 0) continue;
    const std::int64_t groups = ceil_div(n, pool.group_size);
    std::int64_t each = 0;
    switch (static_cast<LayerAttention>(k)) {
      case LayerAttention::kGlobal:
      case LayerAttention::kMla:
        each = ceil_div(context, pool.block);
        break;
      case LayerAttention::kSliding:
        // The window, one step's tokens and a block more, however short the request.
        each = ceil_div(std::min(m.sliding_window - 1 + batched, context), pool.block) + 1;
        break;
      case LayerAttention::kState:
        each = state_pages;
        break;
    }
    blocks += groups * each;
  }
  return blocks;
}

namespace {

/**
 * gpu_memory_utilization as the plan can start with. vLLM V1 asks for that
 * share of the card's total and refuses to start when less is free
 * (vllm/v1/worker/gpu_worker.py, init_device: "Free memory on device ... on
 * startup is less than desired GPU memory utilization"): with memory other
 * processes hold over the rest, the share comes down to what is free,
 * rounded down to a hundredth, and the command carries it. Said as a warning.
 */
double held_share(const EngineInput& in, InferencePlan& plan) {
  const double util = in.options.at("gpu_memory_utilization").get<double>();
  const double held = in.setup.held_bytes;
  if (!(held > 0) || in.gpu == nullptr) return util;
  const double total = in.gpus.usable_bytes(*in.gpu);
  const double free_share = total > 0 ? std::max(0.0, (total - held) / total) : 0.0;
  if (util <= free_share) return util;
  const double lowered = std::floor(free_share * 100.0) / 100.0;
  if (in.explain) {
    plan.warnings.push_back(
        {"warning.vllm_held", obj({{"held", held}, {"util", util}, {"lowered", lowered}})});
  }
  plan.options["gpu_memory_utilization"] = lowered;
  return lowered;
}

/**
 * max_num_batched_tokens and max_num_seqs as `vllm serve` picks them when
 * they are not given (vllm/engine/arg_utils.py, EngineArgs
 * _set_default_args_v1, get_batch_defaults in later releases): on a card
 * whose memory as CUDA reports it is at least 70 GiB and whose name lacks
 * "a100", 8192 tokens and 1024 sequences; on any other, and where vLLM
 * cannot read the device (here: no card named), 2048 and 256. The memory
 * rule came with v0.8.5 (PR #17073), the A100 exception with v0.9.0 (PR
 * #17885, "Setting large max_num_batched_tokens for A100 reduces
 * throughput"). Written into the plan's options, so the answer and its
 * assumptions carry the values the plan used; a number the request gives
 * stays.
 */
void resolve_batch(const EngineInput& in, InferencePlan& plan) {
  const bool tokens_auto = in.options.at("max_num_batched_tokens").is_string();
  const bool seqs_auto = in.options.at("max_num_seqs").is_string();
  if (!tokens_auto && !seqs_auto) return;
  const Gpu* gpu = in.gpu;
  const double memory = gpu != nullptr ? in.gpus.usable_bytes(*gpu) : 0.0;
  std::string name = gpu != nullptr ? gpu->name + " " + gpu->id : std::string();
  std::transform(name.begin(), name.end(), name.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  const bool large =
      memory >= kVllmLargeCardGiB * kBytesPerGiB && name.find("a100") == std::string::npos;
  const std::int64_t tokens = large ? kVllmLargeTokens : kVllmSmallTokens;
  if (tokens_auto) plan.options["max_num_batched_tokens"] = tokens;
  // vLLM takes no more sequences than batched tokens when it picks them itself
  // (arg_utils.py: max_num_seqs = min(default, max_num_batched_tokens)).
  const auto batched =
      static_cast<std::int64_t>(plan.options.at("max_num_batched_tokens").get<double>());
  const std::int64_t seqs = std::min(large ? kVllmLargeSeqs : kVllmSmallSeqs, batched);
  if (seqs_auto) plan.options["max_num_seqs"] = seqs;
  if (!in.explain) return;
  plan.assumptions.push_back(
      {gpu == nullptr ? "assumption.vllm_batch_no_card" : "assumption.vllm_batch",
       obj({{"gpu", gpu != nullptr ? json(gpu->name) : json("")},
            {"memory_gib", memory / kBytesPerGiB},
            {"tokens", plan.options.at("max_num_batched_tokens")},
            {"seqs", plan.options.at("max_num_seqs")},
            {"large_gib", kVllmLargeCardGiB},
            {"large_tokens", kVllmLargeTokens},
            {"large_seqs", kVllmLargeSeqs},
            {"small_tokens", kVllmSmallTokens},
            {"small_seqs", kVllmSmallSeqs},
            {"excluded", quotation("a100")},
            {"command", quotation("vllm serve")},
            {"source",
             quotation("vllm/engine/arg_utils.py, v0.9.0 and later; PRs #17073 and #17885")}})});
}

/**
 * The command carries the max_num_seqs the profile ran with (launch: option:max_num_seqs):
 * one above max_num_batched_tokens stops vLLM (vllm/config/scheduler.py _verify_args:
 * "max_num_batched_tokens ... must be greater than or equal to max_num_seqs"), and a rank's
 * users beyond it wait for a free sequence slot. Both said.
 */
void warn_seqs(InferencePlan& plan, double tokens, double seqs, std::int64_t users, bool explain) {
  if (!explain) return;
  if (seqs > tokens) {
    plan.warnings.push_back(
        {"warning.vllm_seqs_tokens", obj({{"seqs", seqs}, {"tokens", tokens}})});
  }
  if (d(users) > seqs) {
    plan.warnings.push_back(
        {"warning.vllm_seqs_users",
         obj({{"users", users}, {"seqs", seqs}, {"ranks", plan.data_parallel}})});
  }
}

/**
 * The KV budget of a hybrid pool in vLLM's blocks: the blocks one rank holds,
 * the tokens vLLM logs for them, and the users whose requests' blocks fit
 * (vLLM's "Maximum concurrency": blocks / blocks a request).
 */
void plan_hybrid_pool(InferencePlan& plan, const HybridPool& pool, const InferenceSetup& setup,
                      double batched, std::int64_t spec_tokens, bool prefix_caching, bool explain) {
  EngineBudget& b = plan.budget;
  // A state group's pages a request: the state, the one cached on a block boundary under
  // prefix caching's align mode, and one per speculative token.
  const std::int64_t state_pages = (prefix_caching ? 2 : 1) + spec_tokens;
  const std::int64_t dp = plan.data_parallel;
  const std::int64_t users = ceil_div(setup.batch, dp);
  const std::int64_t per_request = hybrid_request_blocks(
      pool, *setup.model, setup.context, static_cast<std::int64_t>(batched), state_pages);
  const double block_bytes = pool.page_bytes * d(pool.group_size);
  std::int64_t rank_blocks = 0;
  if (b.kv_budget_bytes > 0 && block_bytes > 0) {
    rank_blocks = static_cast<std::int64_t>(std::floor(b.kv_budget_bytes / block_bytes));
  }
  // vLLM's concurrency in requests of the context, and its tokens: the concurrency times the
  // context, and the pool's bytes over them.
  b.kv_blocks = rank_blocks * dp;
  b.max_concurrency = per_request > 0 ? d(rank_blocks) / d(per_request) * d(dp) : 0.0;
  b.kv_tokens = per_request > 0 ? rank_blocks * setup.context / per_request * dp : std::int64_t{0};
  b.kv_bytes_per_token = block_bytes * d(per_request) / d(setup.context);
  b.data_parallel = static_cast<int>(dp);
  b.fits = b.kv_budget_bytes > 0 && users * per_request <= rank_blocks;
  if (!explain) return;
  plan.assumptions.push_back(
      {pool.state_groups > 0 ? "assumption.vllm_hybrid_pool" : "assumption.vllm_sliding_pool",
       obj({{"block", pool.block},
            {"state_bytes", pool.state_bytes},
            {"page_bytes", pool.page_bytes},
            {"padding",
             pool.state_bytes > 0 ? (pool.page_bytes / pool.state_bytes - 1) * 100 : 0.0},
            {"group_size", pool.group_size},
            {"groups", pool.groups},
            {"state_groups", pool.state_groups},
            {"per_request", per_request},
            {"state_pages", state_pages},
            {"spec_tokens", spec_tokens},
            {"prefix_caching", Message{prefix_caching ? "word.on" : "word.off"}},
            {"context", setup.context},
            {"window", setup.model->sliding_window},
            {"batched", static_cast<std::int64_t>(batched)},
            {"blocks", rank_blocks},
            {"source", quotation("vllm/model_executor/models/config.py, "
                                 "vllm/v1/core/kv_cache_utils.py")}})});
  if (!b.fits) {
    plan.warnings.push_back(
        b.kv_budget_bytes <= 0
            ? Message{"warning.vllm_no_start"}
            : Message{"warning.vllm_short_blocks",
                      obj({{"users", users},
                           {"per_request", per_request},
                           {"blocks", rank_blocks},
                           {"max_users", per_request > 0 ? rank_blocks / per_request : 0}})});
  }
}

void plan_vllm(const EngineInput& in, InferencePlan& plan) {
  const InferenceSetup& setup = in.setup;
  const json& o = in.options;
  const bool explain = in.explain;
  const Gpu* gpu = in.gpu;
  const ModelSpec& m = *setup.model;
  const int pp = static_cast<int>(o.at("pipeline_parallel_size").get<double>());
  // Each MTP module keeps its own output head under vLLM (draft.cpp).
  const PagedStage stage = paged_stage(setup, pp, explain, plan);
  const ModelSpec& local = stage.local;
  const KvCacheSize& cache = stage.cache;
  const double weights_bytes = stage.weights_bytes;
  const std::int64_t dp = plan.data_parallel;
  // gpt-oss's MXFP4 experts as the MoE backend (mxfp4_backend; "auto": the card's) keeps them:
  // padded, swizzled, with FP32 biases (mxfp4_layout.cpp); counted in "Model loading took", before
  // the profile.
  const double layout = push_mxfp4_layout(plan, m, local.num_layers(), gpu, o, explain);
  // Adapter slots are made when the model loads (lora.cpp), before the profile.
  push_lora_slots(plan, m, local.num_layers(), o, explain);
  const double lora = plan.terms.back().id == "lora_slots" ? plan.terms.back().bytes : 0.0;
  if (lora > 0 && plan.expert_parallel && m.is_moe() && explain) {
    // vllm/lora/layers/fused_moe.py: "EP support for Fused MoE LoRA is not implemented yet."
    plan.warnings.push_back(Message{"warning.vllm_lora_ep"});
  }
  // vllm/config/lora.py: max_lora_rank is one of MaxLoRARanks, or vLLM refuses to start.
  const double lora_rank = o.contains("max_lora_rank") ? o.at("max_lora_rank").get<double>() : 16;
  constexpr double kRanks[] = {1, 8, 16, 32, 64, 128, 256, 320, 512};
  if (lora > 0 && explain &&
      std::find(std::begin(kRanks), std::end(kRanks), lora_rank) == std::end(kRanks)) {
    plan.warnings.push_back(Message{"warning.vllm_lora_rank", obj({{"rank", lora_rank}})});
  }

  // A draft model loads with the model, before the profile, on the last stage's cards; its
  // attention layers share the KV cache's block count (draft.cpp).
  const std::int64_t users = (setup.batch + dp - 1) / dp;
  if (stage.drafter) {
    push_draft(plan, setup, plan.tensor_parallel, plan.tensor_parallel, *setup.kv, setup.context,
               users, explain);
  }
  warn_draft_vocab(plan, setup, explain);
  double draft_weights = 0, draft_cache = 0;
  for (const Term& t : plan.terms) {
    if (draft_weights_term(t.id)) draft_weights = t.bytes;
    if (draft_kv_term(t.id)) draft_cache = t.bytes;
  }

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

  resolve_batch(in, plan);  // "auto": the card's own (o is plan.options)
  const double tokens = o.at("max_num_batched_tokens").get<double>();
  const double seqs = o.at("max_num_seqs").get<double>();
  // The dummy batch holds min(tokens, max_num_seqs) requests, one sampled row each.
  const double rows = std::min(tokens, seqs);
  warn_seqs(plan, tokens, seqs, users, explain);
  const double per_token = vllm_forward_bytes_per_token(
      m, plan.tensor_parallel,
      plan.expert_parallel ? 1 : plan.tensor_parallel * plan.data_parallel);
  const double forward = tokens * per_token;
  // The sampler's warm-up over those rows of the vocabulary, with top-k and
  // top-p (V0: vllm/worker/model_runner.py profile_run, "to reflect the
  // accurate memory usage"; V1: v1/worker/gpu_model_runner.py
  // _dummy_sampler_run, top_k = vocab - 1, top_p = 0.9). FlashInfer's kernel
  // filters without sorting: the 16-bit logits the runner holds (2), their
  // fp32 copy (4) and the probabilities (4), 10 bytes an element (v1/sample/
  // sampler.py, ops/topk_topp_sampler.py forward_cuda). Where they run in
  // PyTorch (V0; V1 without FlashInfer's sampler, profile_top_k) the sort is
  // the peak, 38 bytes an element: the same 16-bit logits (2) and their fp32
  // copy (4); torch.sort's values (4) and int64 indices (8), the int64
  // indices it starts from (8) and cub's alternate key and value buffers
  // (4 + 8) (aten/src/ATen/native/cuda/SortStable.cu, segmented_sort_pairs);
  // the forward's output, tokens x hidden x 2 bytes, is still held.
  // An embedding or reranker model has no sampler: its profiling run pools
  // the hidden states instead (gpu_model_runner.py profile_run: "if
  // self.is_pooling_model: output = self._dummy_pooler_run(hidden_states)"),
  // a row of the hidden width a request, nothing beside the forward pass.
  const bool top_k = o.at("profile_top_k").get<bool>();
  const double sampler = m.pooling ? 0.0
                         : top_k   ? rows * d(m.vocab_size) * 38.0 + tokens * d(m.hidden_size) * 2.0
                                   : rows * d(m.vocab_size) * (2.0 + 4.0 + 4.0);
  // The forward pass frees its activations before the sampler runs.
  const double activations = std::max(forward, sampler);
  Term act{"activations", {"term.vllm_activations"}, activations, {}, {}};
  if (explain) {
    act.formula = {m.pooling ? "formula.vllm_activations_pooling"
                   : top_k   ? "formula.vllm_activations_top_k"
                             : "formula.vllm_activations",
                   obj({{"tokens", tokens},
                        {"bytes_per_token", per_token},
                        {"seqs", rows},
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
  // A vision model's images: the encoder cache and the tower's profiling pass (vision.cpp).
  const double vision = push_vllm_vision(plan, setup, o, activations, explain);
  const bool eager = o.at("enforce_eager").get<bool>();
  const double graphs = eager ? 0.0 : o.at("cuda_graph_gib").get<double>();
  plan.terms.push_back(gib_term("cuda_graph", graphs, eager ? "eager" : "cuda_graphs", explain));

  EngineBudget& b = plan.budget;
  const double block = o.at("block_size").get<double>();
  const bool drafts = setup.draft != nullptr && stage.drafter;
  const ModelSpec draft_local = drafts ? shard(*setup.draft, plan.tensor_parallel) : ModelSpec{};
  // V0 kept a hybrid model's states in a Mamba cache of their own (hybrid_kv_cache_manager off).
  const HybridPool pool = o.at("hybrid_kv_cache_manager").get<bool>()
                              ? hybrid_pool(local, drafts ? &draft_local : nullptr, *setup.kv,
                                            plan.state, static_cast<std::int64_t>(block))
                              : HybridPool{};
  // A hybrid pool's bytes a token are its blocks' (plan_hybrid_pool).
  b.kv_bytes_per_token = pool.present
                             ? 0.0
                             : paged_bytes_per_token(local, *setup.kv) +
                                   (drafts ? paged_bytes_per_token(draft_local, *setup.kv) : 0.0);
  // A companion's server on the card takes its own share of the card (companion.cpp).
  budget_card(b, gpu, in.gpus, vllm_companion_share(in, plan, held_share(in, plan)));
  if (!b.present) return;
  b.kv_budget_bytes = b.reserved_bytes - weights_bytes - layout - lora - draft_weights -
                      non_torch * kBytesPerGiB - activations - vision - graphs * kBytesPerGiB;
  if (pool.present) {
    plan_hybrid_pool(plan, pool, setup, tokens, drafts ? setup.draft_tokens : 0,
                     o.at("hybrid_prefix_caching").get<bool>(), explain);
    return;
  }
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
           cache.bytes + draft_cache <= std::max(0.0, b.kv_budget_bytes);
  if (!b.fits && explain) {
    plan.warnings.push_back(
        b.kv_budget_bytes <= 0
            ? Message{"warning.vllm_no_start"}
            : Message{"warning.vllm_short",
                      obj({{"tokens", b.kv_tokens}, {"requested", setup.context * setup.batch}})});
  }
}

}  // namespace

extern const EngineRules kVllm{
    /*kind=*/"vllm",
    /*convention=*/false,
    /*paged=*/true,
    /*split=*/"",
    /*splits_layers=*/false,
    /*experts_divide_evenly=*/false,
    /*offloads=*/false,
    /*stage_per_card=*/false,
    /*fp8_compute=*/true,
    /*loads=*/loads_safetensors,
    /*format_warning=*/gguf_format_warning,
    /*plan=*/plan_vllm,
    /*state_storage=*/paged_states,
};

}  // namespace vram::engines
