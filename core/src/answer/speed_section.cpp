// The speed of a setup that holds the answer: decode ceilings and expected
// tokens/s, prefill, and what they assume (speed.hpp, decode.hpp).

#include <algorithm>

#include "answer/sections.hpp"
#include "vram/decode.hpp"
#include "vram/speed.hpp"
#include "vram/units.hpp"

namespace vram::answer {

using nlohmann::json;

namespace {

json decode_json(const DecodeCeiling& c) {
  return obj({{"bandwidth_gbps", c.bandwidth_bytes_per_s / 1e9},
              {"guide_tokens_per_s", c.guide_tokens_per_s},
              {"active_weight_gb", bytes_to_gb(c.active_weight_bytes)},
              {"kv_read_gb", bytes_to_gb(c.kv_read_bytes)},
              {"step_gb", bytes_to_gb(c.step_bytes)},
              {"experts_touched", c.experts_touched},
              {"stream_tokens_per_s", c.stream_tokens_per_s},
              {"batch_tokens_per_s", c.batch_tokens_per_s}});
}

/** The expected figures beside the ceiling: per user, for the batch, and the step's parts. */
void add_expected(json& out, const DecodeSpeed& d, double floor) {
  out["ceiling_tokens_per_s"] = d.ceiling_tokens_per_s;
  out["expected_tokens_per_s"] = d.expected_tokens_per_s;
  out["expected_batch_tokens_per_s"] = d.expected_batch_tokens_per_s;
  out["efficiency"] = d.efficiency;
  out["step_ms"] = obj({{"memory", d.memory_s * 1e3},
                        {"compute", d.compute_known ? json(d.compute_s * 1e3) : json(nullptr)},
                        {"fixed", d.fixed_s * 1e3},
                        {"allreduce", d.allreduce_s * 1e3},
                        {"alltoall", d.alltoall_s * 1e3},
                        {"hops", d.hops_s * 1e3},
                        {"total", d.step_s * 1e3}});
  out["compute_bound"] = d.compute_bound;
  out["min_tokens_per_s"] = floor;
  out["meets_floor"] = d.expected_tokens_per_s >= floor;
}

json prefill_json(const PrefillSpeed& p, std::int64_t prompt) {
  return obj({{"prompt_tokens", prompt},
              {"known", p.known},
              {"tflops", p.tflops > 0 ? json(p.tflops) : json(nullptr)},
              {"fp8", p.fp8},
              {"utilisation", p.utilisation},
              {"tflop", p.flops / 1e12},
              {"ttft_s", p.known ? json(p.seconds) : json(nullptr)},
              {"tokens_per_s", p.known ? json(p.tokens_per_s) : json(nullptr)}});
}

/** How the cards asked about run a step, and the cards of one tensor group. */
struct StepLayout {
  SpeedLayout cards;
  int group = 1;
};

/**
 * Tensor parallelism reads each card's share at once; pipeline stages and
 * llama.cpp's layer split read theirs one after another.
 */
StepLayout layout_now(const Inference& in) {
  const InferencePlan& plan = in.plan;
  const EngineProfile& engine = *in.engine.profile;
  const int cards = in.layout.gpus;
  const int group = plan.budget.present ? plan.tensor_parallel
                    : engine.convention()
                        ? layout_for(*in.gpu, cards, in.gpus.node_size, false).tensor_parallel
                        : 1;
  SpeedLayout sl = speed_layout(
      engine, group, plan.budget.present ? plan.pipeline_parallel : std::max(1, cards / group),
      cards);
  if (plan.budget.present) {
    sl.data_parallel = plan.data_parallel;
    sl.expert_parallel = plan.expert_parallel;
  }
  return {sl, group};
}

/** What the speed assumed: the engine's efficiency, the links, the stages. */
json speed_notes(const Inference& in, const SpeedLayout& sl, const DecodeSpeed& ds) {
  const Gpu& gpu = *in.gpu;
  const SpeedProfile& speed = in.speed;
  json notes = json::array();
  notes.push_back(Message{"assumption.speed", obj({{"engine", in.engine.profile->label()},
                                                   {"efficiency", ds.efficiency * 100},
                                                   {"per_layer_us", speed.per_layer_s * 1e6},
                                                   {"source", quotation(speed.source)}})});
  if (sl.tensor_parallel > 1) {
    notes.push_back(
        Message{"assumption.speed_allreduce",
                obj({{"gpu", gpu.name},
                     {"tp", sl.tensor_parallel},
                     {"link", Message{"link." + gpu.interconnect.kind}},
                     {"gbps", gpu.interconnect.gbps},
                     {"latency_us", in.catalog.speed.latency(gpu.interconnect.topology) * 1e6},
                     {"sync_us", speed.allreduce_sync_s * 1e6}})});
  }
  if (sl.stages > 1) {
    notes.push_back(Message{"assumption.speed_stages", obj({{"stages", sl.stages}})});
  }
  if (sl.data_parallel > 1) {
    notes.push_back(
        Message{sl.expert_parallel ? "assumption.speed_alltoall_ep" : "assumption.speed_alltoall",
                obj({{"dp", sl.data_parallel},
                     {"group", sl.tensor_parallel * sl.data_parallel},
                     {"experts", in.model.moe.experts_per_token},
                     {"gpu", gpu.name},
                     {"gbps", gpu.interconnect.gbps},
                     {"sync_us", speed.allreduce_sync_s * 1e6}})});
  }
  if (!ds.compute_known) {
    notes.push_back(Message{"assumption.speed_no_tflops", obj({{"gpu", gpu.name}})});
  }
  return notes;
}

}  // namespace

json speed_section(const Inference& in, const Capacity& capacity) {
  // Decode speed only for a setup that holds the answer, on a card.
  if (in.gpu == nullptr || !capacity.holds) return json::object();
  const Gpu& gpu = *in.gpu;
  const StepLayout step = layout_now(in);
  const SpeedLayout& sl = step.cards;
  const std::int64_t batch = in.setup.batch;
  const bool fp8 = fp8_compute(*in.engine.profile, in.setup.weights, in.model, gpu);
  const DecodeSpeed ds = expected_decode(in.model, in.plan, gpu, sl, batch, in.format_id, fp8,
                                         in.speed, in.catalog.speed);
  json decode = decode_json(decode_ceiling(
      in.model, in.plan, step_bandwidth_gbps(in.model, in.plan, gpu, sl, batch), batch));
  decode["gpus"] = step.group * sl.data_parallel;
  decode["stages"] = sl.stages;
  add_expected(decode, ds, in.min_tokens_per_s);
  json out = obj({{"decode", std::move(decode)},
                  {"prefill", prefill_json(expected_prefill(in.model, in.plan, gpu, sl,
                                                            in.setup.context, fp8, in.speed),
                                           in.setup.context)},
                  {"assumptions", speed_notes(in, sl, ds)}});
  if (ds.expected_tokens_per_s < in.min_tokens_per_s) {
    out["warnings"] =
        json::array({Message{"warning.below_floor", obj({{"expected", ds.expected_tokens_per_s},
                                                         {"floor", in.min_tokens_per_s},
                                                         {"users", batch}})}});
  }
  return out;
}

}  // namespace vram::answer
