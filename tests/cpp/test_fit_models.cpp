// The reverse question (Calculator::fit_models): which presets fit one card,
// a set of it or a budget. Every row agrees with an estimate of the same
// model on the same capacity; the list is ordered largest first.
#include <doctest/doctest.h>

#include "helpers.hpp"
#include "vram/error.hpp"

using nlohmann::json;

TEST_CASE("fit_models: every preset, each agreeing with its own estimate") {
  const auto& calc = testing::calculator();
  SUBCASE("a card") {
    const json answer = calc.fit_models({{"gpu", "rtx-4090"}, {"context", 8192}});
    const json& rows = answer.at("models");
    CHECK(rows.size() == calc.catalog().models.size());
    int fitting = 0;
    for (std::size_t i = 0; i < rows.size(); ++i) {
      const json& row = rows.at(i);
      if (i > 0)
        CHECK(rows.at(i - 1).at("total_gb").get<double>() >= row.at("total_gb").get<double>());
      const json estimate = calc.estimate(
          {{"model", row.at("id")}, {"context", 8192}, {"gpu", "rtx-4090"}, {"engine", "guide"}});
      CAPTURE(row.at("id").get<std::string>());
      CHECK(row.at("total_gb").get<double>() ==
            doctest::Approx(estimate.at("total_gb").get<double>()));
      // The RTX 4090 (Ada) runs FP8: the fit is the capacity's alone.
      CHECK(row.at("fits").get<bool>() == estimate.at("fit").at("fits").get<bool>());
      fitting += row.at("fits").get<bool>() ? 1 : 0;
    }
    // A 24 GB card holds some presets and not others.
    CHECK(fitting > 0);
    CHECK(fitting < static_cast<int>(rows.size()));
    CHECK(answer.at("capacity_gb").get<double>() == doctest::Approx(24.0).epsilon(0.1));
  }
  SUBCASE("a budget fits more as it grows, and a set of cards as a larger budget") {
    auto count = [&](const json& request) {
      const json answer = calc.fit_models(request);
      int n = 0;
      for (const json& row : answer.at("models")) n += row.at("fits").get<bool>() ? 1 : 0;
      return n;
    };
    CHECK(count({{"budget_gb", 20}}) <= count({{"budget_gb", 80}}));
    CHECK(count({{"budget_gb", 80}}) < count({{"budget_gb", 2000}}));
    const json one = calc.fit_models({{"gpu", "h100-sxm"}});
    const json four = calc.fit_models({{"gpu", "h100-sxm"}, {"gpu_count", 4}});
    CHECK(four.at("capacity_gb").get<double>() ==
          doctest::Approx(4 * one.at("capacity_gb").get<double>()));
    CHECK(count({{"gpu", "h100-sxm"}}) < count({{"gpu", "h100-sxm"}, {"gpu_count", 4}}));
  }
  SUBCASE("neither a card nor a budget is an error naming the card") {
    CHECK_THROWS_AS(calc.fit_models(json::object()), vram::Error);
    try {
      calc.fit_models({{"context", 4096}});
    } catch (const vram::Error& e) {
      CHECK(e.field() == "gpu");
    }
    CHECK_THROWS_AS(calc.fit_models({{"budget_gb", 0}}), vram::Error);
    CHECK_THROWS_AS(calc.fit_models({{"gpu", "nonesuch"}}), vram::Error);
  }
}

TEST_CASE("fit_models sizes a model stored narrower than the asked format as stored") {
  const auto& calc = testing::calculator();
  auto row_of = [](const json& answer, const std::string& id) {
    for (const json& row : answer.at("models")) {
      if (row.at("id") == id) return row;
    }
    return json();
  };
  auto total = [&](const std::string& id, const std::string& weights) {
    return calc
        .estimate({{"model", id}, {"weights", weights}, {"gpu", "h100-sxm"}, {"engine", "guide"}})
        .at("total_gb")
        .get<double>();
  };
  const json fp8 = calc.fit_models({{"gpu", "h100-sxm"}, {"weights", "fp8"}});
  // gpt-oss-120b keeps its experts in MXFP4: in FP8 it would need 120 GB.
  const json oss = row_of(fp8, "gpt-oss-120b");
  CHECK(oss.at("as_stored") == true);
  CHECK(oss.at("total_gb").get<double>() == doctest::Approx(total("gpt-oss-120b", "native")));
  CHECK(oss.at("fits") == true);
  // One rule: estimate sizes it so too (67.5 GB, not 120.3 in FP8).
  CHECK(total("gpt-oss-120b", "fp8") == doctest::Approx(oss.at("total_gb").get<double>()));
  CHECK(total("gpt-oss-120b", "fp8") < 80.0);
  // A model stored in 16 bits, or in FP8 itself, takes the asked format.
  CHECK(row_of(fp8, "llama-3.1-8b").at("as_stored") == false);
  CHECK(row_of(fp8, "llama-3.1-8b").at("total_gb").get<double>() ==
        doctest::Approx(total("llama-3.1-8b", "fp8")));
  CHECK(row_of(fp8, "deepseek-v3").at("as_stored") == false);
  // A format as narrow as the checkpoint is applied.
  const json int4 = calc.fit_models({{"gpu", "h100-sxm"}, {"weights", "int4"}});
  CHECK(row_of(int4, "gpt-oss-120b").at("as_stored") == false);
  CHECK(row_of(int4, "gpt-oss-120b").at("total_gb").get<double>() ==
        doctest::Approx(total("gpt-oss-120b", "int4")));
  const json native = calc.fit_models({{"gpu", "h100-sxm"}, {"weights", "native"}});
  for (const json& row : native.at("models")) CHECK(row.at("as_stored") == false);
}
