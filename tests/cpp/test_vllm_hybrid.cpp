// vLLM's hybrid KV pool (core/src/engines/vllm.cpp, hybrid_pool): a model's
// state layers take pages of the same pool as its attention layers, the
// attention block raised until a page holds a state
// (vllm/model_executor/models/config.py HybridAttentionMambaModelConfig), the
// layers in groups of equal size (vllm/v1/core/kv_cache_utils.py). Every
// figure below is worked by hand from those two files.
#include <cmath>
#include <string>

#include <doctest/doctest.h>

#include "engines/common.hpp"
#include "helpers.hpp"
#include "vram/hf_config.hpp"

using nlohmann::json;

namespace {

json request(const std::string& model, int gpus, std::int64_t context, std::int64_t batch) {
  return {{"model", model},    {"engine", "vllm"},   {"gpu", "h200-sxm"},
          {"gpu_count", gpus}, {"context", context}, {"batch", batch}};
}

const json& hybrid_assumption(const json& answer) {
  for (const json& a : answer.at("assumptions")) {
    if (a.at("id") == "assumption.vllm_hybrid_pool") return a.at("params");
  }
  FAIL("no assumption.vllm_hybrid_pool");
  static const json none;
  return none;
}

/** vLLM's pool as a log's run made it: one card's share of `config` at `tp`, blocks of 16 asked. */
struct LoggedPool {
  vram::ModelSpec local;
  vram::engines::HybridPool pool;
};

LoggedPool logged_pool(const json& config, int tp, const vram::KvFormat& kv) {
  LoggedPool p{vram::engines::shard(vram::import_hf_config(config).model, tp), {}};
  p.pool = vram::engines::hybrid_pool(p.local, nullptr, kv, vram::engines::paged_states(1), 16);
  return p;
}

/** The blocks `gib` of logged "Available KV cache memory" holds: a block is a page a layer. */
std::int64_t blocks_in(const vram::engines::HybridPool& pool, double gib) {
  return static_cast<std::int64_t>(
      std::floor(gib * 1073741824.0 / (pool.page_bytes * static_cast<double>(pool.group_size))));
}

/** A figure as vLLM prints it, to two decimals: the padding in %, the concurrency. */
double two_places(double x) { return std::round(x * 100) / 100; }

}  // namespace

TEST_CASE("vLLM's hybrid pool: Qwen3-Next at TP 2, blocks of 544 tokens in four groups of 12") {
  const json answer = testing::estimate(request("qwen3-next-80b-a3b", 2, 32768, 8));
  const json& pool = hybrid_assumption(answer);
  // A card's state: 548,864 bytes a layer (test_qwen3_next.cpp); an attention layer's token,
  // one KV head of (256 + 256) x 2 bytes = 1,024. The block: 16 x cdiv(548,864, 16 x 1,024)
  // = 16 x 34 = 544 tokens, a page of 544 x 1,024 = 557,056 bytes, the state padded by 1.49%.
  CHECK(pool.at("state_bytes") == 548'864.0);
  CHECK(pool.at("block") == 544);
  CHECK(pool.at("page_bytes") == 557'056.0);
  CHECK(pool.at("padding").get<double>() == doctest::Approx(100.0 * 8192 / 548'864));
  // 12 attention and 36 state layers: groups of 12 (36 is over 1.5 x 12), one attention group
  // and three state groups.
  CHECK(pool.at("group_size") == 12);
  CHECK(pool.at("groups") == 4);
  CHECK(pool.at("state_groups") == 3);
  // A request of 32,768 tokens: cdiv(32,768, 544) = 61 attention blocks and a page in each of
  // the three state groups.
  CHECK(pool.at("per_request") == 64);
  const json& b = answer.at("budget");
  const double budget = b.at("kv_budget_gb").get<double>() * 1e9;
  const auto blocks = static_cast<std::int64_t>(std::floor(budget / (557'056.0 * 12)));
  CHECK(pool.at("blocks") == blocks);
  CHECK(b.at("kv_blocks") == blocks);
  // vLLM's concurrency, blocks over a request's; its tokens, that times the context.
  CHECK(b.at("max_concurrency").get<double>() ==
        doctest::Approx(static_cast<double>(blocks) / 64.0));
  CHECK(b.at("kv_tokens") == blocks * 32768 / 64);
  CHECK(b.at("kv_bytes_per_token") == 557'056.0 * 12 * 64 / 32768);
  CHECK(b.at("fits") == true);
}

TEST_CASE("vLLM's hybrid pool: a speculative token takes one more page in every state group") {
  json r = request("qwen3-next-80b-a3b", 2, 8192, 1);
  r["speculative"] = "mtp";
  r["draft_tokens"] = 2;
  const json answer = testing::estimate(r);
  const json& pool = hybrid_assumption(answer);
  // The MTP layer is a thirteenth full-attention layer: groups of 13, cdiv(36, 13) = 3 state
  // groups. A request: cdiv(8,192, 544) = 16 attention blocks and 3 x (1 + 2) state pages.
  CHECK(pool.at("group_size") == 13);
  CHECK(pool.at("groups") == 4);
  CHECK(pool.at("spec_tokens") == 2);
  CHECK(pool.at("per_request") == 16 + 9);
}

TEST_CASE("vLLM's hybrid pool: more users than its blocks hold is said, with the users that fit") {
  const json answer = testing::estimate(request("qwen3-next-80b-a3b", 2, 262144, 64));
  const json& pool = hybrid_assumption(answer);
  // cdiv(262,144, 544) = 482 blocks and 3 pages a request.
  CHECK(pool.at("per_request") == 485);
  const std::int64_t blocks = pool.at("blocks").get<std::int64_t>();
  REQUIRE(blocks < 64 * 485);
  CHECK(answer.at("budget").at("fits") == false);
  bool warned = false;
  for (const json& w : answer.at("warnings")) {
    if (w.at("id") != "warning.vllm_short_blocks") continue;
    warned = true;
    CHECK(w.at("params").at("max_users") == blocks / 485);
    CHECK(w.at("params").at("users") == 64);
  }
  CHECK(warned);
}

TEST_CASE("vLLM's hybrid pool: Jamba's attention block is 80 tokens at TP 4") {
  // A card at TP 4: Mamba's inner width 8,192 / 4 = 2,048; the conv window's three past
  // columns, 2,048 x 3 x 2 bytes = 12,288, and the state, 2,048 x 16 x 2 = 65,536: 77,824
  // bytes. An attention token: 8 KV heads / 4 = 2, (128 + 128) x 2 bytes x 2 = 1,024.
  // 16 x cdiv(77,824, 16,384) = 80 tokens; 4 attention and 28 Mamba layers, groups of 4.
  const json answer = testing::estimate(request("jamba-v0.1", 4, 16384, 4));
  const json& pool = hybrid_assumption(answer);
  CHECK(pool.at("state_bytes") == 77'824.0);
  CHECK(pool.at("block") == 80);
  CHECK(pool.at("page_bytes") == 80 * 1024.0);
  CHECK(pool.at("group_size") == 4);
  CHECK(pool.at("groups") == 8);
  CHECK(pool.at("state_groups") == 7);
  // cdiv(16,384, 80) = 205 attention blocks and 7 state pages.
  CHECK(pool.at("per_request") == 212);
}

TEST_CASE("vLLM: a model with attention layers only keeps 16-token blocks and no hybrid pool") {
  const json answer = testing::estimate(request("llama-3.1-8b", 1, 8192, 1));
  for (const json& a : answer.at("assumptions")) CHECK(a.at("id") != "assumption.vllm_hybrid_pool");
  const json& b = answer.at("budget");
  // 32 layers x 8 KV heads x (128 + 128) x 2 bytes = 131,072 a token, in blocks of 16.
  CHECK(b.at("kv_bytes_per_token") == 131'072.0);
  const double budget = b.at("kv_budget_gb").get<double>() * 1e9;
  CHECK(b.at("kv_tokens") == static_cast<std::int64_t>(std::floor(budget / (16 * 131'072.0))) * 16);
}

TEST_CASE("vLLM's hybrid pool from a log nobody tuned to: Qwen3-Next at TP 2 on H200, v0.10.2") {
  // A start-up log of Qwen3-Next-80B-A3B-Instruct under vLLM 0.10.2, --tensor-parallel-size 2,
  // max model len 262,144 (the default), kv_cache_dtype auto, prefix caching off ("Hybrid or
  // mamba-based model detected: disabling prefix caching"), on H200s:
  //   Setting attention block size to 544 tokens to ensure that attention page size is >=
  //   mamba page size.
  //   Padding mamba page size by 1.49% ...
  //   Available KV cache memory: 44.59 GiB
  //   GPU KV cache size: 973,760 tokens
  //   Maximum concurrency for 262,144 tokens per request: 14.77x
  // Given the logged memory, the pool alone must give the other four lines.
  const vram::KvFormat bf16{"bf16", "BF16", 16, "test"};
  const LoggedPool run = logged_pool(testing::qwen3_next_80b(), 2, bf16);
  const vram::engines::HybridPool& pool = run.pool;
  REQUIRE(pool.present);
  CHECK(pool.block == 544);
  CHECK(two_places((pool.page_bytes / pool.state_bytes - 1) * 100) == 1.49);
  const std::int64_t blocks = blocks_in(pool, 44.59);
  // v0.10.2 logged blocks // groups x block size.
  CHECK(blocks / pool.groups * pool.block == 973'760);
  const std::int64_t per_request =
      vram::engines::hybrid_request_blocks(pool, run.local, 262144, 8192, 1);
  CHECK(two_places(static_cast<double>(blocks) / static_cast<double>(per_request)) == 14.77);
}

TEST_CASE(
    "vLLM's hybrid pool with prefix caching, align mode: two pages a state group, from a log") {
  // A start-up log of a Qwen3.5-122B-A10B checkpoint (4-bit weights) under vLLM
  // v0.16.1rc1.dev111, non-default args max_model_len 131072, tensor_parallel_size 2,
  // kv_cache_dtype fp8, enable_prefix_caching True ("Mamba cache mode is set to 'align' for
  // Qwen3_5MoeForConditionalGeneration by default when prefix caching is enabled"):
  //   Setting attention block size to 4176 tokens ...
  //   Padding mamba page size by 0.19% ...
  //   Available KV cache memory: 1.73 GiB
  //   GPU KV cache size: 75,168 tokens
  //   Maximum concurrency for 131,072 tokens per request: 1.89x
  // The model's config is not in this repository: its pool's fields are those the logged
  // block and padding imply (48 layers, every fourth full attention; 2 KV heads of 256; 16 key
  // and 64 value heads of 128 in the linear layers; an FP32 state), which Qwen3.5's other
  // sizes share. What the log then checks is the rest: the groups, the blocks, and the align
  // mode's second page, without which a request takes 35 blocks and vLLM would log 2.06x.
  json config = {{"model_type", "qwen3_5_moe_text"},
                 {"hidden_size", 3072},
                 {"num_hidden_layers", 48},
                 {"num_attention_heads", 32},
                 {"num_key_value_heads", 2},
                 {"head_dim", 256},
                 {"vocab_size", 248320},
                 {"num_experts", 256},
                 {"num_experts_per_tok", 8},
                 {"moe_intermediate_size", 1024},
                 {"shared_expert_intermediate_size", 1024},
                 {"full_attention_interval", 4},
                 {"linear_conv_kernel_dim", 4},
                 {"linear_key_head_dim", 128},
                 {"linear_num_key_heads", 16},
                 {"linear_num_value_heads", 64},
                 {"linear_value_head_dim", 128},
                 {"mamba_ssm_dtype", "float32"},
                 {"tie_word_embeddings", false},
                 {"torch_dtype", "bfloat16"}};
  const vram::KvFormat fp8{"fp8", "FP8", 8, "test"};
  const LoggedPool run = logged_pool(config, 2, fp8);
  const vram::engines::HybridPool& pool = run.pool;
  const vram::ModelSpec& local = run.local;
  REQUIRE(pool.present);
  CHECK(pool.block == 4176);
  CHECK(two_places((pool.page_bytes / pool.state_bytes - 1) * 100) == 0.19);
  CHECK(pool.group_size == 12);
  CHECK(pool.groups == 4);
  const std::int64_t blocks = blocks_in(pool, 1.73);
  CHECK(blocks / pool.groups * pool.block == 75'168);
  const std::int64_t align = vram::engines::hybrid_request_blocks(pool, local, 131072, 8192, 2);
  CHECK(align == 32 + 3 * 2);
  CHECK(two_places(static_cast<double>(blocks) / static_cast<double>(align)) == 1.89);
  const std::int64_t none = vram::engines::hybrid_request_blocks(pool, local, 131072, 8192, 1);
  CHECK(two_places(static_cast<double>(blocks) / static_cast<double>(none)) == 2.06);
}

TEST_CASE("vLLM's hybrid pool: prefix caching on takes a second page a state group, and says so") {
  json r = request("qwen3-next-80b-a3b", 2, 32768, 8);
  r["engine_options"] = {{"hybrid_prefix_caching", true}};
  const json answer = testing::estimate(r);
  const json& pool = hybrid_assumption(answer);
  // cdiv(32,768, 544) = 61 blocks and two pages in each of three state groups.
  CHECK(pool.at("state_pages") == 2);
  CHECK(pool.at("per_request") == 61 + 6);
  CHECK(testing::launch_command(answer).find(" --enable-prefix-caching --mamba-cache-mode align") !=
        std::string::npos);
  const json off = testing::estimate(request("qwen3-next-80b-a3b", 2, 32768, 8));
  CHECK(testing::launch_command(off).find("prefix-caching") == std::string::npos);
  CHECK(testing::launch_command(off).find("mamba-cache-mode") == std::string::npos);
}

TEST_CASE("vLLM's pool for sliding layers from a log: Gemma 3 1B, v0.13.0, 461.21 requests") {
  // eole-nlp/eole benchmarks/genai/results.md: google/gemma-3-1b-it under vLLM 0.13.0,
  // max_model_len 2048, gpu_memory_utilization 0.95, max_num_batched_tokens 8192:
  //   Available KV cache memory: 25.39 GiB
  //   Add 2 padding layers, may waste at most 9.09% KV cache memory
  //   GPU KV cache size: 950,864 tokens
  //   Maximum concurrency for 2,048 tokens per request: 461.21x
  // 4 global and 22 sliding layers (window 512): groups of 4, 22 + 2 padding layers.
  const vram::KvFormat bf16{"bf16", "BF16", 16, "test"};
  const LoggedPool run =
      logged_pool(testing::read_json("tests/configs/gemma-3-1b-it/config.json"), 1, bf16);
  const vram::engines::HybridPool& pool = run.pool;
  const vram::ModelSpec& local = run.local;
  REQUIRE(pool.present);
  CHECK(pool.block == 16);
  CHECK(pool.group_size == 4);
  CHECK(pool.groups == 7);
  CHECK(pool.state_groups == 0);
  const std::int64_t blocks = blocks_in(pool, 25.39);
  // The logged tokens, blocks // groups x 16, within the 0.01 GiB the log rounds to (a block
  // of the seven groups' 16 tokens is 458,752 bytes).
  CHECK(std::abs(static_cast<double>(blocks / pool.groups * pool.block) - 950'864.0) <=
        0.005 * 1073741824.0 / (pool.page_bytes * 4 * 7) * 16 + 16);
  // A request: 128 blocks in the global group, and in each of the six sliding groups its
  // window and the step's 8,192 tokens capped at 2,048, cdiv(2,048, 16) + 1 = 129 blocks.
  const std::int64_t per_request = vram::engines::hybrid_request_blocks(pool, local, 2048, 8192, 1);
  CHECK(per_request == 128 + 6 * 129);
  CHECK(static_cast<double>(blocks) / static_cast<double>(per_request) ==
        doctest::Approx(461.21).epsilon(0.0005));
}

TEST_CASE("SGLang splits a hybrid model's pool: the states' share in whole requests, then tokens") {
  // ModelRunner._handle_max_mamba_cache: ratio / (1 + ratio) of the pool to the states (0.9:
  // 47%), in whole requests' states; the attention layers' tokens from the rest. Qwen3-Next
  // at TP 2: 36 state layers of 548,864 bytes a card, 19,759,104 bytes a request.
  json r = request("qwen3-next-80b-a3b", 2, 32768, 8);
  r["engine"] = "sglang";
  const json answer = testing::estimate(r);
  const json& b = answer.at("budget");
  const double pool = b.at("kv_budget_gb").get<double>() * 1e9;
  const auto slots = static_cast<std::int64_t>(std::floor(pool * 0.9 / 1.9 / 19'759'104.0));
  const json* share = nullptr;
  for (const json& a : answer.at("assumptions"))
    if (a.at("id") == "assumption.sglang_state_pool") share = &a.at("params");
  REQUIRE(share != nullptr);
  CHECK(share->at("per_request") == 19'759'104.0);
  CHECK(share->at("slots") == slots);
  // 12 attention layers of one KV head of (256 + 256) x 2 bytes: 12,288 bytes a token.
  CHECK(b.at("kv_tokens") == static_cast<std::int64_t>(std::floor(
                                 (pool - static_cast<double>(slots) * 19'759'104.0) / 12288.0)));
  // A running request is allowed 3 states (the radix cache's), so slots // 3 requests run; more
  // users than that: said, and the plan does not fit.
  CHECK(share->at("requests") == slots / 3);
  r["batch"] = slots / 3 + 1;
  r["context"] = 1024;
  const json many = testing::estimate(r);
  CHECK(testing::warns(many, "warning.sglang_state_slots"));
  CHECK(many.at("budget").at("fits") == false);
  CHECK(many.at("budget").at("max_concurrency").get<double>() ==
        doctest::Approx(static_cast<double>(slots / 3)));
  r["batch"] = slots / 3;
  CHECK(testing::estimate(r).at("budget").at("fits") == true);
  // With speculative decoding, the extra buffer's two ping-pong slots more: 5 a request.
  json spec = request("qwen3-next-80b-a3b", 2, 32768, 8);
  spec["engine"] = "sglang";
  spec["speculative"] = "mtp";
  std::int64_t per_run = 0;
  const json speculating = testing::estimate(spec);
  for (const json& a : speculating.at("assumptions"))
    if (a.at("id") == "assumption.sglang_state_pool") per_run = a.at("params").at("per_run");
  CHECK(per_run == 5);
  // A smaller share for the states: fewer of them, more tokens, and the flag in the command.
  r["batch"] = 8;
  r["engine_options"] = {{"mamba_full_memory_ratio", 0.5}};
  const json half = testing::estimate(r);
  CHECK(half.at("budget").at("kv_tokens").get<double>() > b.at("kv_tokens").get<double>());
  CHECK(testing::launch_command(half).find(" --mamba-full-memory-ratio 0.5") != std::string::npos);
  CHECK(testing::launch_command(answer).find("mamba-full-memory-ratio") == std::string::npos);
}
