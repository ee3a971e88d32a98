// The answer's first section: what was sized, as the request resolved it.

#include "answer/sections.hpp"
#include "model_json.hpp"

namespace vram::answer {

using nlohmann::json;

json model_section(const Inference& in) {
  const InferencePlan& plan = in.plan;
  const EngineProfile& engine = *in.engine.profile;
  const ParamCount& c = plan.params.computed;
  json out = obj({
      {"model", model_summary(in.model, plan.params)},
      {"params_total", plan.params.total},
      {"params_active", plan.params.active},
      {"params_active_excluding_embedding",
       plan.params.active_declared || plan.params.total_declared
           ? plan.params.active
           : c.active() - (in.model.tied_embeddings ? 0.0 : c.embedding)},
      {"weights", in.weights_id},
      {"weights_storage", storage_json(plan.weights)},
      {"kv", in.setup.kv->id},
      {"context", in.setup.context},
      {"batch", in.setup.batch},
      {"engine", obj({{"id", engine.id},
                      {"name", engine.name},
                      {"label", engine.label()},
                      {"kind", engine.kind()},
                      {"options", plan.options}})},
      {"tensor_parallel", plan.tensor_parallel},
  });
  if (in.checkpoint) out["checkpoint"] = checkpoint_summary(*in.checkpoint);
  return out;
}

}  // namespace vram::answer
