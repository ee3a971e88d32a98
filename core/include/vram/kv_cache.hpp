#pragma once

#include <cstdint>
#include <vector>

#include "vram/format.hpp"
#include "vram/model.hpp"

namespace vram {

/** Bytes per element of a state layer's conv window and, by default, its SSM state: 16 bits. */
inline constexpr double kStateBytesPerElement = 2.0;
/** The SSM state's element where the config keeps it in FP32 (SsmSpec::fp32_state). */
inline constexpr double kFp32StateBytesPerElement = 4.0;

/** Layers of one attention kind and what they cache. */
struct KvGroup {
  LayerAttention attention = LayerAttention::kGlobal;
  std::int64_t layers = 0;
  double bytes_per_token = 0;    ///< per layer, per cached token
  std::int64_t tokens_held = 0;  ///< per sequence: context, or the window
  double state_bytes = 0;        ///< per layer, per sequence (kState)
  double bytes = 0;              ///< the group's total for the whole batch
};

struct KvCacheSize {
  /** Bytes one token adds while every caching layer still holds it. */
  double bytes_per_token = 0;
  /** The whole cache: every group, context x batch. */
  double bytes = 0;
  std::vector<KvGroup> groups;
};

/**
 * Bytes one layer caches per token (SPEC section 1):
 *  - global or sliding attention: K and V, i.e.
 *    (KV heads x head_dim + KV heads x v_head_dim) x bytes per element,
 *    which is 2 x KV heads x head dim x bytes when the dims agree;
 *  - MLA: one latent of kv_lora_rank + qk_rope_head_dim elements (DeepSeek-V2
 *    paper, section 2.1.3);
 *  - state layers: nothing per token.
 */
double kv_bytes_per_token(const ModelSpec& model, LayerAttention attention, const KvFormat& format);

/**
 * The KV cache for `context` tokens per sequence and `batch` sequences.
 * Global and MLA layers hold the whole context, sliding layers at most their
 * window, state layers a fixed conv window and SSM state per sequence
 * (SsmSpec::state_elements, 16 bits each; the recurrent part 32 where
 * SsmSpec::fp32_state).
 */
KvCacheSize kv_cache(const ModelSpec& model, const KvFormat& format, std::int64_t context,
                     std::int64_t batch);

}  // namespace vram
