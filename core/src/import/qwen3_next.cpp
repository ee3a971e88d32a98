// Qwen3-Next and Qwen3.5 (dense and MoE): Gated DeltaNet layers with a
// gated full-attention layer every full_attention_interval-th (or as
// layer_types lists them), Qwen's MoE with a gated shared expert, and, for
// Qwen3.5's multimodal checkpoints, the Qwen3-VL vision tower under
// vision_config; the multi-token-prediction layers (mtp_num_hidden_layers)
// as speculative decoding's drafter, apart (qwen_mtp_layers). transformers:
// models/qwen3_next/modeling_qwen3_next.py (Qwen3NextGatedDeltaNet, Qwen3NextAttention),
// models/qwen3_vl (the tower).

#include <utility>

#include "common.hpp"
#include "json_read.hpp"
#include "vram/error.hpp"
#include "vram/limits.hpp"
#include "vram/params.hpp"

namespace vram::import {

namespace jr = json_read;

namespace {

/**
 * The Qwen3-VL vision tower (transformers' Qwen3VLVisionModel): a Conv3d
 * patch embedding with bias, learned position embeddings, `depth` blocks of
 * two LayerNorms, qkv and proj with biases and a two-layer MLP with biases,
 * the patch merger (a LayerNorm over the tower's width, fc1 over the merged
 * patches' width, fc2 to the language model's width, both with biases), and
 * one more merger per deepstack index (its LayerNorm over the merged width).
 */
double qwen_vl_tower_params(const json& v, const std::string& at, std::int64_t text_hidden) {
  auto get = [&](const char* key, std::int64_t max) {
    return static_cast<double>(jr::get_int_in(v, key, at, 1, max));
  };
  auto opt = [&](const char* key, std::int64_t max, std::int64_t fallback) {
    return static_cast<double>(jr::opt_int_in(v, key, at, 1, max).value_or(fallback));
  };
  const double h = get("hidden_size", limits::kMaxHidden);
  const double ff = get("intermediate_size", limits::kMaxIntermediate);
  const double depth = get("depth", limits::kMaxLayers);
  const double channels = opt("in_channels", limits::kMaxImageChannels, 3);
  const double patch = opt("patch_size", limits::kMaxImageSize, 16);
  const double temporal = opt("temporal_patch_size", limits::kMaxImageChannels, 2);
  const double positions = opt("num_position_embeddings", limits::kMaxImageTokens, 2304);
  const double merge = opt("spatial_merge_size", limits::kMaxImageSize, 2);
  const double out = opt("out_hidden_size", limits::kMaxHidden, text_hidden);
  double deepstack = 0;
  if (const json* indexes = jr::find(v, "deepstack_visual_indexes")) {
    const std::string field = jr::field_path(at, "deepstack_visual_indexes");
    if (!indexes->is_array()) {
      throw Error::wrong_type(field, "layer_indices", jr::type_name(*indexes));
    }
    for (const json& index : *indexes) {
      jr::require_range(jr::as_int(index, field), 0, static_cast<std::int64_t>(depth) - 1, field);
    }
    deepstack = static_cast<double>(indexes->size());
  }
  const double merged = h * merge * merge;
  double count = channels * temporal * patch * patch * h + h;  // patch_embed
  count += positions * h;                                      // pos_embed
  // Per block: norm1, norm2 (weight and bias), qkv and proj, linear_fc1 and linear_fc2.
  count += depth * (4.0 * h + 3.0 * h * h + 3.0 * h + h * h + h + 2.0 * h * ff + ff + h);
  const double merger_mlp = merged * merged + merged + merged * out + out;
  count += 2.0 * h + merger_mlp;                     // merger: norm over the tower's width
  count += deepstack * (2.0 * merged + merger_mlp);  // deepstack mergers: norm after the shuffle
  return count;
}

/**
 * The multi-token-prediction layers Qwen3-Next's and Qwen3.5's checkpoints
 * hold under mtp.* (mtp_num_hidden_layers; num_nextn_predict_layers, the
 * key vLLM's Qwen3NextMultiTokenPredictor reads, where a config says it
 * instead): fc (2h x h, no bias), pre_fc_norm_embedding, pre_fc_norm_hidden
 * and norm (RMSNorms over h), and the decoder layers mtp.layers.i, each a
 * full (gated) attention layer whatever the model's layer_types say, with
 * the MLP the model's layer i has: vLLM's Qwen3NextDecoderLayer and
 * Qwen3_5DecoderLayer read their index from the prefix "mtp.layers.i" and
 * apply mlp_only_layers and decoder_sparse_step to it
 * (vllm/model_executor/models/qwen3_next_mtp.py, qwen3_5_mtp.py; SGLang's
 * qwen3_next_mtp.py builds the same with full_attention_interval 1). No
 * copies of the embedding or the head: the draft takes the model's (vLLM's
 * load_eagle_model; SGLang's eagle worker). Counted as DeepSeek V3's
 * modules are (deepseek.cpp): an extra not loaded by default.
 */
void qwen_mtp_layers(Context& c) {
  ModelSpec& m = c.m;
  std::optional<std::int64_t> count = c.opt_int("mtp_num_hidden_layers", 0, limits::kMaxLayers);
  if (!count) count = c.opt_int("num_nextn_predict_layers", 0, limits::kMaxLayers);
  const std::int64_t mtp = count.value_or(0);
  if (mtp <= 0) return;
  const std::int64_t step = c.opt_int("decoder_sparse_step", 1, limits::kMaxLayers).value_or(1);
  ModelSpec layers = m;
  layers.layers.clear();
  for (std::int64_t i = 0; i < mtp; ++i) {
    const bool within = i < m.num_layers();
    const bool moe = within ? m.layers[static_cast<std::size_t>(i)].mlp == LayerMlp::kMoe
                            : m.is_moe() && (i + 1) % step == 0;
    layers.layers.push_back({LayerAttention::kGlobal, moe ? LayerMlp::kMoe : LayerMlp::kDense});
  }
  ModelSpec none = layers;
  none.layers.clear();
  const double h = static_cast<double>(m.hidden_size);
  const double count_all =
      count_params(layers).total() - count_params(none).total() + 2.0 * h * h + 3.0 * h;
  m.extras.push_back({"mtp", {"extra.mtp_layers", obj({{"layers", mtp}})}, count_all, false});
  m.import_notes.push_back({"import.mtp", obj({{"modules", mtp}})});
  m.mtp_layers = mtp;
  m.mtp_layer_specs = std::move(layers.layers);
}

// Qwen3-VL's image processor as Qwen3.5 and Qwen3-VL publish it (preprocessor_config.json
// "size": shortest_edge 65,536 and longest_edge 16,777,216, pixels in all, not a side; e.g.
// Qwen/Qwen3.5-2B-Base), which config.json does not carry.
constexpr std::int64_t kQwenVlMinPixels = 65'536;
constexpr std::int64_t kQwenVlMaxPixels = 16'777'216;

/**
 * The tower's shape for the memory an image takes (VisionSpec), read with
 * qwen_vl_tower_params' keys and defaults (transformers' Qwen3VLVisionConfig:
 * num_heads 16, patch_size 16, spatial_merge_size 2). It takes any
 * resolution: the request gives the image's size and smart_resize its tokens.
 */
VisionSpec qwen_vl_shape(const json& v, const std::string& at) {
  VisionSpec s;
  s.hidden_size = jr::get_int_in(v, "hidden_size", at, 1, limits::kMaxHidden);
  s.intermediate_size = jr::get_int_in(v, "intermediate_size", at, 1, limits::kMaxIntermediate);
  s.layers = jr::get_int_in(v, "depth", at, 1, limits::kMaxLayers);
  s.heads = jr::opt_int_in(v, "num_heads", at, 1, limits::kMaxHeads).value_or(16);
  s.patch_size = jr::opt_int_in(v, "patch_size", at, 1, limits::kMaxImageSize).value_or(16);
  s.spatial_merge =
      jr::opt_int_in(v, "spatial_merge_size", at, 1, limits::kMaxImageSize).value_or(2);
  s.dynamic = true;
  s.min_pixels = kQwenVlMinPixels;
  s.max_pixels = kQwenVlMaxPixels;
  return s;
}

}  // namespace

void import_qwen3_next(Context& c) {
  ModelSpec& m = c.m;
  // Layer kinds from layer_types, the MoE (Qwen's keys and gated shared
  // expert) and the dense width as Llama's kin read them.
  import_llama(c);
  m.qk_norm = true;  // q_norm and k_norm over head_dim
  // Qwen3NextAttention always gates its output; Qwen3.5's configs say so (attn_output_gate).
  m.attn_output_gate = c.opt_bool("attn_output_gate").value_or(true);
  if (jr::find(c.cfg, "layer_types") == nullptr) {
    // Qwen3NextConfig's default: full attention on every interval-th layer, linear attention
    // on the rest.
    const std::int64_t interval =
        c.opt_int("full_attention_interval", 1, limits::kMaxLayers).value_or(4);
    for (std::int64_t i = 0; i < c.layers; ++i) {
      m.layers[static_cast<std::size_t>(i)].attention =
          (i + 1) % interval == 0 ? LayerAttention::kGlobal : LayerAttention::kState;
    }
  }
  SsmSpec& s = m.ssm;
  s.version = 2;
  s.gated_delta = true;
  s.n_groups = c.opt_int("linear_num_key_heads", 1, limits::kMaxHeads).value_or(16);
  s.n_heads = c.opt_int("linear_num_value_heads", 1, limits::kMaxHeads).value_or(32);
  if (s.n_heads % s.n_groups != 0) {
    // Each key head serves the same number of value heads (repeat_interleave in the layer).
    const std::string field = c.field("linear_num_value_heads");
    throw Error::make(
        "invalid_value", field, "error.linear_heads",
        obj({{"field", field}, {"value_heads", s.n_heads}, {"key_heads", s.n_groups}}));
  }
  s.d_state = c.opt_int("linear_key_head_dim", 1, limits::kMaxHeadDim).value_or(128);
  s.d_inner = s.n_heads * c.opt_int("linear_value_head_dim", 1, limits::kMaxHeadDim).value_or(128);
  s.d_conv = c.opt_int("linear_conv_kernel_dim", 1, limits::kMaxMambaConv).value_or(4);
  s.conv_bias = false;
  s.proj_bias = false;
  s.fp32_state = jr::opt_string(c.cfg, "mamba_ssm_dtype", c.prefix).value_or("") == "float32";
  qwen_mtp_layers(c);
  if (const json* vision = jr::find(c.root, "vision_config")) {
    const std::string at = jr::field_path(c.root_prefix, "vision_config");
    jr::expect_object(*vision, at);
    m.extras.push_back({"vision",
                        {"extra.qwen_vl_tower", json::object()},
                        qwen_vl_tower_params(*vision, at, m.hidden_size),
                        true});
    m.vision = qwen_vl_shape(*vision, at);
  }
}

}  // namespace vram::import
