// Bamba (IBM): Mamba-2 mixers with attention at attn_layer_indices, a dense
// SwiGLU MLP in every layer.

#include "common.hpp"
#include "json_read.hpp"
#include "vram/error.hpp"
#include "vram/limits.hpp"

namespace vram::import {

namespace jr = json_read;

void import_bamba(Context& c) {
  ModelSpec& m = c.m;
  m.intermediate_size = c.require_intermediate();
  const std::int64_t expand = c.opt_int("mamba_expand", 1, limits::kMaxMambaExpand).value_or(2);
  m.ssm.version = 2;
  m.ssm.d_inner = expand * m.hidden_size;
  m.ssm.n_heads = c.get_int("mamba_n_heads", 1, limits::kMaxHeads);
  m.ssm.n_groups = c.opt_int("mamba_n_groups", 1, m.ssm.n_heads).value_or(1);
  m.ssm.d_state = c.opt_int("mamba_d_state", 1, limits::kMaxMambaState).value_or(128);
  m.ssm.d_conv = c.opt_int("mamba_d_conv", 1, limits::kMaxMambaConv).value_or(4);
  m.ssm.conv_bias = c.opt_bool("mamba_conv_bias").value_or(true);
  m.ssm.proj_bias = c.opt_bool("mamba_proj_bias").value_or(false);
  if (auto head = c.opt_int("mamba_d_head", 1, limits::kMaxHeadDim);
      head && *head * m.ssm.n_heads != m.ssm.d_inner) {
    const std::string field = c.field("mamba_d_head");
    throw Error::make("invalid_value", field, "error.mamba_d_head", obj({{"field", field}}));
  }
  for (LayerSpec& layer : m.layers) layer.attention = LayerAttention::kState;
  const json* indices = jr::find(c.cfg, "attn_layer_indices");
  const std::string field = c.field("attn_layer_indices");
  if (indices == nullptr) throw Error::missing(field);
  if (!indices->is_array())
    throw Error::wrong_type(field, "layer_indices", jr::type_name(*indices));
  for (const json& index : *indices) {
    const std::int64_t i = jr::require_range(jr::as_int(index, field), 0, c.layers - 1, field);
    m.layers[static_cast<std::size_t>(i)].attention = LayerAttention::kGlobal;
  }
}

}  // namespace vram::import
