// Images through a vision tower that takes any resolution (issue 42, "image
// tokens from resolution and count"): Qwen3.5's Qwen3-VL tower. An image's
// tokens come from its size by transformers' smart_resize
// (qwen2_vl/image_processing_qwen2_vl.py) with factor patch 16 x merge 2 =
// 32, its pixels kept within the published processor's [65,536,
// 16,777,216]; every figure below is worked by hand from that rule.

#include <algorithm>
#include <string>

#include <doctest/doctest.h>

#include "helpers.hpp"
#include "vram/error.hpp"
#include "vram/hf_config.hpp"
#include "vram/model.hpp"

using nlohmann::json;

namespace {

// The shape of Qwen3.5-35B-A3B's config (helpers.hpp): text hidden 2048, the Qwen3-VL tower
// 1152 wide, MLP 4304, 27 blocks, patch 16, merge 2.
json qwen35_vl() { return testing::qwen35_moe_35b(); }

vram::VisionSpec tower() { return vram::import_hf_config(qwen35_vl()).model.vision; }

json serve(std::int64_t images, json extra = json::object()) {
  json r = {{"config", qwen35_vl()},
            {"engine", "vllm"},
            {"gpu", "h200-sxm"},
            {"context", 8192},
            {"images", images}};
  r.update(extra);
  return testing::estimate(r);
}

}  // namespace

TEST_CASE("Qwen3-VL's tower: any resolution, patch 16, merge 2, the processor's pixel bounds") {
  const vram::VisionSpec v = tower();
  CHECK(v.present());
  CHECK(v.dynamic);
  CHECK(v.layers == 27);
  CHECK(v.heads == 16);
  CHECK(v.patch_size == 16);
  CHECK(v.spatial_merge == 2);
  CHECK(v.min_pixels == 65'536);
  CHECK(v.max_pixels == 16'777'216);
  // No fixed size, no fixed token count: the request says the image's size.
  CHECK(v.tokens_per_image == 0);
  CHECK(v.image_size == 0);
}

TEST_CASE("smart_resize: tokens from an image's height and width") {
  const vram::VisionSpec v = tower();
  // 1024 x 1024: 1024 / 32 = 32 a side, 1,048,576 pixels within the bounds: 32 x 32 = 1,024
  // tokens of 2 x 2 patches, 64 x 64 = 4,096 patches.
  vram::ImageGrid g = vram::resized_image(v, 1024, 1024, v.max_pixels);
  CHECK(g.height == 1024);
  CHECK(g.width == 1024);
  CHECK(g.tokens == 1024);
  CHECK(g.patches == 4096);
  // 1920 x 1080 (height 1080): 1080 / 32 = 33.75 rounds to 34 (1,088 pixels), 1920 / 32 = 60;
  // 1,088 x 1,920 = 2,088,960 pixels: 34 x 60 = 2,040 tokens, 68 x 120 = 8,160 patches.
  g = vram::resized_image(v, 1080, 1920, v.max_pixels);
  CHECK(g.height == 1088);
  CHECK(g.width == 1920);
  CHECK(g.tokens == 2040);
  CHECK(g.patches == 8160);
  // Python's round takes a half to the even side: 1040 / 32 = 32.5 gives 32, 1072 / 32 = 33.5
  // gives 34.
  CHECK(vram::resized_image(v, 1040, 1040, v.max_pixels).tokens == 32 * 32);
  CHECK(vram::resized_image(v, 1072, 1072, v.max_pixels).tokens == 34 * 34);
  // Above max_pixels: 4,992^2 > 16,777,216, so beta = sqrt(5000^2 / 16,777,216) = 5000 / 4096
  // and each side floors to 4096 / 32 = 128: 16,384 tokens, the most one image takes.
  g = vram::resized_image(v, 5000, 5000, v.max_pixels);
  CHECK(g.height == 4096);
  CHECK(g.tokens == 16'384);
  // Below min_pixels: 100 rounds to 96, 96^2 < 65,536, so beta = sqrt(65,536 / 10,000) = 2.56
  // and each side ceils to 256 / 32 = 8: 64 tokens, the fewest.
  g = vram::resized_image(v, 100, 100, v.max_pixels);
  CHECK(g.height == 256);
  CHECK(g.tokens == 64);
  // A lower max_pixels (--mm-processor-kwargs) scales the same image down to it: beta =
  // sqrt(1080 x 1920 / 1,048,576) = 1440 / 1024, so 768 / 32 = 24 and 1365.3 / 32 floors to 42.
  CHECK(vram::resized_image(v, 1080, 1920, 1024 * 1024).tokens == 24 * 42);
}

TEST_CASE("a Qwen3.5 request with images: image_size's tokens join the context") {
  // The default image, 1024 pixels a side: 1,024 tokens each, two of them.
  const json two = testing::estimate({{"config", qwen35_vl()}, {"images", 2}, {"context", 1000}});
  const json text = testing::estimate({{"config", qwen35_vl()}, {"context", 1000 + 2 * 1024}});
  CHECK(two.at("kv_cache_gb").get<double>() ==
        doctest::Approx(text.at("kv_cache_gb").get<double>()));
  bool resized = false;
  for (const json& a : two.at("assumptions")) {
    if (a.at("id") == "assumption.image_tokens") {
      CHECK(a.at("params").at("per_image") == 1024);
      CHECK(a.at("params").at("tokens") == 2048);
    }
    if (a.at("id") != "assumption.image_resized") continue;
    resized = true;
    CHECK(a.at("params").at("size") == 1024);
    CHECK(a.at("params").at("tokens") == 1024);
  }
  CHECK(resized);
  // 1440 a side: 45 x 45 = 2,025 tokens each.
  const json big = testing::estimate(
      {{"config", qwen35_vl()}, {"images", 1}, {"image_size", 1440}, {"context", 1000}});
  CHECK(big.at("kv_cache_gb").get<double>() ==
        doctest::Approx(testing::estimate({{"config", qwen35_vl()}, {"context", 1000 + 2025}})
                            .at("kv_cache_gb")
                            .get<double>()));
}

TEST_CASE("image_size: its range, and only for a tower that takes any resolution") {
  // The schema's range: 32 to 4096 pixels a side, whole.
  CHECK_THROWS(testing::estimate({{"config", qwen35_vl()}, {"images", 1}, {"image_size", 31}}));
  CHECK_THROWS(testing::estimate({{"config", qwen35_vl()}, {"images", 1}, {"image_size", 4097}}));
  CHECK_THROWS(testing::estimate({{"config", qwen35_vl()}, {"images", 1}, {"image_size", 512.5}}));
  CHECK_THROWS(testing::estimate({{"config", qwen35_vl()}, {"images", 1}, {"image_size", "big"}}));
  // Gemma 3's SigLIP takes 896 x 896 whatever comes: another size is refused by name.
  const vram::Error fixed =
      testing::estimate_error({{"model", "gemma-3-27b"}, {"images", 1}, {"image_size", 512}});
  CHECK(fixed.code() == "not_applicable");
  CHECK(fixed.field() == "image_size");
  CHECK(fixed.message().id == "error.image_size_fixed");
  // A text model too; the default is every model's.
  CHECK(testing::estimate_error({{"model", "llama-3.1-8b"}, {"image_size", 2048}}).message().id ==
        "error.image_size_fixed");
  CHECK_NOTHROW(testing::estimate({{"model", "gemma-3-27b"}, {"images", 1}, {"image_size", 1024}}));
  // The schema says where it applies.
  const json schema = testing::calculator().schema();
  bool listed = false;
  for (const json& f : schema.at("requests").at("estimate")) {
    if (f.at("name") != "image_size") continue;
    listed = true;
    CHECK(f.at("default") == 1024);
    CHECK(f.at("min") == 32);
    CHECK(f.at("max") == 4096);
    CHECK(f.at("needs") == "dynamic_vision");
  }
  CHECK(listed);
}

TEST_CASE("vLLM: the encoder cache and the profiling pass for the request's image, bounded") {
  const json two = serve(2);
  const json& cache = testing::term(two, "encoder_cache");
  // max(max_num_batched_tokens 8192, 1,024 tokens an image) embeddings, 2048 wide, 16-bit:
  // 8192 x 2048 x 2 = 33,554,432 bytes.
  CHECK(cache.at("inputs").at("max_num_batched_tokens") == 8192);
  CHECK(cache.at("inputs").at("tokens_per_image") == 1024);
  CHECK(cache.at("gb").get<double>() * 1e9 == doctest::Approx(33'554'432.0));
  // The tower's dummy images: min(8192 / 1024, sequences x 2) = 8 of 4,096 patches each, at
  // (2 x 1152 + 2 x 4304) x 2 = 21,824 bytes a patch.
  const json& peak = testing::term(two, "vision_peak");
  CHECK(peak.at("formula").at("params").at("items") == 8);
  CHECK(peak.at("formula").at("params").at("patches") == 4096);
  CHECK(peak.at("formula").at("params").at("per_patch") == 21'824);
  CHECK(peak.at("inputs").at("image_size") == 1024);
  // The command bounds what vLLM reserves to that image: 1024 x 1024 = 1,048,576 pixels.
  const std::string command = testing::launch_command(two);
  CHECK(command.find(" --mm-processor-kwargs '{\"max_pixels\":1048576,\"min_pixels\":65536}'") !=
        std::string::npos);
  CHECK(command.find(" --limit-mm-per-prompt '{\"image\":2}'") != std::string::npos);
  // At 4096 a side one image is 16,384 tokens, more than the batched tokens: the cache holds
  // 16,384 x 2048 x 2 = 67,108,864 bytes, and one dummy image of 65,536 patches is profiled.
  const json large = serve(1, {{"image_size", 4096}});
  CHECK(testing::term(large, "encoder_cache").at("gb").get<double>() * 1e9 ==
        doctest::Approx(67'108'864.0));
  CHECK(testing::term(large, "vision_peak").at("formula").at("params").at("items") == 1);
  CHECK(testing::term(large, "vision_peak").at("formula").at("params").at("patches") == 65'536);
  CHECK(testing::launch_command(large).find("\"max_pixels\":16777216") != std::string::npos);
  // Without images, neither term nor flag.
  const json none = serve(0);
  CHECK(testing::term_gb(none, "encoder_cache") == 0);
  CHECK(testing::launch_command(none).find("mm-processor-kwargs") == std::string::npos);
  // Gemma 3's fixed tower writes no bound (its processor has no max_pixels).
  const json gemma = testing::estimate(
      {{"model", "gemma-3-27b"}, {"engine", "vllm"}, {"gpu", "h100-sxm"}, {"images", 1}});
  CHECK(testing::launch_command(gemma).find("mm-processor-kwargs") == std::string::npos);
}

TEST_CASE("llama.cpp: a tower of any resolution is refused by name, not guessed") {
  const vram::Error e = testing::estimate_error({{"config", qwen35_vl()},
                                                 {"engine", "llamacpp"},
                                                 {"gpu", "h200-sxm"},
                                                 {"weights", "q4_k_m"},
                                                 {"images", 1}});
  CHECK(e.code() == "not_applicable");
  CHECK(e.field() == "images");
  CHECK(e.message().id == "error.mmproj_dynamic");
  // Without images llama.cpp takes the model.
  CHECK_NOTHROW(testing::estimate({{"config", qwen35_vl()},
                                   {"engine", "llamacpp"},
                                   {"gpu", "h200-sxm"},
                                   {"weights", "q4_k_m"}}));
}

TEST_CASE("the schema's dynamic_vision model types are the ones whose import reads such a tower") {
  // config_needs (hf_config.hpp) lists Family::vision_any_size for the page; the importer sets
  // VisionSpec::dynamic: the two must name the same model types.
  const json needs = vram::config_needs();
  const json& types = needs.at("dynamic_vision").at("model_types");
  REQUIRE_FALSE(types.empty());
  for (const json& type : types) {
    json config = qwen35_vl();
    config["model_type"] = type;
    CAPTURE(type);
    CHECK(vram::import_hf_config(config).model.vision.dynamic);
  }
  // Gemma 3's SigLIP tower takes one size: not listed, and not dynamic.
  CHECK(std::find(types.begin(), types.end(), "gemma3") == types.end());
  CHECK_FALSE(vram::import_hf_config(testing::read_json("tests/configs/gemma-3-27b-it/config.json"))
                  .model.vision.dynamic);
}
