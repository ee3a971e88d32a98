#pragma once

// The fine-tuning core's own pieces (core/src/finetune/), private to it. A
// plan is computed in two steps: the numbers first, into a Sizing (states.cpp
// by method, guide.cpp and physical.cpp by profile, each mechanism in its own
// function), then the words, built from the Sizing alone (explain.cpp).

#include <cstdint>
#include <string>
#include <vector>

#include "vram/engine.hpp"
#include "vram/finetune.hpp"
#include "vram/format.hpp"
#include "vram/inference.hpp"
#include "vram/message.hpp"
#include "vram/model.hpp"
#include "widen.hpp"

namespace vram::finetune {

// --- the model's widths (widths.cpp) -----------------------------------------

/** Which LoRA modules a target list names: looked up once, not per layer and module. */
struct Targeted {
  bool q_proj, k_proj, v_proj, o_proj, gate_proj, up_proj, down_proj, experts;
};
Targeted targeted(const std::vector<std::string>& targets);

/** Widths of the attention projections: in and out of q, k, v and o. */
struct AttentionWidths {
  double q_in, q_out, k_in, k_out, v_in, v_out, o_in, o_out;
};
AttentionWidths attention_widths(const ModelSpec& model, LayerAttention kind);

// --- what is stored and what trains, by method (states.cpp) -------------------

/** How the frozen or trained base is stored, for its words. */
enum class BaseFormat {
  kBf16,       ///< full fine-tunes, and LoRA over the default base
  kGuide4Bit,  ///< QLoRA under the guide: 0.5 bytes per parameter
  kNf4,        ///< QLoRA: bitsandbytes' NF4 with its constants
  kNamed,      ///< LoRA over a base in the request's format
};

struct BaseWeights {
  BaseFormat format = BaseFormat::kBf16;
  const WeightFormat* named = nullptr;  ///< the format for kNf4 and kNamed
  double bytes_per_param = 2.0;
  /** A format that covers the linear layers only: the rest kept 16-bit (or
   * 32-bit under QLoRA's upcast). */
  bool split = false;
  double linear_params = 0;
  double kept_params = 0;
  double kept_bytes_per_param = 0;
  double bytes = 0;  ///< before ZeRO-3's sharding
};

/** ZeRO's shard counts (Rajbhandari et al. 2020): stage 1 shards optimizer
 * state, 2 also gradients, 3 also the weights, over the data-parallel GPUs. */
struct Shards {
  double optimizer = 1;
  double gradients = 1;
  double weights = 1;
};

/** Model states per GPU: weights, adapter, gradients and optimizer state. */
struct States {
  ParamTotals params;
  double trainable_params = 0;
  double adapter_params = 0;
  double adapter_share_pct = 0;  ///< adapter parameters per 100 of the model's
  BaseWeights base;
  double adapter_bytes_per_param = 0;   ///< FP32 (mixed) or BF16 (pure)
  double gradient_bytes_per_param = 0;  ///< per trainable parameter
  double master_bytes_per_param = 0;    ///< the FP32 master copy of a full fine-tune
  double state_bytes_per_param = 0;     ///< the optimizer's moments
  /** LoRA: an adapter parameter's weight, gradient and optimizer state. */
  double lora_bytes_per_param = 0;
  Shards shards;
  double weights_bytes = 0;
  double adapter_bytes = 0;
  double gradients_bytes = 0;
  double optimizer_bytes = 0;  ///< on the GPU: 0 when offloaded
  double optimizer_unsharded_bytes = 0;
  double host_bytes = 0;  ///< optimizer state offloaded to host RAM
};

States size_states(const FinetuneSetup& setup, const FormatCatalog& formats);

// --- the optimizer (optimizer.cpp) ------------------------------------------

/** The optimizer's state per trainable parameter at the setup's precision. */
double state_bytes_per_param(const FinetuneSetup& setup, double trainable);
/** Adafactor's step: FP32 tensors the size of the largest parameter held at once. */
int adafactor_step_buffers(const FinetuneSetup& setup);
/** The optimizer step's own buffers on each GPU (optimizer_step_bytes_per_param). */
double step_bytes(const FinetuneSetup& setup, double trainable, double optimizer_shards);

// --- the peak, by profile (guide.cpp, physical.cpp) --------------------------

/** The parts the total sums, in the order the answer lists them. */
enum class Part {
  kWeights,
  kAdapter,
  kGradients,
  kOptimizer,
  kGuideExtra,         ///< guide, full: a share of the states
  kSummedActivations,  ///< guide, LoRA: stored activations + the layer in backward
  kStoredActivations,  ///< physical: what the forward pass stored
  kLogits,
  kHeadCopy,  ///< physical, QLoRA's upcast: the LM head's bf16 copy under autocast
  kBackward,
  kOverhead,
  kReserve,
};

struct SizedPart {
  Part part;
  double bytes;
};

/** The caching allocator's reserve (physical.cpp, allocator_reserve). */
struct Reserve {
  double freed_share = 0;
  double freed_bytes = 0;
  double gradient_share = 0;
  double gradient_bytes = 0;
  double bytes = 0;
};

/** Every number of a plan, before any word about it. */
struct Sizing {
  States states;
  ActivationSize activations;
  double guide_extra_pct = 0;  ///< guide, full
  double guide_states_bytes = 0;
  double step_bytes = 0;      ///< physical: the optimizer step's own buffers
  double backward_bytes = 0;  ///< physical: beyond the stored activations and the loss
  Reserve reserve;
  double overhead_bytes = 0;
  double allocator_peak_bytes = 0;
  std::vector<SizedPart> parts;
  double total_bytes = 0;  ///< the parts' sum, in their order
};

void size_guide_full(Sizing& sizing);
void size_guide_adapters(const FinetuneSetup& setup, Sizing& sizing);
void size_physical(const FinetuneSetup& setup, Sizing& sizing);

// --- the words (explain.cpp) ---------------------------------------------------

/** The answer's terms, one per part; formulas and inputs only when `explain`. */
std::vector<Term> terms(const FinetuneSetup& setup, const Sizing& sizing, bool explain);
std::vector<Message> assumptions(const FinetuneSetup& setup, const Sizing& sizing);

}  // namespace vram::finetune
