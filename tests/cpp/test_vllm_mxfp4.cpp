// vLLM's MXFP4 MoE layout (core/src/engines/mxfp4_layout.cpp): the backend
// vLLM picks on each card and the bytes it keeps beyond gpt-oss's checkpoint,
// hand-computed from the shapes in vllm/model_executor/layers/quantization/
// mxfp4.py, marlin_utils_fp4.py and triton_kernels' Hopper layouts.
#include <doctest/doctest.h>

#include <string>
#include <utility>

#include "helpers.hpp"

using nlohmann::json;

namespace {

json gpt_oss(const std::string& gpu) {
  return testing::estimate({{"model", "gpt-oss-120b"}, {"engine", "vllm"}, {"gpu", gpu}});
}

// gpt-oss-120b: 36 layers, all MoE, 128 experts, hidden 2880, expert width
// 2880, expert biases. Per expert and layer, the checkpoint holds w13
// (5760 x 2880) and w2 (2880 x 2880) at half a byte a value, a byte per 32
// values of scales, and BF16 biases (5760 + 2880).
constexpr double kExpertLayers = 36.0 * 128;
constexpr double kCheckpoint = 5760.0 * 2880 / 2 + 2880.0 * 2880 / 2 +  //
                               5760.0 * 90 + 2880.0 * 90 + (5760.0 + 2880) * 2;

}  // namespace

TEST_CASE("vLLM MXFP4: the backend follows the card") {
  const std::pair<const char*, const char*> cards[] = {
      {"a100-sxm", "marlin"}, {"a100-40gb", "marlin"}, {"l40s", "marlin"},
      {"rtx-4090", "marlin"}, {"rtx-5090", "marlin"},  {"rtx-pro-6000", "marlin"},
      {"h100-sxm", "triton"}, {"h100-pcie", "triton"}, {"h200-sxm", "triton"},
      {"b200", "flashinfer"}, {"b300", "flashinfer"},
  };
  for (const auto& [gpu, backend] : cards) {
    CAPTURE(gpu);
    const json r = gpt_oss(gpu);
    const json* term = testing::find_term(r, "mxfp4_layout");
    REQUIRE(term != nullptr);
    CHECK(term->at("inputs").at("backend") == backend);
  }
}

TEST_CASE("vLLM MXFP4: bytes kept beyond the checkpoint, per backend") {
  // Triton on Hopper: width 2880 is a multiple of 64 and the values' tiles
  // (16 rows, 32 bytes) divide the matrices, so they keep their bytes; the
  // loaded scales stay beside a swizzled copy whose rows pad to 256
  // (5760 -> 5888, 2880 -> 3072); biases FP32.
  const double triton = 5760.0 * 2880 / 2 + 2880.0 * 2880 / 2 + 5760.0 * 90 + 2880.0 * 90 +
                        5888.0 * 90 + 3072.0 * 90 + (5760.0 + 2880) * 4;
  CHECK(testing::term_gb(gpt_oss("h100-sxm"), "mxfp4_layout") ==
        doctest::Approx(kExpertLayers * (triton - kCheckpoint) / 1e9));
  // Marlin: width to 128 (2944), hidden to 256 (3072), scales one byte,
  // biases BF16.
  const double marlin =
      5888.0 * 3072 / 2 + 3072.0 * 2944 / 2 + 5888.0 * 96 + 3072.0 * 92 + (5888.0 + 3072) * 2;
  CHECK(testing::term_gb(gpt_oss("a100-sxm"), "mxfp4_layout") ==
        doctest::Approx(kExpertLayers * (marlin - kCheckpoint) / 1e9));
  // FlashInfer on SM100: both to 256 (3072), biases FP32, three FP32
  // SwiGLU constants per expert.
  const double flashinfer =
      6144.0 * 3072 / 2 + 3072.0 * 3072 / 2 + 6144.0 * 96 + 3072.0 * 96 + (6144.0 + 3072) * 4 + 12;
  CHECK(testing::term_gb(gpt_oss("b200"), "mxfp4_layout") ==
        doctest::Approx(kExpertLayers * (flashinfer - kCheckpoint) / 1e9));
}

TEST_CASE("vLLM MXFP4: the layout comes out of the KV budget") {
  const json r = gpt_oss("h100-sxm");
  double others = 0;
  for (const json& t : r.at("terms")) {
    if (t.at("id") != "kv_cache") others += t.at("gb").get<double>();
  }
  CHECK(testing::term_gb(r, "mxfp4_layout") > 3.5);
  // Reserved (usable x 0.9) = every term but the cache + the KV budget.
  CHECK(others + r.at("kv_budget_gb").get<double>() ==
        doctest::Approx(79.18 * 1073741824.0 * 0.9 / 1e9));
}

TEST_CASE("vLLM MXFP4: only MXFP4 experts under vLLM on a CUDA card") {
  // A dense BF16 model, gpt-oss without a card, on ROCm, and under SGLang: no term.
  CHECK(testing::find_term(
            testing::estimate({{"model", "llama-3.1-8b"}, {"engine", "vllm"}, {"gpu", "h100-sxm"}}),
            "mxfp4_layout") == nullptr);
  CHECK(testing::find_term(testing::estimate({{"model", "gpt-oss-120b"}, {"engine", "vllm"}}),
                           "mxfp4_layout") == nullptr);
  CHECK(testing::find_term(gpt_oss("mi300x"), "mxfp4_layout") == nullptr);
  CHECK(
      testing::find_term(
          testing::estimate({{"model", "gpt-oss-120b"}, {"engine", "sglang"}, {"gpu", "h100-sxm"}}),
          "mxfp4_layout") == nullptr);
  // Tensor parallel 2: each expert's width is 1440 on a card, which Triton
  // pads to 1472 (a multiple of 64).
  const json tp2 = testing::estimate({{"model", "gpt-oss-120b"},
                                      {"engine", "vllm"},
                                      {"gpu", "h100-sxm"},
                                      {"engine_options", {{"tensor_parallel_size", 2}}}});
  const json* term = testing::find_term(tp2, "mxfp4_layout");
  REQUIRE(term != nullptr);
  CHECK(term->at("inputs").at("expert_width_padded") == 1472);
}

TEST_CASE("vLLM MXFP4: the log's \"Model loading took\" is compared to weights + layout") {
  const std::string text =
      "INFO 01-27 00:31:44 [mxfp4.py:165] Using Triton backend\n"
      "INFO 01-27 00:31:59 [gpu_model_runner.py:3905] Model loading took 64.38 GiB memory and "
      "14.380607 seconds\n";
  const json answer =
      testing::calculator().log({{"log", text}, {"model", "gpt-oss-120b"}, {"gpu", "h100-sxm"}});
  const json estimate = testing::estimate(answer.at("request"));
  const double expected =
      (testing::term_gb(estimate, "weights") + testing::term_gb(estimate, "mxfp4_layout")) * 1e9 /
      1073741824.0;
  CHECK(testing::term_gb(estimate, "mxfp4_layout") > 0);
  bool found = false;
  for (const json& r : answer.at("rows")) {
    if (r.at("id") != "weights") continue;
    found = true;
    CHECK(r.at("logged").get<double>() == doctest::Approx(64.38));
    CHECK(r.at("predicted").get<double>() == doctest::Approx(expected));
  }
  CHECK(found);
}
