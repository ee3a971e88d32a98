// Real config.json files (tests/configs/<model>/config.json, as published)
// against the vendors' official parameter counts (official.json beside
// each), and the storage each checkpoint declares.
#include <doctest/doctest.h>

#include <cmath>
#include <filesystem>

#include "helpers.hpp"
#include "vram/error.hpp"
#include "vram/hf_config.hpp"
#include "vram/messages.hpp"
#include "vram/params.hpp"

using nlohmann::json;

namespace {

struct ConfigCase {
  std::string slug;
  json config;
  json official;
};

std::vector<ConfigCase> config_cases() {
  std::vector<ConfigCase> cases;
  const std::filesystem::path dir = std::filesystem::path(VRAM_SOURCE_DIR) / "tests/configs";
  for (const auto& entry : std::filesystem::directory_iterator(dir)) {
    if (!entry.is_directory()) continue;
    const std::string slug = entry.path().filename().string();
    cases.push_back({slug, testing::read_json("tests/configs/" + slug + "/config.json"),
                     testing::read_json("tests/configs/" + slug + "/official.json")});
  }
  std::sort(cases.begin(), cases.end(), [](auto& a, auto& b) { return a.slug < b.slug; });
  return cases;
}

}  // namespace

TEST_CASE("computed totals of real configs are within 1% of the official counts") {
  const auto cases = config_cases();
  REQUIRE(cases.size() >= 12);
  for (const ConfigCase& c : cases) {
    INFO("model: " << c.slug);
    vram::ImportedModel imported = vram::import_hf_config(c.config);
    // An embedding or reranker checkpoint (official.json's "task", the catalog's): no output
    // head, whatever its config ties (catalog.cpp).
    imported.model.pooling = c.official.contains("task");
    const vram::ParamCount count = vram::count_params(imported.model);
    const double official = c.official.contains("params_total_exact")
                                ? c.official.at("params_total_exact").get<double>()
                                : c.official.at("params_total").get<double>();
    const double error = (count.total() - official) / official;
    MESSAGE(c.slug << ": computed " << count.total() << ", official " << official << " ("
                   << error * 100 << "%)");
    CHECK(std::fabs(error) < 0.01);
    CHECK(imported.warnings.empty());
  }
}

TEST_CASE("active parameters match the vendor's convention within 3%") {
  for (const ConfigCase& c : config_cases()) {
    if (!c.official.contains("params_active") || c.official.at("params_active").is_null()) continue;
    INFO("model: " << c.slug);
    const vram::ImportedModel imported = vram::import_hf_config(c.config);
    const vram::ParamCount count = vram::count_params(imported.model);
    // DeepSeek and OpenAI leave the input embedding out of "active".
    const std::string convention = c.official.value("active_convention", "with_embeddings");
    const double active =
        convention == "with_embeddings" ? count.active() : count.active() - count.embedding;
    const double official = c.official.at("params_active").get<double>();
    CHECK(std::fabs(active - official) / official < 0.03);
  }
}

TEST_CASE("checkpoint storage is read from quantization_config, not torch_dtype") {
  auto native = [](const std::string& slug) {
    return vram::import_hf_config(testing::read_json("tests/configs/" + slug + "/config.json"))
        .model;
  };
  SUBCASE("DeepSeek R1 ships block-FP8 weights although torch_dtype says bfloat16") {
    const vram::ModelSpec m = native("deepseek-r1-0528");
    CHECK(m.native_format == "fp8");
    CHECK(vram::english(m.native_format_note).find("bfloat16") != std::string::npos);
  }
  SUBCASE("Kimi K2 is FP8 too") { CHECK(native("kimi-k2-instruct").native_format == "fp8"); }
  SUBCASE("gpt-oss keeps its experts in MXFP4 and the rest in BF16") {
    const vram::ModelSpec m = native("gpt-oss-120b");
    CHECK(m.native_format == "bf16");
    CHECK(m.native_expert_format == "mxfp4");
  }
  SUBCASE("plain checkpoints are their torch_dtype") {
    CHECK(native("llama-3.1-8b").native_format == "bf16");
    CHECK(native("c4ai-command-r-v01").native_format == "fp16");
  }
  SUBCASE("gpt-oss-120b resident weights: MXFP4 experts put it near its 60.8 GiB checkpoint") {
    const json r = testing::estimate({{"model", "gpt-oss-120b"}});
    // OpenAI's model card: checkpoint size 60.8 GiB.
    CHECK(r.at("weights_gb").get<double>() * 1e9 / 1073741824.0 ==
          doctest::Approx(60.8).epsilon(0.02));
  }
  SUBCASE("DeepSeek V3 in its own FP8 storage is about 671 GB plus 16-bit embeddings") {
    const json r = testing::estimate({{"model", "deepseek-v3"}});
    CHECK(r.at("weights_gb").get<double>() == doctest::Approx(672.9).epsilon(0.005));
  }
}

TEST_CASE("families and layouts the importer must understand") {
  SUBCASE("Gemma 3: nested text_config, 5 local layers to 1 global, vision tower counted") {
    const auto m =
        vram::import_hf_config(testing::read_json("tests/configs/gemma-3-27b-it/config.json"))
            .model;
    CHECK(m.num_layers() == 62);
    const auto global = std::count_if(
        m.layers.begin(), m.layers.end(),
        [](const vram::LayerSpec& l) { return l.attention == vram::LayerAttention::kGlobal; });
    CHECK(global == 10);
    REQUIRE(m.extras.size() == 1);
    CHECK(m.extras[0].id == "vision");
  }
  SUBCASE("Gemma 2 alternates sliding and global layers") {
    const auto m =
        vram::import_hf_config(testing::read_json("tests/configs/gemma-2-9b-it/config.json")).model;
    CHECK(m.layers[0].attention == vram::LayerAttention::kSliding);
    CHECK(m.layers[1].attention == vram::LayerAttention::kGlobal);
    CHECK(m.sliding_window == 4096);
  }
  SUBCASE("DeepSeek: MLA everywhere, dense first layers, MTP module not resident") {
    const auto m =
        vram::import_hf_config(testing::read_json("tests/configs/deepseek-r1-0528/config.json"))
            .model;
    CHECK(m.layers[0].attention == vram::LayerAttention::kMla);
    CHECK(m.layers[2].mlp == vram::LayerMlp::kDense);
    CHECK(m.layers[3].mlp == vram::LayerMlp::kMoe);
    const vram::ParamCount c = vram::count_params(m);
    // HF lists 685B: 671B main model + 14B multi-token-prediction module.
    CHECK((c.total() + c.extras_excluded) / 1e9 == doctest::Approx(685).epsilon(0.005));
    REQUIRE(m.import_notes.size() == 1);
    CHECK(m.import_notes[0].id == "import.mtp");
    CHECK(m.import_notes[0].params.at("modules") == 1);
  }
  SUBCASE("Falcon 40B's original RefinedWeb keys: n_head, n_head_kv, n_layer") {
    const auto m =
        vram::import_hf_config(testing::read_json("tests/configs/falcon-40b/config.json")).model;
    CHECK(m.num_heads == 128);
    CHECK(m.num_kv_heads == 8);
    CHECK(m.num_layers() == 60);
    CHECK_FALSE(m.gated_mlp);
  }
  SUBCASE("Jamba: attention every 8th layer from 4, experts every other layer") {
    const json config = {
        {"model_type", "jamba"},     {"hidden_size", 4096},      {"num_hidden_layers", 32},
        {"num_attention_heads", 32}, {"num_key_value_heads", 8}, {"intermediate_size", 14336},
        {"vocab_size", 65536},       {"num_experts", 16},        {"num_experts_per_tok", 2},
        {"attn_layer_period", 8},    {"attn_layer_offset", 4},   {"expert_layer_period", 2},
        {"expert_layer_offset", 1},  {"mamba_d_state", 16},      {"mamba_d_conv", 4},
        {"mamba_expand", 2},         {"mamba_dt_rank", 256}};
    const auto m = vram::import_hf_config(config).model;
    CHECK(m.layers[4].attention == vram::LayerAttention::kGlobal);
    CHECK(m.layers[12].attention == vram::LayerAttention::kGlobal);
    CHECK(m.layers[0].attention == vram::LayerAttention::kState);
    CHECK(m.layers[1].mlp == vram::LayerMlp::kMoe);
    CHECK(m.layers[2].mlp == vram::LayerMlp::kDense);
    // AI21: 52B total (51.6B), 12B active.
    CHECK(vram::count_params(m).total() / 1e9 == doctest::Approx(51.6).epsilon(0.01));
  }
  SUBCASE("an unknown model_type is estimated with a warning") {
    const json config = {{"model_type", "brand_new"}, {"hidden_size", 1024},
                         {"num_hidden_layers", 4},    {"num_attention_heads", 8},
                         {"intermediate_size", 4096}, {"vocab_size", 1000}};
    const vram::ImportedModel imported = vram::import_hf_config(config);
    REQUIRE(imported.warnings.size() == 1);
    CHECK(imported.warnings[0].id == "import.unknown_model_type");
    CHECK(imported.warnings[0].params.at("model_type") == "brand_new");
    CHECK(vram::english(imported.warnings[0]).find("'brand_new' is not one") != std::string::npos);
    CHECK(vram::count_params(imported.model).total() > 0);
  }
}

TEST_CASE("bad configs give errors that name the field") {
  const json base = {{"model_type", "llama"},    {"hidden_size", 64},
                     {"num_hidden_layers", 2},   {"num_attention_heads", 4},
                     {"intermediate_size", 128}, {"vocab_size", 100}};
  auto error_field = [](const json& config) -> std::string {
    try {
      vram::import_hf_config(config);
    } catch (const vram::Error& e) {
      return e.field() + " " + e.code();
    }
    return "no error";
  };
  json c = base;
  c.erase("vocab_size");
  CHECK(error_field(c) == "config.vocab_size missing_field");
  // Several absent at once are named together, in the order they are read.
  c.erase("num_hidden_layers");
  c.erase("num_attention_heads");
  try {
    vram::import_hf_config(c);
    FAIL("no error");
  } catch (const vram::Error& e) {
    CHECK(e.code() == "missing_field");
    CHECK(e.field() == "config.num_hidden_layers");
    CHECK(vram::english(e.message()) ==
          "config.num_hidden_layers, config.num_attention_heads, config.vocab_size are required");
  }
  c = base;
  c["hidden_size"] = "sixty-four";
  CHECK(error_field(c) == "config.hidden_size wrong_type");
  c = base;
  c["num_hidden_layers"] = 0;
  CHECK(error_field(c) == "config.num_hidden_layers invalid_value");
  c = base;
  c["hidden_size"] = 65;  // not a multiple of 4 heads, and no head_dim
  CHECK(error_field(c) == "config.head_dim missing_field");
  c = base;
  c["model_type"] = "mistral";
  c["layer_types"] = {"full_attention"};
  CHECK(error_field(c) == "config.layer_types invalid_value");
  c = base;
  c["model_type"] = "mixtral";
  c["num_local_experts"] = 8;
  CHECK(error_field(c) == "config.num_experts_per_tok missing_field");
  c = base;
  c["model_type"] = "deepseek_v3";
  CHECK(error_field(c) == "config.kv_lora_rank missing_field");
  c = base;
  c["model_type"] = "gemma3";
  c["text_config"] = 3;
  CHECK(error_field(c) == "config.text_config wrong_type");
  c = base;
  c["model_type"] = "gemma2";
  CHECK(error_field(c) == "config.sliding_window missing_field");
}

TEST_CASE("GGUF architecture names come from the family table") {
  int gating_reads = 0;
  auto gating = [&gating_reads](std::int64_t value) {
    return [&gating_reads, value] {
      ++gating_reads;
      return value;
    };
  };
  CHECK(vram::gguf_model_type("llama", 0, gating(1)) == "llama");
  CHECK(vram::gguf_model_type("llama", 8, gating(1)) == "mixtral");
  CHECK(vram::gguf_model_type("qwen2moe", 60, gating(1)) == "qwen2_moe");
  CHECK(vram::gguf_model_type("qwen3moe", 128, gating(1)) == "qwen3_moe");
  CHECK(vram::gguf_model_type("gemma3", 0, gating(1)) == "gemma3_text");
  CHECK(vram::gguf_model_type("gpt-oss", 32, gating(1)) == "gpt_oss");
  CHECK(vram::gguf_model_type("command-r", 0, gating(1)) == "cohere");
  CHECK(vram::gguf_model_type("glm4moe", 160, gating(1)) == "glm4_moe");
  CHECK(vram::gguf_model_type("gptneox", 0, gating(1)) == "gpt_neox");
  CHECK(vram::gguf_model_type("qwen2", 0, gating(1)) == "qwen2");
  // A name no family claims passes through (the importer then names it unsupported).
  CHECK(vram::gguf_model_type("mamba", 0, gating(1)) == "mamba");
  // The gating function is read only for the architecture it tells apart.
  CHECK(gating_reads == 0);
  CHECK(vram::gguf_model_type("deepseek2", 64, gating(1)) == "deepseek_v2");
  CHECK(vram::gguf_model_type("deepseek2", 256, gating(2)) == "deepseek_v3");
  CHECK(gating_reads > 0);
}
