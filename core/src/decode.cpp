#include "vram/decode.hpp"

namespace vram {
namespace {

/** base^exponent by squaring: the same operations natively and in wasm. */
double power(double base, std::int64_t exponent) {
  double result = 1;
  while (exponent > 0) {
    if (exponent & 1) result *= base;
    base *= base;
    exponent >>= 1;
  }
  return result;
}

}  // namespace

DecodeCeiling decode_ceiling(const ModelSpec& model, const InferencePlan& plan,
                             double bandwidth_gbps, std::int64_t batch) {
  DecodeCeiling c;
  c.bandwidth_bytes_per_s = bandwidth_gbps * 1e9;
  // Not the MTP blocks a GGUF holds and llama.cpp leaves unloaded (engines/llamacpp.cpp).
  const double weights = plan.weights.bytes - plan.mtp_bytes;
  if (weights > 0) c.guide_tokens_per_s = c.bandwidth_bytes_per_s / weights;

  // Bytes per parameter of the experts and of everything else, as stored.
  const ParamCount& p = plan.params.computed;
  double expert_bytes = 0, expert_params = 0;
  for (const WeightPart& part : plan.weights.parts) {
    if (part.component == "experts") {
      expert_bytes += part.bytes;
      expert_params += part.params;
    }
  }
  const double average = weights / plan.params.total;
  const double experts_per_param = expert_params > 0 ? expert_bytes / expert_params : average;
  const double rest_per_param =
      expert_params > 0 ? (weights - expert_bytes) / (plan.params.total - expert_params) : average;

  // The input embedding is a lookup: one row per token, not the matrix.
  const double routed = p.experts_routed;
  double rest = plan.params.total - routed;
  if (!model.tied_embeddings) rest -= p.embedding;
  if (plan.params.total_declared) {
    // Only totals are known: read the stated active share of the weights.
    c.active_weight_bytes = weights * (plan.params.active / plan.params.total);
  } else {
    double touched_params = 0;
    if (model.moe.num_experts > 0 && routed > 0) {
      const double e = static_cast<double>(model.moe.num_experts);
      const double k = static_cast<double>(model.moe.experts_per_token);
      c.experts_touched = e * (1.0 - power(1.0 - k / e, batch));
      touched_params = routed / e * c.experts_touched;
    }
    c.expert_read_bytes = touched_params * experts_per_param;
    c.active_weight_bytes = rest * rest_per_param + c.expert_read_bytes;
  }
  c.kv_read_bytes = plan.kv.bytes;
  c.step_bytes = c.active_weight_bytes + c.kv_read_bytes;
  if (c.step_bytes > 0) {
    c.stream_tokens_per_s = c.bandwidth_bytes_per_s / c.step_bytes;
    c.batch_tokens_per_s = c.stream_tokens_per_s * static_cast<double>(batch);
  }
  return c;
}

}  // namespace vram
