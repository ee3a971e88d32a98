#include "vram/model.hpp"

#include <algorithm>

#include "vram/error.hpp"

namespace vram {
namespace {

void require(bool ok, const char* field, const std::string& message) {
  if (!ok) throw Error("invalid_value", field, message);
}

bool any_layer(const ModelSpec& m, LayerAttention kind) {
  return std::any_of(m.layers.begin(), m.layers.end(),
                     [kind](const LayerSpec& l) { return l.attention == kind; });
}

}  // namespace

const char* to_string(LayerAttention attention) {
  switch (attention) {
    case LayerAttention::kGlobal:
      return "global";
    case LayerAttention::kSliding:
      return "sliding";
    case LayerAttention::kMla:
      return "mla";
    case LayerAttention::kState:
      return "state";
  }
  return "global";
}

void validate(const ModelSpec& m) {
  require(m.hidden_size > 0, "model.hidden_size", "hidden_size must be positive");
  require(!m.layers.empty(), "model.num_hidden_layers", "the model needs at least one layer");
  require(m.num_heads > 0, "model.num_attention_heads", "num_attention_heads must be positive");
  require(m.num_kv_heads > 0 && m.num_kv_heads <= m.num_heads, "model.num_key_value_heads",
          "num_key_value_heads must be between 1 and num_attention_heads");
  require(m.head_dim > 0, "model.head_dim", "head_dim must be positive");
  require(m.v_head_dim > 0, "model.v_head_dim", "v_head_dim must be positive");
  require(m.vocab_size > 0, "model.vocab_size", "vocab_size must be positive");
  const bool dense = std::any_of(m.layers.begin(), m.layers.end(),
                                 [](const LayerSpec& l) { return l.mlp == LayerMlp::kDense; });
  require(!dense || m.intermediate_size > 0, "model.intermediate_size",
          "intermediate_size must be positive");
  const bool moe = std::any_of(m.layers.begin(), m.layers.end(),
                               [](const LayerSpec& l) { return l.mlp == LayerMlp::kMoe; });
  if (moe) {
    require(m.moe.num_experts > 0, "model.num_experts", "an MoE model needs experts");
    require(m.moe.experts_per_token > 0 && m.moe.experts_per_token <= m.moe.num_experts,
            "model.num_experts_per_tok",
            "num_experts_per_tok must be between 1 and the number of experts");
    require(m.moe.expert_intermediate > 0, "model.moe_intermediate_size",
            "moe_intermediate_size must be positive");
    require(m.moe.shared_experts >= 0, "model.n_shared_experts",
            "n_shared_experts must not be negative");
  }
  if (any_layer(m, LayerAttention::kSliding)) {
    require(m.sliding_window > 0, "model.sliding_window", "sliding_window must be positive");
  }
  if (any_layer(m, LayerAttention::kMla)) {
    require(m.mla.kv_lora_rank > 0, "model.kv_lora_rank", "kv_lora_rank must be positive");
    require(m.mla.qk_rope_head_dim > 0, "model.qk_rope_head_dim",
            "qk_rope_head_dim must be positive");
  }
  if (any_layer(m, LayerAttention::kState)) {
    require(m.ssm.d_inner > 0 && m.ssm.d_state > 0, "model.mamba_d_state",
            "state-space layers need mamba_d_state and mamba_expand");
  }
  require(m.declared_params_total >= 0, "model.params_total", "params_total must not be negative");
  require(m.declared_params_active >= 0, "model.params_active",
          "params_active must not be negative");
}

std::int64_t experts_per_gpu(const ModelSpec& model, int ep) {
  const std::int64_t e = std::max<std::int64_t>(0, model.moe.num_experts);
  const std::int64_t n = std::max(1, ep);
  return (e + n - 1) / n;
}

}  // namespace vram
