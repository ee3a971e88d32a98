// vLLM's batch defaults under `vllm serve` (vllm/engine/arg_utils.py,
// EngineArgs._set_default_args_v1 / get_batch_defaults): max_num_batched_tokens
// and max_num_seqs follow the card when the request leaves them "auto", and
// the profiling run's sampler warms up on min(tokens, max_num_seqs) rows.
#include <doctest/doctest.h>

#include <algorithm>
#include <string>
#include <utility>

#include "helpers.hpp"

using nlohmann::json;

namespace {

const json& activations(const json& answer) {
  for (const json& t : answer.at("terms")) {
    if (t.at("id") == "activations") return t;
  }
  throw std::runtime_error("no activations term");
}

json serve(json request) {
  request["engine"] = "vllm";
  if (!request.contains("model")) request["model"] = "llama-3.1-8b";
  return testing::estimate(request);
}

std::pair<double, double> batch(const json& answer) {
  const json& in = activations(answer).at("inputs");
  return {in.at("max_num_batched_tokens").get<double>(), in.at("max_num_seqs").get<double>()};
}

using testing::assumes;

/** A one-card catalog: `name` with `gib` as CUDA reports it. */
json card(const std::string& name, double gib) {
  return {
      {"gpus",
       json::array({{{"id", "card"},
                     {"name", name},
                     {"vram_gb", 80},
                     {"usable_gib", gib},
                     {"bandwidth_gbps", 2000},
                     {"fp8", true},
                     {"interconnect", {{"kind", "pcie"}, {"gbps", 32}, {"topology", "pcie-gen4"}}},
                     {"source", "test"}}})}};
}

}  // namespace

TEST_CASE(
    "vLLM serve: 8192 tokens and 1024 sequences on 70 GiB cards but the A100, else 2048 and 256") {
  const std::pair<const char*, bool> cards[] = {
      {"h100-sxm", true}, {"h100-pcie", true},    {"h200-sxm", true},  {"b200", true},
      {"mi300x", true},   {"rtx-pro-6000", true}, {"a100-sxm", false}, {"a100-40gb", false},
      {"l40s", false},    {"rtx-4090", false},    {"l4", false},
  };
  for (const auto& [gpu, large] : cards) {
    CAPTURE(gpu);
    const json r = serve({{"gpu", gpu}});
    CHECK(batch(r) == std::pair<double, double>(large ? 8192 : 2048, large ? 1024 : 256));
    CHECK(assumes(r, "assumption.vllm_batch"));
  }
  // No card: vLLM's own fallback when it cannot read the device.
  const json none = serve(json::object());
  CHECK(batch(none) == std::pair<double, double>(2048, 256));
  CHECK(assumes(none, "assumption.vllm_batch_no_card"));
}

TEST_CASE("vLLM serve's batch rule: 70 GiB as CUDA reports it, and the name") {
  CHECK(batch(serve({{"gpu", "card"}, {"catalog", card("Card", 70)}})).second == 1024);
  CHECK(batch(serve({{"gpu", "card"}, {"catalog", card("Card", 69.9)}})).second == 256);
  CHECK(batch(serve({{"gpu", "card"}, {"catalog", card("NVIDIA A100 80GB PCIe", 79.2)}})).second ==
        256);
}

TEST_CASE("vLLM serve's batch knobs: a number given stays, the other follows the card") {
  const json r = serve({{"gpu", "h100-sxm"}, {"engine_options", {{"max_num_seqs", 300}}}});
  CHECK(batch(r) == std::pair<double, double>(8192, 300));
  const json both =
      serve({{"gpu", "h100-sxm"},
             {"engine_options", {{"max_num_seqs", 256}, {"max_num_batched_tokens", 4096}}}});
  CHECK(batch(both) == std::pair<double, double>(4096, 256));
  CHECK_FALSE(assumes(both, "assumption.vllm_batch"));
  // The word is a knob's value like a number.
  CHECK(batch(serve({{"gpu", "l4"}, {"engine_options", {{"max_num_seqs", "auto"}}}})).second ==
        256);
}

TEST_CASE("vLLM's sampler warm-up: min(tokens, max_num_seqs) rows, sorted with profile_top_k") {
  // gpt-oss-120b on one H100 as vLLM issue #27508 ran it: --max-num-batched-tokens
  // 1024, max_num_seqs 1024 by the card, vocabulary 201,088, hidden 2880.
  json request = {
      {"model", "gpt-oss-120b"},
      {"gpu", "h100-sxm"},
      {"context", 131072},
      {"engine_options", {{"gpu_memory_utilization", 0.95}, {"max_num_batched_tokens", 1024}}}};
  const json flashinfer = serve(request);
  CHECK(testing::term_gb(flashinfer, "activations") == doctest::Approx(1024 * 201088.0 * 10 / 1e9));
  request["engine_options"]["profile_top_k"] = true;
  const json sorted = serve(request);
  const double sort = 1024 * 201088.0 * 38 + 1024 * 2880.0 * 2;
  CHECK(testing::term_gb(sorted, "activations") == doctest::Approx(sort / 1e9));
  // 7.3 GiB: the peak the two H100 logs leave beyond the weights (about 7.5 GiB).
  CHECK(sort / (1024.0 * 1024 * 1024) == doctest::Approx(7.29).epsilon(0.01));
  // Fewer batched tokens than sequences: one row per token.
  request["engine_options"]["max_num_batched_tokens"] = 512;
  CHECK(testing::term_gb(serve(request), "activations") ==
        doctest::Approx((512 * 201088.0 * 38 + 512 * 2880.0 * 2) / 1e9));
}

namespace {

// The value the command writes for `flag`, or null when it writes none.
json arg(const json& answer, const std::string& flag) {
  for (const json& a : answer.at("launch").at("args")) {
    if (a.at("flag") == flag) return a.at("value");
  }
  return nullptr;
}

}  // namespace

TEST_CASE("the command carries the max_num_seqs the KV budget's profile ran with") {
  // Before, --max-num-seqs carried the plan's users while the profile sampled the card's
  // default (256 or 1024) rows: the budget printed was not the command's.
  for (const char* gpu : {"h100-sxm", "a100-sxm", "l4"}) {
    for (const int users : {1, 20, 300, 1500}) {
      for (const json& options :
           {json::object(), json{{"max_num_seqs", 64}}, json{{"max_num_batched_tokens", 128}},
            json{{"max_num_seqs", 2048}, {"max_num_batched_tokens", 4096}}}) {
        CAPTURE(gpu);
        CAPTURE(users);
        CAPTURE(options.dump());
        const json r =
            serve({{"gpu", gpu}, {"context", 1024}, {"batch", users}, {"engine_options", options}});
        const auto [tokens, seqs] = batch(r);
        // The command writes it, always, as the number the profile's terms used.
        CHECK(arg(r, "--max-num-seqs") == seqs);
        // max_num_batched_tokens given is written; under auto vLLM picks the card's, as assumed.
        CHECK(arg(r, "--max-num-batched-tokens") ==
              (options.contains("max_num_batched_tokens") ? json(tokens) : json()));
        CHECK(r.at("engine").at("options").at("max_num_seqs") == seqs);
        // The sampler warmed up on min(tokens, max_num_seqs) rows of that value.
        const json& f = activations(r).at("formula").at("params");
        CHECK(f.at("seqs").get<double>() == std::min(tokens, seqs));
        // vLLM picks no more sequences than batched tokens itself; a value given beyond them
        // stops it, and users beyond max_num_seqs wait: both said.
        if (!options.contains("max_num_seqs")) CHECK(seqs <= tokens);
        CHECK(testing::warns(r, "warning.vllm_seqs_tokens") == (seqs > tokens));
        CHECK(testing::warns(r, "warning.vllm_seqs_users") == (users > seqs));
      }
    }
  }
}

TEST_CASE("max_num_seqs counts a data-parallel rank's users, as each rank schedules its own") {
  const json r = testing::estimate(
      {{"model", "deepseek-v3"},
       {"engine", "vllm"},
       {"gpu", "h200-sxm"},
       {"gpu_count", 8},
       {"context", 4096},
       {"batch", 1500},
       {"engine_options",
        {{"data_parallel_size", 8}, {"expert_parallel", true}, {"max_num_seqs", 200}}}});
  CHECK(arg(r, "--data-parallel-size") == 8);
  CHECK(arg(r, "--max-num-seqs") == 200);
  // 1500 users over 8 ranks: 188 a rank, within 200.
  CHECK_FALSE(testing::warns(r, "warning.vllm_seqs_users"));
}

TEST_CASE("the knobs that move the budget are in the command: eager mode and the block size") {
  const json plain = serve({{"gpu", "h100-sxm"}});
  CHECK(arg(plain, "--enforce-eager").is_null());
  CHECK(arg(plain, "--block-size").is_null());  // vLLM's 16
  const json eager = serve(
      {{"gpu", "h100-sxm"}, {"engine_options", {{"enforce_eager", true}, {"block_size", 32}}}});
  // No CUDA graphs counted, none captured; blocks of 32 tokens counted and allocated.
  CHECK(testing::term_gb(eager, "cuda_graph") == 0);
  CHECK(arg(eager, "--enforce-eager") == true);
  CHECK(arg(eager, "--block-size") == 32);
  const std::string command = eager.at("launch").at("command");
  CHECK(command.find(" --enforce-eager") != std::string::npos);
  CHECK(command.find(" --enforce-eager true") == std::string::npos);
  CHECK(command.find(" --block-size 32") != std::string::npos);
}
