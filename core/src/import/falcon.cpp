// Falcon (and its custom-code RefinedWeb names): LayerNorms with biases, a
// 4h GELU MLP, multi-query or grouped KV heads.

#include "common.hpp"
#include "json_read.hpp"

namespace vram::import {

/**
 * Falcon's 40B/180B layout (grouped KV heads, ln_attn and ln_mlp). The
 * original custom-code configs say so by model_type "RefinedWeb" (40B)
 * rather than "RefinedWebModel" (7B); converted ones by a flag.
 */
bool falcon_new_architecture(const Context& c) {
  return c.opt_bool("new_decoder_architecture").value_or(c.model_type == "RefinedWeb");
}

void import_falcon(Context& c) {
  ModelSpec& m = c.m;
  const bool new_arch = falcon_new_architecture(c);
  if (!new_arch) {
    // The old layout has one KV head (multi_query) or one per query head.
    m.num_kv_heads = c.opt_bool("multi_query").value_or(true) ? 1 : m.num_heads;
  }
  m.intermediate_size = c.intermediate.value_or(4 * m.hidden_size);
  m.gated_mlp = false;  // dense_h_to_4h, GELU, dense_4h_to_h
  m.norm_bias = true;   // LayerNorm
  const bool bias = c.opt_bool("bias").value_or(false);
  m.qkv_bias = m.o_bias = m.mlp_bias = bias;
  const bool parallel = c.opt_bool("parallel_attn").value_or(true);
  // New architecture: ln_attn and ln_mlp; old parallel: one input norm.
  m.norms_per_layer = new_arch ? 2 : (parallel ? 1 : 2);
}

}  // namespace vram::import
