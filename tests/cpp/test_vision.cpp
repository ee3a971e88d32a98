// A vision-language model's images (issue 42 part 2, "what shares the
// cards"): image tokens from the config join the context, vLLM's encoder
// cache and the tower's profiling pass, llama.cpp's mmproj file and its
// clip buffer, and the flags that set them.

#include <string>

#include <doctest/doctest.h>

#include "helpers.hpp"
#include "vram/error.hpp"

using nlohmann::json;

namespace {

// Gemma 3 27B: text hidden 5376; SigLIP so400m, 1152 wide, MLP 4304, 16
// heads, 896 pixels in patches of 14 (64 x 64 = 4096 patches), 256 tokens an
// image (mm_tokens_per_image).
constexpr double kHidden = 5376;
constexpr double kPatches = 4096;
constexpr double kTokens = 256;

json serve(const std::string& engine, std::int64_t images, const std::string& weights = "native",
           std::int64_t context = 8192) {
  json r = {{"model", "gemma-3-27b"}, {"weights", weights}, {"engine", engine},
            {"gpu", "h100-sxm"},      {"context", context}, {"images", images}};
  return testing::estimate(r);
}

double vision_params() {
  const json model = testing::estimate({{"model", "gemma-3-27b"}}).at("model");
  for (const json& e : model.at("extras")) {
    if (e.at("id") == "vision") return e.at("params").get<double>();
  }
  return 0;
}

}  // namespace

TEST_CASE("images are refused by a model without a vision tower, and by an unknown token count") {
  const vram::Error no_tower = testing::estimate_error({{"model", "llama-3.1-8b"}, {"images", 1}});
  CHECK(no_tower.code() == "not_applicable");
  CHECK(no_tower.field() == "images");
  CHECK(no_tower.message().id == "error.no_vision");
  // A text-only Gemma 3 (gemma3_text) has no tower either.
  CHECK(testing::estimate_error({{"model", "gemma-3-1b"}, {"images", 2}}).message().id ==
        "error.no_vision");
  // 0 images is every model's default.
  CHECK_NOTHROW(testing::estimate({{"model", "llama-3.1-8b"}, {"images", 0}}));
  CHECK_THROWS(testing::estimate({{"model", "gemma-3-27b"}, {"images", 65}}));
  CHECK_THROWS(testing::estimate({{"model", "gemma-3-27b"}, {"images", -1}}));
  // Fine-tuning takes no images.
  CHECK_THROWS(testing::estimate({{"model", "gemma-3-27b"}, {"mode", "lora"}, {"images", 1}}));

  // A vision_config that says nothing of an image's tokens: refused, never guessed.
  json config = testing::read_json("tests/configs/gemma-2-9b-it/config.json");
  config["vision_config"] = {{"hidden_size", 1152},
                             {"intermediate_size", 4304},
                             {"num_hidden_layers", 27},
                             {"image_size", 896},
                             {"patch_size", 14}};
  const vram::Error unknown = testing::estimate_error({{"config", config}, {"images", 1}});
  CHECK(unknown.message().id == "error.vision_tokens");
  CHECK(unknown.field() == "images");
  // With a merge factor, the patches a side over it, squared: (64 / 2)^2.
  config["vision_config"]["spatial_merge_size"] = 2;
  const json merged = testing::estimate({{"config", config}, {"images", 1}, {"context", 1000}});
  CHECK(merged.at("kv_cache_gb").get<double>() ==
        doctest::Approx(testing::estimate({{"config", config}, {"context", 2024}})
                            .at("kv_cache_gb")
                            .get<double>()));
}

TEST_CASE("the images' tokens join the context the KV cache holds") {
  const json text = testing::estimate({{"model", "gemma-3-27b"}, {"context", 8192 + 2 * 256}});
  const json images = testing::estimate({{"model", "gemma-3-27b"}, {"images", 2}});
  CHECK(images.at("kv_cache_gb").get<double>() ==
        doctest::Approx(text.at("kv_cache_gb").get<double>()));
  bool noted = false;
  for (const json& a : images.at("assumptions")) {
    if (a.at("id") != "assumption.image_tokens") continue;
    noted = true;
    CHECK(a.at("params").at("per_image") == kTokens);
    CHECK(a.at("params").at("tokens") == 2 * kTokens);
  }
  CHECK(noted);
  // A pasted config's mm_tokens_per_image is read.
  json config = testing::read_json("tests/configs/gemma-3-27b-it/config.json");
  config["mm_tokens_per_image"] = 100;
  const json pasted = testing::estimate({{"config", config}, {"images", 3}, {"context", 700}});
  CHECK(pasted.at("kv_cache_gb").get<double>() ==
        doctest::Approx(testing::estimate({{"config", config}, {"context", 1000}})
                            .at("kv_cache_gb")
                            .get<double>()));
}

TEST_CASE("vLLM: the encoder cache and the tower's profiling pass come off the KV cache") {
  const json none = serve("vllm", 0);
  const json two = serve("vllm", 2);
  CHECK(testing::term_gb(none, "encoder_cache") == 0);
  CHECK(testing::term_gb(none, "vision_peak") == 0);
  // max(max_num_batched_tokens 8192, 256) embeddings of the text model's width, 16-bit.
  const double cache = 8192 * kHidden * 2;
  CHECK(testing::term_gb(two, "encoder_cache") == doctest::Approx(cache / 1e9));
  // min(8192 / 256, 256 sequences x 2) = 32 dummy images through the tower, less the
  // text pass's peak they do not overlap.
  double activations = 0;
  for (const json& t : two.at("terms")) {
    if (t.at("id") == "activations") activations = t.at("gb").get<double>() * 1e9;
  }
  const double tower = 32 * kPatches * (2 * 1152 + 2 * 4304) * 2;
  CHECK(testing::term_gb(two, "vision_peak") ==
        doctest::Approx(std::max(0.0, tower - activations) / 1e9));
  // The tower's weights are in the weights already (vLLM loads the whole checkpoint).
  CHECK(two.at("weights_gb").get<double>() == doctest::Approx(none.at("weights_gb").get<double>()));
  CHECK(none.at("weights_gb").get<double>() > vision_params() * 2 / 1e9);
  // Both come off the KV budget one for one.
  CHECK(two.at("kv_budget_gb").get<double>() ==
        doctest::Approx(none.at("kv_budget_gb").get<double>() -
                        testing::term_gb(two, "encoder_cache") -
                        testing::term_gb(two, "vision_peak"))
            .epsilon(1e-6));
  CHECK(testing::launch_command(two).find(" --limit-mm-per-prompt '{\"image\":2}'") !=
        std::string::npos);
  CHECK(testing::launch_command(two).find("--max-model-len 8704") != std::string::npos);
  CHECK(testing::launch_command(none).find("limit-mm") == std::string::npos);
}

TEST_CASE("llama.cpp: the model file leaves the tower out; --mmproj loads it with its buffer") {
  const json none = serve("llamacpp", 0, "q4_k_m");
  const json one = serve("llamacpp", 1, "q4_k_m");
  const double vision = vision_params();
  CHECK(vision > 4e8);
  // At images 0 too: the text GGUF holds no tower.
  double model_buffer = 0;
  for (const json& t : none.at("terms")) {
    if (t.at("id") != "weights") continue;
    model_buffer = t.at("gb").get<double>();
    CHECK(t.at("formula").at("id") == "formula.model_buffer_vision");
  }
  const double per_param =
      none.at("weights_gb").get<double>() / none.at("model").at("params_total").get<double>();
  const double host = none.at("terms")[0].at("inputs").at("host_gb").get<double>();
  CHECK(model_buffer ==
        doctest::Approx(none.at("weights_gb").get<double>() - host - vision * per_param));
  CHECK(testing::term_gb(none, "mmproj") == 0);
  CHECK(testing::launch_command(none).find("--mmproj") == std::string::npos);
  // The mmproj file in F16, and one 896-pixel image's clip graph in F32: flash attention
  // off by default here, so every head's scores; none with it on.
  CHECK(testing::term_gb(one, "mmproj") == doctest::Approx(vision * 2 / 1e9));
  const double activations = kPatches * (2 * 1152 + 2 * 4304) * 4;
  CHECK(testing::term_gb(one, "mmproj_compute") ==
        doctest::Approx((16 * kPatches * kPatches * 4 + activations) / 1e9));
  const json flash = testing::estimate({{"model", "gemma-3-27b"},
                                        {"weights", "q4_k_m"},
                                        {"engine", "llamacpp"},
                                        {"engine_options", {{"flash_attn", true}}},
                                        {"images", 1}});
  CHECK(testing::term_gb(flash, "mmproj_compute") == doctest::Approx(activations / 1e9));
  CHECK(testing::launch_command(one).find(" --mmproj mmproj.gguf") != std::string::npos);
  CHECK(testing::launch_command(one).find("-c 8448") != std::string::npos);
}

TEST_CASE("SGLang and the conventions: the tokens are counted, SGLang says what is not") {
  const json sglang = serve("sglang", 1);
  bool noted = false;
  for (const json& a : sglang.at("assumptions"))
    noted = noted || a.at("id") == "assumption.sglang_vision";
  CHECK(noted);
  CHECK(testing::term_gb(sglang, "encoder_cache") == 0);
  const json guide = testing::estimate({{"model", "gemma-3-27b"}, {"images", 4}});
  CHECK(testing::term_gb(guide, "mmproj") == 0);
}
