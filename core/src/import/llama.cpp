// Llama and its kin: mistral, mixtral, qwen2, qwen2_moe, qwen3, qwen3_moe,
// a shape typed by hand ("custom"), and any model_type the registry does
// not know (estimated from the standard fields, with a warning).

#include <algorithm>
#include <vector>

#include "common.hpp"
#include "json_read.hpp"
#include "vram/error.hpp"
#include "vram/limits.hpp"

namespace vram::import {

namespace jr = json_read;

namespace {

bool is_qwen(const std::string& t) {
  return t == "qwen2" || t == "qwen2_moe" || t == "qwen3" || t == "qwen3_moe";
}

/** Mixture of experts, under each family's own key names. */
void read_moe(Context& c) {
  ModelSpec& m = c.m;
  const auto experts = c.opt_int_any({"num_local_experts", "num_experts", "n_routed_experts"}, 0,
                                     limits::kMaxExperts);
  if (!experts || *experts == 0) return;
  m.moe.num_experts = *experts;
  m.moe.experts_per_token =
      c.get_int_any({"num_experts_per_tok", "experts_per_token"}, 1, m.moe.num_experts);
  if (c.model_type == "mixtral") {
    m.moe.expert_intermediate = c.require_intermediate();
  } else {
    m.moe.expert_intermediate = c.get_int("moe_intermediate_size", 1, limits::kMaxIntermediate);
  }
  if (auto shared = c.opt_int("shared_expert_intermediate_size", 0, limits::kMaxIntermediate);
      shared && *shared > 0) {
    m.moe.shared_experts = 1;
    m.moe.shared_intermediate = *shared;
    m.moe.shared_expert_gate = true;
  }
  const std::int64_t step = c.opt_int("decoder_sparse_step", 1, limits::kMaxLayers).value_or(1);
  std::vector<bool> dense_only(static_cast<std::size_t>(c.layers), false);
  if (const json* only = jr::find(c.cfg, "mlp_only_layers")) {
    const std::string field = c.field("mlp_only_layers");
    if (!only->is_array()) throw Error::wrong_type(field, "layer_indices", jr::type_name(*only));
    for (const json& index : *only) {
      const std::int64_t i = jr::require_range(jr::as_int(index, field), 0, c.layers - 1, field);
      dense_only[static_cast<std::size_t>(i)] = true;
    }
  }
  for (std::int64_t i = 0; i < c.layers; ++i) {
    if (!dense_only[static_cast<std::size_t>(i)] && (i + 1) % step == 0) {
      m.layers[static_cast<std::size_t>(i)].mlp = LayerMlp::kMoe;
    }
  }
}

}  // namespace

void import_llama(Context& c) {
  ModelSpec& m = c.m;
  m.intermediate_size = c.intermediate.value_or(0);
  m.qkv_bias = c.attention_bias;
  m.o_bias = c.attention_bias;
  m.mlp_bias = c.opt_bool("mlp_bias").value_or(false);
  if (c.model_type == "qwen2" || c.model_type == "qwen2_moe") {
    m.qkv_bias = true;  // Qwen2Attention: q/k/v with bias, o without
    m.o_bias = false;
  }
  if (c.model_type == "qwen3" || c.model_type == "qwen3_moe") m.qk_norm = true;
  if (!apply_layer_types(c) && m.sliding_window > 0) {
    if (is_qwen(c.model_type)) {
      // Qwen applies the window only when use_sliding_window is set, and
      // then from max_window_layers on.
      if (c.opt_bool("use_sliding_window").value_or(false)) {
        set_all_sliding(m, c.opt_int("max_window_layers", 0, limits::kMaxLayers).value_or(0));
      }
    } else {
      set_all_sliding(m);  // Mistral v0.1, Mixtral: every layer windowed
    }
  }
  read_moe(c);
  const bool any_dense = std::any_of(m.layers.begin(), m.layers.end(),
                                     [](const LayerSpec& l) { return l.mlp == LayerMlp::kDense; });
  if (any_dense) m.intermediate_size = c.require_intermediate();
}

}  // namespace vram::import
