// data/models.json: every preset resolves through the config importer, its
// computed count is within 1% of the vendor's, and the guide's shapes are
// exactly as SPEC section 1 states them.
#include <doctest/doctest.h>

#include <cmath>
#include <memory>
#include <string>

#include "helpers.hpp"
#include "model_json.hpp"
#include "vram/inference.hpp"

using nlohmann::json;

TEST_CASE("every preset resolves without warnings and matches its official count") {
  const auto& models = testing::calculator().catalog().models;
  int popular = 0;
  for (const vram::ModelPreset& preset : models) {
    INFO("preset: " << preset.id);
    const vram::ImportedModel imported = vram::resolve_preset(preset);
    CHECK(imported.warnings.empty());
    CHECK_FALSE(preset.source.empty());
    if (preset.group == "popular" || preset.group == "embedding") {
      ++popular;
      REQUIRE(preset.official_params_total > 0);
      const double computed = vram::count_params(imported.model).total();
      CHECK(std::fabs(computed - preset.official_params_total) / preset.official_params_total <
            0.01);
    }
  }
  CHECK(popular >= 25);
}

TEST_CASE("an embedding or reranker model counts no output head, whatever its config ties") {
  // Qwen3-Embedding-8B's config says tie_word_embeddings false; its checkpoint has no lm_head.
  const json m = testing::estimate({{"model", "qwen3-embedding-8b"}}).at("model");
  CHECK_FALSE(m.at("tied_embeddings").get<bool>());
  CHECK(m.at("params_computed").at("lm_head").get<double>() == 0);
  CHECK(m.at("params_total").get<double>() == 7567295488.0);
  // The same shape read as a generator (Qwen3-8B's) has its head.
  const json llm = testing::estimate({{"model", "qwen3-8b"}}).at("model");
  CHECK(llm.at("params_computed").at("lm_head").get<double>() > 0);
  int pooling = 0;
  for (const vram::ModelPreset& preset : testing::calculator().catalog().models) {
    INFO("preset: " << preset.id);
    // Every pooling model sits in the group the page lists them under, and only they.
    CHECK((preset.group == "embedding") == !preset.task.empty());
    if (!preset.task.empty()) ++pooling;
  }
  CHECK(pooling >= 4);
}

TEST_CASE("the guide's five shapes are exactly SPEC section 1") {
  struct Shape {
    const char* id;
    double params;
    int layers;
    int kv_heads;
  };
  for (const Shape& s : {Shape{"guide-7b", 7e9, 32, 8}, Shape{"guide-13b", 13e9, 40, 40},
                         Shape{"guide-34b", 34e9, 60, 8}, Shape{"guide-70b", 70e9, 80, 8},
                         Shape{"guide-405b", 405e9, 126, 8}}) {
    INFO(s.id);
    const json m = testing::estimate({{"model", s.id}}).at("model");
    CHECK(m.at("params_total").get<double>() == s.params);
    CHECK(m.at("layers").get<int>() == s.layers);
    CHECK(m.at("num_key_value_heads").get<int>() == s.kv_heads);
    CHECK(m.at("head_dim").get<int>() == 128);
  }
}

TEST_CASE("Beam: 501B total, 23B active, placeholders marked in every output") {
  const json r = testing::estimate({{"model", "beam"}, {"weights", "fp8"}});
  CHECK(r.at("params_total").get<double>() == 501e9);
  CHECK(r.at("params_active").get<double>() == 23e9);
  CHECK(r.at("model").at("placeholders").size() > 0);
  CHECK(r.at("warnings").dump().find("warning.placeholders") != std::string::npos);
  const json layout = r.at("model").at("attention_layout");
  CHECK(layout.at("sliding").get<int>() > 0);
  CHECK(layout.at("global").get<int>() > 0);
}

TEST_CASE("where the vendor counts active parameters differently, the output says so") {
  // OpenAI's 5.1B active for gpt-oss-120b leaves out the 0.58B input
  // embedding; so does DeepSeek's 2.4B for V2-Lite.
  for (const char* id : {"gpt-oss-120b", "deepseek-v2-lite"}) {
    CAPTURE(id);
    const json model = testing::estimate({{"model", id}}).at("model");
    bool said = false;
    for (const json& note : model.at("notes")) {
      if (note.at("id") != "note.active_embedding") continue;
      said = true;
      // Its numbers are the vendor's and the two counts, in that order of size here.
      const json& p = note.at("params");
      CHECK(p.at("without").get<double>() < p.at("with").get<double>());
      CHECK(std::fabs(p.at("without").get<double>() - p.at("official").get<double>()) <
            std::fabs(p.at("with").get<double>() - p.at("official").get<double>()));
    }
    CHECK(said);
  }
  // Mixtral counts it in: no such note.
  const json mixtral = testing::estimate({{"model", "mixtral-8x7b"}}).at("model");
  CHECK(mixtral.at("notes").dump().find("note.active_embedding") == std::string::npos);
}

TEST_CASE("presets carry the date of every data file, read from the file") {
  const json versions = testing::calculator().presets().at("data_versions");
  CHECK(versions.size() == 7);
  for (const char* name :
       {"models", "formats", "gpus", "engines", "presets", "speed", "accuracy"}) {
    INFO("data/" << name << ".json");
    const json file = testing::read_json(std::string("data/") + name + ".json");
    REQUIRE(versions.contains(name));
    CHECK(versions.at(name).at("updated") == file.at("updated"));
  }
}

TEST_CASE("a catalog imports each preset's config once and answers as resolve_preset") {
  vram::Catalog catalog = testing::calculator().catalog();
  catalog.imports = std::make_shared<vram::PresetImports>();
  const auto summary = [](const vram::ImportedModel& imported) {
    return vram::model_summary(imported.model, vram::param_totals(imported.model)).dump();
  };
  for (const vram::ModelPreset& preset : catalog.models) {
    INFO("preset: " << preset.id);
    const std::string fresh = summary(vram::resolve_preset(preset));
    CHECK(summary(catalog.resolve(preset)) == fresh);
    // The second answer comes from the cache, and is the same.
    CHECK(summary(catalog.resolve(preset)) == fresh);
  }
  CHECK(catalog.imports->size() == catalog.models.size());

  SUBCASE("a changed config is imported anew, never served stale") {
    vram::ModelPreset changed = catalog.model("guide-70b", "model");
    changed.config = catalog.model("guide-7b", "model").config;
    const vram::ImportedModel imported = catalog.resolve(changed);
    CHECK(imported.model.id == "guide-70b");
    CHECK(imported.model.num_layers() == vram::resolve_preset(changed).model.num_layers());
    CHECK(imported.model.num_layers() !=
          catalog.resolve(catalog.model("guide-70b", "model")).model.num_layers());
    CHECK(catalog.imports->size() == catalog.models.size() + 1);
  }
}
