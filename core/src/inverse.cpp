#include "vram/inverse.hpp"

#include <algorithm>

namespace vram {
namespace {

constexpr std::int64_t kContextCeiling = 100'000'000;
constexpr std::int64_t kBatchCeiling = 1'000'000;

/** The largest n in [1, hi] with fits(n), or 0 when fits(1) is false. */
template <typename Fits>
std::int64_t largest(std::int64_t hi, Fits fits) {
  if (!fits(1)) return 0;
  std::int64_t lo = 1;  // fits(lo) holds
  if (fits(hi)) return hi;
  while (hi - lo > 1) {  // fits(hi) fails
    const std::int64_t mid = lo + (hi - lo) / 2;
    (fits(mid) ? lo : hi) = mid;
  }
  return lo;
}

}  // namespace

bool engine_runs(const EngineProfile& engine, const WeightFormat& format) {
  if (engine.kind == EngineKind::kVllm || engine.kind == EngineKind::kSglang) return !format.gguf;
  if (engine.kind == EngineKind::kLlamacpp) {
    return format.gguf || format.id == "fp32" || format.id == "bf16" || format.id == "fp16" ||
           format.id == "mxfp4";
  }
  return true;  // the conventions size any format
}

InverseAnswers inverse_answers(const InferenceSetup& setup, const EngineProfile& engine,
                               const nlohmann::json& options, const Gpu* gpu,
                               const GpuCatalog& gpus, const FormatCatalog& formats,
                               double budget_bytes) {
  InverseAnswers answers;
  answers.budget_bytes = budget_bytes;
  // Searches reuse the parameter count; only context, batch or format change.
  const ParamTotals params = param_totals(*setup.model);
  InferenceSetup base = setup;
  base.params = &params;
  auto fits = [&](const InferenceSetup& s) {
    const InferencePlan plan = plan_inference(s, engine, options, gpu, gpus, formats, false);
    return plan.budget.present ? plan.budget.fits : plan.total_bytes <= budget_bytes;
  };

  const std::int64_t model_limit = setup.model->max_context;
  const std::int64_t context_hi = model_limit > 0 ? model_limit : kContextCeiling;
  answers.max_context = largest(context_hi, [&](std::int64_t context) {
    InferenceSetup s = base;
    s.context = context;
    return fits(s);
  });
  answers.context_limited_by_model = model_limit > 0 && answers.max_context == model_limit;
  answers.max_batch = largest(kBatchCeiling, [&](std::int64_t batch) {
    InferenceSetup s = base;
    s.batch = batch;
    return fits(s);
  });

  std::vector<const WeightFormat*> order;
  for (const WeightFormat& format : formats.weights()) {
    if (engine_runs(engine, format)) order.push_back(&format);
  }
  std::stable_sort(order.begin(), order.end(), [](const WeightFormat* a, const WeightFormat* b) {
    return a->bits_per_weight > b->bits_per_weight;
  });
  for (const WeightFormat* format : order) {
    InferenceSetup s = base;
    s.weights = format;
    FormatFit fit;
    fit.format = format;
    fit.supported = gpu == nullptr || !format->needs("fp8") || gpu->supports("fp8");
    const InferencePlan plan = plan_inference(s, engine, options, gpu, gpus, formats, false);
    fit.total_bytes = plan.total_bytes;
    fit.fits = fit.supported &&
               (plan.budget.present ? plan.budget.fits : plan.total_bytes <= budget_bytes);
    if (fit.fits && answers.best_format == nullptr) answers.best_format = format;
    answers.formats.push_back(fit);
  }
  return answers;
}

}  // namespace vram
