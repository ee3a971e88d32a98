#pragma once

#include "vram/model.hpp"

namespace vram {

/**
 * Parameter count by component, from the architecture: embeddings,
 * attention projections, MLP or experts, router, norms, state-space mixers,
 * lm_head unless tied. Counts are doubles (exact below 2^53).
 */
struct ParamCount {
  double embedding = 0;
  double lm_head = 0;
  double attention = 0;
  double mlp_dense = 0;
  double experts_routed = 0;  ///< every routed expert of every MoE layer
  double experts_shared = 0;
  double router = 0;
  double norms = 0;
  double ssm = 0;
  double extras = 0;           ///< resident extras (e.g. a vision tower)
  double extras_excluded = 0;  ///< extras not loaded (e.g. MTP modules)

  /** Routed-expert parameters a token actually uses. */
  double experts_routed_active = 0;

  /** Resident parameters: everything loaded for inference. */
  double total() const;
  /** Parameters used per token: total minus the routed experts not chosen. */
  double active() const;
};

ParamCount count_params(const ModelSpec& model);

}  // namespace vram
