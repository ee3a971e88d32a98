// An engine knob's "applies" condition (data/engines.json limits, FieldSpec::applies): the
// answer lists a knob among its assumptions only where the plan reads it, and a knob set
// where it does not apply changes no figure and says so.

#include <doctest/doctest.h>

#include <string>

#include "helpers.hpp"
#include "vram/engine.hpp"

namespace {

using nlohmann::json;
using testing::assumes;
using testing::estimate;
using testing::warns;

/** Whether the answer states knob `key` among its assumptions. */
bool lists_knob(const json& answer, const std::string& key) {
  for (const json& a : answer.at("assumptions")) {
    const std::string id = a.at("id");
    if (id.rfind("assumption.engine_option", 0) == 0 && a.at("params").at("key") == key) {
      return true;
    }
  }
  return false;
}

/** A valid value of `knob` other than its default. */
json other_value(const json& knob) {
  const json& d = knob.at("default");
  if (d.is_boolean()) return !d.get<bool>();
  if (d.is_string() && knob.contains("choices") && knob.at("type") == "enum") {
    for (const json& choice : knob.at("choices")) {
      if (choice != d) return choice;  // another word of the list (mxfp4_backend: marlin)
    }
  }
  if (d.is_string())
    return 1;  // a number knob's word ("auto"): the plan's pick replaced by a number
  const double max = knob.at("max").get<double>();
  const double v =
      d.get<double>() + 1.0 <= max ? d.get<double>() + 1.0 : knob.at("min").get<double>();
  return knob.at("type") == "int" ? json(static_cast<long long>(v)) : json(v);
}

}  // namespace

TEST_CASE("knob applies: a knob whose condition fails changes no figure and warns when set") {
  // Llama 3.1 8B on one H100: dense, full attention only, no adapters, one card. With CUDA
  // graphs off too, every condition of kKnobConditions fails.
  const json schema = testing::calculator().schema();
  int checked = 0;
  for (auto engine = schema.at("engines").begin(); engine != schema.at("engines").end(); ++engine) {
    for (const json& knob : *engine) {
      if (!knob.contains("applies")) continue;
      const std::string key = knob.at("name");
      CAPTURE(engine.key());
      CAPTURE(key);
      json request = {{"model", "llama-3.1-8b"},
                      {"engine", engine.key()},
                      {"gpu", "h100-sxm"},
                      {"context", 4096},
                      {"batch", 1}};
      if (knob.at("applies") == "graphs") request["engine_options"] = {{"enforce_eager", true}};
      const json before = estimate(request);
      CHECK_FALSE(lists_knob(before, key));
      CHECK_FALSE(warns(before, "warning.knob_not_applicable"));
      request["engine_options"][key] = other_value(knob);
      const auto [refused, field] = testing::refusal(request);
      if (!refused.empty()) {
        // Refused outright (vLLM's expert_parallel on a dense model): a named error for the knob.
        CHECK(field == "engine_options." + key);
        continue;
      }
      const json after = estimate(request);
      CHECK(after.at("total_gb") == before.at("total_gb"));
      CHECK(after.at("terms") == before.at("terms"));
      CHECK(after.value("budget", json()) == before.value("budget", json()));
      CHECK(after.at("decode") == before.at("decode"));
      CHECK(warns(after, "warning.knob_not_applicable"));
      CHECK_FALSE(lists_knob(after, key));
      ++checked;
    }
  }
  CHECK(checked >= 8);  // the hybrid, LoRA, graph and multi-card knobs of vLLM and SGLang at least
}

TEST_CASE("knob applies: a hybrid model lists the hybrid knobs, a dense one does not") {
  const json hybrid = estimate({{"config", testing::qwen3_next_80b()},
                                {"engine", "vllm"},
                                {"gpu", "h200-sxm"},
                                {"gpu_count", 2},
                                {"engine_options", {{"tensor_parallel_size", 2}}},
                                {"context", 32768}});
  CHECK(lists_knob(hybrid, "hybrid_kv_cache_manager"));
  CHECK(lists_knob(hybrid, "hybrid_prefix_caching"));
  CHECK(lists_knob(hybrid, "nccl_gib_per_peer"));  // two H200s over NVLink
  CHECK_FALSE(lists_knob(hybrid, "pcie_multi_gpu_gib"));
  CHECK_FALSE(lists_knob(hybrid, "max_lora_rank"));
  const json dense = estimate({{"model", "llama-3.1-8b"}, {"engine", "vllm"}, {"gpu", "h100-sxm"}});
  CHECK_FALSE(lists_knob(dense, "hybrid_kv_cache_manager"));
  CHECK_FALSE(lists_knob(dense, "hybrid_prefix_caching"));
  CHECK(lists_knob(dense, "gpu_memory_utilization"));
  CHECK(lists_knob(dense, "cuda_graph_gib"));
  CHECK(assumes(dense, "assumption.engine_option_why"));
  const json sglang = estimate({{"config", testing::qwen3_next_80b()},
                                {"engine", "sglang"},
                                {"gpu", "h200-sxm"},
                                {"gpu_count", 2},
                                {"engine_options", {{"tensor_parallel_size", 2}}}});
  CHECK(lists_knob(sglang, "mamba_full_memory_ratio"));
}

TEST_CASE("knob applies: a knob set where it applies is listed and not warned about") {
  const json answer = estimate({{"model", "llama-3.1-8b"},
                                {"engine", "vllm"},
                                {"gpu", "h100-sxm"},
                                {"engine_options", {{"max_loras", 4}, {"max_lora_rank", 32}}}});
  CHECK(lists_knob(answer, "max_lora_rank"));
  CHECK_FALSE(warns(answer, "warning.knob_not_applicable"));
}

TEST_CASE("knob applies: the schema names each condition; an unknown one is a named error") {
  const json schema = testing::calculator().schema();
  bool found = false;
  for (const json& knob : schema.at("engines").at("vllm")) {
    if (knob.at("name") == "hybrid_prefix_caching") {
      CHECK(knob.at("applies") == "state_layers");
      found = true;
    }
    if (knob.at("name") == "gpu_memory_utilization") CHECK_FALSE(knob.contains("applies"));
  }
  CHECK(found);
  const json engines =
      json::array({{{"id", "x"},
                    {"name", "X"},
                    {"kind", "vllm"},
                    {"source", "s"},
                    {"defaults", {{"flag", false}}},
                    {"limits", {{"flag", {{"type", "bool"}, {"applies", "mamba"}}}}}}});
  try {
    vram::engine_profiles_from_json(engines);
    FAIL("accepted an unknown condition");
  } catch (const vram::Error& e) {
    CHECK(e.field() == "engines[0].limits.flag.applies");
    CHECK(e.message().id == "error.knob_applies");
  }
}
