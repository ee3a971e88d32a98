#pragma once

// The serving plan: how N cards serve one model under an engine. vLLM and
// SGLang split each layer over a tensor-parallel group and the layers over
// pipeline stages; llama.cpp's default split gives each card a run of
// layers (the cards work one after another); the conventions only add the
// cards' memory up.

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "vram/engine.hpp"
#include "vram/fit.hpp"
#include "vram/gpu.hpp"
#include "vram/model.hpp"
#include "vram/offload.hpp"
#include "vram/speed.hpp"

namespace vram {

/** How `gpus` cards share one model. */
struct ServingLayout {
  int gpus = 1;
  int tensor_parallel = 1;
  int pipeline_parallel = 1;
  int nodes = 1;
  /** TP exceeds the KV heads: each card keeps a copy of one KV head (vLLM, SGLang). */
  bool kv_heads_replicated = false;
  /**
   * Attention data-parallel ranks (vLLM --data-parallel-size, SGLang --dp with
   * --enable-dp-attention): each rank is `tensor_parallel` cards with its own
   * requests and KV cache; the MoE layers span all ranks. gpus = tp x pp x dp.
   */
  int data_parallel = 1;
  /** Routed experts placed whole (vLLM --enable-expert-parallel, SGLang --ep-size). */
  bool expert_parallel = false;
  /** For MoE models under vLLM/SGLang: "tensor", "expert", "dp_attention", "expert_dp_attention".
   */
  std::string moe_layout;
  /** Cards one MoE layer spans: tensor_parallel x data_parallel. */
  int moe_group() const { return tensor_parallel * data_parallel; }
  /** Expert-parallel size: the MoE group with expert parallelism, else 1. */
  int expert_parallel_size() const { return expert_parallel ? moe_group() : 1; }
  /**
   * "single", "tensor", "tensor_pipeline", "pipeline", "data", "data_pipeline" (vLLM/SGLang),
   * "layer" (llama.cpp), "device_map" (transformers), "sum".
   */
  std::string split = "single";
};

/**
 * Whether `tp` cards may split the model's attention: the query heads
 * divide by TP, and the KV heads either divide by TP or divide TP (then
 * each card keeps a replica: vLLM's QKVParallelLinear asserts exactly
 * this, and SGLang follows it). MLA models cache a latent that is not
 * split, so only the query heads count.
 */
bool tensor_parallel_legal(const ModelSpec& model, int tp);

/**
 * Checks an expert-parallel or data-parallel-attention layout against the
 * model and engine: both need an MoE model; expert parallelism needs at
 * least one expert per card, and under SGLang experts divisible by the EP
 * size (its FusedMoE asserts num_experts % ep_size == 0). Named errors on
 * "engine_options.expert_parallel" and "engine_options.data_parallel_size".
 * Also fills `layout.moe_layout`.
 */
void check_moe_layout(const ModelSpec& model, const EngineProfile& engine, ServingLayout& layout);

/**
 * The layout of `gpus` cards for `engine`: for vLLM and SGLang the largest
 * legal tensor-parallel group that divides `gpus` / `data_parallel` and
 * fits in one node (`node_size`), and pipeline stages for the rest; llama.cpp splits by
 * layers; the conventions add memory up. Throws vram::Error (field
 * "gpu_count") when no legal layout exists (more stages than layers,
 * `gpus` not a multiple of `data_parallel`), and check_moe_layout's errors.
 */
ServingLayout choose_layout(const ModelSpec& model, const EngineProfile& engine, int gpus,
                            int node_size, int data_parallel = 1, bool expert_parallel = false);

/** The options' data_parallel_size (1 when the engine has none). */
int data_parallel_of(const nlohmann::json& options);
/** The options' expert_parallel (false when the engine has none). */
bool expert_parallel_of(const nlohmann::json& options);

/**
 * Resolves the layout of a request: `gpus` (gpu_count) when given, else
 * tensor x pipeline from the options. Knobs given explicitly win and are
 * checked against `gpus` and against the model (named errors
 * "gpu_count", "engine_options.tensor_parallel_size"). Writes the chosen
 * tensor_parallel_size and pipeline_parallel_size into `options` where
 * the engine has those knobs.
 */
ServingLayout resolve_layout(const ModelSpec& model, const EngineProfile& engine,
                             nlohmann::json& options, const nlohmann::json& given_options,
                             std::int64_t gpus, bool gpus_given, int node_size);

/** The options with `layout`'s tensor and pipeline sizes written in (where the engine has them). */
nlohmann::json options_for_layout(const EngineProfile& engine, const nlohmann::json& options,
                                  const ServingLayout& layout);

/** What `gpus` cards hold, per card and in all. */
struct ServingFit {
  double per_gpu_need_bytes = 0;      ///< the plan's total on its fullest card
  double per_gpu_capacity_bytes = 0;  ///< the engine's share of a card, or what it may allocate
  double kv_budget_bytes = 0;         ///< per card: capacity - everything but the KV cache
  double kv_bytes_per_token = 0;      ///< per card
  std::int64_t kv_tokens = 0;  ///< tokens the cards hold at once (every card holds its share)
  double max_concurrency = 0;  ///< sequences of `context` tokens at once
  bool fits = false;
};

/**
 * The fit of a plan on one card type: vLLM and SGLang by their own KV
 * budget (EngineBudget), llama.cpp by its fullest card against what CUDA
 * reports, the conventions by the whole total against the marketed memory
 * of all the cards.
 */
ServingFit serving_fit(const InferencePlan& plan, const EngineProfile& engine, const Gpu& gpu,
                       const GpuCatalog& gpus, std::int64_t context, std::int64_t batch);

/** Card counts a plan tries: 1, 2, 4, 8, then whole nodes up to limits::kMaxServingGpus. */
std::vector<int> serving_counts(int node_size);

/**
 * The fewest cards of `gpu` (from serving_counts) whose plan under
 * `engine` holds `setup`, or 0 when none up to the limit does. More
 * context or users never lowers it: for each count, a plan that holds a
 * larger load holds a smaller one.
 */
int cards_needed(const InferenceSetup& setup, const EngineProfile& engine,
                 const nlohmann::json& options, const Gpu& gpu, const GpuCatalog& gpus,
                 const FormatCatalog& formats);

/** One priced set of one card that serves a plan, with its speed (cheapest_sets). */
struct ServingSet {
  Option option;         ///< the card, its count, its price and its layout
  DecodeSpeed decode;    ///< expected decode on those cards
  PrefillSpeed prefill;  ///< expected prefill; unknown for an offloaded set
  /** llama.cpp holding it only with part of it in host memory (offload.hpp). */
  std::optional<OffloadPlan> offload;
};

/** What cheapest_sets searches over: the load, the engine, the catalogs, the service floor. */
struct ServingSearch {
  const InferenceSetup& setup;
  const EngineProfile& engine;
  const nlohmann::json& options;  ///< engine_options as read, before any layout is written in
  const GpuCatalog& gpus;
  const FormatCatalog& formats;
  const SpeedProfile& speed;
  const SpeedData& speeds;
  std::string format_id;  ///< the weights' format, the model's own when native
  double min_tokens_per_s = 0;
};

/**
 * Under an engine, each priced card's set: its fewest count in one node
 * (1, 2, 4, 8; minimum orders and stock kept) whose serving plan holds
 * the context x users and meets the floor per user; failing the floor, the
 * fewest that hold it (for the answer to list apart). Under llama.cpp, a
 * card too small at its smallest count is also offered with the rest in
 * host memory (offload.hpp), when that meets the floor or no count of it
 * holds the whole model. Cheapest first; equal prices in catalog order.
 */
std::vector<ServingSet> cheapest_sets(const ServingSearch& search);

}  // namespace vram
