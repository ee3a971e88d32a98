#include "vram/model.hpp"

#include <algorithm>

#include "vram/error.hpp"

namespace vram {
namespace {

/** `field` ("model.x") fails `id`'s rule; the message names it as the config does ("x"). */
void require(bool ok, const char* field, const char* id = "error.positive") {
  if (!ok) {
    throw Error::make("invalid_value", field, id,
                      obj({{"field", std::string(field).substr(sizeof "model." - 1)}}));
  }
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
  require(m.hidden_size > 0, "model.hidden_size");
  require(!m.layers.empty(), "model.num_hidden_layers", "error.model_layers");
  require(m.num_heads > 0, "model.num_attention_heads");
  require(m.num_kv_heads > 0 && m.num_kv_heads <= m.num_heads, "model.num_key_value_heads",
          "error.kv_heads_range");
  require(m.head_dim > 0, "model.head_dim");
  require(m.v_head_dim > 0, "model.v_head_dim");
  require(m.vocab_size > 0, "model.vocab_size");
  const bool dense = std::any_of(m.layers.begin(), m.layers.end(),
                                 [](const LayerSpec& l) { return l.mlp == LayerMlp::kDense; });
  require(!dense || m.intermediate_size > 0, "model.intermediate_size");
  const bool moe = std::any_of(m.layers.begin(), m.layers.end(),
                               [](const LayerSpec& l) { return l.mlp == LayerMlp::kMoe; });
  if (moe) {
    require(m.moe.num_experts > 0, "model.num_experts", "error.moe_experts");
    require(m.moe.experts_per_token > 0 && m.moe.experts_per_token <= m.moe.num_experts,
            "model.num_experts_per_tok", "error.experts_per_token");
    require(m.moe.expert_intermediate > 0, "model.moe_intermediate_size");
    require(m.moe.shared_experts >= 0, "model.n_shared_experts", "error.non_negative");
  }
  if (any_layer(m, LayerAttention::kSliding)) {
    require(m.sliding_window > 0, "model.sliding_window");
  }
  if (any_layer(m, LayerAttention::kMla)) {
    require(m.mla.kv_lora_rank > 0, "model.kv_lora_rank");
    require(m.mla.qk_rope_head_dim > 0, "model.qk_rope_head_dim");
  }
  if (any_layer(m, LayerAttention::kState)) {
    require(m.ssm.d_inner > 0 && m.ssm.d_state > 0, "model.mamba_d_state", "error.ssm_shape");
  }
  require(m.declared_params_total >= 0, "model.params_total", "error.non_negative");
  require(m.declared_params_active >= 0, "model.params_active", "error.non_negative");
}

double vision_params(const ModelSpec& model) {
  double count = 0;
  for (const ExtraParams& extra : model.extras) {
    if (extra.id == "vision") count += extra.count;
  }
  return count;
}

std::int64_t experts_per_gpu(const ModelSpec& model, int ep) {
  const std::int64_t e = std::max<std::int64_t>(0, model.moe.num_experts);
  const std::int64_t n = std::max(1, ep);
  return (e + n - 1) / n;
}

}  // namespace vram
