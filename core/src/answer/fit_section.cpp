// The answer against its capacity (a budget, or the cards asked about as
// the engine counts them) and the inverse answers: what else it holds.

#include "answer/sections.hpp"
#include "vram/fit.hpp"
#include "vram/inverse.hpp"
#include "vram/units.hpp"

namespace vram::answer {

using nlohmann::json;

namespace {

json inverse_json(const InverseAnswers& a) {
  json formats = json::array();
  for (const FormatFit& fit : a.formats) {
    formats.push_back(obj({{"format", fit.format->id},
                           {"total_gb", bytes_to_gb(fit.total_bytes)},
                           {"fits", fit.fits},
                           {"supported", fit.supported}}));
  }
  return obj({{"budget_gb", bytes_to_gb(a.budget_bytes)},
              {"max_context", a.max_context},
              {"context_limited_by_model", a.context_limited_by_model},
              {"max_batch", a.max_batch},
              {"best_format", a.best_format ? json(a.best_format->id) : json(nullptr)},
              {"formats", std::move(formats)}});
}

}  // namespace

/**
 * The answer against a capacity: spare, whether it fits, and whether that
 * fit is tight (SPEC section 3, fit.hpp is_tight) over `cards` cards.
 */
json fit_json(double capacity, double need, bool fits, const Message& basis, std::int64_t cards) {
  const double spare = capacity - need;
  return obj({{"capacity_gb", bytes_to_gb(capacity)},
              {"basis", basis},
              {"spare_gb", bytes_to_gb(spare)},
              {"fits", fits},
              {"tight", fits && is_tight(spare, static_cast<int>(cards), FitRules{})}});
}

Capacity capacity_of(const Inference& in) {
  const InferencePlan& plan = in.plan;
  Capacity c;
  c.capacity_bytes = in.budget_gb ? gb_to_bytes(*in.budget_gb) : 0.0;
  c.need_bytes = plan.total_bytes;
  c.holds = plan.budget.present ? plan.budget.fits : c.need_bytes <= c.capacity_bytes;
  // A budget is the capacity itself; without one, the cards asked about.
  if (in.gpu == nullptr || in.budget_gb) return c;
  // Conventions compare with the marketed decimal capacity (the guide's
  // tables); vLLM and SGLang with their share of what the runtime reports,
  // llama.cpp with all of it. Per card, then times the cards: the need
  // and the capacity are counted over the same cards.
  const ServingFit& sf = *in.fit;
  const double cards = static_cast<double>(in.layout.gpus);
  c.capacity_bytes = sf.per_gpu_capacity_bytes * cards;
  c.need_bytes = sf.per_gpu_need_bytes * cards;
  c.holds = sf.fits;
  // On unified memory, what macOS lets the GPU wire, whichever engine counts it.
  c.basis = {plan.budget.present               ? "basis.engine_share"
             : in.gpus.is_unified(*in.gpu)     ? "basis.wired"
             : in.engine.profile->convention() ? "basis.marketed"
                                               : "basis.usable"};
  c.cards = in.layout.gpus;
  return c;
}

json fit_section(const Inference& in, const Capacity& c) {
  if (!(c.capacity_bytes > 0)) return json::object();
  return obj({{"fit", fit_json(c.capacity_bytes, c.need_bytes, c.holds, c.basis, c.cards)},
              {"inverse",
               inverse_json(inverse_answers(in.setup, *in.engine.profile, in.engine.options, in.gpu,
                                            in.gpus, in.catalog.formats, c.capacity_bytes))}});
}

}  // namespace vram::answer
