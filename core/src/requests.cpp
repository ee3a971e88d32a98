#include "vram/requests.hpp"

#include <iterator>

#include "json_read.hpp"
#include "vram/error.hpp"
#include "vram/schema.hpp"

namespace vram {

using nlohmann::json;

namespace {

/** The enum whose name is `name`; read_fields has already checked the choice. */
template <typename Enum, std::size_t N>
Enum enum_of(const char* const (&list)[N], const json& name, const char* field) {
  for (std::size_t i = 0; i < N; ++i) {
    if (name == list[i]) return static_cast<Enum>(i);
  }
  throw Error::make("internal", field, "error.no_choice", obj({{"field", field}}));
}

template <typename T>
std::optional<T> optional(const json& v, const char* key) {
  if (!v.contains(key)) return std::nullopt;
  return v.at(key).get<T>();
}

}  // namespace

const char* to_string(Mode mode) { return kModeNames[static_cast<int>(mode)]; }

void from_json(const json& j, EstimateRequest& r) {
  const json v = read_fields(j, estimate_fields());
  r.model = optional<std::string>(v, "model");
  r.config = optional<json>(v, "config");
  r.name = v.value("name", "");
  r.params_total = optional<double>(v, "params_total");
  r.params_active = optional<double>(v, "params_active");
  r.mode = enum_of<Mode>(kModeNames, v.at("mode"), "mode");
  r.weights = v.at("weights").get<std::string>();
  r.kv = v.at("kv").get<std::string>();
  r.context = v.at("context").get<std::int64_t>();
  r.batch = v.at("batch").get<std::int64_t>();
  r.min_tokens_per_s = v.at("min_tokens_per_s").get<double>();
  r.overhead_gb = optional<double>(v, "overhead_gb");
  r.overhead_pct = optional<double>(v, "overhead_pct");
  r.engine = v.at("engine").get<std::string>();
  r.engine_given = j.contains("engine");
  r.engine_options = v.value("engine_options", json::object());
  r.draft_model = optional<std::string>(v, "draft_model");
  r.draft_tokens = v.at("draft_tokens").get<std::int64_t>();
  r.speculative = v.at("speculative").get<std::string>();
  r.images = v.at("images").get<std::int64_t>();
  r.image_size = v.at("image_size").get<std::int64_t>();
  r.image_size_given = j.contains("image_size");
  r.gpu = optional<std::string>(v, "gpu");
  r.gpu_count = v.at("gpu_count").get<std::int64_t>();
  r.gpu_count_given = j.contains("gpu_count");
  if (v.contains("split_gpus")) r.split_gpus = json_read::list_of<std::string>(v.at("split_gpus"));
  r.budget_gb = optional<double>(v, "budget_gb");
  r.gpu_used_gb = v.at("gpu_used_gb").get<double>();
  r.companion_model = optional<std::string>(v, "companion_model");
  r.companion_context = v.at("companion_context").get<std::int64_t>();
  r.catalog = optional<json>(v, "catalog");
  r.checkpoint = optional<json>(v, "checkpoint");
  r.finetune_profile =
      enum_of<FinetuneProfile>(kFinetuneProfileNames, v.at("finetune_profile"), "finetune_profile");
  r.seq = v.at("seq").get<std::int64_t>();
  r.micro_batch = v.at("micro_batch").get<std::int64_t>();
  r.optimizer = enum_of<Optimizer>(kOptimizerNames, v.at("optimizer"), "optimizer");
  r.momentum = v.at("momentum").get<double>();
  r.precision = enum_of<Precision>(kPrecisionNames, v.at("precision"), "precision");
  r.loss = enum_of<Loss>(kLossNames, v.at("loss"), "loss");
  r.lora_rank = v.at("lora_rank").get<std::int64_t>();
  r.lora_targets = json_read::list_of<std::string>(v.at("lora_targets"));
  r.checkpointing = v.at("checkpointing").get<bool>();
  r.flash_attention = v.at("flash_attention").get<bool>();
  r.zero = v.at("zero").get<std::int64_t>();
  r.offload_optimizer = v.at("offload_optimizer").get<bool>();
  r.upcast_unquantized = v.at("upcast_unquantized").get<bool>();
}

FinetuneSetup finetune_setup(const EstimateRequest& req) {
  FinetuneSetup s;
  s.method = req.mode == Mode::kLora    ? FinetuneMethod::kLora
             : req.mode == Mode::kQlora ? FinetuneMethod::kQlora
                                        : FinetuneMethod::kFull;
  s.profile = req.finetune_profile;
  s.precision = req.precision;
  s.loss = req.loss;
  s.upcast_unquantized = req.upcast_unquantized;
  s.seq = req.seq;
  s.micro_batch = req.micro_batch;
  s.optimizer = req.optimizer;
  s.momentum = req.momentum;
  s.lora_rank = req.lora_rank;
  s.lora_targets = req.lora_targets;
  s.checkpointing = req.checkpointing;
  s.flash_attention = req.flash_attention;
  s.gpus = static_cast<int>(req.gpu_count);
  s.zero = static_cast<int>(req.zero);
  s.offload_optimizer = req.offload_optimizer;
  return s;
}

void from_json(const json& j, GridRequest& r) {
  const json v = read_fields(j, grid_fields());
  r.models = json_read::list_of<std::string>(v.at("models"));
  r.methods = json_read::list_of<std::string>(v.at("methods"));
  r.context = v.at("context").get<std::int64_t>();
  r.batch = v.at("batch").get<std::int64_t>();
  r.catalog = optional<json>(v, "catalog");
  r.usable_fraction = v.at("usable_fraction").get<double>();
}

void from_json(const json& j, DevicesRequest& r) {
  const json v = read_fields(j, devices_fields());
  r.model = v.at("model").get<std::string>();
  r.accelerators = json_read::list_of<std::string>(v.at("accelerators"));
  r.formats = json_read::list_of<std::string>(v.at("formats"));
  r.usable_fraction = v.at("usable_fraction").get<double>();
  r.context = v.at("context").get<std::int64_t>();
  r.batch = v.at("batch").get<std::int64_t>();
  r.kv = v.at("kv").get<std::string>();
  r.catalog = optional<json>(v, "catalog");
}

void from_json(const json& j, FleetRequest& r) {
  const json v = read_fields(j, fleet_fields());
  r.model = optional<std::string>(v, "model");
  r.weights = v.at("weights").get<std::string>();
  r.context = v.at("context").get<std::int64_t>();
  r.batch = v.at("batch").get<std::int64_t>();
  r.catalog = optional<json>(v, "catalog");
}

void from_json(const json& j, FitModelsRequest& r) {
  const json v = read_fields(j, fit_models_fields());
  r.gpu = optional<std::string>(v, "gpu");
  r.gpu_count = v.at("gpu_count").get<std::int64_t>();
  r.budget_gb = optional<double>(v, "budget_gb");
  r.weights = v.at("weights").get<std::string>();
  r.kv = v.at("kv").get<std::string>();
  r.context = v.at("context").get<std::int64_t>();
  r.batch = v.at("batch").get<std::int64_t>();
  r.catalog = optional<json>(v, "catalog");
}

}  // namespace vram
