// Speculative decoding with a draft model (issue 42 part 2, "a model with
// its drafter"): the draft's weights and KV cache on the cards beside the
// model's, as each engine holds them, and the flags that load it.

#include <string>

#include <doctest/doctest.h>

#include "helpers.hpp"

using nlohmann::json;

namespace {

json with_draft(const std::string& engine, const std::string& weights, const char* draft,
                const std::string& gpu = "h100-sxm", std::int64_t batch = 1) {
  json r = {{"model", "llama-3.1-70b"}, {"weights", weights}, {"engine", engine}, {"gpu", gpu},
            {"context", 8192},          {"batch", batch}};
  if (draft != nullptr) r["draft_model"] = draft;
  return testing::estimate(r);
}

// Llama 3.2 1B: 16 layers, 8 KV heads of 64; 1,235,814,400 parameters in BF16.
constexpr double kDraftKvPerToken = 16.0 * 8 * (64 + 64) * 2;  // bytes, FP16

}  // namespace

TEST_CASE("vLLM: the draft's weights load with the model and its layers share the block count") {
  const json alone = with_draft("vllm", "fp8", nullptr);
  const json both = with_draft("vllm", "fp8", "llama-3.2-1b");
  // The draft as stored (vLLM's --quantization is the model's), over one card.
  const double draft_gb = testing::estimate({{"model", "llama-3.2-1b"}, {"weights", "native"}})
                              .at("weights_gb")
                              .get<double>();
  CHECK(testing::term_gb(both, "draft_weights") == doctest::Approx(draft_gb));
  CHECK(testing::term_gb(both, "draft_kv") == doctest::Approx(kDraftKvPerToken * 8192 / 1e9));
  // Its weights come off the KV budget, and every token costs the draft's cache too.
  CHECK(both.at("kv_budget_gb").get<double>() ==
        doctest::Approx(alone.at("kv_budget_gb").get<double>() - draft_gb));
  CHECK(both.at("budget").at("kv_bytes_per_token").get<double>() ==
        doctest::Approx(alone.at("budget").at("kv_bytes_per_token").get<double>() +
                        kDraftKvPerToken));
  CHECK(both.at("total_gb").get<double>() > alone.at("total_gb").get<double>() + draft_gb);
  CHECK(testing::launch_command(both).find(
            " --speculative-config '{\"model\":\"meta-llama/Llama-3.2-1B\","
            "\"num_speculative_tokens\":5}'") != std::string::npos);
  CHECK(testing::launch_command(alone).find("speculative") == std::string::npos);
  CHECK_FALSE(testing::warns(both, "warning.draft_vocab"));
}

TEST_CASE("llama.cpp: the draft file stays on the GPU, a context per slot with its own buffer") {
  const json alone = with_draft("llamacpp", "q4_k_m", nullptr, "h100-sxm", 2);
  const json both = with_draft("llamacpp", "q4_k_m", "llama-3.2-1b", "h100-sxm", 2);
  // A GGUF type asked of the model is the draft file's too.
  const double draft_q4 = testing::estimate({{"model", "llama-3.2-1b"}, {"weights", "q4_k_m"}})
                              .at("weights_gb")
                              .get<double>();
  CHECK(testing::term_gb(both, "draft_weights") == doctest::Approx(draft_q4));
  // Two slots of 8,192 cells each, in F16 whatever the model's cache type.
  CHECK(testing::term_gb(both, "draft_kv") == doctest::Approx(kDraftKvPerToken * 8192 * 2 / 1e9));
  CHECK(testing::term_gb(both, "draft_compute") > 0);
  CHECK(both.at("total_gb").get<double>() ==
        doctest::Approx(
            alone.at("total_gb").get<double>() + testing::term_gb(both, "draft_weights") +
            testing::term_gb(both, "draft_kv") + testing::term_gb(both, "draft_compute")));
  const std::string c = testing::launch_command(both);
  CHECK(c.find(" -md DRAFT.gguf -ngld 99 --draft-max 5") != std::string::npos);
}

TEST_CASE("A partial offload under llama.cpp keeps the draft on the GPU: less room for layers") {
  const json alone = with_draft("llamacpp", "q4_k_m", nullptr, "rtx-4090");
  const json both = with_draft("llamacpp", "q4_k_m", "llama-3.2-1b", "rtx-4090");
  const json& a = alone.at("serving").at("offload");
  const json& b = both.at("serving").at("offload");
  CHECK(b.at("gpu_layers").get<int>() < a.at("gpu_layers").get<int>());
}

TEST_CASE("A draft of another tokenizer is said; SGLang's draft worker caches the pool's tokens") {
  CHECK(testing::warns(with_draft("vllm", "fp8", "qwen3-4b"), "warning.draft_vocab"));
  // Llama 3.1 8B in BF16 on one H100: SGLang's pool holds about 400k tokens.
  json r = {{"model", "llama-3.1-8b"},
            {"weights", "bf16"},
            {"engine", "sglang"},
            {"gpu", "h100-sxm"},
            {"context", 8192}};
  const json alone = testing::estimate(r);
  r["draft_model"] = "llama-3.2-1b";
  const json sglang = testing::estimate(r);
  const double draft_gb = testing::estimate({{"model", "llama-3.2-1b"}, {"weights", "native"}})
                              .at("weights_gb")
                              .get<double>();
  CHECK(testing::term_gb(sglang, "draft_weights") == doctest::Approx(draft_gb));
  // The model's pool is sized first and does not move; the draft worker's cache holds as many
  // tokens, + 1 request x (2 x 5 + 1) + 100 for drafting and verifying (model_runner.py).
  const json& budget = sglang.at("budget");
  CHECK(budget.at("kv_tokens") == alone.at("budget").at("kv_tokens"));
  CHECK(budget.at("kv_tokens").get<double>() > 350'000);
  const double tokens = budget.at("kv_tokens").get<double>() + 11 + 100;
  CHECK(testing::term_gb(sglang, "draft_kv") == doctest::Approx(tokens * kDraftKvPerToken / 1e9));
  // The 12% of the card mem_fraction_static leaves holds the draft's 2.5 GB of weights but not
  // that cache besides: said (the model's share still holds the model).
  CHECK(testing::warns(sglang, "warning.sglang_draft_room"));
  CHECK(budget.at("fits") == true);
  // With the fraction lowered to make room, nothing to say.
  r["engine_options"] = {{"mem_fraction_static", 0.7}};
  CHECK_FALSE(testing::warns(testing::estimate(r), "warning.sglang_draft_room"));
  CHECK(testing::launch_command(sglang).find(
            "--speculative-algorithm STANDALONE --speculative-draft-model-path "
            "meta-llama/Llama-3.2-1B --speculative-num-steps 5 "
            "--speculative-eagle-topk 1") != std::string::npos);
}

TEST_CASE("The guide's convention adds the draft whole; a bad draft is a named error") {
  const json alone = with_draft("guide", "fp8", nullptr);
  const json both = with_draft("guide", "fp8", "llama-3.2-1b");
  CHECK(both.at("total_gb").get<double>() ==
        doctest::Approx(alone.at("total_gb").get<double>() +
                        testing::term_gb(both, "draft_weights") +
                        testing::term_gb(both, "draft_kv")));
  CHECK_THROWS(with_draft("vllm", "fp8", "no-such-model"));
  json r = {{"model", "llama-3.1-8b"}, {"draft_model", "llama-3.2-1b"}, {"draft_tokens", 0}};
  CHECK_THROWS(testing::estimate(r));
  r = {{"model", "llama-3.1-8b"}, {"mode", "lora"}, {"draft_model", "llama-3.2-1b"}};
  CHECK_THROWS(testing::estimate(r));
}
