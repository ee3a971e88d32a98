// The transformers engine profile (generate() on one GPU): DynamicCache as
// transformers keeps it, the prefill's activation peak from the shapes, the
// cuBLAS workspaces in the allocator and the CUDA context outside it. Each
// figure computed here by hand from the model's config.
#include <doctest/doctest.h>

#include "helpers.hpp"
#include "vram/error.hpp"
#include "vram/units.hpp"

using nlohmann::json;

namespace {

double term_bytes(const json& result, const std::string& id) {
  const json* term = testing::find_term(result, id);
  if (term == nullptr) FAIL("no term " << id);
  return term->at("gb").get<double>() * vram::kBytesPerGB;
}

json request(const std::string& model, int context, int batch) {
  return {{"model", model}, {"engine", "transformers"}, {"weights", "bf16"},
          {"kv", "bf16"},   {"context", context},       {"batch", batch}};
}

}  // namespace

TEST_CASE("transformers keeps every prompt token for sliding-window layers") {
  // Gemma 3 1B: 26 layers (22 sliding over 512 tokens, 4 global), 1 KV head
  // of 256. DynamicSlidingWindowLayer's window is a view of the whole
  // concatenation, so after a 4,096-token prefill all 26 layers hold 4,096.
  const json r = testing::estimate(request("gemma-3-1b", 4096, 2));
  const double every_token = 26 * 2 * 1 * 256 * 2.0 * 4096 * 2;
  CHECK(term_bytes(r, "kv_cache") == doctest::Approx(every_token).epsilon(1e-12));
  CHECK(r.at("kv_cache_gb").get<double>() * vram::kBytesPerGB ==
        doctest::Approx(every_token).epsilon(1e-12));
  // The guide sizes the sliding layers at their window, as vLLM keeps them.
  json guide = request("gemma-3-1b", 4096, 2);
  guide["engine"] = "guide";
  const double windowed = (4 * 4096 + 22 * 512) * 2 * 256 * 2.0 * 2;
  CHECK(term_bytes(testing::estimate(guide), "kv_cache") ==
        doctest::Approx(windowed).epsilon(1e-12));
  // Phi-3 mini: every layer slides over 2,047 tokens; transformers keeps all 4,096.
  const json phi = testing::estimate(request("phi-3-mini", 4096, 1));
  CHECK(term_bytes(phi, "kv_cache") ==
        doctest::Approx(32 * 2 * 32 * 96 * 2.0 * 4096).epsilon(1e-12));
}

TEST_CASE("transformers' prefill peak of a full-attention model, term by term") {
  // Llama 3.1 8B, 4,096 tokens x batch 2 in BF16: hidden 4,096, FFN 14,336,
  // head 128. At the last layer's MLP: 4 hidden-wide tensors and 3
  // FFN-wide, 2 bytes each, and the int64 token id; per position the rotary
  // cos and sin (128 x 2 bytes each) and the int64 cache position.
  const json r = testing::estimate(request("llama-3.1-8b", 4096, 2));
  const double weights = 8030261248.0 * 2;
  const double kv = 32 * 2 * 8 * 128 * 2.0 * 4096 * 2;
  const double per_token = (4 * 4096 + 3 * 14336) * 2.0 + 8;
  const double activations = 4096 * 2 * per_token + 4096 * (2 * 128 * 2.0 + 8);
  CHECK(term_bytes(r, "weights") == doctest::Approx(weights).epsilon(1e-12));
  CHECK(term_bytes(r, "kv_cache") == doctest::Approx(kv).epsilon(1e-12));
  CHECK(term_bytes(r, "prefill_activations") == doctest::Approx(activations).epsilon(1e-12));
  // Full causal attention under SDPA needs no mask.
  CHECK(testing::find_term(r, "attention_mask") == nullptr);
  CHECK(term_bytes(r, "blas_workspace") == doctest::Approx(64 * vram::kBytesPerMiB).epsilon(1e-12));
  CHECK(term_bytes(r, "non_torch") == doctest::Approx(0.67 * vram::kBytesPerGiB).epsilon(1e-12));
  const double total =
      weights + kv + activations + 64 * vram::kBytesPerMiB + 0.67 * vram::kBytesPerGiB;
  CHECK(r.at("total_gb").get<double>() * vram::kBytesPerGB == doctest::Approx(total).epsilon(1e-9));
  // The activations grow with batch x context; the rotary tables with the context alone.
  json one = request("llama-3.1-8b", 4096, 1);
  const double single = term_bytes(testing::estimate(one), "prefill_activations");
  CHECK(activations - single == doctest::Approx(4096 * per_token).epsilon(1e-12));
}

TEST_CASE("transformers: the sliding-window mask, Phi-3's fused MLP, MoE experts, FP32") {
  // Gemma 3 1B over 4,096 tokens, window 512: a 4,096 x 4,096 boolean mask, once for the batch.
  const json g = testing::estimate(request("gemma-3-1b", 4096, 8));
  CHECK(term_bytes(g, "attention_mask") == doctest::Approx(4096.0 * 4096).epsilon(1e-12));
  // Below the window, SDPA runs causal without one.
  CHECK(testing::find_term(testing::estimate(request("gemma-3-1b", 256, 8)), "attention_mask") ==
        nullptr);
  // Gemma 3 keeps local and global rotary tables: two cos/sin pairs of 256.
  const double gemma_token = (4 * 1152 + 3 * 6912) * 2.0 + 8;
  CHECK(term_bytes(g, "prefill_activations") ==
        doctest::Approx(4096 * 8 * gemma_token + 4096 * (2 * 2 * 256 * 2.0 + 8)).epsilon(1e-12));
  // Phi-3's gate_up_proj: its double-width output, the activation and the product.
  const json phi = testing::estimate(request("phi-3-mini", 4096, 1));
  const double phi_token = (4 * 3072 + 4 * 8192) * 2.0 + 8;
  CHECK(term_bytes(phi, "prefill_activations") ==
        doctest::Approx(4096 * phi_token + 4096 * (2 * 96 * 2.0 + 8)).epsilon(1e-12));
  // DeepSeek V2 Lite: its MoE layers (6 of 64 experts of 1,408) outweigh the
  // dense first layer (10,944); rotary tables over the 64 rope dimensions.
  const json ds = testing::estimate(request("deepseek-v2-lite", 4096, 1));
  const double moe_token = (5 * 2048 + 6 * (4 * 2048 + 3 * 1408)) * 2.0 + 8;
  CHECK(moe_token > (4 * 2048 + 3 * 10944) * 2.0 + 8);
  CHECK(term_bytes(ds, "prefill_activations") ==
        doctest::Approx(4096 * moe_token + 4096 * (2 * 64 * 2.0 + 8)).epsilon(1e-12));
  // FP32 weights compute in FP32: 4 bytes an element.
  json fp32 = request("qwen2.5-0.5b", 1024, 1);
  fp32["weights"] = "fp32";
  const double fp32_token = (4 * 896 + 3 * 4864) * 4.0 + 8;
  CHECK(term_bytes(testing::estimate(fp32), "prefill_activations") ==
        doctest::Approx(1024 * fp32_token + 1024 * (2 * 64 * 4.0 + 8)).epsilon(1e-12));
}

TEST_CASE("transformers' knobs: the allocator's peak alone, errors named, device_map") {
  json r = request("llama-3.2-1b", 4096, 1);
  r["engine_options"] = {{"non_torch_gib", 0}, {"blas_workspace_mib", 32}};
  const json peak = testing::estimate(r);
  CHECK(term_bytes(peak, "non_torch") == 0);
  CHECK(term_bytes(peak, "blas_workspace") ==
        doctest::Approx(32 * vram::kBytesPerMiB).epsilon(1e-12));
  auto field_of = [](const json& request) {
    try {
      testing::estimate(request);
    } catch (const vram::Error& e) {
      return e.field() + " " + e.code();
    }
    return std::string("no error");
  };
  r["engine_options"] = {{"non_torch_gib", -1}};
  CHECK(field_of(r) == "engine_options.non_torch_gib invalid_value");
  r["engine_options"] = {{"blas_workspace_mib", "64"}};
  CHECK(field_of(r) == "engine_options.blas_workspace_mib wrong_type");
  r["engine_options"] = {{"n_ubatch", 512}};  // llama.cpp's, not transformers'
  CHECK(field_of(r) == "engine_options.n_ubatch unknown_field");
  // Two cards under device_map: each holds half the layers, their weights and cache.
  json two = request("llama-3.1-8b", 4096, 1);
  const json whole = testing::estimate(two);
  two["gpu_count"] = 2;
  const json half = testing::estimate(two);
  CHECK(term_bytes(half, "weights") == doctest::Approx(term_bytes(whole, "weights") / 2));
  CHECK(term_bytes(half, "kv_cache") == doctest::Approx(term_bytes(whole, "kv_cache") / 2));
  CHECK(term_bytes(half, "prefill_activations") ==
        doctest::Approx(term_bytes(whole, "prefill_activations")));
}
