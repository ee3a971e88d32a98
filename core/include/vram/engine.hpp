#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "vram/engine_rules.hpp"
#include "vram/field.hpp"
#include "vram/format.hpp"
#include "vram/gpu.hpp"
#include "vram/inference.hpp"
#include "vram/kv_cache.hpp"
#include "vram/message.hpp"
#include "vram/model.hpp"

namespace vram {

struct CheckpointWeights;

/**
 * One term of an answer: its value, its label and formula as messages, its
 * inputs. The formula's params are the numbers the value is computed from
 * (tests/cpp/test_formulas.cpp re-evaluates every formula from them), so
 * its text cannot disagree with the value.
 */
struct Term {
  std::string id;  ///< stable: "weights", "kv_cache", "overhead", "activations", ...
  Message label;   ///< "term.<id>" or a variant ("term.model_buffer")
  double bytes = 0;
  Message formula;  ///< id empty when the plan was made without explanations
  nlohmann::json inputs = nlohmann::json::object();
};

/**
 * A runtime-overhead convention or an inference engine's memory model
 * (data/engines.json). `defaults` are its knobs, each with a source and,
 * in `knobs`, its type and range (the file's "limits").
 */
struct EngineProfile {
  std::string id;
  std::string name;
  /** What its kind does with the numbers (engine_rules.hpp); never null once read. */
  const EngineRules* rules = nullptr;
  std::string source;
  nlohmann::json defaults = nlohmann::json::object();
  nlohmann::json option_sources = nlohmann::json::object();
  std::vector<FieldSpec> knobs;  ///< one per default, in the file's order
  nlohmann::json launch;  ///< the file's "launch" section (vram/launch.hpp), null for conventions
  /** The file's "architecture" section: model types whose code allocates differently. */
  nlohmann::json architecture = nlohmann::json::object();

  /** data/engines.json's "kind": the memory model it follows ("vllm", "flat", ...). */
  const char* kind() const { return rules->kind; }

  /** The overhead conventions (flat, percent) rather than an engine's own model. */
  bool convention() const { return rules->convention; }

  /** Over several cards, each holds a run of layers (llama.cpp's split, transformers' device_map).
   */
  bool splits_layers() const { return rules->splits_layers; }

  /** `model_type` is listed under the architecture section's `rule`. */
  bool architecture_has(const std::string& rule, const std::string& model_type) const;

  /**
   * How an answer names the engine: a convention is a sentence, the message
   * `engine.<id>` worded with its own default; a product (vLLM, SGLang,
   * llama.cpp) is its name.
   */
  nlohmann::json label() const;
};

std::vector<EngineProfile> engine_profiles_from_json(const nlohmann::json& engines);
const EngineProfile& find_engine(const std::vector<EngineProfile>& engines, const std::string& id,
                                 const std::string& field);

/** What a paged-cache engine (vLLM, SGLang) makes of one GPU. */
struct EngineBudget {
  bool present = false;     ///< false without a GPU to size against
  double usable_bytes = 0;  ///< what CUDA reports as the card's total
  bool usable_estimated = false;
  double reserved_bytes = 0;  ///< the engine's share: usable x utilization
  /** vLLM: a companion server's own share of the card beside the model's (companion.cpp). */
  double companion_reserved_bytes = 0;
  double kv_budget_bytes = 0;     ///< left for the KV cache
  double kv_bytes_per_token = 0;  ///< as the engine pages it, per GPU
  std::int64_t kv_blocks = 0;
  std::int64_t kv_tokens = 0;
  double max_concurrency = 0;  ///< sequences of `context` tokens at once
  bool fits = true;
  /** Attention data-parallel ranks: kv_blocks, kv_tokens and max_concurrency are their sum. */
  int data_parallel = 1;
};

/**
 * An EAGLE-3 head's weights by where they go, in bytes of the model's 16-bit
 * dtype (vLLM builds the drafter in the target's dtype; without a
 * quantization config of its own it is not quantized): the decoder layer
 * (qkv from 2 x hidden, o, the gated MLP) and the output head over
 * draft_vocab tokens, split by tensor parallelism (QKVParallelLinear,
 * ParallelLMHead); the fc (3 x target hidden to hidden, a ReplicatedLinear
 * in vLLM, an nn.Linear in SGLang) and the four RMSNorms with the int64
 * draft-to-target token map, whole on every card.
 */
struct EagleHeadBytes {
  double layer = 0;
  double head = 0;
  double fc = 0;
  double rest = 0;
  std::int64_t draft_vocab = 0;
  std::string repo;  ///< the head's hub repository
};

/** The model, the formats and the shape of the load. */
struct InferenceSetup {
  const ModelSpec* model = nullptr;
  const WeightFormat* weights = nullptr;  ///< nullptr: the checkpoint's own storage
  const KvFormat* kv = nullptr;
  std::int64_t context = 8192;
  std::int64_t batch = 1;
  /** The model's parameter totals when already known (searches reuse them). */
  const ParamTotals* params = nullptr;
  /** The checkpoint's own tensors (checkpoint.hpp): with `weights` null, their exact bytes. */
  const CheckpointWeights* checkpoint = nullptr;
  /** Cards serving the model: llama.cpp splits its layers over them (vLLM and SGLang read their
   * knobs). */
  int gpus = 1;
  /**
   * Memory other processes already hold on each card before the engine
   * starts (what nvidia-smi shows in use): llama.cpp, transformers and
   * SGLang have that much less (a term of the plan); vLLM lowers its share.
   */
  double held_bytes = 0;
  /**
   * Speculative decoding: the draft model and its weights as loaded (a GGUF
   * type asked of the model is the draft's too; else the draft as stored),
   * the KV format llama.cpp gives it (--cache-type-k-draft, F16), and the
   * tokens it drafts a step. None without a draft.
   */
  const ModelSpec* draft = nullptr;
  const WeightsSize* draft_weights = nullptr;
  const KvFormat* draft_kv = nullptr;
  std::int64_t draft_tokens = 0;
  /**
   * The draft is the model's own multi-token-prediction layers (speculative
   * "mtp"): `draft` is then those layers as a model of their own and
   * `draft_weights` their decoder layers, eh_proj and norms in the model's
   * storage. The embedding and the output head are the model's under vLLM and
   * SGLang (draft.cpp).
   */
  bool mtp = false;
  /**
   * The draft is an EAGLE-3 head published for the model (speculative
   * "eagle3", data/models.json "eagle3"): `draft` is its one decoder layer
   * as a model of its own (its KV cache: one layer a token), `draft_weights`
   * the part tensor parallelism splits (the layer and its output head) and
   * `eagle` that part's pieces beside what every card holds whole (the fc
   * and the norms and token map). None otherwise.
   */
  const EagleHeadBytes* eagle = nullptr;
  /**
   * A second model served on the same card (an embedding or reranker model
   * beside this one, under the same engine): its weights as loaded (as the
   * draft's), its KV format (FP16), and the tokens of one of its requests.
   * None without one (engines/companion.cpp).
   */
  const ModelSpec* companion = nullptr;
  const WeightsSize* companion_weights = nullptr;
  const KvFormat* companion_kv = nullptr;
  std::int64_t companion_context = 0;
  /**
   * Images in each request and the tokens each becomes (VisionSpec::
   * tokens_per_image); `context` already holds them. 0 without images.
   */
  std::int64_t images = 0;
  std::int64_t image_tokens = 0;
  /** Patches one image is cut into through the tower (VisionSpec::patches(), or the
   * resized image's for a tower of any resolution). 0 without images. */
  std::int64_t image_patches = 0;
  /**
   * A tower of any resolution (VisionSpec::dynamic): the request's image as
   * smart_resize leaves it, whose pixels bound what vLLM reserves for one
   * image (--mm-processor-kwargs max_pixels). Zero for a fixed-size tower.
   */
  ImageGrid image_grid;
  std::int64_t image_size = 0;  ///< the request's pixels a side, before smart_resize
};

/** An inference answer under one engine: per-GPU terms and the engine's budget. */
struct InferencePlan {
  ParamTotals params;
  WeightsSize weights;  ///< the whole model
  KvCacheSize kv;       ///< the whole model, context x batch
  /** How the engine holds state layers, where not as transformers' cache does (paged, llamacpp). */
  StateStorage state;
  std::vector<Term> terms;  ///< per GPU (the fullest card); the conventions: the whole model
  double total_bytes = 0;   ///< sum of the terms
  int tensor_parallel = 1;
  int pipeline_parallel = 1;
  /** vLLM/SGLang attention data-parallel ranks, each with its own requests and KV cache. */
  int data_parallel = 1;
  bool expert_parallel = false;  ///< routed experts placed whole on the cards of an MoE layer
  /** Cards serving the model: tensor x pipeline x data parallel, or llama.cpp's layer split. */
  int gpus = 1;
  EngineBudget budget;
  std::vector<Message> assumptions;
  std::vector<Message> warnings;
  nlohmann::json options = nlohmann::json::object();  ///< knobs used, defaults filled in
  double host_bytes = 0;  ///< memory the engine keeps on the host (llama.cpp token embeddings)
  /**
   * The companion's server under vLLM or SGLang: its own share of the card
   * (--gpu-memory-utilization, --mem-fraction-static); 0 without one or
   * without a card (engines/companion.cpp).
   */
  double companion_share = 0;
  /** The vision tower's bytes among `weights` that the engine loads apart (llama.cpp's mmproj). */
  double vision_bytes = 0;
  /**
   * A GGUF's multi-token-prediction blocks among `weights` that the engine does not load
   * (llama.cpp: TENSOR_SKIP unless it drafts with them, engines/llamacpp.cpp).
   */
  double mtp_bytes = 0;
};

/**
 * The profile's defaults overlaid with a request's options, each checked
 * against its knob (check_value): an unknown key or an out-of-range value
 * is a named error ("engine_options.block_size"). `prefix` names where the
 * options came from; a key given at the request's top level
 * (overhead_gb) passes an empty prefix.
 */
nlohmann::json engine_options(const EngineProfile& engine, const nlohmann::json& options,
                              const std::string& prefix = "engine_options");

/**
 * Sizes `setup` under `engine` with `options` (as engine_options returns
 * them). `gpu` may be null; then engines that budget a card report no
 * budget. With `explain` false the terms carry numbers only (no formulas,
 * no inputs, no assumptions): the inverse searches call it many times.
 */
InferencePlan plan_inference(const InferenceSetup& setup, const EngineProfile& engine,
                             const nlohmann::json& options, const Gpu* gpu, const GpuCatalog& gpus,
                             const FormatCatalog& formats, bool explain = true);

/**
 * The model as llama.cpp's KV cache sees it under `options` (the llamacpp
 * knobs): sliding layers keep their window plus one ubatch (n_ubatch), or
 * the whole context with kv_full_swa (--swa-full).
 */
ModelSpec llamacpp_cache_model(const ModelSpec& model, const nlohmann::json& options);

/** How weights are stored, part by part: [{component, params, format, bits_per_weight, gb}]. */
nlohmann::json storage_json(const WeightsSize& weights);

/**
 * The routed experts' share of `weights`: their parameters at the bytes per
 * parameter of the part that stores them (the "experts" or "linear" part),
 * else at the average. The rest (attention, dense layers, shared experts,
 * embeddings, router) is what tensor parallelism splits.
 */
double routed_expert_bytes(const WeightsSize& weights, const ParamTotals& params);

/** The weights of `setup`: uniform format, the checkpoint's tensors, or its declared storage. */
WeightsSize setup_weights(const InferenceSetup& setup, const ParamTotals& params,
                          const FormatCatalog& formats);

}  // namespace vram
