// llama.cpp over unequal cards (split.hpp): the layers of a --tensor-split,
// the card order with the most context, and the answer's split section.

#include <algorithm>
#include <numeric>
#include <string>
#include <vector>

#include <doctest/doctest.h>

#include "helpers.hpp"
#include "vram/catalog.hpp"
#include "vram/error.hpp"
#include "vram/split.hpp"

using nlohmann::json;

namespace {

constexpr double kGB = 1e9;

/** n equal layers of `layer` bytes and `kv` cache each, an output layer, buffers. */
vram::OffloadParts uniform(int n, double layer, double kv, double head, double compute,
                           double context) {
  vram::OffloadParts p;
  p.layer_bytes.assign(static_cast<std::size_t>(n), layer);
  p.experts_bytes.assign(static_cast<std::size_t>(n), 0.0);
  p.kv_bytes.assign(static_cast<std::size_t>(n), kv);
  p.head_bytes = head;
  p.compute_bytes = compute;
  p.context_bytes = context;
  return p;
}

int layers_in(const vram::LayerSplit& s) {
  int total = 0;
  for (const vram::CardShare& c : s.cards) total += c.layers;
  return total;
}

/** Slot il goes where llama.cpp sends it (src/llama-model.cpp load_tensors): the first device
 * whose cumulative float fraction exceeds il / (n_layer + 1). */
std::vector<int> llamacpp_devices(const std::vector<int>& split, int n_layer) {
  std::vector<float> cumulative;
  float sum = 0.0f;
  for (int v : split) {
    sum += static_cast<float>(v);
    cumulative.push_back(sum);
  }
  for (float& c : cumulative) c /= sum;
  std::vector<int> device;
  const int slots = n_layer + 1;
  for (int il = 0; il < slots; ++il) {
    const float at = static_cast<float>(il) / static_cast<float>(slots);
    device.push_back(static_cast<int>(std::upper_bound(cumulative.begin(), cumulative.end(), at) -
                                      cumulative.begin()));
  }
  return device;
}

}  // namespace

TEST_CASE("split: a 24 GB and a 12 GB card share 80 layers in proportion to their room") {
  // 0.4 GB of weights and 0.04 GB of cache a layer, 1 GB of output, 0.5 GB of buffers.
  const vram::OffloadParts p = uniform(80, 0.35 * kGB, 0.04 * kGB, 1 * kGB, 0.4 * kGB, 0.1 * kGB);
  const vram::LayerSplit s = vram::split_layers(p, {24 * kGB, 12 * kGB});
  REQUIRE(s.cards.size() == 2);
  CHECK(layers_in(s) == 80);
  CHECK(s.fits);
  CHECK(s.cards[0].first_layer == 0);
  CHECK(s.cards[1].first_layer == s.cards[0].layers);
  CHECK(s.cards[1].output);
  CHECK_FALSE(s.cards[0].output);
  // The larger card takes more layers; each is filled to about the same share.
  CHECK(s.cards[0].layers > s.cards[1].layers);
  CHECK(s.cards[0].bytes / s.cards[0].capacity_bytes ==
        doctest::Approx(s.cards[1].bytes / s.cards[1].capacity_bytes).epsilon(0.05));
  // Each card's bytes are its parts.
  for (const vram::CardShare& c : s.cards) {
    CHECK(c.bytes ==
          doctest::Approx(c.weights_bytes + c.kv_bytes + c.compute_bytes + c.context_bytes));
    CHECK(c.bytes <= c.capacity_bytes);
  }
  // The command's values add up to n_layer + 1 and send each slot where the plan put it.
  CHECK(std::accumulate(s.tensor_split.begin(), s.tensor_split.end(), 0) == 81);
  const std::vector<int> device = llamacpp_devices(s.tensor_split, 80);
  for (int il = 0; il < 80; ++il) {
    CHECK(device[static_cast<std::size_t>(il)] == (il < s.cards[0].layers ? 0 : 1));
  }
  CHECK(device[80] == 1);  // the output layer, on the last card
}

TEST_CASE("split: a card too small for one layer beside its buffers gets none") {
  const vram::OffloadParts p = uniform(32, 0.5 * kGB, 0.05 * kGB, 0.5 * kGB, 0.6 * kGB, 0.3 * kGB);
  // The first card holds its buffers (0.9 GB) and not one layer more.
  const vram::LayerSplit s = vram::split_layers(p, {1.2 * kGB, 24 * kGB});
  REQUIRE(s.cards.size() == 2);
  CHECK(s.cards[0].layers == 0);
  CHECK(s.cards[0].bytes == 0);
  CHECK(s.cards[1].layers == 32);
  CHECK(s.fits);
  CHECK(s.tensor_split == std::vector<int>{0, 33});
}

TEST_CASE("split: cards that cannot hold the model say so, and still place every layer") {
  const vram::OffloadParts p = uniform(40, 1 * kGB, 0.1 * kGB, 1 * kGB, 0.5 * kGB, 0.3 * kGB);
  const vram::LayerSplit s = vram::split_layers(p, {24 * kGB, 12 * kGB});
  CHECK(layers_in(s) == 40);
  CHECK_FALSE(s.fits);
  CHECK(s.fill > 1.0);
  CHECK_FALSE(vram::split_fits(p, {24 * kGB, 12 * kGB}));
}

TEST_CASE("split: the order with the output layer on the roomier card holds more context") {
  // A large output layer (a big vocabulary): on the 12 GB card it costs the context.
  const double kv_per_token = 2e3;  // bytes per token per layer
  const vram::PartsAt at = [&](std::int64_t context) {
    return uniform(48, 0.35 * kGB, kv_per_token * static_cast<double>(context), 3 * kGB, 0.5 * kGB,
                   0.3 * kGB);
  };
  const std::vector<double> caps = {24 * kGB, 12 * kGB};
  const vram::SplitOrder o = vram::best_split_order(at, caps, {"big", "small"}, 10'000'000);
  // Listed big first, the output lands on the small card; the best order puts it on the big one.
  CHECK(o.order == std::vector<int>{1, 0});
  CHECK(o.max_context > o.given_max_context);
  CHECK(o.given_max_context > 0);
  // The found context fits that order, one more token does not.
  const std::vector<double> best = {12 * kGB, 24 * kGB};
  CHECK(vram::split_fits(at(o.max_context), best));
  CHECK_FALSE(vram::split_fits(at(o.max_context + 1), best));
  // Identical cards: one order, the one given.
  const vram::SplitOrder same = vram::best_split_order(at, {24 * kGB, 24 * kGB}, {"a", "a"}, 1000);
  CHECK(same.order == std::vector<int>{0, 1});
}

TEST_CASE("split: decoding passes the cards in turn, each at its own bandwidth") {
  const vram::OffloadParts p = uniform(10, 1 * kGB, 0, 0, 0.1 * kGB, 0.1 * kGB);
  const vram::LayerSplit s = vram::split_layers(p, {24 * kGB, 24 * kGB});
  // 5 GB at 1,000 GB/s, then 5 GB at 500 GB/s: 15 ms a token.
  CHECK(vram::split_decode_tokens_per_s(s, {1000, 500}) == doctest::Approx(1.0 / 0.015));
}

TEST_CASE("split: the answer for a 3090 beside a 5090 under llama.cpp") {
  const json r = testing::estimate({{"model", "llama-3.1-70b"},
                                    {"engine", "llamacpp"},
                                    {"weights", "q4_k_m"},
                                    {"context", 16384},
                                    {"split_gpus", {"rtx-3090", "rtx-5090"}}});
  REQUIRE(r.contains("split"));
  const json& split = r.at("split");
  int layers = 0;
  for (const json& c : split.at("cards")) layers += c.at("layers").get<int>();
  CHECK(layers == 80);
  CHECK(split.at("fits") == true);
  CHECK(split.at("max_context").get<std::int64_t>() >= 16384);
  // The command carries the split, in the order the cards are listed or reordered with --device.
  const std::string command = r.at("launch").at("command");
  CHECK(command.find("--tensor-split") != std::string::npos);
  CHECK(command.find("-ngl 81") != std::string::npos);
}

TEST_CASE("split: named errors for what the split does not take") {
  const json base = {{"model", "llama-3.1-8b"}, {"engine", "llamacpp"}};
  auto code_of = [&](json extra) {
    json request = base;
    for (auto it = extra.begin(); it != extra.end(); ++it) request[it.key()] = it.value();
    try {
      testing::estimate(request);
    } catch (const vram::Error& e) {
      return std::string(e.code()) + " " + e.field();
    }
    return std::string("none");
  };
  CHECK(code_of({{"split_gpus", {"rtx-3090", "rtx-4090"}}, {"gpu", "rtx-3090"}}) ==
        "invalid_value split_gpus");
  CHECK(code_of({{"split_gpus", {"rtx-3090", "rtx-4090"}}, {"gpu_count", 2}}) ==
        "invalid_value split_gpus");
  CHECK(code_of({{"split_gpus", {"a", "b", "c", "d", "e"}}}) == "invalid_value split_gpus");
  CHECK(code_of({{"split_gpus", {"rtx-3090", "nope"}}}) == "unknown_gpu split_gpus[1]");
  json vllm = {{"engine", "vllm"}, {"split_gpus", {"rtx-3090", "rtx-4090"}}};
  CHECK(code_of(vllm) == "not_applicable split_gpus");
}
