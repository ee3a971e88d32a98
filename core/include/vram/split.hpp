#pragma once

// llama.cpp over unequal cards: --tensor-split and the layers it gives each
// card (--split-mode layer, the default).
//
// How llama.cpp places layers (src/llama-model.cpp load_tensors, read from
// ggml-org/llama.cpp master 2026-12): the split values are summed into
// cumulative fractions s_0 <= ... <= s_{n-1} = 1; slot il of the
// act_gpu_layers = min(-ngl, n_layer + 1) slots (the repeating layers, then
// the output layer) goes to the first device whose s exceeds
// il / act_gpu_layers (std::upper_bound). So integer split values
// k_0, ..., k_{n-1} that add up to n_layer + 1 give device i exactly k_i
// slots, the output layer on the last device that has one. Each layer's KV
// cache sits on its layer's device (src/llama-kv-cache.cpp); every device
// that runs layers keeps a compute buffer and its own CUDA context; token_embd
// stays in host memory. --device lists the devices in the order that split
// follows (common/arg.cpp parse_device_list keeps the order given).

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "vram/offload.hpp"

namespace vram {

/** One card's run of layers and what it holds. */
struct CardShare {
  int card = 0;         ///< the card's position in the request's list
  int first_layer = 0;  ///< the first repeating layer of its run
  int layers = 0;       ///< repeating layers in its run (0: the card holds none)
  bool output = false;  ///< it also holds the output layer (the last card with a slot)
  double weights_bytes = 0;
  double kv_bytes = 0;
  double compute_bytes = 0;  ///< its compute buffer (0 on a card that runs nothing)
  double context_bytes = 0;  ///< its CUDA context (0 on a card that runs nothing)
  double bytes = 0;          ///< all of the above
  double capacity_bytes = 0;
};

/** A layer split over cards in one order. */
struct LayerSplit {
  std::vector<CardShare> cards;  ///< in the split's order
  /** --tensor-split as the command carries it: each card's slots (its layers, +1 for the
   * output layer on the last card); they add up to n_layer + 1. */
  std::vector<int> tensor_split;
  double fill = 0;    ///< the fullest card's need over its capacity
  bool fits = false;  ///< fill <= 1
};

/**
 * The split that leaves every card the largest equal share of its capacity
 * spare (the least fill on the fullest card), with `capacity_bytes` in the
 * split's order: each card a contiguous run of layers, the output layer on
 * the last. A card that cannot hold one layer at that fill gets none. Its
 * layers add up to the model's.
 */
LayerSplit split_layers(const OffloadParts& parts, const std::vector<double>& capacity_bytes);

/** Whether every layer and the output fit the cards in this order (each card at most full). */
bool split_fits(const OffloadParts& parts, const std::vector<double>& capacity_bytes);

/** The model's parts at a context (the KV cache grows with it). */
using PartsAt = std::function<OffloadParts(std::int64_t context)>;

/** The card order with the most context, and that context. */
struct SplitOrder {
  std::vector<int> order;              ///< positions in the request's list, first card first
  std::int64_t max_context = 0;        ///< 0: no context fits in any order
  std::int64_t given_max_context = 0;  ///< the same for the order as given
};

/**
 * Over every distinct order of the cards (identical cards are one), the
 * largest context up to `limit` whose split fits; ties keep the earlier
 * order (the one given first). The output layer and its compute sit on the
 * last card, so the order matters.
 */
SplitOrder best_split_order(const PartsAt& parts_at, const std::vector<double>& capacity_bytes,
                            const std::vector<std::string>& ids, std::int64_t limit);

/**
 * The decoding ceiling over the split: a token passes the cards one after
 * another, each reading its weights and its cache at its own bandwidth
 * (GB/s), so the step takes the sum of the cards' times.
 */
double split_decode_tokens_per_s(const LayerSplit& split,
                                 const std::vector<double>& bandwidth_gbps);

}  // namespace vram
