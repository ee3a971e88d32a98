// SGLang: a token-paged KV pool in what mem_fraction_static leaves after the
// weights and the memory reserved before the pool.

#include <algorithm>
#include <cmath>

#include "common.hpp"
#include "vram/units.hpp"

namespace vram::engines {
namespace {

/**
 * A hybrid model's states in SGLang's pool: what mem_fraction_static leaves is
 * split, ratio / (1 + ratio) of it to the states in whole per-request states
 * (max_mamba_cache_size), the rest to the attention layers' tokens
 * (ModelRunner._handle_max_mamba_cache, --mamba-full-memory-ratio 0.9). None
 * without state layers.
 */
struct StateShare {
  double per_request = 0;     ///< every state layer's state on one card, one request
  std::int64_t slots = 0;     ///< max_mamba_cache_size
  double bytes = 0;           ///< slots x per_request, off the pool
  double cache_bytes = 0;     ///< the plan's users' states, within the cache term
  std::int64_t per_run = 0;   ///< slots a running request is allowed
  std::int64_t requests = 0;  ///< requests that run at once: slots // per_run
};

/**
 * Slots SGLang allows a running request (ModelRunner._calculate_mamba_ratio):
 * its radix cache keeps states of cached prefixes beside the running one, 3
 * slots a request (MAMBA_CACHE_SIZE_MAX_RUNNING_REQUESTS_RATIO), and 2 more for
 * the ping-pong buffer that speculative decoding needs with the radix cache on
 * (mamba_scheduler_strategy extra_buffer, overlap schedule on).
 */
constexpr std::int64_t kSlotsPerRequest = 3;
constexpr std::int64_t kSpeculativeBufferSlots = 2;

StateShare sglang_state_share(const KvCacheSize& cache, double pool, double ratio,
                              bool speculative) {
  StateShare share;
  for (const KvGroup& g : cache.groups) {
    if (g.attention != LayerAttention::kState) continue;
    share.per_request += d(g.layers) * g.state_bytes;
    share.cache_bytes += g.bytes;
  }
  if (share.per_request <= 0 || pool <= 0) return share;
  share.slots =
      static_cast<std::int64_t>(std::floor(pool * ratio / (1 + ratio) / share.per_request));
  share.bytes = d(share.slots) * share.per_request;
  share.per_run = kSlotsPerRequest + (speculative ? kSpeculativeBufferSlots : 0);
  share.requests = share.slots / share.per_run;
  return share;
}

void plan_sglang(const EngineInput& in, InferencePlan& plan) {
  const InferenceSetup& setup = in.setup;
  const json& o = in.options;
  const bool explain = in.explain;
  const PagedStage stage = paged_stage(setup, plan.pipeline_parallel, explain, plan);
  const KvCacheSize& cache = stage.cache;
  const double weights_bytes = stage.weights_bytes;
  const std::int64_t dp = plan.data_parallel;
  // The adapters' memory pool is made before the KV pool is sized (lora.cpp).
  push_lora_slots(plan, *setup.model, stage.local.num_layers(), o, explain);
  const double lora = plan.terms.back().id == "lora_slots" ? plan.terms.back().bytes : 0.0;
  const double non_torch = o.at("non_torch_gib").get<double>();
  plan.terms.push_back(gib_term("non_torch", non_torch, "before_kv_pool", explain));
  EngineBudget& b = plan.budget;
  b.kv_bytes_per_token = cache.bytes_per_token;
  // The pool is what is free after the weights less (1 - mem_fraction_static) of the total
  // (python/sglang/srt/model_executor/model_runner.py, profile_max_num_token: rest_memory =
  // available_gpu_memory - total_gpu_memory * (1 - mem_fraction_static)): memory other
  // processes hold comes off the pool one for one.
  push_held(plan, setup, 1, explain);
  // A draft (a draft model, STANDALONE; the model's MTP layers, EAGLE; an EAGLE-3 head,
  // EAGLE3, with its own output head) loads after the pool is sized, its embedding and (but
  // for an EAGLE-3 head) its output head the model's (eagle_worker.py, set_embed_and_head):
  // its weights, and its cache at the request's tokens until the pool is known; on the last
  // stage's cards only (paged.cpp).
  const std::int64_t users = (setup.batch + dp - 1) / dp;
  const double draft_per_token =
      stage.drafter ? push_draft(plan, setup, plan.tensor_parallel, plan.tensor_parallel, *setup.kv,
                                 setup.context, users, explain)
                    : 0.0;
  warn_draft_vocab(plan, setup, explain);
  // A companion's server, started first, is memory the card holds too (companion.cpp).
  const double companion = sglang_companion_bytes(in, plan);
  // Images: the tower's weights are in the weights and their tokens in the context; its
  // activations and SGLang's multimodal embedding cache are not counted.
  if (setup.images > 0 && explain) {
    plan.assumptions.push_back({"assumption.sglang_vision", obj({{"images", setup.images}})});
  }
  budget_card(b, in.gpu, in.gpus, o.at("mem_fraction_static").get<double>());
  if (!b.present) return;
  b.kv_budget_bytes = b.reserved_bytes - weights_bytes - lora - non_torch * kBytesPerGiB -
                      setup.held_bytes - companion;
  // A hybrid model's states take their share of the pool first (sglang_state_share).
  const StateShare states =
      sglang_state_share(cache, b.kv_budget_bytes, o.at("mamba_full_memory_ratio").get<double>(),
                         setup.draft != nullptr);
  const double attention_pool = b.kv_budget_bytes - states.bytes;
  std::int64_t rank_tokens = 0;  // one data-parallel rank's pool
  if (attention_pool > 0 && b.kv_bytes_per_token > 0) {
    rank_tokens = static_cast<std::int64_t>(std::floor(attention_pool / b.kv_bytes_per_token));
    b.kv_tokens = rank_tokens * dp;
    b.kv_blocks = b.kv_tokens;  // SGLang pages one token at a time
    b.max_concurrency = d(b.kv_tokens) / d(setup.context);
    // The states bound the requests that run at once (StateShare::requests).
    if (states.per_request > 0)
      b.max_concurrency = std::min(b.max_concurrency, d(states.requests * dp));
  }
  b.data_parallel = static_cast<int>(dp);
  b.fits = b.kv_budget_bytes > 0 && cache.bytes - states.cache_bytes <= attention_pool &&
           (states.per_request <= 0 || states.requests >= users);
  if (states.per_request > 0 && explain) {
    plan.assumptions.push_back(
        {"assumption.sglang_state_pool", obj({{"ratio", o.at("mamba_full_memory_ratio")},
                                              {"per_request", states.per_request},
                                              {"slots", states.slots},
                                              {"per_run", states.per_run},
                                              {"requests", states.requests},
                                              {"bytes", states.bytes},
                                              {"pool", std::max(0.0, b.kv_budget_bytes)}})});
    if (b.kv_budget_bytes > 0 && states.requests < users) {
      plan.warnings.push_back(
          {"warning.sglang_state_slots",
           obj({{"slots", states.slots}, {"requests", states.requests}, {"users", users}})});
    }
  }
  // The draft's cache holds as many tokens as the pool, outside mem_fraction_static (draft.cpp).
  sglang_draft_pool(plan, setup, draft_per_token, rank_tokens, b.usable_bytes - b.reserved_bytes,
                    explain);
  if (!b.fits && explain) {
    plan.warnings.push_back(
        Message{"warning.sglang_short", obj({{"pool", std::max(0.0, b.kv_budget_bytes)}})});
  }
}

}  // namespace

extern const EngineRules kSglang{
    /*kind=*/"sglang",
    /*convention=*/false,
    /*paged=*/true,
    /*split=*/"",
    /*splits_layers=*/false,
    /*experts_divide_evenly=*/true,  // its FusedMoE asserts num_experts % ep_size == 0
    /*offloads=*/false,
    /*stage_per_card=*/false,
    /*fp8_compute=*/true,
    /*loads=*/loads_safetensors,
    /*format_warning=*/gguf_format_warning,
    /*plan=*/plan_sglang,
    /*state_storage=*/paged_states,
};

}  // namespace vram::engines
