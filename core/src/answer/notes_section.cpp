// What the answer assumed and what it warns of: the model's, the formats',
// the engine's. Sections further on add their own (offload, speed, cards).

#include <algorithm>

#include "answer/sections.hpp"
#include "vram/inverse.hpp"

namespace vram::answer {

using nlohmann::json;

namespace {

json assumptions_of(const Inference& in) {
  const ModelSpec& model = in.model;
  const InferencePlan& plan = in.plan;
  const EngineProfile& engine = *in.engine.profile;
  json assumptions = json::array();
  if (in.setup.weights == nullptr && in.checkpoint) {
    assumptions.push_back(
        Message{"assumption.weights_checkpoint",
                obj({{"format", in.checkpoint->format}, {"files", in.checkpoint->files}})});
  } else if (in.setup.weights != in.asked) {
    assumptions.push_back(
        Message{"assumption.weights_as_stored", obj({{"asked", in.asked->name}})});
  } else if (in.setup.weights == nullptr) {
    // The formats by name (BF16, MXFP4), as every other answer names them.
    auto format_name = [&](const std::string& id) {
      const WeightFormat* f = in.catalog.formats.find_weight(id);
      return f != nullptr ? f->name : id;
    };
    assumptions.push_back(
        model.native_expert_format.empty()
            ? Message{"assumption.weights_native",
                      obj({{"format", format_name(model.native_format)}})}
            : Message{"assumption.weights_native_experts",
                      obj({{"format", format_name(model.native_format)},
                           {"experts", format_name(model.native_expert_format)}})});
    if (!model.native_format_note.id.empty()) assumptions.push_back(model.native_format_note);
  }
  if (plan.params.total_declared) {
    assumptions.push_back(
        Message{"assumption.params_declared",
                obj({{"params", plan.params.total}, {"computed", plan.params.computed.total()}})});
  }
  assumptions.push_back(
      Message{"assumption.kv_format",
              obj({{"format", in.setup.kv->name}, {"bits", in.setup.kv->bits_per_element}})});
  if (model.has_layers(LayerAttention::kState)) {
    const StateStorage& held = in.plan.state;
    assumptions.push_back(
        Message{"assumption.ssm_state",
                obj({{"conv_bits", 8.0 * conv_element_bytes(held)},
                     {"state_bits", 8.0 * recurrent_element_bytes(held, model.ssm)}})});
  }
  assumptions.push_back(Message{"assumption.engine", obj({{"engine", engine.label()},
                                                          {"source", quotation(engine.source)}})});
  for (const Message& m : plan.assumptions) assumptions.push_back(m);
  assumptions.push_back(Message{"assumption.units"});
  return assumptions;
}

json warnings_of(const Inference& in) {
  const ModelSpec& model = in.model;
  const EngineProfile& engine = *in.engine.profile;
  const WeightFormat* weights = in.setup.weights;
  json warnings = import_warnings(in.imported);
  for (const Message& m : in.plan.warnings) warnings.push_back(m);
  if (!model.placeholders.empty()) {
    warnings.push_back(Message{"warning.placeholders", obj({{"fields", model.placeholders}})});
  }
  if (model.max_context > 0 && in.setup.context > model.max_context) {
    warnings.push_back(Message{"warning.context_over",
                               obj({{"context", in.setup.context}, {"max", model.max_context}})});
  }
  // llama.cpp loads GGUF files, vLLM, SGLang and transformers safetensors
  // checkpoints: a format the engine does not load is sized as asked, and said.
  if (!engine.convention() && !in.checkpoint) {
    const WeightFormat* f =
        weights != nullptr ? weights : in.catalog.formats.find_weight(model.native_format);
    if (f != nullptr && !engine_runs(engine, *f)) {
      warnings.push_back(engine.rules->format_warning(*f, engine));
    }
  }
  const Gpu* gpu = in.gpu;
  if (gpu != nullptr && weights != nullptr && weights->needs("fp8") && !gpu->supports("fp8")) {
    warnings.push_back(
        Message{"warning.no_fp8", obj({{"gpu", gpu->name}, {"architecture", gpu->architecture}})});
  }
  return warnings;
}

}  // namespace

json import_warnings(const ImportedModel& imported) {
  json out = json::array();
  for (const Message& w : imported.warnings) out.push_back(w);
  return out;
}

json notes_section(const Inference& in) {
  return obj({{"assumptions", assumptions_of(in)}, {"warnings", warnings_of(in)}});
}

}  // namespace vram::answer
