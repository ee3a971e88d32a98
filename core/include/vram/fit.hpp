#pragma once

#include <string>
#include <vector>

#include "vram/gpu.hpp"

namespace vram {

/** The rules a fit obeys; every one is stated in the answer. */
struct FitRules {
  double usable_fraction = 1.0;       ///< share of marketed memory usable (1.0 grid, 0.92 planner)
  double tight_single_bytes = 5e9;    ///< "tight": under 5 GB spare on one card
  double tight_per_card_bytes = 2e9;  ///< ... or under 2 GB per card on a set
  bool needs_fast_link = false;       ///< full fine-tunes, tensor-parallel serving
  bool needs_fp8 = false;             ///< FP8 weights
  std::vector<int> set_sizes = {2, 4, 8};
};

/** How a multi-card answer is laid out. */
struct Layout {
  int tensor_parallel = 1;  ///< GPUs per tensor-parallel group (1, 2, 4, 8 per server)
  int pipeline_stages = 1;  ///< groups in sequence
  int servers = 1;
  int devices = 1;
};

/** One card type in a given count, priced. */
struct Option {
  const Gpu* gpu = nullptr;
  int count = 1;
  int nodes = 1;
  bool priced = false;
  bool by_quote = false;    ///< beyond one node: a cluster, priced by quote
  double list_monthly = 0;  ///< count x monthly
  double monthly = 0;       ///< after the volume discount
  double discount_percent = 0;
  double capacity_bytes = 0;  ///< count x marketed x usable fraction
  double spare_bytes = 0;
  bool tight = false;
  Layout layout;
};

/** A cheaper-looking option and the rule that excluded it. */
struct Exclusion {
  Option option;
  std::string rule;    ///< "capacity", "fp8", "min_order", "stock", "interconnect", "unpriced"
  std::string reason;  ///< for people
};

struct FitAnswer {
  bool found = false;
  Option pick;
  std::vector<Exclusion> excluded;  ///< cheaper options ruled out, cheapest first
};

/**
 * The cheapest way to hold `need_bytes` on `catalog`: the cheapest single
 * card that fits; when none does, the cheapest set of 2, 4 or 8 cards in
 * one node (volume discounts, minimum orders, stock, and a switched
 * interconnect when the method needs one); beyond one 8-card node, the card
 * needing the fewest nodes, priced by quote.
 */
FitAnswer fit(double need_bytes, const GpuCatalog& catalog, const FitRules& rules);

/**
 * Every priced card that can hold `need_bytes` in one node: its cheapest
 * valid count (1, then 2, 4 or 8) under the rules, cheapest first.
 */
std::vector<Option> options_by_card(double need_bytes, const GpuCatalog& catalog,
                                    const FitRules& rules);

/** The layout of `count` cards of `gpu`: tensor parallel where the link allows. */
Layout layout_for(const Gpu& gpu, int count, int node_size, bool tensor_parallel_needed);

/**
 * ceil(cards) as an int, when in [0, limits::kMaxDevices]; else
 * vram::Error (invalid_value, `field`, id error.too_many_devices).
 */
int device_count(double cards, const std::string& field);

/**
 * Minimum devices for weights alone: ceil(weights / (capacity x fraction)).
 * Throws vram::Error naming "model" past limits::kMaxDevices.
 */
int min_devices(double weights_bytes, const Gpu& gpu, double usable_fraction);

/** Deployable layout: a power-of-two tensor-parallel group per server, then servers. */
Layout deployable_layout(int min_devices, int node_size);

}  // namespace vram
