// The inverse answers' search (vram/inverse.hpp largest_fitting): the
// largest n that fits, the same as a bisection's for every monotone fit,
// whatever its margin says, and in few trials where the margin is a line.
#include <doctest/doctest.h>

#include <cmath>
#include <cstdint>
#include <functional>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include "vram/inverse.hpp"

namespace {

using vram::SearchTrial;

/** The plain bisection the search must agree with. */
std::int64_t bisect(std::int64_t hi, const std::function<bool(std::int64_t)>& fits) {
  if (!fits(1)) return 0;
  if (fits(hi)) return hi;
  std::int64_t lo = 1;
  while (hi - lo > 1) {
    const std::int64_t mid = lo + (hi - lo) / 2;
    (fits(mid) ? lo : hi) = mid;
  }
  return lo;
}

struct Case {
  std::string name;
  std::int64_t hi;
  std::function<SearchTrial(std::int64_t)> trial;
};

/** The search's answer, checked against the bisection's; its trial count in `trials`. */
std::int64_t searched(const Case& c, int& trials) {
  trials = 0;
  const std::int64_t got = vram::largest_fitting(c.hi, [&](std::int64_t n) {
    ++trials;
    REQUIRE(n >= 1);
    REQUIRE(n <= c.hi);
    return c.trial(n);
  });
  INFO(c.name);
  CHECK(got == bisect(c.hi, [&](std::int64_t n) { return c.trial(n).fits; }));
  return got;
}

/** A budget of `budget` bytes less `fixed` and `per` bytes per unit: a line. */
Case line(double budget, double fixed, double per, std::int64_t hi) {
  return {"line " + std::to_string(budget) + " " + std::to_string(fixed) + " " +
              std::to_string(per) + " " + std::to_string(hi),
          hi, [=](std::int64_t n) {
            const double margin = budget - fixed - per * static_cast<double>(n);
            return SearchTrial{margin >= 0, margin};
          }};
}

}  // namespace

TEST_CASE("the search finds the bisection's answer, and a line's in at most 6 trials") {
  // 70B FP8 on an 80 GB card under the guide's convention: 8 GB of cache at
  // 327,680 bytes a token (SPEC section 1), over the context ceiling.
  int trials = 0;
  CHECK(searched(line(80e9, 72e9, 327680, 100'000'000), trials) == 24414);
  CHECK(trials <= 6);
  // Batches of 8,192 tokens on the same card: 2 sequences.
  CHECK(searched(line(80e9, 72e9, 327680.0 * 8192, 1'000'000), trials) == 2);
  CHECK(trials <= 6);
  // Nothing fits, everything fits, exactly one fits, all but the last fit.
  CHECK(searched(line(10, 20, 1, 1000), trials) == 0);
  CHECK(trials == 1);
  CHECK(searched(line(1e12, 0, 1, 1000), trials) == 1000);
  CHECK(trials == 2);
  CHECK(searched(line(10, 0, 10, 1000), trials) == 1);
  CHECK(searched(line(999, 0, 1, 1000), trials) == 999);
  CHECK(trials <= 6);
  CHECK(searched(line(1, 0, 1, 2), trials) == 1);

  // Random lines: the answer always, and at most 6 trials.
  std::mt19937_64 random(12);
  std::uniform_real_distribution<double> unit(0, 1);
  int most = 0;
  for (int i = 0; i < 3000; ++i) {
    const std::int64_t hi = 2 + static_cast<std::int64_t>(std::pow(10.0, 1 + 7 * unit(random)));
    const double per = std::pow(10.0, 12 * unit(random));
    const double budget = per * static_cast<double>(hi) * 1.2 * unit(random);
    searched(line(budget, per * 3 * unit(random), per, hi), trials);
    most = std::max(most, trials);
  }
  CHECK(most <= 6);
}

TEST_CASE("a margin far from a line, or wrong, costs trials but never the answer") {
  int trials = 0;
  const auto bisection_trials = [](std::int64_t hi) {
    return 2 + static_cast<int>(std::ceil(std::log2(static_cast<double>(hi))));
  };
  std::vector<Case> cases;
  // A sliding window: the cache stops growing past 4,096 tokens, so the
  // margin is flat there (the fit never changes past the window).
  cases.push_back({"window, fits all", 1'000'000, [](std::int64_t n) {
                     const double margin =
                         5e9 - 1e6 * static_cast<double>(std::min<std::int64_t>(n, 4096));
                     return SearchTrial{margin >= 0, margin};
                   }});
  cases.push_back({"window, short", 1'000'000, [](std::int64_t n) {
                     const double kv = 1e6 * static_cast<double>(std::min<std::int64_t>(n, 4096));
                     const double margin = 3e9 - kv - 1e3 * static_cast<double>(n);
                     return SearchTrial{margin >= 0, margin};
                   }});
  // A quadratic margin (attention scores that grow with the square of the context).
  cases.push_back({"quadratic", 100'000'000, [](std::int64_t n) {
                     const double x = static_cast<double>(n);
                     const double margin = 1e15 - 2e3 * x - 0.5 * x * x;
                     return SearchTrial{margin >= 0, margin};
                   }});
  // Steps: a paged engine rounds to blocks of 16 tokens.
  cases.push_back({"blocks", 100'000'000, [](std::int64_t n) {
                     const double blocks = std::ceil(static_cast<double>(n) / 16);
                     const double margin = 1e9 - blocks * 16 * 1e4;
                     return SearchTrial{margin >= 0, margin};
                   }});
  // A fit with a rule beyond the margin (vLLM: one sequence's tokens must
  // fit one rank's pool), the margin still positive past it.
  cases.push_back({"rule beyond the margin", 1'000'000, [](std::int64_t n) {
                     return SearchTrial{n <= 77'777, 1e12 - static_cast<double>(n)};
                   }});
  // Cliffs: the margin jumps at the answer, so a line through the bracket
  // guesses one step from an end each time; the halvings close it.
  cases.push_back({"cliff near lo", 1'000'000, [](std::int64_t n) {
                     return SearchTrial{n <= 500'000, n <= 500'000 ? 1.0 : -1e12};
                   }});
  cases.push_back({"cliff near hi", 1'000'000, [](std::int64_t n) {
                     return SearchTrial{n <= 500'000, n <= 500'000 ? 1e12 : -1.0};
                   }});
  // A margin that says nothing, lies, or is not a number.
  cases.push_back({"zero margin", 1'000'000, [](std::int64_t n) {
                     return SearchTrial{n <= 123'456, 0};
                   }});
  cases.push_back({"inverted margin", 1'000'000, [](std::int64_t n) {
                     return SearchTrial{n <= 5, static_cast<double>(n) - 5e5};
                   }});
  cases.push_back({"nan", 1'000'000, [](std::int64_t n) {
                     return SearchTrial{n <= 999'999, std::numeric_limits<double>::quiet_NaN()};
                   }});
  cases.push_back({"infinite", 1'000'000, [](std::int64_t n) {
                     const double inf = std::numeric_limits<double>::infinity();
                     return SearchTrial{n <= 31, n <= 31 ? inf : -inf};
                   }});
  cases.push_back({"huge margins", 100'000'000, [](std::int64_t n) {
                     const double margin = 1e308 - 1e300 * static_cast<double>(n);
                     return SearchTrial{n <= 99'999'999, margin};
                   }});
  for (const Case& c : cases) {
    searched(c, trials);
    INFO(c.name);
    CHECK(trials <= 2 * bisection_trials(c.hi));
  }
}
