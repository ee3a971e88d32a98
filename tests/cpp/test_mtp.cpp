// Speculative decoding with the model's own multi-token-prediction layers
// (issue 42 part 2, speculative "mtp"): DeepSeek V3 and GLM-4.5 carry them in
// their checkpoints; vLLM and SGLang load them as the drafter, their weights
// and one KV layer each beside the model's, with the flags that turn them on.

#include <string>
#include <utility>

#include <doctest/doctest.h>

#include "helpers.hpp"
#include "vram/error.hpp"

using nlohmann::json;

namespace {

json request(const std::string& model, const std::string& engine, const std::string& gpu, int gpus,
             bool mtp) {
  json r = {{"model", model},    {"engine", engine}, {"gpu", gpu},
            {"gpu_count", gpus}, {"context", 8192},  {"draft_tokens", 1}};
  if (mtp) r["speculative"] = "mtp";
  return r;
}

using testing::term;

using testing::refusal;

}  // namespace

TEST_CASE("vLLM: DeepSeek V3's MTP module and one latent cache layer on each card, no head") {
  const json alone = testing::estimate(request("deepseek-v3", "vllm", "h200-sxm", 8, false));
  const json both = testing::estimate(request("deepseek-v3", "vllm", "h200-sxm", 8, true));
  const json& weights = term(both, "mtp_weights");
  const json& params = weights.at("formula").at("params");
  CHECK(weights.at("formula").at("id") == "formula.mtp_weights");
  CHECK(params.at("modules") == 1);
  CHECK(params.at("gpus") == 8);
  // The module's shared_head.head is replaced by the model's once loaded (vLLM's
  // _maybe_share_lm_head): no output head of its own, 129,280 x 7,168 x 2 bytes fewer.
  CHECK_FALSE(params.contains("head"));
  // One MoE decoder layer in the checkpoint's FP8 with its block scales: about an
  // eleventh of a billion parameters' worth of bytes per expert block, 11 to 13 GB in all.
  const double layers_gb = params.at("layers").get<double>() / 1e9;
  CHECK(layers_gb > 11);
  CHECK(layers_gb < 13);
  CHECK(weights.at("gb").get<double>() ==
        doctest::Approx(params.at("layers").get<double>() / 8 / 1e9));
  // Every layer is MLA: one more layer's latent per token (61 before, 62 now).
  const double per_token = alone.at("budget").at("kv_bytes_per_token").get<double>();
  CHECK(both.at("budget").at("kv_bytes_per_token").get<double>() ==
        doctest::Approx(per_token * 62 / 61));
  CHECK(testing::term_gb(both, "mtp_kv") ==
        doctest::Approx(testing::term_gb(alone, "kv_cache") / 61));
  // The module's weights come off the KV budget before the blocks are counted.
  CHECK(both.at("kv_budget_gb").get<double>() ==
        doctest::Approx(alone.at("kv_budget_gb").get<double>() - weights.at("gb").get<double>())
            .epsilon(1e-3));
  CHECK(testing::term_gb(alone, "mtp_weights") == 0);
  CHECK(testing::launch_command(both).find(
            " --speculative-config '{\"method\":\"mtp\",\"num_speculative_tokens\":1}'") !=
        std::string::npos);
  CHECK(testing::launch_command(alone).find("speculative") == std::string::npos);
}

TEST_CASE("GLM-4.5's MTP layer caches as its other layers do; the tokens drafted set the flag") {
  json r = request("glm-4.5", "vllm", "h200-sxm", 8, false);
  const json alone = testing::estimate(r);
  r["speculative"] = "mtp";
  r["draft_tokens"] = 3;
  const json both = testing::estimate(r);
  // 92 layers of grouped-query attention, and the module's one.
  CHECK(testing::term_gb(both, "mtp_kv") ==
        doctest::Approx(testing::term_gb(alone, "kv_cache") / 92));
  CHECK(testing::term_gb(both, "mtp_weights") > 0);
  CHECK(testing::launch_command(both).find("\"num_speculative_tokens\":3") != std::string::npos);
}

TEST_CASE("SGLang runs the MTP layers as EAGLE; the conventions add them whole") {
  const json alone = testing::estimate(request("deepseek-v3", "sglang", "h200-sxm", 8, false));
  const json sglang = testing::estimate(request("deepseek-v3", "sglang", "h200-sxm", 8, true));
  // The module without a head of its own (eagle_worker.py shares the model's), and a latent
  // cache layer for as many tokens as the model's pool, + 1 request x (2 x 1 + 1) + 100.
  const json& weights = term(sglang, "mtp_weights");
  CHECK(weights.at("formula").at("id") == "formula.mtp_weights");
  CHECK_FALSE(weights.at("formula").at("params").contains("head"));
  const json& budget = sglang.at("budget");
  CHECK(budget.at("kv_tokens") == alone.at("budget").at("kv_tokens"));
  const double per_layer = budget.at("kv_bytes_per_token").get<double>() / 61;
  CHECK(term(sglang, "mtp_kv").at("formula").at("id") == "formula.sglang_draft_pool");
  CHECK(testing::term_gb(sglang, "mtp_kv") ==
        doctest::Approx((budget.at("kv_tokens").get<double>() + 3 + 100) * per_layer / 1e9));
  CHECK_FALSE(testing::warns(sglang, "warning.sglang_draft_room"));
  CHECK(budget.at("fits") == true);
  CHECK(testing::launch_command(sglang).find(
            "--speculative-algorithm EAGLE --speculative-num-steps 1 "
            "--speculative-eagle-topk 1") != std::string::npos);
  CHECK(testing::launch_command(sglang).find("--speculative-draft-model-path") ==
        std::string::npos);
  json r = request("glm-4.5-air", "guide", "h200-sxm", 1, false);
  const json guide = testing::estimate(r);
  r["speculative"] = "mtp";
  const json both = testing::estimate(r);
  CHECK(both.at("total_gb").get<double>() ==
        doctest::Approx(guide.at("total_gb").get<double>() + testing::term_gb(both, "mtp_weights") +
                        testing::term_gb(both, "mtp_kv")));
}

TEST_CASE("llama.cpp and transformers: MTP not sized, said, nothing counted") {
  // transformers does not run them; llama.cpp does only under --spec-type draft-mtp, with a
  // second context of its own that the calculator does not size (engines/llamacpp.cpp).
  for (const char* engine : {"llamacpp", "transformers"}) {
    CAPTURE(engine);
    const bool llama = std::string(engine) == "llamacpp";
    json r = request("glm-4.5-air", engine, "h200-sxm", 1, false);
    r["weights"] = llama ? "q4_k_m" : "bf16";
    const json alone = testing::estimate(r);
    r["speculative"] = "mtp";
    const json both = testing::estimate(r);
    CHECK(testing::warns(both, llama ? "warning.mtp_llamacpp" : "warning.mtp_engine"));
    CHECK_FALSE(testing::warns(both, llama ? "warning.mtp_engine" : "warning.mtp_llamacpp"));
    if (llama) CHECK_FALSE(testing::has(testing::launch_command(both), "--spec-type"));
    CHECK(testing::term_gb(both, "mtp_weights") == 0);
    CHECK(both.at("total_gb") == alone.at("total_gb"));
  }
}

TEST_CASE("MTP needs a model that carries the layers, and no draft model beside them") {
  using Refusal = std::pair<std::string, std::string>;
  CHECK(refusal(request("llama-3.1-70b", "vllm", "h100-sxm", 4, true)) ==
        Refusal{"error.no_mtp", "speculative"});
  // Kimi K2's config says num_nextn_predict_layers 0.
  CHECK(refusal(request("kimi-k2", "vllm", "h200-sxm", 8, true)) ==
        Refusal{"error.no_mtp", "speculative"});
  json r = request("deepseek-v3", "vllm", "h200-sxm", 8, true);
  r["draft_model"] = "llama-3.2-1b";
  CHECK(refusal(r) == Refusal{"error.mtp_draft", "speculative"});
  r = request("deepseek-v3", "vllm", "h200-sxm", 8, false);
  r["speculative"] = "eagle";
  CHECK(refusal(r).second == "speculative");
  // The default drafts with the draft model, and without one nothing is drafted.
  r = request("deepseek-v3", "vllm", "h200-sxm", 8, false);
  json d = r;
  d["speculative"] = "draft";
  CHECK(testing::estimate(d) == testing::estimate(r));
}

namespace {

/** The ids of the answer's assumptions. */
using testing::assumes;

json staged(json r, int tp, int pp) {
  r.erase("gpu_count");
  r["engine_options"] = {{"tensor_parallel_size", tp}, {"pipeline_parallel_size", pp}};
  return r;
}

}  // namespace

TEST_CASE("Pipeline stages: the MTP module lives on the last stage, beside its 30 layers, not 31") {
  // vLLM's get_pp_indices splits DeepSeek V3's 61 layers 31 + 30 (the remainder on the stages
  // before the last); the drafter is built on the last stage only (gpu_model_runner.py).
  for (const char* engine : {"vllm", "sglang"}) {
    CAPTURE(engine);
    const json whole = testing::estimate(request("deepseek-v3", engine, "h200-sxm", 8, false));
    const json alone =
        testing::estimate(staged(request("deepseek-v3", engine, "h200-sxm", 0, false), 8, 2));
    const json both =
        testing::estimate(staged(request("deepseek-v3", engine, "h200-sxm", 0, true), 8, 2));
    const double layer = testing::term_gb(whole, "kv_cache") / 61;
    // Without a drafter the fullest stage is the first, 31 layers.
    CHECK(testing::term_gb(alone, "kv_cache") == doctest::Approx(layer * 31));
    // With the module, the last stage is the fullest: 30 layers and the module's one.
    CHECK(testing::term_gb(both, "kv_cache") == doctest::Approx(layer * 30));
    CHECK(testing::term_gb(both, "mtp_weights") > 0);
    CHECK(testing::term_gb(both, "weights") == testing::term_gb(alone, "weights"));
    CHECK_FALSE(assumes(both, "assumption.draft_last_stage"));
    if (std::string(engine) == "vllm") {
      CHECK(testing::term_gb(both, "mtp_kv") == doctest::Approx(layer));
      const double per_token = whole.at("budget").at("kv_bytes_per_token").get<double>() / 61;
      CHECK(both.at("budget").at("kv_bytes_per_token").get<double>() ==
            doctest::Approx(per_token * 31));
    }
  }
}

TEST_CASE(
    "Pipeline stages: a drafter smaller than a layer's cache leaves the first stage fullest") {
  // Command R 35B: 40 layers of 64 KV heads, 14 + 13 + 13 over three stages; Qwen2.5 0.5B
  // drafts beside the last, with a smaller cache than one of those layers at 32 users.
  json r = {{"model", "command-r-35b"}, {"engine", "vllm"}, {"gpu", "h200-sxm"},
            {"context", 8192},          {"batch", 32},      {"draft_model", "qwen2.5-0.5b"},
            {"draft_tokens", 3}};
  r = staged(r, 1, 3);
  json plain = r;
  plain.erase("draft_model");
  const json alone = testing::estimate(plain);
  const json many = testing::estimate(r);
  CHECK(assumes(many, "assumption.draft_last_stage"));
  CHECK(testing::term_gb(many, "draft_weights") == 0);
  CHECK(testing::term_gb(many, "draft_kv") == 0);
  CHECK(testing::term_gb(many, "kv_cache") == testing::term_gb(alone, "kv_cache"));
  CHECK(many.at("budget").at("kv_bytes_per_token") == alone.at("budget").at("kv_bytes_per_token"));
  // One user: the last stage's 13 layers and the drafter hold more, and are the ones counted.
  r["batch"] = 1;
  plain["batch"] = 1;
  const json one = testing::estimate(r);
  CHECK_FALSE(assumes(one, "assumption.draft_last_stage"));
  CHECK(testing::term_gb(one, "draft_weights") > 0);
  CHECK(testing::term_gb(one, "kv_cache") ==
        doctest::Approx(testing::term_gb(testing::estimate(plain), "kv_cache") * 13 / 14));
}
