// vLLM's MXFP4 MoE layout (core/src/engines/mxfp4_layout.cpp): the backend
// vLLM picks on each card and the bytes it keeps beyond gpt-oss's checkpoint,
// hand-computed from the shapes in vllm/model_executor/layers/quantization/
// mxfp4.py, marlin_utils_fp4.py and triton_kernels' Hopper layouts.
#include <doctest/doctest.h>

#include <cmath>
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

namespace {

json gpt_oss_with(const std::string& gpu, const std::string& backend) {
  return testing::estimate({{"model", "gpt-oss-120b"},
                            {"engine", "vllm"},
                            {"gpu", gpu},
                            {"engine_options", {{"mxfp4_backend", backend}}}});
}

// One expert of one layer as each backend keeps gpt-oss-120b's (the shapes
// of "bytes kept beyond the checkpoint, per backend" above).
constexpr double kTriton = 5760.0 * 2880 / 2 + 2880.0 * 2880 / 2 + 5760.0 * 90 + 2880.0 * 90 +
                           5888.0 * 90 + 3072.0 * 90 + (5760.0 + 2880) * 4;
constexpr double kMarlin =
    5888.0 * 3072 / 2 + 3072.0 * 2944 / 2 + 5888.0 * 96 + 3072.0 * 92 + (5888.0 + 3072) * 2;
constexpr double kFlashinfer =
    6144.0 * 3072 / 2 + 3072.0 * 3072 / 2 + 6144.0 * 96 + 3072.0 * 96 + (6144.0 + 3072) * 4 + 12;

}  // namespace

TEST_CASE("vLLM MXFP4: mxfp4_backend forces the layout the card can run") {
  struct Forced {
    const char* gpu;
    const char* backend;
    double kept;
  };
  const Forced cases[] = {
      {"h100-sxm", "marlin", kMarlin},     {"h100-sxm", "triton", kTriton},
      {"h200-sxm", "marlin", kMarlin},     {"b200", "marlin", kMarlin},
      {"b200", "triton", kTriton},         {"b200", "flashinfer", kFlashinfer},
      {"b300", "triton", kTriton},         {"a100-sxm", "marlin", kMarlin},
      {"rtx-pro-6000", "marlin", kMarlin},
  };
  for (const Forced& f : cases) {
    CAPTURE(f.gpu);
    CAPTURE(f.backend);
    const json r = gpt_oss_with(f.gpu, f.backend);
    const json& term = testing::term(r, "mxfp4_layout");
    CHECK(term.at("inputs").at("backend") == f.backend);
    CHECK(term.at("formula").at("params").at("backend").at("id") == "mxfp4_backend.asked");
    CHECK(testing::term_gb(r, "mxfp4_layout") ==
          doctest::Approx(kExpertLayers * (f.kept - kCheckpoint) / 1e9));
    // vLLM's one switch among them is VLLM_MXFP4_USE_MARLIN=1 (vllm/envs.py): the command
    // starts with it for Marlin and carries nothing for the others.
    CHECK(testing::has(testing::launch_command(r), "VLLM_MXFP4_USE_MARLIN=1 vllm serve") ==
          (std::string(f.backend) == "marlin"));
  }
  // Marlin on Hopper keeps about 1.6 GiB more of gpt-oss-120b than Triton: the gap
  // between issue #23278's pip install and vLLM's image.
  const double more = testing::term_gb(gpt_oss_with("h100-sxm", "marlin"), "mxfp4_layout") -
                      testing::term_gb(gpt_oss_with("h100-sxm", "auto"), "mxfp4_layout");
  CHECK(more * 1e9 / 1073741824.0 == doctest::Approx(1.6).epsilon(0.05));
  // "auto" is the card's pick, said so.
  const json card = gpt_oss("h100-sxm");
  const json& by_card = testing::term(card, "mxfp4_layout");
  CHECK(by_card.at("formula").at("params").at("backend").at("id") == "mxfp4_backend.by_card");
  CHECK(by_card.at("formula").at("params").at("backend").at("params").at("backend").at("id") ==
        "mxfp4_backend.triton");
  CHECK(testing::term_gb(gpt_oss_with("h100-sxm", "auto"), "mxfp4_layout") ==
        testing::term_gb(gpt_oss("h100-sxm"), "mxfp4_layout"));
}

TEST_CASE("vLLM MXFP4: a backend the card cannot run is refused, never swapped") {
  const std::pair<const char*, const char*> refused[] = {
      {"h100-sxm", "flashinfer"},      // FlashInfer's SM100 path on SM90
      {"rtx-pro-6000", "flashinfer"},  // SM120 Blackwell: GDDR7
      {"a100-sxm", "triton"},          // triton_kernels: SM90 to SM100 only
      {"l40s", "triton"},
      {"rtx-5090", "triton"},  // SM120
      {"mi300x", "marlin"},    // off CUDA
  };
  for (const auto& [gpu, backend] : refused) {
    CAPTURE(gpu);
    CAPTURE(backend);
    const vram::Error e =
        testing::estimate_error({{"model", "gpt-oss-120b"},
                                 {"engine", "vllm"},
                                 {"gpu", gpu},
                                 {"engine_options", {{"mxfp4_backend", backend}}}});
    CHECK(e.code() == "invalid_value");
    CHECK(e.field() == "engine_options.mxfp4_backend");
    CHECK(e.message().id == "error.mxfp4_backend_card");
  }
  // A word outside the knob's choices is the schema's error.
  const vram::Error other =
      testing::estimate_error({{"model", "gpt-oss-120b"},
                               {"engine", "vllm"},
                               {"engine_options", {{"mxfp4_backend", "cutlass"}}}});
  CHECK(other.message().id == "error.choice");
  // A model without MXFP4 experts ignores it; without a card nothing is refused.
  CHECK(testing::find_term(testing::estimate({{"model", "llama-3.1-8b"},
                                              {"engine", "vllm"},
                                              {"gpu", "a100-sxm"},
                                              {"engine_options", {{"mxfp4_backend", "triton"}}}}),
                           "mxfp4_layout") == nullptr);
  // The cards to rent for a forced backend are those that run it: no A100 for Triton.
  const json any = testing::estimate({{"model", "gpt-oss-120b"},
                                      {"engine", "vllm"},
                                      {"engine_options", {{"mxfp4_backend", "triton"}}}});
  CHECK(testing::term_gb(any, "mxfp4_layout") > 0);
  CHECK(!any.at("fits").empty());
  for (const char* list : {"fits", "below_floor"}) {
    for (const json& row : any.at(list)) {
      CAPTURE(row.at("gpu"));
      const std::string gpu = row.at("gpu").get<std::string>();
      CHECK((gpu.rfind("h", 0) == 0 || gpu.rfind("b", 0) == 0));
    }
  }
}

TEST_CASE("vLLM MXFP4: the log's backend line sets mxfp4_backend") {
  // vLLM issue #23278 (H100, a pip install without triton_kernels): Marlin ran.
  const std::string marlin =
      "(EngineCore_0 pid=5839) WARNING 08-20 18:04:08 [marlin_utils_fp4.py:196] Your GPU does not "
      "have native support for FP4 computation but FP4 quantization is being used. Weight-only FP4 "
      "compression will be used leveraging the Marlin kernel. This may degrade performance for "
      "compute-heavy workloads.\n"
      "(EngineCore_0 pid=5839) INFO 08-20 18:04:10 [gpu_model_runner.py:2007] Model loading took "
      "65.9651 GiB and 12.799889 seconds\n";
  const json answer =
      testing::calculator().log({{"log", marlin}, {"model", "gpt-oss-120b"}, {"gpu", "h100-sxm"}});
  CHECK(answer.at("log").at("settings").at("mxfp4_backend") == "marlin");
  CHECK(answer.at("request").at("engine_options").at("mxfp4_backend") == "marlin");
  const json estimate = testing::estimate(answer.at("request"));
  CHECK(testing::term(estimate, "mxfp4_layout").at("inputs").at("backend") == "marlin");
  for (const json& r : answer.at("rows")) {
    if (r.at("id") != "weights") continue;
    // Marlin's layout brings the prediction within 1% of the 65.97 GiB logged.
    CHECK(std::abs(r.at("difference_pct").get<double>()) < 1.0);
  }
  // mxfp4.py's and the later oracle's own lines, each backend; other lines set nothing.
  const std::pair<const char*, const char*> lines[] = {
      {"INFO 01-27 00:31:44 [mxfp4.py:165] Using Triton backend\n", "triton"},
      {"INFO 08-20 18:04:08 [mxfp4.py:150] Using Marlin backend\n", "marlin"},
      {"INFO 09-01 10:00:00 [mxfp4.py:120] Using FlashInfer MXFP4 BF16 backend for SM100, For "
       "faster performance on SM100, consider setting VLLM_USE_FLASHINFER_MOE_MXFP4_MXFP8=1\n",
       "flashinfer"},
      {"INFO 03-01 10:00:00 [mxfp4.py:300] Using MARLIN Mxfp4 MoE backend out of potential "
       "backends: ['MARLIN', 'TRITON'].\n",
       "marlin"},
      {"INFO 03-01 10:00:00 [mxfp4.py:300] Using TRITON_MONOLITHIC Mxfp4 MoE backend out of "
       "potential backends: ['MARLIN', 'TRITON_MONOLITHIC'].\n",
       "triton"},
      {"INFO 03-01 10:00:00 [mxfp4.py:300] Using FLASHINFER_TRTLLM_MXFP4_BF16_MONOLITHIC Mxfp4 MoE "
       "backend out of potential backends: [].\n",
       "flashinfer"},
  };
  // Each beside a figure of vLLM's, so that the text reads as its log.
  const std::string loading = "INFO [gpu_model_runner.py:2007] Model loading took 65.97 GiB\n";
  for (const auto& [line, backend] : lines) {
    CAPTURE(line);
    const json read = testing::calculator().log({{"log", line + loading}});
    CHECK(read.at("log").at("settings").at("mxfp4_backend") == backend);
  }
  for (const char* line :
       {"INFO [fp8.py:100] Using Marlin backend\n",
        "INFO 03-01 [mxfp4.py:300] Using FLASHINFER_CUTLASS_MXFP4_MXFP8 Mxfp4 MoE backend out of "
        "potential backends: [].\n"}) {
    CAPTURE(line);
    const json read = testing::calculator().log({{"log", line + loading}});
    CHECK(!read.at("log").at("settings").contains("mxfp4_backend"));
  }
}
