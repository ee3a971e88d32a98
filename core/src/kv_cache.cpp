#include "vram/kv_cache.hpp"

#include <algorithm>

namespace vram {

double kv_bytes_per_token(const ModelSpec& m, LayerAttention attention, const KvFormat& format) {
  const double element = format.bytes_per_element();
  switch (attention) {
    case LayerAttention::kGlobal:
    case LayerAttention::kSliding:
      return static_cast<double>(m.num_kv_heads * (m.head_dim + m.v_head_dim)) * element;
    case LayerAttention::kMla:
      return static_cast<double>(m.mla.kv_lora_rank + m.mla.qk_rope_head_dim) * element;
    case LayerAttention::kState:
      return 0.0;
  }
  return 0.0;
}

KvCacheSize kv_cache(const ModelSpec& m, const KvFormat& format, std::int64_t context,
                     std::int64_t batch) {
  KvCacheSize size;
  constexpr LayerAttention kinds[] = {LayerAttention::kGlobal, LayerAttention::kSliding,
                                      LayerAttention::kMla, LayerAttention::kState};
  for (LayerAttention kind : kinds) {
    const auto layers = std::count_if(m.layers.begin(), m.layers.end(),
                                      [kind](const LayerSpec& l) { return l.attention == kind; });
    if (layers == 0) continue;
    KvGroup group;
    group.attention = kind;
    group.layers = static_cast<std::int64_t>(layers);
    group.bytes_per_token = kv_bytes_per_token(m, kind, format);
    group.tokens_held = kind == LayerAttention::kSliding ? std::min(context, m.sliding_window)
                        : kind == LayerAttention::kState ? 0
                                                         : context;
    if (kind == LayerAttention::kState) {
      group.state_bytes = static_cast<double>(m.ssm.state_elements()) * kStateBytesPerElement;
    }
    const double per_sequence =
        group.bytes_per_token * static_cast<double>(group.tokens_held) + group.state_bytes;
    group.bytes = static_cast<double>(group.layers) * per_sequence * static_cast<double>(batch);
    size.bytes_per_token += static_cast<double>(group.layers) * group.bytes_per_token;
    size.bytes += group.bytes;
    size.groups.push_back(group);
  }
  return size;
}

}  // namespace vram
