#pragma once

// The sections of an estimate answer (docs/cli.md lists their keys), one
// builder each, from typed inputs: estimate_json.cpp reads the request once
// into an Inference and calls the builders in the answer's order, as a table
// of contents. A section is a JSON object merged into the answer (merge):
// its `assumptions` and `warnings` are appended to the answer's, in the order
// the sections come, every other key is set.

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "request.hpp"
#include "vram/catalog.hpp"
#include "vram/checkpoint.hpp"
#include "vram/engine.hpp"
#include "vram/message.hpp"
#include "vram/offload.hpp"
#include "vram/serving.hpp"
#include "vram/split.hpp"

namespace vram::answer {

/** Unequal cards under llama.cpp (the request's "split_gpus"), split by layers (split.hpp). */
struct MixedCards {
  std::vector<const Gpu*> cards;  ///< as the request lists them (CUDA's order)
  SplitOrder order;               ///< the order with the most context
  LayerSplit split;               ///< at the request's context, in that order
  double decode_tokens_per_s = 0;
};

/**
 * An inference request read once and planned: the model, the formats, the
 * engine, the cards and the plan, in the order the request is checked (the
 * first bad field is the error). Built in place and never copied: the setup
 * points into it.
 */
struct Inference {
  Inference(const Catalog& catalog, const EstimateRequest& request);
  Inference(const Inference&) = delete;
  Inference& operator=(const Inference&) = delete;

  const Catalog& catalog;
  const ImportedModel imported;
  const ModelSpec& model;
  std::optional<CheckpointWeights> checkpoint;
  const WeightFormat* asked = nullptr;  ///< the weights asked for; none for "native"
  InferenceSetup setup;    ///< its weights never wider than the checkpoint's (inference.hpp)
  std::string weights_id;  ///< as sized: "native" or a format id
  request::EngineChoice engine;
  const SpeedProfile& speed;
  std::optional<GpuCatalog> own_gpus;  ///< the request's own card list, when it brings one
  const GpuCatalog& gpus;
  const Gpu* gpu = nullptr;  ///< the card asked about, or none
  ServingLayout layout;      ///< how gpu_count cards serve the model
  std::string format_id;     ///< the weights' format, the model's own when native
  std::optional<double> budget_gb;
  double min_tokens_per_s = 0;  ///< the service floor per user
  InferencePlan plan;
  std::optional<ServingFit> fit;    ///< the plan on `gpu`, when one is given
  std::optional<MixedCards> mixed;  ///< the plan over unequal cards, when "split_gpus" lists them
  std::optional<ImportedModel> draft;            ///< speculative decoding's draft ("draft_model")
  std::optional<WeightsSize> draft_weights;      ///< its weights as loaded (setup.draft_weights)
  std::optional<ModelSpec> mtp;                  ///< the model's own MTP layers as the draft
  std::optional<ModelSpec> eagle;                ///< an EAGLE-3 head's decoder layer as the draft
  std::optional<EagleHeadBytes> eagle_bytes;     ///< its weights by where they go
  std::optional<ImportedModel> companion;        ///< a second model on the card ("companion_model")
  std::optional<WeightsSize> companion_weights;  ///< its weights as loaded
};

/** The split over the request's "split_gpus" (split_section.cpp); nullopt without them. */
std::optional<MixedCards> mixed_of(const Inference& in, const EstimateRequest& req);

/** What an answer is measured against: a budget, or the cards as the engine counts them. */
struct Capacity {
  double capacity_bytes = 0;
  double need_bytes = 0;
  bool holds = false;
  Message basis{"basis.budget"};
  std::int64_t cards = 1;  ///< the cards the spare is spread over ("tight")
};

/** Appends `section`'s assumptions and warnings to `answer`'s, and sets its other keys. */
void merge(nlohmann::json& answer, nlohmann::json section);

// --- shared by inference and fine-tuning (terms_section.cpp, fit_section.cpp)
nlohmann::json terms_json(const std::vector<Term>& terms);
/**
 * The measured error of answers of this kind (data/accuracy.json), or null.
 * With the answer's `terms` and total: a term no measurement of the kind
 * checked (data/accuracy.json `terms`) widens the range at each end by its
 * share of the total, and the answer says which terms those are.
 */
nlohmann::json measured_error(const Catalog& catalog, const char* category, const char* note,
                              const std::vector<Term>* terms = nullptr, double total_bytes = 0);
/** What the importer noticed, as messages. */
nlohmann::json import_warnings(const ImportedModel& imported);
/** Capacity, spare, fits and tight (SPEC section 3) over `cards` cards. */
nlohmann::json fit_json(double capacity, double need, bool fits, const Message& basis,
                        std::int64_t cards);

// --- inference sections, in the answer's order
/** model, params_*, weights, weights_storage, kv, context, batch, engine, checkpoint. */
nlohmann::json model_section(const Inference& in);
/** weights_gb, kv_cache_gb, kv_groups, terms, total_gb, overhead_gb, host_gb, measured_error. */
nlohmann::json terms_section(const Inference& in);
/** The assumptions and warnings of the model, the formats and the engine. */
nlohmann::json notes_section(const Inference& in);
/** llama.cpp's placement knobs (gpu_layers, n_cpu_moe) as given, or nullopt for "auto". */
struct Placement {
  std::optional<int> ngl;
  std::optional<int> n_cpu_moe;
  bool given() const { return ngl || n_cpu_moe; }
};
Placement placement_of(const Inference& in);
/** llama.cpp's partial offload on the card asked about, when it has one (offload.hpp). */
std::optional<OffloadPlan> offload_of(const Inference& in, const Placement& placement);
/** A placement given without a card: the warning that nothing was placed. */
nlohmann::json placement_section(const Inference& in, const Placement& placement);
/** What the answer is measured against (fit_section.cpp). */
Capacity capacity_of(const Inference& in);
/** launch: the command that runs the plan (none for the conventions). */
nlohmann::json launch_section(const Inference& in, const Placement& placement,
                              const std::optional<OffloadPlan>& offload);
/** split: each unequal card's layers and buffers, the order with the most context. */
nlohmann::json split_section(const Inference& in);
/** budget, kv_budget_gb, kv_blocks, max_concurrency: vLLM's and SGLang's own budget. */
nlohmann::json budget_section(const Inference& in);
/** gpu, gpu_count, serving (with its offload): how the cards asked about serve the plan. */
nlohmann::json serving_section(const Inference& in, const std::optional<OffloadPlan>& offload);
/** serving.offload and its assumptions: llama.cpp's placement, with its speed. */
nlohmann::json offload_section(const Inference& in, const OffloadPlan& offload);
/** decode, prefill and their assumptions: the speed of a setup that holds the answer. */
nlohmann::json speed_section(const Inference& in, const Capacity& capacity);
/**
 * The concurrency curve on the card asked about (the `curve` call): per-user
 * and total decode, and time to first token, as users grow from 1 to as many
 * as the cards hold at the context; the most users at the floor, with the
 * cost per million output and input tokens there; each point with the speed
 * model's measured error band.
 */
nlohmann::json curve_section(const Inference& in, const Capacity& capacity);
/** fits, below_floor: the cheapest set of each priced card, and its speed. */
nlohmann::json cheapest_section(const Inference& in);
/** fit and inverse: the answer against its capacity, and what else that capacity holds. */
nlohmann::json fit_section(const Inference& in, const Capacity& capacity);

/**
 * A card of unified memory (Apple silicon): the machine's memory counted once and macOS's
 * default GPU limit (an assumption), and where `need_bytes` passes the limit, the sysctl that
 * raises it (a warning: warning.wired_raise, or warning.wired_beyond past what macOS can
 * spare); `unified_memory` the same for programs. With a budget given, nothing to raise.
 */
nlohmann::json unified_section(const GpuCatalog& gpus, const Gpu& gpu, double need_bytes,
                               bool budget_given);
/** The limit the sysctl is given for `need_bytes`, in MiB: the need rounded up to a whole GiB,
 * within the most suggested (GpuCatalog::wired_ceiling_bytes), never below the need. */
double wired_limit_mib(const GpuCatalog& gpus, const Gpu& gpu, double need_bytes);

// --- helpers the sections share
/** "-ngl N", with "--n-cpu-moe K" when it is given: a placement as the command writes it. */
Message placement_flags(const OffloadPlan& offload, const EngineProfile& engine);

// --- fine-tuning (finetune_section.cpp)
/** A fine-tuning estimate: the same request shape with training keys. */
nlohmann::json finetune_answer(const Catalog& catalog, const EstimateRequest& request);

}  // namespace vram::answer
