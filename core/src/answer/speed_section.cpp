// The speed of a setup that holds the answer: decode ceilings and expected
// tokens/s, prefill, and what they assume (speed.hpp, decode.hpp).

#include <algorithm>

#include "answer/sections.hpp"
#include "vram/decode.hpp"
#include "vram/inverse.hpp"
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
                        {"quant", d.quant_s * 1e3},
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
                                                   {"per_layer_us", ds.per_layer_s * 1e6},
                                                   {"source", quotation(speed.source)}})});
  // What the engine's kernels cannot draw from this card, and why.
  if (ds.kernel_capped) {
    notes.push_back(
        Message{"assumption.speed_kernel_cap", obj({{"engine", in.engine.profile->label()},
                                                    {"gpu", gpu.name},
                                                    {"bandwidth_gbps", gpu.bandwidth_gbps},
                                                    {"cap_gbps", speed.kernel_bandwidth_gbps},
                                                    {"efficiency", ds.efficiency * 100},
                                                    {"source", quotation(speed.kernel_source)}})});
  }
  if (hbm_memory(gpu) && speed.hbm_per_layer_s > 0) {
    notes.push_back(
        Message{"assumption.speed_hbm_layers", obj({{"engine", in.engine.profile->label()},
                                                    {"gpu", gpu.name},
                                                    {"hbm_us", speed.hbm_per_layer_s * 1e6},
                                                    {"per_layer_us", ds.per_layer_s * 1e6}})});
  }
  // FP8 weights: each FP8 linear's input quantized by a kernel of its own.
  if (ds.quant_s > 0) {
    notes.push_back(Message{"assumption.speed_fp8_quant",
                            obj({{"engine", in.engine.profile->label()},
                                 {"linears", in.catalog.speed.fp8_linears_per_layer},
                                 {"us", speed.fp8_quant_s * 1e6},
                                 {"ms", ds.quant_s * 1e3},
                                 {"source", quotation(speed.fp8_quant_source)}})});
  }
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

namespace vram::answer {

namespace {

/** The users a point is computed at: 1, 2, 4, ... below the limit, then the limit. */
std::vector<std::int64_t> curve_users(std::int64_t limit) {
  std::vector<std::int64_t> users;
  for (std::int64_t u = 1; u < limit; u *= 2) users.push_back(u);
  if (limit >= 1) users.push_back(limit);
  return users;
}

/** The plan's price per hour, its cards at the catalog's discount; 0 when a card has no price. */
double usd_per_hour(const Inference& in) {
  const double cards = static_cast<double>(in.layout.gpus);
  const double discount = in.gpus.discount_percent(in.layout.gpus);
  return in.gpu->monthly_usd * cards * (1 - discount / 100) / in.gpus.hours_per_month;
}

}  // namespace

json curve_section(const Inference& in, const Capacity& capacity) {
  const Gpu& gpu = *in.gpu;
  const StepLayout step = layout_now(in);
  const bool fp8 = fp8_compute(*in.engine.profile, in.setup.weights, in.model, gpu);
  // As many users as the cards hold at the context: the largest batch of the inverse answers.
  const std::int64_t limit =
      inverse_answers(in.setup, *in.engine.profile, in.engine.options, in.gpu, in.gpus,
                      in.catalog.formats, capacity.capacity_bytes)
          .max_batch;
  const PrefillSpeed prefill =
      expected_prefill(in.model, in.plan, gpu, step.cards, in.setup.context, fp8, in.speed);
  // Each user holds a whole context of cache; a step reads every user's.
  InferencePlan plan = in.plan;
  const double kv_per_user = in.plan.kv.bytes / static_cast<double>(in.setup.batch);
  auto at = [&](std::int64_t users) {
    plan.kv.bytes = kv_per_user * static_cast<double>(users);
    return expected_decode(in.model, plan, gpu, step.cards, users, in.format_id, fp8, in.speed,
                           in.catalog.speed);
  };
  const json band = measured_error(in.catalog, "speed", "note.measured_error_speed");
  // Measured speeds ran from `low_pct` under to `high_pct` over the prediction's error
  // ((predicted - measured) / measured): the measured speed lies in
  // [predicted / (1 + high), predicted / (1 + low)].
  const double over = band.is_object() ? band.value("high_pct", 0.0) / 100 : 0;
  const double under = band.is_object() ? std::max(-0.9, band.value("low_pct", 0.0) / 100) : 0;
  json points = json::array();
  for (const std::int64_t users : curve_users(limit)) {
    const DecodeSpeed d = at(users);
    // The first token: the prompt's prefill, then one step beside the others' decoding.
    const json ttft = prefill.known ? json(prefill.seconds + d.step_s) : json(nullptr);
    points.push_back(obj({{"users", users},
                          {"tokens_per_s", d.expected_tokens_per_s},
                          {"low", d.expected_tokens_per_s / (1 + over)},
                          {"high", d.expected_tokens_per_s / (1 + under)},
                          {"total_tokens_per_s", d.expected_batch_tokens_per_s},
                          {"ttft_s", ttft},
                          {"meets_floor", d.expected_tokens_per_s >= in.min_tokens_per_s}}));
  }
  // The knee: the most users who still get the floor (speed per user falls as users grow).
  std::int64_t lo = 0, hi = limit;
  while (lo < hi) {
    const std::int64_t mid = lo + (hi - lo + 1) / 2;
    if (at(mid).expected_tokens_per_s >= in.min_tokens_per_s)
      lo = mid;
    else
      hi = mid - 1;
  }
  json at_floor = nullptr;
  if (lo >= 1) {
    const DecodeSpeed d = at(lo);
    const double hourly = usd_per_hour(in);
    const auto per_million = [&](double tokens_per_s) {
      return hourly > 0 && tokens_per_s > 0 ? json(hourly / (tokens_per_s * 3600) * 1e6)
                                            : json(nullptr);
    };
    at_floor = obj({{"users", lo},
                    {"tokens_per_s", d.expected_tokens_per_s},
                    {"total_tokens_per_s", d.expected_batch_tokens_per_s},
                    {"usd_per_hour", hourly > 0 ? json(hourly) : json(nullptr)},
                    {"usd_per_million_output", per_million(d.expected_batch_tokens_per_s)},
                    {"usd_per_million_input",
                     prefill.known ? per_million(prefill.tokens_per_s) : json(nullptr)}});
  }
  return obj({{"users_limit", limit},
              {"context", in.setup.context},
              {"min_tokens_per_s", in.min_tokens_per_s},
              {"gpu", gpu.id},
              {"gpu_name", gpu.name},
              {"gpu_count", in.layout.gpus},
              {"points", std::move(points)},
              {"at_floor", std::move(at_floor)},
              {"measured_error", band},
              {"assumptions", json::array({Message{"assumption.curve", json::object()}})}});
}

}  // namespace vram::answer
