// DeepSeek V2/V3 and Kimi K2: multi-head latent attention (DeepSeek-V2
// paper, section 2.1.2) and DeepSeekMoE routed plus shared experts, with
// the first first_k_dense_replace layers dense. The MoE part is shared
// with GLM-4.5 (glm4.cpp).

#include "common.hpp"
#include "vram/limits.hpp"
#include "vram/params.hpp"

namespace vram::import {

void deepseek_moe(Context& c) {
  ModelSpec& m = c.m;
  const std::int64_t experts = c.opt_int("n_routed_experts", 0, limits::kMaxExperts).value_or(0);
  if (experts > 0) {
    m.moe.num_experts = experts;
    m.moe.experts_per_token = c.get_int("num_experts_per_tok", 1, experts);
    m.moe.expert_intermediate = c.get_int("moe_intermediate_size", 1, limits::kMaxIntermediate);
    m.moe.shared_experts = c.opt_int("n_shared_experts", 0, limits::kMaxExperts).value_or(0);
    m.moe.shared_intermediate = m.moe.expert_intermediate;
    // DeepSeek V3 and GLM-4.5 route with a per-expert score-correction bias.
    m.moe.router_score_bias = c.model_type != "deepseek_v2";
    const std::int64_t first_dense = c.opt_int("first_k_dense_replace", 0, c.layers).value_or(0);
    const std::int64_t freq = c.opt_int("moe_layer_freq", 1, limits::kMaxLayers).value_or(1);
    for (std::int64_t i = first_dense; i < c.layers; ++i) {
      if (i % freq == 0) m.layers[static_cast<std::size_t>(i)].mlp = LayerMlp::kMoe;
    }
  }
  const std::int64_t mtp = c.opt_int("num_nextn_predict_layers", 0, limits::kMaxLayers).value_or(0);
  if (mtp > 0) {
    // Each MTP module repeats one MoE decoder layer plus an eh_proj
    // (2h x h), two norms, and copies of the embedding and output head
    // in the published checkpoint. Engines do not load it by default.
    ModelSpec one = m;
    one.layers.assign(1, LayerSpec{m.layers.back().attention, m.layers.back().mlp});
    one.tied_embeddings = false;
    const ParamCount layer = count_params(one);
    const double h = static_cast<double>(m.hidden_size);
    const double module = layer.total() + 2.0 * h * h + 3.0 * h;
    m.extras.push_back({"mtp",
                        {"extra.mtp_modules", obj({{"modules", mtp}})},
                        static_cast<double>(mtp) * module,
                        false});
    m.import_notes.push_back({"import.mtp", obj({{"modules", mtp}})});
    m.mtp_layers = mtp;
  }
}

void import_deepseek(Context& c) {
  ModelSpec& m = c.m;
  m.intermediate_size = c.require_intermediate();
  m.mla.q_lora_rank = c.opt_int("q_lora_rank", 0, limits::kMaxRank).value_or(0);
  m.mla.kv_lora_rank = c.get_int("kv_lora_rank", 1, limits::kMaxRank);
  m.mla.qk_nope_head_dim = c.get_int("qk_nope_head_dim", 1, limits::kMaxHeadDim);
  m.mla.qk_rope_head_dim = c.get_int("qk_rope_head_dim", 1, limits::kMaxHeadDim);
  m.mla.v_head_dim = c.get_int("v_head_dim", 1, limits::kMaxHeadDim);
  m.head_dim = m.mla.qk_nope_head_dim + m.mla.qk_rope_head_dim;
  m.v_head_dim = m.mla.v_head_dim;
  m.qkv_bias = c.attention_bias;
  for (LayerSpec& layer : m.layers) layer.attention = LayerAttention::kMla;
  deepseek_moe(c);
}

}  // namespace vram::import
