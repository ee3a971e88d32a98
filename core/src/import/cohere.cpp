// Cohere Command R and Command R7B (cohere2): parallel attention and MLP
// sharing one LayerNorm; cohere2 slides except every sliding_window_pattern-th layer.

#include "common.hpp"
#include "vram/limits.hpp"

namespace vram::import {

void import_cohere(Context& c) {
  ModelSpec& m = c.m;
  m.intermediate_size = c.require_intermediate();
  m.qkv_bias = m.o_bias = c.attention_bias;
  m.norms_per_layer = 1;  // parallel attention and MLP share one LayerNorm
  m.qk_norm = c.opt_bool("use_qk_norm").value_or(false);
  if (m.qk_norm) c.warn({"import.cohere_qk_norm", json::object()});
  if (!apply_layer_types(c) && c.model_type == "cohere2" && m.sliding_window > 0) {
    slide_except_every(c, c.opt_int("sliding_window_pattern", 0, limits::kMaxLayers).value_or(4));
  }
}

}  // namespace vram::import
