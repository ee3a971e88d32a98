// The request schema: one table per request, read by from_json, reported by
// `schema`. Every bound is tried at and just beyond its edge, every field
// with JSON null, and every default against its own field.

#include <algorithm>
#include <cmath>
#include <string>

#include <doctest/doctest.h>

#include "helpers.hpp"
#include "vram/error.hpp"
#include "vram/limits.hpp"
#include "vram/requests.hpp"
#include "vram/schema.hpp"

using nlohmann::json;

namespace {

/** "code" of the error `method` throws on `request`, or "ok". */
std::string outcome(const std::string& method, const json& request) {
  const vram::Calculator& c = testing::calculator();
  try {
    if (method == "estimate") {
      c.estimate(request);
    } else if (method == "grid") {
      c.grid(request);
    } else if (method == "devices") {
      c.devices(request);
    } else if (method == "fleet") {
      c.fleet(request);
    } else if (method == "fit_models") {
      c.fit_models(request);
    } else {
      return "no request named " + method;  // never "ok": every CHECK on it fails
    }
  } catch (const vram::Error& e) {
    return e.field() + " " + e.code();
  }
  return "ok";
}

/** A request that is valid apart from `key`, and that takes `key`, for each method. */
json base(const std::string& method, const std::string& key) {
  // fit_models needs a card or a budget; the other tables need nothing.
  if (method == "fit_models")
    return key == "budget_gb" ? json{{"gpu", "h100-sxm"}} : json{{"budget_gb", 80}};
  if (method != "estimate") return json::object();
  json r = {{"model", "guide-7b"}};
  const vram::FieldSpec* f = vram::find_field(vram::estimate_fields(), key);
  if (f != nullptr && f->modes == vram::kFinetuneMode) r["mode"] = "lora";
  if (f != nullptr && !f->when.empty()) r[f->when] = f->when_values.front();
  return r;
}

/** A custom shape (Llama 3.1 8B's) with one config key set. */
json shape(const std::string& key, double value) {
  json config = {{"model_type", "custom"},     {"hidden_size", 4096},
                 {"num_hidden_layers", 32},    {"num_attention_heads", 32},
                 {"num_key_value_heads", 8},   {"head_dim", 128},
                 {"intermediate_size", 14336}, {"vocab_size", 128256}};
  config[key] = value;
  // KV heads are at most the attention heads: at its maximum, so are they.
  if (key == "num_key_value_heads") {
    config["num_attention_heads"] =
        std::clamp(value, 1.0, static_cast<double>(vram::limits::kMaxHeads));
  }
  return {{"config", config}, {"name", "Custom shape"}};
}

/** A value just beyond a bound: the next representable whole number or double. */
double beyond(double bound, bool up, bool whole) {
  if (whole) return up ? bound + 1 : bound - 1;
  return std::nextafter(bound, up ? INFINITY : -INFINITY);
}

}  // namespace

TEST_CASE("every default obeys its own field, every field refuses null") {
  const std::pair<const char*, const std::vector<vram::FieldSpec>*> tables[] = {
      {"estimate", &vram::estimate_fields()},
      {"grid", &vram::grid_fields()},
      {"devices", &vram::devices_fields()},
      {"fleet", &vram::fleet_fields()},
      {"fit_models", &vram::fit_models_fields()}};
  for (const auto& [method, fields] : tables) {
    for (const vram::FieldSpec& f : *fields) {
      CAPTURE(method);
      CAPTURE(f.name);
      if (!f.default_value.is_null()) CHECK_NOTHROW(vram::check_value(f, f.default_value, f.name));
      CHECK(f.help == "help." + f.name);
      json r = base(method, f.name);
      r[f.name] = nullptr;
      CHECK(outcome(method, r) == f.name + " wrong_type");
    }
    CHECK(outcome(method, json{{"colour", "blue"}}) == "colour unknown_field");
  }
}

TEST_CASE("the probe itself: every request is called, an unknown one never passes") {
  CHECK(outcome("fit_models", {{"budget_gb", 80}}) == "ok");
  CHECK(outcome("fit_models", json::object()) == "gpu missing_field");
  CHECK(outcome("fit_models", {{"gpu", "nonesuch"}}) == "gpu unknown_gpu");
  CHECK(outcome("fleet", json::object()) == "ok");
  CHECK(outcome("nonesuch", json::object()) == "no request named nonesuch");
}

TEST_CASE("numeric fields: accepted at each bound, refused just beyond") {
  const std::pair<const char*, const std::vector<vram::FieldSpec>*> tables[] = {
      {"estimate", &vram::estimate_fields()},
      {"grid", &vram::grid_fields()},
      {"devices", &vram::devices_fields()},
      {"fleet", &vram::fleet_fields()},
      {"fit_models", &vram::fit_models_fields()}};
  for (const auto& [method, fields] : tables) {
    for (const vram::FieldSpec& f : *fields) {
      if (!f.min || !f.max) continue;
      CAPTURE(method);
      CAPTURE(f.name);
      const bool whole = f.type == vram::FieldType::kInt;
      auto check = [&](double value, bool ok) {
        json r = base(method, f.name);
        r[f.name] = value;
        CAPTURE(value);
        // A bound itself may be refused by the model (a 1-token seq fits;
        // 1e15 params do not overflow): only the field's own error counts.
        const std::string got = outcome(method, r);
        if (ok) {
          CHECK(got != f.name + " invalid_value");
        } else {
          CHECK(got == f.name + " invalid_value");
        }
      };
      check(*f.min, !f.min_exclusive);
      check(beyond(*f.min, false, whole), false);
      check(*f.max, !f.max_exclusive);
      check(beyond(*f.max, true, whole), false);
      if (whole) check(*f.min + 0.5, false);
    }
  }
}

TEST_CASE("choices: each static choice passes, anything else is refused") {
  for (const vram::FieldSpec& f : vram::estimate_fields()) {
    if (f.choices.empty() || f.source != vram::ChoiceSource::kNone) continue;
    CAPTURE(f.name);
    for (const std::string& c : f.choices) {
      json r = base("estimate", f.name);
      if (f.name == "mode") r.erase("mode");
      // A choice only some models take (speculative mtp, eagle3): such a preset.
      for (const auto& [value, need] : f.choice_needs) {
        if (value != c) continue;
        r["model"] = need == "mtp" ? "glm-4.5-air" : "llama-3.1-8b";
      }
      r[f.name] = f.type == vram::FieldType::kList ? json::array({c}) : json(c);
      CHECK(outcome("estimate", r) == "ok");
    }
    json r = base("estimate", f.name);
    r[f.name] = f.type == vram::FieldType::kList ? json::array({"nonesuch"}) : json("nonesuch");
    CHECK(outcome("estimate", r) == f.name + " invalid_value");
  }
}

TEST_CASE("keys the request does not take are named, not ignored") {
  const json m = {{"model", "guide-7b"}};
  auto with = [&](json extra) {
    json r = m;
    r.update(extra);
    return outcome("estimate", r);
  };
  CHECK(with({{"seq", 512}}) == "seq not_applicable");
  CHECK(with({{"mode", "full"}, {"engine", "vllm"}}) == "engine not_applicable");
  CHECK(with({{"mode", "full"}, {"overhead_gb", 1}}) == "ok");
  // By method and by optimizer: LoRA's keys, QLoRA's upcast, SGD's momentum.
  CHECK(with({{"mode", "full"}, {"lora_rank", 8}}) == "lora_rank not_applicable");
  CHECK(with({{"mode", "full"}, {"lora_targets", {"q_proj"}}}) == "lora_targets not_applicable");
  CHECK(with({{"mode", "lora"}, {"upcast_unquantized", false}}) ==
        "upcast_unquantized not_applicable");
  CHECK(with({{"mode", "qlora"}, {"upcast_unquantized", false}}) == "ok");
  CHECK(with({{"mode", "lora"}, {"momentum", 0.9}}) == "momentum not_applicable");
  CHECK(with({{"mode", "lora"}, {"optimizer", "sgd"}, {"momentum", 0.9}}) == "ok");
  // The error names the field, the key it hangs on and the values that take it.
  try {
    testing::calculator().estimate({{"model", "guide-7b"}, {"mode", "full"}, {"lora_rank", 8}});
    FAIL("lora_rank with mode full was taken");
  } catch (const vram::Error& e) {
    const json j = e.to_json();
    CHECK(j.at("message_id") == "error.not_applicable");
    CHECK(j.at("params").at("when") == "mode");
    CHECK(j.at("params").at("values") == "lora, qlora");
    CHECK(j.at("params").at("value") == "full");
    CHECK(j.at("message") == "lora_rank applies only when mode is lora, qlora; here mode is full");
  }
  // Every field: taken where applies() says, refused by name elsewhere.
  const char* optimizers[] = {"adamw", "sgd"};
  for (const vram::FieldSpec& f : vram::estimate_fields()) {
    if (f.default_value.is_null() || f.name == "mode") continue;
    for (const char* mode : vram::kModeNames) {
      for (const char* optimizer : optimizers) {
        json r = {{"model", "guide-7b"}, {"mode", mode}};
        if (vram::is_finetune_mode(mode)) r["optimizer"] = optimizer;
        if (f.name == "optimizer" && !vram::is_finetune_mode(mode)) continue;
        if (f.name != "optimizer") r[f.name] = f.default_value;
        CAPTURE(r.dump());
        const bool takes = vram::applies(f, r);
        CHECK(outcome("estimate", r) == (takes ? "ok" : f.name + " not_applicable"));
      }
    }
  }
}

TEST_CASE("the typed requests' values are the schema's defaults, not the structs'") {
  auto field_default = [](const std::vector<vram::FieldSpec>& fields, const char* name) {
    return vram::find_field(fields, name)->default_value;
  };
  const auto lora = json{{"mode", "lora"}}.get<vram::EstimateRequest>();
  const vram::FinetuneSetup s = vram::finetune_setup(lora);
  const auto& e = vram::estimate_fields();
  CHECK(json(s.flash_attention) == field_default(e, "flash_attention"));
  CHECK(json(s.checkpointing) == field_default(e, "checkpointing"));
  CHECK(json(s.seq) == field_default(e, "seq"));
  CHECK(json(s.micro_batch) == field_default(e, "micro_batch"));
  CHECK(json(s.lora_rank) == field_default(e, "lora_rank"));
  CHECK(json(s.lora_targets) == field_default(e, "lora_targets"));
  CHECK(json(s.upcast_unquantized) == field_default(e, "upcast_unquantized"));
  CHECK(json(s.gpus) == field_default(e, "gpu_count"));
  CHECK(json(json::object().get<vram::DevicesRequest>().usable_fraction) ==
        field_default(vram::devices_fields(), "usable_fraction"));
  CHECK(json(json::object().get<vram::GridRequest>().usable_fraction) ==
        field_default(vram::grid_fields(), "usable_fraction"));
}

TEST_CASE("config shape keys: the importer's bounds, as the schema reports them") {
  for (const vram::FieldSpec& f : vram::config_fields()) {
    CAPTURE(f.name);
    REQUIRE((f.min && f.max));
    const std::string path = "config." + f.name;
    auto got = [&](double value) { return outcome("estimate", shape(f.name, value)); };
    // At each bound the key itself is taken (a shape at a bound may break
    // another rule, such as the 1e15-parameter ceiling: only this key counts).
    CHECK(got(*f.min).rfind(path + " ", 0) != 0);
    CHECK(got(*f.max).rfind(path + " ", 0) != 0);
    CHECK(got(*f.min - 1) == path + " invalid_value");
    CHECK(got(*f.max + 1) == path + " invalid_value");
  }
  const json s = testing::calculator().schema();
  CHECK(s.at("config").size() == vram::config_fields().size());
}

TEST_CASE("engine knobs: typed and ranged in data/engines.json, one rule at both levels") {
  auto with = [](const char* engine, json options) {
    return json{{"model", "guide-7b"}, {"engine", engine}, {"engine_options", std::move(options)}};
  };
  // overhead_gb 0 is a valid flat overhead, top level or as the guide's knob.
  CHECK(outcome("estimate", with("guide", {{"overhead_gb", 0}})) == "ok");
  CHECK(outcome("estimate", {{"model", "guide-7b"}, {"overhead_gb", 0}}) == "ok");
  CHECK(outcome("estimate", with("guide", {{"overhead_gb", -1}})) ==
        "engine_options.overhead_gb invalid_value");
  CHECK(outcome("estimate", {{"model", "guide-7b"}, {"overhead_gb", -1}}) ==
        "overhead_gb invalid_value");
  CHECK(outcome("estimate", {{"model", "guide-7b"}, {"overhead_pct", 1001}}) ==
        "overhead_pct invalid_value");
  CHECK(outcome("estimate", with("vllm", {{"gpu_memory_utilization", 1}})) == "ok");
  CHECK(outcome("estimate", with("vllm", {{"gpu_memory_utilization", 0}})) ==
        "engine_options.gpu_memory_utilization invalid_value");
  CHECK(outcome("estimate", with("vllm", {{"tensor_parallel_size", 65}})) ==
        "engine_options.tensor_parallel_size invalid_value");
  CHECK(outcome("estimate", with("vllm", {{"block_size", 16.5}})) ==
        "engine_options.block_size invalid_value");
  CHECK(outcome("estimate", with("vllm", {{"enforce_eager", nullptr}})) ==
        "engine_options.enforce_eager wrong_type");
  CHECK(outcome("estimate", with("vllm", {{"mxfp4_backend", "marlin"}})) == "ok");
  CHECK(outcome("estimate", with("vllm", {{"mxfp4_backend", "cutlass"}})) ==
        "engine_options.mxfp4_backend invalid_value");
  CHECK(outcome("estimate", with("vllm", {{"mxfp4_backend", 1}})) ==
        "engine_options.mxfp4_backend wrong_type");
  for (const vram::EngineProfile& e : testing::calculator().catalog().engines) {
    CAPTURE(e.id);
    CHECK(e.knobs.size() == e.defaults.size());
    for (const vram::FieldSpec& k : e.knobs) {
      CHECK(k.default_value == e.defaults.at(k.name));
      // Numbers have a range; an enum knob (vLLM's mxfp4_backend) its words, the default one.
      if (k.type == vram::FieldType::kInt || k.type == vram::FieldType::kNumber) {
        CHECK((k.min && k.max));
      }
      if (k.type == vram::FieldType::kEnum) {
        CHECK(std::find(k.choices.begin(), k.choices.end(), k.default_value) != k.choices.end());
      }
    }
  }
}

TEST_CASE("the schema reports tables with catalog choices resolved") {
  const json s = testing::calculator().schema();
  auto find = [](const json& fields, const std::string& name) {
    for (const json& f : fields)
      if (f.at("name") == name) return f;
    return json();
  };
  const json& estimate = s.at("requests").at("estimate");
  CHECK(estimate.size() == vram::estimate_fields().size());
  const json weights = find(estimate, "weights");
  CHECK(weights.at("default") == "native");
  CHECK(weights.at("choices").at(0) == "native");
  CHECK(weights.at("choices").size() ==
        1 + testing::calculator().catalog().formats.weights().size());
  const json context = find(estimate, "context");
  CHECK(context.at("min") == 1);
  CHECK(context.at("modes") == json{"inference"});
  CHECK(context.at("help") == "help.context");
  // The top-level overhead_gb shares the guide's knob's range.
  CHECK(find(estimate, "overhead_gb").at("min") == 0);
  const json util = find(s.at("engines").at("vllm"), "gpu_memory_utilization");
  CHECK(util.at("min_exclusive") == true);
  CHECK(util.at("max") == 1);
  CHECK(find(s.at("requests").at("grid"), "methods").at("choices").size() == 6);
}
