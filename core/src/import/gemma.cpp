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

void read_vision(Context& c) {
  if (const json* vision = jr::find(c.root, "vision_config")) {
    const std::string vprefix = jr::field_path(c.root_prefix, "vision_config");
    jr::expect_object(*vision, vprefix);
    c.m.extras.push_back({"vision", "SigLIP vision tower and projector",
                          siglip_params(*vision, vprefix, c.m.hidden_size), true});
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
