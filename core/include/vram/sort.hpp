#pragma once

#include <cstddef>
#include <utility>
#include <vector>

namespace vram {

/**
 * The positions 0..n-1 in the stable order of `less(context, a, b)` (a
 * merge sort). One compiled copy serves every element type: a
 * std::stable_sort or std::sort per element type and comparator was about
 * 2.7 KB of the page's wasm each, 19 KB in all (README, size and speed).
 */
std::vector<std::size_t> stable_order(std::size_t n,
                                      bool (*less)(const void* context, std::size_t a,
                                                   std::size_t b),
                                      const void* context);

/** Sorts `items` by `less` (a strict weak order), equal elements kept in their order. */
template <class T, class Less>
void stable_sort_by(std::vector<T>& items, const Less& less) {
  struct Context {
    const std::vector<T>* items;
    const Less* less;
  } context{&items, &less};
  const std::vector<std::size_t> order = stable_order(
      items.size(),
      [](const void* c, std::size_t a, std::size_t b) {
        const Context& ctx = *static_cast<const Context*>(c);
        return (*ctx.less)((*ctx.items)[a], (*ctx.items)[b]);
      },
      &context);
  std::vector<T> sorted;
  sorted.reserve(items.size());
  for (std::size_t i : order) sorted.push_back(std::move(items[i]));
  items = std::move(sorted);
}

}  // namespace vram
