#include "vram/params.hpp"

#include <cstdint>

#include "widen.hpp"

namespace vram {
namespace {

/** q, k, v, o projections of one standard (non-MLA) attention layer. */
double attention_params(const ModelSpec& m) {
  const double h = d(m.hidden_size);
  // With an output gate q_proj writes the queries and the gate (Qwen3NextAttention).
  const double q_width = d(m.num_heads * m.head_dim) * (m.attn_output_gate ? 2.0 : 1.0);
  const double k_width = d(m.num_kv_heads * m.head_dim);
  const double v_width = d(m.num_kv_heads * m.v_head_dim);
  const double o_in = d(m.num_heads * m.v_head_dim);
  double count = h * (q_width + k_width + v_width) + o_in * h;
  if (m.qkv_bias) count += q_width + k_width + v_width;
  if (m.o_bias) count += h;
  if (m.qk_norm) count += 2.0 * d(m.head_dim);
  if (m.attention_sinks) count += d(m.num_heads);
  return count;
}

/** Multi-head latent attention (DeepSeek V2 paper, section 2.1.2). */
double mla_params(const ModelSpec& m) {
  const MlaSpec& a = m.mla;
  const double h = d(m.hidden_size);
  const double heads = d(m.num_heads);
  const double q_head = d(a.qk_nope_head_dim + a.qk_rope_head_dim);
  double count = 0;
  if (a.q_lora_rank > 0) {
    // q_a_proj, q_a_layernorm, q_b_proj
    count += h * d(a.q_lora_rank) + d(a.q_lora_rank) + d(a.q_lora_rank) * heads * q_head;
  } else {
    count += h * heads * q_head;  // q_proj
  }
  // kv_a_proj_with_mqa (latent + shared rope key), kv_a_layernorm, kv_b_proj
  count += h * d(a.kv_lora_rank + a.qk_rope_head_dim) + d(a.kv_lora_rank) +
           d(a.kv_lora_rank) * heads * d(a.qk_nope_head_dim + a.v_head_dim);
  count += heads * d(a.v_head_dim) * h;  // o_proj
  if (m.qkv_bias) count += heads * q_head;
  return count;
}

/** One feed-forward network of width `width` (gated: gate, up, down). */
double ffn_params(const ModelSpec& m, std::int64_t width, bool bias) {
  const double h = d(m.hidden_size);
  const double w = d(width);
  const double matrices = m.gated_mlp ? 3.0 : 2.0;
  double count = matrices * h * w;
  if (bias) count += (m.gated_mlp ? 2.0 * w : w) + h;
  return count;
}

/** Mamba-2 mixer (Dao and Gu 2024; Bamba's HF implementation). */
double mamba2_params(const ModelSpec& m) {
  const SsmSpec& s = m.ssm;
  const double h = d(m.hidden_size);
  const double inner = d(s.d_inner);
  const double conv = d(s.conv_dim());
  const double heads = d(s.n_heads);
  // in_proj -> gate z, x, B, C and dt per head
  double count = h * (2.0 * inner + 2.0 * d(s.n_groups * s.d_state) + heads);
  if (s.proj_bias) count += 2.0 * inner + 2.0 * d(s.n_groups * s.d_state) + heads;
  count += conv * d(s.d_conv);  // depthwise conv1d over x, B and C
  if (s.conv_bias) count += conv;
  count += 3.0 * heads;  // dt_bias, A_log, D
  count += inner;        // gated RMSNorm
  count += inner * h;    // out_proj
  if (s.proj_bias) count += h;
  return count;
}

/**
 * Gated DeltaNet (transformers' Qwen3NextGatedDeltaNet): in_proj_qkvz writes
 * q and k (key heads x key width each), v and the gate z (the value width
 * each); in_proj_ba one beta and one alpha per value head; a bias-free
 * depthwise conv over q, k and v; dt_bias and A_log per value head; a gated
 * RMSNorm over one value head's width; out_proj.
 */
double gated_delta_params(const ModelSpec& m) {
  const SsmSpec& s = m.ssm;
  const double h = d(m.hidden_size);
  const double inner = d(s.d_inner);
  const double heads = d(s.n_heads);
  double count = h * (2.0 * d(s.n_groups * s.d_state) + 2.0 * inner);  // in_proj_qkvz
  count += h * 2.0 * heads;                                            // in_proj_ba
  count += d(s.conv_dim()) * d(s.d_conv);                              // conv1d
  count += 2.0 * heads;                                                // dt_bias, A_log
  count += d(s.d_inner / s.n_heads);                                   // norm
  count += inner * h;                                                  // out_proj
  return count;
}

/** Mamba mixer (Gu and Dao 2023; Jamba's HF implementation). */
double ssm_params(const ModelSpec& m) {
  const SsmSpec& s = m.ssm;
  if (s.gated_delta) return gated_delta_params(m);
  if (s.version == 2) return mamba2_params(m);
  const double h = d(m.hidden_size);
  const double inner = d(s.d_inner);
  double count = h * 2.0 * inner;  // in_proj (x and gate)
  count += inner * d(s.d_conv);    // depthwise conv1d
  if (s.conv_bias) count += inner;
  count += inner * d(s.dt_rank + 2 * s.d_state);  // x_proj -> dt, B, C
  count += d(s.dt_rank) * inner + inner;          // dt_proj with bias
  count += inner * d(s.d_state) + inner;          // A_log, D
  count += inner * h;                             // out_proj
  if (s.proj_bias) count += 2.0 * inner + h;
  if (s.inner_norms) count += d(s.dt_rank + 2 * s.d_state);
  return count;
}

}  // namespace

double ParamCount::total() const {
  return embedding + lm_head + attention + mlp_dense + experts_routed + experts_shared + router +
         norms + ssm + extras;
}

double ParamCount::active() const { return total() - experts_routed + experts_routed_active; }

ParamCount count_params(const ModelSpec& m) {
  ParamCount c;
  const double h = d(m.hidden_size);
  const double norm = m.norm_bias ? 2.0 * h : h;
  c.embedding = d(m.vocab_size) * h;
  c.lm_head = m.tied_embeddings || m.pooling ? 0.0 : d(m.vocab_size) * h;
  c.norms = norm;  // final norm

  const MoeSpec& moe = m.moe;
  const double expert = ffn_params(m, moe.expert_intermediate, moe.expert_bias);
  for (const LayerSpec& layer : m.layers) {
    c.norms += static_cast<double>(m.norms_per_layer) * norm;
    switch (layer.attention) {
      case LayerAttention::kGlobal:
      case LayerAttention::kSliding:
        c.attention += attention_params(m);
        break;
      case LayerAttention::kMla:
        c.attention += mla_params(m);
        break;
      case LayerAttention::kState:
        c.ssm += ssm_params(m);
        break;
    }
    if (layer.mlp == LayerMlp::kDense) {
      c.mlp_dense += ffn_params(m, m.intermediate_size, m.mlp_bias);
      continue;
    }
    c.experts_routed += d(moe.num_experts) * expert;
    c.experts_routed_active += d(moe.experts_per_token) * expert;
    c.experts_shared += d(moe.shared_experts) * ffn_params(m, moe.shared_intermediate, false);
    c.router += h * d(moe.num_experts);
    if (moe.router_bias || moe.router_score_bias) c.router += d(moe.num_experts);
    if (moe.shared_expert_gate) c.router += h;
  }
  for (const ExtraParams& extra : m.extras) {
    (extra.resident ? c.extras : c.extras_excluded) += extra.count;
  }
  return c;
}

}  // namespace vram
