#include "vram/speed.hpp"

#include <algorithm>
#include <cmath>

#include <nlohmann/json.hpp>

#include "json_read.hpp"
#include "vram/error.hpp"

namespace vram {

using nlohmann::json;
namespace jr = json_read;

namespace {

double share(const json& j, const char* key, const std::string& at, double fallback) {
  const double v = jr::opt_number(j, key, at).value_or(fallback);
  jr::require_positive(v, at + "." + key);
  return jr::require_range(v, 0.0, 1.0, at + "." + key);
}

double micros(const json& j, const char* key, const std::string& at) {
  const double v = jr::opt_number(j, key, at).value_or(0);
  return jr::require_range(v, 0.0, 1e6, at + "." + key) * 1e-6;
}

}  // namespace

const SpeedProfile& SpeedData::profile(const std::string& engine) const {
  const SpeedProfile* fallback = nullptr;
  for (const SpeedProfile& p : engines) {
    if (p.engine == engine) return p;
    if (p.engine == "default") fallback = &p;
  }
  if (fallback == nullptr)
    throw Error::make("internal", "speed", "error.speed_no_default", nlohmann::json::object());
  return *fallback;
}

double SpeedData::latency(const std::string& topology) const {
  const auto it = link_latency_s.find(topology);
  if (it != link_latency_s.end()) return it->second;
  double worst = 0;
  for (const auto& [name, s] : link_latency_s) worst = std::max(worst, s);
  return worst;
}

SpeedData speed_data_from_json(const json& j) {
  SpeedData data;
  data.activation_bytes = jr::opt_number(j, "activation_bytes", "speed").value_or(2);
  jr::require_range(data.activation_bytes, 1.0, 8.0, "speed.activation_bytes");
  data.fp8_linears_per_layer = static_cast<int>(
      jr::require_range(jr::opt_int(j, "fp8_linears_per_layer", "speed").value_or(4), 0, 64,
                        "speed.fp8_linears_per_layer"));
  data.allreduces_per_layer = static_cast<int>(
      jr::require_range(jr::opt_int(j, "allreduces_per_layer", "speed").value_or(2), 0, 16,
                        "speed.allreduces_per_layer"));
  const json& engines = j.at("engines");
  for (std::size_t i = 0; i < engines.size(); ++i) {
    const json& e = engines[i];
    const std::string at = "speed.engines[" + std::to_string(i) + "]";
    SpeedProfile p;
    p.engine = jr::get_string(e, "engine", at);
    p.bandwidth_efficiency = share(e, "bandwidth_efficiency", at, 0.7);
    if (const json* formats = jr::find(e, "format_efficiency")) {
      for (const auto& [id, value] : formats->items()) {
        const double v = jr::as_number(value, at + ".format_efficiency." + id);
        jr::require_positive(v, at + ".format_efficiency." + id);
        p.format_efficiency[id] = jr::require_range(v, 0.0, 1.0, at + ".format_efficiency." + id);
      }
    }
    p.per_layer_s = micros(e, "per_layer_us", at);
    if (const auto cap = jr::opt_number(e, "kernel_bandwidth_gbps", at)) {
      jr::require_positive(*cap, at + ".kernel_bandwidth_gbps");
      p.kernel_bandwidth_gbps = jr::require_range(*cap, 0.0, 1e5, at + ".kernel_bandwidth_gbps");
    }
    p.hbm_per_layer_s = micros(e, "hbm_per_layer_us", at);
    if (p.kernel_bandwidth_gbps > 0 || p.hbm_per_layer_s > 0)
      p.kernel_source = jr::get_string(e, "kernel_source", at);
    p.per_step_s = micros(e, "per_step_us", at);
    p.fp8_quant_s = micros(e, "fp8_quant_us", at);
    if (p.fp8_quant_s > 0) p.fp8_quant_source = jr::get_string(e, "fp8_quant_source", at);
    p.allreduce_sync_s = micros(e, "allreduce_sync_us", at);
    p.compute_utilisation = share(e, "compute_utilisation", at, 0.6);
    p.prefill_utilisation = share(e, "prefill_utilisation", at, 0.6);
    if (const auto host = jr::opt_number(e, "host_efficiency", at)) {
      jr::require_positive(*host, at + ".host_efficiency");
      p.host_efficiency = jr::require_range(*host, 0.0, 1.0, at + ".host_efficiency");
      p.host_source = jr::get_string(e, "host_source", at);
      p.host_handoff_s = micros(e, "host_handoff_us", at);
      if (p.host_handoff_s > 0)
        p.host_handoff_source = jr::get_string(e, "host_handoff_source", at);
    }
    p.source = jr::get_string(e, "source", at);
    data.engines.push_back(std::move(p));
  }
  const json& links = j.at("links");
  for (std::size_t i = 0; i < links.size(); ++i) {
    const std::string at = "speed.links[" + std::to_string(i) + "]";
    data.link_latency_s[jr::get_string(links[i], "topology", at)] =
        micros(links[i], "latency_us", at);
  }
  data.profile("default");  // present, or a build bug
  return data;
}

bool hbm_memory(const Gpu& gpu) { return gpu.memory_type.rfind("HBM", 0) == 0; }

double step_bandwidth_gbps(const ModelSpec& model, const InferencePlan& plan, const Gpu& gpu,
                           const SpeedLayout& layout, std::int64_t batch) {
  const int tp = std::max(1, layout.tensor_parallel);
  const int dp = std::max(1, layout.data_parallel);
  const int group = tp * dp;
  // An MLA latent is not split by tensor parallelism: every card of a rank
  // holds, and reads, its rank's whole cache (engines/paged.cpp shard()).
  const bool kv_whole =
      std::any_of(model.layers.begin(), model.layers.end(),
                  [](const LayerSpec& l) { return l.attention == LayerAttention::kMla; });
  if (group == tp && !kv_whole) return gpu.bandwidth_gbps * tp;
  // A copy of the rest per rank, read over its TP; the experts the users
  // touch spread over every card, and the ranks' caches over every card or,
  // for a latent, over the ranks.
  const DecodeCeiling c = decode_ceiling(model, plan, gpu.bandwidth_gbps, batch);
  const double rest = c.active_weight_bytes - c.expert_read_bytes;
  const double card = rest / tp + c.expert_read_bytes / group +
                      c.kv_read_bytes / static_cast<double>(kv_whole ? dp : group);
  return card > 0 ? gpu.bandwidth_gbps * c.step_bytes / card : gpu.bandwidth_gbps * tp;
}

DecodeSpeed expected_decode(const ModelSpec& model, const InferencePlan& plan, const Gpu& gpu,
                            const SpeedLayout& layout, std::int64_t batch,
                            const std::string& format_id, bool fp8_compute,
                            const SpeedProfile& profile, const SpeedData& data) {
  DecodeSpeed s;
  const int tp = std::max(1, layout.tensor_parallel);
  const int stages = std::max(1, layout.stages);
  const int dp = std::max(1, layout.data_parallel);
  const int group = tp * dp;  // cards of one MoE layer
  const DecodeCeiling ceiling =
      decode_ceiling(model, plan, step_bandwidth_gbps(model, plan, gpu, layout, batch), batch);
  s.ceiling_tokens_per_s = ceiling.stream_tokens_per_s;
  if (ceiling.step_bytes <= 0 || ceiling.bandwidth_bytes_per_s <= 0) return s;
  const auto it = profile.format_efficiency.find(format_id);
  s.efficiency = it != profile.format_efficiency.end() ? it->second : profile.bandwidth_efficiency;
  // The kernels' own ceiling, per card: a share of a faster memory than
  // they can draw on is capped at it.
  if (profile.kernel_bandwidth_gbps > 0 && gpu.bandwidth_gbps > 0 &&
      gpu.bandwidth_gbps * s.efficiency > profile.kernel_bandwidth_gbps) {
    s.efficiency = profile.kernel_bandwidth_gbps / gpu.bandwidth_gbps;
    s.kernel_capped = true;
  }
  // Each card reads its share; stages read theirs one after another, so
  // the step reads every byte at one group's bandwidth.
  s.memory_s = ceiling.step_bytes / (ceiling.bandwidth_bytes_per_s * s.efficiency);
  const double b = static_cast<double>(batch);
  const double tflops = fp8_compute && gpu.tflops_fp8 > 0 ? gpu.tflops_fp8 : gpu.tflops_bf16;
  if (tflops > 0) {
    s.compute_known = true;
    s.compute_s =
        2.0 * plan.params.active * b / (tflops * 1e12 * group * profile.compute_utilisation);
  }
  const double layers = static_cast<double>(model.num_layers());
  s.per_layer_s = profile.per_layer_s + (hbm_memory(gpu) ? profile.hbm_per_layer_s : 0.0);
  s.fixed_s = layers * s.per_layer_s + profile.per_step_s;
  if (fp8_compute) s.quant_s = layers * data.fp8_linears_per_layer * profile.fp8_quant_s;
  const double latency = data.latency(gpu.interconnect.topology);
  const double link = gpu.interconnect.gbps * 1e9;
  const double token = static_cast<double>(model.hidden_size) * data.activation_bytes;
  const double call = latency + profile.allreduce_sync_s;  // per collective, beyond its bytes
  // Two all-reduces per layer of hidden x batch activations, ring cost,
  // plus what the engine's step pays per call beyond the link's latency.
  auto allreduce = [&](int n, double users) {
    return link > 0 ? 2.0 * (n - 1) / n * token * users / link + call : call;
  };
  if (dp == 1) {
    // One rank: with or without expert parallelism the MoE output is
    // reduced over the TP group (SGLang's default --moe-a2a-backend none).
    if (tp > 1) s.allreduce_s = layers * data.allreduces_per_layer * allreduce(tp, b);
  } else {
    double moe_layers = 0;
    for (const LayerSpec& l : model.layers) moe_layers += l.mlp == LayerMlp::kMoe ? 1.0 : 0.0;
    if (!model.is_moe()) moe_layers = 0;
    const double users = std::ceil(b / dp);  // the fullest rank's
    // Within a rank: after attention, and after each dense MLP.
    if (tp > 1) s.allreduce_s = (layers + (layers - moe_layers)) * allreduce(tp, users);
    // Each MoE layer: dispatch and combine over the group. Expert
    // parallelism sends each token's hidden state to its k experts' cards;
    // without it every card gathers every rank's tokens and scatters the
    // sums back.
    const double moved =
        layout.expert_parallel ? users * static_cast<double>(model.moe.experts_per_token) : b;
    const double share = static_cast<double>(group - 1) / group;
    const double bytes = link > 0 ? share * token * moved / link : 0.0;
    s.alltoall_s = moe_layers * 2.0 * (bytes + call);
  }
  // One hand-over of the activations per stage boundary per step.
  s.hops_s = (stages - 1) * latency;
  s.compute_bound = s.compute_s > s.memory_s;
  s.step_s = std::max(s.memory_s, s.compute_s) + s.fixed_s + s.quant_s + s.allreduce_s +
             s.alltoall_s + s.hops_s;
  s.expected_tokens_per_s = 1.0 / s.step_s;
  s.expected_batch_tokens_per_s = s.expected_tokens_per_s * b;
  return s;
}

DecodeSpeed expected_offload_decode(const ModelSpec& model, const InferencePlan& plan,
                                    const Gpu& gpu, const SpeedLayout& layout, std::int64_t batch,
                                    const std::string& format_id, const SpeedProfile& profile,
                                    const SpeedData& data, double host_read_bytes,
                                    double host_bandwidth_gbps, int host_handoffs) {
  DecodeSpeed s = expected_decode(model, plan, gpu, layout, batch, format_id, false, profile, data);
  const int tp = std::max(1, layout.tensor_parallel);
  const DecodeCeiling ceiling = decode_ceiling(model, plan, gpu.bandwidth_gbps * tp, batch);
  const double host_bw = host_bandwidth_gbps * 1e9;
  if (ceiling.step_bytes <= 0 || host_bw <= 0 || profile.host_efficiency <= 0) {
    throw Error::make("internal", "speed", "error.offload_speed_inputs", nlohmann::json::object());
  }
  const double host = std::clamp(host_read_bytes, 0.0, ceiling.step_bytes);
  const double gpu_bytes = ceiling.step_bytes - host;
  s.ceiling_tokens_per_s = 1.0 / (gpu_bytes / ceiling.bandwidth_bytes_per_s + host / host_bw);
  s.memory_s *= gpu_bytes / ceiling.step_bytes;
  s.host_s = host / (host_bw * profile.host_efficiency);
  s.handoff_s = std::max(0, host_handoffs) * profile.host_handoff_s;
  s.compute_bound = s.compute_s > s.memory_s;
  s.step_s = std::max(s.memory_s, s.compute_s) + s.fixed_s + s.quant_s + s.allreduce_s +
             s.alltoall_s + s.hops_s + s.host_s + s.handoff_s;
  s.expected_tokens_per_s = 1.0 / s.step_s;
  s.expected_batch_tokens_per_s = s.expected_tokens_per_s * static_cast<double>(batch);
  return s;
}

PrefillSpeed expected_prefill(const ModelSpec& model, const InferencePlan& plan, const Gpu& gpu,
                              const SpeedLayout& layout, std::int64_t prompt, bool fp8_compute,
                              const SpeedProfile& profile) {
  PrefillSpeed p;
  p.fp8 = fp8_compute && gpu.tflops_fp8 > 0;
  p.tflops = p.fp8 ? gpu.tflops_fp8 : gpu.tflops_bf16;
  p.utilisation = profile.prefill_utilisation;
  const double n = static_cast<double>(prompt);
  // Query and value widths of one layer's attention.
  double width = 0;
  if (model.mla.kv_lora_rank > 0) {
    width = static_cast<double>(model.num_heads) *
            static_cast<double>(model.mla.qk_nope_head_dim + model.mla.qk_rope_head_dim +
                                model.mla.v_head_dim);
  } else {
    const std::int64_t v = model.v_head_dim > 0 ? model.v_head_dim : model.head_dim;
    width = static_cast<double>(model.num_heads) * static_cast<double>(model.head_dim + v);
  }
  double attention = 0;
  for (const LayerSpec& layer : model.layers) {
    if (layer.attention == LayerAttention::kState) continue;
    const double seen = layer.attention == LayerAttention::kSliding && model.sliding_window > 0
                            ? std::min(n, static_cast<double>(model.sliding_window))
                            : n;
    // Causal: each token attends to half the window on average; QK and PV.
    attention += n * seen * width;
  }
  p.flops = 2.0 * plan.params.active * n + attention;
  if (p.tflops <= 0) return p;
  p.known = true;
  const int tp = std::max(1, layout.tensor_parallel);
  const double rate = p.tflops * 1e12 * p.utilisation;
  p.seconds = p.flops / (rate * tp);
  const int group = tp * std::max(1, layout.data_parallel);
  if (group > tp && !plan.params.total_declared) {
    // One prompt runs on one data-parallel rank's TP cards; its routed
    // experts' products spread over the whole MoE group.
    const double experts = 2.0 * plan.params.computed.experts_routed_active * n;
    p.seconds = (p.flops - experts) / (rate * tp) + experts / (rate * group);
  }
  p.tokens_per_s = n / p.seconds;
  return p;
}

SpeedLayout speed_layout(const EngineProfile& engine, int tensor_parallel, int pipeline,
                         int cards) {
  SpeedLayout l;
  if (engine.rules->stage_per_card) {
    l.stages = std::max(1, cards);
    return l;
  }
  l.tensor_parallel = std::max(1, tensor_parallel);
  l.stages = std::max(1, pipeline);
  return l;
}

bool fp8_compute(const EngineProfile& engine, const WeightFormat* weights, const ModelSpec& model,
                 const Gpu& gpu) {
  if (!engine.rules->fp8_compute) return false;
  const std::string& id = weights != nullptr ? weights->id : model.native_format;
  return id == "fp8" && gpu.supports("fp8");
}

}  // namespace vram
