#include "vram/inverse.hpp"

#include <algorithm>

#include "vram/limits.hpp"
#include "vram/sort.hpp"

namespace vram {
namespace {

/** The largest n in [1, hi] for which fits(n) holds, or 0: a plain bisection. */
template <typename Fits>
std::int64_t largest_bisected(std::int64_t hi, Fits fits) {
  if (!fits(1)) return 0;
  std::int64_t lo = 1;
  if (fits(hi)) return hi;
  while (hi - lo > 1) {
    const std::int64_t mid = lo + (hi - lo) / 2;
    (fits(mid) ? lo : hi) = mid;
  }
  return lo;
}

}  // namespace

bool engine_runs(const EngineProfile& engine, const WeightFormat& format) {
  return engine.rules->loads(format);
}

bool card_runs(const Gpu* gpu, const WeightFormat& format) {
  if (gpu == nullptr) return true;
  for (const std::string& feature : format.requires_features) {
    if (!gpu->supports(feature)) return false;
  }
  return true;
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
  // llama.cpp's terms are its fullest card's: times the cards, as the budget is.
  auto need_bytes = [&](const InferencePlan& plan) {
    return engine.convention() ? plan.total_bytes : plan.total_bytes * plan.gpus;
  };
  // A paged engine's margin is its KV pool less the cache, and no more than
  // one rank's pool, in whole blocks, less one sequence (vLLM's rule); the
  // others', the budget less the total.
  auto fits = [&](const InferenceSetup& s) {
    const InferencePlan plan = plan_inference(s, engine, options, gpu, gpus, formats, false);
    if (plan.budget.present) {
      const EngineBudget& b = plan.budget;
      double margin = b.kv_budget_bytes - plan.kv.bytes / plan.gpus;
      if (b.kv_bytes_per_token > 0 && b.data_parallel > 0) {
        const double rank_tokens =
            static_cast<double>(b.kv_tokens) / static_cast<double>(b.data_parallel);
        margin =
            std::min(margin, (rank_tokens - static_cast<double>(s.context)) * b.kv_bytes_per_token);
      }
      return SearchTrial{b.fits, margin};
    }
    return SearchTrial{need_bytes(plan) <= budget_bytes, budget_bytes - need_bytes(plan)};
  };

  const std::int64_t model_limit = setup.model->max_context;
  const std::int64_t context_hi = model_limit > 0 ? model_limit : limits::kMaxRequestContext;
  answers.max_context = largest_fitting(context_hi, [&](std::int64_t context) {
    InferenceSetup s = base;
    s.context = context;
    return fits(s);
  });
  answers.context_limited_by_model = model_limit > 0 && answers.max_context == model_limit;
  answers.max_batch = largest_fitting(limits::kMaxRequestBatch, [&](std::int64_t batch) {
    InferenceSetup s = base;
    s.batch = batch;
    return fits(s);
  });

  // Never wider than the checkpoint's own storage: converting BF16 weights
  // to FP32 adds memory and no quality.
  const WeightFormat* own = formats.find_weight(setup.model->native_format);
  const double own_bits = own != nullptr ? own->bits_per_weight : 32.0;
  std::vector<const WeightFormat*> order;
  for (const WeightFormat& format : formats.weights()) {
    if (engine_runs(engine, format) && format.bits_per_weight <= own_bits) {
      order.push_back(&format);
    }
  }
  stable_sort_by(order, [](const WeightFormat* a, const WeightFormat* b) {
    return a->bits_per_weight > b->bits_per_weight;
  });
  for (const WeightFormat* format : order) {
    InferenceSetup s = base;
    s.weights = format;
    FormatFit fit;
    fit.format = format;
    fit.supported = card_runs(gpu, *format);
    const InferencePlan plan = plan_inference(s, engine, options, gpu, gpus, formats, false);
    fit.total_bytes = plan.total_bytes;
    fit.fits = fit.supported &&
               (plan.budget.present ? plan.budget.fits : need_bytes(plan) <= budget_bytes);
    if (fit.fits && answers.best_format == nullptr) answers.best_format = format;
    answers.formats.push_back(fit);
  }
  return answers;
}

FinetuneInverse finetune_inverse(const FinetuneSetup& setup, const FormatCatalog& formats,
                                 double capacity_bytes) {
  auto fits = [&](const FinetuneSetup& trial) {
    return plan_finetune(trial, formats, false).total_bytes <= capacity_bytes;
  };
  const ModelSpec& model = *setup.model;
  FinetuneInverse out;
  out.max_seq =
      largest_bisected(model.max_context > 0 ? model.max_context : 1'000'000, [&](std::int64_t v) {
        FinetuneSetup t = setup;
        t.seq = v;
        return fits(t);
      });
  out.max_micro_batch = largest_bisected(4096, [&](std::int64_t v) {
    FinetuneSetup t = setup;
    t.micro_batch = v;
    return fits(t);
  });
  return out;
}

}  // namespace vram
