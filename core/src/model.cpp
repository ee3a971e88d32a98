#include "vram/model.hpp"

#include <algorithm>
#include <cmath>

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

}  // namespace

bool ModelSpec::has_layers(LayerAttention kind) const {
  return std::any_of(layers.begin(), layers.end(),
                     [kind](const LayerSpec& l) { return l.attention == kind; });
}

bool ModelSpec::mixed_layers() const {
  const int kinds = has_layers(LayerAttention::kGlobal) + has_layers(LayerAttention::kSliding) +
                    has_layers(LayerAttention::kMla) + has_layers(LayerAttention::kState);
  return kinds >= 2;  // so never states alone
}

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
  if (m.has_layers(LayerAttention::kSliding)) {
    require(m.sliding_window > 0, "model.sliding_window");
  }
  if (m.has_layers(LayerAttention::kMla)) {
    require(m.mla.kv_lora_rank > 0, "model.kv_lora_rank");
    require(m.mla.qk_rope_head_dim > 0, "model.qk_rope_head_dim");
  }
  if (m.has_layers(LayerAttention::kState)) {
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

namespace {

/** Python's round(n / f) for positive whole numbers: a half goes to the even neighbour. */
std::int64_t round_half_even(std::int64_t n, std::int64_t f) {
  const std::int64_t q = n / f;
  const std::int64_t r = n % f;
  return 2 * r > f || (2 * r == f && q % 2 == 1) ? q + 1 : q;
}

}  // namespace

ImageGrid resized_image(const VisionSpec& v, std::int64_t height, std::int64_t width,
                        std::int64_t max_pixels) {
  ImageGrid g;
  const std::int64_t factor = v.patch_size * v.spatial_merge;
  if (factor <= 0 || height <= 0 || width <= 0 || max_pixels <= 0) return g;
  // smart_resize (transformers qwen2_vl/image_processing_qwen2_vl.py): round_by_factor, then
  // floor_by_factor(height / beta) above max_pixels (no side under one factor), or
  // ceil_by_factor(height * beta) below min_pixels. The products are whole numbers well
  // under 2^53, so the doubles divide as Python's true division does.
  std::int64_t h = round_half_even(height, factor) * factor;
  std::int64_t w = round_half_even(width, factor) * factor;
  const double area = static_cast<double>(height * width);
  const double f = static_cast<double>(factor);
  const double hd = static_cast<double>(height);
  const double wd = static_cast<double>(width);
  if (h * w > max_pixels) {
    const double beta = std::sqrt(area / static_cast<double>(max_pixels));
    h = std::max(factor, static_cast<std::int64_t>(std::floor(hd / beta / f)) * factor);
    w = std::max(factor, static_cast<std::int64_t>(std::floor(wd / beta / f)) * factor);
  } else if (h * w < v.min_pixels) {
    const double beta = std::sqrt(static_cast<double>(v.min_pixels) / area);
    h = static_cast<std::int64_t>(std::ceil(hd * beta / f)) * factor;
    w = static_cast<std::int64_t>(std::ceil(wd * beta / f)) * factor;
  }
  g.height = h;
  g.width = w;
  // grid_h x grid_w patches (one temporal patch: an image is its frame twice), one token per
  // spatial_merge^2 of them (vLLM qwen3_vl.py Qwen3VLProcessingInfo._get_vision_info).
  g.patches = (h / v.patch_size) * (w / v.patch_size);
  g.tokens = g.patches / (v.spatial_merge * v.spatial_merge);
  return g;
}

std::int64_t experts_per_gpu(const ModelSpec& model, int ep) {
  const std::int64_t e = std::max<std::int64_t>(0, model.moe.num_experts);
  const std::int64_t n = std::max(1, ep);
  return (e + n - 1) / n;
}

}  // namespace vram
