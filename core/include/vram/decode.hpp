#pragma once

#include <cstdint>

#include "vram/engine.hpp"

namespace vram {

/**
 * Decode-speed ceilings: generating one token reads bytes from memory, so
 * bandwidth / bytes read per step bounds tokens per second (SPEC section 5).
 * A ceiling, not a benchmark.
 */
struct DecodeCeiling {
  double bandwidth_bytes_per_s = 0;
  /** The guide's figure: bandwidth / every resident weight byte. */
  double guide_tokens_per_s = 0;
  /** Bytes one decoding step reads: the weights actually used plus the KV cache. */
  double step_bytes = 0;
  double active_weight_bytes = 0;  ///< weights read per step (MoE: the experts chosen)
  double kv_read_bytes = 0;        ///< the whole batch's cache at the given context
  double experts_touched = 0;      ///< per MoE layer, expected distinct experts for the batch
  double expert_read_bytes = 0;    ///< the routed experts' share of active_weight_bytes
  /** The fuller figure, per sequence and for the whole batch. */
  double stream_tokens_per_s = 0;
  double batch_tokens_per_s = 0;
};

/**
 * `bandwidth_gbps` is the memory bandwidth in GB/s (of one card, or the sum
 * over a tensor-parallel group). For MoE at batch b, the expected number of
 * distinct experts a layer reads is E x (1 - (1 - k/E)^b) under uniform
 * routing (k experts per token out of E).
 */
DecodeCeiling decode_ceiling(const ModelSpec& model, const InferencePlan& plan,
                             double bandwidth_gbps, std::int64_t batch);

}  // namespace vram
