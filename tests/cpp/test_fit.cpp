// The fitting rules, each on its own, on small catalogs written here; and a
// replaced or broken catalog through the API.
#include <doctest/doctest.h>

#include "helpers.hpp"
#include "vram/error.hpp"
#include "vram/fit.hpp"

using nlohmann::json;

namespace {

json card(const std::string& id, double vram, double monthly, bool fp8 = true,
          const std::string& topology = "pcie-gen4") {
  return {{"id", id},
          {"vram_gb", vram},
          {"bandwidth_gbps", 1000},
          {"monthly_usd", monthly},
          {"fp8", fp8},
          {"interconnect", {{"kind", "pcie"}, {"gbps", 32}, {"topology", topology}}}};
}

vram::GpuCatalog catalog(json gpus) {
  json doc = {{"gpus", std::move(gpus)},
              {"discounts",
               {{{"cards", 2}, {"percent", 5}},
                {{"cards", 4}, {"percent", 8}},
                {{"cards", 8}, {"percent", 10}}}}};
  return vram::gpu_catalog_from_json(doc, "catalog");
}

std::string excluded_rule(const vram::FitAnswer& answer, const std::string& gpu) {
  for (const auto& e : answer.excluded) {
    if (e.option.gpu->id == gpu) return e.rule;
  }
  return "";
}

}  // namespace

TEST_CASE("FP8 weights only on FP8 hardware") {
  const auto c = catalog({card("old", 24, 190, false), card("new", 24, 250, true)});
  vram::FitRules rules;
  rules.needs_fp8 = true;
  const auto answer = vram::fit(10e9, c, rules);
  CHECK(answer.pick.gpu->id == "new");
  CHECK(excluded_rule(answer, "old") == "fp8");
  rules.needs_fp8 = false;
  CHECK(vram::fit(10e9, c, rules).pick.gpu->id == "old");
}

TEST_CASE("the fleet's expected decode is the calculator's, and its price per token follows it") {
  // Every figure on the page agrees: the fleet's row for a card and the
  // calculator's cheapest list under the same convention, card and count.
  for (const int batch : {1, 8}) {
    const json fleet = testing::calculator().fleet(
        {{"model", "llama-3.1-70b"}, {"weights", "fp8"}, {"batch", batch}});
    int compared = 0;
    for (const json& row : fleet) {
      if (row.at("fit").is_null()) continue;
      const json answer = testing::calculator().estimate({{"model", "llama-3.1-70b"},
                                                          {"weights", "fp8"},
                                                          {"batch", batch},
                                                          {"gpu", row.at("id")},
                                                          {"gpu_count", row.at("fit").at("count")},
                                                          {"min_tokens_per_s", 0.1}});
      const double expected = row.at("decode_expected_tokens_per_s").get<double>();
      CHECK(expected ==
            doctest::Approx(answer.at("decode").at("expected_tokens_per_s").get<double>()));
      CHECK(expected < row.at("decode_tokens_per_s").get<double>());
      // The ceiling too: the same bytes per step over the same bandwidth.
      CHECK(row.at("decode_tokens_per_s").get<double>() ==
            doctest::Approx(answer.at("decode").at("ceiling_tokens_per_s").get<double>()));
      // All the streams' tokens over a month of the set's price.
      const double per_month = expected * batch * 3600 * 720;
      CHECK(row.at("usd_per_million_tokens").get<double>() ==
            doctest::Approx(row.at("fit").at("monthly_usd").get<double>() / per_month * 1e6));
      ++compared;
    }
    CHECK(compared >= 8);
  }
}

TEST_CASE("tight: under 5 GB spare on one card, under 2 GB per card on a set") {
  const auto c = catalog({card("a", 24, 100)});
  vram::FitRules rules;
  CHECK(vram::fit(19.5e9, c, rules).pick.tight);
  CHECK_FALSE(vram::fit(19e9, c, rules).pick.tight);  // exactly 5 GB spare
  const auto pair_tight = vram::fit(45e9, c, rules);  // 2 x 24: 3 GB spare, 1.5 per card
  CHECK(pair_tight.pick.count == 2);
  CHECK(pair_tight.pick.tight);
  CHECK_FALSE(vram::fit(44e9, c, rules).pick.tight);  // 2 GB per card
}

TEST_CASE("each volume discount: 5% for 2 cards, 8% for 4, 10% for 8") {
  const auto c = catalog({card("a", 24, 1000)});
  vram::FitRules rules;
  CHECK(vram::fit(40e9, c, rules).pick.monthly == doctest::Approx(2 * 1000 * 0.95));
  CHECK(vram::fit(90e9, c, rules).pick.monthly == doctest::Approx(4 * 1000 * 0.92));
  CHECK(vram::fit(150e9, c, rules).pick.monthly == doctest::Approx(8 * 1000 * 0.90));
  CHECK(vram::fit(150e9, c, rules).pick.count == 8);
}

TEST_CASE("a multi-card set only when no single card fits") {
  // Two small cards would be cheaper than the big one; the single card wins.
  const auto c = catalog({card("small", 24, 100), card("big", 48, 500)});
  vram::FitRules rules;
  CHECK(vram::fit(40e9, c, rules).pick.gpu->id == "big");
}

TEST_CASE("minimum order: a card that rents in pairs is no single-card answer") {
  json pair = card("pair", 180, 100);
  pair["min_order"] = 2;
  const auto c = catalog({pair, card("single", 80, 1000)});
  vram::FitRules rules;
  const auto answer = vram::fit(70e9, c, rules);
  CHECK(answer.pick.gpu->id == "single");
  CHECK(excluded_rule(answer, "pair") == "min_order");
  // Beyond one single card, the pair is the cheapest set: 2 x 100 x 0.95.
  const auto big = vram::fit(300e9, c, rules);
  CHECK(big.pick.gpu->id == "pair");
  CHECK(big.pick.monthly == doctest::Approx(190));
}

TEST_CASE("stock limits a set") {
  json scarce = card("scarce", 48, 100);
  scarce["stock"] = 2;
  const auto c = catalog({scarce, card("plenty", 48, 150)});
  vram::FitRules rules;
  const auto answer = vram::fit(150e9, c, rules);  // needs 4 cards
  CHECK(answer.pick.gpu->id == "plenty");
  CHECK(excluded_rule(answer, "scarce") == "stock");
}

TEST_CASE("methods that need a fast link only on switched interconnects") {
  const auto c = catalog({card("pcie", 48, 100, true, "pcie-gen4"),
                          card("bridged", 48, 120, true, "bridged-pairs"),
                          card("nvlink", 80, 900, true, "switched")});
  vram::FitRules rules;
  rules.needs_fast_link = true;
  const auto answer = vram::fit(150e9, c, rules);
  CHECK(answer.pick.gpu->id == "nvlink");
  CHECK(excluded_rule(answer, "pcie") == "interconnect");
  CHECK(excluded_rule(answer, "bridged") == "interconnect");
  rules.needs_fast_link = false;  // layer-split serving needs no fast link
  CHECK(vram::fit(150e9, c, rules).pick.gpu->id == "pcie");
}

TEST_CASE("beyond one 8-card node: the number of nodes, priced by quote") {
  const auto c =
      catalog({card("a", 80, 1000, true, "switched"), card("b", 192, 1500, true, "switched")});
  vram::FitRules rules;
  const auto answer = vram::fit(7452e9, c, rules);
  CHECK(answer.pick.by_quote);
  CHECK(answer.pick.gpu->id == "b");
  CHECK(answer.pick.nodes == 5);  // 7,452 / (8 x 192) = 4.85
  CHECK(answer.pick.layout.servers == 5);
  CHECK(answer.pick.layout.tensor_parallel == 8);
}

TEST_CASE("layouts: tensor parallel where the link allows, pipeline otherwise") {
  const auto c =
      catalog({card("nv", 80, 1, true, "switched"), card("pair", 48, 1, true, "bridged-pairs"),
               card("pcie", 24, 1, true, "pcie-gen4")});
  CHECK(vram::layout_for(c.gpus[0], 8, 8, false).tensor_parallel == 8);
  CHECK(vram::layout_for(c.gpus[1], 8, 8, false).tensor_parallel == 2);
  CHECK(vram::layout_for(c.gpus[1], 8, 8, false).pipeline_stages == 4);
  CHECK(vram::layout_for(c.gpus[2], 4, 8, false).tensor_parallel == 1);
  CHECK(vram::layout_for(c.gpus[2], 4, 8, false).pipeline_stages == 4);
  // The planner's deployable layout: a power-of-two group per server, then servers.
  CHECK(vram::deployable_layout(5, 8).tensor_parallel == 8);
  CHECK(vram::deployable_layout(3, 8).tensor_parallel == 4);
  CHECK(vram::deployable_layout(14, 8).servers == 2);
  CHECK(vram::deployable_layout(14, 8).devices == 16);
}

TEST_CASE("SPEC 5's multi-card comparisons price out") {
  const json fleet = testing::calculator().fleet(json::object());
  auto monthly = [&](const std::string& id) {
    for (const json& row : fleet) {
      if (row.at("id") == id) return row.at("monthly_usd").get<double>();
    }
    return 0.0;
  };
  const double discount = testing::calculator().catalog().gpus.discount_percent(2);
  CHECK(2 * monthly("rtx-5090") * (1 - discount / 100) ==
        doctest::Approx(1026));  // 64 GB, 3.58 TB/s
  CHECK(2 * monthly("a40") * (1 - discount / 100) ==
        doctest::Approx(456));  // 96 GB vs one A100's 80
}

TEST_CASE("a replaced catalog changes the answers") {
  // A vendor with hourly market prices (SPEC 7: an RTX 4090 at about $0.35/hour, an H100 at $2.50).
  const json vendor = {{"currency", "USD"},
                       {"gpus",
                        {{{"id", "rtx-4090"},
                          {"name", "RTX 4090"},
                          {"vram_gb", 24},
                          {"bandwidth_gbps", 1010},
                          {"hourly_usd", 0.35},
                          {"fp8", true}},
                         {{"id", "h100"},
                          {"name", "H100"},
                          {"vram_gb", 80},
                          {"bandwidth_gbps", 3350},
                          {"hourly_usd", 2.50},
                          {"fp8", true}}}}};
  const json grid = testing::calculator().grid(
      {{"models", {"guide-7b"}}, {"methods", {"bf16"}}, {"catalog", vendor}});
  const json pick = grid.at("rows").at(0).at("cells").at(0).at("pick");
  CHECK(pick.at("gpu") == "rtx-4090");
  CHECK(pick.at("monthly_usd").get<double>() == doctest::Approx(0.35 * 720));
  const json fleet = testing::calculator().fleet({{"catalog", vendor}});
  REQUIRE(fleet.size() == 2);
  CHECK(fleet.at(1).at("usd_per_hour").get<double>() /
            fleet.at(0).at("usd_per_hour").get<double>() ==
        doctest::Approx(7.14).epsilon(0.01));  // "7x the cost"
}

TEST_CASE("a broken catalog gives its named error") {
  auto error_of = [](const json& gpus_doc) {
    try {
      testing::calculator().grid({{"catalog", gpus_doc}});
    } catch (const vram::Error& e) {
      return e.field() + " " + e.code() + " " + e.what();
    }
    return std::string("no error");
  };
  const json good = card("ok", 24, 100);
  json bad = card("l4", 24, 100);
  bad["vram_gb"] = -24;
  CHECK(error_of({{"gpus", {good, bad}}})
            .rfind("catalog.gpus[1].vram_gb invalid_value GPU 'l4'", 0) == 0);
  bad = card("l4", 24, 100);
  bad.erase("bandwidth_gbps");
  CHECK(error_of({{"gpus", {bad}}}).rfind("catalog.gpus[0].bandwidth_gbps missing_field", 0) == 0);
  bad = card("l4", 24, 100);
  bad["monthly_usd"] = "cheap";
  CHECK(error_of({{"gpus", {bad}}}).rfind("catalog.gpus[0].monthly_usd wrong_type", 0) == 0);
  CHECK(error_of({{"gpus", {good, good}}}).rfind("catalog.gpus[1].id invalid_value", 0) == 0);
  CHECK(error_of({{"gpus", json::array()}}).rfind("catalog.gpus invalid_value", 0) == 0);
  CHECK(error_of({{"fleet", 1}}).rfind("catalog.gpus missing_field", 0) == 0);
  bad = card("l4", 24, 100);
  bad["interconnect"]["topology"] = "telepathy";
  CHECK(
      error_of({{"gpus", {bad}}}).rfind("catalog.gpus[0].interconnect.topology invalid_value", 0) ==
      0);
}

TEST_CASE("a card without a price is sized, never priced") {
  const auto c =
      catalog({{{"id", "lab"}, {"vram_gb", 96}, {"bandwidth_gbps", 1800}}, card("rent", 24, 100)});
  CHECK_FALSE(c.gpus[0].priced);
  vram::FitRules rules;
  CHECK(vram::fit(50e9, c, rules).pick.gpu->id == "rent");  // 4 x 24 rather than the unpriced 96
  const json devices = testing::calculator().devices({{"accelerators", {"b300"}}});
  CHECK(devices.at("rows").at(0).at("cells").at(0).at("min_devices") == 4);
}

TEST_CASE("the fleet with a model: cards needed, decode ceilings, and why a card cannot") {
  const json fleet = testing::calculator().fleet({{"model", "guide-70b"}, {"weights", "fp8"}});
  for (const json& row : fleet) {
    if (row.at("id") == "a100-sxm") {
      CHECK(row.at("fit").is_null());
      CHECK(row.at("unfit_reason").at("id") == "fit.fp8");
    }
    if (row.at("id") == "h100-pcie") {
      CHECK(row.at("fit").at("count") == 1);
      // 2 TB/s over 70 GB of weights and, per stream, 2.7 GB of cache at
      // 8k: the ceiling the calculator's cheapest list shows.
      CHECK(row.at("decode_tokens_per_s").get<double>() ==
            doctest::Approx(2000 / (70 + 2.68435456)));
      CHECK(row.at("decode_stream_tokens_per_s").get<double>() ==
            row.at("decode_tokens_per_s").get<double>());
    }
  }
  // The checkpoint's own storage: DeepSeek V3 in FP8 needs FP8 cards, and
  // its speed follows the 37B active parameters, not the 671B resident.
  const json native =
      testing::calculator().fleet({{"model", "deepseek-v3"}, {"weights", "native"}});
  CHECK(testing::calculator().fleet({{"model", "deepseek-v3"}}) == native);  // the default
  for (const json& row : native) {
    if (row.at("id") == "a40") CHECK(row.at("fit").is_null());
    if (row.at("id") == "mi300x") {
      CHECK(row.at("decode_tokens_per_s").get<double>() >
            10 * row.at("decode_guide_tokens_per_s").get<double>());
    }
  }
}

TEST_CASE("tight: under 5 GB spare on one card, under 2 GB per card on a set (SPEC 3)") {
  const vram::FitRules rules;
  CHECK_FALSE(vram::is_tight(5.3e9, 1, rules));
  CHECK(vram::is_tight(2e9, 1, rules));  // 13B FP8 on an L4
  CHECK(vram::is_tight(15e9, 8, rules));
  CHECK_FALSE(vram::is_tight(17e9, 8, rules));
  // The estimate says so itself: the page no longer works it out.
  const nlohmann::json r =
      testing::estimate({{"model", "guide-70b"}, {"weights", "fp8"}, {"gpu", "h100-sxm"}});
  const nlohmann::json& fit = r.at("fit");
  CHECK(fit.at("tight") == (fit.at("fits").get<bool>() && fit.at("spare_gb").get<double>() < 5.0));
}
