// gpt-oss: every layer MoE with biased experts and router, attention sinks,
// alternating sliding and full attention.

#include "common.hpp"
#include "vram/limits.hpp"

namespace vram::import {

void import_gpt_oss(Context& c) {
  ModelSpec& m = c.m;
  const std::int64_t width = c.require_intermediate();
  m.qkv_bias = m.o_bias = true;
  m.attention_sinks = true;
  m.moe.num_experts = c.get_int_any({"num_local_experts", "num_experts"}, 1, limits::kMaxExperts);
  m.moe.experts_per_token =
      c.get_int_any({"num_experts_per_tok", "experts_per_token"}, 1, m.moe.num_experts);
  m.moe.expert_intermediate = width;
  m.moe.expert_bias = true;
  m.moe.router_bias = true;
  for (LayerSpec& layer : m.layers) layer.mlp = LayerMlp::kMoe;
  if (!apply_layer_types(c)) {
    for (std::int64_t i = 0; i < c.layers; i += 2) {
      m.layers[static_cast<std::size_t>(i)].attention = LayerAttention::kSliding;
    }
  }
}

}  // namespace vram::import
