// A fine-tuning estimate: the same request shape with training keys. Its
// sections: the setup and its terms, the cards that hold it, the calls that
// run it, and against a card or budget, its fit and inverse answers.

#include "answer/sections.hpp"
#include "model_json.hpp"
#include "tables.hpp"
#include "vram/finetune.hpp"
#include "vram/fit.hpp"
#include "vram/inverse.hpp"
#include "vram/launch.hpp"
#include "vram/units.hpp"

namespace vram::answer {

using nlohmann::json;

namespace {

FinetuneSetup setup_of(const Catalog& catalog, const EstimateRequest& req, const ModelSpec& model) {
  FinetuneSetup s = finetune_setup(req);
  s.model = &model;
  // The CUDA context with cuBLAS, as the transformers profile measured it.
  s.context_bytes = kBytesPerGiB * find_engine(catalog.engines, "transformers", "engine")
                                       .defaults.at("non_torch_gib")
                                       .get<double>();
  if (req.overhead_gb) {
    // The flat convention's knob, with its range.
    const EngineProfile& guide = find_engine(catalog.engines, "guide", "engine");
    engine_options(guide, obj({{"overhead_gb", *req.overhead_gb}}), "");
    s.overhead_bytes = gb_to_bytes(*req.overhead_gb);
    s.overhead_set = true;
  }
  if (req.weights != "native") s.base_format = &catalog.formats.weight(req.weights, "weights");
  return s;
}

/** The setup, its terms and totals, with what it assumed and warns of. */
json plan_json(const FinetuneSetup& s, const FinetunePlan& plan, const ImportedModel& imported) {
  const ModelSpec& model = *s.model;
  json assumptions = plan.assumptions;
  if (plan.params.total_declared) {
    assumptions.push_back(
        Message{"assumption.params_declared_finetune", obj({{"params", plan.params.total}})});
  }
  assumptions.push_back(Message{"assumption.units_finetune"});
  json warnings = import_warnings(imported);
  if (s.zero > 0 && s.gpus == 1) warnings.push_back(Message{"warning.zero_single"});
  if (model.max_context > 0 && s.seq > model.max_context) {
    warnings.push_back(Message{"warning.seq_over", obj({{"max", model.max_context}})});
  }
  return obj(
      {{"mode", to_string(s.method)},
       {"finetune_profile", to_string(s.profile)},
       {"model", model_summary(model, plan.params)},
       {"params_total", plan.params.total},
       {"params_active", plan.params.active},
       {"trainable_params", plan.trainable_params},
       {"adapter_params", plan.adapter_params},
       {"seq", s.seq},
       {"micro_batch", s.micro_batch},
       {"optimizer", to_string(s.optimizer)},
       {"precision", to_string(s.precision)},
       {"loss", to_string(s.loss)},
       {"zero", s.zero},
       {"gpu_count", s.gpus},
       {"weights_gb", bytes_to_gb(plan.weights_bytes + plan.adapter_bytes)},
       {"gradients_gb", bytes_to_gb(plan.gradients_bytes)},
       {"optimizer_gb", bytes_to_gb(plan.optimizer_bytes)},
       {"activations_gb", bytes_to_gb(plan.activations.total_bytes)},
       {"kv_cache_gb", 0.0},
       {"overhead_gb", bytes_to_gb(plan.overhead_bytes)},
       {"allocator_peak_gb", bytes_to_gb(plan.allocator_peak_bytes)},
       {"allocator_reserve_gb", bytes_to_gb(plan.reserve_bytes)},
       {"allocator_reserved_gb", bytes_to_gb(plan.allocator_peak_bytes + plan.reserve_bytes)},
       {"total_basis", s.profile == FinetuneProfile::kGuide ? "guide" : "device"},
       {"host_ram_gb", bytes_to_gb(plan.host_bytes)},
       {"total_gb", bytes_to_gb(plan.total_bytes)},
       {"terms", terms_json(plan.terms)},
       {"assumptions", assumptions},
       {"warnings", warnings}});
}

/** Against a card or a budget: the fit, and the longest sequence and largest micro-batch. */
json capacity_json(const Catalog& catalog, const FinetuneSetup& s, const FinetunePlan& plan,
                   const GpuCatalog& gpus, const Gpu* gpu, std::optional<double> budget_gb) {
  double capacity = 0;
  const bool unified = gpu != nullptr && gpus.is_unified(*gpu);
  if (budget_gb) {
    capacity = gb_to_bytes(*budget_gb);
  } else if (gpu != nullptr) {
    // The marketed size, or on unified memory the part macOS lets the GPU wire.
    capacity = gpus.card_bytes(*gpu);
  }
  json out = json::object();
  if (gpu != nullptr) out["gpu"] = *gpu;
  if (unified) merge(out, unified_section(gpus, *gpu, plan.total_bytes, budget_gb.has_value()));
  if (!(capacity > 0)) return out;
  out["fit"] = fit_json(capacity, plan.total_bytes, plan.total_bytes <= capacity,
                        Message{gpu == nullptr ? "basis.budget"
                                : unified      ? (budget_gb ? "basis.budget" : "basis.wired")
                                               : "basis.marketed_one"},
                        1);
  const FinetuneInverse inverse = finetune_inverse(s, catalog.formats, capacity);
  out["inverse"] = obj({{"budget_gb", bytes_to_gb(capacity)},
                        {"max_seq", inverse.max_seq},
                        {"max_micro_batch", inverse.max_micro_batch}});
  return out;
}

}  // namespace

json finetune_answer(const Catalog& catalog, const EstimateRequest& req) {
  // Checked like any input; fine-tuning sizes its weights from the format.
  if (req.checkpoint) checkpoint_from_json(*req.checkpoint, "checkpoint");
  const ImportedModel imported = request::model(catalog, req);
  const FinetuneSetup s = setup_of(catalog, req, imported.model);
  const FinetunePlan plan = plan_finetune(s, catalog.formats);
  json out = plan_json(s, plan, imported);

  std::optional<GpuCatalog> own_gpus;
  const GpuCatalog& gpus = request_catalog(catalog, req.catalog, own_gpus);
  FitRules rules;
  rules.needs_fast_link =
      s.method == FinetuneMethod::kFull && s.gpus == 1;  // a set must all-reduce
  json options = json::array();
  for (const Option& option : options_by_card(plan.total_bytes, gpus, rules)) {
    options.push_back(option_json(option));
  }
  out["fits"] = std::move(options);
  // The calls that set this plan up under transformers, PEFT and TRL.
  out["launch"] = training_launch_json(catalog.training_launch, s);
  // The total is what the device holds during the step: the fine-tuning
  // runs measured on the device are its kind.
  out["measured_error"] = measured_error(catalog, "finetune-device", "note.measured_error_finetune",
                                         &plan.terms, plan.total_bytes);
  const Gpu* gpu = req.gpu ? &gpus.find(*req.gpu, "gpu") : nullptr;
  merge(out, capacity_json(catalog, s, plan, gpus, gpu, req.budget_gb));
  return out;
}

}  // namespace vram::answer
