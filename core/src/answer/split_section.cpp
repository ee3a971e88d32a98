// llama.cpp over unequal cards (the request's "split_gpus"): each card's run of
// layers and buffers for a --tensor-split, the card order that holds the
// most context, and the decoding ceiling of the cards one after another
// (split.hpp; llama.cpp src/llama-model.cpp load_tensors).

#include <algorithm>
#include <string>

#include "answer/sections.hpp"
#include "vram/error.hpp"
#include "vram/limits.hpp"
#include "vram/units.hpp"

namespace vram::answer {

using nlohmann::json;

std::optional<MixedCards> mixed_of(const Inference& in, const EstimateRequest& req) {
  const std::vector<std::string>& ids = req.split_gpus;
  if (ids.empty()) return std::nullopt;
  const EngineProfile& engine = *in.engine.profile;
  // Only an engine that splits by layers and offloads takes a list of unequal cards.
  if (std::string(engine.rules->split) != "layer" || !engine.rules->offloads) {
    throw Error::make("not_applicable", "split_gpus", "error.gpus_engine",
                      obj({{"field", "split_gpus"}, {"engine", engine.id}}));
  }
  if (in.gpu != nullptr) {
    throw Error::make("invalid_value", "split_gpus", "error.not_both",
                      obj({{"first", "gpu"}, {"second", "split_gpus"}}));
  }
  if (req.gpu_count_given) {
    throw Error::make("invalid_value", "split_gpus", "error.not_both",
                      obj({{"first", "gpu_count"}, {"second", "split_gpus"}}));
  }
  if (ids.size() > limits::kMaxSplitCards) {
    throw Error::make(
        "invalid_value", "split_gpus", "error.gpus_count",
        obj({{"field", "split_gpus"}, {"count", ids.size()}, {"max", limits::kMaxSplitCards}}));
  }
  MixedCards m;
  std::vector<double> caps;
  for (std::size_t i = 0; i < ids.size(); ++i) {
    m.cards.push_back(&in.gpus.find(ids[i], "split_gpus[" + std::to_string(i) + "]"));
    // What other processes hold on each card is not llama.cpp's to place into.
    caps.push_back(std::max(0.0, in.gpus.usable_bytes(*m.cards.back()) - in.setup.held_bytes));
  }
  // The model's parts at any context: the plan again, numbers only.
  const PartsAt parts_at = [&in](std::int64_t context) {
    InferenceSetup setup = in.setup;
    setup.context = context;
    const InferencePlan plan = plan_inference(setup, *in.engine.profile, in.engine.options, nullptr,
                                              in.gpus, in.catalog.formats, false);
    return offload_parts(setup, plan, plan.options);
  };
  const std::int64_t limit = in.model.max_context > 0
                                 ? std::min(in.model.max_context, limits::kMaxRequestContext)
                                 : limits::kMaxRequestContext;
  m.order = best_split_order(parts_at, caps, ids, limit);
  std::vector<double> in_order, bandwidth;
  for (int c : m.order.order) {
    in_order.push_back(caps[static_cast<std::size_t>(c)]);
    bandwidth.push_back(m.cards[static_cast<std::size_t>(c)]->bandwidth_gbps);
  }
  m.split = split_layers(offload_parts(in.setup, in.plan, in.plan.options), in_order);
  for (CardShare& s : m.split.cards) s.card = m.order.order[static_cast<std::size_t>(s.card)];
  m.decode_tokens_per_s = split_decode_tokens_per_s(m.split, bandwidth);
  return m;
}

json split_section(const Inference& in) {
  if (!in.mixed) return json::object();
  const MixedCards& m = *in.mixed;
  json cards = json::array();
  json warnings = json::array();
  json order = json::array();
  std::string devices;
  for (const CardShare& s : m.split.cards) {
    const Gpu& gpu = *m.cards[static_cast<std::size_t>(s.card)];
    order.push_back(gpu.id);
    devices += (devices.empty() ? "CUDA" : ",CUDA") + std::to_string(s.card);
    cards.push_back(obj({{"gpu", gpu.id},
                         {"name", gpu.name},
                         {"device", s.card},
                         {"first_layer", s.first_layer},
                         {"layers", s.layers},
                         {"output", s.output},
                         {"weights_gb", bytes_to_gb(s.weights_bytes)},
                         {"kv_gb", bytes_to_gb(s.kv_bytes)},
                         {"compute_gb", bytes_to_gb(s.compute_bytes)},
                         {"context_gb", bytes_to_gb(s.context_bytes)},
                         {"total_gb", bytes_to_gb(s.bytes)},
                         {"capacity_gb", bytes_to_gb(s.capacity_bytes)},
                         {"spare_gb", bytes_to_gb(s.capacity_bytes - s.bytes)},
                         {"fits", s.bytes <= s.capacity_bytes}}));
    if (s.layers == 0 && !s.output) {
      warnings.push_back(Message{"warning.split_idle_card", obj({{"gpu", gpu.name}})});
    }
  }
  json assumptions = json::array();
  // Where llama.cpp places them: quoted, as the reader finds it in its source.
  const Message source{"quote.text",
                       obj({{"text", "--split-mode layer, src/llama-model.cpp load_tensors"}})};
  assumptions.push_back(
      Message{"assumption.split", obj({{"layers", in.model.num_layers()}, {"source", source}})});
  if (m.order.max_context > m.order.given_max_context) {
    assumptions.push_back(
        Message{"assumption.split_order",
                obj({{"order", Message{"quote.text", obj({{"text", "--device " + devices}})}},
                     {"context", m.order.max_context},
                     {"given", m.order.given_max_context}})});
  }
  if (!m.split.fits) {
    warnings.push_back(Message{"warning.split_short", obj({{"context", in.setup.context},
                                                           {"max_context", m.order.max_context}})});
  }
  json split = obj({{"cards", std::move(cards)},
                    {"order", std::move(order)},
                    {"devices", devices},
                    {"tensor_split", m.split.tensor_split},
                    {"fits", m.split.fits},
                    {"fill", m.split.fill},
                    {"max_context", m.order.max_context},
                    {"given_max_context", m.order.given_max_context},
                    {"decode_tokens_per_s", m.decode_tokens_per_s}});
  return obj({{"split", std::move(split)},
              {"assumptions", std::move(assumptions)},
              {"warnings", std::move(warnings)}});
}

}  // namespace vram::answer
