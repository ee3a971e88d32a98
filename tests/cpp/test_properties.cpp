// Properties over many random inputs: more context, batch or bits never
// lowers the total; batch multiplies the KV cache and nothing else; an FP8
// KV cache is half an FP16 one.
#include <doctest/doctest.h>

#include <random>

#include "helpers.hpp"

using nlohmann::json;

namespace {

struct Draw {
  std::mt19937_64 rng{20261129};  // fixed seed: the same cases every run
  template <typename T>
  const T& pick(const std::vector<T>& items) {
    return items[std::uniform_int_distribution<std::size_t>(0, items.size() - 1)(rng)];
  }
  std::int64_t between(std::int64_t lo, std::int64_t hi) {
    return std::uniform_int_distribution<std::int64_t>(lo, hi)(rng);
  }
};

std::vector<std::string> model_ids() {
  std::vector<std::string> ids;
  for (const auto& preset : testing::calculator().catalog().models) ids.push_back(preset.id);
  return ids;
}

std::vector<std::string> weight_ids() {
  std::vector<std::string> ids;
  for (const auto& f : testing::calculator().catalog().formats.weights()) ids.push_back(f.id);
  return ids;
}

const std::vector<std::string> kEngines = {"guide", "percent", "llamacpp", "vllm", "sglang"};
const std::vector<std::string> kKv = {"fp16", "bf16", "fp8", "q8_0", "q4_0"};

json random_request(Draw& draw) {
  json r = {{"model", draw.pick(model_ids())},
            {"weights", draw.pick(weight_ids())},
            {"kv", draw.pick(kKv)},
            {"context", draw.between(1, 200000)},
            {"batch", draw.between(1, 64)},
            {"engine", draw.pick(kEngines)}};
  if (draw.between(0, 1) == 1) r["gpu"] = "h200-sxm";
  return r;
}

double total(const json& request) {
  return testing::estimate(request).at("total_gb").get<double>();
}

}  // namespace

TEST_CASE("the total never falls when context, batch or bits rise") {
  Draw draw;
  for (int i = 0; i < 300; ++i) {
    json r = random_request(draw);
    INFO(r.dump());
    const double base = total(r);
    json more_context = r;
    more_context["context"] = r["context"].get<std::int64_t>() + draw.between(1, 100000);
    CHECK(total(more_context) >= base);
    json more_batch = r;
    more_batch["batch"] = r["batch"].get<std::int64_t>() + draw.between(1, 64);
    CHECK(total(more_batch) >= base);
  }
  // Bits: every format against every format with more bits per weight that
  // covers the same parameters (a linear-layers-only format keeps the
  // embeddings in 16 bits, so it may outweigh an all-parameter one).
  const auto& formats = testing::calculator().catalog().formats.weights();
  for (int i = 0; i < 60; ++i) {
    json r = random_request(draw);
    for (const auto& low : formats) {
      for (const auto& high : formats) {
        if (high.bits_per_weight < low.bits_per_weight || high.covers != low.covers) continue;
        json a = r, b = r;
        a["weights"] = low.id;
        b["weights"] = high.id;
        INFO(r.dump() << " " << low.id << " <= " << high.id);
        CHECK(total(b) >= total(a));
      }
    }
  }
}

TEST_CASE("batch multiplies the KV cache and nothing else") {
  Draw draw;
  for (int i = 0; i < 200; ++i) {
    json r = random_request(draw);
    r["engine"] = "guide";
    r["batch"] = 1;
    const std::int64_t batch = draw.between(2, 128);
    json rb = r;
    rb["batch"] = batch;
    INFO(rb.dump());
    const json one = testing::estimate(r);
    const json many = testing::estimate(rb);
    CHECK(many.at("kv_cache_gb").get<double>() ==
          doctest::Approx(one.at("kv_cache_gb").get<double>() * static_cast<double>(batch))
              .epsilon(1e-12));
    CHECK(many.at("weights_gb").get<double>() == one.at("weights_gb").get<double>());
    CHECK(many.at("overhead_gb").get<double>() == one.at("overhead_gb").get<double>());
  }
}

TEST_CASE("an FP8 KV cache is half an FP16 one") {
  Draw draw;
  for (int i = 0; i < 200; ++i) {
    json r = random_request(draw);
    json fp16 = r, fp8 = r;
    fp16["kv"] = "fp16";
    fp8["kv"] = "fp8";
    INFO(r.dump());
    const json result16 = testing::estimate(fp16);
    const double half = result16.at("kv_cache_gb").get<double>() / 2.0;
    const double kv8 = testing::estimate(fp8).at("kv_cache_gb").get<double>();
    // Attention caches halve exactly; a Mamba state (kept at 16 bits) does not.
    if (result16.at("model").at("attention_layout").contains("state")) {
      CHECK(kv8 >= half);
    } else {
      CHECK(kv8 == doctest::Approx(half).epsilon(1e-12));
    }
  }
}
