// The physical profile: the allocator's peak during one step, the runtime
// and the caching allocator's reserve (FinetuneProfile::kPhysical).
#include <algorithm>

#include "sizing.hpp"

namespace vram::finetune {

namespace {

/**
 * The caching allocator's reserve: what the device holds beyond the
 * allocator's peak, in blocks it cached and could not reuse (PyTorch's
 * CUDACachingAllocator keeps freed blocks in their segments and splits them
 * for later requests; a request no free block fits gets a new segment). Two
 * sources, each a share of the tensors behind it:
 * - with checkpointing, the blocks freed before the layers are recomputed
 *   (one fp32 copy of the logits, from the loss) and the recomputed
 *   layer's, which the next requests, sized differently, only partly
 *   refill: kReserveFreedShare of both;
 * - a full fine-tune's gradients, one per weight matrix, created during
 *   backward among the fragments the freed activations leave:
 *   kReserveGradientShare of them (a LoRA's adapter gradients are small and
 *   fit the free blocks).
 * Fitted on the 18 H200 device runs (tests/validation/cases/h200-*-device,
 * beside their -allocated pairs), checked on the 11 public device cases
 * (the gpt-oss-20b cookbook, LLaMA-Factory): docs/accuracy.md.
 */
constexpr double kReserveFreedShare = 0.6;
constexpr double kReserveGradientShare = 0.9;

/** Blocks freed before the recomputed layers: an fp32 copy of the logits and one layer. */
double freed_bytes(const FinetuneSetup& s, const ActivationSize& a) {
  if (!s.checkpointing) return 0.0;
  const double fp32_logits =
      a.logits_bytes > 0 ? a.logits_bytes / loss_bytes_per_logit(s) * 4.0 : 0.0;
  return std::min(fp32_logits, a.logits_bytes) + a.per_layer_bytes;
}

/** Gradients created among the fragments: a full fine-tune's only. */
double reserve_gradient_bytes(const FinetuneSetup& s, double grads) {
  return s.method == FinetuneMethod::kFull ? grads : 0.0;
}

Reserve allocator_reserve(const FinetuneSetup& s, const ActivationSize& a, double grads) {
  Reserve r;
  r.freed_share = kReserveFreedShare;
  r.freed_bytes = freed_bytes(s, a);
  r.gradient_share = kReserveGradientShare;
  r.gradient_bytes = reserve_gradient_bytes(s, grads);
  r.bytes = kReserveFreedShare * r.freed_bytes + kReserveGradientShare * r.gradient_bytes;
  return r;
}

/**
 * What the backward pass and the step add beyond the stored activations and
 * the loss: the largest of the layer in backward (on top of the stored
 * activations), and the gradients as they appear (with the layer, then with
 * the step's buffers). zero_grad() sets gradients to None
 * (torch.optim.Optimizer.zero_grad, set_to_none=True since PyTorch 2.0), so
 * each is created during backward as the activations it needs are freed; at
 * the end of backward every gradient exists and only the last layer's
 * activations remain. The optimizer's step runs once backward has freed
 * every activation.
 */
double backward_bytes(const ActivationSize& a, double grads, double step) {
  const double after_loss = std::max(
      {a.stored_bytes + a.backward_layer_bytes, grads + a.backward_layer_bytes, grads + step});
  return std::max(0.0, after_loss - a.stored_bytes - a.logits_bytes - a.head_copy_bytes);
}

}  // namespace

void size_physical(const FinetuneSetup& s, Sizing& z) {
  const States& st = z.states;
  z.activations = activation_size(s);
  const ActivationSize& a = z.activations;
  z.step_bytes = step_bytes(s, st.trainable_params, st.shards.optimizer);
  z.backward_bytes = backward_bytes(a, st.gradients_bytes, z.step_bytes);
  // The allocator's peak: what the forward pass stored, then the largest of
  // the loss's buffers (with QLoRA's bf16 copy of the LM head beside them),
  // the layer in backward, and the gradients as they appear (the gradients
  // count there, not as a term of their own).
  z.allocator_peak_bytes = st.weights_bytes + st.adapter_bytes + st.optimizer_bytes +
                           a.stored_bytes + a.logits_bytes + a.head_copy_bytes + z.backward_bytes;
  // The runtime: the CUDA context with cuBLAS, unless the request sets it.
  z.overhead_bytes = s.overhead_set ? s.overhead_bytes : s.context_bytes;
  z.reserve = allocator_reserve(s, a, st.gradients_bytes);
  z.parts.push_back({Part::kWeights, st.weights_bytes});
  if (s.method != FinetuneMethod::kFull) z.parts.push_back({Part::kAdapter, st.adapter_bytes});
  z.parts.push_back({Part::kOptimizer, st.optimizer_bytes});
  z.parts.push_back({Part::kStoredActivations, a.stored_bytes});
  z.parts.push_back({Part::kLogits, a.logits_bytes});
  if (a.head_copy_bytes > 0) z.parts.push_back({Part::kHeadCopy, a.head_copy_bytes});
  z.parts.push_back({Part::kBackward, z.backward_bytes});
  z.parts.push_back({Part::kOverhead, z.overhead_bytes});
  z.parts.push_back({Part::kReserve, z.reserve.bytes});
}

}  // namespace vram::finetune
