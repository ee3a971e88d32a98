#include "estimate_json.hpp"

#include "answer/sections.hpp"
#include "vram/error.hpp"
#include "vram/json_object.hpp"

namespace vram {

using nlohmann::json;

// The table of contents of an estimate answer: the request read once, then
// each section in the answer's order (answer/sections.hpp; the keys are in
// docs/cli.md). A new section is a builder in core/src/answer/ called here.
json estimate_json(const Catalog& catalog, const json& request) {
  const EstimateRequest req = request.get<EstimateRequest>();
  if (req.mode != Mode::kInference) return answer::finetune_answer(catalog, req);
  const answer::Inference in(catalog, req);

  // What was sized, its terms, and what it assumed.
  json out = answer::model_section(in);
  answer::merge(out, answer::terms_section(in));
  answer::merge(out, answer::notes_section(in));
  // llama.cpp's placement: the user's knobs, or the plan's partial offload.
  const answer::Placement placement = answer::placement_of(in);
  const std::optional<OffloadPlan> offload = answer::offload_of(in, placement);
  answer::merge(out, answer::placement_section(in, placement));
  // Unequal cards under llama.cpp: each card's layers, and the order with the most context.
  answer::merge(out, answer::split_section(in));
  answer::merge(out, answer::launch_section(in, placement, offload));
  answer::merge(out, answer::budget_section(in));
  // Against the card asked about: the serving plan, then its speed.
  const answer::Capacity capacity = answer::capacity_of(in);
  answer::merge(out, answer::serving_section(in, offload));
  answer::merge(out, answer::speed_section(in, capacity));
  // Every priced card's cheapest set; the fit and inverse answers.
  answer::merge(out, answer::cheapest_section(in));
  answer::merge(out, answer::fit_section(in, capacity));
  return out;
}

// The concurrency curve of one plan: the estimate's request, on a card.
json curve_json(const Catalog& catalog, const json& request) {
  const EstimateRequest req = request.get<EstimateRequest>();
  if (req.mode != Mode::kInference) {
    throw Error::make("not_applicable", "mode", "error.curve_mode", obj({{"field", "mode"}}));
  }
  const answer::Inference in(catalog, req);
  if (in.gpu == nullptr) throw Error::missing("gpu");
  return answer::curve_section(in, answer::capacity_of(in));
}

}  // namespace vram
