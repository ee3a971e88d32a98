#include "vram/kv_cache.hpp"

#include <algorithm>
#include <iterator>

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
                     std::int64_t batch, const StateStorage& state) {
  KvCacheSize size;
  constexpr LayerAttention kinds[] = {LayerAttention::kGlobal, LayerAttention::kSliding,
                                      LayerAttention::kMla, LayerAttention::kState};
  // The layers of each kind in one pass: the inverse answers and the
  // engines' searches size the cache dozens of times per estimate.
  std::int64_t counts[std::size(kinds)] = {};
  for (const LayerSpec& l : m.layers) {
    const auto k = static_cast<std::size_t>(l.attention);
    if (k < std::size(counts)) ++counts[k];
  }
  for (LayerAttention kind : kinds) {
    const std::int64_t layers = counts[static_cast<std::size_t>(kind)];
    if (layers == 0) continue;
    KvGroup group;
    group.attention = kind;
    group.layers = layers;
    group.bytes_per_token = kv_bytes_per_token(m, kind, format);
    group.tokens_held = kind == LayerAttention::kSliding ? std::min(context, m.sliding_window)
                        : kind == LayerAttention::kState ? 0
                                                         : context;
    if (kind == LayerAttention::kState) {
      const std::int64_t columns =
          std::max<std::int64_t>(0, m.ssm.d_conv - (state.conv_history_only ? 1 : 0));
      group.state_bytes =
          static_cast<double>(m.ssm.conv_dim() * columns) * conv_element_bytes(state) +
          static_cast<double>(m.ssm.recurrent_elements()) * recurrent_element_bytes(state, m.ssm);
    }
    // State layers hold one state per sequence, whatever the engine's token cells.
    group.copies = kind == LayerAttention::kState && state.sequences > 0 ? state.sequences : batch;
    const double per_sequence =
        group.bytes_per_token * static_cast<double>(group.tokens_held) + group.state_bytes;
    group.bytes =
        static_cast<double>(group.layers) * per_sequence * static_cast<double>(group.copies);
    size.bytes_per_token += static_cast<double>(group.layers) * group.bytes_per_token;
    size.bytes += group.bytes;
    size.groups.push_back(group);
  }
  return size;
}

}  // namespace vram
