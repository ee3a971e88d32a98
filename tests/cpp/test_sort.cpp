// The one sort the core compiles (vram/sort.hpp): stable, for every element type.
#include <doctest/doctest.h>

#include <algorithm>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "vram/sort.hpp"

namespace {

struct Item {
  int key;
  int seen;  ///< where it stood before the sort
  std::string label;
};

}  // namespace

TEST_CASE(
    "stable_sort_by orders as std::stable_sort does: every length, many ties, equal ones kept in "
    "order") {
  std::uint32_t seed = 12345;
  const auto next = [&seed] { return seed = seed * 1103515245u + 12345u; };
  for (int n = 0; n <= 70; ++n) {
    for (int keys : {1, 3, 1000}) {
      std::vector<Item> items;
      for (int i = 0; i < n; ++i) {
        const int key = static_cast<int>((next() >> 8) % static_cast<std::uint32_t>(keys));
        items.push_back({key, i, "item " + std::to_string(i)});
      }
      std::vector<Item> expected = items;
      const auto less = [](const Item& a, const Item& b) { return a.key < b.key; };
      std::stable_sort(expected.begin(), expected.end(), less);
      vram::stable_sort_by(items, less);
      REQUIRE(items.size() == expected.size());
      for (std::size_t i = 0; i < items.size(); ++i) {
        CHECK(items[i].key == expected[i].key);
        CHECK(items[i].seen == expected[i].seen);
        // Moved, not lost: each element's own strings travel with it.
        CHECK(items[i].label == "item " + std::to_string(items[i].seen));
      }
    }
  }
}

TEST_CASE("stable_order: the positions in order, descending by a key too") {
  const std::vector<int> values = {5, 1, 4, 1, 5, 9, 2, 6};
  const auto order = vram::stable_order(
      values.size(),
      [](const void* context, std::size_t a, std::size_t b) {
        const auto& v = *static_cast<const std::vector<int>*>(context);
        return v[a] > v[b];
      },
      &values);
  CHECK(order == std::vector<std::size_t>{5, 7, 0, 4, 2, 6, 1, 3});
  CHECK(vram::stable_order(0, nullptr, nullptr).empty());
}
