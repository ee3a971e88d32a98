#pragma once

// What every engine's planner shares: the terms most engines push (weights,
// KV cache, fixed amounts), a share of the layers, and the first pipeline
// stage of a paged engine. engine.cpp fills in the plan's params, weights
// and parallel sizes, then calls the engine's EngineRules::plan (one file
// per engine here, registry.cpp lists them).

#include <cstdint>

#include <nlohmann/json.hpp>

#include "vram/engine.hpp"
#include "vram/engine_rules.hpp"
#include "vram/format.hpp"
#include "vram/gpu.hpp"
#include "vram/kv_cache.hpp"
#include "vram/message.hpp"
#include "vram/model.hpp"
#include "widen.hpp"

namespace vram::engines {

using nlohmann::json;

// --- terms (terms.cpp) -------------------------------------------------------
/** Each part: {params} params x {bits} bits / 8 ({format}). */
json weight_parts(const WeightsSize& weights);
/** The weights split over `shards` cards. */
Term weights_term(const WeightsSize& weights, const ParamTotals& params, int shards, bool explain);
/** `batch` is the one the cache was computed with (llama.cpp: 1, over context x batch cells). */
Term kv_term(const ModelSpec& model, const KvFormat& kv, const KvCacheSize& cache,
             std::int64_t batch, const InferenceSetup& setup, bool explain);
/** One data-parallel rank's cache: `users` of the request's users (all of them when dp is 1). */
Term rank_kv_term(const ModelSpec& model, const KvFormat& kv, const KvCacheSize& cache,
                  std::int64_t users, const InferenceSetup& setup, std::int64_t dp, bool explain);
/** A fixed amount in GiB, and why it is there (`why.<reason>`). */
Term gib_term(const char* id, double gib, const char* why, bool explain);
/**
 * What other processes hold on each card (InferenceSetup::held_bytes), times
 * `cards` where the plan counts the whole model (the conventions); none when
 * they hold nothing.
 */
void push_held(InferencePlan& plan, const InferenceSetup& setup, int cards, bool explain);
/** A term of the whole model as the fullest of `cards` holds it: `here` of its `layers`. */
void layer_share(Term& term, std::int64_t cards, std::int64_t here, std::int64_t layers,
                 bool explain);

// --- paged engines, vLLM and SGLang (paged.cpp) ------------------------------
/** The model as one GPU of a tensor-parallel group holds it: KV heads split, latents not. */
ModelSpec shard(const ModelSpec& model, int tp);

/**
 * Bytes per token alive at the widest point of vLLM's profiling forward pass
 * on one GPU of a tensor-parallel group (vllm.cpp).
 */
double vllm_forward_bytes_per_token(const ModelSpec& m, int tp, int expert_split);

/**
 * vLLM's pool for a model with more than one kind of layer (sliding-window
 * beside full attention; state layers, Mamba or Gated DeltaNet, beside
 * attention): the hybrid KV cache manager's pages.
 *  - One page per layer per block for every kind of layer. With state
 *    layers the attention
 *    block is raised until its page holds one layer's state
 *    (vllm/model_executor/models/config.py HybridAttentionMambaModelConfig:
 *    attn_block_size = alignment x cdiv(mamba_page_size, alignment x
 *    attn_page_size_1_token), the alignment 16 tokens, 64 under MLA; "Setting
 *    attention block size to %d tokens"), and the state is padded to that
 *    page ("Padding mamba page size by %.2f%%").
 *  - The layers are split into groups of equal size, the smallest count of a
 *    kind, or the largest where it is under 1.5 times the smallest (padding
 *    layers make up the rest); every group of a block shares one page per
 *    layer, so a block costs page x group size and the pool holds
 *    budget / (page x group size) blocks (vllm/v1/core/kv_cache_utils.py
 *    _get_kv_cache_groups_uniform_page_size, get_num_blocks).
 *  - A request of max_model_len tokens takes cdiv(tokens, block) blocks in
 *    each full-attention group, its window's in each sliding group, and one
 *    page per state group (two with prefix caching, align mode), plus one
 *    per speculative token, and vLLM's "Maximum concurrency" is the blocks
 *    over that (get_max_concurrency_for_kv_cache_config; MambaSpec
 *    max_memory_usage_bytes, mamba_cache_mode "none": vLLM keeps prefix
 *    caching off for hybrid models unless asked, engine/arg_utils.py
 *    "Hybrid models support prefix caching but keep it opt-in").
 *    Its "GPU KV cache size" is that concurrency times max_model_len in
 *    tokens from v0.20.1; earlier releases logged blocks // groups x
 *    block_size (_report_kv_cache_config; vLLM issue #40691).
 * A drafter's attention layers join the model's full-attention layers.
 */
struct HybridPool {
  bool present = false;
  std::int64_t block = 0;         ///< tokens per attention block, as raised
  double token_bytes = 0;         ///< one attention layer's bytes per token
  double state_bytes = 0;         ///< one layer's state before padding
  double page_bytes = 0;          ///< one layer's page: block x token_bytes
  std::int64_t group_size = 0;    ///< layers per KV cache group
  std::int64_t groups = 0;        ///< KV cache groups
  std::int64_t state_groups = 0;  ///< of them, groups of state layers
  std::int64_t layers[4] = {};    ///< full attention, sliding, MLA, state
};

/**
 * The pool of `local` (one card's share of the model) and, under vLLM's
 * speculative decoding, its drafter's layers, with `asked_block` the
 * request's block_size; `present` false without both state and attention
 * layers (vllm.cpp).
 */
HybridPool hybrid_pool(const ModelSpec& local, const ModelSpec* draft, const KvFormat& kv,
                       const StateStorage& state, std::int64_t asked_block);

/**
 * Blocks one request of `context` tokens takes from a hybrid pool: every
 * attention group its tokens' blocks (a sliding group at most its window and
 * one step's `batched` tokens, plus one: SlidingWindowSpec
 * max_memory_usage_bytes), every state group `state_pages` pages (MambaSpec
 * max_memory_usage_bytes: one, two in the align mode of prefix caching, and
 * one more per speculative token).
 */
std::int64_t hybrid_request_blocks(const HybridPool& pool, const ModelSpec& model,
                                   std::int64_t context, std::int64_t batched,
                                   std::int64_t state_pages);

/** The card's usable memory and the engine's `share` of it, when there is a card. */
void budget_card(EngineBudget& budget, const Gpu* gpu, const GpuCatalog& gpus, double share);

/**
 * A paged engine's fullest pipeline stage, shared by vLLM and SGLang: its
 * weights and the KV cache of one data-parallel rank, which serves its share
 * of the users from its own cache; both terms pushed onto the plan. The
 * stages split the layers as vLLM's get_pp_indices does (layers / pp each,
 * the remainder one more on each stage before the last), and the drafter
 * lives on the last stage only, so the fullest is the first stage
 * (ceil(layers / pp) layers) or the last (its layers and the drafter's
 * weights and KV cache, draft_card_bytes), whichever holds
 * more. `drafter` says which: the engine pushes the drafter's terms only on
 * the last stage's card; on the first, "assumption.draft_last_stage" says
 * where they are.
 */
struct PagedStage {
  ModelSpec local;
  KvCacheSize cache;
  double weights_bytes = 0;
  bool drafter = true;  ///< the card is the last stage's (with one stage, the only one)
};
PagedStage paged_stage(const InferenceSetup& setup, int pp, bool explain, InferencePlan& plan);
/** How vLLM and SGLang hold state layers (EngineRules::state_storage). */
StateStorage paged_states(std::int64_t slots);

// --- LoRA adapter slots, vLLM and SGLang (lora.cpp) --------------------------
/**
 * Values of every adapter slot's A and B matrices at rank 1 on one card, over
 * the first `layers` layers: attention and MLP projections (each expert of an
 * MoE layer); state-space layers, embeddings and the output head carry none.
 */
double lora_values_per_rank(const ModelSpec& m, std::int64_t layers, const InferencePlan& plan);
/** The slots the options ask for ("max_loras" x "max_lora_rank"); none when max_loras is 0. */
void push_lora_slots(InferencePlan& plan, const ModelSpec& m, std::int64_t layers,
                     const json& options, bool explain);

// --- speculative decoding's draft (draft.cpp) ---------------------------------
/**
 * The draft model's terms on one card: "draft_weights" (its weights over
 * `shards`) and "draft_kv" (its cache of `context` tokens for `users`, in
 * `kv`, K/V heads split by `tp`); its KV bytes per token on the card. None
 * and 0 without a draft. With the model's own MTP layers as the draft
 * (setup.mtp), "mtp_weights" and "mtp_kv" instead, the output head the
 * model's (inference.cpp, mtp_draft). With
 * an EAGLE-3 head (setup.eagle), "eagle_weights" (its split part over
 * `shards`, its fc, norms and token map whole) and "eagle_kv".
 */
double push_draft(InferencePlan& plan, const InferenceSetup& setup, int shards, int tp,
                  const KvFormat& kv, std::int64_t context, std::int64_t users, bool explain);
/**
 * The bytes push_draft would push on one card (the drafter's weights and its
 * cache, with the same arguments); 0 without a draft.
 */
double draft_card_bytes(const InferenceSetup& setup, int shards, int tp, const KvFormat& kv,
                        std::int64_t context, std::int64_t users);
/**
 * "warning.mtp_engine" when the model's MTP layers are asked of an engine
 * that does not run them (llama.cpp, transformers), "warning.eagle_engine"
 * likewise for an EAGLE-3 head: nothing is counted; true then, so the engine
 * leaves the draft out.
 */
bool mtp_not_run(InferencePlan& plan, const InferenceSetup& setup, const char* engine,
                 bool explain);
/**
 * SGLang's draft worker: its cache holds as many tokens as the model's pool
 * (`pool_tokens` a rank, at `per_token` bytes) and a headroom for drafting
 * and verifying; the draft's cache term is resized so. Its weights and that
 * cache come from what mem_fraction_static leaves (`room`):
 * "warning.sglang_draft_room" when they need more. The model's own fit (its
 * share of the card) does not move.
 */
void sglang_draft_pool(InferencePlan& plan, const InferenceSetup& setup, double per_token,
                       std::int64_t pool_tokens, double room, bool explain);
/** Whether a term is a drafter's weights (a draft model's, MTP layers', an EAGLE-3 head's). */
bool draft_weights_term(const std::string& id);
/** Whether a term is a drafter's KV cache. */
bool draft_kv_term(const std::string& id);
/** "warning.draft_vocab" when the draft's vocabulary is not the model's. */
void warn_draft_vocab(InferencePlan& plan, const InferenceSetup& setup, bool explain);

// --- vLLM's MXFP4 MoE layout (mxfp4_layout.cpp) -------------------------------
/** The MXFP4 MoE backend vLLM picks on a card (mxfp4.py get_mxfp4_backend). */
enum class Mxfp4Backend { kNone, kMarlin, kTriton, kFlashinfer };
const char* backend_name(Mxfp4Backend backend);
/** kNone off CUDA or without a card. */
Mxfp4Backend vllm_mxfp4_backend(const Gpu* gpu);
/** The knob mxfp4_backend's word as a backend ("marlin"...); kNone for "auto". */
Mxfp4Backend mxfp4_backend_named(const std::string& name);
/**
 * Throws error.mxfp4_backend_card when `gpu` cannot run `backend`: Triton
 * outside SM90 to SM100 (Hopper, HBM Blackwell), FlashInfer's SM100 path off
 * HBM Blackwell, any of them off CUDA. No card, or kNone: nothing to refuse.
 */
void check_mxfp4_backend(Mxfp4Backend backend, const Gpu* gpu);
/** One expert of one layer: the checkpoint's bytes and what the backend keeps. */
struct Mxfp4ExpertBytes {
  double checkpoint = 0;
  double kept = 0;
  std::int64_t hidden = 0;        ///< H as the backend pads it
  std::int64_t intermediate = 0;  ///< the expert's width on the card, padded
};
Mxfp4ExpertBytes mxfp4_expert_bytes(Mxfp4Backend backend, std::int64_t hidden,
                                    std::int64_t intermediate, bool bias);
/**
 * "mxfp4_layout": what the backend keeps beyond the checkpoint's MXFP4
 * experts on the fullest card, over the stage's first `layers` layers, the
 * backend being the knob mxfp4_backend's (`options`; "auto": the card's);
 * pushed onto the plan when there is any. Its bytes (0 when none).
 */
double push_mxfp4_layout(InferencePlan& plan, const ModelSpec& model, std::int64_t layers,
                         const Gpu* gpu, const nlohmann::json& options, bool explain);

// --- a second model on the same card (companion.cpp) ---------------------------
/**
 * "companion": the companion's weights, its KV cache and forward pass at
 * companion_context tokens, and its server's runtime memory under the
 * engine; its bytes, 0 (and no term) without one.
 */
double push_companion(const EngineInput& in, InferencePlan& plan);
/**
 * vLLM: pushes the companion, gives it its --gpu-memory-utilization (need /
 * card, up to a hundredth) and the model `share` less that; the model's.
 */
double vllm_companion_share(const EngineInput& in, InferencePlan& plan, double share);
/** SGLang: pushes the companion and sets its --mem-fraction-static; its bytes. */
double sglang_companion_bytes(const EngineInput& in, InferencePlan& plan);

// --- a vision model's images (vision.cpp) ------------------------------------
/**
 * vLLM V1's multimodal terms for a request with images: "encoder_cache"
 * (the encoder cache budget's embeddings) and "vision_peak" (the tower's
 * profiling pass over the dummy images, beyond the text pass's
 * `activations`). Their bytes, which come off the KV cache; 0 without images.
 */
double push_vllm_vision(InferencePlan& plan, const InferenceSetup& setup, const json& options,
                        double activations, bool explain);
/** The vision tower's bytes among `plan.weights` (a GGUF model file leaves them out). */
double vision_weight_bytes(const InferencePlan& plan, const InferenceSetup& setup);
/**
 * llama.cpp's --mmproj file for a request with images: "mmproj" (the tower
 * and projector in F16) and "mmproj_compute" (the clip context's buffer for
 * one image). None without images.
 */
void push_mmproj(InferencePlan& plan, const InferenceSetup& setup, bool flash, bool explain);

// --- formats -----------------------------------------------------------------
/** Safetensors checkpoints (AWQ, GPTQ, FP8, NVFP4...), not GGUF files: vLLM, SGLang, transformers.
 */
bool loads_safetensors(const WeightFormat& format);
/** "warning.gguf_format": a GGUF format under an engine that loads safetensors. */
Message gguf_format_warning(const WeightFormat& format, const EngineProfile& engine);

// --- the engines (one file each) ----------------------------------------------
extern const EngineRules kFlat;          // conventions.cpp
extern const EngineRules kPercent;       // conventions.cpp
extern const EngineRules kVllm;          // vllm.cpp
extern const EngineRules kSglang;        // sglang.cpp
extern const EngineRules kLlamacpp;      // llamacpp.cpp
extern const EngineRules kTransformers;  // transformers.cpp

}  // namespace vram::engines
