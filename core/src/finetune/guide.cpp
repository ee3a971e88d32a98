// The guide's profile: its conventions, summed (FinetuneProfile::kGuide).
#include "sizing.hpp"

namespace vram::finetune {

namespace {

/** The guide's runtime for LoRA and QLoRA, when the request sets none. */
constexpr double kGuideOverheadBytes = 2e9;

/** The guide's full fine-tune: activations and fragmentation as a share of the states. */
constexpr double kGuideExtraPercent = 15.0;

}  // namespace

void size_guide_full(Sizing& z) {
  // 16 bytes per parameter, then +15% for activations and fragmentation,
  // whatever the sequence.
  const States& st = z.states;
  z.guide_states_bytes = st.weights_bytes + st.gradients_bytes + st.optimizer_bytes;
  z.guide_extra_pct = kGuideExtraPercent;
  const double extra = kGuideExtraPercent / 100.0 * z.guide_states_bytes;
  z.activations.total_bytes = extra;
  z.overhead_bytes = 0;
  z.allocator_peak_bytes = z.guide_states_bytes + extra;
  z.parts = {{Part::kWeights, st.weights_bytes},
             {Part::kGradients, st.gradients_bytes},
             {Part::kOptimizer, st.optimizer_bytes},
             {Part::kGuideExtra, extra}};
}

void size_guide_adapters(const FinetuneSetup& s, Sizing& z) {
  // The guide's LoRA and QLoRA rows: every term summed, 2 GB of runtime.
  const States& st = z.states;
  z.activations = activation_size(s);
  const ActivationSize& a = z.activations;
  const double summed = a.stored_bytes + a.backward_layer_bytes;
  z.overhead_bytes = s.overhead_set ? s.overhead_bytes : kGuideOverheadBytes;
  z.allocator_peak_bytes = st.weights_bytes + st.adapter_bytes + st.gradients_bytes +
                           st.optimizer_bytes + summed + a.logits_bytes;
  z.parts = {{Part::kWeights, st.weights_bytes},     {Part::kAdapter, st.adapter_bytes},
             {Part::kGradients, st.gradients_bytes}, {Part::kOptimizer, st.optimizer_bytes},
             {Part::kSummedActivations, summed},     {Part::kLogits, a.logits_bytes},
             {Part::kOverhead, z.overhead_bytes}};
}

}  // namespace vram::finetune
