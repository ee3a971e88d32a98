// A second model on the same card (issue 42 part 2: an embedding or
// reranker model served beside the LLM): the companion's term under each
// engine, vLLM's and SGLang's two shares of one card, the second command,
// and the named errors of a card with no room.

#include <stdexcept>
#include <string>
#include <utility>

#include <doctest/doctest.h>

#include "helpers.hpp"
#include "vram/error.hpp"

using nlohmann::json;

namespace {

json shared(const std::string& engine, const char* companion, const std::string& gpu = "h100-sxm",
            double used = 0) {
  json r = {{"model", "llama-3.1-8b"}, {"weights", "bf16"}, {"engine", engine}, {"gpu", gpu}};
  if (companion != nullptr) r["companion_model"] = companion;
  if (used > 0) r["gpu_used_gb"] = used;
  return testing::estimate(r);
}

using testing::term;

using testing::refusal;

std::string command(const json& launch) { return launch.at("command").get<std::string>(); }
using testing::has;

// Qwen2.5 0.5B: 24 layers, 2 KV heads of 64 (FP16 cache: 24 x 2 x 2 x 64 x 2 bytes a token).
constexpr double kCompanionKvPerToken = 24.0 * 2 * 2 * 64 * 2;

}  // namespace

TEST_CASE("Every engine counts the companion once on the card: weights, KV, forward, runtime") {
  const double weights =
      testing::estimate({{"model", "qwen2.5-0.5b"}, {"weights", "native"}}).at("weights_gb");
  for (const char* engine : {"guide", "percent", "vllm", "sglang", "llamacpp", "transformers"}) {
    CAPTURE(engine);
    const json alone = shared(engine, nullptr);
    const json both = shared(engine, "qwen2.5-0.5b");
    CHECK(testing::term_gb(alone, "companion") == 0);
    const json& t = term(both, "companion");
    CHECK(t.at("inputs").at("companion_model") == "qwen2.5-0.5b");
    CHECK(t.at("inputs").at("companion_context") == 512);  // the schema's default
    const json& f = t.at("formula").at("params");
    CHECK(f.at("weights").get<double>() / 1e9 == doctest::Approx(weights));
    CHECK(f.at("kv").get<double>() == doctest::Approx(kCompanionKvPerToken * 512));
    CHECK(f.at("runtime").get<double>() > 0);
    // The sizing guides count no activations for a model, so none for the companion either.
    CHECK((f.at("activations").get<double>() > 0) ==
          (std::string(engine) != "guide" && std::string(engine) != "percent"));
    CHECK(both.at("total_gb").get<double>() ==
          doctest::Approx(alone.at("total_gb").get<double>() + t.at("gb").get<double>()));
  }
}

TEST_CASE("companion_context sizes the companion's cache and forward pass") {
  json r = {{"model", "llama-3.1-8b"},
            {"engine", "llamacpp"},
            {"companion_model", "qwen2.5-0.5b"},
            {"companion_context", 8192}};
  const json answer = testing::estimate(r);
  const json& f = term(answer, "companion").at("formula").at("params");
  CHECK(f.at("kv").get<double>() == doctest::Approx(kCompanionKvPerToken * 8192));
  r["companion_context"] = 0;
  CHECK(refusal(r).first == "error.range");
  CHECK(refusal(r).second == "companion_context");
}

TEST_CASE("vLLM: the two servers' --gpu-memory-utilization add up to the model's alone") {
  const json alone = shared("vllm", nullptr);
  const json both = shared("vllm", "qwen2.5-0.5b");
  CHECK(testing::warns(both, "warning.vllm_companion"));
  CHECK_FALSE(testing::warns(alone, "warning.vllm_companion"));
  json said;
  for (const json& w : both.at("warnings")) {
    if (w.at("id") == "warning.vllm_companion") said = w.at("params");
  }
  const double companion = said.at("companion_share").get<double>();
  const double model = said.at("share").get<double>();
  CHECK(said.at("total").get<double>() == doctest::Approx(0.9));
  CHECK(companion + model <= 0.9 + 1e-9);
  // The companion's share covers what it needs.
  const double usable = both.at("budget").at("usable_gib").get<double>() * 1073741824.0 / 1e9;
  CHECK(companion * usable >= testing::term_gb(both, "companion"));
  CHECK((companion - 0.01) * usable < testing::term_gb(both, "companion"));
  // The model's pool is its own share's: smaller by the companion's.
  CHECK(both.at("budget").at("reserved_gb").get<double>() == doctest::Approx(usable * model));
  CHECK(both.at("kv_budget_gb").get<double>() < alone.at("kv_budget_gb").get<double>());
  // The fit holds both servers' terms against both shares.
  CHECK(both.at("fit").at("capacity_gb").get<double>() ==
        doctest::Approx(usable * (model + companion)));
  // Two commands, each with its share; the companion on its own port, as a pooling model.
  const json& launch = both.at("launch");
  CHECK(has(command(launch), "--gpu-memory-utilization " + json(model).dump()));
  const std::string second = command(launch.at("companion"));
  CHECK(has(second, "vllm serve Qwen/Qwen2.5-0.5B"));
  CHECK(has(second, "--gpu-memory-utilization " + json(companion).dump()));
  CHECK(has(second, "--port 8001"));
  CHECK(has(second, "--runner pooling"));
  CHECK(has(second, "--max-model-len 512"));
  CHECK_FALSE(alone.at("launch").contains("companion"));
}

TEST_CASE("vLLM: the companion's share comes after what others hold") {
  // 20 GB held lowers the model's share (warning.vllm_held); the companion's comes off that.
  const json held = shared("vllm", nullptr, "h100-sxm", 20);
  const json both = shared("vllm", "qwen2.5-0.5b", "h100-sxm", 20);
  const double lowered = held.at("budget").at("reserved_gb").get<double>();
  CHECK(both.at("budget").at("reserved_gb").get<double>() < lowered);
  CHECK(testing::warns(both, "warning.vllm_held"));
  CHECK(testing::warns(both, "warning.vllm_companion"));
}

TEST_CASE("SGLang: the companion, started first, comes off the model's pool one for one") {
  const json alone = shared("sglang", nullptr);
  const json both = shared("sglang", "qwen2.5-0.5b");
  CHECK(testing::warns(both, "warning.sglang_companion"));
  CHECK(both.at("kv_budget_gb").get<double>() ==
        doctest::Approx(alone.at("kv_budget_gb").get<double>() -
                        testing::term_gb(both, "companion")));
  const std::string second = command(both.at("launch").at("companion"));
  CHECK(has(second, "--model-path Qwen/Qwen2.5-0.5B"));
  CHECK(has(second, "--is-embedding"));
  CHECK(has(second, "--port 30001"));
  CHECK(has(second, "--mem-fraction-static 0.0"));
  CHECK(has(second, "--context-length 512"));
}

TEST_CASE("llama.cpp: a second llama-server for embeddings, every layer on the GPU") {
  const json both = shared("llamacpp", "qwen2.5-0.5b", "rtx-4090");
  const std::string second = command(both.at("launch").at("companion"));
  CHECK(has(second, "llama-server -m COMPANION.gguf"));
  CHECK(has(second, "--embedding"));
  CHECK(has(second, "--port 8081"));
  CHECK(has(second, "-c 512"));
  CHECK(has(second, "-ngl 25"));
  // Without a card the second command is still written: llama.cpp takes no share.
  json r = {{"model", "llama-3.1-8b"}, {"engine", "llamacpp"}, {"companion_model", "qwen2.5-0.5b"}};
  CHECK(testing::estimate(r).at("launch").contains("companion"));
}

TEST_CASE("A card with no room is a named error; so is a companion the catalog does not know") {
  json r = {{"model", "llama-3.1-8b"}, {"engine", "vllm"}, {"gpu", "rtx-4090"}};
  r["gpu_used_gb"] = 30;
  CHECK(refusal(r) ==
        std::make_pair(std::string("error.used_over_card"), std::string("gpu_used_gb")));
  r["gpu_used_gb"] = 3;
  r["companion_model"] = "llama-3.1-70b";
  CHECK(refusal(r) ==
        std::make_pair(std::string("error.companion_over_card"), std::string("companion_model")));
  r["companion_model"] = "no-such-model";
  CHECK(refusal(r) ==
        std::make_pair(std::string("error.model_unknown"), std::string("companion_model")));
}
