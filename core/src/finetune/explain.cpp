// The words of a fine-tuning plan: each part's term (label, formula and
// inputs) and the plan's assumptions, built from its Sizing alone. The
// formulas' params are the numbers the Sizing holds, so the text cannot
// disagree with the value (tests/cpp/test_formulas.cpp re-evaluates them).
#include <string>
#include <utility>

#include "sizing.hpp"
#include "vram/json_object.hpp"
#include "vram/units.hpp"

namespace vram::finetune {

using nlohmann::json;

namespace {

/** A term whose formula is `inner` = bytes, or `inner` / GPUs (ZeRO-n) = bytes when sharded. */
Term make_term(const char* id, Message label, double bytes, bool explain, Message inner,
               double shards = 1, int zero = 0, json inputs = json::object()) {
  if (!explain) return {id, std::move(label), bytes, {}, {}};
  Message formula =
      shards > 1 ? Message{"formula.sharded", obj({{"inner", std::move(inner)},
                                                   {"gpus", shards},
                                                   {"zero", zero},
                                                   {"bytes", bytes}})}
                 : Message{"formula.total", obj({{"inner", std::move(inner)}, {"bytes", bytes}})};
  return {id, std::move(label), bytes, std::move(formula), std::move(inputs)};
}

Message named(const std::string& name) { return {"format.named", obj({{"name", name}})}; }

Message base_format(const BaseWeights& b) {
  switch (b.format) {
    case BaseFormat::kGuide4Bit:
      return {"format.guide_4bit"};
    case BaseFormat::kNf4:
      return {"format.with_constants",
              obj({{"name", b.named->name}, {"bits", b.named->bits_per_weight}})};
    case BaseFormat::kNamed:
      return named(b.named->name);
    case BaseFormat::kBf16:
      break;
  }
  return named("BF16");
}

Message adapter_format(const FinetuneSetup& s) {
  return named(s.precision == Precision::kBf16 ? "BF16" : "FP32");
}

Message enum_word(const char* prefix, const char* name) { return {std::string(prefix) + name}; }

Message on_off(bool on) { return {on ? "word.on" : "word.off"}; }

/** The optimizer as counted: SGD with or without its momentum buffer, Adafactor factored. */
Message optimizer_word(const FinetuneSetup& s) {
  if (s.optimizer == Optimizer::kSgd) {
    if (s.momentum <= 0) return {"optimizer.sgd_no_state"};
    return {"optimizer.sgd_momentum",
            obj({{"momentum", s.momentum}, {"format", adapter_format(s)}})};
  }
  if (s.optimizer == Optimizer::kAdafactor) return {"optimizer.adafactor_factored"};
  return enum_word("optimizer.", to_string(s.optimizer));
}

Term weights_term(const FinetuneSetup& s, const States& st, double bytes, bool explain) {
  const bool full = s.method == FinetuneMethod::kFull;
  const BaseWeights& b = st.base;
  const double P = st.params.total;
  Message formula{
      "formula.ft_params",
      obj({{"params", P}, {"bytes_per_param", b.bytes_per_param}, {"format", base_format(b)}})};
  if (b.split) {
    formula = {"formula.ft_qlora_base", obj({{"linear", b.linear_params},
                                             {"bytes_per_param", b.bytes_per_param},
                                             {"format", base_format(b)},
                                             {"kept", b.kept_params},
                                             {"kept_bytes", b.kept_bytes_per_param}})};
  }
  return make_term("weights", {full ? "term.weights_bf16" : "term.frozen_base"}, bytes, explain,
                   std::move(formula), st.shards.weights, s.zero,
                   obj({{"params", P}, {"bytes_per_param", full ? 2.0 : b.bytes_per_param}}));
}

Term adapter_term(const FinetuneSetup& s, const States& st, double bytes, bool explain) {
  const double T = st.trainable_params;
  return make_term(
      "adapter", {"term.adapter", obj({{"format", adapter_format(s)}})}, bytes, explain,
      {"formula.ft_adapter", obj({{"params", T},
                                  {"rank", s.lora_rank},
                                  {"share", st.adapter_share_pct},
                                  {"bytes_per_param", st.adapter_bytes_per_param}})},
      st.shards.weights, s.zero,
      obj({{"adapter_params", T}, {"rank", s.lora_rank}, {"targets", s.lora_targets}}));
}

Term gradients_term(const FinetuneSetup& s, const States& st, double bytes, bool explain) {
  const double bpp = st.gradient_bytes_per_param;
  return make_term(
      "gradients", {"term.gradients"}, bytes, explain,
      {"formula.ft_trainable", obj({{"params", st.trainable_params}, {"bytes_per_param", bpp}})},
      st.shards.gradients, s.zero, obj({{"bytes_per_param", bpp}}));
}

Term optimizer_term(const FinetuneSetup& s, const States& st, double bytes, bool explain) {
  const Message formula =
      s.offload_optimizer
          ? Message{"formula.ft_offloaded", obj({{"host", st.optimizer_unsharded_bytes}})}
          : Message{"formula.ft_optimizer", obj({{"params", st.trainable_params},
                                                 {"master", st.master_bytes_per_param},
                                                 {"state", st.state_bytes_per_param},
                                                 {"optimizer", optimizer_word(s)}})};
  return make_term("optimizer", {"term.optimizer"}, bytes, explain, formula,
                   s.offload_optimizer ? 1 : st.shards.optimizer, s.zero,
                   obj({{"optimizer", to_string(s.optimizer)},
                        {"master_bytes", st.master_bytes_per_param},
                        {"state_bytes", st.state_bytes_per_param}}));
}

Term guide_extra_term(const Sizing& z, double bytes, bool explain) {
  return make_term("activations", {"term.activations_guide"}, bytes, explain,
                   {"formula.ft_guide_extra",
                    obj({{"pct", z.guide_extra_pct}, {"states", z.guide_states_bytes}})});
}

json activation_inputs(const FinetuneSetup& s, const ActivationSize& a) {
  return obj({{"seq", s.seq},
              {"micro_batch", s.micro_batch},
              {"checkpointing", s.checkpointing},
              {"flash_attention", s.flash_attention},
              {"per_layer_gb", bytes_to_gb(a.per_layer_bytes)}});
}

/** The guide's activations: what the forward pass stored and the layer in backward. */
Term summed_activations_term(const FinetuneSetup& s, const ActivationSize& a, double bytes,
                             bool explain) {
  const ModelSpec& m = *s.model;
  return make_term("activations", {"term.activations"}, bytes, explain,
                   s.checkpointing
                       ? Message{"formula.ft_checkpointed", obj({{"layers", m.num_layers()},
                                                                 {"inputs", a.checkpoint_bytes},
                                                                 {"layer", a.per_layer_bytes},
                                                                 {"seq", s.seq},
                                                                 {"batch", s.micro_batch}})}
                       : Message{"formula.ft_saved", obj({{"saved", a.saved_bytes},
                                                          {"transient", a.transient_bytes},
                                                          {"seq", s.seq},
                                                          {"batch", s.micro_batch}})},
                   1, 0, activation_inputs(s, a));
}

/** Physical: what the forward pass stored (the layers' inputs under checkpointing). */
Term stored_activations_term(const FinetuneSetup& s, const ActivationSize& a, double bytes,
                             bool explain) {
  const ModelSpec& m = *s.model;
  return make_term(
      "activations", {"term.activations"}, bytes, explain,
      s.checkpointing
          ? Message{"formula.ft_stored_checkpointed", obj({{"layers", m.num_layers()},
                                                           {"hidden", m.hidden_size},
                                                           {"element_bytes", a.residual_bytes},
                                                           {"seq", s.seq},
                                                           {"batch", s.micro_batch}})}
          : Message{"formula.ft_stored_saved",
                    obj({{"saved", a.saved_bytes}, {"seq", s.seq}, {"batch", s.micro_batch}})},
      1, 0, activation_inputs(s, a));
}

Term logits_term(const FinetuneSetup& s, double bytes, bool explain) {
  return make_term("logits", {"term.logits"}, bytes, explain,
                   {"formula.ft_logits", obj({{"seq", s.seq},
                                              {"batch", s.micro_batch},
                                              {"vocab", s.model->vocab_size},
                                              {"bytes_per_logit", loss_bytes_per_logit(s)},
                                              {"loss", enum_word("loss.", to_string(s.loss))}})});
}

/** QLoRA's upcast: the fp32 LM head cast to bf16 by autocast, kept for the loss's backward. */
Term head_copy_term(const FinetuneSetup& s, double bytes, bool explain) {
  const ModelSpec& m = *s.model;
  return make_term(
      "lm_head_copy", {"term.lm_head_copy"}, bytes, explain,
      {"formula.ft_lm_head_copy",
       obj({{"vocab", m.vocab_size}, {"hidden", m.hidden_size}, {"element_bytes", 2.0}})});
}

Term backward_term(const Sizing& z, double bytes, bool explain) {
  const ActivationSize& a = z.activations;
  const double grads = z.states.gradients_bytes;
  return make_term("backward", {"term.backward"}, bytes, explain,
                   {"formula.ft_backward", obj({{"layer", a.backward_layer_bytes},
                                                {"grads", grads},
                                                {"step", z.step_bytes},
                                                {"stored", a.stored_bytes},
                                                {"loss", a.logits_bytes + a.head_copy_bytes}})},
                   1, 0,
                   obj({{"gradients_gb", bytes_to_gb(grads)},
                        {"layer_gb", bytes_to_gb(a.backward_layer_bytes)},
                        {"step_gb", bytes_to_gb(z.step_bytes)}}));
}

Term overhead_term(const FinetuneSetup& s, double bytes, bool explain) {
  const char* formula = s.overhead_set                         ? "formula.ft_overhead_set"
                        : s.profile == FinetuneProfile::kGuide ? "formula.ft_overhead_guide"
                                                               : "formula.ft_overhead";
  return make_term("overhead", {"term.overhead"}, bytes, explain,
                   {formula, obj({{"bytes", bytes}})});
}

Term reserve_term(const Reserve& r, double bytes, bool explain) {
  return make_term("reserve", {"term.reserve"}, bytes, explain,
                   {"formula.ft_reserve", obj({{"freed_share", r.freed_share},
                                               {"freed", r.freed_bytes},
                                               {"grads_share", r.gradient_share},
                                               {"grads", r.gradient_bytes},
                                               {"bytes", r.bytes}})});
}

Term term(const FinetuneSetup& s, const Sizing& z, SizedPart p, bool explain) {
  switch (p.part) {
    case Part::kWeights:
      return weights_term(s, z.states, p.bytes, explain);
    case Part::kAdapter:
      return adapter_term(s, z.states, p.bytes, explain);
    case Part::kGradients:
      return gradients_term(s, z.states, p.bytes, explain);
    case Part::kOptimizer:
      return optimizer_term(s, z.states, p.bytes, explain);
    case Part::kGuideExtra:
      return guide_extra_term(z, p.bytes, explain);
    case Part::kSummedActivations:
      return summed_activations_term(s, z.activations, p.bytes, explain);
    case Part::kStoredActivations:
      return stored_activations_term(s, z.activations, p.bytes, explain);
    case Part::kLogits:
      return logits_term(s, p.bytes, explain);
    case Part::kHeadCopy:
      return head_copy_term(s, p.bytes, explain);
    case Part::kBackward:
      return backward_term(z, p.bytes, explain);
    case Part::kOverhead:
      return overhead_term(s, p.bytes, explain);
    case Part::kReserve:
      break;
  }
  return reserve_term(z.reserve, p.bytes, explain);
}

}  // namespace

std::vector<Term> terms(const FinetuneSetup& s, const Sizing& z, bool explain) {
  std::vector<Term> out;
  out.reserve(z.parts.size());
  for (const SizedPart& p : z.parts) out.push_back(term(s, z, p, explain));
  return out;
}

std::vector<Message> assumptions(const FinetuneSetup& s, const Sizing& z) {
  const States& st = z.states;
  std::vector<Message> a;
  a.push_back({"assumption.finetune_setup",
               obj({{"method", enum_word("mode.", to_string(s.method))},
                    {"profile", enum_word("profile.", to_string(s.profile))},
                    {"precision", enum_word("precision.", to_string(s.precision))},
                    {"optimizer", optimizer_word(s)},
                    {"seq", s.seq},
                    {"micro_batch", s.micro_batch},
                    {"checkpointing", on_off(s.checkpointing)},
                    {"flash_attention", on_off(s.flash_attention)}})});
  if (s.method != FinetuneMethod::kFull) {
    // Bytes per adapter parameter: its weight, its gradient and its optimizer state.
    a.push_back({"assumption.lora", obj({{"rank", s.lora_rank},
                                         {"targets", s.lora_targets},
                                         {"params", st.trainable_params},
                                         {"share", st.adapter_share_pct},
                                         {"format", adapter_format(s)},
                                         {"bytes", st.lora_bytes_per_param}})});
  }
  if (s.method == FinetuneMethod::kQlora && s.upcast_unquantized) {
    // Under the Trainer's autocast over the upcast's fp32 stream: how the
    // 4-bit layers' adapters save their inputs and the MLP's fp32
    // intermediates (activations.cpp), and the LM head's copy (physical).
    a.push_back({"assumption.qlora_autocast"});
    if (z.activations.head_copy_bytes > 0 && s.profile == FinetuneProfile::kPhysical) {
      a.push_back({"assumption.qlora_head_copy", obj({{"bytes", z.activations.head_copy_bytes}})});
    }
  }
  if (s.optimizer == Optimizer::kAdafactor && z.step_bytes > 0) {
    // The step's FP32 buffers for its largest parameter (optimizer.cpp, adafactor_step_bytes).
    a.push_back({"assumption.adafactor_step",
                 obj({{"buffers", adafactor_step_buffers(s)}, {"bytes", z.step_bytes}})});
  }
  if (s.gpus > 1 || s.zero > 0) {
    a.push_back({"assumption.zero", obj({{"zero", s.zero}, {"gpus", s.gpus}})});
  }
  if (s.profile == FinetuneProfile::kGuide) {
    a.push_back({"assumption.finetune_guide"});
    if (s.method != FinetuneMethod::kFull) a.push_back({"assumption.finetune_guide_attention"});
  } else {
    a.push_back({"assumption.finetune_total",
                 obj({{"peak", z.allocator_peak_bytes}, {"reserve", z.reserve.bytes}})});
  }
  return a;
}

}  // namespace vram::finetune
