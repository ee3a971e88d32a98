// The concurrency curve (Calculator::curve): the estimate's own speed at each
// load, as many users as the inverse answers hold, the knee at the floor and
// its cost from the card's price.

#include <doctest/doctest.h>

#include "helpers.hpp"

using nlohmann::json;

TEST_CASE("the curve is the estimate's speed at each load, up to the users that fit") {
  const json request = {{"model", "llama-3.1-70b"}, {"weights", "fp8"}, {"engine", "vllm"},
                        {"gpu", "h100-sxm"},        {"gpu_count", 2},   {"context", 8192},
                        {"min_tokens_per_s", 30}};
  const json curve = testing::calculator().curve(request);
  const json one = testing::estimate(request);
  const std::int64_t limit = curve.at("users_limit").get<std::int64_t>();
  CHECK(limit == one.at("inverse").at("max_batch").get<std::int64_t>());
  const json& points = curve.at("points");
  REQUIRE(points.size() >= 3);
  CHECK(points.front().at("users") == 1);
  CHECK(points.back().at("users") == limit);
  for (std::size_t i = 1; i < points.size(); ++i) {
    CHECK(points[i].at("users") > points[i - 1].at("users"));
    CHECK(points[i].at("tokens_per_s") <= points[i - 1].at("tokens_per_s"));
    CHECK(points[i].at("total_tokens_per_s") >= points[i - 1].at("total_tokens_per_s"));
  }
  // Each point is what estimate says at that batch.
  for (const json& p : points) {
    json at = request;
    at["batch"] = p.at("users");
    const json e = testing::estimate(at);
    CHECK(p.at("tokens_per_s").get<double>() ==
          doctest::Approx(e.at("decode").at("expected_tokens_per_s").get<double>()).epsilon(1e-12));
    CHECK(p.at("low") < p.at("tokens_per_s"));
    CHECK(p.at("high") > p.at("tokens_per_s"));
  }
  // The knee: the most users at 30 tok/s each, and one more is below it.
  const json& f = curve.at("at_floor");
  const std::int64_t users = f.at("users").get<std::int64_t>();
  REQUIRE(users >= 1);
  REQUIRE(users < limit);
  json more = request;
  more["batch"] = users + 1;
  CHECK(testing::estimate(more).at("decode").at("expected_tokens_per_s").get<double>() < 30);
  more["batch"] = users;
  CHECK(testing::estimate(more).at("decode").at("expected_tokens_per_s").get<double>() >= 30);
  // What a million output tokens cost there: the cards' hour over the tokens of that hour.
  const double hourly = f.at("usd_per_hour").get<double>();
  CHECK(hourly > 0);
  CHECK(f.at("usd_per_million_output").get<double>() ==
        doctest::Approx(hourly / (f.at("total_tokens_per_s").get<double>() * 3600) * 1e6));
  CHECK(f.at("usd_per_million_input").get<double>() < f.at("usd_per_million_output").get<double>());
}

TEST_CASE("the curve asks for a card and an inference plan") {
  const auto error = [](const json& request) {
    const json a = json::parse(vram::call(testing::calculator(), "curve", request.dump()));
    REQUIRE(a.contains("error"));
    return a.at("error");
  };
  CHECK(error({{"model", "qwen3-8b"}}).at("field") == "gpu");
  CHECK(error({{"model", "qwen3-8b"}, {"gpu", "l4"}, {"mode", "lora"}}).at("code") ==
        "not_applicable");
  // A model no count of users fits: no points, no knee.
  const json none = testing::calculator().curve({{"model", "llama-3.1-405b"}, {"gpu", "l4"}});
  CHECK(none.at("users_limit") == 0);
  CHECK(none.at("points").empty());
  CHECK(none.at("at_floor").is_null());
}
