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
  std::int64_t copies = 0;       ///< sequences the group's bytes hold (the batch, or the states)
  double bytes = 0;              ///< the group's total for the whole batch
};

/**
 * How an engine holds its state layers' conv windows and SSM states, where it
 * differs from the model's own 16 bits (32 for an FP32 SSM state) and one
 * state per sequence of the batch.
 */
struct StateStorage {
  double conv_bytes = 0;       ///< per conv element; 0: kStateBytesPerElement
  double recurrent_bytes = 0;  ///< per SSM state element; 0: the model's width
  std::int64_t sequences = 0;  ///< states held; 0: one per sequence of the batch
  /**
   * The conv window without the token being read: d_conv - 1 columns, as
   * vLLM's and SGLang's mamba_utils (conv_state_shape = (conv_kernel - 1,
   * conv_dim)) and llama.cpp's n_embd_r keep it; false: d_conv columns, as
   * transformers' cache pads it.
   */
  bool conv_history_only = false;
};

/** Bytes a conv-window element takes as `state` holds it. */
inline double conv_element_bytes(const StateStorage& state) {
  return state.conv_bytes > 0 ? state.conv_bytes : kStateBytesPerElement;
}

/** Bytes an SSM-state element takes as `state` holds it for `ssm`. */
inline double recurrent_element_bytes(const StateStorage& state, const SsmSpec& ssm) {
  if (state.recurrent_bytes > 0) return state.recurrent_bytes;
  return ssm.fp32_state ? kFp32StateBytesPerElement : kStateBytesPerElement;
}

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
 * SsmSpec::fp32_state), or as `state` says the engine holds them.
 */
KvCacheSize kv_cache(const ModelSpec& model, const KvFormat& format, std::int64_t context,
                     std::int64_t batch, const StateStorage& state = {});

}  // namespace vram
