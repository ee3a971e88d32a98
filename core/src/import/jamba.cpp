// Jamba (AI21): Mamba-1 mixers with attention every attn_layer_period-th
// layer, MoE every expert_layer_period-th.

#include <algorithm>

#include "common.hpp"
#include "vram/limits.hpp"

namespace vram::import {

void import_jamba(Context& c) {
  ModelSpec& m = c.m;
  m.intermediate_size = c.require_intermediate();
  const std::int64_t attn_period =
      c.opt_int("attn_layer_period", 1, limits::kMaxLayers).value_or(8);
  const std::int64_t attn_offset =
      c.opt_int("attn_layer_offset", 0, limits::kMaxLayers).value_or(4);
  const std::int64_t expert_period =
      c.opt_int("expert_layer_period", 1, limits::kMaxLayers).value_or(2);
  const std::int64_t expert_offset =
      c.opt_int("expert_layer_offset", 0, limits::kMaxLayers).value_or(1);
  m.moe.num_experts = c.opt_int("num_experts", 0, limits::kMaxExperts).value_or(16);
  m.moe.experts_per_token =
      c.opt_int("num_experts_per_tok", 1, std::max<std::int64_t>(m.moe.num_experts, 1)).value_or(2);
  m.moe.expert_intermediate = m.intermediate_size;
  const std::int64_t expand = c.opt_int("mamba_expand", 1, limits::kMaxMambaExpand).value_or(2);
  m.ssm.d_inner = expand * m.hidden_size;
  m.ssm.d_state = c.opt_int("mamba_d_state", 1, limits::kMaxMambaState).value_or(16);
  m.ssm.d_conv = c.opt_int("mamba_d_conv", 1, limits::kMaxMambaConv).value_or(4);
  m.ssm.dt_rank =
      c.opt_int("mamba_dt_rank", 1, limits::kMaxRank).value_or((m.hidden_size + 15) / 16);
  m.ssm.conv_bias = c.opt_bool("mamba_conv_bias").value_or(true);
  m.ssm.proj_bias = c.opt_bool("mamba_proj_bias").value_or(false);
  m.ssm.inner_norms = true;
  for (std::int64_t i = 0; i < c.layers; ++i) {
    LayerSpec& layer = m.layers[static_cast<std::size_t>(i)];
    layer.attention =
        i % attn_period == attn_offset ? LayerAttention::kGlobal : LayerAttention::kState;
    if (m.moe.num_experts > 1 && i % expert_period == expert_offset) layer.mlp = LayerMlp::kMoe;
  }
  if (m.moe.num_experts <= 1) m.moe = MoeSpec{};
}

}  // namespace vram::import
