// The serving plan (serving.hpp): N cards serving one model under an
// engine. The issue's broken cases, and properties over the presets: a
// layout is always legal, more users or context never lowers the cards
// needed, and no speed is shown for a setup that does not fit.

#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include <doctest/doctest.h>

#include "helpers.hpp"
#include "vram/catalog.hpp"
#include "vram/error.hpp"
#include "vram/serving.hpp"

using nlohmann::json;

namespace {

json issue_case(int gpus) {
  return {{"model", "llama-3.1-70b"}, {"weights", "fp8"},  {"context", 32768}, {"batch", 20},
          {"engine", "vllm"},         {"gpu", "h200-sxm"}, {"gpu_count", gpus}};
}

vram::ModelSpec preset(const std::string& id) {
  for (const auto& m : testing::calculator().catalog().models) {
    if (m.id == id) return vram::resolve_preset(m).model;
  }
  throw std::runtime_error("no preset " + id);
}

}  // namespace

TEST_CASE("70B FP8 at 32k x 20 users on 4x H200 under vLLM: tensor parallel 4, and it fits") {
  const json r = testing::estimate(issue_case(4));
  const json& s = r.at("serving");
  CHECK(s.at("gpus") == 4);
  CHECK(s.at("tensor_parallel") == 4);
  CHECK(s.at("pipeline_parallel") == 1);
  CHECK(r.at("tensor_parallel") == 4);
  CHECK(r.at("engine").at("options").at("tensor_parallel_size") == 4);
  CHECK(s.at("fits") == true);
  CHECK(r.at("fit").at("fits") == true);
  // Counted over the same cards: spare = capacity - per-GPU need x 4.
  const double per_gpu = s.at("per_gpu_gb").get<double>();
  CHECK(per_gpu == doctest::Approx(r.at("total_gb").get<double>()));
  CHECK(s.at("total_gb").get<double>() == doctest::Approx(4 * per_gpu));
  CHECK(r.at("fit").at("spare_gb").get<double>() ==
        doctest::Approx(r.at("fit").at("capacity_gb").get<double>() - 4 * per_gpu));
  CHECK(r.at("fit").at("spare_gb").get<double>() > 0);
  CHECK(s.at("kv_budget_total_gb").get<double>() ==
        doctest::Approx(4 * s.at("kv_budget_gb").get<double>()));
  // Each card holds a quarter of the 70.55 GB of weights and of the 214.7 GB cache.
  CHECK(per_gpu < 80);
  CHECK(s.at("max_users").get<int>() >= 20);
  CHECK(s.at("cards_needed") == 4);
  CHECK(r.contains("decode"));
  CHECK(r.at("decode").at("gpus") == 4);
}

TEST_CASE("the same load on fewer H200s does not fit, says how many it needs, and shows no speed") {
  for (int gpus : {1, 2}) {
    CAPTURE(gpus);
    const json r = testing::estimate(issue_case(gpus));
    const json& s = r.at("serving");
    CHECK(s.at("fits") == false);
    CHECK(r.at("fit").at("fits") == false);
    CHECK(r.at("fit").at("spare_gb").get<double>() < 0);
    CHECK(s.at("max_users").get<int>() < 20);
    CHECK(s.at("cards_needed") == 4);
    CHECK_FALSE(r.contains("decode"));
    bool warned = false;
    for (const json& w : r.at("warnings")) warned = warned || w.at("id") == "warning.cards_needed";
    CHECK(warned);
  }
}

TEST_CASE("DeepSeek V3 on one H200 shows no decode speed; on eight it does") {
  json q = {{"model", "deepseek-v3"}, {"engine", "vllm"}, {"gpu", "h200-sxm"}};
  const json one = testing::estimate(q);
  CHECK(one.at("fit").at("fits") == false);
  CHECK_FALSE(one.contains("decode"));
  q["gpu_count"] = 8;
  const json eight = testing::estimate(q);
  CHECK(eight.at("fit").at("fits") == true);
  CHECK(eight.contains("decode"));
}

TEST_CASE("explicit tensor and pipeline sizes give the count, and must agree with gpu_count") {
  json q = issue_case(4);
  q.erase("gpu_count");
  q["engine_options"] = {{"tensor_parallel_size", 2}, {"pipeline_parallel_size", 2}};
  const json r = testing::estimate(q);
  CHECK(r.at("serving").at("gpus") == 4);
  CHECK(r.at("serving").at("split") == "tensor_pipeline");
  CHECK(r.at("gpu_count") == 4);

  q["gpu_count"] = 8;
  CHECK_THROWS_WITH_AS(testing::estimate(q), doctest::Contains("gpu_count 8"), vram::Error);
  try {
    testing::estimate(q);
  } catch (const vram::Error& e) {
    CHECK(e.field() == "gpu_count");
    CHECK(e.code() == "invalid_value");
  }
  // 64 query heads and 8 KV heads: TP 3 splits neither.
  json bad = issue_case(3);
  bad.erase("gpu_count");
  bad["engine_options"] = {{"tensor_parallel_size", 3}};
  try {
    testing::estimate(bad);
    FAIL("TP 3 accepted");
  } catch (const vram::Error& e) {
    CHECK(e.field() == "engine_options.tensor_parallel_size");
  }
}

TEST_CASE("three cards of a 64-head model: no legal TP 3, so three pipeline stages") {
  const json r = testing::estimate(issue_case(3));
  CHECK(r.at("serving").at("tensor_parallel") == 1);
  CHECK(r.at("serving").at("pipeline_parallel") == 3);
}

TEST_CASE("beyond one node: tensor parallel within the node, pipeline stages across") {
  const json r = testing::estimate({{"model", "llama-3.1-405b"},
                                    {"weights", "bf16"},
                                    {"engine", "vllm"},
                                    {"gpu", "h100-sxm"},
                                    {"gpu_count", 16}});
  CHECK(r.at("serving").at("tensor_parallel") == 8);
  CHECK(r.at("serving").at("pipeline_parallel") == 2);
  CHECK(r.at("serving").at("nodes") == 2);
}

TEST_CASE("more GPUs than KV heads: vLLM replicates them (TP 8 over 4 KV heads)") {
  const vram::ModelSpec m = preset("qwen3-30b-a3b");
  REQUIRE(m.num_kv_heads == 4);
  CHECK(vram::tensor_parallel_legal(m, 8));
  const json r = testing::estimate(
      {{"model", "qwen3-30b-a3b"}, {"engine", "vllm"}, {"gpu", "l40s"}, {"gpu_count", 8}});
  CHECK(r.at("serving").at("tensor_parallel") == 8);
  CHECK(r.at("serving").at("kv_heads_replicated") == true);
}

TEST_CASE("llama.cpp's layer split: each card holds its layers, and the cards read in turn") {
  json q = {{"model", "llama-3.1-70b"},
            {"weights", "q4_k_m"},
            {"engine", "llamacpp"},
            {"gpu", "rtx-4090"},
            {"gpu_count", 4}};
  const json four = testing::estimate(q);
  CHECK(four.at("serving").at("split") == "layer");
  CHECK(four.at("serving").at("tensor_parallel") == 1);
  // Not the sum of four cards' bandwidth: one card's, as each reads its share in turn.
  CHECK(four.at("decode").at("gpus") == 1);
  CHECK(four.at("decode").at("bandwidth_gbps").get<double>() ==
        doctest::Approx(four.at("gpu").at("bandwidth_gbps").get<double>()));
  double weights = 0;
  for (const json& t : four.at("terms")) {
    if (t.at("id") == "weights") weights = t.at("gb").get<double>();
  }
  // 80 layers over 4 cards: 20 each, a quarter of the GPU-resident weights.
  CHECK(weights < four.at("weights_gb").get<double>() / 4 + 0.01);
  q["gpu_count"] = 1;
  CHECK(testing::estimate(q).at("fit").at("fits") == false);
}

TEST_CASE("property: every layout chosen is legal for its model") {
  const auto& catalog = testing::calculator().catalog();
  for (const auto& entry : catalog.models) {
    const vram::ModelSpec model = vram::resolve_preset(entry).model;
    for (const char* engine_id : {"vllm", "sglang"}) {
      const vram::EngineProfile& engine = vram::find_engine(catalog.engines, engine_id, "engine");
      for (int gpus : {1, 2, 3, 4, 5, 6, 7, 8, 12, 16, 24, 32, 64}) {
        CAPTURE(model.id);
        CAPTURE(engine_id);
        CAPTURE(gpus);
        vram::ServingLayout layout;
        try {
          layout = vram::choose_layout(model, engine, gpus, 8);
        } catch (const vram::Error& e) {
          CHECK(e.field() == "gpu_count");
          CHECK(gpus > model.num_layers());
          continue;
        }
        CHECK(layout.gpus == gpus);
        CHECK(layout.tensor_parallel * layout.pipeline_parallel == gpus);
        CHECK(layout.tensor_parallel <= 8);
        CHECK(layout.pipeline_parallel <= model.num_layers());
        const std::int64_t tp = layout.tensor_parallel;
        CHECK(model.num_heads % tp == 0);
        const bool mla = std::any_of(model.layers.begin(), model.layers.end(), [](const auto& l) {
          return l.attention == vram::LayerAttention::kMla;
        });
        if (!mla && model.num_kv_heads > 0) {
          CHECK((model.num_kv_heads % tp == 0 || tp % model.num_kv_heads == 0));
        }
      }
    }
  }
}

TEST_CASE("property: more users or context never lowers the cards needed") {
  const std::vector<std::string> models = {"llama-3.1-8b", "llama-3.1-70b", "qwen3-30b-a3b",
                                           "gemma-3-27b", "deepseek-v2-lite"};
  const std::vector<std::string> engines = {"vllm", "sglang", "llamacpp", "guide"};
  const std::vector<std::string> cards = {"rtx-4090", "l40s", "h100-sxm", "h200-sxm"};
  for (const std::string& model : models) {
    for (const std::string& engine : engines) {
      for (const std::string& gpu : cards) {
        json q = {{"model", model}, {"engine", engine}, {"gpu", gpu}};
        if (engine == "llamacpp") q["weights"] = "q4_k_m";
        int last = 0;
        for (const auto& [context, batch] : std::vector<std::pair<int, int>>{
                 {2048, 1}, {8192, 1}, {8192, 8}, {32768, 8}, {32768, 32}, {131072, 32}}) {
          q["context"] = context;
          q["batch"] = batch;
          CAPTURE(q.dump());
          const json& needed = testing::estimate(q).at("serving").at("cards_needed");
          const int n = needed.is_null() ? 1 << 20 : needed.get<int>();
          CHECK(n >= last);
          last = n;
        }
      }
    }
  }
}

TEST_CASE("property: no decode speed for a setup that does not fit") {
  const std::vector<std::string> models = {"llama-3.1-8b", "llama-3.1-70b", "qwen3-235b-a22b",
                                           "deepseek-v3", "gpt-oss-120b"};
  int shown = 0, withheld = 0;
  for (const std::string& model : models) {
    for (const char* engine : {"vllm", "sglang", "llamacpp", "guide", "percent"}) {
      for (const char* gpu : {"rtx-4090", "h100-sxm", "h200-sxm"}) {
        for (int gpus : {1, 2, 8}) {
          json q = {{"model", model}, {"engine", engine}, {"gpu", gpu}, {"gpu_count", gpus}};
          if (std::string(engine) == "llamacpp") q["weights"] = "q4_k_m";
          json r;
          try {
            r = testing::estimate(q);
          } catch (const vram::Error& e) {
            CHECK(e.code() == "invalid_value");
            continue;
          }
          CAPTURE(q.dump());
          const bool fits = r.at("fit").at("fits").get<bool>();
          CHECK(fits == r.at("serving").at("fits").get<bool>());
          CHECK(r.contains("decode") == fits);
          (fits ? shown : withheld) += 1;
        }
      }
    }
  }
  CHECK(shown > 20);
  CHECK(withheld > 20);
}

TEST_CASE("best format per engine and card: FP8 where the card has it, no GGUF outside llama.cpp") {
  auto formats_of = [](const json& r) {
    std::vector<std::string> ids;
    for (const json& f : r.at("inverse").at("formats")) ids.push_back(f.at("format"));
    return ids;
  };
  auto row = [](const json& r, const std::string& id) {
    for (const json& f : r.at("inverse").at("formats")) {
      if (f.at("format") == id) return f;
    }
    return json();
  };
  // At 2,048 tokens: FP8 keeps the embeddings and the head in BF16 (its
  // `covers`), which leaves one H100 room for about 3,500 tokens under vLLM.
  SUBCASE("Llama 70B on one H100 under vLLM: FP8, never GGUF or FP32") {
    const json r = testing::estimate(
        {{"model", "llama-3.1-70b"}, {"engine", "vllm"}, {"gpu", "h100-sxm"}, {"context", 2048}});
    CHECK(r.at("inverse").at("best_format") == "fp8");
    for (const std::string& id : formats_of(r)) {
      CHECK(id.rfind("q", 0) != 0);  // no GGUF q*_*
      CHECK(id != "fp32");           // wider than the BF16 checkpoint
    }
  }
  SUBCASE("on 4x H200 the best is the checkpoint's own BF16, not FP32") {
    const json r = testing::estimate(
        {{"model", "llama-3.1-70b"}, {"engine", "vllm"}, {"gpu", "h200-sxm"}, {"gpu_count", 4}});
    CHECK(r.at("inverse").at("best_format") == "bf16");
  }
  SUBCASE("NVFP4 needs Blackwell's FP4 tensor cores") {
    const json hopper =
        testing::estimate({{"model", "llama-3.1-8b"}, {"engine", "vllm"}, {"gpu", "h200-sxm"}});
    CHECK(row(hopper, "nvfp4").at("supported") == false);
    CHECK(row(hopper, "nvfp4").at("fits") == false);
    const json blackwell =
        testing::estimate({{"model", "llama-3.1-8b"}, {"engine", "vllm"}, {"gpu", "b200"}});
    CHECK(row(blackwell, "nvfp4").at("supported") == true);
  }
  SUBCASE("FP8 on an Ampere card is not supported; llama.cpp lists GGUF formats") {
    const json ampere =
        testing::estimate({{"model", "llama-3.1-8b"}, {"engine", "llamacpp"}, {"gpu", "a100-sxm"}});
    std::vector<std::string> ids = formats_of(ampere);
    CHECK(std::find(ids.begin(), ids.end(), "q4_k_m") != ids.end());
    CHECK(std::find(ids.begin(), ids.end(), "awq-int4") == ids.end());
    const json vllm =
        testing::estimate({{"model", "llama-3.1-8b"}, {"engine", "vllm"}, {"gpu", "a100-sxm"}});
    CHECK(row(vllm, "fp8").at("supported") == false);
  }
}

TEST_CASE("which cards to rent under every engine: each card's fewest count that holds the load") {
  for (const char* engine : {"vllm", "sglang", "llamacpp"}) {
    CAPTURE(engine);
    json q = {{"model", "llama-3.1-70b"}, {"engine", engine}, {"context", 32768}, {"batch", 20}};
    q["weights"] = std::string(engine) == "llamacpp" ? "q4_k_m" : "fp8";
    // Which cards hold it, whatever their speed: under llama.cpp twenty users at 32k decode
    // under the default floor on every set (the kernels' bandwidth cap), and the rows would go.
    q["min_tokens_per_s"] = 0;
    const json r = testing::estimate(q);
    const json& fits = r.at("fits");
    double last = 0;
    json whole = json::array();  // the sets that hold it all on their cards (no partial offload)
    for (const json& row : fits) {
      CHECK(row.at("monthly_usd").get<double>() >= last);
      last = row.at("monthly_usd").get<double>();
      if (!row.contains("offload")) whole.push_back(row);
    }
    REQUIRE(whole.size() >= 3);
    for (std::size_t i = 0; i < 3; ++i) {
      const json& row = whole[i];
      json on = q;
      on["gpu"] = row.at("gpu");
      on["gpu_count"] = row.at("count");
      CAPTURE(on.dump());
      const json direct = testing::estimate(on);
      CHECK(direct.at("serving").at("fits") == true);
      CHECK(direct.at("serving").at("cards_needed").get<int>() <= row.at("count").get<int>());
      CHECK(row.at("spare_gb").get<double>() ==
            doctest::Approx(direct.at("fit").at("spare_gb").get<double>()));
    }
  }
}

namespace {

json deepseek_on_8(const json& options) {
  json q = {{"model", "deepseek-v3"}, {"context", 32768},  {"batch", 64},
            {"engine", "vllm"},       {"gpu", "h200-sxm"}, {"gpu_count", 8}};
  if (!options.empty()) q["engine_options"] = options;
  return q;
}

}  // namespace

TEST_CASE("DeepSeek V3 on 8x H200 under vLLM: tensor, expert, and expert with DP attention") {
  const json tensor = testing::estimate(deepseek_on_8(json::object()));
  const json expert = testing::estimate(deepseek_on_8({{"expert_parallel", true}}));
  const json dp =
      testing::estimate(deepseek_on_8({{"expert_parallel", true}, {"data_parallel_size", 8}}));
  const json& lt = tensor.at("serving").at("moe_layout");
  const json& le = expert.at("serving").at("moe_layout");
  const json& ld = dp.at("serving").at("moe_layout");
  CHECK(lt.at("id") == "tensor");
  CHECK(lt.at("experts_per_gpu").is_null());
  CHECK(le.at("id") == "expert");
  CHECK(le.at("expert_parallel_size") == 8);
  CHECK(le.at("experts_per_gpu") == 32);  // 256 routed experts, whole, over 8 cards
  CHECK(ld.at("id") == "expert_dp_attention");
  CHECK(ld.at("attention_tensor_parallel") == 1);
  CHECK(ld.at("data_parallel") == 8);
  CHECK(dp.at("serving").at("tensor_parallel") == 1);
  CHECK(dp.at("serving").at("gpus") == 8);
  // 256 experts divide by 8: whole experts weigh what split ones do.
  CHECK(testing::required_gb(expert, "weights") ==
        doctest::Approx(testing::required_gb(tensor, "weights")));
  // DP attention keeps a copy of attention and the dense parts on every card...
  CHECK(testing::required_gb(dp, "weights") > testing::required_gb(tensor, "weights") + 5);
  // ...but each rank caches only its own users: an MLA latent, which tensor
  // parallelism copies onto every card, so concurrency multiplies.
  const double users_tp = tensor.at("serving").at("max_concurrency").get<double>();
  const double users_dp = dp.at("serving").at("max_concurrency").get<double>();
  CHECK(users_dp > 4 * users_tp);
  CHECK(tensor.at("serving").at("fits") == false);  // 64 users at 32k: only DP attention holds them
  CHECK(dp.at("serving").at("fits") == true);
  // The ranks' caches add up: 8 x what one card's budget holds, over the context.
  const json& b = dp.at("budget");
  CHECK(dp.at("serving").at("kv_tokens").get<double>() ==
        doctest::Approx(8 *
                        std::floor(dp.at("serving").at("kv_budget_gb").get<double>() * 1e9 /
                                   (16 * b.at("kv_bytes_per_token").get<double>())) *
                        16)
            .epsilon(1e-6));
  // Each rank's cache holds ceil(64 / 8) users.
  CHECK(testing::required_gb(dp, "kv_cache") ==
        doctest::Approx(testing::required_gb(tensor, "kv_cache") / 8).epsilon(0.01));
  const std::string cmd = dp.at("launch").at("command").get<std::string>();
  CHECK(cmd.find(" --data-parallel-size 8") != std::string::npos);
  CHECK(cmd.find(" --enable-expert-parallel") != std::string::npos);
  CHECK(cmd.find("--tensor-parallel-size") == std::string::npos);
  const std::string cmd_ep = expert.at("launch").at("command").get<std::string>();
  CHECK(cmd_ep.find(" --tensor-parallel-size 8 --enable-expert-parallel") != std::string::npos);
  CHECK(cmd_ep.find("--data-parallel-size") == std::string::npos);
  const std::string cmd_tp = tensor.at("launch").at("command").get<std::string>();
  CHECK(cmd_tp.find("expert") == std::string::npos);
  // Under SGLang: --tp counts every card, attention over --tp / --dp of them.
  json q = deepseek_on_8({{"expert_parallel", true}, {"data_parallel_size", 8}});
  q["engine"] = "sglang";
  const std::string sg = testing::estimate(q).at("launch").at("command").get<std::string>();
  CHECK(sg.find(" --tp 8 --ep-size 8 --dp 8 --enable-dp-attention") != std::string::npos);
}

TEST_CASE("DP attention: the MoE layers' dispatch and combine replace attention's all-reduce") {
  json q = deepseek_on_8({{"expert_parallel", true}, {"data_parallel_size", 8}});
  q["batch"] = 8;
  const json dp = testing::estimate(q);
  REQUIRE(dp.contains("decode"));
  const json& step = dp.at("decode").at("step_ms");
  CHECK(step.at("allreduce").get<double>() == 0);  // attention on one card per rank
  CHECK(step.at("alltoall").get<double>() > 0);
  CHECK(dp.at("decode").at("gpus") == 8);
  q.erase("engine_options");
  const json tensor = testing::estimate(q);
  CHECK(tensor.at("decode").at("step_ms").at("alltoall").get<double>() == 0);
  CHECK(tensor.at("decode").at("step_ms").at("allreduce").get<double>() > 0);
}

TEST_CASE("expert parallel and DP attention: named errors for what the engines reject") {
  auto field_of = [](json q) {
    try {
      testing::estimate(q);
    } catch (const vram::Error& e) {
      return e.field();
    }
    return std::string("none");
  };
  json dense = issue_case(4);
  dense["engine_options"] = {{"expert_parallel", true}};
  CHECK(field_of(dense) == "engine_options.expert_parallel");
  dense["engine_options"] = {{"data_parallel_size", 2}};
  CHECK(field_of(dense) == "engine_options.data_parallel_size");
  // Mixtral has 8 experts: 16 expert-parallel cards would leave some empty.
  json mixtral = {{"model", "mixtral-8x7b"},
                  {"engine", "vllm"},
                  {"gpu", "h100-sxm"},
                  {"gpu_count", 16},
                  {"engine_options", {{"expert_parallel", true}, {"data_parallel_size", 16}}}};
  CHECK(field_of(mixtral) == "engine_options.expert_parallel");
  // Three cards: vLLM gives the first two ranks 3 experts and the last 2; SGLang refuses.
  mixtral["gpu_count"] = 3;
  mixtral["engine_options"] = {{"expert_parallel", true}, {"data_parallel_size", 3}};
  CHECK(field_of(mixtral) == "none");
  CHECK(testing::estimate(mixtral).at("serving").at("moe_layout").at("experts_per_gpu") == 3);
  mixtral["engine"] = "sglang";
  CHECK(field_of(mixtral) == "engine_options.expert_parallel");
  // Six cards do not split into four equal ranks.
  json deepseek = deepseek_on_8({{"data_parallel_size", 4}});
  deepseek["gpu_count"] = 6;
  CHECK(field_of(deepseek) == "gpu_count");
  // Without gpu_count, data_parallel_size ranks of one card each.
  deepseek.erase("gpu_count");
  deepseek["engine_options"] = {{"data_parallel_size", 2}, {"tensor_parallel_size", 4}};
  CHECK(testing::estimate(deepseek).at("serving").at("gpus") == 8);
}

TEST_CASE("property: MoE layouts are legal, and only replication adds weight over the cards") {
  const auto& catalog = testing::calculator().catalog();
  int checked = 0;
  for (const auto& entry : catalog.models) {
    const vram::ModelSpec model = vram::resolve_preset(entry).model;
    if (!model.is_moe()) continue;
    for (const char* engine : {"vllm", "sglang"}) {
      for (int gpus : {1, 2, 3, 4, 8}) {
        for (int variant = 0; variant < 4; ++variant) {
          const bool ep = variant % 2 == 1;
          const int dp = variant >= 2 ? gpus : 1;
          CAPTURE(entry.id);
          CAPTURE(engine);
          CAPTURE(gpus);
          CAPTURE(variant);
          json r;
          try {
            r = testing::estimate(
                {{"model", entry.id},
                 {"engine", engine},
                 {"context", 4096},
                 {"batch", 16},
                 {"gpu", "h200-sxm"},
                 {"gpu_count", gpus},
                 {"engine_options", {{"expert_parallel", ep}, {"data_parallel_size", dp}}}});
          } catch (const vram::Error& e) {
            // Refused only where an engine refuses: more ranks than experts,
            // experts SGLang cannot share evenly, heads no TP divides.
            const std::int64_t experts = model.moe.num_experts;
            const bool refused = (ep && gpus > experts) ||
                                 (ep && std::string(engine) == "sglang" && experts % gpus != 0) ||
                                 e.field() == "gpu_count";
            CHECK_MESSAGE(refused, e.what());
            continue;
          }
          const json& sv = r.at("serving");
          const json& ml = sv.at("moe_layout");
          CHECK(sv.at("gpus") == gpus);
          CHECK(sv.at("tensor_parallel").get<int>() * sv.at("pipeline_parallel").get<int>() *
                    sv.at("data_parallel").get<int>() ==
                gpus);
          CHECK(ml.at("moe_group") == sv.at("tensor_parallel").get<int>() * dp);
          const int group = ml.at("moe_group").get<int>();
          if (ep) {
            const std::int64_t per = ml.at("experts_per_gpu").get<std::int64_t>();
            CHECK(per * group >= model.moe.num_experts);
            CHECK((per - 1) * group < model.moe.num_experts);
          }
          // Per card x cards = a copy of the non-expert weights per DP rank,
          // the routed experts once (padded to whole experts on the fullest card).
          const double per_gpu = testing::required_gb(r, "weights");
          const double total = r.at("weights_gb").get<double>();
          const double over_cards = per_gpu * gpus;
          CHECK(over_cards >= total * (1 - 1e-9));
          double routed = total;  // without the split: no replication at all
          for (const json& t : r.at("terms")) {
            if (t.at("id") == "weights" && t.at("inputs").contains("routed_experts_gb")) {
              routed = t.at("inputs").at("routed_experts_gb").get<double>();
            }
          }
          if (dp == 1 && !ep) {
            CHECK(over_cards == doctest::Approx(total));
          } else {
            const double rest = total - routed;
            const double padded = ep ? routed * group * ml.at("experts_per_gpu").get<double>() /
                                           static_cast<double>(model.moe.num_experts)
                                     : routed;
            CHECK(over_cards == doctest::Approx(rest * dp + padded));
          }
          ++checked;
        }
      }
    }
  }
  CHECK(checked > 150);
}

TEST_CASE(
    "property: DP attention adds the ranks' caches up; an MLA latent is whole on every card") {
  const auto& catalog = testing::calculator().catalog();
  int checked = 0;
  for (const auto& entry : catalog.models) {
    const vram::ModelSpec model = vram::resolve_preset(entry).model;
    const bool mla = std::any_of(model.layers.begin(), model.layers.end(), [](const auto& l) {
      return l.attention == vram::LayerAttention::kMla;
    });
    if (!model.is_moe() || !mla) continue;
    for (const char* engine : {"vllm", "sglang"}) {
      for (int gpus : {2, 4, 8}) {
        CAPTURE(entry.id);
        CAPTURE(engine);
        CAPTURE(gpus);
        json q = {{"model", entry.id}, {"engine", engine},  {"context", 8192},
                  {"batch", 4},        {"gpu", "h200-sxm"}, {"gpu_count", gpus}};
        const json tp = testing::estimate(q);
        q["engine_options"] = {{"data_parallel_size", gpus}};
        const json dp = testing::estimate(q);
        // The same latent bytes per token on each card: tensor parallel does not split it.
        CHECK(dp.at("budget").at("kv_bytes_per_token").get<double>() ==
              doctest::Approx(tp.at("budget").at("kv_bytes_per_token").get<double>()));
        // Every rank holds its own tokens: the sum is gpus x one card's.
        const double per_card = dp.at("serving").at("kv_budget_gb").get<double>() * 1e9 /
                                dp.at("budget").at("kv_bytes_per_token").get<double>();
        const double users = dp.at("serving").at("max_concurrency").get<double>();
        if (per_card <= 0) continue;
        CHECK(users == doctest::Approx(gpus * per_card / 8192).epsilon(0.01));
        // A copy of attention per rank costs room, but never a factor of the ranks.
        const double tp_users = tp.at("serving").at("max_concurrency").get<double>();
        if (tp_users > 0) CHECK(users > tp_users);
        ++checked;
      }
    }
  }
  CHECK(checked >= 6);
}
