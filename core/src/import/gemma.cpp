// Gemma, Gemma 2 and Gemma 3 (whose multimodal configs nest the language
// model under text_config and the SigLIP tower under vision_config).

#include "common.hpp"
#include "json_read.hpp"
#include "vram/limits.hpp"

namespace vram::import {

namespace jr = json_read;

namespace {

/** SigLIP vision tower plus Gemma 3's projector, counted from vision_config. */
double siglip_params(const json& vision, const std::string& prefix, std::int64_t text_hidden) {
  const double d =
      static_cast<double>(jr::get_int_in(vision, "hidden_size", prefix, 1, limits::kMaxHidden));
  const double ff = static_cast<double>(
      jr::get_int_in(vision, "intermediate_size", prefix, 1, limits::kMaxIntermediate));
  const double layers = static_cast<double>(
      jr::get_int_in(vision, "num_hidden_layers", prefix, 1, limits::kMaxLayers));
  const std::int64_t image_size =
      jr::opt_int_in(vision, "image_size", prefix, 1, limits::kMaxImageSize).value_or(896);
  // A patch larger than the image would leave no patches to embed.
  const double patch =
      static_cast<double>(jr::opt_int_in(vision, "patch_size", prefix, 1, image_size).value_or(14));
  const double image = static_cast<double>(image_size);
  const double channels = static_cast<double>(
      jr::opt_int_in(vision, "num_channels", prefix, 1, limits::kMaxImageChannels).value_or(3));
  const double positions = (image / patch) * (image / patch);
  double count = channels * patch * patch * d + d;  // patch embedding conv
  count += positions * d;                           // position embedding
  // Per layer: two LayerNorms, q/k/v/out with biases, fc1/fc2 with biases.
  count += layers * (4.0 * d + 4.0 * d * d + 4.0 * d + 2.0 * d * ff + ff + d);
  count += 2.0 * d;                                   // post_layernorm
  count += d * static_cast<double>(text_hidden) + d;  // mm projection, soft-emb norm
  return count;
}

void common_gemma(Context& c) {
  ModelSpec& m = c.m;
  m.intermediate_size = c.require_intermediate();
  m.qkv_bias = m.o_bias = c.attention_bias;
}

/**
 * The tokens one image becomes: the config's mm_tokens_per_image (Gemma 3;
 * transformers' Gemma3Config defaults it to 256), else the patches a side
 * over the merge factor squared where the config gives both
 * (spatial_merge_size), else 0: unknown, and a request with images is
 * refused rather than guessed.
 */
std::int64_t image_tokens(const Context& c, const json& vision, const std::string& vprefix,
                          const VisionSpec& v) {
  if (auto given = jr::opt_int_in(c.root, "mm_tokens_per_image", c.root_prefix, 1,
                                  limits::kMaxImageTokens)) {
    return *given;
  }
  if (c.outer_type == "gemma3") return 256;
  const bool shape_given =
      jr::find(vision, "image_size") != nullptr && jr::find(vision, "patch_size") != nullptr;
  std::optional<std::int64_t> merge =
      jr::opt_int_in(vision, "spatial_merge_size", vprefix, 1, limits::kMaxImageSize);
  if (!merge) {
    merge = jr::opt_int_in(c.root, "spatial_merge_size", c.root_prefix, 1, limits::kMaxImageSize);
  }
  if (!shape_given || !merge) return 0;
  const std::int64_t side = v.image_size / v.patch_size / *merge;
  return side * side;
}

void read_vision(Context& c) {
  if (const json* vision = jr::find(c.root, "vision_config")) {
    const std::string vprefix = jr::field_path(c.root_prefix, "vision_config");
    jr::expect_object(*vision, vprefix);
    c.m.extras.push_back({"vision",
                          {"extra.siglip_tower", json::object()},
                          siglip_params(*vision, vprefix, c.m.hidden_size),
                          true});
    // The tower's shape, as siglip_params reads it (the same defaults).
    VisionSpec& v = c.m.vision;
    v.hidden_size = jr::get_int_in(*vision, "hidden_size", vprefix, 1, limits::kMaxHidden);
    v.intermediate_size =
        jr::get_int_in(*vision, "intermediate_size", vprefix, 1, limits::kMaxIntermediate);
    v.layers = jr::get_int_in(*vision, "num_hidden_layers", vprefix, 1, limits::kMaxLayers);
    // SigLIP so400m, the tower Gemma 3 ships: 16 heads.
    v.heads =
        jr::opt_int_in(*vision, "num_attention_heads", vprefix, 1, limits::kMaxHeads).value_or(16);
    v.image_size =
        jr::opt_int_in(*vision, "image_size", vprefix, 1, limits::kMaxImageSize).value_or(896);
    v.patch_size = jr::opt_int_in(*vision, "patch_size", vprefix, 1, v.image_size).value_or(14);
    v.tokens_per_image = image_tokens(c, *vision, vprefix, v);
  }
}

}  // namespace

void import_gemma(Context& c) {
  common_gemma(c);
  apply_layer_types(c);
  read_vision(c);
}

void import_gemma2(Context& c) {
  common_gemma(c);
  c.m.norms_per_layer = 4;  // pre/post attention and FFN
  if (!apply_layer_types(c)) {
    // Gemma2DecoderLayer: even layers slide, odd ones are global.
    for (std::int64_t i = 0; i < c.layers; i += 2) {
      c.m.layers[static_cast<std::size_t>(i)].attention = LayerAttention::kSliding;
    }
  }
  read_vision(c);
}

void import_gemma3(Context& c) {
  common_gemma(c);
  c.m.norms_per_layer = 4;
  c.m.qk_norm = true;
  if (!apply_layer_types(c)) {
    slide_except_every(c, c.opt_int("sliding_window_pattern", 0, limits::kMaxLayers).value_or(6));
  }
  read_vision(c);
}

}  // namespace vram::import
