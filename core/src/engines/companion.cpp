// A second model served on the same card (an embedding or reranker model
// beside the LLM, a server of its own under the same engine): its weights,
// its KV cache and forward pass at companion_context tokens, and its
// server's own runtime memory. vLLM and SGLang each size their pool from a
// fraction of the card, so the two servers' fractions are set here.

#include <algorithm>
#include <cmath>
#include <string>

#include "common.hpp"
#include "vram/inference.hpp"
#include "vram/units.hpp"

namespace vram::engines {
namespace {

/** The companion's server's own runtime memory, as the engine counts the model's. */
double runtime_gib(const EngineInput& in, double weights_kv_bytes) {
  const json& o = in.options;
  const std::string kind = in.engine.kind();
  if (kind == "flat") return gb_to_bytes(o.at("overhead_gb").get<double>()) / kBytesPerGiB;
  if (kind == "percent") {
    return weights_kv_bytes * o.at("overhead_pct").get<double>() / 100.0 / kBytesPerGiB;
  }
  // vLLM: its non-torch memory and, unless eager, its CUDA graphs.
  if (kind == "vllm") {
    return o.at("non_torch_gib").get<double>() +
           (o.at("enforce_eager").get<bool>() ? 0.0 : o.at("cuda_graph_gib").get<double>());
  }
  if (kind == "llamacpp") return o.at("cuda_context_gib").get<double>();
  if (kind == "transformers") {
    return o.at("non_torch_gib").get<double>() + o.at("blas_workspace_mib").get<double>() / 1024.0;
  }
  return o.at("non_torch_gib").get<double>();  // SGLang
}

/** `fraction` rounded up (`up`) or down to a hundredth, as the engines' flags are written. */
double hundredths(double fraction, bool up) {
  const double scaled = fraction * 100.0;
  return (up ? std::ceil(scaled - 1e-9) : std::floor(scaled + 1e-9)) / 100.0;
}

}  // namespace

double push_companion(const EngineInput& in, InferencePlan& plan) {
  const InferenceSetup& setup = in.setup;
  if (setup.companion == nullptr || setup.companion_weights == nullptr) return 0;
  const ModelSpec& c = *setup.companion;
  const std::int64_t tokens = setup.companion_context;
  const double weights = setup.companion_weights->bytes;
  const double kv = kv_cache(c, *setup.companion_kv, tokens, 1).bytes;
  // The sizing guides count no activations for the model; the engines' forward pass at
  // companion_context tokens, as vLLM profiles it (vllm.cpp).
  const double activations =
      in.engine.convention() ? 0.0 : d(tokens) * vllm_forward_bytes_per_token(c, 1, 1);
  const double runtime = runtime_gib(in, weights + kv) * kBytesPerGiB;
  const double bytes = weights + kv + activations + runtime;
  Term term{"companion", {"term.companion"}, bytes, {}, {}};
  if (in.explain) {
    term.formula = {"formula.companion", obj({{"model", c.name},
                                              {"weights", weights},
                                              {"kv", kv},
                                              {"activations", activations},
                                              {"runtime", runtime},
                                              {"bytes", bytes}})};
    term.inputs = obj({{"companion_model", c.id},
                       {"companion_context", tokens},
                       {"storage", storage_json(*setup.companion_weights)},
                       {"runtime_gib", runtime / kBytesPerGiB}});
  }
  plan.terms.push_back(std::move(term));
  return bytes;
}

double vllm_companion_share(const EngineInput& in, InferencePlan& plan, double share) {
  const double need = push_companion(in, plan);
  if (!(need > 0) || in.gpu == nullptr) return share;
  // Each server asks for its --gpu-memory-utilization of the whole card and refuses to start
  // when less is free (vllm/v1/worker/gpu_worker.py, init_device): the companion gets what it
  // needs, rounded up to a hundredth, and the model the rest of its own share.
  const double usable = in.gpus.usable_bytes(*in.gpu);
  const double companion = usable > 0 ? hundredths(need / usable, true) : 0.0;
  const double model = std::max(0.0, hundredths(share - companion, false));
  plan.companion_share = companion;
  plan.budget.companion_reserved_bytes = companion * usable;
  plan.options["gpu_memory_utilization"] = model;
  if (in.explain) {
    plan.warnings.push_back({"warning.vllm_companion", obj({{"companion", in.setup.companion->name},
                                                            {"companion_share", companion},
                                                            {"share", model},
                                                            {"total", share}})});
  }
  return model;
}

double sglang_companion_bytes(const EngineInput& in, InferencePlan& plan) {
  const double need = push_companion(in, plan);
  if (!(need > 0) || in.gpu == nullptr) return need;
  // SGLang's pool is what is free after the weights less (1 - mem_fraction_static) of the
  // total (model_runner.py, profile_max_num_token): the companion, started first, needs a
  // fraction covering what the card already holds and itself; then it comes off the model's
  // pool one for one.
  const double usable = in.gpus.usable_bytes(*in.gpu);
  const double companion =
      usable > 0 ? hundredths((in.setup.held_bytes + need) / usable, true) : 0.0;
  plan.companion_share = companion;
  if (in.explain) {
    plan.warnings.push_back({"warning.sglang_companion",
                             obj({{"companion", in.setup.companion->name},
                                  {"companion_share", companion},
                                  {"share", in.options.at("mem_fraction_static").get<double>()},
                                  {"bytes", need}})});
  }
  return need;
}

}  // namespace vram::engines
