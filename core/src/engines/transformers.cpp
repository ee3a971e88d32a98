// Hugging Face transformers: the weights, a DynamicCache that keeps every
// token in every layer, the prefill's widest point and, with a sliding
// window shorter than the sequence, the attention mask; device_map="auto"
// gives each card a run of layers.

#include <algorithm>
#include <string>

#include "common.hpp"

namespace vram::engines {
namespace {

/** What one token keeps alive at the widest point of a layer under transformers (bytes). */
struct TransformersLayerPeak {
  double per_token = 0;  ///< bytes per token of batch x context
  Message layer;         ///< how they add up
};

/**
 * The widest point of transformers' prefill: the last layer's feed-forward
 * block, when the cache is complete. Alive there, at `a` bytes per element:
 * the embedding output, the layer's input, the residual after attention
 * and the normalised input (4 hidden-wide), and the block's own tensors: a
 * gated MLP's activation, up projection and product (3 FFN-wide; a fused
 * gate_up_proj 4, an ungated MLP 2); an MoE block's accumulator (1
 * hidden-wide) and per chosen expert, grouped_mm's gathered, sorted,
 * weighted and re-ordered inputs (4 hidden-wide) with its gate/up output and
 * product (3 expert-wide). 8 bytes of int64 token id per token.
 */
TransformersLayerPeak transformers_layer_peak(const ModelSpec& m, const EngineProfile& engine,
                                              double a, bool explain) {
  constexpr double kTokenId = 8;
  const double h = d(m.hidden_size);
  const bool fused = engine.architecture_has("fused_gate_up", m.model_type);
  const std::int64_t ffn_tensors = !m.gated_mlp ? 2 : fused ? 4 : 3;
  TransformersLayerPeak peak;
  bool moe_widest = false;
  for (const LayerSpec& layer : m.layers) {
    double elements = 0;
    if (layer.mlp == LayerMlp::kMoe && m.is_moe()) {
      elements =
          5.0 * h + d(m.moe.experts_per_token) * (4.0 * h + 3.0 * d(m.moe.expert_intermediate));
    } else {
      elements = 4.0 * h + d(ffn_tensors) * d(m.intermediate_size);
    }
    const double bytes = elements * a + kTokenId;
    if (bytes > peak.per_token) {
      peak.per_token = bytes;
      moe_widest = layer.mlp == LayerMlp::kMoe && m.is_moe();
    }
  }
  if (!explain) return peak;
  peak.layer = moe_widest
                   ? Message{"formula.tf_layer_moe", obj({{"hidden", m.hidden_size},
                                                          {"experts", m.moe.experts_per_token},
                                                          {"expert_ffn", m.moe.expert_intermediate},
                                                          {"bytes", a}})}
                   : Message{"formula.tf_layer_dense", obj({{"hidden", m.hidden_size},
                                                            {"ffn_tensors", ffn_tensors},
                                                            {"ffn", m.intermediate_size},
                                                            {"bytes", a}})};
  return peak;
}

/** The model with every sliding-window layer holding the whole context. */
ModelSpec every_token_cached(const ModelSpec& m) {
  ModelSpec local = m;
  for (LayerSpec& layer : local.layers) {
    if (layer.attention == LayerAttention::kSliding) layer.attention = LayerAttention::kGlobal;
  }
  return local;
}

void plan_transformers(const EngineInput& in, InferencePlan& plan) {
  const InferenceSetup& setup = in.setup;
  const json& o = in.options;
  const bool explain = in.explain;
  const EngineProfile& engine = in.engine;
  const ModelSpec& m = *setup.model;
  // device_map="auto" over N cards: each holds a run of layers and their
  // cache; every card runs the whole batch's hidden states.
  const std::int64_t cards = std::max(1, setup.gpus);
  const std::int64_t layers = std::max<std::int64_t>(1, m.num_layers());
  const std::int64_t here = (layers + cards - 1) / cards;

  Term weights = weights_term(plan.weights, plan.params, 1, explain);
  layer_share(weights, cards, here, layers, explain);
  plan.terms.push_back(std::move(weights));

  // DynamicCache after a prefill: sliding layers keep a view of the whole
  // concatenation, so every layer holds every token.
  const ModelSpec cached = every_token_cached(m);
  plan.kv = kv_cache(cached, *setup.kv, setup.context, setup.batch);
  Term kv = kv_term(cached, *setup.kv, plan.kv, setup.batch, setup, explain);
  layer_share(kv, cards, here, layers, explain);
  plan.terms.push_back(std::move(kv));

  // Activations in the compute dtype: FP32 for FP32 weights, else 16 bits.
  const std::string format = setup.weights != nullptr ? setup.weights->id : m.native_format;
  const double a = format == "fp32" ? 4.0 : 2.0;
  TransformersLayerPeak layer = transformers_layer_peak(m, engine, a, explain);
  const double tokens = d(setup.context) * d(setup.batch);
  // Per position, shared by the batch: cos and sin (two pairs with local
  // and global rotary tables) and the int64 cache position.
  bool mla = false, sliding = false;
  for (const LayerSpec& l : m.layers) {
    mla = mla || l.attention == LayerAttention::kMla;
    sliding = sliding || l.attention == LayerAttention::kSliding;
  }
  const double rope_dim = d(mla ? m.mla.qk_rope_head_dim : m.head_dim);
  const double tables = engine.architecture_has("local_and_global_rope", m.model_type) ? 2.0 : 1.0;
  const double per_position = tables * 2.0 * rope_dim * a + 8.0;
  const double positions = d(setup.context);
  Term mask_term;
  // SDPA runs without a mask unless a window shorter than the sequence
  // needs one: then a boolean context x context mask, shared by the batch,
  // alive through every layer. At a sliding layer's SDPA call PyTorch turns
  // it into an additive mask in the compute dtype; there the layer holds
  // the embedding output, its input and normalised input, q and the
  // output (query-wide), k and v. The larger of that and the MLP is the peak.
  double mask = 0;
  if (sliding && m.sliding_window > 0 && setup.context >= m.sliding_window) {
    const double cells = d(setup.context) * d(setup.context);
    const double q_width = d(m.num_heads * m.head_dim);
    const double kv_width = d(m.num_kv_heads * (m.head_dim + m.v_head_dim));
    const double attention_token = (3.0 * d(m.hidden_size) + 2.0 * q_width + kv_width) * a + 8.0;
    const bool sdpa_widest =
        tokens * attention_token + (1.0 + a) * cells > tokens * layer.per_token + cells;
    mask = sdpa_widest ? (1.0 + a) * cells : cells;
    if (sdpa_widest) {
      layer.per_token = attention_token;
      if (explain) {
        layer.layer = {"formula.tf_layer_attention",
                       obj({{"hidden", m.hidden_size},
                            {"q_width", m.num_heads * m.head_dim},
                            {"kv_width", m.num_kv_heads * (m.head_dim + m.v_head_dim)},
                            {"bytes", a}})};
      }
    }
    Term term{"attention_mask", {"term.attention_mask"}, mask, {}, {}};
    if (explain) {
      term.formula = sdpa_widest
                         ? Message{"formula.tf_mask_sdpa", obj({{"context", setup.context},
                                                                {"window", m.sliding_window},
                                                                {"bytes_per_element", a},
                                                                {"bytes", mask}})}
                         : Message{"formula.tf_mask", obj({{"context", setup.context},
                                                           {"window", m.sliding_window},
                                                           {"bytes", mask}})};
      term.inputs = obj({{"context", setup.context}, {"sliding_window", m.sliding_window}});
    }
    mask_term = std::move(term);
  }
  const double activations = tokens * layer.per_token + positions * per_position;
  Term act{"prefill_activations", {"term.prefill_activations"}, activations, {}, {}};
  if (explain) {
    act.formula = {"formula.tf_prefill", obj({{"tokens", tokens},
                                              {"per_token", layer.per_token},
                                              {"layer", layer.layer},
                                              {"positions", positions},
                                              {"per_position", per_position},
                                              {"bytes", activations}})};
    act.inputs = obj({{"context", setup.context},
                      {"batch", setup.batch},
                      {"bytes_per_token", layer.per_token},
                      {"bytes_per_position", per_position}});
  }
  plan.terms.push_back(std::move(act));
  if (mask > 0) plan.terms.push_back(std::move(mask_term));

  const double workspace_gib = o.at("blas_workspace_mib").get<double>() / 1024.0;
  plan.terms.push_back(gib_term("blas_workspace", workspace_gib, "blas_workspaces", explain));
  plan.terms.push_back(
      gib_term("non_torch", o.at("non_torch_gib").get<double>(), "cuda_context_cublas", explain));
  // Assisted generation (assistant_model): the draft's weights and cache beside the model's.
  if (!mtp_not_run(plan, setup, "transformers", explain)) {
    push_draft(plan, setup, 1, 1, *setup.kv, setup.context, setup.batch, explain);
    warn_draft_vocab(plan, setup, explain);
  }
  // A second model's process on the card (companion.cpp).
  push_companion(in, plan);
  push_held(plan, setup, 1, explain);
  if (!explain) return;
  if (m.has_layers(LayerAttention::kState))
    plan.assumptions.push_back({"assumption.tf_state_layers"});
}

}  // namespace

extern const EngineRules kTransformers{
    /*kind=*/"transformers",
    /*convention=*/false,
    /*paged=*/false,
    /*split=*/"device_map",
    /*splits_layers=*/true,
    /*experts_divide_evenly=*/false,
    /*offloads=*/false,
    /*stage_per_card=*/false,
    /*fp8_compute=*/true,
    /*loads=*/loads_safetensors,
    /*format_warning=*/gguf_format_warning,
    /*plan=*/plan_transformers,
    /*state_storage=*/nullptr,
};

}  // namespace vram::engines
