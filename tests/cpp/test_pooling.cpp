// vLLM's profiling run for an embedding or reranker model: the pooler, not
// the sampler, follows the forward pass (v1/worker/gpu_model_runner.py
// profile_run, `_dummy_pooler_run`), so no sampler warm-up comes off the KV
// cache budget.
#include <doctest/doctest.h>

#include <string>

#include "helpers.hpp"

using nlohmann::json;

TEST_CASE("vLLM profiles an embedding or reranker model without a sampler warm-up") {
  for (const std::string model :
       {"qwen3-embedding-8b", "qwen3-embedding-0.6b", "qwen3-reranker-0.6b"}) {
    CAPTURE(model);
    const json answer =
        testing::estimate({{"model", model}, {"engine", "vllm"}, {"gpu", "h100-sxm"}});
    const json* act = testing::find_term(answer, "activations");
    REQUIRE(act != nullptr);
    CHECK(act->at("inputs").at("sampler_gb").get<double>() == 0.0);
    CHECK(act->at("gb").get<double>() ==
          doctest::Approx(act->at("inputs").at("forward_gb").get<double>()));
    CHECK(act->at("formula").at("id") == "formula.vllm_activations_pooling");
  }
}

TEST_CASE("a generating model of the embedding model's shape keeps its sampler warm-up") {
  // Qwen3-Embedding-8B is Qwen3-8B's shape without the output head: on one
  // H100 vLLM takes 8192 tokens and 1024 sequences, and the generating
  // model's warm-up over 1024 rows of its 151,936-entry vocabulary (1.56 GB)
  // outweighs its forward pass; the embedding model's budget is larger by
  // the difference, less the head's weights it does not load.
  const json generate =
      testing::estimate({{"model", "qwen3-8b"}, {"engine", "vllm"}, {"gpu", "h100-sxm"}});
  const json embed =
      testing::estimate({{"model", "qwen3-embedding-8b"}, {"engine", "vllm"}, {"gpu", "h100-sxm"}});
  const json* g = testing::find_term(generate, "activations");
  const json* e = testing::find_term(embed, "activations");
  REQUIRE(g != nullptr);
  REQUIRE(e != nullptr);
  CHECK(g->at("inputs").at("sampler_gb").get<double>() ==
        doctest::Approx(1024.0 * 151936 * 10 / 1e9));
  CHECK(g->at("gb").get<double>() > e->at("gb").get<double>());
  CHECK(g->at("formula").at("id") == "formula.vllm_activations");
  CHECK(embed.at("budget").at("kv_budget_gb").get<double>() >
        generate.at("budget").at("kv_budget_gb").get<double>() + g->at("gb").get<double>() -
            e->at("gb").get<double>() - 0.01);
}
