// Multi-LoRA serving (issue 42 part 2): the adapter slots vLLM
// (--max-loras, --max-lora-rank) and SGLang (--max-loras-per-batch) allocate
// for every adapted module of every layer, off the KV cache one for one, and
// the flags that set them in the command. The expected values are counted
// here by hand from each model's config, module by module.

#include <string>

#include <doctest/doctest.h>

#include "helpers.hpp"

using nlohmann::json;

namespace {

json serve(const std::string& model, const std::string& engine, json options,
           const std::string& gpu = "h100-sxm") {
  json r = {
      {"model", model}, {"weights", "bf16"}, {"engine", engine}, {"gpu", gpu}, {"context", 8192}};
  if (!options.empty()) r["engine_options"] = std::move(options);
  return testing::estimate(r);
}

using testing::has;

// Llama 3.1 8B (hidden 4096, 32 heads, 8 KV heads of 128, FFN 14336, 32
// layers), values at rank 1 per layer on one card of `tp`:
// q/k/v: A 3 x 4096, B (32 / tp + 8 / tp x 2) x 128; o: A 4096 / tp, B 4096;
// gate/up: A 2 x 4096, B 2 x 14336 / tp; down: A 14336 / tp, B 4096.
double llama8b_values(double tp) {
  const double qkv = 3 * 4096 + (32 / tp) * 128 + (8 / tp) * 256;
  const double o = 4096 / tp + 4096;
  const double mlp = 2 * 4096 + 2 * 14336 / tp + 14336 / tp + 4096;
  return 32 * (qkv + o + mlp);
}

}  // namespace

TEST_CASE("vLLM's adapter slots: every layer's A and B at the max rank, off the KV cache") {
  const json off = serve("llama-3.1-8b", "vllm", json::object());
  const json on = serve("llama-3.1-8b", "vllm", {{"max_loras", 8}, {"max_lora_rank", 16}});
  const double expected = 8 * 16 * llama8b_values(1) * 2;  // 671 MB
  CHECK((testing::term_gb(off, "lora_slots") * 1e9) == 0);
  CHECK((testing::term_gb(on, "lora_slots") * 1e9) == doctest::Approx(expected).epsilon(1e-9));
  CHECK(on.at("kv_budget_gb").get<double>() ==
        doctest::Approx(off.at("kv_budget_gb").get<double>() - expected / 1e9));
  // Twice the rank, twice the slots.
  const json wide = serve("llama-3.1-8b", "vllm", {{"max_loras", 8}, {"max_lora_rank", 32}});
  CHECK((testing::term_gb(wide, "lora_slots") * 1e9) == doctest::Approx(2 * expected));
}

TEST_CASE("Under tensor parallelism each card holds A whole or B whole, as its module splits") {
  const json tp2 = serve("llama-3.1-8b", "vllm",
                         {{"max_loras", 4}, {"max_lora_rank", 16}, {"tensor_parallel_size", 2}});
  CHECK((testing::term_gb(tp2, "lora_slots") * 1e9) ==
        doctest::Approx(4 * 16 * llama8b_values(2) * 2).epsilon(1e-9));
}

TEST_CASE("An MoE model's slots hold every expert's adapters") {
  // Qwen3 30B-A3B: hidden 2048, 32 heads and 4 KV heads of 128, 48 layers of
  // 128 experts 768 wide. Per layer: q/k/v 3 x 2048 + 32 x 128 + 4 x 256, o
  // 4096 + 2048; each expert gate/up 2 x 2048 + 2 x 768, down 768 + 2048.
  const double per_layer =
      (3 * 2048 + 32 * 128 + 4 * 256) + (4096 + 2048) + 128 * (2 * 2048 + 2 * 768 + 768 + 2048);
  const json r = serve("qwen3-30b-a3b", "vllm", {{"max_loras", 1}, {"max_lora_rank", 16}});
  CHECK((testing::term_gb(r, "lora_slots") * 1e9) ==
        doctest::Approx(16 * 48 * per_layer * 2).epsilon(1e-9));
  // vLLM refuses LoRA on MoE layers under expert parallelism: said, not hidden.
  const json ep = serve("qwen3-30b-a3b", "vllm",
                        {{"max_loras", 1}, {"tensor_parallel_size", 2}, {"expert_parallel", true}});
  CHECK(testing::warns(ep, "warning.vllm_lora_ep"));
  CHECK_FALSE(testing::warns(r, "warning.vllm_lora_ep"));
}

TEST_CASE("vLLM's command turns LoRA on with the slots and the rank it was sized for") {
  const std::string none = testing::launch_command(serve("llama-3.1-8b", "vllm", json::object()));
  CHECK_FALSE(has(none, "lora"));
  // One slot is vLLM's own default: --enable-lora alone says it.
  const std::string one =
      testing::launch_command(serve("llama-3.1-8b", "vllm", {{"max_loras", 1}}));
  CHECK(has(one, " --enable-lora"));
  CHECK_FALSE(has(one, "--max-loras"));
  CHECK_FALSE(has(one, "--max-lora-rank"));
  const std::string four = testing::launch_command(
      serve("llama-3.1-8b", "vllm", {{"max_loras", 4}, {"max_lora_rank", 64}}));
  CHECK(has(four, " --enable-lora --max-loras 4 --max-lora-rank 64"));
}

TEST_CASE("vLLM refuses a max LoRA rank outside its list: a warning, not a silent plan") {
  CHECK(testing::warns(serve("llama-3.1-8b", "vllm", {{"max_loras", 2}, {"max_lora_rank", 24}}),
                       "warning.vllm_lora_rank"));
  CHECK_FALSE(
      testing::warns(serve("llama-3.1-8b", "vllm", {{"max_loras", 2}, {"max_lora_rank", 320}}),
                     "warning.vllm_lora_rank"));
  // Without LoRA the rank is not read.
  CHECK_FALSE(testing::warns(serve("llama-3.1-8b", "vllm", {{"max_lora_rank", 24}}),
                             "warning.vllm_lora_rank"));
}

TEST_CASE("SGLang's LoRA pool comes off the KV pool one for one, and the command sets it") {
  const json off = serve("llama-3.1-8b", "sglang", json::object());
  const json on = serve("llama-3.1-8b", "sglang", {{"max_loras", 8}, {"max_lora_rank", 16}});
  const double expected = 8 * 16 * llama8b_values(1) * 2;
  CHECK((testing::term_gb(on, "lora_slots") * 1e9) == doctest::Approx(expected).epsilon(1e-9));
  CHECK(on.at("kv_budget_gb").get<double>() ==
        doctest::Approx(off.at("kv_budget_gb").get<double>() - expected / 1e9));
  CHECK_FALSE(has(testing::launch_command(off), "lora"));
  // Eight adapters per batch is SGLang's default; the rank and the modules are always given.
  CHECK(has(testing::launch_command(on),
            " --enable-lora --max-lora-rank 16 --lora-target-modules all"));
  CHECK_FALSE(has(testing::launch_command(on), "--max-loras-per-batch"));
  CHECK(has(testing::launch_command(serve("llama-3.1-8b", "sglang", {{"max_loras", 2}})),
            "--max-loras-per-batch 2"));
}

TEST_CASE("Adapter slots are a knob of the engines that allocate them, checked like any other") {
  CHECK_THROWS(serve("llama-3.1-8b", "vllm", {{"max_loras", -1}}));
  CHECK_THROWS(serve("llama-3.1-8b", "vllm", {{"max_lora_rank", 0}}));
  CHECK_THROWS(serve("llama-3.1-8b", "sglang", {{"max_loras", 1.5}}));
  // llama.cpp loads each --lora file whole; it has no slots to size.
  CHECK_THROWS(serve("llama-3.1-8b", "llamacpp", {{"max_loras", 2}}));
}
