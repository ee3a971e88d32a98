// Speculative decoding with an EAGLE-3 head (issue 42 part 2, speculative "eagle3"): a head
// published for the model (data/models.json "eagle3"), one decoder layer with its own output
// head that vLLM and SGLang load beside the model, its weights and one KV layer a token, with
// the flags that turn it on. The figures below are worked out by hand from the heads' configs.
//
// Llama 3.1 8B's head (hidden 4096, intermediate 14336, 32 heads, 8 KV heads of 128,
// draft_vocab_size 32000), in 16-bit, two bytes a parameter:
//   decoder layer: qkv 2 x 4096 x (4096 + 2 x 1024) = 50,331,648; o 4096 x 4096 = 16,777,216;
//     MLP 3 x 4096 x 14336 = 176,160,768; 243,269,632 parameters = 486,539,264 bytes
//   output head: 32000 x 4096 = 131,072,000 parameters = 262,144,000 bytes
//   fc: 3 x 4096 x 4096 = 50,331,648 parameters = 100,663,296 bytes
//   four norms 4 x 4096 x 2 = 32,768 bytes + d2t 32000 x 8 = 256,000 bytes: 288,768 bytes
//   on one card: 849,635,328 bytes; over two: (486,539,264 + 262,144,000) / 2 + 100,663,296
//     + 288,768 = 475,293,696 bytes
//   KV a token: 1 layer x 2 (K, V) x 8 heads x 128 x 2 bytes = 4,096 bytes (2,048 over two
//     cards: 4 KV heads each)
// Llama 3.1 / 3.3 70B's head (hidden 8192, intermediate 28672, 64 heads, 8 KV heads of 128):
//   layer: 2 x 8192 x (8192 + 2048) = 167,772,160; 8192 x 8192 = 67,108,864;
//     3 x 8192 x 28672 = 704,643,072; 939,524,096 parameters = 1,879,048,192 bytes
//   head: 32000 x 8192 x 2 = 524,288,000 bytes; fc: 3 x 8192 x 8192 x 2 = 402,653,184 bytes;
//   norms 4 x 8192 x 2 = 65,536 + d2t 256,000 = 321,536 bytes
//   over four cards: (1,879,048,192 + 524,288,000) / 4 + 402,653,184 + 321,536
//     = 1,003,808,768 bytes

#include <string>
#include <utility>

#include <doctest/doctest.h>

#include "helpers.hpp"
#include "vram/error.hpp"

using nlohmann::json;

namespace {

json eagle_request(const std::string& model, const std::string& engine, int gpus, bool eagle) {
  json r = {{"model", model},    {"engine", engine}, {"gpu", "h100-sxm"},
            {"gpu_count", gpus}, {"context", 8192},  {"draft_tokens", 3}};
  if (eagle) r["speculative"] = "eagle3";
  return r;
}

constexpr double kHead8bOneCard = 849635328.0;
constexpr double kHead8bTwoCards = 475293696.0;
constexpr double kHead70bFourCards = 1003808768.0;
constexpr double kGB = 1e9;

}  // namespace

TEST_CASE("vLLM: Llama 3.1 8B's EAGLE-3 head, its weights and one KV layer in the same pool") {
  const json alone = testing::estimate(eagle_request("llama-3.1-8b", "vllm", 1, false));
  const json both = testing::estimate(eagle_request("llama-3.1-8b", "vllm", 1, true));
  const json& weights = testing::term(both, "eagle_weights");
  CHECK(weights.at("formula").at("id") == "formula.eagle_weights");
  const json& p = weights.at("formula").at("params");
  CHECK(p.at("layer").get<double>() == 486539264.0);
  CHECK(p.at("head").get<double>() == 262144000.0);
  CHECK(p.at("fc").get<double>() == 100663296.0);
  CHECK(p.at("rest").get<double>() == 288768.0);
  CHECK(p.at("vocab") == 32000);
  CHECK(weights.at("gb").get<double>() == doctest::Approx(kHead8bOneCard / kGB));
  CHECK(weights.at("inputs").at("eagle_head") == "yuhuili/EAGLE3-LLaMA3.1-Instruct-8B");
  // One layer's K and V a token, beside the model's 32: 32 x 4,096 + 4,096 bytes.
  CHECK(both.at("budget").at("kv_bytes_per_token").get<double>() == 135168.0);
  CHECK(alone.at("budget").at("kv_bytes_per_token").get<double>() == 131072.0);
  CHECK(testing::required_gb(both, "eagle_kv") == doctest::Approx(8192.0 * 4096 / kGB));
  // The head's weights come off the KV budget before the blocks are counted.
  CHECK(
      both.at("kv_budget_gb").get<double>() ==
      doctest::Approx(alone.at("kv_budget_gb").get<double>() - kHead8bOneCard / kGB).epsilon(1e-6));
  CHECK(testing::has(testing::launch_command(both),
                     " --speculative-config '{\"method\":\"eagle3\",\"model\":\"yuhuili/"
                     "EAGLE3-LLaMA3.1-Instruct-8B\",\"num_speculative_tokens\":3}'"));
  CHECK_FALSE(testing::has(testing::launch_command(alone), "speculative"));
  CHECK_FALSE(testing::warns(both, "warning.draft_vocab"));
}

TEST_CASE("vLLM over two cards: the layer and its head split, the fc and norms whole on each") {
  const json both = testing::estimate(eagle_request("llama-3.1-8b", "vllm", 2, true));
  CHECK(testing::required_gb(both, "eagle_weights") == doctest::Approx(kHead8bTwoCards / kGB));
  CHECK(testing::required_gb(both, "eagle_kv") == doctest::Approx(8192.0 * 2048 / kGB));
  CHECK(testing::term(both, "eagle_weights")
            .at("formula")
            .at("params")
            .at("over")
            .at("params")
            .at("gpus") == 2);
}

TEST_CASE("vLLM: Llama 3.3 70B's head over four cards") {
  const json both = testing::estimate(eagle_request("llama-3.1-70b", "vllm", 4, true));
  CHECK(testing::required_gb(both, "eagle_weights") == doctest::Approx(kHead70bFourCards / kGB));
  // Eight KV heads over four cards: two a card, 2 x 2 x 128 x 2 = 1,024 bytes a token.
  CHECK(testing::required_gb(both, "eagle_kv") == doctest::Approx(8192.0 * 1024 / kGB));
  CHECK(testing::has(testing::launch_command(both), "yuhuili/EAGLE3-LLaMA3.3-Instruct-70B"));
}

TEST_CASE("SGLang runs the head as EAGLE3: its pool as many tokens as the model's, + headroom") {
  const json alone = testing::estimate(eagle_request("llama-3.1-8b", "sglang", 1, false));
  const json both = testing::estimate(eagle_request("llama-3.1-8b", "sglang", 1, true));
  CHECK(testing::required_gb(both, "eagle_weights") == doctest::Approx(kHead8bOneCard / kGB));
  const json& budget = both.at("budget");
  // The model's pool is sized first; the head loads after it (eagle_worker.py).
  CHECK(budget.at("kv_tokens") == alone.at("budget").at("kv_tokens"));
  // draft_runner_cache_size: pool + 1 request x (3 steps x topk 1 + 4 draft tokens) + 100.
  CHECK(testing::term(both, "eagle_kv").at("formula").at("id") == "formula.sglang_draft_pool");
  CHECK(testing::required_gb(both, "eagle_kv") ==
        doctest::Approx((budget.at("kv_tokens").get<double>() + 7 + 100) * 4096 / kGB));
  CHECK(testing::has(testing::launch_command(both),
                     "--speculative-algorithm EAGLE3 --speculative-draft-model-path "
                     "yuhuili/EAGLE3-LLaMA3.1-Instruct-8B --speculative-num-steps 3 "
                     "--speculative-eagle-topk 1"));
}

TEST_CASE("The conventions add the head and its cache whole") {
  json r = eagle_request("llama-3.1-8b", "guide", 1, false);
  const json alone = testing::estimate(r);
  r["speculative"] = "eagle3";
  const json both = testing::estimate(r);
  CHECK(testing::required_gb(both, "eagle_weights") == doctest::Approx(kHead8bOneCard / kGB));
  CHECK(both.at("total_gb").get<double>() ==
        doctest::Approx(alone.at("total_gb").get<double>() +
                        testing::required_gb(both, "eagle_weights") +
                        testing::required_gb(both, "eagle_kv")));
}

TEST_CASE("llama.cpp and transformers do not run EAGLE-3 heads: said, nothing counted") {
  for (const char* engine : {"llamacpp", "transformers"}) {
    CAPTURE(engine);
    json r = eagle_request("llama-3.1-8b", engine, 1, false);
    r["weights"] = std::string(engine) == "llamacpp" ? "q4_k_m" : "bf16";
    const json alone = testing::estimate(r);
    r["speculative"] = "eagle3";
    const json both = testing::estimate(r);
    CHECK(testing::warns(both, "warning.eagle_engine"));
    CHECK(testing::find_term(both, "eagle_weights") == nullptr);
    CHECK(both.at("total_gb") == alone.at("total_gb"));
    // llama.cpp's command has no drafter (transformers has no server command).
    if (both.contains("launch"))
      CHECK(testing::launch_command(both) == testing::launch_command(alone));
  }
}

TEST_CASE("EAGLE-3 needs a model with a head in the catalog, and no draft model beside it") {
  using Refusal = std::pair<std::string, std::string>;
  CHECK(testing::refusal(eagle_request("qwen3-8b", "vllm", 1, true)) ==
        Refusal{"error.no_eagle_head", "speculative"});
  // A pasted config is no preset: no head is known for it.
  json custom = eagle_request("llama-3.1-8b", "vllm", 1, true);
  custom.erase("model");
  custom["config"] = {{"model_type", "llama"},    {"hidden_size", 4096},
                      {"num_hidden_layers", 32},  {"num_attention_heads", 32},
                      {"num_key_value_heads", 8}, {"intermediate_size", 14336},
                      {"vocab_size", 128256},     {"torch_dtype", "bfloat16"}};
  CHECK(testing::refusal(custom) == Refusal{"error.no_eagle_head", "speculative"});
  json r = eagle_request("llama-3.1-8b", "vllm", 1, true);
  r["draft_model"] = "llama-3.2-1b";
  CHECK(testing::refusal(r) == Refusal{"error.eagle_draft", "speculative"});
  r = eagle_request("llama-3.1-8b", "vllm", 1, false);
  r["speculative"] = "EAGLE3";
  CHECK(testing::refusal(r).second == "speculative");
}

TEST_CASE("Pipeline stages: the head lives on the last stage, with its weights and cache") {
  // Llama 3.1 70B's 80 layers: 40 + 40 over two stages; the drafter is built on the last.
  json r = eagle_request("llama-3.1-70b", "vllm", 0, true);
  r.erase("gpu_count");
  r["engine_options"] = {{"tensor_parallel_size", 4}, {"pipeline_parallel_size", 2}};
  const json staged = testing::estimate(r);
  CHECK(testing::required_gb(staged, "eagle_weights") == doctest::Approx(kHead70bFourCards / kGB));
  CHECK_FALSE(testing::assumes(staged, "assumption.draft_last_stage"));
  CHECK(testing::required_gb(staged, "kv_cache") ==
        doctest::Approx(testing::required_gb(staged, "eagle_kv") * 40));
}

TEST_CASE("The schema says which choice needs what of the model; presets name their heads") {
  const json schema = testing::calculator().schema();
  for (const json& f : schema.at("requests").at("estimate")) {
    if (f.at("name") != "speculative") continue;
    CHECK(f.at("choices") == json{"draft", "mtp", "eagle3"});
    CHECK(f.at("choice_needs") == json{{"mtp", "mtp"}, {"eagle3", "eagle3"}});
    CHECK_FALSE(f.contains("needs"));
  }
  int heads = 0;
  const json presets = testing::calculator().presets();
  for (const json& m : presets.at("models")) {
    if (!m.contains("eagle3")) continue;
    ++heads;
    CHECK(testing::has(m.at("eagle3").get<std::string>(), "EAGLE3"));
  }
  CHECK(heads == 2);
}

TEST_CASE("Each head reads the model's embedding and fuses its hidden states: same widths") {
  // vLLM asserts hidden_states.shape[-1] == input_embeds.shape[-1] (llama_eagle3.py), and the
  // head maps its tokens onto the model's vocabulary.
  const vram::Catalog& catalog = testing::calculator().catalog();
  for (const vram::ModelPreset& preset : catalog.models) {
    if (!preset.eagle3.present()) continue;
    CAPTURE(preset.id);
    const vram::ModelSpec target = catalog.resolve(preset).model;
    CHECK(preset.eagle3.hidden_size == target.hidden_size);
    CHECK(preset.eagle3.target_hidden_size == target.hidden_size);
    CHECK(preset.eagle3.vocab_size == target.vocab_size);
    CHECK(preset.eagle3.draft_vocab_size <= target.vocab_size);
  }
}
