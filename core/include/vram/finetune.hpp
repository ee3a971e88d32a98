#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "vram/engine.hpp"
#include "vram/format.hpp"
#include "vram/model.hpp"
#include "vram/params.hpp"

namespace vram {

// Each enum's names, in the enum's order: the request schema's choices and
// the answers' words, from one list.
enum class FinetuneMethod { kFull, kLora, kQlora };
inline constexpr const char* kFinetuneMethodNames[] = {"full", "lora", "qlora"};
enum class Optimizer { kAdamW, kAdamW8bit, kSgd, kAdafactor };
inline constexpr const char* kOptimizerNames[] = {"adamw", "adamw-8bit", "sgd", "adafactor"};
/** "physical" models every term from the architecture; "guide" applies the guide's conventions. */
enum class FinetuneProfile { kPhysical, kGuide };
inline constexpr const char* kFinetuneProfileNames[] = {"physical", "guide"};
/** "mixed": BF16 weights, FP32 master copy and moments (and FP32 LoRA
 * adapters); "bf16": pure BF16 training, no master copy, BF16 moments
 * (torchtune's and PEFT's pure-bf16 recipes). */
enum class Precision { kMixed, kBf16 };
inline constexpr const char* kPrecisionNames[] = {"mixed", "bf16"};
/** "standard" materialises full logits and upcasts them to fp32 (Hugging
 * Face), "chunked" computes them in 8 chunks (torchtune's
 * CEWithChunkedOutputLoss), "fused" never materialises them (Liger, Cut
 * Cross-Entropy). */
enum class Loss { kStandard, kChunked, kFused };
inline constexpr const char* kLossNames[] = {"standard", "chunked", "fused"};

/** The LoRA module names a request may target. */
inline constexpr const char* kLoraModules[] = {"q_proj",    "k_proj",  "v_proj",    "o_proj",
                                               "gate_proj", "up_proj", "down_proj", "experts"};

/**
 * A fine-tuning run. `profile` "physical" models every term from the
 * architecture; "guide" applies the GPU Rent Hub guide's conventions (16
 * bytes per parameter + 15% for full fine-tunes; a 16-bit or 4-bit base
 * counted at 2 or 0.5 bytes per parameter for LoRA and QLoRA).
 */
struct FinetuneSetup {
  const ModelSpec* model = nullptr;
  FinetuneMethod method = FinetuneMethod::kFull;
  FinetuneProfile profile = FinetuneProfile::kPhysical;
  std::int64_t seq = 2048;
  std::int64_t micro_batch = 1;
  Optimizer optimizer = Optimizer::kAdamW;
  /** SGD: torch.optim.SGD keeps a momentum buffer only when momentum > 0
   * (its default is 0). */
  double momentum = 0;
  Precision precision = Precision::kMixed;
  Loss loss = Loss::kStandard;
  /** QLoRA: PEFT's prepare_model_for_kbit_training casts the parameters it
   * does not quantize (embeddings, lm_head, norms) to fp32. */
  bool upcast_unquantized = true;
  std::int64_t lora_rank = 16;
  std::vector<std::string> lora_targets = {"q_proj", "k_proj", "v_proj", "o_proj"};
  bool checkpointing = true;
  bool flash_attention = false;
  int gpus = 1;  ///< data-parallel GPUs the ZeRO stage shards over
  int zero = 0;  ///< ZeRO stage 0..3
  bool offload_optimizer = false;
  /** Runtime: the CUDA context and library handles. 0 means "the profile's
   * default": 1 GB physical (CUDA 12 lazy loading keeps the context near
   * 0.5-1 GB), 2 GB under the guide's convention. */
  double overhead_bytes = 0;
  bool overhead_set = false;
  /** For LoRA: the frozen base's format (default bf16). QLoRA uses nf4. */
  const WeightFormat* base_format = nullptr;
};

/** Bytes per logit during the loss: bf16 output, fp32 upcast, fp32 log-probabilities, fp32
 * gradient. */
inline constexpr double kLogitBytes = 2.0 + 4.0 + 4.0 + 4.0;

/** Bytes per logit for a loss kind: standard 14, chunked 2 + 12/8, fused 0. */
double logit_bytes(Loss loss);

/** The activation memory of one micro-batch, by part. */
struct ActivationSize {
  double per_layer_bytes = 0;   ///< the widest layer's saved tensors plus its backward buffers
  double checkpoint_bytes = 0;  ///< layer inputs kept under checkpointing
  double saved_bytes = 0;       ///< every layer's saved tensors (without checkpointing)
  double transient_bytes = 0;   ///< the widest layer's backward buffers
  double logits_bytes = 0;
  double total_bytes = 0;
};

/**
 * Activations saved for the backward pass, after Korthikanti et al. 2022
 * ("Reducing Activation Recomputation in Large Transformer Models", eq. 1:
 * sbh(34 + 5as/h) bytes per layer for GPT with 16-bit activations and
 * dropout), with each tensor counted at the model's own widths: norm
 * inputs, q/k/v and the attention context, the softmax probabilities, and
 * the MLP's input, gate, up and product (SwiGLU), or k routed experts' for
 * MoE; no dropout masks (modern LLMs train with dropout 0). Eager attention
 * as Hugging Face runs it keeps the softmax in fp32 and a bf16 copy (6
 * bytes per score, the paper's 5as^2b); flash attention keeps none. A
 * frozen linear layer saves no input unless a LoRA adapter sits on it.
 * The backward of a layer adds gradient buffers for its widest tensors (8
 * bytes per score in eager attention; the gate and up outputs). With
 * gradient checkpointing every layer keeps its input (2sbh) and one layer is
 * recomputed at a time. Logits: s x b x vocab x kLogitBytes (the
 * cross-entropy in transformers upcasts logits to fp32).
 */
ActivationSize activation_size(const FinetuneSetup& setup);

/** LoRA adapter parameters: rank x (in + out) per targeted matrix, per layer. */
double lora_params(const ModelSpec& model, std::int64_t rank,
                   const std::vector<std::string>& targets);

/**
 * Bytes of optimizer state per trainable parameter, with fp32 states, as
 * each library allocates it:
 * - AdamW (torch.optim.AdamW): exp_avg and exp_avg_sq, 8.
 * - 8-bit AdamW (bitsandbytes Optimizer2State, block_wise): two uint8 states
 *   and an fp32 absmax per block of 256 for each, 2 + 2 x 4/256.
 * - SGD (torch.optim.SGD): a momentum_buffer only when momentum > 0, 4; else 0.
 * - Adafactor (transformers.optimization.Adafactor, defaults beta1=None):
 *   no first moment; a factored second moment for every 2-D parameter (one
 *   row and one column vector, exp_avg_sq_row/_col) and a full one for 1-D
 *   parameters (the norms): 4 x (rows + cols) / parameters.
 */
double optimizer_bytes_per_param(const FinetuneSetup& setup, double trainable);

struct FinetunePlan {
  ParamTotals params;
  double trainable_params = 0;
  double adapter_params = 0;
  double weights_bytes = 0;  ///< base or trainable weights on the GPU
  double adapter_bytes = 0;  ///< LoRA weights (fp32)
  double gradients_bytes = 0;
  double optimizer_bytes = 0;  ///< moments + master copy, on the GPU
  ActivationSize activations;
  double overhead_bytes = 0;
  double host_bytes = 0;   ///< optimizer state offloaded to host RAM
  double total_bytes = 0;  ///< per GPU
  std::vector<Term> terms;
  std::vector<Message> assumptions;
};

/** Per-GPU memory of one training step. Throws vram::Error on bad setups. */
FinetunePlan plan_finetune(const FinetuneSetup& setup, const FormatCatalog& formats,
                           bool explain = true);

const char* to_string(FinetuneMethod method);
const char* to_string(Optimizer optimizer);
const char* to_string(FinetuneProfile profile);
const char* to_string(Precision precision);
const char* to_string(Loss loss);

}  // namespace vram
