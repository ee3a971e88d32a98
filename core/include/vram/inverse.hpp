#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

#include "vram/engine.hpp"
#include "vram/finetune.hpp"

namespace vram {

/** One weight format tried against the budget. */
struct FormatFit {
  const WeightFormat* format = nullptr;
  double total_bytes = 0;
  bool fits = false;
  bool supported = true;  ///< the card has the hardware the format needs
};

/**
 * The inverse questions: given a memory budget (a card, or a number), the
 * longest context, the largest batch, and the highest-precision weight
 * format that fit. A setup fits when its total is within the budget, or,
 * for paged engines (vLLM, SGLang), when the engine's KV budget holds it.
 */
struct InverseAnswers {
  double budget_bytes = 0;
  std::int64_t max_context = 0;               ///< 0: not even one token fits
  bool context_limited_by_model = false;      ///< reached max_position_embeddings
  std::int64_t max_batch = 0;                 ///< at the request's context
  const WeightFormat* best_format = nullptr;  ///< highest bits that fits, or null
  std::vector<FormatFit>
      formats;  ///< formats the engine loads, no wider than the checkpoint's, highest bits first
};

/** Whether an engine loads weights in this format (llama.cpp: GGUF, plain
 * floats and MXFP4; vLLM, SGLang and the conventions: all but GGUF). */
bool engine_runs(const EngineProfile& engine, const WeightFormat& format);

/** Whether `gpu` has the hardware the format needs (FP8, NVFP4); true without a card. */
bool card_runs(const Gpu* gpu, const WeightFormat& format);

/** One trial of a search: whether it fits, and by how much (bytes, negative: short). */
struct SearchTrial {
  bool fits = false;
  double margin = 0;
};

/**
 * The largest n in [1, hi] whose trial fits, or 0 when n = 1 does not.
 * Every trial's fit is the answer's rule; its margin only guides the next
 * guess: the margin falls about linearly with context and batch (the KV
 * cache), so the point where a line through the bracket's margins crosses 0
 * is most often the answer, and the trial past it closes the bracket. A
 * guess that does not halve the bracket is followed by a halving, so a
 * margin far from a line costs at most twice a bisection's trials. The
 * bracket always holds a fit at `lo` and none at `hi`, so the answer is
 * the bisection's (for a monotone fit), in at most 6 trials on a line
 * where a bisection takes 19 to 22 (tests/cpp/test_inverse.cpp).
 */
template <typename Try>
std::int64_t largest_fitting(std::int64_t hi, Try trial) {
  const SearchTrial first = trial(1);
  if (!first.fits) return 0;
  const SearchTrial last = trial(hi);
  if (last.fits) return hi;
  std::int64_t lo = 1;  // trial(lo) fits, trial(hi) does not
  double lo_margin = first.margin;
  double hi_margin = last.margin;
  bool guess = true;
  while (hi - lo > 1) {
    std::int64_t mid = lo + (hi - lo) / 2;
    const bool guessed = guess && lo_margin >= 0 && hi_margin < 0;
    if (guessed) {
      const double x = static_cast<double>(lo) +
                       static_cast<double>(hi - lo) * (lo_margin / (lo_margin - hi_margin));
      if (std::isfinite(x)) {
        mid = std::clamp(static_cast<std::int64_t>(std::min(std::floor(x), 9e18)), lo + 1, hi - 1);
      }
    }
    const std::int64_t width = hi - lo;
    const SearchTrial t = trial(mid);
    if (t.fits) {
      lo = mid;
      lo_margin = t.margin;
    } else {
      hi = mid;
      hi_margin = t.margin;
    }
    guess = !guessed || 2 * (hi - lo) <= width;
  }
  return lo;
}

/**
 * Searches over context, batch and weight format. Totals never fall as
 * context, batch or bits rise, so each search closes a bracket (a guess
 * where the margin's line crosses 0, else a halving). `budget_bytes`
 * is used by engines without their own budget (flat, percent, llama.cpp).
 */
InverseAnswers inverse_answers(const InferenceSetup& setup, const EngineProfile& engine,
                               const nlohmann::json& options, const Gpu* gpu,
                               const GpuCatalog& gpus, const FormatCatalog& formats,
                               double budget_bytes);

/** A fine-tuning setup's inverse answers against a capacity. */
struct FinetuneInverse {
  std::int64_t max_seq = 0;          ///< at the setup's micro-batch; 0: not one token fits
  std::int64_t max_micro_batch = 0;  ///< at the setup's sequence length, up to 4,096
};

/**
 * The longest sequence (up to the model's context, else 1,000,000) and the
 * largest micro-batch of `setup` whose total is within `capacity_bytes`,
 * each by bisection with the other as set.
 */
FinetuneInverse finetune_inverse(const FinetuneSetup& setup, const FormatCatalog& formats,
                                 double capacity_bytes);

}  // namespace vram
