// Memory other processes already hold on the reader's card (gpu_used_gb,
// issue 42 part 2: "my card shows 3 GB used"): each engine as its source
// says it meets that memory, and the cards to rent counted empty.

#include <cmath>
#include <string>

#include <doctest/doctest.h>

#include "helpers.hpp"

using nlohmann::json;

namespace {

json held(const std::string& engine, double used, const std::string& gpu = "rtx-4090") {
  json r = {{"model", "llama-3.1-8b"}, {"weights", "bf16"}, {"engine", engine}, {"gpu", gpu}};
  if (used > 0) r["gpu_used_gb"] = used;
  return testing::estimate(r);
}

}  // namespace

TEST_CASE("llama.cpp, transformers and the guide count what others hold as a term of the card") {
  for (const char* engine : {"llamacpp", "transformers", "guide"}) {
    CAPTURE(engine);
    const json free = held(engine, 0);
    const json used = held(engine, 3);
    CHECK(testing::term_gb(free, "held") == 0);
    CHECK(testing::term_gb(used, "held") == doctest::Approx(3.0));
    CHECK(used.at("total_gb").get<double>() ==
          doctest::Approx(free.at("total_gb").get<double>() + 3.0));
    // The same card, 3 GB less spare.
    CHECK(used.at("fit").at("spare_gb").get<double>() ==
          doctest::Approx(free.at("fit").at("spare_gb").get<double>() - 3.0));
    // Cards to rent hold nothing else: the cheapest list is the same.
    CHECK(used.at("fits") == free.at("fits"));
  }
}

TEST_CASE("SGLang's KV pool shrinks one for one by what others hold") {
  const json free = held("sglang", 0, "h100-sxm");
  const json used = held("sglang", 3, "h100-sxm");
  CHECK(used.at("kv_budget_gb").get<double>() ==
        doctest::Approx(free.at("kv_budget_gb").get<double>() - 3.0));
  CHECK(used.at("fits") == free.at("fits"));
}

TEST_CASE("vLLM keeps its share while it is free, and lowers it to what is free when it is not") {
  // H100 SXM: 0.90 of it leaves about 8 GB free; 5 GB held changes nothing.
  const json free = held("vllm", 0, "h100-sxm");
  const json some = held("vllm", 5, "h100-sxm");
  CHECK(some.at("kv_budget_gb").get<double>() ==
        doctest::Approx(free.at("kv_budget_gb").get<double>()));
  CHECK(testing::term_gb(some, "held") == 0);
  // 20 GB held: vLLM would refuse to start at 0.90; the plan lowers the share, says so, and the
  // command carries the share it can start with.
  const json more = held("vllm", 20, "h100-sxm");
  const double usable = more.at("budget").at("usable_gib").get<double>() * 1073741824.0 / 1e9;
  const double lowered = std::floor((usable - 20.0) / usable * 100.0) / 100.0;
  CHECK(lowered < 0.9);
  bool warned = false;
  for (const json& w : more.at("warnings")) warned = warned || w.at("id") == "warning.vllm_held";
  CHECK(warned);
  CHECK(more.at("budget").at("reserved_gb").get<double>() == doctest::Approx(usable * lowered));
  const std::string command = more.at("launch").at("command").get<std::string>();
  CHECK(command.find("--gpu-memory-utilization " + std::to_string(lowered).substr(0, 4)) !=
        std::string::npos);
  CHECK(more.at("kv_budget_gb").get<double>() < free.at("kv_budget_gb").get<double>() - 10.0);
}

TEST_CASE("gpu_used_gb is checked: a negative amount is a named error") {
  CHECK_THROWS(
      testing::estimate({{"model", "llama-3.1-8b"}, {"gpu", "rtx-4090"}, {"gpu_used_gb", -1}}));
}

TEST_CASE("llama.cpp's partial offload places only into what others leave free") {
  // 70B BF16 at 32k on one H200: it runs with part in host RAM; 10 GB held moves more there.
  json q = {{"model", "llama-3.1-70b"},
            {"weights", "bf16"},
            {"engine", "llamacpp"},
            {"gpu", "h200-sxm"},
            {"context", 32768}};
  const json free = testing::estimate(q);
  q["gpu_used_gb"] = 10;
  const json used = testing::estimate(q);
  const json& a = free.at("serving").at("offload");
  const json& b = used.at("serving").at("offload");
  const double usable = used.at("gpu").at("usable_gib").get<double>() * 1073741824.0 / 1e9;
  CHECK(b.at("per_gpu_gb").get<double>() + 10.0 <= usable);
  CHECK(b.at("gpu_layers").get<int>() < a.at("gpu_layers").get<int>());
  CHECK(b.at("host_gb").get<double>() > a.at("host_gb").get<double>());
}
