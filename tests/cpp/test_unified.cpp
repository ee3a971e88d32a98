// Apple silicon's unified memory (issue 42 part 4): macOS's default GPU
// limit as the card's memory, the pool counted once, and the sysctl that
// raises the limit with the number the plan needs.

#include <cmath>
#include <string>

#include <doctest/doctest.h>

#include "helpers.hpp"
#include "vram/error.hpp"
#include "vram/gpu.hpp"
#include "vram/units.hpp"

using nlohmann::json;

namespace {

const vram::GpuCatalog& gpus() { return testing::calculator().catalog().gpus; }

json estimate(json request) { return testing::estimate(std::move(request)); }

bool has_id(const json& list, const std::string& id) {
  for (const json& m : list) {
    if (m.at("id") == id) return true;
  }
  return false;
}

const json* find_id(const json& list, const std::string& id) {
  for (const json& m : list) {
    if (m.at("id") == id) return &m;
  }
  return nullptr;
}

}  // namespace

TEST_CASE("macOS's default GPU limit: 2/3 of the memory up to 36 GB, 3/4 above") {
  // The figures llama.cpp's Metal log printed (in MiB) on these machines, and the rule between.
  CHECK(gpus().wired_default_bytes(32) / vram::kBytesPerMiB ==
        doctest::Approx(21845.33).epsilon(1e-6));
  CHECK(gpus().wired_default_bytes(64) / vram::kBytesPerMiB == doctest::Approx(49152.0));
  CHECK(gpus().wired_default_bytes(96) / vram::kBytesPerMiB == doctest::Approx(73728.0));
  CHECK(gpus().wired_default_bytes(128) / vram::kBytesPerGiB == doctest::Approx(96.0));
  CHECK(gpus().wired_default_bytes(16) / vram::kBytesPerGiB == doctest::Approx(16.0 * 2 / 3));
  CHECK(gpus().wired_default_bytes(36) / vram::kBytesPerGiB == doctest::Approx(24.0));
  CHECK(gpus().wired_default_bytes(48) / vram::kBytesPerGiB == doctest::Approx(36.0));
  CHECK(gpus().wired_default_bytes(512) / vram::kBytesPerGiB == doctest::Approx(384.0));
  // The most a raised limit is suggested at leaves macOS 20% or 5 GiB, whichever is less.
  CHECK(gpus().wired_ceiling_bytes(16) / vram::kBytesPerGiB == doctest::Approx(12.8));
  CHECK(gpus().wired_ceiling_bytes(128) / vram::kBytesPerGiB == doctest::Approx(123.0));
  for (double gib : {8.0, 16.0, 24.0, 32.0, 36.0, 48.0, 64.0, 96.0, 128.0, 192.0, 256.0, 512.0}) {
    CAPTURE(gib);
    CHECK(gpus().wired_ceiling_bytes(gib) >= gpus().wired_default_bytes(gib));
    CHECK(gpus().wired_ceiling_bytes(gib) < gib * vram::kBytesPerGiB);
  }
}

TEST_CASE("every Apple machine is unified, its usable memory macOS's limit, and never rented") {
  int apple = 0;
  for (const vram::Gpu& g : gpus().gpus) {
    if (g.vendor != "Apple") {
      CHECK_FALSE(gpus().is_unified(g));
      continue;
    }
    CAPTURE(g.id);
    ++apple;
    CHECK(gpus().is_unified(g));
    CHECK_FALSE(g.priced);
    bool estimated = true;
    const double usable = gpus().usable_bytes(g, &estimated);
    CHECK_FALSE(estimated);
    CHECK(usable == doctest::Approx(gpus().wired_default_bytes(g.vram_gb)));
    CHECK(usable < g.vram_gb * vram::kBytesPerGiB);
    CHECK(gpus().card_bytes(g) == doctest::Approx(usable));
  }
  CHECK(apple >= 10);
  // No Apple machine among the cards to rent.
  const json r = estimate({{"model", "llama-3.1-8b"}, {"engine", "llamacpp"}});
  for (const json& row : r.at("fits")) {
    CHECK(row.at("gpu").get<std::string>().rfind("apple-", 0) == std::string::npos);
  }
}

TEST_CASE("the fit on an Apple machine is measured against macOS's limit, not its whole memory") {
  const vram::Gpu& m3u = gpus().find("apple-m3-ultra", "gpu");
  for (const char* engine : {"guide", "percent", "llamacpp", "transformers"}) {
    CAPTURE(engine);
    const json r =
        estimate({{"model", "llama-3.1-8b"}, {"engine", engine}, {"gpu", "apple-m3-ultra"}});
    const json& fit = r.at("fit");
    CHECK(fit.at("capacity_gb").get<double>() == doctest::Approx(384 * vram::kBytesPerGiB / 1e9));
    CHECK(fit.at("capacity_gb").get<double>() < m3u.vram_gb * vram::kBytesPerGiB / 1e9);
    CHECK(fit.at("basis").at("id") == "basis.wired");
    CHECK(r.at("serving").at("capacity_per_gpu_gb").get<double>() ==
          doctest::Approx(384 * vram::kBytesPerGiB / 1e9));
    CHECK(r.at("gpu").at("unified").get<bool>());
    CHECK(r.at("gpu").at("usable_gib").get<double>() == doctest::Approx(384.0));
    const json* note = find_id(r.at("assumptions"), "assumption.unified_memory");
    REQUIRE(note != nullptr);
    CHECK(note->at("params").at("memory_gib").get<double>() == doctest::Approx(512.0));
    CHECK(note->at("params").at("limit_gib").get<double>() == doctest::Approx(384.0));
    CHECK(note->at("params").at("share").get<double>() == doctest::Approx(75.0));
    // It fits: no limit to raise.
    CHECK(r.at("unified_memory").at("command").is_null());
  }
  // A plan between 3/4 of 512 GiB and the whole of it fitted before; now it does not.
  const json big =
      estimate({{"model", "qwen3-235b-a22b"}, {"weights", "bf16"}, {"gpu", "apple-m3-ultra"}});
  const double need = big.at("serving").at("per_gpu_gb").get<double>() * 1e9;
  REQUIRE(need > 384 * vram::kBytesPerGiB);
  REQUIRE(need < 512 * vram::kBytesPerGiB);
  CHECK_FALSE(big.at("fit").at("fits").get<bool>());
  // A card of discrete memory keeps its marketed size under the convention.
  const json h100 = estimate({{"model", "llama-3.1-8b"}, {"gpu", "h100-sxm"}});
  CHECK(h100.at("fit").at("basis").at("id") == "basis.marketed");
  CHECK_FALSE(h100.contains("unified_memory"));
  CHECK_FALSE(has_id(h100.at("assumptions"), "assumption.unified_memory"));
}

TEST_CASE("the sysctl that raises the limit carries the MiB the plan needs") {
  // An 8B model at Q8_0 with 16k of context on a 16 GB M4: just past 2/3 of 16 GiB.
  const json r = estimate({{"model", "llama-3.1-8b"},
                           {"engine", "llamacpp"},
                           {"weights", "q8_0"},
                           {"context", 16384},
                           {"gpu", "apple-m4-16gb"}});
  const double need = r.at("serving").at("per_gpu_gb").get<double>() * 1e9;
  const double limit = 16 * vram::kBytesPerGiB * 2 / 3;
  REQUIRE(need > limit);
  REQUIRE(need <= 12.8 * vram::kBytesPerGiB);
  const json& um = r.at("unified_memory");
  const auto mb = um.at("wired_limit_mb").get<std::int64_t>();
  // At least the need, a whole GiB as people set it, within what leaves macOS its share.
  CHECK(static_cast<double>(mb) * vram::kBytesPerMiB >= need);
  CHECK(mb % 1024 == 0);
  CHECK(static_cast<double>(mb) * vram::kBytesPerMiB <= 12.8 * vram::kBytesPerGiB);
  CHECK(static_cast<double>(mb - 1024) * vram::kBytesPerMiB < need);
  CHECK(um.at("command") == "sudo sysctl iogpu.wired_limit_mb=" + std::to_string(mb));
  const json* warning = find_id(r.at("warnings"), "warning.wired_raise");
  REQUIRE(warning != nullptr);
  const json& p = warning->at("params");
  CHECK(p.at("command").at("id") == "quote.text");
  CHECK(p.at("command").at("params").at("text") == um.at("command"));
  CHECK(p.at("raised_gib").get<double>() == doctest::Approx(static_cast<double>(mb) / 1024));
  CHECK(p.at("left_gib").get<double>() == doctest::Approx(16 - static_cast<double>(mb) / 1024));
  // The raise, not more machines, is the answer.
  CHECK_FALSE(has_id(r.at("warnings"), "warning.cards_needed"));

  // With that limit given as the user's own memory, it fits and nothing is left to raise.
  json raised = {
      {"model", "llama-3.1-8b"}, {"engine", "llamacpp"},
      {"weights", "q8_0"},       {"context", 16384},
      {"gpu", "apple-m4-16gb"},  {"budget_gb", static_cast<double>(mb) * vram::kBytesPerMiB / 1e9}};
  const json b = estimate(raised);
  CHECK(b.at("fit").at("fits").get<bool>());
  CHECK(b.at("unified_memory").at("command").is_null());
  CHECK_FALSE(has_id(b.at("warnings"), "warning.wired_raise"));
}

TEST_CASE("a plan past what macOS can spare gets no sysctl, and says why") {
  const json r = estimate({{"model", "llama-3.1-8b"},
                           {"engine", "llamacpp"},
                           {"weights", "q8_0"},
                           {"context", 32768},
                           {"gpu", "apple-m4-16gb"}});
  const double need = r.at("serving").at("per_gpu_gb").get<double>() * 1e9;
  REQUIRE(need > 12.8 * vram::kBytesPerGiB);
  CHECK(r.at("unified_memory").at("command").is_null());
  CHECK(r.at("unified_memory").at("wired_limit_mb").is_null());
  const json* warning = find_id(r.at("warnings"), "warning.wired_beyond");
  REQUIRE(warning != nullptr);
  CHECK(warning->at("params").at("ceiling_gib").get<double>() == doctest::Approx(12.8));
  CHECK_FALSE(has_id(r.at("warnings"), "warning.wired_raise"));
}

TEST_CASE("llama.cpp's offload on unified memory counts the pool once") {
  // Qwen3-30B-A3B at Q8_0 on a 24 GB M4: experts on the host would fit a discrete card's
  // memory, but here the host's share comes out of the same 24 GiB.
  const json mac = estimate({{"model", "qwen3-30b-a3b"},
                             {"engine", "llamacpp"},
                             {"weights", "q8_0"},
                             {"gpu", "apple-m4-24gb"}});
  const json& o = mac.at("serving").at("offload");
  const double gpu_part = o.at("per_gpu_gb").get<double>();
  const double host = o.at("host_gb").get<double>();
  CHECK(gpu_part * 1e9 <= 16 * vram::kBytesPerGiB);            // the GPU's share fits its limit
  CHECK((gpu_part + host) * 1e9 > 19.2 * vram::kBytesPerGiB);  // both pass what macOS can spare
  CHECK(o.at("unified_pool_gb").get<double>() == doctest::Approx(19.2 * vram::kBytesPerGiB / 1e9));
  CHECK_FALSE(o.at("fits").get<bool>());
  CHECK(o.at("decode").is_null());
  CHECK(o.at("headline").at("id") == "offload.unified_short");
  // A plan whose both shares fit the pool keeps its speed.
  const json small = estimate({{"model", "llama-3.1-8b"},
                               {"engine", "llamacpp"},
                               {"weights", "q8_0"},
                               {"context", 16384},
                               {"gpu", "apple-m4-16gb"}});
  const json& so = small.at("serving").at("offload");
  CHECK((so.at("per_gpu_gb").get<double>() + so.at("host_gb").get<double>()) * 1e9 <=
        12.8 * vram::kBytesPerGiB);
  CHECK(so.at("fits").get<bool>());
  CHECK(so.at("decode").is_object());
  // A discrete card has no such pool.
  const json pc = estimate({{"model", "qwen3-30b-a3b"},
                            {"engine", "llamacpp"},
                            {"weights", "q8_0"},
                            {"gpu", "rtx-4090"}});
  CHECK_FALSE(pc.at("serving").at("offload").contains("unified_pool_gb"));
}

TEST_CASE("fine-tuning and the model list measure an Apple machine by macOS's limit too") {
  const json ft =
      estimate({{"model", "llama-3.1-8b"}, {"mode", "lora"}, {"gpu", "apple-m4-max-64gb"}});
  CHECK(ft.at("fit").at("capacity_gb").get<double>() ==
        doctest::Approx(48 * vram::kBytesPerGiB / 1e9));
  CHECK(ft.at("fit").at("basis").at("id") == "basis.wired");
  CHECK(has_id(ft.at("assumptions"), "assumption.unified_memory"));
  const json models =
      testing::calculator().fit_models({{"gpu", "apple-m4-max-64gb"}, {"context", 4096}});
  const json plain = testing::calculator().fit_models(
      {{"budget_gb", 48 * vram::kBytesPerGiB / 1e9}, {"context", 4096}});
  CHECK(models.at("capacity_gb").get<double>() == doctest::Approx(48 * vram::kBytesPerGiB / 1e9));
  CHECK(plain.at("capacity_gb").get<double>() == doctest::Approx(48 * vram::kBytesPerGiB / 1e9));
}

TEST_CASE("a catalog's unified_memory rule is checked like any other field") {
  json doc = testing::read_json("data/gpus.json");
  doc["unified_memory"]["small_fraction"] = 2;
  try {
    vram::gpu_catalog_from_json(doc, "catalog");
    FAIL("no error");
  } catch (const vram::Error& e) {
    CHECK(e.code() == "invalid_value");
    CHECK(e.field() == "catalog.unified_memory.small_fraction");
  }
  doc = testing::read_json("data/gpus.json");
  doc["unified_memory"] = "metal";
  CHECK_THROWS_AS(vram::gpu_catalog_from_json(doc, "catalog"), vram::Error);
  // A catalog's own figure for one machine wins over the rule.
  doc = testing::read_json("data/gpus.json");
  for (json& g : doc["gpus"]) {
    if (g["id"] == "apple-m4-max-128gb") g["usable_gib"] = 107.52;
  }
  const vram::GpuCatalog own = vram::gpu_catalog_from_json(doc, "catalog");
  const vram::Gpu& m4 = own.find("apple-m4-max-128gb", "gpu");
  CHECK(own.usable_bytes(m4) / vram::kBytesPerGiB == doctest::Approx(107.52));
  CHECK(own.card_bytes(m4) / vram::kBytesPerGiB == doctest::Approx(107.52));
}
