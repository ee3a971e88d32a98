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
/** "adamw" is torch.optim.AdamW as constructed by default (the foreach
 * implementation on CUDA), "adamw-fused" the same with fused=True. */
enum class Optimizer { kAdamW, kAdamWFused, kAdamW8bit, kSgd, kAdafactor };
inline constexpr const char* kOptimizerNames[] = {"adamw", "adamw-fused", "adamw-8bit", "sgd",
                                                  "adafactor"};
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
 * counted at 2 or 0.5 bytes per parameter for LoRA and QLoRA). Built from
 * a request (requests.hpp finetune_setup): every default is the request
 * schema's, and the initialisers below are empty values, not defaults.
 */
struct FinetuneSetup {
  const ModelSpec* model = nullptr;
  FinetuneMethod method = FinetuneMethod::kFull;
  FinetuneProfile profile = FinetuneProfile::kPhysical;
  std::int64_t seq = 0;
  std::int64_t micro_batch = 0;
  Optimizer optimizer = Optimizer::kAdamW;
  /** SGD: torch.optim.SGD keeps a momentum buffer only when momentum > 0
   * (its default is 0). */
  double momentum = 0;
  Precision precision = Precision::kMixed;
  Loss loss = Loss::kStandard;
  /** QLoRA: PEFT's prepare_model_for_kbit_training casts the parameters it
   * does not quantize (embeddings, lm_head, norms) to fp32. */
  bool upcast_unquantized = false;
  std::int64_t lora_rank = 0;
  std::vector<std::string> lora_targets;
  bool checkpointing = false;
  bool flash_attention = false;
  int gpus = 0;  ///< data-parallel GPUs the ZeRO stage shards over
  int zero = 0;  ///< ZeRO stage 0..3
  bool offload_optimizer = false;
  /** Runtime: the CUDA context and library handles. 0 means "the profile's
   * default": 1 GB physical (CUDA 12 lazy loading keeps the context near
   * 0.5-1 GB), 2 GB under the guide's convention. */
  double overhead_bytes = 0;
  bool overhead_set = false;
  /** The physical profile's runtime when not set: the CUDA context with
   * cuBLAS loaded (the transformers profile's non_torch_gib, measured). */
  double context_bytes = 0;
  /** For LoRA: the frozen base's format (default bf16). QLoRA uses nf4. */
  const WeightFormat* base_format = nullptr;
};

/**
 * Bytes per logit at the loss's backward, when the caller keeps only the
 * loss (the Trainer's compute_loss, a plain training loop): transformers'
 * ForCausalLMLoss upcasts the logits to fp32 and cross_entropy saves the
 * fp32 log-softmax output (4); its backward adds the gradient of the
 * log-probabilities (4) and of the logits (4), fp32. The bf16 logits are
 * freed by then (the upcast saves nothing for backward).
 */
inline constexpr double kLogitBytes = 4.0 + 4.0 + 4.0;

/** Bytes per logit for a loss kind: standard 12, chunked 2 + 12/8, fused 0. */
double logit_bytes(Loss loss);

/** The same for a setup: the loss kind's, plus 2 for a model that soft-caps its logits. */
double loss_bytes_per_logit(const FinetuneSetup& setup);

/** The activation memory of one micro-batch, by part. */
struct ActivationSize {
  double per_layer_bytes = 0;   ///< the widest layer's saved tensors plus its backward buffers
  double checkpoint_bytes = 0;  ///< layer inputs kept under checkpointing
  double saved_bytes = 0;       ///< every layer's saved tensors (without checkpointing)
  double transient_bytes = 0;   ///< the widest layer's backward buffers
  double logits_bytes = 0;      ///< the loss's buffers at its backward
  /** QLoRA's upcast: the fp32 LM head's bf16 copy under autocast, beside the loss's buffers
   * (a weight's copy, not an activation: the physical profile adds it, total_bytes does not). */
  double head_copy_bytes = 0;
  double residual_bytes = 2;  ///< bytes per element of the residual stream (4: QLoRA upcast)
  double stored_bytes =
      0;  ///< what the forward pass leaves: checkpoints or every layer's saved tensors
  double backward_layer_bytes =
      0;  ///< the layer in backward: recomputed (checkpointing) or its buffers
  /** The activations' peak: stored + max(loss, layer in backward). */
  double total_bytes = 0;
};

/**
 * Activations saved for the backward pass, after Korthikanti et al. 2022
 * ("Reducing Activation Recomputation in Large Transformer Models", eq. 1),
 * with each tensor counted at the model's own widths and as transformers,
 * PEFT and torch allocate it: RMSNorm's fp32 copy of its input (4 bytes,
 * and the bf16 normalised tensor when the norm's weight trains), q/k/v and
 * the flash/efficient SDPA output, o_proj's contiguous input, the MLP's
 * gate, activation and up outputs (SwiGLU: 3 x width) and down's input, or
 * k routed experts' for MoE; no dropout masks. Eager attention keeps the
 * softmax in fp32 and a bf16 copy (6 bytes per score, 8 with Gemma 2's
 * soft-capping); flash attention keeps none. A frozen linear layer saves no
 * input; a LoRA adapter saves its own (an fp32 copy per adapted module
 * when the adapters are fp32, PEFT's default; the shared bf16 input
 * otherwise). QLoRA with PEFT's upcast runs under the Trainer's BF16
 * autocast over an fp32 residual stream, where PEFT's 4-bit layers do not
 * cast: one autocast bf16 copy per adapted module, the MLP's intermediates
 * fp32 (bitsandbytes returns its input's dtype), and the fp32 LM head's
 * bf16 copy beside the loss (head_copy_bytes). With gradient
 * checkpointing every layer keeps its input
 * (2 bytes, 4 for QLoRA's fp32 residual stream) and one layer is recomputed
 * at a time. The loss: s x b x vocab x loss_bytes_per_logit. The peak
 * (total_bytes) is what the forward pass stored plus the larger of the
 * loss and the layer in backward: the loss runs its backward first.
 */
ActivationSize activation_size(const FinetuneSetup& setup);

/** LoRA adapter parameters: rank x (in + out) per targeted matrix, per layer. */
double lora_params(const ModelSpec& model, std::int64_t rank,
                   const std::vector<std::string>& targets);

/**
 * Bytes of optimizer state per trainable parameter, with fp32 states, as
 * each library allocates it:
 * - AdamW (torch.optim.AdamW, foreach or fused): exp_avg and exp_avg_sq, 8.
 * - 8-bit AdamW (bitsandbytes Optimizer2State, block_wise): two uint8 states
 *   and an fp32 absmax per block of 256 for each, 2 + 2 x 4/256.
 * - SGD (torch.optim.SGD): a momentum_buffer only when momentum > 0, 4; else 0.
 * - Adafactor (transformers.optimization.Adafactor, defaults beta1=None):
 *   no first moment; a factored second moment for every 2-D parameter (one
 *   row and one column vector, exp_avg_sq_row/_col) and a full one for 1-D
 *   parameters (the norms): 4 x (rows + cols) / parameters, FP32 under pure
 *   BF16 too (the state is made like the gradient after grad.float()).
 */
double optimizer_bytes_per_param(const FinetuneSetup& setup, double trainable);

/**
 * Bytes per trainable parameter the optimizer's step allocates for its own
 * time: torch.optim.AdamW's foreach implementation (its default on CUDA)
 * computes sqrt(exp_avg_sq) for every parameter at once
 * (torch/optim/adamw.py, _multi_tensor_adam: exp_avg_sq_sqrt =
 * torch._foreach_sqrt(device_exp_avg_sqs)), one moment's size; the fused
 * kernel and the others update in place or per parameter, 0. Adafactor's
 * step buffers scale with its largest parameter, not with every one: the
 * fine-tuning plan counts them on their own (core/src/finetune/optimizer.cpp,
 * adafactor_step_bytes).
 */
double optimizer_step_bytes_per_param(const FinetuneSetup& setup, double trainable);

struct FinetunePlan {
  ParamTotals params;
  double trainable_params = 0;
  double adapter_params = 0;
  double weights_bytes = 0;  ///< base or trainable weights on the GPU
  double adapter_bytes = 0;  ///< LoRA weights (fp32)
  double gradients_bytes = 0;
  double optimizer_bytes = 0;  ///< moments + master copy, on the GPU
  ActivationSize activations;
  double backward_bytes =
      0;                  ///< what the backward pass and the step add beyond the loss (physical)
  double step_bytes = 0;  ///< the optimizer step's own buffers
  /** PyTorch's allocator peak (torch.cuda.max_memory_allocated): the total
   * without the runtime and the allocator's reserve. */
  double allocator_peak_bytes = 0;
  double overhead_bytes = 0;  ///< CUDA context and cuBLAS workspace
  double reserve_bytes = 0;   ///< the caching allocator's reserve beyond its peak (physical)
  double host_bytes = 0;      ///< optimizer state offloaded to host RAM
  /** Per GPU. Physical: what the device holds (allocator peak + runtime +
   * reserve, nvidia-smi's figure); guide: the guide's sum. */
  double total_bytes = 0;
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
