#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "vram/engine.hpp"

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

/**
 * Searches over context, batch and weight format. Totals never fall as
 * context, batch or bits rise, so each search is a bisection. `budget_bytes`
 * is used by engines without their own budget (flat, percent, llama.cpp).
 */
InverseAnswers inverse_answers(const InferenceSetup& setup, const EngineProfile& engine,
                               const nlohmann::json& options, const Gpu* gpu,
                               const GpuCatalog& gpus, const FormatCatalog& formats,
                               double budget_bytes);

}  // namespace vram
