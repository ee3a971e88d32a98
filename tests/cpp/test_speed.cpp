// Expected speed (speed.hpp, data/speed.json): properties over the presets
// and the engines. Expected never beats the bandwidth ceiling; tensor
// parallelism over n cards gives less than n times one card; llama.cpp's
// layer split is never faster than one card; more users never raise each
// user's speed; no speed where the answer does not fit; the floor splits
// the cheapest list.

#include <algorithm>
#include <string>
#include <vector>

#include <doctest/doctest.h>

#include "helpers.hpp"
#include "vram/catalog.hpp"
#include "vram/speed.hpp"

using nlohmann::json;

namespace {

const char* const kModels[] = {"llama-3.1-8b", "llama-3.1-70b", "qwen3-30b-a3b", "gemma-3-27b",
                               "gpt-oss-120b", "mixtral-8x7b",  "deepseek-v3",   "bamba-9b"};
const char* const kEngines[] = {"guide", "vllm", "sglang", "llamacpp"};

json request(const std::string& model, const std::string& engine, const std::string& gpu, int cards,
             int batch, int context = 8192) {
  return {{"model", model},     {"engine", engine}, {"gpu", gpu},
          {"gpu_count", cards}, {"batch", batch},   {"context", context}};
}

bool known(const std::string& model) {
  for (const auto& m : testing::calculator().catalog().models) {
    if (m.id == model) return true;
  }
  return false;
}

/** The expected per-user figure, or a negative number when the answer carries none. */
double expected(const json& r) {
  return r.contains("decode") ? r.at("decode").at("expected_tokens_per_s").get<double>() : -1;
}

}  // namespace

TEST_CASE("expected decode never exceeds the bandwidth ceiling, and is positive") {
  for (const char* model : kModels) {
    if (!known(model)) continue;
    for (const char* engine : kEngines) {
      for (const char* gpu : {"h200-sxm", "l40s", "rtx-4090", "mi300x"}) {
        for (int cards : {1, 2, 8}) {
          for (int batch : {1, 16}) {
            json r;
            try {
              r = testing::estimate(request(model, engine, gpu, cards, batch));
            } catch (const std::exception&) {
              continue;  // an illegal layout is a named error, tested elsewhere
            }
            if (!r.contains("decode")) continue;
            INFO(model << " " << engine << " " << gpu << " x" << cards << " batch " << batch);
            const json& d = r.at("decode");
            CHECK(d.at("expected_tokens_per_s").get<double>() > 0);
            CHECK(d.at("expected_tokens_per_s").get<double>() <=
                  d.at("ceiling_tokens_per_s").get<double>());
            CHECK(d.at("ceiling_tokens_per_s") == d.at("stream_tokens_per_s"));
            CHECK(d.at("expected_batch_tokens_per_s").get<double>() ==
                  doctest::Approx(d.at("expected_tokens_per_s").get<double>() * batch));
          }
        }
      }
    }
  }
}

TEST_CASE("tensor parallel over n cards decodes less than n times one card") {
  for (const char* engine : {"vllm", "sglang"}) {
    for (const char* gpu : {"h200-sxm", "h100-sxm", "l40s", "mi300x"}) {
      INFO(engine << " " << gpu);
      const double one = expected(testing::estimate(request("llama-3.1-8b", engine, gpu, 1, 1)));
      REQUIRE(one > 0);
      for (int n : {2, 4, 8}) {
        const json r = testing::estimate(request("llama-3.1-8b", engine, gpu, n, 1));
        REQUIRE(r.at("serving").at("tensor_parallel") == n);
        const double many = expected(r);
        CHECK(many > 0);
        CHECK(many < n * one);
        CHECK(r.at("decode").at("step_ms").at("allreduce").get<double>() > 0);
      }
    }
  }
}

TEST_CASE("the all-reduce costs more over PCIe than over NVLink") {
  const json nvlink = testing::estimate(request("llama-3.1-8b", "vllm", "h100-sxm", 4, 8));
  const json pcie = testing::estimate(request("llama-3.1-8b", "vllm", "h100-pcie", 4, 8));
  CHECK(pcie.at("decode").at("step_ms").at("allreduce").get<double>() >
        nvlink.at("decode").at("step_ms").at("allreduce").get<double>());
}

TEST_CASE("each all-reduce pays the link's latency and the engine's synchronisation") {
  const vram::SpeedData& data = testing::calculator().catalog().speed;
  for (const char* engine : {"vllm", "sglang"}) {
    INFO(engine);
    const vram::SpeedProfile& sp = data.profile(engine);
    REQUIRE(sp.allreduce_sync_s > 0);
    const json one = testing::estimate(request("llama-3.1-8b", engine, "h100-sxm", 1, 1));
    CHECK(one.at("decode").at("step_ms").at("allreduce").get<double>() == 0);
    // Llama-3.1-8B: 32 layers, hidden 4,096; one user's BF16 activations in a ring of 4.
    const json four = testing::estimate(request("llama-3.1-8b", engine, "h100-sxm", 4, 1));
    const double ring = 2.0 * 3 / 4 * 4096 * data.activation_bytes / (900 * 1e9);
    const double calls = 32.0 * data.allreduces_per_layer;
    CHECK(four.at("decode").at("step_ms").at("allreduce").get<double>() ==
          doctest::Approx(calls * (ring + data.latency("switched") + sp.allreduce_sync_s) * 1e3));
  }
}

TEST_CASE("llama.cpp's layer split is never faster than one card reading the whole model") {
  for (const char* gpu : {"h200-sxm", "rtx-4090", "l40s"}) {
    const json one = testing::estimate(request("llama-3.1-8b", "llamacpp", gpu, 1, 1));
    for (int n : {2, 4}) {
      const json r = testing::estimate(request("llama-3.1-8b", "llamacpp", gpu, n, 1));
      INFO(gpu << " x" << n);
      CHECK(r.at("decode").at("stages") == n);
      CHECK(r.at("decode").at("gpus") == 1);
      CHECK(expected(r) <= expected(one));
      // Each card reads its share in turn: the step reads every byte at one card's bandwidth.
      CHECK(r.at("decode").at("bandwidth_gbps") == one.at("decode").at("bandwidth_gbps"));
    }
  }
}

TEST_CASE("more users never raise each user's expected speed") {
  for (const char* model : kModels) {
    if (!known(model)) continue;
    for (const char* engine : kEngines) {
      double last = -1;
      for (int batch : {1, 2, 4, 8, 16, 32, 64, 128}) {
        json r;
        try {
          r = testing::estimate(request(model, engine, "b200", 8, batch, 4096));
        } catch (const std::exception&) {
          break;
        }
        if (!r.contains("decode")) break;
        INFO(model << " " << engine << " batch " << batch);
        const double now = expected(r);
        if (last > 0) CHECK(now <= last);
        last = now;
      }
    }
  }
}

TEST_CASE("no speed and no first-token time where the answer does not fit") {
  const json r = testing::estimate(request("llama-3.1-70b", "vllm", "rtx-4090", 1, 1));
  CHECK_FALSE(r.at("serving").at("fits").get<bool>());
  CHECK_FALSE(r.contains("decode"));
  CHECK_FALSE(r.contains("prefill"));
  const json guide = testing::estimate(request("llama-3.1-70b", "guide", "rtx-4090", 1, 1));
  CHECK_FALSE(guide.contains("decode"));
  CHECK_FALSE(guide.contains("prefill"));
}

TEST_CASE("time to first token: the FLOPs over the card's dense figure at the utilisation") {
  const json r = testing::estimate(request("llama-3.1-8b", "vllm", "h200-sxm", 1, 1, 4096));
  const json& p = r.at("prefill");
  REQUIRE(p.at("known").get<bool>());
  const vram::SpeedProfile& sp = testing::calculator().catalog().speed.profile("vllm");
  CHECK(p.at("utilisation").get<double>() == sp.prefill_utilisation);
  // 2 x active params x tokens at least; attention on top.
  const double dense = 2.0 * r.at("params_active").get<double>() * 4096 / 1e12;
  CHECK(p.at("tflop").get<double>() > dense);
  CHECK(p.at("ttft_s").get<double>() ==
        doctest::Approx(p.at("tflop").get<double>() /
                        (p.at("tflops").get<double>() * sp.prefill_utilisation)));
  // Independently: the H200 measurement (575 TFLOP/s over the 8B forward at 4k) is near.
  CHECK(p.at("ttft_s").get<double>() > 0.08);
  CHECK(p.at("ttft_s").get<double>() < 0.2);
  // A longer prompt takes longer; FP8 weights on Hopper use the FP8 figure.
  const json longer = testing::estimate(request("llama-3.1-8b", "vllm", "h200-sxm", 1, 1, 32768));
  CHECK(longer.at("prefill").at("ttft_s").get<double>() > p.at("ttft_s").get<double>() * 8);
  json fp8 = request("llama-3.1-8b", "vllm", "h200-sxm", 1, 1, 4096);
  fp8["weights"] = "fp8";
  const json f = testing::estimate(fp8);
  CHECK(f.at("prefill").at("fp8").get<bool>());
  CHECK(f.at("prefill").at("ttft_s").get<double>() < p.at("ttft_s").get<double>());
}

TEST_CASE("a card without a stated TFLOP/s gets no first-token time, and says so") {
  const json r = testing::estimate(request("llama-3.1-8b", "llamacpp", "apple-m3-ultra", 1, 1));
  REQUIRE(r.contains("decode"));
  CHECK_FALSE(r.at("prefill").at("known").get<bool>());
  CHECK(r.at("prefill").at("ttft_s").is_null());
  CHECK(r.at("assumptions").dump().find("assumption.speed_no_tflops") != std::string::npos);
}

TEST_CASE("the floor: the cheapest list holds only options meeting it, the rest listed apart") {
  for (const char* engine : kEngines) {
    for (double floor : {0.0, 10.0, 30.0, 1000.0}) {
      json req = {{"model", "llama-3.1-70b"},
                  {"engine", engine},
                  {"batch", 8},
                  {"context", 8192},
                  {"min_tokens_per_s", floor}};
      const json r = testing::estimate(req);
      INFO(engine << " floor " << floor);
      double last = -1;
      for (const json& row : r.at("fits")) {
        CHECK(row.at("decode_expected_tokens_per_s").get<double>() >= floor);
        CHECK(row.at("decode_expected_tokens_per_s").get<double>() <=
              row.at("decode_tokens_per_s").get<double>());
        const double price = row.at("monthly_usd").get<double>();
        CHECK(price >= last);
        last = price;
      }
      for (const json& row : r.at("below_floor")) {
        CHECK(row.at("decode_expected_tokens_per_s").get<double>() < floor);
        // llama.cpp also lists a card too small at every count by its
        // partial-offload plan, with the host RAM it then needs.
        const bool offload = row.at("reason").at("id") == "floor.offload";
        CHECK((row.at("reason").at("id") == "floor.below" ||
               (offload && std::string(engine) == "llamacpp")));
        if (offload) CHECK(row.at("host_gb").get<double>() > 0);
        CHECK(row.at("reason").at("params").at("floor") == floor);
      }
      if (floor == 0.0) CHECK(r.at("below_floor").empty());
      if (floor == 1000.0) CHECK(r.at("fits").empty());
    }
  }
}

TEST_CASE("under an engine a card takes more cards when that meets the floor") {
  // 70B BF16 at 8 users: one H200 cannot hold it; under vLLM the count that
  // holds it and meets a high floor is at least the count that holds it.
  json low = {
      {"model", "llama-3.1-70b"}, {"engine", "vllm"}, {"batch", 8}, {"min_tokens_per_s", 0}};
  json high = low;
  high["min_tokens_per_s"] = 40;
  auto count_of = [](const json& r, const std::string& gpu) {
    for (const json& row : r.at("fits")) {
      if (row.at("gpu") == gpu) return row.at("count").get<int>();
    }
    return 0;
  };
  const json a = testing::estimate(low);
  const json b = testing::estimate(high);
  const int before = count_of(a, "h200-sxm");
  const int after = count_of(b, "h200-sxm");
  REQUIRE(before > 0);
  if (after > 0) CHECK(after >= before);
}

TEST_CASE("min_tokens_per_s is range-checked as a named error") {
  for (const json& bad : {json(-1), json(1e9), json("fast"), json(nullptr)}) {
    json req = {{"model", "llama-3.1-8b"}, {"min_tokens_per_s", bad}};
    try {
      testing::estimate(req);
      FAIL("accepted " << bad.dump());
    } catch (const vram::Error& e) {
      CHECK(e.field() == "min_tokens_per_s");
    }
  }
}

TEST_CASE("speed data: every engine profile cites its source; shares are in (0, 1]") {
  const vram::SpeedData& data = testing::calculator().catalog().speed;
  CHECK(data.engines.size() >= 4);
  for (const vram::SpeedProfile& p : data.engines) {
    INFO(p.engine);
    CHECK(p.source.size() > 40);
    CHECK(p.bandwidth_efficiency > 0);
    CHECK(p.bandwidth_efficiency <= 1);
    CHECK(p.allreduce_sync_s >= 0);
    CHECK(p.allreduce_sync_s < 1e-3);
    for (const auto& [id, share] : p.format_efficiency) {
      CHECK(testing::calculator().catalog().formats.find_weight(id) != nullptr);
      CHECK(share > 0);
      CHECK(share <= 1);
    }
  }
  for (const vram::Gpu& g : testing::calculator().catalog().gpus.gpus) {
    INFO(g.id);
    if (g.tflops_bf16 > 0) CHECK(g.tflops_source.size() > 20);
    if (g.fp8 && g.tflops_bf16 > 0 && g.stack != "metal") CHECK(g.tflops_fp8 > 0);
  }
}

TEST_CASE("an MLA cache is read whole by every card of its tensor-parallel group") {
  // DeepSeek V3 on 8x H200 under vLLM: the weights split eight ways, the
  // latent cache not (shard() keeps it whole), so each card reads 1/8 of
  // the weights and all of the cache in a step.
  const json d = testing::estimate({{"model", "deepseek-v3"},
                                    {"engine", "vllm"},
                                    {"gpu", "h200-sxm"},
                                    {"gpu_count", 8},
                                    {"context", 32768},
                                    {"batch", 8}})
                     .at("decode");
  const double weights = d.at("active_weight_gb").get<double>();
  const double kv = d.at("kv_read_gb").get<double>();
  CHECK(kv > 0);
  CHECK(d.at("bandwidth_gbps").get<double>() ==
        doctest::Approx(4800 * d.at("step_gb").get<double>() / (weights / 8 + kv)));
  CHECK(d.at("bandwidth_gbps").get<double>() < 4800 * 8.0);
}

TEST_CASE("llama.cpp: its kernels' bandwidth cap binds on HBM cards, and says so") {
  const vram::SpeedProfile& p = testing::calculator().catalog().speed.profile("llamacpp");
  REQUIRE(p.kernel_bandwidth_gbps > 0);
  REQUIRE(p.hbm_per_layer_s > 0);
  CHECK(p.kernel_source.size() > 40);
  auto ids = [](const json& notes) {
    std::vector<std::string> out;
    for (const json& n : notes) out.push_back(n.at("id").get<std::string>());
    return out;
  };
  auto has = [](const std::vector<std::string>& v, const std::string& id) {
    return std::find(v.begin(), v.end(), id) != v.end();
  };
  // A100 SXM (HBM2e, 2,040 GB/s): the share is the cap over the card's bandwidth,
  // and each layer costs the GDDR figure plus the HBM one.
  const json a100 = testing::estimate(request("llama-3.1-8b", "llamacpp", "a100-sxm", 1, 1, 512));
  const json& d = a100.at("decode");
  CHECK(d.at("efficiency").get<double>() == doctest::Approx(p.kernel_bandwidth_gbps / 2040));
  CHECK(d.at("step_ms").at("fixed").get<double>() ==
        doctest::Approx(32 * (p.per_layer_s + p.hbm_per_layer_s) * 1e3));
  const auto a100_notes = ids(a100.at("assumptions"));
  CHECK(has(a100_notes, "assumption.speed_kernel_cap"));
  CHECK(has(a100_notes, "assumption.speed_hbm_layers"));
  // RTX 4090 (GDDR6X, 1,010 GB/s): the format's share is below the cap; no HBM cost.
  const json rtx = testing::estimate(request("llama-3.1-8b", "llamacpp", "rtx-4090", 1, 1, 512));
  CHECK(rtx.at("decode").at("efficiency").get<double>() == doctest::Approx(0.85));
  CHECK(rtx.at("decode").at("step_ms").at("fixed").get<double>() ==
        doctest::Approx(32 * p.per_layer_s * 1e3));
  const auto rtx_notes = ids(rtx.at("assumptions"));
  CHECK_FALSE(has(rtx_notes, "assumption.speed_kernel_cap"));
  CHECK_FALSE(has(rtx_notes, "assumption.speed_hbm_layers"));
  // vLLM replays the step as a CUDA graph: neither applies.
  const json vllm = testing::estimate(request("llama-3.1-8b", "vllm", "a100-sxm", 1, 1, 512));
  CHECK(vllm.at("decode").at("efficiency").get<double>() == doctest::Approx(0.7));
  CHECK_FALSE(has(ids(vllm.at("assumptions")), "assumption.speed_hbm_layers"));
}

TEST_CASE("speed data: a kernel cap or HBM layer cost without its source is refused") {
  json speed = testing::read_json("data/speed.json");
  for (json& e : speed.at("engines")) {
    if (e.at("engine") == "llamacpp") e.erase("kernel_source");
  }
  CHECK_THROWS_AS(vram::speed_data_from_json(speed), vram::Error);
  for (json& e : speed.at("engines")) {
    if (e.at("engine") == "llamacpp") {
      e["kernel_source"] = "a source";
      e["kernel_bandwidth_gbps"] = -5;
    }
  }
  CHECK_THROWS_AS(vram::speed_data_from_json(speed), vram::Error);
}

TEST_CASE("FP8 weights on FP8 tensor cores pay each FP8 linear layer's input quantization") {
  const json data = testing::read_json("data/speed.json");
  double quant_us = 0;
  for (const json& e : data.at("engines")) {
    if (e.at("engine") == "vllm") quant_us = e.at("fp8_quant_us").get<double>();
  }
  const double linears = data.at("fp8_linears_per_layer").get<double>();
  REQUIRE(quant_us > 0);
  const json config = testing::read_json("tests/configs/qwen3-8b/config.json");
  auto decode = [&](const char* engine, const char* weights, const char* gpu) {
    return testing::estimate({{"config", config},
                              {"engine", engine},
                              {"weights", weights},
                              {"gpu", gpu},
                              {"context", 640},
                              {"batch", 1}});
  };
  const json fp8 = decode("vllm", "fp8", "h100-sxm");
  const double layers = 36;  // Qwen3-8B's num_hidden_layers
  CHECK(fp8.at("decode").at("step_ms").at("quant").get<double>() ==
        doctest::Approx(layers * linears * quant_us / 1e3));
  CHECK(testing::assumes(fp8, "assumption.speed_fp8_quant"));
  const json& step = fp8.at("decode").at("step_ms");
  CHECK(step.at("total").get<double>() ==
        doctest::Approx(step.at("memory").get<double>() + step.at("quant").get<double>()));
  // BF16 weights, and FP8 on a card without FP8 tensor cores (weight-only kernels), quantize
  // nothing.
  for (const json& other : {decode("vllm", "bf16", "h100-sxm"), decode("vllm", "fp8", "a100-sxm"),
                            decode("llamacpp", "q8_0", "h100-sxm")}) {
    CHECK(other.at("decode").at("step_ms").at("quant").get<double>() == 0.0);
    CHECK_FALSE(testing::assumes(other, "assumption.speed_fp8_quant"));
  }
}
