#pragma once

// The typed requests of the API calls, read with nlohmann's from_json by
// walking their field tables (vram/schema.hpp): unknown keys, JSON null,
// wrong types and out-of-range values are named errors, and every default
// comes from the table.

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "vram/finetune.hpp"

namespace vram {

/** What an estimate sizes: inference, or one of the fine-tuning methods (kModeNames). */
enum class Mode { kInference, kFull, kLora, kQlora };
const char* to_string(Mode mode);

// Each request below is read by from_json, which fills every field from
// the request or from its table's default: the initialisers are empty
// values, not a second set of defaults.

/** The estimate call's request (estimate_fields()). */
struct EstimateRequest {
  std::optional<std::string> model;      ///< a preset id, or
  std::optional<nlohmann::json> config;  ///< a Hugging Face config.json
  std::string name;                      ///< the config's display name
  std::optional<double> params_total;
  std::optional<double> params_active;
  Mode mode = Mode::kInference;
  std::string weights;  ///< "native" or a weight format id
  std::string kv;
  std::int64_t context = 0;
  std::int64_t batch = 0;
  double min_tokens_per_s = 0;  ///< the service floor: each user's expected decode speed
  std::optional<double> overhead_gb;
  std::optional<double> overhead_pct;
  std::string engine;
  bool engine_given = false;  ///< "engine" was in the request, not its default
  nlohmann::json engine_options = nlohmann::json::object();
  std::optional<std::string> draft_model;  ///< speculative decoding's draft, a preset id
  std::int64_t draft_tokens = 0;           ///< tokens it drafts a step
  std::string speculative;                 ///< who drafts: "draft" (draft_model) or "mtp"
  std::int64_t images = 0;                 ///< images in each request (a vision model's)
  std::int64_t image_size = 0;    ///< pixels a side of each (square) image, for a tower of any size
  bool image_size_given = false;  ///< "image_size" was in the request, not its default
  std::optional<std::string> gpu;
  std::int64_t gpu_count = 0;
  bool gpu_count_given = false;  ///< else the engine's tensor x pipeline knobs set the count
  std::vector<std::string>
      split_gpus;  ///< unequal cards split by layers (llama.cpp), in CUDA order
  std::optional<double> budget_gb;
  double gpu_used_gb = 0;                      ///< memory other processes already hold on each card
  std::optional<std::string> companion_model;  ///< a second model on the same card, a preset id
  std::int64_t companion_context = 0;          ///< the companion's tokens a request
  std::optional<nlohmann::json> catalog;       ///< a replacement GPU catalog
  std::optional<nlohmann::json> checkpoint;    ///< a GGUF/safetensors header (checkpoint.hpp)
  FinetuneProfile finetune_profile = FinetuneProfile::kPhysical;
  std::int64_t seq = 0;
  std::int64_t micro_batch = 0;
  Optimizer optimizer = Optimizer::kAdamW;
  double momentum = 0;  ///< SGD's momentum (torch.optim.SGD: 0, no state)
  Precision precision = Precision::kMixed;
  Loss loss = Loss::kStandard;
  std::int64_t lora_rank = 0;
  std::vector<std::string> lora_targets;
  bool checkpointing = false;
  bool flash_attention = false;
  std::int64_t zero = 0;
  bool offload_optimizer = false;
  bool upcast_unquantized = false;
};

/** The lookup grid's request (grid_fields()). */
struct GridRequest {
  std::vector<std::string> models;
  std::vector<std::string> methods;
  std::int64_t context = 0;
  std::int64_t batch = 0;
  std::optional<nlohmann::json> catalog;
  double usable_fraction = 0;
};

/** The device planner's request (devices_fields()). */
struct DevicesRequest {
  std::string model;
  std::vector<std::string> accelerators;
  std::vector<std::string> formats;
  double usable_fraction = 0;
  std::int64_t context = 0;
  std::int64_t batch = 0;
  std::string kv;
  std::optional<nlohmann::json> catalog;
};

/** The fleet's request (fleet_fields()). */
struct FleetRequest {
  std::optional<std::string> model;
  std::string weights;
  std::int64_t context = 0;
  std::int64_t batch = 0;
  std::optional<nlohmann::json> catalog;
};

/**
 * Which presets fit one card, a set of it, or a budget (fit_models_fields()):
 * the reverse of the fleet's one model across cards.
 */
struct FitModelsRequest {
  std::optional<std::string> gpu;
  std::int64_t gpu_count = 0;
  std::optional<double> budget_gb;
  std::string weights;
  std::string kv;
  std::int64_t context = 0;
  std::int64_t batch = 0;
  std::optional<nlohmann::json> catalog;
};

void from_json(const nlohmann::json& j, EstimateRequest& request);
void from_json(const nlohmann::json& j, GridRequest& request);
void from_json(const nlohmann::json& j, DevicesRequest& request);
void from_json(const nlohmann::json& j, FleetRequest& request);
void from_json(const nlohmann::json& j, FitModelsRequest& request);

/**
 * The fine-tuning run an estimate request asks for: its method, profile,
 * sequence, batch, optimizer, precision, loss, LoRA and memory options and
 * data-parallel GPUs (gpu_count). The model, the base format and the
 * runtime are the caller's.
 */
FinetuneSetup finetune_setup(const EstimateRequest& request);

}  // namespace vram
