#pragma once

// llama.cpp's partial offload: when a model does not fit its cards, the
// largest share that does stays on the GPU and the rest in host memory.
//
// What stays where (llama.cpp src/llama-model.cpp load_tensors, common/arg.cpp;
// data/engines.json cites them):
//  - token_embd (the input layer) is always in host memory;
//  - -ngl N counts n_layer + 1 slots, the output layer last: the GPU takes
//    the output layer and the last N - 1 repeating layers
//    (i_gpu_start = max(n_layer + 1 - N, 0));
//  - each layer's KV cache sits beside the layer (unless --no-kv-offload);
//  - --n-cpu-moe N keeps the routed expert tensors (ffn_{up,gate,down}_exps)
//    of the first N layers in host memory, everything else on the GPU.

#include <cstdint>
#include <memory>
#include <optional>
#include <vector>

#include <nlohmann/json.hpp>

#include "vram/engine.hpp"

namespace vram {

/** Where a model's bytes sit under llama.cpp, layer by layer. */
struct OffloadParts {
  double embedding_bytes = 0;  ///< token_embd: host memory, always
  double head_bytes = 0;       ///< the output layer (a tied model's copy of token_embd)
  bool tied_head = false;      ///< the output layer is token_embd (host memory has it)
  /** -ngl counts the output layer as one of n_layer + 1 slots (today's builds; the knob
   * ngl_counts_output); false: N repeating layers, the output only at n_layer + 1. */
  bool ngl_counts_output = true;
  std::vector<double> layer_bytes;    ///< each repeating layer's weights
  std::vector<double> experts_bytes;  ///< its routed expert tensors (0 for dense layers)
  std::vector<double> kv_bytes;       ///< its KV cache, n_ctx cells
  double compute_bytes = 0;           ///< the compute buffer (per device that computes)
  double context_bytes = 0;           ///< the CUDA context, per card
  /** Share of a layer's routed experts one decoding step reads (1 for dense models). */
  double experts_read_share = 1;
};

/** The model under llama.cpp, split as OffloadParts describes, from its full plan. */
OffloadParts offload_parts(const InferenceSetup& setup, const InferencePlan& plan,
                           const nlohmann::json& options);

/** A partial-offload plan: which layers or experts stay in host memory. */
struct OffloadPlan {
  enum class Kind { kNone, kLayers, kExperts };
  /** kNone: nothing on the host (the whole model on the GPUs), or no partial plan fits. */
  Kind kind = Kind::kNone;
  int layers = 0;                 ///< the model's repeating layers
  int gpu_layers = 0;             ///< repeating layers on the GPUs
  int ngl = 0;                    ///< -ngl as the command carries it (gpu_layers + 1: the output)
  int n_cpu_moe = 0;              ///< --n-cpu-moe: layers whose routed experts stay on the host
  bool user = false;              ///< the user's placement (engine knobs), not the plan's pick
  bool fits = true;               ///< per_gpu_bytes <= capacity_bytes
  double per_gpu_bytes = 0;       ///< the fullest card's need
  double capacity_bytes = 0;      ///< per card
  double gpu_weights_bytes = 0;   ///< over every card
  double host_weights_bytes = 0;  ///< token_embd + host layers or experts
  double host_kv_bytes = 0;       ///< the host layers' KV cache
  double host_compute_bytes = 0;  ///< a compute buffer for the host's share
  double host_bytes = 0;          ///< host RAM needed: weights + KV + compute buffer
  double host_read_bytes = 0;     ///< read from host memory per decoding step
  /** Hand-offs a decoding step makes beyond a full-GPU run's: one round trip to the host and
   * back for each GPU layer whose experts the host holds, one more for an output layer there. */
  int host_handoffs = 0;
  /** A user's placement that does not fit: the plan's own pick (kind kNone: none fits). */
  std::shared_ptr<const OffloadPlan> suggested;
};

/** The fullest card's need with `gpu_layers` layers on `cards` cards and `n_cpu_moe` layers'
 * experts on the host. */
double offload_card_bytes(const OffloadParts& parts, int gpu_layers, int n_cpu_moe, int cards);

/** The same for -ngl `ngl` as typed: n_layer + 1 slots, the output layer last (0: none on the
 * GPU; above n_layer + 1: all). */
double placement_card_bytes(const OffloadParts& parts, int ngl, int n_cpu_moe, int cards);

/**
 * The plan with the most on the GPU that fits `capacity_bytes` per card:
 * for an MoE model the fewest layers' experts in host memory
 * (--n-cpu-moe, every layer's attention on the GPU), else the most whole
 * layers on the GPU (-ngl). Only partial plans are tried (at least one
 * layer or one layer's experts on the host); kind kNone when none fits.
 * More capacity never puts fewer layers on the GPU.
 */
OffloadPlan plan_offload(const OffloadParts& parts, double capacity_bytes, int cards);

/**
 * The user's placement: -ngl `ngl` and --n-cpu-moe `n_cpu_moe` exactly as
 * given (engine knobs gpu_layers, n_cpu_moe), the values carried as typed.
 * One left unset (std::nullopt, the knob's "auto") is the plan's pick
 * beside the other: the most slots that fit with the user's --n-cpu-moe
 * (all when none does), or the fewest layers' experts that fit with the
 * user's -ngl (0 when none does, or for a dense model). When the placement
 * does not fit `capacity_bytes` per card, `suggested` holds plan_offload's.
 */
OffloadPlan place_offload(const OffloadParts& parts, std::optional<int> ngl,
                          std::optional<int> n_cpu_moe, double capacity_bytes, int cards);

}  // namespace vram
