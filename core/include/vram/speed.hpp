#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include <nlohmann/json_fwd.hpp>

#include "vram/decode.hpp"
#include "vram/engine.hpp"
#include "vram/gpu.hpp"

namespace vram {

/** One engine's speed figures (data/speed.json "engines"), each fitted on cited runs. */
struct SpeedProfile {
  std::string engine;  ///< an engine id, or "default" for the conventions
  double bandwidth_efficiency = 0.7;
  std::map<std::string, double> format_efficiency;  ///< weight format id -> its kernels' share
  double per_layer_s = 0;                           ///< fixed cost per layer per step
  /**
   * The engine's matrix-vector kernels' own bandwidth ceiling, GB/s per card
   * (0: none): the loads they keep in flight draw no more from any memory,
   * so a card reads at min(bandwidth x efficiency, this).
   */
  double kernel_bandwidth_gbps = 0;
  /** Added to per_layer_s on cards with HBM memory (memory_type "HBM..."). */
  double hbm_per_layer_s = 0;
  std::string kernel_source;  ///< where kernel_bandwidth_gbps and hbm_per_layer_s come from
  double per_step_s = 0;      ///< fixed cost per step
  /**
   * With FP8 weights on FP8 tensor cores: each FP8 linear layer quantizes
   * its input to FP8 in a kernel of its own before the matrix product, a
   * launch-bound cost at a small batch (per linear, per step; 0: none).
   */
  double fp8_quant_s = 0;
  std::string fp8_quant_source;
  double allreduce_sync_s = 0;       ///< per tensor-parallel all-reduce, beyond the link's latency
  double compute_utilisation = 0.6;  ///< of dense TFLOP/s, decode at large batch
  double prefill_utilisation = 0.6;  ///< of dense TFLOP/s, prefill
  /** Of the host's memory bandwidth, for weights kept in host memory (0: not fitted). */
  double host_efficiency = 0;
  double host_handoff_s = 0;  ///< one GPU -> host -> GPU round trip of a step (partial offload)
  std::string host_handoff_source;
  std::string source;
  std::string host_source;
};

/** data/speed.json. */
struct SpeedData {
  std::vector<SpeedProfile> engines;
  std::map<std::string, double> link_latency_s;  ///< by interconnect topology
  double activation_bytes = 2;
  /** FP8 linear layers per decoder layer, each quantizing its input (SpeedProfile::fp8_quant_s). */
  int fp8_linears_per_layer = 4;
  int allreduces_per_layer = 2;

  /** The engine's profile, or the "default" one. */
  const SpeedProfile& profile(const std::string& engine) const;
  double latency(const std::string& topology) const;
};

SpeedData speed_data_from_json(const nlohmann::json& j);

/** A card whose memory_type starts with "HBM": the profile's hbm_per_layer_s applies. */
bool hbm_memory(const Gpu& gpu);

/** How a plan's cards run one decoding step. */
struct SpeedLayout {
  int tensor_parallel = 1;  ///< cards reading their share at once
  int stages = 1;           ///< groups running one after another (pipeline, llama.cpp layers)
  /** Attention data-parallel ranks of tensor_parallel cards; MoE layers span all of them. */
  int data_parallel = 1;
  bool expert_parallel = false;  ///< routed experts whole: all-to-all dispatch and combine
};

/** The expected decode speed, beside its bandwidth ceiling. All per step unless named. */
struct DecodeSpeed {
  double ceiling_tokens_per_s = 0;   ///< per user: bandwidth over bytes read (decode.hpp)
  double expected_tokens_per_s = 0;  ///< per user
  double expected_batch_tokens_per_s = 0;
  double efficiency = 0;       ///< the bandwidth share used
  bool kernel_capped = false;  ///< the profile's kernel_bandwidth_gbps set the share
  double per_layer_s = 0;      ///< the fixed cost per layer counted (HBM's included)
  double memory_s = 0;         ///< bytes read at that share
  double compute_s = 0;  ///< 2 x active params x batch at the utilisation (0: TFLOP/s unknown)
  double fixed_s = 0;    ///< per-layer and per-step costs
  double quant_s = 0;    ///< FP8 linears' input quantization (SpeedProfile::fp8_quant_s)
  double allreduce_s = 0;
  double alltoall_s = 0;  ///< MoE layers' dispatch and combine over the data-parallel group
  double hops_s = 0;
  double host_s = 0;     ///< bytes read from host memory (partial offload)
  double handoff_s = 0;  ///< the step's GPU <-> host round trips (partial offload)
  double step_s = 0;
  bool compute_bound = false;
  bool compute_known = false;  ///< the card states its TFLOP/s
};

/** Time to first token for one prompt. */
struct PrefillSpeed {
  bool known = false;  ///< the card states its TFLOP/s
  double flops = 0;
  double tflops = 0;  ///< the card's dense figure used (BF16 or FP8), per card
  double utilisation = 0;
  double seconds = 0;
  double tokens_per_s = 0;
  bool fp8 = false;
};

/**
 * How a plan's cards run a step under `engine`: tensor groups of
 * `tensor_parallel` at once and `pipeline` stages in turn; llama.cpp's
 * `cards` layers' runs one after another.
 */
SpeedLayout speed_layout(const EngineProfile& engine, int tensor_parallel, int pipeline, int cards);

/**
 * FP8 tensor cores run the step when the weights (`weights`, or the
 * model's own format when null) are FP8 on a card that has them, under
 * vLLM, SGLang or a convention; llama.cpp runs its own kernels.
 */
bool fp8_compute(const EngineProfile& engine, const WeightFormat* weights, const ModelSpec& model,
                 const Gpu& gpu);

/**
 * The bandwidth one step reads its bytes at, as if spread evenly: one
 * card's x tensor_parallel; with data-parallel ranks, one card's x the
 * step's bytes over the bytes the fullest card reads (the non-expert
 * weights over its rank's TP, the experts and the caches over the group).
 */
double step_bandwidth_gbps(const ModelSpec& model, const InferencePlan& plan, const Gpu& gpu,
                           const SpeedLayout& layout, std::int64_t batch);

/**
 * Expected decode: the ceiling of decode_ceiling over `layout.tensor_parallel`
 * cards, divided by the profile's efficiency (at most the engine's kernel
 * bandwidth over the card's), plus fixed costs per layer (more on HBM
 * cards where the profile says so) and step, the tensor-parallel all-reduces over the card's link
 * and a hop per stage boundary; at least the matrix products at the card's dense TFLOP/s. With
 * attention data parallelism (`layout.data_parallel` ranks), each card reads the non-expert weights
 * over its rank's TP, and the experts touched by all users and its rank's cache over the whole
 * group; attention all-reduces run within a rank on its users, and each MoE layer's dispatch and
 * combine move every rank's tokens over the link (k copies each under expert parallelism, one
 * gathered copy without it).
 */
DecodeSpeed expected_decode(const ModelSpec& model, const InferencePlan& plan, const Gpu& gpu,
                            const SpeedLayout& layout, std::int64_t batch,
                            const std::string& format_id, bool fp8_compute,
                            const SpeedProfile& profile, const SpeedData& data);

/**
 * Expected decode when `host_read_bytes` of each step stay in host memory
 * (llama.cpp's partial offload): the GPU reads the rest as expected_decode
 * has it, and the host its share at `host_bandwidth_gbps` x the profile's
 * host_efficiency, in turn (the layers run one after another). The
 * ceiling is the same split at the full bandwidths.
 */
DecodeSpeed expected_offload_decode(const ModelSpec& model, const InferencePlan& plan,
                                    const Gpu& gpu, const SpeedLayout& layout, std::int64_t batch,
                                    const std::string& format_id, const SpeedProfile& profile,
                                    const SpeedData& data, double host_read_bytes,
                                    double host_bandwidth_gbps, int host_handoffs);

/**
 * Prefill of `prompt` tokens for one sequence: 2 x active params x prompt +
 * attention (2 x layers x prompt x min(prompt, window) x query width,
 * causal) over tensor_parallel cards' dense TFLOP/s x the utilisation.
 */
PrefillSpeed expected_prefill(const ModelSpec& model, const InferencePlan& plan, const Gpu& gpu,
                              const SpeedLayout& layout, std::int64_t prompt, bool fp8_compute,
                              const SpeedProfile& profile);

}  // namespace vram
